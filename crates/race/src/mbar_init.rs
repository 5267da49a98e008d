//! TM0214 mbarrier-init-race: every operation on an mbarrier must happen after its
//! `mbarrier.init` (PTX ISA §9.7.13.15.9; §9.7.13.4 for `fence.mbarrier_init`).
//!
//! The engine's TM0220 sees an uninitialised mbarrier only in a schedule that runs the
//! operation before the init; a remote `mbarrier.arrive` or `st.async` complete_tx ordered
//! after the init only by the peer CTA's own `bar.sync` runs after it in most schedules and
//! is still a race. Here the init is a write to the barrier object: one epoch (the initialising
//! warp's clock component and time) per barrier, and each operation checks that its view has
//! it. One compare where the synchronisation object is already looked up, no clock copies.
//!
//! The view checked is the generic one of the thread that performs or issues the operation
//! (for an async op, its issuer's view at issue: the op acts on its behalf). The init needs
//! nothing more for the async proxy: no proxy fence is asked for between `mbarrier.init` and
//! a TMA or `st.async` complete_tx (docs/arch/race.md, "mbarrier init").
//!
//! `fence.mbarrier_init` + `barrier.cluster.arrive.relaxed` + `wait` is how CUTLASS and Gluon
//! publish inits to the cluster: once a warp has executed the fence, its relaxed barrier
//! arrivals release its own clock entry up to the arrival into an inits channel that only this
//! check reads ([`release`]; docs/arch/race.md, "mbarrier init").

use super::{RaceDetector, SyncObj, WarpState};
use crate::clock::{ActorIdx, Time, VClock};
use crate::event::{AccessKind, Agent, MemSpace, Sem, SpanToken, SyncKey, WarpId};
use crate::finding::{self, Access, Race, Region};

/// The latest `mbarrier.init` of a barrier: who, when (the initialising warp's own time), where.
#[derive(Clone, Copy, Debug)]
pub(super) struct InitRec {
    actor: ActorIdx,
    time: Time,
    warp: WarpId,
    span: SpanToken,
}

const WHY: &str = "the operation is not ordered after the mbarrier.init by happens-before, so in \
some schedule it acts on the barrier before (or while) it is initialised and the init erases it. \
A bar.sync orders the init for the threads of its own CTA only; another CTA of the cluster needs \
fence.mbarrier_init.release.cluster and barrier.cluster.arrive.relaxed + barrier.cluster.wait \
(or a release/acquire barrier.cluster) between the init and its first operation on the barrier, \
as CUTLASS's cluster_sync after the pipeline init";

/// The init `obj` holds when neither `view` nor the inits acquired through the inits channel
/// (`acq`; `None`, unknown: silent) are ordered after it.
#[inline(always)]
pub(super) fn unordered(obj: &SyncObj, view: &VClock, acq: Option<&VClock>) -> Option<InitRec> {
    obj.init
        .filter(|i| view.get(i.actor) < i.time && acq.is_some_and(|a| a.get(i.actor) < i.time))
}

/// An arrival of `ws` on `key` releases into the inits channel: a relaxed barrier arrival after
/// the warp's `fence.mbarrier_init` its own entry (up to the arrival, not the fence: CUTLASS's
/// sm100 2-SM GEMMs init their tmem_dealloc barrier after their pipelines' last fence, before
/// cluster_arrive_relaxed), an ordering one what the warp acquired through the channel (so it
/// is carried on as the generic view is). Only the init check reads the channel: a relaxed
/// arrival still publishes no data (Gluon's relaxed cluster barrier before a multicast into a
/// buffer just read stays a race, ho3_bug_multicast_relaxed_cluster). Mbarrier arrivals release
/// nothing here: the fence is for barrier.cluster, and mbarrier loops pay nothing.
#[inline(always)]
pub(super) fn release(obj: &mut SyncObj, ws: &WarpState, key: SyncKey, sem: Sem) {
    if matches!(key, SyncKey::Mbarrier { .. }) {
        return;
    }
    match sem {
        Sem::Relaxed if ws.init_fenced => {
            let now = ws.v.gen().get(ws.actor);
            obj.init_pending.raise(ws.actor, now);
        }
        Sem::Ordering if !ws.init_acq.is_empty() => obj.init_pending.join(&ws.init_acq),
        _ => {}
    }
}

impl RaceDetector {
    /// `mbarrier.init` of the barrier `key` by warp `w` (one event per warp-instruction
    /// suffices: the lanes share the warp's clock).
    pub fn mbar_init(&mut self, w: WarpId, key: SyncKey, span: SpanToken) {
        let ws = self.warp(w);
        let (actor, time) = (ws.actor, ws.v.gen().get(ws.actor));
        self.sync.entry(key).or_default().init = Some(InitRec {
            actor,
            time,
            warp: w,
            span,
        });
    }

    /// An mbarrier operation of warp `w` that no other event reports (`expect_tx`, a thread's
    /// `complete_tx`, `inval`); arrivals and successful waits check in
    /// [`Self::arrive_at`] / [`Self::wait_at`].
    pub fn mbar_use(&mut self, w: WarpId, key: SyncKey, span: SpanToken) {
        self.warp(w);
        let ws = self.warps[w.0 as usize].as_ref().expect("registered");
        let init = (self.sync.get(&key)).and_then(|o| unordered(o, ws.v.gen(), Some(&ws.init_acq)));
        if let Some(init) = init {
            self.init_race(init, key, w, Agent::Thread, AccessKind::Write, span);
        }
    }

    /// The inits warp `w` acquired through the inits channel (`None` for a retired warp).
    pub(super) fn init_acq(&self, w: WarpId) -> Option<&VClock> {
        match self.warps.get(w.0 as usize) {
            Some(Some(ws)) => Some(&ws.init_acq),
            _ => None,
        }
    }

    /// Reports operation `span` (by `agent` of warp `w`) on `key` as not ordered after `init`.
    #[cold]
    #[inline(never)]
    pub(super) fn init_race(
        &mut self,
        init: InitRec,
        key: SyncKey,
        w: WarpId,
        agent: Agent,
        kind: AccessKind,
        span: SpanToken,
    ) {
        if !(self.init_reported).insert((init.span, w.0 / crate::event::WARP_IDS_PER_CTA)) {
            self.stats.duplicate_findings += 1;
            return;
        }
        let region = match key {
            SyncKey::Mbarrier { cta, offset } => Region::Mem {
                space: MemSpace::Shared { cta },
                bytes: u64::from(offset)..u64::from(offset) + 8,
            },
            _ => return,
        };
        let first = Access {
            warp: init.warp,
            agent: Agent::Thread,
            kind: AccessKind::Write,
            span: init.span,
            region: region.clone(),
        };
        let second = Access {
            warp: w,
            agent,
            kind,
            span,
            region,
        };
        let message = finding::message(&first, &second, WHY);
        self.findings.push(Race {
            rule: &tmemu_tmem::rules::MBARRIER_INIT_RACE,
            first,
            second,
            message,
            why: WHY,
        });
    }
}
