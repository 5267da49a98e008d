//! Synthetic runs shaped like what the engine will record for real kernels.
#![allow(dead_code)]

use tmemu_trace::{AsyncOp, Blocked, Cta, OpShape, Pipe, Recorder, Step};

/// Per-CTA facts of the GEMM-like run, for the tests' expectations.
pub struct GemmPlan {
    pub ctas: Vec<Cta>,
    pub k_tiles: u32,
    /// (sm, cta, col, cols, leaked)
    pub allocs: Vec<(u32, u32, u32, u32, bool)>,
}

pub const WARPS: u32 = 6; // producer, mma issuer, 4 epilogue warps (one per lane quarter)
const TMA_LATENCY: Step = 12;
const MMA_LATENCY: Step = 9;
const STAGES: u32 = 2;

/// A warp-specialised GEMM on 2 SMs with 4 CTAs (two per SM), 4 K tiles, a 2-stage smem
/// ring with full/empty mbarriers, an accumulator barrier, TMEM allocation per CTA. On SM 0,
/// CTA 2 asks for all 512 columns while CTA 0 holds 256, so it blocks until CTA 0 frees
/// them; on SM 1, CTA 3 never deallocates (a leak).
pub fn gemm_run() -> (Recorder, GemmPlan) {
    let mut rec = Recorder::new();
    let ctas = vec![
        Cta { sm: 0, cta: 0 },
        Cta { sm: 1, cta: 1 },
        Cta { sm: 0, cta: 2 },
        Cta { sm: 1, cta: 3 },
    ];
    let k_tiles = 4;
    let mut allocs = Vec::new();
    // Columns each CTA asks for, where it is granted, and when the SM's columns free up.
    let want = [256u32, 128, 512, 128];
    let mut sm_free_at: [Step; 2] = [0, 0];
    let mut sm_next_col = [0u32, 0];

    for (i, &cta) in ctas.iter().enumerate() {
        let t0 = 5 * i as Step;
        let ch = rec.cta_launch(t0, cta, [cta.cta % 2, cta.cta / 2, 0]);
        let warps: Vec<_> = (0..WARPS)
            .map(|w| rec.warp_launch(t0, cta.warp(w)))
            .collect();

        // Warp 1 allocates TMEM; CTA 2 blocks until CTA 0 releases its columns.
        let mut t = t0 + 2;
        let sm = cta.sm as usize;
        let col;
        if sm_next_col[sm] + want[i] > 512 {
            let wait = rec.span_begin(t, cta.warp(1), Blocked::TmemAlloc { cols: want[i] });
            t = sm_free_at[sm] + 1;
            rec.span_end(t, wait);
            col = 0;
        } else {
            col = sm_next_col[sm];
            sm_next_col[sm] += want[i];
        }
        rec.tmem_alloc(t, cta.sm, cta.cta, col, want[i], Some("gemm.ptx:57"));
        let alloc_at = t;

        // Mainloop: producer (warp 0) and MMA issuer (warp 1) through a 2-stage ring.
        let full = |s: u32| 0x100 + 8 * s;
        let empty = |s: u32| 0x120 + 8 * s;
        let acc = 0x140;
        for s in 0..STAGES {
            rec.mbarrier_phase(t0 + 1, cta, full(s), 0);
            rec.mbarrier_phase(t0 + 1, cta, empty(s), 0);
        }
        rec.mbarrier_phase(t0 + 1, cta, acc, 0);
        let mut empty_done: Vec<Step> = vec![t0 + 1; STAGES as usize];
        let mut mma_ready = alloc_at + 1;
        let mut last_mma_done = 0;
        let mut producer_t = t0 + 3;
        for k in 0..k_tiles {
            let s = k % STAGES;
            let phase = k / STAGES;
            // Producer waits for the slot to be empty (from the second lap on).
            if k >= STAGES && empty_done[s as usize] > producer_t {
                let w = rec.span_begin(
                    producer_t,
                    cta.warp(0),
                    Blocked::Mbarrier {
                        addr: empty(s),
                        parity: (phase + 1) % 2,
                    },
                );
                producer_t = empty_done[s as usize];
                rec.span_end(producer_t, w);
            }
            let mut full_at = producer_t;
            for (operand, base) in [("A", 0x1_0000_0000u64), ("B", 0x2_0000_0000u64)] {
                let op = AsyncOp {
                    name: "cp.async.bulk.tensor.2d",
                    kind: operand,
                    bytes: Some(128 * 64 * 2),
                    src: Some(base + k as u64 * 0x4000),
                    dst: Some(0x400 + s as u64 * 0x8000),
                    ..AsyncOp::default()
                };
                let h = rec.async_issue(producer_t, cta, Pipe::Tma, op);
                let done = producer_t + TMA_LATENCY;
                rec.async_complete(done, h);
                full_at = done;
                producer_t += 1;
            }
            rec.mbarrier_phase(full_at, cta, full(s), phase + 1);

            // MMA warp waits for the stage to fill, then issues one MMA and commits.
            if full_at > mma_ready {
                let w = rec.span_begin(
                    mma_ready,
                    cta.warp(1),
                    Blocked::Mbarrier {
                        addr: full(s),
                        parity: phase % 2,
                    },
                );
                mma_ready = full_at;
                rec.span_end(mma_ready, w);
            }
            let issue = mma_ready;
            let op = AsyncOp {
                name: "tcgen05.mma",
                kind: "f16",
                shape: OpShape::Mnk([128, 256, 16]),
                cta_group: 1,
                src: Some(0x400 + s as u64 * 0x8000),
                dst: Some(col as u64),
                ..AsyncOp::default()
            };
            let h = rec.async_issue(issue, cta, Pipe::TensorCore, op);
            let done = issue.max(last_mma_done) + MMA_LATENCY;
            rec.async_complete(done, h);
            last_mma_done = done;
            empty_done[s as usize] = done;
            rec.mbarrier_phase(done, cta, empty(s), phase + 1);
            mma_ready = issue + 1;
        }
        rec.mbarrier_phase(last_mma_done, cta, acc, 1);

        // Epilogue warps wait for the accumulator, then sync before warp 1 deallocates.
        let mut epi_end = last_mma_done;
        for w in 2..WARPS {
            let h = rec.span_begin(
                alloc_at + 1,
                cta.warp(w),
                Blocked::Mbarrier {
                    addr: acc,
                    parity: 0,
                },
            );
            rec.span_end(last_mma_done, h);
            let bar_at = last_mma_done + 4 + w as Step;
            let b = rec.span_begin(bar_at, cta.warp(w), Blocked::Barrier { id: 1 });
            rec.span_end(last_mma_done + 4 + WARPS as Step, b);
            epi_end = epi_end.max(last_mma_done + 4 + WARPS as Step);
        }
        let leaked = cta.cta == 3;
        let dealloc_at = epi_end + 2;
        if !leaked {
            assert!(rec.tmem_dealloc(dealloc_at, cta.sm, col));
            sm_free_at[sm] = dealloc_at;
        }
        allocs.push((cta.sm, cta.cta, col, want[i], leaked));
        for (w, h) in warps.into_iter().enumerate() {
            rec.warp_exit(dealloc_at + 1 + w as Step % 2, h);
        }
        rec.cta_retire(dealloc_at + 3, ch);
    }
    rec.finish(rec.end_step() + 5);
    (
        rec,
        GemmPlan {
            ctas,
            k_tiles,
            allocs,
        },
    )
}

