//! Integer, bit, compare/select, predicate and move instructions.
//!
//! Each op is one loop over all 32 lanes into a temporary (so it vectorises), then a masked
//! write. Division by zero yields all-ones and the dividend as remainder (PTX leaves it
//! unspecified); signed overflow (MIN / -1) wraps to MIN, as two's-complement hardware does.

use std::mem::MaybeUninit;

use super::{Flow, Warp};
use crate::program::{Any, BoolOp, CmpOp, Inst, IntExtOp, IntOp, IntUnOp, Narrow, PSrc, S};
use tmemu_num::ops::int::{self as ni, IntTy};

#[inline(always)]
fn widen(n: Narrow, v: u32) -> u32 {
    match n {
        Narrow::None => v,
        Narrow::U8 => v & 0xff,
        Narrow::S8 => v as u8 as i8 as i32 as u32,
        Narrow::U16 => v & 0xffff,
        Narrow::S16 => v as u16 as i16 as i32 as u32,
    }
}

#[inline(always)]
fn narrow(n: Narrow, v: u32) -> u32 {
    match n {
        Narrow::None => v,
        Narrow::U8 | Narrow::S8 => v & 0xff,
        Narrow::U16 | Narrow::S16 => v & 0xffff,
    }
}

macro_rules! lanes {
    ($a:ident, $b:ident, |$x:ident, $y:ident| $e:expr) => {{
        let mut r = [0; 32];
        for l in 0..32 {
            let $x = $a[l];
            let $y = $b[l];
            r[l] = $e;
        }
        r
    }};
}

/// A source operand's lanes by reference: a register's array in place (no 128- or 256-byte
/// copy per operand), an immediate broadcast into `$tmp`.
macro_rules! src_ref {
    ($w:expr, $s:expr, $file:ident, $tmp:ident) => {
        match $s {
            S::R(i) => &$w.$file[i as usize],
            S::I(v) => {
                $tmp = [v; 32];
                &$tmp
            }
        }
    };
}

pub(super) fn bin32(
    w: &mut Warp,
    mask: u32,
    op: IntOp,
    n: Narrow,
    d: u16,
    a: crate::program::S32,
    b: crate::program::S32,
) -> Flow {
    // register op immediate (Triton's `add.s32 %r, %r, 16`, `shl.b32 %r, %r, 14`, `or.b32 %r,
    // %r, 33554432`): the immediate stays in a vector register instead of being broadcast to
    // a 128-byte stack array and read back
    if let (Narrow::None, S::R(x), S::I(v)) = (n, a, b) {
        if let Some(r) = bin32_imm(op, &w.r32[x as usize], v) {
            w.set(d, mask, &r);
            return Flow::Next;
        }
    }
    let (ta, tb);
    let (a, b): (&[u32; 32], &[u32; 32]) = (src_ref!(w, a, r32, ta), src_ref!(w, b, r32, tb));
    let r = bin32_lanes(op, n, a, b);
    w.set(d, mask, &r);
    Flow::Next
}

/// `bin32` of a register and an immediate for the common ops, `None` for the others; equal
/// to `bin32_lanes(op, Narrow::None, a, &[v; 32])` (test `bin32_imm_equals_the_general_loop`).
#[inline(always)]
fn bin32_imm(op: IntOp, a: &[u32; 32], v: u32) -> Option<[u32; 32]> {
    #[inline(always)]
    fn each(a: &[u32; 32], f: impl Fn(u32) -> u32) -> [u32; 32] {
        let mut r = [0; 32];
        for l in 0..32 {
            r[l] = f(a[l]);
        }
        r
    }
    Some(match op {
        IntOp::Add => each(a, |x| x.wrapping_add(v)),
        IntOp::Sub => each(a, |x| x.wrapping_sub(v)),
        IntOp::MulLo => each(a, |x| x.wrapping_mul(v)),
        IntOp::And => each(a, |x| x & v),
        IntOp::Or => each(a, |x| x | v),
        IntOp::Xor => each(a, |x| x ^ v),
        // one test of the amount for the warp, not one per lane
        IntOp::Shl if v >= 32 => [0; 32],
        IntOp::Shl => each(a, |x| x << v),
        IntOp::ShrU if v >= 32 => [0; 32],
        IntOp::ShrU => each(a, |x| x >> v),
        IntOp::ShrS => each(a, |x| ((x as i32) >> v.min(31)) as u32),
        _ => return None,
    })
}

/// The definition of `bin32` over whole register arrays (`n` widens the sources and narrows
/// the result).
fn bin32_lanes(op: IntOp, n: Narrow, a: &[u32; 32], b: &[u32; 32]) -> [u32; 32] {
    let wa;
    let wb;
    let (mut a, mut b) = (a, b);
    if n != Narrow::None {
        let (mut xa, mut xb) = (*a, *b);
        for l in 0..32 {
            xa[l] = widen(n, xa[l]);
            // shift amounts are always u32
            if !matches!(op, IntOp::Shl | IntOp::ShrU | IntOp::ShrS) {
                xb[l] = widen(n, xb[l]);
            }
        }
        (wa, wb) = (xa, xb);
        (a, b) = (&wa, &wb);
    }
    let mut r = match op {
        IntOp::Add => lanes!(a, b, |x, y| x.wrapping_add(y)),
        IntOp::Sub => lanes!(a, b, |x, y| x.wrapping_sub(y)),
        IntOp::MulLo => lanes!(a, b, |x, y| x.wrapping_mul(y)),
        IntOp::MulHiU => match n {
            Narrow::None => lanes!(a, b, |x, y| ((x as u64 * y as u64) >> 32) as u32),
            _ => lanes!(a, b, |x, y| x.wrapping_mul(y) >> 16),
        },
        IntOp::MulHiS => match n {
            Narrow::None => lanes!(a, b, |x, y| ((x as i32 as i64 * y as i32 as i64) >> 32)
                as u32),
            _ => lanes!(a, b, |x, y| ((x as i32).wrapping_mul(y as i32) >> 16)
                as u32),
        },
        IntOp::DivU => lanes!(a, b, |x, y| x.checked_div(y).unwrap_or(u32::MAX)),
        IntOp::DivS => lanes!(a, b, |x, y| if y == 0 {
            u32::MAX
        } else {
            (x as i32).wrapping_div(y as i32) as u32
        }),
        // rem by zero is all ones on the H100 (tmemu_num::ops::int::rem; recorded in
        // tests/corpus/diff/h100), not the dividend.
        IntOp::RemU => lanes!(a, b, |x, y| x.checked_rem(y).unwrap_or(u32::MAX)),
        IntOp::RemS => lanes!(a, b, |x, y| if y == 0 {
            u32::MAX
        } else {
            (x as i32).wrapping_rem(y as i32) as u32
        }),
        IntOp::MinU => lanes!(a, b, |x, y| x.min(y)),
        IntOp::MinS => lanes!(a, b, |x, y| (x as i32).min(y as i32) as u32),
        IntOp::MaxU => lanes!(a, b, |x, y| x.max(y)),
        IntOp::MaxS => lanes!(a, b, |x, y| (x as i32).max(y as i32) as u32),
        IntOp::And => lanes!(a, b, |x, y| x & y),
        IntOp::Or => lanes!(a, b, |x, y| x | y),
        IntOp::Xor => lanes!(a, b, |x, y| x ^ y),
        IntOp::Shl => lanes!(a, b, |x, y| if y >= 32 { 0 } else { x << y }),
        IntOp::ShrU => lanes!(a, b, |x, y| if y >= 32 { 0 } else { x >> y }),
        IntOp::ShrS => lanes!(a, b, |x, y| ((x as i32) >> y.min(31)) as u32),
        IntOp::AddSatS => lanes!(a, b, |x, y| (x as i32).saturating_add(y as i32) as u32),
        IntOp::SubSatS => lanes!(a, b, |x, y| (x as i32).saturating_sub(y as i32) as u32),
    };
    if n != Narrow::None {
        for v in r.iter_mut() {
            *v = narrow(n, *v);
        }
    }
    r
}

