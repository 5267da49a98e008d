//! `tcgen05.ld` / `tcgen05.st` fragment maps (data-movement.md §2.3–2.6).
//!
//! With `t` the thread's lane in its warp and `r` the register index, relative to the
//! address's (lane L0, column C0):
//!
//! | shape | lane | column |
//! |---|---|---|
//! | 32x32b | t | r |
//! | 16x64b | t/4 + 8(t%2) | 2r + (t/2)%2 |
//! | 16x128b | t/4 + 8(r%2) | t%4 + 4(r/2) |
//! | 16x256b | t/4 + 8((r/2)%2) | 2(t%4) + r%2 + 8(r/4) |
//! | 16x32bx2 | t%16 | r, plus immHalfSplitoff on the whole address for t >= 16 |
//!
//! `.pack::16b` / `.unpack::16b`: register bits 0..15 ↔ low 16 bits of column C0+2c, bits
//! 16..31 ↔ low 16 bits of column C0+2c+1, where c is the unpacked column above.
//! **UNCONFIRMED** what `.unpack::16b` stores into the high halves of the two cells; we
//! leave them unchanged (the engine writes only the low 16 bits).

use super::LayoutError;
use crate::geometry::{LaneQuarter, COLUMNS, LANES};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdStShape {
    S16x64b,
    S16x128b,
    S16x256b,
    S32x32b,
    S16x32bx2,
}

impl LdStShape {
    pub const ALL: [LdStShape; 5] = [
        LdStShape::S16x64b,
        LdStShape::S16x128b,
        LdStShape::S16x256b,
        LdStShape::S32x32b,
        LdStShape::S16x32bx2,
    ];

    /// Registers per thread for `.x1`.
    pub fn regs_per_num(self) -> u32 {
        match self {
            LdStShape::S16x128b => 2,
            LdStShape::S16x256b => 4,
            _ => 1,
        }
    }

    /// TMEM lanes one access touches.
    pub fn lanes(self) -> u32 {
        match self {
            LdStShape::S32x32b => 32,
            _ => 16,
        }
    }
}

/// One ld/st form: shape × `.num` × packing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LdStForm {
    pub shape: LdStShape,
    pub num: u32,
    /// `.pack::16b` on ld, `.unpack::16b` on st.
    pub pack16: bool,
}

/// One TMEM cell (or the low half of one, when packed), relative to the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellRef {
    pub lane: u32,
    pub column: u32,
}

/// Where one register lives: one full cell, or (packed) the low halves of two cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegCells {
    Full(CellRef),
    /// `(low 16 bits of the register, high 16 bits)`.
    Halves(CellRef, CellRef),
}

impl LdStForm {
    /// Validates `.num` for the shape (Tables 49/50: nregs = num × k ≤ 128).
    pub fn new(shape: LdStShape, num: u32, pack16: bool) -> Result<Self, LayoutError> {
        let legal = num.is_power_of_two() && num <= 128 && num * shape.regs_per_num() <= 128;
        if !legal {
            return Err(LayoutError::ShapeNum { num });
        }
        Ok(LdStForm { shape, num, pack16 })
    }

    /// Length of the register vector.
    pub fn regs(&self) -> u32 {
        self.num * self.shape.regs_per_num()
    }

    /// Columns one access (one half, for 16x32bx2) spans from C0.
    pub fn columns(&self) -> u32 {
        let unpacked = match self.shape {
            LdStShape::S32x32b | LdStShape::S16x32bx2 => self.num,
            LdStShape::S16x64b => 2 * self.num,
            LdStShape::S16x128b => 4 * self.num,
            LdStShape::S16x256b => 8 * self.num,
        };
        if self.pack16 {
            2 * unpacked
        } else {
            unpacked
        }
    }

