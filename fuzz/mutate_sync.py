#!/usr/bin/env python3
"""Take one synchronisation out of correct compiler output and see whether `tmemu check` notices.

    python fuzz/mutate_sync.py [--only SUBSTRING] [--per-class N] [--tmemu PATH] [--out FILE]

Every corpus kernel the tests demand be clean (tests/corpus/kernels/{triton,gluon,cutedsl,nvcc,
holdout}) is correct: it waits, fences, commits and frees what it must. This removes one such
instruction at a time (or makes one wait succeed at once) and runs `tmemu check` on the mutant.
The checker should then report a violation, a hang or a wrong result; a mutant it calls `clean`
is a *survivor*, which is either

  * a redundant synchronisation (the compiler emitted one more than the ISA needs, e.g. a
    `bar.sync` between two phases that share no data, or a `tcgen05.wait::st` whose stores
    nothing reads before the next wait), or
  * a checker miss: the ISA requires the instruction and tmemu does not say so.

Survivors are listed at the end with the place and the removed line; telling the two apart is
a person's job (docs/arch/check.md, "Survivors of the synchronisation mutations", keeps the
verdicts). A survivor is also often redundant only for the launch the spec makes (one K
iteration, two tiles per CTA): the dynamic checker judges the execution it runs. Mutations:

  drop      fence.proxy.async, tcgen05.wait::ld / ::st, tcgen05.commit, tcgen05.dealloc,
            tcgen05.relinquish_alloc_permit, tcgen05.fence::before/after_thread_sync,
            bar.sync / barrier.sync, barrier.cluster.arrive / .wait, cp.async.wait_group /
            wait_all, cp.async.bulk.wait_group(.read), fence.mbarrier_init, mbarrier.arrive,
            membar / fence.acq_rel / fence.sc
  satisfy   an mbarrier.try_wait / test_wait becomes `mov.pred P, 1` (the wait succeeds at once)

Slow (one `tmemu check` per mutant): outside CI. Deterministic.
"""
from __future__ import annotations

import argparse
import importlib.util
import lzma
import gzip
import pathlib
import re
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "corpus" / "kernels"

_spec = importlib.util.spec_from_file_location("mutate_run", REPO / "fuzz" / "mutate_run.py")
mutate_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutate_run)

PRED = r"(?:@!?%?\w+\s+)?"
DROPS = [
    ("fence.proxy.async", r"fence\.proxy\.async"),
    ("tcgen05.wait::ld", r"tcgen05\.wait::ld"),
    ("tcgen05.wait::st", r"tcgen05\.wait::st"),
    ("tcgen05.commit", r"tcgen05\.commit"),
    ("tcgen05.dealloc", r"tcgen05\.dealloc"),
    ("tcgen05.relinquish_alloc_permit", r"tcgen05\.relinquish_alloc_permit"),
    ("tcgen05.fence::before_thread_sync", r"tcgen05\.fence::before_thread_sync"),
    ("tcgen05.fence::after_thread_sync", r"tcgen05\.fence::after_thread_sync"),
    ("bar.sync", r"(?:bar|barrier)\.(?:sync|cta\.sync)\b"),
    ("barrier.cluster.arrive", r"barrier\.cluster\.arrive"),
    ("barrier.cluster.wait", r"barrier\.cluster\.wait"),
    ("cp.async.wait", r"cp\.async\.(?:wait_group|wait_all)"),
    ("cp.async.bulk.wait_group", r"cp\.async\.bulk\.wait_group"),
    ("fence.mbarrier_init", r"fence\.mbarrier_init"),
    ("mbarrier.arrive", r"mbarrier\.arrive(?!\.expect_tx)"),
    ("membar/fence", r"(?:membar\.|fence\.(?:acq_rel|sc)\b)"),
]
WAIT = re.compile(r"^(\s*)mbarrier\.(?:try_wait|test_wait)[\w.:]*\s+(%?\w+)\s*(?:\|\s*\w+)?\s*,")


