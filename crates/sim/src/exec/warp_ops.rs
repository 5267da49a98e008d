//! Warp-collective instructions: shfl.sync, vote.sync, redux.sync, match.sync, elect.sync,
//! activemask.
//!
//! `.sync` semantics (Volta and later): a group that executes the instruction while other
//! live lanes of its membermask are elsewhere waits for them to arrive at the same
//! instruction or to exit, then all execute it together. An executing lane that the mask does
//! not name is diagnosed (TM0509).

use super::{Ctx, Flow, Warp};
use crate::error::rules;
use crate::fp;
use crate::observer::Observer;
use crate::program::{FMods, Inst, ReduxOp, Rnd, ShflMode, VoteMode};

/// Checks the membermask; returns false when the current group must first wait for the
/// other live lanes of the mask (they arrive here or exit: `.sync` semantics since Volta).
fn check_mask<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, exec: u32, member: u32) -> bool {
    let pc = w.cur_pc;
    if member & w.live & !w.cur_mask != 0 {
        let group = w.cur_mask;
        w.block(group, pc, super::WaitKind::WarpSync { member });
        return false;
    }
    if exec & !member != 0 {
        let msg = format!(
            "lanes {:#010x} execute a .sync instruction whose membermask {member:#010x} does not name them",
            exec & !member
        );
        cx.diag(w, pc, exec & !member, rules::SYNC_MASK, msg);
    }
    true
}

