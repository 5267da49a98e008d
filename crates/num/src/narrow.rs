//! Narrow floating-point formats of Blackwell's tensor cores and PTX `cvt`:
//! e4m3, e5m2 (8-bit), e2m3, e3m2 (6-bit), e2m1 (4-bit) and the block-scale formats
//! ue8m0 and ue4m3.
//!
//! Every code decodes to an `f32` exactly (all of these values are representable in f32,
//! including ue8m0's 2^-127, which is an f32 subnormal). Decoding is a table lookup: the
//! tables are built at compile time, so operand conversion in the MMA path costs one load.
//!
//! Encoding follows PTX ISA 9.1 §9.7.9.21 (cvt): `.rn` rounding (round to nearest, ties to
//! even) and `.satfinite`, which the ISA makes mandatory for every f8/f6/f4 destination:
//! - |x| > MAX_NORM (including ±Inf) gives sign-preserved MAX_NORM;
//! - NaN gives the format's canonical NaN where it has one (e4m3, e5m2: 0x7F).
//! - e2m3, e3m2, e2m1 have no NaN. **UNCONFIRMED** what `cvt.rn.satfinite.e2m1x2.f32` makes
//!   of a NaN input: the `.satfinite` text we could read names only formats that have NaN.
//!   We produce +MAX_NORM (a NaN is "not finite", satfinite clamps non-finite values to
//!   MAX_NORM, and a NaN has no sign worth keeping). Settle with a hardware run of cvt on NaN.
//! - `.relu` clamps negative results (and -0) to +0; NaN stays canonical NaN.
//!
//! ue8m0 (`cvt.frnd3{.satfinite}.ue8m0x2.f32`) rounds with `.rz` or `.rp`, not `.rn`.
//!
//! Packed forms follow the `cvt` semantics block: in `e2m1x2` the first source operand `a`
//! sits in the upper nibble; in `e2m3x2`/`e3m2x2` each 6-bit value sits in the low 6 bits of
//! its byte with the two top bits zero; `x4` forms put `a` in the most significant slot.
//! Dense bit streams (16 × 6-bit in 12 bytes, 16 × 4-bit in 8 bytes) are the source units of
//! the `.b6x16_p32` / `.b4x16_p64` formats (PTX ISA §5.5.1.1.1, §9.7.16.9.1).

/// A narrow number format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NarrowFormat {
    /// 1 sign, 4 exponent (bias 7), 3 mantissa; no infinity; S.1111.111 is NaN. Max 448.
    E4m3,
    /// 1 sign, 5 exponent (bias 15), 2 mantissa; IEEE-style infinities and NaNs. Max 57344.
    E5m2,
    /// 1 sign, 2 exponent (bias 1), 3 mantissa; no Inf/NaN. Max 7.5. 6 bits.
    E2m3,
    /// 1 sign, 3 exponent (bias 3), 2 mantissa; no Inf/NaN. Max 28. 6 bits.
    E3m2,
    /// 1 sign, 2 exponent (bias 1), 1 mantissa; no Inf/NaN. Max 6. 4 bits.
    E2m1,
    /// Unsigned 8-bit exponent: 2^(code-127); 0xFF is NaN. No zero.
    Ue8m0,
    /// Unsigned e4m3 (7 bits used; bit 7 ignored): 4 exponent (bias 7), 3 mantissa; 0x7F NaN.
    Ue4m3,
}

/// Rounding of the ue8m0 conversion (`cvt.frnd3`): toward zero or toward +infinity.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ue8m0Rounding {
    Rz,
    Rp,
}

/// Bit-level description of a signed (or unsigned) binary minifloat.
#[derive(Copy, Clone)]
struct Spec {
    exp_bits: u32,
    man_bits: u32,
    bias: i32,
    signed: bool,
    /// Largest finite magnitude code (without sign).
    max_code: u8,
    /// Canonical NaN code, if the format has NaN.
    nan: Option<u8>,
    /// Codes (without sign) whose exponent field is all ones are Inf (mantissa 0) / NaN.
    ieee_specials: bool,
}

const E4M3: Spec = Spec {
    exp_bits: 4,
    man_bits: 3,
    bias: 7,
    signed: true,
    max_code: 0x7E,
    nan: Some(0x7F),
    ieee_specials: false,
};
const E5M2: Spec = Spec {
    exp_bits: 5,
    man_bits: 2,
    bias: 15,
    signed: true,
    max_code: 0x7B,
    nan: Some(0x7F),
    ieee_specials: true,
};
const E2M3: Spec = Spec {
    exp_bits: 2,
    man_bits: 3,
    bias: 1,
    signed: true,
    max_code: 0x1F,
    nan: None,
    ieee_specials: false,
};
const E3M2: Spec = Spec {
    exp_bits: 3,
    man_bits: 2,
    bias: 3,
    signed: true,
    max_code: 0x1F,
    nan: None,
    ieee_specials: false,
};
const E2M1: Spec = Spec {
    exp_bits: 2,
    man_bits: 1,
    bias: 1,
    signed: true,
    max_code: 0x7,
    nan: None,
    ieee_specials: false,
};
const UE4M3: Spec = Spec {
    exp_bits: 4,
    man_bits: 3,
    bias: 7,
    signed: false,
    max_code: 0x7E,
    nan: Some(0x7F),
    ieee_specials: false,
};

