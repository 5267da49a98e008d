//! Integer and bit-manipulation instructions, PTX ISA §9.7.1 and §9.7.2 (and the integer side
//! of §9.7.4 comparison/selection). Values travel as u64 bit patterns with the type's width;
//! results are masked to the width. Division by zero gives all ones for div and rem of every
//! width and signedness: the ISA leaves it unspecified and this is what the H100 returns
//! (tests/corpus/diff/h100).

use super::types::{CmpOp, OpError, ScalarType};

/// An integer operand type: width in bits (8, 16, 32, 64) and signedness.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct IntTy {
    pub bits: u32,
    pub signed: bool,
}

impl IntTy {
    pub const U16: IntTy = IntTy {
        bits: 16,
        signed: false,
    };
    pub const S16: IntTy = IntTy {
        bits: 16,
        signed: true,
    };
    pub const U32: IntTy = IntTy {
        bits: 32,
        signed: false,
    };
    pub const S32: IntTy = IntTy {
        bits: 32,
        signed: true,
    };
    pub const U64: IntTy = IntTy {
        bits: 64,
        signed: false,
    };
    pub const S64: IntTy = IntTy {
        bits: 64,
        signed: true,
    };

    /// The integer view of a scalar type (`.bN` counts as unsigned).
    pub fn of(t: ScalarType) -> Result<IntTy, OpError> {
        if !t.is_integer() {
            return Err(OpError::Illegal("integer operation on a non-integer type"));
        }
        Ok(IntTy {
            bits: t.bits(),
            signed: t.is_signed(),
        })
    }

    #[inline]
    pub fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// The value as a (sign- or zero-extended) i128.
    #[inline]
    pub fn val(self, x: u64) -> i128 {
        let x = x & self.mask();
        if self.signed && self.bits < 128 && (x >> (self.bits - 1)) & 1 == 1 {
            x as i128 - (1i128 << self.bits)
        } else {
            x as i128
        }
    }

    #[inline]
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    #[inline]
    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// Truncates an i128 to the width.
    #[inline]
    pub fn wrap(self, v: i128) -> u64 {
        (v as u64) & self.mask()
    }

    /// Clamps an i128 to the type's range.
    #[inline]
    pub fn sat(self, v: i128) -> u64 {
        self.wrap(v.clamp(self.min(), self.max()))
    }
}

#[inline]
pub fn add(t: IntTy, a: u64, b: u64) -> u64 {
    a.wrapping_add(b) & t.mask()
}

#[inline]
pub fn sub(t: IntTy, a: u64, b: u64) -> u64 {
    a.wrapping_sub(b) & t.mask()
}

/// add.sat.s32 (the ISA allows .sat only on .s32).
#[inline]
pub fn add_sat(t: IntTy, a: u64, b: u64) -> u64 {
    t.sat(t.val(a) + t.val(b))
}

#[inline]
pub fn sub_sat(t: IntTy, a: u64, b: u64) -> u64 {
    t.sat(t.val(a) - t.val(b))
}

/// add.cc / addc(.cc): returns (sum, carry out). `carry_in` is CC.CF (false for add.cc).
#[inline]
pub fn add_carry(t: IntTy, a: u64, b: u64, carry_in: bool) -> (u64, bool) {
    let m = t.mask() as u128;
    let s = (a as u128 & m) + (b as u128 & m) + carry_in as u128;
    ((s & m) as u64, s > m)
}

/// sub.cc / subc(.cc): d = a - (b + CC.CF); returns (difference, borrow out). CC.CF holds the
/// borrow, so a multi-word subtraction chains sub.cc, subc.cc, ..., subc.
#[inline]
pub fn sub_borrow(t: IntTy, a: u64, b: u64, borrow_in: bool) -> (u64, bool) {
    let m = t.mask() as i128;
    let d = (a as i128 & m) - (b as i128 & m) - borrow_in as i128;
    ((d & m) as u64, d < 0)
}

#[inline]
pub fn mul_lo(t: IntTy, a: u64, b: u64) -> u64 {
    a.wrapping_mul(b) & t.mask()
}

