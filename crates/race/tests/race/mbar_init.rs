//! TM0214 mbarrier-init-race: every operation on an mbarrier must happen after its init. The
//! detector's events for a 2-CTA cluster: warp 0 of CTA 0 (`A`) initialises CTA 0's barrier;
//! `B` is another warp of CTA 0, `P` a warp of CTA 1.

use tmemu_race::event::WARP_IDS_PER_CTA;
use tmemu_race::{
    AccessKind, Agent, Fence, MemSpace, OpKind, Place, RaceDetector, Sem, SpanToken, SyncKey,
    WarpId,
};

const A: WarpId = WarpId(0);
const B: WarpId = WarpId(1);
const P: WarpId = WarpId(WARP_IDS_PER_CTA);
const P2: WarpId = WarpId(WARP_IDS_PER_CTA + 1);
const MBAR: SyncKey = SyncKey::Mbarrier { cta: 0, offset: 8 };
const INIT: SpanToken = SpanToken(10);
const USE: SpanToken = SpanToken(20);

fn barrier(d: &mut RaceDetector, key: SyncKey, warps: &[WarpId], sem: Sem) {
    for &w in warps {
        d.arrive(w, key, sem);
    }
    d.sync_complete(key);
    for &w in warps {
        d.wait(w, key, Sem::Ordering);
    }
}

fn cta_sync(d: &mut RaceDetector, cta: u32, warps: &[WarpId]) {
    barrier(d, SyncKey::CtaBarrier { cta, id: 0 }, warps, Sem::Ordering);
}

/// The cluster barrier over all four warps, its arrive of `sem`.
fn cluster_sync(d: &mut RaceDetector, sem: Sem) {
    barrier(d, SyncKey::ClusterBarrier, &[A, B, P, P2], sem);
}

/// A detector where `A` initialised `MBAR` and each CTA synchronised only its own warps.
fn after_cta_local_sync() -> RaceDetector {
    let mut d = RaceDetector::new();
    for w in [A, B, P, P2] {
        d.add_warp(w);
    }
    d.mbar_init(A, MBAR, INIT);
    cta_sync(&mut d, 0, &[A, B]);
    cta_sync(&mut d, 1, &[P, P2]);
    d
}

/// (rule, init span, operation span, operation's warp, agent) of each finding.
fn found(d: &RaceDetector) -> Vec<(&'static str, SpanToken, SpanToken, WarpId, Agent)> {
    (d.findings().iter())
        .map(|r| {
            (
                r.rule.id,
                r.first.span,
                r.second.span,
                r.second.warp,
                r.second.agent,
            )
        })
        .collect()
}

#[test]
fn the_init_warp_and_its_cta_after_bar_sync_are_ordered() {
    let mut d = after_cta_local_sync();
    d.arrive_at(A, MBAR, Sem::Ordering, USE);
    d.arrive_at(B, MBAR, Sem::Relaxed, USE);
    d.sync_complete(MBAR);
    d.wait_at(A, MBAR, Sem::Ordering, USE);
    d.mbar_use(B, MBAR, USE);
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}

#[test]
fn a_remote_arrive_after_a_cta_local_bar_sync_is_tm0214() {
    let mut d = after_cta_local_sync();
    d.arrive_at(P, MBAR, Sem::Ordering, USE);
    assert_eq!(found(&d), [("TM0214", INIT, USE, P, Agent::Thread)]);
    // one finding per CTA and init: the peer's next operations say nothing new
    d.arrive_at(P2, MBAR, Sem::Ordering, SpanToken(21));
    d.mbar_use(P, MBAR, SpanToken(22));
    assert_eq!(d.findings().len(), 1);
}

#[test]
fn an_operation_of_the_same_cta_without_bar_sync_is_tm0214() {
    let mut d = RaceDetector::new();
    d.add_warp(A);
    d.add_warp(B);
    d.mbar_init(A, MBAR, INIT);
    d.arrive_at(A, MBAR, Sem::Ordering, SpanToken(11));
    d.sync_complete(MBAR);
    d.wait_at(B, MBAR, Sem::Ordering, USE);
    assert_eq!(found(&d), [("TM0214", INIT, USE, B, Agent::Thread)]);
    assert_eq!(d.findings()[0].second.kind, AccessKind::Read);
}

