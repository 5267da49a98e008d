//! Correct rounding of an exactly known value `hi + lo` (two f64s, `|lo|` at most half an
//! f64 ulp of `hi`) to any binary format no wider than f64, in every IEEE direction.
//!
//! This is how f32/f16/bf16/tf32 results get directed rounding without a software float
//! library: the f32 operations are computed exactly, or with an exactly known error term, in
//! f64 (a product of two f32 is exact in f64; a sum's error comes from TwoSum; a quotient's or
//! square root's from an FMA residual), and only the *sign* of `lo` is ever needed to break the
//! cases where `hi` sits on a grid point or a midpoint of the target format.

use super::types::Rounding;

/// A binary floating-point format with IEEE-style gradual underflow.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// Stored mantissa bits.
    pub man: u32,
    /// Exponent of the smallest normal number.
    pub emin: i32,
    /// Exponent of the largest finite binade.
    pub emax: i32,
}

pub const F64: Format = Format {
    man: 52,
    emin: -1022,
    emax: 1023,
};
pub const F32: Format = Format {
    man: 23,
    emin: -126,
    emax: 127,
};
pub const F16: Format = Format {
    man: 10,
    emin: -14,
    emax: 15,
};
pub const BF16: Format = Format {
    man: 7,
    emin: -126,
    emax: 127,
};
/// tf32: f32's range with a 10-bit mantissa (stored in f32 bits with the low 13 bits zero).
pub const TF32: Format = Format {
    man: 10,
    emin: -126,
    emax: 127,
};

/// 2^e as an f64, for e in [-1074, 1023].
#[inline]
pub fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// floor(log2(x)) of a finite positive f64 (subnormals included).
#[inline]
pub fn ilogb(x: f64) -> i32 {
    let bits = x.to_bits();
    let be = ((bits >> 52) & 0x7ff) as i32;
    if be != 0 {
        be - 1023
    } else {
        let m = bits & ((1u64 << 52) - 1);
        -1074 + (63 - m.leading_zeros() as i32)
    }
}

impl Format {
    /// Largest finite value.
    #[inline]
    pub fn max(self) -> f64 {
        (2.0 - pow2(-(self.man as i32))) * pow2(self.emax)
    }

    /// Smallest normal value.
    #[inline]
    pub fn min_normal(self) -> f64 {
        pow2(self.emin)
    }

    /// Flushes a value of this format that is subnormal in it to a zero of the same sign.
    #[inline]
    pub fn flush(self, x: f64) -> f64 {
        if x != 0.0 && x.abs() < self.min_normal() {
            0.0f64.copysign(x)
        } else {
            x
        }
    }
}

/// Direction to take for a magnitude: `None` = to nearest.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Dir {
    NearestEven,
    NearestAway,
    Zero,
    Away,
}

#[inline]
fn dir(mode: Rounding, neg: bool) -> Dir {
    match mode.float_mode() {
        Rounding::Rz => Dir::Zero,
        Rounding::Rm => {
            if neg {
                Dir::Away
            } else {
                Dir::Zero
            }
        }
        Rounding::Rp => {
            if neg {
                Dir::Zero
            } else {
                Dir::Away
            }
        }
        Rounding::Rna => Dir::NearestAway,
        _ => Dir::NearestEven,
    }
}

