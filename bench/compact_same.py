#!/usr/bin/env python3
"""Register compaction changes nothing: every launch spec of the corpus under `tmemu run`, and
the bug reproductions under `tmemu check`, with compaction off (`TMEMU_REG_COMPACT=0`) and on
(the default). Compared: exit code, the JSON report (findings, expects, verdict), stderr, and
the bytes of every buffer after the run (each spec copied with `save` added to every buffer,
as `threads_same.py` does).

    python3 bench/compact_same.py [TMEMU] [THREADS]     (defaults: target/release/tmemu, 2)

Prints one line per difference and a summary; exits 1 if anything differs.
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from threads_same import ROOT, copy_with_saves  # noqa: E402

TMEMU = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "target/release/tmemu")
THREADS = sys.argv[2] if len(sys.argv) > 2 else "2"


def run(cmd, spec: Path, compact: bool, out: Path):
    env = dict(os.environ, TMEMU_REG_COMPACT="1" if compact else "0")
    args = [TMEMU, cmd, str(spec), "--format", "json", "--quiet", "--threads", THREADS]
    p = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
    saved = {f.name: f.read_bytes() for f in sorted(out.glob("*.npy"))}
    for f in out.glob("*.npy"):
        f.unlink()
    return p.returncode, p.stdout, p.stderr, saved


def main() -> int:
    specs = sorted(ROOT.glob("tests/corpus/**/*.toml")) + sorted(
        ROOT.glob("crates/cli/tests/data/**/*.toml"))
    bugs = sorted(ROOT.glob("tests/corpus/bugs/**/*.toml"))
    diffs, runs = [], 0
    with tempfile.TemporaryDirectory(prefix="tmemu-compact-") as d:
        for cmd, group in (("run", specs), ("check", bugs)):
            for i, spec in enumerate(group):
                rel = spec.relative_to(ROOT)
                out = Path(d) / f"{cmd}{i}"
                try:
                    copy = copy_with_saves(spec, out)
                except UnicodeDecodeError:
                    continue  # a spec-parser test's bad bytes: no kernel to compare

                off = run(cmd, copy, False, out)
                on = run(cmd, copy, True, out)
                runs += 1
                for k, what in enumerate(("exit code", "JSON report", "stderr", "buffers")):
                    if off[k] != on[k]:
                        diffs.append(f"{cmd} {rel}: {what} differs with compaction")
    for line in diffs:
        print(line)
    print(f"compact_same: {len(specs)} specs under run, {len(bugs)} under check, "
          f"{runs} comparisons (off vs on, --threads {THREADS}): {len(diffs)} differences")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
