"""Holdout Triton GEMMs: tile shapes, stage counts, warp counts and operand layouts the main
corpus (kernels/triton/matmul*.py: 128x128 tiles, 3 stages, 4 warps, row-major B) never uses.

Each kernel is our own, written for this set; expected outputs come from numpy in f64 on the
exact input values (fp16/bf16/fp8 rounded once, before the kernel sees them).
"""
import numpy as np
import triton
import triton.language as tl

from regen import (Case, Input, Output, Ptr, TritonKernel, bf16_bits_to_f64, e4m3_bits_to_f64,
                   f32_to_bf16_bits, random_e4m3_bits)

F16_WHY = ("f16 output: half an ulp is 2^-11 relative; f32 accumulation adds about "
           "2^-24·K·Σ|ab| < 1e-4; rtol 2e-3 / atol 1e-3 cover both with margin")


# ---------------------------------------------------------------------------------------------
# fp16, B given as N×K (K-major, as a Linear layer's weight), fused bias + relu, fp16 output.
# 128x64x32 tiles, 4 stages, 8 warps.
# ---------------------------------------------------------------------------------------------
@triton.jit
def linear_bias_relu_kernel(x_ptr, w_ptr, bias_ptr, y_ptr, M, N, K,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[:, None] * K + (k0 + rk)[None, :],
                    mask=(rn[:, None] < N) & ((k0 + rk)[None, :] < K), other=0.0)
        acc = tl.dot(x, tl.trans(w), acc)
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0)
    y = tl.maximum(acc + bias[None, :].to(tl.float32), 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], y.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _linear_cases():
    M, N, K = 192, 96, 160
    rng = np.random.default_rng(1001)
    x = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    w = rng.uniform(-1, 1, size=(N, K)).astype(np.float16)
    bias = rng.uniform(-2, 2, size=(N, )).astype(np.float16)
    ref = x.astype(np.float64) @ w.astype(np.float64).T + bias.astype(np.float64)
    expected = np.maximum(ref, 0.0).astype(np.float32)
    return [Case("ho_linear_bias_relu", grid=[triton.cdiv(M, 128), triton.cdiv(N, 64)],
                 buffers=dict(x=Input(x, "f16"), w=Input(w, "f16"), bias=Input(bias, "f16"),
                              y=Output("f16", [M, N], expected, 2e-3, 1e-3, F16_WHY)),
                 args=dict(x_ptr=Ptr("x"), w_ptr=Ptr("w"), bias_ptr=Ptr("bias"), y_ptr=Ptr("y"),
                           M=M, N=N, K=K),
                 note=f"Y[{M}x{N}] = relu(X[{M}x{K}] @ W[{N}x{K}]^T + bias), fp16 in/out, "
                      "f32 accumulation; 128x64x32 tiles, 4 stages, 8 warps")]


