//! The executable form of a kernel: what the loader produces and the executor runs.
//!
//! Everything textual is gone: registers are dense indices into per-class register files,
//! modifiers are enums, branch targets are instruction indices, variables are addresses.
//! Register classes: `r32` holds every value of 32 bits or fewer (b8..b32, f16, f16x2, f32),
//! zero-extended; `r64` holds 64-bit values (b64, f64, f32x2); predicates are one bit per
//! lane in a `u32` mask.

use tmemu_ptx::span::Span;

/// A source operand of a given lane type: a register of that class or an immediate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum S<T> {
    R(u16),
    I(T),
}

pub type S32 = S<u32>;
pub type S64 = S<u64>;

/// An operand of any class (for instructions whose operands cross classes: cvt, ld/st, shfl).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Any {
    R32(u16),
    R64(u16),
    Imm(u64),
    /// `_` as a destination; reads as 0.
    Sink,
}

/// A predicate source, possibly negated (`!%p`), or a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PSrc {
    P { idx: u16, neg: bool },
    Const(bool),
}

/// Integer binary operations (the lane width comes from the instruction variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOp {
    Add,
    Sub,
    MulLo,
    MulHiU,
    MulHiS,
    DivU,
    DivS,
    RemU,
    RemS,
    MinU,
    MinS,
    MaxU,
    MaxS,
    And,
    Or,
    Xor,
    Shl,
    ShrU,
    ShrS,
    /// add.sat.s32
    AddSatS,
    SubSatS,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntUnOp {
    Not,
    Neg,
    Abs,
    Popc,
    Clz,
    Brev,
    Cnot,
    /// bfind.u / bfind.s (position of most significant non-sign bit, or all-ones)
    BfindU,
    BfindS,
    /// bfind.shiftamt: the left shift that brings the found bit to the top (all-ones if none)
    BfindShiftU,
    BfindShiftS,
}

/// How narrow (8/16-bit) integer operands are widened before a 32-bit operation and how the
/// result is narrowed. `None` means the operation is natively 32- or 64-bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Narrow {
    None,
    U8,
    S8,
    U16,
    S16,
}

/// Comparison of `setp` (integer signedness and float orderedness are part of the op).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    LtS,
    LeS,
    GtS,
    GeS,
    LtU,
    LeU,
    GtU,
    GeU,
    // float, ordered
    FEq,
    FNe,
    FLt,
    FLe,
    FGt,
    FGe,
    // float, unordered (true if either is NaN)
    FEqu,
    FNeu,
    FLtu,
    FLeu,
    FGtu,
    FGeu,
    FNum,
    FNan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Float operations on one lane width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FOp {
    Add,
    Sub,
    Mul,
    Min,
    Max,
    MinNan,
    MaxNan,
    /// min/max.xorsign.abs: compare magnitudes, sign = xor of the input signs
    MinXorsign,
    MaxXorsign,
    /// min/max.NaN.xorsign.abs: as above, a NaN input gives the canonical NaN
    MinXorsignNan,
    MaxXorsignNan,
    Div,
    /// copysign: magnitude of b, sign of a
    Copysign,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FUnOp {
    Neg,
    Abs,
    Sqrt,
    Rsqrt,
    Rcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}

/// Rounding mode of a float instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
    /// `.approx`: an approximation whose precise result is the numerics crate's choice.
    Approx,
    /// `.full` (div.full.f32)
    Full,
    /// `.rna` (cvt to tf32 / fp8)
    Rna,
}

/// Float modifiers of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FMods {
    pub rnd: Rnd,
    pub ftz: bool,
    pub sat: bool,
}

/// State spaces as the engine sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Generic,
    Global,
    Shared,
    SharedCluster,
    Local,
    Param,
    Const,
}

/// A memory address operand: `[base + offset]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Addr {
    pub base: Any,
    pub offset: i64,
}

/// Width and extension of one element of a load/store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elem {
    /// Bytes: 1, 2, 4, 8 or 16.
    pub size: u8,
    /// Sign-extend a narrow load into its register.
    pub signed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    FAdd32,
    FAdd64,
    Min,
    Max,
    MinS,
    MaxS,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    FMin32,
    FMax32,
    /// `.add.noftz.f16` / `.bf16` (2-byte word) and `.f16x2` / `.bf16x2` (4-byte word,
    /// elementwise): exec/atom_half.rs.
    HalfAdd(crate::exec::atom_half::HalfAtom),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduxOp {
    Add,
    MinU,
    MinS,
    MaxU,
    MaxS,
    And,
    Or,
    Xor,
    FMin,
    FMax,
    FMinNan,
    FMaxNan,
    FMinAbs,
    /// `.abs.NaN`: |x| of every input; a NaN input makes the result the canonical NaN.
    FMinAbsNan,
    FMaxAbsNan,
    FMaxAbs,
}

