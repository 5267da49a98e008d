"""Launch specs and numpy references for kernels/cuda/tmem_cp.cu (data-movement.md §5, §6)."""
from __future__ import annotations

import numpy as np

import nvref_tmem as rt
from nvcase import Case


def _rng(tag: int) -> np.random.Generator:
    return np.random.default_rng(41000 + tag)


def _place(tmem, rows_bytes, lanes_of_row, col0):
    """Source row i (16*k bytes) -> TMEM lanes lanes_of_row(i), columns col0.. (byte order kept)."""
    for i in range(rows_bytes.shape[0]):
        cells = rt.bytes_to_cells(rows_bytes[i])
        for lane in lanes_of_row(i):
            tmem[lane, col0:col0 + len(cells)] = cells


def case_cp_shapes() -> Case:
    c = Case("cp_shapes", """
tcgen05.cp .128x256b, .128x128b, .64x128b.warpx2::02_13, .64x128b.warpx2::01_23,
.32x128b.warpx4 from no-swizzle descriptors, completed by tcgen05.commit (generic address) +
mbarrier. Placement per data-movement.md §5.3 (DERIVED from CUTLASS: source row i -> lane i,
16-byte chunk j -> columns 4j..4j+3; multicast rows per the table there).""")
    image = _rng(1).integers(0, 256, 8704, dtype=np.uint8)
    c.input("image", image)
    c.output("out", "u32", (128, 24))
    t = np.zeros((128, 24), np.uint32)
    _place(t, rt.smem_rows(image, 0, 128, 2, 128, 256), lambda i: [i], 0)
    _place(t, rt.smem_rows(image, 4096, 128, 1, 128, 128), lambda i: [i], 8)
    _place(t, rt.smem_rows(image, 6144, 64, 1, 128, 128), lambda i: [i, 64 + i], 12)
    _place(t, rt.smem_rows(image, 7168, 64, 1, 128, 128),
           lambda i: [i, 32 + i] if i < 32 else [32 + i, 64 + i], 16)
    _place(t, rt.smem_rows(image, 8192, 32, 1, 128, 128), lambda i: [i + 32 * q for q in range(4)], 20)
    c.expect("out", t)
    return c


def case_cp_4x256b() -> Case:
    c = Case("cp_4x256b", """
tcgen05.cp .4x256b into zeroed columns 0..7, commit .shared::cluster. The destination lanes of
rows 1..3 are UNCONFIRMED (data-movement.md §5.3: lanes 1..3 literally, lanes 32/64/96 in
CUTLASS's model), so the kernel reports only what both readings imply: out[0] = lane 0
(= source row 0), out[1] = XOR over all lanes per column (= XOR of the 4 source rows),
out[2] = nonzero lanes per column (= 4: every source cell is nonzero).""")
    rng = _rng(2)
    image = rng.integers(0, 256, 256, dtype=np.uint8)
    rows = rt.smem_rows(image, 0, 4, 2, 128, 256)
    # make every destination cell nonzero so that the count is 4
    for i in range(4):
        for k in range(0, 32, 4):
            if not rows[i, k:k + 4].any():
                raise AssertionError("regenerate with another seed")
    c.input("image", image)
    c.output("out", "u32", (3, 8))
    cells = np.stack([rt.bytes_to_cells(rows[i]) for i in range(4)])
    exp = np.stack([cells[0], np.bitwise_xor.reduce(cells, axis=0), np.full(8, 4, np.uint32)])
    c.expect("out", exp.astype(np.uint32))
    return c


def _unpack_bits(unit: np.ndarray, bits: int) -> np.ndarray:
    """16 elements of `bits` bits, element 0 in the least significant bits of byte 0."""
    v = int.from_bytes(bytes(unit), "little")
    return np.array([(v >> (bits * e)) & ((1 << bits) - 1) for e in range(16)], np.uint8)


def case_cp_decompress() -> Case:
    c = Case("cp_decompress", """
tcgen05.cp .128x256b.b8x16.b6x16_p32 and .128x128b.b8x16.b4x16_p64. READING CHOSEN
(data-movement.md §5.4, UNCONFIRMED): per 16-byte source unit, element e is bits
[w*e, w*e+w) of the little-endian data bytes (w = 6 or 4; padding bytes ignored) and lands
in the low bits of destination byte e, upper bits zero; placement otherwise as undecompressed.""")
    image = _rng(3).integers(0, 256, 6144, dtype=np.uint8)
    c.input("image", image)
    c.output("out", "u32", (128, 12))
    t = np.zeros((128, 12), np.uint32)
    src6 = rt.smem_rows(image, 0, 128, 2, 128, 256)
    src4 = rt.smem_rows(image, 4096, 128, 1, 128, 128)
    for i in range(128):
        row6 = np.concatenate([_unpack_bits(src6[i, 16 * j:16 * j + 12], 6) for j in range(2)])
        row4 = _unpack_bits(src4[i, 0:8], 4)
        t[i, 0:8] = rt.bytes_to_cells(row6)
        t[i, 8:12] = rt.bytes_to_cells(row4)
    c.expect("out", t)
    return c


def case_shift() -> Case:
    c = Case("shift_down", """
tcgen05.shift.cta_group::1.down at lanes 0 and 64 (two shifts, one commit .shared::cluster).
DERIVED (data-movement.md §6): in the 32-lane block at taddr, lane L+k+1 receives old lane L+k
for k = 0..30 over 8 columns (256 bits); other blocks and columns 8..15 unchanged. Lane L's
new content is UNCONFIRMED: the kernel writes 0 there.""")
    image = _rng(4).integers(0, 2**32, (128, 16), dtype=np.uint32)
    c.input("image", image)
    c.output("out", "u32", (128, 16))
    t = image.copy()
    for base in (0, 64):
        t[base + 1:base + 32, 0:8] = image[base:base + 31, 0:8]
        t[base, 0:8] = 0
    c.expect("out", t)
    return c


def cases() -> list[Case]:
    return [case_cp_shapes(), case_cp_4x256b(), case_cp_decompress(), case_shift()]
