"""Launch specs and numpy references for kernels/cuda/plain.cu."""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from nvcase import Case

N = 256


def _rng(tag: int) -> np.random.Generator:
    return np.random.default_rng(31000 + tag)


def _wrap(x) -> np.ndarray:
    return (np.asarray(x, dtype=np.int64) & 0xFFFFFFFF).astype(np.uint32)


def case_int() -> Case:
    c = Case("int_bitops", "Integer and bit operations on u32/s32; numpy reference in 64-bit.",
             grid=(2, 1, 1), block=(128, 1, 1))
    rng = _rng(1)
    a = rng.integers(0, 2**32, N, dtype=np.uint32)
    b = rng.integers(0, 2**32, N, dtype=np.uint32)
    a[:4] = [0, 1, 0x80000000, 0xFFFFFFFF]
    b[:4] = [0, 0xFFFFFFFF, 0xFFFFFFFF, 7]
    c.input("a", a)
    c.input("b", b)
    c.output("out", "u32", (12, N))
    c.value(N)
    x = a.astype(np.int64)
    y = b.astype(np.int64)
    sx = a.view(np.int32).astype(np.int64)
    sy = (b | 1).view(np.int32).astype(np.int64)
    # C division truncates toward zero
    q = np.array([abs(int(p)) // abs(int(r)) * (1 if (p >= 0) == (r > 0) else -1)
                  for p, r in zip(sx, sy)], np.int64)
    rem = sx - q * sy
    popc = np.array([bin(int(v)).count("1") for v in a], np.int64)
    clz = np.array([32 - int(v).bit_length() for v in a], np.int64)
    brev = np.array([int(f"{int(v):032b}"[::-1], 2) for v in a], np.int64)
    sh = y & 31
    # __funnelshift_l(lo=x, hi=y, s): the upper 32 bits of ((y:x) << s).
    funnel = np.array([(((int(hi) << 32 | int(lo)) << int(s)) >> 32) & 0xFFFFFFFF
                       for lo, hi, s in zip(a, b, sh)], np.int64)
    exp = np.stack([x + y, x * y, (x * y) >> 32, q, rem, (x ^ y) | (x & ~y), popc, clz, brev,
                    funnel, (x >> (y & 15)) & 0xFF, np.maximum(sx, sy)])
    c.expect("out", _wrap(exp))
    return c