// Inlined into `run_warp` as the compiler chose to until session 13's observer-only changes
// to `cp_async.rs` tipped its heuristics: called, it cost softmax_bench2048's `run`
// +5.6 M host instructions (perf.md, session 13).
#[inline(always)]
pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    inst: &Inst,
) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    let first = mask.trailing_zeros() as usize;
    match *inst {
        Inst::Shfl {
            mode,
            d,
            p,
            a,
            b,
            c,
            mask: mm,
        } => {
            let member = w.get(mm)[first];
            if !check_mask(w, cx, mask, member) {
                return Flow::Moved;
            }
            let (av, bv, cv) = (w.get(a), w.get(b), w.get(c));
            let (r, pv) = match mode {
                ShflMode::Up => shfl_lanes(&av, &bv, &cv, |l, b, _seg, _min, max| {
                    let j = l - b;
                    (j, j >= max)
                }),
                ShflMode::Down => shfl_lanes(&av, &bv, &cv, |l, b, _seg, _min, max| {
                    let j = l + b;
                    (j, j <= max)
                }),
                ShflMode::Bfly => shfl_lanes(&av, &bv, &cv, |l, b, _seg, _min, max| {
                    let j = l ^ b;
                    (j, j <= max)
                }),
                ShflMode::Idx => shfl_lanes(&av, &bv, &cv, |_l, b, seg, min, max| {
                    let j = min | (b & !seg);
                    (j, j <= max)
                }),
            };
            w.set(d, mask, &r);
            if let Some(p) = p {
                w.set_pred(p, mask, pv);
            }
        }
        Inst::Vote {
            mode,
            d,
            a,
            mask: mm,
        } => {
            let member = w.get(mm)[first];
            if !check_mask(w, cx, mask, member) {
                return Flow::Moved;
            }
            let pv = w.pred(a) & mask;
            match mode {
                VoteMode::Ballot => {
                    for l in 0..32 {
                        if mask >> l & 1 != 0 {
                            w.write_any(d, l, pv as u64);
                        }
                    }
                }
                _ => {
                    let v = match mode {
                        VoteMode::All => pv == mask,
                        VoteMode::Any => pv != 0,
                        _ => pv == mask || pv == 0,
                    };
                    // predicate destination index travels as Imm
                    if let crate::program::Any::Imm(pi) = d {
                        w.set_pred(pi as u16, mask, if v { !0 } else { 0 });
                    }
                }
            }
        }
        Inst::Redux { op, d, a, mask: mm } => {
            let member = w.get(mm)[first];
            if !check_mask(w, cx, mask, member) {
                return Flow::Moved;
            }
            let av = w.get(a);
            let m = FMods {
                rnd: Rnd::Rn,
                ftz: false,
                sat: false,
            };
            let float = !matches!(
                op,
                ReduxOp::Add
                    | ReduxOp::MinU
                    | ReduxOp::MaxU
                    | ReduxOp::MinS
                    | ReduxOp::MaxS
                    | ReduxOp::And
                    | ReduxOp::Or
                    | ReduxOp::Xor
            );
            let abs = matches!(
                op,
                ReduxOp::FMinAbs | ReduxOp::FMaxAbs | ReduxOp::FMinAbsNan | ReduxOp::FMaxAbsNan
            );
            let step = |y: u32, x: u32| match op {
                ReduxOp::Add => y.wrapping_add(x),
                ReduxOp::MinU => y.min(x),
                ReduxOp::MaxU => y.max(x),
                ReduxOp::MinS => (y as i32).min(x as i32) as u32,
                ReduxOp::MaxS => (y as i32).max(x as i32) as u32,
                ReduxOp::And => y & x,
                ReduxOp::Or => y | x,
                ReduxOp::Xor => y ^ x,
                ReduxOp::FMin => fp::min32(y, x, m, false),
                ReduxOp::FMax => fp::max32(y, x, m, false),
                ReduxOp::FMinNan => fp::min32(y, x, m, true),
                ReduxOp::FMaxNan => fp::max32(y, x, m, true),
                ReduxOp::FMinAbs => fp::min32(y, x & 0x7fff_ffff, m, false),
                ReduxOp::FMaxAbs => fp::max32(y, x & 0x7fff_ffff, m, false),
                ReduxOp::FMinAbsNan => fp::min32(y, x & 0x7fff_ffff, m, true),
                ReduxOp::FMaxAbsNan => fp::max32(y, x & 0x7fff_ffff, m, true),
            };
            let mut lanes = (0..32).filter(|l| mask >> l & 1 != 0);
            let acc = lanes.next().map(|f| {
                let x = av[f];
                // integer ops start from the first value; float ones from op(|x|, x) (or
                // op(x, x)), so that a lone NaN comes out as the canonical NaN, as two NaNs do
                let start = match (float, abs) {
                    (false, _) => x,
                    (true, false) => step(x, x),
                    (true, true) => step(x & 0x7fff_ffff, x),
                };
                lanes.fold(start, |y, l| step(y, av[l]))
            });
            let v = acc.unwrap_or(0);
            w.set(d, mask, &[v; 32]);
        }
        Inst::Match {
            all,
            b64: _,
            d,
            p,
            a,
            mask: mm,
        } => {
            let member = w.get(mm)[first];
            if !check_mask(w, cx, mask, member) {
                return Flow::Moved;
            }
            let mut vals = [0u64; 32];
            for (l, v) in vals.iter_mut().enumerate() {
                *v = w.read_any(a, l);
            }
            let mut r = [0u32; 32];
            let mut pv = 0u32;
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                let same = (0..32)
                    .filter(|&k| mask >> k & 1 != 0 && vals[k] == vals[l])
                    .fold(0u32, |m, k| m | 1 << k);
                if all {
                    let eq = same == mask;
                    r[l] = if eq { mask } else { 0 };
                    pv |= (eq as u32) << l;
                } else {
                    r[l] = same;
                }
            }
            w.set(d, mask, &r);
            if let Some(p) = p {
                w.set_pred(p, mask, pv);
            }
        }
        Inst::Elect { d, p, mask: mm } => {
            let member = w.get(mm)[first];
            if !check_mask(w, cx, mask, member) {
                return Flow::Moved;
            }
            // DERIVED (bulk-copies.md §5): the leader is the lowest executing lane in the mask
            let cand = mask & member;
            let leader = if cand == 0 {
                first as u32
            } else {
                cand.trailing_zeros()
            };
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    w.write_any(d, l, leader as u64);
                }
            }
            if let Some(p) = p {
                w.set_pred(p, mask, 1 << leader);
            }
        }
        Inst::Activemask { d } => {
            let m = w.cur_mask;
            w.set(d, mask, &[m; 32]);
        }
        _ => unreachable!("warp_ops::exec() called with {inst:?}"),
    }
    Flow::Next
}

/// The shfl.sync data movement (PTX ISA §9.7.8.6) with the mode chosen by the caller, so the
/// lane loop has no per-lane match. `source(lane, b, seg, min_lane, max_lane)` gives the
/// source lane and whether it is in range.
#[inline(always)]
fn shfl_lanes(
    av: &[u32; 32],
    bv: &[u32; 32],
    cv: &[u32; 32],
    source: impl Fn(i32, i32, i32, i32, i32) -> (i32, bool),
) -> ([u32; 32], u32) {
    let mut r = *av;
    let mut pv = 0u32;
    for lane in 0..32 {
        let bval = (bv[lane] & 0x1f) as i32;
        let cval = (cv[lane] & 0x1f) as i32;
        let seg = ((cv[lane] >> 8) & 0x1f) as i32;
        let l = lane as i32;
        let max_lane = (l & seg) | (cval & !seg);
        let min_lane = l & seg;
        let (j, ok) = source(l, bval, seg, min_lane, max_lane);
        let src = if ok { j as usize } else { lane };
        r[lane] = av[src & 31];
        pv |= (ok as u32) << lane;
    }
    (r, pv)
}
