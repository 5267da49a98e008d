"""Self-tests of the numpy reference models behind the nvcc corpus (run:
`python kernels/cuda/test_nvref.py`, or pytest). They pin the models to facts stated in
/work/shared/spec and to independent definitions, not to tmemu's output."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nvref_num as rn  # noqa: E402
import nvref_tmem as rt  # noqa: E402

SHAPES = [("32x32b", 0), ("16x64b", 0), ("16x128b", 0), ("16x256b", 0), ("16x32bx2", 8)]


def test_fragment_maps_are_bijections_onto_their_footprint():
    for shape, split in SHAPES:
        for packed in (False, True):
            sp = split * (2 if packed else 1)
            cells = [c for t in range(32) for r in range(8) for c in rt.cells(shape, t, r, packed, sp)]
            assert len(cells) == len(set(cells)), (shape, packed)
            lanes = {l for l, _ in cells}
            assert lanes == set(range(32 if shape == "32x32b" else 16)), (shape, packed)
            # footprint = lanes x columns (data-movement.md §2.3)
            assert len(cells) == len(lanes) * len({c for _, c in cells}), (shape, packed)


def test_worked_examples_of_data_movement_md():
    # .16x64b.x1: t0->(0,0) t1->(8,0) t2->(0,1) t3->(8,1) t4->(1,0) t31->(15,1)
    assert [rt.frag("16x64b", t, 0) for t in (0, 1, 2, 3, 4, 31)] == \
        [(0, 0), (8, 0), (0, 1), (8, 1), (1, 0), (15, 1)]
    # .16x256b.x1: t0 r0..r3 -> (0,0),(0,1),(8,0),(8,1); t1 -> (0,2),(0,3),(8,2),(8,3)
    assert [rt.frag("16x256b", 0, r) for r in range(4)] == [(0, 0), (0, 1), (8, 0), (8, 1)]
    assert [rt.frag("16x256b", 1, r) for r in range(4)] == [(0, 2), (0, 3), (8, 2), (8, 3)]


def test_ld_inverts_st():
    rng = np.random.default_rng(0)
    for shape, split in SHAPES:
        for packed in (False, True):
            sp = split * (2 if packed else 1)  # a packed .x8 half spans 16 columns
            regs = rng.integers(0, 2**32, (32, 8), dtype=np.uint32)
            t = np.zeros((128, 64), np.uint32)
            rt.st(t, regs, shape, 32, 8, packed, sp)
            back = rt.ld(t, shape, 8, 32, 8, packed, sp)
            assert (back == regs).all(), (shape, packed)


def test_cp_row_placement_is_little_endian():
    row = np.arange(16, dtype=np.uint8)
    assert list(rt.bytes_to_cells(row)) == [0x03020100, 0x07060504, 0x0B0A0908, 0x0F0E0D0C]


def test_narrow_formats():
    # OCP FP8: e4m3 max normal 448, 0x7F NaN, min subnormal 2^-9; e5m2 max 57344, 0x7C inf
    assert rn.decode_e4m3(0x7E) == 448.0 and np.isnan(rn.decode_e4m3(0x7F))
    assert rn.decode_e4m3(0x01) == 2.0 ** -9 and rn.decode_e4m3(0x38) == 1.0
    assert rn.decode_e5m2(0x7B) == 57344.0 and rn.decode_e5m2(0x7C) == float("inf")
    vals = np.array([0.0, 0.5, -1.5, 3.0, -4.0])
    assert [rn.decode_e4m3(int(c)) for c in rn.encode_e4m3(vals)] == list(vals)
    assert [rn.decode_e5m2(int(c)) for c in rn.encode_e5m2(vals)] == list(vals)
    assert list(rn.bf16_bits(np.array([1.0, -2.0]))) == [0x3F80, 0xC000]
    assert list(rn.ue8m0(np.array([127, 129, 125]))) == [1.0, 4.0, 0.25]


def test_kmajor_offsets_match_descriptors_md_worked_example():
    # K-major, no swizzle, tf32 ((8,2),(4,4)):((4,32),(1,64)) elements, LBO 256 B, SBO 128 B:
    # element (row, k) at 4*(row%8) + 32*(row//8) + (k%4) + 64*(k//4) elements.
    for row in range(16):
        for k in range(16):
            expect = 4 * (4 * (row % 8) + 32 * (row // 8) + (k % 4) + 64 * (k // 4))
            got = rt.kmajor_offset(row, k // 4, 256, 128) + 4 * (k % 4)
            assert got == expect, (row, k)


if __name__ == "__main__":
    for name, fn in list(globals().items()):
        if name.startswith("test_"):
            fn()
            print("ok", name)
