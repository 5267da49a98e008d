//! tcgen05 in the engine (except `tcgen05.mma`, which enqueues through [`issue_async`]):
//! TMEM allocation through `tmemu_tmem::alloc::TmemAllocator`, ld/st/wait, cp, shift,
//! commit, fences, and the asynchronous queue ([`queue`]).
//!
//! Issue granularity (PTX ISA §9.7.16.5, Table 46; tmem.md §6):
//! - alloc / dealloc / relinquish: one converged warp (the allocator checks convergence,
//!   exited lanes and uniform operands: TM0004–TM0006, TM0018).
//! - ld / st / wait: one converged warp on its own lane quarter (TM0101–TM0103, TM0105).
//! - cp / shift / commit: "one thread starts the operation". DERIVED reading
//!   (data-movement.md §7): every thread that executes the instruction starts its own
//!   operation, so a whole warp executing `tcgen05.commit` arrives 32 times on the mbarrier
//!   (which the mbarrier rules then report as an over-arrival if the count does not allow it).
//!   Compilers guard these with `elect.sync` or a lane predicate.

mod alloc;
pub(crate) mod commit;
mod cp;
mod ldst;
pub mod queue;
pub(crate) mod shift;

use tmemu_tmem::layout::{CpForm, LayoutError, LdStForm};

use super::{Ctx, Flow, Warp};
use crate::error::{rules, Rule};
use crate::observer::{AccessKind, AsyncId, Fence, Observer, OpKind, Place};
use crate::program::{Addr, Any, Space};
use queue::{AsyncPolicy, AsyncWork, Drain, Pending, Work};

pub(crate) use alloc::{cta_exit, cta_launch, describe, poll};
pub use ldst::{LdRed, RedOp, RedType};

/// A decoded tcgen05 instruction (boxed in `Inst::Tc`).
#[derive(Clone, Debug)]
pub struct TcInst {
    pub op: TcOp,
}

#[derive(Clone, Debug)]
pub enum TcOp {
    Alloc {
        group: u8,
        dst: Addr,
        /// `Shared` (`.shared::cta`, 32-bit offset) or `Generic`.
        space: Space,
        ncols: Any,
    },
    Dealloc {
        group: u8,
        taddr: Any,
        ncols: Any,
    },
    Relinquish {
        group: u8,
    },
    Ld {
        form: LdStForm,
        taddr: Addr,
        split: u32,
        /// 32-bit destination registers.
        dst: Vec<u16>,
        /// `tcgen05.ld.red`: the reduction and its `redval` register.
        red: Option<ldst::LdRed>,
    },
    St {
        form: LdStForm,
        taddr: Addr,
        split: u32,
        src: Vec<Any>,
    },
    Wait {
        st: bool,
    },
    Fence {
        after: bool,
    },
    Commit {
        group: u8,
        mbar: Addr,
        /// `SharedCluster` or `Generic`.
        space: Space,
        /// `.multicast::cluster` ctaMask.
        mask: Option<Any>,
    },
    Cp {
        group: u8,
        form: CpForm,
        taddr: Addr,
        desc: Any,
    },
    Shift {
        group: u8,
        taddr: Addr,
    },
}

/// What a warp blocked in a tcgen05 instruction waits for (inside `WaitKind::Tcgen05`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcBlocked {
    /// An allocator request (alloc for columns or a pair peer; dealloc / relinquish for the
    /// pair peer). `dst` is the shared offset an alloc writes its address to.
    Allocator { warp: u32, dst: Option<u32> },
}

