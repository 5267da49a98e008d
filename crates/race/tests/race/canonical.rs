//! PTX ISA §9.7.16.6.4 canonical patterns (sync.md §4) are silent; each broken variant
//! reports exactly one finding naming both accesses.

use crate::dsl;
use dsl::*;
use tmemu_race::{Fence, Sem};

const A: (u64, u64) = (0x1000, 0x4000);
const B: (u64, u64) = (0x5000, 0x2000);

// -- 1. Pipelined, same thread: mma; mma on the same accumulator --------------------------

#[test]
fn mma_mma_same_accumulator_is_pipelined() {
    let mut s = Script::new(1);
    let (m1, _) = s.mma(0, A, B, acc(0, 256));
    let (m2, _) = s.mma(0, A, B, acc(0, 256));
    // Completion order does not matter to the check.
    s.complete(m2);
    s.complete(m1);
    s.assert_silent();
}

#[test]
fn mma_mma_different_shape_on_same_cells_is_not_pipelined() {
    let mut s = Script::new(1);
    let (_, sp1) = s.mma_shape(0, A, B, acc(0, 256), 1);
    let (_, sp2) = s.mma_shape(0, A, B, acc(0, 256), 2);
    s.assert_one("TM0206", sp1, sp2);
}

// -- 2. Non-pipelined, same thread -----------------------------------------------------------

#[test]
fn st_wait_st_ld_is_silent() {
    let mut s = Script::new(1);
    let (st, _) = s.tc_st(0, quarter(0, 0, 16));
    s.complete(st);
    s.wait_st(0);
    s.tc_ld(0, quarter(0, 0, 16));
    s.assert_silent();
}

#[test]
fn st_ld_without_wait_st_is_one_finding() {
    let mut s = Script::new(1);
    let (_, st) = s.tc_st(0, quarter(0, 0, 16));
    let (_, ld) = s.tc_ld(0, quarter(0, 0, 16));
    s.assert_one("TM0206", st, ld);
}

fn mma_commit_wait_ld(
    fence_after: bool,
    commit: bool,
) -> (Script, tmemu_race::SpanToken, tmemu_race::SpanToken) {
    let mut s = Script::new(1);
    let mb = mbar(0);
    let (m, mma) = s.mma(0, A, B, acc(0, 128));
    if commit {
        let c = s.commit(0);
        s.complete(m);
        s.fire(c, mb);
    } else {
        // The broken variant: a plain arrive instead of the commit.
        s.arrive(0, mb, Sem::Ordering);
    }
    s.try_wait(0, mb, Sem::Ordering);
    if fence_after {
        s.fence_after(0);
    }
    let (_, ld) = s.tc_ld(0, quarter(0, 0, 128));
    if !commit {
        s.complete(m);
    }
    (s, mma, ld)
}

#[test]
fn mma_commit_try_wait_fence_ld_is_silent() {
    let (s, _, _) = mma_commit_wait_ld(true, true);
    s.assert_silent();
}

#[test]
fn mma_commit_try_wait_ld_without_fence_is_silent() {
    // The wait observed the commit, hence the mma's completion: the ld is ordered after it
    // without fence::after_thread_sync (our reading of the UNCONFIRMED same-thread case; the
    // compilers rely on it).
    let (s, _, _) = mma_commit_wait_ld(false, true);
    s.assert_silent();
}

#[test]
fn mma_without_commit_is_one_finding() {
    let (s, mma, ld) = mma_commit_wait_ld(true, false);
    s.assert_one("TM0206", mma, ld);
}

// -- 3. Pipelined, different threads: cp → mma ----------------------------------------------

fn cp_then_mma_across_threads(
    before: bool,
    after: bool,
) -> (Script, tmemu_race::SpanToken, tmemu_race::SpanToken) {
    let mut s = Script::new(2);
    let mb = mbar(8);
    // Warp 0 copies the A operand into TMEM columns 256..320; warp 1 runs an mma reading it.
    let a_tmem = acc(256, 64);
    let (cp_op, cp) = s.cp(0, (0x8000, 0x2000), a_tmem);
    if before {
        s.fence_before(0);
    }
    s.arrive(0, mb, Sem::Relaxed);
    s.try_wait(1, mb, Sem::Relaxed);
    if after {
        s.fence_after(1);
    }
    let sp = tmemu_race::SpanToken(100);
    let op = s.mma_tmem_a(1, a_tmem, Some(acc(0, 128)), sp);
    s.complete(cp_op);
    s.complete(op);
    (s, cp, sp)
}

#[test]
fn cp_fence_arrive_wait_fence_mma_is_silent() {
    let (s, _, _) = cp_then_mma_across_threads(true, true);
    s.assert_silent();
}

