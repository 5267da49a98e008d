"""Holdout batch 7b, CuTe DSL without the tensor core: a row reduction, the non-MMA code every
CuTe DSL softmax/norm epilogue is made of, which no CuTe DSL kernel of the corpus has (they are
all GEMMs).

One warp per row of X (R x N f32), 4 warps per CTA. Each lane reads its row in 128-bit chunks
(lane l takes elements 4l..4l+3 of every 128-element slice: coalesced; CuTe emits them as
`ld.global.v2.b64`, f32 pairs unpacked with mov.b64),
reduces them to a lane max and sum, then the warp reduces with butterfly shuffles
(cute.arch.warp_reduction_{max,sum}: `shfl.sync.bfly`), and writes Y = X - rowmax with 128-bit
stores (`st.global.v2.b64`) and rowsum with one store per warp (lane 0).

- ho7b_cute_rowreduce: R = 64, N = 512 (16 CTAs), finite inputs.
- ho7b_cute_rowreduce_nan: the same PTX, with NaNs in rows 0-7 (see _gpu_rowmax: CuTe DSL mixes
  NaN-propagating and NaN-dropping max, which the reference models from the PTX ISA).

Inputs are multiples of 1/8 in [-16, 16]: X - max is exact in f32, and every partial sum of a
row is a multiple of 1/8 below 512 * 16 = 2^13 (16 significant bits): exact in any order, so
the shuffle tree's order does not matter: tolerance 0.
"""
import os
from pathlib import Path

import numpy as np

import cutlass
import cutlass.cute as cute
from cutlass.cute.runtime import make_fake_compact_tensor

from regen import Case, CuteKernel, Input, Output, Packed

THREADS = 128
ROWS_PER_CTA = THREADS // 32
VEC = 4


