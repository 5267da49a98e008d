"""Holdout batch 8, CuTe DSL: a **block-scaled** (MXFP8) GEMM, the first CuTe DSL kernel in the
corpus whose scale factors go through `tcgen05.cp` into TMEM (CUTLASS C++ and Gluon had them).

C = (A * SFA) @ (B * SFB)^T with A (M, K) and B (N, K) e4m3, both K-major, and one ue8m0 scale
per 32 K per row (`MmaMXF8F6F4Op` via `make_blockscaled_trivial_tiled_mma`:
`tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale`). One CTA per 128x128 tile, 128-deep K
tiles through a 2-stage ring: warp 0 loads A, B and the two scale chunks by TMA, then (the same
thread) copies the stage's scales from shared memory into TMEM with
`tcgen05.cp.cta_group::1.32x128b.warpx4` and issues the stage's 4 MMAs with the SF TMEM
addresses set per K block. Each stage has its own TMEM scale columns: a copy into them is
ordered after the MMAs that last read them by the ring's empty barrier (those MMAs' commit ->
the producer's wait -> the TMA -> the full barrier -> the copy), not by issue order alone.

Scale factors: CuTe's block-scale layout (`BlockScaledBasicChunk`, the tcgen05 scale atom)
makes every 128-row x 128-K block of a scale matrix one contiguous 512-byte chunk, byte
(r % 32) * 16 + (r / 32) * 4 + k / 32 for row r and K offset k in the block, chunks in
(row block, K block) order. The kernel takes the scales as those chunks, viewed as u16 rows of
256 (a 512-byte TMA box, as CUTLASS moves scale factors with 16-bit TMA elements), and the
shared stage holds the chunk in the layout `make_smem_layout_sfa/sfb` gives.
"""
import os
import re
from pathlib import Path

import numpy as np

import cutlass
import cutlass.cute as cute
import cutlass.pipeline as pipeline
import cutlass.utils.blackwell_helpers as sm100_utils
import cutlass.utils.blockscaled_layout as bs_utils
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, tcgen05
from cutlass.cute.runtime import make_fake_compact_tensor
from cutlass.memory import SmemAllocator, TmemAllocator

from regen import (Case, CuteKernel, Input, Output, Packed, TensorMapArg, _e4m3_table,
                   e8m0_to_f64)

THREADS = 128
STAGES = 2
BM, BN, BK = 128, 128, 128
SF_VEC = 32
CHUNK16 = 256  # one 512-byte scale chunk as u16


