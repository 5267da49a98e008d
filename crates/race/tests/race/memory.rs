//! Shared/global memory: generic data races, release/acquire, strong accesses, the alloc
//! address store, bulk copies in flight and across proxies; plus the TMEM fallback rule.

use crate::dsl;
use dsl::*;
use tmemu_race::{
    opcode_reach, AccessKind, Fence, MemOrder, MemSpace, Place, Reach, Sem, SpanToken, Strength,
    WarpId,
};

const G: MemSpace = MemSpace::Global;

#[test]
fn shared_write_read_across_warps_needs_a_barrier() {
    let mut s = Script::new(2);
    let st = s.st_shared_warp(0, 0x100);
    let ld = s.ld_shared(1, 0x104, 4);
    s.assert_one("TM0211", st, ld);

    let mut s = Script::new(2);
    s.st_shared_warp(0, 0x100);
    s.bar_sync(&[0, 1]);
    s.ld_shared(1, 0x104, 4);
    s.assert_silent();
}

#[test]
fn read_then_unordered_write_is_a_race_and_disjoint_bytes_are_not() {
    let mut s = Script::new(2);
    let ld = s.ld_shared(0, 0x200, 4);
    s.st_shared(1, 0x204, 4); // neighbouring bytes: no conflict
    s.st_shared(1, 0x1ff, 1);
    let st = s.st_shared(1, 0x202, 1);
    s.assert_one("TM0211", ld, st);
}

#[test]
fn same_warp_accesses_are_program_ordered() {
    let mut s = Script::new(1);
    s.st_shared_warp(0, 0x100);
    s.ld_shared(0, 0x100, 128);
    s.st_shared(0, 0x100, 4);
    s.assert_silent();
}

#[test]
fn race_is_reported_once_per_instruction_pair() {
    let mut s = Script::new(2);
    let st = s.st_shared_warp(0, 0x100);
    let mut ld = SpanToken(0);
    for _ in 0..3 {
        // The same instruction in a loop: one finding.
        ld = SpanToken(999);
        for lane in 0..32 {
            s.d.access(
                tmemu_race::WarpId(1),
                SMEM,
                0x100 + 4 * lane,
                4,
                AccessKind::Read,
                MemOrder::Weak,
                ld,
            );
        }
    }
    s.assert_one("TM0211", st, ld);
    assert!(s.d.stats().duplicate_findings > 0);
}

#[test]
fn message_passing_with_release_acquire_is_silent_and_relaxed_flag_is_not() {
    for (store, load, racy) in [
        (MemOrder::Release, MemOrder::Acquire, false),
        (MemOrder::Relaxed, MemOrder::Relaxed, true),
        (MemOrder::Release, MemOrder::Relaxed, true),
    ] {
        let mut s = Script::new(2);
        let data = s.mem(0, G, 0x1000, 16, AccessKind::Write, MemOrder::Weak);
        s.mem(0, G, 0x2000, 4, AccessKind::Write, store);
        s.mem(1, G, 0x2000, 4, AccessKind::Read, load);
        let read = s.mem(1, G, 0x1000, 16, AccessKind::Read, MemOrder::Weak);
        if racy {
            s.assert_one("TM0212", data, read);
        } else {
            s.assert_silent();
        }
    }
}

#[test]
fn fences_make_relaxed_flags_synchronise() {
    let mut s = Script::new(2);
    s.mem(0, G, 0x1000, 16, AccessKind::Write, MemOrder::Weak);
    s.fence(0, Fence::AcqRel);
    s.mem(0, G, 0x2000, 4, AccessKind::Write, MemOrder::Relaxed);
    s.mem(1, G, 0x2000, 4, AccessKind::Read, MemOrder::Relaxed);
    s.fence(1, Fence::AcqRel);
    s.mem(1, G, 0x1000, 16, AccessKind::Read, MemOrder::Weak);
    s.assert_silent();
}

