//! Typed decoding of instruction modifiers, so a loader never re-parses modifier strings.
//!
//! Three layers, each usable alone:
//! - [`classify`]: one modifier string (`global`, `v4`, `cta_group::2`) → a [`Modifier`].
//! - [`ModifierSet`]: all modifiers of an instruction, sorted into families (state spaces,
//!   types, vector width, rounding, comparison, ...) with no allocation; modifiers of no known
//!   family are kept, in order, as `others` (e.g. the `async.bulk.tensor` of a `cp`).
//! - Family decoders that also validate: [`decode_memory`] (`ld`/`st`/`ldu`/`red`/`atom`
//!   memory qualifiers) and [`decode_tcgen05`] (every `tcgen05.*` instruction). A qualifier they
//!   do not know is an [`UnsupportedModifier`] carrying the instruction's span, so the loader can
//!   say "unsupported: `<form>` at file:line:col". They check spelling, not the PTX rules about
//!   which combinations are legal (`.pack::16b` on `tcgen05.st` decodes, with `pack_16b`
//!   set); those are checker rules (TM04xx) with their own IDs.

use std::fmt;

use crate::ast::{Instruction, ScalarType, StateSpace};
use crate::span::Span;

/// One decoded modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modifier<'src> {
    Space(StateSpace),
    Type(ScalarType),
    /// `.v2`, `.v4`, `.v8`
    Vector(u8),
    Cache(CacheOp),
    /// `.nc` (non-coherent, read-only path)
    NonCoherent,
    Rounding(Rounding),
    Cmp(CmpOp),
    /// `.and`, `.or`, `.xor` of `setp`/`set` and of `red`/`atom`... (see [`BoolOp`])
    Bool(BoolOp),
    Sem(Semantics),
    Scope(Scope),
    /// `.cta_group::1` / `::2`
    CtaGroup(u8),
    /// `.x1` .. `.x128` (tcgen05 repeat count)
    Num(u8),
    /// `.L2::cache_hint` (an extra 64-bit cache-policy operand follows)
    L2CacheHint,
    /// `.L1::evict_*`, `.L2::evict_*`, `.L1::no_allocate`
    Eviction(Eviction),
    /// `.L2::64B` / `::128B` / `::256B` prefetch size
    Prefetch(u16),
    Flag(Flag),
    /// Anything else, as written (without the dot).
    Other(&'src str),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CacheOp {
    Ca,
    Cg,
    Cs,
    Lu,
    Cv,
    Wb,
    Wt,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    Rn,
    Rz,
    Rm,
    Rp,
    Rna,
    Rs,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

/// Boolean combiners (`setp.eq.and`), also the bitwise ops of `red`/`atom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Memory-consistency semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Semantics {
    Weak,
    Volatile,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    Mmio,
    Sc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    Cta,
    Cluster,
    Gpu,
    Sys,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Eviction {
    L1EvictNormal,
    L1EvictUnchanged,
    L1EvictFirst,
    L1EvictLast,
    L1NoAllocate,
    L2EvictNormal,
    L2EvictFirst,
    L2EvictLast,
}

/// Single-word flags common to many instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flag {
    Sync,
    Aligned,
    Uni,
    Ftz,
    Sat,
    Approx,
    Full,
    Wide,
    Hi,
    Lo,
    Cc,
    Relu,
    NaN,
    Abs,
    Neg,
    Noftz,
}