/// A small run for snapshots: one SM, two CTAs, a blocked request, a leak, an origin label
/// that needs escaping in both JSON and XML.
pub fn small_run() -> Recorder {
    let mut rec = Recorder::new();
    let a = Cta { sm: 0, cta: 0 };
    let b = Cta { sm: 0, cta: 1 };
    let ha = rec.cta_launch(0, a, [0, 0, 0]);
    let hb = rec.cta_launch(0, b, [1, 0, 0]);
    let wa = rec.warp_launch(0, a.warp(0));
    let wb = rec.warp_launch(0, b.warp(0));
    rec.tmem_alloc(1, 0, 0, 0, 384, Some("k.ptx:12 \"<alloc>\" & co"));
    let wait = rec.tmem_wait_begin(2, b.warp(0), 256);
    let mma = rec.async_issue(
        3,
        a,
        Pipe::TensorCore,
        AsyncOp {
            name: "tcgen05.mma",
            kind: "tf32",
            shape: OpShape::Mnk([128, 64, 8]),
            cta_group: 1,
            ..AsyncOp::default()
        },
    );
    rec.async_complete(8, mma);
    rec.mbarrier_phase(8, a, 0x40, 1);
    assert!(rec.tmem_dealloc(10, 0, 0));
    rec.span_end(11, wait);
    rec.tmem_alloc(11, 0, 1, 0, 256, None);
    rec.warp_exit(12, wa);
    rec.cta_retire(12, ha);
    let stuck = rec.span_begin(14, b.warp(0), Blocked::Barrier { id: 0 });
    let _ = (stuck, wb, hb);
    rec.finish(20);
    rec
}