/// `.sync.aligned` warp instructions: "each thread waits until all threads of the warp
/// execute the same instruction". Lanes the engine has parked in a wait (an mbarrier spin,
/// a barrier) at an earlier PC, or that already wait here, will come: the group waits for them (as `.sync`
/// warp instructions do, `WaitKind::WarpSync`). Lanes that diverged elsewhere and are still
/// running are not waited for: the instruction executes without them and the rules report
/// the divergence (TM0005, TM0101). Returns false when the group blocked.
fn gather<O: Observer>(w: &mut Warp, cx: &Ctx<'_, '_, O>) -> bool {
    let member = population(w, cx) & w.live;
    let missing = member & !w.cur_mask;
    if missing == 0 {
        return true;
    }
    let pc = w.cur_pc;
    let coming = w
        .waits
        .iter()
        // a lane parked before this instruction comes here next; one parked after it has
        // passed it already, and one in another .sync instruction waits for others itself
        .filter(|x| {
            x.pc == pc || (x.pc < pc && !matches!(x.kind, super::WaitKind::WarpSync { .. }))
        })
        .fold(0u32, |m, x| m | x.mask);
    if missing & !coming != 0 {
        return true;
    }
    let group = w.cur_mask;
    w.block(group, pc, super::WaitKind::WarpSync { member });
    false
}

pub(crate) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    t: &TcInst,
) -> Flow {
    let collective = matches!(
        t.op,
        TcOp::Alloc { .. }
            | TcOp::Dealloc { .. }
            | TcOp::Relinquish { .. }
            | TcOp::Ld { .. }
            | TcOp::St { .. }
            | TcOp::Wait { .. }
    );
    if collective && mask != 0 && !gather(w, cx) {
        return Flow::Moved;
    }
    match &t.op {
        TcOp::Alloc {
            group,
            dst,
            space,
            ncols,
        } => alloc::alloc(w, cx, mask, *group, *dst, *space, *ncols),
        TcOp::Dealloc {
            group,
            taddr,
            ncols,
        } => alloc::dealloc(w, cx, mask, *group, *taddr, *ncols),
        TcOp::Relinquish { group } => alloc::relinquish(w, cx, mask, *group),
        TcOp::Ld {
            form,
            taddr,
            split,
            dst,
            red,
        } => ldst::ld(w, cx, mask, form, *taddr, *split, dst, red.as_ref()),
        TcOp::St {
            form,
            taddr,
            split,
            src,
        } => ldst::st(w, cx, mask, form, *taddr, *split, src),
        TcOp::Wait { st } => ldst::wait(w, cx, mask, *st),
        TcOp::Fence { after } => {
            if mask != 0 {
                let at = cx.at(w, mask);
                let f = if *after {
                    Fence::TcAfterThreadSync
                } else {
                    Fence::TcBeforeThreadSync
                };
                cx.obs.fence(at, f);
            }
            Flow::Next
        }
        TcOp::Commit {
            group,
            mbar,
            space,
            mask: cm,
        } => commit::commit(w, cx, mask, *group, *mbar, *space, *cm),
        TcOp::Cp {
            group,
            form,
            taddr,
            desc,
        } => cp::cp(w, cx, mask, *group, form, *taddr, *desc),
        TcOp::Shift { group, taddr } => shift::shift(w, cx, mask, *group, *taddr),
    }
}

/// The engine's handle of a catalogued rule.
pub(crate) const fn rule_of(r: &tmemu_tmem::rules::Rule) -> Rule {
    Rule {
        id: r.id,
        name: r.name,
    }
}

/// The rule and message of a layout error of `what`.
pub(crate) fn layout_rule(e: &LayoutError, what: &str) -> (Rule, String) {
    let rule = e.rule().map(rule_of).unwrap_or(rules::OUT_OF_BOUNDS);
    (rule, format!("{what}: {e}"))
}