impl NarrowFormat {
    /// Width of one element in bits.
    pub const fn bits(self) -> u32 {
        match self {
            NarrowFormat::E4m3 | NarrowFormat::E5m2 | NarrowFormat::Ue8m0 | NarrowFormat::Ue4m3 => {
                8
            }
            NarrowFormat::E2m3 | NarrowFormat::E3m2 => 6,
            NarrowFormat::E2m1 => 4,
        }
    }

    /// Largest finite value.
    pub fn max_finite(self) -> f32 {
        match self {
            NarrowFormat::E4m3 | NarrowFormat::Ue4m3 => 448.0,
            NarrowFormat::E5m2 => 57344.0,
            NarrowFormat::E2m3 => 7.5,
            NarrowFormat::E3m2 => 28.0,
            NarrowFormat::E2m1 => 6.0,
            NarrowFormat::Ue8m0 => f32::from_bits(0x7F00_0000), // 2^127
        }
    }

    /// Canonical NaN code, for formats that have NaN.
    pub const fn nan_code(self) -> Option<u8> {
        match self {
            NarrowFormat::E4m3 | NarrowFormat::E5m2 | NarrowFormat::Ue4m3 => Some(0x7F),
            NarrowFormat::Ue8m0 => Some(0xFF),
            _ => None,
        }
    }

    /// Decodes the low `bits()` bits of `code` (higher bits are ignored) to f32, exactly.
    #[inline]
    pub fn decode(self, code: u8) -> f32 {
        self.table()[code as usize]
    }

    /// The 256-entry decode table of this format (indexed by the whole byte; bits above the
    /// element width are ignored, so a padded 8-bit container decodes directly).
    #[inline]
    pub fn table(self) -> &'static [f32; 256] {
        match self {
            NarrowFormat::E4m3 => &E4M3_TABLE,
            NarrowFormat::E5m2 => &E5M2_TABLE,
            NarrowFormat::E2m3 => &E2M3_TABLE,
            NarrowFormat::E3m2 => &E3M2_TABLE,
            NarrowFormat::E2m1 => &E2M1_TABLE,
            NarrowFormat::Ue8m0 => &UE8M0_TABLE,
            NarrowFormat::Ue4m3 => &UE4M3_TABLE,
        }
    }

    /// `cvt.rn.satfinite{.relu}` of an f32 to this format. For ue8m0 this rounds toward
    /// +infinity (`.rp`), the mode scale-factor computations use; call [`encode_ue8m0`] to
    /// choose. For ue4m3 (no PTX cvt exists) negative inputs clamp to 0.
    pub fn encode_satfinite(self, x: f32, relu: bool) -> u8 {
        match self {
            NarrowFormat::E4m3 => encode_spec(&E4M3, x, relu),
            NarrowFormat::E5m2 => encode_spec(&E5M2, x, relu),
            NarrowFormat::E2m3 => encode_spec(&E2M3, x, relu),
            NarrowFormat::E3m2 => encode_spec(&E3M2, x, relu),
            NarrowFormat::E2m1 => encode_spec(&E2M1, x, relu),
            NarrowFormat::Ue4m3 => encode_spec(&UE4M3, x, true),
            NarrowFormat::Ue8m0 => encode_ue8m0(x, Ue8m0Rounding::Rp, true),
        }
    }
}

/// Exact f32 value of a minifloat code, built bit by bit so it is usable in const context.
const fn decode_spec(s: &Spec, code: u8) -> f32 {
    let width = s.exp_bits + s.man_bits + if s.signed { 1 } else { 0 };
    let code = if width >= 8 {
        code
    } else {
        code & ((1u8 << width) - 1)
    };
    let mag_bits = s.exp_bits + s.man_bits;
    let mag = (code as u32) & ((1u32 << mag_bits) - 1);
    let negative = s.signed && (code as u32 >> mag_bits) & 1 == 1;
    let sign = if negative { 0x8000_0000u32 } else { 0 };
    let e = mag >> s.man_bits;
    let m = mag & ((1u32 << s.man_bits) - 1);
    let e_max = (1u32 << s.exp_bits) - 1;
    if let Some(nan) = s.nan {
        if !s.ieee_specials && mag == nan as u32 {
            return f32::from_bits(0x7FC0_0000 | sign);
        }
    }
    if s.ieee_specials && e == e_max {
        return f32::from_bits(if m == 0 { 0x7F80_0000 } else { 0x7FC0_0000 } | sign);
    }
    if e == 0 {
        if m == 0 {
            return f32::from_bits(sign);
        }
        // Subnormal: m * 2^(1 - bias - man_bits); normalise around m's top bit p.
        let p = 31 - m.leading_zeros();
        let exp = p as i32 + 1 - s.bias - s.man_bits as i32 + 127;
        let frac = (m - (1 << p)) << (23 - p);
        return f32::from_bits(sign | ((exp as u32) << 23) | frac);
    }
    let exp = e as i32 - s.bias + 127;
    f32::from_bits(sign | ((exp as u32) << 23) | (m << (23 - s.man_bits)))
}

