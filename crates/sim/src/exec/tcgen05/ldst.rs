//! tcgen05.ld / tcgen05.st / tcgen05.wait::{ld,st} (PTX ISA §9.7.16.8; data-movement.md §2,
//! §4). Cells move through the fragment maps of `tmemu_tmem::layout::LdStForm`.
//!
//! Timing: ld and st act on TMEM at issue (see `queue` for why that is a legal moment) and
//! complete, for observers, at the warp's next `wait::ld` / `wait::st`.
//!
//! `tcgen05.ld.red` (sm_103a/sm_110a, data-movement.md §2.1): each thread reduces the values
//! it loads with `.min` / `.max` into its `redval` register. Readings taken (DERIVED; the ISA
//! text says only "reduce over the loaded values"): `r` still receives the loaded values
//! unchanged; `.f32` compares with the rules of `min` / `max` `.f32` (a NaN element is skipped
//! unless `.NaN`, all-NaN gives the canonical NaN, −0 < +0) through `tmemu_num`; `.abs`
//! reduces the magnitudes (as three-input `min.abs` does, a NaN stays a NaN) and `redval` is a
//! magnitude; `.u32` / `.s32` compare as unsigned / two's-complement integers.

use tmemu_tmem::layout::{LayoutError, LdStForm};

use super::{columns_owned, layout_rule, population, rule_of};
use crate::exec::memory::lane_addr;
use crate::exec::{Ctx, Flow, Warp};
use crate::observer::{AccessKind, Observer, OpKind, Place, TcWait, TmemRect};
use crate::program::{Addr, Any};
use tmemu_tmem::rules as cat;

/// The warp-level checks shared by ld/st/wait: converged, nobody exited (TM0101).
fn converged<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, mask: u32, what: &str) -> bool {
    let pop = population(w, cx);
    let exited = pop & !w.live;
    let missing = pop & w.live & !mask;
    if exited != 0 || missing != 0 {
        let pc = w.cur_pc;
        let why = if exited != 0 {
            format!("{} of its threads have exited", exited.count_ones())
        } else {
            format!(
                "{} of its threads do not execute it together with the others",
                missing.count_ones()
            )
        };
        cx.diag(
            w,
            pc,
            exited | missing,
            rule_of(&cat::LDST_WARP_NOT_CONVERGED),
            format!("{what} is .sync.aligned but {why} (warp {})", w.id),
        );
        return false;
    }
    true
}

/// The warp-uniform TMEM address (TM0102), quarter and bounds (TM0103/TM0105), and column
/// ownership (TM0105). Returns the address if the access may proceed.
fn checked_taddr<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    form: &LdStForm,
    taddr: Addr,
    split: u32,
    what: &str,
) -> Option<u32> {
    let pc = w.cur_pc;
    let first = mask.trailing_zeros() as usize;
    let t = lane_addr(w, taddr, first) as u32;
    let differ = (0..32)
        .filter(|&l| mask >> l & 1 != 0 && lane_addr(w, taddr, l) as u32 != t)
        .fold(0u32, |m, l| m | 1 << l);
    if differ != 0 {
        let l = differ.trailing_zeros() as usize;
        cx.diag(
            w,
            pc,
            differ,
            rule_of(&cat::LDST_TADDR_NOT_UNIFORM),
            format!(
                "{what} taddr differs across the warp: lane {first} has {t:#x}, lane {l} has {:#x}",
                lane_addr(w, taddr, l) as u32
            ),
        );
        return None;
    }
    if let Err(e) = form.check_access(t, split, w.id) {
        let (rule, msg) = layout_rule(&e, what);
        let msg = match e {
            LayoutError::LaneQuarter { .. } => format!("{msg} (warp {} at taddr {t:#x})", w.id),
            _ => msg,
        };
        cx.diag(w, pc, mask, rule, msg);
        return None;
    }
    let me = cx.me;
    for cols in form.column_ranges(t, split) {
        if let Err(msg) = columns_owned(cx, me, cols) {
            cx.diag(
                w,
                pc,
                mask,
                rule_of(&cat::ACCESS_UNALLOCATED_COLUMNS),
                format!("{what} at taddr {t:#x}: {msg}"),
            );
            return None;
        }
    }
    Some(t)
}

/// `.min` or `.max` of `tcgen05.ld.red`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedOp {
    Min,
    Max,
}

/// The element type of `tcgen05.ld.red`, with the `.f32` modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedType {
    F32 { abs: bool, nan: bool },
    U32,
    S32,
}

/// The reduction of a `tcgen05.ld.red` and the register that receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdRed {
    pub op: RedOp,
    pub ty: RedType,
    /// `redval`: a 32-bit register.
    pub dst: u16,
}

impl LdRed {
    /// Reduces one thread's loaded values (at least one).
    pub fn reduce(&self, vals: impl IntoIterator<Item = u32>) -> u32 {
        let mut it = vals.into_iter();
        let first = it.next().unwrap_or(0);
        match self.ty {
            RedType::F32 { abs, nan } => {
                use tmemu_num::ops::float::{f32_max, f32_min, MinMaxMods};
                let mm = MinMaxMods {
                    ftz: false,
                    nan,
                    xorsign_abs: false,
                };
                let mag = |x: u32| {
                    let is_nan = x & 0x7fff_ffff > 0x7f80_0000;
                    if abs && !is_nan {
                        x & 0x7fff_ffff
                    } else {
                        x
                    }
                };
                // A lone NaN element still goes through the two-input rule (NaN with NaN gives
                // the canonical NaN), as `min.f32 d, a, a` would.
                let f = |a: u32, b: u32| match self.op {
                    RedOp::Min => f32_min(a, b, mm),
                    RedOp::Max => f32_max(a, b, mm),
                };
                let first = mag(first);
                it.fold(f(first, first), |acc, x| f(acc, mag(x)))
            }
            RedType::U32 => it.fold(first, |acc, x| match self.op {
                RedOp::Min => acc.min(x),
                RedOp::Max => acc.max(x),
            }),
            RedType::S32 => it.fold(first, |acc, x| {
                let (a, b) = (acc as i32, x as i32);
                (match self.op {
                    RedOp::Min => a.min(b),
                    RedOp::Max => a.max(b),
                }) as u32
            }),
        }
    }
}