/// Special registers, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sreg {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    ClusterCtaRank,
    ClusterNCtaRank,
    ClusterId(u8),
    NClusterId(u8),
    ClusterCtaId(u8),
    ClusterNCtaId(u8),
    IsExplicitCluster,
    SmId,
    NSmId,
    GridId,
    Clock,
    Clock64,
    ClockHi,
    GlobalTimer,
    GlobalTimerLo,
    GlobalTimerHi,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    DynamicSmemSize,
    TotalSmemSize,
    AggrSmemSize,
    CurrentGraphExec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbarOp {
    Init,
    Inval,
    /// arrive / arrive_drop with optional count, optionally expect_tx(tx) first.
    Arrive {
        drop: bool,
        expect_tx: bool,
        no_complete: bool,
    },
    ExpectTx,
    CompleteTx,
    TestWait {
        parity: bool,
    },
    TryWait {
        parity: bool,
    },
}

/// The operation of [`Inst::IntExt32`], with the form's modifiers bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntExtOp {
    Mul24 {
        signed: bool,
        hi: bool,
    },
    Mad24 {
        signed: bool,
        hi: bool,
        sat: bool,
    },
    Sad {
        signed: bool,
    },
    Dp4a {
        a_signed: bool,
        b_signed: bool,
    },
    Dp2a {
        hi: bool,
        a_signed: bool,
        b_signed: bool,
    },
    Bmsk {
        clamp: bool,
    },
    Szext {
        signed: bool,
        clamp: bool,
    },
    /// fns.b32 d, mask, base, offset
    Fns,
    /// mad.hi.sat.s32
    MadHiSatS32,
    /// min/max.relu.s32
    MinMaxReluS32 {
        is_min: bool,
    },
    /// min/max{.relu}.{s16x2,u16x2}
    MinMax16x2 {
        signed: bool,
        is_min: bool,
        relu: bool,
    },
    Prmt(tmemu_num::ops::int::PrmtMode),
    /// slct.{b32,u32,s32,f32}.{s32,f32} d, a, b, c
    Slct {
        c_f32: bool,
        ftz: bool,
    },
    /// set.cmp{.ftz}.{u32,s32,f32}.{b32,u32,s32,f32} d, a, b (no boolean combination)
    Set {
        op: tmemu_num::ops::CmpOp,
        src_f32: bool,
        signed: bool,
        ftz: bool,
        dst_f32: bool,
    },
}