    /// Unpacked (lane, column) offsets of register `r` of thread `t`, and whether the
    /// `.16x32bx2` split-off applies (t >= 16).
    #[inline]
    pub fn unpacked(&self, t: u32, r: u32) -> (CellRef, bool) {
        let (lane, column) = match self.shape {
            LdStShape::S32x32b => (t, r),
            LdStShape::S16x64b => (t / 4 + 8 * (t % 2), 2 * r + (t / 2) % 2),
            LdStShape::S16x128b => (t / 4 + 8 * (r % 2), t % 4 + 4 * (r / 2)),
            LdStShape::S16x256b => (t / 4 + 8 * ((r / 2) % 2), 2 * (t % 4) + r % 2 + 8 * (r / 4)),
            LdStShape::S16x32bx2 => (t % 16, r),
        };
        (
            CellRef { lane, column },
            self.shape == LdStShape::S16x32bx2 && t >= 16,
        )
    }

    /// The cells of register `r` of thread `t` as raw TMEM addresses (lane << 16 | column),
    /// given the instruction's address and `immHalfSplitoff` (0 for other shapes). The
    /// split-off is added to the whole 32-bit address (data-movement.md §2.4).
    #[inline]
    pub fn cells(&self, taddr: u32, half_splitoff: u32, t: u32, r: u32) -> RegCells {
        let (c, split) = self.unpacked(t, r);
        let base = if split {
            taddr.wrapping_add(half_splitoff)
        } else {
            taddr
        };
        let at = |lane: u32, col: u32| {
            let a = base.wrapping_add(lane << 16).wrapping_add(col);
            CellRef {
                lane: a >> 16,
                column: a & 0xFFFF,
            }
        };
        if self.pack16 {
            RegCells::Halves(at(c.lane, 2 * c.column), at(c.lane, 2 * c.column + 1))
        } else {
            RegCells::Full(at(c.lane, c.column))
        }
    }

    /// Precomputed relative map, indexed `[r * 32 + t]`, of the unpacked (lane, column)
    /// offsets plus the split flag — for engines that prefer a table walk.
    pub fn table(&self) -> Vec<(CellRef, bool)> {
        let mut v = Vec::with_capacity(32 * self.regs() as usize);
        for r in 0..self.regs() {
            for t in 0..32 {
                v.push(self.unpacked(t, r));
            }
        }
        v
    }

    /// The lanes touched: one range, or two for `.16x32bx2` (the second at the split-off).
    pub fn lane_ranges(&self, taddr: u32, half_splitoff: u32) -> [core::ops::Range<u32>; 2] {
        let l0 = taddr >> 16;
        let first = l0..l0 + self.shape.lanes();
        if self.shape == LdStShape::S16x32bx2 {
            let l1 = taddr.wrapping_add(half_splitoff) >> 16;
            [first, l1..l1 + 16]
        } else {
            [first.clone(), first]
        }
    }

    /// The column ranges touched (two for `.16x32bx2`).
    pub fn column_ranges(&self, taddr: u32, half_splitoff: u32) -> [core::ops::Range<u32>; 2] {
        let c0 = taddr & 0xFFFF;
        let first = c0..c0 + self.columns();
        if self.shape == LdStShape::S16x32bx2 {
            let c1 = taddr.wrapping_add(half_splitoff) & 0xFFFF;
            [first, c1..c1 + self.columns()]
        } else {
            [first.clone(), first]
        }
    }

    /// Lane-quarter rule (§9.7.16.8.1) and TMEM bounds for a warp with index `warp_in_cta`.
    /// Checks bounds first: an out-of-range cell is reported as such, not as a quarter issue.
    pub fn check_access(
        &self,
        taddr: u32,
        half_splitoff: u32,
        warp_in_cta: u32,
    ) -> Result<(), LayoutError> {
        self.check_bounds(taddr, half_splitoff)?;
        let lanes = self.lane_ranges(taddr, half_splitoff);
        let q = LaneQuarter::of_warp(warp_in_cta);
        for l in lanes {
            if !q.contains_all(l.clone()) {
                let lane = if q.contains(l.start) {
                    l.end - 1
                } else {
                    l.start
                };
                return Err(LayoutError::LaneQuarter {
                    lane,
                    warp_quarter: q.index(),
                });
            }
        }
        Ok(())
    }

