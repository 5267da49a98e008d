"""Holdout batch 10 (Triton 3.9): JIT-style compiled kernels (aligned pointers and multiple-of-16
integers marked `tt.divisibility = 16`, as triton/runtime/jit.py specialises them) varying what
batches 3-9 did not. Each kernel is our own:

* ho10_attn_bwd_dq: the **query-block** half of attention backward (batch 4 had the key-block
  dK/dV kernel): **causal** (the KV loop stops at the diagonal block, the diagonal masked),
  **bf16**, BLOCK_M 128 with 8 warps, three dots per KV block (S = Q K^T, dP = dO V^T and
  dQ += dS K, the last with K untransposed).
* ho10_bsr_mm: block-sparse (BSR) A times dense B: each 128-row block multiplies only its
  listed 64-wide K blocks, read through a row-pointer / column-index table, so the MMA loop's
  **trip count is data-dependent**, one row block has **no** block (its accumulator is never
  touched by an MMA) and another has every block.
"""
import numpy as np
import triton
import triton.language as tl

from regen import (Case, HostTMA, Input, Output, Ptr, TritonKernel, bf16_bits_to_f64,
                   f32_to_bf16_bits)


@triton.jit
def attn_bwd_dq_kernel(q_ptr, k_ptr, v_ptr, do_ptr, lse_ptr, delta_ptr, dq_ptr, sm_scale,
                       seq_len, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                       BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh.to(tl.int64) * seq_len * HEAD_DIM
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn0 = tl.arange(0, BLOCK_N)
    rd = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + rm[:, None] * HEAD_DIM + rd[None, :])
    do = tl.load(do_ptr + base + rm[:, None] * HEAD_DIM + rd[None, :])
    lse = tl.load(lse_ptr + bh * seq_len + rm)
    delta = tl.load(delta_ptr + bh * seq_len + rm)
    dq = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    # causal: keys past the query block's last row contribute nothing
    for start in range(0, (pid_m + 1) * BLOCK_M, BLOCK_N):
        rn = start + rn0
        k = tl.load(k_ptr + base + rn[:, None] * HEAD_DIM + rd[None, :])
        v = tl.load(v_ptr + base + rn[:, None] * HEAD_DIM + rd[None, :])
        s = tl.dot(q, tl.trans(k)) * sm_scale
        p = tl.exp(s - lse[:, None])
        p = tl.where(rm[:, None] >= rn[None, :], p, 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        dq = tl.dot(ds.to(tl.bfloat16), k, dq)
    dq = dq * sm_scale
    tl.store(dq_ptr + base + rm[:, None] * HEAD_DIM + rd[None, :], dq)


def _bf16_grid(rng, shape, steps):
    x = rng.integers(-steps, steps + 1, size=shape) / steps
    bits = f32_to_bf16_bits(x.astype(np.float32))
    assert np.array_equal(bf16_bits_to_f64(bits), x)
    return bits, x


def _attn_bwd_dq_cases():
    BH, S, D = 1, 256, 64
    rng = np.random.default_rng(10101)
    # a 1/8 grid in [-1, 1] (exact in bf16) keeps the committed files small
    (q, q64), (k, k64), (v, v64), (do, do64) = (_bf16_grid(rng, (BH, S, D), 8) for _ in range(4))
    scale = float(np.float32(1.0 / np.sqrt(D)))
    causal = np.tril(np.ones((S, S), dtype=bool))
    s = np.einsum("bmd,bnd->bmn", q64, k64) * scale
    s = np.where(causal, s, -np.inf)
    mx = s.max(axis=-1, keepdims=True)
    lse = (mx + np.log(np.exp(s - mx).sum(axis=-1, keepdims=True)))[..., 0]
    lse32 = lse.astype(np.float32)
    delta32 = ((np.einsum("bmn,bnd->bmd", np.exp(s - lse[..., None]), v64) * do64).sum(-1)
               ).astype(np.float32)
    # the reference uses the f32 lse / delta the kernel reads, so only the kernel's own
    # arithmetic differs from it
    p = np.where(causal, np.exp(s - lse32.astype(np.float64)[..., None]), 0.0)
    dp = np.einsum("bmd,bnd->bmn", do64, v64)
    ds = p * (dp - delta32.astype(np.float64)[..., None])
    dq = np.einsum("bmn,bnd->bmd", ds, k64) * scale
    # dS is rounded to bf16 (2^-9 relative) before its MMA; p via ex2.approx (2 ulp) of an f32
    # argument: per element |err| <= scale * sum_n |ds_mn| |k_nd| * (2^-9 + 2^-20)
    bound = float((np.einsum("bmn,bnd->bmd", np.abs(ds), np.abs(k64)) * scale).max())
    atol = float(np.float32(bound * (2.0 ** -9 + 2.0 ** -20) * 1.25))
    why = (f"dS rounded to bf16 (2^-9 relative) before the dQ MMA, P from ex2.approx: "
           f"|err| <= scale * max_md sum_n |dS||K| * (2^-9 + 2^-20) = {bound:.3g} * 2^-9, "
           "with 25 % margin; every other product and sum is f32 (1e-6 relative)")
    return [Case("ho10_attn_bwd_dq", grid=[S // 128, BH],
                 buffers=dict(q=Input(q, "bf16"), k=Input(k, "bf16"), v=Input(v, "bf16"),
                              do=Input(do, "bf16"), lse=Input(lse32, "f32"),
                              delta=Input(delta32, "f32"),
                              dq=Output("f32", [BH, S, D], dq.astype(np.float32), 0.0, atol,
                                        why)),
                 args=dict(q_ptr=Ptr("q"), k_ptr=Ptr("k"), v_ptr=Ptr("v"), do_ptr=Ptr("do"),
                           lse_ptr=Ptr("lse"), delta_ptr=Ptr("delta"), dq_ptr=Ptr("dq"),
                           sm_scale=scale, seq_len=S),
                 note=f"Causal attention backward, query-block kernel: dQ for {BH} head, seq "
                      f"{S}, head dim {D}, bf16 in, f32 dQ; 128 query rows per program (8 "
                      "warps), 64-key blocks up to the diagonal; three tcgen05 dots per block")]


@triton.jit
def bsr_mm_kernel(a_blocks_ptr, row_ptr, col_idx, b_ptr, c_ptr, N, BLOCK_M: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    lo = tl.load(row_ptr + pid_m)
    hi = tl.load(row_ptr + pid_m + 1)
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for i in range(lo, hi):
        kb = tl.load(col_idx + i)
        a = tl.load(a_blocks_ptr + i.to(tl.int64) * BLOCK_M * BLOCK_K + rm[:, None] * BLOCK_K
                    + rk[None, :])
        b = tl.load(b_ptr + (kb * BLOCK_K + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + (pid_m * BLOCK_M + rm)[:, None] * N + rn[None, :], acc)


def _bsr_cases():
    BM, BK, N = 128, 64, 128
    KB = 4                       # K = 256 in four 64-wide blocks
    per_row = [[1, 3], [], [0, 1, 2, 3], [2]]
    M, K = BM * len(per_row), BK * KB
    rng = np.random.default_rng(10102)
    row_ptr = np.cumsum([0] + [len(r) for r in per_row]).astype(np.int32)
    col_idx = np.array([c for r in per_row for c in r], dtype=np.int32)
    blocks = (rng.integers(-2, 3, size=(len(col_idx), BM, BK)) / 2).astype(np.float16)
    b = (rng.integers(-2, 3, size=(K, N)) / 2).astype(np.float16)
    dense = np.zeros((M, K))
    for rb, cols in enumerate(per_row):
        for j, cb in enumerate(cols):
            dense[rb * BM:(rb + 1) * BM, cb * BK:(cb + 1) * BK] = blocks[row_ptr[rb] + j]
    ref = (dense @ b.astype(np.float64)).astype(np.float32)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of at most 256 terms below 2^8 "
           "are exact in f32 in any order; the empty row block is exactly 0: exact")
    return [Case("ho10_bsr_mm", grid=[len(per_row), N // 64],
                 buffers=dict(a=Input(blocks, "f16"), row_ptr=Input(row_ptr, "i32"),
                              col_idx=Input(col_idx, "i32"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_blocks_ptr=Ptr("a"), row_ptr=Ptr("row_ptr"),
                           col_idx=Ptr("col_idx"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), N=N),
                 note=f"C[{M}x{N}] = A @ B[{K}x{N}] with A block-sparse (BSR, 128x64 blocks, "
                      f"row blocks holding {[len(r) for r in per_row]} blocks): data-dependent "
                      "K-loop trip counts, one row block with none; fp16 in, f32 out")]


KERNELS = [
    TritonKernel(name="ho10_attn_bwd_dq", fn=attn_bwd_dq_kernel,
                 signature=dict(q_ptr="*bf16", k_ptr="*bf16", v_ptr="*bf16", do_ptr="*bf16",
                                lse_ptr="*fp32", delta_ptr="*fp32", dq_ptr="*fp32",
                                sm_scale="fp32", seq_len="i32", HEAD_DIM="constexpr",
                                BLOCK_M="constexpr", BLOCK_N="constexpr"),
                 constexprs=dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64),
                 cases=_attn_bwd_dq_cases, num_warps=8, num_stages=2,
                 aligned=("q_ptr", "k_ptr", "v_ptr", "do_ptr", "lse_ptr", "delta_ptr", "dq_ptr",
                          "seq_len"),
                 must_contain=("tcgen05.mma", "tcgen05.ld")),
    TritonKernel(name="ho10_bsr_mm", fn=bsr_mm_kernel,
                 signature=dict(a_blocks_ptr="*fp16", row_ptr="*i32", col_idx="*i32",
                                b_ptr="*fp16", c_ptr="*fp32", N="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=64, BLOCK_K=64), cases=_bsr_cases,
                 num_warps=4, num_stages=3,
                 aligned=("a_blocks_ptr", "row_ptr", "col_idx", "b_ptr", "c_ptr", "N")),
]


@triton.jit
def attn_bwd_dkdv_ws_kernel(q_desc, k_desc, v_desc, do_desc, lse_ptr, delta_ptr, dk_ptr, dv_ptr,
                            sm_scale, seq_len, HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr,
                            BLOCK_N: tl.constexpr):
    # Key-block backward kernel with the query loop warp-specialised: Triton splits it into a
    # TMA load partition, an MMA partition and the softmax/dS partitions.
    pid_n = tl.program_id(0)
    bh = tl.program_id(1)
    row0 = bh * seq_len
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rd = tl.arange(0, HEAD_DIM)
    k = k_desc.load([row0 + pid_n * BLOCK_N, 0])
    v = v_desc.load([row0 + pid_n * BLOCK_N, 0])
    dk = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], tl.float32)
    for start in tl.range(0, seq_len, BLOCK_M, warp_specialize=True):
        rm = start + tl.arange(0, BLOCK_M)
        q = q_desc.load([row0 + start, 0])
        do = do_desc.load([row0 + start, 0])
        lse = tl.load(lse_ptr + bh * seq_len + rm)
        delta = tl.load(delta_ptr + bh * seq_len + rm)
        st = tl.dot(k, tl.trans(q)) * sm_scale
        pt = tl.exp(st - lse[None, :])
        dv = tl.dot(pt.to(tl.float16), do, dv)
        dpt = tl.dot(v, tl.trans(do))
        dst = pt * (dpt - delta[None, :])
        dk = tl.dot(dst.to(tl.float16), q, dk)
    dk = dk * sm_scale
    base = bh.to(tl.int64) * seq_len * HEAD_DIM
    tl.store(dk_ptr + base + rn[:, None] * HEAD_DIM + rd[None, :], dk)
    tl.store(dv_ptr + base + rn[:, None] * HEAD_DIM + rd[None, :], dv)


def _attn_bwd_ws_cases():
    BH, S, D = 2, 128, 64
    rng = np.random.default_rng(10107)
    q, k, v, do = ((rng.integers(-8, 9, size=(BH, S, D)) / 8).astype(np.float16)
                   for _ in range(4))
    q64, k64, v64, do64 = (x.astype(np.float64) for x in (q, k, v, do))
    scale = float(np.float32(1.0 / np.sqrt(D)))
    s = np.einsum("bmd,bnd->bmn", q64, k64) * scale
    mx = s.max(axis=-1, keepdims=True)
    lse = (mx + np.log(np.exp(s - mx).sum(axis=-1, keepdims=True)))[..., 0]
    lse32 = lse.astype(np.float32)
    delta32 = ((np.einsum("bmn,bnd->bmd", np.exp(s - lse[..., None]), v64) * do64).sum(-1)
               ).astype(np.float32)
    p = np.exp(s - lse32.astype(np.float64)[..., None])
    dv = np.einsum("bmn,bmd->bnd", p, do64)
    dp = np.einsum("bmd,bnd->bmn", do64, v64)
    ds = p * (dp - delta32.astype(np.float64)[..., None])
    dk = np.einsum("bmn,bmd->bnd", ds, q64) * scale
    # P^T and dS^T are rounded to fp16 (2^-11 relative) before their MMAs; P from ex2.approx
    bv = float(np.einsum("bmn,bmd->bnd", p, np.abs(do64)).max())
    bk = float((np.einsum("bmn,bmd->bnd", np.abs(ds), np.abs(q64)) * scale).max())
    tol_v = float(np.float32(bv * (2.0 ** -11 + 2.0 ** -20) * 1.25))
    tol_k = float(np.float32(bk * (2.0 ** -11 + 2.0 ** -20) * 1.25))
    why_v = (f"P^T rounded to fp16 (2^-11 relative) before the dV MMA, P from ex2.approx: "
             f"|err| <= max sum_m P |dO| * (2^-11 + 2^-20) = {bv:.3g} * 2^-11, 25 % margin")
    why_k = (f"dS^T rounded to fp16 before the dK MMA: |err| <= scale * max sum_m |dS| |Q| * "
             f"(2^-11 + 2^-20) = {bk:.3g} * 2^-11, 25 % margin")
    return [Case("ho10_attn_bwd_dkdv_ws", grid=[S // 64, BH],
                 buffers=dict(q=Input(q.reshape(BH * S, D), "f16"),
                              k=Input(k.reshape(BH * S, D), "f16"),
                              v=Input(v.reshape(BH * S, D), "f16"),
                              do=Input(do.reshape(BH * S, D), "f16"), lse=Input(lse32, "f32"),
                              delta=Input(delta32, "f32"),
                              dk=Output("f32", [BH, S, D], dk.astype(np.float32), 0.0, tol_k,
                                        why_k),
                              dv=Output("f32", [BH, S, D], dv.astype(np.float32), 0.0, tol_v,
                                        why_v)),
                 args=dict(q_desc=HostTMA("q"), k_desc=HostTMA("k"), v_desc=HostTMA("v"),
                           do_desc=HostTMA("do"), lse_ptr=Ptr("lse"), delta_ptr=Ptr("delta"),
                           dk_ptr=Ptr("dk"), dv_ptr=Ptr("dv"), sm_scale=scale, seq_len=S),
                 note=f"Attention backward, key-block kernel (dK, dV) with the query loop "
                      f"`tl.range(warp_specialize=True)`: {BH} heads, seq {S}, head dim {D}, "
                      "fp16 in by host TMA descriptors, f32 out; four tcgen05 dots per query "
                      "block")]


def _desc(dtype, shape):
    return f"tensordesc<{dtype}[{', '.join(str(s) for s in shape)}]>"


KERNELS.append(
    TritonKernel(name="ho10_attn_bwd_dkdv_ws", fn=attn_bwd_dkdv_ws_kernel,
                 signature=dict(q_desc=_desc("fp16", [64, 64]), k_desc=_desc("fp16", [64, 64]),
                                v_desc=_desc("fp16", [64, 64]), do_desc=_desc("fp16", [64, 64]),
                                lse_ptr="*fp32", delta_ptr="*fp32", dk_ptr="*fp32",
                                dv_ptr="*fp32", sm_scale="fp32", seq_len="i32",
                                HEAD_DIM="constexpr", BLOCK_M="constexpr", BLOCK_N="constexpr"),
                 constexprs=dict(HEAD_DIM=64, BLOCK_M=64, BLOCK_N=64),
                 cases=_attn_bwd_ws_cases, num_warps=4, num_stages=2,
                 aligned=("lse_ptr", "delta_ptr", "dk_ptr", "dv_ptr", "seq_len"),
                 must_contain=("tcgen05.mma", "setmaxnreg")))
