//! Element types of buffers, and exact conversions between them and f64.
//!
//! The narrow float formats (f16, bf16, fp8) are converted by one generic minifloat codec with
//! round-to-nearest-even. We do not use `half` here: its `bf16::from_f64` truncates the low 32
//! bits of the f64 before rounding (no sticky bit), which is not correctly rounded, and it has
//! no fp8. The codec is tested against numpy and ml_dtypes (tests/data/).

use std::fmt;

/// A buffer element type, as spelled in launch specs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    F64,
    F32,
    F16,
    BF16,
    /// OCP FP8 E4M3 "fn": no infinities, NaN = S.1111.111, max 448 (ml_dtypes `float8_e4m3fn`).
    Fp8E4M3,
    /// OCP FP8 E5M2: IEEE-like with infinities (ml_dtypes `float8_e5m2`).
    Fp8E5M2,
    I8,
    U8,
    I16,
    U16,
    I32,
    U32,
    I64,
    U64,
}

/// Layout of a narrow binary float: exponent and mantissa widths, and how it spends the top
/// exponent code.
#[derive(Copy, Clone, Debug)]
struct Minifloat {
    exp_bits: u32,
    man_bits: u32,
    /// IEEE-like: top exponent code = inf / NaN. Otherwise ("fn" formats) only the all-ones
    /// pattern is NaN, the rest of the top binade is finite, and there is no infinity.
    ieee: bool,
}

const F16: Minifloat = Minifloat {
    exp_bits: 5,
    man_bits: 10,
    ieee: true,
};
const BF16: Minifloat = Minifloat {
    exp_bits: 8,
    man_bits: 7,
    ieee: true,
};
const E4M3: Minifloat = Minifloat {
    exp_bits: 4,
    man_bits: 3,
    ieee: false,
};
const E5M2: Minifloat = Minifloat {
    exp_bits: 5,
    man_bits: 2,
    ieee: true,
};

/// f64 → an IEEE-like binary format with `E` exponent and `M` mantissa bits (f16: 5, 10;
/// bf16: 8, 7), rounded to nearest even in one step, for finite `x`; `None` for infinities and
/// NaNs (the caller takes [`Minifloat::encode`], which this equals bit for bit elsewhere:
/// test `fast_ieee_narrowing_equals_the_codec`). Used by `encode_f64` and the fills, where the
/// general codec's branches cost more than generating the random number.
///
/// A normal result rebiases the f64 exponent field and rounds the 52-bit mantissa to `M`
/// bits with integer arithmetic; a carry out of the mantissa steps the exponent, so the
/// largest finite value rounds up to infinity exactly when it should. A subnormal result is
/// |x| scaled by 2^(bias - 1 + M) (exact, a power of two) rounded to an integer.
#[inline(always)]
pub(crate) fn ieee_narrow<const E: u32, const M: u32>(x: f64) -> Option<u64> {
    let b = x.to_bits();
    let sign = (b >> 63) << (E + M);
    let a = b & !(1u64 << 63);
    if a >= 0x7ff0_0000_0000_0000 {
        return None;
    }
    let bias = (1u64 << (E - 1)) - 1;
    let inf = ((1u64 << E) - 1) << M;
    if a < (1024 - bias) << 52 {
        // below the smallest normal 2^(1 - bias)
        let scale = f64::from_bits((1023 + bias - 1 + M as u64) << 52);
        return Some(sign | (f64::from_bits(a) * scale).round_ties_even() as u64);
    }
    if a >= (1024 + bias) << 52 {
        // 2^(bias + 1) and above: beyond the largest finite value plus half an ulp
        return Some(sign | inf);
    }
    let v = a - ((1023 - bias) << 52);
    let sh = 52 - M;
    let r = (v + ((1u64 << (sh - 1)) - 1) + ((v >> sh) & 1)) >> sh;
    Some(sign | r)
}

impl Minifloat {
    fn width(self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }

    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    fn nan(self) -> u64 {
        if self.ieee {
            // Quiet NaN: all-ones exponent, top mantissa bit.
            (((1u64 << self.exp_bits) - 1) << self.man_bits) | (1u64 << (self.man_bits - 1))
        } else {
            (1u64 << (self.exp_bits + self.man_bits)) - 1
        }
    }