# ---------------------------------------------------------------------------------------------
# bf16 with odd M/N/K and a 64-row tile (tcgen05.mma with M = 64), f32 output, 2 stages.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_m64_kernel(a_ptr, b_ptr, c_ptr, M, N, K, lda, ldb, ldc,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    n_blocks = tl.cdiv(N, BLOCK_N)
    pid_m = pid // n_blocks
    pid_n = pid % n_blocks
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * lda + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * ldb + rn[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k0 * BLOCK_K
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * ldb
    tl.store(c_ptr + rm[:, None] * ldc + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _m64_cases():
    M, N, K = 200, 136, 72
    rng = np.random.default_rng(1002)
    a = f32_to_bf16_bits(rng.uniform(-1, 1, size=(M, K)).astype(np.float32))
    b = f32_to_bf16_bits(rng.uniform(-1, 1, size=(K, N)).astype(np.float32))
    expected = (bf16_bits_to_f64(a) @ bf16_bits_to_f64(b)).astype(np.float32)
    why = ("bf16 inputs are exact; products are exact in f32, f32 accumulation of K = 72 terms: "
           "2^-24·K·Σ|ab| < 1e-5, plus f32 storage rounding 2^-24 relative")
    return [Case("ho_gemm_bf16_m64", grid=[triton.cdiv(M, 64) * triton.cdiv(N, 128)],
                 buffers=dict(a=Input(a, "bf16"), b=Input(b, "bf16"),
                              c=Output("f32", [M, N], expected, 1e-5, 1e-5, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           lda=K, ldb=N, ldc=N),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], bf16 in, f32 out; 64x128x64 "
                      "tiles (M = 64 MMA), 1-D grid, 2 stages, 4 warps")]


# ---------------------------------------------------------------------------------------------
# fp8 e4m3 x e5m2 (mixed formats in one kind::f8f6f4 MMA), 128x128x128 tiles, 5 stages.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_fp8_mixed_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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


def _e5m2_table():
    vals = np.zeros(256, dtype=np.float64)
    for bits in range(256):
        s, e, m = bits >> 7, (bits >> 2) & 0x1F, bits & 3
        if e == 0x1F:
            v = np.inf if m == 0 else np.nan
        elif e == 0:
            v = m / 4 * 2.0**-14
        else:
            v = (1 + m / 4) * 2.0**(e - 15)
        vals[bits] = -v if s else v
    return vals


def random_e5m2_bits(rng, shape, max_abs=2.0):
    table = _e5m2_table()
    ok = np.flatnonzero(np.isfinite(table) & (np.abs(table) <= max_abs)).astype(np.uint8)
    return ok[rng.integers(0, len(ok), size=shape)]


def _fp8_cases():
    M, N, K = 128, 256, 256
    rng = np.random.default_rng(1003)
    a = random_e4m3_bits(rng, (M, K))
    b = random_e5m2_bits(rng, (K, N))
    expected = (e4m3_bits_to_f64(a) @ _e5m2_table()[b]).astype(np.float32)
    why = ("e4m3·e5m2 products are exact in f32; sm_100a's internal fp8 accumulation width is "
           "not documented (an H100 wgmma missed fp8 sums by ~1e-2), so atol 2e-2, rtol 2e-3")
    return [Case("ho_gemm_fp8_e4m3_e5m2", grid=[M // 128, N // 128],
                 buffers=dict(a=Input(a, "fp8e4m3"), b=Input(b, "fp8e5m2"),
                              c=Output("f32", [M, N], expected, 2e-3, 2e-2, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] (e4m3) @ B[{K}x{N}] (e5m2), f32 out; "
                      "128x128x128 tiles, 5 stages, unmasked loads")]


# ---------------------------------------------------------------------------------------------
# Batched matmul: a 3-D grid (program_id(2) is the batch), fp16 out.
# ---------------------------------------------------------------------------------------------
@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_bb, stride_cb,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    a_ptr += batch.to(tl.int64) * stride_ab
    b_ptr += batch.to(tl.int64) * stride_bb
    c_ptr += batch.to(tl.int64) * stride_cb
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=rm[:, None] < M, other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _bmm_cases():
    B, M, N, K = 3, 128, 96, 128
    rng = np.random.default_rng(1004)
    a = rng.uniform(-1, 1, size=(B, M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(B, K, N)).astype(np.float16)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    return [Case("ho_bmm_f16", grid=[triton.cdiv(M, 128), triton.cdiv(N, 64), B],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [B, M, N], expected, 2e-3, 1e-3, F16_WHY)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           stride_ab=M * K, stride_bb=K * N, stride_cb=M * N),
                 note=f"C[b] = A[b] @ B[b] for {B} batches of {M}x{K} @ {K}x{N}, fp16; grid "
                      "z = batch; 128x64x64 tiles, 3 stages, 4 warps")]


# ---------------------------------------------------------------------------------------------
# Persistent matmul: fewer programs than tiles, grouped (GROUP_M) tile order, pointer loads.
# ---------------------------------------------------------------------------------------------
@triton.jit
def persistent_grouped_kernel(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    tiles = num_m * num_n
    per_group = GROUP_M * num_n
    for tile in range(tl.program_id(0), tiles, NUM_PROGS):
        group = tile // per_group
        first_m = group * GROUP_M
        group_rows = tl.minimum(num_m - first_m, GROUP_M)
        pid_m = first_m + (tile % per_group) % group_rows
        pid_n = (tile % per_group) // group_rows
        rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        rk = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :],
                        mask=rm[:, None] < M, other=0.0)
            b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :],
                        mask=rn[None, :] < N, other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
                 mask=(rm[:, None] < M) & (rn[None, :] < N))


