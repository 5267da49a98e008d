"""Holdout Gluon: a two-step product whose second MMA reads its A operand from Tensor Memory.

S = A @ B goes to a TMEM accumulator (f32); the epilogue of that step converts S to fp16 and
stores it back into TMEM (tcgen05.st), and the second MMA computes D = P @ C with P taken from
TMEM (`tcgen05.mma [d], [a_tmem], b_desc`, the flash-attention-4 shape; the main Triton/Gluon
corpus only has shared-memory A operands). Inputs are small multiples of 1/4, so S, P and D are
exact in fp16/f32 and the expected result is exact.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_mma)

from regen import Case, Input, Output, Ptr, TritonKernel

BM, BK, BN, BO = 128, 64, 64, 64


@gluon.jit
def tmem_operand_kernel(a_ptr, b_ptr, c_ptr, d_ptr, BLOCK_M: gl.constexpr, BLOCK_K: gl.constexpr,
                        BLOCK_N: gl.constexpr, BLOCK_O: gl.constexpr, P_COL_STRIDE: gl.constexpr):
    rows: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    m = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, rows))
    k_c = gl.arange(0, BLOCK_K, gl.SliceLayout(0, rows))
    k_r = gl.arange(0, BLOCK_K, gl.SliceLayout(1, rows))
    n_c = gl.arange(0, BLOCK_N, gl.SliceLayout(0, rows))
    n_r = gl.arange(0, BLOCK_N, gl.SliceLayout(1, rows))
    o_c = gl.arange(0, BLOCK_O, gl.SliceLayout(0, rows))

    a_s = gl.allocate_shared_memory(gl.float16, [BLOCK_M, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_K], gl.float16))
    b_s = gl.allocate_shared_memory(gl.float16, [BLOCK_K, BLOCK_N],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_K, BLOCK_N], gl.float16))
    c_s = gl.allocate_shared_memory(gl.float16, [BLOCK_N, BLOCK_O],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_O], gl.float16))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)

    a_s.store(gl.load(a_ptr + m[:, None] * BLOCK_K + k_c[None, :]))
    b_s.store(gl.load(b_ptr + k_r[:, None] * BLOCK_N + n_c[None, :]))
    c_s.store(gl.load(c_ptr + n_r[:, None] * BLOCK_O + o_c[None, :]))
    fence_async_shared()

    s_tmem = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                    TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    p_tmem = allocate_tensor_memory(gl.float16, [BLOCK_M, BLOCK_N],
                                    TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=P_COL_STRIDE))
    d_tmem = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_O],
                                    TensorMemoryLayout([BLOCK_M, BLOCK_O], col_stride=1))

    tcgen05_mma(a_s, b_s, s_tmem, use_acc=False)
    tcgen05_commit(bar)
    mbarrier.wait(bar, 0)
    s = s_tmem.load()
    p_tmem.store(s.to(gl.float16))
    tcgen05_mma(p_tmem, c_s, d_tmem, use_acc=False)
    tcgen05_commit(bar)
    mbarrier.wait(bar, 1)
    mbarrier.invalidate(bar)

    d = gl.convert_layout(d_tmem.load(), rows)
    gl.store(d_ptr + m[:, None] * BLOCK_O + o_c[None, :], d)


def _cases():
    M = 256
    rng = np.random.default_rng(3101)
    a = (rng.integers(-4, 5, size=(M, BK)) / 4).astype(np.float16)
    b = (rng.integers(-4, 5, size=(BK, BN)) / 4).astype(np.float16)
    c = (rng.integers(-4, 5, size=(BN, BO)) / 4).astype(np.float16)
    s = a.astype(np.float64) @ b.astype(np.float64)       # multiples of 1/16, |s| <= 64
    assert np.array_equal(s.astype(np.float16).astype(np.float64), s)
    d = (s @ c.astype(np.float64)).astype(np.float32)      # multiples of 1/64, |d| <= 4096
    why = "every intermediate is exact (fp16 P on a 1/16 grid, f32 D on a 1/64 grid)"
    return [Case("ho_gluon_tmem_operand", grid=[M // BM],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"), c=Input(c, "f16"),
                              d=Output("f32", [M, BO], d, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), d_ptr=Ptr("d")),
                 note=f"D[{M}x{BO}] = fp16(A[{M}x{BK}] @ B[{BK}x{BN}]) @ C[{BN}x{BO}]; the fp16 "
                      "product is stored to TMEM and is the A operand of the second tcgen05.mma")]


KERNELS = [
    TritonKernel(name="ho_gluon_tmem_operand", fn=tmem_operand_kernel, gluon=True,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp16", d_ptr="*fp32",
                                BLOCK_M="constexpr", BLOCK_K="constexpr", BLOCK_N="constexpr",
                                BLOCK_O="constexpr", P_COL_STRIDE="constexpr"),
                 constexprs=dict(BLOCK_M=BM, BLOCK_K=BK, BLOCK_N=BN, BLOCK_O=BO, P_COL_STRIDE=1),
                 cases=_cases, num_warps=4, num_stages=1,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "d_ptr"),
                 must_contain=("tcgen05.st", "tcgen05.mma.cta_group::1.kind::f16 [")),
]
