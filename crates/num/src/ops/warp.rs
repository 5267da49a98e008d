//! Warp-level data exchange and atomic read-modify-write arithmetic as pure functions of their
//! operands (PTX ISA §9.7.9.6 shfl.sync, §9.7.13.5 atom): the engine supplies the warp's
//! registers or the memory word, and these compute what the lane or the memory receives.

/// The mode of `shfl.sync`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

impl ShflMode {
    pub fn from_ptx(s: &str) -> Option<ShflMode> {
        Some(match s.strip_prefix('.').unwrap_or(s) {
            "up" => ShflMode::Up,
            "down" => ShflMode::Down,
            "bfly" => ShflMode::Bfly,
            "idx" => ShflMode::Idx,
            _ => return None,
        })
    }
}

/// shfl.sync for one lane: returns (source lane, predicate). `b` is the lane/delta operand and
/// `c` packs the segment mask (bits 12..8) and the clamp value (bits 4..0). When the predicate
/// is false the lane keeps its own value (source lane = `lane`).
#[inline]
pub fn shfl_source(mode: ShflMode, lane: u32, b: u32, c: u32) -> (u32, bool) {
    let lane = lane & 31;
    let b = b & 31;
    let clamp = c & 0x1f;
    let seg_mask = (c >> 8) & 0x1f;
    let max_lane = (lane & seg_mask) | (clamp & !seg_mask);
    let min_lane = lane & seg_mask;
    let (j, pval) = match mode {
        ShflMode::Up => {
            let j = lane as i32 - b as i32;
            (j, j >= min_lane as i32)
        }
        ShflMode::Down => {
            let j = lane as i32 + b as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Bfly => {
            let j = (lane ^ b) as i32;
            (j, j <= max_lane as i32)
        }
        ShflMode::Idx => {
            let j = (min_lane | (b & !seg_mask)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if pval {
        (j as u32, true)
    } else {
        (lane, false)
    }
}

/// An atomic (or reduction) operation on a memory word.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AtomOp {
    And,
    Or,
    Xor,
    Exch,
    Add,
    Inc,
    Dec,
    Min,
    Max,
    Cas,
}

impl AtomOp {
    pub fn from_ptx(s: &str) -> Option<AtomOp> {
        Some(match s.strip_prefix('.').unwrap_or(s) {
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "exch" => AtomOp::Exch,
            "add" => AtomOp::Add,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "cas" => AtomOp::Cas,
            _ => return None,
        })
    }
}

/// The new memory value of an integer atomic: `old` is the memory word, `b` the operand, `c`
/// the swap value of cas. Widths 32 and 64 (`t`); float atomics go through `ops::float`.
#[inline]
pub fn atom_int(op: AtomOp, t: super::int::IntTy, old: u64, b: u64, c: u64) -> u64 {
    use super::int;
    let m = t.mask();
    match op {
        AtomOp::And => old & b & m,
        AtomOp::Or => (old | b) & m,
        AtomOp::Xor => (old ^ b) & m,
        AtomOp::Exch => b & m,
        AtomOp::Add => int::add(t, old, b),
        // inc: (old >= b) ? 0 : old + 1; dec: (old == 0 || old > b) ? b : old - 1 (unsigned).
        AtomOp::Inc => {
            if (old & m) >= (b & m) {
                0
            } else {
                (old + 1) & m
            }
        }
        AtomOp::Dec => {
            if (old & m) == 0 || (old & m) > (b & m) {
                b & m
            } else {
                (old - 1) & m
            }
        }
        AtomOp::Min => int::min(t, old, b),
        AtomOp::Max => int::max(t, old, b),
        AtomOp::Cas => {
            if (old & m) == (b & m) {
                c & m
            } else {
                old & m
            }
        }
    }
}
