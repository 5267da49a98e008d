//! The zero-column mask descriptor of `tcgen05.mma.ws` (PTX ISA 9.1 §9.7.16.4.3, Table 45;
//! `descriptors.md` §4): a 64-bit value that generates an N-bit mask, bit j = 1 meaning
//! "column j of B is zeros for this MMA".
//!
//! Layout: start counts sc0..sc3 (bits 0–31, a byte each), first spans fs0..fs3 (bits
//! 32–35), reserved 36–38, non-zero-mask flag (39), two span lengths minus one (40–47 and
//! 48–55), column shift (56–61), bits 62–63 unused.
//!
//! Readings taken (UNCONFIRMED where the ISA text and its own example disagree):
//! - **Which span is which.** Table 45 calls bits 40–47 "Skip Span = (columns where B is used)
//!   − 1" and bits 48–55 "Use Span = (columns where 0s are used) − 1", but the ISA's own
//!   example (skip 2, use 3 → runs of 4 used columns and 3 zero columns) and CUTLASS's
//!   `UMMA::MaskAndShiftB` comments (skip_span = zero columns, use_span = B columns) say the
//!   opposite. We follow the example and CUTLASS: bits 40–47 + 1 = length of a run of zero
//!   columns (mask 1s), bits 48–55 + 1 = length of a run of used columns (mask 0s).
//! - **First span and start count.** fs_i = 0 starts sub-mask i inside a used run, 1 inside a
//!   zero run; sc_i counts the columns of that first run already consumed ("LSBs skipped"),
//!   so the first run is `len − sc_i` long, then runs alternate. This is the reading under
//!   which CUTLASS's `make_column_zero_mask` (which sets sc = the position inside the current
//!   run) produces the mask it means. A start count that consumes the whole first run (sc ≥
//!   its length) has no stated meaning: unmodelled.
//! - **Non-zero-mask flag.** PTX: 0 ⇒ the mask is all zeros (every column used). (CUTLASS's
//!   comment says the opposite but its code sets 0 exactly when nothing is skipped.)
//! - **Sub-masks.** M = 128: one mask of N bits (fs0, sc0); M = 64: two of N/2 (sub-mask 1
//!   covers columns N/2..N); M = 32: four of N/4 — the same column split as the `.ws` datapath
//!   layouts E and G.
//! - **Column shift** (bits 56–61, "allows MMA on a non-0 starting column") interacts with
//!   the B collector buffers; its effect on which B columns are read is not stated precisely.
//!   Only shift 0 is modelled; a non-zero shift is unmodelled (the run is incomplete).

/// A decoded zero-column mask descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroColumnMask {
    pub raw: u64,
    pub start_count: [u8; 4],
    /// Bit i: sub-mask i starts in a zero run.
    pub first_span: u8,
    /// Bit 39: generate a mask (false ⇒ every column of B is used).
    pub non_zero: bool,
    /// Length of a run of zero columns (bits 40–47, plus one).
    pub zero_run: u32,
    /// Length of a run of used columns (bits 48–55, plus one).
    pub use_run: u32,
    /// Bits 56–61.
    pub column_shift: u32,
}

/// Why a zero-column mask cannot be applied as given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZcmError {
    /// Reserved bits 36–38 or 62–63 set.
    ReservedBits { bits: u64 },
    /// A form whose meaning is not modelled (see the module docs).
    Unmodelled(&'static str),
}

impl core::fmt::Display for ZcmError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ZcmError::ReservedBits { bits } => write!(
                f,
                "zero-column mask descriptor has reserved bits set ({bits:#018x})"
            ),
            ZcmError::Unmodelled(what) => write!(f, "zero-column mask: {what}"),
        }
    }
}

const RESERVED: u64 = (0b111 << 36) | (0b11 << 62);

impl ZeroColumnMask {
    pub fn decode(raw: u64) -> Result<Self, ZcmError> {
        if raw & RESERVED != 0 {
            return Err(ZcmError::ReservedBits {
                bits: raw & RESERVED,
            });
        }
        Ok(ZeroColumnMask {
            raw,
            start_count: (raw as u32).to_le_bytes(),
            first_span: ((raw >> 32) & 0xF) as u8,
            non_zero: (raw >> 39) & 1 == 1,
            zero_run: ((raw >> 40) & 0xFF) as u32 + 1,
            use_run: ((raw >> 48) & 0xFF) as u32 + 1,
            column_shift: ((raw >> 56) & 0x3F) as u32,
        })
    }

    /// Number of sub-masks for the `.ws` M (128 → 1, 64 → 2, 32 → 4).
    pub fn sub_masks(m: u32) -> Option<u32> {
        match m {
            128 => Some(1),
            64 => Some(2),
            32 => Some(4),
            _ => None,
        }
    }

    /// Writes the mask for an MMA of `m` × `n` into `out[0..n]` (true = column j of B is
    /// zeros).
    pub fn generate(&self, m: u32, n: u32, out: &mut [bool]) -> Result<(), ZcmError> {
        let out = &mut out[..n as usize];
        if !self.non_zero {
            out.fill(false);
            return Ok(());
        }
        if self.column_shift != 0 {
            return Err(ZcmError::Unmodelled("a non-zero column shift"));
        }
        let subs = Self::sub_masks(m).ok_or(ZcmError::Unmodelled("M other than 32, 64, 128"))?;
        let width = (n / subs) as usize;
        for (i, part) in out.chunks_mut(width).enumerate().take(subs as usize) {
            let mut zero = (self.first_span >> i) & 1 == 1;
            let run = |zero: bool| {
                if zero {
                    self.zero_run
                } else {
                    self.use_run
                }
            };
            let sc = u32::from(self.start_count[i]);
            if sc >= run(zero) {
                return Err(ZcmError::Unmodelled(
                    "a start count that consumes its whole first span",
                ));
            }
            let mut left = run(zero) - sc;
            for bit in part.iter_mut() {
                *bit = zero;
                left -= 1;
                if left == 0 {
                    zero = !zero;
                    left = run(zero);
                }
            }
        }
        Ok(())
    }
}