#[test]
fn atomics_do_not_race_each_other_but_race_plain_accesses() {
    let mut s = Script::new(3);
    s.mem(0, G, 0x40, 4, AccessKind::Write, MemOrder::Relaxed);
    s.mem(1, G, 0x40, 4, AccessKind::Write, MemOrder::Relaxed);
    s.assert_silent();
    s.mem(2, G, 0x40, 4, AccessKind::Write, MemOrder::AcqRel);
    // A plain read racing only atomics returns one of their values (the atomicCAS loop's
    // `old = *p`): not reported, in either order.
    s.mem(0, G, 0x40, 4, AccessKind::Read, MemOrder::Weak);
    let atom = s.mem(1, G, 0x40, 4, AccessKind::Write, MemOrder::Relaxed);
    s.assert_silent();
    // A plain write racing an atomic is a data race (the latest atomic is named).
    let plain = s.mem(0, G, 0x40, 4, AccessKind::Write, MemOrder::Weak);
    s.assert_one("TM0212", atom, plain);
}

#[test]
fn alloc_address_read_by_other_warp_needs_sync() {
    let mut s = Script::new(2);
    let alloc = s.alloc(0, 0x10);
    let ld = s.ld_shared(1, 0x10, 4);
    s.assert_one("TM0210", alloc, ld);

    let mut s = Script::new(2);
    s.alloc(0, 0x10);
    s.bar_sync(&[0, 1]);
    s.ld_shared(1, 0x10, 4);
    s.assert_silent();
}

#[test]
fn tma_data_read_after_mbarrier_wait_is_silent_and_before_is_not() {
    let mut s = Script::new(2);
    let mb = mbar(0);
    let (t, _) = s.tma_load(0, 0x4000, 0x1000);
    s.tma_land(t, mb);
    s.try_wait(1, mb, Sem::Ordering);
    // Generic reads after the completion need no proxy fence (implicit at completion).
    s.ld_shared(1, 0x4000, 16);
    s.assert_silent();

    let mut s = Script::new(2);
    let (t, tma) = s.tma_load(0, 0x4000, 0x1000);
    let ld = s.ld_shared(1, 0x4800, 16);
    s.tma_land(t, mbar(0));
    s.assert_one("TM0213", tma, ld);
}

#[test]
fn relaxed_wait_does_not_order_tma_data() {
    let mut s = Script::new(2);
    let mb = mbar(0);
    let (t, tma) = s.tma_load(0, 0x4000, 0x1000);
    s.tma_land(t, mb);
    s.try_wait(1, mb, Sem::Relaxed);
    let ld = s.ld_shared(1, 0x4000, 16);
    s.assert_one("TM0213", tma, ld);
}

fn epilogue_store(fence: bool) -> (Script, SpanToken, SpanToken) {
    // Epilogue warps write the C tile to smem, then one thread issues the TMA store.
    let mut s = Script::new(2);
    let st0 = s.st_shared_warp(0, 0x6000);
    s.st_shared_warp(1, 0x6080);
    if fence {
        s.fence_proxy_async(0);
        s.fence_proxy_async(1);
    }
    s.bar_sync(&[0, 1]);
    let (t, tma) = s.tma_store(0, 0x6000, 0x100);
    s.complete(t);
    s.d.observe(tmemu_race::WarpId(0), t);
    (s, st0, tma)
}

#[test]
fn tma_store_of_generic_writes_needs_fence_proxy_async() {
    epilogue_store(true).0.assert_silent();
    let (s, _, tma) = epilogue_store(false);
    // Two writers, two instructions: one finding each, both naming the TMA store.
    let f = s.d.findings();
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(f
        .iter()
        .all(|r| r.rule.id == "TM0208" && r.second.span == tma));
}

#[test]
fn smem_rewritten_after_tma_store_wait_is_silent() {
    let (mut s, _, _) = epilogue_store(true);
    s.st_shared_warp(0, 0x6000);
    s.assert_silent();
}

