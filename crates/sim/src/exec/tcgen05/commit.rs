//! tcgen05.commit (PTX ISA §9.7.16.12.1; tmem.md §8): a marker in the queue that arrives
//! once (arrive::one, release at cluster scope) on its mbarrier — or, with
//! `.multicast::cluster`, on the mbarrier at the same offset of every CTA in ctaMask — when
//! every op queued before it has completed.

use super::queue::Work;
use super::{enqueue, rule_of, target_ranks};
use crate::error::{rules, Rule};
use crate::exec::memory::{lane_addr, shared_loc, Loc};
use crate::exec::{CtaState, Ctx, Flow, Warp};
use crate::mem::{classify, Window};
use crate::observer::Observer;
use crate::program::{Addr, Any, Space};
use tmemu_tmem::rules as cat;

/// One arrive-on (count 1) on the mbarrier at `off` of `cta`. Ok(true): the phase completed.
pub(crate) fn arrive(cta: &mut CtaState, off: u32) -> Result<bool, (Rule, String)> {
    let Some(m) = cta.mbars.get_mut(&off).filter(|m| m.valid) else {
        return Err((
            rules::MBAR_UNINIT,
            format!("tcgen05.commit arrives on shared offset {off:#x}, which holds no initialised mbarrier"),
        ));
    };
    m.pending -= 1;
    m.version += 1;
    if m.pending < 0 {
        m.pending = 0;
        return Err((
            rules::MBAR_OVERARRIVE,
            format!(
                "tcgen05.commit's arrive made the pending count negative (more arrivals than expected in phase {})",
                m.phase
            ),
        ));
    }
    Ok(m.try_complete())
}

pub(super) fn commit<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    group: u8,
    mbar: Addr,
    space: Space,
    cta_mask: Option<Any>,
) -> Flow {
    let pc = w.cur_pc;
    let n = cx.ctas.len();
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let lane = 1u32 << l;
        let a = lane_addr(w, mbar, l);
        let loc = match space {
            Space::SharedCluster => shared_loc(a as u32, cx.me, n, true).ok(),
            _ => match classify(a) {
                Window::Shared(x) => shared_loc(x, cx.me, n, true).ok(),
                _ => None,
            },
        };
        let Some(Loc::Shared(rank, off)) = loc else {
            cx.diag(
                w,
                pc,
                lane,
                rule_of(&cat::COMMIT_MBAR_NOT_SHARED_CLUSTER),
                format!(
                    "tcgen05.commit mbarrier address {a:#x} is not in the .shared::cluster window"
                ),
            );
            continue;
        };
        if off % 8 != 0 || off as usize + 8 > cx.ctas[rank].shared.len() {
            cx.diag(
                w,
                pc,
                lane,
                rules::MBAR_ALIGN,
                format!("tcgen05.commit mbarrier address {a:#x} is not an 8-byte aligned shared location"),
            );
            continue;
        }
        if target_ranks(w, cx, lane, group, "tcgen05.commit").is_none() {
            continue;
        }
        let bars: Vec<(usize, u32)> = match cta_mask {
            Some(m) => {
                let bits = w.read_any(m, l) as u32 & 0xffff;
                (0..n.min(16))
                    .filter(|r| bits >> r & 1 != 0)
                    .map(|r| (r, off))
                    .collect()
            }
            None => vec![(rank, off)],
        };
        let id = cx.tc.commit_id();
        let at = cx.at(w, lane);
        cx.obs.commit(at, id, group);
        enqueue(w, cx, lane, None, Work::Commit { id, bars });
    }
    Flow::Next
}
