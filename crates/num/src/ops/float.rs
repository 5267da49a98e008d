//! f32 and f64 arithmetic with PTX semantics (PTX ISA §9.7.3): rounding modifiers, `.ftz`,
//! `.sat`, min/max variants, comparisons and classification, over raw bit patterns.
//!
//! f32 results are exact: round-to-nearest uses f64 arithmetic (double rounding through f64
//! is innocuous for +, -, *, /, sqrt because 53 >= 2*24 + 2), directed rounding rounds an
//! exactly known `hi + lo` (see `round`). f64 directed rounding of add/mul/div/fma uses
//! `rustc_apfloat` (a slow path: real kernels almost never use it), sqrt uses a residual.
//!
//! NaN results: f32 gives the canonical NaN 0x7fffffff (as the H100 does). f64 propagates an
//! input NaN, quietened (see `nan64`), as recorded on the H100.

use super::round::{self, fma64, round_to, two_sum, Format};
use super::types::{CmpOp, Rounding};
use rustc_apfloat::ieee::Double;
use rustc_apfloat::{Float, Round};

/// The canonical NaN of f32 results.
pub const NAN32: u32 = 0x7fff_ffff;

/// Modifiers shared by the rounding float instructions.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatMods {
    pub rnd: Rounding,
    pub ftz: bool,
    pub sat: bool,
}

impl FloatMods {
    pub const RN: FloatMods = FloatMods {
        rnd: Rounding::Rn,
        ftz: false,
        sat: false,
    };

    pub fn new(rnd: Rounding, ftz: bool, sat: bool) -> FloatMods {
        FloatMods { rnd, ftz, sat }
    }
}

/// Modifiers of `min`/`max`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MinMaxMods {
    pub ftz: bool,
    /// `.NaN`: a NaN input gives the canonical NaN instead of the other operand.
    pub nan: bool,
    /// `.xorsign.abs`: compare magnitudes; the result's sign is the xor of the input signs.
    pub xorsign_abs: bool,
}

/// A decoded float operation (the engine pre-decodes to this once).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FloatOp {
    Add,
    Sub,
    Mul,
    /// `fma` and `mad` with a rounding modifier (fused).
    Fma,
    Div,
    DivApprox,
    DivFull,
    Rcp,
    RcpApprox,
    Sqrt,
    SqrtApprox,
    RsqrtApprox,
    Ex2Approx,
    Lg2Approx,
    SinApprox,
    CosApprox,
    TanhApprox,
    Min(MinMaxMods),
    Max(MinMaxMods),
    Abs,
    Neg,
    Copysign,
}

/// Evaluates a decoded f32 operation on bit patterns (`c` is ignored unless the op has three
/// inputs).
#[inline]
pub fn eval_f32(op: FloatOp, a: u32, b: u32, c: u32, m: FloatMods) -> u32 {
    use super::approx;
    match op {
        FloatOp::Add => f32_add(a, b, m),
        FloatOp::Sub => f32_sub(a, b, m),
        FloatOp::Mul => f32_mul(a, b, m),
        FloatOp::Fma => f32_fma(a, b, c, m),
        FloatOp::Div => f32_div(a, b, m),
        FloatOp::DivApprox => approx::f32_div_approx(a, b, m.ftz),
        FloatOp::DivFull => approx::f32_div_full(a, b, m.ftz),
        FloatOp::Rcp => f32_rcp(a, m),
        FloatOp::RcpApprox => approx::f32_rcp_approx(a, m.ftz),
        FloatOp::Sqrt => f32_sqrt(a, m),
        FloatOp::SqrtApprox => approx::f32_sqrt_approx(a, m.ftz),
        FloatOp::RsqrtApprox => approx::f32_rsqrt_approx(a, m.ftz),
        FloatOp::Ex2Approx => approx::f32_ex2_approx(a, m.ftz),
        FloatOp::Lg2Approx => approx::f32_lg2_approx(a, m.ftz),
        FloatOp::SinApprox => approx::f32_sin_approx(a, m.ftz),
        FloatOp::CosApprox => approx::f32_cos_approx(a, m.ftz),
        FloatOp::TanhApprox => approx::f32_tanh_approx(a),
        FloatOp::Min(mm) => f32_min(a, b, mm),
        FloatOp::Max(mm) => f32_max(a, b, mm),
        FloatOp::Abs => f32_abs(a, m.ftz),
        FloatOp::Neg => f32_neg(a, m.ftz),
        FloatOp::Copysign => f32_copysign(a, b),
    }
}

