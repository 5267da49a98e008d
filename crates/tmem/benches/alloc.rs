//! Cost of the allocation protocol per event, as the engine pays it.
//!
//! - `cycle_single`: one CTA allocates 128 + 64 + 32 columns and frees them (6 events).
//! - `cycle_pair`: a CTA pair allocates 128 columns collectively and frees them (4 events).
//! - `block_and_wake`: CTA 1 blocks behind CTA 0's 512 columns and is woken by its
//!   dealloc, then frees (4 events).
//!
//! Run: `cargo bench -p tmemu-tmem --bench alloc`. There is no native counterpart to compare
//! with; the figure to watch is nanoseconds per event against the engine's per-instruction
//! budget (about 10 ns per warp-instruction at 100 M warp-instructions/s).
use std::hint::black_box;

use tmemu_tmem::alloc::{
    Config, CtaGroup, CtaId, Effect, Event, Issue, LaneValues, Origin, SmId, TmemAllocator, WarpId,
};

fn main() {
    divan::main();
}

fn issue(cta: u32, group: CtaGroup) -> Issue {
    Issue::warp(CtaId(cta), WarpId(0), group, Origin(0))
}

fn alloc(a: &mut TmemAllocator, cta: u32, n: u32, g: CtaGroup) -> Effect {
    a.step(Event::Alloc {
        issue: issue(cta, g),
        ncols: LaneValues::Uniform(n),
    })
    .unwrap()
    .effect
}

fn dealloc(a: &mut TmemAllocator, cta: u32, col: u32, n: u32, g: CtaGroup) {
    let out = a
        .step(Event::Dealloc {
            issue: issue(cta, g),
            taddr: LaneValues::Uniform(col),
            ncols: LaneValues::Uniform(n),
        })
        .unwrap();
    black_box(out);
}

fn launched(pairs: bool) -> TmemAllocator {
    let mut a = TmemAllocator::new(Config {
        sms: 2,
        ..Config::default()
    });
    let peers = |p: u32| pairs.then_some(CtaId(p));
    for (cta, sm, peer) in [(0, 0, peers(1)), (1, 1, peers(0))] {
        a.step(Event::Launch {
            cta: CtaId(cta),
            sm: SmId(sm),
            peer,
        })
        .unwrap();
    }
    a
}

#[divan::bench]
fn cycle_single(b: divan::Bencher) {
    let mut a = launched(false);
    b.bench_local(|| {
        black_box(alloc(&mut a, 0, 128, CtaGroup::One));
        black_box(alloc(&mut a, 0, 64, CtaGroup::One));
        black_box(alloc(&mut a, 0, 32, CtaGroup::One));
        dealloc(&mut a, 0, 0, 128, CtaGroup::One);
        dealloc(&mut a, 0, 128, 64, CtaGroup::One);
        dealloc(&mut a, 0, 192, 32, CtaGroup::One);
    });
}

#[divan::bench]
fn cycle_pair(b: divan::Bencher) {
    let mut a = launched(true);
    b.bench_local(|| {
        black_box(alloc(&mut a, 0, 128, CtaGroup::Two));
        black_box(alloc(&mut a, 1, 128, CtaGroup::Two));
        dealloc(&mut a, 0, 0, 128, CtaGroup::Two);
        dealloc(&mut a, 1, 0, 128, CtaGroup::Two);
    });
}

#[divan::bench]
fn block_and_wake(b: divan::Bencher) {
    let mut a = TmemAllocator::new(Config {
        sms: 1,
        ..Config::default()
    });
    for cta in 0..2 {
        a.step(Event::Launch {
            cta: CtaId(cta),
            sm: SmId(0),
            peer: None,
        })
        .unwrap();
    }
    b.bench_local(|| {
        black_box(alloc(&mut a, 0, 512, CtaGroup::One));
        black_box(alloc(&mut a, 1, 512, CtaGroup::One));
        dealloc(&mut a, 0, 0, 512, CtaGroup::One);
        dealloc(&mut a, 1, 0, 512, CtaGroup::One);
    });
}
