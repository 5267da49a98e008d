"""nvcc part of the holdout set: kernels/holdout/*.cu (CUDA C++ with inline PTX, our own), one
`extern "C"` entry per file, compiled with the pinned nvcc to PTX (`-arch=sm_100a -ptx
-lineinfo`), checked by ptxas, with expected outputs computed here by numpy from the PTX ISA
fragment maps (/work/shared/spec/data-movement.md §2.4/§2.5/§6), written independently of
kernels/cuda/nvref_tmem.py."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np

from regen import (REPO, Case, Input, Output, Ptr, TensorMapArg, assert_no_abs_paths, entry_params,
                   ptxas_path, rewrite_paths, write_case)

NVCC_FLAGS = ["-arch=sm_100a", "-ptx", "-lineinfo", "-std=c++17", "-O3"]


# ---- fragment maps (thread t, register r) -> (lane offset, column offset) --------------------
def map_32x32b(t, r):
    return t, r


def map_16x64b(t, r):
    return t // 4 + 8 * (t % 2), 2 * r + (t // 2) % 2


def map_16x128b(t, r):
    return t // 4 + 8 * (r % 2), t % 4 + 4 * (r // 2)


def map_16x256b(t, r):
    return t // 4 + 8 * ((r // 2) % 2), 2 * (t % 4) + r % 2 + 8 * (r // 4)


def _roundtrip_case():
    rng = np.random.default_rng(4001)
    src = rng.integers(0, 2**32, size=(2, 128, 32), dtype=np.uint64).astype(np.uint32)
    frag = rng.integers(0, 2**32, size=(2, 4, 2, 32, 4), dtype=np.uint64).astype(np.uint32)
    shin = rng.integers(0, 2**32, size=(2, 32, 8), dtype=np.uint64).astype(np.uint32)

    tmem = np.zeros((2, 128, 256), dtype=np.uint64)
    tmem[:, :, 0:32] = src
    for cta in range(2):
        for w in range(4):
            for half in range(2):
                for t in range(32):
                    for r in range(4):
                        dl, dc = map_16x256b(t, r)
                        tmem[cta, 32 * w + 16 * half + dl, 128 + dc] = frag[cta, w, half, t, r]
    packed = np.zeros((2, 4, 2, 32, 8), dtype=np.uint64)
    for cta in range(2):
        for w in range(4):
            for half in range(2):
                for t in range(32):
                    for r in range(8):
                        dl, c = map_16x64b(t, r)
                        lane = 32 * w + 16 * half + dl
                        lo = tmem[cta, lane, 2 * c] & 0xFFFF
                        hi = tmem[cta, lane, 2 * c + 1] & 0xFFFF
                        packed[cta, w, half, t, r] = lo | (hi << 16)
    cross = tmem[:, :, 128:136].copy()
    shifted = np.zeros((2, 32, 8), dtype=np.uint64)
    shifted[:, 1:, :] = shin[:, :31, :]   # row k+1 <- old row k; row 0 is not written out
    why = "bit patterns moved through TMEM: exact"
    return Case(
        "ho_nvcc_tmem_roundtrip", grid=[2],
        buffers=dict(src=Input(src, "u32"), frag=Input(frag, "u32"), shin=Input(shin, "u32"),
                     packed=Output("u32", list(packed.shape), packed.astype(np.float64), 0.0,
                                   0.0, why),
                     cross=Output("u32", list(cross.shape), cross.astype(np.float64), 0.0, 0.0,
                                  why),
                     shifted=Output("u32", list(shifted.shape), shifted.astype(np.float64),
                                    0.0, 0.0, why)),
        args=dict(src=Ptr("src"), frag=Ptr("frag"), shin=Ptr("shin"), packed=Ptr("packed"),
                  cross=Ptr("cross"), shifted=Ptr("shifted")),
        note="Two CTAs of 128 threads, 256 TMEM columns each (both fit one SM); warp 3 allocates "
             "and relinquishes at once.\n.32x32b.x32 and .16x256b.x1 stores, .16x64b.x8.pack::16b "
             "and .32x32b.x8 loads, tcgen05.shift.down + commit; expected values from the "
             "fragment maps in numpy")


def _mma_layouts_case():
    rng = np.random.default_rng(4002)
    # Multiples of 1/2 in [-2, 2]: products are multiples of 1/4 and K = 32 sums stay below
    # 2^7, so every D is exact in f32 whatever the summation order.
    a = (rng.integers(-4, 5, size=(5, 128, 32)) / 2).astype(np.float16)
    b = (rng.integers(-4, 5, size=(5, 32, 64)) / 2).astype(np.float16)
    d = np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
    return Case(
        "ho_nvcc_mma_layouts", grid=[5],
        buffers=dict(a=Input(a.view(np.uint16), "u16"), b=Input(b.view(np.uint16), "u16"),
                     d=Output("f32", [5, 128, 64], d, 0.0, 0.0,
                              "inputs on a 1/2 grid, |d| < 2^7: exact in f32")),
        args=dict(a=Ptr("a"), b=Ptr("b"), d=Ptr("d")),
        note="tcgen05.mma kind::f16, M=128 N=64, K=32 in two steps, one CTA per operand layout "
             "pair (A, B): (K 32B, K 32B), (K 64B, MN 64B), (MN none, K none), (MN 128B, MN 32B), "
             "(K none, MN none); fp16 bits passed as u16")


def _mma_features_case():
    rng = np.random.default_rng(4003)
    a = (rng.integers(-4, 5, size=(5, 128, 16)) / 2).astype(np.float16)
    b1 = (rng.integers(-4, 5, size=(5, 16, 64)) / 2).astype(np.float16)
    b2 = (rng.integers(-4, 5, size=(5, 16, 64)) / 2).astype(np.float16)
    c = (rng.integers(-16, 17, size=(5, 128, 64)) / 2).astype(np.float32)
    a64, b164, b264, c64 = (x.astype(np.float64) for x in (a, b1, b2, c))
    ab = np.matmul(a64, b164)
    d = np.empty_like(c64)
    d[0] = -ab[0] + c64[0]
    d[1] = ab[1] + c64[1]                      # (-A)(-B) = AB
    d[2] = ab[2] + c64[2] * 2.0**-3
    mask = np.zeros(128, bool)                 # disable-output-lane bits, lane 0 = bit 0 of r0
    for word, bits in enumerate((0xAAAAAAAA, 0, 0xFFFF0000, 0x00000001)):
        for i in range(32):
            mask[32 * word + i] = bool((bits >> i) & 1)
    d[3] = np.where(mask[:, None], c64[3], ab[3] + c64[3])
    d[4] = ab[4] + np.matmul(a64[4], b264[4]) + c64[4]
    return Case(
        "ho_nvcc_mma_features", grid=[5],
        buffers=dict(a=Input(a.view(np.uint16), "u16"), b1=Input(b1.view(np.uint16), "u16"),
                     b2=Input(b2.view(np.uint16), "u16"), c=Input(c, "f32"),
                     d=Output("f32", [5, 128, 64], d.astype(np.float32), 0.0, 0.0,
                              "inputs on a 1/2 grid (C scaled by 2^-3 on a 1/16 grid), "
                              "|d| < 2^8: exact in f32")),
        args=dict(a=Ptr("a"), b1=Ptr("b1"), b2=Ptr("b2"), c=Ptr("c"), d=Ptr("d")),
        note="tcgen05.mma kind::f16 M=128 N=64 K=16 accumulating onto a D stored with tcgen05.st; "
             "one CTA per feature: negate-A, negate-A+B, scale-input-d 3, disable-output-lane "
             "mask, collector::a::fill then ::lastuse")


def _mma_nvf4_case():
    from regen import e2m1_nibbles_to_f64
    rng = np.random.default_rng(4004)
    an = rng.integers(0, 16, size=(128, 64), dtype=np.uint8)         # e2m1 nibbles A[r][k]
    bn = rng.integers(0, 16, size=(64, 64), dtype=np.uint8)          # e2m1 nibbles B[k][n]
    a = (an[:, 0::2] | (an[:, 1::2] << 4)).astype(np.uint8)           # [128][32]
    bt = (bn.T[:, 0::2] | (bn.T[:, 1::2] << 4)).astype(np.uint8)      # [64][32], row n = B[:, n]
    # ue4m3 scales from {0.5, 1, 1.5, 2} (E4M3 with the sign bit clear: 0x30, 0x38, 0x3C, 0x40).
    codes = np.array([0x30, 0x38, 0x3C, 0x40], np.uint8)
    values = np.array([0.5, 1.0, 1.5, 2.0])
    ia = rng.integers(0, 4, size=(128, 4))
    ib = rng.integers(0, 4, size=(64, 4))
    sfa, sfb = codes[ia], codes[ib]
    a64 = e2m1_nibbles_to_f64(an) * np.repeat(values[ia], 16, axis=1)
    b64 = e2m1_nibbles_to_f64(bn) * np.repeat(values[ib], 16, axis=1).T
    d = (a64 @ b64).astype(np.float32)
    return Case(
        "ho_nvcc_mma_nvf4", grid=[1],
        buffers=dict(a=Input(a, "u8"), bt=Input(bt, "u8"), sfa=Input(sfa, "u8"),
                     sfb=Input(sfb, "u8"),
                     d=Output("f32", [128, 64], d, 0.0, 0.0,
                              "e2m1 x ue4m3 values are multiples of 1/8 below 12, sums of 64 "
                              "products stay below 2^14 on a 1/64 grid: exact in f32")),
        args=dict(a=Ptr("a"), bt=Ptr("bt"), sfa=Ptr("sfa"), sfb=Ptr("sfb"), d=Ptr("d")),
        note="NVFP4: tcgen05.mma.kind::mxf4nvf4.block_scale.block16, e2m1 A/B packed two per "
             "byte (low nibble first), ue4m3 scales per 16 K, scales put in TMEM with tcgen05.st")


def _mma_ws_case():
    rng = np.random.default_rng(4005)
    a = (rng.integers(-4, 5, size=(2, 64, 16)) / 2).astype(np.float16)
    b = (rng.integers(-4, 5, size=(2, 16, 64)) / 2).astype(np.float16)
    raw = np.zeros((2, 128, 32))
    for v, (m, cols) in enumerate(((64, 32), (32, 16))):
        dd = a[v, :m].astype(np.float64) @ b[v].astype(np.float64)      # [m][64]
        for j in range(64):
            raw[v, np.arange(m) + m * (j // cols), j % cols] = dd[:, j]
    return Case(
        "ho_nvcc_mma_ws", grid=[2],
        buffers=dict(a=Input(a.view(np.uint16), "u16"), b=Input(b.view(np.uint16), "u16"),
                     raw=Output("f32", [2, 128, 32], raw.astype(np.float32), 0.0, 0.0,
                                "inputs on a 1/2 grid, K = 16: exact; unwritten cells stay 0")),
        args=dict(a=Ptr("a"), b=Ptr("b"), raw=Ptr("raw")),
        note="tcgen05.mma.ws kind::f16, M=64 (CTA 0) and M=32 (CTA 1), N=64, K=16; the raw 128x32 "
             "TMEM block after the MMA, expected from the .ws D layouts E and G (mma.md §9)")


def _mma_ws_collector_case():
    rng = np.random.default_rng(10003)
    # tf32 inputs on a 1/2 grid in [-2, 2] (exact in tf32); int8 in [-8, 8]
    a_tf = (rng.integers(-4, 5, size=(3, 32, 8)) / 2).astype(np.float32)
    b_tf = (rng.integers(-4, 5, size=(128, 8)) / 2).astype(np.float32)
    a_i8 = rng.integers(-8, 9, size=(2, 64, 32)).astype(np.int8)
    b_i8 = rng.integers(-8, 9, size=(128, 32)).astype(np.int8)
    # zero-column mask: non-zero flag (bit 39), span fields 2 (bits 40-47) and 3 (48-55), start
    # counts and first spans 0: the PTX ISA's example 2, read as runs of 4 used then 3 zeroed
    # columns (descriptors.md §4), restarted in each of the two 64-column sub-masks of M = 64
    zcm = (1 << 39) | (2 << 40) | (3 << 48)
    zero = np.array([(j % 64) % 7 >= 4 for j in range(128)])
    d_tf = a_tf.astype(np.float64).sum(0) @ b_tf.astype(np.float64).T           # [32][128]
    raw_tf = np.zeros((128, 32))
    for j in range(128):
        raw_tf[np.arange(32) + 32 * (j // 32), j % 32] = d_tf[:, j]
    b_masked = np.where(zero[:, None], 0, b_i8.astype(np.int64))
    d_i8 = a_i8.astype(np.int64).sum(0) @ b_masked.T                            # [64][128]
    raw_i8 = np.zeros((128, 64))
    for j in range(128):
        raw_i8[np.arange(64) + 64 * (j // 64), j % 64] = d_i8[:, j]
    return Case(
        "ho_nvcc_mma_ws_collector", grid=[1],
        buffers=dict(a_tf=Input(a_tf, "f32"), b_tf=Input(b_tf, "f32"),
                     a_i8=Input(a_i8, "i8"), b_i8=Input(b_i8, "i8"),
                     raw_tf=Output("f32", [128, 32], raw_tf.astype(np.float32), 0.0, 0.0,
                                   "tf32 inputs on a 1/2 grid, 24 products: exact"),
                     raw_i8=Output("i32", [128, 64], raw_i8, 0.0, 0.0, "integers: exact")),
        args=dict(a_tf=Ptr("a_tf"), b_tf=Ptr("b_tf"), a_i8=Ptr("a_i8"), b_i8=Ptr("b_i8"),
                  zcm=zcm, raw_tf=Ptr("raw_tf"), raw_i8=Ptr("raw_i8")),
        note="tcgen05.mma.ws: kind::tf32 M=32 N=128 three MMAs with collector::b1 fill/use/"
             "lastuse (layout G), kind::i8 M=64 N=128 two MMAs with collector::b3 fill/lastuse "
             "and a zero-column mask (PTX ISA example 2 pattern, layout E); the raw TMEM "
             "columns 0..95 after the MMAs")


def _contention_case():
    out = np.zeros((4, 4, 2, 32, 16), dtype=np.uint64)
    for cta in range(4):
        for w in range(4):
            for half in range(2):
                for t in range(32):
                    for r in range(16):   # .16x128b.x8: 16 registers over 16 lanes x 32 columns
                        dl, dc = map_16x128b(t, r)
                        row = 32 * w + 16 * half + dl
                        out[cta, w, half, t, r] = (cta << 24) | (row << 8) | dc
    return Case(
        "ho_nvcc_tmem_contention", grid=[4],
        buffers=dict(out=Output("u32", list(out.shape), out.astype(np.float64), 0.0, 0.0,
                                "bit patterns: exact")),
        args=dict(out=Ptr("out")),
        note="4 CTAs each allocate all 512 TMEM columns (co-resident CTAs must wait for each "
             "other's dealloc), store a CTA-specific pattern with .32x32b.x32 into columns "
             "480..511 and read it back with .16x128b.x8")


def _wide_case():
    rng = np.random.default_rng(5101)
    inp = rng.integers(0, 2**32, size=(7, 4, 32, 64), dtype=np.uint64).astype(np.uint32)
    tmem = np.zeros((128, 512), dtype=np.uint64)
    lo16 = 0xFFFF
    for w in range(4):
        for t in range(32):
            for r in range(64):
                dl, dc = map_16x256b(t, r)
                tmem[32 * w + dl, dc] = inp[0, w, t, r]
                dl, dc = map_16x128b(t, r)
                tmem[32 * w + 16 + dl, dc] = inp[1, w, t, r]
                dl, dc = map_16x64b(t, r)
                tmem[32 * w + dl, 128 + dc] = inp[2, w, t, r]
                # .16x32bx2 with immHalfSplitoff 64: threads 16..31 write 64 columns further.
                tmem[32 * w + 16 + t % 16, 128 + r + (64 if t >= 16 else 0)] = inp[3, w, t, r]
                # .unpack::16b: low half -> column 2c, high half -> column 2c + 1 (low 16 bits).
                v = int(inp[4, w, t, r])
                tmem[32 * w + t, 256 + 2 * r] = v & lo16
                tmem[32 * w + t, 256 + 2 * r + 1] = v >> 16
                if r < 32:
                    for part, base in ((5, 0), (6, 16)):
                        dl, c = map_16x64b(t, r)
                        v = int(inp[part, w, t, r])
                        tmem[32 * w + base + dl, 384 + 2 * c] = v & lo16
                        tmem[32 * w + base + dl, 384 + 2 * c + 1] = v >> 16
    full = tmem[:, :256].copy()
    packed1 = np.zeros((4, 2, 32, 32), dtype=np.uint64)
    packed2 = np.zeros((4, 2, 32, 32), dtype=np.uint64)
    for w in range(4):
        for h in range(2):
            for t in range(32):
                for r in range(32):
                    for out, fmap, col in ((packed1, map_16x128b, 256), (packed2, map_16x256b, 384)):
                        dl, c = fmap(t, r)
                        lane = 32 * w + 16 * h + dl
                        out[w, h, t, r] = ((tmem[lane, col + 2 * c] & lo16)
                                           | ((tmem[lane, col + 2 * c + 1] & lo16) << 16))
    why = "bit patterns moved through TMEM: exact"
    return Case(
        "ho_nvcc_tmem_wide", grid=[1],
        buffers=dict(inp=Input(inp, "u32"),
                     full=Output("u32", [128, 256], full.astype(np.float64), 0.0, 0.0, why),
                     packed1=Output("u32", [4, 2, 32, 32], packed1.astype(np.float64), 0.0, 0.0,
                                    why),
                     packed2=Output("u32", [4, 2, 32, 32], packed2.astype(np.float64), 0.0, 0.0,
                                    why)),
        args=dict(inp=Ptr("inp"), full=Ptr("full"), packed1=Ptr("packed1"),
                  packed2=Ptr("packed2")),
        note="One CTA, all 512 columns: wide stores (.16x256b.x16, .16x128b.x32, .16x64b.x64, "
             ".16x32bx2.x64 with half offset 64, .32x32b.x64.unpack::16b, .16x64b.x32.unpack::16b) "
             "read back with .32x32b.x128, .16x128b.x16.pack::16b and .16x256b.x8.pack::16b; "
             "expected values from the fragment maps in numpy")


def _m64_halves_case():
    rng = np.random.default_rng(5102)
    a = (rng.integers(-4, 5, size=(2, 64, 16)) / 2).astype(np.float16)
    b = (rng.integers(-4, 5, size=(2, 16, 64)) / 2).astype(np.float16)
    raw = np.full((128, 64), -1.0)
    for v in range(2):
        d = a[v].astype(np.float64) @ b[v].astype(np.float64)
        for i in range(64):
            raw[16 * v + i % 16 + 32 * (i // 16), :] = d[i]
    return Case(
        "ho_nvcc_mma_m64_halves", grid=[1],
        buffers=dict(a=Input(a.view(np.uint16), "u16"), b=Input(b.view(np.uint16), "u16"),
                     raw=Output("f32", [128, 64], raw.astype(np.float32), 0.0, 0.0,
                                "inputs on a 1/2 grid, K = 16: exact; every cell written")),
        args=dict(a=Ptr("a"), b=Ptr("b"), raw=Ptr("raw")),
        note="two tcgen05.mma kind::f16 with M = 64 (non-.ws) into the same 64 columns, D at lane 0 "
             "and at lane 16: layout F puts row i at lane L0 + i % 16 + 32 * (i / 16); the raw "
             "128 x 64 TMEM block is compared (mma.md §9)")


def _cp_shift_mma_case():
    rng = np.random.default_rng(5103)
    a = (rng.integers(-4, 5, size=(128, 16)) / 2).astype(np.float16)
    b = (rng.integers(-4, 5, size=(16, 64)) / 2).astype(np.float16)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    shifted = a64.copy()
    for q in range(4):   # row k+1 <- row k inside each 32-lane block
        shifted[32 * q + 1:32 * q + 32] = a64[32 * q:32 * q + 31]
    d2 = shifted @ b64
    d2[0::32] = 0.0      # row 0 of each block: content after the shift unspecified, written as 0
    exact = "inputs on a 1/2 grid, K = 16: exact"
    return Case(
        "ho_nvcc_cp_shift_mma", grid=[1],
        buffers=dict(a=Input(a.view(np.uint16), "u16"), b=Input(b.view(np.uint16), "u16"),
                     d1=Output("f32", [128, 64], (a64 @ b64).astype(np.float32), 0.0, 0.0, exact),
                     d2=Output("f32", [128, 64], d2.astype(np.float32), 0.0, 0.0, exact)),
        args=dict(a=Ptr("a"), b=Ptr("b"), d1=Ptr("d1"), d2=Ptr("d2")),
        note="one thread issues cp.128x256b (A into TMEM, then commit + wait) -> mma (A from "
             "TMEM) -> 4 x shift.down -> mma -> commit with no wait in between (the ISA's "
             "pipelined pairs mma -> shift and shift -> mma); D1 = A @ B, D2 = shift(A) @ B")


def _ldst_cp_forms_case():
    rng = np.random.default_rng(6201)
    u32 = lambda *shape: rng.integers(0, 2**32, size=shape, dtype=np.uint64).astype(np.uint32)  # noqa: E731
    src128, src32, frag, h16 = u32(128, 4), u32(32, 4), u32(4, 2, 32, 4), u32(4, 32, 4)
    tmem = np.zeros((128, 64), dtype=np.uint64)
    tmem[:, 0:4] = src128                       # cp.128x128b: row i -> lane i, columns 0..3
    for q in range(4):                          # cp.32x128b.warpx4: row i -> lane i + 32q
        tmem[32 * q:32 * q + 32, 4:8] = src32
    for w in range(4):
        for h in range(2):
            for t in range(32):
                for r in range(4):              # st.16x32bx2.x4, immHalfSplitoff 16
                    lane = 32 * w + 16 * h + t % 16
                    tmem[lane, 8 + r + (16 if t >= 16 else 0)] = frag[w, h, t, r]
        for t in range(32):
            for r in range(4):                  # st.32x32b.x4.unpack::16b: low halves only
                tmem[32 * w + t, 32 + 2 * r] = h16[w, t, r] & 0xFFFF
                tmem[32 * w + t, 33 + 2 * r] = h16[w, t, r] >> 16
    packed = np.zeros((4, 2, 32, 2), dtype=np.uint64)
    split = np.zeros_like(packed)
    q128 = np.zeros_like(packed)
    for w in range(4):
        for h in range(2):
            for t in range(32):
                for r in range(2):
                    dl, c = map_16x64b(t, r)    # ld.16x64b.x2.pack::16b at column 32
                    lane = 32 * w + 16 * h + dl
                    packed[w, h, t, r] = ((tmem[lane, 32 + 2 * c] & 0xFFFF)
                                          | ((tmem[lane, 33 + 2 * c] & 0xFFFF) << 16))
                    # ld.16x32bx2.x2 at column 4, immHalfSplitoff 20
                    split[w, h, t, r] = tmem[32 * w + 16 * h + t % 16,
                                             4 + r + (20 if t >= 16 else 0)]
                    dl, dc = map_16x128b(t, r)  # ld.16x128b.x1 at column 0
                    q128[w, h, t, r] = tmem[32 * w + 16 * h + dl, dc]
    why = "bit patterns moved through TMEM: exact"
    out = lambda a: Output("u32", list(a.shape), a.astype(np.float64), 0.0, 0.0, why)  # noqa: E731
    return Case(
        "ho_nvcc_ldst_cp_forms", grid=[1],
        buffers=dict(src128=Input(src128, "u32"), src32=Input(src32, "u32"),
                     frag=Input(frag, "u32"), h16=Input(h16, "u32"), raw=out(tmem[:, 0:32]),
                     packed=out(packed), split=out(split), q128=out(q128)),
        args=dict(src128=Ptr("src128"), src32=Ptr("src32"), frag=Ptr("frag"), h16=Ptr("h16"),
                  raw=Ptr("raw"), packed=Ptr("packed"), split=Ptr("split"), q128=Ptr("q128")),
        note="tcgen05.cp.128x128b and .32x128b.warpx4 from a no-swizzle source, "
             "st.16x32bx2.x4 with immHalfSplitoff 16, st.32x32b.x4.unpack::16b; loads "
             ".32x32b.x32, .16x64b.x2.pack::16b, .16x32bx2.x2 (imm 20), .16x128b.x1; expected "
             "from the DERIVED fragment maps (data-movement.md §2.4/§2.5/§5.3)")



# ---- batch 11 ---------------------------------------------------------------------------------
def _cp_shift_refresh_case():
    rng = np.random.default_rng(11301)
    u32 = lambda *shape: rng.integers(0, 2**32, size=shape, dtype=np.uint64).astype(np.uint32)  # noqa: E731
    src_a, src_b, src_r, init = u32(64, 4), u32(64, 4), u32(4, 8), u32(128, 16)
    tmem = init.astype(np.uint64).copy()
    for i in range(64):                 # .64x128b.warpx2::02_13 at column 0
        tmem[i, 0:4] = src_a[i]
        tmem[64 + i, 0:4] = src_a[i]
    for i in range(64):                 # .64x128b.warpx2::01_23 at column 4
        lanes = (i, 32 + i) if i < 32 else (32 + i, 64 + i)
        for lane in lanes:
            tmem[lane, 4:8] = src_b[i]
    # shift.down of columns 8..15 within lanes 0..31 (lane k + 1 <- old lane k), then
    # cp.4x256b: row q -> lane 32q (refilling lane 0, which the shift left unspecified)
    old = tmem[0:32, 8:16].copy()
    tmem[1:32, 8:16] = old[0:31]
    for q in range(4):
        tmem[32 * q, 8:16] = src_r[q]
    return Case(
        "ho_nvcc_cp_shift_refresh", grid=[1],
        buffers=dict(src_a=Input(src_a, "u32"), src_b=Input(src_b, "u32"),
                     src_r=Input(src_r, "u32"), init=Input(init, "u32"),
                     raw=Output("u32", [128, 16], tmem.astype(np.float64), 0.0, 0.0,
                                "bit patterns moved through TMEM: exact")),
        args=dict(src_a=Ptr("src_a"), src_b=Ptr("src_b"), src_r=Ptr("src_r"), init=Ptr("init"),
                  raw=Ptr("raw")),
        note="tcgen05.cp.64x128b.warpx2::02_13 and ::01_23 from no-swizzle sources with SBO 256, "
             "tcgen05.shift.down then at once tcgen05.cp.4x256b into the same columns (the "
             "shift -> cp.4x256b pipelined pair), one commit; the raw 128 x 16 block, expected "
             "from the DERIVED placement of data-movement.md §5.3 / §6")


def _e3m2_to_f64(b):
    b = np.asarray(b, np.int64)
    s = np.where(b & 0x20, -1.0, 1.0)
    e, m = (b >> 2) & 7, b & 3
    return s * np.where(e == 0, m / 16.0, 2.0 ** (e - 3) * (1 + m / 4.0))


def _e2m3_to_f64(b):
    b = np.asarray(b, np.int64)
    s = np.where(b & 0x20, -1.0, 1.0)
    e, m = (b >> 3) & 3, b & 7
    return s * np.where(e == 0, m / 8.0, 2.0 ** (e - 1) * (1 + m / 8.0))


def _e5m2_to_f64(b):
    b = np.asarray(b, np.int64)
    s = np.where(b & 0x80, -1.0, 1.0)
    e, m = (b >> 2) & 31, b & 3
    return s * np.where(e == 0, m / 4.0 * 2.0 ** -14, 2.0 ** (e - 15) * (1 + m / 4.0))


def _decomp_image(rng, codes, bits):
    """The shared-memory source of a tcgen05.cp.128x256b.b8x16.b{4,6}x16_*: row i, 16-element
    unit j at (i % 8) * 16 + (i // 8) * 128 (SBO) + j * 2048 (LBO); a unit is the 16 codes
    packed little-endian (element e at bits bits*e) in 8 or 12 bytes, then padding bytes that
    must not matter (random)."""
    img = rng.integers(0, 256, size=4096, dtype=np.uint64).astype(np.uint8)
    for i in range(128):
        for j in range(2):
            v = 0
            for e in range(16):
                v |= int(codes[i, 16 * j + e]) << (bits * e)
            nb = 2 * bits
            off = (i % 8) * 16 + (i // 8) * 128 + j * 2048
            img[off:off + nb] = np.frombuffer(v.to_bytes(nb, "little"), np.uint8)
    return img


def _cp_decomp_mma_case():
    from regen import e2m1_nibbles_to_f64, e4m3_bits_to_f64
    rng = np.random.default_rng(11302)
    a1 = rng.integers(0, 16, size=(128, 32))                  # e2m1 codes
    a2 = rng.integers(0, 64, size=(128, 32))                  # e3m2 codes (|v| <= 28)
    a3 = rng.integers(0, 64, size=(128, 32))                  # e2m3 codes (|v| <= 7.5)
    # B1 e4m3 and B2 e5m2 codes whose values are 0 or have magnitude in [2^-6, 2] (e4m3) /
    # [2^-4, 4] (e5m2): every product and sum below stays on a coarse grid
    e4 = np.arange(256)
    v4 = e4m3_bits_to_f64(e4.astype(np.uint8))
    ok4 = e4[(v4 == 0) | ((np.abs(v4) >= 2.0 ** -6) & (np.abs(v4) <= 2))]
    e5 = np.arange(256)
    v5 = _e5m2_to_f64(e5)
    ok5 = e5[(v5 == 0) | ((np.abs(v5) >= 2.0 ** -4) & (np.abs(v5) <= 4))]
    b1t = rng.choice(ok4, size=(64, 32)).astype(np.uint8)     # row n = B1[:, n]
    b2t = rng.choice(ok5, size=(64, 32)).astype(np.uint8)
    A1, A2, A3 = e2m1_nibbles_to_f64(a1.astype(np.uint8)), _e3m2_to_f64(a2), _e2m3_to_f64(a3)
    B1, B2 = e4m3_bits_to_f64(b1t).T, _e5m2_to_f64(b2t).T
    d1 = (A1 @ B1).astype(np.float32)
    d2 = (A2 @ B2 + A3 @ B1).astype(np.float32)
    why1 = ("e2m1 (multiples of 1/2, |a| <= 6) times e4m3 in {0} U [2^-6, 2] (multiples of "
            "2^-9): products multiples of 2^-10 below 12, 32-term sums below 2^9: 19 significant "
            "bits, exact in f32")
    why2 = ("e3m2 (multiples of 2^-4, |a| <= 28) times e5m2 in {0} U [2^-4, 4] (multiples of "
            "2^-6) and e2m3 (multiples of 1/8, |a| <= 7.5) times the e4m3 B1: every product a "
            "multiple of 2^-12, 64-term sums below 2^12 (3584 + 480): at most 24 significant "
            "bits, exact in f32")
    return Case(
        "ho_nvcc_cp_decomp_mma", grid=[1],
        buffers=dict(a1img=Input(_decomp_image(rng, a1, 4), "u8"),
                     a2img=Input(_decomp_image(rng, a2, 6), "u8"),
                     a3img=Input(_decomp_image(rng, a3, 6), "u8"),
                     b1t=Input(b1t, "u8"), b2t=Input(b2t, "u8"),
                     d1=Output("f32", [128, 64], d1, 0.0, 0.0, why1),
                     d2=Output("f32", [128, 64], d2, 0.0, 0.0, why2)),
        args=dict(a1img=Ptr("a1img"), a2img=Ptr("a2img"), a3img=Ptr("a3img"), b1t=Ptr("b1t"),
                  b2t=Ptr("b2t"), d1=Ptr("d1"), d2=Ptr("d2")),
        note="tcgen05.cp.128x256b.b8x16.b4x16_p64 (e2m1) and .b8x16.b6x16_p32 (e3m2, e2m3) "
             "decompress A operands into TMEM; each copy is followed at once by a kind::f8f6f4 "
             "MMA reading A from TMEM (D1 = A1 x B1 e4m3, D2 = A2 x B2 e5m2 + A3 x B1), "
             "M = 128, N = 64, K = 32; padding bytes of the packed units are random")


def _mma_mx_aliases_case():
    from regen import e2m1_nibbles_to_f64, e4m3_bits_to_f64, e8m0_to_f64
    rng = np.random.default_rng(11303)
    M, N = 128, 64
    ue4m3_codes = np.array([0x30, 0x38, 0x3C, 0x40], np.uint8)     # 0.5, 1, 1.5, 2
    ue4m3_vals = np.array([0.5, 1.0, 1.5, 2.0])
    a = np.zeros((4, M, 32), np.uint8)
    bt = np.zeros((4, N, 32), np.uint8)
    # every byte of a scale cell random: an MMA reading the wrong byte gets other scales
    sfa = rng.integers(0, 2**32, size=(4, M), dtype=np.uint64).astype(np.uint32)
    sfb = rng.integers(0, 2**32, size=(4, N), dtype=np.uint64).astype(np.uint32)
    d = np.zeros((4, M, N))

    def set_bytes(cells, first, codes):        # codes [rows][j] into bytes first + j
        for j in range(codes.shape[1]):
            sh = 8 * (first + j)
            cells[:] = (cells & ~np.uint32(0xFF << sh)) | (codes[:, j].astype(np.uint32) << sh)

    # D0, D1, D2: e2m1 x e2m1, K = 64 packed two per byte (element 2kb in the low nibble)
    for m, (nsf, ue8m0, ida, idb) in enumerate(((2, True, 2, 0), (4, False, 0, 0),
                                                 (2, True, 0, 2))):
        an = rng.integers(0, 16, size=(M, 64), dtype=np.uint8)
        bn = rng.integers(0, 16, size=(64, N), dtype=np.uint8)         # B[k][n]
        a[m] = an[:, 0::2] | (an[:, 1::2] << 4)
        bt[m] = bn.T[:, 0::2] | (bn.T[:, 1::2] << 4)
        if ue8m0:   # 2^-1 .. 2^1: scaled partial sums stay exact (below)
            ca = rng.integers(126, 129, size=(M, nsf)).astype(np.uint8)
            cb = rng.integers(126, 129, size=(N, nsf)).astype(np.uint8)
            va, vb = e8m0_to_f64(ca), e8m0_to_f64(cb)
        else:
            ia, ib = rng.integers(0, 4, size=(M, nsf)), rng.integers(0, 4, size=(N, nsf))
            ca, cb, va, vb = ue4m3_codes[ia], ue4m3_codes[ib], ue4m3_vals[ia], ue4m3_vals[ib]
        set_bytes(sfa[m], ida, ca)
        set_bytes(sfb[m], idb, cb)
        blk = 64 // nsf
        a64 = e2m1_nibbles_to_f64(an) * np.repeat(va, blk, axis=1)
        b64 = e2m1_nibbles_to_f64(bn) * np.repeat(vb, blk, axis=1).T
        d[m] = a64 @ b64
    # D3: e5m2 (A) x e4m3 (B), K = 32, one ue8m0 scale per row / column: A ID 3, B ID 1
    e = np.arange(256)
    v5 = np.vectorize(lambda c: _e5m2_to_f64(c))(e)
    v4 = e4m3_bits_to_f64(e.astype(np.uint8))
    ok5 = e[(v5 == 0) | ((np.abs(v5) >= 0.25) & (np.abs(v5) <= 4))]
    ok4 = e[(v4 == 0) | ((np.abs(v4) >= 0.125) & (np.abs(v4) <= 2))]
    a[3] = rng.choice(ok5, size=(M, 32))
    bt[3] = rng.choice(ok4, size=(N, 32))
    ca = rng.integers(126, 129, size=(M, 1)).astype(np.uint8)
    cb = rng.integers(126, 129, size=(N, 1)).astype(np.uint8)
    set_bytes(sfa[3], 3, ca)
    set_bytes(sfb[3], 1, cb)
    d[3] = ((_e5m2_to_f64(a[3]) * e8m0_to_f64(ca)) @
            (e4m3_bits_to_f64(bt[3]) * e8m0_to_f64(cb)).T)
    why = ("D0-D2: e2m1 (multiples of 1/2, |x| <= 6) times scale products in 2^-2..2^2 (ue8m0 "
           "2^-1..2^1) or multiples of 1/16 up to 4 (ue4m3 0.5..2): products multiples of 2^-6 "
           "below 2^8, 64-term sums below 2^14: 20 significant bits; D3: e5m2 in {0} U [1/4, 4] "
           "(multiples of 2^-4) times e4m3 in {0} U [1/8, 2] (multiples of 2^-6) times 2^-2..2^2, "
           "32-term sums below 2^10 on a 2^-12 grid: 22 bits; all exact in f32")
    return Case(
        "ho_nvcc_mma_mx_aliases", grid=[1],
        buffers=dict(a=Input(a, "u8"), bt=Input(bt, "u8"), sfa=Input(sfa, "u32"),
                     sfb=Input(sfb, "u32"),
                     d=Output("f32", [4, M, N], d.astype(np.float32), 0.0, 0.0, why)),
        args=dict(a=Ptr("a"), bt=Ptr("bt"), sfa=Ptr("sfa"), sfb=Ptr("sfb"), d=Ptr("d")),
        note="block-scaled MMAs, M = 128, N = 64: mxf4nvf4.block32 with UE8M0 scales (scale_A "
             "ID 2), mxf4nvf4.scale_vec::4X (UE4M3), mxf4.scale_vec::2X (scale_B ID 2), "
             "mxf8f6f4.scale_vec::1X e5m2 x e4m3 (IDs 3 and 1); scales stored into TMEM with "
             "tcgen05.st (mma.md §6 layout), the unused bytes of each scale cell random")


def _mma_tmem_a_forms_case():
    from regen import e4m3_bits_to_f64, e8m0_to_f64
    rng = np.random.default_rng(11304)
    M, N = 128, 64
    a = (rng.integers(-4, 5, size=(M, 16)) / 2).astype(np.float16)
    b = (rng.integers(-4, 5, size=(16, N)) / 2).astype(np.float16)
    a16 = a.view(np.uint16).astype(np.uint32)
    a16 = (a16[:, 0::2] | (a16[:, 1::2] << 16)).astype(np.uint32)      # element 2c low half
    b16t = np.ascontiguousarray(b.T).view(np.uint8)                     # [64][32] bytes
    e = np.arange(256)
    v4 = e4m3_bits_to_f64(e.astype(np.uint8))
    v5 = _e5m2_to_f64(e)
    ok4 = e[(v4 == 0) | ((np.abs(v4) >= 0.125) & (np.abs(v4) <= 2))]
    ok5 = e[(v5 == 0) | ((np.abs(v5) >= 0.25) & (np.abs(v5) <= 4))]
    a8c = rng.choice(ok4, size=(M, 32)).astype(np.uint8)
    b8t = rng.choice(ok5, size=(N, 32)).astype(np.uint8)
    a8 = a8c.reshape(M, 8, 4).astype(np.uint32)
    a8 = (a8[..., 0] | (a8[..., 1] << 8) | (a8[..., 2] << 16) | (a8[..., 3] << 24)).astype(np.uint32)
    sa = rng.integers(126, 129, size=M).astype(np.uint8)
    sb = rng.integers(126, 129, size=N).astype(np.uint8)
    d0 = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    d1 = ((e4m3_bits_to_f64(a8c) * e8m0_to_f64(sa)[:, None]) @
          (_e5m2_to_f64(b8t) * e8m0_to_f64(sb)[:, None]).T).astype(np.float32)
    return Case(
        "ho_nvcc_mma_tmem_a_forms", grid=[1],
        buffers=dict(a16=Input(a16, "u32"), a8=Input(a8, "u32"), b16t=Input(b16t, "u8"),
                     b8t=Input(b8t, "u8"), sfa=Input(sa.astype(np.uint32), "u32"),
                     sfb=Input(sb.astype(np.uint32), "u32"),
                     d0=Output("f32", [M, N], d0, 0.0, 0.0,
                               "f16 on a 1/2 grid, K = 16: products on a 1/4 grid below 4, "
                               "sums below 2^6: exact"),
                     d1=Output("f32", [M, N], d1, 0.0, 0.0,
                               "e4m3 in {0} U [1/8, 2] (multiples of 2^-6) times e5m2 in {0} U "
                               "[1/4, 4] (multiples of 2^-4) times scales 2^-2..2^2: 32-term "
                               "sums below 2^10 on a 2^-12 grid, 22 bits: exact")),
        args=dict(a16=Ptr("a16"), a8=Ptr("a8"), b16t=Ptr("b16t"), b8t=Ptr("b8t"),
                  sfa=Ptr("sfa"), sfb=Ptr("sfb"), d0=Ptr("d0"), d1=Ptr("d1")),
        note="A operands in TMEM (tcgen05.st) for a .ws kind::f16 MMA (M = 128, N = 64) and a "
             "kind::mxf8f6f4.block_scale.block32 MMA (e4m3 A from TMEM, e5m2 B, ue8m0 scales); "
             "B K-major 32B-swizzled in shared memory")


def _max_num_case():
    val = lambda part, w, t, r: (part << 28) | (w << 20) | (t << 12) | r  # noqa: E731
    tmem = np.zeros((128, 512), dtype=np.uint64)
    for w in range(4):
        for t in range(32):
            for r in range(128):
                dl, dc = map_16x256b(t, r)                                 # part 0, x32
                tmem[32 * w + dl, dc] = val(0, w, t, r)
                dl, dc = map_16x128b(t, r)                                 # part 1, x64
                tmem[32 * w + 16 + dl, dc] = val(1, w, t, r)
                dl, dc = map_16x64b(t, r)                                  # part 2, x128
                tmem[32 * w + dl, 256 + dc] = val(2, w, t, r)
                # part 3: .16x32bx2.x128, immHalfSplitoff 128
                tmem[32 * w + 16 + t % 16, 256 + r + (128 if t >= 16 else 0)] = val(3, w, t, r)
    w = 2                                                                  # the warp written out
    back = np.zeros((4, 32, 128), dtype=np.uint64)
    for t in range(32):
        for r in range(128):
            dl, dc = map_16x64b(t, r)
            back[0, t, r] = tmem[32 * w + 16 + dl, dc]
            dl, dc = map_16x256b(t, r)
            back[1, t, r] = tmem[32 * w + dl, 256 + dc]
            back[2, t, r] = tmem[32 * w + t % 16, r + (128 if t >= 16 else 0)]
            dl, dc = map_16x128b(t, r)
            back[3, t, r] = tmem[32 * w + 16 + dl, 256 + dc]
    return Case(
        "ho_nvcc_tmem_max_num", grid=[1],
        buffers=dict(back=Output("u32", [4, 32, 128], back.astype(np.float64), 0.0, 0.0,
                                 "bit patterns moved through TMEM: exact")),
        args=dict(back=Ptr("back")),
        note="One CTA, all 512 columns: stores at the largest .num of every 16-lane shape "
             "(.16x256b.x32, .16x128b.x64, .16x64b.x128, .16x32bx2.x128 with half offset 128), "
             "values naming their warp, thread and register, read back crosswise with the same "
             "four shapes (warp 2's registers written out); expected from the fragment maps in "
             "numpy")


def _mma_ws_n256_sat_case():
    from regen import bf16_bits_to_f64, e4m3_bits_to_f64, f32_to_bf16_bits
    rng = np.random.default_rng(12401)
    NCOL = 288
    e = np.arange(256)
    v4, v5 = e4m3_bits_to_f64(e.astype(np.uint8)), _e5m2_to_f64(e)
    ok4 = e[(v4 == 0) | ((np.abs(v4) >= 0.125) & (np.abs(v4) <= 2))]
    ok5 = e[(v5 == 0) | ((np.abs(v5) >= 0.25) & (np.abs(v5) <= 4))]
    a1 = rng.choice(ok4, size=(32, 32)).astype(np.uint8)                  # [M][K] e4m3
    b1 = rng.choice(ok5, size=(256, 32)).astype(np.uint8)                 # [N][K] e5m2
    a2v = rng.integers(-4, 5, size=(64, 16)) / 4                          # bf16-exact
    b2v = rng.integers(-4, 5, size=(256, 16)) / 4
    a2 = f32_to_bf16_bits(a2v.astype(np.float32))
    b2 = f32_to_bf16_bits(b2v.astype(np.float32))
    assert np.array_equal(bf16_bits_to_f64(a2), a2v)
    a3 = rng.integers(0, 256, size=(128, 32)).astype(np.uint8)            # U8
    sign3 = np.where(np.arange(32) % 2 == 0, 1, -1)                       # column signs of B3
    b3 = (rng.integers(0, 128, size=(32, 32)) * sign3[:, None]).astype(np.int8)   # [N][K]
    a4 = rng.integers(-128, 128, size=(128, 32)).astype(np.int8)          # S8
    b4 = rng.integers(0, 256, size=(64, 32)).astype(np.uint8)             # U8
    # the preloaded raw block: f32 values on a 1/4 grid in columns 0..191, s32 beyond
    init = np.zeros((128, NCOL), dtype=np.uint32)
    finit = (rng.integers(-4, 5, size=(128, 192)) / 4).astype(np.float32)
    init[:, :192] = finit.view(np.uint32)
    # MMA 3 block: per column, rows start near the bound the column's sign moves towards
    # (|A3 B3| <= 32 * 255 * 127 < 2^20), so that some cells saturate and some do not
    big = (1 << 31) - 1
    near = rng.integers(0, 1 << 20, size=(128, 32))
    i3 = np.where(sign3[None, :] > 0, big - near, -(1 << 31) + near)
    i3[::5] = rng.integers(-1000, 1000, size=i3[::5].shape)               # some far from both
    init[:, 192:224] = i3.astype(np.int64).astype(np.uint32)
    i4 = rng.integers(-(1 << 12), 1 << 12, size=(128, 64))
    init[:, 224:288] = i4.astype(np.int64).astype(np.uint32)

    raw = init.astype(np.float64)          # bit patterns as numbers (u32 output)
    def put_f32(col0, vals):               # noqa: E306
        raw[:, col0:col0 + vals.shape[1]] = vals.astype(np.float32).view(np.uint32)
    # 1: .ws M = 32, N = 256, layout G: D(i, j) -> lane i + 32 (j // 64), column j % 64
    d1 = e4m3_bits_to_f64(a1) @ _e5m2_to_f64(b1).T                        # [32][256]
    blk = np.zeros((128, 64))
    for j in range(256):
        blk[np.arange(32) + 32 * (j // 64), j % 64] = d1[:, j]
    put_f32(0, blk)
    # 2: .ws M = 64, N = 256, layout E: D(i, j) -> lane i + 64 (j // 128), column j % 128
    d2 = a2v @ b2v.T
    blk = finit[:, 64:192].astype(np.float64).copy()
    for j in range(256):
        blk[np.arange(64) + 64 * (j // 128), j % 128] += d2[:, j]
    put_f32(64, blk)
    # 3: saturating s32, layout D
    d3 = np.clip(i3 + a3.astype(np.int64) @ b3.astype(np.int64).T, -(1 << 31), big)
    assert np.any(d3 == big) and np.any(d3 == -(1 << 31)) and np.any(np.abs(d3) < (1 << 30))
    assert np.any((d3 != big) & (i3 > (1 << 30))) and np.any((d3 > -(1 << 31)) & (i3 < -(1 << 30)))
    raw[:, 192:224] = d3.astype(np.int64).astype(np.uint32)
    # 4: .ws M = 128 (layout D), s8 x u8, no overflow
    d4 = i4 + a4.astype(np.int64) @ b4.astype(np.int64).T
    assert np.abs(d4).max() < (1 << 31)
    raw[:, 224:288] = d4.astype(np.int64).astype(np.uint32)
    def bytes_of(x):                       # noqa: E306
        return np.ascontiguousarray(x).view(np.uint8).reshape(x.shape[0], 32)
    return Case(
        "ho_nvcc_mma_ws_n256_sat", grid=[1],
        buffers=dict(a1=Input(a1, "u8"), b1=Input(b1, "u8"), a2=Input(bytes_of(a2), "u8"),
                     b2=Input(bytes_of(b2), "u8"), a3=Input(a3, "u8"),
                     b3=Input(b3.view(np.uint8), "u8"), a4=Input(a4.view(np.uint8), "u8"),
                     b4=Input(b4, "u8"), init=Input(init, "u32"),
                     raw=Output("u32", [128, NCOL], raw, 0.0, 0.0,
                                "bit patterns: e4m3 in {0} U [1/8, 2] x e5m2 in {0} U [1/4, 4], "
                                "32 products on a 2^-10 grid below 2^8: exact; bf16 on a 1/4 "
                                "grid, 16 products plus a 1/4-grid preload: exact; integer "
                                "sums (saturated where the column's sign drives them past "
                                "s32): exact")),
        args=dict(a1=Ptr("a1"), b1=Ptr("b1"), a2=Ptr("a2"), b2=Ptr("b2"), a3=Ptr("a3"),
                  b3=Ptr("b3"), a4=Ptr("a4"), b4=Ptr("b4"), init=Ptr("init"), raw=Ptr("raw")),
        note="tcgen05.mma.ws kind::f8f6f4 e4m3 x e5m2 M = 32 N = 256 (layout G, 64 columns), "
             ".ws kind::f16 bf16 M = 64 N = 256 (layout E, 128 columns) onto a preload, "
             "kind::i8 with the saturate bit, U8 x S8, onto s32 values near INT32_MAX/MIN, "
             ".ws kind::i8 S8 x U8 M = 128 N = 64; the raw TMEM block (128 x 288) after the "
             "MMAs, as bit patterns")


def _sparse_pack(rng, dense_vals):
    """2:4 sparsity of one operand: dense_vals [M][K] candidate values; returns (packed [M][K/2]
    of the values kept, dense [M][K] with the others zeroed, index pairs [M][K/4][2]): each group
    of 4 keeps two distinct positions i0 < i1 (the mma.sp metadata encoding, mma.md)."""
    M, K = dense_vals.shape
    pairs = np.array([(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)])
    idx = pairs[rng.integers(0, 6, size=(M, K // 4))]                        # [M][K/4][2]
    cols = 4 * np.arange(K // 4)[None, :, None] + idx                         # [M][K/4][2]
    packed = np.take_along_axis(dense_vals, cols.reshape(M, K // 2), axis=1)
    dense = np.zeros_like(dense_vals)
    np.put_along_axis(dense, cols.reshape(M, K // 2), packed, axis=1)
    return packed, dense, idx


def _mma_sparse_case():
    from regen import e4m3_bits_to_f64
    rng = np.random.default_rng(12402)
    M, N = 128, 64
    # metadata words: nibble g of row m = idx0 | idx1 << 2 (first stored element's position in
    # bits 1..0). Places (DERIVED from CUTLASS tmem_e_frg, crates/tmem/src/mma/sparse.rs):
    #   kind::f16 (K 32: 8 nibbles, one column): lane (m % 8) + 8 (g / 4) + 16 (m / 16), bits
    #   16 ((m / 8) % 2) + 4 (g % 4);  8-bit kinds (K 64: 16 nibbles, two columns): lane m,
    #   column g / 8, bits 4 (g % 8).
    meta = np.zeros((128, 5), dtype=np.uint64)

    def put_meta(idx, kind, col0):
        nib = idx[..., 0] | (idx[..., 1] << 2)
        for m in range(M):
            for g in range(nib.shape[1]):
                if kind == "f16":
                    lane, col, bit = (m % 8) + 8 * (g // 4) + 16 * (m // 16), 0, 16 * ((m // 8) % 2) + 4 * (g % 4)
                else:
                    lane, col, bit = m, g // 8, 4 * (g % 8)
                meta[lane, col0 + col] |= np.uint64(int(nib[m, g]) << bit)

    # 1: f16, K = 32
    v1 = rng.integers(-4, 5, size=(M, 32)) / 2
    p1, d1a, i1 = _sparse_pack(rng, v1)
    b1 = (rng.integers(-4, 5, size=(N, 32)) / 2)
    put_meta(i1, "f16", 0)
    d1 = d1a @ b1.T
    # 2: s8 x s8, K = 64, onto a preload
    v2 = rng.integers(-128, 128, size=(M, 64))
    p2, d2a, i2 = _sparse_pack(rng, v2)
    b2 = rng.integers(-128, 128, size=(N, 64))
    put_meta(i2, "i8", 1)
    init = rng.integers(-(1 << 12), 1 << 12, size=(M, N))
    d2 = init + d2a @ b2.T
    # 3: e4m3 x e5m2, K = 64, .ws
    e = np.arange(256)
    v4, v5 = e4m3_bits_to_f64(e.astype(np.uint8)), _e5m2_to_f64(e)
    ok4 = e[(v4 == 0) | ((np.abs(v4) >= 0.125) & (np.abs(v4) <= 2))]
    ok5 = e[(v5 == 0) | ((np.abs(v5) >= 0.25) & (np.abs(v5) <= 4))]
    c3 = rng.choice(ok4, size=(M, 64))
    p3c, _, i3 = _sparse_pack(rng, c3)
    b3c = rng.choice(ok5, size=(N, 64))
    put_meta(i3, "i8", 3)
    d3a = np.zeros((M, 64))
    cols3 = (4 * np.arange(16)[None, :, None] + i3).reshape(M, 32)
    np.put_along_axis(d3a, cols3, e4m3_bits_to_f64(p3c.astype(np.uint8)), axis=1)
    d3 = d3a @ _e5m2_to_f64(b3c).T
    raw = np.zeros((M, 192))
    raw[:, 0:64] = d1.astype(np.float32).view(np.uint32)
    raw[:, 64:128] = d2.astype(np.int64).astype(np.uint32)
    raw[:, 128:192] = d3.astype(np.float32).view(np.uint32)
    f16b = lambda x: np.ascontiguousarray(x.astype(np.float16)).view(np.uint8)   # noqa: E731
    return Case(
        "ho_nvcc_mma_sparse", grid=[1],
        buffers=dict(a1=Input(f16b(p1), "u8"), b1=Input(f16b(b1), "u8"),
                     a2=Input(p2.astype(np.int8).view(np.uint8), "u8"),
                     b2=Input(b2.astype(np.int8).view(np.uint8), "u8"),
                     a3=Input(p3c.astype(np.uint8), "u8"), b3=Input(b3c.astype(np.uint8), "u8"),
                     meta=Input(meta.astype(np.uint32), "u32"),
                     init=Input(init.astype(np.int64).astype(np.uint32), "u32"),
                     raw=Output("u32", [M, 192], raw, 0.0, 0.0,
                                "bit patterns: f16 on a 1/2 grid, 16 kept products on a 1/4 "
                                "grid below 2^6; s8 sums below 2^21 plus a preload below 2^12; "
                                "e4m3 x e5m2 on a 2^-10 grid, 32 kept products below 2^8: "
                                "every result exact")),
        args=dict(a1=Ptr("a1"), b1=Ptr("b1"), a2=Ptr("a2"), b2=Ptr("b2"), a3=Ptr("a3"),
                  b3=Ptr("b3"), meta=Ptr("meta"), init=Ptr("init"), raw=Ptr("raw")),
        note="2:4 sparse MMAs, M = 128, N = 64: tcgen05.mma.sp kind::f16 (K 32, packed A 128x16, "
             "B with 64B swizzle, metadata in 1 TMEM column), tcgen05.mma.sp kind::i8 s8 x s8 "
             "(K 64, onto a preload, metadata in 2 columns), tcgen05.mma.ws.sp kind::f8f6f4 "
             "e4m3 x e5m2 (K 64); metadata cells stored raw by tcgen05.st (layout DERIVED from "
             "CUTLASS tmem_e_frg); the raw 128 x 192 D block")


def _splitk_threadfence_case():
    M, N, K, S = 256, 64, 192, 3
    rng = np.random.default_rng(15301)
    a = (rng.integers(-2, 3, size=(M, K)) / 2).astype(np.float16)
    bt = (rng.integers(-2, 3, size=(N, K)) / 2).astype(np.float16)
    ref = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    tiles = M // 128
    return Case(
        "ho_nvcc_splitk_threadfence", grid=[tiles, S],
        buffers=dict(a=Input(a.view(np.uint16), "u16"), bt=Input(bt.view(np.uint16), "u16"),
                     ws=Output("f32", [tiles * S * 128 * N]),
                     count=Output("u32", [tiles], np.zeros(tiles, np.float32), 0.0, 0.0,
                                  "atomicInc(count, SPLITS - 1) wraps each counter back to 0 "
                                  "at the last ticket: exact"),
                     c=Output("f32", [M, N], ref, 0.0, 0.0,
                              "fp16 inputs on a 1/2 grid: products on a 1/4 grid, partial and "
                              "total sums of at most 192 terms below 2^8: exact in f32 in any "
                              "order")),
        args=dict(a=Ptr("a"), bt=Ptr("bt"), ws=Ptr("ws"), count=Ptr("count"), c=Ptr("c"), K=K),
        note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T fp16 by split-K over grid y ({S} slices "
             "of K 64, four kind::f16 MMAs each): partials by plain stores to a workspace, "
             "__threadfence + __syncthreads, one atomicInc ticket per CTA; the last CTA of a "
             "tile fences and sums the slices (CUDA's threadFenceReduction pattern)")


def _chained_scan_case():
    B, TILE = 24, 512
    rng = np.random.default_rng(15302)
    x = rng.integers(-1000, 1001, size=B * TILE)
    inc = np.cumsum(x)
    prefix = np.cumsum(x.reshape(B, TILE).sum(axis=1))
    return Case(
        "ho_nvcc_chained_scan", grid=[B],
        buffers=dict(x=Input(x.astype(np.int32), "i32"),
                     out=Output("i32", [B * TILE], inc.astype(np.float64), 0.0, 0.0,
                                "integer prefix sums, |s| < 2^24: exact"),
                     prefix=Output("i32", [B], prefix.astype(np.float64), 0.0, 0.0,
                                   "the published inclusive prefix of each CTA: exact"),
                     flag=Output("i32", [B], np.ones(B), 0.0, 0.0, "every CTA publishes")),
        args=dict(x=Ptr("x"), out=Ptr("out"), prefix=Ptr("prefix"), flag=Ptr("flag")),
        note=f"Inclusive scan of {B * TILE} i32 by a single-pass chained scan: {B} CTAs of 128 "
             "threads x 4 elements; CTA i waits on a volatile flag of CTA i-1 "
             "(ld.volatile spin + __threadfence), publishes its prefix by a plain store, "
             "__threadfence (membar.gl) and a volatile flag store")


def _cluster_splitk_dsmem_case():
    M, N, K = 256, 64, 64
    rng = np.random.default_rng(15303)
    a = (rng.integers(-2, 3, size=(M, K)) / 2).astype(np.float16)
    bt = (rng.integers(-2, 3, size=(N, K)) / 2).astype(np.float16)
    ref = (a.astype(np.float64) @ bt.astype(np.float64).T).astype(np.float32)
    return Case(
        "ho_nvcc_cluster_splitk_dsmem", grid=[2, M // 128],
        buffers=dict(a=Input(a.view(np.uint16), "u16"), bt=Input(bt.view(np.uint16), "u16"),
                     c=Output("f32", [M, N], ref, 0.0, 0.0,
                              "fp16 inputs on a 1/2 grid: products on a 1/4 grid, the two "
                              "partial sums of 32 terms and their sum below 2^6: exact in f32 "
                              "in any order, and the bulk add onto a zero-filled C is exact")),
        args=dict(a=Ptr("a"), bt=Ptr("bt"), c=Ptr("c"), K=K),
        note=f"C[{M}x{N}] = A[{M}x{K}] @ Bt[{N}x{K}]^T fp16, split-K inside clusters of 2 "
             "(__cluster_dims__(2,1,1), rank r = K half r, kind::f16 MMAs): rank 1 pushes its "
             "TMEM partial into rank 0's shared memory by st.async ...complete_tx::bytes.v4.f32, "
             "rank 0 waits (expect_tx 32768), adds, and writes the tile by one "
             "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32")


def _tma_prefetch_replace_case():
    ctas = 4
    rng = np.random.default_rng(16401)
    # distinct integers (exact in f32): a wrong row, column, box or address shows
    a = rng.permutation(ctas * 32 * 32).reshape(ctas * 32, 32).astype(np.float32)
    b = (rng.permutation(ctas * 16 * 32) + 100000).reshape(ctas * 16, 32).astype(np.float32)
    why = "plain copies of integer-valued floats through TMA: exact"
    return Case(
        "ho_nvcc_tma_prefetch_replace", grid=[ctas],
        buffers=dict(a=Input(a, "f32"), b=Input(b, "f32"),
                     gmaps=Output("u8", [ctas * 128]),
                     out_a=Output("f32", [ctas * 32 * 32], a.reshape(-1), 0.0, 0.0, why),
                     out_b=Output("f32", [ctas * 16 * 32], b.reshape(-1), 0.0, 0.0, why),
                     out_1d=Output("f32", [ctas * 256], a.reshape(-1)[:ctas * 256], 0.0, 0.0,
                                   why)),
        args=dict(tmap_a=TensorMapArg("a", box=[32, 32], swizzle="none"),
                  tmap_a1d=TensorMapArg("a", box=[256], swizzle="none", dims=[ctas * 32 * 32],
                                        strides=[]),
                  gmaps=Ptr("gmaps"), b=Ptr("b"), out_a=Ptr("out_a"), out_b=Ptr("out_b"),
                  out_1d=Ptr("out_1d")),
        note="TMA forms from nvcc inline PTX: cp.async.bulk.prefetch.L2.global and "
             "cp.async.bulk.prefetch.tensor.2d.L2.global.tile (hints); the parameter map copied "
             "to global memory and rewritten there by tensormap.replace.tile.global_address / "
             "box_dim .global.b1024 (to B, 16-row box), fence.proxy.tensormap::generic "
             "release + acquire, then a TMA load through it; a rank-1 tile load; 4 CTAs, each "
             "copying a 32 x 32 tile of A, a 16 x 32 tile of B and 256 floats of A")


# (source file, entry, launch, cases)
KERNELS = [("tmem_roundtrip.cu", "tmem_roundtrip", dict(block=[128, 1, 1], shared=0),
            lambda: [_roundtrip_case()]),
           ("mma_layouts.cu", "mma_layouts", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_layouts_case()]),
           ("mma_features.cu", "mma_features", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_features_case()]),
           ("mma_nvf4.cu", "mma_nvf4", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_nvf4_case()]),
           ("mma_ws.cu", "mma_ws", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_ws_case()]),
           ("mma_ws_collector.cu", "mma_ws_collector", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_ws_collector_case()]),
           ("tmem_contention.cu", "tmem_contention", dict(block=[128, 1, 1], shared=0),
            lambda: [_contention_case()]),
           ("tmem_wide.cu", "tmem_wide", dict(block=[128, 1, 1], shared=0),
            lambda: [_wide_case()]),
           ("mma_m64_halves.cu", "mma_m64_halves", dict(block=[128, 1, 1], shared=0),
            lambda: [_m64_halves_case()]),
           ("cp_shift_mma.cu", "cp_shift_mma", dict(block=[128, 1, 1], shared=0),
            lambda: [_cp_shift_mma_case()]),
           ("ldst_cp_forms.cu", "ldst_cp_forms", dict(block=[128, 1, 1], shared=0),
            lambda: [_ldst_cp_forms_case()]),
           ("cp_shift_refresh.cu", "cp_shift_refresh", dict(block=[128, 1, 1], shared=0),
            lambda: [_cp_shift_refresh_case()]),
           ("cp_decomp_mma.cu", "cp_decomp_mma", dict(block=[128, 1, 1], shared=0),
            lambda: [_cp_decomp_mma_case()]),
           ("mma_mx_aliases.cu", "mma_mx_aliases", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_mx_aliases_case()]),
           ("mma_tmem_a_forms.cu", "mma_tmem_a_forms", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_tmem_a_forms_case()]),
           ("tmem_max_num.cu", "tmem_max_num", dict(block=[128, 1, 1], shared=0),
            lambda: [_max_num_case()]),
           ("mma_ws_n256_sat.cu", "mma_ws_n256_sat", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_ws_n256_sat_case()]),
           ("mma_sparse.cu", "mma_sparse", dict(block=[128, 1, 1], shared=0),
            lambda: [_mma_sparse_case()]),
           ("splitk_threadfence.cu", "splitk_threadfence", dict(block=[128, 1, 1], shared=0),
            lambda: [_splitk_threadfence_case()]),
           ("chained_scan.cu", "chained_scan", dict(block=[128, 1, 1], shared=0),
            lambda: [_chained_scan_case()]),
           ("cluster_splitk_dsmem.cu", "cluster_splitk_dsmem",
            dict(block=[128, 1, 1], shared=0), lambda: [_cluster_splitk_dsmem_case()]),
           ("tma_prefetch_replace.cu", "tma_prefetch_replace",
            dict(block=[128, 1, 1], shared=0), lambda: [_tma_prefetch_replace_case()])]


def _compile(src: Path, tmp: Path) -> str:
    nvcc = ptxas_path().parent / "nvcc"
    out = tmp / (src.stem + ".ptx")
    subprocess.run([str(nvcc), *NVCC_FLAGS, str(src.relative_to(REPO)), "-o", str(out)],
                   check=True, cwd=REPO)
    text = out.read_text()
    # nvcc writes the source path as given (repo-relative) and its own headers absolutely.
    return rewrite_paths(text)


def generate(out_dir: Path, tmp: Path, log=print, only=None) -> list[str]:
    from regen import ptxas_check
    written = []
    for fname, entry, launch, cases in KERNELS:
        name = "ho_nvcc_" + Path(fname).stem
        if only and name not in only:
            continue
        ptx = _compile(REPO / "kernels" / "holdout" / fname, tmp)
        assert_no_abs_paths(name, ptx)
        got_entry, params = entry_params(ptx)
        if got_entry != entry:
            raise SystemExit(f"{name}: entry {got_entry}, expected {entry}")
        ptx_file = out_dir / f"{name}.ptx"
        ptx_file.write_text(ptx)
        ptxas_check(name, ptx_file)
        written.append(ptx_file.name)
        for case in cases():
            # nvcc names parameters ENTRY_param_N: the case lists arguments in C order.
            text, files = write_case(case, ptx_file.name, entry, params, launch,
                                     list(case.args), scratch=False)
            (out_dir / f"{case.name}.toml").write_text(text)
            written.append(f"{case.name}.toml")
            for f, data in files.items():
                (out_dir / f).write_bytes(data)
                written.append(f)
        log(f"  holdout/{name}: {len(params)} params (nvcc)")
    return written