/// Evaluates a decoded f64 operation on bit patterns.
#[inline]
pub fn eval_f64(op: FloatOp, a: u64, b: u64, c: u64, m: FloatMods) -> u64 {
    use super::approx;
    match op {
        FloatOp::Add => f64_add(a, b, m.rnd),
        FloatOp::Sub => f64_sub(a, b, m.rnd),
        FloatOp::Mul => f64_mul(a, b, m.rnd),
        FloatOp::Fma => f64_fma(a, b, c, m.rnd),
        FloatOp::Div | FloatOp::DivFull => f64_div(a, b, m.rnd),
        FloatOp::DivApprox => f64_div(a, b, Rounding::Rn),
        FloatOp::Rcp => f64_div(1.0f64.to_bits(), a, m.rnd),
        FloatOp::RcpApprox => approx::f64_rcp_approx_ftz(a),
        FloatOp::Sqrt => f64_sqrt(a, m.rnd),
        FloatOp::RsqrtApprox => approx::f64_rsqrt_approx(a),
        FloatOp::Min(mm) => f64_min(a, b, mm),
        FloatOp::Max(mm) => f64_max(a, b, mm),
        FloatOp::Abs => f64_abs(a),
        FloatOp::Neg => f64_neg(a),
        FloatOp::Copysign => f64_copysign(a, b),
        // Forms the ISA defines only for f32 (sin/cos/ex2/lg2/tanh/sqrt.approx on f64 do not
        // exist); computed correctly rounded so a caller that reaches here still gets a value.
        FloatOp::SqrtApprox => f64_sqrt(a, Rounding::Rn),
        FloatOp::Ex2Approx => f64::from_bits(a).exp2().to_bits(),
        FloatOp::Lg2Approx => f64::from_bits(a).log2().to_bits(),
        FloatOp::SinApprox => f64::from_bits(a).sin().to_bits(),
        FloatOp::CosApprox => f64::from_bits(a).cos().to_bits(),
        FloatOp::TanhApprox => f64::from_bits(a).tanh().to_bits(),
    }
}

// ---------------------------------------------------------------------------------------------
// f32 helpers

#[inline]
pub fn is_nan32(a: u32) -> bool {
    (a & 0x7fff_ffff) > 0x7f80_0000
}

#[inline]
pub fn is_subnormal32(a: u32) -> bool {
    (a & 0x7f80_0000) == 0 && (a & 0x007f_ffff) != 0
}

/// `.ftz` on an input: a subnormal becomes a zero of the same sign.
#[inline]
pub fn ftz32(a: u32) -> u32 {
    if is_subnormal32(a) {
        a & 0x8000_0000
    } else {
        a
    }
}

#[inline]
fn f(a: u32) -> f64 {
    f32::from_bits(a) as f64
}

/// Rounds the exact result `hi + lo` to f32 and applies `.ftz` and `.sat` to it.
#[inline]
fn finish32(hi: f64, lo: f64, m: FloatMods) -> u32 {
    if hi.is_nan() {
        return if m.sat { 0 } else { NAN32 };
    }
    if m.ftz && is_tiny32(hi, lo) {
        // `.ftz` detects tininess before rounding: an exact result below 2^-126 flushes even
        // when it would round up to the smallest normal (H100: mul.rn.ftz of 2^-126 and
        // 1 - 2^-24 gives 0, not 2^-126).
        let z = if hi.is_sign_negative() {
            0x8000_0000
        } else {
            0
        };
        return if m.sat { 0 } else { z };
    }
    let r = if m.rnd == Rounding::Rn && lo == 0.0 {
        hi as f32
    } else {
        round_to(round::F32, hi, lo, m.rnd) as f32
    };
    let mut bits = r.to_bits();
    if m.ftz {
        bits = ftz32(bits);
    }
    if m.sat {
        bits = sat32(bits);
    }
    bits
}

/// The exact value `hi + lo` is nonzero and below the smallest normal f32 in magnitude.
#[inline]
fn is_tiny32(hi: f64, lo: f64) -> bool {
    const MIN: f64 = 1.1754943508222875e-38; // 2^-126
    let mag = hi.abs();
    let l = if hi < 0.0 { -lo } else { lo };
    hi != 0.0 && (mag < MIN || (mag == MIN && l < 0.0))
}

