"""Candidate accumulation models for the float mma.sync forms (used by analyze.py)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from gen import FLOAT, fp8_table


def decode(fmt, bits):
    """→ ('nan'|'inf'|'num', sign, mant, exp) with value (-1)^sign · mant · 2^exp (mant ≥ 0 int)."""
    bits = int(bits)
    if fmt in ("e4m3", "e5m2"):
        v = fp8_table(fmt)[bits]
        if np.isnan(v):
            return ("nan", 0, 0, 0)
        if np.isinf(v):
            return ("inf", int(v < 0), 0, 0)
        fr = Fraction(float(v))
        s = int(fr < 0)
        fr = abs(fr)
        # fr = n / 2^j
        n, d = fr.numerator, fr.denominator
        j = d.bit_length() - 1
        return ("num", s, n, -j)
    if fmt == "tf32":
        fmt, bits = "f32", bits & 0xFFFFE000
    e, m = FLOAT[fmt]
    width = 1 + e + m
    s = bits >> (width - 1)
    ef = (bits >> m) & ((1 << e) - 1)
    mf = bits & ((1 << m) - 1)
    bias = (1 << (e - 1)) - 1
    if ef == (1 << e) - 1:
        return ("nan", 0, 0, 0) if mf else ("inf", s, 0, 0)
    if ef == 0:
        return ("num", s, mf, 1 - bias - m)
    return ("num", s, mf | (1 << m), ef - bias - m)


def encode(fmt, x, mode="rne"):
    """Exact rational x (Fraction) → bits of fmt (f32/f16/f64), rounding mode rne|rz."""
    e, m = FLOAT[fmt]
    bias = (1 << (e - 1)) - 1
    width = 1 + e + m
    sign = 1 if x < 0 else 0
    a = abs(x)
    if a == 0:
        return sign << (width - 1)
    # exponent of leading bit
    n, d = a.numerator, a.denominator
    lb = n.bit_length() - d.bit_length()
    if Fraction(n, d) < Fraction(2) ** lb:
        lb -= 1
    q = max(lb, 1 - bias) - m  # quantum
    scaled = a / (Fraction(2) ** q) if q >= 0 else a * (2 ** (-q))
    fl = scaled.numerator // scaled.denominator
    rem = scaled - fl
    if mode == "rne":
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl & 1):
            fl += 1
    elif mode == "rz":
        pass
    # fl · 2^q
    if fl >= (1 << (m + 1)):
        fl >>= 1
        q += 1
    if fl == 0:
        return sign << (width - 1)
    if fl < (1 << m):  # subnormal
        ef = 0
        mf = fl
    else:
        ef = q + m + bias
        mf = fl - (1 << m)
    if ef >= (1 << e) - 1:
        if mode == "rz" and lb <= bias and not OVF_INF[0]:
            return (sign << (width - 1)) | (((1 << e) - 2) << m) | ((1 << m) - 1)
        return (sign << (width - 1)) | (((1 << e) - 1) << m)
    return (sign << (width - 1)) | (ef << m) | mf


def lead(mant, exp):
    return exp + mant.bit_length() - 1


NOMINAL = [False]
OVF_INF = [False]
AB = [None, None]


def nominal_lead(d, fmt):
    """Exponent field value (unbiased) of a decoded number: its leading bit for normals, emin for
    subnormals."""
    s, mant, exp = d
    if mant == 0:
        return None
    if fmt in FLOAT:
        e, m = FLOAT["f32" if fmt == "tf32" else fmt]
        bias = (1 << (e - 1)) - 1
        return max(lead(mant, exp), 1 - bias)
    return lead(mant, exp)


def fused(terms, p, trunc, extra_rz=False):
    """Sum of (sign, mant, exp) terms: each aligned to the largest leading-bit exponent E and cut
    to a multiple of 2^(E - p) (toward zero if trunc == 'rz', toward -inf if 'rd', exact if
    p is None). Returns the exact Fraction of the cut sum."""
    terms = [t for t in terms if t[1] != 0]
    if not terms:
        return Fraction(0)
    if p is None:
        return sum((Fraction(-t[1] if t[0] else t[1]) * Fraction(2) ** t[2] for t in terms), Fraction(0))
    if NOMINAL[0]:
        E = max(t[3] for t in terms)
    else:
        E = max(lead(t[1], t[2]) for t in terms)
    q = E - p
    tot = 0
    for s, mnt, ex, *_ in terms:
        if ex >= q:
            v = mnt << (ex - q)
        else:
            sh = q - ex
            v = mnt >> sh
            if trunc == "rd" and s and (mnt & ((1 << sh) - 1)):
                v += 1
        tot += -v if s else v
    return Fraction(tot) * Fraction(2) ** q


def dot(a_terms, b_terms, c, cfmt, dfmt, block, p, trunc, final):
    """a_terms/b_terms: decoded lists over k; c: decoded. Returns D bits (or 'nan')."""
    k = len(a_terms)
    # specials
    anynan = c[0] == "nan"
    infs = []
    if c[0] == "inf":
        infs.append(c[1])
    for x, y in zip(a_terms, b_terms):
        if x[0] == "nan" or y[0] == "nan":
            anynan = True
        elif x[0] == "inf" or y[0] == "inf":
            other = y if x[0] == "inf" else x
            if other[0] == "num" and other[2] == 0:
                anynan = True
            else:
                infs.append(x[1] ^ y[1])
    if anynan or (infs and len(set(infs)) > 1):
        return "nan"
    if infs:
        e, m = FLOAT[dfmt]
        return (infs[0] << (e + m)) | (((1 << e) - 1) << m)
    acc = c
    accv = None
    for k0 in range(0, k, block):
        terms = []
        if accv is None:
            accv = (acc[1], acc[2], acc[3])
            afmt = cfmt
        if accv[1]:
            terms.append(accv + (nominal_lead(accv, afmt),))
        for x, y in zip(a_terms[k0:k0 + block], b_terms[k0:k0 + block]):
            if x[2] and y[2]:
                terms.append((x[1] ^ y[1], x[2] * y[2], x[3] + y[3],
                              nominal_lead(x[1:], AB[0]) + nominal_lead(y[1:], AB[1])))
        s = fused(terms, p, trunc)
        if final == "rz_rne" and dfmt == "f16" and k0 + block >= k:
            b32 = encode("f32", s, "rz")
            d32 = decode("f32", b32)
            if d32[0] != "num":
                return (d32[1] << 15) | 0x7C00
            v = Fraction(d32[2]) * Fraction(2) ** d32[3] * (-1 if d32[1] else 1)
            return encode("f16", v, "rne")
        bits = encode(dfmt if k0 + block >= k or dfmt == "f64" else "f32", s, "rz" if final == "rz_rne" else final)
        d = decode(dfmt if k0 + block >= k or dfmt == "f64" else "f32", bits)
        if d[0] != "num":
            return bits  # overflow to inf
        accv = (d[1], d[2], d[3])
        afmt = "f64" if dfmt == "f64" else "f32"
    return bits