/// Classifies one modifier, given without its dot.
pub fn classify(m: &str) -> Modifier<'_> {
    use Modifier as M;
    if let Some(t) = type_of(m) {
        return M::Type(t);
    }
    if let Some(s) = StateSpace::from_name(m) {
        return M::Space(s);
    }
    match m {
        "v2" => M::Vector(2),
        "v4" => M::Vector(4),
        "v8" => M::Vector(8),
        "ca" => M::Cache(CacheOp::Ca),
        "cg" => M::Cache(CacheOp::Cg),
        "cs" => M::Cache(CacheOp::Cs),
        "lu" => M::Cache(CacheOp::Lu),
        "cv" => M::Cache(CacheOp::Cv),
        "wb" => M::Cache(CacheOp::Wb),
        "wt" => M::Cache(CacheOp::Wt),
        "nc" => M::NonCoherent,
        "rn" => M::Rounding(Rounding::Rn),
        "rz" => M::Rounding(Rounding::Rz),
        "rm" => M::Rounding(Rounding::Rm),
        "rp" => M::Rounding(Rounding::Rp),
        "rna" => M::Rounding(Rounding::Rna),
        "rs" => M::Rounding(Rounding::Rs),
        "rni" => M::Rounding(Rounding::Rni),
        "rzi" => M::Rounding(Rounding::Rzi),
        "rmi" => M::Rounding(Rounding::Rmi),
        "rpi" => M::Rounding(Rounding::Rpi),
        "eq" => M::Cmp(CmpOp::Eq),
        "ne" => M::Cmp(CmpOp::Ne),
        "lt" => M::Cmp(CmpOp::Lt),
        "le" => M::Cmp(CmpOp::Le),
        "gt" => M::Cmp(CmpOp::Gt),
        "ge" => M::Cmp(CmpOp::Ge),
        "lo" => M::Cmp(CmpOp::Lo),
        "ls" => M::Cmp(CmpOp::Ls),
        "hi" => M::Cmp(CmpOp::Hi),
        "hs" => M::Cmp(CmpOp::Hs),
        "equ" => M::Cmp(CmpOp::Equ),
        "neu" => M::Cmp(CmpOp::Neu),
        "ltu" => M::Cmp(CmpOp::Ltu),
        "leu" => M::Cmp(CmpOp::Leu),
        "gtu" => M::Cmp(CmpOp::Gtu),
        "geu" => M::Cmp(CmpOp::Geu),
        "num" => M::Cmp(CmpOp::Num),
        "nan" => M::Cmp(CmpOp::Nan),
        "and" => M::Bool(BoolOp::And),
        "or" => M::Bool(BoolOp::Or),
        "xor" => M::Bool(BoolOp::Xor),
        "weak" => M::Sem(Semantics::Weak),
        "volatile" => M::Sem(Semantics::Volatile),
        "relaxed" => M::Sem(Semantics::Relaxed),
        "acquire" => M::Sem(Semantics::Acquire),
        "release" => M::Sem(Semantics::Release),
        "acq_rel" => M::Sem(Semantics::AcqRel),
        "mmio" => M::Sem(Semantics::Mmio),
        "sc" => M::Sem(Semantics::Sc),
        "cta" => M::Scope(Scope::Cta),
        "cluster" => M::Scope(Scope::Cluster),
        "gpu" => M::Scope(Scope::Gpu),
        "sys" => M::Scope(Scope::Sys),
        "cta_group::1" => M::CtaGroup(1),
        "cta_group::2" => M::CtaGroup(2),
        "L2::cache_hint" => M::L2CacheHint,
        "L1::evict_normal" => M::Eviction(Eviction::L1EvictNormal),
        "L1::evict_unchanged" => M::Eviction(Eviction::L1EvictUnchanged),
        "L1::evict_first" => M::Eviction(Eviction::L1EvictFirst),
        "L1::evict_last" => M::Eviction(Eviction::L1EvictLast),
        "L1::no_allocate" => M::Eviction(Eviction::L1NoAllocate),
        "L2::evict_normal" => M::Eviction(Eviction::L2EvictNormal),
        "L2::evict_first" => M::Eviction(Eviction::L2EvictFirst),
        "L2::evict_last" => M::Eviction(Eviction::L2EvictLast),
        "L2::64B" => M::Prefetch(64),
        "L2::128B" => M::Prefetch(128),
        "L2::256B" => M::Prefetch(256),
        "sync" => M::Flag(Flag::Sync),
        "aligned" => M::Flag(Flag::Aligned),
        "uni" => M::Flag(Flag::Uni),
        "ftz" => M::Flag(Flag::Ftz),
        "sat" | "satfinite" => M::Flag(Flag::Sat),
        "approx" => M::Flag(Flag::Approx),
        "full" => M::Flag(Flag::Full),
        "wide" => M::Flag(Flag::Wide),
        "cc" => M::Flag(Flag::Cc),
        "relu" => M::Flag(Flag::Relu),
        "NaN" => M::Flag(Flag::NaN),
        "abs" => M::Flag(Flag::Abs),
        "neg" => M::Flag(Flag::Neg),
        "noftz" => M::Flag(Flag::Noftz),
        _ => match num_of(m) {
            Some(n) => M::Num(n),
            None => M::Other(m),
        },
    }
}