/// `.sat`: clamp to [0.0, 1.0]; NaN and -0.0 give +0.0.
#[inline]
pub fn sat32(a: u32) -> u32 {
    if is_nan32(a) || (a & 0x8000_0000) != 0 {
        0
    } else if a > 0x3f80_0000 {
        0x3f80_0000
    } else {
        a
    }
}

#[inline]
fn inputs32(a: u32, b: u32, ftz: bool) -> (f64, f64) {
    if ftz {
        (f(ftz32(a)), f(ftz32(b)))
    } else {
        (f(a), f(b))
    }
}

#[inline]
pub fn f32_add(a: u32, b: u32, m: FloatMods) -> u32 {
    let (x, y) = inputs32(a, b, m.ftz);
    if m.rnd == Rounding::Rn {
        // RN of the f64 sum is innocuous double rounding (53 >= 2*24+2).
        return finish32(x + y, 0.0, m);
    }
    let (s, e) = two_sum(x, y);
    if s == 0.0 && e == 0.0 && !(x == 0.0 && y == 0.0 && x.to_bits() == y.to_bits()) {
        // Exact cancellation: +0 except toward -inf (IEEE 754 §6.3).
        let z: f64 = if m.rnd == Rounding::Rm { -0.0 } else { 0.0 };
        return finish32(z, 0.0, m);
    }
    finish32(s, e, m)
}

#[inline]
pub fn f32_sub(a: u32, b: u32, m: FloatMods) -> u32 {
    // Negating b of a NaN keeps it a NaN; the result is canonical either way.
    f32_add(a, b ^ 0x8000_0000, m)
}

#[inline]
pub fn f32_mul(a: u32, b: u32, m: FloatMods) -> u32 {
    let (x, y) = inputs32(a, b, m.ftz);
    // Exact in f64: 24 + 24 bits, exponents within range.
    finish32(x * y, 0.0, m)
}

