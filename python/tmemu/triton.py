"""Run a ``@triton.jit`` (or ``@gluon.jit``) function under tmemu: ``tmemu.triton.run(fn, grid, *args, **kw)``.

The function is compiled offline for sm_100a (``triton.compile(ASTSource(...),
target=GPUTarget("cuda", 100, 32))``, no GPU needed), with the signature, constexprs and
alignment attributes that Triton's own JIT would derive from the same arguments on a GPU: we
call Triton's binder with stand-ins for the arrays whose ``data_ptr()`` is 256-byte aligned, as
tmemu places every buffer (so pointers get ``tt.divisibility = 16`` as on a real device). Then
the PTX runs through :func:`tmemu.launch` on the numpy arrays, which are written back.

Needs triton==3.9.0 (its binder and ``_pack_args`` are internal and pinned); imported only when
``tmemu.triton`` is used.
"""

import math

import numpy as np

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource, make_backend
from triton.runtime.jit import create_function_from_signature

from ._errors import LaunchError
from ._launch import TensorMap, launch

from triton.tools.tensor_descriptor import TensorDescriptor as _TritonDescriptor

# CUtensorMapSwizzle (Triton's tensordesc_meta "swizzle") -> tmemu swizzle name
_SWIZZLE = {0: "none", 1: "32B", 2: "64B", 3: "128B"}

TARGET = GPUTarget("cuda", 100, 32)  # sm_100a: Triton appends the `a` for capability 100

# numpy dtype name -> Triton element type of a pointer to it.
_TL_DTYPES = {
    "float64": tl.float64,
    "float32": tl.float32,
    "float16": tl.float16,
    "bfloat16": tl.bfloat16,
    "float8_e4m3fn": tl.float8e4nv,
    "float8_e5m2": tl.float8e5,
    "int8": tl.int8,
    "uint8": tl.uint8,
    "int16": tl.int16,
    "uint16": tl.uint16,
    "int32": tl.int32,
    "uint32": tl.uint32,
    "int64": tl.int64,
    "uint64": tl.uint64,
    "bool": tl.int1,
}

# Keyword arguments that configure tmemu rather than the kernel (unless the kernel has a
# parameter of that name, which then wins).
_TMEMU_OPTIONS = ("check", "seeds", "async_policy", "sms", "seed", "raise_on_findings", "threads", "max_steps")

_ALIGNED_PTR = 1 << 20  # any 256-byte-aligned address: tmemu aligns every buffer to 256


class _Arg:
    """What Triton's binder sees for a numpy array: a dtype and an aligned data_ptr()."""

    def __init__(self, array, name):
        dt = _TL_DTYPES.get(array.dtype.name)
        if dt is None:
            raise LaunchError(
                f"tmemu.triton: error: argument '{name}': unsupported array dtype {array.dtype}"
            )
        self.array = array
        self.dtype = dt
        self.shape = array.shape

    @staticmethod
    def data_ptr():
        return _ALIGNED_PTR


_backend = None
_binders = {}
_compiled = {}


def _get_backend():
    global _backend
    if _backend is None:
        _backend = make_backend(TARGET)
    return _backend


class Compiled:
    """A compiled kernel: ``ptx`` text, ``name`` of the entry, ``metadata`` (Triton's)."""

    def __init__(self, compiled):
        self.ptx = compiled.asm["ptx"]
        self.metadata = compiled.metadata
        self.name = compiled.metadata.name

    @property
    def block(self):
        return 32 * self.metadata.num_warps

    @property
    def num_ctas(self):
        return int(getattr(self.metadata, "num_ctas", 1))


