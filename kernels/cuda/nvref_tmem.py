"""Independent numpy model of TMEM data movement, written from /work/shared/spec
(data-movement.md §2.3-§2.5, §5.3, §6; tmem.md §2). Used only to compute expected outputs.

TMEM is modelled as a (128, ncols) uint32 array; addresses are (lane, column) pairs.
"""
from __future__ import annotations

import numpy as np

# Registers per thread for .num = .x1 (data-movement.md §2.3, Table 49/50).
REGS_PER_X1 = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}


def frag(shape: str, t: int, r: int) -> tuple[int, int]:
    """(lane, column) offsets from (L0, C0) of register r of warp lane t, unpacked, without
    the .16x32bx2 split offset (data-movement.md §2.4 table)."""
    if shape == "32x32b":
        return t, r
    if shape == "16x64b":
        return t // 4 + 8 * (t % 2), 2 * r + (t // 2) % 2
    if shape == "16x128b":
        return t // 4 + 8 * (r % 2), t % 4 + 4 * (r // 2)
    if shape == "16x256b":
        return t // 4 + 8 * ((r // 2) % 2), 2 * (t % 4) + r % 2 + 8 * (r // 4)
    if shape == "16x32bx2":
        return t % 16, r
    raise ValueError(shape)


def cells(shape: str, t: int, r: int, packed: bool, split: int = 0) -> list[tuple[int, int]]:
    """TMEM cells behind register r of lane t: one cell, or two (low half, high half) when
    packed (.pack::16b / .unpack::16b, §2.5)."""
    lane, col = frag(shape, t, r)
    extra = split if (shape == "16x32bx2" and t >= 16) else 0
    if packed:
        return [(lane, 2 * col + extra), (lane, 2 * col + 1 + extra)]
    return [(lane, col + extra)]


def ld(tmem: np.ndarray, shape: str, nregs: int, lane0: int, col0: int, packed=False, split=0):
    """Registers [32, nregs] a warp receives from tcgen05.ld at (lane0, col0)."""
    out = np.zeros((32, nregs), np.uint32)
    for t in range(32):
        for r in range(nregs):
            cs = cells(shape, t, r, packed, split)
            if packed:
                lo = int(tmem[lane0 + cs[0][0], col0 + cs[0][1]]) & 0xFFFF
                hi = int(tmem[lane0 + cs[1][0], col0 + cs[1][1]]) & 0xFFFF
                out[t, r] = lo | (hi << 16)
            else:
                out[t, r] = tmem[lane0 + cs[0][0], col0 + cs[0][1]]
    return out


def st(tmem: np.ndarray, regs: np.ndarray, shape: str, lane0: int, col0: int, packed=False, split=0):
    """Apply tcgen05.st of warp registers regs[32, nregs] at (lane0, col0). With
    .unpack::16b only the low 16 bits of each target cell are defined (UNCONFIRMED what the
    high bits become); this model writes zeros there and callers compare the low 16 bits only."""
    for t in range(32):
        for r in range(regs.shape[1]):
            cs = cells(shape, t, r, packed, split)
            v = int(regs[t, r])
            if packed:
                tmem[lane0 + cs[0][0], col0 + cs[0][1]] = v & 0xFFFF
                tmem[lane0 + cs[1][0], col0 + cs[1][1]] = v >> 16
            else:
                tmem[lane0 + cs[0][0], col0 + cs[0][1]] = v


def kmajor_offset(row: int, chunk: int, lbo: int, sbo: int) -> int:
    """Byte offset of 16-byte chunk `chunk` of row `row` in the K-major no-swizzle canonical
    layout (descriptors.md §2.4; core matrix = 8 rows x 16 bytes)."""
    return (row % 8) * 16 + (row // 8) * sbo + chunk * lbo


def smem_rows(image: np.ndarray, base: int, rows: int, chunks: int, lbo: int, sbo: int) -> np.ndarray:
    """Read `rows` x `chunks` 16-byte chunks through a no-swizzle descriptor -> uint8[rows, 16*chunks]."""
    out = np.zeros((rows, 16 * chunks), np.uint8)
    for i in range(rows):
        for j in range(chunks):
            off = base + kmajor_offset(i, j, lbo, sbo)
            out[i, 16 * j:16 * j + 16] = image[off:off + 16]
    return out


def bytes_to_cells(row_bytes: np.ndarray) -> np.ndarray:
    """16*k bytes of one source row -> 4*k TMEM cells (byte order preserved, little endian)."""
    return np.ascontiguousarray(row_bytes).view("<u4").astype(np.uint32)
