//! Canonical shared-memory layouts of MMA operands and their swizzles
//! (PTX ISA 9.1 §9.7.16.3.3, §9.7.16.10.6; `descriptors.md` §2.3–2.4).
//!
//! Addresses are computed per 16-byte chunk (the "128-bit element" the ISA normalises every
//! type to): a K-major operand is addressed by (row, K-chunk), an MN-major operand by
//! (MN-chunk, K-row). Inside a chunk the bytes are contiguous under every swizzle, because all
//! swizzles permute address bits 4 and above. So element addressing is
//! `chunk_address + byte offset inside the chunk`, which also covers the sub-byte formats
//! (mxf4's two e2m1 per byte, f8f6f4's padded 4/6-bit units): the caller knows how its
//! elements pack into a 16-byte chunk.
//!
//! The swizzle XOR acts on the absolute shared-memory address (DERIVED, `descriptors.md`
//! §2.4: TMA writes with the same rule, and kernels advance K inside a swizzle atom by adding
//! to the start address with base offset 0).

use super::SmemDescriptor;

/// Swizzle / layout type of a shared-memory descriptor (bits 61–63).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Swizzle {
    /// No swizzle ("interleave"): 8 rows × 16 bytes core matrices.
    None,
    /// 128-byte swizzle with 32-byte atomicity (`Swizzle<2,5,2>`), MN-major tf32 only.
    B128Atom32,
    /// 128-byte swizzle (`Swizzle<3,4,3>`).
    B128,
    /// 64-byte swizzle (`Swizzle<2,4,3>`).
    B64,
    /// 32-byte swizzle (`Swizzle<1,4,3>`).
    B32,
}

impl Swizzle {
    pub fn from_code(code: u8) -> Option<Swizzle> {
        Some(match code {
            0 => Swizzle::None,
            1 => Swizzle::B128Atom32,
            2 => Swizzle::B128,
            4 => Swizzle::B64,
            6 => Swizzle::B32,
            _ => return None,
        })
    }

    pub fn code(self) -> u8 {
        match self {
            Swizzle::None => 0,
            Swizzle::B128Atom32 => 1,
            Swizzle::B128 => 2,
            Swizzle::B64 => 4,
            Swizzle::B32 => 6,
        }
    }

    /// Width S in bytes of one swizzled row (16 for no swizzle).
    pub fn width(self) -> u32 {
        match self {
            Swizzle::None => 16,
            Swizzle::B32 => 32,
            Swizzle::B64 => 64,
            Swizzle::B128 | Swizzle::B128Atom32 => 128,
        }
    }

    /// Applies the swizzle to an absolute shared-memory byte address:
    /// `Swizzle<B,4,3>` XORs address bits 7.. into bits 4.. (B = 1, 2, 3 for 32/64/128B);
    /// the 32-byte-atom variant `Swizzle<2,5,2>` XORs bits 7–8 into bits 5–6.
    #[inline]
    pub fn apply(self, a: u32) -> u32 {
        let (mask, shift) = self.xor_params();
        a ^ (((a >> 7) & mask) << shift)
    }

    /// `(mask, shift)` of [`Swizzle::apply`]: `a ^ (((a >> 7) & mask) << shift)`.
    #[inline]
    pub fn xor_params(self) -> (u32, u32) {
        match self {
            Swizzle::None => (0, 4),
            Swizzle::B32 => (1, 4),
            Swizzle::B64 => (3, 4),
            Swizzle::B128 => (7, 4),
            Swizzle::B128Atom32 => (3, 5),
        }
    }
}

/// Whether the operand's contiguous dimension is K or M/N (idesc transpose bit 0 = K-major).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    K,
    MN,
}

/// A descriptor together with the operand's major-ness: everything needed to address it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandLayout {
    pub desc: SmemDescriptor,
    pub major: Major,
}

impl OperandLayout {
    pub fn new(desc: SmemDescriptor, major: Major) -> Self {
        OperandLayout { desc, major }
    }

    /// Unswizzled byte offset (from the start address) of a 16-byte chunk.
    ///
    /// K-major: `(outer, inner)` = (row, K-chunk), with `K-chunk * 16 < S` for swizzled
    ///   layouts (one MMA reads 32 bytes of K, always inside one swizzle row).
    /// MN-major: `(outer, inner)` = (MN-chunk, K-row).
    ///
    /// Every canonical layout is separable: offset = [`Self::outer_term`] +
    /// [`Self::inner_term`], which lets gather loops hoist one of the two.
    #[inline]
    pub fn chunk_offset(&self, outer: u32, inner: u32) -> u32 {
        self.outer_term(outer) + self.inner_term(inner)
    }

