//! `cvt`: integer↔integer conversions inline (truncation and extension are not arithmetic),
//! exact float widenings inline, everything that rounds through [`crate::fp`]'s policy — the
//! loader refuses what [`supported`] says no to.

use super::{Flow, Warp};
use crate::program::{CvtInst, CvtTy};

fn int_bits(t: CvtTy) -> Option<(u32, bool)> {
    Some(match t {
        CvtTy::U8 => (8, false),
        CvtTy::U16 => (16, false),
        CvtTy::U32 => (32, false),
        CvtTy::U64 => (64, false),
        CvtTy::S8 => (8, true),
        CvtTy::S16 => (16, true),
        CvtTy::S32 => (32, true),
        CvtTy::S64 => (64, true),
        _ => return None,
    })
}

/// Whether `cvt` from → to (with its modifiers) is executable today.
pub fn supported(c: &CvtInst) -> bool {
    if let (Some(_), Some(_)) = (int_bits(c.from), int_bits(c.to)) {
        // .sat on integer narrowing clamps: supported below
        return true;
    }
    // exact widenings: no rounding involved
    matches!(
        (c.from, c.to),
        (CvtTy::F16, CvtTy::F32)
            | (CvtTy::Bf16, CvtTy::F32)
            | (CvtTy::F32, CvtTy::F64)
            | (CvtTy::F16, CvtTy::F64)
    ) && !c.m.sat
}

fn sext(v: u64, bits: u32) -> i64 {
    if bits == 64 {
        v as i64
    } else {
        ((v << (64 - bits)) as i64) >> (64 - bits)
    }
}

fn conv_one(c: &CvtInst, v: u64) -> u64 {
    match (int_bits(c.from), int_bits(c.to)) {
        (Some((fb, fs)), Some((tb, ts))) => {
            let x: i128 = if fs {
                sext(v, fb) as i128
            } else {
                (v & mask(fb)) as i128
            };
            let x = if c.m.sat {
                let (lo, hi): (i128, i128) = if ts {
                    (-(1i128 << (tb - 1)), (1i128 << (tb - 1)) - 1)
                } else {
                    (0, (1i128 << tb) - 1)
                };
                x.clamp(lo, hi)
            } else {
                x
            };
            // truncate to the destination type; a signed narrow result is sign-extended to its
            // 32-bit register (as for ld.s8), an unsigned one zero-extended
            let t = (x as u64) & mask(tb);
            if ts && tb < 32 {
                sext(t, tb) as u32 as u64
            } else {
                t
            }
        }
        _ => match (c.from, c.to) {
            (CvtTy::F16, CvtTy::F32) => half::f16::from_bits(v as u16).to_f32().to_bits() as u64,
            (CvtTy::Bf16, CvtTy::F32) => ((v as u32) << 16) as u64,
            (CvtTy::F32, CvtTy::F64) => (f32::from_bits(v as u32) as f64).to_bits(),
            (CvtTy::F16, CvtTy::F64) => (half::f16::from_bits(v as u16).to_f64()).to_bits(),
            _ => unreachable!(
                "loader admitted an unsupported cvt {:?} -> {:?}",
                c.from, c.to
            ),
        },
    }
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

pub(super) fn exec(w: &mut Warp, mask_: u32, c: &CvtInst) -> Flow {
    for l in 0..32 {
        if mask_ >> l & 1 != 0 {
            let v = w.read_any(c.a, l);
            let r = conv_one(c, v);
            w.write_any(c.d, l, r);
        }
    }
    Flow::Next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::{Any, FMods, Rnd};

    fn c(from: CvtTy, to: CvtTy, sat: bool) -> CvtInst {
        CvtInst {
            from,
            to,
            m: FMods {
                rnd: Rnd::Rn,
                ftz: false,
                sat,
            },
            relu: false,
            d: Any::R32(0),
            a: Any::R32(0),
            b: None,
        }
    }

    #[test]
    fn int_conversions() {
        assert_eq!(
            conv_one(&c(CvtTy::S32, CvtTy::S64, false), 0xffff_ffff),
            u64::MAX
        );
        assert_eq!(
            conv_one(&c(CvtTy::U32, CvtTy::U64, false), 0xffff_ffff),
            0xffff_ffff
        );
        assert_eq!(
            conv_one(&c(CvtTy::S64, CvtTy::S32, false), u64::MAX) as u32,
            u32::MAX
        );
        assert_eq!(conv_one(&c(CvtTy::S32, CvtTy::S8, true), 300), 127);
        assert_eq!(
            conv_one(&c(CvtTy::S32, CvtTy::U8, true), (-5i32) as u32 as u64),
            0
        );
        assert_eq!(conv_one(&c(CvtTy::U16, CvtTy::U8, false), 0x1ff), 0xff);
        assert_eq!(
            conv_one(&c(CvtTy::F16, CvtTy::F32, false), 0x3c00),
            1.0f32.to_bits() as u64
        );
    }
}
