"""Holdout batch 3 (Gluon): several tensor-memory buffers and layouts in one kernel.

* a 2-deep f32 accumulator buffer (`allocate_tensor_memory(f32, [2, BM, BN])`, `.index(i)`),
* a bias tile put into TMEM by `tcgen05_copy` (tcgen05.cp from shared memory) and then
  accumulated onto by an MMA (`use_acc=True`): the MMA reads a D written by the copy engine,
* the two accumulators read with different tcgen05.ld shapes (16x256b and 32x32b),
* their sum written to a 16-bit TMEM buffer twice: unpacked (col_stride 2) and packed
  (col_stride 1, `.unpack::16b` / `.pack::16b`), each read back with another shape.

Inputs are on coarse grids, so every value is exact in f32 and in fp16: tolerance 0.
"""
import numpy as np
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_copy,
                                                                 tcgen05_mma, tma)

from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel

BM, BN, BK = 128, 64, 64
X_LAYOUT = gl.NVMMASharedLayout.get_default_for([BM, BK], gl.float16)
W_LAYOUT = gl.NVMMASharedLayout.get_default_for([BN, BK], gl.float16)


@gluon.jit
def multi_tmem_kernel(x_desc, w1_desc, w2_desc, bias_ptr, out_ptr, out16u_ptr, out16p_ptr):
    BLOCK_M: gl.constexpr = x_desc.block_shape[0]
    BLOCK_K: gl.constexpr = x_desc.block_shape[1]
    BLOCK_N: gl.constexpr = w1_desc.block_shape[0]
    NW: gl.constexpr = gl.num_warps()
    off_m = gl.program_id(0) * BLOCK_M

    x_s = gl.allocate_shared_memory(x_desc.dtype, [BLOCK_M, BLOCK_K], x_desc.layout)
    w1_s = gl.allocate_shared_memory(w1_desc.dtype, [BLOCK_N, BLOCK_K], w1_desc.layout)
    w2_s = gl.allocate_shared_memory(w2_desc.dtype, [BLOCK_N, BLOCK_K], w2_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(ready, count=1)
    mbarrier.init(done, count=1)
    fence_async_shared()

    mbarrier.expect(ready, x_desc.nbytes_per_cta + w1_desc.nbytes_per_cta +
                    w2_desc.nbytes_per_cta)
    tma.async_load(x_desc, [off_m, 0], ready, x_s)
    tma.async_load(w1_desc, [0, 0], ready, w1_s)
    tma.async_load(w2_desc, [0, 0], ready, w2_s)

    # The bias tile goes registers -> shared memory -> TMEM (tcgen05.cp).
    blk: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [NW, 1], [1, 0])
    rm_b = gl.arange(0, BLOCK_M, gl.SliceLayout(1, blk))
    rn_b = gl.arange(0, BLOCK_N, gl.SliceLayout(0, blk))
    bias = gl.load(bias_ptr + (off_m + rm_b)[:, None] * BLOCK_N + rn_b[None, :])
    bias_s = gl.allocate_shared_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                       gl.NVMMASharedLayout(swizzle_byte_width=128,
                                                            element_bitwidth=32, rank=2))
    bias_s.store(bias)
    fence_async_shared()

    acc_layout: gl.constexpr = TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1)
    acc = allocate_tensor_memory(gl.float32, [2, BLOCK_M, BLOCK_N], acc_layout)
    tcgen05_copy(bias_s, acc.index(1))

    mbarrier.wait(ready, 0)
    tcgen05_mma(x_s, w1_s.permute((1, 0)), acc.index(0), use_acc=False)
    tcgen05_mma(x_s, w2_s.permute((1, 0)), acc.index(1), use_acc=True)
    tcgen05_commit(done)
    mbarrier.wait(done, 0)

    reg_a: gl.constexpr = acc.index(0).get_reg_layout(instr_variant="16x256b")
    reg_b: gl.constexpr = acc.index(1).get_reg_layout(instr_variant="32x32b")
    h = acc.index(0).load(reg_a) + gl.convert_layout(acc.index(1).load(reg_b), reg_a)
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, reg_a))
    rn = gl.arange(0, BLOCK_N, gl.SliceLayout(0, reg_a))
    offs = rm[:, None] * BLOCK_N + rn[None, :]
    gl.store(out_ptr + offs, h)

    # Round trips of fp16 through unpacked and packed 16-bit TMEM buffers.
    h16 = h.to(gl.float16)
    t_unpacked = allocate_tensor_memory(gl.float16, [BLOCK_M, BLOCK_N],
                                        TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=2))
    t_packed = allocate_tensor_memory(gl.float16, [BLOCK_M, BLOCK_N],
                                      TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    t_unpacked.store(gl.convert_layout(h16, t_unpacked.get_reg_layout(instr_variant="16x64b")))
    t_packed.store(gl.convert_layout(h16, t_packed.get_reg_layout(instr_variant="32x32b")))
    reg_u: gl.constexpr = t_unpacked.get_reg_layout(instr_variant="16x128b")
    reg_p: gl.constexpr = t_packed.get_reg_layout(instr_variant="16x256b")
    u = t_unpacked.load(reg_u)
    p = t_packed.load(reg_p)
    rm_u = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, reg_u))
    rn_u = gl.arange(0, BLOCK_N, gl.SliceLayout(0, reg_u))
    gl.store(out16u_ptr + rm_u[:, None] * BLOCK_N + rn_u[None, :], u)
    rm_p = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, reg_p))
    rn_p = gl.arange(0, BLOCK_N, gl.SliceLayout(0, reg_p))
    gl.store(out16p_ptr + rm_p[:, None] * BLOCK_N + rn_p[None, :], p)
    mbarrier.invalidate(ready)
    mbarrier.invalidate(done)


