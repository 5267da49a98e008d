#!/usr/bin/env python3
"""Regenerate the nvcc part of the kernel corpus (tests/corpus/kernels/nvcc).

For every CUDA C++ file kernels/cuda/<family>.cu:
  * compile it with the pinned nvcc to PTX (`-arch=sm_100a -ptx -lineinfo`, `.loc` kept),
  * rewrite the absolute paths in `.file` directives (callback from kernels/regen.py, or the
    built-in rewrite when run standalone),
  * assemble the PTX with `ptxas -arch=sm_100a` (the output is discarded: it only proves the
    PTX is accepted),
and for every kernel case declared in kernels/cuda/cases_<family>.py write
  * <family>.<kernel>.toml           the launch spec (/work/shared/launch-spec.md)
  * <family>.<kernel>.<buf>.npy      inputs, made by numpy with a fixed seed
  * <family>.<kernel>.expected.<buf>.npy   expected outputs, computed by numpy from the PTX ISA
                                     semantics (kernels/cuda/ref_*.py), never by tmemu.

Usage:  python kernels/gen_cuda.py [--out tests/corpus/kernels] [--check]
Deterministic: running it twice gives byte-identical files.
"""
from __future__ import annotations

import argparse
import importlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from typing import Callable

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
CUDA_DIR = HERE / "cuda"
sys.path.insert(0, str(CUDA_DIR))

from case import Case  # noqa: E402  (kernels/cuda/case.py)

FAMILIES = ["plain", "tmem_ldst", "tmem_cp", "tmem_mma", "tmem_pair"]
NVCC_FLAGS = ["-arch=sm_100a", "-ptx", "-lineinfo", "-std=c++17"]


def find_cuda_bin() -> pathlib.Path:
    """The bin dir of the nvidia-cuda-nvcc wheel (nvidia/cu13/bin), or $TMEMU_CUDA_BIN."""
    env = os.environ.get("TMEMU_CUDA_BIN")
    if env:
        return pathlib.Path(env)
    try:
        import nvidia  # namespace package from the nvidia-* wheels

        for root in nvidia.__path__:
            cand = pathlib.Path(root) / "cu13" / "bin"
            if (cand / "nvcc").exists():
                return cand
    except ImportError:
        pass
    cand = pathlib.Path("/work/kvenv/lib/python3.11/site-packages/nvidia/cu13/bin")
    if (cand / "nvcc").exists():
        return cand
    sys.exit("gen_cuda: cannot find nvcc; pip install nvidia-cuda-nvcc or set TMEMU_CUDA_BIN")


def default_rewrite(path: str) -> str:
    """Repo files become repo-relative; toolkit headers become `<cuda>/include/...`."""
    norm = os.path.normpath(path)
    try:
        rel = pathlib.Path(norm).relative_to(REPO)
        return rel.as_posix()
    except ValueError:
        pass
    parts = pathlib.PurePosixPath(norm).parts
    if "include" in parts:
        i = len(parts) - 1 - parts[::-1].index("include")
        return "<cuda>/" + "/".join(parts[i:])
    return pathlib.PurePosixPath(norm).name


def rewrite_file_directives(ptx: str, rewrite: Callable[[str], str]) -> str:
    out = []
    for line in ptx.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith(".file"):
            head, q1, rest = line.partition('"')
            path, q2, tail = rest.partition('"')
            line = f'{head}"{rewrite(path)}"{tail}'
        out.append(line)
    return "".join(out)


def compile_family(bin_dir: pathlib.Path, family: str, rewrite: Callable[[str], str]) -> str:
    src = CUDA_DIR / f"{family}.cu"
    with tempfile.TemporaryDirectory() as tmp:
        ptx_path = pathlib.Path(tmp) / f"{family}.ptx"
        cmd = [str(bin_dir / "nvcc"), *NVCC_FLAGS, f"-I{CUDA_DIR}", str(src), "-o", str(ptx_path)]
        subprocess.run(cmd, check=True, cwd=REPO)
        ptx = rewrite_file_directives(ptx_path.read_text(), rewrite)
        # ptxas must accept exactly the text we commit.
        final = pathlib.Path(tmp) / "final.ptx"
        final.write_text(ptx)
        subprocess.run([str(bin_dir / "ptxas"), "-arch=sm_100a", str(final), "-o",
                        str(pathlib.Path(tmp) / "out.cubin")], check=True)
    if "/work/" in ptx or any(l.lstrip().startswith('.file') and '"/' in l for l in ptx.splitlines()):
        sys.exit(f"gen_cuda: absolute path left in {family}.ptx")
    return ptx


def save_npy(path: pathlib.Path, arr: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.save(f, np.ascontiguousarray(arr), allow_pickle=False)


def write_case(out_dir: pathlib.Path, family: str, case: Case) -> list[str]:
    stem = f"{family}.{case.kernel}"
    files = []
    for name, buf in case.buffers.items():
        if buf.data is not None:
            fname = f"{stem}.{name}.npy"
            save_npy(out_dir / fname, buf.data)
            buf.source = fname
            files.append(fname)
    for exp in case.expects:
        fname = f"{stem}.expected.{exp.buffer}.npy"
        save_npy(out_dir / fname, exp.data)
        exp.npy = fname
        files.append(fname)
    toml = case.to_toml(ptx=f"{family}.ptx")
    (out_dir / f"{stem}.toml").write_text(toml)
    files.append(f"{stem}.toml")
    return files


def generate(out_root: pathlib.Path, rewrite_paths: Callable[[str], str] | None = None) -> None:
    """Entry point used by kernels/regen.py: writes out_root/'nvcc'."""
    rewrite = rewrite_paths or default_rewrite
    out_dir = pathlib.Path(out_root) / "nvcc"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    bin_dir = find_cuda_bin()
    for family in FAMILIES:
        ptx = compile_family(bin_dir, family, rewrite)
        (out_dir / f"{family}.ptx").write_text(ptx)
        entries = {l.split("(")[0].split()[-1] for l in ptx.splitlines() if ".entry" in l}
        cases = importlib.import_module(f"cases_{family}").cases()
        for case in cases:
            if case.kernel not in entries:
                sys.exit(f"gen_cuda: {family}.ptx has no entry {case.kernel}")
            write_case(out_dir, family, case)
        missing = entries - {c.kernel for c in cases}
        if missing:
            sys.exit(f"gen_cuda: entries without a launch spec in {family}: {sorted(missing)}")
        print(f"gen_cuda: {family}: {len(cases)} kernels")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "tests" / "corpus" / "kernels"))
    args = ap.parse_args()
    generate(pathlib.Path(args.out))


if __name__ == "__main__":
    main()
