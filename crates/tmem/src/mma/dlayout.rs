//! Where D (and a TMEM-resident A) lives in TMEM: PTX ISA 9.1 §9.7.16.10.5 (Data Path
//! Layout Organization), mma.md §9. The per-layout figures are images; the mappings below
//! are DERIVED there from CUTLASS's `tmem_frg` layouts.
//!
//! Each layout is a union of at most four affine blocks: rows `row0..row0+rows` and columns
//! `col0..col0+cols` of this CTA's part of D go to lanes `lane + (i - row0)` and columns
//! `column + (j - col0)` relative to the D address. Affine blocks let the GEMM kernel write
//! straight into the TMEM cells with strides.

use super::MmaError;

/// The datapath layouts of §9.7.16.10.5 (letters as in the ISA table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DLayout {
    /// M=256, cta_group::2: each CTA holds 128 rows, lane = row.
    A,
    /// M=128 dense, cta_group::2: each CTA holds 64 rows; columns j < N/2 on lanes 0..63,
    /// j >= N/2 on lanes 64..127 (N/2 TMEM columns).
    B,
    /// M=128 sparse, cta_group::2 (not modelled: sparsity is unsupported).
    C,
    /// M=128, cta_group::1: lane = row.
    D,
    /// M=64 `.ws`: lane = i + 64·(j div N/2), column = j mod N/2.
    E,
    /// M=64, cta_group::1: lane = (i mod 16) + 32·(i div 16) (+16 with lane field 16).
    F,
    /// M=32 `.ws`: lane = i + 32·(j div N/4), column = j mod N/4.
    G,
}

/// One affine piece of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DBlock {
    pub row0: u32,
    pub rows: u32,
    pub col0: u32,
    pub cols: u32,
    /// Lane offset (from the D address's lane) of row `row0`.
    pub lane: u32,
    /// Column offset (from the D address's column) of column `col0`.
    pub column: u32,
}

impl DLayout {
    /// The layout for the instruction's M (pair total for cta_group::2).
    pub fn select(m: u32, cta_group: u8, ws: bool, sparse: bool) -> Result<DLayout, MmaError> {
        Ok(match (m, cta_group, ws, sparse) {
            (32, 1, true, _) => DLayout::G,
            (64, 1, true, _) => DLayout::E,
            (64, 1, false, _) => DLayout::F,
            (128, 1, _, _) => DLayout::D,
            (128, 2, false, false) => DLayout::B,
            (128, 2, false, true) => DLayout::C,
            (256, 2, false, _) => DLayout::A,
            _ => {
                return Err(MmaError::Unsupported(
                    "no datapath layout for this M / cta_group",
                ))
            }
        })
    }

    /// Rows of D held by one CTA.
    pub fn rows_per_cta(self) -> u32 {
        match self {
            DLayout::A | DLayout::D => 128,
            DLayout::B | DLayout::C | DLayout::E | DLayout::F => 64,
            DLayout::G => 32,
        }
    }

    /// TMEM columns D occupies for N.
    pub fn columns(self, n: u32) -> u32 {
        match self {
            DLayout::B | DLayout::E => n / 2,
            DLayout::G => n / 4,
            _ => n,
        }
    }

    /// Legal lane fields of the D address (§9.7.16.10.5 "required lane alignment").
    pub fn check_lane(self, lane: u32) -> Result<(), MmaError> {
        let ok = match self {
            DLayout::F | DLayout::C => lane == 0 || lane == 16,
            _ => lane == 0,
        };
        if ok {
            Ok(())
        } else {
            Err(MmaError::LaneAlign { lane })
        }
    }

    /// The affine blocks of this CTA's part of D (`n` = N of the instruction).
    pub fn blocks(self, n: u32) -> ([DBlock; 4], usize) {
        let z = DBlock {
            row0: 0,
            rows: 0,
            col0: 0,
            cols: 0,
            lane: 0,
            column: 0,
        };
        let mut out = [z; 4];
        let count = match self {
            DLayout::A | DLayout::D => {
                out[0] = DBlock {
                    rows: 128,
                    cols: n,
                    ..z
                };
                1
            }
            DLayout::B | DLayout::E => {
                let h = n / 2;
                out[0] = DBlock {
                    rows: 64,
                    cols: h,
                    ..z
                };
                out[1] = DBlock {
                    rows: 64,
                    col0: h,
                    cols: h,
                    lane: 64,
                    ..z
                };
                2
            }
            DLayout::G => {
                let q = n / 4;
                for (g, b) in out.iter_mut().enumerate() {
                    let g = g as u32;
                    *b = DBlock {
                        rows: 32,
                        col0: g * q,
                        cols: q,
                        lane: 32 * g,
                        ..z
                    };
                }
                4
            }
            DLayout::F | DLayout::C => {
                for (g, b) in out.iter_mut().enumerate() {
                    let g = g as u32;
                    *b = DBlock {
                        row0: 16 * g,
                        rows: 16,
                        cols: n,
                        lane: 32 * g,
                        ..z
                    };
                }
                4
            }
        };
        (out, count)
    }

    /// (lane offset, column offset) of element (i, j) of this CTA's part of D.
    pub fn cell(self, i: u32, j: u32, n: u32) -> (u32, u32) {
        let (blocks, count) = self.blocks(n);
        for b in &blocks[..count] {
            if (b.row0..b.row0 + b.rows).contains(&i) && (b.col0..b.col0 + b.cols).contains(&j) {
                return (b.lane + i - b.row0, b.column + j - b.col0);
            }
        }
        unreachable!("element ({i}, {j}) outside D of layout {self:?}")
    }
}