#[test]
fn cp_overwriting_cells_an_unfinished_mma_reads_is_tmem_access_race() {
    // mma reads its A operand from TMEM (columns 256..); a second cp rewrites them before
    // the mma's completion is observed: mma → cp is not a pipelined pair.
    let mut s = Script::new(1);
    let a_tmem = acc(256, 64);
    let (c1, _) = s.cp(0, (0x8000, 0x2000), a_tmem);
    let sp = SpanToken(500);
    s.mma_tmem_a(0, a_tmem, Some(acc(0, 128)), sp);
    s.complete(c1);
    let (_, cp2) = s.cp(0, (0xa000, 0x2000), a_tmem);
    s.assert_one("TM0204", sp, cp2);
}

#[test]
fn distributed_shared_memory_is_keyed_by_owner_cta() {
    let mut s = Script::new(2);
    let peer = MemSpace::Shared { cta: 1 };
    let st = s.mem(0, peer, 0x100, 4, AccessKind::Write, MemOrder::Weak);
    s.mem(1, SMEM, 0x100, 4, AccessKind::Read, MemOrder::Weak); // own CTA: other memory
    s.assert_silent();
    let ld = s.mem(1, peer, 0x100, 4, AccessKind::Read, MemOrder::Weak);
    s.assert_one("TM0211", st, ld);
    // A cluster barrier orders it.
    let mut s = Script::new(2);
    s.mem(0, peer, 0x100, 4, AccessKind::Write, MemOrder::Weak);
    s.d.arrive(
        tmemu_race::WarpId(0),
        tmemu_race::SyncKey::ClusterBarrier,
        Sem::Ordering,
    );
    s.d.arrive(
        tmemu_race::WarpId(1),
        tmemu_race::SyncKey::ClusterBarrier,
        Sem::Ordering,
    );
    s.d.sync_complete(tmemu_race::SyncKey::ClusterBarrier);
    s.d.wait(
        tmemu_race::WarpId(1),
        tmemu_race::SyncKey::ClusterBarrier,
        Sem::Ordering,
    );
    s.mem(1, peer, 0x100, 4, AccessKind::Read, MemOrder::Weak);
    s.assert_silent();
}

#[test]
fn relaxed_cluster_arrive_does_not_order_memory() {
    let mut s = Script::new(2);
    let peer = MemSpace::Shared { cta: 1 };
    let st = s.mem(0, peer, 0x100, 4, AccessKind::Write, MemOrder::Weak);
    s.d.arrive(
        tmemu_race::WarpId(0),
        tmemu_race::SyncKey::ClusterBarrier,
        Sem::Relaxed,
    );
    s.d.sync_complete(tmemu_race::SyncKey::ClusterBarrier);
    s.d.wait(
        tmemu_race::WarpId(1),
        tmemu_race::SyncKey::ClusterBarrier,
        Sem::Ordering,
    );
    let ld = s.mem(1, peer, 0x100, 4, AccessKind::Read, MemOrder::Weak);
    s.assert_one("TM0211", st, ld);
}

#[test]
fn bad_handles_never_panic() {
    let mut s = Script::new(1);
    let (t, _) = s.tma_load(0, 0x4000, 16);
    s.tma_land(t, mbar(0));
    s.try_wait(0, mbar(0), Sem::Ordering);
    // The slot is recycled by the next op; the old handle is stale.
    let (t2, _) = s.tma_load(0, 0x5000, 16);
    s.d.op_access(t, Place::Tmem(acc(0, 32)), AccessKind::Write);
    s.d.complete(t);
    s.d.observe(tmemu_race::WarpId(7), t); // unknown warp: registered on the fly
    s.complete(t2);
    assert!(s.d.stats().stale_handles >= 2);
    // Empty ranges and huge addresses are fine.
    s.mem(0, G, u64::MAX - 2, 16, AccessKind::Write, MemOrder::Weak);
    s.mem(0, G, 5, 0, AccessKind::Write, MemOrder::Weak);
    s.assert_silent();
}

