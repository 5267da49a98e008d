//! `tcgen05.mma{.ws}` in the engine: decode the instruction descriptor, check shape and
//! descriptors (TM03xx at the instruction), gather A and B from shared memory through their
//! matrix descriptors (or A from TMEM), apply block scales read from TMEM, and accumulate into
//! D in TMEM with the datapath layout — all through `tmemu_tmem::mma`, which owns the
//! arithmetic and the layouts (its module docs give the rounding model).
//!
//! [`compute`] is the whole operation on plain memories (the CTAs' shared memories and TMEM
//! grids); the engine calls it when the operation *executes*, which the async queue decides,
//! so it reads shared memory and TMEM as they are then.
//!
//! `.cta_group::2` (mma.md §9, DERIVED from CUTLASS's 2-SM atoms): the pair's even CTA holds
//! rows 0..M/2 of A and D, the odd CTA rows M/2..M; B's N columns are split N/2 per CTA, each
//! CTA supplying its half (and its A rows) from its own shared memory at the same descriptor
//! addresses; block scales likewise come from each CTA's TMEM for its rows / columns.

use std::cell::RefCell;

mod fuse;
pub use fuse::{Panels, RankCells};

use tmemu_tmem::desc::{
    DescError, InstrDescriptor, Major, MmaKind, MmaShapeContext, ScaleType, SmemDescriptor,
    ZcmError, ZeroColumnMask,
};
use tmemu_tmem::mma::{
    apply_block_scales, execute, expand_sparse_a, gather_operand, gather_operand_strided,
    gather_scales_tmem, gather_scales_tmem_from, gather_tmem, DLayout, GatherOrder, MetaLayout,
    MmaError, MmaRequest, MmaScratch, OperandFormat,
};

use crate::program::{Addr, PSrc, S32, S64};

/// Where A comes from.
#[derive(Clone, Copy, Debug)]
pub enum MmaA {
    /// A shared-memory matrix descriptor (64-bit register or immediate).
    Desc(S64),
    /// A TMEM address operand `[a-tmem]`.
    Tmem(Addr),
}

/// The block-scale vector size qualifier (PTX ISA §9.7.16.10.7.1, mma.md §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScaleVec {
    X1,
    X2,
    X4,
    Block16,
    Block32,
}

impl ScaleVec {
    /// Scale factors per row of one instruction's K (dense).
    pub fn per_row(self, k: u32) -> u32 {
        match self {
            ScaleVec::X1 => 1,
            ScaleVec::X2 => 2,
            ScaleVec::X4 => 4,
            ScaleVec::Block16 => k / 16,
            ScaleVec::Block32 => k / 32,
        }
    }
}

/// One decoded `tcgen05.mma`.
#[derive(Clone, Debug)]
pub struct MmaInst {
    pub kind: MmaKind,
    pub cta_group: u8,
    pub ws: bool,
    /// `[d-tmem]`.
    pub d: Addr,
    pub a: MmaA,
    pub b: S64,
    pub idesc: S32,
    /// disable-output-lane: empty, 4 (cta_group::1) or 8 (cta_group::2) words.
    pub dol: Vec<S32>,
    pub enable_d: PSrc,
    /// scale-input-d (0 when absent).
    pub sid: u32,
    pub scale: Option<ScaleVec>,
    pub scale_a: Option<Addr>,
    pub scale_b: Option<Addr>,
    /// `.ws` zero-column-mask descriptor (64-bit), when given.
    pub zcm: Option<S64>,
    /// `.sp`: the sparsity metadata's TMEM address `[sp-meta-tmem]`.
    pub meta: Option<Addr>,
}

/// One MMA with its operands read from registers: what the async queue keeps until the
/// operation executes.
#[derive(Clone, Copy, Debug)]
pub struct MmaOp {
    pub kind: MmaKind,
    pub cta_group: u8,
    pub ws: bool,
    pub idesc: u32,
    pub d_taddr: u32,
    pub a: AOperand,
    pub b_desc: u64,
    pub dol: [u32; 8],
    pub enable_d: bool,
    pub sid: u32,
    /// (vector size, scale_A TMEM address, scale_B TMEM address).
    pub scale: Option<(ScaleVec, u32, u32)>,
    /// `.ws` zero-column-mask descriptor; 0 when absent (non-zero-mask flag clear: every
    /// column of B is used, as without the operand).
    pub zcm: u64,
    /// `.sp`: the metadata TMEM address.
    pub meta: Option<u32>,
}

#[derive(Clone, Copy, Debug)]
pub enum AOperand {
    Desc(u64),
    Tmem(u32),
}

/// What an MMA will touch, decoded and checked at issue: the descriptor errors and the shape
/// are reported at the instruction even when execution is deferred.
#[derive(Clone, Copy, Debug)]
pub struct Checked {
    pub idesc: InstrDescriptor,
    pub layout: DLayout,
    /// TMEM columns of D from the D address's column.
    pub d_cols: u32,
    /// `.sp`: where the metadata lives.
    pub meta: Option<MetaLayout>,
}

