"""Holdout batch 11 (Triton 3.9): JIT-style compiled kernels (aligned pointers and multiple-of-16
integers marked `tt.divisibility = 16`, as triton/runtime/jit.py specialises them) varying what
batches 3-10 did not. Each kernel is our own:

* ho11_gemm_w16: a plain fp16 GEMM at **num_warps = 16** (every earlier kernel had at most 8):
  Triton 3.9 then does not use tcgen05 on sm_100a but falls back to `mma.sync.m16n8k16` with
  `ldmatrix(.trans)` and a 3-stage `cp.async` ring over a 128x128 tile (the earlier mma.sync
  fallback, ho7_small_m_dot, was a 16-row tile).
* ho11_b2b_gemm: a **back-to-back GEMM** without softmax, H = A B1 rounded to fp16 and fed to a
  second dot, plus a third dot with a **different K** chained onto the same accumulator
  (acc = H B2; acc = X W + acc: K = 32 then K = 128).
* ho11_gemm_bk256_n16: **BLOCK_K = 256** (512-byte fp16 K rows, four 128B swizzle atoms per row)
  with the smallest kind::f16 N of an M = 128 tile, **BLOCK_N = 16**, 2 stages.
* ho11_dot_scaled_mxfp8_bf16: `tl.dot_scaled` with the **scaled operand on the lhs** (e4m3 +
  e8m0) and an unscaled **bf16 rhs** (batches 5 and 9 had the scaled operand on the rhs).
"""
import numpy as np
import triton
import triton.language as tl

from regen import (Case, Input, Output, Ptr, TritonKernel, bf16_bits_to_f64, e4m3_bits_to_f64,
                   e8m0_to_f64, f32_to_bf16_bits, random_e4m3_bits)


def _grid_f16(rng, shape, steps=2):
    """fp16 values k/steps, |k| <= steps: exact, and so are their products and short sums."""
    return (rng.integers(-steps, steps + 1, size=shape) / steps).astype(np.float16)


# ---------------------------------------------------------------------------------------------
# fp16 GEMM at 16 warps.
# ---------------------------------------------------------------------------------------------
@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


EXACT_F32 = ("inputs on a 1/2 grid in [-1, 1]: products on a 1/4 grid, partial sums of at most "
             "{k} terms below 2^{e} need at most {b} significant bits: exact in f32 in any "
             "order")