#[inline]
pub fn f32_fma(a: u32, b: u32, c: u32, m: FloatMods) -> u32 {
    if m.rnd == Rounding::Rn && !m.ftz {
        // The hot path: one fused multiply-add, on the CPU's FMA unit where it has one.
        let r = round::fma32(f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        return finish32(r as f64, 0.0, m);
    }
    let (x, y) = inputs32(a, b, m.ftz);
    let z = if m.ftz { f(ftz32(c)) } else { f(c) };
    let p = x * y; // exact
    if !p.is_finite() || !z.is_finite() {
        return finish32(p + z, 0.0, m);
    }
    let (s, e) = two_sum(p, z);
    if s == 0.0 && e == 0.0 {
        // Exact zero: the sign follows IEEE (x*y + z of opposite-signed equal terms is +0
        // except toward -inf; same-signed zeros keep their sign).
        let z0 = if p == 0.0 && z == 0.0 && p.is_sign_negative() == z.is_sign_negative() {
            p
        } else if m.rnd == Rounding::Rm {
            -0.0
        } else {
            0.0
        };
        return finish32(z0, 0.0, m);
    }
    finish32(s, e, m)
}

#[inline]
pub fn f32_div(a: u32, b: u32, m: FloatMods) -> u32 {
    let (x, y) = inputs32(a, b, m.ftz);
    let q = x / y;
    if (m.rnd == Rounding::Rn && !m.ftz) || !q.is_finite() || q == 0.0 {
        return finish32(q, 0.0, m);
    }
    // The residual x - q*y is exact (no underflow: |x| >= 2^-149); tail = residual / y.
    let r = fma64(-q, y, x);
    finish32(q, r / y, m)
}

#[inline]
pub fn f32_rcp(a: u32, m: FloatMods) -> u32 {
    f32_div(0x3f80_0000, a, FloatMods { ftz: m.ftz, ..m })
}

#[inline]
pub fn f32_sqrt(a: u32, m: FloatMods) -> u32 {
    let x = if m.ftz { f(ftz32(a)) } else { f(a) };
    if x < 0.0 {
        return finish32(f64::NAN, 0.0, m);
    }
    let s = x.sqrt();
    if m.rnd == Rounding::Rn || !s.is_finite() || s == 0.0 {
        return finish32(s, 0.0, m);
    }
    let r = fma64(-s, s, x); // exact residual of a correctly rounded root
    finish32(s, r, m)
}

/// min: a NaN operand yields the other operand (both NaN: canonical NaN); -0 < +0.
#[inline]
pub fn f32_min(a: u32, b: u32, mm: MinMaxMods) -> u32 {
    minmax32(a, b, mm, true)
}

#[inline]
pub fn f32_max(a: u32, b: u32, mm: MinMaxMods) -> u32 {
    minmax32(a, b, mm, false)
}

#[inline]
fn minmax32(a: u32, b: u32, mm: MinMaxMods, min: bool) -> u32 {
    let (a, b) = if mm.ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    let (na, nb) = (is_nan32(a), is_nan32(b));
    if na || nb {
        if mm.nan || (na && nb) {
            return NAN32;
        }
        let r = if na { b } else { a };
        return if mm.xorsign_abs {
            (r & 0x7fff_ffff) | ((a ^ b) & 0x8000_0000)
        } else {
            r
        };
    }
    if mm.xorsign_abs {
        let (x, y) = (a & 0x7fff_ffff, b & 0x7fff_ffff);
        let r = if (x < y) == min { x } else { y };
        return r | ((a ^ b) & 0x8000_0000);
    }
    // Order as sign-magnitude integers: -0 < +0.
    let less = total_lt32(a, b);
    if less == min {
        a
    } else {
        b
    }
}

/// a < b over non-NaN f32 bit patterns with -0 < +0.
#[inline]
fn total_lt32(a: u32, b: u32) -> bool {
    let key = |x: u32| {
        if x & 0x8000_0000 != 0 {
            !x as i64 - (1 << 32)
        } else {
            x as i64
        }
    };
    key(a) < key(b)
}

/// abs: clears the sign (NaN stays NaN, canonical); `.ftz` flushes a subnormal input.
#[inline]
pub fn f32_abs(a: u32, ftz: bool) -> u32 {
    let a = if ftz { ftz32(a) } else { a };
    if is_nan32(a) {
        return NAN32;
    }
    a & 0x7fff_ffff
}

#[inline]
pub fn f32_neg(a: u32, ftz: bool) -> u32 {
    let a = if ftz { ftz32(a) } else { a };
    if is_nan32(a) {
        return NAN32;
    }
    a ^ 0x8000_0000
}

/// copysign.f32 d, a, b: the magnitude of b with the sign of a.
#[inline]
pub fn f32_copysign(a: u32, b: u32) -> u32 {
    (b & 0x7fff_ffff) | (a & 0x8000_0000)
}

/// `testp` property.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TestP {
    Finite,
    Infinite,
    Number,
    NotANumber,
    /// Normal numbers, and (by the ISA's special case) ±0.
    Normal,
    Subnormal,
}

impl TestP {
    pub fn from_ptx(s: &str) -> Option<TestP> {
        Some(match s.strip_prefix('.').unwrap_or(s) {
            "finite" => TestP::Finite,
            "infinite" => TestP::Infinite,
            "number" => TestP::Number,
            "notanumber" => TestP::NotANumber,
            "normal" => TestP::Normal,
            "subnormal" => TestP::Subnormal,
            _ => return None,
        })
    }
}

#[inline]
pub fn f32_testp(op: TestP, a: u32) -> bool {
    testp(op, f(a), is_subnormal32(a))
}

#[inline]
pub fn f64_testp(op: TestP, a: u64) -> bool {
    let x = f64::from_bits(a);
    testp(op, x, x.is_subnormal())
}

#[inline]
fn testp(op: TestP, x: f64, sub: bool) -> bool {
    match op {
        TestP::Finite => x.is_finite(),
        TestP::Infinite => x.is_infinite(),
        TestP::Number => !x.is_nan(),
        TestP::NotANumber => x.is_nan(),
        TestP::Normal => x.is_finite() && !sub,
        TestP::Subnormal => sub,
    }
}

