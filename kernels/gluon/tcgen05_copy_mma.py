"""Gluon: D = A @ B + C where C reaches the accumulator through `tcgen05.cp`.

Each CTA computes a 128x128 tile: C (f32) is staged in shared memory and copied into Tensor
Memory with tcgen05_copy, then tcgen05_mma accumulates A@B on top of it (use_acc=True), K in
steps of 64. tcgen05.cp and tcgen05.mma are ordered on the tensor-core pipe, so the MMA sees the
copied C without an explicit wait; one tcgen05.commit per K step signals an mbarrier.
"""
import numpy as np
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_copy,
                                                                 tcgen05_mma)

from regen import Case, Input, Output, Ptr, TritonKernel

BM, BN, BK = 128, 128, 64


@gluon.jit
def matmul_acc_copy_kernel(a_ptr, b_ptr, c_ptr, d_ptr, M, N, K,
                           BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, BLOCK_K: gl.constexpr):
    # Row-major register layout for global loads/stores: a warp covers 32 consecutive columns.
    rows: gl.constexpr = gl.BlockedLayout([1, 1], [1, 32], [gl.num_warps(), 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    m = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, rows))
    n = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, rows))
    ka = gl.arange(0, BLOCK_K, gl.SliceLayout(0, rows))
    kb = gl.arange(0, BLOCK_K, gl.SliceLayout(1, rows))

    a_smem = gl.allocate_shared_memory(gl.float16, [BLOCK_M, BLOCK_K],
                                       gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_K], gl.float16))
    b_smem = gl.allocate_shared_memory(gl.float16, [BLOCK_K, BLOCK_N],
                                       gl.NVMMASharedLayout.get_default_for([BLOCK_K, BLOCK_N], gl.float16))
    # tcgen05.cp into a 32-bit TensorMemoryLayout wants a swizzled, non-transposed source.
    c_smem = gl.allocate_shared_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                       gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=32, rank=2))
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)

    mn_mask = (m[:, None] < M) & (n[None, :] < N)
    c = gl.load(c_ptr + m[:, None] * N + n[None, :], mask=mn_mask, other=0.0)
    c_smem.store(c)
    fence_async_shared()
    tcgen05_copy(c_smem, acc)

    phase = 0
    for k0 in range(0, K, BLOCK_K):
        a = gl.load(a_ptr + m[:, None] * K + (k0 + ka)[None, :],
                    mask=(m[:, None] < M) & ((k0 + ka)[None, :] < K), other=0.0)
        b = gl.load(b_ptr + (k0 + kb)[:, None] * N + n[None, :],
                    mask=((k0 + kb)[:, None] < K) & (n[None, :] < N), other=0.0)
        a_smem.store(a)
        b_smem.store(b)
        fence_async_shared()
        tcgen05_mma(a_smem, b_smem, acc, use_acc=True)
        tcgen05_commit(bar)
        # The MMA reads a_smem/b_smem asynchronously: wait before the next step overwrites them.
        mbarrier.wait(bar, phase)
        phase ^= 1
    mbarrier.invalidate(bar)

    d = gl.convert_layout(acc.load(), rows)
    gl.store(d_ptr + m[:, None] * N + n[None, :], d, mask=mn_mask)


def _cases():
    out = []
    for suffix, (M, N, K), seed in [("", (256, 128, 128), 71), ("_odd", (200, 136, 72), 72)]:
        rng = np.random.default_rng(seed)
        a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
        b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
        c = rng.uniform(-4, 4, size=(M, N)).astype(np.float32)
        expected = (a.astype(np.float64) @ b.astype(np.float64) + c).astype(np.float32)
        why = "f32 accumulation of K + 1 terms: 2^-24·(K+1)·(|c| + Σ|ab|) is below 1e-4"
        out.append(Case(
            "gluon_tcgen05_copy" + suffix, grid=[triton.cdiv(M, BM), triton.cdiv(N, BN)],
            buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"), c=Input(c, "f32"),
                         d=Output("f32", [M, N], expected, 1e-4, 1e-4, why)),
            args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), d_ptr=Ptr("d"), M=M, N=N, K=K),
            note=f"D[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] + C, C copied to TMEM with tcgen05.cp"))
    return out


KERNELS = [
    TritonKernel(name="gluon_tcgen05_copy", fn=matmul_acc_copy_kernel, gluon=True,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", d_ptr="*fp32",
                                M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK), cases=_cases,
                 num_warps=4, num_stages=1, aligned=("a_ptr", "b_ptr", "c_ptr", "d_ptr"),
                 must_contain=("tcgen05.cp", "tcgen05.mma")),
]
