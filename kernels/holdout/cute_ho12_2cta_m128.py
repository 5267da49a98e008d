"""Holdout batch 12, CuTe DSL: a **2-CTA MMA with M = 128** (`tcgen05.mma.cta_group::2` whose
pair tile has 128 rows: each CTA holds 64 of them). Every earlier `cta_group::2` kernel (CuTe
DSL, Gluon, CUTLASS) used M = 256, TMEM layout A (each CTA's 128 rows on lanes 0..127); with
M = 128 dense the accumulator is in **layout B** (PTX ISA Data Path Layout table, "2x2"): in
each CTA, local row r holds columns j < N/2 at lane r and columns j >= N/2 at lane 64 + r, so D
takes N/2 TMEM columns, and the epilogue's `tcgen05.ld` reads both halves.

The kernel is batch 8's pair kernel (cute_ho8_2cta.py: C = A @ B^T, A (M, K) and B (N, K)
K-major, one CTA pair per output tile, the leader's warp 0 issues every MMA and its commit
arrives on both CTAs' barriers) with the pair tile's M halved:

- ho12_cute_2cta_m128_f16: **kind::f16** 128x128x64 per pair (64 rows of A and 64 rows of B per
  CTA), 3 stages, `32x32b.x64` loads, f32 out; 128x128x192 (one pair).
- ho12_cute_2cta_m128_f16acc: the same tile with an **f16 accumulator** (`MmaF16BF16Op` with
  an fp16 D: idesc D type F16 on a pair) read with **`32x32b.x32.pack::16b`**, fp16 out (an
  f16 D was in compiler output from Triton only, with one CTA).
- ho12_cute_2cta_m128_i8: **kind::i8** 128x64x128 per pair (N = 64: 32 TMEM columns of D per
  CTA), 2 stages, `32x32b.x32` loads, s32 out; 128x64x256 (one pair).

Inputs are exact in the operand type and every partial sum is exact in the accumulator, so the
tolerance is 0 whatever the summation order.
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
PAIR = 2


@cute.struct
class Barriers12:
    load: cute.struct.MemRange[cutlass.Int64, MAX_STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_dealloc: cutlass.Int64
    tmem_addr: cutlass.Int32


@cute.kernel
def ho12_2cta_m128_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor,
                    tma_b: cute.CopyAtom, mB: cute.Tensor, mC: cute.Tensor,
                    sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout,
                    cluster_vmnk: cute.Layout, tiler: cutlass.Constexpr,
                    stages: cutlass.Constexpr, tmem_cols: cutlass.Constexpr,
                    ld_op: cutlass.Constexpr, ab: cutlass.Constexpr, acc_t: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, by, _ = cute.arch.block_idx()
    rank = bx % PAIR
    leader = rank == 0
    coord = (bx // PAIR, by, None)
    cl_coord = cluster_vmnk.get_flat_coord(cute.arch.block_idx_in_cluster())

    smem = SmemAllocator()
    bars = smem.allocate(Barriers12)
    sA = smem.allocate_tensor(element_type=ab, layout=sA_layout.outer, byte_alignment=1024,
                              swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=ab, layout=sB_layout.outer, byte_alignment=1024,
                              swizzle=sB_layout.inner)
    if warp == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)

    # both CTAs' loads of a stage complete on the leader's barrier
    stage_bytes = (cute.size_in_bytes(ab, cute.select(sA_layout, mode=[0, 1, 2])) +
                   cute.size_in_bytes(ab, cute.select(sB_layout, mode=[0, 1, 2]))) * PAIR
    load_prod, load_cons = pipeline.PipelineTmaUmma.create(
        num_stages=stages, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 1),
        tx_count=stage_bytes, barrier_storage=bars.load.data_ptr(),
        cta_layout_vmnk=cluster_vmnk).make_participants()
    acc_prod, acc_cons = pipeline.PipelineUmmaAsync.create(
        num_stages=1, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, PAIR * THREADS),
        barrier_storage=bars.acc.data_ptr(), cta_layout_vmnk=cluster_vmnk).make_participants()

    gA = cute.local_tile(mA, tiler, coord, proj=(1, None, 1))
    gB = cute.local_tile(mB, tiler, coord, proj=(None, 1, 1))
    gC = cute.local_tile(mC, tiler, coord, proj=(1, 1, None))
    thr_mma = mma.get_slice(rank)
    tCgA = thr_mma.partition_A(gA)
    tCgB = thr_mma.partition_B(gB)
    tCgC = thr_mma.partition_C(gC)
    tCrA = mma.make_fragment_A(sA)
    tCrB = mma.make_fragment_B(sB)
    acc_proto = mma.make_fragment_C(mma.partition_shape_C(tiler[:2]))
    tAsA, tAgA = cpasync.tma_partition(tma_a, cl_coord[2],
                                       cute.make_layout(cute.size(cluster_vmnk, mode=[2])),
                                       cute.group_modes(sA, 0, 3), cute.group_modes(tCgA, 0, 3))
    tBsB, tBgB = cpasync.tma_partition(tma_b, cl_coord[1],
                                       cute.make_layout(cute.size(cluster_vmnk, mode=[1])),
                                       cute.group_modes(sB, 0, 3), cute.group_modes(tCgB, 0, 3))

    tmem = TmemAllocator(bars.tmem_addr,
                         barrier_for_retrieve=pipeline.NamedBarrier(barrier_id=1,
                                                                    num_threads=THREADS),
                         is_two_cta=True, two_cta_tmem_dealloc_mbar_ptr=bars.tmem_dealloc)
    tmem.allocate(tmem_cols)
    tmem.wait_for_alloc()
    acc = cute.make_tensor(tmem.retrieve_ptr(acc_t), acc_proto.layout)

    if warp == 0:
        if leader:
            acc_prod.acquire_and_advance()
        for _ in cutlass.range(cute.size(gA, mode=[2])):
            slot = load_prod.acquire_and_advance()
            cute.copy(tma_a, tAgA[(None, slot.count)], tAsA[(None, slot.index)],
                      tma_bar_ptr=slot.barrier)
            cute.copy(tma_b, tBgB[(None, slot.count)], tBsB[(None, slot.index)],
                      tma_bar_ptr=slot.barrier)
            if leader:
                full = load_cons.wait_and_advance()
                for kb in cutlass.range_constexpr(cute.size(tCrA, mode=[2])):
                    cute.gemm(mma, acc, tCrA[(None, None, kb, full.index)],
                              tCrB[(None, None, kb, full.index)], acc)
                    mma.set(tcgen05.Field.ACCUMULATE, True)
                full.release()
        if leader:
            acc_prod.commit()
    tmem.relinquish_alloc_permit()

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
        if leader:
            acc_prod.tail()
    pipeline.sync(barrier_id=1)
    tmem.free(acc.iterator)


def _mma(kind, bm, bn):
    K, TWO, SMEM = OperandMajorMode.K, tcgen05.CtaGroup.TWO, tcgen05.OperandSource.SMEM
    if kind in ("f16", "f16acc"):
        acc = cutlass.Float16 if kind == "f16acc" else cutlass.Float32
        return tcgen05.MmaF16BF16Op(cutlass.Float16, acc, (bm, bn, 16), TWO, SMEM, K, K)
    return tcgen05.MmaI8Op(cutlass.Int8, (bm, bn, 32), TWO, SMEM, K, K)


def _ld_op(name, rep):
    if name == "32x32b.pack":
        return tcgen05.Ld32x32bOp(getattr(tcgen05.Repetition, f"x{rep}"),
                                  tcgen05.Pack.PACK_16b_IN_32b)
    return {"16x256b": tcgen05.Ld16x256bOp, "32x32b": tcgen05.Ld32x32bOp,
            "16x128b": tcgen05.Ld16x128bOp}[name](getattr(tcgen05.Repetition, f"x{rep}"))


@cute.jit
def ho12_2cta_m128(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, kind: cutlass.Constexpr,
             bm: cutlass.Constexpr, bn: cutlass.Constexpr, bk: cutlass.Constexpr,
             stages: cutlass.Constexpr, ld_name: cutlass.Constexpr, ld_rep: cutlass.Constexpr):
    tiler = (bm, bn, bk)
    mma = cute.make_tiled_mma(_mma(kind, bm, bn))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, stages)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, stages)
    cluster_vmnk = cute.tiled_divide(cute.make_layout((PAIR, 1, 1)), (mma.thr_id, ))
    g2s = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.TWO)
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        g2s, a, cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, cluster_vmnk.shape)
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        g2s, b, cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, cluster_vmnk.shape)
    grid = cute.ceil_div((*c.layout.shape, 1), (bm // PAIR, bn))
    ho12_2cta_m128_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, c, sA_layout, sB_layout,
                    cluster_vmnk, tiler, stages, max(bn, 32), _ld_op(ld_name, ld_rep),
                    a.element_type, c.element_type).launch(
                        grid=grid, block=(THREADS, 1, 1), cluster=(PAIR, 1, 1))


# name, kind, (BM, BN, BK) of the pair, stages, (tcgen05.ld shape, repetition), (M, N, K), seed
VARIANTS = [
    ("ho12_cute_2cta_m128_f16", "f16", (128, 128, 64), 3, ("32x32b", 64), (128, 128, 192),
     12301),
    ("ho12_cute_2cta_m128_f16acc", "f16acc", (128, 128, 64), 3, ("32x32b.pack", 32),
     (128, 128, 192), 12303),
    ("ho12_cute_2cta_m128_i8", "i8", (128, 64, 128), 2, ("32x32b", 32), (128, 64, 256), 12302),
]
AB = {"f16": (cutlass.Float16, "f16", 2), "f16acc": (cutlass.Float16, "f16", 2), "i8": (cutlass.Int8, "i8", 1)}
ACC = {"f16": (cutlass.Float32, "f32"), "f16acc": (cutlass.Float16, "f16"), "i8": (cutlass.Int32, "i32")}
SWIZZLE = {128: ("S<3,4,3>", "128B"), 64: ("S<2,4,3>", "64B")}  # by K-row bytes


def _build(name, kind, tile, stages, ld, shape):
    def build(tmp: Path):
        dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
        for old in dump.glob("*"):
            old.unlink()
        M, N, K = shape
        ab = AB[kind][0]
        a = make_fake_compact_tensor(ab, (M, K), stride_order=(1, 0), assumed_align=16)
        b = make_fake_compact_tensor(ab, (N, K), stride_order=(1, 0), assumed_align=16)
        c = make_fake_compact_tensor(ACC[kind][0], (M, N), stride_order=(1, 0),
                                     assumed_align=16)
        compiled = cute.compile(ho12_2cta_m128, a, b, c, kind, *tile, stages, *ld)
        mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
        ptx = compiled.artifacts.PTX
        if not ptx or not ptx.lstrip().startswith("//"):
            raise SystemExit(f"{name}: no PTX kept (CUTE_DSL_KEEP=ptx?)")
        bm, bn, bk = tile
        # each CTA's TMA boxes (kept MLIR): its 128 rows of A, its half of B's rows
        boxes = sorted(set(re.findall(r'tma_gbasis = <"\(([^"]*)\):', mlir)))
        want = sorted({f"{bk},{bm // PAIR}", f"{bk},{bn // PAIR}"})
        if boxes != want:
            raise SystemExit(f"{name}: TMA boxes {boxes}, the spec says {want}")
        eb = AB[kind][2]
        swizzles = set(re.findall(r"S<\d,\d,\d>", mlir))
        if swizzles != {SWIZZLE[bk * eb][0]}:
            raise SystemExit(f"{name}: shared-memory swizzles {swizzles}, the spec says "
                             f"{SWIZZLE[bk * eb][1]}")
        shared = 1024 + (bm + bn) // PAIR * bk * eb * stages
        if f"llvm.mlir.constant({shared} : i64)" not in str(compiled.ir_module):
            smem = re.findall(r"llvm.mlir.constant\((\d+) : i64\)", str(compiled.ir_module))
            raise SystemExit(f"{name}: expected {shared} bytes of dynamic shared memory; "
                             f"candidates {smem[:20]}")
        launch = dict(block=[THREADS, 1, 1], cluster=[PAIR, 1, 1], name=name, shape=shape,
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
    if kind in ("f16", "f16acc"):
        # (f16acc: the same sums below 2^8 on a 1/4 grid need 10 bits: exact in an f16 D too)
        # multiples of 1/2 in [-1, 1]: exact in fp16; products multiples of 1/4 of magnitude
        # <= 1, |partial sums| <= K = 192 < 2^8: at most 10 significant bits, exact in f32
        a = rng.integers(-2, 3, size=(M, K)) / 2
        b = rng.integers(-2, 3, size=(N, K)) / 2
        ins = (a.astype(np.float16), b.astype(np.float16))
        why = "inputs exact in fp16, every partial sum exact in f32 (10 bits)"
    else:
        # int8 in [-8, 8) (small committed files): |sum| <= 256 * 2^6 < 2^15, exact
        a = rng.integers(-8, 8, size=(M, K))
        b = rng.integers(-8, 8, size=(N, K))
        ins = (a.astype(np.int8), b.astype(np.int8))
        why = "integer arithmetic, |sum| < 2^15: exact"
    expected = (a @ b.T).astype(np.float32)
    ab_dt, acc_dt = AB[kind][1], ACC[kind][1]
    # The cta_group::2 TiledMma struct: three i1 flags at bytes 0..2 (all false at launch; the
    # kernel sets accumulate itself), then the disable-output-lane mask vector<8 x i32> at its
    # 32-byte alignment, all zero.
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u64": 0},
                  {"u64": 0}, {"u64": 0}] + [{"u32": 0}] * 8
    sw = SWIZZLE[bk * AB[kind][2]][1]
    args = dict(
        mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the disable-output-lane mask "
                               "(vector<8 x i32>), all zero"),
        tma_a=TensorMapArg("a", box=[bk, bm // PAIR], swizzle=sw),
        tma_b=TensorMapArg("b", box=[bk, bn // PAIR], swizzle=sw),
        c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"))
    ldn, rep = launch["ld"]
    return [Case(launch["name"], grid=[M // (bm // PAIR), N // bn],
                 buffers=dict(a=Input(ins[0], ab_dt), b=Input(ins[1], ab_dt),
                              c=Output(acc_dt, [M, N], expected, 0.0, 0.0, why)),
                 args=args,
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{N}x{K}]^T, {kind}, A and B K-major, CuTe "
                      f"DSL, cta_group::2 over clusters of 2 ({bm}x{bn}x{bk} per pair, each "
                      f"CTA {bm // PAIR} rows of A and {bn // PAIR} rows of B), {launch['stages']} "
                      f"stages, tcgen05.ld {ldn}.x{rep}, {acc_dt} out; M = 128 per pair: D in "
                      "TMEM layout B (64 rows per CTA, column halves on lanes 0-63 / 64-127)")]


MMA_KIND = {"f16": "f16", "f16acc": "f16", "i8": "i8"}

KERNELS = [
    CuteKernel(name=name, build=_build(name, kind, tile, stages, ld, shape), cases=_cases,
               must_contain=("tcgen05.mma.cta_group::2.kind::" + MMA_KIND[kind],
                             f"tcgen05.ld.sync.aligned.{ld[0].split('.')[0]}.x{ld[1]}"
                             + (".pack::16b" if ld[0].endswith(".pack") else ""),
                             "cp.async.bulk.tensor"))
    for name, kind, tile, stages, ld, shape, seed in VARIANTS
]