    /// `tcgen05.ld`: register `r` of thread `t` goes to `regs[r][t]` (the engine's per-warp
    /// 32-lane register arrays). `tmem` is the SM's 128 × 512 cells, lane-major. Checks
    /// TMEM bounds (not the lane quarter: see [`LdStForm::check_access`]) before reading.
    ///
    /// Equal to [`LdStForm::load_reference`] (tested over every shape, `.num`, packing and
    /// split-off): once the bounds hold, no lane or column sum carries into the other field,
    /// so a cell's index is `(L0 + lane) · 512 + C0 + column` with the unpacked offsets of
    /// the fragment map, and `.32x32b` (every compiler's epilogue shape) copies each thread's
    /// TMEM row as one slice.
    pub fn load(
        &self,
        tmem: &[u32],
        taddr: u32,
        half_splitoff: u32,
        regs: &mut [[u32; 32]],
    ) -> Result<(), LayoutError> {
        self.check_bounds(taddr, half_splitoff)?;
        let n = regs.len().min(self.regs() as usize);
        let regs = &mut regs[..n];
        let base0 = cell_index(taddr);
        if self.shape == LdStShape::S32x32b {
            let width = if self.pack16 { 2 * n } else { n };
            for t in 0..32 {
                let row = &tmem[base0 + t * COLUMNS as usize..][..width];
                if self.pack16 {
                    for (reg, pair) in regs.iter_mut().zip(row.chunks_exact(2)) {
                        reg[t] = (pair[0] & 0xFFFF) | (pair[1] << 16);
                    }
                } else {
                    for (reg, &v) in regs.iter_mut().zip(row) {
                        reg[t] = v;
                    }
                }
            }
            return Ok(());
        }
        let base1 = cell_index(taddr.wrapping_add(half_splitoff));
        for (r, reg) in regs.iter_mut().enumerate() {
            for (t, v) in reg.iter_mut().enumerate() {
                let i = self.rel_index(base0, base1, t as u32, r as u32);
                *v = if self.pack16 {
                    (tmem[i] & 0xFFFF) | (tmem[i + 1] << 16)
                } else {
                    tmem[i]
                };
            }
        }
        Ok(())
    }

    /// `tcgen05.st`: the inverse of [`LdStForm::load`]. With `.unpack::16b` only the low
    /// 16 bits of each cell are written (the high bits keep their value: UNCONFIRMED).
    /// Equal to [`LdStForm::store_reference`] (see [`LdStForm::load`]).
    pub fn store(
        &self,
        tmem: &mut [u32],
        taddr: u32,
        half_splitoff: u32,
        regs: &[[u32; 32]],
    ) -> Result<(), LayoutError> {
        self.check_bounds(taddr, half_splitoff)?;
        let n = regs.len().min(self.regs() as usize);
        let regs = &regs[..n];
        let base0 = cell_index(taddr);
        let low = |cell: &mut u32, half: u32| *cell = (*cell & 0xFFFF_0000) | half;
        if self.shape == LdStShape::S32x32b {
            let width = if self.pack16 { 2 * n } else { n };
            for t in 0..32 {
                let row = &mut tmem[base0 + t * COLUMNS as usize..][..width];
                if self.pack16 {
                    for (reg, pair) in regs.iter().zip(row.chunks_exact_mut(2)) {
                        low(&mut pair[0], reg[t] & 0xFFFF);
                        low(&mut pair[1], reg[t] >> 16);
                    }
                } else {
                    for (reg, cell) in regs.iter().zip(row) {
                        *cell = reg[t];
                    }
                }
            }
            return Ok(());
        }
        let base1 = cell_index(taddr.wrapping_add(half_splitoff));
        for (r, reg) in regs.iter().enumerate() {
            for (t, &v) in reg.iter().enumerate() {
                let i = self.rel_index(base0, base1, t as u32, r as u32);
                if self.pack16 {
                    low(&mut tmem[i], v & 0xFFFF);
                    low(&mut tmem[i + 1], v >> 16);
                } else {
                    tmem[i] = v;
                }
            }
        }
        Ok(())
    }

