"""Holdout batch 6b, CuTe DSL: one GEMM source of our own, instantiated with the MMA kinds and tile
shapes the CuTe DSL corpus lacks (it has only kind::f16 with M = 128: kernels/cutedsl,
kernels/holdout/cute_gemm.py, cute_persistent.py).

C = A @ B^T with A (M, K) and B (N, K) both K-major, one CTA per output tile, a TMA ring of
STAGES stages feeding tcgen05.mma from one thread, one accumulator in TMEM read back with a
tcgen05.ld shape of the variant's choosing and stored straight to global memory in the
accumulator's type (f32 or s32: no conversion, so the comparison is exact).

- ho6_cute_tf32_m64: kind::tf32 with **M = 64** (MMA 64x128x8, TMEM layout F: rows at lanes
  0-15 of each warp quarter), 64x128x32 tiles, 3 stages, `16x256b` loads.
- ho6_cute_i8_n256: kind::i8 (s8 x s8 -> s32) with **N = 256** (256 TMEM columns),
  128x256x64 tiles (64-byte K rows: 64B swizzle), 2 stages, `32x32b.x64` loads.
- ho6_cute_f16_mn_a: kind::f16 with an **M-major (MN-major) A** (the buffer is A^T), which
  CuTe loads as two 64 x 64 TMA boxes per stage (one 128-byte swizzle row of M each),
  128x128x64 tiles, 3 stages, `32x32b.x32` loads.
- ho6_cute_fp8_k128: kind::f8f6f4 e4m3 x e4m3 -> f32, 128x128x128 tiles (a K step of 32 per
  MMA, 4 MMAs per stage), 3 stages, `16x128b.x16` loads.

Inputs are chosen so that every product and partial sum is exact in the accumulator (tf32:
values with 7 significant bits, i8: integers, f16 and fp8: multiples of 1/4 in [-2, 2]):
tolerance 0, whatever order the hardware sums in and whether it rounds f32 to tf32 or truncates.
"""
import os
import re
from pathlib import Path

import numpy as np

import cutlass
import cutlass.cute as cute
import cutlass.pipeline as pipeline
import cutlass.utils.blackwell_helpers as sm100_utils
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, tcgen05
from cutlass.cute.runtime import make_fake_compact_tensor
from cutlass.memory import SmemAllocator, TmemAllocator

from regen import Case, CuteKernel, Input, Output, Packed, TensorMapArg

THREADS = 128
MAX_STAGES = 3


@cute.struct
class Barriers:
    load: cute.struct.MemRange[cutlass.Int64, MAX_STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_addr: cutlass.Int32


@cute.kernel
def ho6_gemm_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor,
                    tma_b: cute.CopyAtom, mB: cute.Tensor, mC: cute.Tensor,
                    sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout,
                    tiler: cutlass.Constexpr, stages: cutlass.Constexpr,
                    tmem_cols: cutlass.Constexpr, ld_op: cutlass.Constexpr,
                    ab: cutlass.Constexpr, acc_t: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, by, _ = cute.arch.block_idx()
    coord = (bx, by, None)

    smem = SmemAllocator()
    bars = smem.allocate(BarriersDeep if stages > MAX_STAGES else Barriers)
    sA = smem.allocate_tensor(element_type=ab, layout=sA_layout.outer, byte_alignment=1024,
                              swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=ab, layout=sB_layout.outer, byte_alignment=1024,
                              swizzle=sB_layout.inner)

    if warp == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)

    stage_bytes = (cute.size_in_bytes(ab, cute.select(sA_layout, mode=[0, 1, 2])) +
                   cute.size_in_bytes(ab, cute.select(sB_layout, mode=[0, 1, 2])))
    load_prod, load_cons = pipeline.PipelineTmaUmma.create(
        num_stages=stages, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
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

    tmem = TmemAllocator(bars.tmem_addr,
                         barrier_for_retrieve=pipeline.NamedBarrier(barrier_id=1,
                                                                    num_threads=THREADS))
    tmem.allocate(tmem_cols)
    tmem.wait_for_alloc()
    acc = cute.make_tensor(tmem.retrieve_ptr(acc_t), acc_proto.layout)

    if warp == 0:
        acc_prod.acquire_and_advance()
        for _ in cutlass.range(cute.size(gA, mode=[2])):
            slot = load_prod.acquire_and_advance()
            cute.copy(tma_a, tAgA[(None, slot.count)], tAsA[(None, slot.index)],
                      tma_bar_ptr=slot.barrier)
            cute.copy(tma_b, tBgB[(None, slot.count)], tBsB[(None, slot.index)],
                      tma_bar_ptr=slot.barrier)
            full = load_cons.wait_and_advance()
            for kb in cutlass.range_constexpr(cute.size(tCrA, mode=[2])):
                cute.gemm(mma, acc, tCrA[(None, None, kb, full.index)],
                          tCrB[(None, None, kb, full.index)], acc)
                mma.set(tcgen05.Field.ACCUMULATE, True)
            full.release()
        acc_prod.commit()
    tmem.relinquish_alloc_permit()

    # Epilogue: TMEM -> registers with the variant's load shape -> global, in the accumulator's
    # own type.
    ld = tcgen05.make_tmem_copy(cute.make_copy_atom(ld_op, acc_t), acc)
    ld_thr = ld.get_slice(tidx)
    tDtAcc = ld_thr.partition_S(acc)
    tDgC = ld_thr.partition_D(tCgC)
    full_acc = acc_cons.wait_and_advance()
    r_acc = cute.make_rmem_tensor(tDgC.shape, acc_t)
    cute.copy(ld, tDtAcc, r_acc)
    cute.arch.fence_view_async_tmem_load()
    cute.autovec_copy(r_acc, tDgC)
    full_acc.release()

    if warp == 0:
        load_prod.tail()
        acc_prod.tail()
    pipeline.sync(barrier_id=1)
    tmem.free(acc.iterator)


def _mma(kind, bm, bn):
    K, ONE, SMEM = OperandMajorMode.K, tcgen05.CtaGroup.ONE, tcgen05.OperandSource.SMEM
    if kind == "f16_mn_a":
        return tcgen05.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (bm, bn, 16), ONE, SMEM,
                                    OperandMajorMode.MN, K)
    if kind == "tf32":
        return tcgen05.MmaTF32Op((bm, bn, 8), ONE, SMEM, K, K)
    if kind == "i8":
        return tcgen05.MmaI8Op(cutlass.Int8, (bm, bn, 32), ONE, SMEM, K, K)
    return tcgen05.MmaFP8Op(cutlass.Float8E4M3FN, cutlass.Float32, (bm, bn, 32), ONE, SMEM, K, K)