class TensorDescriptor:
    """A host-side TMA tensor descriptor over a numpy array, for kernel parameters Triton types
    as ``tensordesc`` (``desc.load([...])`` in the kernel): what
    ``triton.tools.tensor_descriptor.TensorDescriptor(tensor, shape, strides, block_shape)`` is
    on a GPU, with shape and strides taken from the (C-contiguous) array."""

    def __init__(self, array, block_shape, padding="zero", round_f32_to_tf32=False):
        if not isinstance(array, np.ndarray):
            raise LaunchError(f"tmemu.triton: error: TensorDescriptor needs a numpy array, found {type(array).__name__}")
        if not array.flags.c_contiguous:
            raise LaunchError("tmemu.triton: error: TensorDescriptor needs a C-contiguous array")
        if padding not in ("zero", "nan") or (padding == "nan" and array.dtype.kind != "f"):
            raise LaunchError(f"tmemu.triton: error: TensorDescriptor padding must be 'zero' (or 'nan' for floats), found {padding!r}")
        if len(block_shape) != array.ndim:
            raise LaunchError(
                f"tmemu.triton: error: TensorDescriptor block_shape {list(block_shape)} must have one size per dimension of the array {array.shape}"
            )
        self.array = array
        self.shape = [int(d) for d in array.shape]
        self.strides = [int(np.prod(array.shape[i + 1:])) for i in range(array.ndim)]
        self.block_shape = [int(b) for b in block_shape]
        self.padding = padding
        self.round_f32_to_tf32 = bool(round_f32_to_tf32)

    def __repr__(self):
        return f"TensorDescriptor(array {tuple(self.shape)} {self.array.dtype}, block_shape={self.block_shape})"


def _wrap(value, name):
    """Numpy arrays and descriptors -> what Triton's binder expects."""
    if isinstance(value, np.ndarray):
        return _Arg(value, name)
    if isinstance(value, TensorDescriptor):
        try:
            # The binder's specialisation does not depend on padding; expansion uses the real one.
            return _TritonDescriptor(_Arg(value.array, name), value.shape, value.strides,
                                     value.block_shape, "zero", value.round_f32_to_tf32)
        except AssertionError as e:
            raise LaunchError(f"tmemu.triton: error: argument '{name}': {e}") from None
    return value


def _expand_descriptor(value, meta):
    """A host TensorDescriptor -> the PTX parameters Triton's CUDA launcher passes
    (driver.py make_tensordesc_arg): the 128-byte tensor map, then shape (i32 each) and
    strides (i64 each); without tensordesc_meta (descriptor lowered in the kernel),
    decompose_descriptor's base pointer, shape, strides, padding flag, tf32 flag, shape,
    strides."""
    a = value.array
    shape = [int(d) for d in value.shape]
    strides = [int(s) for s in value.strides]
    if meta is None:
        return [a, *shape, *strides, int(value.padding == "nan"), int(value.round_f32_to_tf32), *shape, *strides]
    if meta.get("fp4_padded") or meta.get("is_im2col"):
        raise LaunchError("tmemu.triton: error: fp4-padded and im2col tensor descriptors are not supported yet")
    tm = TensorMap(
        a,
        box=list(meta["block_size"])[::-1],  # innermost first, as cuTensorMapEncodeTiled counts
        swizzle=_SWIZZLE[meta["swizzle"]],
        oob_fill="nan" if value.padding == "nan" else "zero",
        elem_type="tf32" if value.round_f32_to_tf32 else None,
    )
    return [tm, *shape, *strides]


