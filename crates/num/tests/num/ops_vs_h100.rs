//! Feeds the inputs recorded on a real H100 (tests/corpus/diff/h100, made by
//! kernels/diff/harness.cu) through `tmemu_num::ops` and compares with the GPU's outputs:
//! bit for bit, except the `.approx` instructions, which must stay within the documented
//! error bound of the hardware result.

use tmemu_num::ops::float::{self as fl, FloatMods, MinMaxMods, TestP};
use tmemu_num::ops::half::{eval_half, eval_half_x2, HalfKind, HalfMods, HalfOp};
use tmemu_num::ops::int::{self, IntTy, PrmtMode};
use tmemu_num::ops::warp::{atom_int, shfl_source, AtomOp, ShflMode};
use tmemu_num::ops::{approx, cvt, CmpOp, CvtMods, Rounding, ScalarType as T};
use tmemu_testkit::h100::{check_of, isa_deviation, ulp16, ulp32, Check, Recording};

type Model = fn(&[u64; 4]) -> u64;

fn a32(v: &[u64; 4]) -> u32 {
    v[0] as u32
}
fn b32(v: &[u64; 4]) -> u32 {
    v[1] as u32
}
fn c32(v: &[u64; 4]) -> u32 {
    v[2] as u32
}
fn d32(v: &[u64; 4]) -> u32 {
    v[3] as u32
}
fn fm(rnd: Rounding, ftz: bool, sat: bool) -> FloatMods {
    FloatMods { rnd, ftz, sat }
}
fn mm(ftz: bool, nan: bool, xorsign_abs: bool) -> MinMaxMods {
    MinMaxMods {
        ftz,
        nan,
        xorsign_abs,
    }
}
fn hm(ftz: bool, sat: bool, relu: bool) -> HalfMods {
    HalfMods {
        rnd: Rounding::Rn,
        ftz,
        sat,
        relu,
    }
}
fn cv(dst: T, src: T, a: u64, rnd: Rounding) -> u64 {
    cvt(dst, src, a, CvtMods::rnd(rnd)).unwrap()
}
fn cvm(dst: T, src: T, a: u64, m: CvtMods) -> u64 {
    cvt(dst, src, a, m).unwrap()
}
fn p(b: bool) -> u64 {
    b as u64
}

use Rounding::*;