def _persistent_cases():
    M, N, K = 384, 192, 64
    progs = 4
    rng = np.random.default_rng(1005)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    why = "fp16 inputs exact; f32 accumulation of K = 64 terms: 2^-24·K·Σ|ab| < 1e-5"
    return [Case("ho_persistent_grouped", grid=[progs],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], expected, 1e-5, 1e-5, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           NUM_PROGS=progs),
                 note=f"C[{M}x{N}] = A @ B, {progs} persistent programs over 9 tiles of 128x64 in "
                      "GROUP_M = 2 order (each program does 2 or 3 tiles), f32 out")]


# ---------------------------------------------------------------------------------------------
# tf32: `input_precision="tf32x3"` splits each f32 operand into a tf32 head and a tf32 tail and
# issues three MMAs; arbitrary f32 inputs (not tf32-exact) make the split matter.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_tf32x3_kernel(a_ptr, b_ptr, c_ptr, M, N, K, PRECISION: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _tf32_cases(precision):
    def cases():
        M, N, K = 128, 64, 64
        rng = np.random.default_rng(1006)
        a = rng.uniform(-1, 1, size=(M, K)).astype(np.float32)
        b = rng.uniform(-1, 1, size=(K, N)).astype(np.float32)
        expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        if precision == "tf32x3":
            why = ("tf32x3 drops only the tail×tail product (< 2^-22 relative per term) and the "
                   "tails' own tf32 truncation (2^-21); with f32 accumulation of 3K terms the "
                   "error is below 1e-5 for |x| <= 1, K = 64")
            rtol, atol = 1e-5, 2e-5
        else:
            why = ("plain tf32 on arbitrary f32 inputs: each operand loses up to 2^-10 relative "
                   "(truncation or rounding to 10 mantissa bits, the ISA does not say which), "
                   "so a K = 64 sum of |ab| <= 1 terms may be off by 2·2^-10·Σ|ab| ≈ 0.03")
            rtol, atol = 1e-2, 3e-2
        return [Case(f"ho_gemm_{precision}", grid=[M // 128, N // 64],
                     buffers=dict(a=Input(a, "f32"), b=Input(b, "f32"),
                                  c=Output("f32", [M, N], expected, rtol, atol, why)),
                     args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                     note=f"C[{M}x{N}] = A @ B, f32 inputs (not tf32-exact), "
                          f"input_precision={precision}; 128x64x16 tiles, 8 warps")]
    return cases


# ---------------------------------------------------------------------------------------------
# Two accumulators live at once (a gated MLP, SwiGLU): h = silu(x @ w1) * (x @ w3), fp16 out.
# Two TMEM accumulators of 128 columns each; 8 warps, 2 stages.
# ---------------------------------------------------------------------------------------------
@triton.jit
def swiglu_kernel(x_ptr, w1_ptr, w3_ptr, h_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    gate = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    up = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=rm[:, None] < M, other=0.0)
        w1 = tl.load(w1_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        w3 = tl.load(w3_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        gate = tl.dot(x, w1, gate)
        up = tl.dot(x, w3, up)
    h = gate * tl.sigmoid(gate) * up
    tl.store(h_ptr + rm[:, None] * N + rn[None, :], h.to(tl.float16), mask=rm[:, None] < M)


def _swiglu_cases():
    M, N, K = 160, 128, 96
    rng = np.random.default_rng(1007)
    x = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    w1 = rng.uniform(-0.5, 0.5, size=(K, N)).astype(np.float16)
    w3 = rng.uniform(-0.5, 0.5, size=(K, N)).astype(np.float16)
    g = x.astype(np.float64) @ w1.astype(np.float64)
    u = x.astype(np.float64) @ w3.astype(np.float64)
    h = (g / (1 + np.exp(-g)) * u).astype(np.float32)
    why = ("fp16 output (2^-11 relative); sigmoid through ex2.approx and an approximate "
           "division (about 2^-21 relative); f32 accumulation below 1e-5")
    return [Case("ho_swiglu", grid=[triton.cdiv(M, 128), N // 128],
                 buffers=dict(x=Input(x, "f16"), w1=Input(w1, "f16"), w3=Input(w3, "f16"),
                              h=Output("f16", [M, N], h, 2e-3, 1e-3, why)),
                 args=dict(x_ptr=Ptr("x"), w1_ptr=Ptr("w1"), w3_ptr=Ptr("w3"), h_ptr=Ptr("h"),
                           M=M, N=N, K=K),
                 note=f"H[{M}x{N}] = silu(X @ W1) * (X @ W3), X[{M}x{K}], fp16; two TMEM "
                      "accumulators, 8 warps, 2 stages")]


# ---------------------------------------------------------------------------------------------
# A 128x256 tile (a 256-column accumulator), 8 warps, 2 stages, fp16 out.
# ---------------------------------------------------------------------------------------------
def _wide_cases():
    M, N, K = 128, 256, 128
    rng = np.random.default_rng(1008)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return [Case("ho_gemm_f16_128x256", grid=[1],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [M, N], expected, 2e-3, 1e-3, F16_WHY)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           lda=K, ldb=N, ldc=N),
                 note=f"C[{M}x{N}] = A @ B, fp16, one 128x256x64 tile (256 TMEM columns), "
                      "8 warps, 2 stages")]


# ---------------------------------------------------------------------------------------------
# Other accumulator types: fp16 accumulation (`out_dtype=tl.float16`: an f16 D in TMEM) and
# int8 x int8 -> int32 (kind::i8).
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_acc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, ACC_TY: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC_TY)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=ACC_TY)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _f16acc_cases():
    M, N, K = 128, 128, 64
    rng = np.random.default_rng(1009)
    # Small integers times powers of two: every product and partial sum is exact in fp16
    # (|sum| <= 64·4·4/16 = 64 on a 2^-4 grid needs 11 bits), so the result cannot depend on
    # the order or width of the hardware's fp16 accumulation.
    a = (rng.integers(-4, 5, size=(M, K)) / 4).astype(np.float16)
    b = (rng.integers(-4, 5, size=(K, N)) / 4).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return [Case("ho_gemm_f16acc", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [M, N], expected, 0.0, 0.0,
                                       "inputs on a 1/4 grid, |partial sums| <= 64: every "
                                       "value is exact in fp16, so the result is exact")),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A @ B with an fp16 accumulator (out_dtype=float16): "
                      "tcgen05.mma kind::f16 with an f16 D; exact by construction")]


