"""Holdout Triton kernels beyond plain GEMMs: a layernorm, an atomic reduction, a causal
attention forward with head dim 128 (the main corpus: 64, no mask) and a mixed-format
block-scaled dot (the main corpus: one format on both sides)."""
import numpy as np
import triton
import triton.language as tl

from regen import (Case, Input, Output, Ptr, TritonKernel, e2m1_nibbles_to_f64, e4m3_bits_to_f64,
                   e8m0_to_f64, random_e4m3_bits)


# ---------------------------------------------------------------------------------------------
# Layernorm over rows of N = 200 (not a power of two: the row block is masked), fp16 in/out,
# f32 statistics, mean and 1/std written out as well.
# ---------------------------------------------------------------------------------------------
@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, N, eps,
                     BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = d * rstd * w + b
    tl.store(y_ptr + row * N + cols, y.to(tl.float16), mask=mask)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)


def _layernorm_cases():
    R, N, eps = 48, 200, 1e-5
    rng = np.random.default_rng(2001)
    x = (rng.standard_normal((R, N)) * 2 + 0.5).astype(np.float16)
    w = rng.uniform(0.5, 1.5, size=N).astype(np.float16)
    b = rng.uniform(-0.5, 0.5, size=N).astype(np.float16)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    rstd = 1.0 / np.sqrt(x64.var(axis=1) + eps)
    y = (x64 - mean[:, None]) * rstd[:, None] * w.astype(np.float64) + b.astype(np.float64)
    return [Case("ho_layernorm", grid=[R],
                 buffers=dict(x=Input(x, "f16"), w=Input(w, "f16"), b=Input(b, "f16"),
                              y=Output("f16", [R, N], y.astype(np.float32), 2e-3, 2e-3,
                                       "f16 output (2^-11 relative) of values up to ~4; f32 "
                                       "statistics over 200 terms add < 1e-5"),
                              mean=Output("f32", [R], mean.astype(np.float32), 1e-5, 1e-6,
                                          "f32 tree sum of 200 values |x| < 10: < 1e-6"),
                              rstd=Output("f32", [R], rstd.astype(np.float32), 1e-5, 1e-6,
                                          "f32 variance sum plus sqrt/div (div.full or "
                                          "div.rn, ≤ 2 ulp): below 1e-5 relative")),
                 args=dict(x_ptr=Ptr("x"), w_ptr=Ptr("w"), b_ptr=Ptr("b"), y_ptr=Ptr("y"),
                           mean_ptr=Ptr("mean"), rstd_ptr=Ptr("rstd"), N=N, eps=eps),
                 note=f"Layernorm of {R} rows of {N}, fp16 in/out, weight and bias, eps {eps}")]


# ---------------------------------------------------------------------------------------------
# Column sums and column maxima of a matrix by atomics: each program reduces a block of rows and
# atomically adds (f32) / maxes (i32) into the output. The add order is the scheduler's.
# ---------------------------------------------------------------------------------------------
@triton.jit
def col_reduce_atomic_kernel(x_ptr, q_ptr, sum_ptr, max_ptr, cnt_ptr, R, C,
                             BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    pid_r = tl.program_id(0)
    pid_c = tl.program_id(1)
    rows = pid_r * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = pid_c * BLOCK_C + tl.arange(0, BLOCK_C)
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=mask, other=0.0)
    q = tl.load(q_ptr + rows[:, None] * C + cols[None, :], mask=mask, other=-2147483647)
    tl.atomic_add(sum_ptr + cols, tl.sum(x, axis=0), mask=cols < C)
    tl.atomic_max(max_ptr + cols, tl.max(q, axis=0), mask=cols < C)
    tl.atomic_add(cnt_ptr, 1)


def _atomic_cases():
    R, C = 300, 80
    rng = np.random.default_rng(2002)
    x = rng.uniform(-1, 1, size=(R, C)).astype(np.float32)
    q = rng.integers(-1000000, 1000000, size=(R, C), dtype=np.int32)
    grid = [triton.cdiv(R, 64), triton.cdiv(C, 32)]
    return [Case("ho_atomic_colreduce", grid=grid,
                 buffers=dict(x=Input(x, "f32"), q=Input(q, "i32"),
                              s=Output("f32", [C], x.astype(np.float64).sum(axis=0)
                                       .astype(np.float32), 1e-5, 1e-5,
                                       "f32 sum of 300 values |x| <= 1 in any order: "
                                       "< 300·2^-24·300 ≈ 5e-3 worst case, ~1e-6 typical; "
                                       "5 partial sums added atomically"),
                              m=Output("i32", [C], q.max(axis=0).astype(np.float64), 0.0, 0.0,
                                       "integer max: exact"),
                              n=Output("i32", [1], np.array([grid[0] * grid[1]], np.float64),
                                       0.0, 0.0, "one increment per program: exact")),
                 args=dict(x_ptr=Ptr("x"), q_ptr=Ptr("q"), sum_ptr=Ptr("s"), max_ptr=Ptr("m"),
                           cnt_ptr=Ptr("n"), R=R, C=C),
                 note=f"Column sum (atomic f32 add) and column max (atomic i32 max) of a {R}x{C} "
                      "matrix, 64x32 blocks, plus a program counter")]