def _ld_op(name, rep):
    return {"16x256b": tcgen05.Ld16x256bOp, "32x32b": tcgen05.Ld32x32bOp,
            "16x128b": tcgen05.Ld16x128bOp}[name](getattr(tcgen05.Repetition, f"x{rep}"))


@cute.jit
def ho6_gemm(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, kind: cutlass.Constexpr,
             bm: cutlass.Constexpr, bn: cutlass.Constexpr, bk: cutlass.Constexpr,
             stages: cutlass.Constexpr, ld_name: cutlass.Constexpr, ld_rep: cutlass.Constexpr):
    tiler = (bm, bn, bk)
    mma = cute.make_tiled_mma(_mma(kind, bm, bn))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, stages)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, stages)
    g2s = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        g2s, a, cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        g2s, b, cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    grid = cute.ceil_div((*c.layout.shape, 1), (bm, bn))
    ho6_gemm_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, c, sA_layout, sB_layout,
                    tiler, stages, max(bn, 32), _ld_op(ld_name, ld_rep), a.element_type,
                    c.element_type).launch(
                        grid=grid, block=(THREADS, 1, 1), cluster=(1, 1, 1))


# name, kind, (BM, BN, BK), stages, (tcgen05.ld shape, repetition), (M, N, K), seed, PTX needle
VARIANTS = [
    ("ho6_cute_tf32_m64", "tf32", (64, 128, 32), 3, ("16x256b", 8), (192, 256, 160), 6101,
     "tcgen05.ld.sync.aligned.16x256b"),
    ("ho6_cute_i8_n256", "i8", (128, 256, 64), 2, ("32x32b", 64), (128, 256, 320), 6102,
     "tcgen05.ld.sync.aligned.32x32b.x64"),
    ("ho6_cute_f16_mn_a", "f16_mn_a", (128, 128, 64), 3, ("32x32b", 32), (256, 128, 192),
     6104, "tcgen05.ld.sync.aligned.32x32b.x32"),
    ("ho6_cute_fp8_k128", "fp8", (128, 128, 128), 3, ("16x128b", 16), (128, 256, 384), 6103,
     "tcgen05.ld.sync.aligned.16x128b.x16"),
    # batch 9: deeper rings and 64-byte K rows (64B swizzle) for kinds that had only 128B rows
    ("ho9_cute_tf32_k16_s6", "tf32", (128, 64, 16), 6, ("16x128b", 8), (128, 128, 192), 9301,
     "tcgen05.ld.sync.aligned.16x128b.x8"),
    ("ho9_cute_fp8_m64_s5", "fp8", (64, 64, 64), 5, ("16x256b", 4), (128, 128, 320), 9302,
     "tcgen05.ld.sync.aligned.16x256b.x4"),
    # batch 15: kind::i8 at M = 64 with N = 256 (layout F over 256 columns), 4 stages
    ("ho15_cute_i8_m64_n256", "i8", (64, 256, 64), 4, ("16x256b", 16), (128, 256, 256), 15401,
     "tcgen05.ld.sync.aligned.16x256b.x16"),
]
AB = {"f16_mn_a": (cutlass.Float16, "f16", 2), "tf32": (cutlass.Float32, "f32", 4),
      "i8": (cutlass.Int8, "i8", 1),
      "fp8": (cutlass.Float8E4M3FN, "fp8e4m3", 1)}