/// One pre-decoded instruction. Large variants are boxed to keep the enum compact.
#[derive(Clone, Debug)]
pub enum Inst {
    Nop,
    // ---- integer
    Bin32 {
        op: IntOp,
        n: Narrow,
        d: u16,
        a: S32,
        b: S32,
    },
    Bin64 {
        op: IntOp,
        d: u16,
        a: S64,
        b: S64,
    },
    /// add.cc / addc{.cc} / sub.cc / subc{.cc} (32 or 64 bits): the carry (borrow for sub)
    /// lives in the warp's per-lane CC.CF bit.
    AddCarry(Box<CarryInst>),
    /// 64-bit shift by a 32-bit amount
    Shift64 {
        op: IntOp,
        d: u16,
        a: S64,
        b: S32,
    },
    Un32 {
        op: IntUnOp,
        n: Narrow,
        d: u16,
        a: S32,
    },
    /// 64-bit unary op; popc/clz/bfind write a 32-bit register.
    Un64 {
        op: IntUnOp,
        d: Any,
        a: S64,
    },
    /// mul.wide.{u,s}32 → 64-bit
    MulWide32 {
        signed: bool,
        d: u16,
        a: S32,
        b: S32,
    },
    /// mul.wide.{u,s}16 → 32-bit
    MulWide16 {
        signed: bool,
        d: u16,
        a: S32,
        b: S32,
    },
    /// mad.lo / mad.hi on 32 bits (hi: `hi_signed` Some)
    Mad32 {
        hi: Option<bool>,
        n: Narrow,
        d: u16,
        a: S32,
        b: S32,
        c: S32,
    },
    Mad64 {
        hi: Option<bool>,
        d: u16,
        a: S64,
        b: S64,
        c: S64,
    },
    MadWide32 {
        signed: bool,
        d: u16,
        a: S32,
        b: S32,
        c: S64,
    },
    /// mad.wide.{u,s}16: 16 × 16 → 32-bit product plus a 32-bit addend
    MadWide16 {
        signed: bool,
        d: u16,
        a: S32,
        b: S32,
        c: S32,
    },
    Lop3 {
        d: u16,
        a: S32,
        b: S32,
        c: S32,
        lut: u8,
    },
    Lop3_64 {
        d: u16,
        a: S64,
        b: S64,
        c: S64,
        lut: u8,
    },
    Prmt {
        d: u16,
        a: S32,
        b: S32,
        c: S32,
    },
    /// The rarer 32-bit integer forms (mul24, mad24, sad, dp4a, dp2a, bmsk, szext, fns,
    /// mad.hi.sat, min/max.relu, 16x2 min/max, prmt modes), each evaluated per lane by
    /// `tmemu_num::ops::int`; two-source forms ignore `c`.
    IntExt32 {
        op: IntExtOp,
        d: u16,
        a: S32,
        b: S32,
        c: S32,
    },
    /// shf.{l,r}.{wrap,clamp}.b32
    Shf {
        left: bool,
        clamp: bool,
        d: u16,
        a: S32,
        b: S32,
        c: S32,
    },
    Bfe32 {
        signed: bool,
        d: u16,
        a: S32,
        b: S32,
        c: S32,
    },
    Bfe64 {
        signed: bool,
        d: u16,
        a: S64,
        b: S32,
        c: S32,
    },
    Bfi32 {
        d: u16,
        a: S32,
        b: S32,
        c: S32,
        e: S32,
    },
    Bfi64 {
        d: u16,
        a: S64,
        b: S64,
        c: S32,
        e: S32,
    },
    // ---- compare / select / predicates
    Setp32 {
        cmp: CmpOp,
        n: Narrow,
        ftz: bool,
        p: u16,
        q: Option<u16>,
        a: S32,
        b: S32,
        comb: Option<(BoolOp, PSrc)>,
    },
    Setp64 {
        cmp: CmpOp,
        p: u16,
        q: Option<u16>,
        a: S64,
        b: S64,
        comb: Option<(BoolOp, PSrc)>,
    },
    Selp32 {
        d: u16,
        a: S32,
        b: S32,
        p: PSrc,
    },
    Selp64 {
        d: u16,
        a: S64,
        b: S64,
        p: PSrc,
    },
    PredLogic {
        op: BoolOp,
        d: u16,
        a: PSrc,
        b: PSrc,
    },
    PredMov {
        d: u16,
        a: PSrc,
    },
    // ---- moves
    Mov32 {
        d: u16,
        a: S32,
    },
    Mov64 {
        d: u16,
        a: S64,
    },
    /// mov.b64 d, {lo, hi}
    Pack64 {
        d: u16,
        lo: S32,
        hi: S32,
    },
    /// mov.b64 {lo, hi}, a
    Unpack64 {
        lo: Any,
        hi: Any,
        a: S64,
    },
    /// mov.b32 d, {lo16, hi16}
    Pack32 {
        d: u16,
        lo: S32,
        hi: S32,
    },
    Unpack32 {
        lo: Any,
        hi: Any,
        a: S32,
    },
    /// `mov.b32 {b0, b1, b2, b3}, a`: the four bytes of `a`, lowest first
    Unpack32x4 {
        /// boxed: four inline `Any`s would make every `Inst` 72 bytes (`inst_stays_compact`)
        d: Box<[Any; 4]>,
        a: S32,
    },
    MovSreg {
        d: Any,
        s: Sreg,
    },
    /// `mbarrier.pending_count.b64 count, state`: the pending count an arrive captured in its
    /// opaque state (exec/sync.rs `state_pending`); no memory access.
    MbarPendingCount {
        d: u16,
        state: S64,
    },
    /// `isspacep.space p, a` (exec/memory.rs): whether generic address `a` lies in the window
    /// of `space` (`Shared`: the executing CTA's, `SharedCluster`: any CTA of the cluster).
    Isspacep {
        d: u16,
        space: Space,
        a: Any,
    },
    /// `alloca.type ptr, size{, align}` (exec/stack.rs): `size` bytes of the thread's dynamic
    /// stack at `align` (already `max(immAlign, 8)`); `ptr` is a `.local` address.
    Alloca {
        d: Any,
        size: Any,
        align: u32,
    },
    /// `stacksave.type d` (exec/stack.rs): the thread's stack pointer, a `.local` address.
    StackSave {
        d: Any,
    },
    /// `stackrestore.type a` (exec/stack.rs): frees the dynamic stack above `a`.
    StackRestore {
        a: Any,
    },
    /// `movmatrix.sync.aligned.m8n8.trans.b16 d, a` (exec/matrix.rs): a warp-wide transpose of
    /// an 8×8 matrix of 16-bit elements held in the ldmatrix fragment layout.
    MovMatrix {
        d: u16,
        a: u16,
    },
    /// `set.CmpOp.BoolOp.dtype.stype d, a, b, {!}c`: `op` is the [`IntExtOp::Set`] of the
    /// comparison, combined with predicate `c` by `bool_op` (exec/int.rs).
    SetBool {
        op: IntExtOp,
        bool_op: BoolOp,
        d: u16,
        a: S32,
        b: S32,
        c: PSrc,
    },
    /// `cvt.pack.sat.{u16,s16}.s32` / `.{u8,s8}.s32.b32` (exec/cvt.rs,
    /// `tmemu_num::ops::cvt::cvt_pack_sat`); `c` is 0 for the 16-bit forms.
    CvtPackSat {
        d: u16,
        a: S32,
        b: S32,
        c: S32,
        bits: u8,
        signed: bool,
    },
    /// `cvt.rs{.relu}{.satfinite}.bf16x2.f32 d, a, b, rbits` (exec/cvt.rs,
    /// `tmemu_num::ops::cvt::cvt_rs_bf16x2_f32`).
    CvtRsBf16x2 {
        d: u16,
        a: S32,
        b: S32,
        rbits: S32,
        relu: bool,
        satfinite: bool,
    },
    /// `mov.pred p, %is_explicit_cluster`: a special register read as a predicate.
    MovSregPred {
        d: u16,
        s: Sreg,
    },
    // ---- float
    F32Bin {
        op: FOp,
        m: FMods,
        d: u16,
        a: S32,
        b: S32,
    },
    F32Max3 {
        op: FOp,
        m: FMods,
        d: u16,
        a: S32,
        b: S32,
        c: S32,
    },
    F32Fma {
        m: FMods,
        d: u16,
        a: S32,
        b: S32,
        c: S32,
    },
    F32Un {
        op: FUnOp,
        m: FMods,
        d: u16,
        a: S32,
    },
    F64Bin {
        op: FOp,
        m: FMods,
        d: u16,
        a: S64,
        b: S64,
    },
    F64Fma {
        m: FMods,
        d: u16,
        a: S64,
        b: S64,
        c: S64,
    },
    F64Un {
        op: FUnOp,
        m: FMods,
        d: u16,
        a: S64,
    },
    /// f32x2 packed ops (add/sub/mul/fma)
    F32x2Bin {
        op: FOp,
        m: FMods,
        d: u16,
        a: S64,
        b: S64,
    },
    F32x2Fma {
        m: FMods,
        d: u16,
        a: S64,
        b: S64,
        c: S64,
    },
    /// f16 / bf16 (and x2 packed) arithmetic, evaluated by tmemu-num.
    Half(Box<HalfInst>),
    /// Mixed precision `add/sub{.rnd}.f32.{f16,bf16} d, a, c` and `fma.rn.f32.{f16,bf16} d, a, b, c`:
    /// the 16-bit sources widen exactly to f32, then the f32 operation rounds once.
    Mixed(Box<MixedInst>),
    /// setp on f16/bf16 (x2: `p` from the low halves, `q` from the high halves)
    SetpHalf(Box<SetpHalfInst>),
    /// testp.op.{f32,f64} p, a
    Testp {
        op: tmemu_num::ops::TestP,
        f64: bool,
        p: u16,
        a: Any,
    },
    // ---- conversion
    Cvt(Box<CvtInst>),
    // ---- memory
    Ld(Box<LdSt>),
    St(Box<LdSt>),
    Atom(Box<AtomInst>),
    /// Vector `atom`/`red` (`.v2/.v4/.v8` of f32/f16/bf16/f16x2/bf16x2): exec/atom_vec.rs.
    AtomVec(Box<crate::exec::atom_vec::AtomVecInst>),
    /// `atom.{exch,cas}.b128` (exec/atom128.rs).
    Atom128(Box<crate::exec::atom128::Atom128Inst>),
    /// `getctarank{.shared::cluster}.{u32,u64} d, a`: the cluster rank of the CTA whose shared
    /// memory the address `a` (generic when `generic`) names: exec/getctarank.rs.
    Getctarank {
        generic: bool,
        d: Any,
        a: Any,
    },
    /// cvta / cvta.to
    Cvta {
        to_generic: bool,
        space: Space,
        d: Any,
        a: Any,
    },
    Mapa {
        generic: bool,
        d: Any,
        a: Any,
        rank: S32,
    },
    /// `mov d, shared_sym(+off)` (`generic`: `cvta.shared d, shared_sym`): the symbol's
    /// shared address `a` with the executing CTA's cluster rank in bits 24 and up (see `mem`),
    /// which the loader cannot know because one program serves every CTA.
    MovSharedSym {
        generic: bool,
        d: Any,
        a: u64,
    },
    /// cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size} (boxed, as the other
    /// copies: their addresses would triple the size of every `Inst`)
    CpAsync(Box<CpAsyncInst>),
    /// cp.async.bulk.shared::cta/cluster.global.mbarrier::complete_tx::bytes
    CpBulkG2S(Box<CpBulkG2SInst>),
    /// cp.async.bulk.global.shared::cta.bulk_group
    CpBulkS2G(Box<CpBulkS2GInst>),
    /// cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes
    CpBulkS2Cluster(Box<CpBulkS2ClusterInst>),
    // ---- warp-level
    Shfl {
        mode: ShflMode,
        d: u16,
        p: Option<u16>,
        a: S32,
        b: S32,
        c: S32,
        mask: S32,
    },
    Vote {
        mode: VoteMode,
        d: Any,
        a: PSrc,
        mask: S32,
    },
    Redux {
        op: ReduxOp,
        d: u16,
        a: S32,
        mask: S32,
    },
    Match {
        all: bool,
        b64: bool,
        d: u16,
        p: Option<u16>,
        a: Any,
        mask: S32,
    },
    Elect {
        d: Any,
        p: Option<u16>,
        mask: S32,
    },
    Activemask {
        d: u16,
    },
    // ---- control
    Bra {
        target: u32,
        uni: bool,
    },
    Call(Box<CallInst>),
    Ret,
    Exit,
    Trap,
    Brkpt,
    /// `call __assertfail, (message, file, line, function, charSize)`: CUDA's device-side
    /// assert (the system call of NVIDIA's "PTX Interoperability"), as nvcc's `assert` and
    /// Triton's `device_assert` under `debug=True` emit it; the launch fails, like `trap`.
    AssertFail,
    /// `call (ret), vprintf, (format, args)`: CUDA's device printf system call (Triton's
    /// `device_print`, nvcc's `printf`). The text is not produced; the return value is, as
    /// CUDA defines it: the number of arguments the format string consumes (its conversions),
    /// -1 for a null format. `fmt` and `ret` are the call's `.param` slots (local offsets).
    Vprintf {
        fmt: u32,
        ret: u32,
    },
    // ---- synchronisation
    /// bar.sync / barrier.sync / bar.red / bar.arrive
    Bar(Box<BarInst>),
    BarWarpSync {
        mask: S32,
    },
    ClusterArrive {
        relaxed: bool,
    },
    ClusterWait,
    /// membar / fence.* (kept as events; the sequential interpreter needs no memory effect).
    /// `kind` is what observers see (None: a fence no observer models, e.g. `fence.proxy.alias`).
    Fence {
        kind: Option<crate::observer::Fence>,
    },
    Mbar(Box<MbarInst>),
    GriddepLaunch,
    GriddepWait,
    Setmaxnreg {
        inc: bool,
        count: u32,
    },
    /// `cp.async.commit_group` / `cp.async.wait_group` / `cp.async.bulk.commit_group` / wait:
    /// copies complete immediately (`immediate` policy), so these only mark the point.
    AsyncGroupMark,
    /// `cp.async.commit_group` / `wait_group` / `wait_all` (non-bulk): only observers care.
    CpAsyncGroup(crate::observer::CpAsyncGroup),
    /// `cp.async.mbarrier.arrive{.noinc}` (`true` = `.noinc`): with `.noinc` the mbarrier
    /// arrive it performs (copies complete at issue, so the arrive-on happens now); without,
    /// no arrival (the pending count's increment and the arrive-on cancel out), but observers
    /// see its release of the thread's copies to the mbarrier.
    CpAsyncArrive(Box<MbarInst>, bool),
    /// `cp.async.bulk.commit_group` / `cp.async.bulk.wait_group{.read} N`: the bulk copies
    /// complete at issue, so these only tell observers where completion is observed
    /// (exec/sync.rs).
    BulkGroup(crate::observer::BulkGroup),
    /// tcgen05 alloc/dealloc/relinquish, ld/st/wait, cp, shift, commit, fence
    /// (exec/tcgen05).
    Tc(Box<crate::exec::tcgen05::TcInst>),
    /// cp.async.bulk.tensor / cp.reduce.async.bulk.tensor / cp.async.bulk.prefetch.tensor
    /// (exec/tma.rs).
    Tma(Box<crate::exec::tma::TmaInst>),
    /// cp.reduce.async.bulk, the non-tensor form (exec/tma.rs).
    BulkReduce(Box<crate::exec::tma::BulkReduceInst>),
    /// tensormap.replace and tensormap.cp_fenceproxy (exec/tma.rs).
    Tensormap(Box<crate::exec::tma::TensormapInst>),
    /// tcgen05.mma{.ws} (exec/mma.rs).
    Mma(Box<crate::exec::mma::MmaInst>),
    /// ldmatrix / stmatrix (exec/matrix.rs).
    Matrix(Box<crate::exec::matrix::MatrixInst>),
    /// Warp-level mma.sync.aligned (exec/mma_sync.rs).
    MmaSync(Box<crate::exec::mma_sync::MmaSyncInst>),
    /// brx.idx (exec/brx.rs).
    Brx(Box<crate::exec::brx::BrxInst>),
    /// clusterlaunchcontrol.try_cancel / query_cancel (exec/clc.rs).
    Clc(Box<crate::exec::clc::ClcInst>),
    /// st.async / red.async into a cluster CTA's shared memory with mbarrier complete_tx
    /// (exec/st_async.rs).
    StAsync(Box<crate::exec::st_async::StAsyncInst>),
    /// st.bulk: zero a shared-memory region (exec/st_bulk.rs).
    StBulk(Box<crate::exec::st_bulk::StBulkInst>),
    /// wmma.load / wmma.mma / wmma.store (exec/wmma.rs).
    Wmma(Box<crate::exec::wmma::WmmaInst>),
}

