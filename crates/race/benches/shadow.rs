//! Cost of the race check per access, so `check` can be weighed against `run`.
//!
//! `cargo bench -p tmemu-race --bench shadow`

use divan::counter::ItemsCount;
use divan::Bencher;
use tmemu_race::*;

fn main() {
    divan::main();
}

const SMEM: MemSpace = MemSpace::Shared { cta: 0 };
const BAR: SyncKey = SyncKey::CtaBarrier { cta: 0, id: 0 };

/// The dense shadow (what the detector uses) and the run-length map it replaced.
const SHADOWS: [&str; 2] = ["dense", "runs"];

fn detector(warps: u32, shadow: &str) -> RaceDetector {
    let mut d = if shadow == "runs" {
        RaceDetector::with_reference_shadow()
    } else {
        RaceDetector::new()
    };
    for w in 0..warps {
        d.add_warp(WarpId(w));
    }
    d
}

fn bar_sync(d: &mut RaceDetector, warps: u32) {
    for w in 0..warps {
        d.arrive(WarpId(w), BAR, Sem::Ordering);
    }
    d.sync_complete(BAR);
    for w in 0..warps {
        d.wait(WarpId(w), BAR, Sem::Ordering);
    }
}

/// One 4-byte lane access, as the engine reports `st.shared.b32` per lane: 4 warps store a
/// 4 KiB tile (1024 accesses), sync, and read it back transposed (another 1024).
#[divan::bench(sample_count = 30, args = SHADOWS)]
fn lane_access_4b(b: Bencher, shadow: &str) {
    let mut d = detector(4, shadow);
    const ACCESSES: u64 = 2 * 1024;
    b.counter(ItemsCount::new(ACCESSES)).bench_local(|| {
        for w in 0..4u32 {
            for i in 0..256u64 {
                let addr = (w as u64 * 256 + i) * 4;
                d.access(
                    WarpId(w),
                    SMEM,
                    addr,
                    4,
                    AccessKind::Write,
                    MemOrder::Weak,
                    SpanToken(1),
                );
            }
        }
        bar_sync(&mut d, 4);
        for w in 0..4u32 {
            for i in 0..256u64 {
                let addr = ((i * 4 + w as u64) % 1024) * 4;
                d.access(
                    WarpId(w),
                    SMEM,
                    addr,
                    4,
                    AccessKind::Read,
                    MemOrder::Weak,
                    SpanToken(2),
                );
            }
        }
        bar_sync(&mut d, 4);
    });
    assert!(d.findings().is_empty());
}

/// The same tile traffic as `lane_access_4b`, reported per warp instruction through
/// `access_lanes` (32 lane addresses, merged into contiguous ranges): counted per lane access.
#[divan::bench(sample_count = 30, args = SHADOWS)]
fn lane_access_merged(b: Bencher, shadow: &str) {
    let mut d = detector(4, shadow);
    b.counter(ItemsCount::new(2 * 1024u64)).bench_local(|| {
        let mut addrs = [0u64; 32];
        for w in 0..4u32 {
            for i in 0..8u64 {
                for (l, a) in addrs.iter_mut().enumerate() {
                    *a = (w as u64 * 256 + i * 32 + l as u64) * 4;
                }
                d.access_lanes(
                    WarpId(w),
                    SMEM,
                    &addrs,
                    4,
                    AccessKind::Write,
                    MemOrder::Weak,
                    SpanToken(1),
                );
            }
        }
        bar_sync(&mut d, 4);
        for w in 0..4u32 {
            for i in 0..8u64 {
                for (l, a) in addrs.iter_mut().enumerate() {
                    let k = i * 32 + l as u64;
                    *a = ((k * 4 + w as u64) % 1024) * 4;
                }
                d.access_lanes(
                    WarpId(w),
                    SMEM,
                    &addrs,
                    4,
                    AccessKind::Read,
                    MemOrder::Weak,
                    SpanToken(2),
                );
            }
        }
        bar_sync(&mut d, 4);
    });
    assert!(d.findings().is_empty());
}

/// One warp-coalesced 128-byte access (the engine merging a warp's lanes first).
#[divan::bench(sample_count = 30, args = SHADOWS)]
fn warp_access_128b(b: Bencher, shadow: &str) {
    let mut d = detector(4, shadow);
    b.counter(ItemsCount::new(64u64)).bench_local(|| {
        for w in 0..4u32 {
            for i in 0..8u64 {
                d.access(
                    WarpId(w),
                    SMEM,
                    (w as u64 * 8 + i) * 128,
                    128,
                    AccessKind::Write,
                    MemOrder::Weak,
                    SpanToken(1),
                );
            }
        }
        bar_sync(&mut d, 4);
        for w in 0..4u32 {
            for i in 0..8u64 {
                d.access(
                    WarpId(w),
                    SMEM,
                    ((w as u64 + 1) % 4 * 8 + i) * 128,
                    128,
                    AccessKind::Read,
                    MemOrder::Weak,
                    SpanToken(2),
                );
            }
        }
        bar_sync(&mut d, 4);
    });
    assert!(d.findings().is_empty());
}