#[test]
fn cp_mma_across_threads_without_before_fence_is_one_finding() {
    let (s, cp, mma) = cp_then_mma_across_threads(false, true);
    s.assert_one("TM0206", cp, mma);
}

#[test]
fn cp_mma_across_threads_without_after_fence_is_one_finding() {
    let (s, cp, mma) = cp_then_mma_across_threads(true, false);
    s.assert_one("TM0206", cp, mma);
}

// -- 4. Non-pipelined, different threads -----------------------------------------------------

fn ld_then_mma_across_threads(
    wait_ld: bool,
) -> (Script, tmemu_race::SpanToken, tmemu_race::SpanToken) {
    // Epilogue warp 0 drains accumulator columns 0..128 of its lane quarter; MMA warp 1 then
    // overwrites the accumulator for the next tile.
    let mut s = Script::new(2);
    let mb = mbar(16);
    let (l, ld) = s.tc_ld(0, quarter(0, 0, 128));
    if wait_ld {
        s.complete(l);
        s.wait_ld(0);
    }
    s.fence_before(0);
    s.arrive(0, mb, Sem::Relaxed);
    s.try_wait(1, mb, Sem::Relaxed);
    s.fence_after(1);
    let (m, mma) = s.mma(1, A, B, acc(0, 128));
    s.complete(m);
    s.complete(l);
    (s, ld, mma)
}

#[test]
fn ld_wait_ld_fence_arrive_wait_fence_mma_is_silent() {
    let (s, _, _) = ld_then_mma_across_threads(true);
    s.assert_silent();
}

#[test]
fn ld_result_overwritten_by_mma_before_wait_ld_is_one_finding() {
    let (s, ld, mma) = ld_then_mma_across_threads(false);
    s.assert_one("TM0205", ld, mma);
}

#[test]
fn mma_commit_to_other_thread_wait_fence_ld_is_silent() {
    let mut s = Script::new(2);
    let mb = mbar(24);
    let (m, _) = s.mma(1, A, B, acc(0, 128));
    let c = s.commit(1);
    s.complete(m);
    s.fire(c, mb);
    // The epilogue warp waits relaxed, as in the canonical pattern; the commit carries the
    // completion in the tcgen05 view.
    s.try_wait(0, mb, Sem::Relaxed);
    s.fence_after(0);
    s.tc_ld(0, quarter(0, 0, 128));
    s.assert_silent();
}

#[test]
fn mma_ld_across_threads_without_wait_is_one_finding() {
    let mut s = Script::new(2);
    let (_, mma) = s.mma(1, A, B, acc(0, 128));
    s.bar_sync(&[0, 1]);
    s.fence_after(0);
    let (_, ld) = s.tc_ld(0, quarter(0, 0, 128));
    s.assert_one("TM0206", mma, ld);
}

// -- 5. Register dependencies --------------------------------------------------------------

#[test]
fn using_ld_registers_before_wait_ld_is_not_a_finding() {
    // tcgen05.ld %r; (register use: the detector never sees registers); the mma reads other
    // cells and smem, and a second ld reads the same cells: nothing conflicts in TMEM.
    let mut s = Script::new(1);
    let (l, _) = s.tc_ld(0, quarter(0, 0, 32));
    s.st_shared(0, 0x9000, 4);
    s.tc_ld(0, quarter(0, 0, 32));
    s.mma(0, A, B, acc(64, 64));
    s.complete(l);
    s.assert_silent();
}

// -- Shared memory through the async proxy ----------------------------------------------------

fn generic_write_then_mma(
    writer_fence: bool,
    reader_fence: bool,
) -> (Script, tmemu_race::SpanToken, tmemu_race::SpanToken) {
    let mut s = Script::new(2);
    let st = s.st_shared_warp(0, A.0);
    if writer_fence {
        s.fence_proxy_async(0);
    }
    s.bar_sync(&[0, 1]);
    if reader_fence {
        s.fence_proxy_async(1);
    }
    let (_, mma) = s.mma(1, A, B, acc(0, 64));
    (s, st, mma)
}

#[test]
fn generic_write_fence_proxy_async_sync_mma_is_silent() {
    generic_write_then_mma(true, false).0.assert_silent();
    generic_write_then_mma(false, true).0.assert_silent();
}

#[test]
fn generic_write_then_mma_without_proxy_fence_is_one_finding() {
    let (s, st, mma) = generic_write_then_mma(false, false);
    s.assert_one("TM0208", st, mma);
}