def _i8_cases():
    M, N, K = 128, 128, 128
    rng = np.random.default_rng(1010)
    a = rng.integers(-128, 128, size=(M, K), dtype=np.int8)
    b = rng.integers(-128, 128, size=(K, N), dtype=np.int8)
    expected = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.float64)
    return [Case("ho_gemm_i8", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "i8"), b=Input(b, "i8"),
                              c=Output("i32", [M, N], expected, 0.0, 0.0,
                                       "integer products and sums (|c| < 2^21): exact")),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A @ B, int8 x int8 -> int32 (tcgen05.mma kind::i8), "
                      "full int8 range; exact")]


def _bmm_cluster_cases():
    B, M, N, K = 2, 192, 256, 64
    rng = np.random.default_rng(1011)
    a = rng.uniform(-1, 1, size=(B, M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(B, K, N)).astype(np.float16)
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    return [Case("ho_bmm_f16_cluster2", grid=[triton.cdiv(M, 128), triton.cdiv(N, 128), B],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [B, M, N], expected, 2e-3, 1e-3, F16_WHY)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           stride_ab=M * K, stride_bb=K * N, stride_cb=M * N),
                 note=f"The batched matmul with num_ctas = 2: each 128x128 tile is split over a "
                      f"cluster of 2 CTAs (64 TMEM columns each, %cluster_ctarank, "
                      f"barrier.cluster); {B} batches of {M}x{K} @ {K}x{N}, fp16")]


def _narrow_cases():
    M, N, K = 256, 96, 80
    rng = np.random.default_rng(1012)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return [Case("ho_gemm_f16_k16_n32", grid=[triton.cdiv(M, 128) * triton.cdiv(N, 32)],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [M, N], expected, 2e-3, 1e-3, F16_WHY)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           lda=K, ldb=N, ldc=N),
                 note=f"C[{M}x{N}] = A @ B, fp16; narrow 128x32x16 tiles: 32-byte K rows (a "
                      "32B-swizzle or no-swizzle operand layout), an N = 32 MMA, 32 TMEM "
                      "columns, 4 stages")]


def _sig(**kw):
    return {k: v for k, v in kw.items()}