/// The columns a ld/st touches, as one range (pending K-fused MMA products there are applied
/// before the access: `exec/mma/fuse.rs`).
fn columns(form: &LdStForm, t: u32, split: u32) -> std::ops::Range<u32> {
    let [a, b] = form.column_ranges(t, split);
    a.start.min(b.start)..a.end.max(b.end)
}

fn observe<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    form: &LdStForm,
    t: u32,
    split: u32,
    st: bool,
) {
    let at = cx.at(w, mask);
    let id = cx.tc.async_id();
    let kind = if st { OpKind::St } else { OpKind::Ld };
    cx.obs.async_issue(at, id, kind);
    let lanes = form.lane_ranges(t, split);
    let cols = form.column_ranges(t, split);
    let n = if form.shape == tmemu_tmem::layout::LdStShape::S16x32bx2 {
        2
    } else {
        1
    };
    for (l, c) in lanes.iter().zip(cols.iter()).take(n) {
        let rect = TmemRect {
            cta: cx.me as u32,
            lane: l.start,
            lanes: l.end - l.start,
            col: c.start,
            cols: c.end - c.start,
        };
        let a = if st {
            AccessKind::Write
        } else {
            AccessKind::Read
        };
        cx.obs.async_access(id, Place::Tmem(rect), a);
    }
    let key = (cx.tc.cta_id(cx.cluster.index, cx.me as u32), w.id, st);
    cx.tc.pending_ldst.entry(key).or_default().push(id);
}

#[allow(clippy::too_many_arguments)]
pub(super) fn ld<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    form: &LdStForm,
    taddr: Addr,
    split: u32,
    dst: &[u16],
    red: Option<&LdRed>,
) -> Flow {
    if mask == 0 || !converged(w, cx, mask, "tcgen05.ld") {
        return Flow::Next;
    }
    let Some(t) = checked_taddr(w, cx, mask, form, taddr, split, "tcgen05.ld") else {
        return Flow::Next;
    };
    let me = cx.me;
    let mut buf = std::mem::take(&mut cx.tc.scratch);
    buf.resize(form.regs() as usize, [0; 32]);
    let r = form.load(
        cx.tc.tmem_cols_mut(me, columns(form, t, split)),
        t,
        split,
        &mut buf,
    );
    if let Err(e) = r {
        let (rule, msg) = layout_rule(&e, "tcgen05.ld");
        let pc = w.cur_pc;
        cx.diag(w, pc, mask, rule, msg);
    } else {
        for (&d, v) in dst.iter().zip(buf.iter()) {
            let reg = &mut w.r32[d as usize];
            if mask == u32::MAX {
                *reg = *v;
            } else {
                for l in 0..32 {
                    if mask >> l & 1 != 0 {
                        reg[l] = v[l];
                    }
                }
            }
        }
        if let Some(red) = red {
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    w.r32[red.dst as usize][l] = red.reduce(buf.iter().map(|r| r[l]));
                }
            }
        }
        observe(w, cx, mask, form, t, split, false);
    }
    cx.tc.scratch = buf;
    Flow::Next
}

pub(super) fn st<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    form: &LdStForm,
    taddr: Addr,
    split: u32,
    src: &[Any],
) -> Flow {
    if mask == 0 || !converged(w, cx, mask, "tcgen05.st") {
        return Flow::Next;
    }
    let Some(t) = checked_taddr(w, cx, mask, form, taddr, split, "tcgen05.st") else {
        return Flow::Next;
    };
    let me = cx.me;
    let mut buf = std::mem::take(&mut cx.tc.scratch);
    buf.resize(form.regs() as usize, [0; 32]);
    // whole 32-lane registers at once (a `.x128` store is 128 of them)
    for (v, &s) in buf.iter_mut().zip(src.iter()) {
        match s {
            Any::R32(r) => *v = w.r32[r as usize],
            Any::Imm(x) => *v = [x as u32; 32],
            _ => {
                for (l, x) in v.iter_mut().enumerate() {
                    *x = w.read_any(s, l) as u32;
                }
            }
        }
    }
    let r = form.store(
        cx.tc.tmem_cols_mut(me, columns(form, t, split)),
        t,
        split,
        &buf,
    );
    cx.tc.scratch = buf;
    if let Err(e) = r {
        let (rule, msg) = layout_rule(&e, "tcgen05.st");
        let pc = w.cur_pc;
        cx.diag(w, pc, mask, rule, msg);
    } else {
        observe(w, cx, mask, form, t, split, true);
    }
    Flow::Next
}

pub(super) fn wait<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    st: bool,
) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    let what = if st {
        "tcgen05.wait::st"
    } else {
        "tcgen05.wait::ld"
    };
    converged(w, cx, mask, what);
    let key = (cx.tc.cta_id(cx.cluster.index, cx.me as u32), w.id, st);
    let now = cx.out.warp_instructions;
    if let Some(ids) = cx.tc.pending_ldst.get_mut(&key) {
        for id in ids.drain(..) {
            cx.obs.async_complete(id, now);
        }
    }
    let at = cx.at(w, mask);
    cx.obs.tc_wait(at, if st { TcWait::St } else { TcWait::Ld });
    Flow::Next
}