    /// Round-to-nearest-even encode. Overflow gives infinity (IEEE-like formats) or NaN
    /// (fn formats, as ml_dtypes' `astype` does).
    fn encode(self, x: f64) -> u64 {
        let sign = if x.is_sign_negative() {
            1u64 << (self.exp_bits + self.man_bits)
        } else {
            0
        };
        if x.is_nan() {
            return self.nan();
        }
        let exp_max_code = (1i64 << self.exp_bits) - 1;
        let inf_or_nan = if self.ieee {
            sign | ((exp_max_code as u64) << self.man_bits)
        } else {
            sign | self.nan()
        };
        let a = x.abs();
        if a.is_infinite() {
            return inf_or_nan;
        }
        if a == 0.0 {
            return sign;
        }
        let emin = 1 - self.bias();
        let raw = a.to_bits();
        let exp_field = (raw >> 52) as i32;
        if exp_field == 0 {
            // f64 subnormals are far below half the smallest subnormal of every format here.
            return sign;
        }
        // a = m * 2^(e - 52) with the hidden bit in m; floor(log2(a)) = e.
        let e = exp_field - 1023;
        let m = (raw & ((1u64 << 52) - 1)) | (1u64 << 52);
        // Far above the largest finite value: avoid shifting by a negative amount.
        if e > self.bias() + 2 {
            return inf_or_nan;
        }
        let mut big_e = e.max(emin);
        // Round m * 2^(e - 52) to a multiple of the quantum 2^(big_e - man_bits): drop `shift`
        // low bits of m, to nearest, ties to even (integer arithmetic: exact, and no libm).
        let shift = ((big_e - self.man_bits as i32) - (e - 52)) as u32;
        let mut n = if shift >= 64 {
            0 // m < 2^53 <= half a quantum
        } else {
            let kept = m >> shift;
            let rem = m & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            if rem > half || (rem == half && kept & 1 == 1) {
                kept + 1
            } else {
                kept
            }
        };
        let hidden = 1u64 << self.man_bits;
        if n == 0 {
            return sign;
        }
        let exp_code: i64 = if n < hidden {
            0 // subnormal (big_e == emin)
        } else {
            if n >= hidden << 1 {
                n >>= 1;
                big_e += 1;
            }
            (big_e + self.bias()) as i64
        };
        let man = n & (hidden - 1);
        let overflow = if self.ieee {
            exp_code >= exp_max_code
        } else {
            exp_code > exp_max_code || (exp_code == exp_max_code && man == hidden - 1)
        };
        if overflow {
            return inf_or_nan;
        }
        sign | ((exp_code as u64) << self.man_bits) | man
    }

    fn decode(self, bits: u64) -> f64 {
        let sign = if bits >> (self.exp_bits + self.man_bits) & 1 == 1 {
            -1.0
        } else {
            1.0
        };
        let exp_code = ((bits >> self.man_bits) & ((1 << self.exp_bits) - 1)) as i32;
        let man = bits & ((1 << self.man_bits) - 1);
        let exp_max_code = (1i32 << self.exp_bits) - 1;
        if self.ieee && exp_code == exp_max_code {
            return if man == 0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            };
        }
        if !self.ieee && exp_code == exp_max_code && man == (1 << self.man_bits) - 1 {
            return f64::NAN;
        }
        let m = man as f64;
        if exp_code == 0 {
            sign * m * pow2(1 - self.bias() - self.man_bits as i32)
        } else {
            sign * (m + (1u64 << self.man_bits) as f64)
                * pow2(exp_code - self.bias() - self.man_bits as i32)
        }
    }
}

fn pow2(e: i32) -> f64 {
    // Exact for the exponents used here (|e| < 1000).
    f64::from_bits(((e + 1023) as u64) << 52)
}

impl DType {
    pub const ALL: [DType; 14] = [
        DType::F64,
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::Fp8E4M3,
        DType::Fp8E5M2,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
    ];