#[test]
fn access_lanes_merges_contiguous_lanes_and_keeps_gaps() {
    let mut s = Script::new(2);
    let w0 = tmemu_race::WarpId(0);
    // 32 lanes, 4 bytes each, permuted: one range.
    let addrs: Vec<u64> = (0..32u64).map(|l| 0x100 + 4 * ((l * 7) % 32)).collect();
    s.d.access_lanes(
        w0,
        SMEM,
        &addrs,
        4,
        AccessKind::Write,
        MemOrder::Weak,
        SpanToken(1),
    );
    assert_eq!(s.d.stats().thread_accesses, 1);
    // Stride 8: 32 separate ranges, and the gaps stay unaccessed.
    let strided: Vec<u64> = (0..32u64).map(|l| 0x1000 + 8 * l).collect();
    s.d.access_lanes(
        w0,
        SMEM,
        &strided,
        4,
        AccessKind::Write,
        MemOrder::Weak,
        SpanToken(2),
    );
    assert_eq!(s.d.stats().thread_accesses, 33);
    let gap = s.mem(1, SMEM, 0x1004, 4, AccessKind::Read, MemOrder::Weak);
    s.assert_silent();
    let hit = s.mem(1, SMEM, 0x17c, 4, AccessKind::Read, MemOrder::Weak);
    s.assert_one("TM0211", SpanToken(1), hit);
    let _ = gap;
}

#[test]
fn alloc_slot_reused_as_tma_destination_after_bar_sync_is_silent() {
    // Triton: tcgen05.alloc writes the address to smem[0], everyone reads it, bar.sync, then a
    // TMA load lands on the same bytes. Write-after-write across proxies needs ordering only.
    let mut s = Script::new(2);
    s.alloc(0, 0x0);
    s.bar_sync(&[0, 1]);
    s.ld_shared(1, 0x0, 4);
    s.bar_sync(&[0, 1]);
    let (t, _) = s.tma_load(0, 0x0, 0x1000);
    s.tma_land(t, mbar(0x2000));
    s.assert_silent();
    // Unordered, it is still a race.
    let mut s = Script::new(2);
    let st = s.st_shared(1, 0x0, 4);
    let (_, tma) = s.tma_load(0, 0x0, 0x1000);
    s.assert_one("TM0211", st, tma);
}

#[test]
fn uniform_store_of_one_instruction_by_every_warp_is_silent() {
    // Every thread stores the same constant (Triton's `st.shared.b32 [global_smem+N], imm`).
    let mut s = Script::new(2);
    let sp = SpanToken(500);
    for w in 0..2 {
        s.d.access(
            WarpId(w),
            SMEM,
            0x60,
            4,
            AccessKind::Write,
            MemOrder::Weak,
            sp,
        );
    }
    s.assert_silent();
    // Another instruction's write to the same bytes still races (with warp 1's store, the
    // last one the shadow keeps).
    let other = s.st_shared(0, 0x60, 4);
    s.assert_one("TM0211", sp, other);
}

/// A warp's transposed one-byte reads (lane `l` reads byte `col` of row `l`: dot_scaled_mxfp8's
/// scale factors) are 32 ranges of one instruction, checked under one record and view in one
/// batch (`RaceDetector::thread_ranges`) through each plane's one-page path
/// (`dense::one_page_both`). Each lane's byte is its own check: an unordered write of one byte
/// of one row is found by the column read that covers it (and only by it), at that byte.
#[test]
fn transposed_one_byte_lane_reads_check_every_lane() {
    let mut s = Script::new(2);
    let tile = 0x400u64;
    s.st_shared(0, tile, 32 * 32);
    s.bar_sync(&[0, 1]);
    let w17 = s.st_shared(0, tile + 32 * 17 + 5, 1);
    let w31 = s.st_shared(0, tile + 32 * 31 + 6, 1);
    let w0 = s.st_shared(0, tile + 7, 1);
    let read_col = |s: &mut Script, col: u64, reversed: bool, span: u32| {
        let mut addrs: Vec<u64> = (0..32u64).map(|l| tile + 32 * l + col).collect();
        if reversed {
            addrs.reverse();
        }
        s.d.access_lanes(
            WarpId(1),
            SMEM,
            &addrs,
            1,
            AccessKind::Read,
            MemOrder::Weak,
            SpanToken(span),
        );
        SpanToken(span)
    };
    let r4 = read_col(&mut s, 4, false, 100);
    let r5 = read_col(&mut s, 5, false, 101);
    let r6 = read_col(&mut s, 6, true, 102);
    let r7 = read_col(&mut s, 7, false, 103);
    let _ = r4;
    let f = s.d.findings();
    let got: Vec<_> = f
        .iter()
        .map(|r| {
            (
                r.rule.id,
                r.first.span,
                r.second.span,
                r.second.region.clone(),
            )
        })
        .collect();
    let at = |b: u64| tmemu_race::Region::Mem {
        space: SMEM,
        bytes: b..b + 1,
    };
    assert_eq!(
        got,
        vec![
            ("TM0211", w17, r5, at(tile + 32 * 17 + 5)),
            ("TM0211", w31, r6, at(tile + 32 * 31 + 6)),
            ("TM0211", w0, r7, at(tile + 7)),
        ]
    );
}