/// The model of each recorded case, by name.
fn model(name: &str) -> Option<(Model, Check)> {
    use Check::*;
    const S32: IntTy = IntTy::S32;
    const U32: IntTy = IntTy::U32;
    const S64: IntTy = IntTy::S64;
    const U64: IntTy = IntTy::U64;
    const S16: IntTy = IntTy::S16;
    const U16: IntTy = IntTy::U16;
    let m: (Model, Check) = match name {
        "add.s32" => (|v| int::add(S32, v[0], v[1]), Exact),
        "add.sat.s32" => (|v| int::add_sat(S32, v[0], v[1]), Exact),
        "sub.s32" => (|v| int::sub(S32, v[0], v[1]), Exact),
        "sub.sat.s32" => (|v| int::sub_sat(S32, v[0], v[1]), Exact),
        "add.u16" => (|v| int::add(U16, v[0], v[1]), Exact),
        "add.s64" => (|v| int::add(S64, v[0], v[1]), Exact),
        "sub.s64" => (|v| int::sub(S64, v[0], v[1]), Exact),
        "add.cc+addc.u32" => (
            |v| {
                let (lo, c) = int::add_carry(U32, v[0], v[1], false);
                let (hi, _) = int::add_carry(U32, v[2], v[3], c);
                lo | (hi << 32)
            },
            Exact,
        ),
        "add.cc+addc+carry.u32" => (
            |v| {
                let (_, c) = int::add_carry(U32, v[0], v[1], false);
                let (_, c2) = int::add_carry(U32, v[2], v[3], c);
                c2 as u64
            },
            Exact,
        ),
        "sub.cc+subc.u32" => (
            |v| {
                let (lo, c) = int::sub_borrow(U32, v[0], v[1], false);
                let (hi, _) = int::sub_borrow(U32, v[2], v[3], c);
                lo | (hi << 32)
            },
            Exact,
        ),
        "mul.lo.s32" => (|v| int::mul_lo(S32, v[0], v[1]), Exact),
        "mul.hi.s32" => (|v| int::mul_hi(S32, v[0], v[1]), Exact),
        "mul.hi.u32" => (|v| int::mul_hi(U32, v[0], v[1]), Exact),
        "mul.wide.s32" => (|v| int::mul_wide(S32, v[0], v[1]), Exact),
        "mul.wide.u32" => (|v| int::mul_wide(U32, v[0], v[1]), Exact),
        "mul.wide.s16" => (|v| int::mul_wide(S16, v[0], v[1]), Exact),
        "mul.lo.u16" => (|v| int::mul_lo(U16, v[0], v[1]), Exact),
        "mul.lo.s64" => (|v| int::mul_lo(S64, v[0], v[1]), Exact),
        "mul.hi.s64" => (|v| int::mul_hi(S64, v[0], v[1]), Exact),
        "mul.hi.u64" => (|v| int::mul_hi(U64, v[0], v[1]), Exact),
        "mad.lo.s32" => (|v| int::mad_lo(S32, v[0], v[1], v[2]), Exact),
        "mad.hi.s32" => (|v| int::mad_hi(S32, v[0], v[1], v[2]), Exact),
        "mad.hi.u32" => (|v| int::mad_hi(U32, v[0], v[1], v[2]), Exact),
        "mad.hi.sat.s32" => (|v| int::mad_hi_sat(S32, v[0], v[1], v[2]), Exact),
        "mad.wide.s32" => (|v| int::mad_wide(S32, v[0], v[1], v[2]), Exact),
        "mad.wide.u32" => (|v| int::mad_wide(U32, v[0], v[1], v[2]), Exact),
        "mad.lo.s64" => (|v| int::mad_lo(S64, v[0], v[1], v[2]), Exact),
        "mad.hi.u64" => (|v| int::mad_hi(U64, v[0], v[1], v[2]), Exact),
        "mad.hi.s64" => (|v| int::mad_hi(S64, v[0], v[1], v[2]), Exact),
        "mul24.lo.s32" => (|v| int::mul24(S32, v[0], v[1], false), Exact),
        "mul24.hi.s32" => (|v| int::mul24(S32, v[0], v[1], true), Exact),
        "mul24.lo.u32" => (|v| int::mul24(U32, v[0], v[1], false), Exact),
        "mul24.hi.u32" => (|v| int::mul24(U32, v[0], v[1], true), Exact),
        "mad24.lo.s32" => (|v| int::mad24(S32, v[0], v[1], v[2], false, false), Exact),
        "mad24.hi.u32" => (|v| int::mad24(U32, v[0], v[1], v[2], true, false), Exact),
        "mad24.hi.sat.s32" => (|v| int::mad24(S32, v[0], v[1], v[2], true, true), Exact),
        "sad.s32" => (|v| int::sad(S32, v[0], v[1], v[2]), Exact),
        "sad.u32" => (|v| int::sad(U32, v[0], v[1], v[2]), Exact),
        "div.s32" => (|v| int::div(S32, v[0], v[1]), Exact),
        "div.u32" => (|v| int::div(U32, v[0], v[1]), Exact),
        "rem.s32" => (|v| int::rem(S32, v[0], v[1]), Exact),
        "rem.u32" => (|v| int::rem(U32, v[0], v[1]), Exact),
        "div.s64" => (|v| int::div(S64, v[0], v[1]), Exact),
        "div.u64" => (|v| int::div(U64, v[0], v[1]), Exact),
        "rem.s64" => (|v| int::rem(S64, v[0], v[1]), Exact),
        "rem.u64" => (|v| int::rem(U64, v[0], v[1]), Exact),
        "abs.s32" => (|v| int::abs(S32, v[0]), Exact),
        "abs.s16" => (|v| int::abs(S16, v[0]), Exact),
        "abs.s64" => (|v| int::abs(S64, v[0]), Exact),
        "neg.s32" => (|v| int::neg(S32, v[0]), Exact),
        "neg.s64" => (|v| int::neg(S64, v[0]), Exact),
        "min.s32" => (|v| int::min(S32, v[0], v[1]), Exact),
        "max.s32" => (|v| int::max(S32, v[0], v[1]), Exact),
        "min.u32" => (|v| int::min(U32, v[0], v[1]), Exact),
        "max.u32" => (|v| int::max(U32, v[0], v[1]), Exact),
        "min.relu.s32" => (|v| int::relu(S32, int::min(S32, v[0], v[1])), Exact),
        "max.relu.s32" => (|v| int::relu(S32, int::max(S32, v[0], v[1])), Exact),
        "min.s16x2" => (
            |v| int::minmax_x2(true, a32(v), b32(v), true, false) as u64,
            Exact,
        ),
        "max.u16x2" => (
            |v| int::minmax_x2(false, a32(v), b32(v), false, false) as u64,
            Exact,
        ),
        "max.relu.s16x2" => (
            |v| int::minmax_x2(true, a32(v), b32(v), false, true) as u64,
            Exact,
        ),
        "min.s64" => (|v| int::min(S64, v[0], v[1]), Exact),
        "max.u64" => (|v| int::max(U64, v[0], v[1]), Exact),
        "popc.b32" => (|v| int::popc(U32, v[0]) as u64, Exact),
        "popc.b64" => (|v| int::popc(U64, v[0]) as u64, Exact),
        "clz.b32" => (|v| int::clz(U32, v[0]) as u64, Exact),
        "clz.b64" => (|v| int::clz(U64, v[0]) as u64, Exact),
        "bfind.u32" => (|v| int::bfind(U32, v[0], false) as u64, Exact),
        "bfind.s32" => (|v| int::bfind(S32, v[0], false) as u64, Exact),
        "bfind.shiftamt.u32" => (|v| int::bfind(U32, v[0], true) as u64, Exact),
        "bfind.shiftamt.s32" => (|v| int::bfind(S32, v[0], true) as u64, Exact),
        "bfind.u64" => (|v| int::bfind(U64, v[0], false) as u64, Exact),
        "bfind.s64" => (|v| int::bfind(S64, v[0], false) as u64, Exact),
        "fns.b32" => (
            |v| int::fns(a32(v), b32(v) & 31, c32(v) as i32) as u64,
            Exact,
        ),
        "brev.b32" => (|v| int::brev(U32, v[0]), Exact),
        "brev.b64" => (|v| int::brev(U64, v[0]), Exact),
        "bfe.u32" => (|v| int::bfe(U32, v[0], b32(v), c32(v)), Exact),
        "bfe.s32" => (|v| int::bfe(S32, v[0], b32(v), c32(v)), Exact),
        "bfe.u64" => (|v| int::bfe(U64, v[0], b32(v), c32(v)), Exact),
        "bfe.s64" => (|v| int::bfe(S64, v[0], b32(v), c32(v)), Exact),
        "bfi.b32" => (|v| int::bfi(U32, v[0], v[3], b32(v), c32(v)), Exact),
        "bfi.b64" => (|v| int::bfi(U64, v[0], v[3], b32(v), c32(v)), Exact),
        "prmt.b32" => (
            |v| int::prmt(PrmtMode::Default, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "prmt.b32.f4e" => (
            |v| int::prmt(PrmtMode::F4e, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "prmt.b32.b4e" => (
            |v| int::prmt(PrmtMode::B4e, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "prmt.b32.rc8" => (
            |v| int::prmt(PrmtMode::Rc8, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "prmt.b32.ecl" => (
            |v| int::prmt(PrmtMode::Ecl, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "prmt.b32.ecr" => (
            |v| int::prmt(PrmtMode::Ecr, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "prmt.b32.rc16" => (
            |v| int::prmt(PrmtMode::Rc16, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "shl.b32" => (|v| int::shl(U32, v[0], b32(v)), Exact),
        "shr.u32" => (|v| int::shr(U32, v[0], b32(v)), Exact),
        "shr.s32" => (|v| int::shr(S32, v[0], b32(v)), Exact),
        "shl.b16" => (|v| int::shl(U16, v[0], b32(v)), Exact),
        "shr.s16" => (|v| int::shr(S16, v[0], b32(v)), Exact),
        "shl.b64" => (|v| int::shl(U64, v[0], b32(v)), Exact),
        "shr.u64" => (|v| int::shr(U64, v[0], b32(v)), Exact),
        "shr.s64" => (|v| int::shr(S64, v[0], b32(v)), Exact),
        "and.b32" => (|v| (v[0] & v[1]) & 0xffff_ffff, Exact),
        "or.b32" => (|v| (v[0] | v[1]) & 0xffff_ffff, Exact),
        "xor.b32" => (|v| (v[0] ^ v[1]) & 0xffff_ffff, Exact),
        "not.b32" => (|v| !v[0] & 0xffff_ffff, Exact),
        "cnot.b32" => (|v| int::cnot(U32, v[1]), Exact),
        "lop3.b32.0x96" => (|v| int::lop3(a32(v), b32(v), c32(v), 0x96) as u64, Exact),
        "lop3.b32.0xe8" => (|v| int::lop3(a32(v), b32(v), c32(v), 0xe8) as u64, Exact),
        "lop3.b32.0x1e" => (|v| int::lop3(a32(v), b32(v), c32(v), 0x1e) as u64, Exact),
        "lop3.b32.0xca" => (|v| int::lop3(a32(v), b32(v), c32(v), 0xca) as u64, Exact),
        "lop3.b32.0x01" => (|v| int::lop3(a32(v), b32(v), c32(v), 0x01) as u64, Exact),
        "shf.l.wrap.b32" => (
            |v| int::shf(true, false, a32(v), d32(v), b32(v)) as u64,
            Exact,
        ),
        "shf.l.clamp.b32" => (
            |v| int::shf(true, true, a32(v), d32(v), b32(v)) as u64,
            Exact,
        ),
        "shf.r.wrap.b32" => (
            |v| int::shf(false, false, a32(v), d32(v), b32(v)) as u64,
            Exact,
        ),
        "shf.r.clamp.b32" => (
            |v| int::shf(false, true, a32(v), d32(v), b32(v)) as u64,
            Exact,
        ),
        "dp4a.u32.u32" => (
            |v| int::dp4a(false, false, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "dp4a.s32.s32" => (
            |v| int::dp4a(true, true, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "dp4a.s32.u32" => (
            |v| int::dp4a(true, false, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "dp4a.u32.s32" => (
            |v| int::dp4a(false, true, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "dp2a.lo.s32.s32" => (
            |v| int::dp2a(false, true, true, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "dp2a.hi.u32.u32" => (
            |v| int::dp2a(true, false, false, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "dp2a.lo.u32.s32" => (
            |v| int::dp2a(false, false, true, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "dp2a.hi.s32.u32" => (
            |v| int::dp2a(true, true, false, a32(v), d32(v), c32(v)) as u64,
            Exact,
        ),
        "szext.wrap.s32" => (|v| int::szext(true, false, a32(v), b32(v)) as u64, Exact),
        "szext.clamp.s32" => (|v| int::szext(true, true, a32(v), b32(v)) as u64, Exact),
        "szext.wrap.u32" => (|v| int::szext(false, false, a32(v), b32(v)) as u64, Exact),
        "szext.clamp.u32" => (|v| int::szext(false, true, a32(v), b32(v)) as u64, Exact),
        "bmsk.wrap.b32" => (|v| int::bmsk(false, b32(v), c32(v)) as u64, Exact),
        "bmsk.clamp.b32" => (|v| int::bmsk(true, b32(v), c32(v)) as u64, Exact),
        "setp.lt.s32" => (|v| p(int::cmp(CmpOp::Lt, S32, v[0], v[1])), Exact),
        "setp.le.s32" => (|v| p(int::cmp(CmpOp::Le, S32, v[0], v[1])), Exact),
        "setp.lo.u32" => (|v| p(int::cmp(CmpOp::Lo, U32, v[0], v[1])), Exact),
        "setp.ls.u32" => (|v| p(int::cmp(CmpOp::Ls, U32, v[0], v[1])), Exact),
        "setp.hi.u32" => (|v| p(int::cmp(CmpOp::Hi, U32, v[0], v[1])), Exact),
        "setp.hs.u32" => (|v| p(int::cmp(CmpOp::Hs, U32, v[0], v[1])), Exact),
        "setp.ge.s64" => (|v| p(int::cmp(CmpOp::Ge, S64, v[0], v[1])), Exact),
        "setp.ne.b32" => (|v| p(int::cmp(CmpOp::Ne, U32, v[0], v[1] & 3)), Exact),
        "setp.gt.or.s32" => (
            |v| p(int::cmp(CmpOp::Gt, S32, v[0], v[1]) | (v[2] & 1 != 0)),
            Exact,
        ),
        "setp.gt.and.s32" => (
            |v| p(int::cmp(CmpOp::Gt, S32, v[0], v[1]) & (v[2] & 1 == 0)),
            Exact,
        ),
        "set.lt.u32.s32" => (
            |v| int::set_result(T::U32, int::cmp(CmpOp::Lt, S32, v[0], v[1])),
            Exact,
        ),
        "set.hi.f32.u32" => (
            |v| int::set_result(T::F32, int::cmp(CmpOp::Hi, U32, v[0], v[1])),
            Exact,
        ),
        "set.eq.xor.u32.u32" => (
            |v| {
                int::set_result(
                    T::U32,
                    int::cmp(CmpOp::Eq, U32, v[0] & 3, v[1] & 3) ^ (v[2] & 1 != 0),
                )
            },
            Exact,
        ),
        "slct.s32.s32" => (|v| int::slct_s32(v[0], v[1], c32(v)) & 0xffff_ffff, Exact),
        "slct.u32.f32" => (
            |v| int::slct_f32(v[0], v[1], d32(v), false) & 0xffff_ffff,
            Exact,
        ),
        "slct.ftz.u32.f32" => (
            |v| int::slct_f32(v[0], v[1], d32(v), true) & 0xffff_ffff,
            Exact,
        ),
        "selp.b32" => (
            |v| {
                if v[2] & 1 != 0 {
                    v[0] & 0xffff_ffff
                } else {
                    v[1] & 0xffff_ffff
                }
            },
            Exact,
        ),
        "cvt.s32.s8" => (|v| cv(T::S32, T::S8, v[0], Rn), Exact),
        "cvt.u32.u8" => (|v| cv(T::U32, T::U8, v[0], Rn), Exact),
        "cvt.s32.s16" => (|v| cv(T::S32, T::S16, v[0], Rn), Exact),
        "cvt.u16.u32" => (|v| cv(T::U16, T::U32, v[0], Rn), Exact),
        "cvt.sat.s8.s32" => (|v| cvm(T::S8, T::S32, v[0], sat()) & 0xffff_ffff, Exact),
        "cvt.sat.u8.s32" => (|v| cvm(T::U8, T::S32, v[0], sat()), Exact),
        "cvt.sat.s16.u32" => (|v| cvm(T::S16, T::U32, v[0], sat()), Exact),
        "cvt.sat.u16.s32" => (|v| cvm(T::U16, T::S32, v[0], sat()), Exact),
        "cvt.sat.u32.s32" => (|v| cvm(T::U32, T::S32, v[0], sat()), Exact),
        "cvt.sat.s32.u32" => (|v| cvm(T::S32, T::U32, v[0], sat()), Exact),
        "cvt.sat.s32.s64" => (|v| cvm(T::S32, T::S64, v[0], sat()), Exact),
        "cvt.sat.u32.u64" => (|v| cvm(T::U32, T::U64, v[0], sat()), Exact),
        "cvt.sat.s64.u64" => (|v| cvm(T::S64, T::U64, v[0], sat()), Exact),
        "cvt.s64.s32" => (|v| cv(T::S64, T::S32, v[0], Rn), Exact),
        "cvt.u64.u32" => (|v| cv(T::U64, T::U32, v[0], Rn), Exact),
        "cvt.u32.u64" => (|v| cv(T::U32, T::U64, v[0], Rn), Exact),
        "cvt.pack.sat.s16.s32" => (
            |v| cvt::cvt_pack_sat(S16, a32(v), b32(v), None) as u64,
            Exact,
        ),
        "cvt.pack.sat.u16.s32" => (
            |v| cvt::cvt_pack_sat(U16, a32(v), b32(v), None) as u64,
            Exact,
        ),
        "cvt.pack.sat.u8.s32.b32" => (
            |v| {
                cvt::cvt_pack_sat(
                    IntTy {
                        bits: 8,
                        signed: false,
                    },
                    a32(v),
                    b32(v),
                    Some(d32(v)),
                ) as u64
            },
            Exact,
        ),
        "cvt.pack.sat.s8.s32.b32" => (
            |v| {
                cvt::cvt_pack_sat(
                    IntTy {
                        bits: 8,
                        signed: true,
                    },
                    a32(v),
                    b32(v),
                    Some(d32(v)),
                ) as u64
            },
            Exact,
        ),
        "cvt.rn.f32.s32" => (|v| cv(T::F32, T::S32, v[0], Rn), Exact),
        "cvt.rz.f32.s32" => (|v| cv(T::F32, T::S32, v[0], Rz), Exact),
        "cvt.rm.f32.u32" => (|v| cv(T::F32, T::U32, v[0], Rm), Exact),
        "cvt.rp.f32.u32" => (|v| cv(T::F32, T::U32, v[0], Rp), Exact),
        "cvt.rn.f32.s64" => (|v| cv(T::F32, T::S64, v[0], Rn), Exact),
        "cvt.rz.f32.u64" => (|v| cv(T::F32, T::U64, v[0], Rz), Exact),
        "cvt.rp.f32.s64" => (|v| cv(T::F32, T::S64, v[0], Rp), Exact),
        "cvt.rn.f64.s64" => (|v| cv(T::F64, T::S64, v[0], Rn), Exact),
        "cvt.rm.f64.u64" => (|v| cv(T::F64, T::U64, v[0], Rm), Exact),
        "cvt.rz.f64.s64" => (|v| cv(T::F64, T::S64, v[0], Rz), Exact),
        "cvt.rn.f64.s32" => (|v| cv(T::F64, T::S32, v[0], Rn), Exact),
        "cvt.rn.f16.s32" => (|v| cv(T::F16, T::S32, v[0], Rn), Exact),
        "cvt.rz.f16.u32" => (|v| cv(T::F16, T::U32, v[0], Rz), Exact),
        "cvt.rn.bf16.s32" => (|v| cv(T::Bf16, T::S32, v[0], Rn), Exact),
        // ---- f32
        "add.rn.f32" => (
            |v| fl::f32_add(a32(v), b32(v), fm(Rn, false, false)) as u64,
            Exact,
        ),
        "add.rz.f32" => (
            |v| fl::f32_add(a32(v), b32(v), fm(Rz, false, false)) as u64,
            Exact,
        ),
        "add.rm.f32" => (
            |v| fl::f32_add(a32(v), b32(v), fm(Rm, false, false)) as u64,
            Exact,
        ),
        "add.rp.f32" => (
            |v| fl::f32_add(a32(v), b32(v), fm(Rp, false, false)) as u64,
            Exact,
        ),
        "add.rn.ftz.f32" => (
            |v| fl::f32_add(a32(v), b32(v), fm(Rn, true, false)) as u64,
            Exact,
        ),
        "add.rz.ftz.f32" => (
            |v| fl::f32_add(a32(v), b32(v), fm(Rz, true, false)) as u64,
            Exact,
        ),
        "add.rn.sat.f32" => (
            |v| fl::f32_add(a32(v), b32(v), fm(Rn, false, true)) as u64,
            Exact,
        ),
        "sub.rn.f32" => (
            |v| fl::f32_sub(a32(v), b32(v), fm(Rn, false, false)) as u64,
            Exact,
        ),
        "sub.rm.ftz.f32" => (
            |v| fl::f32_sub(a32(v), b32(v), fm(Rm, true, false)) as u64,
            Exact,
        ),
        "mul.rn.f32" => (
            |v| fl::f32_mul(a32(v), b32(v), fm(Rn, false, false)) as u64,
            Exact,
        ),
        "mul.rz.f32" => (
            |v| fl::f32_mul(a32(v), b32(v), fm(Rz, false, false)) as u64,
            Exact,
        ),
        "mul.rm.f32" => (
            |v| fl::f32_mul(a32(v), b32(v), fm(Rm, false, false)) as u64,
            Exact,
        ),
        "mul.rp.f32" => (
            |v| fl::f32_mul(a32(v), b32(v), fm(Rp, false, false)) as u64,
            Exact,
        ),
        "mul.rn.ftz.f32" => (
            |v| fl::f32_mul(a32(v), b32(v), fm(Rn, true, false)) as u64,
            Exact,
        ),
        "mul.rn.ftz.sat.f32" => (
            |v| fl::f32_mul(a32(v), b32(v), fm(Rn, true, true)) as u64,
            Exact,
        ),
        "fma.rn.f32" | "mad.rn.f32" => (
            |v| fl::f32_fma(a32(v), b32(v), c32(v), fm(Rn, false, false)) as u64,
            Exact,
        ),
        "fma.rz.f32" => (
            |v| fl::f32_fma(a32(v), b32(v), c32(v), fm(Rz, false, false)) as u64,
            Exact,
        ),
        "fma.rm.f32" => (
            |v| fl::f32_fma(a32(v), b32(v), c32(v), fm(Rm, false, false)) as u64,
            Exact,
        ),
        "fma.rp.f32" => (
            |v| fl::f32_fma(a32(v), b32(v), c32(v), fm(Rp, false, false)) as u64,
            Exact,
        ),
        "fma.rn.ftz.f32" => (
            |v| fl::f32_fma(a32(v), b32(v), c32(v), fm(Rn, true, false)) as u64,
            Exact,
        ),
        "fma.rn.sat.f32" => (
            |v| fl::f32_fma(a32(v), b32(v), c32(v), fm(Rn, false, true)) as u64,
            Exact,
        ),
        "div.rn.f32" => (
            |v| fl::f32_div(a32(v), b32(v), fm(Rn, false, false)) as u64,
            Exact,
        ),
        "div.rz.f32" => (
            |v| fl::f32_div(a32(v), b32(v), fm(Rz, false, false)) as u64,
            Exact,
        ),
        "div.rm.f32" => (
            |v| fl::f32_div(a32(v), b32(v), fm(Rm, false, false)) as u64,
            Exact,
        ),
        "div.rp.f32" => (
            |v| fl::f32_div(a32(v), b32(v), fm(Rp, false, false)) as u64,
            Exact,
        ),
        "div.rn.ftz.f32" => (
            |v| fl::f32_div(a32(v), b32(v), fm(Rn, true, false)) as u64,
            Exact,
        ),
        "div.approx.f32" => (
            |v| approx::f32_div_approx(a32(v), b32(v), false) as u64,
            Ulp32(2),
        ),
        "div.approx.ftz.f32" => (
            |v| approx::f32_div_approx(a32(v), b32(v), true) as u64,
            Ulp32(2),
        ),
        "div.full.f32" => (
            |v| approx::f32_div_full(a32(v), b32(v), false) as u64,
            Ulp32(2),
        ),
        "div.full.ftz.f32" => (
            |v| approx::f32_div_full(a32(v), b32(v), true) as u64,
            Ulp32(2),
        ),
        "rcp.rn.f32" => (|v| fl::f32_rcp(a32(v), fm(Rn, false, false)) as u64, Exact),
        "rcp.rz.f32" => (|v| fl::f32_rcp(a32(v), fm(Rz, false, false)) as u64, Exact),
        "rcp.rm.f32" => (|v| fl::f32_rcp(a32(v), fm(Rm, false, false)) as u64, Exact),
        "rcp.rp.f32" => (|v| fl::f32_rcp(a32(v), fm(Rp, false, false)) as u64, Exact),
        "rcp.rn.ftz.f32" => (|v| fl::f32_rcp(a32(v), fm(Rn, true, false)) as u64, Exact),
        "rcp.approx.f32" => (|v| approx::f32_rcp_approx(a32(v), false) as u64, Ulp32(1)),
        "rcp.approx.ftz.f32" => (|v| approx::f32_rcp_approx(a32(v), true) as u64, Ulp32(1)),
        "sqrt.rn.f32" => (|v| fl::f32_sqrt(a32(v), fm(Rn, false, false)) as u64, Exact),
        "sqrt.rz.f32" => (|v| fl::f32_sqrt(a32(v), fm(Rz, false, false)) as u64, Exact),
        "sqrt.rm.f32" => (|v| fl::f32_sqrt(a32(v), fm(Rm, false, false)) as u64, Exact),
        "sqrt.rp.f32" => (|v| fl::f32_sqrt(a32(v), fm(Rp, false, false)) as u64, Exact),
        "sqrt.rn.ftz.f32" => (|v| fl::f32_sqrt(a32(v), fm(Rn, true, false)) as u64, Exact),
        "sqrt.approx.f32" => (|v| approx::f32_sqrt_approx(a32(v), false) as u64, Ulp32(1)),
        "sqrt.approx.ftz.f32" => (|v| approx::f32_sqrt_approx(a32(v), true) as u64, Ulp32(1)),
        "rsqrt.approx.f32" => (|v| approx::f32_rsqrt_approx(a32(v), false) as u64, Ulp32(1)),
        "rsqrt.approx.ftz.f32" => (|v| approx::f32_rsqrt_approx(a32(v), true) as u64, Ulp32(1)),
        "ex2.approx.f32" => (|v| approx::f32_ex2_approx(a32(v), false) as u64, Ulp32(2)),
        "ex2.approx.ftz.f32" => (|v| approx::f32_ex2_approx(a32(v), true) as u64, Ulp32(2)),
        "lg2.approx.f32" => (
            |v| approx::f32_lg2_approx(a32(v), false) as u64,
            UlpOrAbs32(2, 4.0e-7),
        ),
        "lg2.approx.ftz.f32" => (
            |v| approx::f32_lg2_approx(a32(v), true) as u64,
            UlpOrAbs32(2, 4.0e-7),
        ),
        "sin.approx.f32" => (
            |v| approx::f32_sin_approx(a32(v), false) as u64,
            Abs32(1e-5, 100.0),
        ),
        "cos.approx.f32" => (
            |v| approx::f32_cos_approx(a32(v), false) as u64,
            Abs32(1e-5, 100.0),
        ),
        "sin.approx.ftz.f32" => (
            |v| approx::f32_sin_approx(a32(v), true) as u64,
            Abs32(1e-5, 100.0),
        ),
        "tanh.approx.f32" => (|v| approx::f32_tanh_approx(a32(v)) as u64, Ulp32(128)),
        "min.f32" => (
            |v| fl::f32_min(a32(v), b32(v), mm(false, false, false)) as u64,
            Exact,
        ),
        "max.f32" => (
            |v| fl::f32_max(a32(v), b32(v), mm(false, false, false)) as u64,
            Exact,
        ),
        "min.ftz.f32" => (
            |v| fl::f32_min(a32(v), b32(v), mm(true, false, false)) as u64,
            Exact,
        ),
        "max.ftz.f32" => (
            |v| fl::f32_max(a32(v), b32(v), mm(true, false, false)) as u64,
            Exact,
        ),
        "min.NaN.f32" => (
            |v| fl::f32_min(a32(v), b32(v), mm(false, true, false)) as u64,
            Exact,
        ),
        "max.NaN.f32" => (
            |v| fl::f32_max(a32(v), b32(v), mm(false, true, false)) as u64,
            Exact,
        ),
        "min.xorsign.abs.f32" => (
            |v| fl::f32_min(a32(v), b32(v), mm(false, false, true)) as u64,
            Exact,
        ),
        "max.xorsign.abs.f32" => (
            |v| fl::f32_max(a32(v), b32(v), mm(false, false, true)) as u64,
            Exact,
        ),
        "abs.f32" => (|v| fl::f32_abs(a32(v), false) as u64, Exact),
        "abs.ftz.f32" => (|v| fl::f32_abs(a32(v), true) as u64, Exact),
        "neg.f32" => (|v| fl::f32_neg(a32(v), false) as u64, Exact),
        "neg.ftz.f32" => (|v| fl::f32_neg(a32(v), true) as u64, Exact),
        "copysign.f32" => (|v| fl::f32_copysign(a32(v), b32(v)) as u64, Exact),
        "testp.finite.f32" => (|v| p(fl::f32_testp(TestP::Finite, a32(v))), Exact),
        "testp.infinite.f32" => (|v| p(fl::f32_testp(TestP::Infinite, a32(v))), Exact),
        "testp.number.f32" => (|v| p(fl::f32_testp(TestP::Number, a32(v))), Exact),
        "testp.notanumber.f32" => (|v| p(fl::f32_testp(TestP::NotANumber, a32(v))), Exact),
        "testp.normal.f32" => (|v| p(fl::f32_testp(TestP::Normal, a32(v))), Exact),
        "testp.subnormal.f32" => (|v| p(fl::f32_testp(TestP::Subnormal, a32(v))), Exact),
        "setp.eq.f32" => (|v| p(fl::f32_cmp(CmpOp::Eq, a32(v), b32(v), false)), Exact),
        "setp.ne.f32" => (|v| p(fl::f32_cmp(CmpOp::Ne, a32(v), b32(v), false)), Exact),
        "setp.lt.f32" => (|v| p(fl::f32_cmp(CmpOp::Lt, a32(v), b32(v), false)), Exact),
        "setp.le.f32" => (|v| p(fl::f32_cmp(CmpOp::Le, a32(v), b32(v), false)), Exact),
        "setp.gt.f32" => (|v| p(fl::f32_cmp(CmpOp::Gt, a32(v), b32(v), false)), Exact),
        "setp.ge.f32" => (|v| p(fl::f32_cmp(CmpOp::Ge, a32(v), b32(v), false)), Exact),
        "setp.equ.f32" => (|v| p(fl::f32_cmp(CmpOp::Equ, a32(v), b32(v), false)), Exact),
        "setp.neu.f32" => (|v| p(fl::f32_cmp(CmpOp::Neu, a32(v), b32(v), false)), Exact),
        "setp.ltu.f32" => (|v| p(fl::f32_cmp(CmpOp::Ltu, a32(v), b32(v), false)), Exact),
        "setp.leu.f32" => (|v| p(fl::f32_cmp(CmpOp::Leu, a32(v), b32(v), false)), Exact),
        "setp.gtu.f32" => (|v| p(fl::f32_cmp(CmpOp::Gtu, a32(v), b32(v), false)), Exact),
        "setp.geu.f32" => (|v| p(fl::f32_cmp(CmpOp::Geu, a32(v), b32(v), false)), Exact),
        "setp.num.f32" => (|v| p(fl::f32_cmp(CmpOp::Num, a32(v), b32(v), false)), Exact),
        "setp.nan.f32" => (|v| p(fl::f32_cmp(CmpOp::Nan, a32(v), b32(v), false)), Exact),
        "setp.lt.ftz.f32" => (|v| p(fl::f32_cmp(CmpOp::Lt, a32(v), b32(v), true)), Exact),
        "setp.eq.ftz.f32" => (|v| p(fl::f32_cmp(CmpOp::Eq, a32(v), b32(v), true)), Exact),
        "set.gtu.f32.f32" => (
            |v| int::set_result(T::F32, fl::f32_cmp(CmpOp::Gtu, a32(v), b32(v), false)),
            Exact,
        ),
        "set.le.u32.f32" => (
            |v| int::set_result(T::U32, fl::f32_cmp(CmpOp::Le, a32(v), b32(v), false)),
            Exact,
        ),
        "cvt.rni.s32.f32" => (|v| cv(T::S32, T::F32, v[0], Rni), Exact),
        "cvt.rzi.s32.f32" => (|v| cv(T::S32, T::F32, v[0], Rzi), Exact),
        "cvt.rmi.s32.f32" => (|v| cv(T::S32, T::F32, v[0], Rmi), Exact),
        "cvt.rpi.s32.f32" => (|v| cv(T::S32, T::F32, v[0], Rpi), Exact),
        "cvt.rni.u32.f32" => (|v| cv(T::U32, T::F32, v[0], Rni), Exact),
        "cvt.rzi.u32.f32" => (|v| cv(T::U32, T::F32, v[0], Rzi), Exact),
        "cvt.rzi.s64.f32" => (|v| cv(T::S64, T::F32, v[0], Rzi), Exact),
        "cvt.rni.u64.f32" => (|v| cv(T::U64, T::F32, v[0], Rni), Exact),
        "cvt.rni.s16.f32" => (|v| cv(T::S16, T::F32, v[0], Rni) & 0xffff, Exact),
        "cvt.rzi.u16.f32" => (|v| cv(T::U16, T::F32, v[0], Rzi), Exact),
        "cvt.rzi.ftz.s32.f32" => (
            |v| {
                cvm(
                    T::S32,
                    T::F32,
                    v[0],
                    CvtMods {
                        rnd: Rzi,
                        ftz: true,
                        ..Default::default()
                    },
                )
            },
            Exact,
        ),
        "cvt.rni.f32.f32" => (|v| cv(T::F32, T::F32, v[0], Rni), Exact),
        "cvt.rzi.f32.f32" => (|v| cv(T::F32, T::F32, v[0], Rzi), Exact),
        "cvt.rmi.f32.f32" => (|v| cv(T::F32, T::F32, v[0], Rmi), Exact),
        "cvt.rpi.ftz.f32.f32" => (
            |v| {
                cvm(
                    T::F32,
                    T::F32,
                    v[0],
                    CvtMods {
                        rnd: Rpi,
                        ftz: true,
                        ..Default::default()
                    },
                )
            },
            Exact,
        ),
        "cvt.sat.f32.f32" => (|v| cvm(T::F32, T::F32, v[0], sat()), Exact),
        "cvt.ftz.f32.f32" => (
            |v| {
                cvm(
                    T::F32,
                    T::F32,
                    v[0],
                    CvtMods {
                        ftz: true,
                        ..Default::default()
                    },
                )
            },
            Exact,
        ),
        "cvt.f64.f32" => (|v| cv(T::F64, T::F32, v[0], Rn), Exact),
        "cvt.ftz.f64.f32" => (
            |v| {
                cvm(
                    T::F64,
                    T::F32,
                    v[0],
                    CvtMods {
                        ftz: true,
                        ..Default::default()
                    },
                )
            },
            Exact,
        ),
        "cvt.rn.f16.f32" => (|v| cv(T::F16, T::F32, v[0], Rn), Exact),
        "cvt.rz.f16.f32" => (|v| cv(T::F16, T::F32, v[0], Rz), Exact),
        "cvt.rm.f16.f32" => (|v| cv(T::F16, T::F32, v[0], Rm), Exact),
        "cvt.rp.f16.f32" => (|v| cv(T::F16, T::F32, v[0], Rp), Exact),
        "cvt.rn.relu.f16.f32" => (|v| cvm(T::F16, T::F32, v[0], relu(Rn)), Exact),
        "cvt.rn.sat.f16.f32" => (|v| cvm(T::F16, T::F32, v[0], sat()), Exact),
        "cvt.rn.bf16.f32" => (|v| cv(T::Bf16, T::F32, v[0], Rn), Exact),
        "cvt.rz.bf16.f32" => (|v| cv(T::Bf16, T::F32, v[0], Rz), Exact),
        "cvt.rm.bf16.f32" => (|v| cv(T::Bf16, T::F32, v[0], Rm), Exact),
        "cvt.rp.bf16.f32" => (|v| cv(T::Bf16, T::F32, v[0], Rp), Exact),
        "cvt.rn.relu.bf16.f32" => (|v| cvm(T::Bf16, T::F32, v[0], relu(Rn)), Exact),
        "cvt.rn.f16x2.f32" => (|v| pack(T::F16x2, v, CvtMods::rnd(Rn)), Exact),
        "cvt.rn.relu.f16x2.f32" => (|v| pack(T::F16x2, v, relu(Rn)), Exact),
        "cvt.rz.f16x2.f32" => (|v| pack(T::F16x2, v, CvtMods::rnd(Rz)), Exact),
        "cvt.rn.bf16x2.f32" => (|v| pack(T::Bf16x2, v, CvtMods::rnd(Rn)), Exact),
        "cvt.rz.relu.bf16x2.f32" => (|v| pack(T::Bf16x2, v, relu(Rz)), Exact),
        "cvt.rna.tf32.f32" => (|v| cv(T::Tf32, T::F32, v[0], Rna), Exact),
        "cvt.rn.tf32.f32" => (|v| cv(T::Tf32, T::F32, v[0], Rn), Exact),
        "cvt.rz.tf32.f32" => (|v| cv(T::Tf32, T::F32, v[0], Rz), Exact),
        "cvt.rn.satfinite.e4m3x2.f32" => (|v| pack(T::E4m3x2, v, CvtMods::rnd(Rn)), Exact),
        "cvt.rn.satfinite.e5m2x2.f32" => (|v| pack(T::E5m2x2, v, CvtMods::rnd(Rn)), Exact),
        "cvt.rn.satfinite.relu.e4m3x2.f32" => (|v| pack(T::E4m3x2, v, relu(Rn)), Exact),
        "cvt.rn.f16x2.e4m3x2" => (
            |v| cvt::cvt_f16x2_from_f8x2(T::E4m3x2, v[0] as u16, false).unwrap() as u64,
            Exact,
        ),
        "cvt.rn.f16x2.e5m2x2" => (
            |v| cvt::cvt_f16x2_from_f8x2(T::E5m2x2, v[0] as u16, false).unwrap() as u64,
            Exact,
        ),
        "cvt.rn.relu.f16x2.e4m3x2" => (
            |v| cvt::cvt_f16x2_from_f8x2(T::E4m3x2, v[0] as u16, true).unwrap() as u64,
            Exact,
        ),
        // ---- f64
        "add.rn.f64" => (|v| fl::f64_add(v[0], v[1], Rn), Exact),
        "add.rz.f64" => (|v| fl::f64_add(v[0], v[1], Rz), Exact),
        "add.rm.f64" => (|v| fl::f64_add(v[0], v[1], Rm), Exact),
        "add.rp.f64" => (|v| fl::f64_add(v[0], v[1], Rp), Exact),
        "sub.rn.f64" => (|v| fl::f64_sub(v[0], v[1], Rn), Exact),
        "mul.rn.f64" => (|v| fl::f64_mul(v[0], v[1], Rn), Exact),
        "mul.rz.f64" => (|v| fl::f64_mul(v[0], v[1], Rz), Exact),
        "mul.rm.f64" => (|v| fl::f64_mul(v[0], v[1], Rm), Exact),
        "mul.rp.f64" => (|v| fl::f64_mul(v[0], v[1], Rp), Exact),
        "fma.rn.f64" => (|v| fl::f64_fma(v[0], v[1], v[2], Rn), Exact),
        "fma.rz.f64" => (|v| fl::f64_fma(v[0], v[1], v[2], Rz), Exact),
        "fma.rm.f64" => (|v| fl::f64_fma(v[0], v[1], v[2], Rm), Exact),
        "fma.rp.f64" => (|v| fl::f64_fma(v[0], v[1], v[2], Rp), Exact),
        "div.rn.f64" => (|v| fl::f64_div(v[0], v[1], Rn), Exact),
        "div.rz.f64" => (|v| fl::f64_div(v[0], v[1], Rz), Exact),
        "div.rm.f64" => (|v| fl::f64_div(v[0], v[1], Rm), Exact),
        "div.rp.f64" => (|v| fl::f64_div(v[0], v[1], Rp), Exact),
        "rcp.rn.f64" => (|v| fl::f64_div(1f64.to_bits(), v[0], Rn), Exact),
        "rcp.rz.f64" => (|v| fl::f64_div(1f64.to_bits(), v[0], Rz), Exact),
        "rcp.approx.ftz.f64" => (|v| approx::f64_rcp_approx_ftz(v[0]), Rel64(1e-6)),
        "sqrt.rn.f64" => (|v| fl::f64_sqrt(v[0], Rn), Exact),
        "sqrt.rz.f64" => (|v| fl::f64_sqrt(v[0], Rz), Exact),
        "sqrt.rm.f64" => (|v| fl::f64_sqrt(v[0], Rm), Exact),
        "sqrt.rp.f64" => (|v| fl::f64_sqrt(v[0], Rp), Exact),
        "rsqrt.approx.f64" => (|v| approx::f64_rsqrt_approx(v[0]), Rel64(4e-16)),
        "min.f64" => (|v| fl::f64_min(v[0], v[1], mm(false, false, false)), Exact),
        "max.f64" => (|v| fl::f64_max(v[0], v[1], mm(false, false, false)), Exact),
        "abs.f64" => (
            |v| fl::eval_f64(fl::FloatOp::Abs, v[0], 0, 0, FloatMods::RN),
            Exact,
        ),
        "neg.f64" => (
            |v| fl::eval_f64(fl::FloatOp::Neg, v[0], 0, 0, FloatMods::RN),
            Exact,
        ),
        "copysign.f64" => (|v| fl::f64_copysign(v[0], v[1]), Exact),
        "testp.subnormal.f64" => (|v| p(fl::f64_testp(TestP::Subnormal, v[0])), Exact),
        "testp.normal.f64" => (|v| p(fl::f64_testp(TestP::Normal, v[0])), Exact),
        "setp.lt.f64" => (|v| p(fl::f64_cmp(CmpOp::Lt, v[0], v[1])), Exact),
        "setp.geu.f64" => (|v| p(fl::f64_cmp(CmpOp::Geu, v[0], v[1])), Exact),
        "setp.nan.f64" => (|v| p(fl::f64_cmp(CmpOp::Nan, v[0], v[1])), Exact),
        "cvt.rn.f32.f64" => (|v| cv(T::F32, T::F64, v[0], Rn), Exact),
        "cvt.rz.f32.f64" => (|v| cv(T::F32, T::F64, v[0], Rz), Exact),
        "cvt.rm.f32.f64" => (|v| cv(T::F32, T::F64, v[0], Rm), Exact),
        "cvt.rp.f32.f64" => (|v| cv(T::F32, T::F64, v[0], Rp), Exact),
        "cvt.rn.ftz.f32.f64" => (
            |v| {
                cvm(
                    T::F32,
                    T::F64,
                    v[0],
                    CvtMods {
                        ftz: true,
                        ..Default::default()
                    },
                )
            },
            Exact,
        ),
        "cvt.rn.sat.f32.f64" => (|v| cvm(T::F32, T::F64, v[0], sat()), Exact),
        "cvt.rn.f16.f64" => (|v| cv(T::F16, T::F64, v[0], Rn), Exact),
        "cvt.rni.s32.f64" => (|v| cv(T::S32, T::F64, v[0], Rni), Exact),
        "cvt.rzi.u32.f64" => (|v| cv(T::U32, T::F64, v[0], Rzi), Exact),
        "cvt.rzi.s64.f64" => (|v| cv(T::S64, T::F64, v[0], Rzi), Exact),
        "cvt.rni.u64.f64" => (|v| cv(T::U64, T::F64, v[0], Rni), Exact),
        "cvt.rmi.s64.f64" => (|v| cv(T::S64, T::F64, v[0], Rmi), Exact),
        "cvt.rni.f64.f64" => (|v| cv(T::F64, T::F64, v[0], Rni), Exact),
        "cvt.rpi.f64.f64" => (|v| cv(T::F64, T::F64, v[0], Rpi), Exact),
        // ---- f16 / bf16
        "add.rn.f16" => (
            |v| h1(HalfKind::F16, HalfOp::Add, v, hm(false, false, false)),
            Exact,
        ),
        "add.rn.ftz.f16" => (
            |v| h1(HalfKind::F16, HalfOp::Add, v, hm(true, false, false)),
            Exact,
        ),
        "add.rn.sat.f16" => (
            |v| h1(HalfKind::F16, HalfOp::Add, v, hm(false, true, false)),
            Exact,
        ),
        "add.rn.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Add, v, hm(false, false, false)),
            Exact,
        ),
        "sub.rn.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Sub, v, hm(false, false, false)),
            Exact,
        ),
        "mul.rn.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Mul, v, hm(false, false, false)),
            Exact,
        ),
        "mul.rn.ftz.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Mul, v, hm(true, false, false)),
            Exact,
        ),
        "fma.rn.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Fma, v, hm(false, false, false)),
            Exact,
        ),
        "fma.rn.relu.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Fma, v, hm(false, false, true)),
            Exact,
        ),
        "fma.rn.sat.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Fma, v, hm(false, true, false)),
            Exact,
        ),
        "fma.rn.ftz.f16" => (
            |v| h1(HalfKind::F16, HalfOp::Fma, v, hm(true, false, false)),
            Exact,
        ),
        "min.f16x2" => (
            |v| {
                h2(
                    HalfKind::F16,
                    HalfOp::Min(mm(false, false, false)),
                    v,
                    hm(false, false, false),
                )
            },
            Exact,
        ),
        "max.NaN.f16x2" => (
            |v| {
                h2(
                    HalfKind::F16,
                    HalfOp::Max(mm(false, true, false)),
                    v,
                    hm(false, false, false),
                )
            },
            Exact,
        ),
        "min.xorsign.abs.f16x2" => (
            |v| {
                h2(
                    HalfKind::F16,
                    HalfOp::Min(mm(false, false, true)),
                    v,
                    hm(false, false, false),
                )
            },
            Exact,
        ),
        "neg.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Neg, v, hm(false, false, false)),
            Exact,
        ),
        "abs.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Abs, v, hm(false, false, false)),
            Exact,
        ),
        "ex2.approx.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Ex2Approx, v, hm(false, false, false)),
            Ulp16x2(1),
        ),
        "tanh.approx.f16x2" => (
            |v| {
                h2(
                    HalfKind::F16,
                    HalfOp::TanhApprox,
                    v,
                    hm(false, false, false),
                )
            },
            Ulp16x2(1),
        ),
        "cvt.f32.f16" => (|v| cv(T::F32, T::F16, v[0] & 0xffff, Rn), Exact),
        "cvt.rni.s32.f16" => (|v| cv(T::S32, T::F16, v[0] & 0xffff, Rni), Exact),
        "cvt.rn.satfinite.e4m3x2.f16x2" => (
            |v| cvt::cvt_f8x2_from_f16x2(T::E4m3x2, a32(v), false).unwrap() as u64,
            Exact,
        ),
        "add.rn.bf16x2" => (
            |v| h2(HalfKind::Bf16, HalfOp::Add, v, hm(false, false, false)),
            Exact,
        ),
        "sub.rn.bf16" => (
            |v| h1(HalfKind::Bf16, HalfOp::Sub, v, hm(false, false, false)),
            Exact,
        ),
        "mul.rn.bf16x2" => (
            |v| h2(HalfKind::Bf16, HalfOp::Mul, v, hm(false, false, false)),
            Exact,
        ),
        "fma.rn.bf16x2" => (
            |v| h2(HalfKind::Bf16, HalfOp::Fma, v, hm(false, false, false)),
            Exact,
        ),
        "fma.rn.relu.bf16x2" => (
            |v| h2(HalfKind::Bf16, HalfOp::Fma, v, hm(false, false, true)),
            Exact,
        ),
        "min.bf16x2" => (
            |v| {
                h2(
                    HalfKind::Bf16,
                    HalfOp::Min(mm(false, false, false)),
                    v,
                    hm(false, false, false),
                )
            },
            Exact,
        ),
        "max.NaN.bf16x2" => (
            |v| {
                h2(
                    HalfKind::Bf16,
                    HalfOp::Max(mm(false, true, false)),
                    v,
                    hm(false, false, false),
                )
            },
            Exact,
        ),
        "neg.bf16x2" => (
            |v| h2(HalfKind::Bf16, HalfOp::Neg, v, hm(false, false, false)),
            Exact,
        ),
        "abs.bf16x2" => (
            |v| h2(HalfKind::Bf16, HalfOp::Abs, v, hm(false, false, false)),
            Exact,
        ),
        "ex2.approx.ftz.bf16x2" => (
            |v| h2(HalfKind::Bf16, HalfOp::Ex2Approx, v, hm(true, false, false)),
            Ulp16x2(1),
        ),
        "tanh.approx.bf16x2" => (
            |v| {
                h2(
                    HalfKind::Bf16,
                    HalfOp::TanhApprox,
                    v,
                    hm(false, false, false),
                )
            },
            Ulp16x2(1),
        ),
        "cvt.f32.bf16" => (|v| cv(T::F32, T::Bf16, v[0] & 0xffff, Rn), Exact),
        // ---- special-pair classes and the second recording's additions
        "min.NaN.xorsign.abs.f32" => (
            |v| fl::f32_min(a32(v), b32(v), mm(false, true, true)) as u64,
            Exact,
        ),
        "rcp.rm.f64" => (|v| fl::f64_div(1f64.to_bits(), v[0], Rm), Exact),
        "rcp.rp.f64" => (|v| fl::f64_div(1f64.to_bits(), v[0], Rp), Exact),
        "setp.equ.f64" => (|v| p(fl::f64_cmp(CmpOp::Equ, v[0], v[1])), Exact),
        "setp.le.f64" => (|v| p(fl::f64_cmp(CmpOp::Le, v[0], v[1])), Exact),
        "testp.finite.f64" => (|v| p(fl::f64_testp(TestP::Finite, v[0])), Exact),
        "testp.infinite.f64" => (|v| p(fl::f64_testp(TestP::Infinite, v[0])), Exact),
        "testp.notanumber.f64" => (|v| p(fl::f64_testp(TestP::NotANumber, v[0])), Exact),
        "cvt.rzi.s32.f64" => (|v| cv(T::S32, T::F64, v[0], Rzi), Exact),
        "cvt.rpi.u64.f64" => (|v| cv(T::U64, T::F64, v[0], Rpi), Exact),
        "add.rn.ftz.sat.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Add, v, hm(true, true, false)),
            Exact,
        ),
        "min.ftz.NaN.f16x2" => (
            |v| {
                h2(
                    HalfKind::F16,
                    HalfOp::Min(mm(true, true, false)),
                    v,
                    hm(true, false, false),
                )
            },
            Exact,
        ),
        "fma.rn.ftz.relu.f16x2" => (
            |v| h2(HalfKind::F16, HalfOp::Fma, v, hm(true, false, true)),
            Exact,
        ),
        "max.xorsign.abs.bf16x2" => (
            |v| {
                h2(
                    HalfKind::Bf16,
                    HalfOp::Max(mm(false, false, true)),
                    v,
                    hm(false, false, false),
                )
            },
            Exact,
        ),
        "cvt.rni.f16.f16" => (|v| cv(T::F16, T::F16, v[0] & 0xffff, Rni), Exact),
        "cvt.rzi.s16.f16" => (|v| cv(T::S16, T::F16, v[0] & 0xffff, Rzi) & 0xffff, Exact),
        _ => return None,
    };
    Some(m)
}

fn sat() -> CvtMods {
    CvtMods {
        sat: true,
        ..Default::default()
    }
}
fn relu(rnd: Rounding) -> CvtMods {
    CvtMods {
        rnd,
        relu: true,
        ..Default::default()
    }
}
fn pack(dst: T, v: &[u64; 4], m: CvtMods) -> u64 {
    cvt::cvt_pack_f32(dst, a32(v), b32(v), m).unwrap() as u64
}
fn h1(k: HalfKind, op: HalfOp, v: &[u64; 4], m: HalfMods) -> u64 {
    eval_half(k, op, v[0] as u16, v[1] as u16, v[2] as u16, m) as u64
}
fn h2(k: HalfKind, op: HalfOp, v: &[u64; 4], m: HalfMods) -> u64 {
    eval_half_x2(k, op, a32(v), b32(v), c32(v), m) as u64
}

/// The error of one result against the GPU's, in the check's unit; `None` if not comparable
/// (input outside the bound's domain).
fn error(check: Check, class: &str, input: u64, ours: u64, gpu: u64) -> Option<f64> {
    Some(match check {
        Check::Exact => (ours != gpu) as u32 as f64,
        Check::Ulp32(_) => ulp32(ours as u32, gpu as u32) as f64,
        Check::UlpOrAbs32(u, e) => {
            let ulps = ulp32(ours as u32, gpu as u32);
            let abs =
                (f32::from_bits(ours as u32) as f64 - f32::from_bits(gpu as u32) as f64).abs();
            // Report in units of the absolute bound; <= 1 passes.
            if ulps <= u || abs <= e {
                0.0
            } else {
                ulps as f64
            }
        }
        Check::Ulp16x2(_) => {
            let bf = class == "bf16x2";
            ulp16(bf, ours as u16, gpu as u16).max(ulp16(
                bf,
                (ours >> 16) as u16,
                (gpu >> 16) as u16,
            )) as f64
        }
        Check::Abs32(_, dom) => {
            let x = f32::from_bits(input as u32);
            if x.is_nan() || x.abs() > dom {
                return None;
            }
            let (o, g) = (f32::from_bits(ours as u32), f32::from_bits(gpu as u32));
            if o.is_nan() || g.is_nan() || o.is_infinite() || g.is_infinite() {
                if ours as u32 == gpu as u32 || (o.is_nan() && g.is_nan()) {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else {
                (o as f64 - g as f64).abs()
            }
        }
        Check::Rel64(_) => {
            let (o, g) = (f64::from_bits(ours), f64::from_bits(gpu));
            if o == g || (o.is_nan() && g.is_nan()) {
                0.0
            } else if o.is_nan() || g.is_nan() || o.is_infinite() || g.is_infinite() {
                // (o - g) / g would be NaN, and NaN passes every `> bound` test
                f64::INFINITY
            } else {
                ((o - g) / g).abs()
            }
        }
    })
}

fn bound(check: Check) -> f64 {
    match check {
        Check::Exact => 0.0,
        Check::Ulp32(u) | Check::Ulp16x2(u) => u as f64,
        Check::UlpOrAbs32(..) => 0.0,
        Check::Abs32(e, _) => e,
        Check::Rel64(e) => e,
    }
}

#[test]
fn arithmetic_matches_h100_bit_for_bit() {
    let rec = Recording::load();
    let mut failures = Vec::new();
    let mut unmodelled = Vec::new();
    let mut checked = 0usize;
    let mut total_deviations = 0usize;
    for case in rec.cases.iter().filter(|c| c.kernel == "diff_arith") {
        let Some((f, check)) = model(&case.name) else {
            unmodelled.push(case.name.clone());
            continue;
        };
        // The engine's differential test (crates/sim) compares under the shared table.
        assert_eq!(
            check,
            check_of(&case.name),
            "{}: the model's bound differs from tmemu_testkit::h100::check_of",
            case.name
        );
        let n = rec.n;
        let mut worst = 0.0f64;
        let mut bad = 0usize;
        let mut first = String::new();
        let mut deviations = 0usize;
        for i in 0..n {
            let v = rec.operands(&case.class, i);
            let mut ours = f(&v);
            let gpu = case.out[i];
            if case.width == 4 {
                ours &= 0xffff_ffff;
            }
            if isa_deviation(&case.name, &v, ours, gpu) {
                deviations += 1;
                continue;
            }
            let Some(e) = error(check, &case.class, v[0], ours, gpu) else {
                continue;
            };
            worst = worst.max(e);
            if e > bound(check) {
                bad += 1;
                if first.is_empty() {
                    first = format!(
                        "a={:#x} b={:#x} c={:#x} d={:#x}: ours {:#x}, H100 {:#x}",
                        v[0], v[1], v[2], v[3], ours, gpu
                    );
                }
            }
        }
        checked += 1;
        if deviations > 0 {
            eprintln!(
                "{:28} {} documented ISA deviations skipped",
                case.name, deviations
            );
            total_deviations += deviations;
        }
        if !matches!(check, Check::Exact) {
            eprintln!(
                "{:28} worst error vs H100: {:e} (bound {:e})",
                case.name,
                worst,
                bound(check)
            );
        }
        if bad > 0 {
            failures.push(format!(
                "{} ({} of {} differ), first: {}",
                case.name, bad, n, first
            ));
        }
    }
    assert!(
        unmodelled.is_empty(),
        "recorded cases without a model: {unmodelled:?}"
    );
    assert!(checked > 430, "only {checked} cases checked");
    // The deviations are a small, pinned set: if this grows, something else changed.
    assert!(total_deviations < 8000, "{total_deviations} deviations");
    assert!(
        failures.is_empty(),
        "{} cases differ from the H100:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn shuffles_match_h100() {
    let rec = Recording::load();
    let cols = &rec.classes["u32"].words;
    let n = rec.n;
    let modes = [
        ("shfl.sync.idx.b32 c=0x1f", ShflMode::Idx, 0x1f),
        ("shfl.sync.up.b32 c=0x0", ShflMode::Up, 0x0),
        ("shfl.sync.down.b32 c=0x1f", ShflMode::Down, 0x1f),
        ("shfl.sync.bfly.b32 c=0x1f", ShflMode::Bfly, 0x1f),
        ("shfl.sync.idx.b32 c=0x101f", ShflMode::Idx, 0x101f),
        ("shfl.sync.down.b32 c=0x181f", ShflMode::Down, 0x181f),
    ];
    for (name, mode, c) in modes {
        let case = rec.case(name);
        for i in 0..n {
            let lane = (i % 32) as u32;
            let warp = i - lane as usize;
            let b = (cols[n + i] as u32) & 63;
            let (src, pred) = shfl_source(mode, lane, b, c);
            let val = cols[warp + src as usize] as u32;
            let ours = val as u64 | ((pred as u64) << 32);
            assert_eq!(ours, case.out[i], "{name} thread {i} (lane {lane}, b {b})");
        }
    }
}

#[test]
fn shared_atomics_match_h100() {
    let rec = Recording::load();
    let cols = &rec.classes["u32"].words;
    let n = rec.n;
    let block = 128;
    type AtomCase = (&'static str, AtomOp, IntTy, fn(u32) -> u32);
    let ops: [AtomCase; 6] = [
        ("atom.shared.add.u32", AtomOp::Add, IntTy::U32, |b| b),
        ("atom.shared.min.s32", AtomOp::Min, IntTy::S32, |b| b),
        ("atom.shared.max.u32", AtomOp::Max, IntTy::U32, |b| b),
        (
            "atom.shared.and.b32 b|0x01010101",
            AtomOp::And,
            IntTy::U32,
            |b| b | 0x0101_0101,
        ),
        (
            "atom.shared.or.b32 b&0x80808080",
            AtomOp::Or,
            IntTy::U32,
            |b| b & 0x8080_8080,
        ),
        ("atom.shared.xor.b32", AtomOp::Xor, IntTy::U32, |b| b),
    ];
    for (name, op, t, fb) in ops {
        let case = rec.case(name);
        for blk in (0..n).step_by(block) {
            let mut w: Vec<u64> = (0..8)
                .map(|k| cols[2 * n + blk + k] & 0xffff_ffff)
                .collect();
            for i in blk..blk + block {
                let slot = (cols[i] & 7) as usize;
                w[slot] = atom_int(op, t, w[slot], fb(cols[n + i] as u32) as u64, 0);
            }
            for i in blk..blk + block {
                assert_eq!(w[(cols[i] & 7) as usize], case.out[i], "{name} thread {i}");
            }
        }
    }
}

/// The bulk copy landed every word, and after the mbarrier's phase 0 completed, every thread
/// saw try_wait.parity(0) succeed, test_wait.parity(0) true and test_wait.parity(1) false.
#[test]
fn bulk_copy_and_mbarrier_phase_recording() {
    let rec = Recording::load();
    let cols = &rec.classes["u64"].words;
    let case = rec.case("cp.async.bulk+mbarrier");
    for (i, (&out, &input)) in case.out.iter().zip(cols.iter()).enumerate() {
        let flags = (out ^ input) >> 32;
        assert_eq!(out & 0xffff_ffff, input & 0xffff_ffff, "thread {i}");
        assert_eq!(flags, 0b101, "thread {i}: t0 | t1 << 1 | done << 2");
    }
}
