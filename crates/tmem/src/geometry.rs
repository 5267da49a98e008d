//! TMEM geometry and addresses (PTX ISA §9.7.16.1 Tensor Memory, §9.7.16.1.1 Addressing,
//! §9.7.16.8.1 Access restrictions).
//!
//! TMEM is 128 lanes × 512 columns of 32-bit cells. An address is `lane << 16 | column`.
//! sm_103/sm_110 geometry is UNCONFIRMED in the ISA text; we use 128 × 512 for every target
//! that has TMEM, as CUTLASS does (`Sm100TmemCapacityColumns = 512`).

use std::fmt;
use std::ops::Range;

/// Lanes (rows) of TMEM.
pub const LANES: u32 = 128;
/// Columns of TMEM on one SM.
pub const COLUMNS: u32 = 512;
/// Bits per cell.
pub const CELL_BITS: u32 = 32;
/// Allocation unit in columns (§9.7.16.1.2).
pub const ALLOC_UNIT: u32 = 32;
/// Allocation units per SM (512 / 32).
pub const UNITS: usize = (COLUMNS / ALLOC_UNIT) as usize;
/// Smallest and largest legal nCols.
pub const MIN_NCOLS: u32 = 32;
pub const MAX_NCOLS: u32 = 512;
/// Lanes per lane quarter (one warp's share, §9.7.16.8.1).
pub const QUARTER_LANES: u32 = 32;

/// Why a lane/column pair or a raw address is not a TMEM cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddrError {
    LaneOutOfRange { lane: u32 },
    ColumnOutOfRange { column: u32 },
}

impl fmt::Display for AddrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AddrError::LaneOutOfRange { lane } => {
                write!(f, "TMEM lane {lane} is out of range (0..{LANES})")
            }
            AddrError::ColumnOutOfRange { column } => {
                write!(f, "TMEM column {column} is out of range (0..{COLUMNS})")
            }
        }
    }
}

impl std::error::Error for AddrError {}

/// A 32-bit TMEM address: lane in bits 31..16, column in bits 15..0 (§9.7.16.1.1).
///
/// A raw value read from a register may name no cell (lane ≥ 128 or column ≥ 512);
/// [`TmemAddr::from_raw`] keeps it as is so a checker can report it, and
/// [`TmemAddr::check`] says whether it names a cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TmemAddr(u32);

impl TmemAddr {
    /// The address of cell (lane, column), range-checked.
    pub fn new(lane: u32, column: u32) -> Result<Self, AddrError> {
        let a = TmemAddr(((lane & 0xffff) << 16) | (column & 0xffff));
        if lane > 0xffff {
            return Err(AddrError::LaneOutOfRange { lane });
        }
        if column > 0xffff {
            return Err(AddrError::ColumnOutOfRange { column });
        }
        a.check().map(|()| a)
    }

    /// Wrap a raw 32-bit value (e.g. a register) without checking it.
    pub const fn from_raw(raw: u32) -> Self {
        TmemAddr(raw)
    }

    pub const fn raw(self) -> u32 {
        self.0
    }

    pub const fn lane(self) -> u32 {
        self.0 >> 16
    }

    pub const fn column(self) -> u32 {
        self.0 & 0xffff
    }

    /// Ok when the address names a TMEM cell.
    pub fn check(self) -> Result<(), AddrError> {
        if self.lane() >= LANES {
            Err(AddrError::LaneOutOfRange { lane: self.lane() })
        } else if self.column() >= COLUMNS {
            Err(AddrError::ColumnOutOfRange {
                column: self.column(),
            })
        } else {
            Ok(())
        }
    }

    /// This address moved by `lanes` lanes and `columns` columns, range-checked.
    pub fn offset(self, lanes: u32, columns: u32) -> Result<Self, AddrError> {
        TmemAddr::new(
            self.lane().saturating_add(lanes),
            self.column().saturating_add(columns),
        )
    }
}

impl fmt::Display for TmemAddr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:#010x} (lane {}, column {})",
            self.0,
            self.lane(),
            self.column()
        )
    }
}

/// The 32 lanes a warp may reach with tcgen05.ld/st: quarter q = (warp index in CTA) % 4
/// covers lanes 32q..32q+31 (§9.7.16.8.1; warp index = linear thread id / 32, DERIVED in
/// data-movement.md §2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LaneQuarter(u8);