def compile(fn, *args, **kwargs):
    """Compiles ``fn`` for sm_100a as Triton's JIT would for these arguments (cached per
    specialisation); returns ``(Compiled, runtime_args, bound_args)``: runtime_args are the
    values of the PTX parameters before Triton's two scratch pointers (constexprs dropped,
    descriptors expanded), bound_args Triton's binding of every argument by name."""
    if not isinstance(fn, triton.runtime.jit.JITFunction):
        raise LaunchError(
            f"tmemu.triton: error: expected a @triton.jit function, found {type(fn).__name__}"
        )
    backend = _get_backend()
    binder = _binders.get(fn)
    if binder is None:
        binder = create_function_from_signature(fn.signature, fn.params, backend)
        _binders[fn] = binder
    names = [p.name for p in fn.params]
    wrapped = [_wrap(a, names[i] if i < len(names) else str(i)) for i, a in enumerate(args)]
    wrapped_kw = {k: _wrap(v, k) for k, v in kwargs.items()}
    try:
        bound, specialization, options = binder(*wrapped, **wrapped_kw)
    except TypeError as e:
        raise LaunchError(f"tmemu.triton: error: {fn.__name__}: {e}") from None
    key = (fn.cache_key, str(specialization), str(sorted(options.items())))
    compiled = _compiled.get(key)
    if compiled is None:
        options_obj, signature, constexprs, attrs = fn._pack_args(
            backend, wrapped_kw, bound, specialization, options
        )
        if getattr(fn, "is_gluon", lambda: False)():
            # @gluon.jit functions compile through Gluon's own front end (layouts explicit).
            from triton.experimental.gluon._runtime import GluonASTSource

            src = GluonASTSource(fn, signature, constexprs, attrs)
        else:
            src = ASTSource(fn, signature, constexprs, attrs)
        compiled = Compiled(triton.compile(src, target=TARGET, options=options_obj.__dict__))
        _compiled[key] = compiled
    descs = list(getattr(compiled.metadata, "tensordesc_meta", None) or [])
    originals = dict(zip(names, args))
    originals.update(kwargs)
    runtime = []
    for (name, value), spec in zip(bound.items(), specialization):
        if spec[0] == "constexpr":
            continue
        if isinstance(spec[0], str) and spec[0].startswith("tensordesc"):
            original = originals.get(name, value)
            runtime.extend(_expand_descriptor(original, descs.pop(0) if descs else None))
            continue
        if isinstance(value, _Arg):
            value = value.array
        runtime.append(value)
    return compiled, runtime, bound


def prepare(fn, grid, *args, **kwargs):
    """Compiles like :func:`run` and returns ``(compiled, launch_kwargs)``: the keyword
    arguments :func:`tmemu.launch` gets (``ptx``, ``kernel``, ``grid``, ``block``, ``args``,
    ``cluster``, ``shared_bytes``, plus tmemu options), without running anything."""
    params = {p.name for p in getattr(fn, "params", [])}
    tmemu_opts = {k: kwargs.pop(k) for k in _TMEMU_OPTIONS if k in kwargs and k not in params}
    compiled, runtime, bound = compile(fn, *args, **kwargs)
    if callable(grid):
        grid = grid(dict(bound))
    grid = (grid,) if isinstance(grid, (int, np.integer)) else tuple(grid)
    grid = [int(g) for g in grid] + [1] * (3 - len(grid))
    md = compiled.metadata
    # As Triton's CUDA launcher does: with num_ctas > 1 each program is a cluster of num_ctas
    # CTAs along x (grid x scaled by num_ctas).
    num_ctas = compiled.num_ctas
    grid[0] *= num_ctas
    n_ctas = math.prod(grid)
    # Triton's two trailing pointer parameters: a zeroed scratch area of
    # `global_scratch_size` bytes per CTA (null when 0), and the profiler's (null when 0).
    scratch = []
    for size in (md.global_scratch_size, getattr(md, "profile_scratch_size", 0)):
        scratch.append(np.zeros(size * n_ctas, np.uint8) if size else None)
    return compiled, dict(
        ptx=compiled.ptx,
        kernel=compiled.name,
        grid=grid,
        block=compiled.block,
        args=runtime + scratch,
        cluster=[num_ctas, 1, 1],
        shared_bytes=md.shared,
        _ptx_name=f"{compiled.name}.ptx",
        **tmemu_opts,
    )


def run(fn, grid, *args, **kwargs):
    """Compiles ``fn`` (a ``@triton.jit`` function) for sm_100a and runs it under tmemu.

    grid: an int, a tuple of 1 to 3 ints, or a callable taking the bound arguments (a dict of
    name -> value, as Triton's launcher passes ``META``). args/kwargs: the kernel's arguments
    (numpy arrays, ints, floats, None) and constexprs, plus Triton's options (``num_warps``,
    ``num_stages``, ``num_ctas``, ...) and tmemu's (``check``, ``seeds``, ``async_policy``, ``sms``, ``seed``,
    ``raise_on_findings``, ``threads``, ``max_steps``). Arrays are written back in place.
    Returns the :class:`tmemu.Result` with ``.compiled`` (the :class:`Compiled` kernel).
    """
    compiled, kw = prepare(fn, grid, *args, **kwargs)
    result = launch(**kw)
    result.compiled = compiled
    return result