/// Rounds the exact value `hi + lo` to `fmt` with `mode` (`Rs` is not handled here and rounds
/// to nearest). Returns the result as an f64 that is exactly representable in `fmt`, or ±inf
/// on overflow. NaN and infinite `hi` are returned unchanged; a zero `hi` is returned as is.
#[inline]
pub fn round_to(fmt: Format, hi: f64, lo: f64, mode: Rounding) -> f64 {
    if hi == 0.0 || !hi.is_finite() {
        return hi;
    }
    let neg = hi < 0.0;
    let mag = hi.abs();
    // The tail relative to the magnitude: positive means the true magnitude is larger.
    let l = if neg { -lo } else { lo };
    let d = dir(mode, neg);
    let max = fmt.max();
    let r = if mag > max {
        let half = pow2(fmt.emax - fmt.man as i32 - 1);
        match d {
            Dir::Zero => max,
            Dir::Away => f64::INFINITY,
            _ => {
                let thr = max + half;
                if mag > thr || (mag == thr && l >= 0.0) {
                    f64::INFINITY
                } else {
                    max
                }
            }
        }
    } else {
        let qe = ilogb(mag).max(fmt.emin) - fmt.man as i32;
        let q = pow2(qe);
        // Scaling by a power of two is exact; multiplying by 2^-qe avoids a division.
        let t = if -qe <= 1023 {
            (mag * pow2(-qe)).floor() * q
        } else {
            (mag / q).floor() * q
        };
        let d1 = mag - t;
        if d1 == 0.0 && l == 0.0 {
            t
        } else if d1 == 0.0 && l < 0.0 {
            // Just below the grid point t (t > 0 here).
            match d {
                Dir::Zero => {
                    let below = if t > fmt.min_normal() && t == pow2(ilogb(t)) {
                        q * 0.5
                    } else {
                        q
                    };
                    t - below
                }
                _ => t,
            }
        } else {
            let x = d1 - q * 0.5;
            let c = if x != 0.0 { x } else { l };
            let up = t + q;
            let r = match d {
                Dir::Zero => t,
                Dir::Away => up,
                Dir::NearestAway => {
                    if c < 0.0 {
                        t
                    } else {
                        up
                    }
                }
                Dir::NearestEven => {
                    if c < 0.0 {
                        t
                    } else if c > 0.0 {
                        up
                    } else if ((t / q) as u64) & 1 == 0 {
                        t
                    } else {
                        up
                    }
                }
            };
            if r > max {
                f64::INFINITY
            } else {
                r
            }
        }
    };
    if neg {
        -r
    } else {
        r
    }
}

/// TwoSum: `s + e == a + b` exactly, `s = RN(a + b)` (no overflow assumed).
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Fused multiply-add in f64, on the hardware instruction where the CPU has one.
#[inline]
pub fn fma64(a: f64, b: f64, c: f64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the feature was detected at run time.
            return unsafe { fma64_hw(a, b, c) };
        }
    }
    a.mul_add(b, c)
}

/// Fused multiply-add in f32, on the hardware instruction where the CPU has one.
#[inline]
pub fn fma32(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the feature was detected at run time.
            return unsafe { fma32_hw(a, b, c) };
        }
    }
    a.mul_add(b, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn fma64_hw(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn fma32_hw(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// Encodes a value exactly representable in `fmt` (or ±inf) as that format's bits, for the
/// IEEE-like formats of width `1 + exp_bits + man`.
#[inline]
pub fn encode(fmt: Format, x: f64) -> u64 {
    let bias = (1 - fmt.emin) as u64;
    let exp_bits = 64 - (2 * fmt.emax as u64 + 1).leading_zeros() as u64; // width of exponent field
    let sign = if x.is_sign_negative() {
        1u64 << (exp_bits + fmt.man as u64)
    } else {
        0
    };
    let m = x.abs();
    if m == 0.0 {
        return sign;
    }
    if m.is_infinite() {
        return sign | (((1u64 << exp_bits) - 1) << fmt.man);
    }
    let e = ilogb(m);
    if e < fmt.emin {
        let q = pow2(fmt.emin - fmt.man as i32);
        sign | (m / q) as u64
    } else {
        let frac = m.to_bits() & ((1u64 << 52) - 1);
        sign | (((e as i64 + bias as i64) as u64) << fmt.man) | (frac >> (52 - fmt.man))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_matches_native_f32_and_f16() {
        for &x in &[
            1.0f32,
            -2.5,
            1e-40,
            f32::MAX,
            f32::MIN_POSITIVE,
            -0.0,
            f32::INFINITY,
        ] {
            assert_eq!(encode(F32, x as f64) as u32, x.to_bits(), "{x}");
        }
        for bits in 0u16..0x7c00 {
            let h = half::f16::from_bits(bits);
            assert_eq!(encode(F16, h.to_f64()) as u16, bits);
        }
    }

    #[test]
    fn round_to_nearest_matches_native_cast() {
        // f64 -> f32 conversion by the CPU is correctly rounded (RN).
        let mut s = 0x1234_5678_9abc_def0u64;
        for _ in 0..200_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = f64::from_bits(s);
            if !x.is_finite() {
                continue;
            }
            let r = round_to(F32, x, 0.0, Rounding::Rn);
            assert_eq!((r as f32).to_bits(), (x as f32).to_bits(), "{x:e}");
        }
    }
}