/// `hi` and `lo` are comparison operators of `setp` but also the halves of `mul.hi`/`mul.lo`:
/// [`classify`] returns `Cmp`; callers decoding `mul`/`mad` read `Cmp(Hi)`/`Cmp(Lo)` as halves.
pub fn is_half_selector(m: Modifier<'_>) -> bool {
    matches!(m, Modifier::Cmp(CmpOp::Hi) | Modifier::Cmp(CmpOp::Lo))
}

fn type_of(m: &str) -> Option<ScalarType> {
    ScalarType::from_name(m)
}

fn num_of(m: &str) -> Option<u8> {
    Some(match m {
        "x1" => 1,
        "x2" => 2,
        "x4" => 4,
        "x8" => 8,
        "x16" => 16,
        "x32" => 32,
        "x64" => 64,
        "x128" => 128,
        _ => return None,
    })
}

/// A short fixed-capacity list (no allocation); extra items beyond `N` are counted, not stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallList<T: Copy, const N: usize> {
    items: [Option<T>; N],
    len: usize,
}

impl<T: Copy, const N: usize> Default for SmallList<T, N> {
    fn default() -> Self {
        SmallList {
            items: [None; N],
            len: 0,
        }
    }
}

impl<T: Copy, const N: usize> SmallList<T, N> {
    fn push(&mut self, t: T) {
        if self.len < N {
            self.items[self.len] = Some(t);
        }
        self.len += 1;
    }
    /// Number of items written (may exceed `N`; see [`SmallList::overflowed`]).
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn overflowed(&self) -> bool {
        self.len > N
    }
    pub fn get(&self, i: usize) -> Option<T> {
        self.items.get(i).copied().flatten()
    }
    pub fn first(&self) -> Option<T> {
        self.get(0)
    }
    pub fn last(&self) -> Option<T> {
        self.len.checked_sub(1).and_then(|i| self.get(i.min(N - 1)))
    }
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.items.iter().take(self.len).filter_map(|x| *x)
    }
}

/// All modifiers of one instruction, sorted into families, in the order written within each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModifierSet<'src> {
    /// State spaces in order (`cp.async.bulk.shared::cluster.global`: destination, source).
    pub spaces: SmallList<StateSpace, 2>,
    /// Types in order (`cvt.rn.f16.f32`: destination, source).
    pub types: SmallList<ScalarType, 4>,
    pub vector: Option<u8>,
    pub cache: Option<CacheOp>,
    pub non_coherent: bool,
    pub rounding: Option<Rounding>,
    pub cmp: Option<CmpOp>,
    pub bool_op: Option<BoolOp>,
    pub sem: Option<Semantics>,
    pub scope: Option<Scope>,
    pub cta_group: Option<u8>,
    pub num: Option<u8>,
    pub l2_cache_hint: bool,
    pub eviction: Option<Eviction>,
    pub prefetch: Option<u16>,
    /// Bit `1 << (Flag as u32)` per flag present.
    pub flags: u32,
    /// Modifiers of no family above, in order (the sub-operation words such as `async`,
    /// `bulk`, `tensor`, `2d`, `mbarrier::complete_tx::bytes`).
    pub others: SmallList<&'src str, 8>,
}

