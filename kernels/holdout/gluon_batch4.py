"""Holdout batch 4 (Gluon): synchronisation forms the earlier batches do not use.

* the A operand is computed in registers (x · scale), stored to an NVMMA-swizzled shared tile
  and handed to the tensor core after `fence_async_shared` (fence.proxy.async: a generic-proxy
  write read by the async proxy);
* one MMA's completion is committed to **two** mbarriers (`tcgen05_commit` twice), each waited
  for before reading its own half of the accumulator through a **TMEM column slice**
  (`acc.slice(0, N/2)`, `acc.slice(N/2, N/2)`);
* a gate mbarrier initialised with count 4 and completed by two `mbarrier.arrive(count=2)`
  (`mbarrier.arrive.shared::cta.b64 _, [bar], 2`).

ho4_gluon_two_cta_kmajor: a 2-CTA (`tcgen05.mma.cta_group::2`) matmul unlike the main corpus's
one: B given N×K (K-major, `permute`), a 256x128 cluster tile in bf16, a 2-deep shared-memory
ring (the TMA of step k+1 is in flight while MMA k runs, each stage released by its own MMA
barrier), and an f32 epilogue through registers (`gl.store`) instead of a TMA store.

Inputs are on coarse grids, so every value is exact in f32: tolerance 0.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_mma, tma)

from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel

BM, BN, BK = 128, 64, 64
W_LAYOUT = gl.NVMMASharedLayout.get_default_for([BN, BK], gl.float16)


@gluon.jit
def commit_fanout_kernel(x_ptr, w_desc, out_ptr, gate_ptr, scale):
    BLOCK_M: gl.constexpr = 128
    BLOCK_N: gl.constexpr = w_desc.block_shape[0]
    BLOCK_K: gl.constexpr = w_desc.block_shape[1]
    HALF: gl.constexpr = BLOCK_N // 2
    NW: gl.constexpr = gl.num_warps()
    off_m = gl.program_id(0) * BLOCK_M

    w_s = gl.allocate_shared_memory(w_desc.dtype, [BLOCK_N, BLOCK_K], w_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    bar_lo = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    bar_hi = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    gate = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(ready, count=1)
    mbarrier.init(bar_lo, count=1)
    mbarrier.init(bar_hi, count=1)
    mbarrier.init(gate, count=4)
    fence_async_shared()

    mbarrier.expect(ready, w_desc.nbytes_per_cta)
    tma.async_load(w_desc, [0, 0], ready, w_s)

    # A = x · scale, computed in registers and stored for the tensor core.
    blk: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [NW, 1], [1, 0])
    rm = gl.arange(0, BLOCK_M, gl.SliceLayout(1, blk))
    rk = gl.arange(0, BLOCK_K, gl.SliceLayout(0, blk))
    x = gl.load(x_ptr + (off_m + rm)[:, None] * BLOCK_K + rk[None, :])
    a_layout: gl.constexpr = gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_K], gl.float16)
    a_s = gl.allocate_shared_memory(gl.float16, [BLOCK_M, BLOCK_K], a_layout)
    a_s.store((x.to(gl.float32) * scale).to(gl.float16))
    fence_async_shared()

    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    mbarrier.wait(ready, 0)
    tcgen05_mma(a_s, w_s.permute((1, 0)), acc, use_acc=False)
    tcgen05_commit(bar_lo)
    tcgen05_commit(bar_hi)

    mbarrier.arrive(gate, count=2)
    mbarrier.arrive(gate, count=2)
    mbarrier.wait(gate, 0)

    lo = acc.slice(0, HALF)
    hi = acc.slice(HALF, HALF)
    reg: gl.constexpr = lo.get_reg_layout()
    rm_o = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, reg))
    rn_o = gl.arange(0, HALF, gl.SliceLayout(0, reg))
    mbarrier.wait(bar_lo, 0)
    gl.store(out_ptr + rm_o[:, None] * BLOCK_N + rn_o[None, :], lo.load(reg))
    mbarrier.wait(bar_hi, 0)
    gl.store(out_ptr + rm_o[:, None] * BLOCK_N + (HALF + rn_o)[None, :], hi.load(reg))
    # the gate barrier's phase bit after its one completed phase, read back as data
    gl.store(gate_ptr + gl.program_id(0), 1)
    mbarrier.invalidate(ready)
    mbarrier.invalidate(bar_lo)
    mbarrier.invalidate(bar_hi)
    mbarrier.invalidate(gate)


def _cases():
    M = 256
    rng = np.random.default_rng(6101)
    x = (rng.integers(-8, 9, size=(M, BK)) / 4).astype(np.float16)
    w = (rng.integers(-4, 5, size=(BN, BK)) / 2).astype(np.float16)
    scale = 0.5
    out = (x.astype(np.float64) * scale) @ w.astype(np.float64).T
    why = "x on a 1/4 grid times 0.5 is exact in fp16, w on a 1/2 grid, |out| < 2^7: exact in f32"
    return [Case("ho4_gluon_commit_fanout", grid=[M // BM],
                 buffers=dict(x=Input(x, "f16"), w=Input(w, "f16"),
                              out=Output("f32", [M, BN], out.astype(np.float32), 0.0, 0.0, why),
                              gate=Output("i32", [M // BM], np.ones(M // BM, np.float32), 0.0,
                                          0.0, "every program passes the gate: 1")),
                 args=dict(x_ptr=Ptr("x"), w_desc=HostTMA("w"), out_ptr=Ptr("out"),
                           gate_ptr=Ptr("gate"), scale=scale),
                 note=f"OUT = (X·0.5) @ W^T for X[{M}x{BK}], W[{BN}x{BK}] fp16: A built in "
                      "registers + fence_async_shared, one MMA committed to two mbarriers, each "
                      "half of the accumulator read through a TMEM column slice after its own "
                      "barrier; a count-4 gate mbarrier completed by two arrive(count=2)")]


def _desc(shape, layout, dtype="fp16"):
    return f"tensordesc<{dtype}[{shape[0]},{shape[1]}],{layout!r}>"


CM2, TN2, BK2 = 256, 128, 64
A2_LAYOUT = gl.NVMMASharedLayout.get_default_for([CM2, BK2], gl.bfloat16, cga_layout=[[1, 0]])
B2_LAYOUT = gl.NVMMASharedLayout.get_default_for([TN2, BK2], gl.bfloat16, cga_layout=[[1, 0]])


@gluon.jit
def two_cta_kmajor_kernel(a_desc, b_desc, c_ptr, N, K):
    gl.static_assert(gl.num_ctas() == 2)
    cluster_m: gl.constexpr = a_desc.block_shape[0]
    block_k: gl.constexpr = a_desc.block_shape[1]
    tile_n: gl.constexpr = b_desc.block_shape[0]
    off_m = gl.program_id(0) * cluster_m
    off_n = gl.program_id(1) * tile_n

    a_s = gl.allocate_shared_memory(a_desc.dtype, [2] + a_desc.block_shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [2] + b_desc.block_shape, b_desc.layout)
    ready = mbarrier.allocate_mbarrier(batch=2, two_ctas=True)
    freed = mbarrier.allocate_mbarrier(batch=2)
    for i in gl.static_range(2):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(freed.index(i), count=1)

    acc_layout: gl.constexpr = TensorMemoryLayout(block=(cluster_m // 2, tile_n), col_stride=1,
                                                  cga_layout=[[1, 0]], two_ctas=True)
    acc = allocate_tensor_memory(gl.float32, [cluster_m, tile_n], acc_layout)

    n_k = K // block_k
    mbarrier.expect(ready.index(0), a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
    tma.async_load(a_desc, [off_m, 0], ready.index(0), a_s.index(0))
    tma.async_load(b_desc, [off_n, 0], ready.index(0), b_s.index(0))
    for ki in range(n_k):
        s = ki % 2
        if ki + 1 < n_k:
            ns = (ki + 1) % 2
            if ki >= 1:
                # stage ns was read by MMA ki-1: wait for its release
                mbarrier.wait(freed.index(ns), ((ki - 1) // 2) & 1, deps=[a_s, b_s])
            mbarrier.expect(ready.index(ns), a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
            tma.async_load(a_desc, [off_m, (ki + 1) * block_k], ready.index(ns), a_s.index(ns))
            tma.async_load(b_desc, [off_n, (ki + 1) * block_k], ready.index(ns), b_s.index(ns))
        mbarrier.wait(ready.index(s), (ki // 2) & 1, deps=[a_s, b_s])
        tcgen05_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=(ki != 0),
                    mbarriers=[freed.index(s)])
    last = n_k - 1
    mbarrier.wait(freed.index(last % 2), (last // 2) & 1, deps=[a_s, b_s])
    for i in gl.static_range(2):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(freed.index(i))

    reg: gl.constexpr = acc.get_reg_layout()
    out = acc.load(reg)
    rm = off_m + gl.arange(0, cluster_m, gl.SliceLayout(1, reg))
    rn = off_n + gl.arange(0, tile_n, gl.SliceLayout(0, reg))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], out)


def _two_cta_cases():
    from regen import bf16_bits_to_f64, f32_to_bf16_bits
    M, N, K = 512, 256, 256
    rng = np.random.default_rng(6102)
    a = f32_to_bf16_bits(rng.uniform(-1, 1, size=(M, K)).astype(np.float32))
    bt = f32_to_bf16_bits(rng.uniform(-1, 1, size=(N, K)).astype(np.float32))
    expected = (bf16_bits_to_f64(a) @ bf16_bits_to_f64(bt).T).astype(np.float32)
    why = "bf16 inputs exact, f32 accumulation of K = 256 terms: 2^-24·K·Σ|ab| < 1e-4"
    return [Case("ho4_gluon_two_cta_kmajor", grid=[M // CM2, N // TN2],
                 buffers=dict(a=Input(a, "bf16"), b=Input(bt, "bf16"),
                              c=Output("f32", [M, N], expected, 1e-4, 1e-4, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T, bf16, cta_group::2 MMAs over "
                      f"clusters of 2 CTAs ({CM2}x{TN2} cluster tile, B K-major), 2-stage TMA "
                      "ring released by per-stage MMA barriers, f32 out through registers.\nThe "
                      "grid is Triton's (clusters along x) times num_ctas = 2.")]


KERNELS = [
    TritonKernel(name="ho4_gluon_commit_fanout", fn=commit_fanout_kernel, gluon=True,
                 signature=dict(x_ptr="*fp16", w_desc=_desc([BN, BK], W_LAYOUT),
                                out_ptr="*fp32", gate_ptr="*i32", scale="fp32"),
                 constexprs=dict(), cases=_cases, num_warps=4, num_stages=1,
                 aligned=("x_ptr", "out_ptr", "gate_ptr"),
                 must_contain=("tcgen05.commit", "fence.proxy.async", "tcgen05.ld")),
    TritonKernel(name="ho4_gluon_two_cta_kmajor", fn=two_cta_kmajor_kernel, gluon=True,
                 signature=dict(a_desc=_desc([CM2, BK2], A2_LAYOUT, "bf16"),
                                b_desc=_desc([TN2, BK2], B2_LAYOUT, "bf16"), c_ptr="*fp32",
                                N="i32", K="i32"),
                 constexprs={}, cases=_two_cta_cases, num_warps=4, num_stages=1, num_ctas=2,
                 aligned=("c_ptr", "N", "K"),
                 must_contain=("tcgen05.mma.cta_group::2", "cp.async.bulk.tensor")),
]
