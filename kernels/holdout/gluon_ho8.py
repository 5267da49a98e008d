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
                                                                 allocate_tensor_memory,
                                                                 fence_async_shared, mbarrier,
                                                                 tcgen05_commit, tcgen05_mma,
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


def _desc_im2col(block, rank, layout, dtype="fp16"):
    # as Triton's native JIT specialiser mangles a TensorDescriptorIm2Col: the tensor's rank
    # (not the 2-D block's) sets how many shape/stride parameters follow the map
    return f"tensordesc_im2col<{dtype}[{block[0]},{block[1]}],input_rank={rank},{layout!r}>"


KERNELS = [
    TritonKernel(name="ho8_gluon_conv_im2col", fn=conv_im2col_kernel,
                 signature=dict(x_desc=_desc_im2col([CM, CK], 4, X_LAYOUT),
                                w_desc=_desc([CN, CK], W_LAYOUT), out_ptr="*fp32", n_pix="i32",
                                img_pix="i32", Ci="i32", Co="i32"),
                 constexprs={}, cases=_conv_cases, num_warps=4, num_stages=1, gluon=True,
                 aligned=("out_ptr", "Ci", "Co"),
                 must_contain=("tcgen05.mma", ".im2col")),
]
