"""Holdout batch 9 (Triton 3.9): JIT-style compiled kernels (aligned pointers and multiple-of-16
integers marked `tt.divisibility = 16`, as triton/runtime/jit.py specialises them) varying what
batches 3-8 did not. Each kernel is our own:

* ho9_bmm_host4d_mn: batched matmul over [batch, head] through **rank-4 host** tensor
  descriptors, B given K x N (an **MN-major** B by 4-D TMA), fp16 out by a 4-D TMA store.
* ho9_devdesc5d_m64: **rank-5 device** descriptors (`tl.make_tensor_descriptor` over
  [P, Q, R, M, K]) feeding **M = 64** MMAs, fp16 out by a 5-D TMA store.
* ho9_gemm_beta_c: D = A B + beta C with the accumulator **initialised from loaded data**
  (acc = beta C, then tl.dot(a, b, acc)): a non-zero D put in TMEM before the first MMA.
* ho9_gemm_i8_m64_n32: int8 GEMM with **M = 64, N = 32** (kind::i8 with layout F), K 128 per
  step, M and N masked.
* ho9_dot_scaled_f16_mxfp8: `tl.dot_scaled` of an unscaled **fp16** lhs with an **mxfp8
  (e4m3 + e8m0)** rhs: Triton upcasts the rhs to fp16 in registers (scale applied there) and
  issues kind::f16 MMAs.
* ho9_bug_tf32_mn_a (COMPILER_BUGS): tf32 with **A given K x M** (MN-major A) by host TMA:
  Triton stages A through registers into one shared buffer and races the MMA reading it.
"""
import numpy as np
import triton
import triton.language as tl

from regen import (Case, HostTMA, Input, Output, Ptr, TritonKernel, e4m3_bits_to_f64,
                   e8m0_to_f64, f32_to_bf16_bits, bf16_bits_to_f64, random_e4m3_bits)


def _grid_f16(rng, shape, steps=2):
    """fp16 values k/steps, |k| <= steps: exact, and so are their products and short sums (a
    coarse grid keeps the committed .npy.gz files small)."""
    return (rng.integers(-steps, steps + 1, size=shape) / steps).astype(np.float16)


def _tensordesc(dtype, shape):
    return f"tensordesc<{dtype}[{', '.join(str(s) for s in shape)}]>"


EXACT_F16_OUT = ("inputs on a 1/2 grid in [-1, 1]: products on a 1/4 grid, sums of at most 256 "
                 "terms below 2^8 are exact in f32 in any order; the fp16 output is one round-to-nearest-even "
                 "of that exact value, which the reference applies too: exact")


# ---------------------------------------------------------------------------------------------
# Rank-4 host descriptors, MN-major B.
# ---------------------------------------------------------------------------------------------
@triton.jit
def bmm_host4d_mn_kernel(a_desc, b_desc, c_desc, H, K, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    bh = tl.program_id(2)
    b_i = bh // H
    h_i = bh % H
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K):
        a = a_desc.load([b_i, h_i, off_m, k]).reshape(BLOCK_M, BLOCK_K)
        b = b_desc.load([b_i, h_i, k, off_n]).reshape(BLOCK_K, BLOCK_N)
        acc = tl.dot(a, b, acc)
    c_desc.store([b_i, h_i, off_m, off_n], acc.to(tl.float16).reshape(1, 1, BLOCK_M, BLOCK_N))


def _bmm4d_cases():
    NB, H, M, N, K = 2, 2, 128, 64, 192
    rng = np.random.default_rng(9101)
    a = _grid_f16(rng, (NB, H, M, K))
    b = _grid_f16(rng, (NB, H, K, N))
    exact = np.einsum("bhmk,bhkn->bhmn", a.astype(np.float64), b.astype(np.float64))
    ref = exact.astype(np.float16).astype(np.float32)
    return [Case("ho9_bmm_host4d_mn", grid=[M // 128, N // 64, NB * H],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [NB, H, M, N], ref, 0.0, 0.0, EXACT_F16_OUT)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"), H=H,
                           K=K),
                 note=f"C[b, h] = A[b, h] @ B[b, h] for {NB}x{H} (batch, head) pairs of "
                      f"{M}x{N}x{K}, fp16: rank-4 host tensor descriptors, A [1, 1, 128, 64] "
                      "K-major, B [1, 1, 64, 64] MN-major (given K x N), C by a 4-D TMA store; "
                      "128x64x64, 4 warps, 3 stages")]


