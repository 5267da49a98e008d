//! Recording cost per event and writer throughput.
//!
//! `cargo bench -p tmemu-trace --bench record`

use divan::{black_box, Bencher};
use tmemu_trace::{
    render_tmem_map, write_chrome_trace, AsyncOp, Blocked, Cta, OpShape, Pipe, Recorder,
    TmemMapOptions,
};

fn main() {
    divan::main();
}

/// A steady stream shaped like a GEMM mainloop: per step one op issue + completion, one
/// mbarrier phase, one wait span; `n` steps give 4n records.
fn fill(rec: &mut Recorder, n: u64) {
    let mma = AsyncOp {
        name: "tcgen05.mma",
        kind: "f16",
        shape: OpShape::Mnk([128, 256, 16]),
        cta_group: 1,
        ..AsyncOp::default()
    };
    for i in 0..n {
        let cta = Cta {
            sm: (i % 148) as u32,
            cta: (i % 296) as u32,
        };
        let op = rec.async_issue(i, cta, Pipe::TensorCore, mma);
        rec.async_complete(i + 9, op);
        rec.mbarrier_phase(i + 9, cta, 0x100, (i / 296) as u32);
        let s = rec.span_begin(
            i,
            cta.warp(1),
            Blocked::Mbarrier {
                addr: 0x100,
                parity: 0,
            },
        );
        rec.span_end(i + 3, s);
        if i % 1024 == 0 {
            rec.tmem_alloc(i, cta.sm, cta.cta, 0, 256, None);
            rec.tmem_dealloc(i + 500, cta.sm, 0);
        }
    }
}

#[divan::bench(args = [250_000])]
fn record_events(b: Bencher, n: u64) {
    b.counter(divan::counter::ItemsCount::new(4 * n as usize))
        .bench_local(|| {
            let mut rec = Recorder::with_limit(usize::MAX);
            fill(&mut rec, n);
            black_box(rec.len())
        });
}

#[divan::bench(args = [250_000])]
fn write_trace(b: Bencher, n: u64) {
    let mut rec = Recorder::with_limit(usize::MAX);
    fill(&mut rec, n);
    b.counter(divan::counter::ItemsCount::new(rec.len()))
        .bench_local(|| write_chrome_trace(&rec, std::io::sink()).unwrap());
}

#[divan::bench]
fn render_map_1000_allocs(b: Bencher) {
    let mut rec = Recorder::new();
    for i in 0..1000u64 {
        let sm = (i % 148) as u32;
        rec.tmem_alloc(i * 10, sm, i as u32, (i as u32 % 4) * 128, 128, None);
        rec.tmem_dealloc(i * 10 + 700, sm, (i as u32 % 4) * 128);
    }
    b.bench_local(|| black_box(render_tmem_map(&rec, &TmemMapOptions::default()).len()));
}