ACC = {"f16_mn_a": (cutlass.Float32, "f32"), "tf32": (cutlass.Float32, "f32"),
       "i8": (cutlass.Int32, "i32"),
       "fp8": (cutlass.Float32, "f32")}


SWIZZLE = {128: ("S<3,4,3>", "128B"), 64: ("S<2,4,3>", "64B")}  # by K-row bytes


def _a_box(kind, tile):
    """A's TMA box, innermost first: (K, M) for K-major A; for the M-major A of f16_mn_a CuTe
    copies the M = 128 tile as two boxes of one 128-byte swizzle row (64 f16) by BK."""
    bm, bn, bk = tile
    return [64, bk] if kind == "f16_mn_a" else [bk, bm]


def _build(name, kind, tile, stages, ld, shape):
    def build(tmp: Path):
        dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
        for old in dump.glob("*"):
            old.unlink()
        M, N, K = shape
        ab = AB[kind][0]
        # A is (M, K); M-major (MN-major) for f16_mn_a: the buffer is A^T, (K, M) row-major
        a = make_fake_compact_tensor(ab, (M, K), stride_order=(0, 1) if kind == "f16_mn_a"
                                     else (1, 0), assumed_align=16)
        b = make_fake_compact_tensor(ab, (N, K), stride_order=(1, 0), assumed_align=16)
        c = make_fake_compact_tensor(ACC[kind][0], (M, N), stride_order=(1, 0),
                                     assumed_align=16)
        compiled = cute.compile(ho6_gemm, a, b, c, kind, *tile, stages, *ld)
        mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
        ptx = compiled.artifacts.PTX
        if not ptx or not ptx.lstrip().startswith("//"):
            raise SystemExit(f"{name}: no PTX kept (CUTE_DSL_KEEP=ptx?)")
        # The boxes the spec claims must be CuTe's (kept MLIR): (K elements, rows) of A and B,
        # both swizzled by their K row's bytes (128B; 64B for the i8 tile's 64-byte rows).
        bm, bn, bk = tile
        boxes = sorted(set(re.findall(r'tma_gbasis = <"\(([^"]*)\):', mlir)))
        want = sorted({",".join(map(str, _a_box(kind, tile))), f"{bk},{bn}"})
        if boxes != want:
            raise SystemExit(f"{name}: TMA boxes {boxes}, the spec says {want}")
        swizzles = set(re.findall(r"S<\d,\d,\d>", mlir))
        eb = AB[kind][2]
        if swizzles != {SWIZZLE[bk * eb][0]}:
            raise SystemExit(f"{name}: shared-memory swizzles {swizzles}, the spec says "
                             f"{SWIZZLE[bk * eb][1]}")
        # barriers (2 * MAX_STAGES + 2) i64 + i32 at 0, then the 1024-aligned A and B stages
        shared = 1024 + (bm + bn) * bk * eb * stages
        if f"llvm.mlir.constant({shared} : i64)" not in str(compiled.ir_module):
            smem = re.findall(r"llvm.mlir.constant\((\d+) : i64\)", str(compiled.ir_module))
            raise SystemExit(f"{name}: expected {shared} bytes of dynamic shared memory; "
                             f"candidates {smem[:20]}")
        launch = dict(block=[THREADS, 1, 1], cluster=[1, 1, 1], name=name, shape=shape,
                      tile=tile, kind=kind, stages=stages, ld=ld, shared=shared,
                      arg_names=["mma", "tma_a", "tma_b", "c"])
        return ptx, launch
    return build


