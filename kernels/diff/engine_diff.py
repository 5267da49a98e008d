#!/usr/bin/env python3
"""Runs the recorded H100 differential cases through the tmemu engine and compares bit for bit.

For every `diff_arith` case K of tests/corpus/diff/h100/manifest.json this launches the entry
diff_case<K>(in, out, n) of tests/corpus/diff/cases.sm_90a.ptx (one kernel per case, so a form
the engine does not model only stops its own case) under `tmemu run` with the case's recorded
inputs and compares the saved output with the H100's. Cases whose
model in crates/num/tests/num/ops_vs_h100.rs has an error bound (the .approx instructions) are
reported with their maximum ulp distance instead of failing.

The same comparison runs without Python or a GPU, through the engine's API, in
crates/sim/tests/sim/h100_diff.rs (`cargo test -p tmemu-sim --test sim h100_diff -- --nocapture`);
that test is the one CI runs. This script checks the `tmemu run` CLI path end to end.

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
BLOCK = 128



def read_recording(path):
    """A recording's bytes: `path` if present, else `path`.xz (how recordings are committed)."""
    if os.path.exists(path):
        return open(path, "rb").read()
    import lzma
    return lzma.open(path + ".xz").read()

def isa_deviation(name, inp, i, ours, gpu):
    """The documented places where the H100 departs from the PTX ISA (docs/arch/num.md); an
    engine that follows the ISA differs from the recording exactly there."""
    b, c = int(inp[1][i]) & 0xFFFFFFFF, int(inp[2][i]) & 0xFFFFFFFF
    if name == "fns.b32":
        return c == 0x80000000 and ours == 0xFFFFFFFF and gpu == 0
    if name in ("bfe.u64", "bfe.s64", "bfi.b64"):
        return b > 255 or c > 255
    if name.startswith("set.") and ".f32." in name + ".":
        return ours == 0x3F800000 and gpu == 1
    return False


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
    inputs = np.frombuffer(read_recording(os.path.join(CORPUS, "h100", "inputs.bin")), dtype="<u8")
    outputs = read_recording(os.path.join(CORPUS, "h100", "outputs.bin"))
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
                f'ptx = "{os.path.join(CORPUS, "cases.sm_90a.ptx")}"\n'
                f'kernel = "_Z9diff_caseILi{k}EEvPKmPvi"\n'
                f"grid = [{n // BLOCK}]\nblock = [{BLOCK}]\n\n"
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
        off = next(cl["offset"] for cl in man["classes"] if cl["name"] == c["class"]) // 8
        inp = inputs[off : off + 4 * n].reshape(4, n)
        diff = [i for i in diff if not isa_deviation(c["name"], inp, i, int(ours[i]), int(gpu[i]))]
        if len(diff) == 0:
            passed += 1
        elif approx(c["name"]):
            passed += 1
            print(f"{c['name']:34} approx: {len(diff)} of {n} differ (checked by ops_vs_h100)")
        else:
            i = diff[0]
            failed.append(f"{c['name']} [{c['class']}]: {len(diff)} of {n} differ, "
                          f"first thread {i}: tmemu {int(ours[i]):#x}, H100 {int(gpu[i]):#x}")
    # The engine-level recordings: shuffles (mode m), shared atomics (mode m), bulk copy.
    engine = [(c, k) for k, c in enumerate(man["cases"]) if c["kernel"] != "diff_arith"]
    modes = {"diff_shfl": 0, "diff_atom": 0}
    for c, k in engine:
        if args.only and args.only not in c["name"]:
            continue
        kern = c["kernel"]
        mangled = {"diff_shfl": "_Z9diff_shfliPKmPmi", "diff_atom": "_Z9diff_atomiPKmPji",
                   "diff_bulk": "_Z9diff_bulkPKmPmi"}[kern]
        mode_arg = ""
        if kern in modes:
            mode_arg = f"[[arg]]\nvalue = {modes[kern]}\n\n"
            modes[kern] += 1
        spec = os.path.join(work, "case.toml")
        out = os.path.join(work, "out.npy")
        with open(spec, "w") as f:
            f.write(
                f'ptx = "{os.path.join(CORPUS, "harness.sm_90a.ptx")}"\n'
                f'kernel = "{mangled}"\ngrid = [{n // BLOCK}]\nblock = [{BLOCK}]\n\n'
                + mode_arg
                + f'[[arg]]\ndtype = "u64"\nshape = [{4 * n}]\nfrom = "{c["class"]}.npy"\n\n'
                f'[[arg]]\ndtype = "u64"\nshape = [{n}]\nfill = "zeros"\nsave = "out.npy"\n\n'
                f"[[arg]]\nvalue = {n}\n"
            )
        r = subprocess.run([args.tmemu, "run", spec], capture_output=True, text=True)
        if r.returncode != 0:
            incomplete.append((c["name"], r.returncode, (r.stderr or r.stdout).strip()[:200]))
            continue
        w = c["width"]
        ours = np.frombuffer(np.load(out).tobytes()[: w * n], dtype="<u4" if w == 4 else "<u8")
        gpu = np.frombuffer(outputs[c["offset"] : c["offset"] + w * n], dtype=ours.dtype)
        diff = np.nonzero(ours != gpu)[0]
        if len(diff) == 0:
            passed += 1
        else:
            i = diff[0]
            failed.append(f"{c['name']}: {len(diff)} of {n} differ, first thread {i}: "
                          f"tmemu {int(ours[i]):#x}, H100 {int(gpu[i]):#x}")
    for f in failed:
        print("DIFF", f)
    for name, rc, msg in incomplete:
        print(f"NOT RUN {name} (exit {rc}): {msg}")
    print(f"{passed} passed, {len(failed)} failed, {len(incomplete)} not run")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