# ---------------------------------------------------------------------------------------------
# Rank-5 device descriptors with M = 64 tiles.
# ---------------------------------------------------------------------------------------------
@triton.jit
def devdesc5d_kernel(a_ptr, b_ptr, c_ptr, Q, R, M, N, K, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    P = tl.num_programs(2) // (Q * R)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[P, Q, R, M, K],
                                       strides=[Q * R * M * K, R * M * K, M * K, K, 1],
                                       block_shape=[1, 1, 1, BLOCK_M, BLOCK_K])
    # B given N x K per batch (K-major), read transposed
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[P, Q, R, N, K],
                                       strides=[Q * R * N * K, R * N * K, N * K, K, 1],
                                       block_shape=[1, 1, 1, BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[P, Q, R, M, N],
                                       strides=[Q * R * M * N, R * M * N, M * N, N, 1],
                                       block_shape=[1, 1, 1, BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    z = tl.program_id(2)
    p = z // (Q * R)
    q = (z // R) % Q
    r = z % R
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([p, q, r, off_m, k]).reshape(BLOCK_M, BLOCK_K)
        b = b_desc.load([p, q, r, off_n, k]).reshape(BLOCK_N, BLOCK_K)
        acc = tl.dot(a, b.T, acc)
    c_desc.store([p, q, r, off_m, off_n],
                 acc.to(tl.float16).reshape(1, 1, 1, BLOCK_M, BLOCK_N))


def _devdesc5d_cases():
    P, Q, R, M, N, K = 2, 2, 2, 64, 64, 96
    rng = np.random.default_rng(9102)
    a = _grid_f16(rng, (P, Q, R, M, K))
    bt = _grid_f16(rng, (P, Q, R, N, K))
    exact = np.einsum("pqrmk,pqrnk->pqrmn", a.astype(np.float64), bt.astype(np.float64))
    ref = exact.astype(np.float16).astype(np.float32)
    return [Case("ho9_devdesc5d_m64", grid=[M // 64, N // 64, P * Q * R],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f16", [P, Q, R, M, N], ref, 0.0, 0.0, EXACT_F16_OUT)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), Q=Q, R=R, M=M, N=N,
                           K=K),
                 note=f"C[p, q, r] = A[p, q, r] @ Bt[p, q, r]^T over a {P}x{Q}x{R} batch of "
                      f"{M}x{N}x{K}, fp16: rank-5 tensor maps built on the device "
                      "(tl.make_tensor_descriptor, boxes [1, 1, 1, 64, 32]), M = 64 MMAs, "
                      "C by a 5-D TMA store; 64x64x32, 4 warps, 3 stages")]


# ---------------------------------------------------------------------------------------------
# Accumulator initialised from C.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_beta_c_kernel(a_ptr, b_ptr, c_ptr, d_ptr, M, N, K, beta, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    acc = tl.load(c_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0) * beta
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=rm[:, None] < M,
                    other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N,
                    other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], acc, mask=mask)


def _beta_c_cases():
    M, N, K = 176, 128, 160
    rng = np.random.default_rng(9103)
    a64 = rng.integers(-2, 3, size=(M, K)) / 2.0
    b64 = rng.integers(-2, 3, size=(K, N)) / 2.0
    a = f32_to_bf16_bits(a64.astype(np.float32))
    b = f32_to_bf16_bits(b64.astype(np.float32))
    assert np.array_equal(bf16_bits_to_f64(a), a64) and np.array_equal(bf16_bits_to_f64(b), b64)
    c = (rng.integers(-16, 17, size=(M, N)) / 4.0).astype(np.float32)
    beta = 0.75
    ref = (a64 @ b64 + beta * c.astype(np.float64)).astype(np.float32)
    why = ("bf16 inputs on a 1/2 grid, C on a 1/4 grid times 0.75 (1/16 grid): every partial "
           "sum is a multiple of 1/16 below 2^8, exact in f32 in any order: exact")
    return [Case("ho9_gemm_beta_c", grid=[triton.cdiv(M, 128), N // 64],
                 buffers=dict(a=Input(a, "bf16"), b=Input(b, "bf16"), c=Input(c, "f32"),
                              d=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), d_ptr=Ptr("d"), M=M,
                           N=N, K=K, beta=beta),
                 note=f"D[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] + {beta} C, bf16 in, f32 out: the "
                      "accumulator starts as beta * C (loaded, so TMEM holds non-zero data "
                      "before the first MMA, which accumulates onto it); M = 176 masked; "
                      "128x64x32, 4 warps, 3 stages")]


# ---------------------------------------------------------------------------------------------
# int8 with M = 64, N = 32.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_i8_m64_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=rm[:, None] < M, other=0)
        # B given N x K (K-major), transposed in the kernel
        b = tl.load(b_ptr + rn[:, None] * K + (k0 + rk)[None, :], mask=rn[:, None] < N, other=0)
        acc = tl.dot(a, tl.trans(b), acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _i8_m64_cases():
    M, N, K = 100, 80, 256
    rng = np.random.default_rng(9104)
    # A over the whole int8 range (sign extension of -128..127), B small (smaller files)
    a = rng.integers(-128, 128, size=(M, K), dtype=np.int8)
    bt = rng.integers(-4, 5, size=(N, K), dtype=np.int8)
    ref = a.astype(np.int64) @ bt.astype(np.int64).T
    assert np.abs(ref).max() < 2**31
    why = "int8 products summed in s32: |sum| <= 256 * 128 * 4 < 2^31, integer: exact"
    return [Case("ho9_gemm_i8_m64_n32", grid=[triton.cdiv(M, 64), triton.cdiv(N, 32)],
                 buffers=dict(a=Input(a, "i8"), b=Input(bt, "i8"),
                              c=Output("i32", [M, N], ref.astype(np.float64), 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T int8 -> int32: kind::i8 with "
                      "M = 64 and N = 32, K 128 per step, M and N masked; 64x32x128, 4 warps, "
                      "3 stages")]


# ---------------------------------------------------------------------------------------------
# dot_scaled fp16 x mxfp8.
# ---------------------------------------------------------------------------------------------
@triton.jit
def dot_scaled_f16_mxfp8_kernel(x_ptr, w_ptr, sw_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                                BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    rs = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        w = tl.load(w_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        sw = tl.load(sw_ptr + rn[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        acc = tl.dot_scaled(x, None, "fp16", w, sw, "e4m3", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _f16_mxfp8_cases():
    M, N, K = 128, 64, 192
    rng = np.random.default_rng(9105)
    x = _grid_f16(rng, (M, K))
    w = random_e4m3_bits(rng, (K, N), max_abs=2.0)
    sw = rng.integers(125, 130, size=(N, K // 32), dtype=np.uint8)
    w64 = e4m3_bits_to_f64(w) * np.repeat(e8m0_to_f64(sw), 32, axis=1).T
    ref = (x.astype(np.float64) @ w64).astype(np.float32)
    why = ("x on a 1/2 grid in [-1, 1]; a scaled e4m3 weight (|w| <= 2 times 2^-2..2^2, "
           "the smallest e4m3 subnormal 2^-9 times 2^-2 is 2^-11, within fp16's normal range "
           "down to 2^-14) is exact in fp16, so every product is a multiple of 2^-12 of "
           "magnitude <= 8; partial sums of 192 of them stay below 2^11: 23 significant bits, "
           "exact in f32 in any order: exact")
    return [Case("ho9_dot_scaled_f16_mxfp8", grid=[M // 128, N // 64],
                 buffers=dict(x=Input(x, "f16"), w=Input(w, "fp8e4m3"), sw=Input(sw, "u8"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(x_ptr=Ptr("x"), w_ptr=Ptr("w"), sw_ptr=Ptr("sw"), c_ptr=Ptr("c"),
                           M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = X[{M}x{K}] fp16 @ (W·2^sw) e4m3 [{K}x{N}] (e8m0 scales "
                      "every 32 K per column), f32 out: tl.dot_scaled with an unscaled fp16 "
                      "lhs, the rhs upcast to fp16 in registers; 128x64x64, 4 warps")]


# ---------------------------------------------------------------------------------------------
# tf32 with an MN-major A by TMA.
# ---------------------------------------------------------------------------------------------
@triton.jit
def tf32_mn_a_kernel(at_desc, b_desc, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        at = at_desc.load([k, off_m])
        b = b_desc.load([off_n, k])
        acc = tl.dot(at.T, b.T, acc, input_precision="tf32")
    rm = off_m + tl.arange(0, BLOCK_M)
    rn = off_n + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _tf32_mn_a_cases():
    M, N, K = 128, 128, 96
    rng = np.random.default_rng(9106)
    # multiples of 1/4 in [-1, 1]: exact in tf32 whatever the conversion, small files
    at = (rng.integers(-4, 5, size=(K, M)) / 4).astype(np.float32)
    bt = (rng.integers(-4, 5, size=(N, K)) / 4).astype(np.float32)
    ref = (at.astype(np.float64).T @ bt.astype(np.float64).T).astype(np.float32)
    why = ("inputs on a 1/4 grid (exact in tf32 under either conversion reading): products on "
           "a 1/16 grid, sums of 96 terms below 2^7 are exact in f32 in any order: exact")
    return [Case("ho9_bug_tf32_mn_a", grid=[M // 128, N // 64],
                 buffers=dict(at=Input(at, "f32"), b=Input(bt, "f32"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(at_desc=HostTMA("at"), b_desc=HostTMA("b"), c_ptr=Ptr("c"), M=M, N=N,
                           K=K),
                 note=f"C[{M}x{N}] = At[{K}x{M}]^T @ Bt[{N}x{K}]^T, f32 with tf32 MMAs: A given "
                      "K x M (an MN-major A tile by TMA), B given N x K (K-major); 128x64x32, "
                      "4 warps, 3 stages")]


KERNELS = [
    TritonKernel(name="ho9_bmm_host4d_mn", fn=bmm_host4d_mn_kernel,
                 signature=dict(a_desc=_tensordesc("fp16", [1, 1, 128, 64]),
                                b_desc=_tensordesc("fp16", [1, 1, 64, 64]),
                                c_desc=_tensordesc("fp16", [1, 1, 128, 64]), H="i32", K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_bmm4d_cases,
                 num_warps=4, num_stages=3, aligned=("K",)),
    TritonKernel(name="ho9_devdesc5d_m64", fn=devdesc5d_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", Q="i32", R="i32",
                                M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=32), cases=_devdesc5d_cases,
                 num_warps=4, num_stages=3, aligned=("a_ptr", "b_ptr", "c_ptr", "M", "N", "K")),
    TritonKernel(name="ho9_gemm_beta_c", fn=gemm_beta_c_kernel,
                 signature=dict(a_ptr="*bf16", b_ptr="*bf16", c_ptr="*fp32", d_ptr="*fp32",
                                M="i32", N="i32", K="i32", beta="fp32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32), cases=_beta_c_cases,
                 num_warps=4, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "d_ptr", "M", "N", "K")),
    TritonKernel(name="ho9_gemm_i8_m64_n32", fn=gemm_i8_m64_kernel,
                 signature=dict(a_ptr="*i8", b_ptr="*i8", c_ptr="*i32", M="i32", N="i32",
                                K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=64, BLOCK_N=32, BLOCK_K=128), cases=_i8_m64_cases,
                 num_warps=4, num_stages=3, aligned=("a_ptr", "b_ptr", "c_ptr", "N", "K")),
    TritonKernel(name="ho9_dot_scaled_f16_mxfp8", fn=dot_scaled_f16_mxfp8_kernel,
                 signature=dict(x_ptr="*fp16", w_ptr="*fp8e4nv", sw_ptr="*u8", c_ptr="*fp32",
                                M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_f16_mxfp8_cases,
                 num_warps=4, num_stages=3,
                 aligned=("x_ptr", "w_ptr", "sw_ptr", "c_ptr", "M", "N", "K")),
]

# Compiler output with a real race (tests/corpus/kernels/holdout_bugs/): Triton 3.9 copies an
# MN-major tf32 operand through registers into one staging buffer that the next K step
# overwrites under the previous MMA (the ho3_bug_tf32_mn_b pattern, here for A).
COMPILER_BUGS = [
    TritonKernel(name="ho9_bug_tf32_mn_a", fn=tf32_mn_a_kernel,
                 signature=dict(at_desc=_tensordesc("fp32", [32, 128]),
                                b_desc=_tensordesc("fp32", [64, 32]), c_ptr="*fp32", M="i32",
                                N="i32", K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32), cases=_tf32_mn_a_cases,
                 num_warps=4, num_stages=3, aligned=("c_ptr", "M", "N", "K")),
]
