//! A persistent warp-specialised GEMM, as the checker would see it for hundreds of tiles:
//! TMA producer (warp 0), MMA warp (1), four epilogue warps (2..6) draining a double-buffered
//! accumulator and storing C through shared memory with a TMA store. Correct code must stay
//! silent however long it runs (slot recycling included); each seeded bug is found.

use crate::dsl;
use dsl::*;
use tmemu_race::{OpId, Sem, SyncKey, WarpId};

const STAGES: u64 = 4;
const K_BLOCKS: u64 = 4;
const EPI: [u32; 4] = [2, 3, 4, 5];
const C_TILE: u64 = 0x30000;

#[derive(Clone, Copy, PartialEq)]
enum Bug {
    None,
    /// The epilogue waits with `.relaxed` and skips fence::after_thread_sync before
    /// tcgen05.ld at tile `n` (a relaxed wait orders only through the tcgen05 fences).
    NoFenceAfter(u64),
    /// The MMA warp reuses the accumulator stage without waiting for the epilogue at tile `n`.
    NoAccEmptyWait(u64),
    /// The epilogue writes C to smem without waiting for the previous TMA store at tile `n`.
    NoStoreWait(u64),
}

struct Gemm {
    s: Script,
    fills: u64,
    store: Option<OpId>,
}

fn full(stage: u64) -> SyncKey {
    mbar(8 * stage as u32)
}
fn empty(stage: u64) -> SyncKey {
    mbar(64 + 8 * stage as u32)
}
fn acc_full(a: u64) -> SyncKey {
    mbar(128 + 8 * a as u32)
}
fn acc_empty(a: u64) -> SyncKey {
    mbar(144 + 8 * a as u32)
}
const EPI_BAR: SyncKey = SyncKey::CtaBarrier { cta: 0, id: 1 };

impl Gemm {
    fn tile(&mut self, t: u64, bug: Bug) {
        let s = &mut self.s;
        let a = t % 2;
        // MMA warp: wait for the accumulator stage to be drained.
        if t >= 2 && bug != Bug::NoAccEmptyWait(t) {
            s.try_wait(1, acc_empty(a), Sem::Ordering);
            s.fence_after(1);
        }
        for k in 0..K_BLOCKS {
            let n = self.fills;
            let stage = n % STAGES;
            let base = 0x1000 + stage * 0x8000;
            if n >= STAGES {
                s.try_wait(0, empty(stage), Sem::Ordering);
            }
            let (tma, _) = s.tma_load(0, base, 0x8000);
            s.tma_land(tma, full(stage));
            s.try_wait(1, full(stage), Sem::Ordering);
            let (m, _) = s.mma(
                1,
                (base, 0x4000),
                (base + 0x4000, 0x4000),
                acc(256 * a as u32, 256),
            );
            let c = s.commit(1);
            s.complete(m);
            s.fire(c, empty(stage));
            self.fills += 1;
            let _ = k;
        }
        let c = s.commit(1);
        s.fire(c, acc_full(a));
        // Epilogue.
        for &w in &EPI {
            if bug != Bug::NoFenceAfter(t) {
                s.try_wait(w, acc_full(a), Sem::Ordering);
                s.fence_after(w);
            } else {
                s.try_wait(w, acc_full(a), Sem::Relaxed);
            }
            for j in 0..4 {
                let (ld, _) = s.tc_ld(w, quarter(w, 256 * a as u32 + 64 * j, 64));
                s.complete(ld);
            }
            s.wait_ld(w);
            s.fence_before(w);
            s.d.arrive(WarpId(w), acc_empty(a), Sem::Ordering);
        }
        s.d.sync_complete(acc_empty(a));
        // C through smem: the previous TMA store must have read it.
        if let Some(prev) = self.store.take() {
            if bug != Bug::NoStoreWait(t) {
                s.complete(prev);
                s.d.observe(WarpId(2), prev);
            }
        }
        s.d.arrive(WarpId(2), EPI_BAR, Sem::Ordering);
        s.d.sync_complete(EPI_BAR);
        for &w in &EPI {
            s.d.wait(WarpId(w), EPI_BAR, Sem::Ordering);
            s.st_shared_warp(w, C_TILE + 128 * (w as u64 - 2));
            s.fence_proxy_async(w);
            s.d.arrive(WarpId(w), EPI_BAR, Sem::Ordering);
        }
        s.d.sync_complete(EPI_BAR);
        s.d.wait(WarpId(2), EPI_BAR, Sem::Ordering);
        let (st, _) = s.tma_store(2, C_TILE, 512);
        self.store = Some(st);
    }
}