KERNELS = [
    TritonKernel(name="ho_linear_bias_relu", fn=linear_bias_relu_kernel,
                 signature=_sig(x_ptr="*fp16", w_ptr="*fp16", bias_ptr="*fp16", y_ptr="*fp16",
                                M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32), cases=_linear_cases,
                 num_warps=8, num_stages=4, aligned=("x_ptr", "w_ptr", "bias_ptr", "y_ptr"),
                 must_contain=("tcgen05.mma.cta_group::1.kind::f16", "tcgen05.ld")),
    TritonKernel(name="ho_gemm_bf16_m64", fn=gemm_m64_kernel,
                 signature=_sig(a_ptr="*bf16", b_ptr="*bf16", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", lda="i32", ldb="i32", ldc="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=64, BLOCK_N=128, BLOCK_K=64), cases=_m64_cases,
                 num_warps=4, num_stages=2, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma.cta_group::1.kind::f16", "tcgen05.ld")),
    TritonKernel(name="ho_gemm_fp8_e4m3_e5m2", fn=gemm_fp8_mixed_kernel,
                 signature=_sig(a_ptr="*fp8e4nv", b_ptr="*fp8e5", c_ptr="*fp32", M="i32",
                                N="i32", K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128), cases=_fp8_cases,
                 num_warps=4, num_stages=5, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma.cta_group::1.kind::f8f6f4", "tcgen05.ld")),
    TritonKernel(name="ho_bmm_f16", fn=bmm_kernel,
                 signature=_sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32",
                                K="i32", stride_ab="i32", stride_bb="i32", stride_cb="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_bmm_cases,
                 num_warps=4, num_stages=3, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
    TritonKernel(name="ho_persistent_grouped", fn=persistent_grouped_kernel,
                 signature=_sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", NUM_PROGS="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr", GROUP_M="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, GROUP_M=2),
                 cases=_persistent_cases, num_warps=4, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "c_ptr"), must_contain=("tcgen05.mma", "tcgen05.ld")),
] + [
    TritonKernel(name=f"ho_gemm_{p}", fn=gemm_tf32x3_kernel,
                 signature=_sig(a_ptr="*fp32", b_ptr="*fp32", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", PRECISION="constexpr", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(PRECISION=p, BLOCK_M=128, BLOCK_N=64, BLOCK_K=16),
                 cases=_tf32_cases(p), num_warps=8, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma.cta_group::1.kind::tf32", "tcgen05.ld"))
    for p in ("tf32", "tf32x3")
] + [
    TritonKernel(name="ho_swiglu", fn=swiglu_kernel,
                 signature=_sig(x_ptr="*fp16", w1_ptr="*fp16", w3_ptr="*fp16", h_ptr="*fp16",
                                M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=32), cases=_swiglu_cases,
                 num_warps=8, num_stages=2, aligned=("x_ptr", "w1_ptr", "w3_ptr", "h_ptr"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
    TritonKernel(name="ho_gemm_f16_128x256", fn=gemm_m64_kernel,
                 signature=_sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32",
                                K="i32", lda="i32", ldb="i32", ldc="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64), cases=_wide_cases,
                 num_warps=8, num_stages=2, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
] + [
    TritonKernel(name=name, fn=gemm_acc_kernel,
                 signature=_sig(a_ptr=ab, b_ptr=ab, c_ptr=c, M="i32", N="i32", K="i32",
                                ACC_TY="constexpr", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(ACC_TY=acc, BLOCK_M=128, BLOCK_N=64, BLOCK_K=bk), cases=cases,
                 num_warps=4, num_stages=2, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=(kind, "tcgen05.ld"))
    for name, ab, c, acc, bk, cases, kind in [
        ("ho_gemm_f16acc", "*fp16", "*fp16", tl.float16, 32, _f16acc_cases,
         "tcgen05.mma.cta_group::1.kind::f16"),
        ("ho_gemm_i8", "*i8", "*i32", tl.int32, 64, _i8_cases,
         "tcgen05.mma.cta_group::1.kind::i8"),
    ]
] + [
    TritonKernel(name="ho_bmm_f16_cluster2", fn=bmm_kernel,
                 signature=_sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32",
                                K="i32", stride_ab="i32", stride_bb="i32", stride_cb="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64), cases=_bmm_cluster_cases,
                 num_warps=4, num_stages=3, num_ctas=2, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "barrier.cluster", "%cluster_ctarank")),
] + [
    TritonKernel(name="ho_gemm_f16_k16_n32", fn=gemm_m64_kernel,
                 signature=_sig(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32",
                                K="i32", lda="i32", ldb="i32", ldc="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=32, BLOCK_K=16), cases=_narrow_cases,
                 num_warps=4, num_stages=4, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
]