    /// The spelling used in launch specs.
    pub fn name(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::Fp8E4M3 => "fp8e4m3",
            DType::Fp8E5M2 => "fp8e5m2",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::I16 => "i16",
            DType::U16 => "u16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::U64 => "u64",
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            DType::F64 | DType::I64 | DType::U64 => 8,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::Fp8E4M3 | DType::Fp8E5M2 | DType::I8 | DType::U8 => 1,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F64 | DType::F32 | DType::F16 | DType::BF16 | DType::Fp8E4M3 | DType::Fp8E5M2
        )
    }

    pub fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    /// Smallest and largest value of an integer type (None for floats).
    pub fn int_range(self) -> Option<(i128, i128)> {
        if self.is_float() {
            return None;
        }
        let bits = self.size() as u32 * 8;
        Some(if self.is_signed_int() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        })
    }

    fn minifloat(self) -> Option<Minifloat> {
        match self {
            DType::F16 => Some(F16),
            DType::BF16 => Some(BF16),
            DType::Fp8E4M3 => Some(E4M3),
            DType::Fp8E5M2 => Some(E5M2),
            _ => None,
        }
    }

    /// Writes `v` rounded to this type (round to nearest even for floats; integers are
    /// truncated toward zero and wrapped modulo 2^bits, as numpy's `astype` does for in-range
    /// floats). `out` must be `self.size()` bytes; little-endian.
    pub fn encode_f64(self, v: f64, out: &mut [u8]) {
        if self.is_float() {
            match self {
                DType::F64 => out.copy_from_slice(&v.to_le_bytes()),
                DType::F32 => out.copy_from_slice(&(v as f32).to_le_bytes()),
                DType::F16 if v.is_finite() => {
                    let bits = ieee_narrow::<5, 10>(v).unwrap_or_default() as u16;
                    out.copy_from_slice(&bits.to_le_bytes());
                }
                DType::BF16 if v.is_finite() => {
                    let bits = ieee_narrow::<8, 7>(v).unwrap_or_default() as u16;
                    out.copy_from_slice(&bits.to_le_bytes());
                }
                _ => {
                    let mf = self.minifloat().expect("narrow float");
                    let bits = mf.encode(v);
                    match out {
                        [b] => *b = bits as u8,
                        _ => out.copy_from_slice(&(bits as u16).to_le_bytes()),
                    }
                }
            }
        } else {
            self.encode_int(v as i128, out);
        }
    }

    /// Writes an integer: wrapped modulo 2^bits for integer types, rounded for floats.
    pub fn encode_int(self, v: i128, out: &mut [u8]) {
        if self.is_float() {
            self.encode_f64(v as f64, out);
        } else {
            out.copy_from_slice(&v.to_le_bytes()[..self.size()]);
        }
    }

    /// Reads one little-endian element as f64 (exact for every type but i64/u64 beyond 2^53).
    pub fn decode_f64(self, bytes: &[u8]) -> f64 {
        let raw = match self.size() {
            1 => bytes[0] as u64,
            2 => u16::from_le_bytes([bytes[0], bytes[1]]) as u64,
            4 => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as u64,
            _ => u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
        };
        match self {
            DType::F64 => f64::from_bits(raw),
            DType::F32 => f32::from_bits(raw as u32) as f64,
            DType::F16 | DType::BF16 | DType::Fp8E4M3 | DType::Fp8E5M2 => {
                self.minifloat().expect("narrow float").decode(raw)
            }
            DType::I8 => raw as u8 as i8 as f64,
            DType::I16 => raw as u16 as i16 as f64,
            DType::I32 => raw as u32 as i32 as f64,
            DType::I64 => raw as i64 as f64,
            DType::U8 | DType::U16 | DType::U32 | DType::U64 => raw as f64,
        }
    }

    /// The bit width of a narrow float, for callers that need it.
    pub fn bits(self) -> u32 {
        self.minifloat()
            .map_or(self.size() as u32 * 8, |m| m.width())
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The list of dtype names, for error messages.
pub fn dtype_names() -> String {
    DType::ALL.map(|d| d.name()).join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(d: DType, v: f64) -> u64 {
        let mut b = [0u8; 8];
        d.encode_f64(v, &mut b[..d.size()]);
        u64::from_le_bytes(b)
    }

    /// The one-step IEEE narrowing equals the general codec on every f16/bf16 value, every
    /// midpoint between neighbours, one f64 ulp either side of each midpoint, the overflow
    /// boundary, subnormals and zeros, and a million seeded random f64s of all magnitudes.
    #[test]
    fn fast_ieee_narrowing_equals_the_codec() {
        fn check(mf: Minifloat, fast: fn(f64) -> Option<u64>, x: f64) {
            if let Some(got) = fast(x) {
                assert_eq!(got, mf.encode(x), "{x:e} ({:#x})", x.to_bits());
            } else {
                assert!(!x.is_finite(), "{x:e}");
            }
        }
        type Narrowing = fn(f64) -> Option<u64>;
        let cases: [(Minifloat, Narrowing); 2] =
            [(F16, ieee_narrow::<5, 10>), (BF16, ieee_narrow::<8, 7>)];
        for (mf, fast) in cases {
            let n = 1u64 << (mf.exp_bits + mf.man_bits);
            for bits in 0..n {
                let lo = mf.decode(bits);
                let hi = mf.decode(bits + 1);
                for x in [lo, -lo] {
                    check(mf, fast, x);
                }
                if lo.is_finite() && hi.is_finite() {
                    let mid = (lo + hi) / 2.0; // exact: both have few mantissa bits
                    for m in [
                        mid,
                        f64::from_bits(mid.to_bits() - 1),
                        f64::from_bits(mid.to_bits() + 1),
                    ] {
                        check(mf, fast, m);
                        check(mf, fast, -m);
                    }
                }
            }
            // the overflow boundary: the largest finite value plus half its ulp, and neighbours
            let inf_bits = ((1u64 << mf.exp_bits) - 1) << mf.man_bits;
            let max = mf.decode(inf_bits - 1);
            let edge = max + (max - mf.decode(inf_bits - 2)) / 2.0;
            for x in [
                edge,
                f64::from_bits(edge.to_bits() - 1),
                f64::from_bits(edge.to_bits() + 1),
            ] {
                check(mf, fast, x);
                check(mf, fast, -x);
            }
            for x in [
                0.0,
                -0.0,
                f64::MIN_POSITIVE,
                5e-324,
                f64::MAX,
                f64::INFINITY,
                f64::NAN,
            ] {
                check(mf, fast, x);
                check(mf, fast, -x);
            }
            let mut rng = crate::fill::SplitMix64::new(99);
            for _ in 0..1_000_000 {
                let r = rng.next();
                // random sign, mantissa and an exponent within +-40 binades of the format's range
                let e = 1023 - 60 + (r >> 52) % 120;
                let x = f64::from_bits((r & (1 << 63)) | (e << 52) | (r & ((1 << 52) - 1)));
                check(mf, fast, x);
            }
        }
    }

    #[test]
    fn every_narrow_pattern_round_trips() {
        for d in [DType::F16, DType::BF16, DType::Fp8E4M3, DType::Fp8E5M2] {
            for bits in 0..(1u64 << d.bits()) {
                let v = d.decode_f64(&bits.to_le_bytes());
                if v.is_nan() {
                    continue;
                }
                assert_eq!(enc(d, v), bits, "{d} {bits:#x} = {v}");
            }
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(enc(DType::F16, 1.0), 0x3C00);
        assert_eq!(enc(DType::BF16, 1.0), 0x3F80);
        assert_eq!(enc(DType::Fp8E4M3, 448.0), 0x7E);
        assert_eq!(enc(DType::Fp8E4M3, 1.0), 0x38);
        assert_eq!(enc(DType::Fp8E5M2, 57344.0), 0x7B);
        assert_eq!(enc(DType::Fp8E5M2, 1e9), 0x7C);
        // halfway between 1 and 1+2^-10 in f16 rounds to even (1.0)
        assert_eq!(enc(DType::F16, 1.0 + 2f64.powi(-11)), 0x3C00);
        // just above halfway rounds up: the sticky part beyond f32 precision matters
        assert_eq!(
            enc(DType::BF16, 1.0 + 2f64.powi(-8) + 2f64.powi(-40)),
            0x3F81
        );
        assert_eq!(enc(DType::U8, 300.0), 300 % 256);
        assert_eq!(enc(DType::I8, -1.0), 0xFF);
    }
}
