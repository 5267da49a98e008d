#!/usr/bin/env python3
"""Generate the holdout corpus: tests/corpus/kernels/holdout/.

A second, independent set of real compiler output (Triton, Gluon, CuTe DSL, nvcc) that the engine
was not developed against. It varies what the compilers choose (tile shapes, stage and warp
counts, operand majorness, MMA kinds and M, TMEM load shapes, pipelines, epilogues) so that a
kernel passing here shows the engine implements the PTX ISA rather than the main corpus.

Called by kernels/regen.py (so `regen.py` and `regen.py --check` cover it); it reuses regen.py's
compile, spec-writing and ptxas checks (`generate_one`: every PTX must pass
`ptxas -arch=sm_100a -lineinfo`). Kernel sources: kernels/holdout/{triton,gluon,cute}_*.py
(each exposes KERNELS, like kernels/triton/*.py, and may expose COMPILER_BUGS: compiler output
with a real race that tmemu reports, written to tests/corpus/kernels/holdout_bugs/) and
kernels/holdout/*.cu with their cases in kernels/holdout/nvcc_cases.py.

    kernels/.venv/bin/python kernels/regen.py            # everything, holdout included
    kernels/.venv/bin/python kernels/holdout/gen.py      # the holdout set alone
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent

SOURCE_PREFIXES = ("triton_", "gluon_", "cute_")


def sources() -> list[str]:
    return sorted(f"kernels/holdout/{p.name}" for p in HERE.glob("*.py")
                  if p.name.startswith(SOURCE_PREFIXES))


def generate(out_dir: Path, tmp: Path, log=print, only: set[str] | None = None) -> list[str]:
    """Compile every holdout kernel into out_dir; returns the file names written (for pruning
    and for `--check`). Must run inside regen.py's clean environment."""
    import regen
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    for rel in sources():
        mod = regen.load_kernel_module(rel)
        for k in getattr(mod, "KERNELS", []):
            if only and k.name not in only:
                continue
            written += regen.generate_one(k, out_dir, tmp, log)
    nv = regen.load_kernel_module("kernels/holdout/nvcc_cases.py")
    written += nv.generate(out_dir, tmp, log, only)
    # batch 5a: CUTLASS C++ SM100 GEMMs (kernels/holdout/cutlass/, cutlass_cases.py)
    cl = regen.load_kernel_module("kernels/holdout/cutlass_cases.py")
    written += cl.generate(out_dir, tmp, log, only)
    # batch 6b: CUTLASS kernels with a violation tmemu reports go to holdout_bugs/
    cl_bugs = cl.generate_bugs(bugs_dir(out_dir), tmp, log, only)
    generate_bugs(bugs_dir(out_dir), tmp, log, only, keep=cl_bugs)
    return written


def bugs_dir(out_dir: Path) -> Path:
    """Compiler output with a real bug that tmemu reports (COMPILER_BUGS of the kernel sources):
    tests/corpus/kernels/holdout_bugs, beside (not inside) the holdout set, whose tests demand
    zero findings."""
    return out_dir.parent / "holdout_bugs"


def generate_bugs(out_dir: Path, tmp: Path, log=print, only: set[str] | None = None,
                  keep: list[str] = ()) -> list[str]:
    """`keep`: files already written there by another generator (CUTLASS), spared by the prune."""
    import regen
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[str] = list(keep)
    for rel in sources():
        mod = regen.load_kernel_module(rel)
        for k in getattr(mod, "COMPILER_BUGS", []):
            if only and k.name not in only:
                continue
            written += regen.generate_one(k, out_dir, tmp, log)
    if not only:
        regen.prune(out_dir.parent, {out_dir.name: written}, log)
    return written


def main() -> int:
    """Standalone: regenerate (or with --check, compare) the holdout set only."""
    import argparse
    import tempfile
    sys.path.insert(0, str(REPO / "kernels"))
    import regen
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--only", action="append", default=[])
    args = ap.parse_args()
    regen.check_versions()
    out_root = regen.CORPUS / "holdout"
    only = set(args.only)
    with tempfile.TemporaryDirectory(prefix="tmemu-holdout-") as d:
        tmp = Path(d)
        import os
        os.chdir(REPO)
        regen.clean_environment(tmp)
        out = tmp / "out" if args.check else out_root
        files = generate(out, tmp, print, only)
        # as regen.py's run() does after every generator: arrays over 16 KiB, PTX over 64 KiB as .gz
        renamed = regen.compress_large_files_in(out)
        files = [renamed.get(f, f) for f in files]
        if bugs_dir(out).is_dir():
            regen.compress_large_files_in(bugs_dir(out))
        if args.check:
            diffs = [f for f in files if (out_root / f).read_bytes() != (out / f).read_bytes()]
            if not only:
                diffs += regen.compare_trees(out_root, out)
                diffs += regen.compare_trees(bugs_dir(out_root), bugs_dir(out))
            print("\n".join(diffs) or "holdout: reproduced byte for byte")
            return 1 if diffs else 0
        if not only:
            regen.prune(out_root.parent, {"holdout": files})
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    import os
    os._exit(code)
