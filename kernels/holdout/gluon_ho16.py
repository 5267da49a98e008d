"""Holdout batch 16 (Gluon, Triton 3.9).

ho16_gluon_tmem256_coresident: every CTA allocates **256 TMEM columns** (a 128x256 f32
accumulator, N = 256 MMAs) and the grid has more CTAs than the test's one-SM configuration can
hold at once: two CTAs share an SM's 512 columns, and the later CTAs' `tcgen05.alloc` wait for
an earlier CTA's `tcgen05.dealloc` (Gluon's allocation, relinquish and dealloc, not nvcc's as in
`ho_nvcc_tmem_roundtrip`). Operands go through registers into NVMMA shared memory (no TMA),
BLOCK_K = 32 (64-byte fp16 K rows, 64B swizzle), one MMA per K step committed to an mbarrier
that the next step waits on before it overwrites the operands; the accumulator is read back in
two 128-column slices.

ho16_gluon_nvfp4_cp: Gluon's `tcgen05_mma_scaled` with **NVFP4** operands (e2m1 x e2m1, packed
two per byte along K, by TMA with host descriptors) and **ue4m3 scales per 16 K** (the scale
tensors are `float8e4nv`): `kind::mxf4nvf4.block_scale.block16` with the scales staged in shared
memory and copied into TMEM by `tcgen05_copy` (`tcgen05.cp.32x128b.warpx4`); Gluon's scaled MMA
before this batch had 8-bit operands (`ho6_gluon_mma_scaled_cp`, `ho8_gluon_2cta_*`), and the
NVFP4 MMAs of the corpus had their scales put into TMEM by `tcgen05.st` (Triton) or came from
nvcc. One 64-deep K step (one MMA of K = 64) per iteration, one MMA in flight.
"""
import numpy as np
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryLayout,
                                                                 TensorMemoryScalesLayout,
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_copy,
                                                                 tcgen05_mma, tcgen05_mma_scaled,
                                                                 tma)

from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel, _e4m3_table