/// The per-location clocks of a batched instruction are per lane: a strided relaxed store of
/// flags after `fence.acq_rel` publishes the data at every lane's flag, and a strided relaxed
/// read acquires (with the next fence) from whichever lane's address holds a flag. Lane 20's
/// flag (neither the first nor the last range) is the one used here.
#[test]
fn batched_relaxed_lanes_keep_per_location_clocks() {
    let mut s = Script::new(2);
    s.mem(0, G, 0x1000, 16, AccessKind::Write, MemOrder::Weak);
    s.fence(0, Fence::AcqRel);
    let flags: Vec<u64> = (0..32u64).map(|l| 0x2000 + 8 * l).collect();
    s.d.access_lanes(
        WarpId(0),
        G,
        &flags,
        4,
        AccessKind::Write,
        MemOrder::Relaxed,
        SpanToken(100),
    );
    // Warp 1's lanes read 32 strided words of which only lane 20's is a flag; the others lie
    // below and above it, so that its range is neither the first nor the last once sorted.
    let reads: Vec<u64> = (0..32u64)
        .map(|l| match l {
            0..20 => 0x1800 + 8 * l,
            20 => 0x2000 + 8 * 20,
            _ => 0x3000 + 8 * l,
        })
        .collect();
    s.d.access_lanes(
        WarpId(1),
        G,
        &reads,
        4,
        AccessKind::Read,
        MemOrder::Relaxed,
        SpanToken(101),
    );
    s.fence(1, Fence::AcqRel);
    s.mem(1, G, 0x1000, 16, AccessKind::Read, MemOrder::Weak);
    s.assert_silent();
    // Without the flag (lane 20 reads elsewhere) the same read races.
    let mut s = Script::new(2);
    let data = s.mem(0, G, 0x1000, 16, AccessKind::Write, MemOrder::Weak);
    s.fence(0, Fence::AcqRel);
    s.d.access_lanes(
        WarpId(0),
        G,
        &flags,
        4,
        AccessKind::Write,
        MemOrder::Relaxed,
        SpanToken(100),
    );
    let elsewhere: Vec<u64> = (0..32u64).map(|l| 0x3000 + 8 * l).collect();
    s.d.access_lanes(
        WarpId(1),
        G,
        &elsewhere,
        4,
        AccessKind::Read,
        MemOrder::Relaxed,
        SpanToken(101),
    );
    s.fence(1, Fence::AcqRel);
    let read = s.mem(1, G, 0x1000, 16, AccessKind::Read, MemOrder::Weak);
    s.assert_one("TM0212", data, read);
}

