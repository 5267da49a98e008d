"""`tmemu.launch`: numpy arrays and Python scalars in, a `Result` out.

This side only turns Python values into plain ones (dtype names, shapes, bytes, tagged argument
tuples) and checks what only Python can see (contiguity, dtypes, aliasing). Argument packing,
scalar range checks and tensor-map encoding happen once, in the Rust crate tmemu-spec, exactly
as for `tmemu run SPEC.toml`.
"""

import json
import os
import warnings

import numpy as np

from . import _tmemu
from ._errors import KernelError, LaunchError, UnsupportedError

_U32_MAX = 2**32 - 1

# numpy dtype name -> tmemu dtype name. bool travels as its bytes (u8). numpy has no bf16 or fp8:
# ml_dtypes' types carry those names.
_DTYPES = {
    "float64": "f64",
    "float32": "f32",
    "float16": "f16",
    "bfloat16": "bf16",
    "float8_e4m3fn": "fp8e4m3",
    "float8_e5m2": "fp8e5m2",
    "int8": "i8",
    "uint8": "u8",
    "int16": "i16",
    "uint16": "u16",
    "int32": "i32",
    "uint32": "u32",
    "int64": "i64",
    "uint64": "u64",
    "bool": "u8",
}


class TensorMap:
    """A TMA tensor map over `array`, passed to a 128-byte ``.param .b8 map[128]`` parameter.

    `box` is the box size per dimension, innermost first, as ``cuTensorMapEncodeTiled`` counts
    (the reverse of numpy's shape order); dims and strides come from the array's shape
    (row-major). `swizzle` is ``"none"``, ``"32B"``, ``"64B"``, ``"128B"`` (and the 128B atomicity
    forms tmemu's launch spec accepts). The array is the same device buffer as when it is also
    passed as a pointer argument. The 128 bytes use tmemu's own encoding (NVIDIA does not
    publish CUtensorMap's layout).
    """

    def __init__(
        self,
        array,
        box,
        swizzle="none",
        elem_strides=None,
        interleave=None,
        oob_fill=None,
        l2_promotion=None,
        elem_type=None,
    ):
        self.array = array
        self.box = [int(b) for b in box]
        self.swizzle = str(swizzle)
        self.elem_strides = [int(s) for s in elem_strides] if elem_strides else []
        self.interleave = interleave
        self.oob_fill = oob_fill
        self.l2_promotion = l2_promotion
        self.elem_type = elem_type

    def __repr__(self):
        return (
            f"TensorMap(array of shape {tuple(self.array.shape)} {self.array.dtype}, "
            f"box={self.box}, swizzle={self.swizzle!r})"
        )


class Packed:
    """Fields for a ``.param .b8 name[N]`` array parameter, laid out at natural alignment (CuTe
    DSL passes layouts and tensors this way), as the launch spec's ``packed = [...]``.

    Each field is ``(type, number)`` with type one of ``u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16
    f32 f64`` (integers range-checked), a numpy array (its 8-byte device address), or
    ``(array, offset_bytes)``.
    """

    def __init__(self, fields):
        self.fields = list(fields)

    def __repr__(self):
        return f"Packed({len(self.fields)} fields)"