@gluon.jit
def tmem256_kernel(a_ptr, b_ptr, c_ptr, N, K, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                   BLOCK_K: gl.constexpr):
    HALF: gl.constexpr = BLOCK_N // 2
    dt: gl.constexpr = a_ptr.dtype.element_ty
    rows: gl.constexpr = gl.BlockedLayout([1, 8], [8, 4], [gl.num_warps(), 1], [1, 0])
    cols: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [gl.num_warps(), 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, rows))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(1, rows))
    rk = gl.arange(0, BLOCK_K, gl.SliceLayout(0, rows))
    om = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, cols))
    oc = gl.arange(0, HALF, gl.SliceLayout(0, cols))

    a_s = gl.allocate_shared_memory(dt, [BLOCK_M, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_M, BLOCK_K], dt))
    b_s = gl.allocate_shared_memory(dt, [BLOCK_N, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_K], dt))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    for ki in range(K // BLOCK_K):
        k0 = ki * BLOCK_K
        if ki > 0:
            # the previous step's MMA still reads a_s and b_s
            mbarrier.wait(bar, (ki - 1) & 1)
        a_s.store(gl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :]))
        b_s.store(gl.load(b_ptr + rn[:, None] * K + (k0 + rk)[None, :]))
        fence_async_shared()
        tcgen05_mma(a_s, b_s.permute((1, 0)), acc, use_acc=ki > 0)
        tcgen05_commit(bar)
    mbarrier.wait(bar, (K // BLOCK_K - 1) & 1)
    mbarrier.invalidate(bar)
    for j in gl.static_range(2):
        part = acc.slice(j * HALF, HALF)
        out = gl.convert_layout(part.load(part.get_reg_layout()), cols)
        gl.store(c_ptr + om[:, None] * N + (off_n + j * HALF + oc)[None, :], out)


def _cases():
    M, N, K = 384, 256, 96
    rng = np.random.default_rng(16201)
    # mostly zeros (small committed files): values 0, +-1/2, +-1
    a = (rng.integers(-2, 3, size=(M, K)) / 2 * (rng.random((M, K)) < 0.4)).astype(np.float16)
    bt = (rng.integers(-2, 3, size=(N, K)) / 2 * (rng.random((N, K)) < 0.4)).astype(np.float16)
    ref = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of 96 terms below 2^7 are exact "
           "in f32 in any order: exact")
    return [Case("ho16_gluon_tmem256_coresident", grid=[M // 128, N // 256],
                 buffers=dict(a=Input(a, "f16"), b=Input(bt, "f16"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T fp16: 3 CTAs, each with a "
                      "128x256 f32 accumulator (256 TMEM columns: two CTAs fill an SM's 512; on "
                      "one SM the later CTAs' allocs wait for a dealloc), BLOCK_K 32, operands "
                      "through registers, f32 out, 4 warps")]


# ---------------------------------------------------------------------------------------------
# NVFP4 scaled MMA with scales copied into TMEM.
# ---------------------------------------------------------------------------------------------
FM, FN, FKB = 128, 128, 32   # tile rows, tile columns, bytes of packed K per step (64 e2m1)
FA_LAYOUT = gl.NVMMASharedLayout.get_default_for([FM, FKB], gl.uint8)
FB_LAYOUT = gl.NVMMASharedLayout.get_default_for([FN, FKB], gl.uint8)


@gluon.jit
def nvfp4_cp_kernel(a_desc, b_desc, sa_ptr, sb_ptr, c_ptr, N, K):
    BLOCK_M: gl.constexpr = a_desc.block_shape[0]
    BLOCK_KB: gl.constexpr = a_desc.block_shape[1]
    BLOCK_N: gl.constexpr = b_desc.block_shape[0]
    off_n = gl.program_id(0) * BLOCK_N
    a_s = gl.allocate_shared_memory(a_desc.dtype, [BLOCK_M, BLOCK_KB], a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, [BLOCK_N, BLOCK_KB], b_desc.layout)
    # one K step of scales for 128 rows: 512 bytes stored [32, 4, 4] (row r = 32 j + l at
    # [l, j, m], m = the 4 scales of the row), viewed as the [128, 4] matrix tcgen05.cp wants
    s_l: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    sa_raw = gl.allocate_shared_memory(gl.float8e4nv, [32, 16], s_l)
    sb_raw = gl.allocate_shared_memory(gl.float8e4nv, [32, 16], s_l)
    sa_s = sa_raw.reshape((1, 1, 32, 4, 4)).permute((0, 3, 2, 1, 4)).reshape((BLOCK_M, 4))
    sb_s = sb_raw.reshape((1, 1, 32, 4, 4)).permute((0, 3, 2, 1, 4)).reshape((BLOCK_N, 4))
    tma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mma_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(tma_bar, count=1)
    mbarrier.init(mma_bar, count=1)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    sa_t = allocate_tensor_memory(gl.float8e4nv, [BLOCK_M, 4], TensorMemoryScalesLayout())
    sb_t = allocate_tensor_memory(gl.float8e4nv, [BLOCK_N, 4], TensorMemoryScalesLayout())

    pl: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [gl.num_warps(), 1], [1, 0])
    pr = gl.arange(0, 32, gl.SliceLayout(1, pl))
    pc = gl.arange(0, 16, gl.SliceLayout(0, pl))
    n_k = K // (2 * BLOCK_KB)
    for ki in range(n_k):
        mbarrier.expect(tma_bar, a_desc.block_type.nbytes + b_desc.block_type.nbytes)
        tma.async_load(a_desc, [0, ki * BLOCK_KB], tma_bar, a_s)
        tma.async_load(b_desc, [off_n, ki * BLOCK_KB], tma_bar, b_s)
        blk = pr[:, None] * 16 + pc[None, :]
        sa_raw.store(gl.load(sa_ptr + ki * 512 + blk))
        sb_raw.store(gl.load(sb_ptr + (gl.program_id(0) * n_k + ki) * 512 + blk))
        fence_async_shared()
        tcgen05_copy(sa_s, sa_t)
        tcgen05_copy(sb_s, sb_t)
        mbarrier.wait(tma_bar, ki & 1)
        tcgen05_mma_scaled(a_s, b_s.permute((1, 0)), acc, sa_t, sb_t, "e2m1", "e2m1",
                           use_acc=ki > 0, mbarriers=[mma_bar])
        # the MMA reads A, B and both scale buffers until its barrier fires
        mbarrier.wait(mma_bar, ki & 1)
    mbarrier.invalidate(tma_bar)
    mbarrier.invalidate(mma_bar)
    reg: gl.constexpr = acc.get_reg_layout()
    out = acc.load(reg)
    rm = gl.arange(0, BLOCK_M, gl.SliceLayout(1, reg))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, reg))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], out)