impl<'src> ModifierSet<'src> {
    /// Sorts `mods` (without dots) into families.
    pub fn new(mods: impl Iterator<Item = &'src str>) -> ModifierSet<'src> {
        let mut s = ModifierSet::default();
        for m in mods {
            match classify(m) {
                Modifier::Space(x) => s.spaces.push(x),
                Modifier::Type(x) => s.types.push(x),
                Modifier::Vector(x) => s.vector = Some(x),
                Modifier::Cache(x) => s.cache = Some(x),
                Modifier::NonCoherent => s.non_coherent = true,
                Modifier::Rounding(x) => s.rounding = Some(x),
                Modifier::Cmp(x) => s.cmp = Some(x),
                Modifier::Bool(x) => s.bool_op = Some(x),
                Modifier::Sem(x) => s.sem = Some(x),
                Modifier::Scope(x) => s.scope = Some(x),
                Modifier::CtaGroup(x) => s.cta_group = Some(x),
                Modifier::Num(x) => s.num = Some(x),
                Modifier::L2CacheHint => s.l2_cache_hint = true,
                Modifier::Eviction(x) => s.eviction = Some(x),
                Modifier::Prefetch(x) => s.prefetch = Some(x),
                Modifier::Flag(f) => s.flags |= 1 << f as u32,
                Modifier::Other(o) => s.others.push(o),
            }
        }
        s
    }

    /// Decodes an instruction's modifiers.
    pub fn of(instr: &Instruction<'src>) -> ModifierSet<'src> {
        ModifierSet::new(instr.modifiers.iter())
    }

    pub fn has(&self, f: Flag) -> bool {
        self.flags & (1 << f as u32) != 0
    }
}

/// A modifier a family decoder does not accept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnsupportedModifier {
    /// The full opcode as written, e.g. `tcgen05.ld.sync.aligned.16x8b.x1.b32`.
    pub opcode: String,
    /// The modifier that was not recognised (without dot), or the missing part.
    pub modifier: String,
    /// The instruction's span.
    pub span: Span,
}

impl fmt::Display for UnsupportedModifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported: `{}` (modifier `{}`)",
            self.opcode, self.modifier
        )
    }
}

impl std::error::Error for UnsupportedModifier {}

fn unsupported(instr: &Instruction<'_>, m: &str) -> UnsupportedModifier {
    UnsupportedModifier {
        opcode: format!("{}{}", instr.name, instr.modifiers.as_str()),
        modifier: m.to_string(),
        span: instr.span,
    }
}

// ------------------------------------------------------------------- memory instructions

/// Qualifiers of `ld`, `ldu`, `st`, `red`, `atom`, `prefetch` and friends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryAccess {
    /// `None` = generic addressing.
    pub space: Option<StateSpace>,
    pub cache: Option<CacheOp>,
    pub non_coherent: bool,
    pub sem: Option<Semantics>,
    pub scope: Option<Scope>,
    pub vector: Option<u8>,
    /// Last type modifier (`ld.global.v4.b32` → `B32`).
    pub ty: Option<ScalarType>,
    pub l2_cache_hint: bool,
    pub eviction: Option<Eviction>,
    pub prefetch: Option<u16>,
    /// `red`/`atom` operation (`add`, `min`, `cas`, ...), as written.
    pub op: Option<AtomOp>,
}

/// Read-modify-write operations of `red`/`atom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    And,
    Or,
    Xor,
    Add,
    Inc,
    Dec,
    Min,
    Max,
    Exch,
    Cas,
}

/// Decodes the memory qualifiers of `ld`/`ldu`/`st`/`red`/`atom`/`prefetch`/`prefetchu`.
/// Every modifier must belong to a memory family; anything else is unsupported.
pub fn decode_memory(instr: &Instruction<'_>) -> Result<MemoryAccess, UnsupportedModifier> {
    let rmw = matches!(instr.name, "red" | "atom");
    let mut a = MemoryAccess::default();
    for m in instr.modifiers.iter() {
        if rmw {
            let op = match m {
                "and" => Some(AtomOp::And),
                "or" => Some(AtomOp::Or),
                "xor" => Some(AtomOp::Xor),
                "add" => Some(AtomOp::Add),
                "inc" => Some(AtomOp::Inc),
                "dec" => Some(AtomOp::Dec),
                "min" => Some(AtomOp::Min),
                "max" => Some(AtomOp::Max),
                "exch" => Some(AtomOp::Exch),
                "cas" => Some(AtomOp::Cas),
                _ => None,
            };
            if let Some(op) = op {
                a.op = Some(op);
                continue;
            }
        }
        match classify(m) {
            Modifier::Space(s) if a.space.is_none() => a.space = Some(s),
            Modifier::Cache(c) => a.cache = Some(c),
            Modifier::NonCoherent => a.non_coherent = true,
            Modifier::Sem(s) => a.sem = Some(s),
            Modifier::Scope(s) => a.scope = Some(s),
            Modifier::Vector(v) => a.vector = Some(v),
            Modifier::Type(t) => a.ty = Some(t),
            Modifier::L2CacheHint => a.l2_cache_hint = true,
            Modifier::Eviction(e) => a.eviction = Some(e),
            Modifier::Prefetch(p) => a.prefetch = Some(p),
            Modifier::Flag(Flag::Noftz) if rmw => {}
            _ => return Err(unsupported(instr, m)),
        }
    }
    Ok(a)
}