#[test]
fn the_default_cluster_barrier_orders_the_init() {
    let mut d = after_cta_local_sync();
    cluster_sync(&mut d, Sem::Ordering);
    d.arrive_at(P, MBAR, Sem::Ordering, USE);
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}

#[test]
fn a_relaxed_cluster_barrier_needs_fence_mbarrier_init() {
    let mut d = after_cta_local_sync();
    cluster_sync(&mut d, Sem::Relaxed);
    d.arrive_at(P, MBAR, Sem::Ordering, USE);
    assert_eq!(found(&d), [("TM0214", INIT, USE, P, Agent::Thread)]);

    let mut d = after_cta_local_sync();
    d.fence(A, Fence::MbarInit);
    cluster_sync(&mut d, Sem::Relaxed);
    d.arrive_at(P, MBAR, Sem::Ordering, USE);
    assert!(d.findings().is_empty(), "{:?}", d.findings());

    // a fence.acq_rel is no fence.mbarrier_init for a relaxed arrive
    let mut d = after_cta_local_sync();
    d.fence(A, Fence::AcqRel);
    cluster_sync(&mut d, Sem::Relaxed);
    d.arrive_at(P, MBAR, Sem::Ordering, USE);
    assert_eq!(d.findings().len(), 1);
}

#[test]
fn an_async_complete_tx_is_judged_by_its_issuer_at_issue() {
    let smem1 = Place::Mem {
        space: MemSpace::Shared { cta: 1 },
        addr: 0x100,
        len: 64,
    };
    // st.async / a TMA copy issued by P after CTA 1's own bar.sync only
    let mut d = after_cta_local_sync();
    let op = d.issue(P, OpKind::Bulk, USE);
    d.op_access(op, smem1, AccessKind::Read);
    d.complete(op);
    d.op_arrive(op, MBAR);
    assert_eq!(found(&d), [("TM0214", INIT, USE, P, Agent::Bulk)]);

    // issued after the cluster barrier: ordered
    let mut d = after_cta_local_sync();
    cluster_sync(&mut d, Sem::Ordering);
    let op = d.issue(P, OpKind::Bulk, USE);
    d.op_access(op, smem1, AccessKind::Read);
    d.complete(op);
    d.op_arrive(op, MBAR);
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}

#[test]
fn a_commit_arrive_is_judged_by_the_committing_warp() {
    let mut d = after_cta_local_sync();
    let c = d.commit_at(P, 1, USE);
    d.commit_fire(c, &[MBAR]);
    assert_eq!(found(&d), [("TM0214", INIT, USE, P, Agent::Thread)]);

    let mut d = after_cta_local_sync();
    let c = d.commit_at(B, 1, USE);
    d.commit_fire(c, &[MBAR]);
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}

#[test]
fn a_reinit_is_the_init_later_operations_must_follow() {
    let mut d = after_cta_local_sync();
    cluster_sync(&mut d, Sem::Ordering);
    d.mbar_use(A, MBAR, SpanToken(11)); // inval
    d.mbar_init(A, MBAR, SpanToken(12));
    d.arrive_at(P, MBAR, Sem::Ordering, USE);
    assert_eq!(
        found(&d),
        [("TM0214", SpanToken(12), USE, P, Agent::Thread)]
    );
}

#[test]
fn an_init_after_the_warps_fence_is_published_by_its_relaxed_arrive() {
    // CUTLASS's sm100 2-SM GEMMs: the pipelines' inits, fence_barrier_init(), then the
    // tmem_dealloc barrier's init, then cluster_arrive_relaxed() + cluster_wait()
    let mut d = RaceDetector::new();
    for w in [A, B, P, P2] {
        d.add_warp(w);
    }
    d.mbar_init(A, SyncKey::Mbarrier { cta: 0, offset: 0 }, SpanToken(9));
    d.fence(A, Fence::MbarInit);
    d.mbar_init(A, MBAR, INIT);
    cluster_sync(&mut d, Sem::Relaxed);
    d.arrive_at(P, MBAR, Sem::Ordering, USE);
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}
