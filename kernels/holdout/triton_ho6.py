"""Holdout batch 6a (Triton 3.9): JIT-style compiled kernels (integer arguments that are multiples
of 16 marked `tt.divisibility = 16`, as triton/runtime/jit.py specialises them) whose compiler
choices differ from everything in batches 1-5. Each kernel is our own:

* ho6_splitk_desc_atomic: split-K over grid z whose partial tiles meet through a device tensor
  descriptor's `atomic_add` (a TMA **reduce**: `cp.reduce.async.bulk.tensor ... .add`, f32),
  B loaded row-major (MN-major) by TMA, M = 200 (the reduce is clipped at the edge).
* ho6_dot_scaled_e4m3_e2m1_npack: `tl.dot_scaled` mxfp8 (e4m3) x mxfp4 (e2m1) with the fp4
  operand **packed along N** (`rhs_k_pack=False`).
* ho6_attn_causal_ws: causal attention, bf16, head dim 128, the KV loop
  `tl.range(warp_specialize=True, disallow_acc_multi_buffer=True)`, split into the off-diagonal
  blocks and the masked diagonal block as the tutorial does.
* ho6_moe_gather: fused MoE-style expert matmul: token ids loaded with `tl.load` (padded with
  -1), A rows gathered by pointer, per-expert weights, routing weights applied in the epilogue,
  rows scattered back by slot.
* ho6_gemm_gather_hist: epilogue with `tl.gather` (columns permuted by an index vector) and
  `tl.histogram` of the integer results, merged across tiles by `tl.atomic_add`.
* ho6_odd_s1_k128: 257 x 131 x 77, every edge masked, **num_stages = 1** (no pipelining),
  128x32x128 tile (K = 77 < BLOCK_K: one masked K step).
* ho6_grouped_bk32_s5: bf16, grouped (swizzled) program order, **BLOCK_K = 32 with 5 stages**.
* ho6_bmm_host3d: batched matmul through rank-3 **host** tensor descriptors (A, B K-major, C)
  with a 3-D TMA store, `num_stages = 4`.
* ho6_cluster2_m256: `num_ctas = 2` with a 256-row tile.
"""
import numpy as np
import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait

from regen import (Case, HostTMA, Input, Output, Ptr, TritonKernel, bf16_bits_to_f64,
                   e2m1_nibbles_to_f64, e4m3_bits_to_f64, e8m0_to_f64, f32_to_bf16_bits,
                   random_e4m3_bits)


def _ref(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


def _grid_f16(rng, shape, steps=8):
    """fp16 values k/steps, |k| <= steps: exact, and so are their products and short sums."""
    return (rng.integers(-steps, steps + 1, size=shape) / steps).astype(np.float16)


# ---------------------------------------------------------------------------------------------
# Split-K with a TMA reduce (descriptor atomic_add) epilogue.
# ---------------------------------------------------------------------------------------------
@triton.jit
def splitk_desc_atomic_kernel(a_ptr, b_ptr, c_ptr, M, N, K, K_SPLIT, BLOCK_M: tl.constexpr,
                              BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1],
                                       block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_M, BLOCK_N])
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    k0 = tl.program_id(2) * K_SPLIT
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kk in range(0, K_SPLIT, BLOCK_K):
        a = a_desc.load([off_m, k0 + kk])
        b = b_desc.load([k0 + kk, off_n])
        acc = tl.dot(a, b, acc)
    c_desc.atomic_add([off_m, off_n], acc)


