"""Holdout batch 15 (Triton 3.9): JIT-style compiled kernels (aligned pointers and multiple-of-16
integers marked `tt.divisibility = 16`, as triton/runtime/jit.py specialises them) varying what
batches 1-12 did not. Each kernel is our own:

* ho15_mm_n8_s5_maxnreg: an fp16 `tl.dot` with **BLOCK_N = 8** (the ISA's smallest N of an
  M = 128 MMA, from Triton for the first time: earlier N = 8 MMAs came from Gluon), B rows of
  16 bytes loaded by 16-byte `cp.async.ca`, a **5-stage** cp.async ring, and the **`maxnreg`**
  compile option (`.maxnreg 128`), 4 warps.
* ho15_dot_scaled_e2m1_e5m2: `tl.dot_scaled` with an **mxfp4 (e2m1) lhs and an mxfp8 e5m2
  rhs**: kind::mxf8f6f4.block_scale with a **4-bit A** (packed two per byte along K by the
  user, unpacked into the padded fp4 smem layout) and an **MN-major fp8 B** (B given K x N);
  earlier mixed dot_scaled kernels had the 4-bit operand on the rhs.
* ho15_ws_m256_devdesc: `tl.range(warp_specialize=True)` K loop over **BLOCK_M = 256** (two
  128-row accumulators, 8 MMAs per K step, 4 + partition warps) with device-built tensor
  descriptors (`tl.make_tensor_descriptor`, B given N x K and transposed), f32 out by pointer.
* ho15_splitk_lastblock: split-K whose **last-arriving CTA reduces** (the CUDA
  threadFenceReduction pattern): every CTA stores its f32 partial tile to a workspace, passes a
  CTA barrier (`tl.debug_barrier`), and takes a ticket with one **`atom.acq_rel.gpu`** on the
  tile's counter; the CTA that draws the last ticket reads every slice's partial back (written
  by other CTAs: ordered only through the chain of acq_rel RMWs on the counter), stores C and
  resets the counter. 3 slices, 2 x 2 tiles.
* ho15_gemm_f16acc_m64_w8: `tl.dot(..., out_dtype=tl.float16)` with **BLOCK_M = 64 and 8
  warps**: an **f16 D in TMEM layout F** (M = 64) zero-initialised by
  **`tcgen05.st.16x32bx2.x8.unpack::16b`** and read by **`tcgen05.ld.16x32bx2.x8.pack::16b`**
  (16-bit D at M = 64 from a compiler: earlier f16 accumulators had M = 128; these forms were
  only in hand-written nvcc kernels).
"""
import numpy as np
import triton
import triton.language as tl

from regen import Case, Input, Output, Ptr, TritonKernel


def _grid_f16(rng, shape, steps=2):
    """fp16 values k/steps, |k| <= steps: exact, and so are their products and short sums."""
    return (rng.integers(-steps, steps + 1, size=shape) / steps).astype(np.float16)