/// One k-block of a warp-specialised GEMM as the checker sees it: a 32 KiB TMA box lands,
/// the MMA warp waits, issues a 128x256 mma (A and B 16 KiB each from smem, D 128 lanes x
/// 256 columns read and written), commits, and the producer waits for the stage's release.
#[divan::bench(sample_count = 30, args = SHADOWS)]
fn mma_k_block(b: Bencher, shadow: &str) {
    let mut d = detector(2, shadow);
    let (producer, mma_warp) = (WarpId(0), WarpId(1));
    let d_rect = TmemRect {
        cta: 0,
        lane: 0,
        lanes: 128,
        col: 0,
        cols: 256,
    };
    let mut k = 0u64;
    b.counter(ItemsCount::new(1u64)).bench_local(|| {
        let stage = (k % 4) as u32;
        let base = 0x1000 + stage as u64 * 0x8000;
        let (full, empty) = (
            SyncKey::Mbarrier {
                cta: 0,
                offset: stage * 8,
            },
            SyncKey::Mbarrier {
                cta: 0,
                offset: 64 + stage * 8,
            },
        );
        if k >= 4 {
            d.wait(producer, empty, Sem::Ordering);
        }
        let tma = d.issue(producer, OpKind::Bulk, SpanToken(1));
        d.op_access(
            tma,
            Place::Mem {
                space: MemSpace::Global,
                addr: k * 0x8000,
                len: 0x8000,
            },
            AccessKind::Read,
        );
        d.op_access(
            tma,
            Place::Mem {
                space: SMEM,
                addr: base,
                len: 0x8000,
            },
            AccessKind::Write,
        );
        d.complete(tma);
        d.op_arrive(tma, full);
        d.sync_complete(full);
        d.wait(mma_warp, full, Sem::Ordering);
        let mma = d.issue(
            mma_warp,
            OpKind::Mma {
                cta_group: 1,
                accum: 1,
            },
            SpanToken(2),
        );
        d.op_access(
            mma,
            Place::Mem {
                space: SMEM,
                addr: base,
                len: 0x4000,
            },
            AccessKind::Read,
        );
        d.op_access(
            mma,
            Place::Mem {
                space: SMEM,
                addr: base + 0x4000,
                len: 0x4000,
            },
            AccessKind::Read,
        );
        d.op_access(mma, Place::Tmem(d_rect), AccessKind::Read);
        d.op_access(mma, Place::Tmem(d_rect), AccessKind::Write);
        let c = d.commit(mma_warp, 1);
        d.complete(mma);
        d.commit_fire(c, &[empty]);
        d.sync_complete(empty);
        k += 1;
    });
    assert!(d.findings().is_empty(), "{:?}", d.findings().first());
    // TMA slots recycle; mma slots are never observed in the MMA warp's tcgen05 view here
    // (no epilogue), so they stay until the slot cap forces reuse.
    assert!(d.stats().op_slots <= 256 + 8, "{:?}", d.stats());
    eprintln!(
        "mma_k_block: {:?}, shadow runs {}",
        d.stats(),
        d.shadow_runs()
    );
}

/// The epilogue: 4 warps drain a 128x256 accumulator with tcgen05.ld.32x32b.x64 (4 loads of
/// 64 columns each per warp), wait::ld, and release it to the MMA warp.
#[divan::bench(sample_count = 30, args = SHADOWS)]
fn tmem_ld_epilogue(b: Bencher, shadow: &str) {
    let mut d = detector(4, shadow);
    let bar = SyncKey::Mbarrier { cta: 0, offset: 0 };
    b.counter(ItemsCount::new(16u64)).bench_local(|| {
        for w in 0..4u32 {
            for j in 0..4u32 {
                let ld = d.issue(WarpId(w), OpKind::Ld, SpanToken(3));
                let r = TmemRect {
                    cta: 0,
                    lane: 32 * w,
                    lanes: 32,
                    col: 64 * j,
                    cols: 64,
                };
                d.op_access(ld, Place::Tmem(r), AccessKind::Read);
                d.complete(ld);
            }
            d.wait_ld(WarpId(w));
            d.fence(WarpId(w), Fence::TcBeforeThreadSync);
            d.arrive(WarpId(w), bar, Sem::Relaxed);
        }
        d.sync_complete(bar);
        for w in 0..4u32 {
            d.wait(WarpId(w), bar, Sem::Relaxed);
            d.fence(WarpId(w), Fence::TcAfterThreadSync);
        }
    });
    assert!(d.findings().is_empty());
    eprintln!(
        "tmem_ld_epilogue: {:?}, shadow runs {}",
        d.stats(),
        d.shadow_runs()
    );
}
