"""Holdout batch 7 (Gluon, Triton 3.9).

ho7_gluon_m64_blocks: a 128-row f32 accumulator whose TMEM layout has **64-row blocks**
(`TensorMemoryLayout(block=(64, N))`): the tensor core works in M = 64 pieces (layout F, rows
16 lanes per warp quarter) and the 128 rows are two blocks side by side in the columns. The
operands are computed in registers (gl.load + scale) and stored to NVMMA shared tiles
(`fence_async_shared`), each MMA is completed through an mbarrier of **count 2** that the
tensor core's commit and a thread arrive complete together, and the epilogue reads the
accumulator through two column **slices** of the M = 64 layout.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_mma)

from regen import Case, Input, Output, Ptr, TritonKernel

BM, BN, BK = 128, 64, 64


@gluon.jit
def m64_blocks_kernel(a_ptr, b_ptr, c_ptr, M, N, K):
    BLOCK_M: gl.constexpr = 128
    BLOCK_N: gl.constexpr = 64
    BLOCK_K: gl.constexpr = 64
    HALF: gl.constexpr = BLOCK_N // 2
    NW: gl.constexpr = gl.num_warps()
    ld: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [NW, 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, ld))
    rk = gl.arange(0, BLOCK_K, gl.SliceLayout(0, ld))
    rkb = gl.arange(0, BLOCK_K, gl.SliceLayout(1, ld))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, ld))

    a_s = gl.allocate_shared_memory(gl.float16, [BLOCK_M, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_K],
                                                                         gl.float16))
    b_s = gl.allocate_shared_memory(gl.float16, [BLOCK_K, BLOCK_N],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_K, BLOCK_N],
                                                                         gl.float16))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=2)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout((64, BLOCK_N), col_stride=1))
    for ki in range(K // BLOCK_K):
        k0 = ki * BLOCK_K
        a = gl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=rm[:, None] < M,
                    other=0.0)
        b = gl.load(b_ptr + (k0 + rkb)[:, None] * N + rn[None, :])
        a_s.store(a)
        b_s.store(b)
        fence_async_shared()
        tcgen05_mma(a_s, b_s, acc, use_acc=ki > 0, mbarriers=[bar])
        mbarrier.arrive(bar)
        mbarrier.wait(bar, ki & 1)
    mbarrier.invalidate(bar)

    for h in gl.static_range(2):
        part = acc.slice(h * HALF, HALF)
        out = part.load(part.get_reg_layout())
        out = gl.convert_layout(out, ld)
        cm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, ld))
        cn = off_n + h * HALF + gl.arange(0, HALF, gl.SliceLayout(0, ld))
        gl.store(c_ptr + cm[:, None] * N + cn[None, :], out, mask=cm[:, None] < M)


def _grid_f16(rng, shape, steps=8):
    return (rng.integers(-steps, steps + 1, size=shape) / steps).astype(np.float16)


def _m64_cases():
    M, N, K = 200, 128, 192
    rng = np.random.default_rng(7501)
    a = _grid_f16(rng, (M, K))
    b = _grid_f16(rng, (K, N))
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    why = ("inputs on a 1/8 grid: products on a 1/64 grid, sums of 192 terms below 2^8 exact "
           "in f32: exact")
    return [Case("ho7_gluon_m64_blocks", grid=[(M + BM - 1) // BM, N // BN],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] fp16: a 128x64 f32 accumulator in "
                      "TMEM with 64-row blocks (M = 64 MMAs), operands stored from registers, "
                      "each MMA completed through a count-2 mbarrier (commit + thread arrive), "
                      "read back through two 32-column slices")]


KERNELS = [
    TritonKernel(name="ho7_gluon_m64_blocks", fn=m64_blocks_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32",
                                K="i32"),
                 constexprs={}, cases=_m64_cases, num_warps=4, num_stages=1, gluon=True,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "N", "K"),
                 must_contain=("tcgen05.mma",)),
]