def _cases(launch):
    M, N, K = launch["shape"]
    kind = launch["kind"]
    bm, bn, bk = launch["tile"]
    seed = dict((v[0], v[6]) for v in VARIANTS)[launch["name"]]
    rng = np.random.default_rng(seed)
    if kind == "f16_mn_a":
        # multiples of 1/4 in [-2, 2]: exact in f16, products multiples of 1/16, |sums| <=
        # 4K = 768: every partial sum exact in f32. A is passed M-major: the buffer is A^T.
        a = rng.integers(-8, 9, size=(M, K)) / 4
        b = rng.integers(-8, 9, size=(N, K)) / 4
        ins = (np.ascontiguousarray(a.T).astype(np.float16), b.astype(np.float16))
        expected = (a @ b.T).astype(np.float32)
        why = "inputs on a 1/4 grid (f16-exact), every partial sum exact in f32"
    elif kind == "tf32":
        # multiples of 1/64 in [-1, 1): 7 significant bits, exact in tf32; products are
        # multiples of 2^-12 below 1 and |partial sums| < K = 160, so 20 bits suffice: every
        # sum is exact in f32 (24 bits) in any order.
        a = rng.integers(-64, 64, size=(M, K)) / 64
        b = rng.integers(-64, 64, size=(N, K)) / 64
        ins = (a.astype(np.float32), b.astype(np.float32))
        expected = (a @ b.T).astype(np.float32)
        why = "inputs exact in tf32, every partial sum exact in f32 (20 bits)"
    elif kind == "i8":
        a = rng.integers(-128, 128, size=(M, K))
        b = rng.integers(-128, 128, size=(N, K))
        ins = (a.astype(np.int8), b.astype(np.int8))
        # |sum| <= 320 * 2^14 < 2^23: no s32 overflow, and exact in f32
        expected = (a @ b.T).astype(np.float32)
        why = "integer arithmetic, |sum| < 2^22: exact"
    else:
        from regen import _e4m3_table
        table = _e4m3_table()
        code = {float(v): i for i, v in reversed(list(enumerate(table))) if not np.isnan(v)}
        # multiples of 1/4 in [-2, 2]: all e4m3 values; products multiples of 1/16, |sums| <=
        # 4K = 1536: 15 significant bits, exact in f32 (and in any accumulator of >= 15 bits)
        a = rng.integers(-8, 9, size=(M, K)) / 4
        b = rng.integers(-8, 9, size=(N, K)) / 4
        enc = np.vectorize(lambda v: code[float(v)])
        ins = (enc(a).astype(np.uint8), enc(b).astype(np.uint8))
        expected = (a @ b.T).astype(np.float32)
        why = "inputs on a 1/4 grid (e4m3-exact), every partial sum exact in f32"
    ab_dt, acc_dt = AB[kind][1], ACC[kind][1]
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u64": 0}]
    mma_fields += [{"u32": 0}] * 4
    args = dict(
        mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the disable-output-lane mask "
                               "(vector<4 x i32>), all zero"),
        tma_a=TensorMapArg("a", box=_a_box(kind, launch["tile"]),
                           swizzle=SWIZZLE[bk * AB[kind][2]][1]),
        tma_b=TensorMapArg("b", box=[bk, bn], swizzle=SWIZZLE[bk * AB[kind][2]][1]),
        c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"))
    ldn, rep = launch["ld"]
    return [Case(launch["name"], grid=[M // bm, N // bn],
                 buffers=dict(a=Input(ins[0], ab_dt), b=Input(ins[1], ab_dt),
                              c=Output(acc_dt, [M, N], expected, 0.0, 0.0, why)),
                 args=args,
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{N}x{K}]^T, {kind}, A and B K-major, CuTe "
                      f"DSL, {bm}x{bn}x{bk} tiles, {launch['stages']} stages, tcgen05.ld "
                      f"{ldn}.x{rep}, {acc_dt} out")]


MMA_KIND = {"tf32": "tf32", "i8": "i8", "fp8": "f8f6f4", "f16_mn_a": "f16"}

KERNELS = [
    CuteKernel(name=name, build=_build(name, kind, tile, stages, ld, shape), cases=_cases,
               must_contain=("tcgen05.mma.cta_group::1.kind::" +
                             MMA_KIND[kind], needle,
                             "cp.async.bulk.tensor"))
    for name, kind, tile, stages, ld, shape, seed, needle in VARIANTS
]


# Batch 9's deeper rings: Barriers holds MAX_STAGES ring stages, and a deeper ring ran its
# mbarriers into the accumulator's (tmemu: TM0221 mbarrier-reinit at the accumulator
# pipeline's init, then a TM0225 hang). Defined down here so that the kernel's source lines, and
# with them the batch-6b PTX's `.loc`s, stay where they were.
DEEP_STAGES = 6


@cute.struct
class BarriersDeep:
    load: cute.struct.MemRange[cutlass.Int64, DEEP_STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_addr: cutlass.Int32
