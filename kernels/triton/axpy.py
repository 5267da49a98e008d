"""out = a * x + y over a vector whose length is not a multiple of the block (masked tail)."""
import numpy as np
import triton
import triton.language as tl

from regen import Case, Input, Output, Ptr, TritonKernel


@triton.jit
def axpy_kernel(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


def _cases():
    n, a, block = 1000, 1.5, 256
    rng = np.random.default_rng(31)
    x = rng.uniform(-1, 1, size=n).astype(np.float32)
    y = rng.uniform(-1, 1, size=n).astype(np.float32)
    expected = (np.float64(np.float32(a)) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float64)
    why = ("one f32 rounding (fma) or two (mul then add): <= 2^-23 relative plus 2^-24 * |a*x| "
           "absolute")
    return [Case("axpy", grid=[triton.cdiv(n, block)],
                 buffers=dict(x=Input(x, "f32"), y=Input(y, "f32"),
                              out=Output("f32", [n], expected, 2e-7, 2e-7, why)),
                 args=dict(x_ptr=Ptr("x"), y_ptr=Ptr("y"), out_ptr=Ptr("out"), a=a, n=n),
                 note=f"out = {a} * x + y, n = {n}, blocks of {block} (last one masked)")]


KERNELS = [
    TritonKernel(name="axpy", fn=axpy_kernel,
                 signature=dict(x_ptr="*fp32", y_ptr="*fp32", out_ptr="*fp32", a="fp32", n="i32",
                                BLOCK="constexpr"),
                 constexprs=dict(BLOCK=256), cases=_cases, num_warps=4, num_stages=1,
                 aligned=("x_ptr", "y_ptr", "out_ptr"), must_contain=("ld.global",)),
]