def _splitk_cases():
    M, N, K, SPLITS = 200, 128, 384, 3
    rng = np.random.default_rng(7201)
    a = _grid_f16(rng, (M, K))
    b = _grid_f16(rng, (K, N))
    why = ("inputs on a 1/8 grid: products on a 1/64 grid, every partial and total sum of at "
           "most 384 terms below 2^9 is exact in f32, so neither the MMA order nor the order "
           "of the 3 reduce-adds matters: exact")
    return [Case("ho6_splitk_desc_atomic", grid=[triton.cdiv(M, 128), N // 64, SPLITS],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], _ref(a, b), 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K,
                           K_SPLIT=K // SPLITS),
                 note=f"C[{M}x{N}] += A[{M}x{K}] @ B[{K}x{N}] split over K in {SPLITS} slices "
                      "(grid z), fp16 in: each slice's f32 tile goes out by a device tensor "
                      "descriptor's atomic_add (TMA reduce-add, clipped at M = 200); B "
                      "row-major (MN-major) by TMA; 128x64x64, 4 warps")]


# ---------------------------------------------------------------------------------------------
# dot_scaled e4m3 x e2m1 with the fp4 operand packed along N.
# ---------------------------------------------------------------------------------------------
@triton.jit
def dot_scaled_npack_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, c_ptr, M, N, K,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rnb = pid_n * (BLOCK_N // 2) + tl.arange(0, BLOCK_N // 2)
    rk = tl.arange(0, BLOCK_K)
    rs = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        sa = tl.load(sa_ptr + rm[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        # B: [K, N/2] bytes, two e2m1 per byte along N
        b = tl.load(b_ptr + (k0 + rk)[:, None] * (N // 2) + rnb[None, :])
        sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, "e4m3", b, sb, "e2m1", acc, rhs_k_pack=False)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _npack_cases():
    M, N, K = 128, 128, 256
    rng = np.random.default_rng(7202)
    a = random_e4m3_bits(rng, (M, K))
    sa = rng.integers(124, 130, size=(M, K // 32), dtype=np.uint8)
    bn = rng.integers(0, 16, size=(K, N), dtype=np.uint8)
    b = (bn[:, 0::2] | (bn[:, 1::2] << 4)).astype(np.uint8)
    sb = rng.integers(124, 130, size=(N, K // 32), dtype=np.uint8)
    a64 = e4m3_bits_to_f64(a) * np.repeat(e8m0_to_f64(sa), 32, axis=1)
    b64 = e2m1_nibbles_to_f64(bn) * np.repeat(e8m0_to_f64(sb), 32, axis=1).T
    expected = (a64 @ b64).astype(np.float32)
    why = ("scaled e4m3 x scaled e2m1 products have at most 4 + 2 significant bits (exact in "
           "f32); K = 256 terms of |ab| <= 2·2^2·6·2^2: the f32 (or wider) sum errs < "
           "2^-24·Σ|ab| < 2e-3 absolute: rtol 1e-5, atol 2e-3")
    return [Case("ho6_dot_scaled_e4m3_e2m1_npack", grid=[M // 128, N // 128],
                 buffers=dict(a=Input(a, "fp8e4m3"), sa=Input(sa, "u8"), b=Input(b, "u8"),
                              sb=Input(sb, "u8"),
                              c=Output("f32", [M, N], expected, 1e-5, 2e-3, why)),
                 args=dict(a_ptr=Ptr("a"), sa_ptr=Ptr("sa"), b_ptr=Ptr("b"), sb_ptr=Ptr("sb"),
                           c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = (A·2^sa) e4m3 [{M}x{K}] @ (B·2^sb) e2m1 [{K}x{N}], e8m0 "
                      "scales every 32 K; B packed two per byte along N (rhs_k_pack=False, "
                      "low nibble = even column); 128x128x128, 4 warps, f32 out")]


# ---------------------------------------------------------------------------------------------
# Causal attention, warp-specialised, accumulator not multi-buffered.
# ---------------------------------------------------------------------------------------------
@triton.jit
def _attn_block(acc, l_i, m_i, q, k_desc, v_desc, row0, lo, hi, start_m, qk_scale,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, DIAG: tl.constexpr):
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=True,
                            disallow_acc_multi_buffer=True):
        k = k_desc.load([row0 + start_n, 0])
        qk = tl.dot(q, k.T)
        if DIAG:
            offs_n = start_n + tl.arange(0, BLOCK_N)
            qk = tl.where(offs_m[:, None] >= offs_n[None, :], qk * qk_scale, -1.0e6)
        else:
            qk = qk * qk_scale
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = v_desc.load([row0 + start_n, 0])
        acc = tl.dot(p.to(tl.bfloat16), v, acc)
        m_i = m_ij
    return acc, l_i, m_i


@triton.jit
def attn_causal_ws_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len, n_rows,
                          HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    q_desc = tl.make_tensor_descriptor(q_ptr, shape=[n_rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(k_ptr, shape=[n_rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(v_ptr, shape=[n_rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(o_ptr, shape=[n_rows, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    start_m = tl.program_id(0)
    row0 = tl.program_id(1) * seq_len
    q = q_desc.load([row0 + start_m * BLOCK_M, 0])
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    qk_scale = sm_scale * 1.44269504
    # blocks strictly below the diagonal, then the diagonal block(s) with the mask
    acc, l_i, m_i = _attn_block(acc, l_i, m_i, q, k_desc, v_desc, row0, 0, start_m * BLOCK_M,
                                start_m, qk_scale, BLOCK_M, BLOCK_N, False)
    acc, l_i, m_i = _attn_block(acc, l_i, m_i, q, k_desc, v_desc, row0, start_m * BLOCK_M,
                                (start_m + 1) * BLOCK_M, start_m, qk_scale, BLOCK_M, BLOCK_N,
                                True)
    o_desc.store([row0 + start_m * BLOCK_M, 0], (acc / l_i[:, None]).to(tl.bfloat16))


def _softmax_rows(s):
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


def _attn_cases():
    BH, S, D = 1, 256, 128
    rng = np.random.default_rng(7203)
    q, k, v = (f32_to_bf16_bits(rng.uniform(-1, 1, size=(BH * S, D)).astype(np.float32))
               for _ in range(3))
    scale = 1.0 / np.sqrt(D)
    q3, k3, v3 = (bf16_bits_to_f64(x).reshape(BH, S, D) for x in (q, k, v))
    s = np.einsum("bmd,bnd->bmn", q3, k3) * scale
    s = np.where(np.tril(np.ones((S, S), bool))[None], s, -np.inf)
    o = np.einsum("bmn,bnd->bmd", _softmax_rows(s), v3).reshape(BH * S, D).astype(np.float32)
    why = ("P rounded to bf16 before P V (2^-9 relative per term, |O| < 1, errors of "
           "independent sign), ex2.approx (2^-22), bf16 output (half an ulp, 2^-9 relative): "
           "rtol 1e-2, atol 4e-3")
    return [Case("ho6_attn_causal_ws", grid=[S // 128, BH],
                 buffers=dict(q=Input(q, "bf16"), k=Input(k, "bf16"), v=Input(v, "bf16"),
                              o=Output("bf16", [BH * S, D], o, 1e-2, 4e-3, why)),
                 args=dict(q_ptr=Ptr("q"), k_ptr=Ptr("k"), v_ptr=Ptr("v"), o_ptr=Ptr("o"),
                           sm_scale=float(np.float32(scale)), seq_len=S, n_rows=BH * S),
                 note=f"Causal attention forward, {BH} heads x seq {S} x head dim {D}, bf16, "
                      "device descriptors; two KV loops (below the diagonal, then the masked "
                      "diagonal blocks), each tl.range(warp_specialize=True, "
                      "disallow_acc_multi_buffer=True); 128x64 blocks, 4 warps")]


# ---------------------------------------------------------------------------------------------
# Fused MoE-style gather matmul.
# ---------------------------------------------------------------------------------------------
@triton.jit
def moe_gather_kernel(x_ptr, w_ptr, tok_ptr, gate_ptr, out_ptr, K, N, ROWS_PER_EXPERT,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    expert = tl.program_id(1)
    pid_n = tl.program_id(2)
    slot = expert * ROWS_PER_EXPERT + pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    tok = tl.load(tok_ptr + slot)
    valid = tok >= 0
    tok = tl.where(valid, tok, 0)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    w_base = w_ptr + expert.to(tl.int64) * K * N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        x = tl.load(x_ptr + tok[:, None] * K + (k0 + rk)[None, :], mask=valid[:, None],
                    other=0.0)
        w = tl.load(w_base + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(x, w, acc)
    gate = tl.load(gate_ptr + slot, mask=valid, other=0.0)
    acc = acc * gate[:, None]
    tl.store(out_ptr + slot[:, None] * N + rn[None, :], acc.to(tl.float16), mask=valid[:, None])


def _moe_cases():
    T, E, K, N, TOPK, R = 96, 4, 128, 64, 2, 128
    rng = np.random.default_rng(7204)
    x = _grid_f16(rng, (T, K))
    w = _grid_f16(rng, (E, K, N), 4)
    # each token picks TOPK distinct experts; slots of an expert are filled in token order
    picks = np.stack([rng.choice(E, TOPK, replace=False) for _ in range(T)])
    tok = np.full(E * R, -1, np.int32)
    gate = np.zeros(E * R, np.float32)
    out = np.zeros((E * R, N), np.float32)
    fill = [0] * E
    for t in range(T):
        for j, e in enumerate(picks[t]):
            s = e * R + fill[e]
            fill[e] += 1
            tok[s] = t
            gate[s] = (0.75, 0.25)[j]
            out[s] = (x[t].astype(np.float64) @ w[e].astype(np.float64)) * gate[s]
    assert max(fill) <= R
    why = ("x on a 1/8 and w on a 1/4 grid: products on a 1/32 grid, 128-term sums below 2^7 "
           "exact in f32, gates 3/4 and 1/4 exact; the fp16 output rounds (half an ulp, "
           "2^-11 relative): rtol 1e-3, atol 1e-3; padding rows (token -1) stay 0")
    return [Case("ho6_moe_gather", grid=[R // 64, E, N // 64],
                 buffers=dict(x=Input(x, "f16"), w=Input(w, "f16"), tok=Input(tok, "i32"),
                              gate=Input(gate, "f32"),
                              out=Output("f16", [E * R, N], out, 1e-3, 1e-3, why)),
                 args=dict(x_ptr=Ptr("x"), w_ptr=Ptr("w"), tok_ptr=Ptr("tok"),
                           gate_ptr=Ptr("gate"), out_ptr=Ptr("out"), K=K, N=N,
                           ROWS_PER_EXPERT=R),
                 note=f"Fused MoE expert matmul: {T} tokens x top-{TOPK} of {E} experts, "
                      f"{R} slots per expert (token id -1 = padding); rows of X[{T}x{K}] "
                      "gathered by tl.load of the token ids, times the expert's W[K x N], "
                      "times the routing weight; 64x64x64 (M = 64 MMA), 4 warps, 3 stages")]


# ---------------------------------------------------------------------------------------------
# tl.gather and tl.histogram in the epilogue.
# ---------------------------------------------------------------------------------------------
@triton.jit
def gemm_gather_hist_kernel(a_ptr, b_ptr, perm_ptr, c_ptr, hist_ptr, M, N, K,
                            BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                            BINS: tl.constexpr):
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
    # columns of the tile permuted within the tile: out[:, j] = acc[:, perm[j]]
    perm = tl.load(perm_ptr + tl.arange(0, BLOCK_N))
    idx = tl.broadcast_to(perm[None, :], (BLOCK_M, BLOCK_N))
    g = tl.gather(acc, idx, axis=1)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], g)
    # histogram of the integer results (mod BINS), merged over tiles
    v = g.to(tl.int32)
    v = ((v % BINS) + BINS) % BINS
    h = tl.histogram(tl.reshape(v, [BLOCK_M * BLOCK_N]), BINS)
    tl.atomic_add(hist_ptr + tl.arange(0, BINS), h, sem="relaxed")


def _gather_hist_cases():
    M, N, K, BINS = 256, 128, 128, 32
    rng = np.random.default_rng(7205)
    a = rng.integers(-3, 4, size=(M, K)).astype(np.float16)
    b = rng.integers(-3, 4, size=(K, N)).astype(np.float16)
    perm = rng.permutation(64).astype(np.int32)
    acc = a.astype(np.int64) @ b.astype(np.int64)
    g = acc.reshape(M, N // 64, 64)[:, :, perm].reshape(M, N)
    hist = np.bincount((g % BINS).ravel(), minlength=BINS).astype(np.float64)
    why = "integer inputs in [-3, 3]: the sums of 128 terms are integers below 2^11: exact"
    return [Case("ho6_gemm_gather_hist", grid=[M // 128, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"), perm=Input(perm, "i32"),
                              c=Output("f32", [M, N], g.astype(np.float32), 0.0, 0.0, why),
                              hist=Output("i32", [BINS], hist, 0.0, 0.0,
                                          "integer counts: exact")),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), perm_ptr=Ptr("perm"), c_ptr=Ptr("c"),
                           hist_ptr=Ptr("hist"), M=M, N=N, K=K),
                 note=f"C = A[{M}x{K}] @ B[{K}x{N}] with the columns of every 128x64 tile "
                      "permuted by tl.gather(acc, perm, axis=1), and a histogram of C mod "
                      f"{BINS} (tl.histogram per tile, tl.atomic_add into hist); integer-valued "
                      "fp16 inputs; 4 warps")]


# ---------------------------------------------------------------------------------------------
# Odd shape, num_stages = 1, BLOCK_K larger than K.
# ---------------------------------------------------------------------------------------------
@triton.jit
def odd_s1_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    pid_m = pid % tiles_m
    pid_n = pid // tiles_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :],
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def _odd_cases():
    M, N, K = 257, 131, 77
    rng = np.random.default_rng(7206)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    why = ("fp16 products exact in f32; 77-term f32 sums of |ab| <= 1 err < 2^-24·77·... "
           "< 1e-5 absolute: rtol 1e-5, atol 1e-5")
    return [Case("ho6_odd_s1_k128", grid=[triton.cdiv(M, 128) * triton.cdiv(N, 32)],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], _ref(a, b), 1e-5, 1e-5, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], fp16 in, f32 out, every edge "
                      "masked (no divisibility), 128x32x128 tile: K = 77 is one masked K step; "
                      "num_stages = 1, column-major program order, 4 warps")]


# ---------------------------------------------------------------------------------------------
# Grouped program order, BLOCK_K = 32, 5 stages.
# ---------------------------------------------------------------------------------------------
@triton.jit
def grouped_bk32_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    group = pid // per_group
    first_m = group * GROUP_M
    group_m = min(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_m
    pid_n = (pid % per_group) // group_m
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.bfloat16))


def _grouped_cases():
    M, N, K = 384, 128, 192
    rng = np.random.default_rng(7207)
    a = f32_to_bf16_bits(rng.uniform(-1, 1, size=(M, K)).astype(np.float32))
    b = f32_to_bf16_bits(rng.uniform(-1, 1, size=(K, N)).astype(np.float32))
    expected = (bf16_bits_to_f64(a) @ bf16_bits_to_f64(b)).astype(np.float32)
    why = ("bf16 output: half an ulp is 2^-9 relative (rtol 4e-3 doubles it); the f32 "
           "accumulation error 2^-24·K·Σ|ab| < 1e-4 is covered by atol 2e-3")
    return [Case("ho6_grouped_bk32_s5", grid=[(M // 128) * (N // 64)],
                 buffers=dict(a=Input(a, "bf16"), b=Input(b, "bf16"),
                              c=Output("bf16", [M, N], expected, 4e-3, 2e-3, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], bf16 in/out; 1-D grid in GROUP_M "
                      "= 2 swizzled order (3 x 2 tiles: the last group has one row of tiles); "
                      "128x64x32 tile, 5 stages, 4 warps")]


# ---------------------------------------------------------------------------------------------
# Batched matmul through rank-3 host descriptors.
# ---------------------------------------------------------------------------------------------
@triton.jit
def bmm_host3d_kernel(a_desc, b_desc, c_desc, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    batch = tl.program_id(2)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, K, BLOCK_K):
        a = a_desc.load([batch, off_m, k]).reshape(BLOCK_M, BLOCK_K)
        b = b_desc.load([batch, off_n, k]).reshape(BLOCK_N, BLOCK_K)
        acc = tl.dot(a, b.T, acc)
    c_desc.store([batch, off_m, off_n], acc.to(tl.float16).reshape(1, BLOCK_M, BLOCK_N))


def _bmm3d_cases():
    B, M, N, K = 2, 128, 128, 192
    rng = np.random.default_rng(7208)
    a = rng.uniform(-1, 1, size=(B, M, K)).astype(np.float16)
    bt = rng.uniform(-1, 1, size=(B, N, K)).astype(np.float16)
    expected = np.einsum("bmk,bnk->bmn", a.astype(np.float64),
                         bt.astype(np.float64)).astype(np.float32)
    why = ("fp16 inputs exact, f32 accumulation (2^-24·K·Σ|ab| < 1e-4 absolute), fp16 "
           "output: half an ulp is 2^-11 relative (rtol 1e-3), atol 1e-3 near zero")
    return [Case("ho6_bmm_host3d", grid=[M // 128, N // 64, B],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f16", [B, M, N], expected, 1e-3, 1e-3, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_desc=HostTMA("c"), K=K),
                 note=f"C[b] = A[b] @ Bt[b]^T for {B} batches of {M}x{N}x{K}, fp16: rank-3 host "
                      "tensor descriptors [1, block, block] for A, Bt (K-major) and C (3-D TMA "
                      "store); 128x64x64, 4 warps, 4 stages")]


# ---------------------------------------------------------------------------------------------
# num_ctas = 2 with a 256-row tile.
# ---------------------------------------------------------------------------------------------
@triton.jit
def cluster2_m256_kernel(a_desc, b_desc, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    off_n = tl.program_id(1) * BLOCK_N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = a_desc.load([off_m, k])
        b = b_desc.load([off_n, k])
        acc = tl.dot(a, b.T, acc)
    rm = off_m + tl.arange(0, BLOCK_M)
    rn = off_n + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _cluster2_cases():
    M, N, K = 256, 192, 192
    rng = np.random.default_rng(7209)
    a = _grid_f16(rng, (M, K))
    bt = _grid_f16(rng, (N, K))
    why = "inputs on a 1/8 grid: products on a 1/64 grid, sums of 192 below 2^8: exact in f32"
    return [Case("ho6_cluster2_m256", grid=[M // 256, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f32", [M, N], _ref(a, bt.T), 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_ptr=Ptr("c"), M=M, N=N,
                           K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T, fp16, host descriptors, "
                      "256x64x64 tile over num_ctas = 2 (clusters of 2), 4 warps")]


# ---------------------------------------------------------------------------------------------
# Triton's own Cluster Launch Control conversion (clc=True) with PDL (griddepcontrol).
# ---------------------------------------------------------------------------------------------
@triton.jit
def clc_pdl_kernel(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // tiles_n
    pid_n = pid % tiles_n
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    # programmatic dependent launch: the inputs are the previous kernel's outputs
    gdc_wait()
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    gdc_launch_dependents()
    acc = acc + tl.load(bias_ptr + rn)[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _clc_cases():
    M, N, K = 256, 192, 128
    rng = np.random.default_rng(7210)
    a = _grid_f16(rng, (M, K))
    b = _grid_f16(rng, (K, N))
    bias = (rng.integers(-16, 17, size=N) / 4).astype(np.float32)
    c = _ref(a, b) + bias[None, :]
    why = ("inputs on a 1/8 grid: products on a 1/64 grid, sums of 128 below 2^7 and the bias "
           "on a 1/4 grid are exact in f32")
    return [Case("ho6_clc_pdl", grid=[(M // 128) * (N // 64)],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"), bias=Input(bias, "f32"),
                              c=Output("f32", [M, N], c, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), bias_ptr=Ptr("bias"), c_ptr=Ptr("c"),
                           M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] + bias, fp16 in, f32 out, one "
                      "program per 128x64 tile compiled with clc=True (Triton turns it into a "
                      "Cluster Launch Control loop: a running CTA cancels not-yet-started "
                      "ones and does their tiles) and launch_pdl=True with gdc_wait / "
                      "gdc_launch_dependents (griddepcontrol); 4 warps, 3 stages")]


# ---------------------------------------------------------------------------------------------
# Paged GQA decode attention: K/V rows gathered through a block table, M = 64.
# ---------------------------------------------------------------------------------------------
@triton.jit
def paged_gqa_decode_kernel(q_ptr, k_cache, v_cache, block_table, ctx_lens, o_ptr, sm_scale,
                            MAX_PAGES, HKV: tl.constexpr, G: tl.constexpr, T: tl.constexpr,
                            D: tl.constexpr, PAGE: tl.constexpr, BLOCK_N: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    ROWS: tl.constexpr = G * T
    r = tl.arange(0, ROWS)
    head = kvh * G + r // T
    tok = r % T
    d = tl.arange(0, D)
    # q[b, t, h, :] for the G query heads of this KV head and the T new tokens
    q = tl.load(q_ptr + ((b * T + tok)[:, None] * (HKV * G) + head[:, None]) * D + d[None, :])
    ctx = tl.load(ctx_lens + b)
    qpos = ctx - T + tok
    m_i = tl.full([ROWS], float("-inf"), tl.float32)
    l_i = tl.zeros([ROWS], tl.float32)
    acc = tl.zeros([ROWS, D], tl.float32)
    qk_scale = sm_scale * 1.44269504
    n = tl.arange(0, BLOCK_N)
    for start in range(0, ctx, BLOCK_N):
        kpos = start + n
        page = tl.load(block_table + b * MAX_PAGES + kpos // PAGE, mask=kpos < ctx, other=0)
        row = (page * PAGE + kpos % PAGE) * HKV + kvh
        k = tl.load(k_cache + row[:, None] * D + d[None, :], mask=(kpos < ctx)[:, None],
                    other=0.0)
        qk = tl.dot(q, k.T) * qk_scale
        ok = (kpos[None, :] <= qpos[:, None]) & (kpos[None, :] < ctx)
        qk = tl.where(ok, qk, -1.0e30)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_cache + row[:, None] * D + d[None, :], mask=(kpos < ctx)[:, None],
                    other=0.0)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    o = acc / l_i[:, None]
    tl.store(o_ptr + ((b * T + tok)[:, None] * (HKV * G) + head[:, None]) * D + d[None, :], o)


def _paged_cases():
    B, HKV, G, T, D, PAGE, MAXP = 2, 2, 8, 8, 64, 16, 8
    ctx = np.array([100, 77], np.int32)
    rng = np.random.default_rng(7211)
    n_pages = B * MAXP
    q = rng.uniform(-1, 1, size=(B, T, HKV * G, D)).astype(np.float16)
    kc = rng.uniform(-1, 1, size=(n_pages, PAGE, HKV, D)).astype(np.float16)
    vc = rng.uniform(-1, 1, size=(n_pages, PAGE, HKV, D)).astype(np.float16)
    # pages handed out in a shuffled order, as an allocator would after some churn
    table = rng.permutation(n_pages).astype(np.int32).reshape(B, MAXP)
    o = np.zeros((B, T, HKV * G, D), np.float64)
    scale = 1.0 / np.sqrt(D)
    for b in range(B):
        L = int(ctx[b])
        pos = np.arange(L)
        kk = kc[table[b, pos // PAGE], pos % PAGE].astype(np.float64)  # [L, HKV, D]
        vv = vc[table[b, pos // PAGE], pos % PAGE].astype(np.float64)
        for t in range(T):
            qpos = L - T + t
            for h in range(HKV * G):
                s = (kk[:qpos + 1, h // G] @ q[b, t, h].astype(np.float64)) * scale
                p = np.exp(s - s.max())
                o[b, t, h] = (p / p.sum()) @ vv[:qpos + 1, h // G]
    why = ("P rounded to fp16 before P V (2^-11 relative per term, |O| < 1), ex2.approx "
           "(2^-22 relative), f32 accumulation: rtol 4e-3, atol 2e-3")
    return [Case("ho6_paged_gqa_decode", grid=[B, HKV],
                 buffers=dict(q=Input(q, "f16"), kc=Input(kc, "f16"), vc=Input(vc, "f16"),
                              table=Input(table, "i32"), ctx=Input(ctx, "i32"),
                              o=Output("f32", list(o.shape), o.astype(np.float32), 4e-3, 2e-3,
                                       why)),
                 args=dict(q_ptr=Ptr("q"), k_cache=Ptr("kc"), v_cache=Ptr("vc"),
                           block_table=Ptr("table"), ctx_lens=Ptr("ctx"), o_ptr=Ptr("o"),
                           sm_scale=float(np.float32(scale)), MAX_PAGES=MAXP),
                 note=f"Paged GQA decode attention: {B} sequences (context {ctx[0]} and "
                      f"{ctx[1]} tokens) x {T} new tokens, {HKV} KV heads x {G} query heads "
                      f"each, head dim {D}; K/V rows gathered from a paged cache ({PAGE}-token "
                      "pages, shuffled block table) by tl.load; the G x T = 64 query rows of a "
                      "KV head form the M = 64 MMA; causal within the new tokens, masked "
                      "context tail; 32-key steps, 4 warps")]


def _desc(dtype, shape):
    return f"tensordesc<{dtype}[{', '.join(str(s) for s in shape)}]>"


KERNELS = [
    TritonKernel(name="ho6_splitk_desc_atomic", fn=splitk_desc_atomic_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", K_SPLIT="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_splitk_cases,
                 num_warps=4, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "N", "K", "K_SPLIT"),
                 must_contain=("tcgen05.mma", "cp.reduce.async.bulk.tensor")),
    TritonKernel(name="ho6_dot_scaled_e4m3_e2m1_npack", fn=dot_scaled_npack_kernel,
                 signature=dict(a_ptr="*fp8e4nv", sa_ptr="*u8", b_ptr="*u8", sb_ptr="*u8",
                                c_ptr="*fp32", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128), cases=_npack_cases,
                 num_warps=4, num_stages=2,
                 aligned=("a_ptr", "sa_ptr", "b_ptr", "sb_ptr", "c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma",)),
    TritonKernel(name="ho6_attn_causal_ws", fn=attn_causal_ws_kernel,
                 signature=dict(q_ptr="*bf16", k_ptr="*bf16", v_ptr="*bf16", o_ptr="*bf16",
                                sm_scale="fp32", seq_len="i32", n_rows="i32",
                                HEAD_DIM="constexpr", BLOCK_M="constexpr", BLOCK_N="constexpr"),
                 constexprs=dict(HEAD_DIM=128, BLOCK_M=128, BLOCK_N=64), cases=_attn_cases,
                 num_warps=4, num_stages=2,
                 aligned=("q_ptr", "k_ptr", "v_ptr", "o_ptr", "seq_len", "n_rows"),
                 must_contain=("tcgen05.mma", "tensormap.replace")),
    TritonKernel(name="ho6_moe_gather", fn=moe_gather_kernel,
                 signature=dict(x_ptr="*fp16", w_ptr="*fp16", tok_ptr="*i32", gate_ptr="*fp32",
                                out_ptr="*fp16", K="i32", N="i32", ROWS_PER_EXPERT="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=64), cases=_moe_cases,
                 num_warps=4, num_stages=3,
                 aligned=("x_ptr", "w_ptr", "tok_ptr", "gate_ptr", "out_ptr", "K", "N",
                          "ROWS_PER_EXPERT"),
                 must_contain=("tcgen05.mma",)),
    TritonKernel(name="ho6_gemm_gather_hist", fn=gemm_gather_hist_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", perm_ptr="*i32", c_ptr="*fp32",
                                hist_ptr="*i32", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr", BINS="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64, BINS=32),
                 cases=_gather_hist_cases, num_warps=4, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "perm_ptr", "c_ptr", "hist_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma",)),
    TritonKernel(name="ho6_odd_s1_k128", fn=odd_s1_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32",
                                K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=32, BLOCK_K=128), cases=_odd_cases,
                 num_warps=4, num_stages=1, aligned=("a_ptr", "b_ptr", "c_ptr"),
                 must_contain=("tcgen05.mma",)),
    TritonKernel(name="ho6_grouped_bk32_s5", fn=grouped_bk32_kernel,
                 signature=dict(a_ptr="*bf16", b_ptr="*bf16", c_ptr="*bf16", M="i32", N="i32",
                                K="i32", BLOCK_M="constexpr", BLOCK_N="constexpr",
                                BLOCK_K="constexpr", GROUP_M="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=32, GROUP_M=2),
                 cases=_grouped_cases, num_warps=4, num_stages=5,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma",)),
    TritonKernel(name="ho6_bmm_host3d", fn=bmm_host3d_kernel,
                 signature=dict(a_desc=_desc("fp16", [1, 128, 64]),
                                b_desc=_desc("fp16", [1, 64, 64]),
                                c_desc=_desc("fp16", [1, 128, 64]), K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_bmm3d_cases,
                 num_warps=4, num_stages=4, aligned=("K",),
                 must_contain=("tcgen05.mma", "cp.async.bulk.tensor.3d")),
    TritonKernel(name="ho6_cluster2_m256", fn=cluster2_m256_kernel,
                 signature=dict(a_desc=_desc("fp16", [256, 64]), b_desc=_desc("fp16", [64, 64]),
                                c_ptr="*fp32", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=256, BLOCK_N=64, BLOCK_K=64), cases=_cluster2_cases,
                 num_warps=4, num_stages=3, num_ctas=2,
                 aligned=("c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma",)),
    TritonKernel(name="ho6_clc_pdl", fn=clc_pdl_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", bias_ptr="*fp32", c_ptr="*fp32",
                                M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_clc_cases,
                 num_warps=4, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "bias_ptr", "c_ptr", "M", "N", "K"),
                 options=dict(clc=True, launch_pdl=True),
                 must_contain=("tcgen05.mma", "clusterlaunchcontrol.try_cancel",
                               "griddepcontrol.wait")),
    TritonKernel(name="ho6_paged_gqa_decode", fn=paged_gqa_decode_kernel,
                 signature=dict(q_ptr="*fp16", k_cache="*fp16", v_cache="*fp16",
                                block_table="*i32", ctx_lens="*i32", o_ptr="*fp32",
                                sm_scale="fp32", MAX_PAGES="i32", HKV="constexpr", G="constexpr",
                                T="constexpr", D="constexpr", PAGE="constexpr",
                                BLOCK_N="constexpr"),
                 constexprs=dict(HKV=2, G=8, T=8, D=64, PAGE=16, BLOCK_N=32),
                 cases=_paged_cases, num_warps=4, num_stages=2,
                 aligned=("q_ptr", "k_cache", "v_cache", "block_table", "ctx_lens", "o_ptr"),
                 must_contain=("tcgen05.mma",)),
]