const fn build_table(s: &Spec) -> [f32; 256] {
    let mut t = [0f32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = decode_spec(s, i as u8);
        i += 1;
    }
    t
}

const fn build_ue8m0_table() -> [f32; 256] {
    let mut t = [0f32; 256];
    let mut i = 0;
    while i < 255 {
        // 2^(i-127): i = 0 is the f32 subnormal 2^-127 (bit 22 of the fraction).
        t[i] = if i == 0 {
            f32::from_bits(1 << 22)
        } else {
            f32::from_bits((i as u32) << 23)
        };
        i += 1;
    }
    t[255] = f32::from_bits(0x7FC0_0000);
    t
}

static E4M3_TABLE: [f32; 256] = build_table(&E4M3);
static E5M2_TABLE: [f32; 256] = build_table(&E5M2);
static E2M3_TABLE: [f32; 256] = build_table(&E2M3);
static E3M2_TABLE: [f32; 256] = build_table(&E3M2);
static E2M1_TABLE: [f32; 256] = build_table(&E2M1);
static UE4M3_TABLE: [f32; 256] = build_table(&UE4M3);
static UE8M0_TABLE: [f32; 256] = build_ue8m0_table();

/// Round-to-nearest-even with satfinite saturation, computed in f64 (every f32 is exact in
/// f64 and scaling by a power of two is exact, so the only rounding is `round_ties_even`).
fn encode_spec(s: &Spec, x: f32, relu: bool) -> u8 {
    let sign_shift = s.exp_bits + s.man_bits;
    if x.is_nan() {
        // No NaN in the format: +MAX_NORM (see the module notes: UNCONFIRMED).
        return s.nan.unwrap_or(s.max_code);
    }
    let negative = x.is_sign_negative();
    if relu && negative {
        return 0;
    }
    let sign = if negative && s.signed {
        1u8 << sign_shift
    } else {
        0
    };
    if !s.signed && negative {
        return 0;
    }
    let a = (x as f64).abs();
    if a == 0.0 {
        return sign;
    }
    let max = decode_spec(s, s.max_code) as f64;
    if a > max {
        return sign | s.max_code; // also ±Inf
    }
    let emin = 1 - s.bias;
    let e = (((a.to_bits() >> 52) & 0x7FF) as i32 - 1023).max(emin);
    let q = e - s.man_bits as i32;
    let r = (a * pow2(-q)).round_ties_even();
    let value = r * pow2(q);
    if value > max {
        return sign | s.max_code;
    }
    // Code of magnitude = ((e - emin) << man_bits) + r: this holds for subnormals (e = emin,
    // r <= 2^man_bits) and normals alike, and a carry of r into the next binade lands on the
    // right exponent field with a zero mantissa.
    let mag = (((e - emin) as u32) << s.man_bits) + r as u32;
    sign | mag as u8
}

fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// `cvt.{rz,rp}{.satfinite}.ue8m0x2.f32` for one value.
///
/// The sign is ignored (ue8m0 has none; CUTLASS's scale-factor code feeds magnitudes).
/// **UNCONFIRMED** what hardware does with negative inputs. Zero gives code 0 (2^-127, the
/// smallest value: ue8m0 has no zero). NaN gives 0xFF. Values above 2^127 (and +Inf) give
/// 0xFE with `.satfinite` and 0xFF (NaN) without.
pub fn encode_ue8m0(x: f32, rounding: Ue8m0Rounding, satfinite: bool) -> u8 {
    if x.is_nan() {
        return 0xFF;
    }
    let bits = x.to_bits() & 0x7FFF_FFFF;
    let exp = bits >> 23;
    let frac = bits & 0x7F_FFFF;
    let overflow = if satfinite { 0xFE } else { 0xFF };
    if exp == 0xFF {
        return overflow;
    }
    let code = if exp == 0 {
        // Subnormal or zero: value = frac * 2^-149; 2^-127 is frac = 1 << 22.
        match rounding {
            Ue8m0Rounding::Rz => 0,
            Ue8m0Rounding::Rp => u32::from(frac > 1 << 22),
        }
    } else {
        match rounding {
            Ue8m0Rounding::Rz => exp,
            Ue8m0Rounding::Rp => exp + u32::from(frac != 0),
        }
    };
    if code >= 0xFF {
        overflow
    } else {
        code as u8
    }
}