/// Decodes and checks everything that does not need memory contents.
pub fn check(op: &MmaOp) -> Result<Checked, MmaError> {
    let idesc = InstrDescriptor::decode(op.idesc, op.kind)?;
    idesc.check_shape(MmaShapeContext {
        cta_group: op.cta_group,
        ws: op.ws,
        allow_k96: false,
    })?;
    let layout = DLayout::select(idesc.m, op.cta_group, op.ws, idesc.sparse)?;
    layout.check_lane(op.d_taddr >> 16)?;
    if idesc.sparse != op.meta.is_some() {
        return Err(MmaError::Desc(DescError::IdescSparsity {
            instruction_sparse: op.meta.is_some(),
        }));
    }
    let meta = match op.meta {
        Some(_) => Some(MetaLayout::select(&idesc, layout, op.ws)?),
        None => None,
    };
    if let AOperand::Desc(a) = op.a {
        let d = SmemDescriptor::decode(a)?;
        d.check_sm100()?;
        InstrDescriptor::check_operand_swizzle(idesc.a_type, idesc.a_major, d.swizzle, 'A')?;
    } else if idesc.a_major == Major::MN {
        // A in TMEM has no major-ness of its own (K runs along the columns).
        return Err(MmaError::Unsupported("MN-major A read from TMEM"));
    }
    let d = SmemDescriptor::decode(op.b_desc)?;
    d.check_sm100()?;
    InstrDescriptor::check_operand_swizzle(idesc.b_type, idesc.b_major, d.swizzle, 'B')?;
    if let Some((sv, _, _)) = op.scale {
        let k = idesc.k();
        let nsf = sv.per_row(k);
        let ok = match (op.kind, sv) {
            (MmaKind::MxF8f6f4, ScaleVec::X1 | ScaleVec::Block32) => true,
            (MmaKind::MxF4, ScaleVec::X2 | ScaleVec::Block32) => true,
            (MmaKind::MxF4Nvf4, ScaleVec::X2 | ScaleVec::Block32) => {
                idesc.scale_type == Some(ScaleType::Ue8m0)
            }
            (MmaKind::MxF4Nvf4, ScaleVec::X4 | ScaleVec::Block16) => true,
            _ => false,
        };
        if !ok || nsf == 0 || k % nsf != 0 {
            return Err(MmaError::Desc(tmemu_tmem::desc::DescError::IdescScaleType));
        }
    }
    zero_columns(op, &idesc, &mut [false; 256])?;
    Ok(Checked {
        idesc,
        layout,
        d_cols: layout.columns(idesc.n),
        meta,
    })
}

/// The `.ws` zero-column mask as N flags in `out` (true = that column of B is zeros);
/// false when there is none. Only the modelled forms (`tmemu_tmem::desc::ZeroColumnMask`).
fn zero_columns(
    op: &MmaOp,
    idesc: &InstrDescriptor,
    out: &mut [bool; 256],
) -> Result<bool, MmaError> {
    if !op.ws || op.zcm == 0 {
        return Ok(false);
    }
    let unmodelled = |e: ZcmError| match e {
        ZcmError::ReservedBits { .. } => {
            MmaError::Unsupported("zero-column mask descriptor with reserved bits set")
        }
        ZcmError::Unmodelled(what) => MmaError::Unsupported(what),
    };
    let z = ZeroColumnMask::decode(op.zcm).map_err(unmodelled)?;
    z.generate(idesc.m, idesc.n, out).map_err(unmodelled)?;
    Ok(z.non_zero)
}

#[derive(Default)]
struct Buffers {
    a: Vec<f32>,
    /// Packed sparse A (rows × K/2) before expansion.
    sp: Vec<f32>,
    b: Vec<f32>,
    sc: Vec<f32>,
    scratch: MmaScratch,
}

thread_local! {
    static BUFS: RefCell<Buffers> = RefCell::new(Buffers::default());
}

fn order(m: Major) -> GatherOrder {
    match m {
        Major::K => GatherOrder::RowsByK,
        Major::MN => GatherOrder::KByRows,
    }
}

/// The TMEM grids (128 × 512 cells, lane-major) of the pair members, one at a time: the
/// engine's storage hands out one SM's cells per borrow.
pub trait TmemGrids {
    fn grid(&mut self, v: usize) -> &mut [u32];
}

impl TmemGrids for [&mut [u32]] {
    fn grid(&mut self, v: usize) -> &mut [u32] {
        self[v]
    }
}

impl<const N: usize> TmemGrids for [&mut [u32]; N] {
    fn grid(&mut self, v: usize) -> &mut [u32] {
        self[v]
    }
}

