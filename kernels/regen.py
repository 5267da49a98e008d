#!/usr/bin/env python3
"""Regenerate the real-compiler kernel corpus under tests/corpus/kernels/.

    python kernels/regen.py            # regenerate everything (Triton, Gluon, CuTe DSL, CUDA)
    python kernels/regen.py --check    # regenerate into a temporary folder, compare byte for byte
    python kernels/regen.py --only matmul_fp16 --only softmax   # a subset (by kernel name)

Every kernel is compiled offline for sm_100a with the compiler versions pinned in
kernels/requirements.txt (other versions are refused, so the output is reproducible). For each
kernel this writes, into tests/corpus/kernels/<compiler>/:

  NAME.ptx                   the PTX, with `.file`/`.loc` line info kept but every absolute path
                             rewritten (repo files become repo-relative, installed packages
                             become `<site-packages>/...`)
  CASE.toml                  a launch spec (format: shared/launch-spec.md) plus `[[expect]]`
  CASE.<buf>.npy             inputs, made by numpy with a fixed seed
  CASE.expected.<buf>.npy    the expected output, computed by numpy in f64 and stored as f32/f64

and checks that ptxas (nvidia-cuda-nvcc's) accepts each PTX for sm_100a and that each spec has one
`[[arg]]` per `.param` of its entry. Kernel sources live in kernels/{triton,gluon,cutedsl}/*.py;
each exposes `KERNELS`, a list built from the classes below. kernels/gen_cuda.py (CUDA C++, owned
separately) is called through `generate(out_root, rewrite_paths)` when present.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib
import types
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
KERNELS_DIR = REPO / "kernels"
CORPUS = REPO / "tests" / "corpus" / "kernels"
REQUIREMENTS = KERNELS_DIR / "requirements.txt"

# ----------------------------------------------------------------------------------------------
# Pinned versions and a clean environment (before any compiler is imported)
# ----------------------------------------------------------------------------------------------


def read_pins(path: Path = REQUIREMENTS) -> dict[str, str]:
    pins = {}
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([A-Za-z0-9_.+\-]+)", line)
        if not m:
            sys.exit(f"{path}:{lineno}: expected `name==version`, found {line!r}")
        pins[m.group(1)] = m.group(2)
    return pins


def check_versions() -> None:
    bad = []
    for name, want in read_pins().items():
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            have = None
        if have != want:
            bad.append(f"  {name}: need {want}, found {have or 'not installed'}")
    if bad:
        sys.exit("regen.py: refusing to run with unpinned compiler versions (the corpus would "
                 "not be reproducible):\n" + "\n".join(bad) +
                 f"\ninstall them with: pip install -r {REQUIREMENTS.relative_to(REPO)}")


def clean_environment(cache_dir: Path) -> None:
    # Any TRITON_* / CUTE_DSL_* knob can change code generation (a different ptxas, line info
    # off, a dump override...), so the corpus is made with none of them set except ours.
    for key in list(os.environ):
        if key.startswith(("TRITON_", "CUTE_DSL_", "MLIR_")):
            del os.environ[key]
    os.environ["TRITON_CACHE_DIR"] = str(cache_dir / "triton")
    os.environ["TRITON_HOME"] = str(cache_dir / "home")
    # Triton 3.9 warns that the default will flip in 3.10; say explicitly what we compile with.
    os.environ["TRITON_DEFAULT_FP_FUSION"] = "1"
    # CuTe DSL: compile for sm_100a without a GPU, keep the PTX (with line info) in a folder of
    # ours, and never reuse a cached build.
    (cache_dir / "cute").mkdir(parents=True, exist_ok=True)
    os.environ["CUTE_DSL_ARCH"] = "sm_100a"
    os.environ["CUTE_DSL_KEEP"] = "ptx,ir"  # ir: to check TMA boxes
    os.environ["CUTE_DSL_LINEINFO"] = "1"
    os.environ["CUTE_DSL_DUMP_DIR"] = str(cache_dir / "cute")
    os.environ["CUTE_DSL_CACHE_DIR"] = str(cache_dir / "cute-cache")
    os.environ["CUTE_DSL_DISABLE_FILE_CACHING"] = "1"


# ----------------------------------------------------------------------------------------------
# Path rewriting: reproducible PTX with line info and no machine-specific paths
# ----------------------------------------------------------------------------------------------


def _site_package_roots() -> list[str]:
    import site
    import sysconfig
    roots = set(site.getsitepackages() + [site.getusersitepackages()])
    for key in ("purelib", "platlib"):
        roots.add(sysconfig.get_paths()[key])
    out = []
    for r in roots:
        if r:
            out.append(str(Path(r)))
            out.append(str(Path(r).resolve()))
    # Longest first so that nested roots win.
    return sorted(set(out), key=len, reverse=True)


_SITE_ROOTS: list[str] | None = None


def rewrite_paths(text: str) -> str:
    """Rewrite absolute paths in compiler output: repo files → repo-relative,
    installed packages → `<site-packages>/...`. Used for PTX `.file` directives and for
    anything else a compiler embeds. Public: gen_cuda.generate() receives it."""
    global _SITE_ROOTS
    if _SITE_ROOTS is None:
        _SITE_ROOTS = _site_package_roots()
    for root in _SITE_ROOTS:
        text = text.replace(root + "/", "<site-packages>/")
    for root in sorted({str(REPO), str(REPO.resolve())}, key=len, reverse=True):
        text = text.replace(root + "/", "")
    return text


_ABS_PATH = re.compile(r"(?<![\w.<>-])/(?:work|root|home|tmp|usr|opt|var)/")


def _dwarf_strings(ptx: str) -> bytes:
    """The bytes of every `.b8` run, as DWARF strings are spelled in PTX debug sections."""
    vals = [int(v) for v in re.findall(r"^\s*\.b8\s+(\d+)", ptx, re.MULTILINE)]
    return bytes(v & 0xFF for v in vals)


def assert_no_abs_paths(name: str, ptx: str) -> None:
    m = _ABS_PATH.search(ptx)
    if m:
        line = ptx.count("\n", 0, m.start()) + 1
        raise SystemExit(f"{name}: line {line}: absolute path left in PTX: "
                         f"{ptx.splitlines()[line - 1].strip()!r}")
    blob = _dwarf_strings(ptx)
    for needle in (b"/work/", b"/root/", b"/home/", b"/tmp/"):
        if needle in blob:
            raise SystemExit(f"{name}: absolute path {needle!r} inside a DWARF string")


# ----------------------------------------------------------------------------------------------
# PTX inspection
# ----------------------------------------------------------------------------------------------

_ENTRY = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\((.*?)\)", re.DOTALL)
_PARAM = re.compile(r"\.param\s+(?P<attrs>[^;,\n]*?)\s*(?P<name>[A-Za-z_$][\w$]*)\s*(?:\[(?P<n>\d+)\])?\s*$")


@dataclasses.dataclass
class PtxParam:
    name: str
    decl: str          # e.g. ".u64 .ptr .global .align 1" or ".align 64 .b8"
    array: int | None  # element count of a `.b8 x[N]` parameter

    @property
    def is_array(self) -> bool:
        return self.array is not None


def entry_params(ptx: str) -> tuple[str, list[PtxParam]]:
    entries = _ENTRY.findall(ptx)
    if len(entries) != 1:
        raise SystemExit(f"expected exactly one .entry, found {len(entries)}")
    name, body = entries[0]
    params = []
    for piece in body.split(","):
        piece = piece.strip()
        if not piece:
            continue
        m = _PARAM.search(piece)
        if not m:
            raise SystemExit(f"{name}: cannot read parameter {piece!r}")
        params.append(PtxParam(m.group("name"), m.group("attrs").strip(),
                               int(m.group("n")) if m.group("n") else None))
    return name, params


def ptxas_path() -> Path:
    import nvidia.cu13  # nvidia-cuda-nvcc 13.x
    return Path(list(nvidia.cu13.__path__)[0]) / "bin" / "ptxas"


def ptxas_check(name: str, ptx_file: Path) -> None:
    out = ptx_file.with_suffix(".cubin.tmp")
    proc = subprocess.run([str(ptxas_path()), "-arch=sm_100a", "-lineinfo", str(ptx_file), "-o",
                           str(out)], capture_output=True, text=True)
    out.unlink(missing_ok=True)
    if proc.returncode != 0:
        raise SystemExit(f"{name}: ptxas -arch=sm_100a rejected {ptx_file}:\n{proc.stderr}")


# ----------------------------------------------------------------------------------------------
# Numeric formats numpy lacks (bit patterns in, exact f64 values out)
# ----------------------------------------------------------------------------------------------


def f32_to_bf16_bits(x):
    """Round-to-nearest-even f32 → bf16, as uint16 bit patterns (NaN not expected in inputs)."""
    import numpy as np
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def bf16_bits_to_f64(bits):
    import numpy as np
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _e4m3_table():
    import numpy as np
    vals = np.zeros(256, dtype=np.float64)
    for b in range(256):
        s, e, m = b >> 7, (b >> 3) & 0xF, b & 7
        if e == 0xF and m == 7:
            v = np.nan
        elif e == 0:
            v = m / 8 * 2.0**-6
        else:
            v = (1 + m / 8) * 2.0**(e - 7)
        vals[b] = -v if s else v
    return vals


def e4m3_bits_to_f64(bits):
    import numpy as np
    return _e4m3_table()[np.asarray(bits, dtype=np.uint8)]


def random_e4m3_bits(rng, shape, max_abs=2.0):
    """Random e4m3 (OCP 'fn', as `.e4m3` in PTX) bit patterns with |value| <= max_abs, no NaN."""
    import numpy as np
    table = _e4m3_table()
    ok = np.flatnonzero(~np.isnan(table) & (np.abs(table) <= max_abs)).astype(np.uint8)
    return ok[rng.integers(0, len(ok), size=shape)]


E2M1_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)


def e2m1_nibbles_to_f64(nibbles):
    import numpy as np
    n = np.asarray(nibbles, dtype=np.uint8)
    mag = np.array(E2M1_VALUES)[n & 7]
    return np.where(n & 8, -mag, mag)


def e8m0_to_f64(bits):
    import numpy as np
    return np.exp2(np.asarray(bits, dtype=np.float64) - 127.0)


def tf32_exact(rng, shape, low=-1.0, high=1.0):
    """f32 values whose low 13 mantissa bits are zero: exactly representable in tf32, so the
    expected result does not depend on how the tensor core rounds f32 to tf32."""
    import numpy as np
    x = rng.uniform(low, high, size=shape).astype(np.float32)
    return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


# ----------------------------------------------------------------------------------------------
# The corpus data model: what a kernel source declares
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Input:
    """A committed input buffer (written to CASE.<buf>.npy). `array` holds the spec dtype's bit
    pattern for bf16/fp8 (uint16/uint8)."""
    array: Any
    dtype: str
    # an in-out buffer (atomics folding into initial contents): compared afterwards like Output
    expected: Any = None
    rtol: float = 0.0
    atol: float = 0.0
    why: str = ""


@dataclasses.dataclass
class Output:
    """An output buffer, zero-filled before the run, compared against `expected` afterwards."""
    dtype: str
    shape: list[int]
    expected: Any = None      # numpy array (f32 or f64), or None: not compared
    rtol: float = 0.0
    atol: float = 0.0
    why: str = ""             # the tolerance's justification, written next to it


@dataclasses.dataclass
class Random:
    """A buffer filled by tmemu with uniform random values (benchmark specs: nothing committed)."""
    dtype: str
    shape: list[int]
    seed: int
    low: float = -1.0
    high: float = 1.0


@dataclasses.dataclass
class Fill:
    dtype: str
    shape: list[int]
    fill: str = "zeros"


@dataclasses.dataclass
class Ptr:
    """A pointer argument: the device address of a named buffer."""
    buffer: str
    offset_bytes: int = 0


@dataclasses.dataclass
class Null:
    """A pointer argument that is 0."""


@dataclasses.dataclass
class HostTMA:
    """A Triton/Gluon host-side TensorDescriptor argument. Expands to the 128-byte tensor map
    parameter followed by the shape (i32 each) and strides (i64 each) scalars Triton passes.
    The box and swizzle are taken from the compiled kernel's `tensordesc_meta`.

    An im2col descriptor (Gluon's `TensorDescriptorIm2Col`, holdout batch 8) gives `lower` and
    `upper`, the pixel-box corners as Gluon takes them (outermost spatial dimension first, as
    `pixel_box_lower_corner`), and optionally `elem_strides` (tensor order); the metadata's block
    is [pixels, channels]. Triton's driver reverses all three for cuTensorMapEncodeIm2col, and
    the spec wants them innermost first too."""
    buffer: str
    lower: list[int] | None = None
    upper: list[int] | None = None
    elem_strides: list[int] | None = None


@dataclasses.dataclass
class TensorMapArg:
    """A 128-byte `.param .b8` tensor map given explicitly (CuTe DSL TMA atoms): box innermost
    dimension first, as CUDA counts.

    `elem_type` with `dims` and `strides` (the spec's explicit-dims form, innermost first, dims
    in elements of the map's type, strides in bytes) describe a map whose element type is not
    the buffer's dtype: a 4-bit packed operand (`elem_type="b4x16"`,
    CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B) over a u8 buffer holding two elements per byte, whose
    dim 0 counts nibbles (holdout batch 16, CuTe DSL NVFP4)."""
    buffer: str
    box: list[int]
    swizzle: str
    oob_fill: str = "zero"
    elem_type: str | None = None
    dims: list[int] | None = None
    strides: list[int] | None = None

    def spec_fields(self, buffer_shape, buffer_dtype: str) -> dict:
        """The `tensormap = {...}` table; checks that explicit dims cover exactly the buffer."""
        import numpy as np
        tm = {"buffer": self.buffer, "box": list(self.box), "swizzle": self.swizzle,
              "oob_fill": self.oob_fill}
        if (self.dims is None) != (self.strides is None):
            raise SystemExit(f"tensor map over {self.buffer}: give both dims and strides")
        if self.elem_type is not None:
            tm["elem_type"] = self.elem_type
        if self.dims is not None:
            if len(self.dims) != len(self.box) or len(self.strides) != len(self.dims) - 1:
                raise SystemExit(f"tensor map over {self.buffer}: dims {self.dims}, strides "
                                 f"{self.strides} and box {self.box} do not agree in rank")
            bits = TM_ELEM_BITS[self.elem_type or buffer_dtype]
            nbytes = int(np.prod(buffer_shape)) * ELEM_BYTES[buffer_dtype]
            span = self.dims[0] * bits // 8 + sum(
                (d - 1) * st for d, st in zip(self.dims[1:], self.strides))
            if span != nbytes:
                raise SystemExit(f"tensor map over {self.buffer}: dims {self.dims} and strides "
                                 f"{self.strides} span {span} bytes, the buffer has {nbytes}")
            tm["dims"] = list(self.dims)
            tm["strides"] = list(self.strides)
        return tm


@dataclasses.dataclass
class Packed:
    """A `.param .b8 x[N]` struct argument (CuTe DSL): typed fields at natural alignment."""
    fields: list[dict]
    comment: str = ""


@dataclasses.dataclass
class Case:
    """One launch of a compiled kernel: one spec file."""
    name: str                          # spec basename (also the prefix of its .npy files)
    grid: list[int]
    buffers: dict[str, Any]            # name → Input | Output | Random | Fill
    args: dict[str, Any]               # kernel argument name → scalar | Ptr | Null | HostTMA
    note: str = ""                     # a comment written at the top of the spec


@dataclasses.dataclass
class TritonKernel:
    """A @triton.jit kernel compiled with triton.compile(ASTSource(...))."""
    name: str                          # PTX basename
    fn: Any
    signature: dict[str, str]          # every argument, constexprs as "constexpr"
    constexprs: dict[str, Any]
    cases: Callable[[], list[Case]]    # built lazily: only after a successful compile
    num_warps: int = 4
    num_stages: int = 3
    num_ctas: int = 1
    # args specialised `tt.divisibility = 16`, as the JIT does for pointers aligned to 16 bytes and
    # ints divisible by 16 (triton/matmul.py's jit_divisible_args derives them with Triton's own
    # binder)
    aligned: tuple[str, ...] = ()
    must_contain: tuple[str, ...] = ("tcgen05.mma",)
    gluon: bool = False
    # further triton.compile options (e.g. clc=True, launch_pdl=True): holdout batch 6a
    options: dict = dataclasses.field(default_factory=dict)

    compiler = "triton"


@dataclasses.dataclass
class CuteKernel:
    """A CuTe DSL kernel: `build(tmpdir)` compiles it and returns (ptx_text, launch info)."""
    name: str
    build: Callable[[Path], tuple[str, dict]]
    cases: Callable[[dict], list[Case]]   # gets the launch info from build()
    must_contain: tuple[str, ...] = ("tcgen05.mma",)

    compiler = "cutedsl"


# ----------------------------------------------------------------------------------------------
# Compilation
# ----------------------------------------------------------------------------------------------

TRITON_TARGET = ("cuda", 100, 32)  # sm_100a: Triton appends the `a` for capability 100.


def compile_triton(k: TritonKernel):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    attrs = {}
    names = list(k.signature)
    for arg in k.aligned:
        attrs[(names.index(arg), )] = [["tt.divisibility", 16]]
    if k.gluon:
        from triton.experimental.gluon._runtime import GluonASTSource
        src = GluonASTSource(k.fn, k.signature, k.constexprs, attrs)
    else:
        src = ASTSource(k.fn, k.signature, k.constexprs, attrs)
    options = dict(num_warps=k.num_warps, num_stages=k.num_stages, num_ctas=k.num_ctas)
    options.update(k.options)
    compiled = triton.compile(src, target=GPUTarget(*TRITON_TARGET), options=options)
    md = compiled.metadata._asdict()
    launch = dict(
        block=[32 * md["num_warps"], 1, 1],
        num_ctas=md["num_ctas"],
        shared=md["shared"],
        global_scratch_size=md["global_scratch_size"],
        profile_scratch_size=md["profile_scratch_size"],
        tensordesc_meta=md.get("tensordesc_meta") or [],
        tmem_size=md.get("tmem_size"),
    )
    return compiled.asm["ptx"], launch


# ----------------------------------------------------------------------------------------------
# Launch spec writing
# ----------------------------------------------------------------------------------------------

NPY_DTYPES = {
    "f64": "float64", "f32": "float32", "f16": "float16", "bf16": "uint16", "fp8e4m3": "uint8",
    "fp8e5m2": "uint8", "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16",
    "i32": "int32", "u32": "uint32", "i64": "int64", "u64": "uint64",
}
ELEM_BYTES = {"f64": 8, "f32": 4, "f16": 2, "bf16": 2, "fp8e4m3": 1, "fp8e5m2": 1, "i8": 1,
              "u8": 1, "i16": 2, "u16": 2, "i32": 4, "u32": 4, "i64": 8, "u64": 8}
# bits per element of a tensor map's type: the buffer dtypes', and the packed sub-byte types a
# TensorMapArg may name (`elem_type`)
TM_ELEM_BITS = {**{k: 8 * v for k, v in ELEM_BYTES.items()}, "b4x16": 4, "b6x16_p32": 8,
                "b4x16_p64": 8, "tf32": 32, "s32": 32, "s64": 64}
SWIZZLE = {0: "none", 1: "32B", 2: "64B", 3: "128B"}  # CUtensorMapSwizzle enum → spec name


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        r = repr(v)
        return r if ("e" in r or "." in r or "inf" in r or "nan" in r) else r + ".0"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {v!r} to TOML")


class SpecWriter:
    """Builds one spec's text and the list of files it needs."""

    def __init__(self, ptx_name: str, kernel: str):
        self.head: list[str] = []
        self.buffers: list[str] = []
        self.args: list[str] = []
        self.expects: list[str] = []
        self.files: dict[str, bytes] = {}
        self.ptx_name, self.kernel = ptx_name, kernel
        self.n_args = 0

    def arg(self, fields: dict, comment: str) -> None:
        self.args.append(f"[[arg]]  # {comment}")
        for k, v in fields.items():
            self.args.append(f"{k} = {toml_value(v)}")
        self.args.append("")
        self.n_args += 1

    def text(self) -> str:
        return "\n".join(self.head + [""] + self.buffers + self.args + self.expects).rstrip() + "\n"


def npy_bytes(array) -> bytes:
    import numpy as np
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def write_case(case: Case, ptx_name: str, entry: str, params: list[PtxParam], launch: dict,
               arg_names: list[str], scratch: bool) -> tuple[str, dict[str, bytes]]:
    import numpy as np
    w = SpecWriter(ptx_name, entry)
    grid = list(case.grid) + [1] * (3 - len(case.grid))
    num_ctas = launch.get("num_ctas", 1)
    cluster = launch.get("cluster")
    if num_ctas > 1 and cluster is None:
        # Triton launches grid.x * num_ctas CTAs in clusters of (num_ctas, 1, 1).
        grid[0] *= num_ctas
        cluster = [num_ctas, 1, 1]
    if case.note:
        w.head += [f"# {line}" if line else "#" for line in case.note.splitlines()]
    w.head += ["# Generated by kernels/regen.py: do not edit.",
               f"ptx = {toml_value(ptx_name)}", f"kernel = {toml_value(entry)}",
               f"grid = {toml_value(grid)}", f"block = {toml_value(launch['block'])}"]
    if cluster is not None:
        w.head.append(f"cluster = {toml_value(cluster)}")
    w.head.append(f"shared_bytes = {launch['shared']}")

    for bname, b in case.buffers.items():
        w.buffers.append(f"[buffers.{bname}]")
        if isinstance(b, Input):
            arr = np.asarray(b.array)
            if arr.dtype != np.dtype(NPY_DTYPES[b.dtype]):
                raise SystemExit(f"{case.name}: buffer {bname}: numpy dtype {arr.dtype} does not "
                                 f"hold {b.dtype}")
            fname = f"{case.name}.{bname}.npy"
            w.files[fname] = npy_bytes(arr)
            w.buffers += [f"dtype = {toml_value(b.dtype)}", f"shape = {toml_value(list(arr.shape))}",
                          f"from = {toml_value(fname)}"]
        elif isinstance(b, Output):
            w.buffers += [f"dtype = {toml_value(b.dtype)}", f"shape = {toml_value(list(b.shape))}",
                          'fill = "zeros"']
        if isinstance(b, (Input, Output)):
            if b.expected is not None:
                exp = np.asarray(b.expected)
                shape = list(np.asarray(b.array).shape) if isinstance(b, Input) else b.shape
                if exp.dtype not in (np.float32, np.float64) or list(exp.shape) != list(shape):
                    raise SystemExit(f"{case.name}: expected {bname}: {exp.dtype}{exp.shape}")
                fname = f"{case.name}.expected.{bname}.npy"
                w.files[fname] = npy_bytes(exp)
                w.expects += ["[[expect]]", f"buffer = {toml_value(bname)}",
                              f"npy = {toml_value(fname)}"]
                why = f"  # {b.why}" if b.why else ""
                w.expects += [f"rtol = {toml_value(float(b.rtol))}{why}",
                              f"atol = {toml_value(float(b.atol))}", ""]
        elif isinstance(b, Random):
            w.buffers += [f"dtype = {toml_value(b.dtype)}", f"shape = {toml_value(list(b.shape))}",
                          "random = " + toml_value(dict(seed=b.seed, low=float(b.low),
                                                        high=float(b.high)))]
        elif isinstance(b, Fill):
            w.buffers += [f"dtype = {toml_value(b.dtype)}", f"shape = {toml_value(list(b.shape))}",
                          f"fill = {toml_value(b.fill)}"]
        else:
            raise SystemExit(f"{case.name}: buffer {bname}: unknown kind {b!r}")
        w.buffers.append("")

    def buf_of(name):
        if name not in case.buffers:
            raise SystemExit(f"{case.name}: argument refers to unknown buffer {name!r}")
        return case.buffers[name]

    descs = list(launch.get("tensordesc_meta") or [])
    for aname in arg_names:
        if aname not in case.args:
            raise SystemExit(f"{case.name}: no value for kernel argument {aname!r}")
        v = case.args[aname]
        if isinstance(v, Ptr):
            buf_of(v.buffer)
            f = {"buffer": v.buffer}
            if v.offset_bytes:
                f["offset_bytes"] = v.offset_bytes
            w.arg(f, aname)
        elif isinstance(v, Null):
            w.arg({"value": 0}, f"{aname} (null)")
        elif isinstance(v, HostTMA):
            b = buf_of(v.buffer)
            if not descs:
                raise SystemExit(f"{case.name}: {aname}: the compiler reported no tensor descriptor")
            meta = descs.pop(0)
            shape = list(b.array.shape if isinstance(b, Input) else b.shape)
            box = list(meta["block_size"])
            if meta.get("is_im2col", False) != (v.lower is not None):
                raise SystemExit(f"{case.name}: {aname}: im2col corners given for a tile "
                                 "descriptor or missing for an im2col one")
            if v.lower is not None:
                pixels, channels = box
                tm = {"buffer": v.buffer, "mode": "im2col", "lower": list(v.lower)[::-1],
                      "upper": list(v.upper)[::-1], "channels": channels, "pixels": pixels,
                      "swizzle": SWIZZLE[meta["swizzle"]], "oob_fill": "zero"}
                if v.elem_strides is not None:
                    tm["elem_strides"] = list(v.elem_strides)[::-1]
            else:
                if len(box) != len(shape):
                    raise SystemExit(f"{case.name}: {aname}: box {box} vs buffer shape {shape}")
                tm = {"buffer": v.buffer, "box": box[::-1], "swizzle": SWIZZLE[meta["swizzle"]],
                      "oob_fill": "zero"}
            w.arg({"tensormap": tm}, f"{aname}: tensor map (box innermost first, as CUDA counts)")
            for i, d in enumerate(shape):
                w.arg({"value": int(d)}, f"{aname}.shape[{i}] (i32)")
            strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
            for i, s in enumerate(strides):
                w.arg({"value": s}, f"{aname}.strides[{i}] (i64, elements)")
        elif isinstance(v, TensorMapArg):
            b = buf_of(v.buffer)
            tm = v.spec_fields(b.array.shape if isinstance(b, Input) else b.shape, b.dtype)
            w.arg({"tensormap": tm}, f"{aname}: tensor map (box innermost first, as CUDA counts)")
        elif isinstance(v, Packed):
            size = packed_size(v.fields)
            p = params[w.n_args] if w.n_args < len(params) else None
            if p is None or p.array != size:
                raise SystemExit(f"{case.name}: {aname}: packed fields take {size} bytes but the "
                                 f"parameter is {p.decl + ' [' + str(p.array) + ']' if p else 'missing'}")
            w.arg({"packed": v.fields}, f"{aname}{': ' + v.comment if v.comment else ''}")
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            w.arg({"value": v}, aname)
        else:
            raise SystemExit(f"{case.name}: {aname}: unsupported argument {v!r}")

    if scratch:
        n_ctas = int(np.prod(grid))
        for label, size in (("global_scratch", launch["global_scratch_size"]),
                            ("profile_scratch", launch["profile_scratch_size"])):
            if size == 0:
                w.arg({"value": 0}, f"{label} (Triton's; size 0 → null)")
            else:
                w.arg({"dtype": "u8", "shape": [size * n_ctas], "fill": "zeros"},
                      f"{label}: {size} bytes per CTA × {n_ctas} CTAs")

    if w.n_args != len(params):
        raise SystemExit(f"{case.name}: spec has {w.n_args} [[arg]] tables but entry {entry} has "
                         f"{len(params)} .param: " + ", ".join(p.name for p in params))
    for i, p in enumerate(params):
        is_tm = w.args and any(
            line.startswith("tensormap") or line.startswith("packed") for line in
            _arg_block(w.args, i))
        if p.is_array != bool(is_tm):
            raise SystemExit(f"{case.name}: param {i} {p.name} ({p.decl}) does not match its [[arg]]")
    text = w.text()
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise SystemExit(f"{case.name}: generated spec is not TOML: {e}\n{text}")
    return text, w.files


PACKED_BYTES = {"u8": 1, "i8": 1, "u16": 2, "i16": 2, "f16": 2, "bf16": 2, "u32": 4, "i32": 4,
                "f32": 4, "u64": 8, "i64": 8, "f64": 8, "buffer": 8}


def packed_size(fields: list[dict]) -> int:
    """Bytes a `packed = [...]` list occupies: each field at its natural alignment (the
    launch-spec rule), the total rounded up to the largest alignment."""
    off, align = 0, 1
    for f in fields:
        kind = next(iter(f))
        n = PACKED_BYTES[kind]
        off = (off + n - 1) // n * n + n
        align = max(align, n)
    return (off + align - 1) // align * align


def _arg_block(lines: list[str], index: int) -> list[str]:
    """The lines of the index-th [[arg]] table."""
    n = -1
    out = []
    for line in lines:
        if line.startswith("[[arg]]"):
            n += 1
            continue
        if n == index and line:
            out.append(line)
    return out


# ----------------------------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------------------------


def load_kernel_module(rel: str):
    """Import a kernel source by its repo-relative path, so that the compilers record that
    relative path (`.file 1 "kernels/triton/matmul.py"`) rather than an absolute one."""
    modname = "corpus_" + rel.replace("/", "_").removesuffix(".py")
    # importlib would make the file name absolute; compile() keeps exactly the name it is given,
    # and inspect/linecache (which Triton uses to read the source back) resolve it against the
    # working directory, which run() sets to the repo root.
    mod = types.ModuleType(modname)
    mod.__file__ = rel
    sys.modules[modname] = mod
    code = compile((REPO / rel).read_text(), rel, "exec", dont_inherit=True)
    exec(code, mod.__dict__)
    return mod


def kernel_sources(compiler: str) -> list[str]:
    return sorted(f"kernels/{compiler}/{p.name}" for p in (KERNELS_DIR / compiler).glob("*.py")
                  if not p.name.startswith("_"))


def generate_one(k, out_dir: Path, tmp: Path, log) -> list[str]:
    if isinstance(k, TritonKernel):
        ptx, launch = compile_triton(k)
        arg_names = [a for a, t in k.signature.items() if t != "constexpr"]
        scratch = True
        cases = k.cases()
    else:
        ptx, launch = k.build(tmp)
        arg_names = launch["arg_names"]
        scratch = False
        cases = k.cases(launch)
    ptx = rewrite_paths(ptx)
    assert_no_abs_paths(k.name, ptx)
    for needle in k.must_contain:
        if needle not in ptx:
            raise SystemExit(f"{k.name}: expected `{needle}` in the PTX; the compiler did not "
                             "lower the kernel the way this corpus entry is meant to test")
    entry, params = entry_params(ptx)
    reqntid = re.search(r"^\.reqntid\s+(\d+)(?:,\s*(\d+))?(?:,\s*(\d+))?", ptx, re.MULTILINE)
    if reqntid:
        want = [int(x or 1) for x in reqntid.groups()]
        if want != launch["block"]:
            raise SystemExit(f"{k.name}: block {launch['block']} but the PTX says .reqntid {want}")
    ptx_file = out_dir / f"{k.name}.ptx"
    ptx_file.write_text(ptx)
    ptxas_check(k.name, ptx_file)
    written = [ptx_file.name]
    if len(ptx) > MAX_PLAIN_PTX_BYTES:
        written = [write_ptx_xz(ptx_file, ptx)]
    for case in cases:
        text, files = write_case(case, ptx_file.name, entry, params, launch, arg_names, scratch)
        (out_dir / f"{case.name}.toml").write_text(text)
        written.append(f"{case.name}.toml")
        for fname, data in files.items():
            (out_dir / fname).write_bytes(data)
            written.append(fname)
    log(f"  {out_dir.name}/{k.name}: {len(params)} params, {len(cases)} spec(s), "
        f"shared={launch.get('shared')}")
    return written


def run(out_root: Path, only: set[str], log=print) -> dict[str, list[str]]:
    os.chdir(REPO)
    sys.path.insert(0, str(KERNELS_DIR))
    produced: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix="tmemu-regen-") as tmpname:
        tmp = Path(tmpname)
        clean_environment(tmp)
        for compiler in ("triton", "gluon", "cutedsl"):
            out_dir = out_root / compiler
            out_dir.mkdir(parents=True, exist_ok=True)
            files = []
            for rel in kernel_sources(compiler):
                mod = load_kernel_module(rel)
                for k in getattr(mod, "KERNELS", []):
                    if only and k.name not in only:
                        continue
                    files += generate_one(k, out_dir, tmp, log)
            produced[compiler] = files
        if (KERNELS_DIR / "holdout" / "gen.py").exists():  # tests/corpus/kernels/holdout (owned separately)
            log("  holdout: kernels/holdout/gen.py")
            produced["holdout"] = load_kernel_module("kernels/holdout/gen.py").generate(
                out_root / "holdout", tmp, log, only)
        gen_cuda = KERNELS_DIR / "gen_cuda.py"
        if gen_cuda.exists() and not only:
            log("  nvcc: kernels/gen_cuda.py")
            mod = load_kernel_module("kernels/gen_cuda.py")
            mod.generate(out_root, rewrite_paths)
        if (KERNELS_DIR / "gen_bugs.py").exists() and not only:  # tests/corpus/bugs (owned separately)
            log("  nvcc bug reproductions: kernels/gen_bugs.py")
            load_kernel_module("kernels/gen_bugs.py").generate(out_root.parent / "bugs", rewrite_paths)
        compress_large_files(out_root, produced)
    return produced


