//! Integer instructions against i128/u128 arithmetic (property tests over every width and
//! signedness), plus the worked examples the PTX ISA gives for the bit instructions.

use proptest::prelude::*;
use tmemu_num::ops::int::{self, IntTy, PrmtMode};
use tmemu_num::ops::{cvt, CvtMods, Rounding, ScalarType as T};

fn ty() -> impl Strategy<Value = IntTy> {
    (
        prop_oneof![Just(16u32), Just(32u32), Just(64u32)],
        any::<bool>(),
    )
        .prop_map(|(bits, signed)| IntTy { bits, signed })
}

/// Reference reading of a bit pattern as an integer of the type.
fn v(t: IntTy, x: u64) -> i128 {
    let m = if t.bits == 64 {
        u64::MAX
    } else {
        (1u64 << t.bits) - 1
    };
    let x = x & m;
    if t.signed && x >> (t.bits - 1) & 1 == 1 {
        x as i128 - (1i128 << t.bits)
    } else {
        x as i128
    }
}

fn bits_of(t: IntTy, x: i128) -> u64 {
    (x as u64)
        & if t.bits == 64 {
            u64::MAX
        } else {
            (1u64 << t.bits) - 1
        }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn arithmetic_matches_wide_integers(t in ty(), a: u64, b: u64, c: u64) {
        let (x, y, z) = (v(t, a), v(t, b), v(t, c));
        prop_assert_eq!(int::add(t, a, b), bits_of(t, x + y));
        prop_assert_eq!(int::sub(t, a, b), bits_of(t, x - y));
        prop_assert_eq!(int::mul_lo(t, a, b), bits_of(t, x.wrapping_mul(y)));
        prop_assert_eq!(int::mad_lo(t, a, b, c), bits_of(t, x.wrapping_mul(y) + z));
        // The high half of the full 2n-bit product.
        let hi = if t.bits == 64 && !t.signed {
            ((a as u128 * b as u128) >> 64) as u64
        } else {
            bits_of(t, (x * y) >> t.bits)
        };
        prop_assert_eq!(int::mul_hi(t, a, b), hi);
        if t.bits < 64 {
            let wt = IntTy { bits: t.bits * 2, signed: t.signed };
            prop_assert_eq!(int::mul_wide(t, a, b), bits_of(wt, x * y));
        }
        prop_assert_eq!(int::sad(t, a, b, c), bits_of(t, (x - y).abs() + z));
        if y != 0 {
            prop_assert_eq!(int::div(t, a, b), bits_of(t, x / y));
            prop_assert_eq!(int::rem(t, a, b), bits_of(t, x % y));
        } else {
            prop_assert_eq!(int::div(t, a, b), bits_of(t, -1));
            prop_assert_eq!(int::rem(t, a, b), bits_of(t, -1));
        }
        prop_assert_eq!(int::min(t, a, b), bits_of(t, x.min(y)));
        prop_assert_eq!(int::max(t, a, b), bits_of(t, x.max(y)));
        prop_assert_eq!(int::abs(t, a), bits_of(t, x.abs()));
        prop_assert_eq!(int::neg(t, a), bits_of(t, -x));
        let (lo, hi) = if t.signed {
            (-(1i128 << (t.bits - 1)), (1i128 << (t.bits - 1)) - 1)
        } else {
            (0, (1i128 << t.bits) - 1)
        };
        prop_assert_eq!(int::add_sat(t, a, b), bits_of(t, (x + y).clamp(lo, hi)));
        prop_assert_eq!(int::sub_sat(t, a, b), bits_of(t, (x - y).clamp(lo, hi)));
    }

    #[test]
    fn shifts_and_bit_counts(t in ty(), a: u64, n in 0u32..80) {
        let m = if t.bits == 64 { u64::MAX } else { (1u64 << t.bits) - 1 };
        let x = a & m;
        let shl = if n >= t.bits { 0 } else { ((x as u128) << n) as u64 & m };
        prop_assert_eq!(int::shl(t, a, n), shl);
        let shr = if t.signed {
            bits_of(t, v(t, a) >> n.min(t.bits))
        } else if n >= t.bits { 0 } else { x >> n };
        prop_assert_eq!(int::shr(t, a, n), shr);
        prop_assert_eq!(int::popc(t, a), x.count_ones());
        prop_assert_eq!(int::clz(t, a), if x == 0 { t.bits } else { t.bits - 1 - (63 - x.leading_zeros()) });
        let rev = (0..t.bits).fold(0u64, |r, i| r | (((x >> i) & 1) << (t.bits - 1 - i)));
        prop_assert_eq!(int::brev(t, a), rev);
    }

    #[test]
    fn carry_chains_are_wide_addition(a: u32, b: u32, c: u32, d: u32) {
        let wide = ((c as u64) << 32 | a as u64).wrapping_add((d as u64) << 32 | b as u64);
        let (lo, carry) = int::add_carry(IntTy::U32, a as u64, b as u64, false);
        let (hi, _) = int::add_carry(IntTy::U32, c as u64, d as u64, carry);
        prop_assert_eq!(hi << 32 | lo, wide);
        let wide = ((c as u64) << 32 | a as u64).wrapping_sub((d as u64) << 32 | b as u64);
        let (lo, borrow) = int::sub_borrow(IntTy::U32, a as u64, b as u64, false);
        let (hi, _) = int::sub_borrow(IntTy::U32, c as u64, d as u64, borrow);
        prop_assert_eq!(hi << 32 | lo, wide);
    }

    #[test]
    fn lop3_is_the_boolean_function_of_its_table(a: u32, b: u32, c: u32) {
        prop_assert_eq!(int::lop3(a, b, c, 0xf0), a);
        prop_assert_eq!(int::lop3(a, b, c, 0xcc), b);
        prop_assert_eq!(int::lop3(a, b, c, 0xaa), c);
        prop_assert_eq!(int::lop3(a, b, c, 0x96), a ^ b ^ c);
        prop_assert_eq!(int::lop3(a, b, c, 0xe8), (a & b) | (b & c) | (a & c));
        prop_assert_eq!(int::lop3(a, b, c, 0xca), (a & b) | (!a & c));
        prop_assert_eq!(int::lop3(a, b, c, 0x80), a & b & c);
        prop_assert_eq!(int::lop3(a, b, c, 0x00), 0);
    }

    #[test]
    fn dp4a_is_a_byte_dot_product(a: u32, b: u32, c: u32) {
        let sb = |x: u32, i: u32| (x >> (8 * i)) as u8 as i8 as i64;
        let ub = |x: u32, i: u32| ((x >> (8 * i)) & 0xff) as i64;
        let ss: i64 = (0..4).map(|i| sb(a, i) * sb(b, i)).sum::<i64>() + c as i32 as i64;
        prop_assert_eq!(int::dp4a(true, true, a, b, c), ss as u32);
        let uu: i64 = (0..4).map(|i| ub(a, i) * ub(b, i)).sum::<i64>() + c as i32 as i64;
        prop_assert_eq!(int::dp4a(false, false, a, b, c), uu as u32);
    }

    #[test]
    fn float_to_int_saturates(x: f32, rnd in prop_oneof![Just(Rounding::Rni), Just(Rounding::Rzi), Just(Rounding::Rmi), Just(Rounding::Rpi)]) {
        let r = cvt(T::S32, T::F32, x.to_bits() as u64, CvtMods::rnd(rnd)).unwrap() as u32 as i32;
        let f = x as f64;
        let want = if x.is_nan() { 0 } else {
            let i = match rnd { Rounding::Rni => f.round_ties_even(), Rounding::Rzi => f.trunc(), Rounding::Rmi => f.floor(), _ => f.ceil() };
            i.clamp(i32::MIN as f64, i32::MAX as f64) as i32
        };
        prop_assert_eq!(r, want);
    }
}

