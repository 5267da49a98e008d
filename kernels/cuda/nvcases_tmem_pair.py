"""Launch specs and numpy references for kernels/cuda/tmem_pair.cu (cta_group::2)."""
from __future__ import annotations

import numpy as np

import nvref_tmem as rt
from nvcase import Case


def _rng(tag: int) -> np.random.Generator:
    return np.random.default_rng(61000 + tag)


def case_alloc() -> Case:
    c = Case("pair_alloc_ldst", """
Cluster of 2 CTAs: tcgen05.alloc/dealloc/relinquish_alloc_permit .cta_group::2 (one warp per
CTA), st/ld .32x32b in each CTA's own TMEM, barrier.cluster before the collective dealloc.
Expected: each CTA reads back its own block with the two 8-column halves swapped.""",
             grid=(2, 1, 1), cluster=(2, 1, 1))
    data = _rng(1).integers(0, 2**32, (256, 16), dtype=np.uint32)
    c.input("in", data)
    c.output("out", "u32", (256, 16))
    c.expect("out", np.concatenate([data[:, 8:16], data[:, 0:8]], axis=1))
    return c


def _kmajor_image(rows: np.ndarray) -> np.ndarray:
    """[n][64 bytes] row-major -> the K-major canonical smem image (LBO 128, SBO 512)."""
    n = rows.shape[0]
    img = np.zeros(n * 64, np.uint8)
    for r in range(n):
        for ch in range(4):
            off = rt.kmajor_offset(r, ch, 128, 512)
            img[off:off + 16] = rows[r, 16 * ch:16 * ch + 16]
    return img


def case_gemm() -> Case:
    c = Case("pair_gemm_f16", """
2-CTA GEMM, tcgen05.mma.cta_group::2.kind::f16, M=256 (128 rows per CTA) N=64 K=32: operands
arrive by cp.async.bulk (complete_tx on an mbarrier), the odd CTA signals the even CTA through
mapa + remote mbarrier.arrive, the even CTA issues the MMAs and commits with
.multicast::cluster (mask 0b11) to both CTAs' barriers. Inputs: per-CTA shared-memory images
(A rows 128v.., B rows 32v.., K-major canonical layout, made by numpy). DERIVED split of A/B/D
across the pair: mma.md §9, descriptors.md §2.5. Operands are small dyadic values: exact.""",
             grid=(2, 1, 1), cluster=(2, 1, 1))
    rng = _rng(2)
    A = (rng.integers(-8, 9, (256, 32)) / 4).astype(np.float16)
    B = (rng.integers(-8, 9, (64, 32)) / 4).astype(np.float16)
    a_bytes = A.view(np.uint8).reshape(256, 64)
    b_bytes = B.view(np.uint8).reshape(64, 64)
    a_img = np.concatenate([_kmajor_image(a_bytes[128 * v:128 * v + 128]) for v in range(2)])
    b_img = np.concatenate([_kmajor_image(b_bytes[32 * v:32 * v + 32]) for v in range(2)])
    c.input("a_img", a_img)
    c.input("b_img", b_img)
    c.output("D", "f32", (256, 64))
    c.expect("D", (A.astype(np.float64) @ B.astype(np.float64).T).astype(np.float32),
             why="exact: f16 operands are multiples of 1/4 with |x| <= 2; all sums exact in f32")
    return c


def cases() -> list[Case]:
    return [case_alloc(), case_gemm()]