    /// The part of [`Self::chunk_offset`] that depends on `outer` only.
    #[inline]
    pub fn outer_term(&self, outer: u32) -> u32 {
        let d = &self.desc;
        let sl = d.swizzle.width().trailing_zeros(); // log2 S
        match (self.major, d.swizzle) {
            (Major::K, _) => ((outer % 8) << sl) + (outer / 8) * d.sbo,
            (Major::MN, Swizzle::None) => outer * d.sbo,
            // W = S/16 chunks per swizzle row (a power of two); whole rows step by LBO.
            (Major::MN, _) => {
                let wl = sl - 4;
                ((outer & ((1 << wl) - 1)) << 4) + (outer >> wl) * d.lbo
            }
        }
    }

    /// [`Self::outer_term`] of `0, 1, ..., out.len() - 1`, the layout matched once: a gather
    /// tables the terms of every row of an MMA operand, and matching per row cost more than
    /// the arithmetic (test `outer_terms_equal_outer_term`).
    pub fn outer_terms(&self, out: &mut [u32]) {
        let d = &self.desc;
        let sl = d.swizzle.width().trailing_zeros();
        match (self.major, d.swizzle) {
            (Major::K, _) => {
                for (o, x) in out.iter_mut().enumerate() {
                    let o = o as u32;
                    *x = ((o % 8) << sl) + (o / 8) * d.sbo;
                }
            }
            (Major::MN, Swizzle::None) => {
                for (o, x) in out.iter_mut().enumerate() {
                    *x = o as u32 * d.sbo;
                }
            }
            (Major::MN, _) => {
                let wl = sl - 4;
                for (o, x) in out.iter_mut().enumerate() {
                    let o = o as u32;
                    *x = ((o & ((1 << wl) - 1)) << 4) + (o >> wl) * d.lbo;
                }
            }
        }
    }

    /// The part of [`Self::chunk_offset`] that depends on `inner` only.
    #[inline]
    pub fn inner_term(&self, inner: u32) -> u32 {
        let d = &self.desc;
        match (self.major, d.swizzle) {
            (Major::K, Swizzle::None) => inner * d.lbo,
            (Major::K, _) => inner * 16,
            (Major::MN, Swizzle::None) => (inner % 8) * 16 + (inner / 8) * d.lbo,
            // 128B rows of MN, 4 K-rows per atom (CuTe `Layout_MN_SW128_32B_Atom`), atoms
            // repeat along K by SBO as in the other MN-major modes.
            // UNCONFIRMED which of LBO/SBO steps K here (descriptors.md §2.4).
            (Major::MN, Swizzle::B128Atom32) => (inner % 4) * 128 + (inner / 4) * d.sbo,
            (Major::MN, sw) => ((inner % 8) << sw.width().trailing_zeros()) + (inner / 8) * d.sbo,
        }
    }

    /// Physical (swizzled) shared-memory address of a 16-byte chunk.
    #[inline]
    pub fn chunk_address(&self, outer: u32, inner: u32) -> u32 {
        self.desc.swizzle.apply(
            self.desc
                .start
                .wrapping_add(self.chunk_offset(outer, inner)),
        )
    }

    /// Physical address of element (`row` along M/N, `k` along K) of a byte-sized element
    /// type of `elem_bytes` bytes (1, 2 or 4).
    #[inline]
    pub fn element_address(&self, row: u32, k: u32, elem_bytes: u32) -> u32 {
        match self.major {
            Major::K => {
                let b = k * elem_bytes;
                self.chunk_address(row, b / 16) + b % 16
            }
            Major::MN => {
                let b = row * elem_bytes;
                self.chunk_address(b / 16, k) + b % 16
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tabled terms against the per-row definition, for every major-ness × swizzle,
    /// strides of several sizes and table lengths that are not multiples of a swizzle row.
    #[test]
    fn outer_terms_equal_outer_term() {
        let swizzles = [
            Swizzle::None,
            Swizzle::B32,
            Swizzle::B64,
            Swizzle::B128,
            Swizzle::B128Atom32,
        ];
        for major in [Major::K, Major::MN] {
            for swizzle in swizzles {
                for (lbo, sbo) in [
                    (16, 1024),
                    (128, 256),
                    (4096, 16),
                    (0, 0),
                    (1 << 18, 1 << 17),
                ] {
                    let desc = SmemDescriptor {
                        start: 0x1230,
                        lbo,
                        sbo,
                        base_offset: 0,
                        lbo_absolute: false,
                        swizzle,
                    };
                    let l = OperandLayout::new(desc, major);
                    for n in [0usize, 1, 7, 8, 9, 100, 256] {
                        let mut got = vec![0xdead_beef; n];
                        l.outer_terms(&mut got);
                        let want: Vec<u32> = (0..n as u32).map(|o| l.outer_term(o)).collect();
                        assert_eq!(got, want, "{major:?} {swizzle:?} lbo {lbo} sbo {sbo}");
                    }
                }
            }
        }
    }
}