pub(super) fn bin64(
    w: &mut Warp,
    mask: u32,
    op: IntOp,
    d: u16,
    a: crate::program::S64,
    b: crate::program::S64,
) -> Flow {
    let (ta, tb);
    let (a, b): (&[u64; 32], &[u64; 32]) = (src_ref!(w, a, r64, ta), src_ref!(w, b, r64, tb));
    let r = match op {
        IntOp::Add => lanes!(a, b, |x, y| x.wrapping_add(y)),
        IntOp::Sub => lanes!(a, b, |x, y| x.wrapping_sub(y)),
        IntOp::MulLo => lanes!(a, b, |x, y| x.wrapping_mul(y)),
        IntOp::MulHiU => lanes!(a, b, |x, y| ((x as u128 * y as u128) >> 64) as u64),
        IntOp::MulHiS => lanes!(a, b, |x, y| ((x as i64 as i128 * y as i64 as i128) >> 64)
            as u64),
        IntOp::DivU => lanes!(a, b, |x, y| x.checked_div(y).unwrap_or(u64::MAX)),
        IntOp::DivS => lanes!(a, b, |x, y| if y == 0 {
            u64::MAX
        } else {
            (x as i64).wrapping_div(y as i64) as u64
        }),
        // rem by zero is all ones on the H100 (tmemu_num::ops::int::rem; recorded in
        // tests/corpus/diff/h100), not the dividend.
        IntOp::RemU => lanes!(a, b, |x, y| x.checked_rem(y).unwrap_or(u64::MAX)),
        IntOp::RemS => lanes!(a, b, |x, y| if y == 0 {
            u64::MAX
        } else {
            (x as i64).wrapping_rem(y as i64) as u64
        }),
        IntOp::MinU => lanes!(a, b, |x, y| x.min(y)),
        IntOp::MinS => lanes!(a, b, |x, y| (x as i64).min(y as i64) as u64),
        IntOp::MaxU => lanes!(a, b, |x, y| x.max(y)),
        IntOp::MaxS => lanes!(a, b, |x, y| (x as i64).max(y as i64) as u64),
        IntOp::And => lanes!(a, b, |x, y| x & y),
        IntOp::Or => lanes!(a, b, |x, y| x | y),
        IntOp::Xor => lanes!(a, b, |x, y| x ^ y),
        // the shift amount of a 64-bit shift is a u32 operand; the loader widens it
        IntOp::Shl => lanes!(a, b, |x, y| if y >= 64 { 0 } else { x << y }),
        IntOp::ShrU => lanes!(a, b, |x, y| if y >= 64 { 0 } else { x >> y }),
        IntOp::ShrS => lanes!(a, b, |x, y| ((x as i64) >> y.min(63)) as u64),
        IntOp::AddSatS | IntOp::SubSatS => lanes!(a, b, |x, _y| x),
    };
    w.set(d, mask, &r);
    Flow::Next
}

/// `setp` comparisons on raw bits, one definition for both widths: the integer forms compare
/// the bits as signed/unsigned integers, the float forms as IEEE values (unordered forms true
/// when either operand is NaN; `ne` ordered, `neu` unordered).
macro_rules! cmp_bits {
    ($name:ident, $u:ty, $s:ty, $f:ty) => {
        #[inline(always)]
        fn $name(op: CmpOp, x: $u, y: $u) -> bool {
            let (fx, fy) = (<$f>::from_bits(x), <$f>::from_bits(y));
            let un = fx.is_nan() || fy.is_nan();
            match op {
                CmpOp::Eq => x == y,
                CmpOp::Ne => x != y,
                CmpOp::LtS => (x as $s) < (y as $s),
                CmpOp::LeS => (x as $s) <= (y as $s),
                CmpOp::GtS => (x as $s) > (y as $s),
                CmpOp::GeS => (x as $s) >= (y as $s),
                CmpOp::LtU => x < y,
                CmpOp::LeU => x <= y,
                CmpOp::GtU => x > y,
                CmpOp::GeU => x >= y,
                CmpOp::FEq => fx == fy,
                CmpOp::FNe => !un && fx != fy,
                CmpOp::FLt => fx < fy,
                CmpOp::FLe => fx <= fy,
                CmpOp::FGt => fx > fy,
                CmpOp::FGe => fx >= fy,
                CmpOp::FEqu => un || fx == fy,
                CmpOp::FNeu => fx != fy,
                CmpOp::FLtu => un || fx < fy,
                CmpOp::FLeu => un || fx <= fy,
                CmpOp::FGtu => un || fx > fy,
                CmpOp::FGeu => un || fx >= fy,
                CmpOp::FNum => !un,
                CmpOp::FNan => un,
            }
        }
    };
}
cmp_bits!(cmp32, u32, i32, f32);
cmp_bits!(cmp64, u64, i64, f64);

