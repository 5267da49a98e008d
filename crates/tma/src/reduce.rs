//! Element arithmetic of `cp.reduce.async.bulk.tensor` (PTX ISA 9.1 §9.7.9.27.1.3).
//!
//! The element type comes from the tensor map. The legal (operation, type) pairs are those of
//! the `.global` destination table of `cp.reduce.async.bulk` (§9.7.9.25.4.2): the tensor form
//! names the same operations and reduces into global memory too (DERIVED: the tensor page
//! defers to the map's type without a table of its own in the text we read).
//!
//! | op | types |
//! |---|---|
//! | add | u32, s32, u64, f32, f64, f16, bf16 |
//! | min, max | u32, s32, u64, s64, f16, bf16 |
//! | inc, dec | u32 |
//! | and, or, xor | 32- and 64-bit integer types (`.b32`, `.b64`) |
//!
//! Floating-point adds round to nearest even. f16/bf16 adds keep subnormals (the ISA requires
//! `.noftz` there); the f32 add flushes subnormal inputs and results to sign-preserving zero,
//! as the ISA says the current implementation of `cp.reduce.async.bulk.add.f32` does.

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
                T::U32 | T::S32 | T::U64 | T::F32 | T::F32Ftz | T::F64 | T::F16 | T::BF16
            ),
            ReduceOp::Min | ReduceOp::Max => {
                matches!(ty, T::U32 | T::S32 | T::U64 | T::S64 | T::F16 | T::BF16)
            }
            ReduceOp::Inc | ReduceOp::Dec => ty == T::U32,
            ReduceOp::And | ReduceOp::Or | ReduceOp::Xor => {
                matches!(ty, T::U32 | T::S32 | T::U64 | T::S64)
            }
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
            T::F32 | T::F32Ftz => each::<4>(dst, src, |d, s| {
                let ftz = |x: f32| {
                    if x.is_subnormal() {
                        0.0f32.copysign(x)
                    } else {
                        x
                    }
                };
                let r = ftz(ftz(f32::from_le_bytes(d)) + ftz(f32::from_le_bytes(s)));
                r.to_le_bytes()
            }),
            T::F64 => each::<8>(dst, src, |d, s| {
                (f64::from_le_bytes(d) + f64::from_le_bytes(s)).to_le_bytes()
            }),
            T::F16 => each::<2>(dst, src, |d, s| {
                let (d, s) = (f16::from_le_bytes(d), f16::from_le_bytes(s));
                // The f64 sum of two f16 values is exact, so one rounding to f16 is correct.
                let r = match self {
                    ReduceOp::Add => f16::from_f64(d.to_f64() + s.to_f64()),
                    _ => f16::from_f64(self.fminmax(d.to_f64(), s.to_f64())),
                };
                r.to_le_bytes()
            }),
            T::BF16 => each::<2>(dst, src, |d, s| {
                let (d, s) = (bf16::from_le_bytes(d), bf16::from_le_bytes(s));
                // Rounding the f64 sum again to bf16 is innocuous double rounding
                // (53 >= 2*8 + 2 bits), so the result is the correctly rounded sum.
                let r = match self {
                    ReduceOp::Add => bf16::from_f64(d.to_f64() + s.to_f64()),
                    _ => bf16::from_f64(self.fminmax(d.to_f64(), s.to_f64())),
                };
                r.to_le_bytes()
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

    /// PTX min/max on floats: a NaN operand yields the other operand; -0 orders below +0.
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
        // Subnormal inputs flush to zero.
        assert_eq!(f(Add, f32::MIN_POSITIVE / 2.0, 0.0), 0.0);
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
        assert!(ReduceOp::Min.check(F32).is_err());
        assert_eq!(
            ReduceOp::Max.check(U8).unwrap_err().rule_id(),
            Some("TM0125")
        );
    }
}