/// Executes a checked MMA on the group's memories: `smem[v]` is the shared memory (CTA window,
/// offset 0 = shared address `SHARED_BASE`) and `tmem.grid(v)` the TMEM of pair member `v`
/// (one member for cta_group::1).
pub fn compute(
    op: &MmaOp,
    c: &Checked,
    smem: &[&[u8]],
    tmem: &mut (impl TmemGrids + ?Sized),
) -> Result<(), MmaError> {
    BUFS.with(|cell| {
        let bufs = &mut *cell.borrow_mut();
        let (ao, bo) = gather(op, c, smem, tmem, bufs)?;
        execute_gathered(op, c, ao, bo, tmem, bufs)
    })
}

/// The orders A and B are gathered in. With one CTA, their natural order (no scatter); a
/// pair concatenates per-CTA parts, which needs rows (A) and columns (B) outermost.
fn orders(op: &MmaOp, c: &Checked) -> (GatherOrder, GatherOrder) {
    if op.cta_group == 1 {
        let ao = match op.a {
            // sparse A is expanded row by row
            AOperand::Desc(_) if c.meta.is_none() => order(c.idesc.a_major),
            _ => GatherOrder::RowsByK,
        };
        (ao, order(c.idesc.b_major))
    } else {
        (GatherOrder::RowsByK, GatherOrder::RowsByK)
    }
}

/// Gathers A and B straight into a K panel's slot (`fuse::Panels::slot`): only for MMAs
/// whose operands are plain shared-memory matrices (no sparse A, A not in TMEM, no block
/// scales, no `.ws` zero-column mask), which is every MMA of a dense GEMM K loop.
fn gather_into(
    op: &MmaOp,
    c: &Checked,
    smem: &[&[u8]],
    (a, lda): (&mut [f32], usize),
    (b, ldb): (&mut [f32], usize),
) -> Result<(), MmaError> {
    let AOperand::Desc(a_desc) = op.a else {
        unreachable!("gather_into is only for A in shared memory")
    };
    let idesc = &c.idesc;
    let nctas = op.cta_group as usize;
    let (n, k) = (idesc.n as usize, idesc.k());
    let rows = c.layout.rows_per_cta() as usize;
    let ncta = n / nctas;
    let (ao, bo) = orders(op, c);
    // parts of a pair are whole rows (RowsByK): member v's start `v · rows · ld`
    for (v, sh) in smem.iter().enumerate().take(nctas) {
        gather_operand_strided(
            sh,
            a_desc,
            idesc.a_major,
            OperandFormat {
                elem: idesc.a_type,
                kind: op.kind,
            },
            'A',
            rows as u32,
            k,
            ao,
            lda,
            &mut a[v * rows * lda..],
        )?;
        gather_operand_strided(
            sh,
            op.b_desc,
            idesc.b_major,
            OperandFormat {
                elem: idesc.b_type,
                kind: op.kind,
            },
            'B',
            ncta as u32,
            k,
            bo,
            ldb,
            &mut b[v * ncta * ldb..],
        )?;
    }
    Ok(())
}