// ------------------------------------------------------------------------------- tcgen05

/// The `tcgen05` operation (the words right after `tcgen05`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tcgen05Op {
    Alloc,
    Dealloc,
    RelinquishAllocPermit,
    Ld,
    /// `tcgen05.ld.red`
    LdRed,
    St,
    WaitLd,
    WaitSt,
    Cp,
    Shift,
    Mma,
    MmaSp,
    MmaWs,
    MmaWsSp,
    Commit,
    FenceBeforeThreadSync,
    FenceAfterThreadSync,
}

/// Data-path shapes of `tcgen05.ld` / `tcgen05.st`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdStShape {
    S16x64b,
    S16x128b,
    S16x256b,
    S32x32b,
    S16x32bx2,
}

/// Shapes of `tcgen05.cp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpShape {
    S128x256b,
    S4x256b,
    S128x128b,
    S64x128b,
    S32x128b,
}

/// Warp multicast of `tcgen05.cp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpMulticast {
    Warpx2_02_13,
    Warpx2_01_23,
    Warpx4,
}

/// Source format of a decompressing `tcgen05.cp` (destination is always `.b8x16`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CpSrcFormat {
    B6x16P32,
    B4x16P64,
}

/// `.kind::*` of `tcgen05.mma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MmaKind {
    F16,
    Tf32,
    F8f6f4,
    I8,
    Mxf8f6f4,
    Mxf4,
    Mxf4nvf4,
}

/// Block-scale vector size qualifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScaleVec {
    X1,
    X2,
    X4,
    Block16,
    Block32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CollectorOp {
    Fill,
    Use,
    LastUse,
    Discard,
}

/// `.collector::a::OP` (mma, mma.sp) or `.collector::bN::OP` (mma.ws).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Collector {
    A(CollectorOp),
    B(u8, CollectorOp),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedOp {
    Min,
    Max,
}

/// A decoded `tcgen05.*` opcode. Fields not used by `op` stay `None`/`false`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tcgen05 {
    pub op: Tcgen05Op,
    pub cta_group: Option<u8>,
    pub sync: bool,
    pub aligned: bool,
    /// `ld`/`st` shape and repeat count.
    pub shape: Option<LdStShape>,
    pub num: Option<u8>,
    /// `.pack::16b` was written (legal on `ld` only: TM0404 is the checker's business).
    pub pack_16b: bool,
    /// `.unpack::16b` was written (legal on `st` only).
    pub unpack_16b: bool,
    pub red: Option<RedOp>,
    pub abs: bool,
    pub nan: bool,
    pub cp_shape: Option<CpShape>,
    pub multicast: Option<CpMulticast>,
    /// Decompression source format: `.b6x16_p32` / `.b4x16_p64`.
    pub cp_src_format: Option<CpSrcFormat>,
    /// `.b8x16` (decompression destination format) was written; legal only together with a
    /// source format (TM0407).
    pub cp_dst_b8x16: bool,
    pub kind: Option<MmaKind>,
    pub block_scale: bool,
    pub scale_vec: Option<ScaleVec>,
    pub collector: Option<Collector>,
    pub ashift: bool,
    /// `.shared::cta` (alloc) or `.shared::cluster` (commit) as written.
    pub space: Option<StateSpace>,
    /// `commit.mbarrier::arrive::one`
    pub mbarrier_arrive_one: bool,
    /// `commit....multicast::cluster`
    pub multicast_cluster: bool,
    /// `shift...down`
    pub down: bool,
    /// Type suffix (`.b32`, `.b64`, `.f32`, `.u32`, `.s32`).
    pub ty: Option<ScalarType>,
}