def _mm_case(name, M, N, K, seed, note):
    rng = np.random.default_rng(seed)
    a = _grid_f16(rng, (M, K))
    b = _grid_f16(rng, (K, N))
    ref = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    e = int(np.ceil(np.log2(K))) + 1
    why = EXACT_F32.format(k=K, e=e, b=e + 2)
    return Case(name, grid=[M // 128, None],
                buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                             c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                note=note)


def _w16_cases():
    c = _mm_case("ho11_gemm_w16", 256, 128, 192, 11101,
                 "C[256x128] = A[256x192] @ B[192x128], fp16 in, f32 out; 128x128x64 tiles, "
                 "num_warps = 16 (Triton 3.9 falls back to mma.sync.m16n8k16), 3 stages")
    c.grid = [2, 1]
    return [c]


def _bk256_cases():
    c = _mm_case("ho11_gemm_bk256_n16", 256, 48, 512, 11103,
                 "C[256x48] = A[256x512] @ B[512x48], fp16 in, f32 out; 128x16x256 tiles "
                 "(BLOCK_K = 256: 512-byte K rows; N = 16 MMAs), 2 stages, 4 warps")
    c.grid = [2, 3]
    return [c]


# ---------------------------------------------------------------------------------------------
# Back-to-back GEMM, and a chained dot with another K.
# ---------------------------------------------------------------------------------------------
@triton.jit
def b2b_kernel(a_ptr, b1_ptr, b2_ptr, x_ptr, w_ptr, out_ptr, BLOCK_M: tl.constexpr,
               K1: tl.constexpr, N1: tl.constexpr, K3: tl.constexpr, N2: tl.constexpr):
    pid = tl.program_id(0)
    rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rk1 = tl.arange(0, K1)
    rn1 = tl.arange(0, N1)
    rk3 = tl.arange(0, K3)
    rn2 = tl.arange(0, N2)
    a = tl.load(a_ptr + rm[:, None] * K1 + rk1[None, :])
    b1 = tl.load(b1_ptr + rk1[:, None] * N1 + rn1[None, :])
    h = tl.dot(a, b1)                                   # [BLOCK_M, N1], K = K1
    b2 = tl.load(b2_ptr + rn1[:, None] * N2 + rn2[None, :])
    acc = tl.dot(h.to(tl.float16), b2)                  # K = N1
    x = tl.load(x_ptr + rm[:, None] * K3 + rk3[None, :])
    w = tl.load(w_ptr + rk3[:, None] * N2 + rn2[None, :])
    acc = tl.dot(x, w, acc)                             # K = K3, onto the same accumulator
    tl.store(out_ptr + rm[:, None] * N2 + rn2[None, :], acc)


def _b2b_cases():
    M, K1, N1, K3, N2 = 256, 64, 32, 128, 64
    rng = np.random.default_rng(11102)
    a, b1, b2 = _grid_f16(rng, (M, K1)), _grid_f16(rng, (K1, N1)), _grid_f16(rng, (N1, N2))
    x, w = _grid_f16(rng, (M, K3)), _grid_f16(rng, (K3, N2))
    f = lambda t: t.astype(np.float64)   # noqa: E731
    h = f(a) @ f(b1)
    # h: multiples of 1/4 with |h| <= 64: at most 9 significant bits, exact in fp16
    assert np.array_equal(h.astype(np.float16).astype(np.float64), h)
    ref = (h @ f(b2) + f(x) @ f(w)).astype(np.float32)
    why = ("A, B1 on a 1/2 grid: H = A B1 is a multiple of 1/4 below 2^6, exact in f32 and in "
           "fp16 (9 significant bits), so the fp16 cast is exact; H B2 (32 products, multiples "
           "of 1/8 below 2^11) plus X W (128 products, multiples of 1/4 below 2^7): every "
           "partial sum is a multiple of 1/8 below 2^12, 15 significant bits: exact in f32 in "
           "any order")
    return [Case("ho11_b2b_gemm", grid=[M // 128],
                 buffers=dict(a=Input(a, "f16"), b1=Input(b1, "f16"), b2=Input(b2, "f16"),
                              x=Input(x, "f16"), w=Input(w, "f16"),
                              out=Output("f32", [M, N2], ref, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b1_ptr=Ptr("b1"), b2_ptr=Ptr("b2"), x_ptr=Ptr("x"),
                           w_ptr=Ptr("w"), out_ptr=Ptr("out")),
                 note=f"OUT[{M}x{N2}] = fp16(A[{M}x{K1}] @ B1[{K1}x{N1}]) @ B2[{N1}x{N2}] + "
                      f"X[{M}x{K3}] @ W[{K3}x{N2}]: a back-to-back GEMM (no softmax) whose "
                      "second dot's accumulator is chained into a third dot of another K; "
                      "fp16 in, f32 out, 128 rows per program, 4 warps")]


# ---------------------------------------------------------------------------------------------
# dot_scaled mxfp8 lhs x bf16 rhs.
# ---------------------------------------------------------------------------------------------
@triton.jit
def dot_scaled_mxfp8_bf16_kernel(x_ptr, sx_ptr, w_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
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
        sx = tl.load(sx_ptr + rm[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        w = tl.load(w_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot_scaled(x, sx, "e4m3", w, None, "bf16", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _mxfp8_bf16_cases():
    M, N, K = 128, 128, 192
    rng = np.random.default_rng(11104)
    x = random_e4m3_bits(rng, (M, K), max_abs=2.0)
    sx = rng.integers(125, 130, size=(M, K // 32), dtype=np.uint8)
    w64 = rng.integers(-2, 3, size=(K, N)) / 2
    w = f32_to_bf16_bits(w64.astype(np.float32))
    assert np.array_equal(bf16_bits_to_f64(w), w64)
    x64 = e4m3_bits_to_f64(x) * np.repeat(e8m0_to_f64(sx), 32, axis=1)
    ref = (x64 @ w64).astype(np.float32)
    why = ("a scaled e4m3 lhs (|x| <= 2 times 2^-2..2^2: 4 significant bits, magnitudes from "
           "2^-11 to 8) is exact in bf16 and f32; w on a 1/2 grid in [-1, 1], so every product "
           "is a multiple of 2^-12 of magnitude <= 8 and partial sums of 192 of them stay below "
           "2^11: at most 23 significant bits, exact in f32 in any order")
    return [Case("ho11_dot_scaled_mxfp8_bf16", grid=[M // 128, N // 64],
                 buffers=dict(x=Input(x, "fp8e4m3"), sx=Input(sx, "u8"), w=Input(w, "bf16"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(x_ptr=Ptr("x"), sx_ptr=Ptr("sx"), w_ptr=Ptr("w"), c_ptr=Ptr("c"),
                           M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = (X·2^sx) e4m3 [{M}x{K}] @ W bf16 [{K}x{N}] (e8m0 scales "
                      "every 32 K per row), f32 out: tl.dot_scaled with the scaled operand on "
                      "the lhs and an unscaled bf16 rhs; 128x64x64, 4 warps")]


_MM_SIG = dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32", K="i32",
               BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr")

KERNELS = [
    TritonKernel(name="ho11_gemm_w16", fn=mm_kernel, signature=_MM_SIG,
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64), cases=_w16_cases,
                 num_warps=16, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "M", "N", "K"),
                 # Triton 3.9 does not lower tl.dot to tcgen05 at 16 warps on sm_100a: it falls
                 # back to mma.sync.m16n8k16 + ldmatrix (a 128x128 tile over 16 warps)
                 must_contain=("mma.sync.aligned.m16n8k16", "ldmatrix")),
    TritonKernel(name="ho11_gemm_bk256_n16", fn=mm_kernel, signature=_MM_SIG,
                 constexprs=dict(BLOCK_M=128, BLOCK_N=16, BLOCK_K=256), cases=_bk256_cases,
                 num_warps=4, num_stages=2,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
    TritonKernel(name="ho11_b2b_gemm", fn=b2b_kernel,
                 signature=dict(a_ptr="*fp16", b1_ptr="*fp16", b2_ptr="*fp16", x_ptr="*fp16",
                                w_ptr="*fp16", out_ptr="*fp32", BLOCK_M="constexpr",
                                K1="constexpr", N1="constexpr", K3="constexpr", N2="constexpr"),
                 constexprs=dict(BLOCK_M=128, K1=64, N1=32, K3=128, N2=64), cases=_b2b_cases,
                 num_warps=4, num_stages=1,
                 aligned=("a_ptr", "b1_ptr", "b2_ptr", "x_ptr", "w_ptr", "out_ptr"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
    TritonKernel(name="ho11_dot_scaled_mxfp8_bf16", fn=dot_scaled_mxfp8_bf16_kernel,
                 signature=dict(x_ptr="*fp8e4nv", sx_ptr="*u8", w_ptr="*bf16", c_ptr="*fp32",
                                M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64),
                 cases=_mxfp8_bf16_cases, num_warps=4, num_stages=3,
                 aligned=("x_ptr", "sx_ptr", "w_ptr", "c_ptr", "M", "N", "K")),
]
