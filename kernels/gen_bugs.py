#!/usr/bin/env python3
"""Regenerate the bug reproductions under tests/corpus/bugs/ from kernels/bugs/*.cu.

    python kernels/gen_bugs.py            # write tests/corpus/bugs/<name>/
    python kernels/gen_bugs.py --check    # regenerate into a temporary folder, compare

Each kernels/bugs/<name>.cu reproduces the mechanism of one public bug report in a small kernel
of our own. It is compiled twice with the pinned nvcc (`-arch=sm_100a -ptx -lineinfo`),
`-DTMEM_FIXED=0` (the bug) and `-DTMEM_FIXED=1` (the fix), and for each bug this writes

  buggy.ptx, fixed.ptx      the PTX, `.file` paths rewritten repo-relative
  buggy.toml, fixed.toml    launch specs (shared/launch-spec.md)
  expected.toml             `[buggy]`/`[fixed]` (ptx, spec, verdict) and what tmemu must report:
                            `[[finding]]` entries (rule, severity, file, line, the instruction
                            on that line, optional related line), all on buggy.ptx; the fixed
                            variant must be silent

The expected lines are never counted by hand: each kernel marks the instruction a finding
belongs to with a PTX comment `// @site:NAME` inside its inline asm (kernels/bugs/bugs.cuh,
SITE), and the generator looks the comment up; `exit` means the kernel's single `ret;`. ptxas
must accept both variants. Deterministic: reruns are byte-identical.
kernels/regen.py calls generate(out_root, rewrite_paths) after the nvcc corpus.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
SRC = HERE / "bugs"
OUT = REPO / "tests" / "corpus" / "bugs"
NVCC_FLAGS = ["-arch=sm_100a", "-ptx", "-lineinfo", "-std=c++17"]


@dataclass
class Finding:
    rule: str | None  # every finding names its rule; a hang names its report's (TM0020, TM0225, TM0504)
    severity: str  # error | warning | note | hang
    site: str  # `// @site:NAME` in the buggy PTX, or "exit" for the kernel's `ret;`
    instruction: str  # text that must appear on that line (sanity check)
    related: str | None = None  # a second site: the related span
    note: str = ""


@dataclass
class Bug:
    name: str
    source: str
    mechanism: str
    grid: int
    block: int
    args: list[str]  # TOML bodies of the [[arg]] tables, in parameter order
    buggy_verdict: str
    findings: list[Finding]
    cluster: int | None = None


U32_OUT = lambda n: f'dtype = "u32"\nshape = [{n}]\nfill = "zeros"'  # noqa: E731
U32_IOTA = lambda n: f'dtype = "u32"\nshape = [{n}]\nfill = "iota"'  # noqa: E731

BUGS = [
    Bug("pair_dealloc_before_peer_alloc", "https://github.com/NVIDIA/cutlass/issues/3435",
        "With .cta_group::2, rank 0 runs the collective tcgen05.dealloc right after its alloc "
        "while the peer's alloc (reached late) has not completed; nothing synchronises the pair "
        "between the collective alloc and the collective dealloc. tmemu's reading (DERIVED from "
        "the report, not stated by the ISA): the pair's allocs are part of the TMEM activity "
        "that tmem.md rule 16 requires both CTAs to have synchronised before the collective "
        "dealloc, so each dealloc half must happen after both alloc halves (the rendezvous "
        "orders nothing: the first arrival may or may not block); it is TM0201 at the dealloc, "
        "related to the peer's alloc. Fix: barrier.cluster between alloc and dealloc.",
        grid=2, block=32, cluster=2, args=[U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0201", "error", "dealloc", "tcgen05.dealloc.cta_group::2",
                          related="@alloc")]),
    Bug("tmem_without_alloc", "https://github.com/NVIDIA/cutlass/issues/2230",
        "TMEM is used at a fixed address without tcgen05.alloc: every tcgen05.st/ld touches "
        "columns no allocation of the CTA owns (TM0105), so CTAs sharing an SM would collide. "
        "Fix: allocate (warp 0), publish the address with fence + bar.sync + fence, free.",
        grid=1, block=128, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0105", "error", "st", "tcgen05.st.sync.aligned.32x32b.x1"),
                  Finding("TM0105", "error", "ld", "tcgen05.ld.sync.aligned.32x32b.x1")]),
    Bug("alloc_address_unsynchronised", "https://github.com/NVIDIA/cutlass/pull/2835",
        "The MMA warp's tcgen05.alloc writes the TMEM address to shared memory (a weak write); "
        "on the zero-tile path the epilogue warp reads it with nothing ordering the two (a "
        "relaxed flag fixes the execution order only) and deallocates: TM0210 at the read, "
        "related to the alloc. Fix: fence::before_thread_sync, bar.sync 1 between the two "
        "warps, fence::after_thread_sync.",
        grid=1, block=64, args=[U32_OUT(32), "value = 0"], buggy_verdict="violation",
        findings=[Finding("TM0210", "error", "read", "ld.shared.u32", related="@alloc")]),
    Bug("ld_stage_released_before_wait", "https://github.com/flashinfer-ai/flashinfer/issues/5334",
        "The consumer warp releases a TMEM stage (fence::before_thread_sync + mbarrier.arrive) "
        "after tcgen05.ld but before tcgen05.wait::ld; the producer then overwrites the stage "
        "while the load may still read it: TM0205 at the overwriting tcgen05.st, related to the "
        "load. Fix: tcgen05.wait::ld before the release.",
        grid=1, block=160, args=[U32_IOTA(160), U32_OUT(160)], buggy_verdict="violation",
        findings=[Finding("TM0205", "error", "overwrite", "tcgen05.st.sync.aligned.32x32b.x1",
                          related="load")]),
    Bug("expect_tx_overcount", "https://github.com/tile-ai/tilelang/issues/2644",
        "mbarrier.arrive.expect_tx announces twice the bytes the only cp.async.bulk on that "
        "barrier delivers, so phase 0 never completes and every thread spins in "
        "mbarrier.try_wait forever: a hang, reported where the warps wait, with the rule "
        "TM0225 mbarrier-hang. Fix: expect exactly the bytes that arrive.",
        grid=1, block=128, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="hang",
        findings=[Finding("TM0225", "hang", "hang", "mbarrier.try_wait.parity.shared::cta.b64")]),
    Bug("missing_relinquish", "https://github.com/NVIDIA/Fuser/pull/3795",
        "The kernel allocates TMEM and never executes tcgen05.relinquish_alloc_permit. Legal "
        "(the ISA does not require it): NOT an error. tmemu reports at most the note TM0019 at "
        "each CTA's exit, related to the alloc; the verdict stays clean. Fix: relinquish after "
        "the only allocation.",
        grid=2, block=128, args=[U32_IOTA(256), U32_OUT(256)], buggy_verdict="clean",
        findings=[Finding("TM0019", "note", "exit", "ret;", related="alloc")]),
    # Session 4 (holdout4): four further public Blackwell bugs.
    Bug("aliased_tmem_store_races_load", "https://github.com/facebookexperimental/triton/issues/1993",
        "An f32 tile is read from TMEM (tcgen05.ld) and the fp16 P computed from it is stored "
        "(tcgen05.st) into aliasing columns with a different warp -> column mapping; nothing "
        "synchronises the warps between the reads and the writes, so warp w+4's store of "
        "columns 16..31 can land before warp w (same lane quarter) has read them. Each warp's "
        "own tcgen05.wait::ld orders only its own cells. Warps 0-3 are slow here, so warp "
        "w+4's store lands first and warp w reads it unordered: TM0206 at the load, related "
        "to the store (with the opposite order it would be TM0205 at the store). Fix "
        "(facebookexperimental/triton PR #1992): a CTA barrier (with the tcgen05 fences) "
        "between the loads and the stores.",
        grid=1, block=256, args=[U32_IOTA(128), U32_OUT(256)], buggy_verdict="violation",
        findings=[Finding("TM0206", "error", "load", "tcgen05.ld.sync.aligned.32x32b.x32.b32",
                          related="store")]),
    Bug("mma_overwrites_tmem_in_use", "https://github.com/facebookexperimental/triton/issues/1996",
        "The dq MMA writes TMEM columns aliasing the qk tile that the compute warps read with "
        "tcgen05.ld; the MMA warp waited only on a barrier proving the compute warps consumed "
        "the previous tile (one iteration stale), so the MMA's write is unordered with the "
        "reads (the MMA warp issues it after its other work, so the reads come first): TM0205 "
        "at the MMA, related to the load. Fix (PR #2024, upstream triton-lang/triton#10263): "
        "the compute warps arrive on qk_empty after tcgen05.wait::ld and the MMA warp waits "
        "on it before the dq MMA.",
        grid=1, block=160, args=[U32_IOTA(3072), U32_OUT(160)],
        buggy_verdict="violation",
        findings=[Finding("TM0205", "error", "dq", "tcgen05.mma.cta_group::1.kind::f16",
                          related="load")]),
    Bug("named_barrier_undercount", "https://github.com/Dao-AILab/quack/pull/146",
        "The epilogue-load named barrier counts 2 warps (64 threads) but 4 A/B load warps "
        "bar.arrive on it and the epilogue-load warp bar.syncs: the 4 arrivals complete two "
        "barrier instances with nobody waiting, and the epilogue warp then waits alone in a "
        "third one for ever: a hang at its bar.sync (TM0504 barrier-deadlock). Fix: count "
        "(load warps + 1) * 32 = 160.",
        grid=1, block=160, args=[U32_IOTA(160), U32_OUT(160)], buggy_verdict="hang",
        findings=[Finding("TM0504", "hang", "sync", "bar.sync")]),
    Bug("pair_dealloc_without_cluster_sync",
        "https://github.com/facebookexperimental/triton/issues/1694",
        "In the paired-MMA (.cta_group::2) path the cleanup freed TMEM after a CTA-local "
        "barrier only: the barrier.cluster arrive/wait around the collective dealloc was "
        "missing, so this CTA's dealloc half is unordered with the peer's TMEM reads (the "
        "peer's epilogue runs late): TM0201 at the dealloc, related to the peer's "
        "tcgen05.ld. Fix (facebookexperimental/triton PR #1707): barrier.cluster (with tcgen05 "
        "fences) before the dealloc.",
        grid=2, block=128, cluster=2, args=[U32_IOTA(256), U32_OUT(256)],
        buggy_verdict="violation",
        findings=[Finding("TM0201", "error", "dealloc", "tcgen05.dealloc.cta_group::2",
                          related="peer_read")]),
    Bug("commit_arrival_after_inval", "https://github.com/triton-lang/triton/pull/10409",
        "CTA 0 commits a tcgen05.cp with .multicast::cluster (mask 0b11), so the commit's "
        "arrive lands on the mbarrier of both CTAs when the copy completes; CTA 1 issues no "
        "tcgen05 op, never waits on its copy of the barrier, invalidates it and reuses its "
        "bytes for data before the arrive lands: the arrive hits memory that holds no "
        "initialised mbarrier (TM0220 at the commit). Fix: CTA 1 waits for the phase before "
        "mbarrier.inval.",
        grid=2, block=128, cluster=2, args=[U32_IOTA(512), U32_OUT(256)],
        buggy_verdict="violation",
        findings=[Finding("TM0220", "error", "commit", "tcgen05.commit.cta_group::1")]),
    # Session 5: seven further public Blackwell bugs.
    Bug("ncols_not_power_of_two_register", "https://github.com/NVIDIA/Fuser/pull/4152",
        "The TMEM column count is computed at run time (3 tiles x 32 = 96) and passed to "
        "tcgen05.alloc and tcgen05.dealloc in a register: ptxas cannot reject it as it does a "
        "non-power-of-two immediate, and the ISA makes it undefined behaviour (nCols must be a "
        "power of 2): TM0001 at the alloc and at the dealloc; tmemu grants no allocation for "
        "it, so the tcgen05.st/ld that follow touch unallocated columns (TM0105, a "
        "consequence). Fix: round up to the next power of two (128).",
        grid=1, block=128, args=[U32_IOTA(128), U32_OUT(128), "value = 3"],
        buggy_verdict="violation",
        findings=[Finding("TM0001", "error", "alloc", "tcgen05.alloc.cta_group::1"),
                  Finding("TM0105", "error", "st", "tcgen05.st.sync.aligned.32x32b.x1"),
                  Finding("TM0105", "error", "ld", "tcgen05.ld.sync.aligned.32x32b.x1"),
                  Finding("TM0001", "error", "dealloc", "tcgen05.dealloc.cta_group::1")]),
    Bug("tmem_ld_lane_bits_missing", "https://github.com/deepseek-ai/DeepGEMM/pull/341",
        "Every warp of the epilogue warpgroup reads the accumulator with tcgen05.ld at the "
        "allocation's base address, lane field 0; a warp may only access the 32 lanes of its "
        "lane quarter 32*(warp%4), so warps 1-3 address lanes they do not own (the hardware's "
        "TMEM access check traps under -G): TM0103 at the load. Fix: add "
        "((warp%4)*32) << 16 to the address.",
        grid=1, block=128, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0103", "error", "load", "tcgen05.ld.sync.aligned.32x32b.x1")]),
    Bug("ring_arrive_before_partition_waited", "https://github.com/triton-lang/triton/pull/10035",
        "A one-slot ready/empty mbarrier ring between a producer warp and a two-warp consumer "
        "partition; the consumer's leader warp arrives on `empty` right after its own wait on "
        "`ready`, with no barrier among the consumer warps, so the producer refills the slot "
        "and `ready` completes phase 1 before the late consumer warp has waited for phase 0: "
        "the barrier's current phase (2) has the parity it waits for and is incomplete, and "
        "nobody arrives again: that warp hangs in mbarrier.try_wait (TM0225). Fix: bar.sync "
        "among the consumer warps before the leader arrives.",
        grid=1, block=96, args=[U32_IOTA(32), U32_OUT(96)], buggy_verdict="hang",
        findings=[Finding("TM0225", "hang", "hang", "mbarrier.try_wait.parity.shared::cta.b64")]),
    Bug("stage_reused_wrong_parity", "https://github.com/tile-ai/tilelang/pull/3087",
        "A pipelined loop refills one shared-memory operand stage with cp.async.bulk every "
        "iteration and waits for the MMA that reads it on an explicit mbarrier whose phase "
        "flips once per iteration, but with the ring parity (k / num_stages) % 2: at k = 1 the "
        "wait asks for a phase that has already completed and returns at once, so iteration "
        "2's copy overwrites the stage the MMA of iteration 1 may still read: TM0209 at the "
        "refilling cp.async.bulk, related to the MMA; the epilogue reads (TM0206) and frees "
        "(TM0204) the accumulator before the last MMA completed. When MMAs complete at once "
        "(immediate policy) the stale parity names the next phase instead, which only the "
        "waiting warp could complete: a hang (TM0225) at its wait, the other warps at the "
        "barrier after the loop. And the commit of iteration 2 arrives in phase 2 before any "
        "wait observed phase 1 complete (the stale wait of iteration 1 observed phase 0 "
        "again): TM0232 at the commit, the phase discipline of §9.7.13.15.4 (delayed "
        "completion). The last MMA's operand reads are never observed before the CTA exits "
        "either: TM0234 at the MMA, related to the ret. Fix: parity k % 2.",
        grid=1, block=128, args=[U32_IOTA(1024), U32_OUT(128)], buggy_verdict="hang",
        findings=[Finding("TM0209", "error", "refill", "cp.async.bulk.shared::cta.global",
                          related="mma"),
                  Finding("TM0232", "error", "commit", "tcgen05.commit.cta_group::1"),
                  Finding("TM0206", "error", "epilogue", "tcgen05.ld.sync.aligned.32x32b.x1",
                          related="mma"),
                  Finding("TM0204", "error", "free", "tcgen05.dealloc.cta_group::1",
                          related="mma"),
                  Finding("TM0234", "error", "mma", "tcgen05.mma.cta_group::1.kind::f16",
                          related="exit"),
                  Finding("TM0225", "hang", "wait", "mbarrier.try_wait.parity.shared::cta.b64"),
                  Finding("TM0225", "hang", "drain", "bar.sync 0")]),
    Bug("bulk_store_without_proxy_fence", "https://github.com/MoonshotAI/FlashKDA/issues/24",
        "A state tile is zero-initialised in shared memory with generic stores and written to "
        "global memory by a bulk copy (async proxy); the only fence.proxy.async is inside the "
        "main loop, which does not run for an empty sequence (0 tiles), so only bar.sync "
        "separates the generic writes from the async-proxy read: TM0208 at the "
        "cp.async.bulk.global.shared::cta. Fix: fence.proxy.async.shared::cta on every path.",
        grid=1, block=128, args=[U32_IOTA(128), U32_OUT(128), "value = 0"],
        buggy_verdict="violation",
        findings=[Finding("TM0208", "error", "store", "cp.async.bulk.global.shared::cta")]),
    Bug("mma_operand_without_proxy_fence", "https://github.com/tile-ai/tilelang/issues/2634",
        "The operand tiles of a tcgen05.mma are written to shared memory with st.shared "
        "(generic proxy) and the MMA reads them through the async proxy with only a bar.sync "
        "between (the fence pass did not treat the block-scaled tcgen05 MMA as an async-proxy "
        "reader; fixed by tile-ai/tilelang PR #3139): TM0208 at the tcgen05.mma. Fix: "
        "fence.proxy.async.shared::cta after the stores.",
        grid=1, block=128, args=[U32_IOTA(2560), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0208", "error", "mma", "tcgen05.mma.cta_group::1.kind::f16")]),
    Bug("pair_commit_mask_wrong_pair", "https://github.com/facebookexperimental/triton/pull/783",
        "In a cluster of 4 CTAs (two CTA pairs) each pair's leader commits with .cta_group::2 "
        ".multicast::cluster and the constant ctaMask 0b0011, so the leader of pair (2, 3) "
        "arrives on the barriers of CTAs 0 and 1 (two arrivals for a count of 1) and CTAs 2 "
        "and 3 never receive an arrival: their waits hang (TM0225 at the mbarrier.try_wait; "
        "CTAs 0 and 1 may hang too, on an incomplete phase 2 of the same parity). Fix: mask "
        "0b11 << (rank & ~1).",
        grid=4, block=32, cluster=4, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="hang",
        findings=[Finding("TM0225", "hang", "hang", "mbarrier.try_wait.parity.shared::cta.b64")]),
    Bug("tmem_buffers_exceed_512_columns", "https://github.com/tile-ai/tilelang/pull/2831",
        "Each logical TMEM buffer gets its own tcgen05.alloc rounded up to a power of two: a "
        "384-column accumulator becomes 512 columns and three 4-column scale buffers 32 each, "
        "608 of the SM's 512 columns (tile-ai/tilelang#2827). The second alloc waits for "
        "columns only its own CTA could free: the warp hangs in tcgen05.alloc, the others at "
        "the barrier that publishes the addresses (TM0020, the report names the holder). Fix "
        "(PR #2831): one 512-column arena with the scale buffers at column offsets.",
        grid=1, block=128, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="hang",
        findings=[Finding("TM0020", "hang", "alloc2", "tcgen05.alloc.cta_group::1"),
                  Finding("TM0020", "hang", "publish", "bar.sync 0")]),
    Bug("mma_reads_tmem_before_store_sync",
        "https://github.com/facebookexperimental/triton/pull/1553",
        "The warps write the MMA's A operand into TMEM with tcgen05.st and warp 0 then issues a "
        "tcgen05.mma reading A from TMEM, but the thread synchronisation sits before the stores "
        "instead of between them and the MMA (the race PR #1553 fixed in its test: \"cross CTA "
        "sync should be after TMEM store and before mma\"). Another warp's store may still be "
        "in flight when the MMA reads (TM0206 at the MMA, related to the store) or not even "
        "issued yet (TM0204 at the store, related to the MMA), depending on the schedule. Fix: "
        "tcgen05.wait::st, fences and bar.sync between the stores and the MMA.",
        grid=1, block=128, args=[U32_IOTA(1536), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0206", "error", "mma", "tcgen05.mma.cta_group::1.kind::f16",
                          related="st"),
                  Finding("TM0204", "error", "st", "tcgen05.st.sync.aligned.32x32b.x8",
                          related="mma")]),
    # ---- session 6
    Bug("clc_cancel_after_failed_response",
        "https://github.com/marin-community/marin/issues/8870",
        "A persistent tile scheduler (QuACK 0.6.1, quack/tile_scheduler.py, as analysed in the "
        "report) asks Cluster Launch Control for tiles until a clusterlaunchcontrol.try_cancel "
        "fails, leaves its work loop on the failed response, and then issues one more "
        "try_cancel on an unconditional tail path. PTX ISA §9.7.13.17: after the executing CTA "
        "observed a failed request, a further try_cancel is undefined behaviour: TM0230 at the "
        "tail's try_cancel, related to the query_cancel.is_canceled that observed the failure. "
        "Fix: no request after a failure.",
        grid=2, block=32, args=[U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0230", "error", "tail",
                          "clusterlaunchcontrol.try_cancel.async.shared::cta",
                          related="observe")]),
    Bug("clc_multicast_peer_reads_unwaited",
        "https://github.com/facebookexperimental/triton/pull/908",
        "Rank 0 of a cluster of 2 issues clusterlaunchcontrol.try_cancel with "
        ".multicast::cluster::all, which writes the 16-byte response into both CTAs (async "
        "proxy) and performs complete-tx on each CTA's own mbarrier; only rank 0 armed its "
        "barrier and waited on it, so rank 1 reads its copy of the response after a cluster "
        "barrier that orders the request's issue but not the write's completion: TM0213 at "
        "rank 1's ld.shared.b128 of the response, related to the try_cancel. Fix: every CTA "
        "arms its own barrier (expect-tx 16) and waits on it before reading.",
        grid=2, block=32, cluster=2, args=[U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0213", "error", "read", "ld.shared.b128",
                          related="request")]),
    Bug("tma_store_without_proxy_fence", "https://github.com/inclusionAI/cuLA/pull/114",
        "The threads write an output tile to shared memory with st.shared (generic proxy), "
        "synchronise with bar.sync, and thread 0 writes the tile to global memory with a TMA "
        "tensor store (cp.async.bulk.tensor.2d.global.shared::cta), which reads shared memory "
        "through the async proxy; no fence.proxy.async between the writes and the barrier, so "
        "the store may read stale data: TM0208 at the tensor store. Fix: "
        "fence.proxy.async.shared::cta by the writing threads before the barrier.",
        grid=1, block=128,
        args=['dtype = "f32"\nshape = [256]\nfill = "iota"', 'buffer = "c"',
              'tensormap = { buffer = "c", box = [32, 8] }\n\n[buffers.c]\ndtype = "f32"\n'
              'shape = [8, 32]\nfill = "zeros"'],
        buggy_verdict="violation",
        findings=[Finding("TM0208", "error", "store",
                          "cp.async.bulk.tensor.2d.global.shared::cta")]),
    Bug("cp_async_barrier_without_wait", "https://github.com/NVIDIA/Fuser/issues/3428",
        "Warp 0 fills a shared buffer with non-bulk cp.async and the kernel relies on "
        "__syncthreads() to publish it before both warps read it (the fix, NVIDIA/Fuser PR "
        "#3438, adds cp.async.wait_all before such barriers). A barrier does not complete a "
        "cp.async; only the issuing thread's cp.async.wait_group/wait_all does: TM0213 at the "
        "ld.shared of the copied data. Fix: cp.async.wait_all before the barrier.",
        grid=1, block=64, args=[U32_IOTA(96), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0213", "error", "read", "ld.shared.u32")]),
    Bug("tcgen05_cp_overwrites_mma_operand", "https://github.com/triton-lang/triton/pull/8236",
        "An MMA operand that lives in TMEM (the scales in the report; A of a kind::f16 MMA here) "
        "is copied in with tcgen05.cp once per iteration into one TMEM buffer while the MMAs "
        "are asynchronous: the second iteration's tcgen05.cp overwrites the cells the first, "
        "still running MMA reads. cp -> mma is a pipelined pair, mma -> cp is not (PTX ISA "
        "§9.7.16.6.2): TM0204 at the second tcgen05.cp, related to the first MMA. Fix: wait "
        "for the MMA's commit before reusing the buffer (the PR made such MMAs synchronous).",
        grid=1, block=128, args=[U32_IOTA(4608), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0204", "error", "cp", "tcgen05.cp.cta_group::1.128x256b",
                          related="mma")]),
    Bug("pair_ctas_store_same_tile", "https://github.com/tile-ai/tilelang/pull/2274",
        "The two CTAs of a cluster split the work of one output tile (cta_id selects each "
        "CTA's part) but both fall through to the same epilogue and store the whole tile "
        "C[bx, by] with st.global, each its own values: a write-write data race between CTAs "
        "(PTX ISA §8), reported in the review of tile-ai/tilelang PR #2274: TM0212 at the "
        "epilogue store, related to the same store of the other CTA. Fix: only the leader CTA "
        "stores the tile.",
        grid=2, block=128, cluster=2, args=[U32_IOTA(256), U32_OUT(128)],
        buggy_verdict="violation",
        findings=[Finding("TM0212", "error", "store", "st.global.u32", related="store")]),
    # Session 7: eight further public reports.
    Bug("o_release_before_wait_ld", "https://github.com/vllm-project/flash-attention/pull/182",
        "The correction warps read the O accumulator with tcgen05.ld and release the O slot "
        "(fence::before_thread_sync + mbarrier.arrive) before tcgen05.wait::ld; the MMA warp "
        "waits the release and issues the next tile's MMA into the same TMEM columns, which "
        "may land while the asynchronous load still reads them (PTX ISA §9.7.16.6.4.4, "
        "§9.7.16.8.5): TM0205 at the MMA, related to the load. Fix: tcgen05.wait::ld before the "
        "release.",
        grid=1, block=160, args=[U32_IOTA(3072), U32_OUT(160)], buggy_verdict="violation",
        findings=[Finding("TM0205", "error", "mma", "tcgen05.mma.cta_group::1.kind::f16",
                          related="load")]),
    Bug("bulk_store_source_refilled", "https://github.com/deepseek-ai/DeepEP/issues/657",
        "A two-stage ring copies global -> shared (cp.async.bulk, mbarrier) -> global "
        "(cp.async.bulk store, a bulk async-group). Before refilling a stage two iterations "
        "ahead the thread waits with cp.async.bulk.wait_group.read 1 (kNumStages - 1): the store "
        "just issued from that stage is the only pending group, so the wait returns at once and "
        "the refill writes the bytes the store may still be reading (PTX ISA §9.7.9.25.2): "
        "TM0209 at the refilling copy, related to the store. Fix (PR #660): wait_group.read 0.",
        grid=1, block=32, args=[U32_IOTA(96), U32_OUT(96)], buggy_verdict="violation",
        findings=[Finding("TM0209", "error", "refill",
                          "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
                          related="store")]),
    Bug("relaxed_cluster_arrive_publishes_nothing",
        "https://github.com/sgl-project/sglang/pull/38829",
        "Rank 0 writes a threshold to its shared memory, the cluster meets at "
        "barrier.cluster.arrive.relaxed + barrier.cluster.wait, and rank 1 reads the threshold "
        "from rank 0's shared memory (mapa + ld.shared::cluster). A relaxed arrive is no "
        "release (PTX ISA §9.7.13.3), so nothing orders the store before the remote load: a "
        "data race (§8), TM0211 at the load, related to the store (the review of PR #38829). "
        "Fix: barrier.cluster.arrive.release.",
        grid=2, block=32, cluster=2, args=[U32_IOTA(4), U32_OUT(64)],
        buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "load", "ld.shared::cluster.u32",
                          related="store")]),
    Bug("relaxed_cluster_barrier_before_reuse",
        "https://github.com/triton-lang/triton/issues/11404",
        "A distributed layout conversion reads the peer CTA's scratch shared memory (mapa + "
        "ld.shared::cluster), the CTAs meet at barrier.cluster.arrive.relaxed + wait, and each "
        "CTA then overwrites its scratch buffer for the next value. A relaxed arrive orders no "
        "memory access before it (PTX ISA §9.7.13.3), so the remote read and the overwrite are "
        "a data race (§8): TM0211 at the overwriting st.shared, related to the remote load. "
        "Fix (PR #11462): a strong (release) cluster barrier before the reuse.",
        grid=2, block=32, cluster=2, args=[U32_IOTA(64), U32_OUT(64)],
        buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "reuse", "st.shared.u32", related="load")]),
    Bug("dsmem_copy_issued_per_warp",
        "https://github.com/facebookexperimental/triton/pull/1538",
        "A DSMEM bulk copy (cp.async.bulk.shared::cluster.shared::cta, mbarrier complete_tx) is "
        "issued by one elected thread per warp, so 4 warps issue it 4 times onto the peer's "
        "barrier, which expects one copy's 128 bytes. When the first copy completes the phase "
        "the peer reads the buffer while the other copies of the same bytes still write it "
        "(PTX ISA §9.7.9.25.2): TM0213 at the read, related to the copy; when all four land "
        "before the peer's expect_tx the tx-count ends at -384 and the phase never completes: "
        "hang TM0225 at the peer's try_wait and at rank 0's final cluster barrier (which one "
        "depends on the completion policy; `tmemu check` runs both). The three extra copies "
        "complete in a phase nobody waits for, so when rank 0 exits their reads of its "
        "buffer and their writes into the peer's are unobserved: TM0234 and TM0235 at the "
        "copy, related to the ret. Fix (PR #1538): elect one thread of warp 0.",
        grid=2, block=128, cluster=2, args=[U32_IOTA(64), U32_OUT(64)], buggy_verdict="hang",
        findings=[Finding("TM0213", "error", "read", "ld.shared.u32", related="copy"),
                  Finding("TM0225", "hang", "hang", "mbarrier.try_wait.parity.shared::cta.b64"),
                  Finding("TM0225", "hang", "exit_sync",
                          "barrier.cluster.wait.acquire.aligned"),
                  Finding("TM0234", "error", "copy",
                          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
                          related="exit"),
                  Finding("TM0235", "warning", "copy",
                          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
                          related="exit")]),
    Bug("remote_store_before_peer_init", "https://github.com/facebookexperimental/triton/pull/2292",
        "Each CTA of a 2-CTA cluster initialises its own shared buffer and then stores into its "
        "peer's buffer (mapa + st.shared::cluster) with nothing ordering the peer's "
        "initialisation first: two weak writes of different CTAs to one shared word (PTX ISA "
        "§8), and when the initialisation lands last the exchanged value is lost. TM0211 at "
        "the remote store and at the initialising store (each related to the other, by "
        "schedule). Fix: the entry cluster barrier between initialisation and remote store.",
        grid=2, block=32, cluster=2, args=[U32_IOTA(64), U32_OUT(64)],
        buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "init", "st.shared.u32", related="remote"),
                  Finding("TM0211", "error", "remote", "st.shared::cluster.u32",
                          related="init")]),
    Bug("mbarrier_init_not_cluster_synced",
        "https://github.com/facebookexperimental/triton/pull/652",
        "Each CTA of a 2-CTA cluster initialises its mbarrier, synchronises only its own "
        "threads (bar.sync), then arrives on its peer's barrier (mapa + "
        "mbarrier.arrive.shared::cluster) and waits on its own: nothing orders the peer's "
        "mbarrier.init before the remote arrive (PTX ISA §9.7.13.15.9, §9.7.13.4), so in a "
        "schedule where the arrive lands first the init erases it and the waiter hangs (the "
        "race CUTLASS's cluster_sync after the pipeline init exists for). TM0214 at the "
        "remote arrive, related: the peer's init, in every schedule. Fix: "
        "fence.mbarrier_init.release.cluster + barrier.cluster.arrive.relaxed + wait between "
        "the init and the remote arrive.",
        grid=2, block=64, cluster=2, args=[U32_IOTA(128), U32_OUT(128)],
        buggy_verdict="violation",
        findings=[Finding("TM0214", "error", "arrive",
                          "mbarrier.arrive.release.cluster.shared::cluster.b64",
                          related="init")]),
    Bug("cluster_exit_while_peer_reads", "https://github.com/triton-lang/triton/issues/11730",
        "CTA 0 of a multi-CTA kernel does a scalar atomic and the other CTAs read its result "
        "from CTA 0's shared memory (mapa + ld.shared::cluster); Triton 3.8.0 emits no cluster "
        "barrier before ret, so CTA 0 may exit while a peer still reads its shared memory, "
        "which then no longer exists (shared memory is owned by an executing CTA, PTX ISA "
        "§5.1.5): TM0231 at the remote load. Fix (PR #11731, from #10656): a cluster barrier "
        "before every return of a multi-CTA kernel.",
        grid=2, block=32, cluster=2, args=[U32_OUT(1), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0231", "error", "load", "ld.shared::cluster.u32")]),
    Bug("local_arrive_on_remote_mbarrier", "https://github.com/apache/tvm/pull/20074",
        "An arrive on the peer CTA's mbarrier takes the mapa.shared::cluster address but is "
        "emitted in the local form mbarrier.arrive.shared::cta.b64: the address lies outside "
        "the executing CTA's .shared::cta window (PTX ISA §5.1, §9.7.13.15.13), TM0503 at the "
        "arrive (tmemu does not perform it); the peer, waiting for that arrival, hangs "
        "(TM0225 at its try_wait, and where rank 0 waits for it at the final cluster "
        "barrier). Fix: "
        "mbarrier.arrive.release.cluster.shared::cluster.b64.",
        grid=2, block=32, cluster=2, args=[U32_OUT(64)], buggy_verdict="hang",
        findings=[Finding("TM0503", "error", "arrive", "mbarrier.arrive.shared::cta.b64"),
                  Finding("TM0225", "hang", "wait",
                          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"),
                  Finding("TM0225", "hang", "hang", "barrier.cluster.wait.acquire.aligned")]),
    Bug("dealloc_while_warps_use_tmem", "https://github.com/triton-lang/triton/pull/7994",
        "Four warps each store and load their lane quarter of a TMEM tile (waiting with "
        "tcgen05.wait::st/ld); the allocating warp deallocates as soon as its own accesses are "
        "done, with no synchronisation with the other warps. tcgen05.dealloc synchronises only "
        "its warp, so the columns may be freed while the other warps still use them "
        "(§9.7.16.7.1, §9.7.16.6): TM0204 at the dealloc, related to another warp's load, and, "
        "in schedules where the dealloc runs first, TM0105 at the late warps' tcgen05.st and "
        "tcgen05.ld. Same use-after-free: Dao-AILab/flash-attention PR #2312, "
        "mlc-ai/TIRx-kernels PR #19. Fix: fence::before_thread_sync, bar.sync, "
        "fence::after_thread_sync before the dealloc.",
        grid=1, block=128, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0105", "error", "store", "tcgen05.st.sync.aligned.32x32b.x1"),
                  Finding("TM0105", "error", "load", "tcgen05.ld.sync.aligned.32x32b.x1"),
                  Finding("TM0204", "error", "dealloc", "tcgen05.dealloc.cta_group::1",
                          related="load")]),
    Bug("ld_unwaited_before_dealloc", "https://github.com/NVIDIA/cutlass/pull/3652",
        "The epilogue warp's last tcgen05.ld of the accumulator is followed by "
        "fence::before_thread_sync and the mbarrier arrive that lets the MMA warp free TMEM, "
        "with no tcgen05.wait::ld in between (only some lanes use the loaded registers; a "
        "register dependency orders nothing in TMEM, §9.7.16.6.4.5). The load may still read "
        "the columns when the MMA warp's tcgen05.dealloc frees them: TM0204 at the dealloc, "
        "related to the load. The report is a proposed fix its author calls unconfirmed; the "
        "ISA's pattern (ld -> wait::ld -> fence -> arrive, §9.7.16.6.4.4) makes it a "
        "violation. Fix: tcgen05.wait::ld before the arrive.",
        grid=1, block=64, args=[U32_IOTA(32), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0204", "error", "dealloc", "tcgen05.dealloc.cta_group::1",
                          related="load")]),
    Bug("multicast_stage_reused_before_peer_release", "https://github.com/inclusionAI/humming/pull/56",
        "The leader CTA multicasts each stage into the shared memory of both CTAs of the cluster "
        "(cp.async.bulk .multicast::cluster) and refills it after waiting only for its own "
        "consumers' release, while the peer CTA may still read the previous contents of its "
        "copy (H100/H200: rank 1's results corrupted, PR #53/#54/#56). The refill's write into "
        "the peer is ordered after nothing the peer did: TM0213 at the peer's ld.shared of the "
        "stage, related to the refill. When the refill's complete-tx reaches the peer's full "
        "barrier before the peer armed that phase, two tiles' bytes land on one phase: the "
        "peer hangs (TM0225 at its try_wait, and where the leader waits for it at the final "
        "cluster barrier). Fix: the peer's consumers also release the leader's empty barrier "
        "(mapa + mbarrier.arrive.release.cluster.shared::cluster), count 64.",
        grid=2, block=32, cluster=2, args=[U32_IOTA(64), U32_OUT(64)], buggy_verdict="hang",
        findings=[Finding("TM0213", "error", "read", "ld.shared.u32", related="refill"),
                  Finding("TM0225", "hang", "wait_full",
                          "mbarrier.try_wait.parity.shared::cta.b64"),
                  Finding("TM0225", "hang", "exit_sync",
                          "barrier.cluster.wait.acquire.aligned")]),
    Bug("mbarrier_init_by_every_thread", "https://github.com/NVIDIA/Fuser/issues/1552",
        "Every thread executes mbarrier.init on the one barrier and then arrives and waits, with "
        "no barrier between the init and the first arrive. An init on a valid mbarrier is "
        "undefined (§9.7.13.15.9): TM0221 at the init; when a late warp's init resets the "
        "phase after the other warp arrived, that arrival is lost and the waiters hang (TM0225 "
        "at the try_wait), the reported H100 hang. Fix (PR #1769 added the __syncthreads(); "
        "the ISA also forbids the repeated init): thread 0 initialises, __syncthreads() "
        "before the first arrive.",
        grid=1, block=64, args=[U32_IOTA(64), U32_OUT(64)], buggy_verdict="hang",
        findings=[Finding("TM0221", "error", "init", "mbarrier.init.shared::cta.b64"),
                  Finding("TM0225", "hang", "wait", "mbarrier.try_wait.shared::cta.b64")]),
    Bug("bulk_store_source_rewritten_next_iteration", "https://github.com/NVIDIA/Fuser/pull/5448",
        "A loop writes its results to a shared tile (st.shared, fence.proxy.async, bar.sync) and "
        "stores the tile to global memory with a bulk store each iteration, but "
        "cp.async.bulk.commit_group and wait_group were emitted once, after the loop. The bulk "
        "store reads its source until its group's wait_group.read (§9.7.9.25.4.4), so the next "
        "iteration's st.shared races the previous store: TM0209 at the st.shared, related to "
        "the store; and when the issuing thread is late, its store reads the next iteration's "
        "values, written with nothing ordering them before it: TM0211 at the store, related to "
        "the st.shared (by schedule). Fix (the PR's after): commit_group + wait_group.read 0 "
        "in the loop and a bar.sync before the tile is written again.",
        grid=1, block=64, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0209", "error", "write", "st.shared.u32", related="store"),
                  Finding("TM0211", "error", "store",
                          "cp.async.bulk.global.shared::cta.bulk_group", related="write")]),
    Bug("per_warp_arrivals_on_count_one_barrier", "https://github.com/triton-lang/triton/pull/8969",
        "Each warp of a 4-warp consumer partition arrives on the empty barrier (per-warp "
        "arrivals), which was initialised with count 1 (the review of the PR: `init_barrier bar, "
        "1` is invalid unless the partition has one warp; facebookexperimental/triton PR #183 "
        "fixed the same class for regions of other than 4 warps). The first arrival completes "
        "phase 0 and the next ones land in phases 1-3 before any wait observed the phase "
        "before (§9.7.13.15.4): TM0232 at the per-warp arrive. The producer's parity 0 then "
        "aliases phase 4, which never completes: it hangs (TM0225 at its try_wait), and the "
        "consumers wait for the second tile forever (TM0225 at theirs). Fix: count 4.",
        grid=1, block=160, args=[U32_IOTA(256), U32_OUT(160)], buggy_verdict="hang",
        findings=[Finding("TM0232", "error", "release", "mbarrier.arrive.release.cta"),
                  Finding("TM0225", "hang", "wait_full",
                          "mbarrier.try_wait.parity.shared::cta.b64"),
                  Finding("TM0225", "hang", "wait_empty",
                          "mbarrier.try_wait.parity.shared::cta.b64")]),
    # Session 9 (bugs9): four further public reports.
    Bug("st_bulk_clear_without_barrier", "https://github.com/tile-ai/tilelang/pull/2700",
        "T.clear of a shared accumulator lowers to st.bulk on Blackwell, which the thread-sync "
        "pass did not count as a shared write (issues #2699 and #2703), so no barrier separated "
        "the clear from the other threads' read-modify-write of the buffer. st.bulk is a weak "
        "store of the whole region, so warp 1's ld.shared/st.shared of the cleared bytes race "
        "thread 0's st.bulk (PTX ISA §8): TM0211 at the read and at the store, related to the "
        "clear, or at the clear, related to warp 1's store (by schedule). Fix (the PR): the barrier after the "
        "clear.",
        grid=1, block=64, args=[U32_IOTA(64), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "read", "ld.shared.u32", related="clear"),
                  Finding("TM0211", "error", "clear", "st.bulk.weak.shared::cta",
                          related="rmw"),
                  Finding("TM0211", "error", "rmw", "st.shared.u32", related="clear")]),
    Bug("aliased_scratch_overwrites_operand", "https://github.com/sgl-project/sglang/pull/37287",
        "The split-K partial sums (sC) alias stage 0 of the A operand (sA): a barrier after the "
        "sC stores protects the reduction, none before them, so a fast warp overwrites sA with "
        "its partials while the previous warp still reads its operands there (each thread "
        "reads the slot the next warp's thread later overwrites). TM0211 at the partial-sum "
        "store, related to the operand read, or at the read, related to the store (by "
        "schedule). Fix (the PR): a barrier over the compute warps before the first sC store.",
        grid=1, block=128, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "read", "ld.shared.u32", related="partial"),
                  Finding("TM0211", "error", "partial", "st.shared.u32", related="read")]),
    Bug("mbarrier_inval_before_last_wait", "https://github.com/NVIDIA/Fuser/pull/1663",
        "The mbarrier.inval sits after the barrier's last write (the elected thread's "
        "arrive.expect_tx and bulk copy) instead of after its last read (the other warp's "
        "try_wait); the PR moves it after the last read. An mbarrier operation other than init "
        "on an invalidated mbarrier is undefined (§9.7.13.15.10): TM0220 at warp 1's try_wait. "
        "No phase of the invalid barrier ever completes, so warp 1 waits forever: TM0225 at "
        "that try_wait, and warp 0 at the bar.sync it never passes. Fix: every thread waits, "
        "bar.sync, then the inval.",
        grid=1, block=64, args=[U32_IOTA(64), U32_OUT(64)], buggy_verdict="hang",
        findings=[Finding("TM0220", "error", "wait", "mbarrier.try_wait.parity.shared::cta.b64"),
                  Finding("TM0225", "hang", "wait",
                          "mbarrier.try_wait.parity.shared::cta.b64"),
                  Finding("TM0225", "hang", "sync", "bar.sync 0")]),
    Bug("loop_buffer_rewritten_before_lagging_read", "https://github.com/sgl-project/sglang/pull/37288",
        "Each chunk iteration stores its gates to a shared buffer, synchronises (bar.sync 1, "
        "128) and every warp reads the next warp's gates; nothing at the end of the iteration "
        "keeps a fast warp from storing the next chunk's gates while a lagging warp still "
        "reads this chunk's. TM0211 at the next iteration's st.shared, related to the lagging "
        "ld.shared, or at the read, related to the store (by schedule). Fix (the PR): a named "
        "barrier over the 128 threads at the end of each iteration.",
        grid=1, block=128, args=[U32_IOTA(256), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "store", "st.shared.u32", related="read"),
                  Finding("TM0211", "error", "read", "ld.shared.u32", related="store")]),
    Bug("mbarrier_reused_without_inval", "https://github.com/triton-lang/triton/pull/3858",
        "A bulk copy is waited for on an mbarrier; after every thread's wait (bar.sync) the "
        "barrier's shared bytes are reused as a scratch buffer without mbarrier.inval (the PR "
        "adds the inval after the last use: 'According to PTX spec this is needed before the "
        "shared memory can be re-used'). An mbarrier must be invalidated before its memory is "
        "used for any other purpose (§9.7.13.15.10): TM0233 at the scratch st.shared that "
        "overwrites the barrier's bytes. Fix: one thread executes mbarrier.inval between two "
        "bar.syncs before the reuse.",
        grid=1, block=64, args=[U32_IOTA(64), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0233", "error", "reuse", "st.shared.u32")]),
    Bug("cta_scope_arrive_on_peer_barrier", "https://github.com/NVIDIA/cutlass/pull/3647",
        "The non-leader CTA stores its half of an operand into its own shared memory and "
        "signals the leader through the leader's mbarrier with an explicit CTA-scope release, "
        "mbarrier.arrive.release.cta.shared::cluster (the CuTe DSL example's "
        "mbarrier_arrive(remote, scope=CTA)); the leader waits (acquire.cluster) and reads the "
        "peer's buffer. A release and an acquire synchronise only when each one's scope "
        "includes the other thread (PTX ISA §8, morally strong); a CTA-scope release by a "
        "thread of another CTA reaches no waiter of the barrier, so the store and the remote "
        "load are a data race: TM0211 at the ld.shared::cluster, related to the st.shared. "
        "Fix (PR #3647; cutlass#3324 the same class): mbarrier.arrive.release.cluster.",
        grid=2, block=32, cluster=2, args=[U32_IOTA(32), U32_OUT(64)],
        buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "load", "ld.shared::cluster.u32",
                          related="store")]),
    Bug("remote_arrive_by_every_lane", "https://github.com/triton-lang/triton/pull/9498",
        "Before the pair's collective dealloc each CTA arrives on its peer's handshake mbarrier "
        "(count 1) with `@p mbarrier.arrive.shared::cluster` under the predicate tid < 32, so "
        "all 32 lanes of warp 0 arrive (the review of the PR: 'Use a single thread for 2CTA "
        "mbarrier arrival'). The first arrival completes phase 0, the next 31 complete phases "
        "1..31 with no wait between them (§9.7.13.15.4): TM0232 at the arrive; the waiter's "
        "parity 0 then names the incomplete phase 32, so its try_wait never succeeds: hang "
        "(TM0225) at the try_wait and at the bar.sync where warp 1 waits for warp 0. Fix: one "
        "lane arrives.",
        grid=2, block=64, cluster=2, args=[U32_IOTA(128), U32_OUT(128)], buggy_verdict="hang",
        findings=[Finding("TM0232", "error", "arrive",
                          "mbarrier.arrive.release.cluster.shared::cluster.b64"),
                  Finding("TM0225", "hang", "hang",
                          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64"),
                  Finding("TM0225", "hang", "sync", "bar.sync 0")]),
    Bug("aligned_barrier_split_roles", "https://github.com/mlc-ai/TIRx-kernels/pull/21",
        "A named barrier (id 1, 64 threads) joins a producer warp and a consumer warp that "
        "reach it from different role branches, each through its own `bar.sync 1, 64`. "
        "bar.sync is barrier.sync.aligned: all threads taking part must execute the same "
        "barrier instruction (PTX ISA §9.7.13.1); one generation completed from two static "
        "sites is undefined (compute-sanitizer synccheck reports a divergent barrier). "
        "TM0507 at the site that joins the instance second, related to the first (by "
        "schedule: the consumer's bar.sync or the producer's). Fix (the PR): the unaligned "
        "barrier.sync at both sites.",
        grid=1, block=64, args=[U32_IOTA(64), U32_OUT(32)], buggy_verdict="violation",
        findings=[Finding("TM0507", "error", "consumer", "bar.sync 1, 64",
                          related="producer"),
                  Finding("TM0507", "error", "producer", "bar.sync 1, 64",
                          related="consumer")]),
    Bug("named_barrier_id_collision", "https://github.com/flashinfer-ai/flashinfer/pull/4533",
        "Two warpgroups each reduce through shared memory with bar.sync 1, 128: the same "
        "named barrier id (the PR's fix 2, 'a named-barrier id collision in the correction "
        "warpgroup'; the review of tile-ai/tilelang PR #2360: concurrent warpgroup "
        "reductions 'must use DIFFERENT barrier IDs or the bar.sync waits on the wrong "
        "cohort'). An instance completes when any 128 threads arrived (§9.7.13.1), so warps "
        "0, 1, 4 and 5 (the early halves of both groups) complete one and warp 1 reads the "
        "partial of warp 2, which is not written yet: TM0211 at the ld.shared, related to the "
        "st.shared, or at the store, related to the read (by schedule). Fix: one id per "
        "warpgroup.",
        grid=1, block=256, args=[U32_IOTA(256), U32_OUT(256)], buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "read", "ld.shared.u32", related="store"),
                  Finding("TM0211", "error", "store", "st.shared.u32", related="read")]),
    Bug("pair_cp_reads_unwaited_peer_stage", "https://github.com/NVIDIA/cutlass/issues/3643",
        "Each CTA of the pair loads its half of the scale factors into its own shared memory "
        "with a bulk copy tracked by its local mbarrier; only the leader waits, on its own "
        "barrier, before the .cta_group::2 tcgen05.cp that reads the same offset in both "
        "CTAs (the issue's first root cause: 'There is no path from the peer's sfb_smem_full "
        "to the leader'). The peer's copy may still be writing what the tcgen05.cp reads: "
        "TM0213 at the tcgen05.cp, related to the peer's bulk copy, or, when the peer issues "
        "its copy after the tcgen05.cp, TM0209 at the copy, related to the tcgen05.cp (by "
        "schedule). Fix (PR #3647): the peer waits for its copy and arrives (release.cluster) "
        "on a leader barrier the leader waits on too. Nothing observes the peer's copy before "
        "the peer exits either: TM0235 at the copy, related to the ret.",
        grid=2, block=128, cluster=2, args=[U32_IOTA(2048), U32_OUT(256)],
        buggy_verdict="violation",
        findings=[Finding("TM0213", "error", "cp", "tcgen05.cp.cta_group::2.128x256b",
                          related="load"),
                  Finding("TM0209", "error", "load",
                          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
                          related="cp"),
                  Finding("TM0235", "warning", "load",
                          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
                          related="exit")]),
    Bug("bulk_store_released_after_read_wait", "https://github.com/triton-lang/triton/pull/10415",
        "The producer warp writes a tile to global memory with a bulk store, waits with "
        "cp.async.bulk.wait_group.read 0 (which only waits for the copy's reads of shared "
        "memory, §9.7.9.25.4.4) and publishes a flag with st.release; the consumer warp "
        "acquires the flag and reads the tile while the store's global writes may be in "
        "flight (the PR: the store followed by a release atomic 'does not release the store'; "
        "HazyResearch/ThunderKittens#194 asks the same of store_async_read_wait before a "
        "signal): TM0213 at the consumer's ld.global, related to the bulk store. Fix (the PR): "
        "cp.async.bulk.wait_group 0 before the release.",
        grid=1, block=64, args=[U32_IOTA(32), U32_OUT(32), U32_OUT(1), U32_OUT(32)],
        buggy_verdict="violation",
        findings=[Finding("TM0213", "error", "read", "ld.global.u32", related="store")]),
    # Session 11 (batch 11)
    Bug("fresh_barrier_wait_parity_one", "https://github.com/tile-ai/tilelang/issues/2927",
        "A cluster copy in a loop signals a different mbarrier bar[s] each iteration (rank 0 "
        "multicasts a bulk copy to both CTAs), but the wait is bar[s].wait(s & 1), the parity "
        "of one barrier reused every iteration (the issue: the lowered wait's parity 'is "
        "derived from the enclosing loop iteration, not from the phase history of the barrier "
        "that was actually passed'). bar[1] completes only its phase 0, so parity 1 names "
        "either the phase before it (complete: the wait returns at once and the read races "
        "the copy, the report's silent corruption) or, once the copy has landed, the current "
        "phase 1, which nothing completes. tmemu completes bulk copies at issue, so it sees "
        "the second branch: hang (TM0225) at the try_wait in both CTAs. Fix: parity 0, the "
        "first phase of every bar[s].",
        grid=2, block=32, cluster=2, args=[U32_IOTA(64), U32_OUT(64)], buggy_verdict="hang",
        findings=[Finding("TM0225", "hang", "hang", "mbarrier.try_wait.parity.shared::cta.b64")]),
    Bug("tile_info_mailbox_without_ack", "https://github.com/NVlabs/cuda-oxide/pull/1066",
        "The scheduler warp publishes each tile's coordinates in a shared mailbox and signals "
        "a ready mbarrier; the MMA and epilogue warps read the mailbox after waiting on it, but "
        "the mailbox has no free barrier (the review: TILE_INFO is published and read 'with no "
        "ack barrier'): the scheduler is paced only by the MMA warp's stage-empty barrier, so "
        "its store of tile 1 is unordered with the epilogue warp's read of tile 0: TM0211 at "
        "the scheduler's st.shared, related to the epilogue's ld.shared. Fix (the PR's "
        "TILE_INFO_FREE, count = the consumer warps): every consumer warp arrives on the free "
        "barrier the scheduler waits on before the next publish.",
        grid=1, block=96, args=[U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "publish", "st.shared.u32", related="read")]),
    Bug("persistent_rendezvous_parity_zero",
        "https://github.com/facebookexperimental/triton/pull/3420",
        "A persistent 2-CTA loop: the peer writes each tile's half and arrives (release."
        "cluster) on the leader's full barrier; the leader waits with parity 0 on every tile "
        "(the PR: a copy that 'always waits on phase zero' across CLC tiles), reads the half "
        "through DSMEM and releases it on the peer's empty barrier. On tile 1 the leader's "
        "wait returns at once (phase 0 is complete), the leader runs ahead and its release "
        "lands in phase 1 of the peer's empty barrier before any wait observed phase 0: "
        "TM0232 at that arrive (synccheck's 'Missing wait' in the PR). The peer's parity 0 "
        "then names phase 2, which nothing completes: hang (TM0225) at its try_wait and at "
        "the leader's barrier.cluster.wait (the PR: the kernel 'can hang intermittently'). "
        "Fix: the leader waits on the tile's parity t & 1.",
        grid=2, block=32, cluster=2, args=[U32_OUT(64)], buggy_verdict="hang",
        findings=[Finding("TM0232", "error", "release",
                          "mbarrier.arrive.release.cluster.shared::cluster.b64"),
                  Finding("TM0225", "hang", "hang", "mbarrier.try_wait.parity.shared::cta.b64"),
                  Finding("TM0225", "hang", "cluster_wait",
                          "barrier.cluster.wait.acquire.aligned")]),
    Bug("named_barrier_arrive_runahead", "https://github.com/flashinfer-ai/flashinfer/pull/4732",
        "A producer ('math') warp signals each tile with bar.arrive 1, 64 and the consumer "
        "('IO') warp waits with bar.sync 1, 64; nothing keeps the producer from arriving for "
        "tile 1 before the consumer's bar.sync of tile 0 (the PR: 'Math can arrive for tile "
        "ti, run ti+1, and arrive again before IO syncs ti ... The surplus arrival completes "
        "the phase without IO; a later phase starves'). The ISA: keep a warp from executing "
        "barrier{.cta}.arrive followed by any other barrier{.cta} instruction to the same "
        "barrier prior to its reset (§9.7.13.1): TM0512 at the second bar.arrive (related: "
        "the first, the same instruction in the loop); its two arrivals complete the instance "
        "alone and the consumer's bar.sync starts one nobody completes: hang (TM0504). Fix "
        "(the PR): alternate the handshake between ids 1 and 5 by tile parity.",
        grid=1, block=64, args=[U32_IOTA(64), U32_OUT(64)], buggy_verdict="hang",
        findings=[Finding("TM0512", "error", "arrive", "bar.arrive", related="arrive"),
                  Finding("TM0504", "hang", "sync", "bar.sync")]),
    Bug("phase_flipped_on_empty_tile", "https://github.com/Dao-AILab/flash-attention/pull/2258",
        "The consumer flips its mbarrier phase on every tile, also on an empty tile for which "
        "the producer never arrives (the PR's item 4: 'a spurious phase flip "
        "o_corr_consumer_phase ... for empty tiles ... mma never arrives on this'). The "
        "producer fills a shared slot for tiles 0 and 2 and arrives on full; the consumer "
        "waits on full, reads and releases the slot on empty. After the flip of empty tile 1 "
        "the consumer's parity 0 names the completed phase 0 of full, its wait returns at once "
        "and it releases empty again in phase 1 before any wait observed phase 0: TM0232 at "
        "that mbarrier.arrive; the producer's parity 0 then names the incomplete phase 2: "
        "hang (TM0225) at its try_wait (the PR: 'we hang'). Fix: flip only on tiles the "
        "consumer waited for.",
        grid=1, block=64, args=[U32_IOTA(96), U32_OUT(96)], buggy_verdict="hang",
        findings=[Finding("TM0232", "error", "release",
                          "mbarrier.arrive.release.cta.shared::cta.b64"),
                  Finding("TM0225", "hang", "hang", "mbarrier.try_wait.parity.shared::cta.b64")]),
    Bug("operand_tile_overwritten_next_k_step", "https://github.com/pytorch/helion/pull/2975",
        "Each K step every thread stores its element of the A tile to shared memory, the CTA "
        "synchronises (bar.sync 0) and every thread copies a row written by the other warp into "
        "registers for the multiply; nothing at the end of the step keeps a thread that "
        "finished its multiply from storing the next step's tile while a sibling warp still "
        "copies this step's (the PR: a write-after-read hazard, 'mismatch counts swing 264..725 "
        "across runs'). TM0211 at the next step's st.shared, related to the lagging ld.shared, "
        "or at the read, related to the store (by schedule). Fix (the PR): a trailing "
        "bar.sync 0 after the multiply of every K step.",
        grid=1, block=64, args=[U32_IOTA(192), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "store", "st.shared.u32", related="read"),
                  Finding("TM0211", "error", "read", "ld.shared.u32", related="store")]),
    Bug("multicast_bytes_missing_from_receiver_expect_tx",
        "https://github.com/flashinfer-ai/flashinfer-bench/pull/183",
        "In a cluster of two CTAs each CTA loads its A tile with a bulk copy on its local full "
        "mbarrier and rank 0 multicasts the shared B tile into both CTAs; the multicast "
        "signals complete_tx on the barrier at the same offset in every destination CTA "
        "(PTX ISA §9.7.9.25.4.1), but each CTA arms its barrier with bytes_a + (rank == 0 ? "
        "bytes_b : 0) (the review: 'every destination CTA ... must set up (init + expect-tx) "
        "its own local mbarrier'). Rank 1's phase completes on whichever 128 bytes land first: "
        "A first, and its read of B races the multicast's write (TM0211 at the multicast, "
        "related to the ld.shared of B); B first (the tx-count goes negative before the "
        "expect_tx), and it reads A while its own copy is in flight (TM0213 at the ld.shared "
        "of A, related to the A copy), by schedule; in the second case rank 1 never observes "
        "its A copy before it exits (TM0235 at the copy, related to the ret). Fix: every "
        "destination CTA expects bytes_a + bytes_b.",
        grid=2, block=32, cluster=2, args=[U32_IOTA(64), U32_IOTA(32), U32_OUT(64)],
        buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "multicast",
                          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
                          ".multicast::cluster", related="read_b"),
                  Finding("TM0213", "error", "read_a", "ld.shared.u32", related="copy_a"),
                  Finding("TM0235", "warning", "copy_a",
                          "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
                          related="exit")]),
    Bug("bulk_store_wait_after_stage_rewrite",
        "https://github.com/flashinfer-ai/flashinfer/pull/4576",
        "The output tile is double buffered in shared memory; each iteration the threads write "
        "the current stage with st.shared, fence.proxy.async, meet at named barrier 1, and one "
        "thread issues the stage's bulk store (a bulk async-group). Its "
        "cp.async.bulk.wait_group.read 1 comes after the stage's writes (the review: 'Move "
        "the bulk-store wait before the smem_y writes ... the stage written at Line 1477 is "
        "the same stage that the TMA store issued two iterations earlier still reads'), so "
        "from the third iteration on the threads rewrite a stage whose store was never "
        "observed to finish reading it (PTX ISA §9.7.9.25.2): TM0209 at the st.shared, "
        "related to the bulk store. Fix: wait_group.read 1 at the top of the iteration, "
        "published by a named barrier before any thread writes the stage.",
        grid=1, block=64, args=[U32_IOTA(256), U32_OUT(256)], buggy_verdict="violation",
        findings=[Finding("TM0209", "error", "write", "st.shared.u32", related="store")]),
    # Session 15 (xs15): the last-block (threadFenceReduction) reduction across clusters, the
    # cross-group comparison counting only .gpu/.sys releases and acquires.
    Bug("splitk_ticket_without_threadfence", "https://github.com/pytorch/pytorch/pull/128455",
        "The last-block reduction of CUDA's threadFenceReduction sample (and the CUDA "
        "Programming Guide's __threadfence() example) without its two fences: each CTA stores "
        "its partial with st.global, meets its threads at bar.sync, thread 0 takes a ticket "
        "with atom.relaxed.gpu.global.inc, and the CTA that draws the last ticket sums every "
        "CTA's partial. pytorch/pytorch PR #128455 added the fence after the last block's atomic "
        "('complete the acquire pattern after atomic'), NVIDIA/Fuser PR #2391 the one before the "
        "split-K semaphore's release. Without them there is no release pattern after the "
        "partial stores and no acquire pattern before the sum: bar.sync is CTA-scoped and "
        "cannot synchronise two CTAs of different clusters (PTX ISA §8, 'Morally strong "
        "operations', 'Release and Acquire Patterns'): TM0212 at the last CTA's ld.global, "
        "related to another CTA's partial store. Fix: membar.gl before and after the ticket.",
        grid=4, block=64, args=[U32_IOTA(256), U32_OUT(256), U32_OUT(1), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0212", "error", "sum", "ld.global.u32", related="partial")]),
    Bug("splitk_ticket_cta_scope", "https://github.com/NVIDIA/cudf/pull/16051",
        "The same last-block reduction with both fences (membar.gl before and after the "
        "ticket), but the ticket is a .cta-scoped atomic (atomicInc_block: "
        "atom.relaxed.cta.global.inc), the class NVIDIA/cudf PR #16051 fixed (thread_scope_block "
        "atomics where threads of several blocks update one location). A .cta atomic is not "
        "morally strong with another CTA's (PTX ISA §8, 'Morally strong operations'), so the "
        "fence-ticket-fence chain is no release/acquire pattern between CTAs of different "
        "clusters: TM0212 at the last CTA's ld.global, related to another CTA's partial store. "
        "The tickets themselves are a data race as well (two conflicting strong accesses that "
        "are not morally strong, PTX ISA §8 'Conflict and Data-races'): TM0212 at the ticket, "
        "related to another CTA's ticket. "
        "Fix: the ticket at .gpu scope (atomicInc).",
        grid=4, block=64, args=[U32_IOTA(256), U32_OUT(256), U32_OUT(1), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0212", "error", "sum", "ld.global.u32", related="partial"),
                  Finding("TM0212", "error", "ticket", "atom.relaxed.cta.global.inc.u32",
                          related="ticket")]),
    Bug("splitk_ticket_relaxed", "https://github.com/flashinfer-ai/flashinfer/pull/4742",
        "The last-block split-K in the form Triton emits (tl.atomic_add on the tile counter, "
        "sem='acq_rel' by default; the last CTA resets the counter with a plain store), with "
        "the ticket atom.relaxed.gpu and no fence: the bug the review of "
        "flashinfer-ai/flashinfer PR #4742 names ('Add the missing __threadfence() before the "
        "in-loop counter increment ... a reducer in another CTA can read stale partials'). No "
        "release pattern after the partial stores, no acquire pattern before the sum (bar.sync "
        "is CTA-scoped, PTX ISA §8): TM0212 at the last CTA's ld.global, related to another "
        "CTA's partial store, and at the counter's reset, related to another CTA's ticket. Fix: "
        "the ticket atom.acq_rel.gpu.",
        grid=4, block=64, args=[U32_IOTA(256), U32_OUT(256), U32_OUT(1), U32_OUT(64)], buggy_verdict="violation",
        findings=[Finding("TM0212", "error", "sum", "ld.global.u32", related="partial"),
                  Finding("TM0212", "error", "reset", "st.global.u32", related="ticket")]),
    # Session 16 (bg16)
    Bug("bulk_store_wait_not_handed_off", "https://github.com/NVIDIA/TransformerEngine/pull/3417",
        "Every thread writes its part of an output tile into a shared staging buffer, fences "
        "(fence.proxy.async.shared::cta) and meets the CTA at bar.sync; the leading thread "
        "issues the bulk store of the buffer and commits it as a bulk async-group, and every "
        "thread then executes cp.async.bulk.wait_group.read 0. Bulk async-groups belong to the "
        "thread that committed them (PTX ISA §9.7.9.25.4: wait_group waits for the executing "
        "thread's groups), so only the leader's wait waits; with no CTA barrier after it (the "
        "PR: 'Calling cp_async_bulk_wait_group_read<N>() from other threads does not wait for "
        "the leader's transfers ... Other threads could therefore overwrite shared memory while "
        "the TMA engine was still reading it'; issue #3474 the same gap in the grouped MXFP8 "
        "kernel) warp 1 writes the next tile while the previous store may still read the "
        "buffer: TM0209 at the st.shared, related to the bulk store, or, when the leader is "
        "late, TM0211 at the store, related to the st.shared (by schedule). Fix (the PR): a "
        "bar.sync after the wait hands the leader's completion to the CTA.",
        grid=1, block=64, args=[U32_IOTA(192), U32_OUT(192)], buggy_verdict="violation",
        findings=[Finding("TM0209", "error", "write", "st.shared.u32", related="store"),
                  Finding("TM0211", "error", "store",
                          "cp.async.bulk.global.shared::cta.bulk_group", related="write")]),
    Bug("tma_load_overwrites_tile_metadata",
        "https://github.com/NVIDIA/TransformerEngine/pull/3483",
        "Thread 0 writes each expert's row offset into the first words of a shared buffer that "
        "is also the destination of the tile's bulk copy; after bar.sync every warp reads its "
        "expert's offset, and thread 0, once it has read its own, arms the mbarrier and issues "
        "the bulk copy into the same buffer (the PR, item 3: 'the direct mapper stored "
        "per-expert metadata in dynamic shared memory that was also used as the destination of "
        "asynchronous TMA loads. A TMA load could therefore overwrite the metadata before "
        "every warp had consumed it', issue #3474's illegal memory access). Nothing orders the "
        "other warps' reads before the copy's writes: TM0211 at the cp.async.bulk, related to "
        "a late warp's ld.shared of the metadata, or TM0213 at that ld.shared, related to the "
        "copy (the copy's unwaited write landed first), by schedule. Fix (the PR): the "
        "metadata in its own static shared array.",
        grid=1, block=128,
        args=[U32_IOTA(4), U32_IOTA(64), U32_OUT(128)], buggy_verdict="violation",
        findings=[Finding("TM0211", "error", "load",
                          "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
                          related="read"),
                  Finding("TM0213", "error", "read", "ld.shared.u32", related="load")]),
    Bug("setmaxnreg_inc_without_dec", "https://github.com/pytorch/helion/pull/3620",
        "A 512-thread CTA of four warpgroups (load/MMA, reduce, two compute) compiled with "
        "__launch_bounds__(512, 1), so ptxas honours setmaxnreg and starts every thread at "
        "128 registers (65536 / 512). The compute warpgroups raise themselves to 168 with "
        "setmaxnreg.inc and no warpgroup decreases. The ISA keeps a register pool per CTA "
        "that setmaxnreg.dec releases into, and 'The setmaxnreg.inc instruction blocks the "
        "execution until enough registers are available in the CTA's register pool' (PTX ISA "
        "§9.7.19.5): the pool stays empty, the compute warps wait forever and the others wait "
        "for them at the CTA barrier (the PR: 'raised the compute warps to 168 registers but "
        "never decreased any other warpgroup ... the TRY_ALLOC could never be satisfied and "
        "the kernel spun forever'; tile-ai/tilelang PR #2406 the same over-subscription). "
        "Hang TM0513 at the setmaxnreg.inc and at the bar.sync. Fix (the PR): the reduce "
        "warpgroup decreases to 80 and the load/MMA warpgroup to 88 (88 + 80 + 2 x 168 = 504 "
        "<= 4 x 128).",
        grid=1, block=512, args=[U32_IOTA(512), U32_OUT(1024)], buggy_verdict="hang",
        findings=[Finding("TM0513", "hang", "inc", "setmaxnreg.inc.sync.aligned.u32"),
                  Finding("TM0513", "hang", "sync", "bar.sync")]),
    Bug("setmaxnreg_min_blocks_halves_pool", "https://github.com/tile-ai/tilelang/issues/2559",
        "A warp-specialised kernel of a producer and a consumer warpgroup (256 threads) moves "
        "registers with setmaxnreg .dec 24 / .inc 240, a split that assumes one CTA per SM. "
        "The occupancy hint min_blocks_per_sm = 2 (__launch_bounds__(256, 2): .minnctapersm 2) "
        "makes ptxas start every thread at 65536 / (2 x 256) = 128 registers (ptxas 13.5: "
        "'Used 128 registers'), so the producer's decrease returns 13312 registers to the CTA's "
        "pool and the consumer's increase needs 14336 (the issue: the kernel 'hangs forever at "
        "launch with no error' when only the launch-bounds hint changes from 1 to 2; PTX ISA "
        "§9.7.19.5: setmaxnreg.inc blocks until the CTA's pool holds the registers). Hang "
        "TM0513 at the consumer's setmaxnreg.inc and at the producer's bar.sync. Fix: counts "
        "that fit the hinted entry count (.dec 24 / .inc 224; tile-ai/tilelang PR #2406 derives "
        "the split from the layout instead of a fixed 24/240).",
        grid=1, block=256, args=[U32_IOTA(256), U32_OUT(512)], buggy_verdict="hang",
        findings=[Finding("TM0513", "hang", "inc", "setmaxnreg.inc.sync.aligned.u32"),
                  Finding("TM0513", "hang", "sync", "bar.sync")]),
    # Session 16 (at16): strong accesses whose scopes do not include each other.
    Bug("histogram_flush_block_scope",
        "https://github.com/ComputationalRadiationPhysics/picongpu/pull/2231",
        "Each CTA builds a histogram of its slice in shared memory with atomicAdd_block "
        "(red.relaxed.cta.shared::cta: every thread touching those bins is of the CTA, so the "
        "accesses are morally strong and silent), then flushes its bins into the one global "
        "histogram with atomicAdd_block too (red.relaxed.cta.global.add), the bug "
        "ComputationalRadiationPhysics/picongpu PR #2231 fixed ('The shared memory histogram "
        "is reduced with the hierarchy Threads to the global memory. This will produce "
        "raceconditions between blocks of a grid'; alpaka's Threads hierarchy is "
        "atomicAdd_block). A .cta atomic includes only the threads of its CTA, so two CTAs' "
        "flushes of one bin are not morally strong (PTX ISA §8, 'Morally strong operations') "
        "and nothing orders them: a data race ('Conflict and Data-races'), TM0212 at the "
        "flush, related to another CTA's flush (the same instruction), whether the CTAs share "
        "an SM group or not. Fix: the flush at .gpu scope (atomicAdd).",
        grid=4, block=64, args=[U32_IOTA(256), U32_OUT(16)], buggy_verdict="violation",
        findings=[Finding("TM0212", "error", "flush", "red.relaxed.cta.global.add.u32",
                          related="flush")]),
]


def find_cuda_bin() -> pathlib.Path:
    env = os.environ.get("TMEMU_CUDA_BIN")
    if env:
        return pathlib.Path(env)
    try:
        import nvidia

        for root in nvidia.__path__:
            cand = pathlib.Path(root) / "cu13" / "bin"
            if (cand / "nvcc").exists():
                return cand
    except ImportError:
        pass
    cand = pathlib.Path("/work/kvenv/lib/python3.11/site-packages/nvidia/cu13/bin")
    if (cand / "nvcc").exists():
        return cand
    sys.exit("gen_bugs: cannot find nvcc; pip install nvidia-cuda-nvcc or set TMEMU_CUDA_BIN")


def default_rewrite(text: str) -> str:
    """Standalone stand-in for kernels/regen.py's rewrite_paths (same results for the paths
    nvcc embeds): repo files become repo-relative, installed packages `<site-packages>/...`."""
    text = re.sub(r'"/[^"]*?/site-packages/', '"<site-packages>/', text)
    for root in sorted({str(REPO), str(REPO.resolve())}, key=len, reverse=True):
        text = text.replace(root + "/", "")
    return text


def normalise_file_directives(ptx: str) -> str:
    """`.file N "a/b/../c"` -> `.file N "a/c"`, before any path rewriting."""
    def norm(m: re.Match) -> str:
        return f'{m.group(1)}"{os.path.normpath(m.group(2))}"'
    return re.sub(r'^(\s*\.file\s+\d+\s+)"([^"]*)"', norm, ptx, flags=re.M)


# nvcc names internal-linkage symbols after the absolute path of the source
# (`_ZN58_INTERNAL_<hash>_27_<file>_cu_...` in the DWARF strings), so a checkout elsewhere would
# produce different bytes: every source is compiled from this one staging folder instead, and
# the PTX is the same from any worktree.
STAGE = pathlib.Path("/tmp/tmemu-gen-bugs")


def compile_variant(bin_dir: pathlib.Path, bug: Bug, fixed: bool,
                    rewrite: Callable[[str], str]) -> str:
    stage = STAGE / "kernels" / "bugs"
    stage.mkdir(parents=True, exist_ok=True)
    for f in [SRC / "bugs.cuh", SRC / f"{bug.name}.cu"]:
        shutil.copyfile(f, stage / f.name)
    src = stage / f"{bug.name}.cu"
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "k.ptx"
        subprocess.run([str(bin_dir / "nvcc"), *NVCC_FLAGS, f"-DTMEM_FIXED={int(fixed)}",
                        f"-I{stage}", str(src), "-o", str(out)], check=True, cwd=STAGE,
                       capture_output=True)
        staged = out.read_text().replace(f"{STAGE}/", "")
        ptx = rewrite(normalise_file_directives(staged))
        final = pathlib.Path(tmp) / "final.ptx"
        final.write_text(ptx)
        r = subprocess.run([str(bin_dir / "ptxas"), "-arch=sm_100a", str(final), "-o",
                            str(pathlib.Path(tmp) / "o.cubin")], capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"gen_bugs: ptxas rejects {bug.name} ({'fixed' if fixed else 'buggy'}):\n"
                     + r.stderr)
    if re.search(r'\.file\s+\d+\s+"/', ptx) or "/work/" in ptx:
        sys.exit(f"gen_bugs: absolute path left in {bug.name}")
    return ptx


def site_line(ptx: str, site: str, bug: str) -> int:
    lines = ptx.splitlines()
    if site == "exit":
        hits = [i for i, l in enumerate(lines, 1) if l.strip() == "ret;"]
    else:
        hits = [i for i, l in enumerate(lines, 1) if l.rstrip().endswith(f"// @site:{site}")]
    if len(hits) != 1:
        sys.exit(f"gen_bugs: {bug}: site {site!r} found {len(hits)} times (want exactly one)")
    return hits[0]


def first_instruction_line(ptx: str, needle: str, bug: str) -> int:
    hits = [i for i, l in enumerate(ptx.splitlines(), 1) if needle in l]
    if len(hits) != 1:
        sys.exit(f"gen_bugs: {bug}: {needle!r} found {len(hits)} times (want exactly one)")
    return hits[0]


def spec_text(bug: Bug, variant: str) -> str:
    lines = [f"# Launch spec for {variant}.ptx (shared/launch-spec.md). Generated by "
             "kernels/gen_bugs.py from kernels/bugs; do not edit.",
             f'ptx = "{variant}.ptx"', f'kernel = "{bug.name}"', f"grid = [{bug.grid}, 1, 1]",
             f"block = [{bug.block}, 1, 1]"]
    if bug.cluster:
        lines.append(f"cluster = [{bug.cluster}, 1, 1]")
    for a in bug.args:
        lines += ["", "[[arg]]", a]
    return "\n".join(lines) + "\n"


def toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def expected_text(bug: Bug, buggy_ptx: str, fixed_ptx: str) -> str:
    out = ["# What tmemu must report for this bug reproduction (format: tests/corpus/rules/"
           "README.md).", "# Generated by kernels/gen_bugs.py; lines are located by `// @site:` "
           "comments, never counted by hand.",
           f"bug = {toml_str(bug.name)}", f"source = {toml_str(bug.source)}",
           f"mechanism = {toml_str(bug.mechanism)}", ""]
    for variant, verdict in (("buggy", bug.buggy_verdict), ("fixed", "clean")):
        out += [f"[{variant}]", f'ptx = "{variant}.ptx"', f'spec = "{variant}.toml"',
                f'verdict = "{verdict}"', ""]
    out.append("# Every finding expected on buggy.ptx; fixed.ptx must be silent (no finding at all).")
    for f in bug.findings:
        line = site_line(buggy_ptx, f.site, bug.name)
        if f.instruction not in buggy_ptx.splitlines()[line - 1]:
            sys.exit(f"gen_bugs: {bug.name}: line {line} lacks {f.instruction!r}")
        out += ["[[finding]]"]
        if f.rule:
            out.append(f'rule = "{f.rule}"')
        out += [f'severity = "{f.severity}"', 'file = "buggy.ptx"', f"line = {line}",
                f"instruction = {toml_str(f.instruction)}"]
        if f.related:
            if f.related.startswith("@"):
                rel = first_instruction_line(buggy_ptx, "tcgen05." + f.related[1:], bug.name)
            else:
                rel = site_line(buggy_ptx, f.related, bug.name)
            out.append(f"related_line = {rel}")
        out.append("")
    return "\n".join(out)


def generate(out_root: pathlib.Path, rewrite_paths: Callable[[str], str] | None = None) -> None:
    """Writes out_root/<bug>/ for every bug (out_root = tests/corpus/bugs)."""
    rewrite = rewrite_paths or default_rewrite
    out_root = pathlib.Path(out_root)
    if out_root.exists():
        shutil.rmtree(out_root)
    bin_dir = find_cuda_bin()
    for bug in BUGS:
        d = out_root / bug.name
        d.mkdir(parents=True)
        buggy = compile_variant(bin_dir, bug, False, rewrite)
        fixed = compile_variant(bin_dir, bug, True, rewrite)
        for variant, text in (("buggy", buggy), ("fixed", fixed)):
            (d / f"{variant}.ptx").write_text(text)
            (d / f"{variant}.toml").write_text(spec_text(bug, variant))
        (d / "expected.toml").write_text(expected_text(bug, buggy, fixed))
    (out_root / "README.md").write_text(README)
    print(f"gen_bugs: {len(BUGS)} bug reproductions")


README = """# Bug reproductions