#[test]
fn isa_examples() {
    // fns (PTX ISA §9.7.1.x examples).
    assert_eq!(int::fns(0xaaaa_aaaa, 3, 1), 3);
    assert_eq!(int::fns(0xaaaa_aaaa, 3, -1), 3);
    assert_eq!(int::fns(0xaaaa_aaaa, 2, 1), 3);
    assert_eq!(int::fns(0xaaaa_aaaa, 2, -1), 1);
    // bmsk.wrap.b32 rd, 1, 2 -> 0x6; szext.wrap.u32 rd, 0xffffffff, 0 -> 0.
    assert_eq!(int::bmsk(false, 1, 2), 0x6);
    assert_eq!(int::szext(false, false, 0xffff_ffff, 0), 0);
    assert_eq!(int::szext(true, true, 0x0000_0080, 8), 0xffff_ff80);
    // bfind: most significant non-sign bit; .shiftamt gives the left shift to the top.
    assert_eq!(int::bfind(IntTy::U32, 0x0001_0000, false), 16);
    assert_eq!(int::bfind(IntTy::U32, 0x0001_0000, true), 15);
    assert_eq!(int::bfind(IntTy::S32, 0xffff_fff0, false), 3);
    assert_eq!(int::bfind(IntTy::U32, 0, false), 0xffff_ffff);
    // bfe / bfi.
    assert_eq!(int::bfe(IntTy::U32, 0xdead_beef, 8, 8), 0xbe);
    assert_eq!(int::bfe(IntTy::S32, 0xdead_beef, 8, 8), 0xffff_ffbe);
    assert_eq!(int::bfe(IntTy::S32, 0x8000_0000, 31, 5), 0xffff_ffff);
    assert_eq!(int::bfi(IntTy::U32, 0xf, 0, 4, 4), 0xf0);
    // prmt: default selectors and the modes.
    let (a, b) = (0x3322_1100u32, 0x7766_5544u32);
    assert_eq!(int::prmt(PrmtMode::Default, a, b, 0x3210), a);
    assert_eq!(int::prmt(PrmtMode::Default, a, b, 0x7654), b);
    assert_eq!(
        int::prmt(PrmtMode::Default, 0x0000_0080, 0, 0x8880),
        0xffff_ff80
    );
    assert_eq!(int::prmt(PrmtMode::F4e, a, b, 1), 0x4433_2211);
    assert_eq!(int::prmt(PrmtMode::B4e, a, b, 0), 0x5566_7700);
    assert_eq!(int::prmt(PrmtMode::Rc8, a, b, 2), 0x2222_2222);
    assert_eq!(int::prmt(PrmtMode::Ecl, a, b, 1), 0x3322_1111);
    assert_eq!(int::prmt(PrmtMode::Ecr, a, b, 1), 0x1111_1100);
    assert_eq!(int::prmt(PrmtMode::Rc16, a, b, 1), 0x3322_3322);
    // shf: funnel shifts of {b:a}.
    assert_eq!(
        int::shf(true, false, 0x8000_0000, 0x0000_0001, 1),
        0x0000_0003
    );
    assert_eq!(
        int::shf(false, true, 0x0000_0000, 0x1234_5678, 40),
        0x1234_5678
    );
    // mul24 uses the low 24 bits, sign-extended for .s32.
    assert_eq!(int::mul24(IntTy::S32, 0x00ff_ffff, 2, false), 0xffff_fffe);
    // cvt.pack.sat: a to the upper half.
    assert_eq!(
        tmemu_num::ops::cvt::cvt_pack_sat(IntTy::S16, 70000, (-5i32) as u32, None),
        0x7fff_fffb
    );
    // int -> int: .sat clamps, otherwise truncation; signed results are sign-extended.
    assert_eq!(
        cvt(
            T::S8,
            T::S32,
            300,
            CvtMods {
                sat: true,
                ..Default::default()
            }
        )
        .unwrap(),
        127
    );
    assert_eq!(
        cvt(T::S8, T::S32, 0x80, CvtMods::default()).unwrap(),
        (-128i64) as u64
    );
    assert_eq!(
        cvt(
            T::U8,
            T::S32,
            (-1i32) as u32 as u64,
            CvtMods {
                sat: true,
                ..Default::default()
            }
        )
        .unwrap(),
        0
    );
}