/// Step 1 of [`compute`]: A (M × K, both CTAs' rows) and B (N × K) into `bufs.a` / `bufs.b`,
/// decoded, sparse A expanded, the `.ws` zero columns zeroed and block scales folded in;
/// returns their orders.
fn gather(
    op: &MmaOp,
    c: &Checked,
    smem: &[&[u8]],
    tmem: &mut (impl TmemGrids + ?Sized),
    bufs: &mut Buffers,
) -> Result<(GatherOrder, GatherOrder), MmaError> {
    let idesc = &c.idesc;
    let nctas = op.cta_group as usize;
    debug_assert_eq!(smem.len(), nctas);
    let (m, n, k) = (idesc.m as usize, idesc.n as usize, idesc.k() as usize);
    let rows = c.layout.rows_per_cta() as usize;
    let ncta = n / nctas;
    let fa = OperandFormat {
        elem: idesc.a_type,
        kind: op.kind,
    };
    let fb = OperandFormat {
        elem: idesc.b_type,
        kind: op.kind,
    };
    let (ao, bo) = orders(op, c);
    {
        bufs.a.resize(m * k, 0.0);
        bufs.b.resize(n * k, 0.0);
        for v in 0..nctas {
            let (sh, tm) = (smem[v], &*tmem.grid(v));
            let a_part = &mut bufs.a[v * rows * k..(v + 1) * rows * k];
            if let (Some(ml), Some(mt)) = (c.meta, op.meta) {
                // `.sp`: gather the packed rows × K/2, then place them by the metadata.
                let kp = (k / 2) as u32;
                bufs.sp.resize(rows * k / 2, 0.0);
                match op.a {
                    AOperand::Desc(raw) => gather_operand(
                        sh,
                        raw,
                        idesc.a_major,
                        fa,
                        'A',
                        rows as u32,
                        kp,
                        GatherOrder::RowsByK,
                        &mut bufs.sp,
                    )?,
                    AOperand::Tmem(t) => {
                        gather_tmem(tm, t, c.layout, fa, rows as u32, kp, &mut bufs.sp)?
                    }
                }
                expand_sparse_a(tm, mt, ml, rows as u32, k as u32, &bufs.sp, a_part)?;
            } else {
                match op.a {
                    AOperand::Desc(raw) => gather_operand(
                        sh,
                        raw,
                        idesc.a_major,
                        fa,
                        'A',
                        rows as u32,
                        k as u32,
                        ao,
                        a_part,
                    )?,
                    AOperand::Tmem(t) => {
                        gather_tmem(tm, t, c.layout, fa, rows as u32, k as u32, a_part)?
                    }
                }
            }
            let b_part = &mut bufs.b[v * ncta * k..(v + 1) * ncta * k];
            gather_operand(
                sh,
                op.b_desc,
                idesc.b_major,
                fb,
                'B',
                ncta as u32,
                k as u32,
                bo,
                b_part,
            )?;
            let mut zero = [false; 256];
            if zero_columns(op, idesc, &mut zero)? {
                // `.ws` only (one CTA): masked columns of B contribute zeros.
                for (j, _) in zero[..ncta].iter().enumerate().filter(|(_, &z)| z) {
                    match bo {
                        GatherOrder::RowsByK => b_part[j * k..(j + 1) * k].fill(0.0),
                        GatherOrder::KByRows => {
                            for kk in 0..k {
                                b_part[kk * ncta + j] = 0.0;
                            }
                        }
                    }
                }
            }
            if let Some((sv, sfa, sfb)) = op.scale {
                let nsf = sv.per_row(k as u32);
                let ty = idesc.scale_type.unwrap_or(ScaleType::Ue8m0);
                bufs.sc.resize(rows.max(ncta) * nsf as usize, 0.0);
                gather_scales_tmem(tm, sfa, rows as u32, nsf, idesc.sfa_id, ty, &mut bufs.sc)?;
                apply_block_scales(a_part, rows as u32, k as u32, ao, &bufs.sc, nsf);
                // CTA v's B columns are v·N/2 .. (v+1)·N/2 of the MMA's N: their scale rows
                // by that global index (each CTA holds scale_B for the whole N).
                gather_scales_tmem_from(
                    tm,
                    sfb,
                    (v * ncta) as u32,
                    ncta as u32,
                    nsf,
                    idesc.sfb_id,
                    ty,
                    &mut bufs.sc,
                )?;
                apply_block_scales(b_part, ncta as u32, k as u32, bo, &bufs.sc, nsf);
            }
        }
    }
    Ok((ao, bo))
}

/// Step 2 of [`compute`]: D of every member from the gathered operands.
fn execute_gathered(
    op: &MmaOp,
    c: &Checked,
    ao: GatherOrder,
    bo: GatherOrder,
    tmem: &mut (impl TmemGrids + ?Sized),
    bufs: &mut Buffers,
) -> Result<(), MmaError> {
    let nctas = op.cta_group as usize;
    for v in 0..nctas {
        let mut dol = [0u32; 4];
        if !op.dol.iter().all(|&x| x == 0) {
            dol.copy_from_slice(&op.dol[4 * v..4 * v + 4]);
        }
        let req = MmaRequest {
            idesc: &c.idesc,
            layout: c.layout,
            a: &bufs.a,
            a_order: ao,
            b: &bufs.b,
            b_order: bo,
            enable_input_d: op.enable_d,
            scale_input_d: op.sid,
            disable_output_lane: dol,
        };
        execute(&req, v as u32, op.d_taddr, tmem.grid(v), &mut bufs.scratch)?;
    }
    Ok(())
}

// ---- the engine side ----------------------------------------------------------------------

use tmemu_tmem::desc::OperandLayout;

use super::memory::lane_addr;
use super::tcgen05::queue::{AsyncWork, OpCtx};
use super::tcgen05::{columns_owned, issue_async, target_ranks};
use super::{Ctx, Flow, Warp};
use crate::error::Rule;
use crate::observer::{AccessKind, MemSpace, Observer, OpKind, Place, TmemRect};
use crate::tmem_sm::TcState;

fn rule_of(r: &'static tmemu_tmem::rules::Rule) -> Rule {
    Rule {
        id: r.id,
        name: r.name,
    }
}

/// A descriptor's start address as an offset into the CTA's shared bytes: the field holds a
/// shared-window address (`SHARED_BASE` + offset, see `mem`). `SHARED_BASE` is a multiple of
/// 1024, so every swizzle (bits 7..9 into 4..6) is the same function of the offset. A start
/// below the base is left as it is and fails the bounds check.
fn to_offset(desc: u64) -> u64 {
    let base = u64::from(crate::mem::SHARED_BASE >> 4);
    let start = desc & 0x3FFF;
    if start >= base {
        (desc & !0x3FFF) | (start - base)
    } else {
        desc
    }
}