/// Float comparison of `setp`/`set`; the integer-only operators (lo, ls, hi, hs) are treated
/// as lt, le, gt, ge.
#[inline]
pub fn cmp_float(op: CmpOp, x: f64, y: f64) -> bool {
    let unordered = x.is_nan() || y.is_nan();
    match op {
        CmpOp::Eq => x == y,
        CmpOp::Ne => !unordered && x != y,
        CmpOp::Lt | CmpOp::Lo => x < y,
        CmpOp::Le | CmpOp::Ls => x <= y,
        CmpOp::Gt | CmpOp::Hi => x > y,
        CmpOp::Ge | CmpOp::Hs => x >= y,
        CmpOp::Equ => unordered || x == y,
        CmpOp::Neu => x != y,
        CmpOp::Ltu => unordered || x < y,
        CmpOp::Leu => unordered || x <= y,
        CmpOp::Gtu => unordered || x > y,
        CmpOp::Geu => unordered || x >= y,
        CmpOp::Num => !unordered,
        CmpOp::Nan => unordered,
    }
}

#[inline]
pub fn f32_cmp(op: CmpOp, a: u32, b: u32, ftz: bool) -> bool {
    let (x, y) = inputs32(a, b, ftz);
    cmp_float(op, x, y)
}

#[inline]
pub fn f64_cmp(op: CmpOp, a: u64, b: u64) -> bool {
    cmp_float(op, f64::from_bits(a), f64::from_bits(b))
}

// ---------------------------------------------------------------------------------------------
// f64

#[inline]
pub fn is_nan64(a: u64) -> bool {
    (a & 0x7fff_ffff_ffff_ffff) > 0x7ff0_0000_0000_0000
}

const QUIET64: u64 = 0x0008_0000_0000_0000;

/// The NaN an f64 operation returns when inputs are NaN: the first NaN in the operation's
/// priority order, quietened. The ISA does not specify NaN payloads; the H100 recording gives
/// the order (b, c, a) for fma (add and mul behave as fma(a, 1, b) and fma(a, b, -0): b
/// before a), and (a, b) for div, a software sequence.
#[inline]
pub fn nan64(priority: &[u64]) -> Option<u64> {
    priority
        .iter()
        .copied()
        .find(|&x| is_nan64(x))
        .map(|x| x | QUIET64)
}

/// The default NaN of an invalid f64 operation (inf - inf, 0 * inf, sqrt(-1)): the H100 gives
/// the negative quiet NaN 0xfff8000000000000 (recorded for fma(-inf, -16, -inf) and sqrt of
/// negative numbers).
pub const NAN64: u64 = 0xfff8_0000_0000_0000;

#[inline]
fn apround(r: Rounding) -> Round {
    match r.float_mode() {
        Rounding::Rz => Round::TowardZero,
        Rounding::Rm => Round::TowardNegative,
        Rounding::Rp => Round::TowardPositive,
        Rounding::Rna => Round::NearestTiesToAway,
        _ => Round::NearestTiesToEven,
    }
}

#[inline]
fn d(x: u64) -> f64 {
    f64::from_bits(x)
}

#[inline]
fn fin64(x: f64) -> u64 {
    if x.is_nan() {
        NAN64
    } else {
        x.to_bits()
    }
}

#[inline]
pub fn f64_add(a: u64, b: u64, rnd: Rounding) -> u64 {
    if let Some(n) = nan64(&[b, a]) {
        return n;
    }
    if rnd == Rounding::Rn {
        return fin64(d(a) + d(b));
    }
    let r = Double::from_bits(a as u128).add_r(Double::from_bits(b as u128), apround(rnd));
    fin64(d(r.value.to_bits() as u64))
}

#[inline]
pub fn f64_sub(a: u64, b: u64, rnd: Rounding) -> u64 {
    if let Some(n) = nan64(&[b, a]) {
        return n;
    }
    f64_add(a, b ^ (1 << 63), rnd)
}

#[inline]
pub fn f64_mul(a: u64, b: u64, rnd: Rounding) -> u64 {
    if let Some(n) = nan64(&[b, a]) {
        return n;
    }
    if rnd == Rounding::Rn {
        return fin64(d(a) * d(b));
    }
    let r = Double::from_bits(a as u128).mul_r(Double::from_bits(b as u128), apround(rnd));
    fin64(d(r.value.to_bits() as u64))
}

#[inline]
pub fn f64_fma(a: u64, b: u64, c: u64, rnd: Rounding) -> u64 {
    if let Some(n) = nan64(&[b, c, a]) {
        return n;
    }
    if rnd == Rounding::Rn {
        return fin64(fma64(d(a), d(b), d(c)));
    }
    let r = Double::from_bits(a as u128).mul_add_r(
        Double::from_bits(b as u128),
        Double::from_bits(c as u128),
        apround(rnd),
    );
    fin64(d(r.value.to_bits() as u64))
}