fn run(tiles: u64, bug: Bug) -> Gemm {
    run_with(tiles, bug, 6)
}

fn run_with(tiles: u64, bug: Bug, warps: u32) -> Gemm {
    let mut g = Gemm {
        s: Script::new(warps),
        fills: 0,
        store: None,
    };
    for t in 0..tiles {
        g.tile(t, bug);
    }
    g
}

#[test]
fn long_persistent_gemm_is_silent_with_bounded_actors() {
    let g = run(300, Bug::None);
    g.s.assert_silent();
    let st = g.s.d.stats();
    assert!(st.ops_issued > 7000, "{st:?}");
    assert!(st.op_slots <= 300, "slots must stay bounded: {st:?}");
    eprintln!("{st:?}");
}

#[test]
fn forced_slot_reuse_stays_silent() {
    // Warp 6 is live but never synchronises, so no op is ever observed by every warp and
    // slots are only reused at the cap, by force. That may hide races, never invent them.
    let g = run_with(120, Bug::None, 7);
    g.s.assert_silent();
    let st = g.s.d.stats();
    assert!(st.forced_reuses > 1000, "{st:?}");
    assert!(st.op_slots <= 256 + 64, "{st:?}");
}

#[test]
fn forced_slot_reuse_still_finds_a_seeded_bug() {
    let g = run_with(120, Bug::NoFenceAfter(110), 7);
    assert_eq!(rules(&g), vec!["TM0206"; 16], "{:?}", g.s.d.findings());
}

fn rules(g: &Gemm) -> Vec<&'static str> {
    g.s.d.findings().iter().map(|r| r.rule.id).collect()
}

#[test]
fn missing_fence_after_in_the_epilogue_is_found_late_in_the_run() {
    let g = run(260, Bug::NoFenceAfter(257));
    // One finding per load instruction: 4 epilogue warps x 4 tcgen05.ld each, every one
    // naming the tile's last mma as the other side.
    assert_eq!(rules(&g), vec!["TM0206"; 16], "{:?}", g.s.d.findings());
    let last_mma = g.s.d.findings()[0].first.span;
    assert!(g.s.d.findings().iter().all(|r| r.first.span == last_mma));
}

#[test]
fn accumulator_reused_before_the_epilogue_drained_it_is_found() {
    let g = run(260, Bug::NoAccEmptyWait(258));
    let f = g.s.d.findings();
    assert!(!f.is_empty());
    assert!(f.iter().all(|r| r.rule.id == "TM0205"), "{f:?}");
    assert!(f.iter().all(|r| r.second.warp == WarpId(1)));
}

#[test]
fn c_tile_rewritten_while_the_tma_store_reads_it_is_found() {
    let g = run(40, Bug::NoStoreWait(33));
    // Each epilogue warp's st.shared overwrites C while the store still reads it; and the
    // new store writes the same global tile (this script stores every tile to one address)
    // before the previous one is known complete.
    let mut got = rules(&g);
    got.sort();
    assert_eq!(
        got,
        ["TM0209", "TM0209", "TM0209", "TM0209", "TM0213"],
        "{:?}",
        g.s.d.findings()
    );
    assert!(g.s.d.findings()[..4]
        .iter()
        .all(|r| r.first.agent == tmemu_race::Agent::Bulk));
}