/// The operands of lane `l`'s MMA, read from registers at issue.
fn operands(w: &Warp, l: usize, i: &MmaInst) -> MmaOp {
    let mut dol = [0u32; 8];
    for (k, s) in i.dol.iter().enumerate() {
        dol[k] = w.get(*s)[l];
    }
    let a = match i.a {
        MmaA::Desc(s) => AOperand::Desc(to_offset(w.get(s)[l])),
        MmaA::Tmem(t) => AOperand::Tmem(lane_addr(w, t, l) as u32),
    };
    let scale = match (i.scale, i.scale_a, i.scale_b) {
        (Some(sv), Some(sa), Some(sb)) => {
            Some((sv, lane_addr(w, sa, l) as u32, lane_addr(w, sb, l) as u32))
        }
        _ => None,
    };
    MmaOp {
        kind: i.kind,
        cta_group: i.cta_group,
        ws: i.ws,
        idesc: w.get(i.idesc)[l],
        d_taddr: lane_addr(w, i.d, l) as u32,
        a,
        b_desc: to_offset(w.get(i.b)[l]),
        dol,
        enable_d: w.pred(i.enable_d) >> l & 1 != 0,
        sid: i.sid,
        scale,
        zcm: i.zcm.map_or(0, |z| w.get(z)[l]),
        meta: i.meta.map(|m| lane_addr(w, m, l) as u32),
    }
}

/// The rule and message of an MMA error.
fn rule_for(e: &MmaError) -> (Rule, String) {
    let msg = format!("tcgen05.mma: {e}");
    match e.rule() {
        Some(r) => (rule_of(r), msg),
        None => match e {
            MmaError::SmemOutOfBounds { .. } => (crate::error::rules::OUT_OF_BOUNDS, msg),
            // A form tmemu does not model: a tmemu limit, so the run ends `incomplete`
            // (never clean, and not a violation of the program's).
            _ => (
                rule_of(&tmemu_tmem::rules::UNMODELLED_FORM),
                format!("{msg}; tmemu cannot run it"),
            ),
        },
    }
}

/// The pair members' TMEM in the group's storage.
struct Grids<'a> {
    tc: &'a mut TcState,
    ranks: [usize; 2],
    op: &'a MmaOp,
    c: &'a Checked,
}

impl TmemGrids for Grids<'_> {
    fn grid(&mut self, v: usize) -> &mut [u32] {
        // raw: `MmaWork::execute` applied the pending products of what the MMA touches;
        // by columns: what the MMA reads besides D, and D (TMEM is zeroed lazily by column)
        let r = self.ranks[v];
        for cols in tmem_reads(self.op, self.c) {
            self.tc.tmem_raw_cols(r, cols);
        }
        let d0 = self.op.d_taddr & 0xFFFF;
        self.tc.tmem_raw_cols(r, d0..d0 + self.c.d_cols)
    }
}

/// A queued MMA: executes when the async queue completes it, reading shared memory and TMEM
/// as they are then.
struct MmaWork {
    op: MmaOp,
    c: Checked,
    /// Cluster ranks of pair members 0 (even) and 1 (odd); both the issuer for cta_group::1.
    ranks: [usize; 2],
}

impl AsyncWork for MmaWork {
    fn execute(&mut self, cx: &mut OpCtx<'_>) -> Result<(), (Rule, String)> {
        let n = self.op.cta_group as usize;
        let smem: [&[u8]; 2] = [
            &cx.ctas[self.ranks[0]].shared,
            &cx.ctas[self.ranks[1]].shared,
        ];
        let tc = &mut *cx.tc;
        let (op, c, ranks) = (&self.op, &self.c, self.ranks);
        let fuse = tc.mma_panels.enabled && fuse::fusable(op, c);
        if tc.mma_panels.any() {
            // What the MMA reads from TMEM besides D must hold every earlier MMA's product;
            // D itself too unless this MMA joins its panel.
            let d0 = op.d_taddr & 0xFFFF;
            for &r in &ranks[..n] {
                for cols in tmem_reads(op, c) {
                    tc.flush_mma(r, cols);
                }
                if !fuse {
                    tc.flush_mma(r, d0..d0 + c.d_cols);
                }
            }
        }
        let mut g = Grids { tc, ranks, op, c };
        if !fuse {
            return compute(op, c, &smem[..n], &mut g).map_err(|e| rule_for(&e));
        }
        let plain = matches!(op.a, AOperand::Desc(_))
            && c.meta.is_none()
            && op.scale.is_none()
            && (!op.ws || op.zcm == 0);
        if plain {
            // the common case: decode straight into the panel
            let (ao, bo) = orders(op, c);
            let (panels, mut cells) = g.tc.panels_and_cells();
            if let Some(idx) = panels.reserve(op, c, ranks, ao, bo, &mut cells) {
                let (a, lda, b, ldb) = panels.slot(idx);
                gather_into(op, c, &smem[..n], (a, lda), (b, ldb)).map_err(|e| rule_for(&e))?;
                panels.commit(idx, op, &mut cells);
                return Ok(());
            }
        }
        BUFS.with(|cell| {
            let bufs = &mut *cell.borrow_mut();
            let (ao, bo) = gather(op, c, &smem[..n], &mut g, bufs)?;
            let joined = {
                let (panels, mut cells) = g.tc.panels_and_cells();
                panels.append(op, c, ranks, ao, bo, &bufs.a, &bufs.b, &mut cells)
            };
            if joined {
                Ok(())
            } else {
                execute_gathered(op, c, ao, bo, &mut g, bufs)
            }
        })
        .map_err(|e| rule_for(&e))
    }
}