#[inline]
pub fn mul_hi(t: IntTy, a: u64, b: u64) -> u64 {
    if t.bits == 64 {
        // i128 product of two 64-bit values fits (signed or unsigned: |p| < 2^128).
        let p = if t.signed {
            (t.val(a)).wrapping_mul(t.val(b))
        } else {
            ((a as u128) * (b as u128)) as i128
        };
        return (p >> 64) as u64;
    }
    t.wrap((t.val(a) * t.val(b)) >> t.bits)
}

/// mul.wide: the full 2n-bit product of n-bit inputs (n = 16, 32).
#[inline]
pub fn mul_wide(t: IntTy, a: u64, b: u64) -> u64 {
    let wt = IntTy {
        bits: t.bits * 2,
        signed: t.signed,
    };
    wt.wrap(t.val(a) * t.val(b))
}

#[inline]
pub fn mad_lo(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    add(t, mul_lo(t, a, b), c)
}

#[inline]
pub fn mad_hi(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    add(t, mul_hi(t, a, b), c)
}

/// mad.hi.sat.s32: the upper half of the product plus c, saturated to s32.
#[inline]
pub fn mad_hi_sat(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    let hi = t.val(mul_hi(t, a, b));
    t.sat(hi + t.val(c))
}

/// mad.wide: 2n-bit product plus a 2n-bit c.
#[inline]
pub fn mad_wide(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    let wt = IntTy {
        bits: t.bits * 2,
        signed: t.signed,
    };
    add(wt, mul_wide(t, a, b), c)
}

#[inline]
fn low24(t: IntTy, a: u64) -> i128 {
    IntTy {
        bits: 24,
        signed: t.signed,
    }
    .val(a)
}

/// mul24.lo / mul24.hi: 24x24-bit product (48 bits); .lo gives bits 31..0, .hi bits 47..16.
#[inline]
pub fn mul24(t: IntTy, a: u64, b: u64, hi: bool) -> u64 {
    let p = low24(t, a) * low24(t, b);
    if hi {
        IntTy::U32.wrap(p >> 16)
    } else {
        IntTy::U32.wrap(p)
    }
}

/// mad24 (.lo/.hi, .sat only with .hi.s32).
#[inline]
pub fn mad24(t: IntTy, a: u64, b: u64, c: u64, hi: bool, sat: bool) -> u64 {
    let p = mul24(t, a, b, hi);
    if sat {
        IntTy::S32.sat(IntTy::S32.val(p) + IntTy::S32.val(c))
    } else {
        add(IntTy::U32, p, c)
    }
}

/// sad: c + |a - b|.
#[inline]
pub fn sad(t: IntTy, a: u64, b: u64, c: u64) -> u64 {
    let d = (t.val(a) - t.val(b)).abs();
    t.wrap(d + t.val(c))
}

/// div: truncating; by zero gives all ones (H100); MIN / -1 wraps to MIN.
#[inline]
pub fn div(t: IntTy, a: u64, b: u64) -> u64 {
    let (x, y) = (t.val(a), t.val(b));
    if y == 0 {
        return t.mask();
    }
    t.wrap(x / y)
}

/// rem: sign of the dividend; by zero gives all ones (H100).
#[inline]
pub fn rem(t: IntTy, a: u64, b: u64) -> u64 {
    let (x, y) = (t.val(a), t.val(b));
    if y == 0 {
        return t.mask();
    }
    t.wrap(x % y)
}

#[inline]
pub fn abs(t: IntTy, a: u64) -> u64 {
    t.wrap(t.val(a).abs())
}

#[inline]
pub fn neg(t: IntTy, a: u64) -> u64 {
    t.wrap(-t.val(a))
}

#[inline]
pub fn min(t: IntTy, a: u64, b: u64) -> u64 {
    if t.val(a) <= t.val(b) {
        a & t.mask()
    } else {
        b & t.mask()
    }
}

#[inline]
pub fn max(t: IntTy, a: u64, b: u64) -> u64 {
    if t.val(a) >= t.val(b) {
        a & t.mask()
    } else {
        b & t.mask()
    }
}