class Finding(dict):
    """One item of the report: a dict with exactly the fields of one object of ``tmemu run
    --format json`` (docs/cli.md), readable as attributes too (``f.rule``).

    ``type`` is ``"finding"`` (``rule``, ``name``, ``severity``, ``message``, ``file``,
    ``line``, ``column``, ``byte_range``, ``label``, ``related``, ``context``, ``source``,
    ``seed``, ``notes``, ``occurrences``, ``help``), ``"hang"`` (``rule``, ``name``,
    ``severity``, ``message``, ``blocked``: one row per blocked instruction with its
    ``file``/``line``/``column``) or ``"incomplete"`` (``message`` and, when known, ``file``,
    ``line``, ``column``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __str__(self):
        kind = self.get("type")
        if kind == "incomplete":
            where = f"{self['file']}:{self['line']}:{self['column']}: " if self.get("file") else ""
            return f"{where}incomplete: {self['message']}"
        if kind == "hang":
            rows = self.get("blocked") or []
            where = f"{rows[0]['file']}:{rows[0]['line']}:{rows[0]['column']}: " if rows else ""
            return f"{where}hang[{self['rule']}] {self['name']}: {self['message']} ({len(rows)} blocked instructions)"
        text = f"{self['file']}:{self['line']}:{self['column']}: {self['severity']}[{self['rule']}] {self['name']}: {self['message']}"
        c = self.get("context")
        if c:
            x, y, z = c["cta"]
            text += f" (CTA ({x},{y},{z}), warp {c['warp']}, lanes {c['lanes']:#010x})"
        return text


class Result:
    """What a launch found. The arrays passed in already hold the kernel's outputs.

    - ``verdict``: ``"clean"``, ``"violation"``, ``"hang"`` or ``"incomplete"`` (as ``tmemu run``).
    - ``findings``: list of :class:`Finding`, the objects of ``tmemu run --format json`` before
      its summary; ``summary``: that summary object (``verdict``, ``exit_code``, counts).
    - ``stats``: ``warp_instructions``, ``thread_instructions``, ``wall_seconds`` (the emulation
      alone), ``ctas``, ``warps``, ``threads``, ``ctas_per_sm`` (with ``check=True``: ``runs``,
      ``per_run`` and sums).
    - ``report()``: the text ``tmemu run`` prints.
    """

    def __init__(self, raw):
        self.kernel = raw["kernel"]
        self.findings = []
        self.summary = {}
        for line in raw["json"].splitlines():
            item = json.loads(line)
            if item.get("type") == "summary":
                self.summary = item
            else:
                self.findings.append(Finding(item))
        self.verdict = self.summary["verdict"]
        self.stats = raw["stats"]
        self.diagnostics_dropped = raw["diagnostics_dropped"]
        self.trapped = raw["trapped"]
        self._report = raw["report"]

    @property
    def ok(self):
        return self.verdict == "clean"

    def __repr__(self):
        return (
            f"<tmemu.Result kernel={self.kernel!r} verdict={self.verdict!r} "
            f"findings={len(self.findings)} warp_instructions={self.stats['warp_instructions']}>"
        )

    def report(self, color=False):
        """The findings as ``tmemu run`` prints them (rustc-like, with the PTX line and the
        kernel's own source line where ``.loc`` names it), the verdict line, then a line of
        statistics."""
        text = self._report.human(bool(color))
        if self.diagnostics_dropped:
            text += f"... and {self.diagnostics_dropped} more diagnostics (dropped past the engine's cap)\n"
        s = self.stats
        runs = f" over {s['runs']} runs" if "runs" in s else ""
        return text + (
            f"kernel {self.kernel}: {s['ctas']} CTAs, {s['warp_instructions']} warp-instructions{runs} "
            f"in {s['wall_seconds']:.3f} s"
        )


def _read_ptx(ptx):
    """(text, name for messages)."""
    if isinstance(ptx, bytes):
        ptx = ptx.decode("utf-8")
    if isinstance(ptx, os.PathLike) or (
        isinstance(ptx, str) and "\n" not in ptx and ".entry" not in ptx
    ):
        path = os.fspath(ptx)
        try:
            with open(path, encoding="utf-8") as f:
                return f.read(), path
        except FileNotFoundError as e:
            text = _read_compressed_beside(path)
            if text is None:
                raise LaunchError(
                    f"{path}: error: cannot read the PTX file: {e.strerror}"
                ) from None
            return text, path
        except OSError as e:
            raise LaunchError(f"{path}: error: cannot read the PTX file: {e.strerror}") from None
    if not isinstance(ptx, str):
        raise LaunchError(
            f"tmemu.launch: error: expected PTX text or a path for 'ptx', found {type(ptx).__name__}"
        )
    return ptx, "<ptx>"


def _read_compressed_beside(path):
    """The text of `path`.gz or `path`.xz where `path` is absent (the repository commits PTX
    over 64 KiB gzip-compressed, as the tmemu command reads it); None when neither exists.
    A corrupt archive is a LaunchError naming it."""
    import gzip
    import lzma
    import zlib

    for ext, decompress in ((".gz", gzip.decompress), (".xz", lzma.decompress)):
        packed_path = path + ext
        try:
            with open(packed_path, "rb") as f:
                packed = f.read()
        except OSError:
            continue
        try:
            return decompress(packed).decode("utf-8")
        except (OSError, EOFError, zlib.error, lzma.LZMAError, UnicodeDecodeError) as e:
            raise LaunchError(f"{packed_path}: error: cannot decompress the PTX file: {e}") from None
    return None


def _dims(value, key, default=None):
    if value is None:
        if default is None:
            raise LaunchError(f"tmemu.launch: error: key '{key}': expected 1 to 3 sizes")
        return default
    if isinstance(value, (int, np.integer)):
        value = (value,)
    try:
        dims = [int(v) for v in value]
    except (TypeError, ValueError):
        raise LaunchError(
            f"tmemu.launch: error: key '{key}': expected an int or 1 to 3 ints, found {value!r}"
        ) from None
    if not 1 <= len(dims) <= 3 or any(not 1 <= d <= _U32_MAX for d in dims):
        raise LaunchError(
            f"tmemu.launch: error: key '{key}': expected 1 to 3 sizes from 1 to {_U32_MAX}, found {value!r}"
        )
    return dims + [1] * (3 - len(dims))


def _dtype_name(array, key):
    name = _DTYPES.get(array.dtype.name)
    if name is None:
        raise LaunchError(
            f"tmemu.launch: error: key '{key}': unsupported array dtype {array.dtype} "
            f"(supported: {', '.join(sorted(set(_DTYPES)))})"
        )
    if array.dtype.byteorder == ">":
        raise LaunchError(
            f"tmemu.launch: error: key '{key}': expected a little-endian array, found dtype {array.dtype.str} "
            "(use array.astype(array.dtype.newbyteorder('<')))"
        )
    return name


class _Arrays:
    """The distinct arrays of one launch (one device buffer each), in first-use order."""

    def __init__(self):
        self.items = []  # (array, key)
        self.index = {}  # id(array) -> position

    def add(self, array, key):
        if not isinstance(array, np.ndarray):
            raise LaunchError(
                f"tmemu.launch: error: key '{key}': expected a numpy array, found {type(array).__name__}"
            )
        i = self.index.get(id(array))
        if i is not None:
            return i
        if not array.flags.c_contiguous:
            raise LaunchError(
                f"tmemu.launch: error: key '{key}': expected a C-contiguous array, found one with "
                f"strides {array.strides} for shape {array.shape} (pass np.ascontiguousarray(a) "
                "and copy the result back)"
            )
        _dtype_name(array, key)
        for other, okey in self.items:
            # Two different objects over the same memory would become two device buffers, and
            # the kernel's writes through one would not show through the other.
            if np.may_share_memory(array, other):
                raise LaunchError(
                    f"tmemu.launch: error: key '{key}': this array overlaps the one passed as "
                    f"'{okey}'; pass the same array object, or copies"
                )
        self.index[id(array)] = len(self.items)
        self.items.append((array, key))
        return len(self.items) - 1

    def native(self):
        return [
            (
                f"{key}",
                _dtype_name(a, key),
                list(a.shape),
                a.tobytes(),
            )
            for a, key in self.items
        ]


def _field(f, key, arrays):
    if isinstance(f, np.ndarray):
        return ("buffer", arrays.add(f, key), 0)
    if isinstance(f, tuple) and len(f) == 2 and isinstance(f[0], np.ndarray):
        off = int(f[1])
        if not 0 <= off < 2**64:
            raise LaunchError(f"tmemu.launch: error: key '{key}': offset {off} out of range")
        return ("buffer", arrays.add(f[0], key), off)
    if isinstance(f, tuple) and len(f) == 2 and isinstance(f[0], str):
        ty, v = f
        if isinstance(v, (bool, np.bool_, int, np.integer)):
            if not -(2**127) <= int(v) < 2**127:
                raise LaunchError(f"tmemu.launch: error: key '{key}': integer {int(v)} is out of range")
            return ("int", ty, int(v))
        if isinstance(v, (float, np.floating)):
            return ("float", ty, float(v))
    raise LaunchError(
        f"tmemu.launch: error: key '{key}': expected (type, number), an array or (array, "
        f"offset_bytes), found {f!r}"
    )


def _arg(value, index, arrays):
    key = f"arg[{index}]"
    if value is None:
        return ("null",)
    if isinstance(value, np.ndarray):
        return ("buffer", arrays.add(value, key))
    if isinstance(value, TensorMap):
        i = arrays.add(value.array, f"{key}.tensormap")
        return (
            "tensormap",
            i,
            value.box,
            value.swizzle,
            value.elem_strides,
            value.interleave,
            value.oob_fill,
            value.l2_promotion,
            value.elem_type,
        )
    if isinstance(value, Packed):
        return ("packed", [_field(f, f"{key}.packed[{j}]", arrays) for j, f in enumerate(value.fields)])
    if isinstance(value, (bool, np.bool_)):
        return ("int", int(value))
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if not -(2**127) <= v < 2**127:
            raise LaunchError(f"tmemu.launch: error: key '{key}': integer {v} is out of range")
        return ("int", v)
    if isinstance(value, (float, np.floating)):
        return ("float", float(value))
    raise LaunchError(
        f"tmemu.launch: error: key '{key}': expected a numpy array, an int, a float, None "
        f"(a null pointer), a tmemu.TensorMap or a tmemu.Packed, found {type(value).__name__}"
    )


def launch(
    ptx,
    kernel=None,
    grid=1,
    block=1,
    args=(),
    cluster=None,
    shared_bytes=0,
    check=False,
    sms=148,
    seed=None,
    raise_on_findings=False,
    threads=None,
    max_steps=2_000_000_000,
    seeds=None,
    async_policy=None,
    _ptx_name=None,
):
    """Runs one kernel launch under tmemu and writes the arrays back in place.

    ptx: PTX text, or the path of a .ptx file. kernel: the .entry name (None when the module
    has one entry). grid, block, cluster: an int or 1 to 3 ints. args: one per .param, in
    order: numpy arrays (passed by device address; written back after the run), ints and
    floats (converted to the parameter's type, range-checked), None (a null pointer), or
    tmemu.TensorMap. sms: SMs of the modelled GPU (148, a B200). seed: a random warp schedule
    (same seed, same run); None is the default deterministic schedule. threads: worker threads
    (None, the default: every available core, as `tmemu run`; results are identical for any
    number).

    async_policy: when queued tcgen05 operations complete, as `tmemu run --async-policy`:
    "immediate" (the default), "delayed" or "adversarial" (as late as the rules allow).

    check=True runs the launch as `tmemu check` does: `seeds` runs (default 4) under the
    adversarial async policy (the default schedule, then seeded schedules from `seed`, default
    1), then one under the immediate policy; the findings are their union, each with the seed
    and policy that reproduce it; the arrays get the first run's results.

    Returns a tmemu.Result. Raises LaunchError (bad arguments, before anything runs), PtxError,
    UnsupportedError, and with raise_on_findings=True, KernelError when the verdict is not
    clean.
    """
    if seeds is not None and not check:
        raise LaunchError("tmemu.launch: error: key 'seeds': only with check=True")
    if seeds is None:
        seeds = 4
    if async_policy is not None and check:
        raise LaunchError(
            "tmemu.launch: error: key 'async_policy': check=True chooses the policies itself "
            "(adversarial, then immediate)"
        )
    if async_policy is not None and not isinstance(async_policy, str):
        raise LaunchError(f"tmemu.launch: error: key 'async_policy': expected a string, found {async_policy!r}")
    if not isinstance(seeds, (int, np.integer)) or not 1 <= seeds <= 1 << 16:
        raise LaunchError(f"tmemu.launch: error: key 'seeds': expected an int from 1 to 65536, found {seeds!r}")
    text, name = _read_ptx(ptx)
    if _ptx_name is not None:
        name = _ptx_name
    g = _dims(grid, "grid")
    b = _dims(block, "block")
    c = _dims(cluster, "cluster", [1, 1, 1])
    if not isinstance(shared_bytes, (int, np.integer)) or not 0 <= shared_bytes <= _U32_MAX:
        raise LaunchError(
            f"tmemu.launch: error: key 'shared_bytes': expected an int from 0 to {_U32_MAX}, found {shared_bytes!r}"
        )
    if not isinstance(sms, (int, np.integer)) or not 1 <= sms <= 1 << 16:
        raise LaunchError(f"tmemu.launch: error: key 'sms': expected an int from 1 to 65536, found {sms!r}")
    if seed is not None and (not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64):
        raise LaunchError(f"tmemu.launch: error: key 'seed': expected None or an int from 0 to 2**64-1, found {seed!r}")
    if isinstance(args, (np.ndarray, TensorMap)) or not hasattr(args, "__iter__"):
        raise LaunchError("tmemu.launch: error: key 'args': expected a list or tuple of arguments")
    arrays = _Arrays()
    native_args = [_arg(v, i, arrays) for i, v in enumerate(args)]
    raw = _tmemu.launch(
        text,
        name,
        kernel,
        g,
        b,
        c,
        int(shared_bytes),
        arrays.native(),
        native_args,
        int(sms),
        None if seed is None else int(seed),
        0 if threads is None else int(threads),
        int(max_steps),
        int(seeds) if check else None,
        async_policy,
    )
    for (array, key), out in zip(arrays.items, raw["outputs"]):
        if array.nbytes == 0:
            continue
        flat = array.reshape(-1).view(np.uint8)
        new = np.frombuffer(out, dtype=np.uint8, count=array.nbytes)
        if array.flags.writeable:
            flat[...] = new
        elif not np.array_equal(flat, new):
            warnings.warn(
                f"tmemu.launch: the kernel wrote to read-only array '{key}'; its new contents are dropped",
                stacklevel=2,
            )
    result = Result(raw)
    if raise_on_findings and result.verdict != "clean":
        raise KernelError(result.report(), result)
    return result
