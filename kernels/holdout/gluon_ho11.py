"""Holdout batch 11 (Gluon, Triton 3.9).

ho11_gluon_m64_n8: the **smallest MMA of the ISA**, M = 64 and **N = 8** (kind::f16; compiler
output so far had N >= 16): 64-row tiles, four 64x8 MMAs per K step into 8-column slices of a
32-column TMEM accumulator (D at columns 0, 8, 16, 24: `taddr + 8j`), B tiles of 8 rows (one
128B swizzle atom), one `tcgen05_commit` for the four, every slice read back on its own
(layout F, 8 columns: `16x32bx2.x4` loads).
ho11_gluon_m128_n8: the same source with 128-row tiles: **M = 128, N = 8** (Table 39 allows N in
steps of 8 for M = 128 with cta_group::1), `32x32b` loads of 8 columns.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_mma)

from regen import Case, Input, Output, Ptr, TritonKernel

NSLICE = 4


@gluon.jit
def narrow_slices_kernel(a_ptr, b_ptr, c_ptr, N, K, BLOCK_M: gl.constexpr,
                         BLOCK_N: gl.constexpr):
    BLOCK_K: gl.constexpr = 64
    NS: gl.constexpr = 4
    dt: gl.constexpr = a_ptr.dtype.element_ty
    rows: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    cols: gl.constexpr = gl.BlockedLayout([1, 1], [4, 8], [gl.num_warps(), 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, rows))
    rn = gl.arange(0, BLOCK_N, gl.SliceLayout(1, rows))
    rk = gl.arange(0, BLOCK_K, gl.SliceLayout(0, rows))
    om = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, cols))
    oc = gl.arange(0, BLOCK_N, gl.SliceLayout(0, cols))

    a_s = gl.allocate_shared_memory(dt, [BLOCK_M, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_K], dt))
    b_s = gl.allocate_shared_memory(dt, [NS, BLOCK_N, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_K], dt))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, NS * BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    for ki in range(K // BLOCK_K):
        k0 = ki * BLOCK_K
        if ki > 0:
            # the four MMAs of the previous step still read a_s and b_s
            mbarrier.wait(bar, (ki - 1) & 1)
        a_s.store(gl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :]))
        for j in gl.static_range(NS):
            b_s.index(j).store(gl.load(b_ptr + (j * BLOCK_N + rn)[:, None] * K
                                       + (k0 + rk)[None, :]))
        fence_async_shared()
        for j in gl.static_range(NS):
            tcgen05_mma(a_s, b_s.index(j).permute((1, 0)), acc.slice(j * BLOCK_N, BLOCK_N),
                        use_acc=ki > 0)
        tcgen05_commit(bar)
    mbarrier.wait(bar, (K // BLOCK_K - 1) & 1)
    mbarrier.invalidate(bar)
    for j in gl.static_range(NS):
        part = acc.slice(j * BLOCK_N, BLOCK_N)
        out = gl.convert_layout(part.load(part.get_reg_layout()), cols)
        gl.store(c_ptr + om[:, None] * N + (j * BLOCK_N + oc)[None, :], out)


def _narrow_cases(bm, bn, name, seed):
    M, N, K = 128, bn * NSLICE, 192
    rng = np.random.default_rng(seed)
    a = (rng.integers(-2, 3, size=(M, K)) / 2).astype(np.float16)
    bt = (rng.integers(-2, 3, size=(N, K)) / 2).astype(np.float16)
    ref = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of 192 terms below 2^8 are "
           "exact in f32 in any order: exact")
    return [Case(name, grid=[M // bm],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T fp16: {bm}-row tiles, four "
                      f"{bm}x{bn} MMAs per K step into {bn}-column slices of one "
                      f"{bn * NSLICE}-column TMEM accumulator, one tcgen05_commit for the four, "
                      "slices read back one by one; f32 out, 4 warps")]


def _kernel(name, bm, bn, seed):
    return TritonKernel(name=name, fn=narrow_slices_kernel,
                        signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", N="i32",
                                       K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr"),
                        constexprs=dict(BLOCK_M=bm, BLOCK_N=bn),
                        cases=lambda: _narrow_cases(bm, bn, name, seed), num_warps=4,
                        num_stages=1, gluon=True,
                        aligned=("a_ptr", "b_ptr", "c_ptr", "N", "K"))


KERNELS = [_kernel("ho11_gluon_m64_n8", 64, 8, 11201), _kernel("ho11_gluon_m128_n8", 128, 8, 11202)]