impl Tcgen05 {
    fn new(op: Tcgen05Op) -> Tcgen05 {
        Tcgen05 {
            op,
            cta_group: None,
            sync: false,
            aligned: false,
            shape: None,
            num: None,
            pack_16b: false,
            unpack_16b: false,
            red: None,
            abs: false,
            nan: false,
            cp_shape: None,
            multicast: None,
            cp_src_format: None,
            cp_dst_b8x16: false,
            kind: None,
            block_scale: false,
            scale_vec: None,
            collector: None,
            ashift: false,
            space: None,
            mbarrier_arrive_one: false,
            multicast_cluster: false,
            down: false,
            ty: None,
        }
    }
}

/// Decodes a `tcgen05.*` instruction's modifiers (spelling per PTX ISA §9.7.16; see
/// `shared/spec/{tmem,data-movement,mma,sync}.md`). Qualifier order is not checked: ptxas
/// accepts e.g. both `shift.cta_group::1.down` and `shift.down.cta_group::1`.
pub fn decode_tcgen05(instr: &Instruction<'_>) -> Result<Tcgen05, UnsupportedModifier> {
    if instr.name != "tcgen05" {
        return Err(unsupported(instr, instr.name));
    }
    let mut it = instr.modifiers.iter().peekable();
    let first = it.next().ok_or_else(|| unsupported(instr, "<operation>"))?;
    let op = match first {
        "alloc" => Tcgen05Op::Alloc,
        "dealloc" => Tcgen05Op::Dealloc,
        "relinquish_alloc_permit" => Tcgen05Op::RelinquishAllocPermit,
        "ld" => {
            if it.peek() == Some(&"red") {
                it.next();
                Tcgen05Op::LdRed
            } else {
                Tcgen05Op::Ld
            }
        }
        "st" => Tcgen05Op::St,
        "wait::ld" => Tcgen05Op::WaitLd,
        "wait::st" => Tcgen05Op::WaitSt,
        "cp" => Tcgen05Op::Cp,
        "shift" => Tcgen05Op::Shift,
        "mma" => match it.peek().copied() {
            Some("sp") => {
                it.next();
                Tcgen05Op::MmaSp
            }
            Some("ws") => {
                it.next();
                if it.peek() == Some(&"sp") {
                    it.next();
                    Tcgen05Op::MmaWsSp
                } else {
                    Tcgen05Op::MmaWs
                }
            }
            _ => Tcgen05Op::Mma,
        },
        "commit" => Tcgen05Op::Commit,
        "fence::before_thread_sync" => Tcgen05Op::FenceBeforeThreadSync,
        "fence::after_thread_sync" => Tcgen05Op::FenceAfterThreadSync,
        other => return Err(unsupported(instr, other)),
    };
    let mut t = Tcgen05::new(op);
    // Any tcgen05 qualifier is accepted on any tcgen05 operation and recorded: whether it is
    // legal there (pack on st, b6x16_p32 without b8x16, shared::cluster on alloc, ...) is a
    // checker rule with its own ID, not a decoding failure. Unknown words and a family
    // written twice are unsupported.
    for m in it {
        let ok = match m {
            "cta_group::1" => set(&mut t.cta_group, 1),
            "cta_group::2" => set(&mut t.cta_group, 2),
            "sync" => flag(&mut t.sync),
            "aligned" => flag(&mut t.aligned),
            "16x64b" => set(&mut t.shape, LdStShape::S16x64b),
            "16x128b" => set(&mut t.shape, LdStShape::S16x128b),
            "16x256b" => set(&mut t.shape, LdStShape::S16x256b),
            "32x32b" => set(&mut t.shape, LdStShape::S32x32b),
            "16x32bx2" => set(&mut t.shape, LdStShape::S16x32bx2),
            "pack::16b" => flag(&mut t.pack_16b),
            "unpack::16b" => flag(&mut t.unpack_16b),
            "min" => set(&mut t.red, RedOp::Min),
            "max" => set(&mut t.red, RedOp::Max),
            "abs" => flag(&mut t.abs),
            "NaN" => flag(&mut t.nan),
            "128x256b" => set(&mut t.cp_shape, CpShape::S128x256b),
            "4x256b" => set(&mut t.cp_shape, CpShape::S4x256b),
            "128x128b" => set(&mut t.cp_shape, CpShape::S128x128b),
            "64x128b" => set(&mut t.cp_shape, CpShape::S64x128b),
            "32x128b" => set(&mut t.cp_shape, CpShape::S32x128b),
            "warpx2::02_13" => set(&mut t.multicast, CpMulticast::Warpx2_02_13),
            "warpx2::01_23" => set(&mut t.multicast, CpMulticast::Warpx2_01_23),
            "warpx4" => set(&mut t.multicast, CpMulticast::Warpx4),
            "b8x16" => flag(&mut t.cp_dst_b8x16),
            "b6x16_p32" => set(&mut t.cp_src_format, CpSrcFormat::B6x16P32),
            "b4x16_p64" => set(&mut t.cp_src_format, CpSrcFormat::B4x16P64),
            "kind::f16" => set(&mut t.kind, MmaKind::F16),
            "kind::tf32" => set(&mut t.kind, MmaKind::Tf32),
            "kind::f8f6f4" => set(&mut t.kind, MmaKind::F8f6f4),
            "kind::i8" => set(&mut t.kind, MmaKind::I8),
            "kind::mxf8f6f4" => set(&mut t.kind, MmaKind::Mxf8f6f4),
            "kind::mxf4" => set(&mut t.kind, MmaKind::Mxf4),
            "kind::mxf4nvf4" => set(&mut t.kind, MmaKind::Mxf4nvf4),
            "block_scale" => flag(&mut t.block_scale),
            "scale_vec::1X" => set(&mut t.scale_vec, ScaleVec::X1),
            "scale_vec::2X" => set(&mut t.scale_vec, ScaleVec::X2),
            "scale_vec::4X" => set(&mut t.scale_vec, ScaleVec::X4),
            "block16" => set(&mut t.scale_vec, ScaleVec::Block16),
            "block32" => set(&mut t.scale_vec, ScaleVec::Block32),
            "ashift" => flag(&mut t.ashift),
            "shared::cta" => set(&mut t.space, StateSpace::SharedCta),
            "shared::cluster" => set(&mut t.space, StateSpace::SharedCluster),
            "shared" => set(&mut t.space, StateSpace::Shared),
            "mbarrier::arrive::one" => flag(&mut t.mbarrier_arrive_one),
            "multicast::cluster" => flag(&mut t.multicast_cluster),
            "down" => flag(&mut t.down),
            _ if m.starts_with("collector::") => match collector(m) {
                Some(c) => set(&mut t.collector, c),
                None => false,
            },
            _ => match (num_of(m), type_of(m)) {
                (Some(n), _) => set(&mut t.num, n),
                (None, Some(ty)) => set(&mut t.ty, ty),
                (None, None) => false,
            },
        };
        if !ok {
            return Err(unsupported(instr, m));
        }
    }
    Ok(t)
}

/// Sets a field that must appear once; `false` when it was already set (a repeated family).
fn set<T>(slot: &mut Option<T>, v: T) -> bool {
    if slot.is_some() {
        return false;
    }
    *slot = Some(v);
    true
}

fn flag(slot: &mut bool) -> bool {
    !std::mem::replace(slot, true)
}

fn collector(m: &str) -> Option<Collector> {
    let rest = m.strip_prefix("collector::")?;
    let (which, op) = rest.split_once("::")?;
    let op = match op {
        "fill" => CollectorOp::Fill,
        "use" => CollectorOp::Use,
        "lastuse" => CollectorOp::LastUse,
        "discard" => CollectorOp::Discard,
        _ => return None,
    };
    match which {
        "a" => Some(Collector::A(op)),
        "b0" => Some(Collector::B(0, op)),
        "b1" => Some(Collector::B(1, op)),
        "b2" => Some(Collector::B(2, op)),
        "b3" => Some(Collector::B(3, op)),
        _ => None,
    }
}
