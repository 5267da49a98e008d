"""Holdout batch 6a (Gluon, Triton 3.9): five kernels whose PTX forms no compiler output in the
corpus had before.

ho6_gluon_gather_scatter: an indexed row permutation fused into a matmul,
OUT[dst[i], :] = X[src[i], :] @ W^T. The rows of X are fetched by TMA **gather**
(`tma.async_gather`: `cp.async.bulk.tensor.2d.tile::gather4`, four rows a copy), W streams by
ordinary TMA loads through a 2-stage ring whose stages are released by the MMA's own mbarrier,
and the fp16 result rows leave by TMA **scatter** (`tma.async_scatter`:
`cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4`) after `fence_async_shared`.

ho6_gluon_ws4: a persistent, warp-specialised GEMM with **four** partitions: an A-loader warp
and a B-loader warp, each with its own ready/empty mbarrier ring, an MMA warp whose every
`tcgen05_mma` releases **both** rings (`mbarriers=[a_empty, b_empty]`: two commits per MMA), and
the 4-warp epilogue, which reads each half of the double-buffered TMEM accumulator through a
column **slice** and writes it by TMA store from a staging buffer.

ho6_gluon_2cta_fp8_mn: `tcgen05.mma.cta_group::2.kind::f8f6f4` (two_ctas) with e4m3 operands and
an **MN-major B** (B given K x N, not permuted), 256x128 cluster tile, 3-stage ring, fp16 out.

ho6_gluon_i8_tma_minmax: a kind::i8 GEMM whose 32-column TMEM slices are folded across N tiles by
TMA reductions `tma.async_atomic_max` / `async_atomic_min` (`cp.reduce.async.bulk.tensor .max /
.min` on s32).

ho6_gluon_mma_scaled_cp: `tcgen05_mma_scaled` (mxf8f6f4, e4m3 x e5m2) with the e8m0 scales staged
in shared memory as [32, 4, 4] blocks and copied into TMEM by `tcgen05_copy` (tcgen05.cp
.32x128b.warpx4), one MMA in flight.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 TensorMemoryScalesLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_copy,
                                                                 tcgen05_mma, tcgen05_mma_scaled,
                                                                 tma)

from regen import (Case, HostTMA, Input, Output, Ptr, TritonKernel, e4m3_bits_to_f64,
                   e8m0_to_f64, random_e4m3_bits)


def _desc(shape, layout, dtype="fp16"):
    return f"tensordesc<{dtype}[{shape[0]},{shape[1]}],{layout!r}>"


def _grid_f16(rng, shape, steps=8):
    return (rng.integers(-steps, steps + 1, size=shape) / steps).astype(np.float16)


# ---------------------------------------------------------------------------------------------
# TMA gather -> MMA -> TMA scatter.
# ---------------------------------------------------------------------------------------------
GM, GN, GK = 128, 64, 64
ROW_LAYOUT = gl.NVMMASharedLayout.get_default_for([GM, GK], gl.float16)
W_LAYOUT = gl.NVMMASharedLayout.get_default_for([GN, GK], gl.float16)
O_LAYOUT = gl.NVMMASharedLayout.get_default_for([GM, GN], gl.float16)


@gluon.jit
def gather_scatter_kernel(x_desc, w_desc, out_desc, src_ptr, dst_ptr, K):
    BLOCK_M: gl.constexpr = 128
    BLOCK_K: gl.constexpr = x_desc.block_shape[1]
    BLOCK_N: gl.constexpr = w_desc.block_shape[0]
    # gather/scatter offsets: 4 contiguous per thread, the same in every lane of a warp
    idx_layout: gl.constexpr = gl.SliceLayout(
        0, gl.BlockedLayout([1, 4], [32, 1], [1, gl.num_warps()], [1, 0]))
    rows = gl.program_id(0) * BLOCK_M + gl.arange(0, BLOCK_M, idx_layout)
    src = gl.load(src_ptr + rows)
    dst = gl.load(dst_ptr + rows)
    off_n = gl.program_id(1) * BLOCK_N

    x_s = gl.allocate_shared_memory(gl.float16, [2, BLOCK_M, BLOCK_K], ROW_LAYOUT)
    w_s = gl.allocate_shared_memory(gl.float16, [2, BLOCK_N, BLOCK_K], w_desc.layout)
    o_s = gl.allocate_shared_memory(gl.float16, [BLOCK_M, BLOCK_N], out_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    freed = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(freed.index(i), count=1)
    mbarrier.init(done, count=1)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))

    stage_bytes: gl.constexpr = BLOCK_M * BLOCK_K * 2 + w_desc.block_type.nbytes
    n_k = K // BLOCK_K
    mbarrier.expect(ready.index(0), stage_bytes)
    tma.async_gather(x_desc, src, 0, ready.index(0), x_s.index(0))
    tma.async_load(w_desc, [off_n, 0], ready.index(0), w_s.index(0))
    for ki in range(n_k):
        s = ki % 2
        if ki + 1 < n_k:
            ns = (ki + 1) % 2
            if ki >= 1:
                mbarrier.wait(freed.index(ns), ((ki - 1) // 2) & 1)
            mbarrier.expect(ready.index(ns), stage_bytes)
            tma.async_gather(x_desc, src, (ki + 1) * BLOCK_K, ready.index(ns), x_s.index(ns))
            tma.async_load(w_desc, [off_n, (ki + 1) * BLOCK_K], ready.index(ns), w_s.index(ns))
        mbarrier.wait(ready.index(s), (ki // 2) & 1)
        tcgen05_mma(x_s.index(s), w_s.index(s).permute((1, 0)), acc, use_acc=(ki != 0),
                    mbarriers=[freed.index(s)])
    tcgen05_commit(done)
    mbarrier.wait(done, 0)
    for i in gl.static_range(2):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(freed.index(i))
    mbarrier.invalidate(done)

    out = acc.load(acc.get_reg_layout())
    o_s.store(out.to(gl.float16))
    fence_async_shared()
    tma.async_scatter(out_desc, dst, off_n, o_s)
    tma.store_wait(0)


def _gather_scatter_cases():
    T, K, N = 256, 192, 128
    rng = np.random.default_rng(7301)
    x = _grid_f16(rng, (T, K))
    w = _grid_f16(rng, (N, K), 4)
    src = rng.permutation(T).astype(np.int32)
    # every row written exactly once: dst a permutation of the output rows
    dst = rng.permutation(T).astype(np.int32)
    out = np.zeros((T, N), np.float64)
    out[dst] = x[src].astype(np.float64) @ w.astype(np.float64).T
    why = ("x on a 1/8 and w on a 1/4 grid: products on a 1/32 grid, sums of 192 terms below "
           "2^8 exact in f32; the fp16 output rounds (half an ulp, 2^-11 relative): rtol 1e-3, "
           "atol 1e-3")
    return [Case("ho6_gluon_gather_scatter", grid=[T // GM, N // GN],
                 buffers=dict(x=Input(x, "f16"), w=Input(w, "f16"),
                              out=Output("f16", [T, N], out.astype(np.float32), 1e-3, 1e-3, why),
                              src=Input(src, "i32"), dst=Input(dst, "i32")),
                 args=dict(x_desc=HostTMA("x"), w_desc=HostTMA("w"), out_desc=HostTMA("out"),
                           src_ptr=Ptr("src"), dst_ptr=Ptr("dst"), K=K),
                 note=f"OUT[dst[i], :] = X[src[i], :] @ W^T for X[{T}x{K}], W[{N}x{K}] fp16 "
                      "(src, dst permutations): X rows by TMA gather (tile::gather4), W by TMA "
                      "through a 2-stage ring released by the MMA's mbarrier, fp16 rows out by "
                      "TMA scatter (tile::scatter4)")]


# ---------------------------------------------------------------------------------------------
# Four partitions: A loader, B loader, MMA issuer, epilogue.
# ---------------------------------------------------------------------------------------------
WM, WN, WK, WSTAGES = 128, 128, 64, 3
WA_LAYOUT = gl.NVMMASharedLayout.get_default_for([WM, WK], gl.float16)
WB_LAYOUT = gl.NVMMASharedLayout.get_default_for([WN, WK], gl.float16)
WC_LAYOUT = gl.NVMMASharedLayout.get_default_for([WM, WN // 2], gl.float32)


@gluon.jit
def _ws4_epilogue(c_desc, acc_tmem, acc_ready, acc_empty, c_s, num_tiles, n_tiles_n):
    BLOCK_M: gl.constexpr = c_desc.block_shape[0]
    HALF: gl.constexpr = c_desc.block_shape[1]
    i = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        b = i % 2
        mbarrier.wait(acc_ready.index(b), (i // 2) & 1)
        acc = acc_tmem.index(b)
        off_m = (tile // n_tiles_n) * BLOCK_M
        off_n = (tile % n_tiles_n) * (2 * HALF)
        for h in gl.static_range(2):
            part = acc.slice(h * HALF, HALF)
            vals = part.load(part.get_reg_layout())
            if h == 1:
                # both halves read: the MMA warp may overwrite this buffer
                mbarrier.arrive(acc_empty.index(b), count=1)
            tma.store_wait(1)
            c_s.index(h).store(vals)
            fence_async_shared()
            tma.async_store(c_desc, [off_m, off_n + h * HALF], c_s.index(h))
        i += 1
    tma.store_wait(0)


@gluon.jit
def _ws4_load(desc, bufs, ready, empty, num_tiles, n_tiles_n, k_tiles, IS_A: gl.constexpr,
              STAGES: gl.constexpr):
    BLOCK: gl.constexpr = desc.block_shape[0]
    BLOCK_K: gl.constexpr = desc.block_shape[1]
    cnt = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        if IS_A:
            off = (tile // n_tiles_n) * BLOCK
        else:
            off = (tile % n_tiles_n) * BLOCK
        for kk in range(k_tiles):
            s = cnt % STAGES
            mbarrier.wait(empty.index(s), ((cnt // STAGES) & 1) ^ 1)
            mbarrier.expect(ready.index(s), desc.block_type.nbytes)
            tma.async_load(desc, [off, kk * BLOCK_K], ready.index(s), bufs.index(s))
            cnt += 1


@gluon.jit
def _ws4_mma(a_s, b_s, acc_tmem, a_ready, a_empty, b_ready, b_empty, acc_ready, acc_empty,
             num_tiles, k_tiles, STAGES: gl.constexpr):
    cnt = 0
    i = 0
    for tile in range(gl.program_id(0), num_tiles, gl.num_programs(0)):
        b = i % 2
        mbarrier.wait(acc_empty.index(b), ((i // 2) & 1) ^ 1)
        acc = acc_tmem.index(b)
        for kk in range(k_tiles):
            s = cnt % STAGES
            mbarrier.wait(a_ready.index(s), (cnt // STAGES) & 1)
            mbarrier.wait(b_ready.index(s), (cnt // STAGES) & 1)
            tcgen05_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=kk > 0,
                        mbarriers=[a_empty.index(s), b_empty.index(s)])
            cnt += 1
        tcgen05_commit(acc_ready.index(b))
        i += 1


@gluon.jit
def ws4_kernel(a_desc, b_desc, c_desc, M, N, K, STAGES: gl.constexpr):
    BLOCK_M: gl.constexpr = a_desc.block_shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_shape[0]
    a_s = gl.allocate_shared_memory(a_desc.dtype, [STAGES, BLOCK_M, BLOCK_K], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [STAGES, BLOCK_N, BLOCK_K], b_desc.layout)
    c_s = gl.allocate_shared_memory(gl.float32, [2, BLOCK_M, BLOCK_N // 2], c_desc.layout)
    a_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    a_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    b_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    b_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    acc_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    acc_empty = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for q in gl.static_range(STAGES):
        mbarrier.init(a_ready.index(q), count=1)
        mbarrier.init(a_empty.index(q), count=1)
        mbarrier.init(b_ready.index(q), count=1)
        mbarrier.init(b_empty.index(q), count=1)
    for q in gl.static_range(2):
        mbarrier.init(acc_ready.index(q), count=1)
        mbarrier.init(acc_empty.index(q), count=1)
    fence_async_shared()
    acc_tmem = allocate_tensor_memory(gl.float32, [2, BLOCK_M, BLOCK_N],
                                      TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    n_tiles_n = gl.cdiv(N, BLOCK_N)
    num_tiles = gl.cdiv(M, BLOCK_M) * n_tiles_n
    k_tiles = gl.cdiv(K, BLOCK_K)
    gl.warp_specialize([
        (_ws4_epilogue, (c_desc, acc_tmem, acc_ready, acc_empty, c_s, num_tiles, n_tiles_n)),
        (_ws4_load, (a_desc, a_s, a_ready, a_empty, num_tiles, n_tiles_n, k_tiles, True,
                     STAGES)),
        (_ws4_load, (b_desc, b_s, b_ready, b_empty, num_tiles, n_tiles_n, k_tiles, False,
                     STAGES)),
        (_ws4_mma, (a_s, b_s, acc_tmem, a_ready, a_empty, b_ready, b_empty, acc_ready, acc_empty,
                    num_tiles, k_tiles, STAGES)),
    ], [1, 1, 1], [24, 24, 24])


def _ws4_cases():
    M, N, K, progs = 384, 128, 192, 2
    rng = np.random.default_rng(7302)
    a = _grid_f16(rng, (M, K))
    bt = _grid_f16(rng, (N, K))
    c = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    why = "inputs on a 1/8 grid: products on a 1/64 grid, sums of 320 below 2^9: exact in f32"
    return [Case("ho6_gluon_ws4", grid=[progs],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f32", [M, N], c, 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"), M=M,
                           N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T, fp16 in, f32 out; {progs} "
                      "persistent programs over 3 tiles of 128x128; partitions: epilogue "
                      "(4 warps, TMEM column slices, TMA stores), A loader, B loader (own "
                      "ready/empty rings, 3 stages), MMA issuer (each MMA arrives on both "
                      "rings' empty barriers); double-buffered TMEM accumulator")]


# ---------------------------------------------------------------------------------------------
# cta_group::2, kind::f8f6f4, MN-major B.
# ---------------------------------------------------------------------------------------------
CM, CN, CK = 256, 128, 128
FA_LAYOUT = gl.NVMMASharedLayout.get_default_for([CM, CK], gl.float8e4nv, cga_layout=[[1, 0]])
FB_LAYOUT = gl.NVMMASharedLayout.get_default_for([CK, CN], gl.float8e4nv, cga_layout=[[0, 1]])


@gluon.jit
def two_cta_fp8_mn_kernel(a_desc, b_desc, c_ptr, N, K):
    gl.static_assert(gl.num_ctas() == 2)
    STAGES: gl.constexpr = 3
    cluster_m: gl.constexpr = a_desc.block_shape[0]
    block_k: gl.constexpr = a_desc.block_shape[1]
    tile_n: gl.constexpr = b_desc.block_shape[1]
    off_m = gl.program_id(0) * cluster_m
    off_n = gl.program_id(1) * tile_n

    a_s = gl.allocate_shared_memory(a_desc.dtype, [STAGES] + a_desc.block_shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [STAGES] + b_desc.block_shape, b_desc.layout)
    ready = mbarrier.allocate_mbarrier(batch=STAGES, two_ctas=True)
    freed = mbarrier.allocate_mbarrier(batch=STAGES)
    done = mbarrier.allocate_mbarrier()
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(freed.index(i), count=1)
    mbarrier.init(done, count=1)

    acc_layout: gl.constexpr = TensorMemoryLayout(block=(cluster_m // 2, tile_n), col_stride=1,
                                                  cga_layout=[[1, 0]], two_ctas=True)
    acc = allocate_tensor_memory(gl.float32, [cluster_m, tile_n], acc_layout)

    stage_bytes: gl.constexpr = a_desc.nbytes_per_cta + b_desc.nbytes_per_cta
    n_k = K // block_k
    for p in gl.static_range(STAGES - 1):
        mbarrier.expect(ready.index(p), stage_bytes)
        tma.async_load(a_desc, [off_m, p * block_k], ready.index(p), a_s.index(p))
        tma.async_load(b_desc, [p * block_k, off_n], ready.index(p), b_s.index(p))
    for ki in range(n_k):
        s = ki % STAGES
        nk = ki + STAGES - 1
        if nk < n_k:
            ns = nk % STAGES
            if ki >= 1:
                # stage ns was last read by MMA ki - 1
                mbarrier.wait(freed.index(ns), ((ki - 1) // STAGES) & 1, deps=[a_s, b_s])
            mbarrier.expect(ready.index(ns), stage_bytes)
            tma.async_load(a_desc, [off_m, nk * block_k], ready.index(ns), a_s.index(ns))
            tma.async_load(b_desc, [nk * block_k, off_n], ready.index(ns), b_s.index(ns))
        mbarrier.wait(ready.index(s), (ki // STAGES) & 1, deps=[a_s, b_s])
        tcgen05_mma(a_s.index(s), b_s.index(s), acc, use_acc=(ki != 0),
                    mbarriers=[freed.index(s)])
    tcgen05_commit(done)
    mbarrier.wait(done, 0, deps=[a_s, b_s])
    for i in gl.static_range(STAGES):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(freed.index(i))
    mbarrier.invalidate(done)

    reg: gl.constexpr = acc.get_reg_layout()
    out = acc.load(reg)
    rm = off_m + gl.arange(0, cluster_m, gl.SliceLayout(1, reg))
    rn = off_n + gl.arange(0, tile_n, gl.SliceLayout(0, reg))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], out.to(gl.float16))


def _two_cta_fp8_cases():
    M, N, K = 256, 128, 640
    rng = np.random.default_rng(7303)
    a = random_e4m3_bits(rng, (M, K))
    b = random_e4m3_bits(rng, (K, N))
    expected = (e4m3_bits_to_f64(a) @ e4m3_bits_to_f64(b)).astype(np.float32)
    why = ("e4m3 products exact in f32; K = 640 terms of |ab| <= 4: the undocumented fp8 "
           "accumulation width errs < 4e-3 absolute on |acc| < 100; fp16 output half an ulp "
           "2^-11 relative: rtol 1e-3, atol 4e-3")
    return [Case("ho6_gluon_2cta_fp8_mn", grid=[M // CM, N // CN],
                 buffers=dict(a=Input(a, "fp8e4m3"), b=Input(b, "fp8e4m3"),
                              c=Output("f16", [M, N], expected, 1e-3, 4e-3, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], e4m3 x e4m3, fp16 out: "
                      f"cta_group::2 kind::f8f6f4 MMAs over clusters of 2 CTAs ({CM}x{CN} "
                      "cluster tile), B row-major (MN-major operand), 3-stage TMA ring.\nThe "
                      "grid is Triton's (clusters along x) times num_ctas = 2.")]


# ---------------------------------------------------------------------------------------------
# int8 MMA, TMA reduce-max / reduce-min epilogue.
# ---------------------------------------------------------------------------------------------
IM, IN, IK, IH = 128, 64, 64, 32
IA_LAYOUT = gl.NVMMASharedLayout.get_default_for([IM, IK], gl.int8)
IB_LAYOUT = gl.NVMMASharedLayout.get_default_for([IN, IK], gl.int8)
IO_LAYOUT = gl.NVMMASharedLayout.get_default_for([IM, IH], gl.int32)


@gluon.jit
def i8_minmax_kernel(a_desc, b_desc, mx_desc, mn_desc, K):
    BLOCK_M: gl.constexpr = a_desc.block_shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_shape[0]
    HALF: gl.constexpr = mx_desc.block_shape[1]
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N

    a_s = gl.allocate_shared_memory(gl.int8, [2, BLOCK_M, BLOCK_K], a_desc.layout)
    b_s = gl.allocate_shared_memory(gl.int8, [2, BLOCK_N, BLOCK_K], b_desc.layout)
    c_s = gl.allocate_shared_memory(gl.int32, [BLOCK_N // HALF, BLOCK_M, HALF], mx_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    freed = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(freed.index(i), count=1)
    mbarrier.init(done, count=1)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.int32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))

    stage_bytes: gl.constexpr = a_desc.block_type.nbytes + b_desc.block_type.nbytes
    n_k = K // BLOCK_K
    mbarrier.expect(ready.index(0), stage_bytes)
    tma.async_load(a_desc, [off_m, 0], ready.index(0), a_s.index(0))
    tma.async_load(b_desc, [off_n, 0], ready.index(0), b_s.index(0))
    for ki in range(n_k):
        s = ki % 2
        if ki + 1 < n_k:
            ns = (ki + 1) % 2
            if ki >= 1:
                mbarrier.wait(freed.index(ns), ((ki - 1) // 2) & 1)
            mbarrier.expect(ready.index(ns), stage_bytes)
            tma.async_load(a_desc, [off_m, (ki + 1) * BLOCK_K], ready.index(ns), a_s.index(ns))
            tma.async_load(b_desc, [off_n, (ki + 1) * BLOCK_K], ready.index(ns), b_s.index(ns))
        mbarrier.wait(ready.index(s), (ki // 2) & 1)
        tcgen05_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=(ki != 0),
                    mbarriers=[freed.index(s)])
    tcgen05_commit(done)
    mbarrier.wait(done, 0)
    for i in gl.static_range(2):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(freed.index(i))
    mbarrier.invalidate(done)

    # each 32-column half of the tile is folded into the [M, 32] max and min tensors
    for h in gl.static_range(BLOCK_N // HALF):
        part = acc.slice(h * HALF, HALF)
        c_s.index(h).store(part.load(part.get_reg_layout()))
    fence_async_shared()
    for h in gl.static_range(BLOCK_N // HALF):
        tma.async_atomic_max(mx_desc, [off_m, 0], c_s.index(h))
        tma.async_atomic_min(mn_desc, [off_m, 0], c_s.index(h))
    tma.store_wait(0)


def _i8_minmax_cases():
    M, N, K = 256, 256, 192
    rng = np.random.default_rng(7304)
    a = rng.integers(-8, 9, size=(M, K), dtype=np.int8)
    bt = rng.integers(-8, 9, size=(N, K), dtype=np.int8)
    c = a.astype(np.int64) @ bt.astype(np.int64).T
    folded = c.reshape(M, N // IH, IH)
    # the outputs start at 0, so 0 takes part in the max and the min
    mx = np.maximum(folded.max(axis=1), 0).astype(np.float64)
    mn = np.minimum(folded.min(axis=1), 0).astype(np.float64)
    why = "int8 products summed in s32 (|c| < 2^14) and integer max/min: exact"
    return [Case("ho6_gluon_i8_tma_minmax", grid=[M // IM, N // IN],
                 buffers=dict(a=Input(a, "i8"), b=Input(bt, "i8"),
                              mx=Output("i32", [M, IH], mx, 0.0, 0.0, why),
                              mn=Output("i32", [M, IH], mn, 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), mx_desc=HostTMA("mx"),
                           mn_desc=HostTMA("mn"), K=K),
                 note=f"C = A[{M}x{K}] @ Bt[{N}x{K}]^T in int8 -> s32 (kind::i8), folded by "
                      f"TMA reductions: MX[m, j] = max(0, max over n = j mod {IH} of C[m, n]), "
                      "MN likewise with min (cp.reduce.async.bulk.tensor .max / .min on s32, "
                      "from every 32-column TMEM slice of every tile)")]


# ---------------------------------------------------------------------------------------------
# Block-scaled MMA (mxf8f6f4, e4m3 x e5m2) with the scales copied into TMEM by tcgen05.cp.
# ---------------------------------------------------------------------------------------------
SM, SN, SK = 128, 128, 128
SA_LAYOUT = gl.NVMMASharedLayout.get_default_for([SM, SK], gl.float8e4nv)
SB_LAYOUT = gl.NVMMASharedLayout.get_default_for([SN, SK], gl.float8e5)


@gluon.jit
def mma_scaled_cp_kernel(a_desc, b_desc, sa_ptr, sb_ptr, c_ptr, N, K):
    BLOCK_M: gl.constexpr = a_desc.block_shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_shape[0]
    gl.static_assert(BLOCK_M == 128 and BLOCK_N == 128 and BLOCK_K == 128)
    off_n = gl.program_id(0) * BLOCK_N
    a_s = gl.allocate_shared_memory(a_desc.dtype, [BLOCK_M, BLOCK_K], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [BLOCK_N, BLOCK_K], b_desc.layout)
    # one K block of scales for 128 rows: 512 bytes stored [32, 4, 4] (row r = 32 j + l at
    # [l, j, m], m = the 4 scales of the row), viewed as the [128, 4] matrix tcgen05.cp wants
    s_l: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    sa_raw = gl.allocate_shared_memory(gl.uint8, [32, 16], s_l)
    sb_raw = gl.allocate_shared_memory(gl.uint8, [32, 16], s_l)
    sa_s = sa_raw.reshape((1, 1, 32, 4, 4)).permute((0, 3, 2, 1, 4)).reshape((BLOCK_M, 4))
    sb_s = sb_raw.reshape((1, 1, 32, 4, 4)).permute((0, 3, 2, 1, 4)).reshape((BLOCK_N, 4))
    tma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=1)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    sa_t = allocate_tensor_memory(gl.uint8, [BLOCK_M, 4], TensorMemoryScalesLayout())
    sb_t = allocate_tensor_memory(gl.uint8, [BLOCK_N, 4], TensorMemoryScalesLayout())

    pl: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [gl.num_warps(), 1], [1, 0])
    pr = gl.arange(0, 32, gl.SliceLayout(1, pl))
    pc = gl.arange(0, 16, gl.SliceLayout(0, pl))
    n_k = K // BLOCK_K
    for ki in range(n_k):
        mbarrier.expect(tma_bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_load(a_desc, [0, ki * BLOCK_K], tma_bar, a_s)
        tma.async_load(b_desc, [off_n, ki * BLOCK_K], tma_bar, b_s)
        blk = pr[:, None] * 16 + pc[None, :]
        sa_raw.store(gl.load(sa_ptr + ki * 512 + blk))
        sb_raw.store(gl.load(sb_ptr + (gl.program_id(0) * n_k + ki) * 512 + blk))
        fence_async_shared()
        tcgen05_copy(sa_s, sa_t)
        tcgen05_copy(sb_s, sb_t)
        mbarrier.wait(tma_bar, ki & 1)
        tcgen05_mma_scaled(a_s, b_s.permute((1, 0)), acc, sa_t, sb_t, "e4m3", "e5m2",
                           use_acc=ki > 0, mbarriers=[mma_bar])
        # the MMA reads A, B and both scale buffers until its barrier fires
        mbarrier.wait(mma_bar, ki & 1)
    mbarrier.invalidate(tma_bar)
    mbarrier.invalidate(mma_bar)
    reg: gl.constexpr = acc.get_reg_layout()
    out = acc.load(reg)
    rm = gl.arange(0, BLOCK_M, gl.SliceLayout(1, reg))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, reg))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], out)


def _scales_blocks(s):
    """[rows, K/32] e8m0 scales -> per (row block of 128, K block of 128) 512 bytes laid out
    [32, 4, 4]: row r = 32 j + l, scale column m of the block at [l, j, m]."""
    rows, cols = s.shape
    return np.ascontiguousarray(
        s.reshape(rows // 128, 4, 32, cols // 4, 4).transpose(0, 3, 2, 1, 4)).reshape(-1)


def _mma_scaled_cases():
    M, N, K = 128, 256, 384
    rng = np.random.default_rng(7305)
    a = random_e4m3_bits(rng, (M, K))
    # e5m2 values: the top byte of an fp16 (exact), |b| <= 2
    b16 = (rng.integers(-8, 9, size=(N, K)) / 4).astype(np.float16)
    bt = (b16.view(np.uint16) >> 8).astype(np.uint8)
    sa = rng.integers(124, 130, size=(M, K // 32), dtype=np.uint8)
    sb = rng.integers(124, 130, size=(N, K // 32), dtype=np.uint8)
    a64 = e4m3_bits_to_f64(a) * np.repeat(e8m0_to_f64(sa), 32, axis=1)
    b64 = b16.astype(np.float64) * np.repeat(e8m0_to_f64(sb), 32, axis=1)
    c = (a64 @ b64.T).astype(np.float32)
    why = ("scaled e4m3 x e5m2 products have at most 4 + 3 significant bits (exact in f32); "
           "K = 384 terms of |ab| <= 2·2^2·2·2^2: the f32 (or wider) sum errs < 2^-24·Σ|ab| < "
           "1e-3 absolute: rtol 1e-5, atol 1e-3")
    return [Case("ho6_gluon_mma_scaled_cp", grid=[N // SN],
                 buffers=dict(a=Input(a, "fp8e4m3"), b=Input(bt, "fp8e5m2"),
                              sa=Input(_scales_blocks(sa), "u8"),
                              sb=Input(_scales_blocks(sb), "u8"),
                              c=Output("f32", [M, N], c, 1e-5, 1e-3, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), sa_ptr=Ptr("sa"),
                           sb_ptr=Ptr("sb"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = (A·2^sa) e4m3 [{M}x{K}] @ ((B·2^sb) e5m2 [{N}x{K}])^T: "
                      "Gluon tcgen05_mma_scaled (kind::mxf8f6f4.block_scale), e8m0 scales "
                      "every 32 K staged in shared memory as [32, 4, 4] blocks and copied into "
                      "TMEM by tcgen05_copy (tcgen05.cp.32x128b.warpx4); A/B by TMA; one MMA "
                      "in flight")]


KERNELS = [
    TritonKernel(name="ho6_gluon_gather_scatter", fn=gather_scatter_kernel, gluon=True,
                 signature=dict(x_desc=_desc([1, GK], ROW_LAYOUT),
                                w_desc=_desc([GN, GK], W_LAYOUT),
                                out_desc=_desc([1, GN], O_LAYOUT), src_ptr="*i32",
                                dst_ptr="*i32", K="i32"),
                 constexprs={}, cases=_gather_scatter_cases, num_warps=4, num_stages=1,
                 aligned=("src_ptr", "dst_ptr", "K"),
                 must_contain=("tile::gather4", "tile::scatter4", "tcgen05.mma")),
    TritonKernel(name="ho6_gluon_ws4", fn=ws4_kernel, gluon=True,
                 signature=dict(a_desc=_desc([WM, WK], WA_LAYOUT), b_desc=_desc([WN, WK], WB_LAYOUT),
                                c_desc=_desc([WM, WN // 2], WC_LAYOUT, "fp32"), M="i32", N="i32",
                                K="i32", STAGES="constexpr"),
                 constexprs=dict(STAGES=WSTAGES), cases=_ws4_cases, num_warps=4, num_stages=1,
                 aligned=(), must_contain=("tcgen05.commit", "cp.async.bulk.tensor")),
    TritonKernel(name="ho6_gluon_2cta_fp8_mn", fn=two_cta_fp8_mn_kernel, gluon=True,
                 signature=dict(a_desc=_desc([CM, CK], FA_LAYOUT, "fp8e4nv"),
                                b_desc=_desc([CK, CN], FB_LAYOUT, "fp8e4nv"), c_ptr="*fp16",
                                N="i32", K="i32"),
                 constexprs={}, cases=_two_cta_fp8_cases, num_warps=4, num_stages=1, num_ctas=2,
                 aligned=("c_ptr", "N", "K"),
                 must_contain=("tcgen05.mma.cta_group::2.kind::f8f6f4", "cp.async.bulk.tensor")),
    TritonKernel(name="ho6_gluon_i8_tma_minmax", fn=i8_minmax_kernel, gluon=True,
                 signature=dict(a_desc=_desc([IM, IK], IA_LAYOUT, "i8"),
                                b_desc=_desc([IN, IK], IB_LAYOUT, "i8"),
                                mx_desc=_desc([IM, IH], IO_LAYOUT, "i32"),
                                mn_desc=_desc([IM, IH], IO_LAYOUT, "i32"), K="i32"),
                 constexprs={}, cases=_i8_minmax_cases, num_warps=4, num_stages=1,
                 aligned=("K",), must_contain=("kind::i8", "cp.reduce.async.bulk.tensor")),
    TritonKernel(name="ho6_gluon_mma_scaled_cp", fn=mma_scaled_cp_kernel, gluon=True,
                 signature=dict(a_desc=_desc([SM, SK], SA_LAYOUT, "fp8e4nv"),
                                b_desc=_desc([SN, SK], SB_LAYOUT, "fp8e5"), sa_ptr="*u8",
                                sb_ptr="*u8", c_ptr="*fp32", N="i32", K="i32"),
                 constexprs={}, cases=_mma_scaled_cases, num_warps=4, num_stages=1,
                 aligned=("sa_ptr", "sb_ptr", "c_ptr", "N", "K"),
                 must_contain=("block_scale", "tcgen05.cp")),
]