/// A warp's `cp.async` reads its source rows (rows of a tile, a row stride apart) as the
/// ranges of one op access (`RaceDetector::op_access_ranges`: one record, view and report for
/// all of them): a row that another warp writes unordered is found, at that row only, whichever
/// of the ranges it is.
#[test]
fn cp_async_source_rows_are_each_checked() {
    let rows: Vec<(u64, u64)> = (0..4u64)
        .map(|r| (0x4000 + 2048 * r, 0x4000 + 2048 * r + 128))
        .collect();
    for hit in 0..4usize {
        let mut s = Script::new(2);
        let wr = s.mem(
            0,
            G,
            rows[hit].0 + 32,
            16,
            AccessKind::Write,
            MemOrder::Weak,
        );
        let op = s.d.cp_async_issue(WarpId(1), u32::MAX, SpanToken(500));
        s.d.op_access_ranges(op, SMEM, &[(0x100, 0x300)], AccessKind::Write);
        s.d.op_access_ranges(op, G, &rows, AccessKind::Read);
        s.d.complete(op);
        let r = s.assert_one("TM0212", wr, SpanToken(500));
        let at = rows[hit].0 + 32;
        assert_eq!(
            r.second.region,
            tmemu_race::Region::Mem {
                space: G,
                bytes: at..at + 16
            }
        );
    }
}

/// `fence.sc` at a scope covering both warps (`membar.gl`) is a point of the total Fence-SC
/// order: an earlier one synchronises with a later one (PTX ISA §8, "Fence-SC order"), with no
/// strong access between them, as in CUDA's threadFenceReduction, where each thread's own
/// `__threadfence()` publishes its store. An acq_rel fence does not; an SC fence after the read
/// orders nothing before it.
#[test]
fn sc_fences_synchronise_in_execution_order() {
    for (sc, fence_before_read, racy) in [
        (true, true, false),
        (false, true, true),
        (true, false, true),
    ] {
        let mut s = Script::new(2);
        let data = s.mem(0, G, 0x1000, 16, AccessKind::Write, MemOrder::Weak);
        let fence = |s: &mut Script, w: u32| {
            if sc {
                s.d.fence_sc(WarpId(w));
            } else {
                s.fence(w, Fence::AcqRel);
            }
        };
        fence(&mut s, 0);
        if fence_before_read {
            fence(&mut s, 1);
        }
        let read = s.mem(1, G, 0x1000, 16, AccessKind::Read, MemOrder::Weak);
        if !fence_before_read {
            fence(&mut s, 1);
        }
        if racy {
            s.assert_one("TM0212", data, read);
        } else {
            s.assert_silent();
        }
    }
}

/// Warps 0 and 1 are CTA 0, warp 32 CTA 1 (both of cluster 7), warp 64 CTA 2 (cluster 8):
/// the detector tells CTAs apart by `WarpId / 32`, clusters by `set_cluster`.
fn three_ctas() -> Script {
    let mut s = Script::new(2);
    for (w, cluster) in [(0, 7), (1, 7), (32, 7), (64, 8)] {
        s.d.set_cluster(WarpId(w), cluster);
    }
    s
}

/// A strong 4-byte access of `space` at 0x40 by warp `w` at `reach`.
fn scoped(
    s: &mut Script,
    w: u32,
    space: MemSpace,
    kind: AccessKind,
    order: MemOrder,
    reach: Reach,
) -> SpanToken {
    let sp = SpanToken(1000 + s.d.findings().len() as u32 * 10 + w);
    let strength = Strength {
        order,
        reach,
        rmw: kind == AccessKind::Write,
    };
    s.d.access(WarpId(w), space, 0x40, 4, kind, strength, sp);
    sp
}

