"""Holdout batch 11, CuTe DSL: **TMA multicast between two 1-SM CTAs** (cluster (2, 1)).

C = A @ B^T, fp16, A (M, K) and B (N, K) both K-major. A cluster of 2 CTAs along M computes two
128-row tiles of the same 128 columns, each CTA with its own `tcgen05.mma.cta_group::1`
(CuTe VMNK shape (1, 2, 1, 1)). Both need the same B tile, so each CTA loads **half** of B's 128
rows and **multicasts** it to both (`CopyBulkTensorTileG2SMulticastOp(CtaGroup.ONE)`, mask from
`create_tma_multicast_mask(..., mcast_mode=1)`: `cp.async.bulk.tensor...multicast::cluster`
with mask 3), while A is loaded by each CTA alone. A stage's empty barrier is released by the
MMA commits of **both** CTAs (each read the half this CTA multicast): `PipelineTmaUmma` with a
consumer group of 2 and the cluster layout, whose commits are `tcgen05.commit.cta_group::1
...multicast::cluster`. The CuTe DSL clusters before this one all ran `cta_group::2` pairs
(batches 8-10); 1-SM multicast came only from Gluon (`ho3_gluon_multicast`) and CUTLASS C++
(`ho5_cutlass_e4m3_1sm`). 4 stages, `16x64b.x16` TMEM loads.

Inputs on a 1/2 grid (exact in fp16), sums of 256 products on a 1/4 grid: exact in f32.
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
MAX_STAGES = 4
CL_M = 2             # CTAs per cluster along M, sharing B


@cute.struct
class Barriers:
    load: cute.struct.MemRange[cutlass.Int64, MAX_STAGES * 2]
    acc: cute.struct.MemRange[cutlass.Int64, 2]
    tmem_addr: cutlass.Int32


@cute.kernel
def ho11_mcast1sm_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor,
                         tma_b: cute.CopyAtom, mB: cute.Tensor, mC: cute.Tensor,
                         sA_layout: cute.ComposedLayout, sB_layout: cute.ComposedLayout,
                         cluster_vmnk: cute.Layout, tiler: cutlass.Constexpr,
                         stages: cutlass.Constexpr, tmem_cols: cutlass.Constexpr,
                         ld_op: cutlass.Constexpr, ab: cutlass.Constexpr,
                         acc_t: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, by, _ = cute.arch.block_idx()
    coord = (bx, by, None)
    cl_coord = cluster_vmnk.get_flat_coord(cute.arch.block_idx_in_cluster())
    # B is shared by the CTAs of the cluster along M
    b_mcast = cpasync.create_tma_multicast_mask(cluster_vmnk, cl_coord, mcast_mode=1)

    smem = SmemAllocator()
    bars = smem.allocate(Barriers)
    sA = smem.allocate_tensor(element_type=ab, layout=sA_layout.outer, byte_alignment=1024,
                              swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=ab, layout=sB_layout.outer, byte_alignment=1024,
                              swizzle=sB_layout.inner)
    if warp == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)

    # a stage of this CTA's shared memory receives its A tile and both halves of B
    stage_bytes = (cute.size_in_bytes(ab, cute.select(sA_layout, mode=[0, 1, 2])) +
                   cute.size_in_bytes(ab, cute.select(sB_layout, mode=[0, 1, 2])))
    load_prod, load_cons = pipeline.PipelineTmaUmma.create(
        num_stages=stages, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        # a stage may be overwritten only when both CTAs' MMAs (each read the B half this CTA
        # multicast) have committed
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, CL_M),
        tx_count=stage_bytes, barrier_storage=bars.load.data_ptr(),
        cta_layout_vmnk=cluster_vmnk).make_participants()
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
    tBsB, tBgB = cpasync.tma_partition(tma_b, cl_coord[1],
                                       cute.make_layout(cute.size(cluster_vmnk, mode=[1])),
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
                      tma_bar_ptr=slot.barrier, mcast_mask=b_mcast)
            full = load_cons.wait_and_advance()
            for kb in cutlass.range_constexpr(cute.size(tCrA, mode=[2])):
                cute.gemm(mma, acc, tCrA[(None, None, kb, full.index)],
                          tCrB[(None, None, kb, full.index)], acc)
                mma.set(tcgen05.Field.ACCUMULATE, True)
            full.release()
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
        acc_prod.tail()
    pipeline.sync(barrier_id=1)
    tmem.free(acc.iterator)


def _mma(bm, bn):
    K, ONE, SMEM = OperandMajorMode.K, tcgen05.CtaGroup.ONE, tcgen05.OperandSource.SMEM
    return tcgen05.MmaF16BF16Op(cutlass.Float16, cutlass.Float32, (bm, bn, 16), ONE, SMEM, K, K)


def _ld_op(name, rep):
    return {"16x256b": tcgen05.Ld16x256bOp, "32x32b": tcgen05.Ld32x32bOp,
            "16x128b": tcgen05.Ld16x128bOp, "16x64b": tcgen05.Ld16x64bOp}[name](
                getattr(tcgen05.Repetition, f"x{rep}"))


@cute.jit
def ho11_mcast1sm(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, bm: cutlass.Constexpr,
                  bn: cutlass.Constexpr, bk: cutlass.Constexpr, stages: cutlass.Constexpr,
                  ld_name: cutlass.Constexpr, ld_rep: cutlass.Constexpr):
    tiler = (bm, bn, bk)
    mma = cute.make_tiled_mma(_mma(bm, bn))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, stages)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, stages)
    cluster_vmnk = cute.tiled_divide(cute.make_layout((CL_M, 1, 1)), (mma.thr_id, ))
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        cpasync.CopyBulkTensorTileG2SOp(tcgen05.CtaGroup.ONE), a,
        cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, cluster_vmnk.shape)
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        cpasync.CopyBulkTensorTileG2SMulticastOp(tcgen05.CtaGroup.ONE), b,
        cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, cluster_vmnk.shape)
    grid = cute.ceil_div((*c.layout.shape, 1), (bm, bn))
    ho11_mcast1sm_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, c, sA_layout,
                         sB_layout, cluster_vmnk, tiler, stages, max(bn, 32),
                         _ld_op(ld_name, ld_rep), a.element_type, c.element_type).launch(
                             grid=grid, block=(THREADS, 1, 1), cluster=(CL_M, 1, 1))


# name, (BM, BN, BK), stages, (tcgen05.ld shape, repetition), (M, N, K), seed
VARIANTS = [
    ("ho11_cute_mcast1sm_f16", (128, 128, 64), 4, ("16x64b", 16), (256, 128, 256), 11401),
]
SWIZZLE = {128: ("S<3,4,3>", "128B")}  # by K-row bytes


def _build(name, tile, stages, ld, shape):
    def build(tmp: Path):
        dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
        for old in dump.glob("*"):
            old.unlink()
        M, N, K = shape
        ab = cutlass.Float16
        a = make_fake_compact_tensor(ab, (M, K), stride_order=(1, 0), assumed_align=16)
        b = make_fake_compact_tensor(ab, (N, K), stride_order=(1, 0), assumed_align=16)
        c = make_fake_compact_tensor(cutlass.Float32, (M, N), stride_order=(1, 0),
                                     assumed_align=16)
        compiled = cute.compile(ho11_mcast1sm, a, b, c, *tile, stages, *ld)
        mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
        ptx = compiled.artifacts.PTX
        if not ptx or not ptx.lstrip().startswith("//"):
            raise SystemExit(f"{name}: no PTX kept (CUTE_DSL_KEEP=ptx?)")
        bm, bn, bk = tile
        # the TMA atoms (kept MLIR): A one 128-row box; B a multicast atom over the CL_M CTAs
        # (`num_multicast = 2`): its gbasis is the whole 128-row tile, of which each CTA copies
        # its 64-row share (the kernel offsets the row coordinate and the shared-memory
        # destination by rank * 64 rows), so the map's box is 64 rows
        boxes = sorted(set(re.findall(r'tma_gbasis = <"\(([^"]*)\):', mlir)))
        if boxes != [f"{bk},{bm}"] or bm != bn or \
                f"<{{kind = <sm_90_multicast> num_multicast = {CL_M}}}>" not in mlir:
            raise SystemExit(f"{name}: TMA boxes {boxes}; no {CL_M}-CTA multicast B atom")
        eb = 2
        swizzles = set(re.findall(r"S<\d,\d,\d>", mlir))
        if swizzles != {SWIZZLE[bk * eb][0]}:
            raise SystemExit(f"{name}: shared-memory swizzles {swizzles}, the spec says "
                             f"{SWIZZLE[bk * eb][1]}")
        shared = 1024 + (bm + bn) * bk * eb * stages
        if f"llvm.mlir.constant({shared} : i64)" not in str(compiled.ir_module):
            smem = re.findall(r"llvm.mlir.constant\((\d+) : i64\)", str(compiled.ir_module))
            raise SystemExit(f"{name}: expected {shared} bytes of dynamic shared memory; "
                             f"candidates {smem[:20]}")
        launch = dict(block=[THREADS, 1, 1], cluster=[CL_M, 1, 1], name=name,
                      shape=shape, tile=tile, stages=stages, ld=ld, shared=shared,
                      arg_names=["mma", "tma_a", "tma_b", "c"])
        return ptx, launch
    return build


def _cases(launch):
    M, N, K = launch["shape"]
    bm, bn, bk = launch["tile"]
    seed = dict((v[0], v[5]) for v in VARIANTS)[launch["name"]]
    rng = np.random.default_rng(seed)
    a = rng.integers(-2, 3, size=(M, K)) / 2
    b = rng.integers(-2, 3, size=(N, K)) / 2
    expected = (a @ b.T).astype(np.float32)
    why = ("fp16 inputs on a 1/2 grid: products on a 1/4 grid, sums of 256 terms below 2^8 are "
           "exact in f32 in any order: exact")
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u64": 0}]
    mma_fields += [{"u32": 0}] * 4
    sw = SWIZZLE[bk * 2][1]
    args = dict(
        mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the disable-output-lane mask "
                               "(vector<4 x i32>), all zero"),
        tma_a=TensorMapArg("a", box=[bk, bm], swizzle=sw),
        tma_b=TensorMapArg("b", box=[bk, bn // CL_M], swizzle=sw),
        c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"))
    ldn, rep = launch["ld"]
    return [Case(launch["name"], grid=[M // bm, N // bn],
                 buffers=dict(a=Input(a.astype(np.float16), "f16"),
                              b=Input(b.astype(np.float16), "f16"),
                              c=Output("f32", [M, N], expected, 0.0, 0.0, why)),
                 args=args,
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{N}x{K}]^T, fp16, A and B K-major, CuTe "
                      f"DSL, clusters of {CL_M}x1 CTAs, each a {bm}x{bn}x{bk} cta_group::1 "
                      f"tile; B multicast within the cluster (each CTA loads {bn // CL_M} of "
                      f"its {bn} rows), {launch['stages']} stages, tcgen05.ld {ldn}.x{rep}, "
                      "f32 out")]


KERNELS = [
    CuteKernel(name=name, build=_build(name, tile, stages, ld, shape), cases=_cases,
               must_contain=("tcgen05.mma.cta_group::1.kind::f16", "multicast::cluster",
                             f"tcgen05.ld.sync.aligned.{ld[0]}.x{ld[1]}"))
    for name, tile, stages, ld, shape, seed in VARIANTS
]