#[derive(Clone, Copy, Debug)]
pub struct CpAsyncInst {
    pub dst: Addr,
    pub src: Addr,
    pub size: u8,
    pub src_size: Option<Any>,
}

#[derive(Clone, Copy, Debug)]
pub struct CpBulkG2SInst {
    pub dst: Addr,
    pub src: Addr,
    pub size: Any,
    pub mbar: Addr,
    pub multicast: Option<S32>,
}

#[derive(Clone, Copy, Debug)]
pub struct CpBulkS2GInst {
    pub dst: Addr,
    pub src: Addr,
    pub size: Any,
}

#[derive(Clone, Copy, Debug)]
pub struct CpBulkS2ClusterInst {
    pub dst: Addr,
    pub src: Addr,
    pub size: Any,
    pub mbar: Addr,
}

#[derive(Clone, Debug)]
pub struct SetpHalfInst {
    pub kind: tmemu_num::ops::HalfKind,
    pub x2: bool,
    pub op: tmemu_num::ops::CmpOp,
    pub ftz: bool,
    pub p: u16,
    pub q: Option<u16>,
    pub a: S32,
    pub b: S32,
    pub comb: Option<(BoolOp, PSrc)>,
}

#[derive(Clone, Debug)]
pub struct CarryInst {
    pub sub: bool,
    /// addc/subc/madc: consume CC.CF
    pub use_cf: bool,
    /// .cc: produce CC.CF
    pub set_cf: bool,
    /// mad{c}.{lo,hi}{.cc}: multiply first (None: add/sub); Some(hi)
    pub mad_hi: Option<bool>,
    pub wide: bool,
    pub d: Any,
    pub a: Any,
    pub b: Any,
    pub c: Any,
}

