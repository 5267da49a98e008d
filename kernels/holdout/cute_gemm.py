"""Holdout CuTe DSL: a bf16 GEMM whose choices differ from kernels/cutedsl/dense_gemm.py.

C = A @ B with A (M, K) K-major and B given as (K, N) row-major, i.e. **N-major** (an MN-major
B operand: other smem descriptor layout, TMA box with N innermost); tile 128x64x64 (MMA N = 64);
a 4-stage TMA ring; the accumulator leaves TMEM through `.16x256b` loads (dense_gemm: 32x32b) and
is stored either with plain global stores or, in the `_tmastore` variant, through a row-major
shared-memory tile and a TMA store (cp.async.bulk.tensor shared -> global, bulk_group wait).
One CTA per tile, cta_group::1.
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

IO = cutlass.BFloat16
ACC = cutlass.Float32
BM, BN, BK = 128, 64, 64
STAGES = 4
THREADS = 128
TMEM_COLS = 64


@cute.struct
class Barriers:
    load: cute.struct.MemRange[cutlass.Int64, STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_addr: cutlass.Int32


@cute.kernel
def gemm_nmajor_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor,
                       tma_b: cute.CopyAtom, mB: cute.Tensor, mC: cute.Tensor,
                       tma_c: cute.CopyAtom, mC_tma: cute.Tensor,
                       sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout,
                       tiler: cutlass.Constexpr, tma_store: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, by, _ = cute.arch.block_idx()
    coord = (bx, by, None)

    smem = SmemAllocator()
    bars = smem.allocate(Barriers)
    sA = smem.allocate_tensor(element_type=IO, layout=sA_layout.outer, byte_alignment=1024,
                              swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=IO, layout=sB_layout.outer, byte_alignment=1024,
                              swizzle=sB_layout.inner)
    sC = smem.allocate_tensor(element_type=IO, layout=cute.make_layout((BM, BN), stride=(BN, 1)),
                              byte_alignment=128)

    if warp == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)

    stage_bytes = (cute.size_in_bytes(IO, cute.select(sA_layout, mode=[0, 1, 2])) +
                   cute.size_in_bytes(IO, cute.select(sB_layout, mode=[0, 1, 2])))
    one = cute.make_layout((1, 1, 1))
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
                         barrier_for_retrieve=pipeline.NamedBarrier(barrier_id=1, num_threads=THREADS))
    tmem.allocate(TMEM_COLS)
    tmem.wait_for_alloc()
    acc = cute.make_tensor(tmem.retrieve_ptr(ACC), acc_proto.layout)

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

    # Epilogue: TMEM -> registers with .16x256b loads -> bf16.
    ld = tcgen05.make_tmem_copy(
        cute.make_copy_atom(tcgen05.Ld16x256bOp(tcgen05.Repetition.x8), ACC), acc)
    ld_thr = ld.get_slice(tidx)
    tDtAcc = ld_thr.partition_S(acc)
    full_acc = acc_cons.wait_and_advance()
    if cutlass.const_expr(tma_store):
        tDsC = ld_thr.partition_D(thr_mma.partition_C(sC))
        r_acc = cute.make_rmem_tensor(tDsC.shape, ACC)
        cute.copy(ld, tDtAcc, r_acc)
        cute.arch.fence_view_async_tmem_load()
        r_out = cute.make_rmem_tensor(tDsC.shape, IO)
        r_out.store(r_acc.load().to(IO))
        cute.autovec_copy(r_out, tDsC)
        # Generic-proxy writes to sC must be visible to the TMA (async proxy) before the store.
        cute.arch.fence_proxy("async.shared", space="cta")
        pipeline.sync(barrier_id=2)
        gC_tma = cute.local_tile(mC_tma, (BM, BN), (bx, by))
        tCsC, tCgC_tma = cpasync.tma_partition(tma_c, 0, cute.make_layout(1),
                                               cute.group_modes(sC, 0, 2),
                                               cute.group_modes(gC_tma, 0, 2))
        if warp == 0:
            cute.copy(tma_c, tCsC, tCgC_tma)
            cute.arch.cp_async_bulk_commit_group()
            cute.arch.cp_async_bulk_wait_group(0, read=True)
    else:
        tDgC = ld_thr.partition_D(tCgC)
        r_acc = cute.make_rmem_tensor(tDgC.shape, ACC)
        cute.copy(ld, tDtAcc, r_acc)
        cute.arch.fence_view_async_tmem_load()
        r_out = cute.make_rmem_tensor(tDgC.shape, IO)
        r_out.store(r_acc.load().to(IO))
        cute.autovec_copy(r_out, tDgC)
    full_acc.release()

    if warp == 0:
        load_prod.tail()
        acc_prod.tail()
    pipeline.sync(barrier_id=1)
    tmem.free(acc.iterator)


@cute.jit
def gemm_nmajor(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, tma_store: cutlass.Constexpr):
    tiler = (BM, BN, BK)
    mma = cute.make_tiled_mma(tcgen05.MmaF16BF16Op(IO, ACC, (BM, BN, 16), tcgen05.CtaGroup.ONE,
                                                   tcgen05.OperandSource.SMEM,
                                                   OperandMajorMode.K, OperandMajorMode.MN))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, STAGES)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, STAGES)
    g2s = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        g2s, a, cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        g2s, b, cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    tma_c, tma_tensor_c = cpasync.make_tiled_tma_atom(
        cpasync.CopyBulkTensorTileS2GOp(), c, cute.make_layout((BM, BN), stride=(BN, 1)),
        (BM, BN))
    grid = cute.ceil_div((*c.layout.shape, 1), (BM, BN))
    gemm_nmajor_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, c, tma_c, tma_tensor_c,
                       sA_layout, sB_layout, tiler, tma_store).launch(
                           grid=grid, block=(THREADS, 1, 1), cluster=(1, 1, 1))


VARIANTS = [("ho_cute_bf16_nmajor", False, (256, 128, 320)),
            ("ho_cute_bf16_nmajor_tmastore", True, (128, 192, 256))]


def _fake(M, N, K):
    a = make_fake_compact_tensor(IO, (M, K), stride_order=(1, 0), assumed_align=16)
    b = make_fake_compact_tensor(IO, (N, K), stride_order=(0, 1), assumed_align=16)  # N-major
    c = make_fake_compact_tensor(IO, (M, N), stride_order=(1, 0), assumed_align=16)
    return a, b, c


def _build(name, tma_store, shape):
    def build(tmp: Path):
        dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
        for old in dump.glob("*"):
            old.unlink()
        compiled = cute.compile(gemm_nmajor, *_fake(*shape), tma_store)
        mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
        boxes = sorted(set(re.findall(r'tma_gbasis = <"\(([^"]*)\):', mlir)))
        # The boxes the specs claim must be CuTe's (kept MLIR): A (K=64, M=128) and C (N=64,
        # M=128) print alike; B is (N=64, K=64), N innermost. A and B are 128B-swizzled
        # (S<3,4,3>, the only swizzle in the module); C's tile is plain row-major.
        if boxes != ["64,128", "64,64"]:
            raise SystemExit(f"{name}: TMA boxes {boxes}, specs say ['64,128', '64,64']")
        swizzles = set(re.findall(r"S<\d,\d,\d>", mlir))
        if swizzles != {"S<3,4,3>"}:
            raise SystemExit(f"{name}: shared-memory swizzles {swizzles}, specs say 128B only")
        ptx = compiled.artifacts.PTX
        if not ptx or not ptx.lstrip().startswith("//"):
            raise SystemExit(f"{name}: no PTX kept (CUTE_DSL_KEEP=ptx?)")
        smem = re.findall(r"llvm.mlir.constant\((\d+) : i64\)", str(compiled.ir_module))
        launch = dict(block=[THREADS, 1, 1], cluster=[1, 1, 1], boxes=boxes, smem_candidates=smem,
                      arg_names=["mma", "tma_a", "tma_b", "c", "tma_c"], name=name,
                      shape=shape, tma_store=tma_store, mlir=mlir)
        launch["shared"] = _smem_bytes(compiled, launch)
        return ptx, launch
    return build


def _smem_bytes(compiled, launch):
    # Barriers (2*STAGES + 2) i64 + i32 = 84 bytes at 0, A stages and B stages 1024-aligned,
    # then the 128-aligned C tile. Checked against the constant the host code launches with.
    a = BM * BK * 2 * STAGES
    b = BN * BK * 2 * STAGES
    want = 1024 + a + b + BM * BN * 2
    if f"llvm.mlir.constant({want} : i64)" not in str(compiled.ir_module):
        raise SystemExit(f"{launch['name']}: expected {want} bytes of dynamic shared memory; "
                         f"candidates {launch['smem_candidates'][:20]}")
    return want


def _cases(launch):
    M, N, K = launch["shape"]
    rng = np.random.default_rng(5001 + launch["tma_store"])
    a = f32_to_bf16_bits(rng.uniform(-1, 1, size=(M, K)).astype(np.float32))
    b = f32_to_bf16_bits(rng.uniform(-1, 1, size=(K, N)).astype(np.float32))
    expected = (bf16_bits_to_f64(a) @ bf16_bits_to_f64(b)).astype(np.float32)
    why = ("bf16 output: half an ulp is 2^-9 relative (rtol 4e-3 doubles it); f32 accumulation "
           "2^-24·K·Σ|ab| < 1e-4 is inside atol")
    lanes = 4
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u64": 0}]
    mma_fields += [{"u32": 0}] * lanes
    args = dict(
        mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the disable-output-lane mask "
                               "(vector<4 x i32>), all zero"),
        tma_a=TensorMapArg("a", box=[BK, BM], swizzle="128B"),
        tma_b=TensorMapArg("b", box=[BN, BK], swizzle="128B"),
        c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"),
        tma_c=TensorMapArg("c", box=[BN, BM], swizzle="none"))
    return [Case(launch["name"], grid=[M // BM, N // BN],
                 buffers=dict(a=Input(a, "bf16"), b=Input(b, "bf16"),
                              c=Output("bf16", [M, N], expected, 4e-3, 1e-3, why)),
                 args=args,
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], bf16, B N-major, CuTe DSL, "
                      f"128x64x64 tiles, {STAGES} stages, 16x256b TMEM loads, "
                      + ("TMA-store epilogue" if launch["tma_store"] else "plain stores"))]


KERNELS = [
    CuteKernel(name=name, build=_build(name, tma_store, shape), cases=_cases,
               must_contain=("tcgen05.mma.cta_group::1", "tcgen05.ld.sync.aligned.16x256b",
                             "cp.async.bulk.tensor") + (("cp.async.bulk.tensor.2d.global.shared",)
                                                        if tma_store else ()))
    for name, tma_store, shape in VARIANTS
]
