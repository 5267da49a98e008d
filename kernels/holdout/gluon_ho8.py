"""Holdout batch 8 (Gluon, Triton 3.9).

ho8_gluon_conv_im2col / ho8_gluon_conv_im2col_s2: a 3x3 convolution (padding 1) over an NHWC
fp16 image batch as an implicit GEMM whose A tiles come from **TMA im2col** loads
(`tma.async_load_im2col`: `cp.async.bulk.tensor.4d...im2col` with two 16-bit filter-tap
offsets), the first compiler output in the corpus to use the im2col mode. Each output tile is
128 output pixels (running across image boundaries) x 64 output channels; the K loop visits
the 9 filter taps (r, s) x the input-channel blocks through a 2-stage ready/empty mbarrier
ring released by the MMA's own mbarrier; the filter [Co, R*S*Ci] streams by tile TMA (B
K-major, permuted). The two specs run the same PTX: the second one's descriptor has traversal
strides 2 in H and W (a stride-2 convolution, 4x4 outputs per 8x8 image), which only the
tensor map carries.
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

from regen import Case, HostTMA, Input, Output, Ptr, TritonKernel

CM, CN, CK = 128, 64, 64
X_LAYOUT = gl.NVMMASharedLayout.get_default_for([CM, CK], gl.float16)
W_LAYOUT = gl.NVMMASharedLayout.get_default_for([CN, CK], gl.float16)


@gluon.jit
def conv_im2col_kernel(x_desc, w_desc, out_ptr, n_pix, img_pix, Ci, Co):
    BLOCK_M: gl.constexpr = 128
    BLOCK_K: gl.constexpr = x_desc.block_shape[1]
    BLOCK_N: gl.constexpr = w_desc.block_shape[0]
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    # a tile starts at an image boundary (img_pix divides BLOCK_M or BLOCK_M divides img_pix)
    img = off_m // img_pix

    x_s = gl.allocate_shared_memory(gl.float16, [2, BLOCK_M, BLOCK_K], x_desc.layout)
    w_s = gl.allocate_shared_memory(gl.float16, [2, BLOCK_N, BLOCK_K], w_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    freed = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    done = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(freed.index(i), count=1)
    mbarrier.init(done, count=1)
    fence_async_shared()
    acc = allocate_tensor_memory(gl.float32, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))

    stage_bytes: gl.constexpr = x_desc.block_type.nbytes + w_desc.block_type.nbytes
    n_cb = Ci // BLOCK_K
    n_k = 9 * n_cb
    for ki in range(n_k + 1):
        # producer: the loads of step ki into stage ki % 2, once the MMA of step ki - 2 freed it
        if ki < n_k:
            s = ki % 2
            if ki >= 2:
                mbarrier.wait(freed.index(s), ((ki - 2) // 2) & 1)
            tap = ki // n_cb
            cb = ki % n_cb
            r = tap // 3
            t = tap % 3
            mbarrier.expect(ready.index(s), stage_bytes)
            # the window corner of the tile's first output pixel: tiles start at an image's
            # pixel 0, whose window starts at (-1, -1) (padding 1)
            tma.async_load_im2col(x_desc, [img, -1, -1, cb * BLOCK_K],
                                  [r.to(gl.int16), t.to(gl.int16)], ready.index(s),
                                  x_s.index(s))
            tma.async_load(w_desc, [off_n, tap * Ci + cb * BLOCK_K], ready.index(s),
                           w_s.index(s))
        # consumer: the MMA of step ki - 1
        if ki >= 1:
            c = ki - 1
            cs = c % 2
            mbarrier.wait(ready.index(cs), (c // 2) & 1)
            tcgen05_mma(x_s.index(cs), w_s.index(cs).permute((1, 0)), acc, use_acc=(c != 0),
                        mbarriers=[freed.index(cs)])
    tcgen05_commit(done)
    mbarrier.wait(done, 0)
    for i in gl.static_range(2):
        mbarrier.invalidate(ready.index(i))
        mbarrier.invalidate(freed.index(i))
    mbarrier.invalidate(done)

    out_l: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [gl.num_warps(), 1], [1, 0])
    out = gl.convert_layout(acc.load(acc.get_reg_layout()), out_l)
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, out_l))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, out_l))
    gl.store(out_ptr + rm[:, None] * Co + rn[None, :], out,
             mask=(rm[:, None] < n_pix) & (rn[None, :] < Co))


def _grid_f16(rng, shape, steps=8):
    return (rng.integers(-steps, steps + 1, size=shape) / steps).astype(np.float16)


def _conv_ref(x, w, stride):
    """out[n, oy, ox, co] = sum_{r,s,ci} x[n, stride*oy - 1 + r, stride*ox - 1 + s, ci] *
    w[co, r, s, ci], zero outside the image (padding 1), in f64 from the exact inputs."""
    n, h, wd, ci = x.shape
    xp = np.zeros((n, h + 2, wd + 2, ci))
    xp[:, 1:h + 1, 1:wd + 1] = x.astype(np.float64)
    oh, ow = (h - 1) // stride + 1, (wd - 1) // stride + 1
    out = np.zeros((n, oh, ow, w.shape[0]))
    for r in range(3):
        for s in range(3):
            patch = xp[:, r:r + stride * (oh - 1) + 1:stride, s:s + stride * (ow - 1) + 1:stride]
            out += np.einsum("nyxc,oc->nyxo", patch, w[:, r, s].astype(np.float64))
    return out.reshape(n * oh * ow, -1).astype(np.float32)


def _conv_cases():
    H = W = 8
    Ci, Co = 128, 128
    why = ("inputs on a 1/8 grid: products on a 1/64 grid, sums of at most 9 x 128 = 1152 "
           "terms below 2^11 are exact in f32 in any order: exact")
    cases = []
    for name, n_img, stride, seed in (("ho8_gluon_conv_im2col", 3, 1, 8201),
                                      ("ho8_gluon_conv_im2col_s2", 12, 2, 8202)):
        rng = np.random.default_rng(seed)
        x = _grid_f16(rng, (n_img, H, W, Ci))
        w4 = _grid_f16(rng, (Co, 3, 3, Ci))
        ref = _conv_ref(x, w4, stride)
        oh = (H - 1) // stride + 1
        img_pix = oh * oh
        n_pix = n_img * img_pix
        lower = [-1, -1]
        # the far corner: the last window's corner, relative to the image's far corner (7, 7)
        last = stride * (oh - 1) - 1
        upper = [last - (H - 1), last - (W - 1)]
        es = [1, stride, stride, 1]
        cases.append(Case(
            name, grid=[(n_pix + CM - 1) // CM, Co // CN],
            buffers=dict(x=Input(x, "f16"), w=Input(w4.reshape(Co, 9 * Ci), "f16"),
                         out=Output("f32", [n_pix, Co], ref, 0.0, 0.0, why)),
            args=dict(x_desc=HostTMA("x", lower=lower, upper=upper, elem_strides=es),
                      w_desc=HostTMA("w"), out_ptr=Ptr("out"), n_pix=n_pix, img_pix=img_pix,
                      Ci=Ci, Co=Co),
            note=f"3x3 convolution, padding 1, stride {stride}: x [{n_img}, {H}, {W}, {Ci}] "
                 f"NHWC fp16, w [{Co}, 3, 3, {Ci}] as [{Co}, {9 * Ci}], out [{n_pix}, {Co}] f32 "
                 f"(pixels x channels). Implicit GEMM: A tiles of 128 output pixels x 64 "
                 f"channels by TMA im2col (pixel box lower {lower}, upper {upper} (H, W), "
                 f"traversal strides {es} (N, H, W, C)), filter-tap offsets (r, s) per K step; "
                 f"2-stage ring, 128x64x64, 4 warps"
                 + ("; the last tile runs past the last image (TMA fills zeros, rows masked)"
                    if n_pix % CM else "")))
    return cases


def _desc(shape, layout, dtype="fp16"):
    return f"tensordesc<{dtype}[{shape[0]},{shape[1]}],{layout!r}>"


def _desc5(block, layout, dtype="u8"):
    return f"tensordesc<{dtype}[{','.join(str(b) for b in block)}],{layout!r}>"


def _desc_im2col(block, rank, layout, dtype="fp16"):
    # as Triton's native JIT specialiser mangles a TensorDescriptorIm2Col: the tensor's rank
    # (not the 2-D block's) sets how many shape/stride parameters follow the map
    return f"tensordesc_im2col<{dtype}[{block[0]},{block[1]}],input_rank={rank},{layout!r}>"




# ---------------------------------------------------------------------------------------------
# A operand from TMEM with 32-bit (tf32) and 8-bit (i8) elements.
# ---------------------------------------------------------------------------------------------
TM, TK, TN = 128, 64, 64


@gluon.jit
def tmem_a_kernel(a_ptr, b_ptr, c_ptr, N, K, scale, BLOCK_M: gl.constexpr,
                  BLOCK_K: gl.constexpr, BLOCK_N: gl.constexpr):
    # C = (scale * A) @ B^T: each K block of A is scaled in registers and put into TMEM with
    # tcgen05.st, and the MMA takes it from there (`tcgen05.mma [d], [a_tmem], b_desc`); B^T
    # comes from a K-major shared tile. The A buffer is reused by every K step, so each step
    # waits for the previous MMA before overwriting it.
    dt: gl.constexpr = a_ptr.dtype.element_ty
    acc_t: gl.constexpr = c_ptr.dtype.element_ty
    rows: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    off_m = gl.program_id(0) * BLOCK_M
    off_n = gl.program_id(1) * BLOCK_N
    rm = off_m + gl.arange(0, BLOCK_M, gl.SliceLayout(1, rows))
    rn = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(1, rows))
    rk = gl.arange(0, BLOCK_K, gl.SliceLayout(0, rows))
    rc = off_n + gl.arange(0, BLOCK_N, gl.SliceLayout(0, rows))

    b_s = gl.allocate_shared_memory(dt, [BLOCK_N, BLOCK_K],
                                    gl.NVMMASharedLayout.get_default_for([BLOCK_N, BLOCK_K], dt))
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    fence_async_shared()
    # 32-bit elements take one column each; 8-bit ones are packed four to a column
    a_t = allocate_tensor_memory(dt, [BLOCK_M, BLOCK_K],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_K], col_stride=1))
    acc = allocate_tensor_memory(acc_t, [BLOCK_M, BLOCK_N],
                                 TensorMemoryLayout([BLOCK_M, BLOCK_N], col_stride=1))
    a_reg: gl.constexpr = a_t.get_reg_layout()
    for ki in range(K // BLOCK_K):
        k0 = ki * BLOCK_K
        if ki > 0:
            # the previous MMA still reads A (TMEM) and B (shared)
            mbarrier.wait(bar, (ki - 1) & 1)
        a = gl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :])
        a_t.store(gl.convert_layout((a * scale).to(dt), a_reg))
        b_s.store(gl.load(b_ptr + rn[:, None] * K + (k0 + rk)[None, :]))
        fence_async_shared()
        tcgen05_mma(a_t, b_s.permute((1, 0)), acc, use_acc=ki > 0, mbarriers=[bar])
    mbarrier.wait(bar, (K // BLOCK_K - 1) & 1)
    mbarrier.invalidate(bar)
    out = gl.convert_layout(acc.load(acc.get_reg_layout()), rows)
    gl.store(c_ptr + rm[:, None] * N + rc[None, :], out)


def _tmem_a_cases(kind):
    M, N, K = 256, 128, 192
    if kind == "tf32":
        rng = np.random.default_rng(8211)
        # A and B on a 1/32 grid in [-1, 1]; scale 2 keeps A exact in tf32 (6 significant bits)
        a = (rng.integers(-32, 33, size=(M, K)) / 32).astype(np.float32)
        b = (rng.integers(-32, 33, size=(N, K)) / 32).astype(np.float32)
        scale = 2.0
        why = ("2A and B on 1/16 and 1/32 grids with at most 7 significant bits (exact in "
               "tf32 whatever rounding the tensor core applies); products on a 2^-9 grid, "
               "|sums| <= 2 * 192: every partial sum exact in f32: exact")
        dt, out_dt = "f32", "f32"
    else:
        rng = np.random.default_rng(8212)
        # scale 1 (s8 stays s8); A in [-64, 63] so 2A would still fit: the kernel multiplies by
        # the i32 scale and truncates back to i8
        a = rng.integers(-128, 128, size=(M, K)).astype(np.int8)
        b = rng.integers(-128, 128, size=(N, K)).astype(np.int8)
        scale = 1
        why = "integer arithmetic, |sum| <= 192 * 2^14 < 2^22: exact"
        dt, out_dt = "i8", "i32"
    ref = ((scale * a.astype(np.float64)) @ b.astype(np.float64).T).astype(np.float32)
    return [Case(f"ho8_gluon_tmem_a_{kind}", grid=[M // TM, N // TN],
                 buffers=dict(a=Input(a, dt), b=Input(b, dt),
                              c=Output(out_dt, [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_ptr=Ptr("a"), b_ptr=Ptr("b"), c_ptr=Ptr("c"), N=N, K=K,
                           scale=scale),
                 note=f"C[{M}x{N}] = ({scale} A)[{M}x{K}] @ B[{N}x{K}]^T, {kind}: each K block of "
                      f"A scaled in registers, stored to TMEM (tcgen05.st) and used as the MMA's "
                      f"A operand from TMEM (kind::{kind}); B K-major from shared memory; "
                      f"{TM}x{TN}x{TK}, one TMEM A buffer reused after each MMA's mbarrier")]




# ---------------------------------------------------------------------------------------------
# Two-CTA block-scaled MMA: A scales split across the pair, B scales in both CTAs.
# ---------------------------------------------------------------------------------------------
QM, QN, QK = 256, 128, 128
QA_LAYOUT = gl.NVMMASharedLayout.get_default_for([QM, QK], gl.float8e4nv, cga_layout=[[1, 0]])
QB_LAYOUT = gl.NVMMASharedLayout.get_default_for([QN, QK], gl.float8e4nv, cga_layout=[[1, 0]])
# e2m1 operands: 128 bytes (256 elements) of K per row, two per byte
Q4A_LAYOUT = gl.NVMMASharedLayout.get_default_for([QM, QK], gl.uint8, cga_layout=[[1, 0]])
Q4B_LAYOUT = gl.NVMMASharedLayout.get_default_for([QN, QK], gl.uint8, cga_layout=[[1, 0]])
# scale chunks [1, row blocks, K blocks, 2, 256] u8, unswizzled: A's two 128-row blocks go one
# to each CTA, B's one block to both
QSA_LAYOUT = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=8, rank=5,
                                  cga_layout=[[0, 1, 0, 0, 0]])
QSB_LAYOUT = gl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=8, rank=5,
                                  cga_layout=[[0, 0, 0, 0, 0]])


@gluon.jit
def _scale_view(smem, rows: gl.constexpr, rep_k: gl.constexpr):
    # a [1, rows / 128, rep_k, 2, 256] chunk stack as the [rows, 4 rep_k] scale matrix: scale
    # column c of row r is byte (r % 32) * 16 + (r // 32 % 4) * 4 + c % 4 of the chunk
    # (r // 128, c // 4)
    s = smem.reshape((rows // 128, rep_k, 32, 4, 4))
    s = s.permute((0, 3, 2, 1, 4))
    return s.reshape((rows, rep_k * 4))


@gluon.jit
def two_cta_scaled_kernel(a_desc, b_desc, sa_desc, sb_desc, c_ptr, N, K):
    # e4m3 operands, or e2m1 ones packed two to a byte along K (u8 descriptors)
    gl.static_assert(gl.num_ctas() == 2)
    KPB: gl.constexpr = 2 if a_desc.dtype == gl.uint8 else 1
    FMT: gl.constexpr = "e2m1" if a_desc.dtype == gl.uint8 else "e4m3"
    pair_m: gl.constexpr = a_desc.block_shape[0]
    kb_bytes: gl.constexpr = a_desc.block_shape[1]
    block_k: gl.constexpr = kb_bytes * KPB
    rep_k: gl.constexpr = block_k // 128
    tile_n: gl.constexpr = b_desc.block_shape[0]
    off_m = gl.program_id(0) * pair_m
    off_n = gl.program_id(1) * tile_n

    a_s = gl.allocate_shared_memory(a_desc.dtype, a_desc.block_shape, a_desc.layout)
    b_s = gl.allocate_shared_memory(b_desc.dtype, b_desc.block_shape, b_desc.layout)
    sa_s = gl.allocate_shared_memory(sa_desc.dtype, sa_desc.block_shape, sa_desc.layout)
    sb_s = gl.allocate_shared_memory(sb_desc.dtype, sb_desc.block_shape, sb_desc.layout)
    ready = mbarrier.allocate_mbarrier(two_ctas=True)
    done = mbarrier.allocate_mbarrier()
    mbarrier.init(ready, count=1)
    mbarrier.init(done, count=1)

    acc_layout: gl.constexpr = TensorMemoryLayout(block=(pair_m // 2, tile_n), col_stride=1,
                                                  cga_layout=[[1, 0]], two_ctas=True)
    acc = allocate_tensor_memory(gl.float32, [pair_m, tile_n], acc_layout)
    sa_t = allocate_tensor_memory(gl.uint8, [pair_m, block_k // 32],
                                  TensorMemoryScalesLayout(cga_layout=[[1, 0]]))
    sb_t = allocate_tensor_memory(gl.uint8, [tile_n, block_k // 32],
                                  TensorMemoryScalesLayout(cga_layout=[[0, 0]]))

    stage_bytes: gl.constexpr = (a_desc.nbytes_per_cta + b_desc.nbytes_per_cta
                                 + sa_desc.nbytes_per_cta + sb_desc.nbytes_per_cta)
    for ki in range(K // block_k):
        mbarrier.expect(ready, stage_bytes)
        tma.async_load(a_desc, [off_m, ki * kb_bytes], ready, a_s)
        tma.async_load(b_desc, [off_n, ki * kb_bytes], ready, b_s)
        tma.async_load(sa_desc, [0, gl.program_id(0) * (pair_m // 128), ki * rep_k, 0, 0],
                       ready, sa_s)
        tma.async_load(sb_desc, [0, gl.program_id(1) * (tile_n // 128), ki * rep_k, 0, 0],
                       ready, sb_s)
        mbarrier.wait(ready, ki & 1)
        tcgen05_copy(_scale_view(sa_s, pair_m, rep_k), sa_t)
        tcgen05_copy(_scale_view(sb_s, tile_n, rep_k), sb_t)
        tcgen05_mma_scaled(a_s, b_s.permute((1, 0)), acc, sa_t, sb_t, FMT, FMT,
                           use_acc=ki > 0, mbarriers=[done])
        # the MMA reads A, B and both scale buffers until its barrier fires
        mbarrier.wait(done, ki & 1)
    mbarrier.invalidate(ready)
    mbarrier.invalidate(done)

    reg: gl.constexpr = acc.get_reg_layout()
    out = acc.load(reg)
    rm = off_m + gl.arange(0, pair_m, gl.SliceLayout(1, reg))
    rn = off_n + gl.arange(0, tile_n, gl.SliceLayout(0, reg))
    gl.store(c_ptr + rm[:, None] * N + rn[None, :], out)


def _scale_chunks5(s):
    """[rows, K/32] ue8m0 scales -> [1, rows/128, K/128, 2, 256] u8: one 512-byte chunk per
    (128-row block, 4 scale columns), byte (r % 32) * 16 + (r // 32 % 4) * 4 + c."""
    rows, cols = s.shape
    out = s.reshape(rows // 128, 4, 32, cols // 4, 4).transpose(0, 3, 2, 1, 4)
    return np.ascontiguousarray(out).reshape(1, rows // 128, cols // 4, 2, 256)


def _two_cta_scaled_cases(fmt):
    from regen import _e4m3_table, e2m1_nibbles_to_f64, e8m0_to_f64
    M, N = 256, 256
    rng = np.random.default_rng(8221 if fmt == "mxf8" else 8222)
    if fmt == "mxf8":
        K = 256
        table = _e4m3_table()
        code = {float(v): i for i, v in reversed(list(enumerate(table))) if not np.isnan(v)}
        a = rng.integers(-8, 9, size=(M, K)) / 4
        b = rng.integers(-8, 9, size=(N, K)) / 4
        enc = np.vectorize(lambda v: code[float(v)])
        a_in, b_in = Input(enc(a).astype(np.uint8), "fp8e4m3"), Input(enc(b).astype(np.uint8),
                                                                      "fp8e4m3")
        why = ("e4m3 inputs on a 1/4 grid times ue8m0 scales 2^-2..2^2: products multiples of "
               "2^-8 below 2^6, |sums| < 2^14: every partial sum exact in f32: exact")
    else:
        K = 512
        an = rng.integers(0, 16, size=(M, K)).astype(np.uint8)
        bn = rng.integers(0, 16, size=(N, K)).astype(np.uint8)
        a, b = e2m1_nibbles_to_f64(an), e2m1_nibbles_to_f64(bn)
        # two e2m1 per byte along K, the even K element in the low nibble
        a_in = Input((an[:, 0::2] | (an[:, 1::2] << 4)).astype(np.uint8), "u8")
        b_in = Input((bn[:, 0::2] | (bn[:, 1::2] << 4)).astype(np.uint8), "u8")
        why = ("e2m1 products (at most 36, multiples of 1/4) times ue8m0 scales 2^-2..2^2: "
               "multiples of 2^-6 below 2^10, |sums| < 2^19: every partial sum exact in f32: "
               "exact")
    sa = rng.integers(125, 130, size=(M, K // 32)).astype(np.uint8)
    sb = rng.integers(125, 130, size=(N, K // 32)).astype(np.uint8)
    a_s = a * np.repeat(e8m0_to_f64(sa), 32, axis=1)
    b_s = b * np.repeat(e8m0_to_f64(sb), 32, axis=1)
    ref = (a_s @ b_s.T).astype(np.float32)
    kind = "mxf8f6f4" if fmt == "mxf8" else "mxf4"
    elem = "e4m3" if fmt == "mxf8" else "e2m1 (two per byte along K)"
    return [Case(f"ho8_gluon_2cta_{fmt}", grid=[M // QM, N // QN],
                 buffers=dict(a=a_in, b=b_in, sa=Input(_scale_chunks5(sa), "u8"),
                              sb=Input(_scale_chunks5(sb), "u8"),
                              c=Output("f32", [M, N], ref, 0.0, 0.0, why)),
                 args=dict(a_desc=HostTMA("a"), b_desc=HostTMA("b"), sa_desc=HostTMA("sa"),
                           sb_desc=HostTMA("sb"), c_ptr=Ptr("c"), N=N, K=K),
                 note=f"C[{M}x{N}] = (A*SA)[{M}x{K}] @ (B*SB)[{N}x{K}]^T, {elem} with ue8m0 "
                      f"scales per 32 K: tcgen05_mma_scaled on a CTA pair (cta_group::2 "
                      f"kind::{kind}.block_scale, 256x128 pair tile), scales by rank-5 TMA "
                      "chunks and tcgen05_copy: A's scales split across the pair, B's (all 128 "
                      "N of the tile) in both CTAs. The grid is Triton's times num_ctas = 2.")]


KERNELS = [
    TritonKernel(name="ho8_gluon_conv_im2col", fn=conv_im2col_kernel,
                 signature=dict(x_desc=_desc_im2col([CM, CK], 4, X_LAYOUT),
                                w_desc=_desc([CN, CK], W_LAYOUT), out_ptr="*fp32", n_pix="i32",
                                img_pix="i32", Ci="i32", Co="i32"),
                 constexprs={}, cases=_conv_cases, num_warps=4, num_stages=1, gluon=True,
                 aligned=("out_ptr", "Ci", "Co"),
                 must_contain=("tcgen05.mma", ".im2col")),
    TritonKernel(name="ho8_gluon_tmem_a_tf32", fn=tmem_a_kernel,
                 signature=dict(a_ptr="*fp32", b_ptr="*fp32", c_ptr="*fp32", N="i32", K="i32",
                                scale="fp32", BLOCK_M="constexpr", BLOCK_K="constexpr",
                                BLOCK_N="constexpr"),
                 constexprs=dict(BLOCK_M=TM, BLOCK_K=TK // 2, BLOCK_N=TN),
                 cases=lambda: _tmem_a_cases("tf32"), num_warps=4, num_stages=1, gluon=True,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "N", "K"),
                 must_contain=("kind::tf32 [",)),
    TritonKernel(name="ho8_gluon_tmem_a_i8", fn=tmem_a_kernel,
                 signature=dict(a_ptr="*i8", b_ptr="*i8", c_ptr="*i32", N="i32", K="i32",
                                scale="i32", BLOCK_M="constexpr", BLOCK_K="constexpr",
                                BLOCK_N="constexpr"),
                 constexprs=dict(BLOCK_M=TM, BLOCK_K=TK, BLOCK_N=TN),
                 cases=lambda: _tmem_a_cases("i8"), num_warps=4, num_stages=1, gluon=True,
                 aligned=("a_ptr", "b_ptr", "c_ptr", "N", "K"),
                 must_contain=("kind::i8 [",)),
    TritonKernel(name="ho8_gluon_2cta_mxf8", fn=two_cta_scaled_kernel,
                 signature=dict(a_desc=_desc([QM, QK], QA_LAYOUT, "fp8e4nv"),
                                b_desc=_desc([QN, QK], QB_LAYOUT, "fp8e4nv"),
                                sa_desc=_desc5([1, QM // 128, 1, 2, 256], QSA_LAYOUT),
                                sb_desc=_desc5([1, QN // 128, 1, 2, 256], QSB_LAYOUT),
                                c_ptr="*fp32", N="i32", K="i32"),
                 constexprs={}, cases=lambda: _two_cta_scaled_cases("mxf8"), num_warps=4,
                 num_stages=1, num_ctas=2, gluon=True, aligned=("c_ptr", "N", "K"),
                 must_contain=("cta_group::2.kind::mxf8f6f4.block_scale", "tcgen05.cp")),
    TritonKernel(name="ho8_gluon_2cta_mxf4", fn=two_cta_scaled_kernel,
                 signature=dict(a_desc=_desc([QM, QK], Q4A_LAYOUT, "u8"),
                                b_desc=_desc([QN, QK], Q4B_LAYOUT, "u8"),
                                sa_desc=_desc5([1, QM // 128, 2, 2, 256], QSA_LAYOUT),
                                sb_desc=_desc5([1, QN // 128, 2, 2, 256], QSB_LAYOUT),
                                c_ptr="*fp32", N="i32", K="i32"),
                 constexprs={}, cases=lambda: _two_cta_scaled_cases("mxf4"), num_warps=4,
                 num_stages=1, num_ctas=2, gluon=True, aligned=("c_ptr", "N", "K"),
                 must_contain=("cta_group::2.kind::mxf4", "tcgen05.cp")),
]
