#!/usr/bin/env python3
"""Scores accumulation models against the H100 recording (see models.py, analyze.py).

    python kernels/mma_sync_h100/fit.py [-n] FORM_SUBSTRING BLOCK,P,TRUNC,FINAL ...

-n aligns by nominal exponents (exponent fields) instead of the leading bits of the exact
products. BLOCK: products fused per step (None: all k), P: bits kept below the largest
exponent (None: exact), TRUNC: rz|rd, FINAL: rne|rz|rz_rne. Prints, per trial kind, how many
D elements differ from the hardware. Example (the model tmemu uses for f16 inputs):
    python kernels/mma_sync_h100/fit.py -n m16n8k16_f32_f16 None,25,rz,rz
"""
import sys

import models
from analyze import float_check, load

if sys.argv[1] == "-n":
    models.NOMINAL[0] = True
    sys.argv.pop(1)
only = sys.argv[1]
cands = [tuple(None if x == "None" else (int(x) if x.lstrip("-").isdigit() else x)
               for x in c.split(",")) for c in sys.argv[2:]]
for f, ins, outs in load():
    if only not in f[0]:
        continue
    for (block, p, trunc, final) in cands:
        bad, tot, ex = float_check(f, ins, outs, block, p, trunc, final)
        print(f[0], (block, p, trunc, final), "differ by kind", bad, "of", tot[0], ex[:3])
