"""Holdout Triton: a warp-specialised (non-persistent) matmul.

`tl.range(..., warp_specialize=True)` makes Triton split the K loop into a load partition and an
MMA partition (separate warps, mbarrier hand-offs, `setmaxnreg`); the main corpus only has a
warp-specialised *persistent* kernel with host TMA descriptors. Here the loads go through
device-side tensor descriptors (`tl.make_tensor_descriptor`: tensormap built in global scratch)
with a 64x128 B tile and 4 stages, f32 output.

Hardware check (kernels/holdout/hw_check.py on an H100, Triton 3.6): with WS=False the kernel
matches numpy; with WS=True Hopper returns wrong numbers that change from run to run (a race in
that Triton's Hopper warp specialisation). The sm_100a code is Triton 3.9's and has not been run
on hardware, so a race finding from tmemu here deserves a look before it is called false.
"""
import numpy as np
import triton
import triton.language as tl

from regen import Case, Input, Output, Ptr, TritonKernel


@triton.jit
def ws_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr, STAGES: tl.constexpr, WS: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K, num_stages=STAGES, warp_specialize=WS):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    rm = off_m + tl.arange(0, BLOCK_M)
    rn = off_n + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _cases():
    M, N, K = 200, 256, 320
    rng = np.random.default_rng(1101)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    why = "fp16 inputs exact; f32 accumulation of K = 320 terms: 2^-24·K·Σ|ab| < 2e-5"
    return [Case("ho_ws_matmul", grid=[triton.cdiv(M, 128), triton.cdiv(N, 128)],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], expected, 2e-5, 2e-5, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A @ B, fp16 in, f32 out; warp-specialised K loop (load and "
                      "MMA partitions), device-side tensor descriptors, 4 stages; M is not a "
                      "tile multiple (TMA zero-fills)")]


KERNELS = [
    TritonKernel(name="ho_ws_matmul", fn=ws_matmul_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr", STAGES="constexpr", WS="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64, STAGES=4, WS=True),
                 cases=_cases,
                 num_warps=4, num_stages=4, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "cp.async.bulk.tensor", "tensormap")),
]