@cute.struct
class Barriers:
    load: cute.struct.MemRange[cutlass.Int64, STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_addr: cutlass.Int32


@cute.kernel
def mxf8_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor,
                tma_b: cute.CopyAtom, mB: cute.Tensor, tma_sfa: cute.CopyAtom,
                mSFA: cute.Tensor, tma_sfb: cute.CopyAtom, mSFB: cute.Tensor, mC: cute.Tensor,
                sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout,
                sSFA_layout: cute.Layout, sSFB_layout: cute.Layout, k_tiles: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, by, _ = cute.arch.block_idx()
    tiler = (BM, BN, BK)
    coord = (bx, by, None)

    smem = SmemAllocator()
    bars = smem.allocate(Barriers)
    sA = smem.allocate_tensor(element_type=cutlass.Float8E4M3FN, layout=sA_layout.outer,
                              byte_alignment=1024, swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=cutlass.Float8E4M3FN, layout=sB_layout.outer,
                              byte_alignment=1024, swizzle=sB_layout.inner)
    sSFA = smem.allocate_tensor(element_type=cutlass.Float8E8M0FNU, layout=sSFA_layout,
                                byte_alignment=128)
    sSFB = smem.allocate_tensor(element_type=cutlass.Float8E8M0FNU, layout=sSFB_layout,
                                byte_alignment=128)
    # the TMA's view of the same bytes: one 256 x u16 chunk per stage
    sSFA16 = cute.make_tensor(cute.recast_ptr(sSFA.iterator, dtype=cutlass.Uint16),
                              cute.make_layout((CHUNK16, STAGES)))
    sSFB16 = cute.make_tensor(cute.recast_ptr(sSFB.iterator, dtype=cutlass.Uint16),
                              cute.make_layout((CHUNK16, STAGES)))

    if warp == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)
        cpasync.prefetch_descriptor(tma_sfa)
        cpasync.prefetch_descriptor(tma_sfb)

    stage_bytes = (cute.size_in_bytes(cutlass.Float8E4M3FN, cute.select(sA_layout, mode=[0, 1, 2]))
                   + cute.size_in_bytes(cutlass.Float8E4M3FN,
                                        cute.select(sB_layout, mode=[0, 1, 2]))
                   + 2 * 2 * CHUNK16)
    load_prod, load_cons = pipeline.PipelineTmaUmma.create(
        num_stages=STAGES, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 1),
        tx_count=stage_bytes, barrier_storage=bars.load.data_ptr(),
        cta_layout_vmnk=cute.make_layout((1, 1, 1, 1))).make_participants()
    acc_prod, acc_cons = pipeline.PipelineUmmaAsync.create(
        num_stages=1, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, THREADS),
        barrier_storage=bars.acc.data_ptr(),
        cta_layout_vmnk=cute.make_layout((1, 1, 1, 1))).make_participants()

    gA = cute.local_tile(mA, tiler, coord, proj=(1, None, 1))
    gB = cute.local_tile(mB, tiler, coord, proj=(None, 1, 1))
    gC = cute.local_tile(mC, tiler, coord, proj=(1, 1, None))
    # scale chunks of this tile's row blocks: (u16, K tile)
    gSFA = cute.local_tile(mSFA, (CHUNK16, 1), (0, None))[(None, 0, None)]
    gSFB = cute.local_tile(mSFB, (CHUNK16, 1), (0, None))[(None, 0, None)]
    thr_mma = mma.get_slice(0)
    tCgA = thr_mma.partition_A(gA)
    tCgB = thr_mma.partition_B(gB)
    tCgC = thr_mma.partition_C(gC)
    tCrA = mma.make_fragment_A(sA)
    tCrB = mma.make_fragment_B(sB)
    acc_proto = mma.make_fragment_C(mma.partition_shape_C(tiler[:2]))
    tAsA, tAgA = cpasync.tma_partition(tma_a, 0, cute.make_layout(1),
                                       cute.group_modes(sA, 0, 3), cute.group_modes(tCgA, 0, 3))
    tBsB, tBgB = cpasync.tma_partition(tma_b, 0, cute.make_layout(1),
                                       cute.group_modes(sB, 0, 3), cute.group_modes(tCgB, 0, 3))
    tSs_a, tSg_a = cpasync.tma_partition(tma_sfa, 0, cute.make_layout(1),
                                         cute.group_modes(sSFA16, 0, 1),
                                         cute.group_modes(gSFA, 0, 1))
    tSs_b, tSg_b = cpasync.tma_partition(tma_sfb, 0, cute.make_layout(1),
                                         cute.group_modes(sSFB16, 0, 1),
                                         cute.group_modes(gSFB, 0, 1))

    tmem = TmemAllocator(bars.tmem_addr,
                         barrier_for_retrieve=pipeline.NamedBarrier(barrier_id=1,
                                                                    num_threads=THREADS))
    tmem.allocate(256)
    tmem.wait_for_alloc()
    acc_ptr = tmem.retrieve_ptr(cutlass.Float32)
    acc = cute.make_tensor(acc_ptr, acc_proto.layout)
    sfa_tl = bs_utils.make_tmem_layout_sfa(mma, tiler, SF_VEC,
                                           cute.slice_(sSFA_layout, (None, None, None, 0)))
    sfb_tl = bs_utils.make_tmem_layout_sfb(mma, tiler, SF_VEC,
                                           cute.slice_(sSFB_layout, (None, None, None, 0)))
    col0 = tcgen05.find_tmem_tensor_col_offset(acc)
    tSFA_probe = cute.make_tensor(cute.recast_ptr(acc_ptr + col0, dtype=cutlass.Float8E8M0FNU),
                                  sfa_tl)
    sfa_cols = tcgen05.find_tmem_tensor_col_offset(tSFA_probe)
    tSFB_probe = cute.make_tensor(cute.recast_ptr(acc_ptr + col0 + sfa_cols,
                                                  dtype=cutlass.Float8E8M0FNU), sfb_tl)
    sfb_cols = tcgen05.find_tmem_tensor_col_offset(tSFB_probe)
    # stage s of the scales: SFA at col0 + s * (sfa + sfb columns), SFB right after it
    per_stage = sfa_cols + sfb_cols

    s2t_atom = cute.make_copy_atom(tcgen05.Cp4x32x128bOp(tcgen05.CtaGroup.ONE),
                                   cutlass.Float8E8M0FNU)

    if warp == 0:
        acc_prod.acquire_and_advance()
        for _ in cutlass.range(k_tiles):
            slot = load_prod.acquire_and_advance()
            cute.copy(tma_a, tAgA[(None, slot.count)], tAsA[(None, slot.index)],
                      tma_bar_ptr=slot.barrier)
            cute.copy(tma_b, tBgB[(None, slot.count)], tBsB[(None, slot.index)],
                      tma_bar_ptr=slot.barrier)
            # chunk (row block, K tile) of SFA / SFB
            cute.copy(tma_sfa, tSg_a[(None, bx * k_tiles + slot.count)],
                      tSs_a[(None, slot.index)], tma_bar_ptr=slot.barrier)
            cute.copy(tma_sfb, tSg_b[(None, by * k_tiles + slot.count)],
                      tSs_b[(None, slot.index)], tma_bar_ptr=slot.barrier)
            full = load_cons.wait_and_advance()
            base = acc_ptr + col0 + full.index * per_stage
            tSFA = cute.make_tensor(cute.recast_ptr(base, dtype=cutlass.Float8E8M0FNU), sfa_tl)
            tSFB = cute.make_tensor(cute.recast_ptr(base + sfa_cols,
                                                    dtype=cutlass.Float8E8M0FNU), sfb_tl)
            for src, dst in ((sSFA, tSFA), (sSFB, tSFB)):
                s_c = cute.filter_zeros(src)
                t_c = cute.filter_zeros(dst)
                s2t = tcgen05.make_s2t_copy(s2t_atom, t_c)
                thr = s2t.get_slice(0)
                s_desc = tcgen05.get_s2t_smem_desc_tensor(s2t, thr.partition_S(s_c))
                cute.copy(s2t, s_desc[(None, None, None, None, full.index)],
                          thr.partition_D(t_c))
            for kb in cutlass.range_constexpr(cute.size(tCrA, mode=[2])):
                mma.set(tcgen05.Field.SFA, tSFA[(None, None, kb)].iterator)
                mma.set(tcgen05.Field.SFB, tSFB[(None, None, kb)].iterator)
                cute.gemm(mma, acc, tCrA[(None, None, kb, full.index)],
                          tCrB[(None, None, kb, full.index)], acc)
                mma.set(tcgen05.Field.ACCUMULATE, True)
            full.release()
        acc_prod.commit()
    tmem.relinquish_alloc_permit()

    ld = tcgen05.make_tmem_copy(
        cute.make_copy_atom(tcgen05.Ld32x32bOp(tcgen05.Repetition.x32), cutlass.Float32), acc)
    ld_thr = ld.get_slice(tidx)
    tDtAcc = ld_thr.partition_S(acc)
    tDgC = ld_thr.partition_D(tCgC)
    full_acc = acc_cons.wait_and_advance()
    r_acc = cute.make_rmem_tensor(tDgC.shape, cutlass.Float32)
    cute.copy(ld, tDtAcc, r_acc)
    cute.arch.fence_view_async_tmem_load()
    cute.autovec_copy(r_acc, tDgC)
    full_acc.release()

    if warp == 0:
        load_prod.tail()
        acc_prod.tail()
    pipeline.sync(barrier_id=1)
    tmem.free(acc.iterator)


