"""Launch specs and numpy references for kernels/cuda/tmem_ldst.cu."""
from __future__ import annotations

import numpy as np

import nvref_tmem as rt
from nvcase import Case


def _rng(tag: int) -> np.random.Generator:
    return np.random.default_rng(20260 + tag)


def case_alloc_st_ld() -> Case:
    c = Case("alloc_st_ld_32x32b", """
tcgen05.alloc (.shared::cta, immediate nCols=32), st .32x32b.x32, ld .32x32b.x1/x2/x4/x8/x16,
wait::st/ld, fences, dealloc, relinquish. Expected: the image round-trips unchanged
(.32x32b: thread t of warp w <-> lane 32w+t, register r <-> column r).""")
    img = _rng(1).integers(0, 2**32, (128, 32), dtype=np.uint32)
    c.input("in", img)
    c.output("out", "u32", (128, 32))
    c.expect("out", img.copy())
    return c


def case_alloc_two() -> Case:
    c = Case("alloc_two_generic", """
Two live allocations: 64 columns through a generic destination (nCols from a parameter) and
32 columns through .shared::cta; data written into each is read back crosswise.""")
    data = _rng(2).integers(0, 2**32, (128, 16), dtype=np.uint32)
    c.input("in", data)
    c.output("out", "u32", (128, 16))
    c.value(64)
    exp = np.concatenate([data[:, 8:16], data[:, 0:8]], axis=1)
    c.expect("out", exp)
    return c


def case_alloc_512() -> Case:
    c = Case("alloc_512_per_cta", """
8 CTAs, each allocating all 512 TMEM columns: CTAs placed on one SM must take turns (alloc
blocks until the other CTA deallocates), e.g. with --sms 1. Each CTA writes columns 0..7 and
504..511 and reads them back crosswise.""", grid=(8, 1, 1))
    data = _rng(10).integers(0, 2**32, (8 * 128, 16), dtype=np.uint32)
    c.input("in", data)
    c.output("out", "u32", (8 * 128, 16))
    c.expect("out", np.concatenate([data[:, 8:16], data[:, 0:8]], axis=1))
    return c


# (kernel, shape, unpacked split, packed split)
SHAPES = [("ldst_16x64b", "16x64b", 0, 0), ("ldst_16x128b", "16x128b", 0, 0),
          ("ldst_16x256b", "16x256b", 0, 0), ("ldst_16x32bx2", "16x32bx2", 8, 16)]


def case_shape(kernel: str, shape: str, split: int, psplit: int, tag: int) -> Case:
    c = Case(kernel, f"""
tcgen05.ld/st .{shape} (8 registers per instruction, at lane 32w and 32w+16 of each warp),
with and without .pack::16b / .unpack::16b. Expected values come from the (thread, register)
-> (lane, column) map of data-movement.md §2.4/§2.5 applied to a numpy TMEM model.""")
    rng = _rng(tag)
    image = rng.integers(0, 2**32, (128, 32), dtype=np.uint32)
    regs = rng.integers(0, 2**32, (128, 32), dtype=np.uint32)
    c.input("image", image)
    c.input("regs", regs)
    c.output("out_regs", "u32", (128, 32))
    c.output("out_image", "u32", (128, 64))

    tmem = np.zeros((128, 96), np.uint32)
    tmem[:, 0:32] = image
    out_regs = np.zeros((128, 32), np.uint32)
    for w in range(4):
        rows = slice(32 * w, 32 * w + 32)
        for half in range(2):
            l0 = 32 * w + 16 * half
            out_regs[rows, 8 * half:8 * half + 8] = rt.ld(tmem, shape, 8, l0, 0, False, split)
            out_regs[rows, 16 + 8 * half:24 + 8 * half] = rt.ld(tmem, shape, 8, l0, 0, True, psplit)
        for half in range(2):
            l0 = 32 * w + 16 * half
            rt.st(tmem, regs[rows, 8 * half:8 * half + 8], shape, l0, 32, False, split)
            rt.st(tmem, regs[rows, 16 + 8 * half:24 + 8 * half], shape, l0, 64, True, psplit)
    out_image = np.concatenate([tmem[:, 32:64], tmem[:, 64:96] & 0xFFFF], axis=1)
    c.expect("out_regs", out_regs)
    c.expect("out_image", out_image.astype(np.uint32),
             why="exact: data movement; the .unpack::16b half is masked to the low 16 bits "
                 "in the kernel (high bits UNCONFIRMED)")
    return c


def case_32x32b_pack() -> Case:
    c = Case("ldst_32x32b_pack", """
tcgen05.ld .32x32b.x8.pack::16b and tcgen05.st .32x32b.x8.unpack::16b: register r of lane t
holds the low halves of columns 2r (bits 0..15) and 2r+1 (bits 16..31) of lane 32w+t.""")
    rng = _rng(9)
    image = rng.integers(0, 2**32, (128, 32), dtype=np.uint32)
    regs = rng.integers(0, 2**32, (128, 16), dtype=np.uint32)
    c.input("image", image)
    c.input("regs", regs)
    c.output("out_regs", "u32", (128, 16))
    c.output("out_image", "u32", (128, 32))
    tmem = np.zeros((128, 64), np.uint32)
    tmem[:, 0:32] = image
    out_regs = np.zeros((128, 16), np.uint32)
    for w in range(4):
        rows = slice(32 * w, 32 * w + 32)
        out_regs[rows, 0:8] = rt.ld(tmem, "32x32b", 8, 32 * w, 0, True)
        out_regs[rows, 8:16] = rt.ld(tmem, "32x32b", 8, 32 * w, 16, True)
        rt.st(tmem, regs[rows, 0:8], "32x32b", 32 * w, 32, True)
        rt.st(tmem, regs[rows, 8:16], "32x32b", 32 * w, 48, True)
    c.expect("out_regs", out_regs)
    c.expect("out_image", (tmem[:, 32:64] & 0xFFFF).astype(np.uint32),
             why="exact: data movement; masked to the low 16 bits in the kernel")
    return c


def cases() -> list[Case]:
    out = [case_alloc_st_ld(), case_alloc_two(), case_alloc_512()]
    out += [case_shape(k, s, sp, psp, 3 + i) for i, (k, s, sp, psp) in enumerate(SHAPES)]
    out.append(case_32x32b_pack())
    return out
