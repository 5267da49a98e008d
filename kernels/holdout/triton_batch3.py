"""Holdout batch 3 (Triton): compiler choices neither the main corpus nor the first holdout batch
makes. Each kernel is our own, written for this batch; expected outputs come from numpy in f64 on
the exact input values (narrow formats decoded bit for bit by regen's helpers).

* ho3_splitk_atomic: split-K over the grid's z axis, partial f32 tiles added with `atom.add.f32`
  (`tl.atomic_add`), MN-major A (A given K×M and transposed), odd M/N/K, 8 warps.
* ho3_tma_store_bf16_n256: host TensorDescriptors for A, B and C, a 128x256 accumulator,
  8 warps, bf16 output written by a TMA store (`c_desc.store`), M not a tile multiple.
* ho3_fp8_e5m2_k128: e5m2 x e5m2 (kind::f8f6f4), 128x128x128 tile, 2 stages, f32 out.
* ho3_persistent_ws_dev: persistent + `flatten` + `warp_specialize`, device-side 3-D tensor
  descriptors (rank-3 TMA boxes [1, BM, BK]) over a batch, bf16 out through a device descriptor
  store, 5 stages, uneven tiles per program.
* ho3_dot_scaled_mxfp4: `tl.dot_scaled` e2m1 x e2m1 (both packed along K), bf16 out.
* ho3_dot_scaled_e5m2_e4m3: `tl.dot_scaled` mxfp8 with different formats on each side.
* ho3_attn_d64_bf16: causal attention forward, head dim 64, bf16, 128x64 blocks, 8 warps,
  odd sequence length.
"""
import numpy as np
import triton
import triton.language as tl
from triton.language.extra import libdevice

from regen import (Case, HostTMA, Input, Output, Ptr, TritonKernel, bf16_bits_to_f64,
                   e2m1_nibbles_to_f64, e4m3_bits_to_f64, e8m0_to_f64, f32_to_bf16_bits,
                   random_e4m3_bits)

BF16_WHY = ("bf16 output: half an ulp is 2^-9 relative (rtol 4e-3 doubles it); the f32 "
            "accumulation error 2^-24·K·Σ|ab| < 1e-4 is covered by atol")


def _e5m2_table():
    """Every e5m2 code's value, from the format (1 sign, 5 exponent bits bias 15, 2 mantissa
    bits, IEEE-style inf/NaN), independent of any library."""
    out = np.zeros(256)
    for code in range(256):
        s = -1.0 if code & 0x80 else 1.0
        e = (code >> 2) & 0x1F
        m = code & 3
        if e == 0x1F:
            out[code] = np.nan if m else s * np.inf
        elif e == 0:
            out[code] = s * m / 4 * 2.0**-14
        else:
            out[code] = s * (1 + m / 4) * 2.0**(e - 15)
    return out


E5M2 = _e5m2_table()


def random_e5m2_bits(rng, shape, max_abs=2.0):
    codes = np.array([c for c in range(256) if np.isfinite(E5M2[c]) and abs(E5M2[c]) <= max_abs],
                     np.uint8)
    return codes[rng.integers(0, len(codes), size=shape)]


# ---------------------------------------------------------------------------------------------
# Split-K: each program of the z axis sums one K slice and atomically adds its f32 tile.
# ---------------------------------------------------------------------------------------------
@triton.jit
def splitk_atomic_kernel(at_ptr, b_ptr, c_ptr, M, N, K, K_PER_SPLIT,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    k_lo = pid_k * K_PER_SPLIT
    k_hi = tl.minimum(k_lo + K_PER_SPLIT, K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        kk = k0 + rk
        # A is stored transposed (K×M): the tile is loaded [BK, BM] and transposed for the dot.
        at = tl.load(at_ptr + kk[:, None] * M + rm[None, :],
                     mask=(kk[:, None] < k_hi) & (rm[None, :] < M), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :],
                    mask=(kk[:, None] < k_hi) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(tl.trans(at), b, acc)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc,
                  mask=(rm[:, None] < M) & (rn[None, :] < N), sem="relaxed")


def _splitk_cases():
    M, N, K, SPLIT = 150, 88, 360, 3
    rng = np.random.default_rng(5001)
    at = rng.uniform(-1, 1, size=(K, M)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (at.astype(np.float64).T @ b.astype(np.float64)).astype(np.float32)
    why = ("fp16 inputs exact, f32 accumulation of K = 360 terms in 3 partial sums added in any "
           "order: 2^-24·K·Σ|ab| < 2e-5 per element; rtol/atol 5e-5")
    return [Case("ho3_splitk_atomic", grid=[triton.cdiv(M, 128), triton.cdiv(N, 64), SPLIT],
                 buffers=dict(at=Input(at, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], expected, 5e-5, 5e-5, why)),
                 args=dict(at_ptr=Ptr("at"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           K_PER_SPLIT=K // SPLIT),
                 note=f"C[{M}x{N}] = At[{K}x{M}]^T @ B[{K}x{N}], split-K into {SPLIT} slices "
                      "(grid z) whose f32 tiles meet in atom.add.f32 on a zeroed C; MN-major A; "
                      "128x64x32 tiles, 8 warps")]


# ---------------------------------------------------------------------------------------------
# Host TMA descriptors, 128x256 accumulator, 8 warps, bf16 TMA-store epilogue.
# ---------------------------------------------------------------------------------------------
@triton.jit
def tma_store_n256_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.bfloat16))


def _tma_store_cases():
    M, N, K = 200, 256, 192
    rng = np.random.default_rng(5002)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return [Case("ho3_tma_store_bf16_n256", grid=[triton.cdiv(M, 128), triton.cdiv(N, 256)],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("bf16", [M, N], expected, 4e-3, 1e-3, BF16_WHY)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"),
                           M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], fp16 in, bf16 out through a TMA "
                      "store (rows past M clipped); 128x256x64 tiles, 8 warps, 3 stages")]


