"""Flash-attention forward (online softmax), fp16 Q/K/V, head dim 64, no causal mask.

Both products (Q K^T and P V) are `tl.dot`s, which Triton lowers to tcgen05.mma with TMEM
accumulators on sm_100a; P is rounded to fp16 before the second product, as in real kernels.
"""
import numpy as np
import triton
import triton.language as tl

from regen import Case, Input, Output, Ptr, TritonKernel


@triton.jit
def attn_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, seq_len, head_stride,
                    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    head = tl.program_id(1)
    base = head * head_stride
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q = tl.load(q_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :],
                mask=offs_m[:, None] < seq_len, other=0.0)
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # log2(e): exp via exp2
    for start in range(0, seq_len, BLOCK_N):
        kn = start + offs_n
        kt = tl.load(k_ptr + base + kn[None, :] * HEAD_DIM + offs_d[:, None],
                     mask=kn[None, :] < seq_len, other=0.0)
        qk = tl.dot(q, kt) * qk_scale
        qk = tl.where(kn[None, :] < seq_len, qk, -float("inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_ptr + base + kn[:, None] * HEAD_DIM + offs_d[None, :],
                    mask=kn[:, None] < seq_len, other=0.0)
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_ij
    out = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * HEAD_DIM + offs_d[None, :], out.to(tl.float16),
             mask=offs_m[:, None] < seq_len)


def _cases():
    heads, seq, d = 2, 128, 64
    rng = np.random.default_rng(41)
    q, k, v = (rng.uniform(-1, 1, size=(heads, seq, d)).astype(np.float16) for _ in range(3))
    scale = 1.0 / np.sqrt(d)
    s = np.einsum("hmd,hnd->hmn", q.astype(np.float64), k.astype(np.float64)) * scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    expected = np.einsum("hmn,hnd->hmd", p, v.astype(np.float64)).astype(np.float32)
    why = ("P is rounded to fp16 before P@V (2^-11 relative per term) and O is stored as fp16 "
           "(2^-11 relative); |O| < 1")
    return [Case("attn_fwd", grid=[triton.cdiv(seq, 128), heads],
                 buffers=dict(q=Input(q, "f16"), k=Input(k, "f16"), v=Input(v, "f16"),
                              o=Output("f16", [heads, seq, d], expected, 4e-3, 2e-3, why)),
                 args=dict(q_ptr=Ptr("q"), k_ptr=Ptr("k"), v_ptr=Ptr("v"), o_ptr=Ptr("o"),
                           sm_scale=float(np.float32(scale)), seq_len=seq, head_stride=seq * d),
                 note=f"attention forward: {heads} heads, seq {seq}, head dim {d}, "
                      "softmax(Q K^T / sqrt(d)) V")]


KERNELS = [
    TritonKernel(name="attn_fwd", fn=attn_fwd_kernel,
                 signature=dict(q_ptr="*fp16", k_ptr="*fp16", v_ptr="*fp16", o_ptr="*fp16",
                                sm_scale="fp32", seq_len="i32", head_stride="i32",
                                HEAD_DIM="constexpr", BLOCK_M="constexpr", BLOCK_N="constexpr"),
                 constexprs=dict(HEAD_DIM=64, BLOCK_M=128, BLOCK_N=64), cases=_cases,
                 num_warps=4, num_stages=2, aligned=("q_ptr", "k_ptr", "v_ptr", "o_ptr")),
]