# ---------------------------------------------------------------------------------------------
# Causal attention forward, head dim 128, BLOCK_N 32, fp16 (bf16 P would be another choice).
# ---------------------------------------------------------------------------------------------
@triton.jit
def attn_causal_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len,
                       HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * seq_len * HEAD_DIM
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rd = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + rm[:, None] * HEAD_DIM + rd[None, :], mask=rm[:, None] < seq_len,
                other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    hi = tl.minimum((pid_m + 1) * BLOCK_M, seq_len)
    for start in range(0, hi, BLOCK_N):
        kn = start + rn
        k = tl.load(k_ptr + base + kn[:, None] * HEAD_DIM + rd[None, :],
                    mask=kn[:, None] < seq_len, other=0.0)
        s = tl.dot(q, tl.trans(k)) * sm_scale
        s = tl.where((kn[None, :] <= rm[:, None]) & (kn[None, :] < seq_len), s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + kn[:, None] * HEAD_DIM + rd[None, :],
                    mask=kn[:, None] < seq_len, other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(o_ptr + base + rm[:, None] * HEAD_DIM + rd[None, :], o.to(tl.float16),
             mask=rm[:, None] < seq_len)


def _attn_cases():
    BH, S, D = 2, 96, 128
    rng = np.random.default_rng(2003)
    q, k, v = (rng.uniform(-1, 1, size=(BH, S, D)).astype(np.float16) for _ in range(3))
    scale = 1.0 / np.sqrt(D)
    s = np.einsum("bmd,bnd->bmn", q.astype(np.float64), k.astype(np.float64)) * scale
    s = np.where(np.tril(np.ones((S, S), bool))[None], s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    o = np.einsum("bmn,bnd->bmd", p, v.astype(np.float64)).astype(np.float32)
    why = ("P rounded to fp16 before P@V (2^-11 relative per term), ex2.approx (2^-22) and "
           "fp16 output (2^-11 relative); |O| < 1")
    return [Case("ho_attn_causal_d128", grid=[triton.cdiv(S, 64), BH],
                 buffers=dict(q=Input(q, "f16"), k=Input(k, "f16"), v=Input(v, "f16"),
                              o=Output("f16", [BH, S, D], o, 4e-3, 2e-3, why)),
                 args=dict(q_ptr=Ptr("q"), k_ptr=Ptr("k"), v_ptr=Ptr("v"), o_ptr=Ptr("o"),
                           sm_scale=float(np.float32(scale)), seq_len=S),
                 note=f"Causal attention forward: {BH} heads, seq {S}, head dim {D}, fp16; "
                      "64x32 blocks, K loaded N-major and transposed in the dot")]


# ---------------------------------------------------------------------------------------------
# dot_scaled with e4m3 on the left and e2m1 (packed along K) on the right, 64-wide N tile.
# ---------------------------------------------------------------------------------------------
@triton.jit
def mx_mixed_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    rkb = tl.arange(0, BLOCK_K // 2)
    rs = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 // 2 + rkb)[:, None] * N + rn[None, :])
        sa = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        sb = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, "e4m3", b, sb, "e2m1", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


def _mx_cases():
    M, N, K = 128, 128, 256
    rng = np.random.default_rng(2004)
    a = random_e4m3_bits(rng, (M, K))
    bn = rng.integers(0, 16, size=(K, N), dtype=np.uint8)
    b = (bn[0::2, :] | (bn[1::2, :] << 4)).astype(np.uint8)
    sa = rng.integers(124, 130, size=(M, K // 32), dtype=np.uint8)
    sb = rng.integers(124, 130, size=(N, K // 32), dtype=np.uint8)
    a64 = e4m3_bits_to_f64(a) * np.repeat(e8m0_to_f64(sa), 32, axis=1)
    b64 = e2m1_nibbles_to_f64(bn) * np.repeat(e8m0_to_f64(sb), 32, axis=1).T
    expected = (a64 @ b64).astype(np.float32)
    why = ("scaled e4m3·e2m1 products are exact in f32; f32 sum of 256 terms; fp16 output "
           "(2^-11 relative, |c| up to ~500): rtol 2e-3, atol 5e-2 for sums that cancel")
    return [Case("ho_dot_scaled_e4m3_e2m1", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "fp8e4m3"), sa=Input(sa, "u8"), b=Input(b, "u8"),
                              sb=Input(sb, "u8"),
                              c=Output("f16", [M, N], expected, 2e-3, 5e-2, why)),
                 args=dict(a_ptr=Ptr("a"), a_scale_ptr=Ptr("sa"), b_ptr=Ptr("b"),
                           b_scale_ptr=Ptr("sb"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = (A·2^sa)[{M}x{K}] e4m3 @ (B·2^sb)[{K}x{N}] e2m1 (packed "
                      "two per byte along K, low nibble first), e8m0 scales per 32 K, fp16 out")]


# ---------------------------------------------------------------------------------------------
# fp16 GEMM with an exact-GELU epilogue (erf from libdevice) and fp8 e4m3 output
# (cvt.rn.satfinite.e4m3x2.f32), 128x64x32 tiles.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_gelu_fp8_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    g = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], g.to(tl.float8e4nv),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _gelu_cases():
    import math
    M, N, K = 160, 96, 64
    rng = np.random.default_rng(2005)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-0.5, 0.5, size=(K, N)).astype(np.float16)
    x = a.astype(np.float64) @ b.astype(np.float64)
    g = 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))
    why = ("e4m3 output: half an ulp is 2^-4 relative for normals (rtol 0.07) and 2^-10 absolute "
           "in the subnormal range (atol 2e-3); erf and the f32 sum add < 1e-6")
    return [Case("ho_gemm_gelu_fp8out", grid=[triton.cdiv(M, 128), triton.cdiv(N, 64)],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("fp8e4m3", [M, N], g.astype(np.float32), 0.07, 2e-3, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = gelu_erf(A[{M}x{K}] @ B[{K}x{N}]) stored as fp8 e4m3 "
                      "(satfinite conversion), fp16 in, 128x64x32 tiles")]


KERNELS = [
    TritonKernel(name="ho_layernorm", fn=layernorm_kernel,
                 signature=dict(x_ptr="*fp16", w_ptr="*fp16", b_ptr="*fp16", y_ptr="*fp16",
                                mean_ptr="*fp32", rstd_ptr="*fp32", N="i32", eps="fp32",
                                BLOCK_N="constexpr"),
                 constexprs=dict(BLOCK_N=256), cases=_layernorm_cases, num_warps=2,
                 num_stages=1, aligned=("x_ptr", "w_ptr", "b_ptr", "y_ptr"), must_contain=()),
    TritonKernel(name="ho_atomic_colreduce", fn=col_reduce_atomic_kernel,
                 signature=dict(x_ptr="*fp32", q_ptr="*i32", sum_ptr="*fp32", max_ptr="*i32",
                                cnt_ptr="*i32", R="i32", C="i32", BLOCK_R="constexpr",
                                BLOCK_C="constexpr"),
                 constexprs=dict(BLOCK_R=64, BLOCK_C=32), cases=_atomic_cases, num_warps=4,
                 num_stages=1, aligned=("x_ptr", "q_ptr"), must_contain=("atom.",)),
    TritonKernel(name="ho_attn_causal_d128", fn=attn_causal_kernel,
                 signature=dict(q_ptr="*fp16", k_ptr="*fp16", v_ptr="*fp16", o_ptr="*fp16",
                                sm_scale="fp32", seq_len="i32", HEAD_DIM="constexpr",
                                BLOCK_M="constexpr", BLOCK_N="constexpr"),
                 constexprs=dict(HEAD_DIM=128, BLOCK_M=64, BLOCK_N=32), cases=_attn_cases,
                 num_warps=4, num_stages=2, aligned=("q_ptr", "k_ptr", "v_ptr", "o_ptr"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
    TritonKernel(name="ho_dot_scaled_e4m3_e2m1", fn=mx_mixed_kernel,
                 signature=dict(a_ptr="*fp8e4nv", a_scale_ptr="*u8", b_ptr="*u8",
                                b_scale_ptr="*u8", c_ptr="*fp16", M="i32", N="i32", K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=128), cases=_mx_cases,
                 num_warps=4, num_stages=3,
                 aligned=("a_ptr", "a_scale_ptr", "b_ptr", "b_scale_ptr", "c_ptr"),
                 must_contain=("block_scale", "tcgen05.ld")),
    TritonKernel(name="ho_gemm_gelu_fp8out", fn=gemm_gelu_fp8_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp8e4nv", M="i32", N="i32",
                                K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32), cases=_gelu_cases,
                 num_warps=4, num_stages=3, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "e4m3x2")),
]
