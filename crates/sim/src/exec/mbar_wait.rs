//! The warp-uniform `mbarrier.test_wait` / `try_wait`: every active lane names the same
//! mbarrier with the same phase operand (Triton's and CUTLASS's wait loops, run by whole
//! warps), so the address is resolved and the barrier looked up once per warp-instruction
//! instead of once per lane.
//!
//! The per-lane path (`sync::mbar`) stays the reference: this one returns `None`, having
//! touched nothing, for any other shape (a lane with another address or phase, an address
//! that does not resolve or is misaligned, a remote or uninitialised mbarrier: every case
//! that reports a diagnostic), and under `RunOptions::reference_paths`. Where it applies,
//! every lane of the per-lane path computes the same `done`, version and memo, so the lanes
//! are handled as one: the same predicate bits, one parked wait of all the lanes (the
//! per-lane path groups lanes by barrier into exactly that one), the same spin memo, and the
//! observer's `sync_wait` per lane in lane order.

use super::sync::{mbar_key, park_lanes, WaitKind, TRY_TIMEOUT};
use super::{Ctx, Flow, Wait, Warp};
use crate::observer::{Observer, SyncKey};
use crate::program::{MbarInst, MbarOp};

/// Runs a warp-uniform test/try_wait of the lanes of `mask`; `None` when the per-lane path
/// must run.
#[inline]
pub(super) fn uniform<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &MbarInst,
) -> Option<Flow> {
    let (MbarOp::TestWait { parity } | MbarOp::TryWait { parity }) = i.op else {
        return None;
    };
    if mask == 0 || cx.env.reference_paths {
        return None;
    }
    let first = mask.trailing_zeros() as usize;
    let addr = super::memory::lane_addr(w, i.addr, first);
    let b = i.b.map(|b| w.read_any(b, first)).unwrap_or(1);
    let mut rest = mask & (mask - 1);
    while rest != 0 {
        let l = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        if super::memory::lane_addr(w, i.addr, l) != addr
            || i.b.is_some_and(|v| w.read_any(v, l) != b)
        {
            return None;
        }
    }
    let (c, off) = mbar_key(w, cx, i, first).ok()?;
    if c != cx.me {
        return None;
    }
    let m = cx.ctas[c].mbars.get_mut(&off).filter(|m| m.valid)?;
    let done = if parity {
        (m.phase & 1) as u64 != (b & 1)
    } else {
        m.phase as u64 != (b & 0xffff_ffff)
    };
    if done {
        m.seen = m.seen.max(m.phase);
    }
    let version = m.version;
    let pc = w.cur_pc;
    if let Some(p) = i.dp {
        let p = &mut w.preds[p as usize];
        *p = (*p & !mask) | if done { mask } else { 0 };
    }
    if done {
        if i.dp.is_some() {
            let key = SyncKey::Mbarrier {
                cta: c as u32,
                offset: off,
            };
            let mut lanes = mask;
            while lanes != 0 {
                let l = lanes.trailing_zeros();
                lanes &= lanes - 1;
                let at = cx.at(w, 1 << l);
                cx.obs.sync_wait(at, key, i.sem);
            }
        }
        return Some(Flow::Next);
    }
    let is_try = matches!(i.op, MbarOp::TryWait { .. });
    let memo = Some((pc, c as u32, off, version));
    if is_try && w.spin_memo == Some((pc, c as u32, off, version | TRY_TIMEOUT)) {
        // the time limit of try_wait ran out: false, and the lanes go on
        w.spin_memo = None;
        return Some(Flow::Next);
    }
    if !is_try && w.spin_memo != memo {
        // a test_wait's first look at this version: false, and the spin goes on
        w.spin_memo = memo;
        return Some(Flow::Next);
    }
    w.waits.push(Wait {
        mask,
        pc,
        kind: WaitKind::Mbar {
            owner: c as u16,
            off,
            version,
            parity_or_state: i.b.map(|_| b).unwrap_or(0),
        },
    });
    let stay = w.cur_mask & !mask;
    Some(park_lanes(w, pc, stay, mask))
}