/// TMEM columns (of each member) an MMA reads besides D: A, the sparsity metadata and the
/// block scales (a superset is harmless: it only flushes more).
fn tmem_reads(op: &MmaOp, c: &Checked) -> impl Iterator<Item = std::ops::Range<u32>> {
    let col = |t: u32| t & 0xFFFF;
    let k = if c.meta.is_some() {
        c.idesc.k() / 2
    } else {
        c.idesc.k()
    };
    let a = match op.a {
        AOperand::Tmem(t) => {
            let per_cell = 32
                / OperandFormat {
                    elem: c.idesc.a_type,
                    kind: op.kind,
                }
                .tmem_bits();
            Some(col(t)..col(t) + k.div_ceil(per_cell))
        }
        AOperand::Desc(_) => None,
    };
    let meta = match (c.meta, op.meta) {
        (Some(ml), Some(t)) => Some(col(t)..col(t) + ml.columns()),
        _ => None,
    };
    // a scale vector of up to 256 rows spans 256 / 32 columns
    let (sa, sb) = match op.scale {
        Some((_, sfa, sfb)) => (Some(col(sfa)..col(sfa) + 8), Some(col(sfb)..col(sfb) + 8)),
        None => (None, None),
    };
    [a, meta, sa, sb].into_iter().flatten()
}

/// `[lo, hi)` of the shared-memory bytes an operand's descriptor addresses: a pure function
/// of (descriptor, majorness, format, rows, K), so it is remembered per thread in a small
/// direct-mapped table. A K loop cycles through a few descriptors (stages × K steps), and
/// walking every chunk address per MMA cost ≈ 17 000 host instructions (perf.md, session 6).
fn operand_extent(
    raw: u64,
    major: Major,
    fmt: OperandFormat,
    rows: u32,
    k: u32,
) -> Option<(u64, u64)> {
    EXTENTS.with(|cell| {
        let mut t = cell.borrow_mut();
        let key = ExtentKey {
            raw,
            major,
            fmt,
            rows,
            k,
        };
        let set = &mut t[key.set()];
        if let Some(&(_, v)) = set.iter().flatten().find(|(k0, _)| *k0 == key) {
            return v;
        }
        let v = operand_extent_walk(raw, major, fmt, rows, k);
        // the newest first; the oldest of the set leaves
        set.rotate_right(1);
        set[0] = Some((key, v));
        v
    })
}

/// What [`operand_extent`] depends on.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ExtentKey {
    raw: u64,
    major: Major,
    fmt: OperandFormat,
    rows: u32,
    k: u32,
}

/// Sets of [`EXTENT_WAYS`] entries: a K loop's descriptors (stages × K steps × A and B,
/// a few dozen) fit without evicting each other.
const EXTENT_SETS: usize = 64;
const EXTENT_WAYS: usize = 4;