    /// Index into the lane-major cells of register `r` of thread `t` (its first cell when
    /// packed), from the cell indices of the address and of the split-off address; only
    /// after [`LdStForm::check_bounds`] (no field carries).
    #[inline(always)]
    fn rel_index(&self, base0: usize, base1: usize, t: u32, r: u32) -> usize {
        let (c, split) = self.unpacked(t, r);
        let col = if self.pack16 { 2 * c.column } else { c.column };
        let base = if split { base1 } else { base0 };
        base + (c.lane * COLUMNS + col) as usize
    }

    /// [`LdStForm::load`] cell by cell through [`LdStForm::cells`]: the definition, kept as
    /// the reference the fast path is tested against.
    ///
    /// `tcgen05.ld`: register `r` of thread `t` goes to `regs[r][t]` (the engine's per-warp
    /// 32-lane register arrays). `tmem` is the SM's 128 × 512 cells, lane-major. Checks
    /// TMEM bounds (not the lane quarter: see [`LdStForm::check_access`]) before reading.
    pub fn load_reference(
        &self,
        tmem: &[u32],
        taddr: u32,
        half_splitoff: u32,
        regs: &mut [[u32; 32]],
    ) -> Result<(), LayoutError> {
        self.check_bounds(taddr, half_splitoff)?;
        let cell = |c: CellRef| tmem[(c.lane * COLUMNS + c.column) as usize];
        for (r, reg) in regs.iter_mut().enumerate().take(self.regs() as usize) {
            for (t, v) in reg.iter_mut().enumerate() {
                *v = match self.cells(taddr, half_splitoff, t as u32, r as u32) {
                    RegCells::Full(c) => cell(c),
                    RegCells::Halves(lo, hi) => (cell(lo) & 0xFFFF) | (cell(hi) << 16),
                };
            }
        }
        Ok(())
    }

    /// [`LdStForm::store`] cell by cell through [`LdStForm::cells`] (the reference).
    ///
    /// `tcgen05.st`: the inverse of [`LdStForm::load`]. With `.unpack::16b` only the low
    /// 16 bits of each cell are written (the high bits keep their value: UNCONFIRMED).
    pub fn store_reference(
        &self,
        tmem: &mut [u32],
        taddr: u32,
        half_splitoff: u32,
        regs: &[[u32; 32]],
    ) -> Result<(), LayoutError> {
        self.check_bounds(taddr, half_splitoff)?;
        for (r, reg) in regs.iter().enumerate().take(self.regs() as usize) {
            for (t, &v) in reg.iter().enumerate() {
                match self.cells(taddr, half_splitoff, t as u32, r as u32) {
                    RegCells::Full(c) => tmem[(c.lane * COLUMNS + c.column) as usize] = v,
                    RegCells::Halves(lo, hi) => {
                        for (c, half) in [(lo, v & 0xFFFF), (hi, v >> 16)] {
                            let cell = &mut tmem[(c.lane * COLUMNS + c.column) as usize];
                            *cell = (*cell & 0xFFFF_0000) | half;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    fn check_bounds(&self, taddr: u32, half_splitoff: u32) -> Result<(), LayoutError> {
        let lanes = self.lane_ranges(taddr, half_splitoff);
        let cols = self.column_ranges(taddr, half_splitoff);
        for (l, c) in lanes.iter().zip(cols.iter()) {
            if l.end > LANES || c.end > COLUMNS {
                return Err(LayoutError::OutOfRange {
                    lane: l.end.max(1) - 1,
                    column: c.end.max(1) - 1,
                });
            }
        }
        Ok(())
    }
}

/// Index of the cell at a raw TMEM address in the lane-major 128 × 512 cells (the address's
/// fields as they are: callers have checked the bounds).
#[inline(always)]
fn cell_index(taddr: u32) -> usize {
    ((taddr >> 16) * COLUMNS + (taddr & 0xFFFF)) as usize
}