#[inline]
pub fn f64_div(a: u64, b: u64, rnd: Rounding) -> u64 {
    if let Some(n) = nan64(&[a, b]) {
        return n;
    }
    if rnd == Rounding::Rn {
        return fin64(d(a) / d(b));
    }
    let r = Double::from_bits(a as u128).div_r(Double::from_bits(b as u128), apround(rnd));
    fin64(d(r.value.to_bits() as u64))
}

#[inline]
pub fn f64_sqrt(a: u64, rnd: Rounding) -> u64 {
    if let Some(n) = nan64(&[a]) {
        return n;
    }
    let x = d(a);
    if x < 0.0 {
        return NAN64;
    }
    let s = x.sqrt();
    if rnd == Rounding::Rn || !s.is_finite() || s == 0.0 {
        return s.to_bits();
    }
    // Scale small inputs by an even power of two so the residual cannot underflow.
    let (xs, k) = if x < round::pow2(-900) {
        (x * round::pow2(400), -200)
    } else {
        (x, 0)
    };
    let s = xs.sqrt();
    let r = fma64(-s, s, xs);
    let rounded = round_to(round::F64, s, r, rnd);
    (rounded * round::pow2(k)).to_bits()
}

#[inline]
pub fn f64_min(a: u64, b: u64, mm: MinMaxMods) -> u64 {
    minmax64(a, b, mm, true)
}

#[inline]
pub fn f64_max(a: u64, b: u64, mm: MinMaxMods) -> u64 {
    minmax64(a, b, mm, false)
}

fn minmax64(a: u64, b: u64, mm: MinMaxMods, min: bool) -> u64 {
    let (na, nb) = (is_nan64(a), is_nan64(b));
    if na || nb {
        if mm.nan {
            return NAN64;
        }
        // One NaN: the other operand. Both: the second, quietened (H100).
        return if na && nb {
            b | QUIET64
        } else if na {
            b
        } else {
            a
        };
    }
    let key = |x: u64| {
        if x >> 63 != 0 {
            -((x & !(1 << 63)) as i128) - 1
        } else {
            x as i128
        }
    };
    if (key(a) < key(b)) == min {
        a
    } else {
        b
    }
}

/// abs.f64: clears the sign; a NaN is returned quietened with its sign unchanged (H100).
#[inline]
pub fn f64_abs(a: u64) -> u64 {
    if is_nan64(a) {
        a | QUIET64
    } else {
        a & !(1 << 63)
    }
}

/// neg.f64: flips the sign; a NaN is returned quietened with its sign unchanged (H100).
#[inline]
pub fn f64_neg(a: u64) -> u64 {
    if is_nan64(a) {
        a | QUIET64
    } else {
        a ^ (1 << 63)
    }
}

/// copysign.f64 d, a, b: the magnitude of b with the sign of a.
#[inline]
pub fn f64_copysign(a: u64, b: u64) -> u64 {
    (b & !(1 << 63)) | (a & (1 << 63))
}

/// Rounds an f64 to f32 as `cvt.frnd.f32.f64` does (NaN gives the canonical NaN).
#[inline]
pub fn f64_to_f32(a: u64, m: FloatMods) -> u32 {
    let x = d(a);
    if x.is_nan() && !m.sat {
        return nan64_to_f32(a);
    }
    finish32(x, 0.0, m)
}

/// An f64 NaN narrowed to f32: sign and the top payload bits kept, quietened (H100).
#[inline]
pub fn nan64_to_f32(a: u64) -> u32 {
    ((a >> 32) as u32 & 0x8000_0000) | 0x7fc0_0000 | ((a >> 29) as u32 & 0x007f_ffff)
}

/// Format helper for other modules: f32 format descriptor.
pub const F32_FORMAT: Format = round::F32;

/// Three-input min/max (sm_100+: `min{.ftz}{.NaN}{.abs}.f32 d, a, b, c`): the two-input rule
/// applied twice; `.abs` compares and returns magnitudes.
#[inline]
pub fn f32_min3(a: u32, b: u32, c: u32, mm: MinMaxMods, abs: bool) -> u32 {
    let m = |x: u32| {
        if abs && !is_nan32(x) {
            x & 0x7fff_ffff
        } else {
            x
        }
    };
    f32_min(f32_min(m(a), m(b), mm), m(c), mm)
}

