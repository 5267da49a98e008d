//! TM0234/TM0235: an asynchronous op's access of a CTA's shared memory must end before the CTA
//! exits (docs/arch/race.md). `A` and `B` are warps of CTA 0, `P` a warp of CTA 1 (shared memory of CTA 0 is
//! domain index 0).

use tmemu_race::event::WARP_IDS_PER_CTA;
use tmemu_race::{
    AccessKind, MemSpace, OpId, OpKind, Place, RaceDetector, Sem, SpanToken, SyncKey, WarpId,
};

const A: WarpId = WarpId(0);
const B: WarpId = WarpId(1);
const P: WarpId = WarpId(WARP_IDS_PER_CTA);
const OP: SpanToken = SpanToken(10);
const RET: SpanToken = SpanToken(99);
const MBAR: SyncKey = SyncKey::Mbarrier { cta: 0, offset: 8 };

fn smem(cta: u32, addr: u64, len: u64) -> Place {
    Place::Mem {
        space: MemSpace::Shared { cta },
        addr,
        len,
    }
}

fn detector() -> RaceDetector {
    let mut d = RaceDetector::new();
    for w in [A, B, P] {
        d.add_warp(w);
    }
    d.exit_watch_begin(0, A);
    d.exit_watch_begin(1, P);
    d
}

/// `A` stores 1 KB of CTA 0's shared memory to global with a `.bulk_group` copy and commits.
fn tma_store(d: &mut RaceDetector) -> OpId {
    let op = d.issue(A, OpKind::Bulk, OP);
    d.op_access(op, smem(0, 0, 1024), AccessKind::Read);
    d.op_access(
        op,
        Place::Mem {
            space: MemSpace::Global,
            addr: 0,
            len: 1024,
        },
        AccessKind::Write,
    );
    d.complete(op);
    d.bulk_group_add(A, op);
    d.bulk_commit(A);
    op
}

/// `A` loads 1 KB into CTA 0's shared memory with complete_tx on `MBAR`.
fn tma_load(d: &mut RaceDetector) {
    let op = d.issue(A, OpKind::Bulk, OP);
    d.op_access(
        op,
        Place::Mem {
            space: MemSpace::Global,
            addr: 0,
            len: 1024,
        },
        AccessKind::Read,
    );
    d.op_access(op, smem(0, 0, 1024), AccessKind::Write);
    d.complete(op);
    d.op_arrive(op, MBAR);
    d.sync_complete(MBAR);
}

fn exit_all(d: &mut RaceDetector) {
    for w in [A, B] {
        d.warp_exit(w);
    }
    d.cta_exit(0, B, RET);
}

fn found(d: &RaceDetector) -> Vec<(&'static str, SpanToken, SpanToken, AccessKind)> {
    (d.findings().iter())
        .map(|r| (r.rule.id, r.second.span, r.first.span, r.second.kind))
        .collect()
}

#[test]
fn a_tma_store_its_thread_never_waits_for_is_tm0235() {
    let mut d = detector();
    tma_store(&mut d);
    exit_all(&mut d);
    assert_eq!(found(&d), [("TM0235", OP, RET, AccessKind::Read)]);
}

#[test]
fn a_pipelined_store_tail_is_left_to_the_exit() {
    // CUTLASS's sm100 epilogue: each store is followed by wait_group.read 1, so the last
    // group is in flight at the exit (docs/arch/race.md: DERIVED, silent)
    let mut d = detector();
    tma_store(&mut d);
    d.bulk_wait(A, 1, true);
    tma_store(&mut d);
    d.bulk_wait(A, 1, true);
    exit_all(&mut d);
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}

#[test]
fn wait_group_read_before_exit_is_enough() {
    let mut d = detector();
    tma_store(&mut d);
    d.bulk_wait(A, 0, true);
    exit_all(&mut d);
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}

#[test]
fn a_tma_load_nobody_waits_for_is_tm0235() {
    let mut d = detector();
    tma_load(&mut d);
    exit_all(&mut d);
    assert_eq!(found(&d), [("TM0235", OP, RET, AccessKind::Write)]);
}

#[test]
fn a_load_waited_by_another_warp_of_the_cta_is_ordered_before_the_exit() {
    let mut d = detector();
    tma_load(&mut d);
    d.warp_exit(A);
    d.wait(B, MBAR, Sem::Ordering);
    d.warp_exit(B);
    d.cta_exit(0, B, RET);
    assert!(d.findings().is_empty(), "{:?}", d.findings());
}

#[test]
fn a_wait_by_a_warp_of_another_cta_does_not_order_the_exit() {
    // P (CTA 1) observes the load into CTA 0's memory; nothing hands that to CTA 0
    let mut d = detector();
    tma_load(&mut d);
    d.wait(P, MBAR, Sem::Ordering);
    exit_all(&mut d);
    assert_eq!(found(&d), [("TM0235", OP, RET, AccessKind::Write)]);
}

#[test]
fn a_cp_async_never_waited_is_tm0235_and_its_wait_group_is_enough() {
    for wait in [false, true] {
        let mut d = detector();
        let op = d.cp_async_issue(A, u32::MAX, OP);
        d.op_access_ranges(
            op,
            MemSpace::Shared { cta: 0 },
            &[(0, 512)],
            AccessKind::Write,
        );
        d.cp_async_commit_lanes(A, u32::MAX);
        if wait {
            d.cp_async_wait_lanes(A, u32::MAX, 0);
        }
        exit_all(&mut d);
        let want: &[_] = if wait {
            &[]
        } else {
            &[("TM0235", OP, RET, AccessKind::Write)]
        };
        assert_eq!(found(&d), want, "wait {wait}");
    }
}

#[test]
fn an_mma_operand_read_is_ordered_by_commit_and_mbarrier_wait() {
    for wait in [false, true] {
        let mut d = detector();
        let op = d.issue(
            A,
            OpKind::Mma {
                cta_group: 1,
                accum: 0,
            },
            OP,
        );
        d.op_access(op, smem(0, 0, 4096), AccessKind::Read);
        let c = d.commit(A, 1);
        d.complete(op);
        d.commit_fire(c, &[MBAR]);
        d.sync_complete(MBAR);
        if wait {
            d.wait(B, MBAR, Sem::Ordering);
        }
        exit_all(&mut d);
        let want: &[_] = if wait {
            &[]
        } else {
            &[("TM0234", OP, RET, AccessKind::Read)]
        };
        assert_eq!(found(&d), want, "wait {wait}");
    }
}

#[test]
fn a_long_running_cta_keeps_only_what_is_in_flight() {
    // many loads, each waited: the list is pruned, and the one load left unwaited is found
    let mut d = detector();
    for i in 0..200 {
        tma_load(&mut d);
        if i < 199 {
            d.wait(B, MBAR, Sem::Ordering);
        }
    }
    exit_all(&mut d);
    assert_eq!(found(&d), [("TM0235", OP, RET, AccessKind::Write)]);
}
