#!/usr/bin/env python3
"""Compare the raw outputs of plain_check (a real GPU) with the corpus expectations.
Usage: compare.py <corpus dir> <dir of .bin files>. Uses each spec's rtol/atol."""
import pathlib
import re
import sys

import numpy as np

corpus, got_dir = map(pathlib.Path, sys.argv[1:3])
bad = 0
for spec in sorted(corpus.glob("plain.*.toml")):
    kernel = spec.stem.split(".", 1)[1]
    text = spec.read_text()
    for m in re.finditer(r'\[\[expect\]\]\nbuffer = "(\w+)"\nnpy = "([^"]+)"\n(?:#.*\n)*rtol = (\S+)\natol = (\S+)', text):
        buf, npy, rtol, atol = m.group(1), m.group(2), float(m.group(3)), float(m.group(4))
        exp = np.load(corpus / npy)
        got = np.fromfile(got_dir / f"{kernel}.{buf}.bin", dtype=exp.dtype).reshape(exp.shape)
        if exp.dtype.kind == "f":
            ok = np.allclose(got, exp, rtol=rtol, atol=atol, equal_nan=True)
        else:
            ok = np.array_equal(got, exp)
        print(f"{'ok  ' if ok else 'FAIL'} {kernel}.{buf}")
        if not ok:
            bad += 1
            idx = np.argwhere(~np.isclose(got, exp, rtol=rtol, atol=atol) if exp.dtype.kind == "f" else got != exp)[:5]
            for i in idx:
                print("   at", tuple(i), "got", got[tuple(i)], "expected", exp[tuple(i)])
sys.exit(1 if bad else 0)