/// See [`f32_min3`].
#[inline]
pub fn f32_max3(a: u32, b: u32, c: u32, mm: MinMaxMods, abs: bool) -> u32 {
    let m = |x: u32| {
        if abs && !is_nan32(x) {
            x & 0x7fff_ffff
        } else {
            x
        }
    };
    f32_max(f32_max(m(a), m(b), mm), m(c), mm)
}

/// Packed f32x2 arithmetic (sm_100+: `add/sub/mul/fma{.rnd}{.ftz}{.sat}.f32x2` on .b64
/// registers): the f32 operation on each 32-bit half independently.
#[inline]
pub fn f32x2(op: FloatOp, a: u64, b: u64, c: u64, m: FloatMods) -> u64 {
    let lo = eval_f32(op, a as u32, b as u32, c as u32, m);
    let hi = eval_f32(op, (a >> 32) as u32, (b >> 32) as u32, (c >> 32) as u32, m);
    (lo as u64) | ((hi as u64) << 32)
}

// ---------------------------------------------------------------------------------------------
// 32-lane entry points: the engine's hot path
//
// Each takes a warp's operand arrays and computes exactly what the scalar function computes
// for every lane. The common form (`.rn`, no `.ftz`, no `.sat`) runs as one plain loop over
// native f32 arithmetic the compiler vectorises; every other form falls back to the scalar
// function per lane. Native f32 `+`, `*` and fused multiply-add are correctly rounded to
// nearest-even with gradual underflow (Rust never sets FTZ/DAZ), which is what the scalar
// paths compute through f64 (double rounding through f64 is innocuous for + and *, and the
// scalar fma.rn path is the same hardware fma); only NaN results differ in payload, so the
// loops canonicalise them to `NAN32` as the scalar paths do. `lanes_tests` checks equality
// with the scalar functions on random, special and subnormal operands.

/// Lanes per warp.
pub const LANES: usize = 32;

/// A native f32 result as PTX bits: NaN becomes the canonical NaN.
#[inline(always)]
fn canon32(r: f32) -> u32 {
    if r.is_nan() {
        NAN32
    } else {
        r.to_bits()
    }
}

/// `d[l] = f32_add(a[l], b[l], m)` for every lane.
#[inline]
pub fn f32_add_lanes(a: &[u32; LANES], b: &[u32; LANES], m: FloatMods, d: &mut [u32; LANES]) {
    if m == FloatMods::RN {
        for l in 0..LANES {
            d[l] = canon32(f32::from_bits(a[l]) + f32::from_bits(b[l]));
        }
    } else {
        for l in 0..LANES {
            d[l] = f32_add(a[l], b[l], m);
        }
    }
}

/// `d[l] = f32_sub(a[l], b[l], m)` for every lane.
#[inline]
pub fn f32_sub_lanes(a: &[u32; LANES], b: &[u32; LANES], m: FloatMods, d: &mut [u32; LANES]) {
    if m == FloatMods::RN {
        for l in 0..LANES {
            d[l] = canon32(f32::from_bits(a[l]) - f32::from_bits(b[l]));
        }
    } else {
        for l in 0..LANES {
            d[l] = f32_sub(a[l], b[l], m);
        }
    }
}

/// `d[l] = f32_mul(a[l], b[l], m)` for every lane.
#[inline]
pub fn f32_mul_lanes(a: &[u32; LANES], b: &[u32; LANES], m: FloatMods, d: &mut [u32; LANES]) {
    if m == FloatMods::RN {
        for l in 0..LANES {
            d[l] = canon32(f32::from_bits(a[l]) * f32::from_bits(b[l]));
        }
    } else {
        for l in 0..LANES {
            d[l] = f32_mul(a[l], b[l], m);
        }
    }
}