def mutants(lines: list[str], per_class: int):
    """(label, line number, removed text, mutated lines) for each mutation site, at most
    per_class sites per class (spread over the file: first, last, and between)."""
    def spread(sites):
        if len(sites) <= per_class:
            return sites
        step = (len(sites) - 1) / (per_class - 1) if per_class > 1 else 0
        return [sites[round(i * step)] for i in range(per_class)]

    for label, pat in DROPS:
        rx = re.compile(r"^\s*" + PRED + pat)
        sites = [i for i, l in enumerate(lines) if rx.match(l) and l.rstrip().endswith(";")]
        for i in spread(sites):
            yield f"drop {label}", i + 1, lines[i].strip(), lines[:i] + [""] + lines[i + 1:]
    sites = [i for i, l in enumerate(lines) if WAIT.match(l)]
    for i in spread(sites):
        m = WAIT.match(lines[i])
        yield ("satisfy mbarrier wait", i + 1, lines[i].strip(),
               lines[:i] + [f"{m.group(1)}mov.pred {m.group(2)}, 1;"] + lines[i + 1:])


def read_ptx(path: pathlib.Path) -> str | None:
    for p, opener in ((path, open), (path.with_name(path.name + ".xz"), lzma.open),
                      (path.with_name(path.name + ".gz"), gzip.open)):
        if p.exists():
            with opener(p, "rt", errors="replace") as f:
                return f.read()
    return None


def corpus_specs(only: str) -> list[tuple[pathlib.Path, pathlib.Path]]:
    out = []
    for d in ("triton", "gluon", "cutedsl", "nvcc", "holdout"):
        for spec in sorted((CORPUS / d).glob("*.toml")):
            if only not in str(spec) or "bench" in spec.name:
                continue
            m = re.search(r'^ptx\s*=\s*"([^"]+)"', spec.read_text(errors="replace"), re.M)
            if m:
                out.append((spec, spec.parent / m.group(1)))
    return out


VERDICT = {0: "clean", 1: "violation", 2: "bad input", 3: "hang", 4: "incomplete"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tmemu", default=str(REPO / "target" / "release" / "tmemu"))
    ap.add_argument("--only", default="", help="substring a spec path must contain")
    ap.add_argument("--per-class", type=int, default=2, help="sites per mutation class and kernel")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--out", default=None, help="write every mutant's result here (TSV)")
    args = ap.parse_args()
    seen_ptx: set[str] = set()
    rows, survivors = [], []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tmemu-mutsync-") as tmp:
        tmpd = pathlib.Path(tmp)
        for spec, ptx_path in corpus_specs(args.only):
            text = read_ptx(ptx_path)
            # one spec per PTX: the mutation is of the kernel, not the launch
            if text is None or str(ptx_path) in seen_ptx:
                continue
            seen_ptx.add(str(ptx_path))
            base = subprocess.run([args.tmemu, "check", str(spec), "--jobs", "1"],
                                  capture_output=True, text=True, timeout=args.timeout)
            if base.returncode != 0:
                print(f"{spec.relative_to(REPO)}: not clean unmutated (exit {base.returncode}); "
                      "skipped", flush=True)
                continue
            lines = text.splitlines()
            for label, lineno, removed, mlines in mutants(lines, args.per_class):
                mutant = tmpd / "mutant.ptx"
                mutant.write_text("\n".join(mlines) + "\n")
                mspec = tmpd / "spec.toml"
                mutate_run.SPEC_TEXT[spec] = spec.read_text()
                mspec.write_text(mutate_run.spec_for(spec, mutant))
                try:
                    r = subprocess.run([args.tmemu, "check", str(mspec), "--jobs", "1"],
                                       capture_output=True, text=True, timeout=args.timeout)
                    verdict = VERDICT.get(r.returncode, f"exit {r.returncode}")
                    out = r.stdout + r.stderr
                except subprocess.TimeoutExpired:
                    verdict, out = "timeout", ""
                rules = sorted(set(re.findall(r"\bTM\d{4}\b", out)))
                failed_expect = "FAILED" in out
                row = (str(spec.relative_to(REPO)), label, lineno, verdict,
                       ",".join(rules) + (" +wrong result" if failed_expect else ""), removed)
                rows.append(row)
                # a warning (e.g. TM0019 for a dropped relinquish) still names the mutation
                if verdict == "clean" and not rules and not failed_expect:
                    survivors.append(row)
                print("\t".join(map(str, row)), flush=True)
    if args.out:
        pathlib.Path(args.out).write_text("\n".join("\t".join(map(str, r)) for r in rows) + "\n")
    caught = len(rows) - len(survivors)
    print(f"\n{len(rows)} mutants: {caught} reported, {len(survivors)} clean "
          f"({time.monotonic() - t0:.0f} s)")
    for r in survivors:
        print(f"survivor: {r[0]}:{r[2]} {r[1]}: {r[5]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