/// min/max with `.relu` (s32, s16x2): the result clamped below at 0.
#[inline]
pub fn relu(t: IntTy, x: u64) -> u64 {
    if t.val(x) < 0 {
        0
    } else {
        x
    }
}

/// Packed 16x2 min/max (`.u16x2`, `.s16x2`, `.relu` for s16x2): per halfword.
#[inline]
pub fn minmax_x2(signed: bool, a: u32, b: u32, is_min: bool, relu_: bool) -> u32 {
    let t = IntTy { bits: 16, signed };
    let mut r = 0u32;
    for h in 0..2 {
        let (x, y) = (
            ((a >> (16 * h)) & 0xffff) as u64,
            ((b >> (16 * h)) & 0xffff) as u64,
        );
        let mut v = if is_min { min(t, x, y) } else { max(t, x, y) };
        if relu_ {
            v = relu(t, v);
        }
        r |= (v as u32) << (16 * h);
    }
    r
}

#[inline]
pub fn popc(t: IntTy, a: u64) -> u32 {
    (a & t.mask()).count_ones()
}

#[inline]
pub fn clz(t: IntTy, a: u64) -> u32 {
    (a & t.mask()).leading_zeros() - (64 - t.bits)
}

/// bfind: bit index of the most significant non-sign bit (0xffffffff if none); `.shiftamt`
/// returns the left shift that moves it to the top instead.
#[inline]
pub fn bfind(t: IntTy, a: u64, shiftamt: bool) -> u32 {
    let mut x = a & t.mask();
    if t.signed && (x >> (t.bits - 1)) & 1 == 1 {
        x = !x & t.mask();
    }
    if x == 0 {
        return 0xffff_ffff;
    }
    let idx = 63 - x.leading_zeros();
    if shiftamt {
        t.bits - 1 - idx
    } else {
        idx
    }
}

/// fns.b32: the bit position of the n-th set bit of `mask` from `base` (toward the MSB for a
/// positive offset, the LSB for a negative one); 0xffffffff if there is none.
#[inline]
pub fn fns(mask: u32, base: u32, offset: i32) -> u32 {
    let base = base as i64;
    if !(0..32).contains(&base) {
        // The ISA calls base > 31 undefined; treat it as "not found".
        return 0xffff_ffff;
    }
    if offset == 0 {
        return if (mask >> base) & 1 == 1 {
            base as u32
        } else {
            0xffff_ffff
        };
    }
    let inc: i64 = if offset > 0 { 1 } else { -1 };
    let mut count = offset.unsigned_abs() - 1;
    let mut pos = base;
    while (0..32).contains(&pos) {
        if (mask >> pos) & 1 == 1 {
            if count == 0 {
                return pos as u32;
            }
            count -= 1;
        }
        pos += inc;
    }
    0xffff_ffff
}

#[inline]
pub fn brev(t: IntTy, a: u64) -> u64 {
    (a.reverse_bits() >> (64 - t.bits)) & t.mask()
}

/// bfe: extract `len` bits at `pos` (both taken mod 256), sign-extended for signed types.
#[inline]
pub fn bfe(t: IntTy, a: u64, pos: u32, len: u32) -> u64 {
    let msb = t.bits - 1;
    let pos = pos & 0xff;
    let len = len & 0xff;
    let a = a & t.mask();
    let sbit = if !t.signed || len == 0 {
        0
    } else {
        (a >> (pos + len - 1).min(msb)) & 1
    };
    let mut d = 0u64;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb {
            (a >> (pos + i)) & 1
        } else {
            sbit
        };
        d |= bit << i;
    }
    d
}

/// bfi: insert the low `len` bits of `a` into `b` at `pos` (both mod 256).
#[inline]
pub fn bfi(t: IntTy, a: u64, b: u64, pos: u32, len: u32) -> u64 {
    let msb = t.bits - 1;
    let pos = pos & 0xff;
    let len = len & 0xff;
    let mut f = b & t.mask();
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1u64 << (pos + i))) | (((a >> i) & 1) << (pos + i));
        i += 1;
    }
    f
}