def _scale_chunks(s):
    """[rows, K/16] scale codes -> per (row block of 128, 4 scales = one 64-deep K step) 512
    bytes laid out [32, 4, 4]: row r = 32 j + l, scale m of the step at [l, j, m]."""
    rows, cols = s.shape
    return np.ascontiguousarray(
        s.reshape(rows // 128, 4, 32, cols // 4, 4).transpose(0, 3, 2, 1, 4)).reshape(-1)


E2M1_MAG = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def _e2m1_f64(nib):
    nib = np.asarray(nib, np.int64)
    return np.where(nib & 8, -1.0, 1.0) * E2M1_MAG[nib & 7]


def _nvfp4_cases():
    M, N, K = 128, 128, 256
    rng = np.random.default_rng(16202)
    table = _e4m3_table()
    an = rng.integers(0, 16, size=(M, K))
    bn = rng.integers(0, 16, size=(N, K))
    a = (an[:, 0::2] | (an[:, 1::2] << 4)).astype(np.uint8)   # element 2i in the low nibble
    b = (bn[:, 0::2] | (bn[:, 1::2] << 4)).astype(np.uint8)
    # ue4m3 codes of 0.25 .. 2 with at most one fraction bit
    codes = np.array([0x28, 0x2C, 0x30, 0x34, 0x38, 0x3C, 0x40], dtype=np.uint8)
    sa = codes[rng.integers(0, len(codes), size=(M, K // 16))]
    sb = codes[rng.integers(0, len(codes), size=(N, K // 16))]
    a64 = _e2m1_f64(an) * np.repeat(table[sa].astype(np.float64), 16, axis=1)
    b64 = _e2m1_f64(bn) * np.repeat(table[sb].astype(np.float64), 16, axis=1)
    c = (a64 @ b64.T).astype(np.float32)
    why = ("e2m1 values (multiples of 1/2, |x| <= 6) times ue4m3 scales 2^-2..2 with two "
           "significant bits: products are multiples of 2^-6 below 145, sums of 256 below 2^16: "
           "every partial sum fits 22 bits, exact in f32 in any order: 0")
    return [Case("ho16_gluon_nvfp4_cp", grid=[N // FN],
                 buffers=dict(a=Input(a, "u8"), b=Input(b, "u8"),
                              sa=Input(_scale_chunks(sa), "u8"),
                              sb=Input(_scale_chunks(sb), "u8"),
                              c=Output("f32", [M, N], c, 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), sa_ptr=Ptr("sa"),
                           sb_ptr=Ptr("sb"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = (A*SFA) @ (B*SFB)^T, NVFP4: e2m1 packed two per byte "
                      "along K (low nibble first), ue4m3 scales per 16 K; Gluon "
                      "tcgen05_mma_scaled (kind::mxf4nvf4.block_scale.block16), scales staged "
                      "in shared memory as [32, 4, 4] blocks and copied into TMEM by "
                      "tcgen05_copy (tcgen05.cp.32x128b.warpx4); A/B by TMA (u8 maps); one "
                      "64-deep K step per iteration, one MMA in flight")]


def _desc(shape, layout, dtype):
    return f"tensordesc<{dtype}[{shape[0]},{shape[1]}],{layout!r}>"


KERNELS = [
    TritonKernel(name="ho16_gluon_nvfp4_cp", fn=nvfp4_cp_kernel, gluon=True,
                 signature=dict(a_desc=_desc([FM, FKB], FA_LAYOUT, "u8"),
                                b_desc=_desc([FN, FKB], FB_LAYOUT, "u8"), sa_ptr="*fp8e4nv",
                                sb_ptr="*fp8e4nv", c_ptr="*fp32", N="i32", K="i32"),
                 constexprs={}, cases=_nvfp4_cases, num_warps=4, num_stages=1,
                 aligned=("sa_ptr", "sb_ptr", "c_ptr", "N", "K"),
                 must_contain=("kind::mxf4nvf4.block_scale.block16", "tcgen05.cp")),
    TritonKernel(name="ho16_gluon_tmem256_coresident", fn=tmem256_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", N="i32", K="i32",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=256, BLOCK_K=32), cases=_cases,
                 num_warps=4, num_stages=1, gluon=True,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "N", "K"),
                 must_contain=("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                               "tcgen05.dealloc")),
]
