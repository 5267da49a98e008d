"""Holdout batch 16, CuTe DSL: an **NVFP4** GEMM, the first CuTe DSL kernel whose operands are
4-bit (`Float4E2M1FN`) and whose scale factors are **ue4m3 per 16 K**
(`make_blockscaled_trivial_tiled_mma(Float4E2M1FN, ..., Float8E4M3FN, 16)`:
`tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16`; earlier NVFP4 MMAs came from
Triton's `dot_scaled` with scales put into TMEM by `tcgen05.st`, and from hand-written nvcc).

C = (A * SFA) @ (B * SFB)^T with A (M, K) and B (N, K) e2m1 packed two per byte along K (element
2i in the low nibble), both K-major, loaded by TMA through **4-bit packed tensor maps**
(CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B, `b4x16` in the spec: dims counted in nibbles), one CTA
per 128x128 tile, 128-deep K tiles (two MMAs of K = 64 each) through a 2-stage ring. Warp 0
loads A, B and the stage's scales by TMA, copies the scales from shared memory into TMEM with
`tcgen05.cp.cta_group::1.32x128b.warpx4` and issues the MMAs with the SF TMEM addresses set per
K block, as in `cute_ho8_mxf8.py` (batch 8, MXFP8), whose machinery this kernel shares.

Scale factors: CuTe's block-scale layout makes every 128-row x (4 scales) block one contiguous
512-byte chunk, byte (r % 32) * 16 + (r / 32) * 4 + j for row r and scale j of the block; with
16-K scales a 128-deep K tile has **two chunks per row block** (batch 8's MXFP8 had one), which
the kernel loads as one 2-D TMA box of (256 x u16, 2 chunks).
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

from regen import Case, CuteKernel, Input, Output, Packed, TensorMapArg, _e4m3_table

THREADS = 128
STAGES = 2
BM, BN, BK = 128, 128, 128
SF_VEC = 16
CHUNK16 = 256  # one 512-byte scale chunk as u16
CPS = BK // (4 * SF_VEC)  # scale chunks per K tile (4 scales of 16 K per row in a chunk): 2


@cute.struct
class Barriers:
    load: cute.struct.MemRange[cutlass.Int64, STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_addr: cutlass.Int32


@cute.kernel
def nvfp4_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor,
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
    sA = smem.allocate_tensor(element_type=cutlass.Float4E2M1FN, layout=sA_layout.outer,
                              byte_alignment=1024, swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=cutlass.Float4E2M1FN, layout=sB_layout.outer,
                              byte_alignment=1024, swizzle=sB_layout.inner)
    sSFA = smem.allocate_tensor(element_type=cutlass.Float8E4M3FN, layout=sSFA_layout,
                                byte_alignment=128)
    sSFB = smem.allocate_tensor(element_type=cutlass.Float8E4M3FN, layout=sSFB_layout,
                                byte_alignment=128)
    # the TMA's view of the same bytes: one 256 x u16 chunk per stage
    sSFA16 = cute.make_tensor(cute.recast_ptr(sSFA.iterator, dtype=cutlass.Uint16),
                              cute.make_layout((CHUNK16, CPS, STAGES)))
    sSFB16 = cute.make_tensor(cute.recast_ptr(sSFB.iterator, dtype=cutlass.Uint16),
                              cute.make_layout((CHUNK16, CPS, STAGES)))

    if warp == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)
        cpasync.prefetch_descriptor(tma_sfa)
        cpasync.prefetch_descriptor(tma_sfb)

    stage_bytes = (cute.size_in_bytes(cutlass.Float4E2M1FN, cute.select(sA_layout, mode=[0, 1, 2]))
                   + cute.size_in_bytes(cutlass.Float4E2M1FN,
                                        cute.select(sB_layout, mode=[0, 1, 2]))
                   + 2 * 2 * CHUNK16 * CPS)
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
    gSFA = cute.local_tile(mSFA, (CHUNK16, CPS), (0, None))
    gSFB = cute.local_tile(mSFB, (CHUNK16, CPS), (0, None))
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
                                         cute.group_modes(sSFA16, 0, 2),
                                         cute.group_modes(gSFA, 0, 2))
    tSs_b, tSg_b = cpasync.tma_partition(tma_sfb, 0, cute.make_layout(1),
                                         cute.group_modes(sSFB16, 0, 2),
                                         cute.group_modes(gSFB, 0, 2))

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
    tSFA_probe = cute.make_tensor(cute.recast_ptr(acc_ptr + col0, dtype=cutlass.Float8E4M3FN),
                                  sfa_tl)
    sfa_cols = tcgen05.find_tmem_tensor_col_offset(tSFA_probe)
    tSFB_probe = cute.make_tensor(cute.recast_ptr(acc_ptr + col0 + sfa_cols,
                                                  dtype=cutlass.Float8E4M3FN), sfb_tl)
    sfb_cols = tcgen05.find_tmem_tensor_col_offset(tSFB_probe)
    # stage s of the scales: SFA at col0 + s * (sfa + sfb columns), SFB right after it
    per_stage = sfa_cols + sfb_cols

    s2t_atom = cute.make_copy_atom(tcgen05.Cp4x32x128bOp(tcgen05.CtaGroup.ONE),
                                   cutlass.Float8E4M3FN)

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
            tSFA = cute.make_tensor(cute.recast_ptr(base, dtype=cutlass.Float8E4M3FN), sfa_tl)
            tSFB = cute.make_tensor(cute.recast_ptr(base + sfa_cols,
                                                    dtype=cutlass.Float8E4M3FN), sfb_tl)
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
def nvfp4_gemm(a: cute.Tensor, b: cute.Tensor, sfa: cute.Tensor, sfb: cute.Tensor,
              c: cute.Tensor):
    tiler = (BM, BN, BK)
    mma = sm100_utils.make_blockscaled_trivial_tiled_mma(
        cutlass.Float4E2M1FN, cutlass.Float4E2M1FN, OperandMajorMode.K, OperandMajorMode.K,
        cutlass.Float8E4M3FN, SF_VEC, tcgen05.CtaGroup.ONE, (BM, BN))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, STAGES)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, STAGES)
    sSFA_layout = bs_utils.make_smem_layout_sfa(mma, tiler, SF_VEC, STAGES)
    sSFB_layout = bs_utils.make_smem_layout_sfb(mma, tiler, SF_VEC, STAGES)
    g2s = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        g2s, a, cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        g2s, b, cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    chunk = cute.make_layout((CHUNK16, CPS))
    plain = cpasync.CopyBulkTensorTileG2SOp()
    tma_sfa, tma_tensor_sfa = cpasync.make_tiled_tma_atom(plain, sfa, chunk, (CHUNK16, CPS))
    tma_sfb, tma_tensor_sfb = cpasync.make_tiled_tma_atom(plain, sfb, chunk, (CHUNK16, CPS))
    k_tiles = a.layout.shape[1] // BK
    grid = cute.ceil_div((*c.layout.shape, 1), (BM, BN))
    nvfp4_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, tma_sfa, tma_tensor_sfa,
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


SHAPE = (256, 128, 384)


def _build(tmp: Path):
    dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
    for old in dump.glob("*"):
        old.unlink()
    M, N, K = SHAPE
    f4 = cutlass.Float4E2M1FN
    a = make_fake_compact_tensor(f4, (M, K), stride_order=(1, 0), assumed_align=16)
    b = make_fake_compact_tensor(f4, (N, K), stride_order=(1, 0), assumed_align=16)
    # scale chunks as (u16 within the chunk, chunk): column-major so a chunk is contiguous
    sfa = make_fake_compact_tensor(cutlass.Uint16, (CHUNK16, M // 128 * K // (4 * SF_VEC)),
                                   stride_order=(0, 1), assumed_align=16)
    sfb = make_fake_compact_tensor(cutlass.Uint16, (CHUNK16, N // 128 * K // (4 * SF_VEC)),
                                   stride_order=(0, 1), assumed_align=16)
    c = make_fake_compact_tensor(cutlass.Float32, (M, N), stride_order=(1, 0), assumed_align=16)
    compiled = cute.compile(nvfp4_gemm, a, b, sfa, sfb, c)
    mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
    ptx = compiled.artifacts.PTX
    if not ptx or not ptx.lstrip().startswith("//"):
        raise SystemExit("ho16_cute_nvfp4: no PTX kept (CUTE_DSL_KEEP=ptx?)")
    boxes = sorted(set(re.findall(r'tma_gbasis = <"\(([^"]*)\):', mlir)))
    smem = re.findall(r"llvm.mlir.constant\((\d+) : i64\)", str(compiled.ir_module))
    launch = dict(block=[THREADS, 1, 1], cluster=[1, 1, 1], boxes=boxes, smem_candidates=smem,
                  arg_names=["mma", "tma_a", "tma_b", "tma_sfa", "tma_sfb", "c"])
    # barriers at 0, A and B stages (4-bit) 1024-aligned, then the two scale stages
    launch["shared"] = 1024 + (BM + BN) * BK // 2 * STAGES + 2 * 512 * CPS * STAGES
    # the A/B stages' swizzle: S<2,4,3> over 64-byte (128-nibble) K rows is the 64B swizzle
    swizzles = sorted(set(re.findall(r"S<\d,\d,\d>", mlir)))
    if swizzles != ["S<2,4,3>"] or boxes != ["128,128", "256,2"]:
        raise SystemExit(f"ho16_cute_nvfp4: swizzles {swizzles}, boxes {boxes}")
    launch["swizzle_ab"] = "64B"
    if str(launch["shared"]) not in smem:
        raise SystemExit(f"ho16_cute_nvfp4: expected {launch['shared']} bytes of dynamic shared "
                         f"memory; candidates {smem[:20]}; boxes {boxes}")
    return ptx, launch


def _sf_chunks(s):
    """[rows, K/16] ue4m3 scale codes -> the 512-byte chunks of CuTe's scale layout, in
    (row block, 4-scale K block) order, as u16 pairs (little-endian), shaped (chunks, 256)."""
    rows, kb = s.shape
    out = np.zeros((rows // 128, kb // 4, 512), dtype=np.uint8)
    for r in range(rows):
        for j in range(kb):
            out[r // 128, j // 4, (r % 32) * 16 + ((r % 128) // 32) * 4 + j % 4] = s[r, j]
    return out.reshape(-1, 512).view(np.uint16)


E2M1_MAG = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def _e2m1_f64(nib):
    nib = np.asarray(nib, np.int64)
    return np.where(nib & 8, -1.0, 1.0) * E2M1_MAG[nib & 7]


def _cases(launch):
    M, N, K = SHAPE
    rng = np.random.default_rng(16301)
    table = _e4m3_table()
    # every e2m1 code, -0 included
    an = rng.integers(0, 16, size=(M, K))
    bn = rng.integers(0, 16, size=(N, K))
    a = (an[:, 0::2] | (an[:, 1::2] << 4)).astype(np.uint8)
    b = (bn[:, 0::2] | (bn[:, 1::2] << 4)).astype(np.uint8)
    # ue4m3 scales (sign clear): 0.25, 0.375, 0.5, 0.75, 1, 1.5, 2 (codes with one fraction
    # bit at most), so every scale is a multiple of 2^-3 with 2 significant bits
    codes = np.array([0x28, 0x2C, 0x30, 0x34, 0x38, 0x3C, 0x40], dtype=np.uint8)
    sa = codes[rng.integers(0, len(codes), size=(M, K // SF_VEC))]
    sb = codes[rng.integers(0, len(codes), size=(N, K // SF_VEC))]
    a_s = _e2m1_f64(an) * np.repeat(table[sa].astype(np.float64), SF_VEC, axis=1)
    b_s = _e2m1_f64(bn) * np.repeat(table[sb].astype(np.float64), SF_VEC, axis=1)
    expected = (a_s @ b_s.T).astype(np.float32)
    why = ("e2m1 values (multiples of 1/2, |x| <= 6) times ue4m3 scales 2^-2..2 with two "
           "significant bits: each scaled product is a multiple of 2^-6 of magnitude <= 144, a "
           "sum of 384 below 2^16 (144 x 384 = 55296): every partial sum fits 22 bits, exact "
           "in f32 in any order and at any accumulation width of at least 24 bits: 0")
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u32": 0}]
    # 4-bit packed maps: dims in nibbles (K, rows), the row stride in bytes (K / 2)
    args = dict(
        mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the SFA and SFB TMEM addresses, "
                               "all zero"),
        tma_a=TensorMapArg("a", box=[BK, BM], swizzle=launch["swizzle_ab"], elem_type="b4x16",
                           dims=[K, M], strides=[K // 2]),
        tma_b=TensorMapArg("b", box=[BK, BN], swizzle=launch["swizzle_ab"], elem_type="b4x16",
                           dims=[K, N], strides=[K // 2]),
        tma_sfa=TensorMapArg("sfa", box=[CHUNK16, CPS], swizzle="none"),
        tma_sfb=TensorMapArg("sfb", box=[CHUNK16, CPS], swizzle="none"),
        c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"))
    return [Case("ho16_cute_nvfp4", grid=[M // BM, N // BN],
                 buffers=dict(a=Input(a, "u8"), b=Input(b, "u8"),
                              sfa=Input(_sf_chunks(sa), "u16"), sfb=Input(_sf_chunks(sb), "u16"),
                              c=Output("f32", [M, N], expected, 0.0, 0.0, why)),
                 args=args,
                 note=f"C[{M}x{N}] = (A*SFA)[{M}x{K}] @ (B*SFB)[{N}x{K}]^T, NVFP4 (e2m1 packed "
                      "two per byte along K, low nibble first; ue4m3 scales per 16 K), CuTe DSL "
                      "kind::mxf4nvf4.block_scale.block16, 128x128x128 tiles, 2 stages, A/B by "
                      "4-bit packed TMA maps (b4x16), scales by TMA as pairs of 512-byte chunks "
                      "of CuTe's scale layout, into TMEM by tcgen05.cp.32x128b.warpx4, f32 out")]


KERNELS = [
    CuteKernel(name="ho16_cute_nvfp4", build=_build, cases=_cases,
               must_contain=("kind::mxf4nvf4.block_scale.block16", "tcgen05.cp.cta_group::1",
                             "cp.async.bulk.tensor")),
]
