#!/usr/bin/env python3
"""Results do not depend on --threads: every launch spec of the corpus under `tmemu run`, and
the bug reproductions under `tmemu check`, with --threads 1 and --threads N (and the default,
which is every available core). Compared: exit code, the JSON report (findings, expects,
verdict), and the bytes of every buffer after the run (each spec is copied with `save` added
to every buffer and its relative paths made absolute).

    python3 bench/threads_same.py [TMEMU] [N]     (defaults: target/release/tmemu, 4)

Prints one line per difference and a summary; exits 1 if anything differs.
"""
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TMEMU = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/release/tmemu")
N = sys.argv[2] if len(sys.argv) > 2 else "4"
PATH_KEY = re.compile(r'^(ptx|from|npy)\s*=\s*"([^"]+)"', re.M)
BUFFER = re.compile(r"^\[buffers\.([A-Za-z0-9_]+)\]\s*$", re.M)


def copy_with_saves(spec: Path, out: Path) -> Path:
    text = spec.read_text()
    text = PATH_KEY.sub(lambda m: f'{m.group(1)} = "{(spec.parent / m.group(2)).resolve()}"', text)
    text = BUFFER.sub(lambda m: f'{m.group(0)}\nsave = "{out / (m.group(1) + ".npy")}"', text)
    out.mkdir(parents=True, exist_ok=True)
    p = out / "spec.toml"
    p.write_text(text)
    return p


def run(cmd, spec: Path, threads, out: Path):
    args = [TMEMU, cmd, str(spec), "--format", "json", "--quiet"]
    if threads is not None:
        args += ["--threads", threads]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600)
    # JSON lines carry no timing; keep stdout as is
    saved = {f.name: f.read_bytes() for f in sorted(out.glob("*.npy"))}
    for f in out.glob("*.npy"):
        f.unlink()
    return p.returncode, p.stdout, saved


def main() -> int:
    specs = sorted(ROOT.glob("tests/corpus/**/*.toml"))
    bugs = sorted(ROOT.glob("tests/corpus/bugs/**/*.toml"))
    diffs, runs, atomics = [], 0, 0
    with tempfile.TemporaryDirectory(prefix="tmemu-threads-") as d:
        for cmd, group in (("run", specs), ("check", bugs)):
            for i, spec in enumerate(group):
                rel = spec.relative_to(ROOT)
                out = Path(d) / f"{cmd}{i}"
                copy = copy_with_saves(spec, out)
                ptx = re.search(r'^ptx\s*=\s*"([^"]+)"', copy.read_text(), re.M)
                if ptx and re.search(r"\b(atom|red)\.(global\.)?", Path(ptx.group(1)).read_text()
                                     if Path(ptx.group(1)).exists() else ""):
                    atomics += cmd == "run"
                base = run(cmd, copy, "1", out)
                for t in (N, None):
                    got = run(cmd, copy, t, out)
                    runs += 1
                    label = f"--threads {t}" if t else "default threads"
                    if got[0] != base[0]:
                        diffs.append(f"{cmd} {rel}: exit {base[0]} with 1 thread, {got[0]} with {label}")
                    if got[1] != base[1]:
                        diffs.append(f"{cmd} {rel}: JSON report differs with {label}")
                    if got[2] != base[2]:
                        names = sorted(k for k in set(got[2]) | set(base[2])
                                       if got[2].get(k) != base[2].get(k))
                        diffs.append(f"{cmd} {rel}: buffers {names} differ with {label}")
    for line in diffs:
        print(line)
    print(f"threads_same: {len(specs)} specs under run, {len(bugs)} under check "
          f"({atomics} run specs use atomics), {runs} comparisons against --threads 1 "
          f"(N = {N} and the default, {os.cpu_count()} CPUs here): {len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