# ---------------------------------------------------------------------------------------------
# fp16 GEMM with an N = 8 tile, 5 stages, maxnreg.
# ---------------------------------------------------------------------------------------------
@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
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
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _n8_cases():
    M, N, K = 256, 24, 384
    rng = np.random.default_rng(15101)
    a = _grid_f16(rng, (M, K))
    b = _grid_f16(rng, (K, N))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of 384 terms below 2^9: exact "
           "in f32 in any order: 0")
    return [Case("ho15_mm_n8_s5_maxnreg", grid=[M // 128, N // 8],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], ref.astype(np.float32), 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}], fp16 in, f32 out; 128x8x64 tiles "
                      "(N = 8 MMAs), 5-stage cp.async ring, maxnreg 128, 4 warps, 2 x 3 "
                      "programs")]


# ---------------------------------------------------------------------------------------------
# dot_scaled: mxfp4 lhs x mxfp8 (e5m2) rhs, B given K x N.
# ---------------------------------------------------------------------------------------------
@triton.jit
def dot_scaled_fp4_fp8_kernel(a_ptr, sa_ptr, b_ptr, sb_ptr, c_ptr, M, N, K,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                              BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rka = tl.arange(0, BLOCK_K // 2)
    rk = tl.arange(0, BLOCK_K)
    rs = tl.arange(0, BLOCK_K // 32)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * (K // 2) + (k0 // 2 + rka)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        sa = tl.load(sa_ptr + rm[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + (k0 // 32 + rs)[None, :])
        acc = tl.dot_scaled(a, sa, "e2m1", b, sb, "e5m2", acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


E2M1_MAG = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def _e2m1_f64(nib):
    """e2m1 code (sign bit 3, magnitude code bits 0-2) -> value."""
    nib = np.asarray(nib, np.int64)
    return np.where(nib & 8, -1.0, 1.0) * E2M1_MAG[nib & 7]


def _e5m2_f64(code):
    """e5m2 code -> value (finite codes only here): 1 sign, 5 exponent (bias 15), 2 fraction."""
    code = np.asarray(code, np.int64)
    e = (code >> 2) & 31
    f = code & 3
    mag = np.where(e == 0, f * 2.0 ** -16, (1 + f / 4) * np.exp2(e - 15.0))
    return np.where(code & 0x80, -mag, mag)


def _dot_scaled_fp4_fp8_cases():
    M, N, K = 128, 256, 256
    rng = np.random.default_rng(15102)
    an = rng.integers(0, 16, size=(M, K))
    a = (an[:, 0::2] | (an[:, 1::2] << 4)).astype(np.uint8)   # element 2i in the low nibble
    # e5m2 with exponents -2..2 (biased 13..17) and any fraction and sign, plus zeros
    e = rng.integers(13, 18, size=(K, N))
    b = ((rng.integers(0, 2, size=(K, N)) << 7) | (e << 2) | rng.integers(0, 4, size=(K, N)))
    b = np.where(rng.random((K, N)) < 0.1, 0, b).astype(np.uint8)
    sa = rng.integers(126, 129, size=(M, K // 32)).astype(np.uint8)   # 2^-1 .. 2^1
    sb = rng.integers(126, 129, size=(N, K // 32)).astype(np.uint8)
    a64 = _e2m1_f64(an) * np.repeat(np.exp2(sa.astype(np.float64) - 127), 32, axis=1)
    b64 = _e5m2_f64(b) * np.repeat(np.exp2(sb.astype(np.float64) - 127), 32, axis=1).T
    ref = a64 @ b64
    why = ("every scaled product is a multiple of 2^-7 (e2m1 0.5 x e5m2 2^-4 x scales 2^-2) of "
           "magnitude <= 6 x 7 x 4, so a sum of 256 stays below 2^16 on a 2^-7 grid (23 bits): "
           "exact in f32 in any order, whatever the accumulation width: 0")
    return [Case("ho15_dot_scaled_e2m1_e5m2", grid=[M // 128, N // 128],
                 buffers=dict(a=Input(a, "u8"), sa=Input(sa, "u8"), b=Input(b, "fp8e5m2"),
                              sb=Input(sb, "u8"),
                              c=Output("f32", [M, N], ref.astype(np.float32), 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), sa_ptr=Ptr("sa"), b_ptr=Ptr("b"), sb_ptr=Ptr("sb"),
                           c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = (A·2^sa) e2m1 @ (B·2^sb) e5m2: A packed two per byte "
                      "along K (low nibble first), B given K x N (N contiguous), e8m0 scales "
                      "per 32 K, f32 out; 128x128x128 tiles, 4 warps")]


# ---------------------------------------------------------------------------------------------
# Warp-specialised K loop over a 256-row tile, device descriptors.
# ---------------------------------------------------------------------------------------------
@triton.jit
def ws_m256_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_N, BLOCK_K])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in tl.range(0, K, BLOCK_K, warp_specialize=True):
        a = a_desc.load([pid_m * BLOCK_M, k0])
        b = b_desc.load([pid_n * BLOCK_N, k0])
        acc = tl.dot(a, b.T, acc)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def _ws_m256_cases():
    M, N, K = 256, 128, 320
    rng = np.random.default_rng(15103)
    a = _grid_f16(rng, (M, K))
    b = _grid_f16(rng, (N, K))
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, sums of 320 terms below 2^9: exact "
           "in f32 in any order: 0")
    return [Case("ho15_ws_m256_devdesc", grid=[M // 256, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f32", [M, N], ref.astype(np.float32), 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{N}x{K}]^T, fp16 in, f32 out; 256x64x64 "
                      "tiles (two 128-row accumulators), K loop tl.range(warp_specialize=True), "
                      "device tensor descriptors, 4 warps + partitions, 3 stages")]


# ---------------------------------------------------------------------------------------------
# Split-K, the last CTA of each tile reduces the partials.
# ---------------------------------------------------------------------------------------------
@triton.jit
def splitk_lastblock_kernel(a_ptr, b_ptr, ws_ptr, cnt_ptr, c_ptr, M, N, K,
                            SPLITS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                            BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    k_slice = K // SPLITS
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(pid_k * k_slice, (pid_k + 1) * k_slice, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(a, b, acc)
    tile = pid_m * tl.num_programs(1) + pid_n
    tm = tl.arange(0, BLOCK_M)
    tn = tl.arange(0, BLOCK_N)
    part = ws_ptr + tile * (SPLITS * BLOCK_M * BLOCK_N) + tm[:, None] * BLOCK_N + tn[None, :]
    tl.store(part + pid_k * (BLOCK_M * BLOCK_N), acc)
    # every thread's partial is written before the one thread that takes the ticket releases
    tl.debug_barrier()
    ticket = tl.atomic_add(cnt_ptr + tile, 1, sem="acq_rel", scope="gpu")
    if ticket == SPLITS - 1:
        total = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for s in range(SPLITS):
            total += tl.load(part + s * (BLOCK_M * BLOCK_N))
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], total)
        tl.store(cnt_ptr + tile, 0)


def _splitk_lastblock_cases():
    M, N, K, S = 256, 128, 384, 3
    rng = np.random.default_rng(15104)
    a = _grid_f16(rng, (M, K))
    b = _grid_f16(rng, (K, N))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tiles = (M // 128) * (N // 64)
    why = ("inputs on a 1/2 grid: products on a 1/4 grid, partial and total sums of at most 384 "
           "terms below 2^9: exact in f32 in any order: 0")
    return [Case("ho15_splitk_lastblock", grid=[M // 128, N // 64, S],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              ws=Output("f32", [tiles * S * 128 * 64]),
                              cnt=Output("i32", [tiles], np.zeros(tiles, np.float32), 0.0, 0.0,
                                         "every counter is reset by its last CTA: exact"),
                              c=Output("f32", [M, N], ref.astype(np.float32), 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), ws_ptr=Ptr("ws"), cnt_ptr=Ptr("cnt"),
                           c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] fp16 by split-K ({S} slices over "
                      "grid z): partials to a workspace, a CTA barrier, one atom.acq_rel.gpu "
                      "ticket per CTA; the last CTA of each tile sums the partials, stores C "
                      "and resets the counter; 128x64x64 tiles, 4 warps")]


# ---------------------------------------------------------------------------------------------
# fp16 accumulator at M = 64, 8 warps.
# ---------------------------------------------------------------------------------------------
@triton.jit
def mm_f16acc_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
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


def _f16acc_m64_cases():
    M, N, K = 192, 128, 256
    rng = np.random.default_rng(15105)
    a = _grid_f16(rng, (M, K))
    b = _grid_f16(rng, (K, N))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert np.all(ref.astype(np.float16).astype(np.float64) == ref)
    why = ("inputs on a 1/2 grid with |x| <= 1: every partial sum is a multiple of 1/4 of "
           "magnitude <= 256, which fp16 holds exactly (11 significant bits), so the f16 "
           "accumulator is exact whatever the MMA's internal width and order: 0")
    return [Case("ho15_gemm_f16acc_m64_w8", grid=[M // 64, N // 64],
                 buffers=dict(a=Input(a, "f16"), b=Input(b, "f16"),
                              c=Output("f16", [M, N], ref.astype(np.float32), 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), M=M, N=N, K=K),
                 note=f"C[{M}x{N}] = A[{M}x{K}] @ B[{K}x{N}] with an fp16 accumulator "
                      "(out_dtype=float16): M = 64 MMAs writing an f16 D (TMEM layout F), "
                      "16x32bx2 .unpack::16b zero store and .pack::16b loads; 64x64x64 tiles, "
                      "8 warps, 3 stages")]


_MM_SIG = dict(a_ptr="*fp16", b_ptr="*fp16", c_ptr="*fp32", M="i32", N="i32", K="i32",
               BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr")


KERNELS = [
    TritonKernel(name="ho15_mm_n8_s5_maxnreg", fn=mm_kernel, signature=_MM_SIG,
                 constexprs=dict(BLOCK_M=128, BLOCK_N=8, BLOCK_K=64), cases=_n8_cases,
                 num_warps=4, num_stages=5, options=dict(maxnreg=128),
                 aligned=("a_ptr", "b_ptr", "c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma.cta_group::1.kind::f16", ".maxnreg 128",
                               "tcgen05.ld.sync.aligned.32x32b.x8")),
    TritonKernel(name="ho15_dot_scaled_e2m1_e5m2", fn=dot_scaled_fp4_fp8_kernel,
                 signature=dict(a_ptr="*u8", sa_ptr="*u8", b_ptr="*fp8e5", sb_ptr="*u8",
                                c_ptr="*fp32", M="i32", N="i32", K="i32", BLOCK_M="constexpr",
                                BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(BLOCK_M=128, BLOCK_N=128, BLOCK_K=128),
                 cases=_dot_scaled_fp4_fp8_cases, num_warps=4, num_stages=2,
                 aligned=("a_ptr", "sa_ptr", "b_ptr", "sb_ptr", "c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale",)),
    TritonKernel(name="ho15_ws_m256_devdesc", fn=ws_m256_kernel, signature=_MM_SIG,
                 constexprs=dict(BLOCK_M=256, BLOCK_N=64, BLOCK_K=64), cases=_ws_m256_cases,
                 num_warps=4, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma.cta_group::1.kind::f16", "setmaxnreg",
                               "tensormap.replace")),
    TritonKernel(name="ho15_splitk_lastblock", fn=splitk_lastblock_kernel,
                 signature=dict(a_ptr="*fp16", b_ptr="*fp16", ws_ptr="*fp32", cnt_ptr="*i32",
                                c_ptr="*fp32", M="i32", N="i32", K="i32", SPLITS="constexpr",
                                BLOCK_M="constexpr", BLOCK_N="constexpr", BLOCK_K="constexpr"),
                 constexprs=dict(SPLITS=3, BLOCK_M=128, BLOCK_N=64, BLOCK_K=64),
                 cases=_splitk_lastblock_cases, num_warps=4, num_stages=2,
                 aligned=("a_ptr", "b_ptr", "ws_ptr", "cnt_ptr", "c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma", "atom.global.gpu.acq_rel.add", "bar.sync")),
    TritonKernel(name="ho15_gemm_f16acc_m64_w8", fn=mm_f16acc_kernel,
                 signature=dict(_MM_SIG, c_ptr="*fp16"),
                 constexprs=dict(BLOCK_M=64, BLOCK_N=64, BLOCK_K=64), cases=_f16acc_m64_cases,
                 num_warps=8, num_stages=3,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "M", "N", "K"),
                 must_contain=("tcgen05.mma.cta_group::1.kind::f16",
                               "tcgen05.ld.sync.aligned.16x32bx2.x8.pack::16b",
                               "tcgen05.st.sync.aligned.16x32bx2.x8.unpack::16b")),
]
