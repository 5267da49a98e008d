"""CuTe DSL: a small dense GEMM C = A @ B^T, fp16 in, fp32 accumulation in TMEM, fp16 out.

A is (M, K) and B is (N, K), both K-major (row-major in numpy); C is (M, N) row-major. Warp 0
streams K tiles with TMA into a 2-stage shared-memory ring and issues tcgen05.mma; then all four
warps read the accumulator with tcgen05.ld and store C. Two variants of one source:

* cutedsl_gemm_1cta: cta_group::1, one 128x128 tile per CTA.
* cutedsl_gemm_2cta: cta_group::2 over a cluster of two CTAs: the pair computes a 256x128 tile,
  each CTA loads its 128 rows of A and half of B's 128 columns; only the even (leader) CTA issues
  the MMAs, and its commit arrives on both CTAs' barriers (multicast).

Shapes are static (compiled in), so every CuTe tensor argument lowers to a bare pointer; the
TiledMma argument carries the MMA atom's runtime fields. The kernel entry takes `.param .b8`
structs; regen.py specs them with `packed = [...]` and `tensormap = {...}` (see `cases`).
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
TILE_M_PER_CTA, TILE_N, TILE_K = 128, 128, 64
STAGES = 2
THREADS = 128
TMEM_COLS = 128  # one f32 accumulator column per N


@cute.struct
class Barriers:
    load: cute.struct.MemRange[cutlass.Int64, STAGES * 2]   # full/empty per stage
    acc: cute.struct.MemRange[cutlass.Int64, 2]             # accumulator full/empty
    tmem_dealloc: cutlass.Int64                             # 2-CTA: peer tells leader it is done
    tmem_addr: cutlass.Int32                                # tcgen05.alloc writes the address here


@cute.kernel
def gemm_kernel(mma: cute.TiledMma, tma_a: cute.CopyAtom, mA: cute.Tensor, tma_b: cute.CopyAtom,
                mB: cute.Tensor, mC: cute.Tensor, sA_layout: cute.ComposedLayout,
                sB_layout: cute.ComposedLayout, cluster_vmnk: cute.Layout,
                tiler: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    bx, by, _ = cute.arch.block_idx()
    pair = cute.size(cluster_vmnk, mode=[0])           # 1 or 2 CTAs per MMA
    rank_in_pair = bx % pair
    is_leader = rank_in_pair == 0
    tile_coord = (bx // pair, by, None)
    cluster_coord = cluster_vmnk.get_flat_coord(cute.arch.block_idx_in_cluster())

    smem = SmemAllocator()
    bars = smem.allocate(Barriers)
    # 1024-byte alignment: the 128B-swizzle atom repeats every 1024 bytes, and both TMA and the
    # MMA descriptors assume the pattern starts there.
    sA = smem.allocate_tensor(element_type=IO, layout=sA_layout.outer, byte_alignment=1024,
                              swizzle=sA_layout.inner)
    sB = smem.allocate_tensor(element_type=IO, layout=sB_layout.outer, byte_alignment=1024,
                              swizzle=sB_layout.inner)

    if warp == 0:
        cpasync.prefetch_descriptor(tma_a)
        cpasync.prefetch_descriptor(tma_b)

    # In 2-CTA mode both CTAs' TMA loads complete on the leader's barrier.
    stage_bytes = (cute.size_in_bytes(IO, cute.select(sA_layout, mode=[0, 1, 2])) +
                   cute.size_in_bytes(IO, cute.select(sB_layout, mode=[0, 1, 2]))) * pair
    load_prod, load_cons = pipeline.PipelineTmaUmma.create(
        num_stages=STAGES, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 1),
        tx_count=stage_bytes, barrier_storage=bars.load.data_ptr(),
        cta_layout_vmnk=cluster_vmnk).make_participants()
    acc_prod, acc_cons = pipeline.PipelineUmmaAsync.create(
        num_stages=1, producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
        consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, pair * THREADS),
        barrier_storage=bars.acc.data_ptr(), cta_layout_vmnk=cluster_vmnk).make_participants()

    gA = cute.local_tile(mA, tiler, tile_coord, proj=(1, None, 1))   # (bM, bK, k tiles)
    gB = cute.local_tile(mB, tiler, tile_coord, proj=(None, 1, 1))   # (bN, bK, k tiles)
    gC = cute.local_tile(mC, tiler, tile_coord, proj=(1, 1, None))   # (bM, bN)
    thr_mma = mma.get_slice(rank_in_pair)
    tCgA = thr_mma.partition_A(gA)
    tCgB = thr_mma.partition_B(gB)
    tCgC = thr_mma.partition_C(gC)
    tCrA = mma.make_fragment_A(sA)
    tCrB = mma.make_fragment_B(sB)
    acc_proto = mma.make_fragment_C(mma.partition_shape_C(tiler[:2]))
    tAsA, tAgA = cpasync.tma_partition(tma_a, cluster_coord[2],
                                       cute.make_layout(cute.size(cluster_vmnk, mode=[2])),
                                       cute.group_modes(sA, 0, 3), cute.group_modes(tCgA, 0, 3))
    tBsB, tBgB = cpasync.tma_partition(tma_b, cluster_coord[1],
                                       cute.make_layout(cute.size(cluster_vmnk, mode=[1])),
                                       cute.group_modes(sB, 0, 3), cute.group_modes(tCgB, 0, 3))

    tmem = TmemAllocator(bars.tmem_addr,
                         barrier_for_retrieve=pipeline.NamedBarrier(barrier_id=1, num_threads=THREADS),
                         is_two_cta=pair > 1, two_cta_tmem_dealloc_mbar_ptr=bars.tmem_dealloc)
    tmem.allocate(TMEM_COLS)
    tmem.wait_for_alloc()
    acc = cute.make_tensor(tmem.retrieve_ptr(ACC), acc_proto.layout)

    # Main loop: warp 0 of each CTA loads; the leader's warp 0 also issues the MMAs.
    if warp == 0:
        if is_leader:
            acc_prod.acquire_and_advance()
        for _ in cutlass.range(cute.size(gA, mode=[2])):
            slot = load_prod.acquire_and_advance()
            cute.copy(tma_a, tAgA[(None, slot.count)], tAsA[(None, slot.index)],
                      tma_bar_ptr=slot.barrier)
            cute.copy(tma_b, tBgB[(None, slot.count)], tBsB[(None, slot.index)],
                      tma_bar_ptr=slot.barrier)
            if is_leader:
                full = load_cons.wait_and_advance()
                for kb in cutlass.range_constexpr(cute.size(tCrA, mode=[2])):
                    cute.gemm(mma, acc, tCrA[(None, None, kb, full.index)],
                              tCrB[(None, None, kb, full.index)], acc)
                    mma.set(tcgen05.Field.ACCUMULATE, True)
                full.release()
        if is_leader:
            acc_prod.commit()
    tmem.relinquish_alloc_permit()

    # Epilogue: TMEM -> registers (32 columns per tcgen05.ld) -> fp16 -> global.
    ld = tcgen05.make_tmem_copy(
        cute.make_copy_atom(tcgen05.Ld32x32bOp(tcgen05.Repetition.x32), ACC), acc)
    ld_thr = ld.get_slice(tidx)
    tDtAcc = ld_thr.partition_S(acc)
    tDgC = ld_thr.partition_D(tCgC)
    full_acc = acc_cons.wait_and_advance()
    r_acc = cute.make_rmem_tensor(tDgC.shape, ACC)
    cute.copy(ld, tDtAcc, r_acc)
    # tcgen05.ld is asynchronous: its registers are valid only after tcgen05.wait::ld.
    cute.arch.fence_view_async_tmem_load()
    r_out = cute.make_rmem_tensor(tDgC.shape, IO)
    r_out.store(r_acc.load().to(IO))
    cute.autovec_copy(r_out, tDgC)
    full_acc.release()

    if warp == 0:
        load_prod.tail()
        if is_leader:
            acc_prod.tail()
    pipeline.sync(barrier_id=1)
    tmem.free(acc.iterator)


@cute.jit
def gemm(a: cute.Tensor, b: cute.Tensor, c: cute.Tensor, pair: cutlass.Constexpr):
    group = tcgen05.CtaGroup.TWO if cutlass.const_expr(pair == 2) else tcgen05.CtaGroup.ONE
    tiler = (TILE_M_PER_CTA * pair, TILE_N, TILE_K)
    mma = cute.make_tiled_mma(tcgen05.MmaF16BF16Op(IO, ACC, (tiler[0], TILE_N, 16), group,
                                                   tcgen05.OperandSource.SMEM,
                                                   OperandMajorMode.K, OperandMajorMode.K))
    sA_layout = sm100_utils.make_smem_layout_a(mma, tiler, a.element_type, STAGES)
    sB_layout = sm100_utils.make_smem_layout_b(mma, tiler, b.element_type, STAGES)
    cluster_vmnk = cute.tiled_divide(cute.make_layout((pair, 1, 1)), (mma.thr_id, ))
    g2s = cpasync.CopyBulkTensorTileG2SOp(group)
    tma_a, tma_tensor_a = cute.nvgpu.make_tiled_tma_atom_A(
        g2s, a, cute.select(sA_layout, mode=[0, 1, 2]), tiler, mma, cluster_vmnk.shape)
    tma_b, tma_tensor_b = cute.nvgpu.make_tiled_tma_atom_B(
        g2s, b, cute.select(sB_layout, mode=[0, 1, 2]), tiler, mma, cluster_vmnk.shape)
    grid = cute.ceil_div((*c.layout.shape, 1), (TILE_M_PER_CTA, TILE_N))
    gemm_kernel(mma, tma_a, tma_tensor_a, tma_b, tma_tensor_b, c, sA_layout, sB_layout,
                cluster_vmnk, tiler).launch(grid=grid, block=(THREADS, 1, 1), cluster=(pair, 1, 1))


# ----------------------------------------------------------------------------------------------
# Offline compilation and specs
# ----------------------------------------------------------------------------------------------

# (name, CTAs per MMA, dynamic shapes, shapes of the cases). Static variants compile one shape
# in; the dynamic one takes M, N, K at launch (multiples of the tile: the kernel has no bounds
# checks), so one PTX serves both of its cases.
VARIANTS = [
    ("cutedsl_gemm_1cta", 1, False, [(256, 128, 256)]),
    ("cutedsl_gemm_2cta", 2, False, [(512, 128, 128)]),
    ("cutedsl_gemm_dyn", 1, True, [(384, 128, 128), (128, 256, 192)]),
]


def _smem_bytes(pair):
    """Dynamic shared memory of gemm_kernel, as SmemAllocator lays it out: the Barriers struct
    ((2 * STAGES + 3) i64 + one i32 = 60 bytes) at 0, then the A stages and the B stages, each
    1024-aligned. A: 128 x 64 fp16 per stage; B: 128/pair x 64 fp16 per stage. Checked against
    the constant the CuTe host code launches with."""
    a_bytes = TILE_M_PER_CTA * TILE_K * 2 * STAGES
    b_bytes = TILE_N // pair * TILE_K * 2 * STAGES
    return 1024 + a_bytes + b_bytes


def _fake_operands(M, N, K, dynamic):
    if dynamic:
        # Divisibility hints = the tile, which the kernel relies on anyway.
        M, N, K = (cute.sym_int32(divisibility=d) for d in (TILE_M_PER_CTA, TILE_N, TILE_K))
    a = make_fake_compact_tensor(IO, (M, K), stride_order=(1, 0), assumed_align=16)
    b = make_fake_compact_tensor(IO, (N, K), stride_order=(1, 0), assumed_align=16)
    c = make_fake_compact_tensor(IO, (M, N), stride_order=(1, 0), assumed_align=16)
    return a, b, c


def _build(name, pair, dynamic, shapes):
    def build(tmp: Path):
        dump = Path(os.environ["CUTE_DSL_DUMP_DIR"])
        for old in dump.glob("*"):
            old.unlink()
        compiled = cute.compile(gemm, *_fake_operands(*shapes[0], dynamic), pair)
        mlir = "".join(p.read_text() for p in dump.glob("*.mlir"))
        # The TMA boxes the specs claim must be the ones CuTe chose (kept MLIR: tma_gbasis).
        boxes = sorted(set(re.findall(r'tma_gbasis = <"\((\d+),(\d+)\):', mlir)))
        want = sorted({(str(TILE_K), str(TILE_M_PER_CTA)), (str(TILE_K), str(TILE_N // pair))})
        if boxes != want:
            raise SystemExit(f"{name}: TMA boxes {boxes}, specs say {want}")
        if dynamic:
            # The packed layouts in _cases follow these argument types: A's and B's TMA
            # coordinate tensors hold their two i32 extents (M, K) / (N, K); C is a pointer, its
            # i32 extents (M, N) and its i64 row stride.
            for ty in ('coord_tensor<"(0,0)", "(?{div=128},?{div=64}):(1@1,1@0)">',
                       '"(?{div=128},?{div=128}):(?{i64 div=128},1)"'):
                if ty not in mlir:
                    raise SystemExit(f"{name}: the kernel's argument types changed: no {ty}")
        ptx = compiled.artifacts.PTX
        if not ptx or not ptx.lstrip().startswith("//"):
            raise SystemExit(f"{name}: no PTX kept (CUTE_DSL_KEEP=ptx?)")
        smem = _smem_bytes(pair)
        if f"llvm.mlir.constant({smem} : i64)" not in str(compiled.ir_module):
            raise SystemExit(f"{name}: expected {smem} bytes of dynamic shared memory; the host "
                             "code launches with another size")
        arg_names = (["mma", "tma_a", "a_extents", "tma_b", "b_extents", "c"] if dynamic
                     else ["mma", "tma_a", "tma_b", "c"])
        launch = dict(block=[THREADS, 1, 1], cluster=[pair, 1, 1], shared=smem,
                      arg_names=arg_names, name=name, pair=pair, dynamic=dynamic, shapes=shapes)
        return ptx, launch
    return build


def _cases(launch):
    pair, dynamic = launch["pair"], launch["dynamic"]
    # The TiledMma struct (.align 16 .b8 [32] for cta_group::1, .align 32 .b8 [64] for ::2):
    # three i1 runtime fields of the MMA atom (the negate-A/negate-B/accumulate flags, all false
    # at launch: the kernel sets accumulate itself) at bytes 0..2, then the
    # disable-output-lane mask, vector<4 x i32> (::1) or vector<8 x i32> (::2), at its own
    # alignment (16 or 32), all zero. Fields below spell that layout with explicit zero padding.
    lanes = 4 if pair == 1 else 8
    mma_fields = [{"u8": 0}, {"u8": 0}, {"u8": 0}, {"u8": 0}, {"u32": 0}, {"u64": 0}]
    if pair == 2:
        mma_fields += [{"u64": 0}, {"u64": 0}]
    mma_fields += [{"u32": 0}] * lanes
    why = ("f16 output: 2^-11 relative rounding plus f32 accumulation of K products "
           "(about 2^-24·K·Σ|ab| < 1e-4 here)")
    out = []
    for i, (M, N, K) in enumerate(launch["shapes"]):
        rng = np.random.default_rng(90 + 10 * pair + dynamic + 100 * i)
        a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
        b = rng.uniform(-1, 1, size=(N, K)).astype(np.float16)
        expected = (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float32)
        args = dict(
            mma=Packed(mma_fields, "TiledMma: i1 x3 flags, then the disable-output-lane mask "
                                   f"(vector<{lanes} x i32>), all zero"),
            tma_a=TensorMapArg("a", box=[TILE_K, TILE_M_PER_CTA], swizzle="128B"),
            tma_b=TensorMapArg("b", box=[TILE_K, TILE_N // pair], swizzle="128B"))
        if dynamic:
            args.update(
                a_extents=Packed([{"i32": M}, {"i32": K}], "A's TMA coordinate tensor: (M, K)"),
                b_extents=Packed([{"i32": N}, {"i32": K}], "B's TMA coordinate tensor: (N, K)"),
                c=Packed([{"buffer": "c"}, {"i32": M}, {"i32": N}, {"i64": N}],
                         "C: pointer, extents (M, N), row stride (elements)"))
        else:
            args.update(c=Packed([{"buffer": "c"}], "C: static layout, so just the pointer"))
        name = launch["name"] + (f"_{M}x{N}x{K}" if dynamic else "")
        out.append(Case(
            name, grid=[M // TILE_M_PER_CTA, N // TILE_N],
            buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                         c=Output("f16", [M, N], expected, 2e-3, 1e-3, why)),
            args=args,
            note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{N}x{K}]^T, fp16, CuTe DSL, cta_group::{pair}"
                 + (", clusters of 2" if pair == 2 else "")
                 + (", shapes passed at launch" if dynamic else "")))
    return out


KERNELS = [
    CuteKernel(name=name, build=_build(name, pair, dynamic, shapes), cases=_cases,
               must_contain=(f"tcgen05.mma.cta_group::{pair}", "cp.async.bulk.tensor"))
    for name, pair, dynamic, shapes in VARIANTS
]