/// `cvt.rn.bf16x2.ue8m0x2` for one value: the bf16 bits of 2^(c-127). Exact for every code:
/// c = 0 is the bf16 subnormal 2^-127; 0xFF (NaN) gives the canonical bf16 NaN 0x7FC0
/// (**UNCONFIRMED** which NaN pattern hardware writes).
pub fn ue8m0_to_bf16_bits(c: u8) -> u16 {
    match c {
        0 => 0x0040,
        0xFF => 0x7FC0,
        _ => u16::from(c) << 7,
    }
}

/// `e2m1x2`: `a` in bits 7..4, `b` in bits 3..0 (cvt semantics).
pub fn pack_e2m1x2(a: u8, b: u8) -> u8 {
    ((a & 0xF) << 4) | (b & 0xF)
}

/// Inverse of [`pack_e2m1x2`]: `(a, b)` = (upper nibble, lower nibble).
pub fn unpack_e2m1x2(packed: u8) -> (u8, u8) {
    (packed >> 4, packed & 0xF)
}

/// `e2m3x2` / `e3m2x2`: `a` in bits 13..8, `b` in bits 5..0; bits 15..14 and 7..6 zero.
pub fn pack_f6x2(a: u8, b: u8) -> u16 {
    (u16::from(a & 0x3F) << 8) | u16::from(b & 0x3F)
}

/// `e4m3x4` / `e5m2x4` (and padded `e2m3x4`/`e3m2x4` after masking): `a` in bits 31..24.
pub fn pack_x4(a: u8, b: u8, e: u8, f: u8) -> u32 {
    u32::from_be_bytes([a, b, e, f])
}

/// Unpacks 16 dense 6-bit elements from 12 bytes: element `i` is bits `6i..6i+5` of the
/// little-endian 96-bit number (**UNCONFIRMED** element order; the ISA shows it only as a
/// figure — this is the natural reading, element 0 in the least significant bits).
pub fn unpack_b6x16(src: &[u8; 12]) -> [u8; 16] {
    let lo = u64::from_le_bytes([
        src[0], src[1], src[2], src[3], src[4], src[5], src[6], src[7],
    ]);
    let hi = u32::from_le_bytes([src[8], src[9], src[10], src[11]]);
    let all = u128::from(lo) | (u128::from(hi) << 64);
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = ((all >> (6 * i)) & 0x3F) as u8;
    }
    out
}

/// Inverse of [`unpack_b6x16`] (only the low 6 bits of each element are kept).
pub fn pack_b6x16(elems: &[u8; 16]) -> [u8; 12] {
    let mut all = 0u128;
    for (i, &e) in elems.iter().enumerate() {
        all |= u128::from(e & 0x3F) << (6 * i);
    }
    let bytes = all.to_le_bytes();
    let mut out = [0u8; 12];
    out.copy_from_slice(&bytes[..12]);
    out
}

/// Unpacks 16 dense 4-bit elements from 8 bytes: element `2j` is the low nibble of byte `j`
/// (same natural reading as [`unpack_b6x16`]; UNCONFIRMED).
pub fn unpack_b4x16(src: &[u8; 8]) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (j, &b) in src.iter().enumerate() {
        out[2 * j] = b & 0xF;
        out[2 * j + 1] = b >> 4;
    }
    out
}

/// Inverse of [`unpack_b4x16`].
pub fn pack_b4x16(elems: &[u8; 16]) -> [u8; 8] {
    let mut out = [0u8; 8];
    for (j, o) in out.iter_mut().enumerate() {
        *o = (elems[2 * j] & 0xF) | ((elems[2 * j + 1] & 0xF) << 4);
    }
    out
}

/// Shorthand decoders for callers that know the format statically.
pub fn decode_e4m3(c: u8) -> f32 {
    E4M3_TABLE[c as usize]
}
pub fn decode_e5m2(c: u8) -> f32 {
    E5M2_TABLE[c as usize]
}
pub fn decode_e2m3(c: u8) -> f32 {
    E2M3_TABLE[c as usize]
}
pub fn decode_e3m2(c: u8) -> f32 {
    E3M2_TABLE[c as usize]
}
pub fn decode_e2m1(c: u8) -> f32 {
    E2M1_TABLE[c as usize]
}
pub fn decode_ue8m0(c: u8) -> f32 {
    UE8M0_TABLE[c as usize]
}
pub fn decode_ue4m3(c: u8) -> f32 {
    UE4M3_TABLE[c as usize]
}