#[test]
fn strong_accesses_race_unless_each_scope_includes_the_other_thread() {
    use AccessKind::{Read, Write};
    use MemOrder::Relaxed;
    let (cta, cluster, gpu) = (Reach::Cta, Reach::Cluster, Reach::Grid);
    // (first warp, its access, second warp, its access, a race?)
    let cases = [
        // atomicAdd_block by two CTAs: .cta includes neither other thread
        ((0, Write, cta), (32, Write, cta), true),
        // atomicAdd_block by two warps of one CTA: morally strong
        ((0, Write, cta), (1, Write, cta), false),
        // .cluster atomics of one cluster: morally strong; of two clusters: not
        ((0, Write, cluster), (32, Write, cluster), false),
        ((0, Write, cluster), (64, Write, cluster), true),
        // .gpu against .cta: the .cta one does not include the other CTA's thread, in
        // either order
        ((0, Write, gpu), (32, Write, cta), true),
        ((32, Write, cta), (0, Write, gpu), true),
        // .gpu against .cluster of another cluster
        ((0, Write, gpu), (64, Write, cluster), true),
        // .gpu against .gpu, and a .gpu atomic against a .sys (volatile) store
        ((0, Write, gpu), (64, Write, gpu), false),
        (
            (0, Write, gpu),
            (64, Write, opcode_reach("st.volatile.global.u32").0),
            false,
        ),
        // a strong read of another CTA at .cta scope against a .gpu atomic
        ((0, Write, gpu), (32, Read, cta), true),
        ((32, Read, cta), (0, Write, gpu), true),
        // two strong reads never conflict
        ((0, Read, cta), (32, Read, cta), false),
    ];
    for (i, &((w1, k1, r1), (w2, k2, r2), race)) in cases.iter().enumerate() {
        let mut s = three_ctas();
        let a = scoped(&mut s, w1, G, k1, Relaxed, r1);
        let b = scoped(&mut s, w2, G, k2, Relaxed, r2);
        if race {
            let r = s.assert_one("TM0212", a, b);
            assert_eq!(r.why, tmemu_race::finding::NOT_MORALLY_STRONG, "case {i}");
        } else {
            assert!(s.d.findings().is_empty(), "case {i}: {:?}", s.d.findings());
        }
    }
}

#[test]
fn a_cta_scoped_atomic_on_a_peers_shared_memory_races_the_peers_own() {
    use AccessKind::Write;
    use MemOrder::Relaxed;
    // atomicAdd_block on the CTA's own shared memory by two of its warps: silent
    let mut s = three_ctas();
    scoped(&mut s, 0, SMEM, Write, Relaxed, Reach::Cta);
    scoped(&mut s, 1, SMEM, Write, Relaxed, Reach::Cta);
    s.assert_silent();
    // a peer CTA of the cluster at .cta scope (atom.shared::cluster.cta): a data race
    let peer = scoped(&mut s, 32, SMEM, Write, Relaxed, Reach::Cta);
    let r = s.assert_one("TM0211", SpanToken(1001), peer);
    assert_eq!(r.why, tmemu_race::finding::NOT_MORALLY_STRONG);
    // the DSMEM reduction at .cluster scope by both: silent
    let mut s = three_ctas();
    scoped(&mut s, 0, SMEM, Write, Relaxed, Reach::Cluster);
    scoped(&mut s, 32, SMEM, Write, Relaxed, Reach::Cluster);
    s.assert_silent();
}

#[test]
fn scoped_atomics_ordered_by_a_release_and_acquire_do_not_race() {
    // CTA 1's .cta atomic after CTA 0's, ordered through a .gpu release/acquire flag:
    // causality order, so no race whatever the scopes
    let mut s = three_ctas();
    scoped(
        &mut s,
        0,
        G,
        AccessKind::Write,
        MemOrder::Relaxed,
        Reach::Cta,
    );
    let flag = |s: &mut Script, w, kind, order| {
        s.d.access(WarpId(w), G, 0x900, 4, kind, order, SpanToken(900 + w));
    };
    flag(&mut s, 0, AccessKind::Write, MemOrder::Release);
    flag(&mut s, 32, AccessKind::Read, MemOrder::Acquire);
    scoped(
        &mut s,
        32,
        G,
        AccessKind::Write,
        MemOrder::Relaxed,
        Reach::Cta,
    );
    s.assert_silent();
}

#[test]
fn a_warp_of_unknown_cluster_shares_a_cluster_with_every_other() {
    // without set_cluster (a caller that never names clusters), .cluster scopes stay silent
    let mut s = Script::new(1);
    scoped(
        &mut s,
        0,
        G,
        AccessKind::Write,
        MemOrder::Relaxed,
        Reach::Cluster,
    );
    scoped(
        &mut s,
        64,
        G,
        AccessKind::Write,
        MemOrder::Relaxed,
        Reach::Cluster,
    );
    s.assert_silent();
}