/// Flush a subnormal f32 to a zero of the same sign (for `.ftz` compares).
#[inline(always)]
pub(super) fn ftz32(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// One comparison over 32 lanes into a bit mask; the op is matched once, outside the loop,
/// so each arm is a branch-free loop the compiler vectorises.
fn setp_bits32(cmp: CmpOp, a: &[u32; 32], b: &[u32; 32]) -> u32 {
    #[inline(always)]
    fn each(a: &[u32; 32], b: &[u32; 32], f: impl Fn(u32, u32) -> bool) -> u32 {
        let mut bits = 0u32;
        for l in 0..32 {
            bits |= (f(a[l], b[l]) as u32) << l;
        }
        bits
    }
    macro_rules! arms {
        ($($op:ident),*) => {
            match cmp {
                $(CmpOp::$op => each(a, b, |x, y| cmp32(CmpOp::$op, x, y)),)*
            }
        };
    }
    arms!(
        Eq, Ne, LtS, LeS, GtS, GeS, LtU, LeU, GtU, GeU, FEq, FNe, FLt, FLe, FGt, FGe, FEqu, FNeu,
        FLtu, FLeu, FGtu, FGeu, FNum, FNan
    )
}

fn combine(w: &Warp, v: u32, comb: Option<(BoolOp, PSrc)>) -> u32 {
    match comb {
        None => v,
        Some((op, c)) => {
            let c = w.pred(c);
            match op {
                BoolOp::And => v & c,
                BoolOp::Or => v | c,
                BoolOp::Xor => v ^ c,
            }
        }
    }
}

/// A register lane type that can be blended under an all-ones/all-zeros mask.
trait Blend: Copy + Default + PartialEq {
    /// All ones when `bit` is 1, zero when it is 0.
    fn spread(bit: u32) -> Self;
    fn blend(self, other: Self, m: Self) -> Self;
}

impl Blend for u32 {
    #[inline(always)]
    fn spread(bit: u32) -> u32 {
        bit.wrapping_neg()
    }
    #[inline(always)]
    fn blend(self, other: u32, m: u32) -> u32 {
        (self & m) | (other & !m)
    }
}

impl Blend for u64 {
    #[inline(always)]
    fn spread(bit: u32) -> u64 {
        (bit as u64).wrapping_neg()
    }
    #[inline(always)]
    fn blend(self, other: u64, m: u64) -> u64 {
        (self & m) | (other & !m)
    }
}

/// `selp` of whole register arrays: lane `l` takes `a` where bit `l` of `c` is set, else `b`.
/// Written as a mask blend (no branch per lane), which LLVM turns into SSE2 compares and
/// and/andnot/or, four 32-bit lanes per instruction.
#[inline(always)]
fn select_lanes<T: Blend>(c: u32, a: &[T; 32], b: &[T; 32]) -> [T; 32] {
    let mut r = [T::default(); 32];
    for l in 0..32 {
        r[l] = a[l].blend(b[l], T::spread((c >> l) & 1));
    }
    r
}

/// `select_lanes` with the lanes of either side drawn from a closure, so that an immediate
/// is a value held in a register rather than a broadcast array in memory.
#[inline(always)]
fn select_by<T: Blend>(c: u32, a: impl Fn(usize) -> T, b: impl Fn(usize) -> T) -> [T; 32] {
    let mut r = [T::default(); 32];
    for l in 0..32 {
        r[l] = a(l).blend(b(l), T::spread((c >> l) & 1));
    }
    r
}

/// `selp`'s result for each operand form (Triton's `selp.b32 %r, 16, 0, %p` and `selp.b32
/// %r, %r, 0, %p` are most of its 119): equal to `select_lanes` of the operands broadcast
/// (test `select_operands_equals_select_lanes`).
#[inline(always)]
fn select_operands<T: Blend>(c: u32, file: &[[T; 32]], a: S<T>, b: S<T>) -> [T; 32] {
    let zero = T::default();
    match (a, b) {
        (S::R(x), S::R(y)) => select_lanes(c, &file[x as usize], &file[y as usize]),
        // `selp %r, %r, 0, %p` and `selp %r, 16, 0, %p`: the blend folds to an and
        (S::R(x), S::I(v)) if v == zero => {
            let ra = &file[x as usize];
            select_by(c, |l| ra[l], |_| zero)
        }
        (S::I(u), S::I(v)) if v == zero => select_by(c, |_| u, |_| zero),
        (S::R(x), S::I(v)) => {
            let ra = &file[x as usize];
            select_by(c, |l| ra[l], |_| v)
        }
        (S::I(u), S::R(y)) => {
            let rb = &file[y as usize];
            select_by(c, |_| u, |l| rb[l])
        }
        (S::I(u), S::I(v)) => select_by(c, |_| u, |_| v),
    }
}

/// `selp.b32`, called with the decoded fields (Triton runs 119 a K step: a function of its
/// own, with a small frame, and no second match on the instruction).
pub(super) fn selp32(w: &mut Warp, mask: u32, d: u16, a: S<u32>, b: S<u32>, p: PSrc) -> Flow {
    let r = select_operands(w.pred(p), &w.r32, a, b);
    w.set(d, mask, &r);
    Flow::Next
}

pub(super) fn selp64(w: &mut Warp, mask: u32, d: u16, a: S<u64>, b: S<u64>, p: PSrc) -> Flow {
    let r = select_operands(w.pred(p), &w.r64, a, b);
    w.set(d, mask, &r);
    Flow::Next
}

pub(super) fn compare(w: &mut Warp, mask: u32, inst: &Inst) -> Flow {
    match *inst {
        Inst::Setp32 {
            cmp,
            n,
            ftz,
            p,
            q,
            a,
            b,
            comb,
        } if n == Narrow::None && !ftz => {
            // the common form: the operands compared in place
            let (ta, tb);
            let bits = setp_bits32(cmp, src_ref!(w, a, r32, ta), src_ref!(w, b, r32, tb));
            let t = combine(w, bits, comb);
            w.set_pred(p, mask, t);
            if let Some(q) = q {
                let f = combine(w, !bits, comb);
                w.set_pred(q, mask, f);
            }
        }
        Inst::Setp32 {
            cmp,
            n,
            ftz,
            p,
            q,
            a,
            b,
            comb,
        } => {
            let mut a = w.get(a);
            let mut b = w.get(b);
            if n != Narrow::None {
                for l in 0..32 {
                    a[l] = widen(n, a[l]);
                    b[l] = widen(n, b[l]);
                }
            }
            if ftz {
                for l in 0..32 {
                    a[l] = ftz32(a[l]);
                    b[l] = ftz32(b[l]);
                }
            }
            let bits = setp_bits32(cmp, &a, &b);
            let t = combine(w, bits, comb);
            w.set_pred(p, mask, t);
            if let Some(q) = q {
                let f = combine(w, !bits, comb);
                w.set_pred(q, mask, f);
            }
        }
        Inst::Setp64 {
            cmp,
            p,
            q,
            a,
            b,
            comb,
        } => {
            let mut t2_0 = MaybeUninit::uninit();
            let a = w.src(a, &mut t2_0);
            let mut t3_0 = MaybeUninit::uninit();
            let b = w.src(b, &mut t3_0);
            let mut bits = 0u32;
            for l in 0..32 {
                bits |= (cmp64(cmp, a[l], b[l]) as u32) << l;
            }
            let t = combine(w, bits, comb);
            w.set_pred(p, mask, t);
            if let Some(q) = q {
                let f = combine(w, !bits, comb);
                w.set_pred(q, mask, f);
            }
        }
        _ => unreachable!("compare() called with {inst:?}"),
    }
    Flow::Next
}

fn un32(op: IntUnOp, n: Narrow, x: u32) -> u32 {
    let bits = match n {
        Narrow::None => 32,
        Narrow::U8 | Narrow::S8 => 8,
        Narrow::U16 | Narrow::S16 => 16,
    };
    let x = widen(n, x);
    match op {
        IntUnOp::Not => !x,
        IntUnOp::Neg => x.wrapping_neg(),
        IntUnOp::Abs => (x as i32).wrapping_abs() as u32,
        IntUnOp::Popc => x.count_ones(),
        IntUnOp::Clz => x.leading_zeros() - (32 - bits),
        IntUnOp::Brev => x.reverse_bits(),
        IntUnOp::Cnot => (x == 0) as u32,
        IntUnOp::BfindU => {
            if x == 0 {
                u32::MAX
            } else {
                31 - x.leading_zeros()
            }
        }
        IntUnOp::BfindShiftU | IntUnOp::BfindShiftS => {
            let op = if op == IntUnOp::BfindShiftU {
                IntUnOp::BfindU
            } else {
                IntUnOp::BfindS
            };
            let r = un32(op, Narrow::None, x);
            if r == u32::MAX {
                r
            } else {
                31 - r
            }
        }
        IntUnOp::BfindS => {
            let y = if (x as i32) < 0 { !x } else { x };
            if y == 0 {
                u32::MAX
            } else {
                31 - y.leading_zeros()
            }
        }
    }
}

fn un64(op: IntUnOp, x: u64) -> u64 {
    match op {
        IntUnOp::Not => !x,
        IntUnOp::Neg => x.wrapping_neg(),
        IntUnOp::Abs => (x as i64).wrapping_abs() as u64,
        IntUnOp::Popc => x.count_ones() as u64,
        IntUnOp::Clz => x.leading_zeros() as u64,
        IntUnOp::Brev => x.reverse_bits(),
        IntUnOp::Cnot => (x == 0) as u64,
        IntUnOp::BfindU => {
            if x == 0 {
                u32::MAX as u64
            } else {
                63 - x.leading_zeros() as u64
            }
        }
        IntUnOp::BfindShiftU | IntUnOp::BfindShiftS => {
            let op = if op == IntUnOp::BfindShiftU {
                IntUnOp::BfindU
            } else {
                IntUnOp::BfindS
            };
            let r = un64(op, x);
            if r == u32::MAX as u64 {
                r
            } else {
                63 - r
            }
        }
        IntUnOp::BfindS => {
            let y = if (x as i64) < 0 { !x } else { x };
            if y == 0 {
                u32::MAX as u64
            } else {
                63 - y.leading_zeros() as u64
            }
        }
    }
}

fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut r = 0;
    for i in 0..8 {
        if lut >> i & 1 != 0 {
            let ma = if i & 4 != 0 { a } else { !a };
            let mb = if i & 2 != 0 { b } else { !b };
            let mc = if i & 1 != 0 { c } else { !c };
            r |= ma & mb & mc;
        }
    }
    r
}

