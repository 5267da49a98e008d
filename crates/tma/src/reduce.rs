//! Element arithmetic of `cp.reduce.async.bulk.tensor` (PTX ISA 9.1 §9.7.9.27.1.3) and of the
//! non-tensor `cp.reduce.async.bulk` (§9.7.9.25.4.2), whose instruction names the type.
//!
//! The element type of a tensor reduction comes from the tensor map. The legal (operation,
//! type) pairs started from the `.global` table of `cp.reduce.async.bulk` (the tensor page has
//! no table of its own) and were then settled on an H100 (`tests/corpus/tma_h100`, cases
//! `red_*`): every pair below ran, and every pair outside it that was tried faulted with an
//! illegal instruction (add.s64, add.u16, min.f32, max.f64, inc.s32, dec.u64, and.f32, and
//! and/or/xor on s64 maps although the non-tensor `.b64` form runs), except add on a tf32 map,
//! which runs as an f32 add (kept in the table).
//!
//! | op | types |
//! |---|---|
//! | add | u32, s32, u64, f32, f32.ftz, tf32, f64, f16, bf16 |
//! | min, max | u32, s32, u64, s64, f16, bf16 |
//! | inc, dec | u32 |
//! | and, or, xor | u32, s32, u64 (the non-tensor `.b32`/`.b64` map to u32/u64) |
//!
//! Floating-point arithmetic as recorded on the H100 (where it departs from the ISA text):
//! - adds round to nearest even and keep subnormal inputs and results, f32 included (the ISA's
//!   note that the f32 add flushes them does not hold on the H100, neither for f32 maps nor
//!   for the non-tensor `.add.f32`); on an f32.ftz map the add flushes subnormal inputs and
//!   results to sign-preserving zero; a tf32 map adds as f32 (no rounding to tf32);
//! - an f16, bf16 or f32 add whose result is NaN gives the canonical NaN (`0x7FFF`,
//!   `0x7FFFFFFF`), whatever the input payloads;
//! - an f64 add propagates a NaN operand unchanged, signalling ones too: the shared-memory
//!   source's if it is a NaN, else the destination's;
//! - min/max: a NaN operand yields the other operand, two NaNs the canonical NaN; −0 < +0.

use half::{bf16, f16};
use tmemu_spec::tensormap::TmElemType;

use crate::TmaError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
}

impl ReduceOp {
    pub const ALL: [ReduceOp; 8] = [
        ReduceOp::Add,
        ReduceOp::Min,
        ReduceOp::Max,
        ReduceOp::Inc,
        ReduceOp::Dec,
        ReduceOp::And,
        ReduceOp::Or,
        ReduceOp::Xor,
    ];