def _cases():
    M = 256
    rng = np.random.default_rng(5201)
    # Multiples of 1/2 in [-2, 2]: products are multiples of 1/4, K = 64 sums stay below 2^8,
    # the bias adds a multiple of 1/4 below 8: every value is exact in f32 and in fp16.
    x = (rng.integers(-4, 5, size=(M, BK)) / 2).astype(np.float16)
    w1 = (rng.integers(-4, 5, size=(BN, BK)) / 2).astype(np.float16)
    w2 = (rng.integers(-4, 5, size=(BN, BK)) / 2).astype(np.float16)
    bias = (rng.integers(-32, 33, size=(M, BN)) / 4).astype(np.float32)
    x64 = x.astype(np.float64)
    h = x64 @ w1.astype(np.float64).T + x64 @ w2.astype(np.float64).T + bias
    assert np.abs(h).max() < 512
    why = "inputs on 1/2 and 1/4 grids, |h| < 2^9: exact in f32 and in fp16"
    return [Case("ho3_gluon_multi_tmem", grid=[M // BM],
                 buffers=dict(x=Input(x, "f16"), w1=Input(w1, "f16"), w2=Input(w2, "f16"),
                              bias=Input(bias, "f32"),
                              out=Output("f32", [M, BN], h.astype(np.float32), 0.0, 0.0, why),
                              out16u=Output("f16", [M, BN], h.astype(np.float32), 0.0, 0.0, why),
                              out16p=Output("f16", [M, BN], h.astype(np.float32), 0.0, 0.0, why)),
                 args=dict(x_desc=HostTMA("x"), w1_desc=HostTMA("w1"), w2_desc=HostTMA("w2"),
                           bias_ptr=Ptr("bias"), out_ptr=Ptr("out"), out16u_ptr=Ptr("out16u"),
                           out16p_ptr=Ptr("out16p")),
                 note=f"H = X @ W1^T + (bias + X @ W2^T) for X[{M}x{BK}], W[{BN}x{BK}] fp16: "
                      "a 2-deep TMEM accumulator, the bias put into TMEM with tcgen05.cp and "
                      "accumulated onto by the second MMA; ld 16x256b / 32x32b; H as fp16 "
                      "through an unpacked and a packed 16-bit TMEM buffer")]


def _desc(shape, layout):
    return f"tensordesc<fp16[{shape[0]},{shape[1]}],{layout!r}>"


KERNELS = [
    TritonKernel(name="ho3_gluon_multi_tmem", fn=multi_tmem_kernel, gluon=True,
                 signature=dict(x_desc=_desc([BM, BK], X_LAYOUT), w1_desc=_desc([BN, BK], W_LAYOUT),
                                w2_desc=_desc([BN, BK], W_LAYOUT), bias_ptr="*fp32",
                                out_ptr="*fp32", out16u_ptr="*fp16", out16p_ptr="*fp16"),
                 constexprs=dict(), cases=_cases, num_warps=4, num_stages=1,
                 aligned=("bias_ptr", "out_ptr", "out16u_ptr", "out16p_ptr"),
                 must_contain=("tcgen05.cp", "tcgen05.ld.sync.aligned.16x256b",
                               "tcgen05.st")),
]
