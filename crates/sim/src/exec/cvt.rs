//! `cvt`: every conversion goes through the numerics crate (`tmemu_num::ops::cvt`); the
//! loader asks [`supported`] first, so a form the numerics crate refuses is `unsupported` at
//! load time.

use tmemu_num::ops::cvt::{cvt_f16x2_from_f8x2, cvt_pack_f32};
use tmemu_num::ops::{cvt as num_cvt, ScalarType};

use super::{Flow, Warp};
use crate::program::CvtInst;

/// `cvt{.relu}.f16x2.{e4m3x2,e5m2x2,e2m3x2,e3m2x2,e2m1x2}`: a packed narrow source widened to
/// f16x2, which the numerics crate provides as its own entry point (Triton emits it before an
/// f16 mma.sync for fp8 dots).
fn widen_f8x2(c: &CvtInst) -> bool {
    c.to == ScalarType::F16x2 && c.b.is_none() && cvt_f16x2_from_f8x2(c.from, 0, c.m.relu).is_ok()
}

/// Whether the numerics crate executes this conversion (probed with a few source values).
pub fn supported(c: &CvtInst) -> bool {
    if widen_f8x2(c) {
        return true;
    }
    if c.b.is_some() {
        return c.from == ScalarType::F32
            && [0u32, 0x3f80_0000]
                .iter()
                .all(|&v| cvt_pack_f32(c.to, v, v, c.m).is_ok());
    }
    [0u64, 1, 0x3f80_0000]
        .iter()
        .all(|&v| num_cvt(c.to, c.from, v, c.m).is_ok())
}

pub(super) fn exec(w: &mut Warp, mask: u32, c: &CvtInst) -> Flow {
    let widen = widen_f8x2(c);
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let a = w.read_any(c.a, l);
        let r = match c.b {
            None if widen => cvt_f16x2_from_f8x2(c.from, a as u16, c.m.relu).unwrap_or(0) as u64,
            Some(b) => {
                let b = w.read_any(b, l);
                cvt_pack_f32(c.to, a as u32, b as u32, c.m).unwrap_or(0) as u64
            }
            // errors were ruled out at load time for this type pair and modifier set
            None => num_cvt(c.to, c.from, a, c.m).unwrap_or(0),
        };
        w.write_any(c.d, l, r);
    }
    Flow::Next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Any;
    use tmemu_num::ops::{CvtMods, Rounding};

    fn c(to: ScalarType, from: ScalarType, rnd: Rounding, sat: bool) -> CvtInst {
        CvtInst {
            to,
            from,
            m: CvtMods {
                rnd,
                sat,
                ..Default::default()
            },
            d: Any::R32(0),
            a: Any::R32(0),
            b: None,
        }
    }

    #[test]
    fn conversions_reach_the_numerics_crate() {
        let s = c(ScalarType::S32, ScalarType::F32, Rounding::Rzi, false);
        assert!(supported(&s));
        assert_eq!(
            num_cvt(s.to, s.from, (-2.7f32).to_bits() as u64, s.m).unwrap() as u32,
            (-2i32) as u32
        );
        let s = c(ScalarType::S8, ScalarType::S32, Rounding::Rn, true);
        assert_eq!(num_cvt(s.to, s.from, 300, s.m).unwrap() as u8, 127);
        let s = c(ScalarType::F32, ScalarType::F16, Rounding::Rn, false);
        assert_eq!(
            num_cvt(s.to, s.from, 0x3c00, s.m).unwrap(),
            1.0f32.to_bits() as u64
        );
    }
}