    /// The PTX qualifier without its dot.
    pub fn name(self) -> &'static str {
        match self {
            ReduceOp::Add => "add",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::Inc => "inc",
            ReduceOp::Dec => "dec",
            ReduceOp::And => "and",
            ReduceOp::Or => "or",
            ReduceOp::Xor => "xor",
        }
    }

    pub fn from_name(name: &str) -> Option<ReduceOp> {
        Self::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the ISA defines this reduction on elements of type `ty` (TM0125 otherwise).
    pub fn check(self, ty: TmElemType) -> Result<(), TmaError> {
        use TmElemType as T;
        let ok = match self {
            ReduceOp::Add => matches!(
                ty,
                T::U32 | T::S32 | T::U64 | T::F32 | T::F32Ftz | T::TF32 | T::F64 | T::F16 | T::BF16
            ),
            ReduceOp::Min | ReduceOp::Max => {
                matches!(ty, T::U32 | T::S32 | T::U64 | T::S64 | T::F16 | T::BF16)
            }
            ReduceOp::Inc | ReduceOp::Dec => ty == T::U32,
            // s64 maps fault on the H100 (recorded), u64 ones run.
            ReduceOp::And | ReduceOp::Or | ReduceOp::Xor => matches!(ty, T::U32 | T::S32 | T::U64),
        };
        if ok {
            Ok(())
        } else {
            Err(TmaError::ReduceType {
                op: self.name(),
                elem: ty.name(),
            })
        }
    }

    /// `dst[i] = dst[i] op src[i]` element-wise over little-endian elements of type `ty`.
    /// `check` must have accepted the pair; lengths are equal multiples of the element size.
    pub fn apply(self, ty: TmElemType, dst: &mut [u8], src: &[u8]) {
        use TmElemType as T;
        debug_assert_eq!(dst.len(), src.len());
        match ty {
            T::U32 => each::<4>(dst, src, |d, s| {
                let (d, s) = (u32::from_le_bytes(d), u32::from_le_bytes(s));
                (self.int(d as u64, s as u64, false, 32) as u32).to_le_bytes()
            }),
            T::S32 => each::<4>(dst, src, |d, s| {
                let (d, s) = (i32::from_le_bytes(d), i32::from_le_bytes(s));
                (self.int(d as i64 as u64, s as i64 as u64, true, 32) as u32).to_le_bytes()
            }),
            T::U64 | T::S64 => each::<8>(dst, src, |d, s| {
                let (d, s) = (u64::from_le_bytes(d), u64::from_le_bytes(s));
                self.int(d, s, ty == T::S64, 64).to_le_bytes()
            }),
            // Only add is defined on these. f32 and tf32 maps keep subnormals, f32.ftz maps
            // flush subnormal inputs and results to sign-preserving zero (recorded on the H100).
            T::F32 | T::F32Ftz | T::TF32 => each::<4>(dst, src, |d, s| {
                let ftz = |x: f32| {
                    if ty == T::F32Ftz && x.is_subnormal() {
                        0.0f32.copysign(x)
                    } else {
                        x
                    }
                };
                let r = ftz(ftz(f32::from_le_bytes(d)) + ftz(f32::from_le_bytes(s)));
                if r.is_nan() {
                    CANONICAL_NAN_F32.to_le_bytes()
                } else {
                    r.to_le_bytes()
                }
            }),
            T::F64 => each::<8>(dst, src, |d, s| {
                let (dv, sv) = (f64::from_le_bytes(d), f64::from_le_bytes(s));
                // NaN operands propagate bit for bit, the source's first (recorded).
                if sv.is_nan() {
                    s
                } else if dv.is_nan() {
                    d
                } else {
                    let r = dv + sv;
                    // inf + -inf: not recorded; PTX's canonical f64 NaN (DERIVED).
                    if r.is_nan() {
                        CANONICAL_NAN_F64.to_le_bytes()
                    } else {
                        r.to_le_bytes()
                    }
                }
            }),
            T::F16 => each::<2>(dst, src, |d, s| {
                let (d, s) = (f16::from_le_bytes(d), f16::from_le_bytes(s));
                // The f64 sum of two f16 values is exact, so one rounding to f16 is correct.
                let r = match self {
                    ReduceOp::Add => d.to_f64() + s.to_f64(),
                    _ => self.fminmax(d.to_f64(), s.to_f64()),
                };
                if r.is_nan() {
                    CANONICAL_NAN_16.to_le_bytes()
                } else {
                    f16::from_f64(r).to_le_bytes()
                }
            }),
            T::BF16 => each::<2>(dst, src, |d, s| {
                let (d, s) = (bf16::from_le_bytes(d), bf16::from_le_bytes(s));
                // Rounding the f64 sum again to bf16 is innocuous double rounding
                // (53 >= 2*8 + 2 bits), so the result is the correctly rounded sum.
                let r = match self {
                    ReduceOp::Add => d.to_f64() + s.to_f64(),
                    _ => self.fminmax(d.to_f64(), s.to_f64()),
                };
                if r.is_nan() {
                    CANONICAL_NAN_16.to_le_bytes()
                } else {
                    bf16::from_f64(r).to_le_bytes()
                }
            }),
            _ => unreachable!("ReduceOp::check rejects {ty:?}"),
        }
    }

    /// Integer reduction on the low `bits` bits (`signed` selects min/max order).
    fn int(self, d: u64, s: u64, signed: bool, bits: u32) -> u64 {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1 << bits) - 1
        };
        let sext = |x: u64| ((x << (64 - bits)) as i64) >> (64 - bits);
        let r = match self {
            ReduceOp::Add => d.wrapping_add(s),
            ReduceOp::Min if signed => sext(d).min(sext(s)) as u64,
            ReduceOp::Max if signed => sext(d).max(sext(s)) as u64,
            ReduceOp::Min => d.min(s),
            ReduceOp::Max => d.max(s),
            // atom.inc / atom.dec semantics (PTX §9.7.13.5): wrap at the source operand.
            ReduceOp::Inc => {
                if d >= s {
                    0
                } else {
                    d + 1
                }
            }
            ReduceOp::Dec => {
                if d == 0 || d > s {
                    s
                } else {
                    d - 1
                }
            }
            ReduceOp::And => d & s,
            ReduceOp::Or => d | s,
            ReduceOp::Xor => d ^ s,
        };
        r & mask
    }

    /// PTX min/max on floats: a NaN operand yields the other operand (two NaNs a NaN, which
    /// the caller makes canonical); -0 orders below +0.
    fn fminmax(self, a: f64, b: f64) -> f64 {
        if a.is_nan() {
            return b;
        }
        if b.is_nan() {
            return a;
        }
        let a_first = match self {
            ReduceOp::Min => a < b || (a == b && a.is_sign_negative()),
            _ => a > b || (a == b && a.is_sign_positive()),
        };
        if a_first {
            a
        } else {
            b
        }
    }
}