/// `d[l] = f32_fma(a[l], b[l], c[l], m)` for every lane. The `.rn` form runs on the CPU's
/// FMA unit when it has one (checked once per call, i.e. once per warp-instruction: the
/// check is a cached atomic load); never as `a * b + c`, whose double rounding is not fma.
#[inline]
pub fn f32_fma_lanes(
    a: &[u32; LANES],
    b: &[u32; LANES],
    c: &[u32; LANES],
    m: FloatMods,
    d: &mut [u32; LANES],
) {
    if m == FloatMods::RN {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: both features were detected at run time.
                unsafe { fma_rn_lanes_avx2(a, b, c, d) };
                return;
            }
        }
    }
    for l in 0..LANES {
        d[l] = f32_fma(a[l], b[l], c[l], m);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn fma_rn_lanes_avx2(
    a: &[u32; LANES],
    b: &[u32; LANES],
    c: &[u32; LANES],
    d: &mut [u32; LANES],
) {
    for l in 0..LANES {
        let r = f32::from_bits(a[l]).mul_add(f32::from_bits(b[l]), f32::from_bits(c[l]));
        d[l] = canon32(r);
    }
}

#[cfg(test)]
mod lanes_tests {
    use super::*;

    /// Operands that exercise every path: specials, subnormals, values near overflow and
    /// cancellation, and random bit patterns.
    fn operands(seed: u64, n: usize) -> Vec<u32> {
        const SPECIAL: [u32; 16] = [
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_1234,
            0x7f80_0001,
            0x0000_0001,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x7f7f_ffff,
            0xff7f_ffff,
            0x3f80_0000,
            0xbf80_0000,
            0x3380_0000,
        ];
        let mut s = seed;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                match i % 4 {
                    0 => SPECIAL[(s >> 40) as usize % SPECIAL.len()],
                    // small exponent spread, so sums cancel and products stay in range
                    1 => {
                        (s as u32 & 0x807f_ffff)
                            | (0x3f00_0000 + ((s >> 32) as u32 % 4) * 0x0080_0000)
                    }
                    // subnormal or tiny
                    2 => s as u32 & 0x80ff_ffff,
                    _ => s as u32,
                }
            })
            .collect()
    }

    fn arr(v: &[u32]) -> [u32; LANES] {
        v.try_into().unwrap()
    }

    #[test]
    fn lanes_equal_scalar_in_every_mode() {
        let modes = [
            FloatMods::RN,
            FloatMods::new(Rounding::Rn, true, false),
            FloatMods::new(Rounding::Rn, false, true),
            FloatMods::new(Rounding::Rz, false, false),
            FloatMods::new(Rounding::Rm, true, true),
            FloatMods::new(Rounding::Rp, false, false),
        ];
        for (k, &m) in modes.iter().enumerate() {
            for round in 0..4000u64 {
                let seed = 0x9e37_79b9_7f4a_7c15 ^ (round * 0x1234_5679 + k as u64 + 1);
                let v = operands(seed, 3 * LANES);
                // permute the operand kinds between the three inputs
                let (a, b, c) = (arr(&v[..32]), arr(&v[32..64]), arr(&v[64..]));
                let mut d = [0u32; LANES];
                f32_add_lanes(&a, &b, m, &mut d);
                for l in 0..LANES {
                    assert_eq!(
                        d[l],
                        f32_add(a[l], b[l], m),
                        "add {:#x} {:#x} {m:?}",
                        a[l],
                        b[l]
                    );
                }
                f32_sub_lanes(&a, &c, m, &mut d);
                for l in 0..LANES {
                    assert_eq!(
                        d[l],
                        f32_sub(a[l], c[l], m),
                        "sub {:#x} {:#x} {m:?}",
                        a[l],
                        c[l]
                    );
                }
                f32_mul_lanes(&b, &c, m, &mut d);
                for l in 0..LANES {
                    assert_eq!(
                        d[l],
                        f32_mul(b[l], c[l], m),
                        "mul {:#x} {:#x} {m:?}",
                        b[l],
                        c[l]
                    );
                }
                f32_fma_lanes(&a, &b, &c, m, &mut d);
                for l in 0..LANES {
                    assert_eq!(
                        d[l],
                        f32_fma(a[l], b[l], c[l], m),
                        "fma {:#x} {:#x} {:#x} {m:?}",
                        a[l],
                        b[l],
                        c[l]
                    );
                }
            }
        }
    }

    #[test]
    fn fma_lanes_are_fused() {
        // (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 exactly; a*b+c in f32 would give 0
        let a = [0x3f80_0001; LANES];
        let b = [0x3f7f_fffe; LANES];
        let c = [(-1.0f32).to_bits(); LANES];
        let mut d = [0u32; LANES];
        f32_fma_lanes(&a, &b, &c, FloatMods::RN, &mut d);
        assert!(d.iter().all(|&x| x == (-(2f32.powi(-46))).to_bits()));
    }
}
