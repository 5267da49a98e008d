//! `tcgen05.shift.down` (data-movement.md §6; PTX ISA 9.1 §9.7.16.9.3).
//!
//! Implicit shape 31x256b: within the 32-lane block that starts at the (32-aligned) lane
//! L0, each of rows L0..L0+30 moves one lane down, 8 columns (256 bits) wide from C0.
//! DERIVED reading; **UNCONFIRMED**: row L0 afterwards — we leave it unchanged (a move, not
//! a clear) — and the exact columns (C0..C0+7).

use super::LayoutError;

/// Rows that move.
pub const SHIFT_ROWS: u32 = 31;
/// Columns per row.
pub const SHIFT_COLUMNS: u32 = 8;

/// The moves `(from lane, to lane)` (absolute lanes) in an order that is safe to apply in
/// place (bottom row first), after checking the lane alignment (rule TM0104).
pub fn shift_down_moves(taddr: u32) -> Result<impl Iterator<Item = (u32, u32)>, LayoutError> {
    let l0 = taddr >> 16;
    if !l0.is_multiple_of(32) || l0 >= 128 {
        return Err(LayoutError::ShiftLane { lane: l0 });
    }
    Ok((0..SHIFT_ROWS).rev().map(move |k| (l0 + k, l0 + k + 1)))
}