def _f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def _fma_f32(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Correctly rounded f32 fma via exact rationals (no double rounding)."""
    out = []
    for a, b, c in zip(x, y, z):
        exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
        # round the exact value to the nearest f32 (ties to even) through f64 neighbours
        f = np.float32(float(exact))
        cands = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
        best = min(cands, key=lambda v: (abs(Fraction(float(v)) - exact),
                                         int(np.asarray(v).view(np.uint32)) & 1))
        out.append(best)
    return _f32(out)


def case_float() -> Case:
    c = Case("float_math", """
fma.rn.f32 (exact reference via rationals), ex2.approx.f32 and rsqrt.approx.f32 (PTX: max
relative error 2^-22 class; checked with rtol 2e-6), sqrt.rn.f32 and div.rn.f32 (correctly
rounded: numpy f32 is exact).""", grid=(2, 1, 1), block=(128, 1, 1))
    rng = _rng(2)
    x = _f32(rng.uniform(-8, 8, N))
    y = _f32(rng.uniform(-4, 4, N))
    y[np.abs(y) < 0.25] = 0.5
    z = _f32(rng.uniform(-100, 100, N))
    for name, v in (("x", x), ("y", y), ("z", z)):
        c.input(name, v)
    c.output("out", "f32", (5, N))
    c.value(N)
    exact_rows = np.stack([_fma_f32(x, y, z), np.zeros(N, np.float32), np.zeros(N, np.float32),
                           np.sqrt(np.abs(z)), x / y])
    approx_rows = np.stack([np.zeros(N), np.exp2(x.astype(np.float64)),
                            1.0 / np.sqrt(np.abs(y.astype(np.float64)) + 1.0),
                            np.zeros(N), np.zeros(N)])
    exp = exact_rows.astype(np.float32)
    exp[1] = approx_rows[1].astype(np.float32)
    exp[2] = approx_rows[2].astype(np.float32)
    c.expect("out", exp, rtol=2e-6, atol=0.0,
             why="rows 0,3,4 are correctly rounded (fma.rn, sqrt.rn, div.rn) and match exactly;\n"
                 "rtol 2e-6 covers ex2.approx / rsqrt.approx (rows 1, 2), whose PTX error bound\n"
                 "is about 2 ulp")
    return c


def _bf16_rne(f: np.ndarray) -> np.ndarray:
    bits = f.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def case_cvt() -> Case:
    c = Case("cvt_kernel", """
cvt.rzi.s32.f32, cvt.rn.f32.s32, cvt.rn.f16.f32, cvt.f32.f16, cvt.rn.bf16.f32, cvt.rn.f32.u32,
saturate + cvt.rni; references: numpy casts (RNE) and bit-level bf16 rounding.""",
             grid=(2, 1, 1), block=(128, 1, 1))
    rng = _rng(3)
    f = _f32(rng.uniform(-70000, 70000, N))
    f[:32] = _f32(rng.uniform(-2, 2, 32))
    f[32:40] = _f32([0.5, 1.5, 2.5, -0.5, -1.5, 65504.0, 65520.0, 1e-8])
    s = rng.integers(-2**31, 2**31, N, dtype=np.int64).astype(np.int32)
    c.input("f", f)
    c.input("s", s)
    c.output("f2i", "i32", (N,))
    c.output("i2f", "f32", (N,))
    c.output("f2h", "u16", (N,))
    c.output("h2f", "f32", (N,))
    c.output("f2bf", "u16", (N,))
    c.output("u2f", "f32", (N,))
    c.output("f2u8", "u32", (N,))
    c.value(N)
    with np.errstate(over="ignore"):  # values beyond 65504 round to inf, as cvt.rn.f16.f32 does
        h = f.astype(np.float16)
    c.expect("f2i", np.trunc(f).astype(np.int32))
    c.expect("i2f", s.astype(np.float32))
    c.expect("f2h", h.view(np.uint16))
    c.expect("h2f", h.astype(np.float32))
    c.expect("f2bf", _bf16_rne(f))
    c.expect("u2f", s.view(np.uint32).astype(np.float32))
    sat = np.clip(f, 0.0, 1.0).astype(np.float32) * np.float32(255.0)
    c.expect("f2u8", np.rint(sat).astype(np.uint32))
    return c


def case_reduce() -> Case:
    c = Case("reduce_shfl", "Shared-memory tree + shfl.sync.down/bfly reduction (sum, max) of "
             "256 integers per CTA.", grid=(4, 1, 1), block=(256, 1, 1))
    data = _rng(4).integers(-100000, 100000, (4, 256), dtype=np.int64).astype(np.int32)
    c.input("in", data)
    c.output("sums", "i32", (4,))
    c.output("maxes", "i32", (4,))
    c.expect("sums", data.astype(np.int64).sum(axis=1).astype(np.int32))
    c.expect("maxes", data.max(axis=1))
    return c


def case_atomics() -> Case:
    c = Case("atomics", "atom.global.add (s32, f32), atom.global.max.s32, atom.global.cas.b32.",
             grid=(4, 1, 1), block=(128, 1, 1))
    data = _rng(5).integers(-1000, 1000, 512, dtype=np.int64).astype(np.int32)
    c.input("in", data)
    c.output("hist", "i32", (16,))
    c.output("maxv", "i32", (1,))
    c.output("fsum", "f32", (1,))
    c.output("cas_count", "u32", (1,))
    c.value(512)
    c.expect("hist", np.bincount(data & 15, minlength=16).astype(np.int32))
    # maxv starts at 0 (zero-filled buffer)
    c.expect("maxv", np.array([max(0, int(data.max()))], np.int32))
    # C's % truncates toward zero; all partial sums are small integers, exact in f32
    c.expect("fsum", np.array([float(np.fmod(data, 8).sum())], np.float32))
    c.expect("cas_count", np.array([2 * 512], np.uint32))
    return c


def case_sgemm() -> Case:
    M = Nn = K = 64
    c = Case("sgemm_tiled", "16x16 shared-memory tiled SGEMM, 64x64x64. Inputs are small "
             "integers, so every partial sum is exact in f32 whatever the order.",
             grid=(4, 4, 1), block=(16, 16, 1))
    rng = _rng(6)
    A = rng.integers(-4, 5, (M, K)).astype(np.float32)
    B = rng.integers(-4, 5, (K, Nn)).astype(np.float32)
    c.input("A", A)
    c.input("B", B)
    c.output("C", "f32", (M, Nn))
    c.value(M)
    c.value(Nn)
    c.value(K)
    c.expect("C", (A.astype(np.int64) @ B.astype(np.int64)).astype(np.float32))
    return c


def cases() -> list[Case]:
    return [case_int(), case_float(), case_cvt(), case_reduce(), case_atomics(), case_sgemm()]