/// Lanes the warp was launched with (a partial last warp has fewer than 32).
pub(crate) fn population<O: Observer>(w: &Warp, cx: &Ctx<'_, '_, O>) -> u32 {
    let n = cx.ctas[cx.me].nthreads.saturating_sub(32 * w.id).min(32);
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// The peer CTA rank of a `.cta_group::2` op, checking it exists (TM0015) and is active
/// (TM0202). Returns the ranks the op targets (this CTA, then the peer for `::2`).
pub(crate) fn target_ranks<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    lanes: u32,
    group: u8,
    what: &str,
) -> Option<Vec<usize>> {
    let me = cx.me;
    if group != 2 {
        return Some(vec![me]);
    }
    let peer = me ^ 1;
    let pc = w.cur_pc;
    if peer >= cx.ctas.len() {
        cx.diag(
            w,
            pc,
            lanes,
            rule_of(&tmemu_tmem::rules::PAIR_NO_PEER),
            format!(
                "{what}.cta_group::2 in CTA rank {me}, whose peer rank {peer} is not in the cluster of {} CTAs",
                cx.ctas.len()
            ),
        );
        return None;
    }
    if cx.ctas[peer].live_threads == 0 {
        cx.diag(
            w,
            pc,
            lanes,
            rule_of(&tmemu_tmem::rules::PAIR_PEER_INACTIVE),
            format!("{what}.cta_group::2 issued after the peer CTA (rank {peer}) exited"),
        );
        // the issuing CTA's half still happens (a commit still arrives)
        return Some(vec![me]);
    }
    Some(vec![me, peer])
}

/// TM0105: every column of `cols` on SM `rank` belongs to a live allocation of CTA `rank` of
/// this cluster. Returns the message of the first column that does not.
pub(crate) fn columns_owned<O: Observer>(
    cx: &Ctx<'_, '_, O>,
    rank: usize,
    cols: std::ops::Range<u32>,
) -> Result<(), String> {
    let me = cx.tc.cta_id(cx.cluster.index, rank as u32);
    let Some(sm) = cx
        .tc
        .allocator
        .columns(tmemu_tmem::alloc::SmId(rank as u32))
    else {
        return Err("no TMEM on this SM".into());
    };
    let mut c = cols.start;
    while c < cols.end {
        match sm.owner_of(c) {
            Some(a) if a.cta == me => c = a.range.end().max(c + 1),
            Some(a) => {
                return Err(format!(
                    "column {c} belongs to another CTA's allocation (columns {}..{})",
                    a.range.first,
                    a.range.end()
                ))
            }
            None => return Err(format!("column {c} is not allocated")),
        }
    }
    Ok(())
}

/// Enqueues an asynchronous op issued by lane(s) `lanes` of `w` (kind for observers, its
/// places, what it does at completion), and completes it at once under `Immediate`. For
/// `tcgen05.mma`: build an [`AsyncWork`] and call this.
pub fn issue_async<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    lanes: u32,
    kind: OpKind,
    places: &[(Place, AccessKind)],
    work: Box<dyn AsyncWork>,
) -> AsyncId {
    enqueue(w, cx, lanes, Some((kind, places)), Work::Custom(work))
        .expect("ops with a kind get an id")
}

/// Shared by every queued op: observer issue events, the queue, and the Immediate policy.
pub(crate) fn enqueue<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    lanes: u32,
    kind: Option<(OpKind, &[(Place, AccessKind)])>,
    work: Work,
) -> Option<AsyncId> {
    let at = cx.at(w, lanes);
    let id = kind.map(|(k, places)| {
        let id = cx.tc.async_id();
        cx.obs.async_issue(at, id, k);
        for &(p, a) in places {
            cx.obs.async_access(id, p, a);
        }
        id
    });
    let cta = &cx.ctas[cx.me];
    let ctx = crate::error::Context {
        cluster: cx.cluster.id,
        cta: cta.ctaid,
        warp: w.id,
        lanes,
        pc: w.cur_pc,
    };
    let tmem = kind
        .map(|(_, places)| {
            places
                .iter()
                .filter_map(|(p, _)| match p {
                    Place::Tmem(r) => Some((r.cta, r.col, r.cols)),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    cx.tc.queue.push(Pending {
        id,
        cluster: cx.cluster.index,
        rank: cx.me,
        round: cx.tc.round,
        at,
        ctx,
        work,
        tmem,
    });
    if cx.tc.policy == AsyncPolicy::Immediate {
        let cluster = cx.cluster.index;
        let mut d = Drain {
            env: cx.env,
            ctas: cx.ctas,
            obs: cx.obs,
            out: cx.out,
        };
        queue::drain(&mut d, cx.tc, cluster, &|_| true, usize::MAX);
    }
    id
}