@cute.jit
def mxf8_gemm(a: cute.Tensor, b: cute.Tensor, sfa: cute.Tensor, sfb: cute.Tensor,
              c: cute.Tensor):
    tiler = (BM, BN, BK)
    mma = sm100_utils.make_blockscaled_trivial_tiled_mma(
        cutlass.Float8E4M3FN, cutlass.Float8E4M3FN, OperandMajorMode.K, OperandMajorMode.K,
        cutlass.Float8E8M0FNU, SF_VEC, tcgen05.CtaGroup.ONE, (BM, BN))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, STAGES)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, STAGES)
    sSFA_layout = bs_utils.make_smem_layout_sfa(mma, tiler, SF_VEC, STAGES)
    sSFB_layout = bs_utils.make_smem_layout_sfb(mma, tiler, SF_VEC, STAGES)
    g2s = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        g2s, a, cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        g2s, b, cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    chunk = cute.make_layout((CHUNK16, 1))
    plain = cpasync.CopyBulkTensorTileG2SOp()
    tma_sfa, tma_tensor_sfa = cpasync.make_tiled_tma_atom(plain, sfa, chunk, (CHUNK16, 1))
    tma_sfb, tma_tensor_sfb = cpasync.make_tiled_tma_atom(plain, sfb, chunk, (CHUNK16, 1))
    k_tiles = a.layout.shape[1] // BK
    grid = cute.ceil_div((*c.layout.shape, 1), (BM, BN))
    mxf8_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, tma_sfa, tma_tensor_sfa,
                tma_sfb, tma_tensor_sfb, c, sA_layout, sB_layout, sSFA_layout, sSFB_layout,
                k_tiles).launch(grid=grid, block=(THREADS, 1, 1), cluster=(1, 1, 1))