fn prmt(a: u32, b: u32, c: u32) -> u32 {
    let bytes = (a as u64) | ((b as u64) << 32);
    let mut r = 0u32;
    for i in 0..4 {
        let sel = (c >> (4 * i)) & 0xf;
        let mut byte = (bytes >> ((sel & 7) * 8)) as u8;
        if sel & 8 != 0 {
            byte = if byte & 0x80 != 0 { 0xff } else { 0 };
        }
        r |= (byte as u32) << (8 * i);
    }
    r
}

/// `bfe` in closed form: the field's bits that lie inside the source (`v` of them) come from
/// `x >> pos`; the bits above them (past `len`, or past the source's top) are the sign bit
/// (bit `min(pos + len - 1, bits - 1)`) for `.s`, zero for `.u` or `len == 0` (PTX ISA §9.7.1.16).
/// Equal to the bit-by-bit definition `bfe_bitwise` (test `bfe_closed_form_equals_the_bitwise_definition`).
#[inline(always)]
fn bfe(x: u64, bits: u32, pos: u32, len: u32, signed: bool) -> u64 {
    let pos = pos.min(255);
    let len = len.min(255);
    let width_mask = if bits >= 64 {
        !0u64
    } else {
        (1u64 << bits) - 1
    };
    let x = x & width_mask;
    // bits of the field that come from the source
    let v = if pos >= bits { 0 } else { len.min(bits - pos) };
    let low = if v >= 64 { !0u64 } else { (1u64 << v) - 1 };
    let field = if pos >= bits { 0 } else { (x >> pos) & low };
    let sbit = signed && len != 0 && x >> (pos + len - 1).min(bits - 1) & 1 != 0;
    let fill = if sbit { !low } else { 0 };
    (field | fill) & width_mask
}

#[cfg(test)]
fn bfe_bitwise(x: u64, bits: u32, pos: u32, len: u32, signed: bool) -> u64 {
    let pos = pos.min(255);
    let len = len.min(255);
    let sbit = if !signed || len == 0 {
        false
    } else {
        let i = (pos + len - 1).min(bits - 1);
        x >> i & 1 != 0
    };
    let mut r = 0u64;
    for i in 0..bits {
        let bit = if i < len && pos + i < bits {
            x >> (pos + i) & 1 != 0
        } else {
            sbit
        };
        r |= (bit as u64) << i;
    }
    r
}

/// `k` when the `.s32` immediate `v` is 2^k with 0 <= k <= 30 (so `v` is positive as an
/// `s32` and sext(a)·v is sext(a) shifted left by k).
#[inline(always)]
fn pow2_shift(v: u32) -> Option<u32> {
    (v.is_power_of_two() && v < 1 << 31).then(|| v.trailing_zeros())
}

/// `mad.wide.s32 d, a, 2^k, c` over the warp: sext(a[l]) << k, plus c[l] (mod 2^64). LLVM
/// scalarises the sign-extending 64-bit multiply of the general loop (with spills, ≈ 10 host
/// instructions a lane); SSE2 (baseline x86-64) sign-extends four lanes with a shift and two
/// unpacks and shifts and adds two 64-bit lanes per instruction. Test
/// `wide_shift_add_equals_the_sign_extended_product`.
#[inline(always)]
fn wide_shift_add(a: &[u32; 32], k: u32, c: &[u64; 32]) -> [u64; 32] {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline; every load and store is an unaligned
        // one within the arrays.
        unsafe { wide_shift_add_sse2(a, k, c) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        wide_shift_add_scalar(a, k, c)
    }
}