/// The mode of `prmt`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PrmtMode {
    Default,
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
}

impl PrmtMode {
    pub fn from_ptx(s: &str) -> Option<PrmtMode> {
        Some(match s.strip_prefix('.').unwrap_or(s) {
            "" => PrmtMode::Default,
            "f4e" => PrmtMode::F4e,
            "b4e" => PrmtMode::B4e,
            "rc8" => PrmtMode::Rc8,
            "ecl" => PrmtMode::Ecl,
            "ecr" => PrmtMode::Ecr,
            "rc16" => PrmtMode::Rc16,
            _ => return None,
        })
    }
}

/// prmt.b32{.mode} d, a, b, c: byte permute of the 8 bytes {b, a} (a = bytes 0..3).
#[inline]
pub fn prmt(mode: PrmtMode, a: u32, b: u32, c: u32) -> u32 {
    let src = (a as u64) | ((b as u64) << 32);
    let byte = |i: u32| ((src >> (8 * (i & 7))) & 0xff) as u32;
    // Result byte k (k = 0 is the least significant) taken from source byte sel[k].
    let sel: [u32; 4] = match mode {
        PrmtMode::Default => {
            let mut r = 0;
            for k in 0..4 {
                let s = (c >> (4 * k)) & 0xf;
                let mut v = byte(s & 7);
                if s & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                r |= v << (8 * k);
            }
            return r;
        }
        PrmtMode::F4e => {
            let n = c & 3;
            [n, n + 1, n + 2, n + 3]
        }
        PrmtMode::B4e => {
            let n = c & 3;
            // d.b0..b3 for n = 0: 0 7 6 5; n = 1: 1 0 7 6; n = 2: 2 1 0 7; n = 3: 3 2 1 0.
            [n, (n + 7) & 7, (n + 6) & 7, (n + 5) & 7]
        }
        PrmtMode::Rc8 => {
            let n = c & 3;
            [n, n, n, n]
        }
        PrmtMode::Ecl => {
            let n = c & 3;
            [n, n.max(1), n.max(2), 3]
        }
        PrmtMode::Ecr => {
            let n = c & 3;
            [0, 1.min(n), 2.min(n), n]
        }
        PrmtMode::Rc16 => {
            let n = (c & 1) * 2;
            [n, n + 1, n, n + 1]
        }
    };
    sel.iter()
        .enumerate()
        .fold(0, |r, (k, &s)| r | (byte(s) << (8 * k)))
}

/// shl: shift amounts >= the width give 0.
#[inline]
pub fn shl(t: IntTy, a: u64, n: u32) -> u64 {
    if n >= t.bits {
        0
    } else {
        (a << n) & t.mask()
    }
}

/// shr: logical for unsigned/bit types, arithmetic for signed; amounts >= width clamp.
#[inline]
pub fn shr(t: IntTy, a: u64, n: u32) -> u64 {
    let n = n.min(t.bits);
    if t.signed {
        t.wrap(t.val(a) >> n.min(127))
    } else if n >= t.bits {
        0
    } else {
        (a & t.mask()) >> n
    }
}

/// lop3.b32: bit i of d = bit (a_i*4 + b_i*2 + c_i) of the lookup table.
#[inline]
pub fn lop3(a: u32, b: u32, c: u32, lut: u8) -> u32 {
    let mut d = 0u32;
    for idx in 0..8u32 {
        if (lut >> idx) & 1 == 1 {
            let ma = if idx & 4 != 0 { a } else { !a };
            let mb = if idx & 2 != 0 { b } else { !b };
            let mc = if idx & 1 != 0 { c } else { !c };
            d |= ma & mb & mc;
        }
    }
    d
}

/// shf.l / shf.r (.wrap: amount mod 32, .clamp: amount min 32) of the 64-bit {b:a}.
#[inline]
pub fn shf(left: bool, clamp: bool, a: u32, b: u32, c: u32) -> u32 {
    let n = if clamp { c.min(32) } else { c & 31 };
    let v = ((b as u64) << 32) | a as u64;
    if left {
        ((v << n) >> 32) as u32
    } else {
        (v >> n) as u32
    }
}