/// A two-stage TMA → mma pipeline over three k-blocks (CUTLASS's PipelineTmaUmmaAsync shape): producer warp 0,
/// MMA warp 1, full barriers at 32/40, empty barriers at 48/56.
fn tma_mma_pipeline(
    release_stage: bool,
) -> (
    Script,
    Vec<tmemu_race::SpanToken>,
    Vec<tmemu_race::SpanToken>,
) {
    let mut s = Script::new(2);
    let stage = |k: u64| (0x1000 + (k % 2) * 0x8000, 0x8000);
    let (mut tmas, mut mmas) = (Vec::new(), Vec::new());
    let mut prev_commit = None;
    for k in 0..3u64 {
        let (full, empty) = (mbar(32 + 8 * (k % 2) as u32), mbar(48 + 8 * (k % 2) as u32));
        if k >= 2 && release_stage {
            s.try_wait(0, empty, Sem::Ordering);
        }
        let (t, tsp) = s.tma_load(0, stage(k).0, stage(k).1);
        tmas.push(tsp);
        s.tma_land(t, full);
        s.try_wait(1, full, Sem::Ordering);
        let (a, b) = ((stage(k).0, 0x4000), (stage(k).0 + 0x4000, 0x4000));
        let (m, msp) = s.mma(1, a, b, acc(0, 256));
        mmas.push(msp);
        let c = s.commit(1);
        // The mma completes later than the producer's next issue in a lazy schedule.
        if let Some((pc, pm, pe)) = prev_commit.take() {
            s.complete(pm);
            s.fire(pc, pe);
        }
        prev_commit = Some((c, m, empty));
    }
    (s, tmas, mmas)
}

#[test]
fn tma_mma_pipeline_is_silent() {
    tma_mma_pipeline(true).0.assert_silent();
}

#[test]
fn stage_reused_before_release_is_one_finding() {
    let (s, tmas, mmas) = tma_mma_pipeline(false);
    // The third TMA overwrites stage 0 while the first mma may still read it.
    s.assert_one("TM0209", mmas[0], tmas[2]);
}

#[test]
fn fence_acq_rel_is_not_a_tcgen05_fence() {
    // A memory fence does not stand in for tcgen05.fence::after_thread_sync: after a relaxed
    // wait (which orders only through the tcgen05 fences) the ld still races the mma.
    let mut s = Script::new(1);
    let mb = mbar(0);
    let (m, mma) = s.mma(0, A, B, acc(0, 128));
    let c = s.commit(0);
    s.complete(m);
    s.fire(c, mb);
    s.try_wait(0, mb, Sem::Relaxed);
    s.fence(0, Fence::AcqRel);
    let (_, ld) = s.tc_ld(0, quarter(0, 0, 128));
    s.assert_one("TM0206", mma, ld);
}

#[test]
fn pipelined_pair_across_an_unfenced_bar_sync_is_tm0207() {
    // cp in warp 0, bar.sync, mma reading the copied cells in warp 1: pipelined only when the
    // fences surround the synchronisation (canonical pattern 3), and the cp's completion was
    // never observed.
    for fenced in [false, true] {
        let mut s = Script::new(2);
        let a_tmem = acc(256, 64);
        let (cp_op, cp) = s.cp(0, (0x8000, 0x2000), a_tmem);
        if fenced {
            s.fence_before(0);
        }
        s.bar_sync(&[0, 1]);
        if fenced {
            s.fence_after(1);
        }
        let sp = tmemu_race::SpanToken(100);
        let op = s.mma_tmem_a(1, a_tmem, None, sp);
        s.complete(cp_op);
        s.complete(op);
        if fenced {
            s.assert_silent();
        } else {
            s.assert_one("TM0207", cp, sp);
        }
    }
}

#[test]
fn completed_store_handed_over_by_bar_sync_without_fences_is_silent() {
    // st; wait::st; bar.sync; ld in another warp (Triton's accumulator zeroing shape).
    let mut s = Script::new(2);
    let (st, _) = s.tc_st(0, quarter(0, 0, 32));
    s.complete(st);
    s.wait_st(0);
    s.bar_sync(&[0, 1]);
    s.tc_ld(1, quarter(0, 0, 32));
    s.assert_silent();
}

#[test]
fn fence_before_wait_ld_then_relaxed_arrive_is_silent() {
    // ld; fence::before_thread_sync; wait::ld; arrive.relaxed: the load is complete before the
    // arrive executes, so the mma that overwrites its cells is ordered after it.
    let mut s = Script::new(2);
    let mb = mbar(16);
    let (l, _) = s.tc_ld(0, quarter(0, 0, 128));
    s.fence_before(0);
    s.complete(l);
    s.wait_ld(0);
    s.arrive(0, mb, Sem::Relaxed);
    s.try_wait(1, mb, Sem::Relaxed);
    s.fence_after(1);
    s.mma(1, A, B, acc(0, 128));
    s.assert_silent();
}
