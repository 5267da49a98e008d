"""Narrow number formats for the references: decode tables built from the format definitions
(OCP FP8: e4m3 bias 7, no infinities, S.1111.111 = NaN; e5m2 bias 15, IEEE-like; ue8m0 =
2^(e-127)), and exact encoders for values known to be representable."""
from __future__ import annotations

import numpy as np


def decode_e4m3(code: int) -> float:
    s = -1.0 if code & 0x80 else 1.0
    e, m = (code >> 3) & 0xF, code & 7
    if e == 15 and m == 7:
        return float("nan")
    if e == 0:
        return s * (m / 8) * 2.0 ** -6
    return s * (1 + m / 8) * 2.0 ** (e - 7)


def decode_e5m2(code: int) -> float:
    s = -1.0 if code & 0x80 else 1.0
    e, m = (code >> 2) & 0x1F, code & 3
    if e == 31:
        return float("nan") if m else s * float("inf")
    if e == 0:
        return s * (m / 4) * 2.0 ** -14
    return s * (1 + m / 4) * 2.0 ** (e - 15)


def _encoder(decode):
    table = {}
    for code in range(256):
        v = decode(code)
        if v == v and v not in table:  # first code wins: +0 over -0
            table[v] = code
    return lambda arr: np.array([table[float(v)] for v in np.ravel(arr)], np.uint8).reshape(np.shape(arr))


encode_e4m3 = _encoder(decode_e4m3)
encode_e5m2 = _encoder(decode_e5m2)


def ue8m0(code: np.ndarray) -> np.ndarray:
    return np.exp2(code.astype(np.float64) - 127.0)


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """Bit patterns of values that are exactly representable in bf16."""
    bits = np.asarray(values, np.float32).view(np.uint32)
    assert not (bits & 0xFFFF).any(), "value not exact in bf16"
    return (bits >> 16).astype(np.uint16)