/// dp4a.atype.btype: c + the dot product of the four bytes of a and b.
#[inline]
pub fn dp4a(a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let ext = |x: u32, i: u32, s: bool| {
        let v = (x >> (8 * i)) & 0xff;
        if s {
            v as u8 as i8 as i64
        } else {
            v as i64
        }
    };
    let mut acc = c as i32 as i64;
    for i in 0..4 {
        acc += ext(a, i, a_signed) * ext(b, i, b_signed);
    }
    acc as u32
}

/// dp2a.lo/.hi.atype.btype: c + a.h0 * b.byte(2k) + a.h1 * b.byte(2k+1), k = 0 (.lo) or 1.
#[inline]
pub fn dp2a(hi: bool, a_signed: bool, b_signed: bool, a: u32, b: u32, c: u32) -> u32 {
    let h = |i: u32| {
        let v = (a >> (16 * i)) & 0xffff;
        if a_signed {
            v as u16 as i16 as i64
        } else {
            v as i64
        }
    };
    let by = |i: u32| {
        let v = (b >> (8 * i)) & 0xff;
        if b_signed {
            v as u8 as i8 as i64
        } else {
            v as i64
        }
    };
    let k = if hi { 2 } else { 0 };
    let acc = c as i32 as i64 + h(0) * by(k) + h(1) * by(k + 1);
    acc as u32
}

