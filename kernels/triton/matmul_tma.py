"""Matmuls that move tiles with TMA (cp.async.bulk.tensor) into tcgen05.mma:

* matmul_tma_host: host-side `TensorDescriptor` parameters. Each one reaches the kernel as a
  128-byte `.param .b8` tensor map followed by the descriptor's shape (i32) and strides (i64).
* matmul_tma_device: descriptors built in the kernel with `tl.make_tensor_descriptor` (the tensor
  maps are written to Triton's global scratch buffer, then fenced and used).
* matmul_ws_persistent: a persistent kernel whose tile loop is warp-specialised
  (`tl.range(..., warp_specialize=True)`): loader, MMA and epilogue warps talk through mbarriers.

C = A @ B with A [M, K], B [K, N] row-major fp16, C fp16. Out-of-bounds tile parts are zero-filled
by TMA on load and clipped on store, so shapes need not be tile multiples.
"""
import numpy as np
import triton
import triton.language as tl

from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel

BM, BN, BK = 128, 128, 64


@triton.jit
def matmul_tma_host_kernel(a_desc, b_desc, c_desc, M, N, K,
                           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def matmul_tma_device_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


@triton.jit
def matmul_ws_persistent_kernel(a_desc, b_desc, c_desc, M, N, K,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr):
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    for tile_id in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True,
                            warp_specialize=True):
        off_m = (tile_id // num_pid_n) * BLOCK_M
        off_n = (tile_id % num_pid_n) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([off_m, ki * BLOCK_K])
            b = b_desc.load([ki * BLOCK_K, off_n])
            acc = tl.dot(a, b, acc)
        c_desc.store([off_m, off_n], acc.to(tl.float16))


WHY = ("f16 output: 2^-11 relative rounding plus f32 accumulation of K products "
       "(about 2^-24·K·Σ|ab| < 1e-4 here)")


def _problem(M, N, K, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return dict(a=Input(a, "f16"), b=Input(b, "f16"), c=Output("f16", [M, N], expected, 2e-3, 1e-3, WHY))


def _tma_host_cases():
    out = []
    for suffix, (M, N, K), seed in [("", (256, 128, 128), 61), ("_odd", (200, 136, 72), 62)]:
        out.append(Case(
            "matmul_tma_host" + suffix, grid=[triton.cdiv(M, BM), triton.cdiv(N, BN)],
            buffers=_problem(M, N, K, seed),
            args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"), M=M, N=N, K=K),
            note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] fp16 via host TMA descriptors"))
    return out


def _tma_device_cases():
    out = []
    for suffix, (M, N, K), seed in [("", (256, 128, 128), 63), ("_odd", (200, 136, 72), 64)]:
        out.append(Case(
            "matmul_tma_device" + suffix, grid=[triton.cdiv(M, BM), triton.cdiv(N, BN)],
            buffers=_problem(M, N, K, seed),
            args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
            note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] fp16 via device-side TMA descriptors "
                 "(written to the global scratch buffer)"))
    return out


WS_SMS = 2
WS_BN = 64


def _ws_cases():
    M, N, K = 256, 128, 128
    tiles = triton.cdiv(M, BM) * triton.cdiv(N, WS_BN)
    return [Case(
        "matmul_ws_persistent", grid=[min(WS_SMS, tiles)], buffers=_problem(M, N, K, 65),
        args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"), M=M, N=N, K=K),
        note=f"persistent warp-specialised matmul: {tiles} tiles of {BM}x{WS_BN} over {WS_SMS} CTAs")]


def _desc(shape):
    return f"tensordesc<fp16[{shape[0]}, {shape[1]}]>"


KERNELS = [
    TritonKernel(name="matmul_tma_host", fn=matmul_tma_host_kernel,
                 signature=dict(a_desc=_desc([BM, BK]), b_desc=_desc([BK, BN]),
                                c_desc=_desc([BM, BN]), M="i32", N="i32", K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK), cases=_tma_host_cases,
                 num_warps=4, num_stages=3,
                 must_contain=("tcgen05.mma", "cp.async.bulk.tensor")),
    TritonKernel(name="matmul_tma_device", fn=matmul_tma_device_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32",
                                K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK), cases=_tma_device_cases,
                 num_warps=4, num_stages=3, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "cp.async.bulk.tensor", "tensormap")),
    TritonKernel(name="matmul_ws_persistent", fn=matmul_ws_persistent_kernel,
                 signature=dict(a_desc=_desc([BM, BK]), b_desc=_desc([BK, WS_BN]),
                                c_desc=_desc([BM, WS_BN]), M="i32", N="i32", K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr",
                                NUM_SMS="constexpr"),
                 constexprs=dict(BLOCK_M=BM, BLOCK_N=WS_BN, BLOCK_K=BK, NUM_SMS=WS_SMS),
                 cases=_ws_cases, num_warps=4, num_stages=3,
                 must_contain=("tcgen05.mma", "cp.async.bulk.tensor")),
]