#[derive(Clone, Debug)]
pub struct HalfInst {
    pub kind: tmemu_num::ops::HalfKind,
    pub x2: bool,
    pub op: tmemu_num::ops::HalfOp,
    pub m: tmemu_num::ops::HalfMods,
    pub d: u16,
    pub a: S32,
    pub b: S32,
    pub c: S32,
}

#[derive(Clone, Debug)]
pub struct MixedInst {
    /// Add, Sub or (with `c`) fused multiply-add.
    pub op: FOp,
    pub fma: bool,
    pub bf16: bool,
    pub m: FMods,
    pub d: u16,
    pub a: S32,
    pub b: S32,
    pub c: S32,
}

#[derive(Clone, Debug)]
pub struct CvtInst {
    /// Destination and source types as the numerics crate names them.
    pub to: tmemu_num::ops::ScalarType,
    pub from: tmemu_num::ops::ScalarType,
    pub m: tmemu_num::ops::CvtMods,
    pub d: Any,
    pub a: Any,
    /// Second source of packing cvts (`cvt.rn.f16x2.f32 d, a, b`): `a` goes to the upper half.
    pub b: Option<Any>,
}

#[derive(Clone, Debug)]
pub struct LdSt {
    pub space: Space,
    pub elem: Elem,
    /// One register per vector element (1, 2, 4 or 8).
    pub regs: Vec<Any>,
    pub addr: Addr,
    /// Memory-model strength (`.relaxed`/`.volatile`/`.acquire`/`.release`; plain = weak).
    pub order: crate::observer::MemOrder,
}