# ---------------------------------------------------------------------------------------------
# fp8 e5m2 x e5m2, BLOCK_K 128, 2 stages, f32 output, masked N.
# ---------------------------------------------------------------------------------------------
@triton.jit
def fp8_e5m2_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr):
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
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _fp8_cases(name="ho3_fp8_e5m2_k128", block_m=128, block_n=128, shape=(128, 192, 384),
               seed=5003):
    M, N, K = shape
    rng = np.random.default_rng(seed)
    a = random_e5m2_bits(rng, (M, K))
    b = random_e5m2_bits(rng, (K, N))
    expected = (E5M2[a] @ E5M2[b]).astype(np.float32)
    why = ("e5m2 products are exact in f32; K = 384 terms of |ab| <= 4: the f32 sum errs by at "
           "most 2^-24·K·Σ|ab| < 2e-3 absolute; the fp8 accumulation width on sm_100a is "
           "undocumented, so atol 2e-3, rtol 1e-4")
    return [Case(name, grid=[triton.cdiv(M, block_m), triton.cdiv(N, block_n)],
                 buffers=dict(a=Input(a, "fp8e5m2"), b=Input(b, "fp8e5m2"),
                              c=Output("f32", [M, N], expected, 1e-4, 2e-3, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], fp8 e5m2 x e5m2, f32 out; "
                      f"{block_m}x{block_n}x128 tiles, 2 stages, M and N masked")]


# ---------------------------------------------------------------------------------------------
# Persistent, flattened and warp-specialised tile loop over a batch, rank-3 device descriptors.
# ---------------------------------------------------------------------------------------------
@triton.jit
def persistent_ws_batched_kernel(a_ptr, b_ptr, c_ptr, BATCH, M, N, K, NUM_PROGS,
                                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                                 BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[BATCH, M, K], strides=[M * K, K, 1],
                                       block_shape=[1, BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[BATCH, N, K], strides=[N * K, K, 1],
                                       block_shape=[1, BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[BATCH, M, N], strides=[M * N, N, 1],
                                       block_shape=[1, BLOCK_M, BLOCK_N])
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_batch = tiles_m * tiles_n
    k_tiles = tl.cdiv(K, BLOCK_K)
    for t in tl.range(tl.program_id(0), BATCH * per_batch, NUM_PROGS, flatten=True,
                      warp_specialize=True):
        bi = t // per_batch
        r = t % per_batch
        off_m = (r % tiles_m) * BLOCK_M
        off_n = (r // tiles_m) * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([bi, off_m, ki * BLOCK_K]).reshape(BLOCK_M, BLOCK_K)
            b = b_desc.load([bi, off_n, ki * BLOCK_K]).reshape(BLOCK_N, BLOCK_K)
            acc = tl.dot(a, b.T, acc)
        c_desc.store([bi, off_m, off_n], acc.to(tl.bfloat16).reshape(1, BLOCK_M, BLOCK_N))


PERSIST_PROGS = 3


def _persistent_cases():
    BATCH, M, N, K = 2, 256, 128, 160
    rng = np.random.default_rng(5004)
    a = rng.uniform(-1, 1, size=(BATCH, M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(BATCH, N, K)).astype(np.float16)
    expected = np.einsum("bmk,bnk->bmn", a.astype(np.float64),
                         b.astype(np.float64)).astype(np.float32)
    return [Case("ho3_persistent_ws_dev", grid=[PERSIST_PROGS],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("bf16", [BATCH, M, N], expected, 4e-3, 1e-3, BF16_WHY)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), BATCH=BATCH, M=M,
                           N=N, K=K, NUM_PROGS=PERSIST_PROGS),
                 note=f"C[b] = A[b] @ B[b]^T for {BATCH} batches of {M}x{N}x{K} (K = 2.5 tiles: "
                      f"TMA zero fill), fp16 in, bf16 out; {PERSIST_PROGS} persistent programs "
                      "over 8 tiles of 128x64, flattened warp-specialised loop, rank-3 device "
                      "descriptors, 5 stages")]


# ---------------------------------------------------------------------------------------------
# dot_scaled: e2m1 x e2m1 (mxfp4 both sides) and e5m2 x e4m3.
# ---------------------------------------------------------------------------------------------
@triton.jit
def mxfp4_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rkb = tl.arange(0, BLOCK_K // 2)
    rs = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * (K // 2) + (k0 // 2 + rkb)[None, :])
        b = tl.load(b_ptr + (k0 // 2 + rkb)[:, None] * N + rn[None, :])
        sa = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        sb = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e2m1", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


def _mxfp4_cases():
    M, N, K = 128, 128, 256
    rng = np.random.default_rng(5005)
    an = rng.integers(0, 16, size=(M, K), dtype=np.uint8)
    bn = rng.integers(0, 16, size=(K, N), dtype=np.uint8)
    a = (an[:, 0::2] | (an[:, 1::2] << 4)).astype(np.uint8)       # packed along K (row)
    b = (bn[0::2, :] | (bn[1::2, :] << 4)).astype(np.uint8)       # packed along K (column)
    sa = rng.integers(124, 130, size=(M, K // 32), dtype=np.uint8)
    sb = rng.integers(124, 130, size=(N, K // 32), dtype=np.uint8)
    a64 = e2m1_nibbles_to_f64(an) * np.repeat(e8m0_to_f64(sa), 32, axis=1)
    b64 = e2m1_nibbles_to_f64(bn) * np.repeat(e8m0_to_f64(sb), 32, axis=1).T
    expected = (a64 @ b64).astype(np.float32)
    why = ("scaled e2m1 products are exact in f32, sums of 256 exact terms on a 2^-8 grid below "
           "2^14 are exact; bf16 output: half an ulp is 2^-9 relative (rtol 4e-3), atol 1e-2 "
           "for values near zero")
    return [Case("ho3_dot_scaled_mxfp4", grid=[M // 128, N // 128],
                 buffers=dict(a=Input(a, "u8"), sa=Input(sa, "u8"), b=Input(b, "u8"),
                              sb=Input(sb, "u8"),
                              c=Output("bf16", [M, N], expected, 4e-3, 1e-2, why)),
                 args=dict(a_ptr=Ptr("a"), a_scale_ptr=Ptr("sa"), b_ptr=Ptr("b"),
                           b_scale_ptr=Ptr("sb"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = (A·2^sa) e2m1 @ (B·2^sb) e2m1, both packed two per byte "
                      "along K (low nibble first), e8m0 scales per 32 K, bf16 out; 128x128x128")]


@triton.jit
def mxfp8_mixed_kernel(a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    rs = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        sa = tl.load(a_scale_ptr + rm[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        sb = tl.load(b_scale_ptr + rn[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, "e5m2", b, sb, "e4m3", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _mxfp8_cases():
    M, N, K = 128, 128, 256
    rng = np.random.default_rng(5006)
    a = random_e5m2_bits(rng, (M, K))
    b = random_e4m3_bits(rng, (K, N))
    sa = rng.integers(124, 130, size=(M, K // 32), dtype=np.uint8)
    sb = rng.integers(124, 130, size=(N, K // 32), dtype=np.uint8)
    a64 = E5M2[a] * np.repeat(e8m0_to_f64(sa), 32, axis=1)
    b64 = e4m3_bits_to_f64(b) * np.repeat(e8m0_to_f64(sb), 32, axis=1).T
    expected = (a64 @ b64).astype(np.float32)
    why = ("scaled e5m2·e4m3 products are exact in f32; |terms| <= 2^8, f32 sum of 256: "
           "2^-24·K·Σ|ab| < 1e-2 absolute; the accumulation width of fp8 MMAs is undocumented: "
           "rtol 1e-4, atol 1e-2")
    return [Case("ho3_dot_scaled_e5m2_e4m3", grid=[M // 128, N // 128],
                 buffers=dict(a=Input(a, "fp8e5m2"), sa=Input(sa, "u8"),
                              b=Input(b, "fp8e4m3"), sb=Input(sb, "u8"),
                              c=Output("f32", [M, N], expected, 1e-4, 1e-2, why)),
                 args=dict(a_ptr=Ptr("a"), a_scale_ptr=Ptr("sa"), b_ptr=Ptr("b"),
                           b_scale_ptr=Ptr("sb"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = (A·2^sa) e5m2 @ (B·2^sb) e4m3, e8m0 scales per 32 K, "
                      "f32 out; 128x128x64 tiles")]


# ---------------------------------------------------------------------------------------------
# Causal attention forward, head dim 64, bf16, 128x64 blocks, 8 warps, odd sequence length.
# ---------------------------------------------------------------------------------------------
@triton.jit
def attn_d64_bf16_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len,
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
    qk_scale = sm_scale * 1.4426950408889634
    hi = tl.minimum((pid_m + 1) * BLOCK_M, seq_len)
    for start in range(0, hi, BLOCK_N):
        kn = start + rn
        kt = tl.load(k_ptr + base + rd[:, None] + kn[None, :] * HEAD_DIM,
                     mask=kn[None, :] < seq_len, other=0.0)
        s = tl.dot(q, kt) * qk_scale
        s = tl.where((kn[None, :] <= rm[:, None]) & (kn[None, :] < seq_len), s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + kn[:, None] * HEAD_DIM + rd[None, :],
                    mask=kn[:, None] < seq_len, other=0.0)
        acc = tl.dot(p.to(tl.bfloat16), v, acc * alpha[:, None])
        m_i = m_new
    o = acc / l_i[:, None]
    tl.store(o_ptr + base + rm[:, None] * HEAD_DIM + rd[None, :], o.to(tl.bfloat16),
             mask=rm[:, None] < seq_len)


def _attn_cases():
    BH, S, D = 2, 200, 64
    rng = np.random.default_rng(5007)
    q, k, v = (f32_to_bf16_bits(rng.uniform(-1, 1, size=(BH, S, D)).astype(np.float32))
               for _ in range(3))
    q64, k64, v64 = (bf16_bits_to_f64(x) for x in (q, k, v))
    scale = 1.0 / np.sqrt(D)
    s = np.einsum("bmd,bnd->bmn", q64, k64) * scale
    s = np.where(np.tril(np.ones((S, S), bool))[None], s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    o = np.einsum("bmn,bnd->bmd", p, v64).astype(np.float32)
    why = ("P rounded to bf16 before P@V (2^-9 relative per term, averaging out over the row), "
           "ex2.approx (2^-22) and bf16 output (2^-9 relative); |O| < 1: rtol 1e-2, atol 4e-3")
    return [Case("ho3_attn_d64_bf16", grid=[triton.cdiv(S, 128), BH],
                 buffers=dict(q=Input(q, "bf16"), k=Input(k, "bf16"), v=Input(v, "bf16"),
                              o=Output("bf16", [BH, S, D], o, 1e-2, 4e-3, why)),
                 args=dict(q_ptr=Ptr("q"), k_ptr=Ptr("k"), v_ptr=Ptr("v"), o_ptr=Ptr("o"),
                           sm_scale=float(np.float32(scale)), seq_len=S),
                 note=f"Causal attention forward: {BH} heads, seq {S} (not a block multiple), "
                      f"head dim {D}, bf16; 128x64 blocks, 8 warps, K loaded as K^T (MN-major B)")]


# ---------------------------------------------------------------------------------------------
# Split-K with fp16 atomics: partial tiles rounded to fp16 and added with packed f16 atomics.
# ---------------------------------------------------------------------------------------------
@triton.jit
def splitk_f16_atomic_kernel(a_ptr, b_ptr, c_ptr, M, N, K, K_PER_SPLIT,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    k_lo = pid_k * K_PER_SPLIT
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(k_lo, k_lo + K_PER_SPLIT, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.atomic_add(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), sem="relaxed")


def _splitk_f16_cases():
    M, N, K, SPLIT = 128, 128, 256, 4
    rng = np.random.default_rng(5008)
    # Multiples of 1/4 in [-1, 1]: products are multiples of 1/16 and every partial (64 terms)
    # and total stays below 2^6 on a 1/16 grid, so every fp16 rounding and every fp16 add is
    # exact whatever the order of the atomics.
    a = (rng.integers(-4, 5, size=(M, K)) / 4).astype(np.float16)
    b = (rng.integers(-4, 5, size=(K, N)) / 4).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    assert np.abs(expected).max() < 64
    why = "inputs on a 1/4 grid, partial and total sums below 2^6 on a 1/16 grid: exact in fp16"
    return [Case("ho3_splitk_f16_atomic", grid=[M // 128, N // 64, SPLIT],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [M, N], expected, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           K_PER_SPLIT=K // SPLIT),
                 note=f"C[{M}x{N}] = A @ B split into {SPLIT} K slices whose fp16 tiles meet in "
                      "packed fp16 atomic adds on a zeroed C; exact by construction")]


# ---------------------------------------------------------------------------------------------
# Serialized split-K: the K slices of a tile add their partials one after another, in slice
# order, behind a per-tile ticket (atomic_cas spin on a counter, release/acquire ordering).
# ---------------------------------------------------------------------------------------------
@triton.jit
def splitk_ticket_kernel(a_ptr, b_ptr, c_ptr, ticket_ptr, M, N, K, K_PER_SPLIT,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_k * K_PER_SPLIT, (pid_k + 1) * K_PER_SPLIT, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    ticket = ticket_ptr + pid_m * tl.num_programs(1) + pid_n
    # Wait for our turn: slice s may add only after slices 0..s-1 did.
    while tl.atomic_cas(ticket, pid_k, pid_k, sem="acquire") != pid_k:
        pass
    c_ptrs = c_ptr + rm[:, None] * N + rn[None, :]
    if pid_k == 0:
        tl.store(c_ptrs, acc)
    else:
        tl.store(c_ptrs, tl.load(c_ptrs) + acc)
    tl.debug_barrier()
    tl.atomic_xchg(ticket, pid_k + 1, sem="release")


def _splitk_ticket_cases():
    M, N, K, SPLIT = 128, 128, 256, 4
    rng = np.random.default_rng(5009)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    tickets = np.full((M // 128) * (N // 64), SPLIT, np.float64)
    why = ("fp16 inputs exact, f32 sums of 256 terms in 4 partials added in slice order: "
           "2^-24·K·Σ|ab| < 2e-5")
    return [Case("ho3_splitk_ticket", grid=[M // 128, N // 64, SPLIT],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], expected, 2e-5, 2e-5, why),
                              ticket=Output("i32", [len(tickets)], tickets, 0.0, 0.0,
                                            "every slice took its turn: the counter ends at "
                                            f"{SPLIT}")),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"),
                           ticket_ptr=Ptr("ticket"), M=M, N=N, K=K, K_PER_SPLIT=K // SPLIT),
                 note=f"C[{M}x{N}] = A @ B split into {SPLIT} K slices (grid z) that add their "
                      "f32 partials in slice order behind a per-tile ticket: atom.cas.acquire "
                      "spin, plain load/add/store, atom.exch.release; the 1 x 2 x 4 = 8 CTAs "
                      "are dispatched slice by slice, so the spin ends even when few fit an SM")]


# ---------------------------------------------------------------------------------------------
# A GEMM whose epilogue scans and sorts each row: tl.cumsum and tl.sort over the N axis
# (warp shuffles, shared-memory exchange), on integer-valued products so every sum is exact.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_scan_sort_kernel(a_ptr, b_ptr, cs_ptr, srt_ptr, M, N, K, BLOCK_M: tl.constexpr,
                          BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    offs = rm[:, None] * N + rn[None, :]
    tl.store(cs_ptr + offs, tl.cumsum(acc, axis=1))
    tl.store(srt_ptr + offs, tl.sort(acc, dim=1, descending=True))


def _scan_sort_cases():
    M, N, K = 256, 64, 64
    rng = np.random.default_rng(5010)
    a = rng.integers(-3, 4, size=(M, K)).astype(np.float16)
    b = rng.integers(-3, 4, size=(K, N)).astype(np.float16)
    c = a.astype(np.float64) @ b.astype(np.float64)
    why = "integer-valued products, |partial sums| < 2^13: exact in f32 in any order"
    return [Case("ho3_gemm_scan_sort", grid=[M // 128],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              cs=Output("f32", [M, N], np.cumsum(c, axis=1).astype(np.float32),
                                        0.0, 0.0, why),
                              srt=Output("f32", [M, N], -np.sort(-c, axis=1).astype(np.float32),
                                         0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), cs_ptr=Ptr("cs"), srt_ptr=Ptr("srt"),
                           M=M, N=N, K=K),
                 note=f"C = A[{M}x{K}] @ B[{K}x{N}] on small integers; outputs the row-wise "
                      "cumulative sum and the rows sorted in descending order (tl.cumsum, "
                      "tl.sort in the epilogue)")]


# ---------------------------------------------------------------------------------------------
# A GEMM with a transcendental epilogue: approximate sin/cos/exp2/log2/rsqrt and libdevice tanh.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_math_epilogue_kernel(a_ptr, b_ptr, o1_ptr, o2_ptr, o3_ptr, M, N, K,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
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
    offs = rm[:, None] * N + rn[None, :]
    tl.store(o1_ptr + offs, tl.sin(acc) * tl.cos(acc))
    tl.store(o2_ptr + offs, tl.math.exp2(acc * 0.25) + tl.math.log2(acc * acc + 1.0))
    tl.store(o3_ptr + offs, libdevice.tanh(acc) * tl.math.rsqrt(acc * acc + 0.5))


def _math_cases():
    M, N, K = 128, 128, 64
    rng = np.random.default_rng(5011)
    a = rng.uniform(-0.3, 0.3, size=(M, K)).astype(np.float16)
    b = rng.uniform(-0.3, 0.3, size=(K, N)).astype(np.float16)
    x = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(x).max() < np.pi
    o1 = np.sin(x) * np.cos(x)
    o2 = np.exp2(x * 0.25) + np.log2(x * x + 1.0)
    o3 = np.tanh(x) / np.sqrt(x * x + 0.5)
    return [Case("ho3_gemm_math_epilogue", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              o1=Output("f32", [M, N], o1.astype(np.float32), 0.0, 2e-6,
                                        "sin/cos.approx.f32: max abs error 2^-20.5 each on "
                                        "[-pi, pi] (PTX ISA); |x| < pi: atol 2e-6"),
                              o2=Output("f32", [M, N], o2.astype(np.float32), 2e-6, 2e-6,
                                        "ex2.approx: 2 ulp relative; lg2.approx: 2^-22 abs "
                                        "near 1; both values below 4: atol/rtol 2e-6"),
                              o3=Output("f32", [M, N], o3.astype(np.float32), 1e-5, 1e-6,
                                        "libdevice tanhf (2 ulp) times rsqrt.approx (2^-22.9 "
                                        "relative): rtol 1e-5")),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), o1_ptr=Ptr("o1"), o2_ptr=Ptr("o2"),
                           o3_ptr=Ptr("o3"), M=M, N=N, K=K),
                 note=f"X = A[{M}x{K}] @ B[{K}x{N}] (fp16 in, |X| < pi) with a transcendental "
                      "epilogue: sin·cos, exp2 + log2, tanh·rsqrt")]


# ---------------------------------------------------------------------------------------------
# fp8 e4m3 with an fp16 accumulator (`out_dtype=tl.float16`): kind::f8f6f4 writing f16 D.
# ---------------------------------------------------------------------------------------------
@triton.jit
def fp8_f16acc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float16)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.float16)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _fp8_f16acc_cases():
    M, N, K = 128, 128, 128
    rng = np.random.default_rng(5012)
    # e4m3 codes of the values {0, ±0.5, ±1, ±1.5, ±2}: products are multiples of 1/4 below 4,
    # every partial sum of 128 stays below 2^9 on a 1/4 grid: exact in fp16 whatever the order.
    vals = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0])
    codes = np.array([0x00, 0x30, 0xB0, 0x38, 0xB8, 0x3C, 0xBC, 0x40, 0xC0], np.uint8)
    ia = rng.integers(0, len(vals), size=(M, K))
    ib = rng.integers(0, len(vals), size=(K, N))
    assert np.array_equal(e4m3_bits_to_f64(codes), vals)
    expected = (vals[ia] @ vals[ib]).astype(np.float32)
    return [Case("ho3_fp8_f16acc", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(codes[ia], "fp8e4m3"), b=Input(codes[ib], "fp8e4m3"),
                              c=Output("f16", [M, N], expected, 0.0, 0.0,
                                       "inputs in {0, ±1/2, ±1, ±3/2, ±2}: every partial sum "
                                       "is a multiple of 1/4 below 2^9, exact in fp16")),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A @ B, fp8 e4m3 in, fp16 accumulator in TMEM "
                      "(kind::f8f6f4 with f16 D), 128x64x64 tiles; exact by construction")]


# ---------------------------------------------------------------------------------------------
# tf32 through host tensor descriptors (f32 tiles by TMA). B_KMAJOR: B given N×K and transposed
# in the dot (K-major B); otherwise B is row-major K×N (MN-major B), which Triton 3.9 lowers with a
# register round trip of each B tile into a single staging buffer that the next iteration
# overwrites while the previous MMA may still read it (a WAR race on shared memory: the
# compiler bug kept in tests/corpus/kernels/holdout_bugs/, see docs/arch/holdout.md).
# ---------------------------------------------------------------------------------------------
@triton.jit
def tf32_tma_kernel(a_desc, b_desc, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr, B_KMAJOR: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        if B_KMAJOR:
            b = b_desc.load([off_n, k]).T
        else:
            b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc, input_precision="tf32")
    rm = off_m + tl.arange(0, BLOCK_M)
    rn = off_n + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _tf32_tma_cases(name, b_kmajor):
    def cases():
        from regen import tf32_exact
        M, N, K = 160, 128, 96
        rng = np.random.default_rng(5013)
        a = tf32_exact(rng, (M, K))
        b = tf32_exact(rng, (K, N))
        expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
        why = "tf32-exact inputs; f32 accumulation of K = 96 terms: 2^-24·K·Σ|ab| < 1e-5"
        b_in = np.ascontiguousarray(b.T) if b_kmajor else b
        layout = f"B given {N}x{K} (K-major)" if b_kmajor else f"B given {K}x{N} (MN-major)"
        return [Case(name, grid=[triton.cdiv(M, 128), triton.cdiv(N, 64)],
                     buffers=dict(a=Input(a, "f32"), b=Input(b_in, "f32"),
                                  c=Output("f32", [M, N], expected, 1e-5, 1e-5, why)),
                     args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_ptr=Ptr("c"),
                               M=M, N=N, K=K),
                     note=f"C[{M}x{N}] = A[{M}x{K}] @ B, f32 tiles by TMA, kind::tf32, {layout}, "
                          "128x64x32 tiles, 3 stages, M not a tile multiple")]
    return cases


# ---------------------------------------------------------------------------------------------
# Clusters of two CTAs over a 256-row tile with host descriptors (`num_ctas=2`).
# ---------------------------------------------------------------------------------------------
@triton.jit
def cluster2_tma_kernel(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([k, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.store([off_m, off_n], acc.to(tl.float16))


def _cluster2_tma_cases():
    M, N, K = 512, 128, 128
    rng = np.random.default_rng(5014)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    expected = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    why = ("f16 output: 2^-11 relative rounding plus f32 accumulation of K products "
           "(about 2^-24·K·Σ|ab| < 1e-4 here)")
    return [Case("ho3_cluster2_tma", grid=[M // 256 * 2, N // 128],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [M, N], expected, 2e-3, 1e-3, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"),
                           M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A @ B with num_ctas=2 (clusters of two CTAs over a 256x128 "
                      "tile), host tensor descriptors, fp16 out through a TMA store.\nThe grid "
                      "is Triton's times num_ctas = 2, as Triton's launcher does.")]


# ---------------------------------------------------------------------------------------------
# A GEMM whose epilogue is a zoo of integer and correctly rounded / directed-rounding float
# operations (libdevice): popc, clz, brev, mulhi, ffs, byte_perm, signed div/rem; div_rn,
# sqrt_rn, fma_rz, mul_ru, add_rd, fmod, cbrt, hypot, atan2.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_op_zoo_kernel(a_ptr, b_ptr, oi_ptr, of_ptr, oa_ptr, M, N, K, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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
    offs = rm[:, None] * N + rn[None, :]
    MN = M * N
    x = acc
    xi = x.to(tl.int32) * 40503 + 12345
    tl.store(oi_ptr + 0 * MN + offs, libdevice.popc(xi))
    tl.store(oi_ptr + 1 * MN + offs, libdevice.clz(xi))
    tl.store(oi_ptr + 2 * MN + offs, libdevice.brev(xi))
    tl.store(oi_ptr + 3 * MN + offs, libdevice.mulhi(xi, -1640531527))
    tl.store(oi_ptr + 4 * MN + offs, libdevice.ffs(xi))
    tl.store(oi_ptr + 5 * MN + offs, libdevice.byte_perm(xi, 0x76543210, 0x3175))
    tl.store(oi_ptr + 6 * MN + offs, xi % 7)
    tl.store(oi_ptr + 7 * MN + offs, xi // 5)
    tl.store(of_ptr + 0 * MN + offs, libdevice.div_rn(x, 3.0))
    tl.store(of_ptr + 1 * MN + offs, libdevice.sqrt_rn(tl.abs(x) + 0.5))
    tl.store(of_ptr + 2 * MN + offs, libdevice.fma_rz(x, 1.1, 0.3))
    tl.store(of_ptr + 3 * MN + offs, libdevice.mul_ru(x, 0.1))
    tl.store(of_ptr + 4 * MN + offs, libdevice.add_rd(x * 0.001, 0.7))
    tl.store(of_ptr + 5 * MN + offs, libdevice.fmod(x, 3.7))
    tl.store(oa_ptr + 0 * MN + offs, libdevice.cbrt(x))
    tl.store(oa_ptr + 1 * MN + offs, libdevice.hypot(x, 3.0) + libdevice.atan2(x, 50.0))


def _f32_directed(y, mode):
    """Rounds f64 values (exact results) to f32 toward zero / +inf / -inf, bit-exactly."""
    f = y.astype(np.float32)
    f64 = f.astype(np.float64)
    if mode == "rz":
        return np.where(np.abs(f64) > np.abs(y), np.nextafter(f, np.float32(0)), f)
    if mode == "ru":
        return np.where(f64 < y, np.nextafter(f, np.float32(np.inf)), f)
    return np.where(f64 > y, np.nextafter(f, np.float32(-np.inf)), f)


def _op_zoo_cases():
    M, N, K = 128, 64, 64
    rng = np.random.default_rng(5015)
    a = rng.integers(-4, 5, size=(M, K)).astype(np.float16)
    b = rng.integers(-4, 5, size=(K, N)).astype(np.float16)
    x = a.astype(np.float64) @ b.astype(np.float64)            # integers, |x| < 2^10: exact
    xi = x.astype(np.int64) * 40503 + 12345
    assert np.abs(xi).max() < 2**31
    u = [int(v) & 0xFFFFFFFF for v in xi.ravel()]
    y_bytes = [(0x76543210 >> (8 * i)) & 0xFF for i in range(4)]

    def perm(v):   # byte_perm(x, y, s): bytes of {y:x}, x = bytes 0-3, y = 4-7, s selects
        src = [(v >> (8 * i)) & 0xFF for i in range(4)] + y_bytes
        return sum(src[(0x3175 >> (4 * i)) & 7] << (8 * i) for i in range(4))

    per_value = np.array([[bin(v).count("1"), 32 - v.bit_length(),
                           int(f"{v:032b}"[::-1], 2), (v & -v).bit_length(), perm(v)]
                          for v in u], np.int64).T.reshape(5, M, N)
    mulhi = (xi * -1640531527) >> 32
    rem = np.fmod(xi, 7)                                         # C semantics: sign of dividend
    quo = np.trunc(xi / 5).astype(np.int64)
    ints = np.stack([per_value[0], per_value[1], per_value[2], mulhi, per_value[3], per_value[4],
                     rem, quo])
    ints = ((ints & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000      # as int32
    x32 = x.astype(np.float32)
    c11, c03, c01, c07 = (np.float64(np.float32(v)) for v in (1.1, 0.3, 0.1, 0.7))
    xm = (x32 * np.float32(0.001)).astype(np.float64)            # the kernel's x * 0.001 (RN)
    floats = np.stack([
        (x / 3.0).astype(np.float32),                             # div.rn: correctly rounded
        np.sqrt(np.abs(x) + 0.5).astype(np.float32),              # sqrt.rn: correctly rounded
        _f32_directed(x * c11 + c03, "rz"),                       # fma.rz: exact in f64
        _f32_directed(x * c01, "ru"),                             # mul.ru: exact in f64
        _f32_directed(xm + c07, "rd"),                            # add.rd: exact in f64
        np.fmod(x, np.float64(np.float32(3.7))).astype(np.float32),   # fmodf: exact
    ])
    approx = np.stack([np.cbrt(x), np.hypot(x, 3.0) + np.arctan2(x, 50.0)]).astype(np.float32)
    why_f = ("div_rn, sqrt_rn, fma_rz, mul_ru, add_rd, fmod: correctly rounded (directed "
             "roundings computed exactly from the f64 result): bit for bit")
    why_a = "cbrtf 1 ulp, hypotf and atan2f 3 ulp each (CUDA math docs): rtol 5e-7"

    return [Case("ho3_gemm_op_zoo", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              oi=Output("i32", [8, M, N], ints.astype(np.float64), 0.0, 0.0,
                                        "integer operations: exact"),
                              of=Output("f32", [6, M, N], floats, 0.0, 0.0, why_f),
                              oa=Output("f32", [2, M, N], approx, 5e-7, 1e-6, why_a)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), oi_ptr=Ptr("oi"), of_ptr=Ptr("of"),
                           oa_ptr=Ptr("oa"), M=M, N=N, K=K),
                 note=f"X = A[{M}x{K}] @ B[{K}x{N}] on small integers; epilogue: popc, clz, "
                      "brev, mulhi, ffs, byte_perm, signed % and // of a hashed int32, and "
                      "div_rn, sqrt_rn, fma_rz, mul_ru, add_rd, fmod, cbrt, hypot + atan2")]


def _desc(dtype, shape):
    return f"tensordesc<{dtype}[{shape[0]}, {shape[1]}]>"


KERNELS = [
    TritonKernel(name="ho3_splitk_atomic", fn=splitk_atomic_kernel,
                 signature=dict(at_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", K_PER_SPLIT="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32), cases=_splitk_cases,
                 num_warps=8, num_stages=3, aligned=("at_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "red.global.gpu.relaxed.add.f32")),
    TritonKernel(name="ho3_tma_store_bf16_n256", fn=tma_store_n256_kernel,
                 signature=dict(a_desc=_desc("fp16", [128, 64]), b_desc=_desc("fp16", [64, 256]),
                                c_desc=_desc("bf16", [128, 256]), M="i32", N="i32", K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=64), cases=_tma_store_cases,
                 num_warps=8, num_stages=3,
                 must_contain=("tcgen05.mma", "cp.async.bulk.tensor.2d.global.shared")),
    TritonKernel(name="ho3_fp8_e5m2_k128", fn=fp8_e5m2_kernel,
                 signature=dict(a_ptr="*fp8e5", b_ptr="*fp8e5", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128), cases=_fp8_cases,
                 num_warps=4, num_stages=2, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("kind::f8f6f4",)),
    TritonKernel(name="ho3_persistent_ws_dev", fn=persistent_ws_batched_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*bf16", BATCH="i32",
                                M="i32", N="i32", K="i32", NUM_PROGS="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64),
                 cases=_persistent_cases, num_warps=4, num_stages=5,
                 aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "tensormap", "cp.async.bulk.tensor.3d")),
    TritonKernel(name="ho3_dot_scaled_mxfp4", fn=mxfp4_kernel,
                 signature=dict(a_ptr="*u8", a_scale_ptr="*u8", b_ptr="*u8", b_scale_ptr="*u8",
                                c_ptr="*bf16", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128), cases=_mxfp4_cases,
                 num_warps=4, num_stages=2,
                 aligned=("a_ptr", "a_scale_ptr", "b_ptr", "b_scale_ptr", "c_ptr"),
                 must_contain=("block_scale",)),
    TritonKernel(name="ho3_dot_scaled_e5m2_e4m3", fn=mxfp8_mixed_kernel,
                 signature=dict(a_ptr="*fp8e5", a_scale_ptr="*u8", b_ptr="*fp8e4nv",
                                b_scale_ptr="*u8", c_ptr="*fp32", M="i32", N="i32", K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=64), cases=_mxfp8_cases,
                 num_warps=4, num_stages=3,
                 aligned=("a_ptr", "a_scale_ptr", "b_ptr", "b_scale_ptr", "c_ptr"),
                 must_contain=("block_scale",)),
    TritonKernel(name="ho3_attn_d64_bf16", fn=attn_d64_bf16_kernel,
                 signature=dict(q_ptr="*bf16", k_ptr="*bf16", v_ptr="*bf16", o_ptr="*bf16",
                                sm_scale="fp32", seq_len="i32", HEAD_DIM="constexpr",
                                BLOCK_M="constexpr", BLOCK_N="constexpr"),
                 constexprs=dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64), cases=_attn_cases,
                 num_warps=8, num_stages=2, aligned=("q_ptr", "k_ptr", "v_ptr", "o_ptr"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
    TritonKernel(name="ho3_splitk_f16_atomic", fn=splitk_f16_atomic_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", M="i32", N="i32",
                                K="i32", K_PER_SPLIT="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_splitk_f16_cases,
                 num_warps=4, num_stages=2, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma", "red.global.gpu.relaxed.add.noftz.f16")),
    TritonKernel(name="ho3_splitk_ticket", fn=splitk_ticket_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", ticket_ptr="*i32",
                                M="i32", N="i32", K="i32", K_PER_SPLIT="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64),
                 cases=_splitk_ticket_cases, num_warps=4, num_stages=2,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "ticket_ptr"),
                 must_contain=("tcgen05.mma", "atom.")),
    TritonKernel(name="ho3_gemm_scan_sort", fn=gemm_scan_sort_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", cs_ptr="*fp32", srt_ptr="*fp32",
                                M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_scan_sort_cases,
                 num_warps=4, num_stages=2, aligned=("a_ptr", "b_ptr", "cs_ptr", "srt_ptr"),
                 must_contain=("tcgen05.mma", "shfl.sync")),
    TritonKernel(name="ho3_gemm_math_epilogue", fn=gemm_math_epilogue_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", o1_ptr="*fp32", o2_ptr="*fp32",
                                o3_ptr="*fp32", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_math_cases,
                 num_warps=4, num_stages=2,
                 aligned=("a_ptr", "b_ptr", "o1_ptr", "o2_ptr", "o3_ptr"),
                 must_contain=("tcgen05.mma", "ex2.approx", "rsqrt.approx")),
    TritonKernel(name="ho3_fp8_f16acc", fn=fp8_f16acc_kernel,
                 signature=dict(a_ptr="*fp8e4nv", b_ptr="*fp8e4nv", c_ptr="*fp16", M="i32",
                                N="i32", K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_fp8_f16acc_cases,
                 num_warps=4, num_stages=2, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("kind::f8f6f4",)),
    TritonKernel(name="ho3_tf32_tma", fn=tf32_tma_kernel,
                 signature=dict(a_desc=_desc("fp32", [128, 32]), b_desc=_desc("fp32", [64, 32]),
                                c_ptr="*fp32", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr", B_KMAJOR="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, B_KMAJOR=True),
                 cases=_tf32_tma_cases("ho3_tf32_tma", True), num_warps=4, num_stages=3,
                 aligned=("c_ptr",), must_contain=("kind::tf32", "cp.async.bulk.tensor")),
    TritonKernel(name="ho3_cluster2_tma", fn=cluster2_tma_kernel,
                 signature=dict(a_desc=_desc("fp16", [256, 64]), b_desc=_desc("fp16", [64, 128]),
                                c_desc=_desc("fp16", [256, 128]), M="i32", N="i32", K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=256, BLOCK_N=128, BLOCK_K=64),
                 cases=_cluster2_tma_cases, num_warps=4, num_stages=3, num_ctas=2,
                 must_contain=("tcgen05.mma", "cp.async.bulk.tensor")),
    TritonKernel(name="ho3_gemm_op_zoo", fn=gemm_op_zoo_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", oi_ptr="*i32", of_ptr="*fp32",
                                oa_ptr="*fp32", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_op_zoo_cases,
                 num_warps=4, num_stages=2,
                 aligned=("a_ptr", "b_ptr", "oi_ptr", "of_ptr", "oa_ptr"),
                 must_contain=("tcgen05.mma", "popc", "brev", "fma.rz", "prmt")),
    TritonKernel(name="ho3_fp8_e5m2_m64", fn=fp8_e5m2_kernel,
                 signature=dict(a_ptr="*fp8e5", b_ptr="*fp8e5", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=128),
                 cases=lambda: _fp8_cases("ho3_fp8_e5m2_m64", 64, 64, (136, 120, 256), 5016),
                 num_warps=4, num_stages=2, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("kind::f8f6f4",)),
]


# Real compiler output with a real race, found by tmemu: kept apart (tests/corpus/kernels/
# holdout_bugs/, made by gen.py) so that the corpus tests that demand zero findings stay
# meaningful; crates/host/tests/holdout.rs checks that tmemu reports it.
COMPILER_BUGS = [
    TritonKernel(name="ho3_bug_tf32_mn_b", fn=tf32_tma_kernel,
                 signature=dict(a_desc=_desc("fp32", [128, 32]), b_desc=_desc("fp32", [32, 64]),
                                c_ptr="*fp32", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr", B_KMAJOR="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, B_KMAJOR=False),
                 cases=_tf32_tma_cases("ho3_bug_tf32_mn_b", False), num_warps=4, num_stages=3,
                 aligned=("c_ptr",), must_contain=("kind::tf32", "cp.async.bulk.tensor")),
]
