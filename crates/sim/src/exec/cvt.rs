//! `cvt`: every conversion goes through the numerics crate (`tmemu_num::ops::cvt`); the
//! loader asks [`supported`] first, so a form the numerics crate refuses is `unsupported` at
//! load time.

use tmemu_num::ops::cvt::cvt_pack_f32;
use tmemu_num::ops::{cvt as num_cvt, ScalarType};

use super::{Flow, Warp};
use crate::program::CvtInst;

/// Whether the numerics crate executes this conversion (probed with a few source values).
pub fn supported(c: &CvtInst) -> bool {
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
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let a = w.read_any(c.a, l);
        let r = match c.b {
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
