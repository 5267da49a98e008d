"""Holdout batch 3 (CuTe DSL): a persistent, warp-specialised GEMM with a double-buffered
accumulator in TMEM.

C = A @ B with A (M, K) K-major and B given as (N, K) (K-major), fp16 in, f32 out. The grid is
smaller than the tile count: CTA b handles tiles b, b + grid, b + 2·grid, ... (a hand-written
static schedule, M fastest). Warp 4 is the producer: it streams K tiles with TMA into a 3-stage
ring and issues the tcgen05.mma of each tile into one of two TMEM accumulator stages
(2 x 128 columns); warps 0-3 are the epilogue: they wait for a finished accumulator stage, read it
with `.16x128b` tcgen05.ld, release it to the producer and store C. So the MMAs of tile i+1 run
while the epilogue of tile i reads the other stage, and the accumulator pipeline's phases cycle
over the tiles. One CTA per SM, cta_group::1.
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

IO = cutlass.Float16
ACC = cutlass.Float32
BM, BN, BK = 128, 128, 64
STAGES = 3
ACC_STAGES = 2
EPI_THREADS = 128
THREADS = EPI_THREADS + 32
TMEM_COLS = BN * ACC_STAGES
PRODUCER_WARP = 4
GRID = 3


@cute.struct
class Barriers:
    load: cute.struct.MemRange[cutlass.Int64, STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, ACC_STAGES * 2]
    tmem_addr: cutlass.Int32


@cute.kernel
def persistent_gemm_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor,
                           tma_b: cute.CopyAtom, mB: cute.Tensor, mC: cute.Tensor,
                           sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout,
                           tiler: cutlass.Constexpr, tiles_m: cutlass.Constexpr,
                           n_tiles: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, _, _ = cute.arch.block_idx()
    gdim, _, _ = cute.arch.grid_dim()

    smem = SmemAllocator()
    bars = smem.allocate(Barriers)
    sA = smem.allocate_tensor(element_type=IO, layout=sA_layout.outer, byte_alignment=1024,
                              swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=IO, layout=sB_layout.outer, byte_alignment=1024,
                              swizzle=sB_layout.inner)

    if warp == PRODUCER_WARP:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)

    stage_bytes = (cute.size_in_bytes(IO, cute.select(sA_layout, mode=[0, 1, 2])) +
                   cute.size_in_bytes(IO, cute.select(sB_layout, mode=[0, 1, 2])))
    load_prod, load_cons = pipeline.PipelineTmaUmma.create(
        num_stages=STAGES, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 1),
        tx_count=stage_bytes, barrier_storage=bars.load.data_ptr(),
        cta_layout_vmnk=cute.make_layout((1, 1, 1, 1))).make_participants()
    acc_prod, acc_cons = pipeline.PipelineUmmaAsync.create(
        num_stages=ACC_STAGES, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, EPI_THREADS),
        barrier_storage=bars.acc.data_ptr(),
        cta_layout_vmnk=cute.make_layout((1, 1, 1, 1))).make_participants()

    thr_mma = mma.get_slice(0)
    tCrA = mma.make_fragment_A(sA)
    tCrB = mma.make_fragment_B(sB)
    acc_proto = mma.make_fragment_C(cute.append(mma.partition_shape_C(tiler[:2]), ACC_STAGES))

    tmem = TmemAllocator(bars.tmem_addr,
                         barrier_for_retrieve=pipeline.NamedBarrier(barrier_id=1,
                                                                    num_threads=THREADS))
    tmem.allocate(TMEM_COLS)
    tmem.wait_for_alloc()
    acc = cute.make_tensor(tmem.retrieve_ptr(ACC), acc_proto.layout)

    if warp == PRODUCER_WARP:
        for t in cutlass.range(bx, n_tiles, gdim):
            coord = (t % tiles_m, t // tiles_m, None)
            gA = cute.local_tile(mA, tiler, coord, proj=(1, None, 1))
            gB = cute.local_tile(mB, tiler, coord, proj=(None, 1, 1))
            tAsA, tAgA = cpasync.tma_partition(tma_a, 0, cute.make_layout(1),
                                               cute.group_modes(sA, 0, 3),
                                               cute.group_modes(thr_mma.partition_A(gA), 0, 3))
            tBsB, tBgB = cpasync.tma_partition(tma_b, 0, cute.make_layout(1),
                                               cute.group_modes(sB, 0, 3),
                                               cute.group_modes(thr_mma.partition_B(gB), 0, 3))
            acc_slot = acc_prod.acquire_and_advance()
            acc_t = acc[(None, None, None, acc_slot.index)]
            mma.set(tcgen05.Field.ACCUMULATE, False)
            for kt in cutlass.range(cute.size(gA, mode=[2])):
                # slot.count runs on over the tiles: the K tile is the loop index.
                slot = load_prod.acquire_and_advance()
                cute.copy(tma_a, tAgA[(None, kt)], tAsA[(None, slot.index)],
                          tma_bar_ptr=slot.barrier)
                cute.copy(tma_b, tBgB[(None, kt)], tBsB[(None, slot.index)],
                          tma_bar_ptr=slot.barrier)
                full = load_cons.wait_and_advance()
                for kb in cutlass.range_constexpr(cute.size(tCrA, mode=[2])):
                    cute.gemm(mma, acc_t, tCrA[(None, None, kb, full.index)],
                              tCrB[(None, None, kb, full.index)], acc_t)
                    mma.set(tcgen05.Field.ACCUMULATE, True)
                full.release()
            acc_slot.commit()
        load_prod.tail()
        acc_prod.tail()
    else:
        tmem.relinquish_alloc_permit()
        for t in cutlass.range(bx, n_tiles, gdim):
            coord = (t % tiles_m, t // tiles_m, None)
            gC = cute.local_tile(mC, tiler, coord, proj=(1, 1, None))
            full_acc = acc_cons.wait_and_advance()
            acc_t = acc[(None, None, None, full_acc.index)]
            ld = tcgen05.make_tmem_copy(
                cute.make_copy_atom(tcgen05.Ld16x128bOp(tcgen05.Repetition.x16), ACC), acc_t)
            ld_thr = ld.get_slice(tidx)
            tDtAcc = ld_thr.partition_S(acc_t)
            tDgC = ld_thr.partition_D(thr_mma.partition_C(gC))
            r_acc = cute.make_rmem_tensor(tDgC.shape, ACC)
            cute.copy(ld, tDtAcc, r_acc)
            cute.arch.fence_view_async_tmem_load()
            full_acc.release()
            cute.autovec_copy(r_acc, tDgC)

    pipeline.sync(barrier_id=1)
    if warp == 0:
        tmem.free(acc.iterator)


@cute.jit
def persistent_gemm(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor):
    tiler = (BM, BN, BK)
    mma = cute.make_tiled_mma(tcgen05.MmaF16BF16Op(IO, ACC, (BM, BN, 16), tcgen05.CtaGroup.ONE,
                                                   tcgen05.OperandSource.SMEM,
                                                   OperandMajorMode.K, OperandMajorMode.K))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, STAGES)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, STAGES)
    g2s = cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE)
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        g2s, a, cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        g2s, b, cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, (1, 1, 1))
    tiles_m = c.layout.shape[0] // BM
    n_tiles = tiles_m * (c.layout.shape[1] // BN)
    persistent_gemm_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, c, sA_layout,
                           sB_layout, tiler, tiles_m, n_tiles).launch(
                               grid=(GRID, 1, 1), block=(THREADS, 1, 1), cluster=(1, 1, 1))


SHAPE = (512, 256, 192)   # 4 x 2 = 8 tiles over 3 CTAs (3, 3, 2 tiles); K = 3 k-tiles


def _fake(M, N, K):
    a = make_fake_compact_tensor(IO, (M, K), stride_order=(1, 0), assumed_align=16)
    b = make_fake_compact_tensor(IO, (N, K), stride_order=(1, 0), assumed_align=16)
    c = make_fake_compact_tensor(ACC, (M, N), stride_order=(1, 0), assumed_align=16)
    return a, b, c


def _build(tmp: Path):
    name = "ho3_cute_persistent"
    dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
    for old in dump.glob("*"):
        old.unlink()
    compiled = cute.compile(persistent_gemm, *_fake(*SHAPE))
    mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
    boxes = sorted(set(re.findall(r'tma_gbasis = <"\(([^"]*)\):', mlir)))
    # A (K=64, M=128) and B (K=64, N=128) boxes print alike; 128B swizzle (S<3,4,3>) only.
    if boxes != ["64,128"]:
        raise SystemExit(f"{name}: TMA boxes {boxes}, specs say ['64,128']")
    swizzles = set(re.findall(r"S<\d,\d,\d>", mlir))
    if swizzles != {"S<3,4,3>"}:
        raise SystemExit(f"{name}: shared-memory swizzles {swizzles}, specs say 128B only")
    ptx = compiled.artifacts.PTX
    if not ptx or not ptx.lstrip().startswith("//"):
        raise SystemExit(f"{name}: no PTX kept (CUTE_DSL_KEEP=ptx?)")
    # Barriers (2*STAGES + 2*ACC_STAGES) i64 + i32 = 84 bytes at 0, then A and B stages,
    # 1024-aligned; checked against the constant the host code launches with.
    want = 1024 + BM * BK * 2 * STAGES + BN * BK * 2 * STAGES
    if f"llvm.mlir.constant({want} : i64)" not in str(compiled.ir_module):
        smem = re.findall(r"llvm.mlir.constant\((\d+) : i64\)", str(compiled.ir_module))
        raise SystemExit(f"{name}: expected {want} bytes of dynamic shared memory; "
                         f"candidates {smem[:20]}")
    launch = dict(block=[THREADS, 1, 1], cluster=[1, 1, 1], shared=want, name=name,
                  arg_names=["mma", "tma_a", "tma_b", "c"])
    return ptx, launch


def _cases(launch):
    M, N, K = SHAPE
    rng = np.random.default_rng(5401)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(N, K)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float32)
    why = "fp16 inputs exact; f32 accumulation of K = 192 terms: 2^-24·K·Σ|ab| < 1e-5"
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u64": 0}]
    mma_fields += [{"u32": 0}] * 4
    args = dict(
        mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the disable-output-lane mask "
                               "(vector<4 x i32>), all zero"),
        tma_a=TensorMapArg("a", box=[BK, BM], swizzle="128B"),
        tma_b=TensorMapArg("b", box=[BK, BN], swizzle="128B"),
        c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"))
    return [Case(launch["name"], grid=[GRID],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], expected, 1e-5, 1e-5, why)),
                 args=args,
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{N}x{K}]^T, fp16 in, f32 out, CuTe DSL: "
                      f"persistent ({GRID} CTAs over 8 tiles of {BM}x{BN}), producer warp 4 "
                      f"(TMA + MMA, {STAGES}-stage ring), epilogue warps 0-3, "
                      f"{ACC_STAGES}-stage TMEM accumulator, 16x128b TMEM loads")]


KERNELS = [
    CuteKernel(name="ho3_cute_persistent", build=_build, cases=_cases,
               must_contain=("tcgen05.mma.cta_group::1", "tcgen05.ld.sync.aligned.16x128b",
                             "cp.async.bulk.tensor")),
]