impl ExtentKey {
    fn set(&self) -> usize {
        let h = self.raw
            ^ u64::from(self.rows) << 40
            ^ u64::from(self.k) << 52
            ^ (self.major == Major::MN) as u64
            ^ (self.fmt.elem as u64) << 1;
        (h.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % EXTENT_SETS
    }
}

type ExtentSet = [Option<(ExtentKey, Option<(u64, u64)>)>; EXTENT_WAYS];

thread_local! {
    static EXTENTS: RefCell<[ExtentSet; EXTENT_SETS]> =
        const { RefCell::new([[None; EXTENT_WAYS]; EXTENT_SETS]) };
}

/// [`operand_extent`] by walking every chunk address (the definition; the cache's reference).
fn operand_extent_walk(
    raw: u64,
    major: Major,
    fmt: OperandFormat,
    rows: u32,
    k: u32,
) -> Option<(u64, u64)> {
    let desc = SmemDescriptor::decode(raw).ok()?;
    let l = OperandLayout::new(desc, major);
    let t = fmt.per_chunk();
    let (no, ni) = match major {
        Major::K => (rows, k.div_ceil(t)),
        Major::MN => (rows.div_ceil(t), k),
    };
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    for o in 0..no {
        for i in 0..ni {
            let a = l.chunk_address(o, i);
            lo = lo.min(a);
            hi = hi.max(a + 16);
        }
    }
    (lo < hi).then_some((u64::from(lo), u64::from(hi)))
}

/// What the MMA reads and writes, for observers.
fn places(op: &MmaOp, c: &Checked, ranks: &[usize]) -> Vec<(Place, AccessKind)> {
    let idesc = &c.idesc;
    let nctas = ranks.len() as u32;
    let rows = c.layout.rows_per_cta();
    let k = idesc.k();
    let (l0, c0) = (op.d_taddr >> 16, op.d_taddr & 0xFFFF);
    let mut out = Vec::with_capacity(8);
    let (blocks, count) = c.layout.blocks(idesc.n);
    for (v, &r) in ranks.iter().enumerate() {
        for b in &blocks[..count] {
            let rect = TmemRect {
                cta: r as u32,
                lane: l0 + b.lane,
                lanes: b.rows,
                col: c0 + b.column,
                cols: b.cols,
            };
            if op.enable_d {
                out.push((Place::Tmem(rect), AccessKind::Read));
            }
            out.push((Place::Tmem(rect), AccessKind::Write));
        }
        let smem = |lo: u64, hi: u64| Place::Mem {
            space: MemSpace::Shared { cta: r as u32 },
            addr: lo,
            len: hi - lo,
        };
        let fa = OperandFormat {
            elem: idesc.a_type,
            kind: op.kind,
        };
        // sparse A is stored packed: K/2 elements per row
        let ka = if c.meta.is_some() { k / 2 } else { k };
        match op.a {
            AOperand::Desc(raw) => {
                if let Some((lo, hi)) = operand_extent(raw, idesc.a_major, fa, rows, ka) {
                    out.push((smem(lo, hi), AccessKind::Read));
                }
            }
            AOperand::Tmem(t) => {
                // A's rows sit on the lanes D's rows do (`gather_tmem` reads row i at the
                // layout's lane of D row i): the lane blocks of D's first column, e.g. 16
                // lanes per quarter for M = 64 (layout F), where compilers keep other data in
                // the other 16 lanes of the same columns.
                let per_cell = 32 / fa.tmem_bits();
                let a0 = t >> 16;
                for b in blocks[..count].iter().filter(|b| b.col0 == 0) {
                    let lane = a0 + b.lane;
                    out.push((
                        Place::Tmem(TmemRect {
                            cta: r as u32,
                            lane,
                            lanes: b.rows.min(128 - lane.min(128)),
                            col: t & 0xFFFF,
                            cols: ka.div_ceil(per_cell),
                        }),
                        AccessKind::Read,
                    ));
                }
            }
        }
        let fb = OperandFormat {
            elem: idesc.b_type,
            kind: op.kind,
        };
        if let Some((lo, hi)) = operand_extent(op.b_desc, idesc.b_major, fb, idesc.n / nctas, k) {
            out.push((smem(lo, hi), AccessKind::Read));
        }
        if let (Some(ml), Some(t)) = (c.meta, op.meta) {
            out.push((
                Place::Tmem(TmemRect {
                    cta: r as u32,
                    lane: t >> 16,
                    lanes: 128 - (t >> 16).min(128),
                    col: t & 0xFFFF,
                    cols: ml.columns(),
                }),
                AccessKind::Read,
            ));
        }
        if let Some((_, sfa, sfb)) = op.scale {
            // scale_A: this CTA's rows; scale_B: the rows of this CTA's N columns, by their
            // index in the MMA's whole N (see `gather`)
            let nb = idesc.n / nctas;
            for (t, first, n) in [(sfa, 0, rows), (sfb, v as u32 * nb, nb)] {
                out.push((
                    Place::Tmem(TmemRect {
                        cta: r as u32,
                        lane: (t >> 16) & 0x3FFF,
                        lanes: 32,
                        col: (t & 0xFFFF) + first / 32,
                        cols: (first + n).div_ceil(32) - first / 32,
                    }),
                    AccessKind::Read,
                ));
            }
        }
    }
    out
}

/// The TMEM columns the MMA touches on each member must belong to the CTA (TM0105).
fn check_columns<O: Observer>(
    cx: &Ctx<'_, '_, O>,
    op: &MmaOp,
    c: &Checked,
    ranks: &[usize],
) -> Result<(), String> {
    let col = |t: u32| t & 0xFFFF;
    // sparse A is stored packed: K/2 elements per row
    let k = if c.meta.is_some() {
        c.idesc.k() / 2
    } else {
        c.idesc.k()
    };
    for (v, &r) in ranks.iter().enumerate() {
        let d0 = col(op.d_taddr);
        columns_owned(cx, r, d0..d0 + c.d_cols)
            .map_err(|m| format!("D at taddr {:#x} in CTA rank {r}: {m}", op.d_taddr))?;
        if let AOperand::Tmem(t) = op.a {
            let per_cell = 32
                / OperandFormat {
                    elem: c.idesc.a_type,
                    kind: op.kind,
                }
                .tmem_bits();
            columns_owned(cx, r, col(t)..col(t) + k.div_ceil(per_cell))
                .map_err(|m| format!("A at taddr {t:#x} in CTA rank {r}: {m}"))?;
        }
        if let (Some(ml), Some(t)) = (c.meta, op.meta) {
            columns_owned(cx, r, col(t)..col(t) + ml.columns())
                .map_err(|m| format!("sparsity metadata at taddr {t:#x} in CTA rank {r}: {m}"))?;
        }
        if let Some((_, sfa, sfb)) = op.scale {
            // every column the scales are read from (32 rows a column): scale_A for this
            // CTA's rows, scale_B for its columns by their index in the whole N (`gather`)
            let rows = c.layout.rows_per_cta();
            let nb = c.idesc.n / ranks.len() as u32;
            let first = v as u32 * nb;
            for (what, t, lo, hi) in [
                ("scale_A", sfa, 0, rows.div_ceil(32)),
                ("scale_B", sfb, first / 32, (first + nb).div_ceil(32)),
            ] {
                columns_owned(cx, r, col(t) + lo..col(t) + hi)
                    .map_err(|m| format!("{what} at taddr {t:#x} in CTA rank {r}: {m}"))?;
            }
        }
    }
    Ok(())
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &MmaInst,
) -> Flow {
    // one MMA per executing thread ("one thread starts the operation"; compilers elect one)
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let lane = 1u32 << l;
        let pc = w.cur_pc;
        let op = operands(w, l, i);
        let c = match check(&op) {
            Ok(c) => c,
            Err(e) => {
                let (rule, msg) = rule_for(&e);
                cx.diag(w, pc, lane, rule, format!("{msg} (lane {l})"));
                continue;
            }
        };
        let Some(mut ranks) = target_ranks(w, cx, lane, op.cta_group, "tcgen05.mma") else {
            continue;
        };
        ranks.sort_unstable();
        if let Err(msg) = check_columns(cx, &op, &c, &ranks) {
            cx.diag(
                w,
                pc,
                lane,
                rule_of(&tmemu_tmem::rules::ACCESS_UNALLOCATED_COLUMNS),
                format!("tcgen05.mma (lane {l}): {msg}"),
            );
            continue;
        }
        let places = places(&op, &c, &ranks);
        let kind = OpKind::Mma {
            cta_group: op.cta_group,
            accum: u64::from(op.d_taddr) | u64::from(c.idesc.m) << 32 | u64::from(c.idesc.n) << 48,
        };
        let work = MmaWork {
            op,
            c,
            ranks: [ranks[0], *ranks.last().unwrap()],
        };
        issue_async(w, cx, lane, kind, &places, Box::new(work));
    }
    Flow::Next
}