def prune(out_root: Path, produced: dict[str, list[str]], log=print) -> None:
    for compiler, files in produced.items():
        keep = set(files)
        for p in sorted((out_root / compiler).iterdir()):
            if p.is_file() and p.name not in keep:
                log(f"  removing stale {p.relative_to(REPO) if p.is_relative_to(REPO) else p}")
                p.unlink()


# PTX over this size is committed as NAME.ptx.xz (the spec still names NAME.ptx: tmemu reads
# NAME.ptx.xz when NAME.ptx is absent), so the repository stays under the 64 MiB that the
# device machine carries. xz output is a function of the text and the pinned Python's liblzma.
MAX_PLAIN_PTX_BYTES = 200 * 1024


def write_ptx_xz(ptx_file: Path, ptx: str) -> str:
    """Replaces `ptx_file` by `ptx_file`.xz; returns the new file's name."""
    import lzma
    xz = ptx_file.with_name(ptx_file.name + ".xz")
    xz.write_bytes(lzma.compress(ptx.encode(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64,
                                 preset=9))
    ptx_file.unlink()
    return xz.name


# Arrays over this size are committed as NAME.npy.gz (specs still name NAME.npy: tmemu reads
# NAME.npy.gz when NAME.npy is absent, tmemu_spec::read_maybe_gz), for the same reason as
# MAX_PLAIN_PTX_BYTES: raw, the corpus's arrays (38 MB) pushed the tree past what the device
# machine carries. gzip, not xz: every run of a corpus spec decodes its arrays, and inflate is
# ~20x cheaper per byte than the pure-Rust xz decoder (xz would save 1.2 MB more).
MAX_PLAIN_NPY_BYTES = 16 * 1024

# PTX over this size (and up to MAX_PLAIN_PTX_BYTES, which is .xz) is committed as
# NAME.ptx.gz, read by tmemu where NAME.ptx is absent (tmemu_host::read_ptx_file): the 64 MiB
# again, and gzip for the reason above (a benchmark run of a Triton matmul decodes its PTX).
MAX_PLAIN_GZ_PTX_BYTES = 64 * 1024


def compress_large_files(out_root: Path, produced: dict[str, list[str]]) -> None:
    """Replaces every `.npy` over MAX_PLAIN_NPY_BYTES and every `.ptx` over
    MAX_PLAIN_GZ_PTX_BYTES in out_root's folders by its `.gz` (compress_large_files_in), and
    renames it in `produced` (so prune keeps it)."""
    for d in sorted(p for p in out_root.iterdir() if p.is_dir()):
        renamed = compress_large_files_in(d)
        for files in produced.values():
            for old, new in renamed.items():
                if old in files:
                    files[files.index(old)] = new


def compress_large_files_in(d: Path) -> dict[str, str]:
    """Compresses the `.npy` files over MAX_PLAIN_NPY_BYTES and the `.ptx` files over
    MAX_PLAIN_GZ_PTX_BYTES in folder `d` (one level) to `.gz` (level 9, mtime 0, no file name:
    the bytes are a function of the content and zlib); returns {old name: new name}.
    kernels/holdout/gen.py calls it on its own when run standalone, so both generators commit
    the same files."""
    renamed = {}
    for pattern, limit in (("*.npy", MAX_PLAIN_NPY_BYTES), ("*.ptx", MAX_PLAIN_GZ_PTX_BYTES)):
        for f in sorted(d.glob(pattern)):
            if f.stat().st_size <= limit:
                continue
            renamed[f.name] = write_gz(f, f.read_bytes())
            f.unlink()
    return renamed


def write_gz(plain: Path, data: bytes) -> str:
    """Writes `plain`.gz holding `data` the committed way (level 9, mtime 0, no file name in
    the header, so the bytes are reproducible); returns its name."""
    import gzip
    gz = plain.with_name(plain.name + ".gz")
    gz.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    return gz.name


def read_committed_text(path: Path) -> str:
    """The text of a committed file `path`, or of `path`.gz / `path`.xz where it is absent
    (how large PTX is committed: compress_large_files_in, write_ptx_xz)."""
    if path.exists():
        return path.read_text()
    gz = path.with_name(path.name + ".gz")
    if gz.exists():
        import gzip
        return gzip.decompress(gz.read_bytes()).decode()
    import lzma
    return lzma.decompress(path.with_name(path.name + ".xz").read_bytes()).decode()


def compare_trees(a: Path, b: Path) -> list[str]:
    diffs = []
    files_a = {p.relative_to(a) for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    for rel in sorted(files_a ^ files_b):
        diffs.append(f"only in {'committed' if rel in files_a else 'regenerated'}: {rel}")
    for rel in sorted(files_a & files_b):
        if (a / rel).read_bytes() != (b / rel).read_bytes():
            diffs.append(f"differs: {rel}")
    return diffs


def selftest() -> int:
    """Checks the number-format helpers and the spec writer against independent references:
    values from the OCP FP8/MX specifications and IEEE bf16 rounding, and ml_dtypes (another
    implementation) when it is installed. Returns the number of failures."""
    import numpy as np
    fails = []

    def check(what, got, want):
        got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
        if got.shape != want.shape or not np.array_equal(got, want, equal_nan=True):
            fails.append(f"{what}: got {got.tolist()}, want {want.tolist()}")

    # OCP FP8 E4M3: bias 7, no infinities, S.1111.111 is NaN, max normal 448.
    check("e4m3", e4m3_bits_to_f64([0x00, 0x01, 0x07, 0x08, 0x38, 0x7E, 0x7F, 0x80, 0xFE]),
          [0, 2.0**-9, 7 * 2.0**-9, 2.0**-6, 1.0, 448.0, np.nan, -0.0, -448.0])
    # bf16 round-to-nearest-even: ties go to the even mantissa.
    f = np.array([0x3F800000, 0x3F808000, 0x3F818000, 0x3F808001, 0xBFC00000], dtype=np.uint32)
    check("bf16 rne", f32_to_bf16_bits(f.view(np.float32)), [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xBFC0])
    # OCP MX E2M1 and E8M0.
    check("e2m1", e2m1_nibbles_to_f64(np.arange(16)),
          [0, .5, 1, 1.5, 2, 3, 4, 6, -0.0, -.5, -1, -1.5, -2, -3, -4, -6])
    check("e8m0", e8m0_to_f64([127, 128, 120]), [1.0, 2.0, 2.0**-7])
    t = tf32_exact(np.random.default_rng(0), (1000, ))
    check("tf32 low bits", (t.view(np.uint32) & 0x1FFF).max(), 0)
    # Packed structs: natural alignment, size rounded to the largest alignment.
    check("packed", [packed_size([{"u8": 0}, {"u32": 0}]), packed_size([{"i32": 1}, {"i32": 2}]),
                     packed_size([{"buffer": "c"}, {"i32": 1}, {"i32": 2}, {"i64": 3}]),
                     packed_size([{"u8": 0}] * 3), packed_size([{"u32": 0}, {"u64": 0}])],
          [8, 8, 24, 3, 16])
    # A 4-bit packed tensor map (b4x16) over a u8 buffer of two elements per byte: dims count
    # nibbles; explicit dims must cover exactly the buffer's bytes.
    tm = TensorMapArg("a", box=[128, 128], swizzle="64B", elem_type="b4x16", dims=[256, 64],
                      strides=[128]).spec_fields((64, 128), "u8")
    if tm != {"buffer": "a", "box": [128, 128], "swizzle": "64B", "oob_fill": "zero",
              "elem_type": "b4x16", "dims": [256, 64], "strides": [128]}:
        fails.append(f"b4x16 tensor map fields: {tm}")
    for bad in (dict(dims=[128, 64], strides=[128]), dict(dims=[256, 64], strides=None)):
        try:
            TensorMapArg("a", box=[128, 128], swizzle="64B", elem_type="b4x16",
                         **bad).spec_fields((64, 128), "u8")
            fails.append(f"b4x16 tensor map {bad}: accepted, should be refused")
        except SystemExit:
            pass
    doc = tomllib.loads("x = " + toml_value({"a": [1, 2.5, "s"], "b": {"c": 1e-05}}))
    if doc != {"x": {"a": [1, 2.5, "s"], "b": {"c": 1e-05}}}:
        fails.append(f"toml_value round trip: {doc}")
    try:
        import ml_dtypes
    except ImportError:
        print("selftest: ml_dtypes not installed, cross-checks against it skipped")
    else:
        bits = np.arange(256, dtype=np.uint8)
        check("e4m3 vs ml_dtypes", e4m3_bits_to_f64(bits),
              bits.view(ml_dtypes.float8_e4m3fn).astype(np.float64))
        x = np.random.default_rng(1).standard_normal(100000).astype(np.float32)
        check("bf16 vs ml_dtypes", f32_to_bf16_bits(x),
              x.astype(ml_dtypes.bfloat16).view(np.uint16))
        check("e2m1 vs ml_dtypes", e2m1_nibbles_to_f64(np.arange(16)),
              np.arange(16, dtype=np.uint8).view(ml_dtypes.float4_e2m1fn).astype(np.float64))
    for f in fails:
        print("selftest FAIL:", f)
    print(f"selftest: {len(fails)} failure(s)")
    return len(fails)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary folder and compare with the committed corpus")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="only this kernel (PTX basename); may repeat; skips pruning and CUDA")
    ap.add_argument("--selftest", action="store_true",
                    help="check the number-format helpers and the spec writer, then exit")
    args = ap.parse_args(argv)
    if args.selftest:
        return 1 if selftest() else 0
    check_versions()
    # Kernel sources say `from regen import ...`: make that this very module.
    sys.modules.setdefault("regen", sys.modules[__name__])
    only = set(args.only)
    if args.check:
        with tempfile.TemporaryDirectory(prefix="tmemu-regen-check-") as d:
            out = Path(d) / "kernels"
            produced = run(out, only)
            if only:
                diffs = [f"differs: {c}/{f}" for c, fs in produced.items() for f in fs
                         if (CORPUS / c / f).read_bytes() != (out / c / f).read_bytes()]
            else:
                diffs = []
                for c in produced:
                    diffs += compare_trees(CORPUS / c, out / c)
                if (out / "nvcc").exists():
                    diffs += compare_trees(CORPUS / "nvcc", out / "nvcc")
        if diffs:
            print("regen.py --check: the corpus is not reproduced byte for byte:")
            print("\n".join("  " + d for d in diffs))
            return 1
        print("regen.py --check: corpus reproduced byte for byte")
        return 0
    produced = run(CORPUS, only)
    if not only:
        prune(CORPUS, produced)
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter teardown: Triton's nanobind bindings report "leaked instances" there,
    # which is noise, not a result.
    os._exit(code)