SHAPE = (256, 256, 384)


def _build(tmp: Path):
    dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
    for old in dump.glob("*"):
        old.unlink()
    M, N, K = SHAPE
    f8 = cutlass.Float8E4M3FN
    a = make_fake_compact_tensor(f8, (M, K), stride_order=(1, 0), assumed_align=16)
    b = make_fake_compact_tensor(f8, (N, K), stride_order=(1, 0), assumed_align=16)
    # scale chunks as (u16 within the chunk, chunk): column-major so a chunk is contiguous
    sfa = make_fake_compact_tensor(cutlass.Uint16, (CHUNK16, M // 128 * K // BK),
                                   stride_order=(0, 1), assumed_align=16)
    sfb = make_fake_compact_tensor(cutlass.Uint16, (CHUNK16, N // 128 * K // BK),
                                   stride_order=(0, 1), assumed_align=16)
    c = make_fake_compact_tensor(cutlass.Float32, (M, N), stride_order=(1, 0), assumed_align=16)
    compiled = cute.compile(mxf8_gemm, a, b, sfa, sfb, c)
    mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
    ptx = compiled.artifacts.PTX
    if not ptx or not ptx.lstrip().startswith("//"):
        raise SystemExit("ho8_cute_mxf8: no PTX kept (CUTE_DSL_KEEP=ptx?)")
    boxes = sorted(set(re.findall(r'tma_gbasis = <"\(([^"]*)\):', mlir)))
    smem = re.findall(r"llvm.mlir.constant\((\d+) : i64\)", str(compiled.ir_module))
    launch = dict(block=[THREADS, 1, 1], cluster=[1, 1, 1], boxes=boxes, smem_candidates=smem,
                  arg_names=["mma", "tma_a", "tma_b", "tma_sfa", "tma_sfb", "c"])
    # barriers at 0, A and B stages 1024-aligned, then the two scale stages (128-aligned)
    launch["shared"] = 1024 + (BM + BN) * BK * STAGES + 2 * 512 * STAGES
    if str(launch["shared"]) not in smem:
        raise SystemExit(f"ho8_cute_mxf8: expected {launch['shared']} bytes of dynamic shared "
                         f"memory; candidates {smem[:20]}; boxes {boxes}")
    return ptx, launch


def _sf_chunks(s):
    """[rows, K/32] ue8m0 scales -> the 512-byte chunks of CuTe's scale layout, in (row block,
    K block) order, as u16 pairs (little-endian), shaped (chunks, 256)."""
    rows, kb = s.shape
    out = np.zeros((rows // 128, kb // 4, 512), dtype=np.uint8)
    for r in range(rows):
        for j in range(kb):
            out[r // 128, j // 4, (r % 32) * 16 + ((r % 128) // 32) * 4 + j % 4] = s[r, j]
    return out.reshape(-1, 512).view(np.uint16)


def _cases(launch):
    M, N, K = SHAPE
    rng = np.random.default_rng(8401)
    table = _e4m3_table()
    code = {float(v): i for i, v in reversed(list(enumerate(table))) if not np.isnan(v)}
    # multiples of 1/4 in [-2, 2] (e4m3-exact) and scales 2^-2..2^2: every scaled product is a
    # multiple of 2^-8 below 2^6 and |sums| < 384 * 64: exact in f32 (at most 23 bits)
    a = rng.integers(-8, 9, size=(M, K)) / 4
    b = rng.integers(-8, 9, size=(N, K)) / 4
    sa = rng.integers(125, 130, size=(M, K // SF_VEC)).astype(np.uint8)
    sb = rng.integers(125, 130, size=(N, K // SF_VEC)).astype(np.uint8)
    enc = np.vectorize(lambda v: code[float(v)])
    a_s = a * np.repeat(e8m0_to_f64(sa), SF_VEC, axis=1)
    b_s = b * np.repeat(e8m0_to_f64(sb), SF_VEC, axis=1)
    expected = (a_s @ b_s.T).astype(np.float32)
    why = ("e4m3 inputs on a 1/4 grid times ue8m0 scales 2^-2..2^2: products multiples of 2^-8 "
           "below 2^6, |sums| < 2^15: every partial sum exact in f32: exact")
    # The block-scaled TiledMma struct (.align 4 .b8 [12]): three i1 flags at bytes 0..2, then
    # the SFA and SFB TMEM addresses (i32 at 4 and 8), all zero at launch: the kernel sets
    # accumulate and both addresses before every MMA.
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u32": 0}]
    args = dict(
        mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the SFA and SFB TMEM addresses, "
                               "all zero"),
        tma_a=TensorMapArg("a", box=[BK, BM], swizzle="128B"),
        tma_b=TensorMapArg("b", box=[BK, BN], swizzle="128B"),
        tma_sfa=TensorMapArg("sfa", box=[CHUNK16, 1], swizzle="none"),
        tma_sfb=TensorMapArg("sfb", box=[CHUNK16, 1], swizzle="none"),
        c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"))
    return [Case("ho8_cute_mxf8", grid=[M // BM, N // BN],
                 buffers=dict(a=Input(enc(a).astype(np.uint8), "fp8e4m3"),
                              b=Input(enc(b).astype(np.uint8), "fp8e4m3"),
                              sfa=Input(_sf_chunks(sa), "u16"), sfb=Input(_sf_chunks(sb), "u16"),
                              c=Output("f32", [M, N], expected, 0.0, 0.0, why)),
                 args=args,
                 note=f"C[{M}x{N}] = (A*SFA)[{M}x{K}] @ (B*SFB)[{N}x{K}]^T, MXFP8 (e4m3, ue8m0 "
                      "scales per 32 K), CuTe DSL kind::mxf8f6f4.block_scale, 128x128x128 tiles, "
                      "2 stages; scales by TMA as 512-byte chunks of CuTe's scale layout (u16 "
                      "rows of 256), into TMEM by tcgen05.cp.32x128b.warpx4 (per-stage scale "
                      "columns), f32 out")]


KERNELS = [
    CuteKernel(name="ho8_cute_mxf8", build=_build, cases=_cases,
               must_contain=("kind::mxf8f6f4.block_scale", "tcgen05.cp.cta_group::1",
                             "cp.async.bulk.tensor")),
]