/// szext.mode.type d, a, b: sign- or zero-extend the low b bits of a.
#[inline]
pub fn szext(signed: bool, clamp: bool, a: u32, b: u32) -> u32 {
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask: u32 = if too_large { 0 } else { !0u32 << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = if b1 == 0 || too_large || !signed {
        false
    } else {
        (a >> sign_pos) & 1 == 1
    };
    (a & !mask) | if sign_bit { mask } else { 0 }
}

/// bmsk.mode.b32 d, a, b: a mask of b bits starting at bit a.
#[inline]
pub fn bmsk(clamp: bool, a: u32, b: u32) -> u32 {
    let a1 = a & 0x1f;
    let mut mask0: u32 = !0u32 << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1: u32 = if sum >= 32 { 0 } else { !0u32 << sum };
    let mut pos_ovf = false;
    let mut width_ovf = false;
    if clamp {
        if a >= 32 {
            pos_ovf = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_ovf = true;
        }
    }
    if sum >= 32 || pos_ovf || width_ovf {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = !0;
    }
    mask0 & !mask1
}

/// cnot: 1 if a is zero, else 0.
#[inline]
pub fn cnot(t: IntTy, a: u64) -> u64 {
    ((a & t.mask()) == 0) as u64
}

/// Integer comparison of setp/set; lo/ls/hi/hs are unsigned, the others follow the type.
#[inline]
pub fn cmp(op: CmpOp, t: IntTy, a: u64, b: u64) -> bool {
    let (x, y) = (t.val(a), t.val(b));
    let (ux, uy) = (a & t.mask(), b & t.mask());
    match op {
        CmpOp::Eq | CmpOp::Equ => x == y,
        CmpOp::Ne | CmpOp::Neu => x != y,
        CmpOp::Lt | CmpOp::Ltu => x < y,
        CmpOp::Le | CmpOp::Leu => x <= y,
        CmpOp::Gt | CmpOp::Gtu => x > y,
        CmpOp::Ge | CmpOp::Geu => x >= y,
        CmpOp::Lo => ux < uy,
        CmpOp::Ls => ux <= uy,
        CmpOp::Hi => ux > uy,
        CmpOp::Hs => ux >= uy,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}

/// slct.dtype.s32 d, a, b, c: a if c >= 0, else b.
#[inline]
pub fn slct_s32(a: u64, b: u64, c: u32) -> u64 {
    if (c as i32) >= 0 {
        a
    } else {
        b
    }
}

/// slct.dtype.f32 d, a, b, c: a if c >= 0.0 (so -0.0 picks a; NaN picks b); `.ftz` flushes c.
#[inline]
pub fn slct_f32(a: u64, b: u64, c: u32, ftz: bool) -> u64 {
    let c = if ftz { super::float::ftz32(c) } else { c };
    if f32::from_bits(c) >= 0.0 {
        a
    } else {
        b
    }
}

/// `set` result for an integer destination: all ones (true) or 0; for .f32: 1.0f or 0.0f.
#[inline]
pub fn set_result(dst: ScalarType, p: bool) -> u64 {
    if dst == ScalarType::F32 {
        if p {
            0x3f80_0000
        } else {
            0
        }
    } else if p {
        IntTy {
            bits: dst.bits(),
            signed: false,
        }
        .mask()
    } else {
        0
    }
}

/// A decoded integer operation, for the engine to pre-decode once per instruction. Operands:
/// `a`, `b`, `c`, `d` as in the PTX syntax (`d` only for bfi's length); shift amounts,
/// positions and lengths are the low 32 bits of their operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntOp {
    Add,
    AddSat,
    Sub,
    SubSat,
    MulLo,
    MulHi,
    MulWide,
    MadLo,
    MadHi,
    MadHiSat,
    MadWide,
    Mul24 { hi: bool },
    Mad24 { hi: bool, sat: bool },
    Sad,
    Div,
    Rem,
    Abs,
    Neg,
    Min { relu: bool },
    Max { relu: bool },
    Popc,
    Clz,
    Bfind { shiftamt: bool },
    Brev,
    Bfe,
    Bfi,
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Not,
    Cnot,
}

/// Evaluates a decoded integer operation of type `t` (results masked to the width; `popc`,
/// `clz` and `bfind` return their u32 count; `mul.wide`/`mad.wide` return the 2n-bit value).
#[inline]
pub fn eval_int(op: IntOp, t: IntTy, a: u64, b: u64, c: u64, d: u64) -> u64 {
    match op {
        IntOp::Add => add(t, a, b),
        IntOp::AddSat => add_sat(t, a, b),
        IntOp::Sub => sub(t, a, b),
        IntOp::SubSat => sub_sat(t, a, b),
        IntOp::MulLo => mul_lo(t, a, b),
        IntOp::MulHi => mul_hi(t, a, b),
        IntOp::MulWide => mul_wide(t, a, b),
        IntOp::MadLo => mad_lo(t, a, b, c),
        IntOp::MadHi => mad_hi(t, a, b, c),
        IntOp::MadHiSat => mad_hi_sat(t, a, b, c),
        IntOp::MadWide => mad_wide(t, a, b, c),
        IntOp::Mul24 { hi } => mul24(t, a, b, hi),
        IntOp::Mad24 { hi, sat } => mad24(t, a, b, c, hi, sat),
        IntOp::Sad => sad(t, a, b, c),
        IntOp::Div => div(t, a, b),
        IntOp::Rem => rem(t, a, b),
        IntOp::Abs => abs(t, a),
        IntOp::Neg => neg(t, a),
        IntOp::Min { relu: r } => {
            let m = min(t, a, b);
            if r {
                relu(t, m)
            } else {
                m
            }
        }
        IntOp::Max { relu: r } => {
            let m = max(t, a, b);
            if r {
                relu(t, m)
            } else {
                m
            }
        }
        IntOp::Popc => popc(t, a) as u64,
        IntOp::Clz => clz(t, a) as u64,
        IntOp::Bfind { shiftamt } => bfind(t, a, shiftamt) as u64,
        IntOp::Brev => brev(t, a),
        IntOp::Bfe => bfe(t, a, b as u32, c as u32),
        IntOp::Bfi => bfi(t, a, b, c as u32, d as u32),
        IntOp::Shl => shl(t, a, b as u32),
        IntOp::Shr => shr(t, a, b as u32),
        IntOp::And => a & b & t.mask(),
        IntOp::Or => (a | b) & t.mask(),
        IntOp::Xor => (a ^ b) & t.mask(),
        IntOp::Not => !a & t.mask(),
        IntOp::Cnot => cnot(t, a),
    }
}
