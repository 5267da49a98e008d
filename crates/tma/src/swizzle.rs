//! The swizzle a tensor map applies to the shared-memory side of a copy
//! (PTX ISA 9.1 §5.5.7; bulk-copies.md §2.3).
//!
//! The modes that `tcgen05.mma` descriptors also know (none, 32B, 64B, 128B, 128B with 32-byte
//! atomicity) delegate to [`tmemu_tmem::desc::Swizzle::apply`], so that a box written by TMA and
//! read by an MMA descriptor use one function, never two copies of it. Only the TMA-only
//! variants are written here.
//!
//! All modes act on the absolute shared-memory address (descriptors.md §2.4, DERIVED): PTX gives
//! the pattern's phase as `(dstMem / 128) % 8` when the destination is not aligned to the
//! pattern's repeat, which is exactly what XOR-ing absolute address bits 7.. produces.

use tmemu_spec::tensormap::{SwizzleAtomicity, SwizzleMode, TensorMapDesc};
use tmemu_tmem::desc::Swizzle;

use crate::TmaError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TmaSwizzle {
    None,
    B32,
    B64,
    B128,
    /// 128B pattern permuting 32-byte units: `Swizzle<2,5,2>`.
    B128Atom32,
    /// 128B, 32-byte units, and the two 8-byte halves of each 16 bytes swapped on odd 128-byte
    /// rows. UNCONFIRMED which rows flip (bulk-copies.md §2.3); we chose odd rows, the reading
    /// that makes the flip a function of the same row bits as the unit permutation.
    B128Atom32Flip8,
    /// 128B pattern permuting 64-byte units: unit ^= row & 1 (`Swizzle<1,6,3>`).
    B128Atom64,
}

impl TmaSwizzle {
    /// The swizzle of a map. The 96B mode's row geometry (96-byte rows cannot be address bit
    /// fields) is UNCONFIRMED, so it is reported as not modelled.
    pub fn of(desc: &TensorMapDesc) -> Result<TmaSwizzle, TmaError> {
        use SwizzleAtomicity as A;
        Ok(match (desc.swizzle, desc.swizzle_atomicity) {
            (SwizzleMode::None, _) => TmaSwizzle::None,
            (SwizzleMode::B32, _) => TmaSwizzle::B32,
            (SwizzleMode::B64, _) => TmaSwizzle::B64,
            (SwizzleMode::B128, A::B16) => TmaSwizzle::B128,
            (SwizzleMode::B128, A::B32) => TmaSwizzle::B128Atom32,
            (SwizzleMode::B128, A::B32Flip8B) => TmaSwizzle::B128Atom32Flip8,
            (SwizzleMode::B128, A::B64) => TmaSwizzle::B128Atom64,
            (SwizzleMode::B96, _) => return Err(TmaError::Unsupported("the 96B swizzle mode")),
        })
    }

    /// Bytes of one swizzle row: the most a box's inner dimension may span (none: unlimited).
    pub fn span(self) -> Option<u64> {
        match self {
            TmaSwizzle::None => None,
            TmaSwizzle::B32 => Some(32),
            TmaSwizzle::B64 => Some(64),
            _ => Some(128),
        }
    }

    /// Largest power of two such that aligned blocks of this size stay contiguous: a copy can
    /// move whole granules at a time.
    pub fn granule(self) -> u32 {
        match self {
            TmaSwizzle::B128Atom32Flip8 => 8,
            _ => 16,
        }
    }

    /// Physical shared-memory address of the byte at absolute address `a` of the unswizzled
    /// (dense) box. Every mode only permutes bits 3..7 inside the 128-byte line of `a`.
    #[inline]
    pub fn apply(self, a: u32) -> u32 {
        match self {
            TmaSwizzle::None => Swizzle::None.apply(a),
            TmaSwizzle::B32 => Swizzle::B32.apply(a),
            TmaSwizzle::B64 => Swizzle::B64.apply(a),
            TmaSwizzle::B128 => Swizzle::B128.apply(a),
            TmaSwizzle::B128Atom32 => Swizzle::B128Atom32.apply(a),
            TmaSwizzle::B128Atom32Flip8 => Swizzle::B128Atom32.apply(a) ^ (((a >> 7) & 1) << 3),
            TmaSwizzle::B128Atom64 => a ^ (((a >> 7) & 1) << 6),
        }
    }

    /// The matching `tcgen05` shared-memory descriptor swizzle, where one exists.
    pub fn as_mma_swizzle(self) -> Option<Swizzle> {
        match self {
            TmaSwizzle::None => Some(Swizzle::None),
            TmaSwizzle::B32 => Some(Swizzle::B32),
            TmaSwizzle::B64 => Some(Swizzle::B64),
            TmaSwizzle::B128 => Some(Swizzle::B128),
            TmaSwizzle::B128Atom32 => Some(Swizzle::B128Atom32),
            TmaSwizzle::B128Atom32Flip8 | TmaSwizzle::B128Atom64 => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [TmaSwizzle; 7] = [
        TmaSwizzle::None,
        TmaSwizzle::B32,
        TmaSwizzle::B64,
        TmaSwizzle::B128,
        TmaSwizzle::B128Atom32,
        TmaSwizzle::B128Atom32Flip8,
        TmaSwizzle::B128Atom64,
    ];

    #[test]
    fn every_mode_permutes_each_128_byte_line_and_keeps_granules() {
        for sw in ALL {
            for line in 0..16u32 {
                let mut seen = [false; 128];
                for b in 0..128 {
                    let a = 4096 + line * 128 + b;
                    let p = sw.apply(a);
                    assert_eq!(p / 128, a / 128, "{sw:?} leaves the line");
                    assert!(!seen[(p % 128) as usize], "{sw:?} is not a bijection");
                    seen[(p % 128) as usize] = true;
                    let g = sw.granule();
                    assert_eq!(p % g, a % g, "{sw:?} splits a granule");
                }
            }
        }
    }

    /// PTX ISA §5.5.7's 16-byte-chunk tables: chunk c of row r goes to c ^ (r mod repeat).
    #[test]
    fn chunk_tables() {
        for r in 0..8u32 {
            for c in 0..8u32 {
                let a = r * 128 + c * 16;
                assert_eq!(TmaSwizzle::B128.apply(a), r * 128 + (c ^ r) * 16);
                assert_eq!(TmaSwizzle::B64.apply(a), r * 128 + (c ^ (r & 3)) * 16);
                assert_eq!(TmaSwizzle::B32.apply(a), r * 128 + (c ^ (r & 1)) * 16);
                let u = c / 2;
                assert_eq!(
                    TmaSwizzle::B128Atom32.apply(a),
                    r * 128 + (u ^ (r & 3)) * 32 + (c % 2) * 16
                );
                let u = c / 4;
                assert_eq!(
                    TmaSwizzle::B128Atom64.apply(a),
                    r * 128 + (u ^ (r & 1)) * 64 + (c % 4) * 16
                );
            }
        }
    }
}