@cute.kernel
def rowreduce_kernel(mX: cute.Tensor, mY: cute.Tensor, mS: cute.Tensor, n: cutlass.Constexpr):
    tidx, _, _ = cute.arch.thread_idx()
    bidx, _, _ = cute.arch.block_idx()
    warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
    lane = tidx % 32
    row = bidx * ROWS_PER_CTA + warp
    xs = cute.zipped_divide(mX[(row, None)], (VEC,))     # ((VEC), (n / VEC))
    ys = cute.zipped_divide(mY[(row, None)], (VEC,))
    chunks = []
    for j in cutlass.range_constexpr(n // (32 * VEC)):
        r = cute.make_rmem_tensor((VEC,), cutlass.Float32)
        cute.autovec_copy(xs[(None, lane + 32 * j)], r)
        chunks.append(r.load())
    m = chunks[0].reduce(cute.ReductionOp.MAX, -cutlass.Float32.inf, 0)
    s = chunks[0].reduce(cute.ReductionOp.ADD, cutlass.Float32(0.0), 0)
    for v in chunks[1:]:
        m = cute.arch.fmax(m, v.reduce(cute.ReductionOp.MAX, -cutlass.Float32.inf, 0))
        s = s + v.reduce(cute.ReductionOp.ADD, cutlass.Float32(0.0), 0)
    m = cute.arch.warp_reduction_max(m)
    s = cute.arch.warp_reduction_sum(s)
    for j in cutlass.range_constexpr(n // (32 * VEC)):
        r = cute.make_rmem_tensor((VEC,), cutlass.Float32)
        r.store(chunks[j] - m)
        cute.autovec_copy(r, ys[(None, lane + 32 * j)])
    if lane == 0:
        mS[row] = s


@cute.jit
def rowreduce(x: cute.Tensor, y: cute.Tensor, s: cute.Tensor):
    rows, n = x.layout.shape
    rowreduce_kernel(x, y, s, n).launch(grid=(rows // ROWS_PER_CTA, 1, 1),
                                        block=(THREADS, 1, 1))


SHAPE = (64, 512)


def _build(name):
    def build(tmp: Path):
        R, N = SHAPE
        x = make_fake_compact_tensor(cutlass.Float32, (R, N), stride_order=(1, 0),
                                     assumed_align=16)
        y = make_fake_compact_tensor(cutlass.Float32, (R, N), stride_order=(1, 0),
                                     assumed_align=16)
        s = make_fake_compact_tensor(cutlass.Float32, (R,), assumed_align=16)
        compiled = cute.compile(rowreduce, x, y, s)
        ptx = compiled.artifacts.PTX
        if not ptx or not ptx.lstrip().startswith("//"):
            raise SystemExit(f"{name}: no PTX kept (CUTE_DSL_KEEP=ptx?)")
        launch = dict(block=[THREADS, 1, 1], name=name, shared=0,
                      arg_names=["x", "y", "s"])
        return ptx, launch
    return build


def _gpu_rowmax(x):
    """The row max this kernel computes, by the PTX ISA semantics of what CuTe DSL emits for it
    (shared/spec: min/max): each lane's 4-element chunk is reduced by TensorSSA.reduce(MAX) into
    `max.NaN.f32` (NaN if any input is NaN), the chunk maxima are then combined, across a lane's
    chunks and across lanes by the shuffle tree, with plain `max.f32` (cute.arch.fmax,
    warp_reduction_max), which returns the other operand when one is NaN. So a NaN hides the
    other three values of its chunk, and the row max is NaN only if every chunk holds a NaN."""
    R, N = x.shape
    chunks = x.reshape(R, N // VEC, VEC)
    chunk_max = np.where(np.isnan(chunks).any(axis=2), np.nan, np.nanmax(
        np.where(np.isnan(chunks), -np.inf, chunks), axis=2))
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.nanmax(chunk_max, axis=1)       # NaN only where every chunk is NaN


def _case(name, x, why, note):
    R, N = x.shape
    m = _gpu_rowmax(x)
    y = (x - m[:, None]).astype(np.float32)
    s = x.sum(axis=1).astype(np.float32)            # NaN wherever the row holds one
    return Case(name, grid=[R // ROWS_PER_CTA],
                buffers=dict(x=Input(x.astype(np.float32), "f32"),
                             y=Output("f32", [R, N], y, 0.0, 0.0, why),
                             s=Output("f32", [R], s, 0.0, 0.0, why)),
                args=dict(x=Packed([{"buffer": "x"}], "X: static layout, so just the pointer"),
                          y=Packed([{"buffer": "y"}], "Y: static layout, so just the pointer"),
                          s=Packed([{"buffer": "s"}], "rowsum: static layout, just the pointer")),
                note=note)


def _cases(launch):
    R, N = SHAPE
    rng = np.random.default_rng(7203)
    x = rng.integers(-128, 129, size=(R, N)) / 8
    why = "inputs on a 1/8 grid, |row sums| < 2^13: X - max and every partial sum exact in f32"
    base = (f"Y = X - rowmax(X), rowsum(X) for X[{R}x{N}] f32, CuTe DSL, one warp per row, "
            "128-bit loads and stores, butterfly-shuffle warp reductions")
    # NaN rows (the rest as above). A chunk is the 4 elements one lane loads at once: elements
    # 4c..4c+3 of the row (chunk c = 32 j + lane).
    xn = x.copy()
    for r in range(4):                   # NaN in the chunk that holds the row's maximum (20)
        c = 7 + 40 * r
        xn[r, 4 * c + 1] = 20.0
        xn[r, 4 * c + (3 - r)] = np.nan
    for r in (4, 5):                     # NaN and the maximum in different chunks
        xn[r, 4 * (3 + r)] = np.nan
        xn[r, 4 * (90 + r) + 2] = 20.0
    xn[6, :] = np.nan                    # all NaN: max.f32(NaN, NaN) is NaN
    xn[7, 0::VEC] = np.nan               # a NaN in every chunk but one
    xn[7, 4 * 77] = -3.0
    xn[7, 4 * 77 + 1] = 17.5
    nan_why = ("row max modelled from the PTX ISA min/max semantics of the emitted max.NaN.f32 "
               "(per chunk) and max.f32 (between chunks); values on a 1/8 grid: exact; NaN "
               "matches only NaN")
    return [_case(launch["name"], x, why, base),
            _case(launch["name"] + "_nan", xn, nan_why,
                  base + ". Rows 0-7 hold NaNs: CuTe DSL's reduce(MAX) is NaN-propagating "
                  "(max.NaN.f32) but its cross-chunk and warp combine is not (max.f32), so a NaN "
                  "hides the other values of its 4-element chunk (rows 0-3 lose their maximum "
                  "20), rows 4-5 keep 20, row 6 (all NaN) gives NaN, row 7 keeps 17.5")]


KERNELS = [CuteKernel(name="ho7b_cute_rowreduce", build=_build("ho7b_cute_rowreduce"),
                      cases=_cases, must_contain=("ld.global.v2.b64", "shfl.sync.bfly",
                                                  "st.global.v2.b64"))]
