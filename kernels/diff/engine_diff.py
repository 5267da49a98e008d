#!/usr/bin/env python3
"""Runs the recorded H100 differential cases through the tmemu engine and compares bit for bit.

For every `diff_arith` case of tests/corpus/diff/h100/manifest.json this launches
tests/corpus/diff/harness.sm_90a.ptx (kernel diff_arith(case, in, out, n)) under `tmemu run`
with the case's recorded inputs and compares the saved output with the H100's. Cases whose
model in crates/num/tests/ops_vs_h100.rs has an error bound (the .approx instructions) are
reported with their maximum ulp distance instead of failing.

Usage: kernels/diff/engine_diff.py [--tmemu PATH] [--only SUBSTRING] [--keep DIR]
Exit status: 0 when every exact case matches, 1 otherwise, 2 on usage errors.
Needs numpy (the kvenv has it).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "corpus", "diff")
KERNEL = "_Z10diff_arithiPKmPvi"
BLOCK = 128


def approx(name):
    return ".approx" in name or name.startswith("div.full")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tmemu", default=os.path.join(ROOT, "target", "release", "tmemu"))
    ap.add_argument("--only", default="")
    ap.add_argument("--keep", default=None)
    args = ap.parse_args()
    man = json.load(open(os.path.join(CORPUS, "h100", "manifest.json")))
    n = man["n"]
    inputs = np.fromfile(os.path.join(CORPUS, "h100", "inputs.bin"), dtype="<u8")
    outputs = open(os.path.join(CORPUS, "h100", "outputs.bin"), "rb").read()
    work = args.keep or tempfile.mkdtemp(prefix="tmemu-diff-")
    os.makedirs(work, exist_ok=True)
    for c in man["classes"]:
        off = c["offset"] // 8
        np.save(os.path.join(work, c["name"] + ".npy"), inputs[off : off + 4 * n])
    arith = [(k, c) for k, c in enumerate(man["cases"]) if c["kernel"] == "diff_arith"]
    failed, incomplete, passed = [], [], 0
    for k, c in arith:
        if args.only and args.only not in c["name"]:
            continue
        spec = os.path.join(work, "case.toml")
        out = os.path.join(work, "out.npy")
        with open(spec, "w") as f:
            f.write(
                f'ptx = "{os.path.join(CORPUS, "harness.sm_90a.ptx")}"\n'
                f'kernel = "{KERNEL}"\ngrid = [{n // BLOCK}]\nblock = [{BLOCK}]\n\n'
                f"[[arg]]\nvalue = {k}\n\n"
                f'[[arg]]\ndtype = "u64"\nshape = [{4 * n}]\nfrom = "{c["class"]}.npy"\n\n'
                f'[[arg]]\ndtype = "u64"\nshape = [{n}]\nfill = "zeros"\nsave = "out.npy"\n\n'
                f"[[arg]]\nvalue = {n}\n"
            )
        r = subprocess.run([args.tmemu, "run", spec], capture_output=True, text=True)
        if r.returncode != 0:
            incomplete.append((c["name"], r.returncode, (r.stderr or r.stdout).strip()[:200]))
            continue
        w = c["width"]
        raw = np.load(out).tobytes()[: w * n]
        ours = np.frombuffer(raw, dtype="<u4" if w == 4 else "<u8")
        gpu = np.frombuffer(outputs[c["offset"] : c["offset"] + w * n], dtype=ours.dtype)
        diff = np.nonzero(ours != gpu)[0]
        if len(diff) == 0:
            passed += 1
        elif approx(c["name"]):
            passed += 1
            print(f"{c['name']:34} approx: {len(diff)} of {n} differ (checked by ops_vs_h100)")
        else:
            i = diff[0]
            failed.append(f"{c['name']} [{c['class']}]: {len(diff)} of {n} differ, "
                          f"first thread {i}: tmemu {int(ours[i]):#x}, H100 {int(gpu[i]):#x}")
    for f in failed:
        print("DIFF", f)
    for name, rc, msg in incomplete:
        print(f"NOT RUN {name} (exit {rc}): {msg}")
    print(f"{passed} passed, {len(failed)} failed, {len(incomplete)} not run")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
