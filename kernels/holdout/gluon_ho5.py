"""Holdout batch 5b (Gluon): attention forward written the flash-attention-4 way, and a
persistent matmul scheduled by Cluster Launch Control.

ho5_gluon_attn_p_alias: one CTA per 128 query rows of one head.

* S = Q K^T goes to a TMEM accumulator; the softmax reads it (`32x32b` tcgen05.ld), and P is
  written back as fp16 **into the same TMEM columns** (`s_tmem.reinterpret(float16, ...)`, a
  packed 16-bit view aliasing S), so P is the **A operand from TMEM** of O += P V;
* O lives in TMEM across the whole KV loop; the online-softmax correction (O *= alpha when the
  row maximum grows) is a tcgen05.ld / multiply / tcgen05.st of the accumulator between MMAs;
* K and V stream through a 2-stage TMA ring (`ready` mbarriers with expect-tx), the block after
  next is requested as soon as a stage's P V MMA has completed (`mbarriers=[free]`);
* the next S = Q K^T overwrites the columns that held P only after the P V MMA that read P has
  signalled its barrier.

Inputs are on coarse grids but the softmax is not exact: the tolerance is argued in the spec.

ho5_gluon_clc_matmul: a dynamic persistent matmul. The grid has one CTA per output tile; a
running CTA asks `clc.try_cancel` (`clusterlaunchcontrol.try_cancel.async ... complete_tx`,
16-byte response in shared memory, mbarrier expect 16) for a tile whose CTA has not started
yet, issuing the request before its own K loop to hide the latency, and decodes the answer
with `query_cancel.is_canceled` / `get_first_ctaid`; it stops at the first failed request (a
second request after an observed failure is undefined by the ISA). K streams through a
2-stage TMA ring, the accumulator is reused tile after tile (`use_acc=False` on the first K
step), the epilogue stores through registers. Exact by construction.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory, clc,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_mma, tma)

from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel

BM, BN, D = 128, 64, 64
QK_LAYOUT = gl.NVMMASharedLayout.get_default_for([BM, D], gl.float16)
KV_LAYOUT = gl.NVMMASharedLayout.get_default_for([BN, D], gl.float16)


@gluon.jit
def attn_p_alias_kernel(q_desc, k_desc, v_desc, o_ptr, qk_scale, seq_len):
    BLOCK_M: gl.constexpr = q_desc.block_shape[0]
    HEAD_DIM: gl.constexpr = q_desc.block_shape[1]
    BLOCK_N: gl.constexpr = k_desc.block_shape[0]
    NW: gl.constexpr = gl.num_warps()
    pid_m = gl.program_id(0)
    head = gl.program_id(1)
    row0 = head * seq_len
    q_row = row0 + pid_m * BLOCK_M

    q_s = gl.allocate_shared_memory(gl.float16, [BLOCK_M, HEAD_DIM], q_desc.layout)
    k_s = gl.allocate_shared_memory(gl.float16, [2, BLOCK_N, HEAD_DIM], k_desc.layout)
    v_s = gl.allocate_shared_memory(gl.float16, [2, BLOCK_N, HEAD_DIM], v_desc.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    free = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    s_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    mbarrier.init(s_bar, count=1)
    for i in gl.static_range(2):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(free.index(i), count=1)
    fence_async_shared()

    s_layout: gl.constexpr = TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1)
    p_layout: gl.constexpr = TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1)
    o_layout: gl.constexpr = TensorMemoryLayout([BLOCK_M, HEAD_DIM], col_stride=1)
    s_tmem = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N], s_layout)
    o_tmem = allocate_tensor_memory(gl.float32, [BLOCK_M, HEAD_DIM], o_layout)
    # fp16 P packed two per 32-bit column, in the first half of S's columns
    p_tmem = s_tmem.reinterpret(gl.float16, [BLOCK_M, BLOCK_N], p_layout)

    mbarrier.expect(q_bar, q_desc.block_type.nbytes)
    tma.async_load(q_desc, [q_row, 0], q_bar, q_s)
    n_blocks = seq_len // BLOCK_N
    kv_bytes: gl.constexpr = 2 * k_desc.block_type.nbytes
    for i in gl.static_range(2):
        mbarrier.expect(ready.index(i), kv_bytes)
        tma.async_load(k_desc, [row0 + i * BLOCK_N, 0], ready.index(i), k_s.index(i))
        tma.async_load(v_desc, [row0 + i * BLOCK_N, 0], ready.index(i), v_s.index(i))

    s_reg: gl.constexpr = s_tmem.get_reg_layout()
    o_reg: gl.constexpr = o_tmem.get_reg_layout()
    m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, gl.SliceLayout(1, s_reg))
    l_i = gl.full([BLOCK_M], 0.0, gl.float32, gl.SliceLayout(1, s_reg))
    mbarrier.wait(q_bar, 0)
    for j in range(n_blocks):
        st = j % 2
        ph = (j // 2) & 1
        mbarrier.wait(ready.index(st), ph)
        tcgen05_mma(q_s, k_s.index(st).permute((1, 0)), s_tmem, use_acc=False)
        tcgen05_commit(s_bar)
        mbarrier.wait(s_bar, j & 1)
        s = s_tmem.load(s_reg)
        m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
        p = gl.exp2(s * qk_scale - m_new[:, None])
        alpha = gl.exp2(m_i - m_new)
        l_i = l_i * alpha + gl.sum(p, 1)
        m_i = m_new
        if j > 0:
            # O *= alpha in TMEM (the previous P V has completed: its barrier was waited)
            o = o_tmem.load(o_reg)
            a_o = gl.convert_layout(alpha, gl.SliceLayout(1, o_reg))
            o_tmem.store(o * a_o[:, None])
        p_tmem.store(p.to(gl.float16))
        tcgen05_mma(p_tmem, v_s.index(st), o_tmem, use_acc=(j > 0), mbarriers=[free.index(st)])
        # P (aliasing S) and this stage's K/V are read until the MMA completes
        mbarrier.wait(free.index(st), ph)
        if j + 2 < n_blocks:
            mbarrier.expect(ready.index(st), kv_bytes)
            tma.async_load(k_desc, [row0 + (j + 2) * BLOCK_N, 0], ready.index(st), k_s.index(st))
            tma.async_load(v_desc, [row0 + (j + 2) * BLOCK_N, 0], ready.index(st), v_s.index(st))

    mbarrier.invalidate(q_bar)
    mbarrier.invalidate(s_bar)
    for i in gl.static_range(2):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(free.index(i))
    o = o_tmem.load(o_reg)
    l_o = gl.convert_layout(l_i, gl.SliceLayout(1, o_reg))
    o = o / l_o[:, None]
    rm = q_row + gl.arange(0, BLOCK_M, gl.SliceLayout(1, o_reg))
    rd = gl.arange(0, HEAD_DIM, gl.SliceLayout(0, o_reg))
    gl.store(o_ptr + rm[:, None] * HEAD_DIM + rd[None, :], o)


def _softmax_rows(s):
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return p / p.sum(axis=-1, keepdims=True)


def _cases():
    H, S = 2, 256
    rng = np.random.default_rng(7101)
    q, k, v = (rng.uniform(-1, 1, size=(H * S, D)).astype(np.float16) for _ in range(3))
    scale = 1.0 / np.sqrt(D)
    q3, k3, v3 = (x.astype(np.float64).reshape(H, S, D) for x in (q, k, v))
    s = np.einsum("hmd,hnd->hmn", q3, k3) * scale
    o = np.einsum("hmn,hnd->hmd", _softmax_rows(s), v3).reshape(H * S, D).astype(np.float32)
    why = ("P rounded to fp16 before P V (2^-11 relative per term, |O| < 1), ex2.approx (2^-22 "
           "relative), f32 accumulation: rtol 4e-3, atol 2e-3")
    return [Case("ho5_gluon_attn_p_alias", grid=[S // BM, H],
                 buffers=dict(q=Input(q, "f16"), k=Input(k, "f16"), v=Input(v, "f16"),
                              o=Output("f32", [H * S, D], o, 4e-3, 2e-3, why)),
                 args=dict(q_desc=HostTMA("q"), k_desc=HostTMA("k"), v_desc=HostTMA("v"),
                           o_ptr=Ptr("o"), qk_scale=float(np.float32(scale * 1.4426950408889634)),
                           seq_len=S),
                 note=f"Attention forward, {H} heads x seq {S} x head dim {D}, fp16 in, f32 out: "
                      "S in TMEM, fp16 P written over S's columns and used as the A operand "
                      "from TMEM of O += P V, O rescaled in TMEM (ld/mul/st), K/V through a "
                      "2-stage TMA ring")]


CM, CN, CK = 128, 64, 64
CA_LAYOUT = gl.NVMMASharedLayout.get_default_for([CM, CK], gl.float16)
CB_LAYOUT = gl.NVMMASharedLayout.get_default_for([CN, CK], gl.float16)


@gluon.jit
def clc_matmul_kernel(a_desc, b_desc, c_ptr, M, N, K):
    BLOCK_M: gl.constexpr = a_desc.block_shape[0]
    BLOCK_K: gl.constexpr = a_desc.block_shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_shape[0]
    tiles_m = gl.cdiv(M, BLOCK_M)
    n_k = gl.cdiv(K, BLOCK_K)

    a_s = gl.allocate_shared_memory(gl.float16, [2, BLOCK_M, BLOCK_K], a_desc.layout)
    b_s = gl.allocate_shared_memory(gl.float16, [2, BLOCK_N, BLOCK_K], b_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    done = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    clc_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    clc_res = gl.allocate_shared_memory(gl.int64, [2], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    for i in gl.static_range(2):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(done.index(i), count=1)
    mbarrier.init(clc_bar, count=1)
    fence_async_shared()

    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    reg: gl.constexpr = acc.get_reg_layout()
    tile = gl.program_id(0)
    has_work = True
    clc_phase = 0
    it = 0  # K steps issued by this CTA over all its tiles: ring slot and phase
    while has_work:
        # ask for the next tile now; the answer is needed only after this tile
        clc.try_cancel(clc_res, clc_bar)
        mbarrier.expect(clc_bar, 16)
        off_m = (tile % tiles_m) * BLOCK_M
        off_n = (tile // tiles_m) * BLOCK_N
        for kk in range(n_k):
            s = it % 2
            mbarrier.expect(ready.index(s), a_desc.block_type.nbytes + b_desc.block_type.nbytes)
            tma.async_load(a_desc, [off_m, kk * BLOCK_K], ready.index(s), a_s.index(s))
            tma.async_load(b_desc, [off_n, kk * BLOCK_K], ready.index(s), b_s.index(s))
            mbarrier.wait(ready.index(s), (it // 2) & 1)
            tcgen05_mma(a_s.index(s), b_s.index(s).permute((1, 0)), acc, use_acc=(kk > 0),
                        mbarriers=[done.index(s)])
            mbarrier.wait(done.index(s), (it // 2) & 1)
            it += 1
        out = acc.load(reg)
        rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, reg))
        rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, reg))
        gl.store(c_ptr + rm[:, None] * N + rn[None, :], out)
        # every warp has read the accumulator before the next tile's first MMA overwrites it
        gl.barrier()
        mbarrier.wait(clc_bar, clc_phase)
        clc_phase ^= 1
        res = clc.load_result(clc_res)
        has_work = res.is_canceled()
        if has_work:
            tile = res.program_id(0)
    for i in gl.static_range(2):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(done.index(i))
    mbarrier.invalidate(clc_bar)


def _clc_cases():
    M, N, K = 384, 256, 192
    rng = np.random.default_rng(7102)
    a = (rng.integers(-8, 9, size=(M, K)) / 8).astype(np.float16)
    bt = (rng.integers(-8, 9, size=(N, K)) / 8).astype(np.float16)
    c = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    why = "inputs on a 1/8 grid: products on a 1/64 grid, sums of 192 below 2^8: exact in f32"
    tiles = (M // CM) * (N // CN)
    return [Case("ho5_gluon_clc_matmul", grid=[tiles],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f32", [M, N], c, 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), c_ptr=Ptr("c"), M=M, N=N,
                           K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T, fp16 in, f32 out: one CTA per "
                      f"{CM}x{CN} tile ({tiles} in all); a running CTA takes over tiles whose CTA "
                      "has not started through clusterlaunchcontrol.try_cancel (Cluster Launch "
                      "Control) and stops at the first failed request")]


def _desc(shape, layout, dtype="fp16"):
    return f"tensordesc<{dtype}[{shape[0]},{shape[1]}],{layout!r}>"


KERNELS = [
    TritonKernel(name="ho5_gluon_attn_p_alias", fn=attn_p_alias_kernel, gluon=True,
                 signature=dict(q_desc=_desc([BM, D], QK_LAYOUT), k_desc=_desc([BN, D], KV_LAYOUT),
                                v_desc=_desc([BN, D], KV_LAYOUT), o_ptr="*fp32",
                                qk_scale="fp32", seq_len="i32"),
                 constexprs={}, cases=_cases, num_warps=4, num_stages=1,
                 aligned=("o_ptr", "seq_len"),
                 must_contain=("tcgen05.st", "tcgen05.mma.cta_group::1.kind::f16 [")),
    TritonKernel(name="ho5_gluon_clc_matmul", fn=clc_matmul_kernel, gluon=True,
                 signature=dict(a_desc=_desc([CM, CK], CA_LAYOUT), b_desc=_desc([CN, CK], CB_LAYOUT),
                                c_ptr="*fp32", M="i32", N="i32", K="i32"),
                 constexprs={}, cases=_clc_cases, num_warps=4, num_stages=1,
                 aligned=("c_ptr", "M", "N", "K"),
                 must_contain=("clusterlaunchcontrol.try_cancel", "tcgen05.mma")),
]
