"""Launch specs and numpy references for kernels/cuda/tmem_mma.cu (mma.md §4-§10).

All operands are chosen so that every product and every partial sum is exactly representable
in f32 (or s32): the expected D is then the exact matrix product, whatever order or internal
precision the tensor core uses, and the comparison is exact (rtol = atol = 0)."""
from __future__ import annotations

import numpy as np

import nvref_num as rn
from nvcase import Case

SMALL_FP8 = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 3.0, -3.0, 4.0, -4.0])
EXACT = ("exact: operands are small dyadic values (or integers); every partial sum is exact "
         "in f32/s32,\nso accumulation order and precision cannot change the result")


def _rng(tag: int) -> np.random.Generator:
    return np.random.default_rng(51000 + tag)


def _f32_bits_d(d: np.ndarray) -> np.ndarray:
    return d.astype(np.float32)


def case_f16() -> Case:
    c = Case("mma_f16_ss", """
tcgen05.mma.cta_group::1.kind::f16, f16 x f16 -> f32, M=128 N=64 K=32 (2 x K16), A and B
K-major in shared memory (no swizzle), D in TMEM lanes 0..127 = rows (Layout D, mma.md §9).""")
    rng = _rng(1)
    A = (rng.integers(-8, 9, (128, 32)) / 4).astype(np.float16)
    B = (rng.integers(-8, 9, (64, 32)) / 4).astype(np.float16)
    c.input("A", A)
    c.input("B", B)
    c.output("D", "f32", (128, 64))
    c.expect("D", _f32_bits_d(A.astype(np.float64) @ B.astype(np.float64).T), why=EXACT)
    return c


def case_tf32() -> Case:
    c = Case("mma_tf32_ss", """
tcgen05.mma.cta_group::1.kind::tf32, M=128 N=64 K=16 (2 x K8); inputs are f32 values with at
most 5 significant bits, so tf32 truncation or rounding leaves them unchanged.""")
    rng = _rng(2)
    A = (rng.integers(-16, 17, (128, 16)) / 8).astype(np.float32)
    B = (rng.integers(-16, 17, (64, 16)) / 8).astype(np.float32)
    c.input("A", A)
    c.input("B", B)
    c.output("D", "f32", (128, 64))
    c.expect("D", _f32_bits_d(A.astype(np.float64) @ B.astype(np.float64).T), why=EXACT)
    return c


def case_f8f6f4() -> Case:
    c = Case("mma_f8f6f4_ss", """
tcgen05.mma.cta_group::1.kind::f8f6f4, A e4m3 x B e5m2 -> f32 (idesc A fmt 0, B fmt 1),
M=128 N=64 K=64 (2 x K32).""")
    rng = _rng(3)
    a = rng.choice(SMALL_FP8, (128, 64))
    b = rng.choice(SMALL_FP8, (64, 64))
    c.input("A", rn.encode_e4m3(a), spec_dtype="fp8e4m3")
    c.input("B", rn.encode_e5m2(b), spec_dtype="fp8e5m2")
    c.output("D", "f32", (128, 64))
    c.expect("D", _f32_bits_d(a @ b.T), why=EXACT)
    return c


def case_i8() -> Case:
    c = Case("mma_i8_ss", """
tcgen05.mma.cta_group::1.kind::i8, A s8 x B u8 -> s32 (idesc D fmt 2, A fmt 1, B fmt 0),
M=128 N=64 K=64 (2 x K32); |sums| < 2^22, no saturation question arises.""")
    rng = _rng(4)
    A = rng.integers(-128, 128, (128, 64)).astype(np.int8)
    B = rng.integers(0, 256, (64, 64)).astype(np.uint8)
    c.input("A", A)
    c.input("B", B)
    c.output("D", "i32", (128, 64))
    c.expect("D", (A.astype(np.int64) @ B.astype(np.int64).T).astype(np.int32),
             why="exact: integer arithmetic")
    return c


def case_bf16_ts() -> Case:
    c = Case("mma_bf16_ts", """
tcgen05.mma.cta_group::1.kind::f16 with A (bf16) in TMEM and B (bf16) in shared memory,
M=128 N=64 K=32 (2 x K16). A is written with tcgen05.st: row m -> lane m, elements k=2c, 2c+1
-> column c (bits 0..15, 16..31). DERIVED (mma.md §4 element packing, CuTe TMEM-A layout).""")
    rng = _rng(5)
    a = rng.integers(-8, 9, (128, 32)) / 4
    b = rng.integers(-8, 9, (64, 32)) / 4
    c.input("A", rn.bf16_bits(a), spec_dtype="bf16")
    c.input("B", rn.bf16_bits(b), spec_dtype="bf16")
    c.output("D", "f32", (128, 64))
    c.expect("D", _f32_bits_d(a @ b.T), why=EXACT)
    return c


def case_mx() -> Case:
    c = Case("mma_mxf8f6f4_ss", """
tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X, e4m3 x e4m3 -> f32,
M=N=128, K=64 (2 x K32, one ue8m0 scale per row/column per 32-element K-block), scales
copied into TMEM with tcgen05.cp.32x128b.warpx4 and selected by the idesc scale-factor IDs.
D[m][n] = sum_k A[m][k]*2^(sfa[m][k/32]-127) * B[n][k]*2^(sfb[n][k/32]-127) (mma.md §6).
Scale TMEM layout DERIVED from CUTLASS (mma.md §6): row r0+32*r1 -> lanes r0+32q, column +r1.""")
    rng = _rng(6)
    a = rng.choice(SMALL_FP8, (128, 64))
    b = rng.choice(SMALL_FP8, (128, 64))
    sfa = rng.integers(125, 130, (128, 2)).astype(np.uint8)
    sfb = rng.integers(125, 130, (128, 2)).astype(np.uint8)
    c.input("A", rn.encode_e4m3(a), spec_dtype="fp8e4m3")
    c.input("B", rn.encode_e4m3(b), spec_dtype="fp8e4m3")
    c.input("sfa", sfa)
    c.input("sfb", sfb)
    c.output("D", "f32", (128, 128))
    sa = np.repeat(rn.ue8m0(sfa), 32, axis=1)
    sb = np.repeat(rn.ue8m0(sfb), 32, axis=1)
    c.expect("D", _f32_bits_d((a * sa) @ (b * sb).T), why=EXACT)
    return c


def cases() -> list[Case]:
    return [case_f16(), case_tf32(), case_f8f6f4(), case_i8(), case_bf16_ts(), case_mx()]