#[derive(Clone, Debug)]
pub struct AtomInst {
    pub space: Space,
    pub op: AtomOp,
    /// 4 or 8
    pub size: u8,
    /// None for `red`
    pub d: Option<Any>,
    pub addr: Addr,
    pub b: Any,
    pub c: Option<Any>,
    /// `.relaxed` (the default), `.acquire`, `.release`, `.acq_rel`.
    pub order: crate::observer::MemOrder,
}

#[derive(Clone, Debug)]
pub struct CallInst {
    pub target: u32,
    /// (caller param-slot offset, callee param-slot offset, size) copied at call.
    pub args: Vec<(u32, u32, u32)>,
    /// (callee return slot, caller retval slot, size) copied at return.
    pub rets: Vec<(u32, u32, u32)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarKind {
    Sync,
    Arrive,
    RedPopc,
    RedAnd,
    RedOr,
}

#[derive(Clone, Debug)]
pub struct BarInst {
    pub kind: BarKind,
    pub id: S32,
    /// Thread count (multiple of 32); None = all threads of the CTA.
    pub count: Option<S32>,
    /// bar.red: destination and predicate source.
    pub d: Option<Any>,
    pub pred: Option<PSrc>,
    /// `bar` (always aligned) or `barrier.*.aligned`: the whole warp must execute it together.
    /// Plain `barrier.sync` may be reached by a divergent warp (PTX ISA §9.7.13.1).
    pub aligned: bool,
}

#[derive(Clone, Debug)]
pub struct MbarInst {
    pub op: MbarOp,
    /// Own CTA (`.shared::cta` or generic) or `.shared::cluster`.
    pub space: Space,
    pub addr: Addr,
    /// state / predicate / count destination
    pub d: Option<Any>,
    pub dp: Option<u16>,
    /// count / tx-count / state / parity operand
    pub b: Option<Any>,
    /// `.relaxed` or the default `.release` (arrive) / `.acquire` (waits).
    pub sem: crate::observer::Sem,
    /// An explicit `.cta` scope (`.release.cta`, `.acquire.cta`). A release at CTA scope by a
    /// thread of another CTA synchronises with no waiter of the barrier (PTX ISA §8, morally
    /// strong). Deviation that hides races: the default scope, also `.cta` by the ISA, is
    /// trusted as `.cluster` (CUTLASS's ClusterBarrier emits it for its cross-CTA handshakes).
    pub cta_scope: bool,
}

/// Where an instruction came from, for diagnostics.
#[derive(Clone, Copy, Debug)]
pub struct InstInfo {
    pub span: Span,
    /// Byte range of the opcode text in the source (for messages).
    pub opcode: Span,
}

/// A loaded kernel: instructions of the entry and every reachable `.func`, laid out in one
/// array (PCs are global indices).
#[derive(Clone, Debug)]
pub struct Kernel {
    pub name: String,
    pub file: String,
    pub code: Vec<Inst>,
    /// Guard of each instruction (`@p` / `@!p`), parallel to `code`.
    pub guards: Vec<Option<PSrc>>,
    pub info: Vec<InstInfo>,
    pub entry_pc: u32,
    pub n_r32: u16,
    pub n_r64: u16,
    pub n_pred: u16,
    /// Kernel parameters: (name, offset, size) in the param block.
    pub params: Vec<ParamInfo>,
    pub param_bytes: u32,
    /// Static shared memory bytes (before the dynamic `.extern .shared` area).
    pub static_shared: u32,
    /// The declaration of the largest static `.shared` variable (where a launch error about
    /// too much static shared memory points).
    pub static_shared_span: Option<tmemu_ptx::span::Span>,
    /// Offset of the dynamic shared area (aligned).
    pub dyn_shared_offset: u32,
    /// Bytes of `.local` per thread (variables and call parameter slots).
    pub local_bytes: u32,
    /// `.const` bank image.
    pub const_image: Vec<u8>,
    /// Module `.global` variables: (name, size, align, initial bytes, address relocations).
    pub globals: Vec<GlobalVar>,
    pub reqntid: Option<[u32; 3]>,
    pub maxntid: Option<[u32; 3]>,
    pub maxnreg: Option<u32>,
    /// The entry register count a thread can have at most when ptxas honours `setmaxnreg`
    /// (`.maxnreg`, or `.maxntid`/`.reqntid` with `.minnctapersm`); `None`: ptxas ignores
    /// every setmaxnreg of the kernel ("unable to determine register count at entry", C7508,
    /// ptxas 13.5) and tmemu does too. See `exec::launch_regs`.
    pub setmaxnreg_entry: Option<u32>,
    pub reqnctapercluster: Option<[u32; 3]>,
    pub explicit_cluster: bool,
    /// The kernel uses global/generic atomics (then parallel runs fall back to one thread).
    pub uses_global_atomics: bool,
    /// For each parameter, whether global memory may be written through it; `None` when any
    /// buffer may be written (loader/provenance.rs). A prediction the race observer verifies.
    pub written_params: Option<Vec<bool>>,
    /// Source text lines for diagnostics are kept by the caller; this is the source's line
    /// table of `.loc`-free positions only.
    pub source: std::sync::Arc<str>,
    /// The r32 / r64 registers `Warp::reset` zeroes for a new CTA: those some thread may read
    /// before writing (loader/reset.rs; every register when the analysis is unsure).
    pub reset_r32: Vec<u16>,
    pub reset_r64: Vec<u16>,
}

#[derive(Clone, Debug)]
pub struct ParamInfo {
    pub name: String,
    pub offset: u32,
    pub size: u32,
    pub align: u32,
    pub is_pointer: bool,
    /// Element bits of a scalar parameter (8..64); 8 for `.b8` arrays.
    pub elem_bits: u32,
    pub is_float: bool,
    /// Declared with array dimensions (`.b8 p[64]`).
    pub is_array: bool,
}

#[derive(Clone, Debug)]
pub struct GlobalVar {
    pub name: String,
    /// Device address (assigned by the loader; see `launch::install_globals`).
    pub addr: u64,
    pub size: u64,
    pub align: u32,
    pub init: Vec<u8>,
    /// (offset in init, symbol index into `globals`, addend): the address of another global.
    pub relocs: Vec<(u64, usize, i64)>,
}

#[cfg(test)]
mod tests {
    /// The executor walks `Kernel::code` one `Inst` per step: a compact enum keeps a
    /// straight-line run of instructions on few cache lines, so rare large forms are boxed
    /// (the copies' three addresses made every `Inst` 96 bytes). 56 bytes are the three-source
    /// 64-bit forms (`mad.lo.s64`, `fma.rn.f64`, `fma.rn.f32x2`: three 16-byte `S64`s).
    #[test]
    fn inst_stays_compact() {
        let size = std::mem::size_of::<super::Inst>();
        println!("size_of::<Inst>() = {size}");
        assert!(
            size <= 56,
            "Inst grew to {size} bytes: box the new large variant"
        );
    }
}