Each folder reproduces the *mechanism* of one public bug report in a small kernel of our own
(CUDA C++ with inline PTX in `kernels/bugs/<name>.cu`), compiled by `kernels/gen_bugs.py` with
the pinned nvcc into `buggy.ptx` (the bug) and `fixed.ptx` (the fix), with launch specs and
`expected.toml` (what tmemu must report; the fixed variant must be silent). Generated: do not
edit; run `python kernels/gen_bugs.py`. Validated by `tests/corpus/rules/check_corpus.py`.

| folder | report | expected on the buggy variant |
|---|---|---|
| pair_dealloc_before_peer_alloc | NVIDIA/cutlass#3435 | TM0201 at the collective dealloc |
| tmem_without_alloc | NVIDIA/cutlass#2230 | TM0105 at the tcgen05.st and at the tcgen05.ld |
| alloc_address_unsynchronised | NVIDIA/cutlass PR #2835 | TM0210 at the read of the address, related: the alloc |
| ld_stage_released_before_wait | flashinfer-ai/flashinfer#5334 | TM0205 at the producer's overwrite, related: the tcgen05.ld |
| expect_tx_overcount | tile-ai/tilelang#2644 | hang (TM0225) at the mbarrier.try_wait |
| missing_relinquish | NVIDIA/Fuser PR #3795 | note TM0019 at the exit, related: the alloc; verdict clean |
| aliased_tmem_store_races_load | facebookexperimental/triton#1993 (PR #1992) | TM0206 at the slow warp's tcgen05.ld, related: the aliasing tcgen05.st |
| mma_overwrites_tmem_in_use | facebookexperimental/triton#1996 (PR #2024) | TM0205 at the dq tcgen05.mma, related: the tcgen05.ld |
| named_barrier_undercount | Dao-AILab/quack PR #146 | hang (TM0504) at the epilogue warp's bar.sync |
| pair_dealloc_without_cluster_sync | facebookexperimental/triton#1694 (PR #1707) | TM0201 at the .cta_group::2 dealloc, related: the peer's tcgen05.ld |
| commit_arrival_after_inval | triton-lang/triton PR #10409 | TM0220 at the multicast tcgen05.commit (its arrive reaches the peer's invalidated barrier) |
| ncols_not_power_of_two_register | NVIDIA/Fuser PR #4152 | TM0001 at the alloc and the dealloc (nCols = 96 in a register) |
| tmem_ld_lane_bits_missing | deepseek-ai/DeepGEMM PR #341 | TM0103 at the tcgen05.ld (warps 1-3 address lane quarter 0) |
| ring_arrive_before_partition_waited | triton-lang/triton PR #10035 | hang (TM0225) at the late consumer warp's mbarrier.try_wait |
| stage_reused_wrong_parity | tile-ai/tilelang PR #3087 | TM0209 at the refilling cp.async.bulk, related: the tcgen05.mma; TM0232 at the commit that arrives in a phase no wait observed the predecessor of (and the consequences: TM0206, TM0204, TM0234 at the MMA whose operand reads the CTA's exit does not wait for, a TM0225 hang under immediate completion) |
| bulk_store_without_proxy_fence | MoonshotAI/FlashKDA#24 | TM0208 at the cp.async.bulk.global.shared::cta |
| mma_operand_without_proxy_fence | tile-ai/tilelang#2634 (PR #3139) | TM0208 at the tcgen05.mma |
| pair_commit_mask_wrong_pair | facebookexperimental/triton PR #783 | hang (TM0225) at the mbarrier.try_wait |
| mma_reads_tmem_before_store_sync | facebookexperimental/triton PR #1553 | TM0206 at the tcgen05.mma reading A from TMEM (related: the tcgen05.st) and TM0204 at the store (related: the MMA), by schedule |
| tmem_buffers_exceed_512_columns | tile-ai/tilelang#2827 (PR #2831) | hang (TM0020) at the second tcgen05.alloc (the CTA's first alloc holds all 512 columns) and at the publishing bar.sync |
| clc_cancel_after_failed_response | marin-community/marin#8870 (QuACK 0.6.1 tile scheduler) | TM0230 at the tail try_cancel, related: the is_canceled that observed the failure |
| clc_multicast_peer_reads_unwaited | facebookexperimental/triton PR #908 | TM0213 at rank 1's ld.shared.b128 of the multicast response, related: the try_cancel |
| tma_store_without_proxy_fence | inclusionAI/cuLA PR #114 | TM0208 at the cp.async.bulk.tensor store |
| cp_async_barrier_without_wait | NVIDIA/Fuser#3428 (PR #3438) | TM0213 at the ld.shared of the cp.async data |
| tcgen05_cp_overwrites_mma_operand | triton-lang/triton PR #8236 | TM0204 at the second tcgen05.cp, related: the first MMA |
| pair_ctas_store_same_tile | tile-ai/tilelang PR #2274 (review) | TM0212 at the epilogue st.global (both CTAs of the cluster store the one tile) |
| o_release_before_wait_ld | vllm-project/flash-attention PR #182 | TM0205 at the next tile's tcgen05.mma, related: the tcgen05.ld released before wait::ld |
| bulk_store_source_refilled | deepseek-ai/DeepEP#657 (PR #660) | TM0209 at the refilling cp.async.bulk, related: the bulk store still reading the stage |
| relaxed_cluster_arrive_publishes_nothing | sgl-project/sglang PR #38829 (review) | TM0211 at the ld.shared::cluster, related: rank 0's st.shared |
| relaxed_cluster_barrier_before_reuse | triton-lang/triton#11404 (PR #11462) | TM0211 at the st.shared reusing the scratch buffer, related: the peer's ld.shared::cluster |
| dsmem_copy_issued_per_warp | facebookexperimental/triton PR #1538 | TM0213 at the peer's ld.shared of the copied buffer, related: the per-warp bulk copy; hang (TM0225) at its try_wait and rank 0's final barrier.cluster.wait (immediate completion) |
| remote_store_before_peer_init | facebookexperimental/triton PR #2292 | TM0211 at the st.shared::cluster and at the peer's initialising st.shared (by schedule) |
| mbarrier_init_not_cluster_synced | facebookexperimental/triton PR #652 (PR #1240 the fence) | TM0214 at rank 1's mbarrier.arrive.shared::cluster on rank 0's barrier (and rank 0's on rank 1's), related: the peer's mbarrier.init, ordered only by a CTA-local bar.sync |
| cluster_exit_while_peer_reads | triton-lang/triton#11730 (PR #11731) | TM0231 at the ld.shared::cluster of the exited CTA's shared memory |
| local_arrive_on_remote_mbarrier | apache/tvm PR #20074 | TM0503 at the mbarrier.arrive.shared::cta on a peer address; hang (TM0225) at rank 1's try_wait and rank 0's final barrier.cluster.wait |
| dealloc_while_warps_use_tmem | triton-lang/triton PR #7994 | TM0204 at the tcgen05.dealloc, related: another warp's tcgen05.ld; TM0105 at the late warps' tcgen05.st/ld (by schedule) |
| ld_unwaited_before_dealloc | NVIDIA/cutlass PR #3652 (proposed) | TM0204 at the tcgen05.dealloc, related: the tcgen05.ld released before wait::ld |
| multicast_stage_reused_before_peer_release | inclusionAI/humming PR #56 | TM0213 at the peer's ld.shared of the stage, related: the multicast refill; hang (TM0225) at the peer's try_wait and the leader's final barrier.cluster.wait (by schedule) |
| mbarrier_init_by_every_thread | NVIDIA/Fuser#1552 (PR #1769) | TM0221 at the mbarrier.init executed by every thread; hang (TM0225) at the try_wait |
| bulk_store_source_rewritten_next_iteration | NVIDIA/Fuser PR #5448 | TM0209 at the next iteration's st.shared into the tile, related: the bulk store; TM0211 at the store, related: the st.shared (by schedule) |
| per_warp_arrivals_on_count_one_barrier | triton-lang/triton PR #8969 (review) | TM0232 at the per-warp mbarrier.arrive on a count-1 barrier; hang (TM0225) at the consumers' and the producer's try_wait |
| st_bulk_clear_without_barrier | tile-ai/tilelang PR #2700 (issues #2699, #2703) | TM0211 at warp 1's ld.shared and st.shared, related: thread 0's st.bulk; TM0211 at the st.bulk, related: the st.shared (by schedule) |
| aliased_scratch_overwrites_operand | sgl-project/sglang PR #37287 | TM0211 at the partial-sum st.shared, related: the operand ld.shared, and at the read, related: the store (by schedule) |
| mbarrier_inval_before_last_wait | NVIDIA/Fuser PR #1663 | TM0220 at warp 1's try_wait on the invalidated barrier; hang (TM0225) at that try_wait and at warp 0's bar.sync |
| loop_buffer_rewritten_before_lagging_read | sgl-project/sglang PR #37288 | TM0211 at the next iteration's st.shared, related: the lagging ld.shared, and at the read, related: the store (by schedule) |
| mbarrier_reused_without_inval | triton-lang/triton PR #3858 | TM0233 at the st.shared that reuses a still-valid mbarrier's bytes as scratch |
| cta_scope_arrive_on_peer_barrier | NVIDIA/cutlass PR #3647 (issue #3643; cutlass#3324 the same class) | TM0211 at the leader's ld.shared::cluster, related: the peer's st.shared published only by an mbarrier.arrive.release.cta on the leader's barrier |
| pair_cp_reads_unwaited_peer_stage | NVIDIA/cutlass#3643 (PR #3647) | TM0213 at the leader's .cta_group::2 tcgen05.cp, related: the peer's unwaited bulk copy into the stage it reads; TM0209 at the copy, related: the tcgen05.cp (by schedule) |
| bulk_store_released_after_read_wait | triton-lang/triton PR #10415 (HazyResearch/ThunderKittens#194) | TM0213 at the consumer's ld.global of the tile, related: the bulk store waited only with wait_group.read before the flag's release |
| remote_arrive_by_every_lane | triton-lang/triton PR #9498 (review) | TM0232 at the mbarrier.arrive.shared::cluster executed by 32 lanes on a count-1 peer barrier; hang (TM0225) at the try_wait and the final bar.sync |
| aligned_barrier_split_roles | mlc-ai/TIRx-kernels PR #21 (PR #66) | TM0507 at the bar.sync that joins a barrier instance whose first participant executed the other role's bar.sync (either site, by schedule) |
| named_barrier_id_collision | flashinfer-ai/flashinfer PR #4533 (tile-ai/tilelang PR #2360 review) | TM0211 at the ld.shared of another warp's partial, related: its st.shared, and at the store, related: the read (by schedule): two warpgroups' reductions share bar.sync id 1 |
| fresh_barrier_wait_parity_one | tile-ai/tilelang#2927 | hang (TM0225) at the try_wait on parity 1 of a barrier whose only phase is 0 (tmemu completes the copy at issue; on hardware the wait may also return at once and the read race the copy) |
| tile_info_mailbox_without_ack | NVlabs/cuda-oxide PR #1066 | TM0211 at the scheduler's st.shared of the next tile's info, related: the epilogue warp's ld.shared (the mailbox has no free barrier) |
| persistent_rendezvous_parity_zero | facebookexperimental/triton PR #3420 | TM0232 at the leader's release arrive on the peer's empty barrier (its wait on parity 0 returned at once on tile 1); hang (TM0225) at the peer's try_wait and the leader's barrier.cluster.wait |
| named_barrier_arrive_runahead | flashinfer-ai/flashinfer PR #4732 (issue #3700) | TM0512 at the producer's second bar.arrive on barrier 1 before the instance its first one joined completed; hang (TM0504) at the consumer's bar.sync |
| phase_flipped_on_empty_tile | Dao-AILab/flash-attention PR #2258 | TM0232 at the consumer's release arrive after its phase flipped on an empty tile (its wait returned at once); hang (TM0225) at the producer's try_wait |
| operand_tile_overwritten_next_k_step | pytorch/helion PR #2975 | TM0211 at the next K step's st.shared of the operand tile, related: a lagging warp's ld.shared, and at the read, related: the store (by schedule) |
| multicast_bytes_missing_from_receiver_expect_tx | flashinfer-ai/flashinfer-bench PR #183 (review) | TM0211 at rank 0's multicast cp.async.bulk, related: rank 1's ld.shared of B (its phase completed on A alone), and TM0213 at rank 1's ld.shared of A, related: its A copy (the phase completed on B's bytes), by schedule |
| bulk_store_wait_after_stage_rewrite | flashinfer-ai/flashinfer PR #4576 (review) | TM0209 at the st.shared rewriting a double-buffered output stage, related: the bulk store from two iterations back (its wait_group.read comes after the writes) |
| splitk_ticket_without_threadfence | pytorch/pytorch PR #128455 (NVIDIA/Fuser PR #2391; CUDA's threadFenceReduction sample) | TM0212 at the last CTA's ld.global of the partials, related: another CTA's partial st.global (no membar.gl around the ticket; bar.sync cannot order two clusters) |
| splitk_ticket_cta_scope | NVIDIA/cudf PR #16051 | TM0212 at the last CTA's ld.global of the partials, related: another CTA's partial st.global (fences present, the ticket atom.relaxed.cta is not morally strong across CTAs), and at the ticket, related: another CTA's ticket (two .cta atomics of different CTAs are a data race) |
| splitk_ticket_relaxed | flashinfer-ai/flashinfer PR #4742 (review) | TM0212 at the last CTA's ld.global of the partials, related: another CTA's partial st.global, and at the counter's reset st.global, related: another CTA's atom.relaxed.gpu ticket (Triton's sem="relaxed" instead of the default acq_rel) |
| bulk_store_wait_not_handed_off | NVIDIA/TransformerEngine PR #3417 (issue #3474) | TM0209 at warp 1's st.shared of the next tile, related: the leader's bulk store (every thread executes wait_group.read, only the issuer's waits, no barrier hands it on); TM0211 at the store, related: the st.shared (by schedule) |
| tma_load_overwrites_tile_metadata | NVIDIA/TransformerEngine PR #3483 (issue #3474) | TM0211 at the bulk copy into the buffer that holds the per-expert metadata, related: a late warp's ld.shared of it; TM0213 at that ld.shared, related: the copy (by schedule) |
| setmaxnreg_inc_without_dec | pytorch/helion PR #3620 (tile-ai/tilelang PR #2406) | hang (TM0513) at the compute warpgroups' setmaxnreg.inc (the CTA's register pool stays empty: nobody decreases) and at the others' bar.sync |
| setmaxnreg_min_blocks_halves_pool | tile-ai/tilelang#2559 | hang (TM0513) at the consumer's setmaxnreg.inc 240 and the producer's bar.sync: min_blocks_per_sm = 2 starts every thread at 128 registers, so the producer's .dec 24 releases less than the increase needs |
| histogram_flush_block_scope | ComputationalRadiationPhysics/picongpu PR #2231 | TM0212 at the flush of the shared-memory histogram into the global one with atomicAdd_block (red.relaxed.cta.global.add), related: another CTA's flush (not morally strong; with or without `--sms 1`); the shared-memory bins' atomicAdd_block stays silent |

A hang finding carries the rule of the hang report (TM0020 allocator, TM0225 mbarrier, TM0504
barrier, TM0513 setmaxnreg); its severity is `hang`.
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary folder and compare with tests/corpus/bugs")
    args = ap.parse_args()
    if not args.check:
        generate(OUT)
        return 0
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d) / "bugs"
        generate(tmp)
        a = {p.relative_to(OUT) for p in OUT.rglob("*") if p.is_file()}
        b = {p.relative_to(tmp) for p in tmp.rglob("*") if p.is_file()}
        diffs = [f"only in one: {p}" for p in sorted(a ^ b)]
        diffs += [f"differs: {p}" for p in sorted(a & b)
                  if (OUT / p).read_bytes() != (tmp / p).read_bytes()]
    if diffs:
        print("gen_bugs --check: not reproduced byte for byte:", *diffs, sep="\n  ")
        return 1
    print("gen_bugs --check: reproduced byte for byte")
    return 0


if __name__ == "__main__":
    sys.exit(main())
