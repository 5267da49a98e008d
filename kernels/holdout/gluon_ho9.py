"""Holdout batch 9 (Gluon, Triton 3.9).

ho9_gluon_col_slices / ho9_gluon_col_slices_m64: one 256-column f32 TMEM accumulator written
by four MMAs per K step, each into its own 64-column **`tensor_memory_descriptor.slice`** (D
addresses at column offsets 0/64/128/192) with its own 64-row block of B, completed by one
explicit **`tcgen05_commit(bar)`** for all four (not `mbarriers=`); the epilogue reads the
slices back one by one. The second spec is the same source with a 64-row tile: the MMAs are
**M = 64** (TMEM layout F) and the slices 64 rows tall. A and B go to shared memory through
registers (pointer loads) and the single buffer of each is reused every K step after the
commit's mbarrier.

ho9_gluon_row_slices: the row counterpart: a 128-row TMEM accumulator with 64-row blocks, two
**M = 64** MMAs per K step into its two **row slices** (`slice(.., dim=0)`); Gluon addresses
the second half at **lane 16** (`taddr + (16 << 16)`, layout F's second 16-lane group of each
warp quarter), in a 64-column allocation.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_mma)

from regen import Case, Input, Output, Ptr, TritonKernel

SN, SK, NSLICE = 64, 64, 4


@gluon.jit
def col_slices_kernel(a_ptr, b_ptr, c_ptr, N, K, BLOCK_M: gl.constexpr):
    BLOCK_N: gl.constexpr = 64
    BLOCK_K: gl.constexpr = 64
    NS: gl.constexpr = 4
    dt: gl.constexpr = a_ptr.dtype.element_ty
    rows: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, rows))
    rn = gl.arange(0, BLOCK_N, gl.SliceLayout(1, rows))
    rk = gl.arange(0, BLOCK_K, gl.SliceLayout(0, rows))
    rc = gl.arange(0, BLOCK_N, gl.SliceLayout(0, rows))

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
        out = gl.convert_layout(part.load(part.get_reg_layout()), rows)
        gl.store(c_ptr + rm[:, None] * N + (j * BLOCK_N + rc)[None, :], out)


def _col_slices_cases(bm, name, seed):
    M, N, K = 128, SN * NSLICE, 192
    rng = np.random.default_rng(seed)
    # a coarse grid (1/2 in [-1, 1]) keeps the committed files small
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
                      f"{bm}x64 MMAs per K step into 64-column slices of one 256-column TMEM "
                      "accumulator, one tcgen05_commit for the four, slices read back one by "
                      "one; f32 out, 4 warps")]


KERNELS = [
    TritonKernel(name=f"ho9_gluon_col_slices{sfx}", fn=col_slices_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", N="i32", K="i32",
                                BLOCK_M="constexpr"),
                 constexprs=dict(BLOCK_M=bm),
                 cases=(lambda bm=bm, sfx=sfx, seed=seed:
                        _col_slices_cases(bm, f"ho9_gluon_col_slices{sfx}", seed)),
                 num_warps=4, num_stages=1, gluon=True, aligned=("a_ptr", "b_ptr", "c_ptr", "N",
                                                                 "K"))
    for bm, sfx, seed in ((128, "", 9201), (64, "_m64", 9202))
]


@gluon.jit
def row_slices_kernel(a_ptr, b_ptr, c_ptr, N, K):
    # Two M = 64 MMAs per K step into the two 64-row halves of one 128-row TMEM accumulator
    # (`slice(.., dim=0)`): the second half's D is a lane offset, not a column offset.
    BLOCK_M: gl.constexpr = 128
    HALF: gl.constexpr = 64
    BLOCK_N: gl.constexpr = 64
    BLOCK_K: gl.constexpr = 64
    dt: gl.constexpr = a_ptr.dtype.element_ty
    rows: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    rh = gl.arange(0, HALF, gl.SliceLayout(1, rows))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(1, rows))
    rk = gl.arange(0, BLOCK_K, gl.SliceLayout(0, rows))
    rc = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, rows))
    a_s = gl.allocate_shared_memory(dt, [2, HALF, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([HALF, BLOCK_K], dt))
    b_s = gl.allocate_shared_memory(dt, [BLOCK_N, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_K], dt))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([HALF, BLOCK_N], col_stride=1))
    for ki in range(K // BLOCK_K):
        k0 = ki * BLOCK_K
        if ki > 0:
            mbarrier.wait(bar, (ki - 1) & 1)
        for h in gl.static_range(2):
            a_s.index(h).store(gl.load(a_ptr + (off_m + h * HALF + rh)[:, None] * K
                                       + (k0 + rk)[None, :]))
        b_s.store(gl.load(b_ptr + rn[:, None] * K + (k0 + rk)[None, :]))
        fence_async_shared()
        for h in gl.static_range(2):
            tcgen05_mma(a_s.index(h), b_s.permute((1, 0)), acc.slice(h * HALF, HALF, dim=0),
                        use_acc=ki > 0)
        tcgen05_commit(bar)
    mbarrier.wait(bar, (K // BLOCK_K - 1) & 1)
    mbarrier.invalidate(bar)
    for h in gl.static_range(2):
        part = acc.slice(h * HALF, HALF, dim=0)
        out = gl.convert_layout(part.load(part.get_reg_layout()), rows)
        gl.store(c_ptr + (off_m + h * HALF + rh)[:, None] * N + rc[None, :], out)


def _row_slices_cases():
    M, N, K = 256, 128, 128
    rng = np.random.default_rng(9203)
    a = (rng.integers(-2, 3, size=(M, K)) / 2).astype(np.float16)
    bt = (rng.integers(-2, 3, size=(N, K)) / 2).astype(np.float16)
    ref = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of 128 terms below 2^7 are "
           "exact in f32 in any order: exact")
    return [Case("ho9_gluon_row_slices", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T fp16: each 128x64 tile as two "
                      "M = 64 MMAs per K step into the two 64-row halves of one TMEM "
                      "accumulator (slice along rows), one tcgen05_commit; f32 out, 4 warps")]


KERNELS.append(
    TritonKernel(name="ho9_gluon_row_slices", fn=row_slices_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", N="i32", K="i32"),
                 constexprs={}, cases=_row_slices_cases, num_warps=4, num_stages=1, gluon=True,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "N", "K")))