#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
fn wide_shift_add_scalar(a: &[u32; 32], k: u32, c: &[u64; 32]) -> [u64; 32] {
    std::array::from_fn(|l| ((a[l] as i32 as i64 as u64) << k).wrapping_add(c[l]))
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn wide_shift_add_sse2(a: &[u32; 32], k: u32, c: &[u64; 32]) -> [u64; 32] {
    use std::arch::x86_64::*;
    let mut r = [0u64; 32];
    let sh = _mm_cvtsi32_si128(k as i32);
    for i in 0..8 {
        let x = _mm_loadu_si128(a.as_ptr().add(4 * i).cast());
        let sign = _mm_srai_epi32::<31>(x);
        // lanes 4i, 4i+1 and 4i+2, 4i+3 as sign-extended 64-bit values
        let lo = _mm_sll_epi64(_mm_unpacklo_epi32(x, sign), sh);
        let hi = _mm_sll_epi64(_mm_unpackhi_epi32(x, sign), sh);
        let c0 = _mm_loadu_si128(c.as_ptr().add(4 * i).cast());
        let c1 = _mm_loadu_si128(c.as_ptr().add(4 * i + 2).cast());
        _mm_storeu_si128(r.as_mut_ptr().add(4 * i).cast(), _mm_add_epi64(lo, c0));
        _mm_storeu_si128(r.as_mut_ptr().add(4 * i + 2).cast(), _mm_add_epi64(hi, c1));
    }
    r
}

/// `bfe.u32` with one position and length for the warp (each already `& 0xff`): the bits
/// `pos..pos + len` of each lane that lie inside the word, zero above. Equal to `bfe` lane by
/// lane (test `bfe_u32_uniform_equals_bfe`).
#[inline(always)]
fn bfe_u32_uniform(a: &[u32; 32], pos: u32, len: u32) -> [u32; 32] {
    if pos >= 32 || len == 0 {
        return [0; 32];
    }
    let v = len.min(32 - pos);
    let low = if v >= 32 { !0 } else { (1u32 << v) - 1 };
    let mut r = [0u32; 32];
    for l in 0..32 {
        r[l] = (a[l] >> pos) & low;
    }
    r
}

/// One lane of `mad{.lo,.hi}` on 32 bits or narrower: the definition.
#[inline(always)]
fn mad32_lane(hi: Option<bool>, n: Narrow, a: u32, b: u32, c: u32) -> u32 {
    let (x, y) = (widen(n, a), widen(n, b));
    let p = match (hi, n) {
        (None, _) => x.wrapping_mul(y),
        (Some(false), Narrow::None) => ((x as u64 * y as u64) >> 32) as u32,
        (Some(true), Narrow::None) => ((x as i32 as i64 * y as i32 as i64) >> 32) as u32,
        (Some(false), _) => x.wrapping_mul(y) >> 16,
        (Some(true), _) => ((x as i32).wrapping_mul(y as i32) >> 16) as u32,
    };
    narrow(n, p.wrapping_add(c))
}

/// `mad.lo.{s,u}32` over the warp, a loop LLVM vectorises (test `mad_lo32_equals_mad32_lane`).
#[inline(always)]
fn mad_lo32(a: &[u32; 32], b: &[u32; 32], c: &[u32; 32]) -> [u32; 32] {
    let mut r = [0u32; 32];
    for l in 0..32 {
        r[l] = a[l].wrapping_mul(b[l]).wrapping_add(c[l]);
    }
    r
}

/// Everything not on the hottest paths.
/// The rarer integer forms, through the numerics crate (one definition of each form).
fn int_ext(op: IntExtOp, a: u32, b: u32, c: u32) -> u32 {
    let t32 = |signed| if signed { IntTy::S32 } else { IntTy::U32 };
    let (x, y, z) = (a as u64, b as u64, c as u64);
    match op {
        IntExtOp::Mul24 { signed, hi } => ni::mul24(t32(signed), x, y, hi) as u32,
        IntExtOp::Mad24 { signed, hi, sat } => ni::mad24(t32(signed), x, y, z, hi, sat) as u32,
        IntExtOp::Sad { signed } => ni::sad(t32(signed), x, y, z) as u32,
        IntExtOp::Dp4a { a_signed, b_signed } => ni::dp4a(a_signed, b_signed, a, b, c),
        IntExtOp::Dp2a {
            hi,
            a_signed,
            b_signed,
        } => ni::dp2a(hi, a_signed, b_signed, a, b, c),
        IntExtOp::Bmsk { clamp } => ni::bmsk(clamp, a, b),
        IntExtOp::Szext { signed, clamp } => ni::szext(signed, clamp, a, b),
        IntExtOp::Fns => ni::fns(a, b, c as i32),
        IntExtOp::MadHiSatS32 => ni::mad_hi_sat(IntTy::S32, x, y, z) as u32,
        IntExtOp::MinMaxReluS32 { is_min } => {
            let v = if is_min {
                ni::min(IntTy::S32, x, y)
            } else {
                ni::max(IntTy::S32, x, y)
            };
            ni::relu(IntTy::S32, v) as u32
        }
        IntExtOp::MinMax16x2 {
            signed,
            is_min,
            relu,
        } => ni::minmax_x2(signed, a, b, is_min, relu),
        IntExtOp::Prmt(mode) => ni::prmt(mode, a, b, c),
        IntExtOp::Slct { c_f32: true, ftz } => ni::slct_f32(x, y, c, ftz) as u32,
        IntExtOp::Slct { c_f32: false, .. } => ni::slct_s32(x, y, c) as u32,
        IntExtOp::Set {
            op,
            src_f32,
            signed,
            ftz,
            dst_f32,
        } => {
            let p = if src_f32 {
                tmemu_num::ops::float::f32_cmp(op, a, b, ftz)
            } else {
                ni::cmp(op, t32(signed), x, y)
            };
            let dst = if dst_f32 {
                tmemu_num::ops::ScalarType::F32
            } else {
                tmemu_num::ops::ScalarType::U32
            };
            ni::set_result(dst, p) as u32
        }
    }
}

pub(super) fn exec_other(w: &mut Warp, mask: u32, inst: &Inst) -> Flow {
    match *inst {
        Inst::Un32 { op, n, d, a } => {
            let mut t6_0 = MaybeUninit::uninit();
            let a = w.src(a, &mut t6_0);
            let mut r = *a;
            for l in 0..32 {
                r[l] = narrow(n, un32(op, n, a[l]));
            }
            if matches!(
                op,
                IntUnOp::Popc
                    | IntUnOp::Clz
                    | IntUnOp::BfindS
                    | IntUnOp::BfindU
                    | IntUnOp::BfindShiftS
                    | IntUnOp::BfindShiftU
            ) {
                for l in 0..32 {
                    r[l] = un32(op, n, a[l]);
                }
            }
            w.set(d, mask, &r);
        }
        Inst::Un64 { op, d, a } => {
            let a = w.get(a);
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    w.write_any(d, l, un64(op, a[l]));
                }
            }
        }
        Inst::MulWide32 { signed, d, a, b } => {
            if let (true, S::R(x), S::I(v)) = (signed, a, b) {
                if let Some(k) = pow2_shift(v) {
                    let r = wide_shift_add(&w.r32[x as usize], k, &[0; 32]);
                    w.set(d, mask, &r);
                    return Flow::Next;
                }
            }
            let (mut t7_0, mut t7_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (a, b) = (w.src(a, &mut t7_0), w.src(b, &mut t7_1));
            let mut r = [0u64; 32];
            if signed {
                for l in 0..32 {
                    r[l] = (a[l] as i32 as i64).wrapping_mul(b[l] as i32 as i64) as u64;
                }
            } else {
                for l in 0..32 {
                    r[l] = a[l] as u64 * b[l] as u64;
                }
            }
            w.set(d, mask, &r);
        }
        Inst::MulWide16 { signed, d, a, b } => {
            let (mut t8_0, mut t8_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (a, b) = (w.src(a, &mut t8_0), w.src(b, &mut t8_1));
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = if signed {
                    (a[l] as u16 as i16 as i32).wrapping_mul(b[l] as u16 as i16 as i32) as u32
                } else {
                    (a[l] & 0xffff) * (b[l] & 0xffff)
                };
            }
            w.set(d, mask, &r);
        }
        Inst::Mad32 { hi, n, d, a, b, c } => {
            let (mut t9_0, mut t9_1, mut t9_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t9_0),
                w.src(b, &mut t9_1),
                w.src(c, &mut t9_2),
            );
            // `mad.lo` on whole words (Triton's 18): the form matched once, not per lane
            let r = if let (None, Narrow::None) = (hi, n) {
                mad_lo32(a, b, c)
            } else {
                std::array::from_fn(|l| mad32_lane(hi, n, a[l], b[l], c[l]))
            };
            w.set(d, mask, &r);
        }
        Inst::Mad64 { hi, d, a, b, c } => {
            let (mut t10_0, mut t10_1, mut t10_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t10_0),
                w.src(b, &mut t10_1),
                w.src(c, &mut t10_2),
            );
            let mut r = [0u64; 32];
            for l in 0..32 {
                let p = match hi {
                    None => a[l].wrapping_mul(b[l]),
                    Some(false) => ((a[l] as u128 * b[l] as u128) >> 64) as u64,
                    Some(true) => ((a[l] as i64 as i128 * b[l] as i64 as i128) >> 64) as u64,
                };
                r[l] = p.wrapping_add(c[l]);
            }
            w.set(d, mask, &r);
        }
        Inst::MadWide16 { signed, d, a, b, c } => {
            let (ta, tb, tc);
            let (a, b, c) = (
                src_ref!(w, a, r32, ta),
                src_ref!(w, b, r32, tb),
                src_ref!(w, c, r32, tc),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                let p = if signed {
                    (a[l] as u16 as i16 as i32).wrapping_mul(b[l] as u16 as i16 as i32) as u32
                } else {
                    (a[l] & 0xffff) * (b[l] & 0xffff)
                };
                r[l] = p.wrapping_add(c[l]);
            }
            w.set(d, mask, &r);
        }
        Inst::MadWide32 { signed, d, a, b, c } => {
            // Triton's address arithmetic `mad.wide.s32 %rd, %r, 2, %rd` (29 a K step)
            if let (true, S::R(x), S::I(v), S::R(z)) = (signed, a, b, c) {
                if let Some(k) = pow2_shift(v) {
                    let r = wide_shift_add(&w.r32[x as usize], k, &w.r64[z as usize]);
                    w.set(d, mask, &r);
                    return Flow::Next;
                }
            }
            let (ta, tb, tc);
            let (a, b, c) = (
                src_ref!(w, a, r32, ta),
                src_ref!(w, b, r32, tb),
                src_ref!(w, c, r64, tc),
            );
            let mut r = [0u64; 32];
            // one loop per signedness (not a branch per lane)
            if signed {
                for l in 0..32 {
                    let p = (a[l] as i32 as i64).wrapping_mul(b[l] as i32 as i64) as u64;
                    r[l] = p.wrapping_add(c[l]);
                }
            } else {
                for l in 0..32 {
                    r[l] = (a[l] as u64 * b[l] as u64).wrapping_add(c[l]);
                }
            }
            w.set(d, mask, &r);
        }
        Inst::Lop3 { d, a, b, c, lut } => {
            let (mut t11_0, mut t11_1, mut t11_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t11_0),
                w.src(b, &mut t11_1),
                w.src(c, &mut t11_2),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = lop3(a[l] as u64, b[l] as u64, c[l] as u64, lut) as u32;
            }
            w.set(d, mask, &r);
        }
        Inst::Lop3_64 { d, a, b, c, lut } => {
            let (mut t12_0, mut t12_1, mut t12_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t12_0),
                w.src(b, &mut t12_1),
                w.src(c, &mut t12_2),
            );
            let mut r = [0u64; 32];
            for l in 0..32 {
                r[l] = lop3(a[l], b[l], c[l], lut);
            }
            w.set(d, mask, &r);
        }
        Inst::SetBool {
            op,
            bool_op,
            d,
            a,
            b,
            c,
        } => {
            let IntExtOp::Set { dst_f32, .. } = op else {
                unreachable!("the loader builds SetBool from a set")
            };
            let dst = if dst_f32 {
                tmemu_num::ops::ScalarType::F32
            } else {
                tmemu_num::ops::ScalarType::U32
            };
            let (a, b, q) = (w.get(a), w.get(b), w.pred(c));
            let r: [u32; 32] = std::array::from_fn(|l| {
                // the comparison's own result is nonzero exactly when it holds
                let p = int_ext(op, a[l], b[l], 0) != 0;
                let q = q >> l & 1 != 0;
                let v = match bool_op {
                    BoolOp::And => p & q,
                    BoolOp::Or => p | q,
                    BoolOp::Xor => p ^ q,
                };
                ni::set_result(dst, v) as u32
            });
            w.set(d, mask, &r);
        }
        Inst::IntExt32 { op, d, a, b, c } => {
            let (mut t13_0, mut t13_1, mut t13_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t13_0),
                w.src(b, &mut t13_1),
                w.src(c, &mut t13_2),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = int_ext(op, a[l], b[l], c[l]);
            }
            w.set(d, mask, &r);
        }
        Inst::Prmt { d, a, b, c } => {
            let (mut t14_0, mut t14_1, mut t14_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t14_0),
                w.src(b, &mut t14_1),
                w.src(c, &mut t14_2),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = prmt(a[l], b[l], c[l]);
            }
            w.set(d, mask, &r);
        }
        Inst::Shf {
            left,
            clamp,
            d,
            a,
            b,
            c,
        } => {
            let (mut t15_0, mut t15_1, mut t15_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t15_0),
                w.src(b, &mut t15_1),
                w.src(c, &mut t15_2),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                let n = if clamp { c[l].min(32) } else { c[l] & 31 };
                let v = ((b[l] as u64) << 32) | a[l] as u64;
                r[l] = if left {
                    ((v << n) >> 32) as u32
                } else {
                    (v >> n) as u32
                };
            }
            w.set(d, mask, &r);
        }
        Inst::Bfe32 { signed, d, a, b, c } => {
            // position and length immediates (Triton's descriptor fields, `bfe.u32 %r, %r, 4,
            // 14`): the field's shift and mask are the warp's, not worked out per lane
            if let (false, S::R(x), S::I(pos), S::I(len)) = (signed, a, b, c) {
                let r = bfe_u32_uniform(&w.r32[x as usize], pos & 0xff, len & 0xff);
                w.set(d, mask, &r);
                return Flow::Next;
            }
            let (mut t16_0, mut t16_1, mut t16_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t16_0),
                w.src(b, &mut t16_1),
                w.src(c, &mut t16_2),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = bfe(a[l] as u64, 32, b[l] & 0xff, c[l] & 0xff, signed) as u32;
            }
            w.set(d, mask, &r);
        }
        Inst::Bfe64 { signed, d, a, b, c } => {
            let (mut t17_0, mut t17_1, mut t17_2) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c) = (
                w.src(a, &mut t17_0),
                w.src(b, &mut t17_1),
                w.src(c, &mut t17_2),
            );
            let mut r = [0u64; 32];
            for l in 0..32 {
                r[l] = bfe(a[l], 64, b[l] & 0xff, c[l] & 0xff, signed);
            }
            w.set(d, mask, &r);
        }
        Inst::Bfi32 { d, a, b, c, e } => {
            let (mut t18_0, mut t18_1, mut t18_2, mut t18_3) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c, e) = (
                w.src(a, &mut t18_0),
                w.src(b, &mut t18_1),
                w.src(c, &mut t18_2),
                w.src(e, &mut t18_3),
            );
            let mut r = [0u32; 32];
            for l in 0..32 {
                let (pos, len) = (c[l] & 0xff, e[l] & 0xff);
                let mut v = b[l];
                for i in 0..len {
                    if pos + i < 32 {
                        v = (v & !(1 << (pos + i))) | ((a[l] >> i & 1) << (pos + i));
                    }
                }
                r[l] = v;
            }
            w.set(d, mask, &r);
        }
        Inst::Shift64 { op, d, a, b } => {
            let (mut t19_0, mut t19_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (a, b) = (w.src(a, &mut t19_0), w.src(b, &mut t19_1));
            let mut r = [0u64; 32];
            for l in 0..32 {
                let (x, y) = (a[l], b[l]);
                r[l] = match op {
                    IntOp::Shl => {
                        if y >= 64 {
                            0
                        } else {
                            x << y
                        }
                    }
                    IntOp::ShrU => {
                        if y >= 64 {
                            0
                        } else {
                            x >> y
                        }
                    }
                    _ => ((x as i64) >> y.min(63)) as u64,
                };
            }
            w.set(d, mask, &r);
        }
        Inst::Bfi64 { d, a, b, c, e } => {
            let (mut t20_0, mut t20_1, mut t20_2, mut t20_3) = (
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
                MaybeUninit::uninit(),
            );
            let (a, b, c, e) = (
                w.src(a, &mut t20_0),
                w.src(b, &mut t20_1),
                w.src(c, &mut t20_2),
                w.src(e, &mut t20_3),
            );
            let mut r = [0u64; 32];
            for l in 0..32 {
                let (pos, len) = (c[l] & 0xff, e[l] & 0xff);
                let mut v = b[l];
                for i in 0..len {
                    if pos + i < 64 {
                        v = (v & !(1 << (pos + i))) | ((a[l] >> i & 1) << (pos + i));
                    }
                }
                r[l] = v;
            }
            w.set(d, mask, &r);
        }
        Inst::AddCarry(ref c) => {
            let bits = if c.wide { 64 } else { 32 };
            let m: u128 = if c.wide {
                u64::MAX as u128
            } else {
                u32::MAX as u128
            };
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                let cf = if c.use_cf { (w.cc >> l & 1) as u128 } else { 0 };
                let (a, b) = (
                    w.read_any(c.a, l) as u128 & m,
                    w.read_any(c.b, l) as u128 & m,
                );
                let x = match c.mad_hi {
                    None => a,
                    Some(false) => (a * b) & m,
                    Some(true) => (a * b) >> bits,
                };
                let y = if c.mad_hi.is_some() {
                    w.read_any(c.c, l) as u128 & m
                } else {
                    b
                };
                // PTX: add: d = x + y + CF, CF = carry out; sub: d = x - (y + CF), CF = borrow
                let (r, out) = if c.sub {
                    let t = y + cf;
                    (x.wrapping_sub(t) & m, (x < t) as u32)
                } else {
                    let t = x + y + cf;
                    (t & m, (t > m) as u32)
                };
                w.write_any(c.d, l, r as u64);
                if c.set_cf {
                    w.cc = (w.cc & !(1 << l)) | (out << l);
                }
            }
        }
        Inst::PredLogic { op, d, a, b } => {
            let (a, b) = (w.pred(a), w.pred(b));
            let v = match op {
                BoolOp::And => a & b,
                BoolOp::Or => a | b,
                BoolOp::Xor => a ^ b,
            };
            w.set_pred(d, mask, v);
        }
        Inst::PredMov { d, a } => {
            let v = w.pred(a);
            w.set_pred(d, mask, v);
        }
        Inst::Pack64 { d, lo, hi } => {
            let (mut t21_0, mut t21_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (lo, hi) = (w.src(lo, &mut t21_0), w.src(hi, &mut t21_1));
            let mut r = [0u64; 32];
            for l in 0..32 {
                r[l] = lo[l] as u64 | (hi[l] as u64) << 32;
            }
            w.set(d, mask, &r);
        }
        Inst::Pack32 { d, lo, hi } => {
            let (mut t22_0, mut t22_1) = (MaybeUninit::uninit(), MaybeUninit::uninit());
            let (lo, hi) = (w.src(lo, &mut t22_0), w.src(hi, &mut t22_1));
            let mut r = [0u32; 32];
            for l in 0..32 {
                r[l] = (lo[l] & 0xffff) | (hi[l] << 16);
            }
            w.set(d, mask, &r);
        }
        Inst::MbarPendingCount { d, state } => {
            let a = w.get(state);
            let v: [u32; 32] = std::array::from_fn(|l| super::sync::state_pending(a[l]));
            w.set(d, mask, &v);
        }
        Inst::Unpack64 { lo, hi, a } => {
            let a = w.get(a);
            if let (Any::R32(x), Any::R32(y)) = (lo, hi) {
                // whole register arrays; `hi` written last, as in the per-lane path
                let lo_v: [u32; 32] = std::array::from_fn(|l| a[l] as u32);
                let hi_v: [u32; 32] = std::array::from_fn(|l| (a[l] >> 32) as u32);
                w.set(x, mask, &lo_v);
                w.set(y, mask, &hi_v);
                return Flow::Next;
            }
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    w.write_any(lo, l, a[l] & 0xffff_ffff);
                    w.write_any(hi, l, a[l] >> 32);
                }
            }
        }
        Inst::Unpack32 { lo, hi, a } => {
            let a = w.get(a);
            if let (Any::R32(x), Any::R32(y)) = (lo, hi) {
                let lo_v: [u32; 32] = std::array::from_fn(|l| a[l] & 0xffff);
                let hi_v: [u32; 32] = std::array::from_fn(|l| a[l] >> 16);
                w.set(x, mask, &lo_v);
                w.set(y, mask, &hi_v);
                return Flow::Next;
            }
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    w.write_any(lo, l, (a[l] & 0xffff) as u64);
                    w.write_any(hi, l, (a[l] >> 16) as u64);
                }
            }
        }
        Inst::Unpack32x4 { ref d, a } => {
            let a = w.get(a);
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    for (i, &r) in d.iter().enumerate() {
                        w.write_any(r, l, u64::from((a[l] >> (8 * i)) & 0xff));
                    }
                }
            }
        }
        _ => unreachable!("exec_other() called with {inst:?}"),
    }
    Flow::Next
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prmt_matches_ptx_examples() {
        // PTX ISA prmt default mode: selector 0x3210 returns a unchanged, 0x7654 returns b.
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x3210), 0x4433_2211);
        assert_eq!(prmt(0x4433_2211, 0x8877_6655, 0x7654), 0x8877_6655);
        // sign-replicate bit (msb of the nibble): byte 0x88 → 0xff
        assert_eq!(prmt(0, 0x8800_0000, 0x000f), 0xff);
    }

    #[test]
    fn bfe_closed_form_equals_the_bitwise_definition() {
        let mut s = 0x9e37_79b9_7f4a_7c15_u64;
        let mut xs = vec![0, !0, 1 << 31, 1 << 63, 0x8000_0000_ffff_0000];
        for _ in 0..12 {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            xs.push(s);
        }
        for &x in &xs {
            for bits in [32, 64] {
                let x = if bits == 32 { x & 0xffff_ffff } else { x };
                for pos in 0..=255 {
                    for len in 0..=255 {
                        for signed in [false, true] {
                            assert_eq!(
                                bfe(x, bits, pos, len, signed),
                                bfe_bitwise(x, bits, pos, len, signed),
                                "{x:#x} bits {bits} pos {pos} len {len} signed {signed}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn bin32_imm_equals_the_general_loop() {
        use IntOp::*;
        let ops = [
            Add, Sub, MulLo, MulHiU, MulHiS, DivU, DivS, RemU, RemS, MinU, MinS, MaxU, MaxS, And,
            Or, Xor, Shl, ShrU, ShrS, AddSatS, SubSatS,
        ];
        let mut next = crate::xorshift64(0x2545_f491_4f6c_dd1d);
        let mut fast = 0;
        for i in 0..20_000 {
            let a: [u32; 32] = std::array::from_fn(|_| next() as u32);
            // shift amounts at and around the width, small and arbitrary values
            let v = match i % 4 {
                0 => (next() % 70) as u32,
                1 => [0, 1, 31, 32, 33, !0, 0x8000_0000][(next() % 7) as usize],
                _ => next() as u32,
            };
            for op in ops {
                if let Some(r) = bin32_imm(op, &a, v) {
                    fast += 1;
                    assert_eq!(
                        r,
                        bin32_lanes(op, Narrow::None, &a, &[v; 32]),
                        "{op:?} {v:#x}"
                    );
                }
            }
        }
        assert!(fast >= 20_000 * 9, "the fast path answered {fast} times");
    }

    #[test]
    fn select_operands_equals_select_lanes() {
        let mut next = crate::xorshift64(0x9e37_79b9_7f4a_7c15);
        for _ in 0..5_000 {
            let file: Vec<[u32; 32]> = (0..3)
                .map(|_| std::array::from_fn(|_| next() as u32))
                .collect();
            let file64: Vec<[u64; 32]> = (0..3).map(|_| std::array::from_fn(|_| next())).collect();
            let c = next() as u32;
            let (u, v) = (next(), if next().is_multiple_of(2) { 0 } else { next() });
            let (x, y) = ((next() % 3) as u16, (next() % 3) as u16);
            let forms = |u: u64, v: u64| {
                [
                    (S::R(x), S::R(y)),
                    (S::R(x), S::I(v)),
                    (S::I(u), S::R(y)),
                    (S::I(u), S::I(v)),
                ]
            };
            for (a, b) in forms(u, v) {
                let val = |s: S<u64>| match s {
                    S::R(i) => file64[i as usize],
                    S::I(k) => [k; 32],
                };
                assert_eq!(
                    select_operands(c, &file64, a, b),
                    select_lanes(c, &val(a), &val(b))
                );
                let narrow = |s: S<u64>| match s {
                    S::R(i) => S::R(i),
                    S::I(k) => S::I(k as u32),
                };
                let val32 = |s: S<u32>| match s {
                    S::R(i) => file[i as usize],
                    S::I(k) => [k; 32],
                };
                let (a, b) = (narrow(a), narrow(b));
                assert_eq!(
                    select_operands(c, &file, a, b),
                    select_lanes(c, &val32(a), &val32(b))
                );
            }
        }
    }

    #[test]
    fn wide_shift_add_equals_the_sign_extended_product() {
        let mut next = crate::xorshift64(0x6a09_e667_f3bc_c909);
        let edges = [
            0u32,
            1,
            2,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            !0,
            !1,
            0xffff,
        ];
        for i in 0..3_000 {
            let a: [u32; 32] = std::array::from_fn(|l| {
                if i % 3 == 0 {
                    edges[(next() % edges.len() as u64) as usize]
                } else {
                    next() as u32 >> (l % 4 * 8)
                }
            });
            let c: [u64; 32] = std::array::from_fn(|_| next());
            for k in 0..=30 {
                let v = 1u32 << k;
                assert_eq!(pow2_shift(v), Some(k));
                let want: [u64; 32] = std::array::from_fn(|l| {
                    ((a[l] as i32 as i64).wrapping_mul(v as i32 as i64) as u64).wrapping_add(c[l])
                });
                assert_eq!(wide_shift_add(&a, k, &c), want, "times 2^{k}");
                assert_eq!(wide_shift_add_scalar(&a, k, &c), want, "times 2^{k}");
            }
        }
        // not a positive s32 power of two: the general loop
        for v in [0u32, 3, 6, 0x8000_0000, 0xffff_fffe, !0] {
            assert_eq!(pow2_shift(v), None, "{v:#x}");
        }
    }

    #[test]
    fn mad_lo32_equals_mad32_lane() {
        let mut next = crate::xorshift64(0x3c6e_f372_fe94_f82b);
        for _ in 0..20_000 {
            let [a, b, c]: [[u32; 32]; 3] =
                std::array::from_fn(|_| std::array::from_fn(|_| next() as u32));
            let want: [u32; 32] =
                std::array::from_fn(|l| mad32_lane(None, Narrow::None, a[l], b[l], c[l]));
            assert_eq!(mad_lo32(&a, &b, &c), want);
        }
    }

    #[test]
    fn bfe_u32_uniform_equals_bfe() {
        let mut next = crate::xorshift64(0xbb67_ae85_84ca_a73b);
        for _ in 0..12 {
            let a: [u32; 32] = std::array::from_fn(|_| next() as u32);
            for pos in 0..=255 {
                for len in 0..=255 {
                    let want: [u32; 32] =
                        std::array::from_fn(|l| bfe(a[l] as u64, 32, pos, len, false) as u32);
                    assert_eq!(bfe_u32_uniform(&a, pos, len), want, "pos {pos} len {len}");
                }
            }
        }
    }

    #[test]
    fn select_lanes_takes_a_where_the_bit_is_set() {
        let a: [u32; 32] = std::array::from_fn(|l| 100 + l as u32);
        let b: [u32; 32] = std::array::from_fn(|l| 200 + l as u32);
        let a64: [u64; 32] = std::array::from_fn(|l| (1 << 40) + l as u64);
        let b64: [u64; 32] = std::array::from_fn(|l| (2 << 40) + l as u64);
        for c in [0u32, !0, 0x5555_5555, 0x8000_0001, 0x0123_4567] {
            let r = select_lanes(c, &a, &b);
            let r64 = select_lanes(c, &a64, &b64);
            for l in 0..32 {
                let take_a = c >> l & 1 != 0;
                assert_eq!(r[l], if take_a { a[l] } else { b[l] });
                assert_eq!(r64[l], if take_a { a64[l] } else { b64[l] });
            }
        }
    }

    #[test]
    fn bfe_and_lop3() {
        assert_eq!(bfe(0xf0, 32, 4, 4, false), 0xf);
        assert_eq!(bfe(0xf0, 32, 4, 4, true), 0xffff_ffff);
        assert_eq!(lop3(0b1100, 0b1010, 0b0110, 0x80), 0b1100 & 0b1010 & 0b0110);
        assert_eq!(lop3(0b1100, 0b1010, 0, 0xfc) & 0xf, 0b1110);
    }
}
