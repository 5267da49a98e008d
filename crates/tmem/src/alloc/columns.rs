//! The columns of one SM: which 32-column units are free and which allocation holds each.
//! Pure bookkeeping, no protocol: the allocator decides who may take what.

// `%` rather than `is_multiple_of`: the workspace MSRV (1.85) predates it.
#![allow(clippy::manual_is_multiple_of)]
//!
//! Fixed arrays only (16 units), so alloc and dealloc never touch the heap.

use super::{CtaGroup, CtaId, Origin, WarpId};
use crate::geometry::{ColumnRange, ALLOC_UNIT, UNITS};

/// One live allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub cta: CtaId,
    /// The warp whose alloc was granted.
    pub warp: WarpId,
    pub range: ColumnRange,
    /// Origin of the alloc instruction ("allocated here").
    pub origin: Origin,
    pub group: CtaGroup,
}

/// The 512 columns of one SM as 16 units of 32 columns.
#[derive(Clone, Debug)]
pub struct ColumnAllocator {
    /// Bit u set = unit u is free.
    free: u16,
    /// Indexed by the first unit of each live allocation.
    allocs: [Option<Allocation>; UNITS],
}

impl Default for ColumnAllocator {
    fn default() -> Self {
        ColumnAllocator {
            free: u16::MAX,
            allocs: [None; UNITS],
        }
    }
}

/// Mask of `units` units starting at unit `first`.
const fn run_mask(first: u32, units: u32) -> u16 {
    (((1u32 << units) - 1) << first) as u16
}

/// First units of every free range of `units` units (a power of two) aligned to its size,
/// given a free-unit mask. Bit s set = the range starting at unit s is free.
pub(crate) fn aligned_starts(free: u16, units: u32) -> u16 {
    debug_assert!(units.is_power_of_two() && units as usize <= UNITS);
    let mut starts = 0u16;
    let mut s = 0;
    while s < UNITS as u32 {
        let m = run_mask(s, units);
        if free & m == m {
            starts |= 1 << s;
        }
        s += units;
    }
    starts
}

impl ColumnAllocator {
    /// Free-unit mask (bit u = columns 32u..32u+31 free).
    pub fn free_mask(&self) -> u16 {
        self.free
    }

    pub fn free_columns(&self) -> u32 {
        self.free.count_ones() * ALLOC_UNIT
    }

    /// Live allocations, lowest column first.
    pub fn allocations(&self) -> impl Iterator<Item = &Allocation> + '_ {
        self.allocs.iter().flatten()
    }

    /// The allocation whose range contains `column`, if any.
    pub fn owner_of(&self, column: u32) -> Option<&Allocation> {
        self.allocations().find(|a| a.range.contains(column))
    }

    /// The allocation that starts exactly at `column`, if any.
    pub fn starting_at(&self, column: u32) -> Option<&Allocation> {
        if column % ALLOC_UNIT != 0 {
            return None;
        }
        self.allocs
            .get((column / ALLOC_UNIT) as usize)
            .and_then(|a| a.as_ref())
    }

    /// Take the (free) range for `alloc`. The caller checked it is free and aligned.
    pub(crate) fn occupy(&mut self, alloc: Allocation) {
        let first = alloc.range.first / ALLOC_UNIT;
        let m = run_mask(first, alloc.range.ncols / ALLOC_UNIT);
        debug_assert_eq!(self.free & m, m, "occupying columns that are not free");
        self.free &= !m;
        self.allocs[first as usize] = Some(alloc);
    }

    /// Free the allocation that starts at `column`; returns it.
    pub(crate) fn release(&mut self, column: u32) -> Option<Allocation> {
        if column % ALLOC_UNIT != 0 {
            return None;
        }
        let first = column / ALLOC_UNIT;
        let a = self.allocs.get_mut(first as usize)?.take()?;
        self.free |= run_mask(first, a.range.ncols / ALLOC_UNIT);
        Some(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligned_starts_respects_alignment() {
        // Units 1..=4 free: a 2-unit range may start at 2 only (1 is misaligned).
        let free = 0b1_1110;
        assert_eq!(aligned_starts(free, 2), 0b100);
        assert_eq!(aligned_starts(free, 4), 0);
        assert_eq!(aligned_starts(free, 1), free);
        assert_eq!(aligned_starts(u16::MAX, 16), 1);
        assert_eq!(aligned_starts(u16::MAX, 8), 0x0101);
    }
}
