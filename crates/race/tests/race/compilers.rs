//! Synchronisation shapes of real compiler output (the committed corpus PTX), replayed as
//! event scripts: they must produce no finding at all. Triton, Gluon and CuTe DSL emit no
//! `tcgen05.fence::*`: every TMEM handoff they make goes through an observed completion
//! (wait::st/ld, commit + mbarrier wait) carried by a synchronisation, which orders it.

use crate::dsl;
use dsl::*;
use tmemu_race::{Sem, SpanToken};
use tmemu_tmem::rules::Severity;

fn errors(s: &Script) -> Vec<String> {
    s.d.findings()
        .iter()
        .filter(|r| r.rule.severity == Severity::Error)
        .map(|r| r.to_string())
        .collect()
}

/// tests/corpus/kernels/triton/matmul_bf16.ptx: all four warps zero their accumulator quarter
/// with tcgen05.st + wait::st; per k-block they store A/B to smem, fence.proxy.async,
/// bar.sync, one thread issues the mma and commits, bar.sync, every thread try_waits; at the
/// end every warp tcgen05.ld's its quarter, wait::ld, bar.sync, dealloc.
#[test]
fn triton_single_partition_matmul_has_no_errors() {
    let mut s = Script::new(4);
    let warps = [0, 1, 2, 3];
    let mb = mbar(0);
    for w in warps {
        let (st, _) = s.tc_st(w, quarter(w, 0, 128));
        s.complete(st);
        s.wait_st(w);
    }
    for k in 0..6u64 {
        let buf = 0x1000 + (k % 2) * 0x8000;
        for w in warps {
            s.st_shared_warp(w, buf + 128 * w as u64);
        }
        s.fence_proxy_async(0);
        s.fence_proxy_async(1);
        s.fence_proxy_async(2);
        s.fence_proxy_async(3);
        s.bar_sync(&warps);
        let (m, _) = s.mma(0, (buf, 0x4000), (buf + 0x4000, 0x4000), acc(0, 128));
        let c = s.commit(0);
        s.complete(m);
        s.fire(c, mb);
        s.bar_sync(&warps);
        for w in warps {
            s.try_wait(w, mb, Sem::Ordering);
        }
    }
    for w in warps {
        let (ld, _) = s.tc_ld(w, quarter(w, 0, 128));
        s.complete(ld);
        s.wait_ld(w);
    }
    s.bar_sync(&warps);
    assert!(errors(&s).is_empty(), "{:#?}", errors(&s));
    // The strict reading would report the first mma after the other warps' st (3 quarters)
    // and each warp's final ld after the wait (4); the completions were observed, so none.
    s.assert_silent();
}

/// tests/corpus/kernels/cutedsl/cutedsl_gemm_1cta.ptx: TMA producer and MMA issuer, release
/// arrives / acquire parity waits, the epilogue waits on the accumulator barrier and loads
/// without a tcgen05 fence, wait::ld, then arrives on the release barrier.
#[test]
fn cute_dsl_gemm_has_no_errors() {
    let mut s = Script::new(4);
    let (full, empty, acc_full, done) = (mbar(0), mbar(8), mbar(16), mbar(24));
    for k in 0..4u64 {
        let base = 0x1000 + (k % 2) * 0x8000;
        if k >= 2 {
            s.try_wait(0, empty, Sem::Ordering);
        }
        s.d.arrive(tmemu_race::WarpId(0), full, Sem::Ordering); // arrive.expect_tx
        let (t, _) = s.tma_load(0, base, 0x8000);
        s.tma_land(t, full);
        s.try_wait(0, full, Sem::Ordering);
        let (m, _) = s.mma(0, (base, 0x4000), (base + 0x4000, 0x4000), acc(0, 128));
        let c = s.commit(0);
        s.complete(m);
        s.fire(c, empty);
    }
    let c = s.commit(0);
    s.fire(c, acc_full);
    for w in 0..4 {
        s.try_wait(w, acc_full, Sem::Ordering);
        let (ld, _) = s.tc_ld(w, quarter(w, 0, 128));
        s.complete(ld);
        s.wait_ld(w);
        s.d.arrive(tmemu_race::WarpId(w), done, Sem::Ordering);
    }
    s.d.sync_complete(done);
    s.try_wait(0, done, Sem::Ordering);
    assert!(errors(&s).is_empty(), "{:#?}", errors(&s));
    s.assert_silent();
    let _ = SpanToken(0);
}