/// PTX's canonical NaNs: what the H100 writes for a NaN f16/bf16/f32 reduction result.
const CANONICAL_NAN_16: u16 = 0x7FFF;
const CANONICAL_NAN_F32: u32 = 0x7FFF_FFFF;
const CANONICAL_NAN_F64: u64 = 0x7FFF_FFFF_FFFF_FFFF;

fn each<const N: usize>(dst: &mut [u8], src: &[u8], f: impl Fn([u8; N], [u8; N]) -> [u8; N]) {
    for (d, s) in dst.chunks_exact_mut(N).zip(src.chunks_exact(N)) {
        let r = f(d.try_into().unwrap(), s.try_into().unwrap());
        d.copy_from_slice(&r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red32(op: ReduceOp, ty: TmElemType, d: u32, s: u32) -> u32 {
        let mut dst = d.to_le_bytes();
        op.apply(ty, &mut dst, &s.to_le_bytes());
        u32::from_le_bytes(dst)
    }

    #[test]
    fn integer_ops() {
        use ReduceOp::*;
        use TmElemType::*;
        assert_eq!(red32(Add, U32, u32::MAX, 2), 1);
        assert_eq!(red32(Min, S32, (-5i32) as u32, 3), (-5i32) as u32);
        assert_eq!(red32(Min, U32, (-5i32) as u32, 3), 3);
        assert_eq!(red32(Max, S32, (-5i32) as u32, 3), 3);
        assert_eq!(red32(Inc, U32, 7, 7), 0);
        assert_eq!(red32(Inc, U32, 6, 7), 7);
        assert_eq!(red32(Dec, U32, 0, 7), 7);
        assert_eq!(red32(Dec, U32, 9, 7), 7);
        assert_eq!(red32(Dec, U32, 5, 7), 4);
        assert_eq!(red32(Xor, S32, 0b1100, 0b1010), 0b0110);
        let mut d = (-3i64).to_le_bytes();
        Min.apply(S64, &mut d, &2i64.to_le_bytes());
        assert_eq!(i64::from_le_bytes(d), -3);
    }

    #[test]
    fn float_ops() {
        use ReduceOp::*;
        use TmElemType::*;
        let f = |op, a: f32, b: f32| f32::from_bits(red32(op, F32, a.to_bits(), b.to_bits()));
        assert_eq!(f(Add, 1.5, 2.25), 3.75);
        // Subnormals are kept (H100), NaN results are canonical.
        assert_eq!(
            f(Add, f32::MIN_POSITIVE / 2.0, 0.0),
            f32::MIN_POSITIVE / 2.0
        );
        assert_eq!(
            f(Add, f32::INFINITY, f32::NEG_INFINITY).to_bits(),
            0x7FFF_FFFF
        );
        let h = |op: ReduceOp, a: f32, b: f32| {
            let mut d = f16::from_f32(a).to_le_bytes();
            op.apply(F16, &mut d, &f16::from_f32(b).to_le_bytes());
            f16::from_le_bytes(d)
        };
        // 2048 + 1 is a tie in f16 (spacing 2): rounds to even, 2048.
        assert_eq!(h(Add, 2048.0, 1.0).to_f32(), 2048.0);
        assert_eq!(h(Add, 2048.0, 3.0).to_f32(), 2052.0);
        assert_eq!(h(Min, f32::NAN, 1.0).to_f32(), 1.0);
        assert!(h(Min, -0.0, 0.0).is_sign_negative());
        assert!(h(Max, -0.0, 0.0).is_sign_positive());
    }

    #[test]
    fn type_table() {
        use TmElemType::*;
        assert!(ReduceOp::Add.check(F16).is_ok());
        assert!(ReduceOp::Add.check(S64).is_err());
        assert!(ReduceOp::Inc.check(S32).is_err());
        assert!(ReduceOp::And.check(F32).is_err());
        assert!(ReduceOp::Xor.check(S64).is_err());
        assert!(ReduceOp::Add.check(TF32).is_ok());
        assert!(ReduceOp::Min.check(F32).is_err());
        assert_eq!(
            ReduceOp::Max.check(U8).unwrap_err().rule_id(),
            Some("TM0125")
        );
    }
}
