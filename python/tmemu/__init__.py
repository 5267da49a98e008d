"""tmemu: run NVIDIA Blackwell (sm_100a) PTX kernels on numpy arrays, on a CPU, with every PTX
ISA rule violation reported.

    import numpy as np, tmemu
    r = tmemu.launch("axpy.ptx", "axpy_kernel", grid=4, block=128, args=[x, y, out, 1.5, n, None, None])
    print(r.verdict, out[:4])

`tmemu.triton.run(jit_fn, grid, *args, **constexprs)` compiles a @triton.jit function for
sm_100a and runs it the same way (needs triton==3.9.0; imported only when used).
"""

from ._errors import KernelError, LaunchError, PtxError, TmemuError, UnsupportedError
from ._launch import Finding, Packed, Result, TensorMap, launch
from . import _tmemu


def kernel_params(ptx, kernel=None):
    """The .params of an entry: dicts with name, kind ("pointer", "scalar", "bytes"), bits,
    is_float, size, align, offset."""
    from ._launch import _read_ptx

    text, name = _read_ptx(ptx)
    return _tmemu.kernel_params(text, name, kernel)


def entries(ptx):
    """The names of the module's .entry definitions."""
    from ._launch import _read_ptx

    text, name = _read_ptx(ptx)
    return _tmemu.entries(text, name)


def __getattr__(name):
    # `tmemu.triton` imports triton, which the core package must not need.
    if name == "triton":
        import importlib

        return importlib.import_module(".triton", __name__)
    raise AttributeError(f"module 'tmemu' has no attribute {name!r}")


__all__ = [
    "launch",
    "TensorMap",
    "Packed",
    "Result",
    "Finding",
    "kernel_params",
    "entries",
    "TmemuError",
    "LaunchError",
    "PtxError",
    "UnsupportedError",
    "KernelError",
]
__version__ = "0.1.0"
