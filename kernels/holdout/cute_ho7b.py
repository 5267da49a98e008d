"""Holdout batch 7b, CuTe DSL: a GEMM with a fused epilogue, the code around the MMA that the CuTe
DSL GEMMs of batches 3-6b lack (they store the raw accumulator, at most converted to bf16).

C = bf16(A @ B^T + bias) with A (M, K) and B (N, K) bf16, both K-major (kind::f16 with bf16
operands; the batch-3 bf16 CuTe GEMM, cute_gemm.py, has an N-major B), one CTA per output tile,
a TMA ring feeding tcgen05.mma from one thread, one f32 accumulator in TMEM. The epilogue reads
the accumulator with a tcgen05.ld shape CuTe DSL's own TMEM partitioning had not chosen in the
corpus (Gluon and nvcc kernels use them), loads the bias through a stride-0 (broadcast over rows)
view of an N-vector, adds it in registers, rounds to bf16 and stores to global memory.

- ho7b_cute_bf16_bias_16x64b: 128x64x64 tiles, 4 stages, `16x64b.x8` loads (N = 64 columns).
- ho7b_cute_bf16_bias_16x32bx2: 128x128x64 tiles, 2 stages, `16x32bx2.x16` loads (the form with
  an immediate half-lane column offset).

Inputs: A, B multiples of 1/4 in [-2, 2] (bf16-exact), products multiples of 1/16 and |partial
sums| <= 4K, the bias a multiple of 1/8 below 4: every sum is exact in f32 in any order, so the
one rounding is the final f32 -> bf16 round-to-nearest-even, which numpy reproduces bit for bit:
tolerance 0.
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

from regen import (Case, CuteKernel, Input, Output, Packed, TensorMapArg, bf16_bits_to_f64,
                   f32_to_bf16_bits)

THREADS = 128
MAX_STAGES = 4


@cute.struct
class Barriers:
    load: cute.struct.MemRange[cutlass.Int64, MAX_STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_addr: cutlass.Int32


@cute.kernel
def ho7b_gemm_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor,
                     tma_b: cute.CopyAtom, mB: cute.Tensor, mC: cute.Tensor, mBias: cute.Tensor,
                     sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout,
                     tiler: cutlass.Constexpr, stages: cutlass.Constexpr,
                     tmem_cols: cutlass.Constexpr, ld_op: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, by, _ = cute.arch.block_idx()
    coord = (bx, by, None)

    smem = SmemAllocator()
    bars = smem.allocate(Barriers)
    sA = smem.allocate_tensor(element_type=cutlass.BFloat16, layout=sA_layout.outer,
                              byte_alignment=1024, swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=cutlass.BFloat16, layout=sB_layout.outer,
                              byte_alignment=1024, swizzle=sB_layout.inner)

    if warp == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)

    stage_bytes = (cute.size_in_bytes(cutlass.BFloat16, cute.select(sA_layout, mode=[0, 1, 2])) +
                   cute.size_in_bytes(cutlass.BFloat16, cute.select(sB_layout, mode=[0, 1, 2])))
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
    gBias = cute.local_tile(mBias, tiler, coord, proj=(1, 1, None))
    thr_mma = mma.get_slice(0)
    tCgA = thr_mma.partition_A(gA)
    tCgB = thr_mma.partition_B(gB)
    tCgC = thr_mma.partition_C(gC)
    tCgBias = thr_mma.partition_C(gBias)
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
    acc = cute.make_tensor(tmem.retrieve_ptr(cutlass.Float32), acc_proto.layout)

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

    # Epilogue: TMEM -> registers, + bias (its global loads overlap the MMA wait), round to
    # bf16, store.
    ld = tcgen05.make_tmem_copy(cute.make_copy_atom(ld_op, cutlass.Float32), acc)
    ld_thr = ld.get_slice(tidx)
    tDtAcc = ld_thr.partition_S(acc)
    tDgC = ld_thr.partition_D(tCgC)
    tDgBias = ld_thr.partition_D(tCgBias)
    r_bias = cute.make_rmem_tensor(tDgC.shape, cutlass.Float32)
    cute.autovec_copy(tDgBias, r_bias)
    full_acc = acc_cons.wait_and_advance()
    r_acc = cute.make_rmem_tensor(tDgC.shape, cutlass.Float32)
    cute.copy(ld, tDtAcc, r_acc)
    cute.arch.fence_view_async_tmem_load()
    full_acc.release()
    r_out = cute.make_rmem_tensor(tDgC.shape, cutlass.BFloat16)
    r_out.store((r_acc.load() + r_bias.load()).to(cutlass.BFloat16))
    cute.autovec_copy(r_out, tDgC)

    if warp == 0:
        load_prod.tail()
        acc_prod.tail()
    pipeline.sync(barrier_id=1)
    tmem.free(acc.iterator)


def _ld_op(name, rep):
    return {"16x64b": tcgen05.Ld16x64bOp, "16x32bx2": tcgen05.Ld16x32bx2Op}[name](
        getattr(tcgen05.Repetition, f"x{rep}"))


@cute.jit
def ho7b_gemm(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, bias: cute.Tensor,
              bm: cutlass.Constexpr, bn: cutlass.Constexpr, bk: cutlass.Constexpr,
              stages: cutlass.Constexpr, ld_name: cutlass.Constexpr, ld_rep: cutlass.Constexpr):
    tiler = (bm, bn, bk)
    K = OperandMajorMode.K
    mma = cute.make_tiled_mma(tcgen05.MmaF16BF16Op(
        cutlass.BFloat16, cutlass.Float32, (bm, bn, 16), tcgen05.CtaGroup.ONE,
        tcgen05.OperandSource.SMEM, K, K))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, stages)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, stages)
    g2s = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        g2s, a, cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        g2s, b, cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    # the bias seen as an (M, N) matrix whose rows all alias the one N-vector
    bias_mn = cute.make_tensor(bias.iterator, cute.make_layout(c.layout.shape, stride=(0, 1)))
    grid = cute.ceil_div((*c.layout.shape, 1), (bm, bn))
    ho7b_gemm_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, c, bias_mn, sA_layout,
                     sB_layout, tiler, stages, max(bn, 32), _ld_op(ld_name, ld_rep)).launch(
                         grid=grid, block=(THREADS, 1, 1), cluster=(1, 1, 1))


# name, (BM, BN, BK), stages, (tcgen05.ld shape, repetition), (M, N, K), seed, PTX needle
VARIANTS = [
    ("ho7b_cute_bf16_bias_16x64b", (128, 64, 64), 4, ("16x64b", 8), (256, 192, 320), 7201,
     "tcgen05.ld.sync.aligned.16x64b.x8"),
    ("ho7b_cute_bf16_bias_16x32bx2", (128, 128, 64), 2, ("16x32bx2", 16), (128, 256, 256), 7202,
     "tcgen05.ld.sync.aligned.16x32bx2.x16"),
]


def _build(name, tile, stages, ld, shape):
    def build(tmp: Path):
        dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
        for old in dump.glob("*"):
            old.unlink()
        M, N, K = shape
        bf = cutlass.BFloat16
        a = make_fake_compact_tensor(bf, (M, K), stride_order=(1, 0), assumed_align=16)
        b = make_fake_compact_tensor(bf, (N, K), stride_order=(1, 0), assumed_align=16)
        c = make_fake_compact_tensor(bf, (M, N), stride_order=(1, 0), assumed_align=16)
        bias = make_fake_compact_tensor(cutlass.Float32, (N,), assumed_align=16)
        compiled = cute.compile(ho7b_gemm, a, b, c, bias, *tile, stages, *ld)
        mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
        ptx = compiled.artifacts.PTX
        if not ptx or not ptx.lstrip().startswith("//"):
            raise SystemExit(f"{name}: no PTX kept (CUTE_DSL_KEEP=ptx?)")
        bm, bn, bk = tile
        # The boxes and swizzle the spec claims must be CuTe's (kept MLIR): (K, rows) of A and
        # B, 128-byte K rows of bf16, so 128B swizzle.
        boxes = sorted(set(re.findall(r'tma_gbasis = <"\(([^"]*)\):', mlir)))
        want = sorted({f"{bk},{bm}", f"{bk},{bn}"})
        if boxes != want:
            raise SystemExit(f"{name}: TMA boxes {boxes}, the spec says {want}")
        swizzles = set(re.findall(r"S<\d,\d,\d>", mlir))
        if swizzles != {"S<3,4,3>"}:
            raise SystemExit(f"{name}: shared-memory swizzles {swizzles}, the spec says 128B")
        shared = 1024 + (bm + bn) * bk * 2 * stages
        if f"llvm.mlir.constant({shared} : i64)" not in str(compiled.ir_module):
            smem = re.findall(r"llvm.mlir.constant\((\d+) : i64\)", str(compiled.ir_module))
            raise SystemExit(f"{name}: expected {shared} bytes of dynamic shared memory; "
                             f"candidates {smem[:20]}")
        launch = dict(block=[THREADS, 1, 1], cluster=[1, 1, 1], name=name, shape=shape,
                      tile=tile, stages=stages, ld=ld, shared=shared,
                      arg_names=["mma", "tma_a", "tma_b", "c", "bias"])
        return ptx, launch
    return build


def _cases(launch):
    M, N, K = launch["shape"]
    bm, bn, bk = launch["tile"]
    seed = dict((v[0], v[5]) for v in VARIANTS)[launch["name"]]
    rng = np.random.default_rng(seed)
    a = rng.integers(-8, 9, size=(M, K)) / 4
    b = rng.integers(-8, 9, size=(N, K)) / 4
    bias = rng.integers(-31, 32, size=N) / 8
    # exact in f32 (multiples of 1/16, |x| < 4K + 4 < 2^11): the one rounding is f32 -> bf16
    exact = (a @ b.T + bias[None, :]).astype(np.float32)
    expected = bf16_bits_to_f64(f32_to_bf16_bits(exact)).astype(np.float32)
    why = ("inputs bf16-exact, A @ B^T + bias exact in f32, then one round-to-nearest-even to "
           "bf16, done the same way here: exact")
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u64": 0}]
    mma_fields += [{"u32": 0}] * 4
    args = dict(
        mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the disable-output-lane mask "
                               "(vector<4 x i32>), all zero"),
        tma_a=TensorMapArg("a", box=[bk, bm], swizzle="128B"),
        tma_b=TensorMapArg("b", box=[bk, bn], swizzle="128B"),
        c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"),
        bias=Packed([{"buffer": "bias"}], "bias: static stride-0 layout, so just the pointer"))
    ldn, rep = launch["ld"]
    return [Case(launch["name"], grid=[M // bm, N // bn],
                 buffers=dict(a=Input(f32_to_bf16_bits(a), "bf16"),
                              b=Input(f32_to_bf16_bits(b), "bf16"),
                              bias=Input(bias.astype(np.float32), "f32"),
                              c=Output("bf16", [M, N], expected, 0.0, 0.0, why)),
                 args=args,
                 note=f"C[{M}x{N}] = bf16(A[{M}x{K}] @ B[{N}x{K}]^T + bias[{N}]), kind::f16 "
                      f"with bf16 operands, A and B K-major, CuTe DSL, {bm}x{bn}x{bk} tiles, "
                      f"{launch['stages']} stages, tcgen05.ld {ldn}.x{rep}, bias through a "
                      f"stride-0 view, bf16 out")]


KERNELS = [
    CuteKernel(name=name, build=_build(name, tile, stages, ld, shape), cases=_cases,
               must_contain=("tcgen05.mma.cta_group::1.kind::f16", needle,
                             "cp.async.bulk.tensor", "cvt.rn.bf16"))
    for name, tile, stages, ld, shape, seed, needle in VARIANTS
]
