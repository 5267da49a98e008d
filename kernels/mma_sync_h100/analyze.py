#!/usr/bin/env python3
"""Reads the H100 mma.sync recording (tests/corpus/mma_sync_h100) and compares it with candidate
models, to choose tmemu's: fragment layouts (the integer forms must match exactly) and the
float accumulation (which model reproduces the hardware bit for bit).

    python kernels/mma_sync_h100/analyze.py [FORM_SUBSTRING]
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen import BITS, CORPUS, FLOAT, FORMS, KINDS, PER_REG, TRIALS, fp8_table  # noqa: E402



def read_recording(path):
    """A recording's bytes: `path` if present, else `path`.xz (how recordings are committed)."""
    if path.exists():
        return path.read_bytes()
    import lzma
    return lzma.open(str(path) + ".xz").read()

def shape_of(name):
    s = name.split("_")[0]
    m, rest = s[1:].split("n")
    n, k = rest.split("k")
    return int(m), int(n), int(k)


def a_coord(m, p, i, lane, e):
    g, t = lane >> 2, lane & 3
    if m == 8:
        return g, t * p + e
    return g + 8 * (i % 2), t * p + e + 4 * p * (i // 2)


def b_coord(p, i, lane, e):
    g, t = lane >> 2, lane & 3
    return t * p + e + 4 * p * i, g


def cd_coord(m, p, i, lane, e):
    """C/D element: p = elements per register (2 for f16 accumulators)."""
    g, t = lane >> 2, lane & 3
    if p == 2:
        return g + 8 * i, 2 * t + e
    if m == 8:
        return g, 2 * t + i
    return g + 8 * (i // 2), 2 * t + (i % 2)


def value(fmt, bits):
    bits = int(bits)
    if fmt == "f16":
        return float(np.array([bits], np.uint16).view(np.float16)[0])
    if fmt == "bf16":
        return float(np.array([bits << 16], np.uint32).view(np.float32)[0])
    if fmt == "tf32":  # the tensor core reads the top 19 bits (checked below)
        return float(np.array([bits & 0xFFFFE000], np.uint32).view(np.float32)[0])
    if fmt == "f32":
        return float(np.array([bits], np.uint32).view(np.float32)[0])
    if fmt == "f64":
        return float(np.array([bits], np.uint64).view(np.float64)[0])
    if fmt in ("e4m3", "e5m2"):
        return float(fp8_table(fmt)[bits])
    if fmt in ("s8", "s4", "s32"):
        b = BITS[fmt]
        return bits - (1 << b) if bits >> (b - 1) else bits
    return bits


def unpack(fmt, word, e):
    b = BITS[fmt]
    return (int(word) >> (b * e)) & ((1 << b) - 1)


def load():
    lines = [l for l in (CORPUS / "manifest.txt").read_text().splitlines() if not l.startswith("#")]
    inp, out = (read_recording(CORPUS / f) for f in ("inputs.bin", "outputs.bin"))
    by = {f[0]: f for f in FORMS}
    res = []
    for l in lines:
        kv = dict(x.split("=", 1) for x in l.split())
        f = by[kv["name"]]
        w = int(kv["width"])
        dt = np.uint64 if w == 64 else np.uint32
        ins = np.frombuffer(inp[int(kv["in_at"]):int(kv["in_at"]) + int(kv["in_len"])], dt).reshape(TRIALS, -1, 32)
        outs = np.frombuffer(out[int(kv["out_at"]):int(kv["out_at"]) + int(kv["out_len"])], dt).reshape(TRIALS, -1, 32)
        res.append((f, ins, outs))
    return res


def matrices(f, words):
    name, op, (na, nb, nc, nd), (fa, fb, fc), width = f
    m, n, k = shape_of(name)
    A = np.zeros((m, k), dtype=object)
    B = np.zeros((k, n), dtype=object)
    C = np.zeros((m, n), dtype=object)
    for i in range(na):
        for lane in range(32):
            for e in range(PER_REG[fa]):
                r, c = a_coord(m, PER_REG[fa], i, lane, e)
                A[r, c] = unpack(fa, words[i, lane], e)
    for i in range(nb):
        for lane in range(32):
            for e in range(PER_REG[fb]):
                r, c = b_coord(PER_REG[fb], i, lane, e)
                B[r, c] = unpack(fb, words[na + i, lane], e)
    pc = 2 if fc == "f16" else 1
    for i in range(nc):
        for lane in range(32):
            for e in range(pc):
                r, c = cd_coord(m, pc, i, lane, e)
                C[r, c] = unpack(fc, words[na + nb + i, lane], e)
    return A, B, C


def d_words(f, D_bits):
    """D element bits (m, n) → register words [nd][32]."""
    name, op, (na, nb, nc, nd), (fa, fb, fc), width = f
    m, _, _ = shape_of(name)
    dfmt = op.split(".")[-4] if "popc" not in op else "s32"
    pd = 2 if dfmt == "f16" else 1
    out = np.zeros((nd, 32), dtype=np.uint64)
    for i in range(nd):
        for lane in range(32):
            for e in range(pd):
                r, c = cd_coord(m, pd, i, lane, e)
                out[i, lane] |= np.uint64(D_bits[r][c] << (16 * e))
    return out, dfmt


def int_model(f, A, B, C):
    name, op, *_ = f
    (fa, fb, fc) = f[3]
    m, n, k = shape_of(name)
    sat = "satfinite" in op
    D = [[0] * n for _ in range(m)]
    for r in range(m):
        for c in range(n):
            if fa == "b1":
                acc = 0
                for kk in range(k):
                    x, y = A[r, kk], B[kk, c]
                    acc += (x & y) if "and" in op else (x ^ y)
                s = acc + value("s32", C[r, c])
            else:
                s = sum(value(fa, A[r, kk]) * value(fb, B[kk, c]) for kk in range(k)) + value("s32", C[r, c])
            if sat:
                s = max(-2**31, min(2**31 - 1, s))
            D[r][c] = s & 0xFFFFFFFF
    return D


def f32_bits(x, mode="rne"):
    return int(np.array([x], np.float32).view(np.uint32)[0])


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else ""
    for f, ins, outs in load():
        name = f[0]
        if only not in name:
            continue
        fa = f[3][0]
        if fa in ("s8", "u8", "s4", "u4", "b1"):
            bad = 0
            for t in range(TRIALS):
                A, B, C = matrices(f, ins[t])
                w, _ = d_words(f, int_model(f, A, B, C))
                bad += int((w != outs[t].astype(np.uint64)).sum())
            print(f"{name}: int model mismatches {bad}")
            continue
        print(f"{name}: float form (see models)")


if __name__ == "__main__":
    main()


def float_check(f, ins, outs, block, p, trunc, final, verbose=False):
    from models import decode, dot, AB
    AB[0], AB[1] = f[3][0], f[3][1]
    name, op, (na, nb, nc, nd), (fa, fb, fc), width = f
    m, n, k = shape_of(name)
    dfmt = op.split(".")[-4]
    bad_by_kind = [0] * KINDS
    tot_by_kind = [0] * KINDS
    examples = []
    for t in range(TRIALS):
        A, B, C = matrices(f, ins[t])
        Dbits = [[0] * n for _ in range(m)]
        nanpos = set()
        for r in range(m):
            at = [decode(fa, A[r, kk]) for kk in range(k)]
            for c in range(n):
                bt = [decode(fb, B[kk, c]) for kk in range(k)]
                d = dot(at, bt, decode(fc, C[r, c]), fc, dfmt, block or k, p, trunc, final)
                if d == "nan":
                    nanpos.add((r, c))
                    d = 0
                Dbits[r][c] = d
        w, _ = d_words(f, Dbits)
        hw = outs[t].astype(np.uint64)
        # compare element-wise
        pd = 2 if dfmt == "f16" else 1
        eb = 16 if pd == 2 else (64 if width == 64 else 32)
        for i in range(nd):
            for lane in range(32):
                for e in range(pd):
                    r, c = cd_coord(m, pd, i, lane, e)
                    ours = (int(w[i, lane]) >> (eb * e)) & ((1 << eb) - 1)
                    theirs = (int(hw[i, lane]) >> (eb * e)) & ((1 << eb) - 1)
                    tot_by_kind[t % KINDS] += 1
                    if (r, c) in nanpos:
                        if theirs not in NAN_SEEN:
                            NAN_SEEN[theirs] = NAN_SEEN.get(theirs, 0) + 1
                        continue
                    if ours != theirs:
                        bad_by_kind[t % KINDS] += 1
                        if len(examples) < 3:
                            examples.append((t, r, c, hex(ours), hex(theirs)))
    return bad_by_kind, tot_by_kind, examples


NAN_SEEN = {}
