//! The 64-bit shared-memory matrix descriptor (PTX ISA 9.1 §9.7.16.4.1, Table 40).

use super::{DescError, Swizzle};

/// A decoded shared-memory matrix descriptor. Addresses and offsets are in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmemDescriptor {
    /// Matrix start address: a `.shared::cta` byte offset, 16-byte aligned, < 2^18.
    pub start: u32,
    /// Leading-dimension byte offset (LBO), 16-byte aligned.
    pub lbo: u32,
    /// Stride-dimension byte offset (SBO), 16-byte aligned.
    pub sbo: u32,
    /// Matrix base offset (bits 49–51).
    pub base_offset: u8,
    /// Bit 52: LBO is an absolute address (sm_103a only).
    pub lbo_absolute: bool,
    pub swizzle: Swizzle,
}

const RESERVED_MASK: u64 = (0b11 << 14) | (0b11 << 30) | (0xFF << 53);

impl SmemDescriptor {
    /// Decodes the descriptor, rejecting malformed encodings in this order: version bits,
    /// reserved bits, layout type. Target rules (bit 52, base offset) are left to
    /// [`SmemDescriptor::check_sm100`] so a decoder for sm_103a can accept them.
    pub fn decode(raw: u64) -> Result<Self, DescError> {
        let version = ((raw >> 46) & 0x7) as u8;
        if version != 0b001 {
            return Err(DescError::SmemVersion { found: version });
        }
        if raw & RESERVED_MASK != 0 {
            return Err(DescError::SmemReservedBits {
                bits: raw & RESERVED_MASK,
            });
        }
        let code = ((raw >> 61) & 0x7) as u8;
        let swizzle = Swizzle::from_code(code).ok_or(DescError::SmemLayoutInvalid { code })?;
        Ok(SmemDescriptor {
            start: field14(raw, 0),
            lbo: field14(raw, 16),
            sbo: field14(raw, 32),
            base_offset: ((raw >> 49) & 0x7) as u8,
            lbo_absolute: (raw >> 52) & 1 == 1,
            swizzle,
        })
    }

    /// The sm_100a-family restrictions: relative LBO only; base offset 0 (the only value whose
    /// meaning we model — a non-zero base offset is reported as unmodelled, not as illegal).
    ///
    /// A base offset on a no-swizzle layout is accepted and ignored (DERIVED): the field gives
    /// the phase of the swizzle pattern when the matrix does not start on a pattern boundary
    /// (PTX ISA 9.1 §9.7.16.4.1, Table 41: "(pattern start addr >> 7) & 7"), and the
    /// interleaved layout has no pattern. Triton 3.9 computes the field from the start address
    /// for every layout: the second `tcgen05.cp.32x128b.warpx4` of a preshuffled scale tile
    /// 512 bytes into its buffer carries base offset 4 (holdout `ho5_dot_scaled_preshuffled`).
    pub fn check_sm100(&self) -> Result<(), DescError> {
        if self.lbo_absolute {
            return Err(DescError::SmemLboAbsolute);
        }
        if self.base_offset != 0 && self.swizzle != Swizzle::None {
            return Err(DescError::SmemBaseOffsetUnmodelled {
                base: self.base_offset,
            });
        }
        Ok(())
    }

    /// Encodes the descriptor (fields are truncated to their 14-bit, 16-byte-unit encoding).
    pub fn encode(&self) -> u64 {
        enc(self.start)
            | (enc(self.lbo) << 16)
            | (enc(self.sbo) << 32)
            | (1 << 46)
            | (u64::from(self.base_offset & 7) << 49)
            | (u64::from(self.lbo_absolute) << 52)
            | (u64::from(self.swizzle.code()) << 61)
    }
}

fn field14(raw: u64, at: u32) -> u32 {
    (((raw >> at) & 0x3FFF) as u32) << 4
}

fn enc(x: u32) -> u64 {
    u64::from((x & 0x3FFFF) >> 4)
}
