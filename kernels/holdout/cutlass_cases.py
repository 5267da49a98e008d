"""CUTLASS C++ part of the holdout set (batch 5a): kernels/holdout/cutlass/*.cu, our own
instantiations of CUTLASS 4.2's SM100 GEMM (GemmUniversal + the SM100 CollectiveBuilders, the
default persistent tile scheduler, which uses Cluster Launch Control), compiled by the pinned
nvcc to PTX (`-arch=sm_100a -ptx -lineinfo -O3 -DNDEBUG`, as a release build of a CUTLASS
user's code) and checked by ptxas.

CUTLASS passes one `Params` struct by value, with TMA descriptors that its host code builds with
cuTensorMapEncodeTiled. The launch spec is made from CUTLASS's own host code: params_dump.cpp
(built here with nvcc, run on this machine, no GPU) calls GemmUniversal::to_underlying_arguments
/ get_grid_shape / get_block_shape and prints the Params bytes, where the pointers and tensor
maps sit (found by tagging: the pointers are distinctive fake addresses, and a stub
cuTensorMapEncodeTiled records its arguments and tags each map), and what each map asked the
driver for. The spec writes the struct field by field (`packed`), with each map as a
`tensormap` field in tmemu's encoding over the buffer it describes; the generator checks that
the map tmemu will build from the buffer's shape has the dims, strides, box and swizzle CUTLASS
asked for.

Expected outputs: numpy in f64 from inputs on a 1/4 grid, so every product and partial sum is
exact in f32 (|D| < 2^11 with 1/16 resolution needs 15 significant bits): tolerance 0.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np

from regen import (REPO, assert_no_abs_paths, entry_params, npy_bytes, ptxas_check,
                   rewrite_paths, toml_value)

SRC = REPO / "kernels" / "holdout" / "cutlass"
NVCC_FLAGS = ["-arch=sm_100a", "-ptx", "-lineinfo", "-std=c++17", "-O3", "-DNDEBUG",
              "--expt-relaxed-constexpr"]

# name, source, params_dump key, M, N, K, A/B dtype, seed, what it varies
KERNELS = [
    ("ho5_cutlass_f16_1sm", "gemm_f16_1sm.cu", "f16_1sm", 256, 256, 256, "f16", 5001,
     "f16, 1-SM UMMA 128x128x64 (cta_group::1), cluster 1x1, TMA loads, TMA-store epilogue, "
     "CLC persistent scheduler: 4 tiles, 4 clusters"),
    ("ho5_cutlass_bf16_2sm", "gemm_bf16_2sm.cu", "bf16_2sm", 512, 256, 128, "bf16", 5002,
     "bf16, 2-SM UMMA 256x128x64 (cta_group::2: pair allocation, multicast commit) over "
     "clusters of 2x1, TMA loads split over the pair, TMA-store epilogue, CLC scheduler with "
     "multicast responses: 4 tiles, 4 clusters of 2"),
    ("ho5_cutlass_e4m3_1sm", "gemm_e4m3_1sm.cu", "e4m3_1sm", 256, 256, 256, "fp8e4m3", 5003,
     "fp8 e4m3, 1-SM UMMA kind::f8f6f4 128x64x128 over clusters of 1x2 (each CTA loads half "
     "of the A tile and multicasts it to both), epilogue from TMEM through registers straight "
     "to global memory (no shared memory, no TMA store), CLC scheduler with multicast "
     "responses: 8 tiles, 4 clusters of 2"),
]

# Batch 6b (kernels6.h, gemm6_*.cu): name, source, params_dump key, M, N, K, A/B dtype, seed,
# what it varies. The expected outputs stay exact: see _case6.
KERNELS6 = [
    ("ho6_cutlass_bf16_2sm_c4", "gemm6_bf16_2sm_c4.cu", "bf16_2sm_c4", 320, 128, 192, "bf16",
     6002,
     "bf16, 2-SM UMMA 256x128x64 (cta_group::2) over clusters of **4x1**: two CTA pairs per "
     "cluster share the B tile by TMA multicast, CLC scheduler, TMA-store epilogue; M = 320 "
     "leaves the second pair 64 valid rows (TMA zero fill on load, clipped store): 2 tiles, "
     "1 cluster of 4"),
    ("ho6_cutlass_f16_bias_relu", "gemm6_f16_bias_relu.cu", "f16_bias_relu", 256, 192, 128,
     "f16", 6003,
     "f16 -> **f16** with a fused epilogue (EVT LinCombPerColBiasEltAct<ReLu>): D = "
     "relu(0.5 * acc + bias[n]), an f32 bias vector broadcast along the columns, 1-SM "
     "128x64x64, TMA-store epilogue: 6 tiles"),
]

# Batch 6b kernels that tmemu check finds a PTX ISA violation in (CUTLASS's code, not ours):
# written to tests/corpus/kernels/holdout_bugs/ (crates/host/tests/holdout.rs COMPILER_BUGS).
KERNELS6_BUGS = [
    ("ho6_cutlass_mxf8", "gemm6_mxf8.cu", "mxf8", 128, 256, 256, "fp8e4m3", 6001,
     "MXFP8: e4m3 x e4m3 with a ue8m0 scale factor per 32 K on each operand "
     "(OpClassBlockScaledTensorOp, kind::mxf8f6f4.block_scale, scale factors by TMA into shared "
     "memory and by tcgen05.cp into TMEM), 1-SM 128x128x128, CLC scheduler, f32 out by TMA "
     "store: 2 tiles"),
    ("ho6_cutlass_f16_splitk", "gemm6_f16_splitk.cu", "f16_splitk", 128, 256, 384, "f16", 6004,
     "f16, the **stream-K tile scheduler** in split-K mode (3 splits of 2 K tiles each, "
     "deterministic reduction): partial accumulators through a global workspace with "
     "turnstile flags, 1-SM 128x128x64, TMA-store epilogue: 2 tiles x 3 splits"),
    ("ho6_cutlass_mxf8_2sm", "gemm6_mxf8_2sm.cu", "mxf8_2sm", 256, 128, 256, "fp8e4m3", 6005,
     "MXFP8 block-scaled on a **2-SM UMMA** 256x128x128 (cta_group::2) over clusters of 2x1: "
     "scale factors by tcgen05.cp.cta_group::2, kind::mxf8f6f4.block_scale, CLC scheduler, "
     "f32 out by TMA store: 1 tile, 1 cluster of 2"),
]

# Nothing pending: `ho6_cutlass_mxf8_2sm` (wrong numbers in batch 6b: tmemu read scale_B of a
# cta_group::2 MMA by the CTA-local N index) joined KERNELS6_BUGS in batch 8, when the engine
# began reading it by the global N index.
KERNELS6_PENDING = []

VIEW_MAPS = ("sfa", "sfb")   # buffers whose maps carry CUTLASS's own dims and strides
CU_DTYPE = {0: "u8", 1: "u16", 6: "f16", 7: "f32", 9: "bf16"}   # CUtensorMapDataType → tmemu elem
CU_SWIZZLE = {0: "none", 1: "32B", 2: "64B", 3: "128B"}
CU_L2 = {0: "none", 1: "64B", 2: "128B", 3: "256B"}


def _site() -> Path:
    import nvidia.cu13  # the pinned nvidia-cuda-nvcc wheel
    return Path(nvidia.cu13.__path__[0]).parent.parent


def _includes() -> list[str]:
    sp = _site()
    return [f"-I{sp / 'cutlass_library/source/include'}",
            f"-I{sp / 'cutlass_library/source/tools/util/include'}",
            f"-I{sp / 'nvidia/cu13/include/cccl'}"]


def _nvcc() -> str:
    return str(_site() / "nvidia/cu13/bin/nvcc")


def _env() -> dict:
    env = dict(os.environ)
    env["PATH"] = str(_site() / "nvidia/cu13/bin") + os.pathsep + env.get("PATH", "")
    return env


def _compile(src: Path, tmp: Path) -> str:
    out = tmp / (src.stem + ".ptx")
    cmd = [_nvcc(), *NVCC_FLAGS, *_includes(), str(src), "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=SRC)
    if r.returncode != 0:
        raise SystemExit(f"nvcc failed on {src.name}:\n{r.stderr[-4000:]}")
    return rewrite_paths(out.read_text())


def _params_dump(tmp: Path) -> Path:
    exe = tmp / "ho5_params_dump"
    if not exe.exists():
        sp = _site()
        cmd = [_nvcc(), "-x", "cu", "-std=c++17", "-arch=sm_100a", "--expt-relaxed-constexpr",
               "-w", "-DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL=1", *_includes(),
               f"-L{sp / 'nvidia/cu13/lib'}", str(SRC / "params_dump.cpp"), "-o", str(exe)]
        r = subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=SRC)
        if r.returncode != 0:
            raise SystemExit(f"params_dump.cpp failed to build:\n{r.stderr[-4000:]}")
    return exe


def _dump(exe: Path, key: str, m: int, n: int, k: int) -> dict:
    """params_dump's JSON. Some Params bytes are copied from the host stack (the padding after
    4-byte members of the epilogue's arguments, and the unused 128-byte C-load descriptor when
    there is no C source), so they change from run to run with address-space randomisation:
    the dump runs four times and every 4-byte word that differs between runs, which no field
    that the kernel reads owns, is written as 0 (deterministic specs)."""
    runs = []
    for _ in range(4):
        r = subprocess.run([str(exe), key, str(m), str(n), str(k)], capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise SystemExit(f"params_dump {key}: {r.stderr}")
        runs.append(json.loads(r.stdout))
    raws = [bytearray.fromhex(x["bytes"]) for x in runs]
    out = raws[0]
    varying = [w for w in range(0, len(out), 4) if any(r[w:w + 4] != out[w:w + 4] for r in raws)]
    if len(varying) > 64:
        raise SystemExit(f"params_dump {key}: {len(varying)} words differ between runs")
    for w in varying:
        out[w:w + 4] = bytes(4)
    runs[0]["bytes"] = out.hex()
    runs[0]["varying"] = varying
    return runs[0]


def _buffer_map(shape: list[int], elem_bytes: int) -> tuple[list[int], list[int]]:
    """What tmemu's tensormap builds from a row-major buffer: dims innermost first and the
    byte strides of dims 1.. (docs/launch-spec.md)."""
    dims = shape[::-1]
    strides, s = [], elem_bytes
    for d in dims[:-1]:
        s *= d
        strides.append(s)
    return dims, strides


def _packed_fields(dump: dict, buffers: dict[str, list[int]], elem_bytes: dict[str, int],
                   map_elem: dict[str, str]) -> list[tuple[dict, str]]:
    """The Params bytes as packed fields (value, comment). `map_elem`: the tensor-map element
    type each buffer travels as."""
    raw = bytes.fromhex(dump["bytes"])
    size = dump["sizeof"]
    ptrs = {v: k for k, v in dump["ptrs"].items()}
    tag = dump["map_tag"]
    names = {v: k for k, v in dump["fields"].items()}
    fields: list[tuple[dict, str]] = []
    off = 0
    while off < size:
        note = f"+{off}" + (f" {names[off]}" if off in names else "")
        w64 = int.from_bytes(raw[off:off + 8], "little") if off % 8 == 0 and off + 8 <= size \
            else None
        if off % 64 == 0 and w64 == tag:
            idx = int.from_bytes(raw[off + 8:off + 16], "little")
            m = dump["maps"][idx]
            buf = ptrs.get(m["addr"])
            if buf is None:
                raise SystemExit(f"tensor map {idx} over an unknown address {m['addr']:#x}")
            view = buf in VIEW_MAPS
            dims, strides = _buffer_map(buffers[buf], elem_bytes[buf])
            if view:
                # batch 6b: CUTLASS's scale-factor maps view the flat scale buffer as (256 x u16
                # atoms, MN atoms, K atoms, L) with strides out of order: the spec gives its
                # dims and strides explicitly (`dims` / `strides`, docs/launch-spec.md)
                dims, strides = m["dims"], m["strides"]
            # CUTLASS gives a batch (L) stride of 0 when L = 1; a stride of a dimension of
            # extent 1 never enters an address (its only coordinate is 0), so only the others
            # must agree with the buffer's
            if m["dims"] != dims or any(a != b for a, b, d in zip(m["strides"], strides, dims[1:])
                                        if d > 1):
                raise SystemExit(f"map {idx} over {buf}: CUTLASS asks dims {m['dims']} strides "
                                 f"{m['strides']}, the buffer gives {dims} {strides}")
            if any(e != 1 for e in m["estr"]) or m["interleave"] != 0 or m["oob"] != 0:
                raise SystemExit(f"map {idx}: unexpected element strides/interleave/oob {m}")
            if CU_DTYPE[m["dtype"]] != map_elem[buf] and not view:
                raise SystemExit(f"map {idx}: element type {m['dtype']} over {buf} "
                                 f"({map_elem[buf]})")
            tm = {"buffer": buf, "box": m["box"], "swizzle": CU_SWIZZLE[m["swizzle"]],
                  "l2_promotion": CU_L2[m["l2"]]}
            if view:
                tm.update(elem_type=CU_DTYPE[m["dtype"]], dims=m["dims"], strides=m["strides"])
            fields.append(({"tensormap": tm}, note + f" tensor map {idx} (cuTensorMapEncodeTiled"
                                                     f" dims {m['dims']} box {m['box']})"))
            off += 128
        elif w64 is not None and w64 in ptrs:
            fields.append(({"buffer": ptrs[w64]}, note + " pointer"))
            off += 8
        else:
            why = " (host stack bytes, zeroed)" if off in dump.get("varying", ()) else ""
            fields.append(({"u32": int.from_bytes(raw[off:off + 4], "little")}, note + why))
            off += 4
    return fields


def _write_spec(name: str, ptx_name: str, entry: str, dump: dict, note: str,
                inputs: dict[str, np.ndarray], dtypes: dict[str, str], expected: np.ndarray,
                why: str, out_dtype: str = "f32",
                zeros: dict[str, tuple[str, list[int], str]] | None = None
                ) -> tuple[str, dict[str, bytes]]:
    """`zeros`: further zero-filled buffers (name -> dtype, shape, comment), e.g. a workspace."""
    files: dict[str, bytes] = {}
    lines = [f"# {line}" for line in note.splitlines()]
    lines += ["# Generated by kernels/holdout/cutlass_cases.py: do not edit.",
              f"ptx = {toml_value(ptx_name)}", f"kernel = {toml_value(entry)}",
              f"grid = {toml_value(dump['grid'])}", f"block = {toml_value(dump['block'])}",
              f"cluster = {toml_value(dump['cluster'])}",
              f"shared_bytes = {dump['shared_bytes']}", ""]
    shapes: dict[str, list[int]] = {}
    ebytes = {"f16": 2, "bf16": 2, "f32": 4, "fp8e4m3": 1}
    for b, arr in inputs.items():
        fname = f"{name}.{b}.npy"
        files[fname] = npy_bytes(arr)
        shapes[b] = list(arr.shape)
        lines += [f"[buffers.{b}]", f"dtype = {toml_value(dtypes[b])}",
                  f"shape = {toml_value(list(arr.shape))}", f"from = {toml_value(fname)}", ""]
    shapes["d"] = list(expected.shape)
    lines += ["[buffers.d]", f"dtype = {toml_value(out_dtype)}",
              f"shape = {toml_value(list(expected.shape))}", 'fill = "zeros"', ""]
    all_types = {**dtypes, "d": out_dtype}
    for b, (t, shape, comment) in (zeros or {}).items():
        shapes[b] = shape
        all_types[b] = t
        lines += [f"[buffers.{b}]  # {comment}", f"dtype = {toml_value(t)}",
                  f"shape = {toml_value(shape)}", 'fill = "zeros"', ""]
    ebytes["u8"] = 1
    # fp8 has no tensor-map type of its own: it travels as u8 (docs/launch-spec.md)
    map_elem = {b: {"f16": "f16", "bf16": "bf16", "f32": "f32", "fp8e4m3": "u8", "u8": "u8"}[t]
                for b, t in all_types.items()}
    fields = _packed_fields(dump, shapes, {b: ebytes[t] for b, t in all_types.items()}, map_elem)
    lines.append(f"[[arg]]  # {entry}'s Params ({dump['sizeof']} bytes), field by field from "
                 "CUTLASS's to_underlying_arguments")
    lines.append("packed = [")
    for f, comment in fields:
        lines.append(f"  {toml_value(f)},  # {comment}")
    lines += ["]", ""]
    files[f"{name}.expected.d.npy"] = npy_bytes(expected)
    lines += ["[[expect]]", 'buffer = "d"', f"npy = {toml_value(name + '.expected.d.npy')}",
              f"rtol = 0.0  # {why}", "atol = 0.0", ""]
    return "\n".join(lines), files


def _case(key: str, m: int, n: int, k: int, ty: str, seed: int):
    rng = np.random.default_rng(seed)
    # multiples of 1/4 in [-2, 2]: exact in f16 and bf16; products are multiples of 1/16 and
    # |partial sums| <= K * 4, so every sum is exact in f32 whatever the order
    a = rng.integers(-8, 9, size=(1, m, k)) / 4
    b = rng.integers(-8, 9, size=(1, n, k)) / 4
    d = np.einsum("lmk,lnk->lmn", a, b).astype(np.float32)
    if ty == "f16":
        bits = lambda x: x.astype(np.float16)  # noqa: E731
    elif ty == "fp8e4m3":
        from regen import _e4m3_table
        table = _e4m3_table()
        # every multiple of 1/4 in [-2, 2] is an e4m3 value: look up its bit pattern (the
        # positive encoding of 0)
        code = {float(v): b for b, v in reversed(list(enumerate(table))) if not np.isnan(v)}
        bits = lambda x: np.vectorize(lambda v: code[float(v)])(x).astype(np.uint8)  # noqa
    else:
        from regen import f32_to_bf16_bits
        bits = lambda x: f32_to_bf16_bits(x.astype(np.float32))  # noqa: E731
    return {"a": bits(a), "b": bits(b)}, {"a": ty, "b": ty}, d


def _strip_inline_names(name: str, ptx: str) -> str:
    """Batch 6b: drop the inlining annotations of `.loc` (`, function_name $L__info_stringN,
    inlined_at F L C`) and the `.debug_str` section that holds those names. CUTLASS's inlined
    call chains make that section ~90% of the PTX (1.4 MB for 5,000 lines of code); without it
    a kernel is ~110 KB, under the repository's 200 KB limit for uncompressed files. Every
    instruction and every `.loc` file/line/column stays; ptxas checks the result."""
    i = ptx.find("\t.section\t.debug_str")
    if i < 0:
        raise SystemExit(f"{name}: no .debug_str section in nvcc's output")
    body = ptx[:i].rstrip("\n") + "\n"
    out = re.sub(r"(\.loc\t\d+ \d+ \d+), function_name \$L__info_string\d+"
                 r"(, inlined_at \d+ \d+ \d+)?", r"\1", body)
    if "$L__info_string" in out:
        raise SystemExit(f"{name}: an inlining annotation this generator does not know")
    return out


def _e4m3_bits(x: np.ndarray) -> np.ndarray:
    from regen import _e4m3_table
    table = _e4m3_table()
    code = {float(v): b for b, v in reversed(list(enumerate(table))) if not np.isnan(v)}
    return np.vectorize(lambda v: code[float(v)])(x).astype(np.uint8)


def _case6(key: str, m: int, n: int, k: int, ty: str, seed: int, dump: dict):
    """Inputs, dtypes, expected output, tolerance note, output dtype and zero-filled buffers of
    a batch 6b kernel. Inputs are multiples of 1/4 in [-2, 2] as in batch 5a."""
    inputs, dtypes, d = _case(key, m, n, k, ty, seed)
    rng = np.random.default_rng(seed + 100)   # scales and bias; A and B come from _case
    why = "inputs on a 1/4 grid: every partial sum exact in f32"
    out, zeros = "f32", {}
    if key.startswith("mxf8"):
        # ue8m0 scales 2^-2 .. 2^2 (codes 125 .. 129), one per (row, 32 K); CUTLASS's layout
        # (Sm1xxBlkScaledConfig, offsets printed by params_dump) places them in the buffers.
        vec = dump["sf_vec"]
        kb = k // vec
        ea = rng.integers(-2, 3, size=(m, kb))
        eb = rng.integers(-2, 3, size=(n, kb))
        sfa = np.full(dump["sfa_size"], 127, dtype=np.uint8)
        sfb = np.full(dump["sfb_size"], 127, dtype=np.uint8)
        sfa[np.asarray(dump["sfa_offsets"]).reshape(m, kb)] = (127 + ea).astype(np.uint8)
        sfb[np.asarray(dump["sfb_offsets"]).reshape(n, kb)] = (127 + eb).astype(np.uint8)
        r = np.random.default_rng(seed)   # _case's draws, as values
        av = r.integers(-8, 9, size=(1, m, k)) / 4
        bv = r.integers(-8, 9, size=(1, n, k)) / 4
        sa = np.repeat(2.0 ** ea, vec, axis=1)   # (m, k)
        sb = np.repeat(2.0 ** eb, vec, axis=1)   # (n, k)
        d = np.einsum("mk,nk->mn", av[0] * sa, bv[0] * sb)[None].astype(np.float32)
        inputs.update(sfa=sfa, sfb=sfb)
        dtypes.update(sfa="u8", sfb="u8")
        why = ("scaled products are multiples of 2^-8 and |partial sums| < 2^15: at most 23 "
               "significant bits, exact in f32")
    elif key == "f16_bias_relu":
        bias = (rng.integers(-64, 65, size=(n,)) / 4).astype(np.float32)
        inputs["bias"] = bias
        dtypes["bias"] = "f32"
        # alpha * acc + bias is exact in f32 (a multiple of 1/32 below 2^11: 16 bits); relu
        # is exact; one f16 rounding (numpy's, round to nearest even) is CUTLASS's conversion
        # (FloatRoundStyle::round_to_nearest)
        d = np.maximum(0.5 * d.astype(np.float64) + bias.astype(np.float64), 0.0)
        d = d.astype(np.float16).astype(np.float32)
        out = "f16"
        why = ("acc exact in f32, 0.5 * acc + bias exact in f32, then one round-to-nearest "
               "f16 conversion, reproduced by numpy")
    elif key == "f16_splitk":
        zeros["w"] = ("u8", [dump["workspace"]],
                      "stream-K workspace (partial tiles, then the turnstile flags that "
                      "initialize_workspace zeroes)")
        why = ("inputs on a 1/4 grid: every partial sum exact in f32, so the split order does "
               "not matter")
    return inputs, dtypes, d, why, out, zeros


MAX_PLAIN_BYTES = 200 * 1024


def _generate6(todo6, out_dir: Path, tmp: Path, log, exe: Path) -> list[str]:
    """Batch 6b kernels: compile, strip the inlining names, check with ptxas, write the spec."""
    written: list[str] = []
    for name, src, key, m, n, k, ty, seed, what in todo6:
        ptx = _strip_inline_names(name, _compile(SRC / src, tmp))
        assert_no_abs_paths(name, ptx)
        entry, params = entry_params(ptx)
        ptx_file = tmp / f"{name}.ptx"
        ptx_file.write_text(ptx)
        ptxas_check(name, ptx_file)
        if len(ptx) > MAX_PLAIN_BYTES:
            # over the repository's limit for uncompressed files: committed as NAME.ptx.xz,
            # which tmemu reads when NAME.ptx is absent (tmemu_host::load_ptx_file)
            import lzma
            (out_dir / f"{name}.ptx.xz").write_bytes(
                lzma.compress(ptx.encode(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64,
                              preset=9))
            written.append(f"{name}.ptx.xz")
        else:
            (out_dir / f"{name}.ptx").write_text(ptx)
            written.append(f"{name}.ptx")
        dump = _dump(exe, key, m, n, k)
        if len(params) != 1 or params[0].array != dump["sizeof"]:
            raise SystemExit(f"{name}: entry params {params} vs sizeof(Params) {dump['sizeof']}")
        inputs, dtypes, expected, why, out, zeros = _case6(key, m, n, k, ty, seed, dump)
        note = (f"CUTLASS 4.2 SM100 GEMM (kernels/holdout/cutlass/{src}, kernels6.h), "
                f"D[{m}x{n}] = A[{m}x{k}] . B[{n}x{k}]^T, {out} out.\n{what}.\nGrid, block, "
                "cluster and shared bytes from CUTLASS's get_grid_shape / get_block_shape / "
                "SharedStorageSize (params_dump.cpp).")
        text, files = _write_spec(name, ptx_file.name, entry, dump, note, inputs, dtypes,
                                  expected, why, out, zeros)
        (out_dir / f"{name}.toml").write_text(text)
        written.append(f"{name}.toml")
        for f, data in files.items():
            (out_dir / f).write_bytes(data)
            written.append(f)
        log(f"  holdout/{name}: Params {dump['sizeof']} bytes, grid {dump['grid']} cluster "
            f"{dump['cluster']} (CUTLASS)")
    return written


def generate_bugs(bugs_dir: Path, tmp: Path, log=print, only=None) -> list[str]:
    """The batch 6b kernels whose CUTLASS code tmemu reports a PTX ISA violation in
    (KERNELS6_BUGS), written to holdout_bugs/ beside the clean set."""
    todo = [k for k in KERNELS6_BUGS if not only or k[0] in only]
    if not todo:
        return []
    bugs_dir.mkdir(parents=True, exist_ok=True)
    return _generate6(todo, bugs_dir, tmp, log, _params_dump(tmp))


def generate(out_dir: Path, tmp: Path, log=print, only=None) -> list[str]:
    written: list[str] = []
    todo6 = [k for k in KERNELS6 if not only or k[0] in only]
    todo = [k for k in KERNELS if not only or k[0] in only]
    if not todo and not todo6:
        return written
    exe = _params_dump(tmp)
    for name, src, key, m, n, k, ty, seed, what in todo:
        ptx = _compile(SRC / src, tmp)
        assert_no_abs_paths(name, ptx)
        entry, params = entry_params(ptx)
        ptx_file = out_dir / f"{name}.ptx"
        ptx_file.write_text(ptx)
        ptxas_check(name, ptx_file)
        written.append(ptx_file.name)
        dump = _dump(exe, key, m, n, k)
        if len(params) != 1 or params[0].array != dump["sizeof"]:
            raise SystemExit(f"{name}: entry params {params} vs sizeof(Params) {dump['sizeof']}")
        inputs, dtypes, expected = _case(key, m, n, k, ty, seed)
        note = (f"CUTLASS 4.2 SM100 GEMM (kernels/holdout/cutlass/{src}), D[{m}x{n}] = A[{m}x{k}]"
                f" . B[{n}x{k}]^T, f32 out.\n{what}.\nGrid, block, cluster and shared bytes "
                "from CUTLASS's get_grid_shape / get_block_shape / SharedStorageSize "
                "(params_dump.cpp).")
        text, files = _write_spec(name, ptx_file.name, entry, dump, note, inputs, dtypes,
                                  expected, "inputs on a 1/4 grid: every partial sum exact in f32")
        (out_dir / f"{name}.toml").write_text(text)
        written.append(f"{name}.toml")
        for f, data in files.items():
            (out_dir / f).write_bytes(data)
            written.append(f)
        log(f"  holdout/{name}: Params {dump['sizeof']} bytes, grid {dump['grid']} cluster "
            f"{dump['cluster']} (CUTLASS)")
    written += _generate6(todo6, out_dir, tmp, log, exe)
    return written
