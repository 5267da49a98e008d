#!/usr/bin/env python3
"""Regenerate the nvcc part of the kernel corpus (tests/corpus/kernels/nvcc).

For every CUDA C++ file kernels/cuda/<family>.cu:
  * compile it with the pinned nvcc to PTX (`-arch=sm_100a -ptx -lineinfo`, `.loc` kept),
  * rewrite the absolute paths in `.file` directives (callback from kernels/regen.py, or the
    built-in rewrite when run standalone),
  * assemble the PTX with `ptxas -arch=sm_100a` (the output is discarded: it only proves the
    PTX is accepted),
and for every kernel case declared in kernels/cuda/nvcases_<family>.py write
  * <family>.<kernel>.toml           the launch spec (/work/shared/launch-spec.md)
  * <family>.<kernel>.<buf>.npy      inputs, made by numpy with a fixed seed
  * <family>.<kernel>.expected.<buf>.npy   expected outputs, computed by numpy from the PTX ISA
                                     semantics (kernels/cuda/nvref_*.py), never by tmemu.

Usage:  python kernels/gen_cuda.py [--out tests/corpus/kernels] [--coverage]
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

from nvcase import Case  # noqa: E402  (kernels/cuda/nvcase.py)

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
    """Standalone stand-in for kernels/regen.py's rewrite_paths, with the same results for
    the paths nvcc embeds: repo files become repo-relative, installed packages
    `<site-packages>/...`."""
    try:
        return pathlib.Path(path).relative_to(REPO).as_posix()
    except ValueError:
        pass
    head, sep, tail = path.partition("/site-packages/")
    if sep:
        return "<site-packages>/" + tail
    return pathlib.PurePosixPath(path).name


def rewrite_file_directives(ptx: str, rewrite: Callable[[str], str]) -> str:
    out = []
    for line in ptx.splitlines(keepends=True):
        stripped = line.lstrip()
        if stripped.startswith(".file"):
            head, q1, rest = line.partition('"')
            path, q2, tail = rest.partition('"')
            line = f'{head}"{rewrite(os.path.normpath(path))}"{tail}'
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


# Every instruction form the corpus must cover (corpus-cuda brief), as a regex over PTX lines.
COVERAGE = [
    ("tcgen05.alloc.cta_group::1 .shared::cta", r"tcgen05\.alloc\.cta_group::1\.sync\.aligned\.shared::cta\.b32"),
    ("tcgen05.alloc.cta_group::1 generic dst", r"tcgen05\.alloc\.cta_group::1\.sync\.aligned\.b32"),
    ("tcgen05.alloc.cta_group::2", r"tcgen05\.alloc\.cta_group::2\."),
    ("tcgen05.dealloc.cta_group::1", r"tcgen05\.dealloc\.cta_group::1\."),
    ("tcgen05.dealloc.cta_group::2", r"tcgen05\.dealloc\.cta_group::2\."),
    ("tcgen05.relinquish_alloc_permit.cta_group::1", r"tcgen05\.relinquish_alloc_permit\.cta_group::1"),
    ("tcgen05.relinquish_alloc_permit.cta_group::2", r"tcgen05\.relinquish_alloc_permit\.cta_group::2"),
    ("tcgen05.commit (generic address)", r"tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one\.b64"),
    ("tcgen05.commit .shared::cluster", r"tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one\.shared::cluster\.b64"),
    ("tcgen05.commit .multicast::cluster + ctaMask", r"tcgen05\.commit\.cta_group::2\.mbarrier::arrive::one\.shared::cluster\.multicast::cluster\.b64 \[%r\d+\], %rs\d+"),
    ("tcgen05.cp .128x256b", r"tcgen05\.cp\.cta_group::1\.128x256b \["),
    ("tcgen05.cp .4x256b", r"tcgen05\.cp\.cta_group::1\.4x256b \["),
    ("tcgen05.cp .128x128b", r"tcgen05\.cp\.cta_group::1\.128x128b \["),
    ("tcgen05.cp .64x128b.warpx2::02_13", r"\.64x128b\.warpx2::02_13"),
    ("tcgen05.cp .64x128b.warpx2::01_23", r"\.64x128b\.warpx2::01_23"),
    ("tcgen05.cp .32x128b.warpx4", r"\.32x128b\.warpx4"),
    ("tcgen05.cp .b8x16.b6x16_p32", r"\.b8x16\.b6x16_p32"),
    ("tcgen05.cp .b8x16.b4x16_p64", r"\.b8x16\.b4x16_p64"),
    ("tcgen05.ld .16x64b", r"tcgen05\.ld\.sync\.aligned\.16x64b\.x\d+\.b32"),
    ("tcgen05.ld .16x128b", r"tcgen05\.ld\.sync\.aligned\.16x128b\.x\d+\.b32"),
    ("tcgen05.ld .16x256b", r"tcgen05\.ld\.sync\.aligned\.16x256b\.x\d+\.b32"),
    ("tcgen05.ld .32x32b", r"tcgen05\.ld\.sync\.aligned\.32x32b\.x\d+\.b32"),
    ("tcgen05.ld .16x32bx2 + immHalfSplitoff", r"tcgen05\.ld\.sync\.aligned\.16x32bx2\.x\d+\.b32 \{.*\}, \[%r\d+\], \d+;"),
    ("tcgen05.ld .pack::16b", r"tcgen05\.ld\..*\.pack::16b"),
    ("tcgen05.st .16x64b", r"tcgen05\.st\.sync\.aligned\.16x64b"),
    ("tcgen05.st .16x128b", r"tcgen05\.st\.sync\.aligned\.16x128b"),
    ("tcgen05.st .16x256b", r"tcgen05\.st\.sync\.aligned\.16x256b"),
    ("tcgen05.st .32x32b", r"tcgen05\.st\.sync\.aligned\.32x32b"),
    ("tcgen05.st .16x32bx2 + immHalfSplitoff", r"tcgen05\.st\.sync\.aligned\.16x32bx2\.x\d+(\.unpack::16b)?\.b32 \[%r\d+\], \d+, \{"),
    ("tcgen05.st .unpack::16b", r"tcgen05\.st\..*\.unpack::16b"),
    ("tcgen05.ld .x1", r"tcgen05\.ld\.sync\.aligned\.\w+\.x1\."),
    ("tcgen05.ld .x2", r"tcgen05\.ld\.sync\.aligned\.\w+\.x2\."),
    ("tcgen05.ld .x4", r"tcgen05\.ld\.sync\.aligned\.\w+\.x4\."),
    ("tcgen05.ld .x8", r"tcgen05\.ld\.sync\.aligned\.\w+\.x8\."),
    ("tcgen05.ld .x16", r"tcgen05\.ld\.sync\.aligned\.\w+\.x16\."),
    ("tcgen05.ld .x32", r"tcgen05\.ld\.sync\.aligned\.\w+\.x32\."),
    ("tcgen05.wait::ld", r"tcgen05\.wait::ld\.sync\.aligned"),
    ("tcgen05.wait::st", r"tcgen05\.wait::st\.sync\.aligned"),
    ("tcgen05.shift.cta_group::1.down", r"tcgen05\.shift\.cta_group::1\.down"),
    ("tcgen05.fence::before_thread_sync", r"tcgen05\.fence::before_thread_sync"),
    ("tcgen05.fence::after_thread_sync", r"tcgen05\.fence::after_thread_sync"),
    ("tcgen05.mma .kind::f16 (A smem)", r"tcgen05\.mma\.cta_group::1\.kind::f16 \[%r\d+\], %rd"),
    ("tcgen05.mma .kind::f16 (A in TMEM)", r"tcgen05\.mma\.cta_group::1\.kind::f16 \[%r\d+\], \[%r"),
    ("tcgen05.mma .kind::tf32", r"tcgen05\.mma\.cta_group::1\.kind::tf32"),
    ("tcgen05.mma .kind::f8f6f4", r"tcgen05\.mma\.cta_group::1\.kind::f8f6f4"),
    ("tcgen05.mma .kind::i8", r"tcgen05\.mma\.cta_group::1\.kind::i8"),
    ("tcgen05.mma .kind::mxf8f6f4.block_scale", r"tcgen05\.mma\.cta_group::1\.kind::mxf8f6f4\.block_scale"),
    ("tcgen05.mma .cta_group::2 (M=256)", r"tcgen05\.mma\.cta_group::2\.kind::f16"),
    ("mbarrier.init", r"mbarrier\.init\."),
    ("mbarrier.arrive (local, state)", r"mbarrier\.arrive\.shared::cta\.b64 %rd"),
    ("mbarrier.arrive (remote, shared::cluster)", r"mbarrier\.arrive\.release\.cluster\.shared::cluster\.b64 _"),
    ("mbarrier.arrive.expect_tx", r"mbarrier\.arrive\.expect_tx\."),
    ("mbarrier.try_wait.parity", r"mbarrier\.try_wait\.parity\."),
    ("barrier.cluster.arrive / wait", r"barrier\.cluster\.(arrive|wait)"),
    ("elect.sync", r"elect\.sync"),
    ("mapa", r"mapa\.shared::cluster"),
    ("fence.proxy.async", r"fence\.proxy\.async"),
    ("cp.async.bulk (non-tensor) + complete_tx", r"cp\.async\.bulk\.shared::cta\.global\.mbarrier::complete_tx::bytes"),
    ("fma.rn.f32", r"fma\.rn\.f32"),
    ("ex2.approx.f32", r"ex2\.approx"),
    ("rsqrt.approx.f32", r"rsqrt\.approx"),
    ("sqrt.rn.f32", r"sqrt\.rn\.f32"),
    ("cvt f32<->int, f16, bf16", r"cvt\.(rzi\.s32\.f32|rn\.f32\.s32|rn\.f16\.f32|rn\.bf16\.f32)"),
    ("bar.sync", r"bar(rier)?\.sync"),
    ("shfl.sync", r"shfl\.sync"),
    ("atom.global add/max/cas", r"atom\.(relaxed\.gpu\.)?global\.(add|max|cas)"),
]


def entry_lines(ptx: str) -> dict[str, list[str]]:
    """Lines of each .entry (from its header to the next .entry)."""
    out: dict[str, list[str]] = {}
    cur = None
    for line in ptx.splitlines():
        if ".entry" in line:
            cur = line.split("(")[0].split()[-1]
            out[cur] = []
        elif cur:
            out[cur].append(line)
    return out


def coverage(ptx_by_family: dict[str, str]) -> list[tuple[str, list[str]]]:
    import re

    rows = []
    for form, pattern in COVERAGE:
        rx = re.compile(pattern)
        hits = [f"{fam}.{entry}" for fam, ptx in ptx_by_family.items()
                for entry, lines in entry_lines(ptx).items() if any(rx.search(l) for l in lines)]
        rows.append((form, hits))
    return rows


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
    ptx_by_family = {}
    for family in FAMILIES:
        ptx = compile_family(bin_dir, family, rewrite)
        ptx_by_family[family] = ptx
        (out_dir / f"{family}.ptx").write_text(ptx)
        entries = {l.split("(")[0].split()[-1] for l in ptx.splitlines() if ".entry" in l}
        cases = importlib.import_module(f"nvcases_{family}").cases()
        for case in cases:
            if case.kernel not in entries:
                sys.exit(f"gen_cuda: {family}.ptx has no entry {case.kernel}")
            write_case(out_dir, family, case)
        missing = entries - {c.kernel for c in cases}
        if missing:
            sys.exit(f"gen_cuda: entries without a launch spec in {family}: {sorted(missing)}")
        print(f"gen_cuda: {family}: {len(cases)} kernels")
    uncovered = [form for form, hits in coverage(ptx_by_family) if not hits]
    if uncovered:
        sys.exit(f"gen_cuda: instruction forms not covered by any kernel: {uncovered}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=str(REPO / "tests" / "corpus" / "kernels"))
    ap.add_argument("--coverage", action="store_true",
                    help="print the instruction form -> kernel table (markdown) of the committed PTX")
    args = ap.parse_args()
    if args.coverage:
        nvcc_dir = pathlib.Path(args.out) / "nvcc"
        from regen import read_committed_text  # both families are committed as .ptx.gz
        ptx = {f: read_committed_text(nvcc_dir / f"{f}.ptx") for f in FAMILIES}
        print("| instruction form | kernels |\n|---|---|")
        for form, hits in coverage(ptx):
            shown = ", ".join(hits[:4]) + (f" (+{len(hits) - 4} more)" if len(hits) > 4 else "")
            print(f"| `{form}` | {shown or '**MISSING**'} |")
        return
    generate(pathlib.Path(args.out))


if __name__ == "__main__":
    main()
