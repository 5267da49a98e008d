//! The 16-bit float atomic adds: `atom`/`red` `.add.noftz` on `.f16`, `.bf16` (one 2-byte
//! word) and `.f16x2`, `.bf16x2` (one 4-byte word, each 16-bit half added independently),
//! PTX ISA §9.7.13.5 (atom) and §9.7.13.6 (red).
//!
//! `.noftz`: subnormal inputs and results are kept (no flush to zero); the rounding is to
//! nearest even. The sum is taken exactly and rounded once by tmemu-num's half arithmetic
//! (`eval_half` with `HalfOp::Add`): an f16 sum is exact in f64 (both operands are multiples
//! of 2^-24 below 2^16, so the sum needs at most 41 significant bits), and a bf16 sum is
//! carried as an f64 TwoSum pair; either is rounded to the 16-bit format in one step (via f32
//! round-to-odd, which cannot double-round), so the stored value is the correctly rounded sum.
//!
//! A NaN result is stored as the canonical NaN 0x7fff, as the non-atomic `add.f16` does on
//! H100. UNCONFIRMED for the atomic forms (the ISA does not say what NaN an atomic stores):
//! we take the same unit's convention, and tests here accept any NaN payload.
//!
//! The memory word itself (natural alignment, atomicity against other worker threads) is
//! the ordinary `rmw` of global memory / the shared byte array, at size 2 or 4.

use tmemu_num::ops::half::{eval_half, eval_half_x2, HalfKind, HalfMods, HalfOp};
use tmemu_num::ops::types::Rounding;
use tmemu_num::ops::MinMaxMods;

/// Which 16-bit float add an `atom`/`red` performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HalfAtom {
    F16,
    Bf16,
    F16x2,
    Bf16x2,
}

impl HalfAtom {
    /// Bytes of the memory word.
    pub fn size(self) -> u8 {
        match self {
            HalfAtom::F16 | HalfAtom::Bf16 => 2,
            HalfAtom::F16x2 | HalfAtom::Bf16x2 => 4,
        }
    }

    fn kind(self) -> HalfKind {
        match self {
            HalfAtom::F16 | HalfAtom::F16x2 => HalfKind::F16,
            HalfAtom::Bf16 | HalfAtom::Bf16x2 => HalfKind::Bf16,
        }
    }
}

const NOFTZ_RN: HalfMods = HalfMods {
    rnd: Rounding::Rn,
    ftz: false,
    sat: false,
    relu: false,
};

/// The new memory word of `old + b` (the low `size` bytes of both are used).
pub fn add(h: HalfAtom, old: u64, b: u64) -> u64 {
    eval(h, HalfOp::Add, old, b)
}

/// `.min.noftz` (vector forms only, exec/atom_vec.rs): the non-atomic `min`'s rules, no
/// `.NaN`: a NaN operand yields the other one, two NaNs the canonical NaN, -0 < +0.
pub fn min(h: HalfAtom, old: u64, b: u64) -> u64 {
    eval(h, HalfOp::Min(MinMaxMods::default()), old, b)
}

/// `.max.noftz`: as [`min`], mirrored.
pub fn max(h: HalfAtom, old: u64, b: u64) -> u64 {
    eval(h, HalfOp::Max(MinMaxMods::default()), old, b)
}

fn eval(h: HalfAtom, op: HalfOp, old: u64, b: u64) -> u64 {
    let k = h.kind();
    match h.size() {
        2 => eval_half(k, op, old as u16, b as u16, 0, NOFTZ_RN) as u64,
        _ => eval_half_x2(k, op, old as u32, b as u32, 0, NOFTZ_RN) as u64,
    }
}