impl LaneQuarter {
    /// The quarter of the warp with this index within its CTA.
    pub const fn of_warp(warp_in_cta: u32) -> Self {
        LaneQuarter((warp_in_cta % 4) as u8)
    }

    /// The quarter that contains `lane`, if lane < 128.
    pub const fn of_lane(lane: u32) -> Option<Self> {
        if lane < LANES {
            Some(LaneQuarter((lane / QUARTER_LANES) as u8))
        } else {
            None
        }
    }

    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    pub const fn first_lane(self) -> u32 {
        self.0 as u32 * QUARTER_LANES
    }

    pub const fn lanes(self) -> Range<u32> {
        self.first_lane()..self.first_lane() + QUARTER_LANES
    }

    pub const fn contains(self, lane: u32) -> bool {
        lane >= self.first_lane() && lane < self.first_lane() + QUARTER_LANES
    }

    /// True when all of `lanes` (non-empty) lie in this quarter.
    pub fn contains_all(self, lanes: Range<u32>) -> bool {
        !lanes.is_empty() && lanes.start >= self.first_lane() && lanes.end <= self.lanes().end
    }
}

/// A range of whole columns across all 128 lanes, as an allocation holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ColumnRange {
    pub first: u32,
    pub ncols: u32,
}

impl ColumnRange {
    pub const fn end(self) -> u32 {
        self.first + self.ncols
    }

    pub const fn contains(self, column: u32) -> bool {
        column >= self.first && column < self.end()
    }

    pub const fn overlaps(self, other: ColumnRange) -> bool {
        self.first < other.end() && other.first < self.end()
    }

    /// Address of lane 0 of the first column.
    pub const fn base(self) -> TmemAddr {
        TmemAddr::from_raw(self.first)
    }
}

impl fmt::Display for ColumnRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "columns {}..{}", self.first, self.end())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_fields_round_trip() {
        let a = TmemAddr::new(96, 300).unwrap();
        assert_eq!(a.raw(), (96 << 16) | 300);
        assert_eq!((a.lane(), a.column()), (96, 300));
        assert_eq!(TmemAddr::from_raw(0x0020_0040).lane(), 32);
        assert_eq!(TmemAddr::from_raw(0x0020_0040).column(), 64);
    }

    #[test]
    fn address_range_checks() {
        assert!(TmemAddr::new(127, 511).is_ok());
        assert_eq!(
            TmemAddr::new(128, 0),
            Err(AddrError::LaneOutOfRange { lane: 128 })
        );
        assert_eq!(
            TmemAddr::new(0, 512),
            Err(AddrError::ColumnOutOfRange { column: 512 })
        );
        assert_eq!(
            TmemAddr::new(0x1_0000, 0),
            Err(AddrError::LaneOutOfRange { lane: 0x1_0000 })
        );
        assert!(TmemAddr::from_raw(0xffff_ffff).check().is_err());
        assert_eq!(
            TmemAddr::new(0, 500).unwrap().offset(32, 12),
            Err(AddrError::ColumnOutOfRange { column: 512 })
        );
        assert_eq!(
            TmemAddr::new(0, 0).unwrap().offset(32, 16).unwrap().raw(),
            (32 << 16) | 16
        );
    }

    #[test]
    fn lane_quarters_follow_warp_index_mod_4() {
        for warp in 0..16 {
            let q = LaneQuarter::of_warp(warp);
            assert_eq!(q.lanes(), 32 * (warp % 4)..32 * (warp % 4) + 32);
        }
        assert!(LaneQuarter::of_warp(5).contains(32));
        assert!(!LaneQuarter::of_warp(5).contains(64));
        assert!(LaneQuarter::of_warp(1).contains_all(48..64));
        assert!(!LaneQuarter::of_warp(1).contains_all(48..65));
        assert_eq!(LaneQuarter::of_lane(127), Some(LaneQuarter::of_warp(3)));
        assert_eq!(LaneQuarter::of_lane(128), None);
    }

    #[test]
    fn column_ranges_overlap() {
        let a = ColumnRange {
            first: 0,
            ncols: 64,
        };
        let b = ColumnRange {
            first: 64,
            ncols: 32,
        };
        assert!(!a.overlaps(b) && !b.overlaps(a));
        assert!(a.overlaps(ColumnRange {
            first: 32,
            ncols: 128
        }));
        assert_eq!(b.base(), TmemAddr::new(0, 64).unwrap());
    }
}