#[cfg(test)]
mod tests {
    use super::*;
    use tmemu_tmem::desc::ElemType;

    /// The cached operand extent equals the chunk walk for random descriptors (every swizzle
    /// code, version bits right or wrong), both majornesses, several formats and shapes,
    /// asked in an order that makes the direct-mapped slots collide and refill.
    #[test]
    fn cached_extent_equals_the_walk() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let fmts = [
            (ElemType::F16, MmaKind::F16),
            (ElemType::Tf32, MmaKind::Tf32),
            (ElemType::E4m3, MmaKind::F8f6f4),
            (ElemType::E2m1, MmaKind::MxF4),
        ];
        // a few descriptors, each asked with many shapes and formats (the key is more than
        // the descriptor), and many descriptors asked once
        let pool: Vec<u64> = (0..6).map(|_| next()).collect();
        let mut keys = Vec::new();
        for i in 0..400 {
            let r = next();
            let d = if i % 2 == 0 {
                pool[i / 2 % pool.len()]
            } else {
                r
            };
            // version 1 in bits 46..48 most of the time, the swizzle code in 61..63
            let version = if d % 8 == 0 { 0 } else { 1u64 << 46 };
            let raw = (d & 0x3FFF_3FFF_3FFF) | version | (d >> 13) & (7 << 61);
            let major = if r & 1 == 0 { Major::K } else { Major::MN };
            let (elem, kind) = fmts[(r >> 20) as usize % fmts.len()];
            let rows = [32, 64, 128, 256][(r >> 24) as usize % 4];
            let k = [8, 16, 32, 64, 128][(r >> 28) as usize % 5];
            keys.push((raw, major, OperandFormat { elem, kind }, rows, k));
        }
        let mut hits = 0;
        for round in 0..3 {
            for &(raw, major, fmt, rows, k) in keys.iter().step_by(round + 1) {
                let want = operand_extent_walk(raw, major, fmt, rows, k);
                hits += want.is_some() as u32;
                assert_eq!(operand_extent(raw, major, fmt, rows, k), want);
                assert_eq!(operand_extent(raw, major, fmt, rows, k), want);
            }
        }
        assert!(hits > 100, "too few decodable descriptors: {hits}");
    }
}
