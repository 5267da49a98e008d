"""Gluon: a 2-CTA matmul, `tcgen05.mma.cta_group::2` over a cluster of two CTAs.

The pair computes one 256 x TILE_N tile: each CTA loads (by TMA) its own 128 rows of A and its half
of B's columns; the lead CTA's MMA reads both CTAs' shared memory and writes a 128-row accumulator
in each CTA's Tensor Memory. The TMA barrier is a 2-CTA barrier (the lead waits for both halves);
the MMA completion is multicast to both CTAs' mbarriers. Each CTA then stores its 128 rows of C
with a TMA store. C = A @ B, fp16 in, fp16 out, f32 accumulation.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory, mbarrier,
                                                                 tcgen05_mma, tma)

from regen import Case, HostTMA, Input, Output, TritonKernel

CLUSTER_M, TILE_N, BK = 256, 64, 64
# CGA layouts: A and C are split along M between the two CTAs, B along N (the 2-CTA outer product).
A_LAYOUT = gl.NVMMASharedLayout.get_default_for([CLUSTER_M, BK], gl.float16, cga_layout=[[1, 0]])
B_LAYOUT = gl.NVMMASharedLayout.get_default_for([BK, TILE_N], gl.float16, cga_layout=[[0, 1]])
C_LAYOUT = gl.NVMMASharedLayout.get_default_for([CLUSTER_M, TILE_N], gl.float16, cga_layout=[[1, 0]])


@gluon.jit
def two_cta_matmul_kernel(a_desc, b_desc, c_desc, K):
    gl.static_assert(gl.num_ctas() == 2)
    cluster_m: gl.constexpr = a_desc.block_shape[0]
    block_k: gl.constexpr = a_desc.block_shape[1]
    tile_n: gl.constexpr = b_desc.block_shape[1]
    off_m = gl.program_id(0) * cluster_m
    off_n = gl.program_id(1) * tile_n

    smem_a = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_shape, a_desc.layout)
    smem_b = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_shape, b_desc.layout)
    tma_bar = mbarrier.allocate_mbarrier(two_ctas=True)
    mma_bar = mbarrier.allocate_mbarrier()
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=1)

    acc_layout: gl.constexpr = TensorMemoryLayout(block=(cluster_m // 2, tile_n), col_stride=1,
                                                  cga_layout=c_desc.layout.cga_layout, two_ctas=True)
    acc = allocate_tensor_memory(gl.float32, [cluster_m, tile_n], acc_layout)

    phase = 0
    for k in range(0, K, block_k):
        mbarrier.expect(tma_bar, a_desc.nbytes_per_cta + b_desc.nbytes_per_cta)
        tma.async_load(a_desc, [off_m, k], tma_bar, smem_a)
        tma.async_load(b_desc, [k, off_n], tma_bar, smem_b)
        mbarrier.wait(tma_bar, phase=phase, deps=[smem_a, smem_b])
        tcgen05_mma(smem_a, smem_b, acc, use_acc=(k != 0), mbarriers=[mma_bar])
        # The next TMA load overwrites smem_a/smem_b: wait for the MMA to finish reading them.
        mbarrier.wait(mma_bar, phase=phase, deps=[smem_a, smem_b])
        phase ^= 1
    mbarrier.invalidate(tma_bar)
    mbarrier.invalidate(mma_bar)

    c_smem = gl.allocate_shared_memory(c_desc.dtype, c_desc.block_shape, c_desc.layout)
    c_smem.store(acc.load().to(c_desc.dtype))
    tma.async_store(c_desc, [off_m, off_n], c_smem)
    tma.store_wait(0)


def _cases():
    M, N, K = 512, 64, 128
    rng = np.random.default_rng(81)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    why = ("f16 output: 2^-11 relative rounding plus f32 accumulation of K products "
           "(about 2^-24·K·Σ|ab| < 1e-4 here)")
    return [Case(
        "gluon_two_cta_mma", grid=[M // CLUSTER_M, N // TILE_N],
        buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                     c=Output("f16", [M, N], expected, 2e-3, 1e-3, why)),
        args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"), K=K),
        note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] with cta_group::2 MMAs, clusters of 2 CTAs "
             f"each computing a {CLUSTER_M}x{TILE_N} tile.\nThe grid is Triton's (clusters along x) "
             "times num_ctas = 2, as Triton's launcher does.")]


def _desc(shape, layout):
    return f"tensordesc<fp16[{shape[0]},{shape[1]}],{layout!r}>"


KERNELS = [
    TritonKernel(name="gluon_two_cta_mma", fn=two_cta_matmul_kernel, gluon=True,
                 signature=dict(a_desc=_desc([CLUSTER_M, BK], A_LAYOUT),
                                b_desc=_desc([BK, TILE_N], B_LAYOUT),
                                c_desc=_desc([CLUSTER_M, TILE_N], C_LAYOUT), K="i32"),
                 constexprs={}, cases=_cases, num_warps=4, num_stages=1, num_ctas=2,
                 must_contain=("tcgen05.mma.cta_group::2", "cp.async.bulk.tensor")),
]
