// The differential-test case table: one row per PTX instruction form.
//
// X(name, input_class, out_kind, "ptx template", input operands...)
//
// - name: the PTX instruction as the Rust side (crates/num/tests/num/ops_vs_h100.rs) knows it.
//   A few rows are small sequences; their names end in a '+' suffix that says so.
// - input_class: which deterministic input set feeds a, b, c, d (see harness.cu).
// - out_kind: R (.b32 reg), L (.b64), F (.f32), D (.f64), H (.b16); the output word is stored
//   as u32 (R, F, H) or u64 (L, D).
// - operands: a32/b32/c32/d32 (low 32 bits of the inputs), A/B/C/D (u64), fa/fb/fc (f32),
//   da/db/dc (f64), ha/hb/hc (low 16 bits).
//
// Every row runs on sm_90a (H100). Blackwell-only forms (e2m1x2, .rs, ...) cannot be recorded here.

#define PSEL(setp) "{.reg .pred p; " setp " selp.u32 %0, 1, 0, p;}"
#define PSELQ(setp) "{.reg .pred p, q; setp.ne.u32 q, %3, 0; " setp " selp.u32 %0, 1, 0, p;}"

#define INT_CASES(X)                                                                          \
  X("add.s32", U32, R, "add.s32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("add.sat.s32", U32, R, "add.sat.s32 %0, %1, %2;", "r"(a32), "r"(b32))                     \
  X("sub.s32", U32, R, "sub.s32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("sub.sat.s32", U32, R, "sub.sat.s32 %0, %1, %2;", "r"(a32), "r"(b32))                     \
  X("add.u16", U32, H, "add.u16 %0, %1, %2;", "h"(ha), "h"(hb))                               \
  X("add.s64", U64, L, "add.s64 %0, %1, %2;", "l"(A), "l"(B))                                 \
  X("sub.s64", U64, L, "sub.s64 %0, %1, %2;", "l"(A), "l"(B))                                 \
  X("add.cc+addc.u32", U32, L,                                                                \
    "{.reg .u32 lo, hi; add.cc.u32 lo, %1, %2; addc.u32 hi, %3, %4; mov.b64 %0, {lo, hi}; }", \
    "r"(a32), "r"(b32), "r"(c32), "r"(d32))                                                   \
  X("add.cc+addc+carry.u32", U32, R,                                                          \
    "{.reg .u32 lo, hi; add.cc.u32 lo, %1, %2; addc.cc.u32 hi, %3, %4; addc.u32 %0, 0, 0;}",  \
    "r"(a32), "r"(b32), "r"(c32), "r"(d32))                                                   \
  X("sub.cc+subc.u32", U32, L,                                                                \
    "{.reg .u32 lo, hi; sub.cc.u32 lo, %1, %2; subc.u32 hi, %3, %4; mov.b64 %0, {lo, hi}; }", \
    "r"(a32), "r"(b32), "r"(c32), "r"(d32))                                                   \
  X("mul.lo.s32", U32, R, "mul.lo.s32 %0, %1, %2;", "r"(a32), "r"(b32))                       \
  X("mul.hi.s32", U32, R, "mul.hi.s32 %0, %1, %2;", "r"(a32), "r"(b32))                       \
  X("mul.hi.u32", U32, R, "mul.hi.u32 %0, %1, %2;", "r"(a32), "r"(b32))                       \
  X("mul.wide.s32", U32, L, "mul.wide.s32 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("mul.wide.u32", U32, L, "mul.wide.u32 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("mul.wide.s16", U32, R, "mul.wide.s16 %0, %1, %2;", "h"(ha), "h"(hb))                     \
  X("mul.lo.u16", U32, H, "mul.lo.u16 %0, %1, %2;", "h"(ha), "h"(hb))                         \
  X("mul.lo.s64", U64, L, "mul.lo.s64 %0, %1, %2;", "l"(A), "l"(B))                           \
  X("mul.hi.s64", U64, L, "mul.hi.s64 %0, %1, %2;", "l"(A), "l"(B))                           \
  X("mul.hi.u64", U64, L, "mul.hi.u64 %0, %1, %2;", "l"(A), "l"(B))                           \
  X("mad.lo.s32", U32, R, "mad.lo.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))         \
  X("mad.hi.s32", U32, R, "mad.hi.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))         \
  X("mad.hi.u32", U32, R, "mad.hi.u32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))         \
  X("mad.hi.sat.s32", U32, R, "mad.hi.sat.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32)) \
  X("mad.wide.s32", U32, L, "mad.wide.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "l"(C))       \
  X("mad.wide.u32", U32, L, "mad.wide.u32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "l"(C))       \
  X("mad.lo.s64", U64, L, "mad.lo.s64 %0, %1, %2, %3;", "l"(A), "l"(B), "l"(C))               \
  X("mad.hi.u64", U64, L, "mad.hi.u64 %0, %1, %2, %3;", "l"(A), "l"(B), "l"(C))               \
  X("mad.hi.s64", U64, L, "mad.hi.s64 %0, %1, %2, %3;", "l"(A), "l"(B), "l"(C))               \
  X("mul24.lo.s32", U32, R, "mul24.lo.s32 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("mul24.hi.s32", U32, R, "mul24.hi.s32 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("mul24.lo.u32", U32, R, "mul24.lo.u32 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("mul24.hi.u32", U32, R, "mul24.hi.u32 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("mad24.lo.s32", U32, R, "mad24.lo.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))     \
  X("mad24.hi.u32", U32, R, "mad24.hi.u32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))     \
  X("mad24.hi.sat.s32", U32, R, "mad24.hi.sat.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32),       \
    "r"(c32))                                                                                 \
  X("sad.s32", U32, R, "sad.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))               \
  X("sad.u32", U32, R, "sad.u32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))               \
  X("div.s32", U32, R, "div.s32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("div.u32", U32, R, "div.u32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("rem.s32", U32, R, "rem.s32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("rem.u32", U32, R, "rem.u32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("div.s64", U64, L, "div.s64 %0, %1, %2;", "l"(A), "l"(B))                                 \
  X("div.u64", U64, L, "div.u64 %0, %1, %2;", "l"(A), "l"(B))                                 \
  X("rem.s64", U64, L, "rem.s64 %0, %1, %2;", "l"(A), "l"(B))                                 \
  X("rem.u64", U64, L, "rem.u64 %0, %1, %2;", "l"(A), "l"(B))                                 \
  X("abs.s32", U32, R, "abs.s32 %0, %1;", "r"(a32))                                           \
  X("abs.s16", U32, H, "abs.s16 %0, %1;", "h"(ha))                                            \
  X("abs.s64", U64, L, "abs.s64 %0, %1;", "l"(A))                                             \
  X("neg.s32", U32, R, "neg.s32 %0, %1;", "r"(a32))                                           \
  X("neg.s64", U64, L, "neg.s64 %0, %1;", "l"(A))                                             \
  X("min.s32", U32, R, "min.s32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("max.s32", U32, R, "max.s32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("min.u32", U32, R, "min.u32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("max.u32", U32, R, "max.u32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("min.relu.s32", U32, R, "min.relu.s32 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("max.relu.s32", U32, R, "max.relu.s32 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("min.s16x2", U32, R, "min.s16x2 %0, %1, %2;", "r"(a32), "r"(b32))                         \
  X("max.u16x2", U32, R, "max.u16x2 %0, %1, %2;", "r"(a32), "r"(b32))                         \
  X("max.relu.s16x2", U32, R, "max.relu.s16x2 %0, %1, %2;", "r"(a32), "r"(b32))               \
  X("min.s64", U64, L, "min.s64 %0, %1, %2;", "l"(A), "l"(B))                                 \
  X("max.u64", U64, L, "max.u64 %0, %1, %2;", "l"(A), "l"(B))                                 \
  X("popc.b32", U32, R, "popc.b32 %0, %1;", "r"(a32))                                         \
  X("popc.b64", U64, R, "popc.b64 %0, %1;", "l"(A))                                           \
  X("clz.b32", U32, R, "clz.b32 %0, %1;", "r"(a32))                                           \
  X("clz.b64", U64, R, "clz.b64 %0, %1;", "l"(A))                                             \
  X("bfind.u32", U32, R, "bfind.u32 %0, %1;", "r"(a32))                                       \
  X("bfind.s32", U32, R, "bfind.s32 %0, %1;", "r"(a32))                                       \
  X("bfind.shiftamt.u32", U32, R, "bfind.shiftamt.u32 %0, %1;", "r"(a32))                     \
  X("bfind.shiftamt.s32", U32, R, "bfind.shiftamt.s32 %0, %1;", "r"(a32))                     \
  X("bfind.u64", U64, R, "bfind.u64 %0, %1;", "l"(A))                                         \
  X("bfind.s64", U64, R, "bfind.s64 %0, %1;", "l"(A))                                         \
  X("fns.b32", U32, R, "fns.b32 %0, %1, %2, %3;", "r"(a32), "r"(b32 & 31u), "r"(c32))         \
  X("brev.b32", U32, R, "brev.b32 %0, %1;", "r"(a32))                                         \
  X("brev.b64", U64, L, "brev.b64 %0, %1;", "l"(A))                                           \
  X("bfe.u32", U32, R, "bfe.u32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))               \
  X("bfe.s32", U32, R, "bfe.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))               \
  X("bfe.u64", U64, L, "bfe.u64 %0, %1, %2, %3;", "l"(A), "r"(b32), "r"(c32))                 \
  X("bfe.s64", U64, L, "bfe.s64 %0, %1, %2, %3;", "l"(A), "r"(b32), "r"(c32))                 \
  X("bfi.b32", U32, R, "bfi.b32 %0, %1, %2, %3, %4;", "r"(a32), "r"(d32), "r"(b32), "r"(c32)) \
  X("bfi.b64", U64, L, "bfi.b64 %0, %1, %2, %3, %4;", "l"(A), "l"(D), "r"(b32), "r"(c32))     \
  X("prmt.b32", U32, R, "prmt.b32 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))             \
  X("prmt.b32.f4e", U32, R, "prmt.b32.f4e %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("prmt.b32.b4e", U32, R, "prmt.b32.b4e %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("prmt.b32.rc8", U32, R, "prmt.b32.rc8 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("prmt.b32.ecl", U32, R, "prmt.b32.ecl %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("prmt.b32.ecr", U32, R, "prmt.b32.ecr %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("prmt.b32.rc16", U32, R, "prmt.b32.rc16 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))   \
  X("shl.b32", U32, R, "shl.b32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("shr.u32", U32, R, "shr.u32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("shr.s32", U32, R, "shr.s32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("shl.b16", U32, H, "shl.b16 %0, %1, %2;", "h"(ha), "r"(b32))                              \
  X("shr.s16", U32, H, "shr.s16 %0, %1, %2;", "h"(ha), "r"(b32))                              \
  X("shl.b64", U64, L, "shl.b64 %0, %1, %2;", "l"(A), "r"(b32))                               \
  X("shr.u64", U64, L, "shr.u64 %0, %1, %2;", "l"(A), "r"(b32))                               \
  X("shr.s64", U64, L, "shr.s64 %0, %1, %2;", "l"(A), "r"(b32))                               \
  X("and.b32", U32, R, "and.b32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("or.b32", U32, R, "or.b32 %0, %1, %2;", "r"(a32), "r"(b32))                               \
  X("xor.b32", U32, R, "xor.b32 %0, %1, %2;", "r"(a32), "r"(b32))                             \
  X("not.b32", U32, R, "not.b32 %0, %1;", "r"(a32))                                           \
  X("cnot.b32", U32, R, "cnot.b32 %0, %1;", "r"(b32))                                         \
  X("lop3.b32.0x96", U32, R, "lop3.b32 %0, %1, %2, %3, 0x96;", "r"(a32), "r"(b32), "r"(c32))  \
  X("lop3.b32.0xe8", U32, R, "lop3.b32 %0, %1, %2, %3, 0xe8;", "r"(a32), "r"(b32), "r"(c32))  \
  X("lop3.b32.0x1e", U32, R, "lop3.b32 %0, %1, %2, %3, 0x1e;", "r"(a32), "r"(b32), "r"(c32))  \
  X("lop3.b32.0xca", U32, R, "lop3.b32 %0, %1, %2, %3, 0xca;", "r"(a32), "r"(b32), "r"(c32))  \
  X("lop3.b32.0x01", U32, R, "lop3.b32 %0, %1, %2, %3, 0x01;", "r"(a32), "r"(b32), "r"(c32))  \
  X("shf.l.wrap.b32", U32, R, "shf.l.wrap.b32 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(b32)) \
  X("shf.l.clamp.b32", U32, R, "shf.l.clamp.b32 %0, %1, %2, %3;", "r"(a32), "r"(d32),         \
    "r"(b32))                                                                                 \
  X("shf.r.wrap.b32", U32, R, "shf.r.wrap.b32 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(b32)) \
  X("shf.r.clamp.b32", U32, R, "shf.r.clamp.b32 %0, %1, %2, %3;", "r"(a32), "r"(d32),         \
    "r"(b32))                                                                                 \
  X("dp4a.u32.u32", U32, R, "dp4a.u32.u32 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("dp4a.s32.s32", U32, R, "dp4a.s32.s32 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("dp4a.s32.u32", U32, R, "dp4a.s32.u32 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("dp4a.u32.s32", U32, R, "dp4a.u32.s32 %0, %1, %2, %3;", "r"(a32), "r"(d32), "r"(c32))     \
  X("dp2a.lo.s32.s32", U32, R, "dp2a.lo.s32.s32 %0, %1, %2, %3;", "r"(a32), "r"(d32),         \
    "r"(c32))                                                                                 \
  X("dp2a.hi.u32.u32", U32, R, "dp2a.hi.u32.u32 %0, %1, %2, %3;", "r"(a32), "r"(d32),         \
    "r"(c32))                                                                                 \
  X("dp2a.lo.u32.s32", U32, R, "dp2a.lo.u32.s32 %0, %1, %2, %3;", "r"(a32), "r"(d32),         \
    "r"(c32))                                                                                 \
  X("dp2a.hi.s32.u32", U32, R, "dp2a.hi.s32.u32 %0, %1, %2, %3;", "r"(a32), "r"(d32),         \
    "r"(c32))                                                                                 \
  X("szext.wrap.s32", U32, R, "szext.wrap.s32 %0, %1, %2;", "r"(a32), "r"(b32))               \
  X("szext.clamp.s32", U32, R, "szext.clamp.s32 %0, %1, %2;", "r"(a32), "r"(b32))             \
  X("szext.wrap.u32", U32, R, "szext.wrap.u32 %0, %1, %2;", "r"(a32), "r"(b32))               \
  X("szext.clamp.u32", U32, R, "szext.clamp.u32 %0, %1, %2;", "r"(a32), "r"(b32))             \
  X("bmsk.wrap.b32", U32, R, "bmsk.wrap.b32 %0, %1, %2;", "r"(b32), "r"(c32))                 \
  X("bmsk.clamp.b32", U32, R, "bmsk.clamp.b32 %0, %1, %2;", "r"(b32), "r"(c32))               \
  X("setp.lt.s32", U32, R, PSEL("setp.lt.s32 p, %1, %2;"), "r"(a32), "r"(b32))                \
  X("setp.le.s32", U32, R, PSEL("setp.le.s32 p, %1, %2;"), "r"(a32), "r"(b32))                \
  X("setp.lo.u32", U32, R, PSEL("setp.lo.u32 p, %1, %2;"), "r"(a32), "r"(b32))                \
  X("setp.ls.u32", U32, R, PSEL("setp.ls.u32 p, %1, %2;"), "r"(a32), "r"(b32))                \
  X("setp.hi.u32", U32, R, PSEL("setp.hi.u32 p, %1, %2;"), "r"(a32), "r"(b32))                \
  X("setp.hs.u32", U32, R, PSEL("setp.hs.u32 p, %1, %2;"), "r"(a32), "r"(b32))                \
  X("setp.ge.s64", U64, R, PSEL("setp.ge.s64 p, %1, %2;"), "l"(A), "l"(B))                    \
  X("setp.ne.b32", U32, R, PSEL("setp.ne.b32 p, %1, %2;"), "r"(a32), "r"(b32 & 3u))           \
  X("setp.gt.or.s32", U32, R, PSELQ("setp.gt.or.s32 p, %1, %2, q;"), "r"(a32), "r"(b32),      \
    "r"(c32 & 1u))                                                                            \
  X("setp.gt.and.s32", U32, R, PSELQ("setp.gt.and.s32 p, %1, %2, !q;"), "r"(a32), "r"(b32),   \
    "r"(c32 & 1u))                                                                            \
  X("set.lt.u32.s32", U32, R, "set.lt.u32.s32 %0, %1, %2;", "r"(a32), "r"(b32))               \
  X("set.hi.f32.u32", U32, F, "set.hi.f32.u32 %0, %1, %2;", "r"(a32), "r"(b32))               \
  X("set.eq.xor.u32.u32", U32, R,                                                             \
    "{.reg .pred q; setp.ne.u32 q, %3, 0; set.eq.xor.u32.u32 %0, %1, %2, q;}",                \
    "r"(a32 & 3u), "r"(b32 & 3u), "r"(c32 & 1u))                                              \
  X("slct.s32.s32", U32, R, "slct.s32.s32 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))     \
  X("slct.u32.f32", U32, R, "slct.u32.f32 %0, %1, %2, %3;", "r"(a32), "r"(b32),               \
    "f"(__uint_as_float(d32)))                                                                \
  X("slct.ftz.u32.f32", U32, R, "slct.ftz.u32.f32 %0, %1, %2, %3;", "r"(a32), "r"(b32),       \
    "f"(__uint_as_float(d32)))                                                                \
  X("selp.b32", U32, R, "{.reg .pred q; setp.ne.u32 q, %3, 0; selp.b32 %0, %1, %2, q;}", "r"(a32), \
    "r"(b32), "r"(c32 & 1u))                                                                  \
  X("cvt.s32.s8", U32, R, "cvt.s32.s8 %0, %1;", "r"(a32))                                     \
  X("cvt.u32.u8", U32, R, "cvt.u32.u8 %0, %1;", "r"(a32))                                     \
  X("cvt.s32.s16", U32, R, "cvt.s32.s16 %0, %1;", "r"(a32))                                   \
  X("cvt.u16.u32", U32, H, "cvt.u16.u32 %0, %1;", "r"(a32))                                   \
  X("cvt.sat.s8.s32", U32, R, "cvt.sat.s8.s32 %0, %1;", "r"(a32))                             \
  X("cvt.sat.u8.s32", U32, R, "cvt.sat.u8.s32 %0, %1;", "r"(a32))                             \
  X("cvt.sat.s16.u32", U32, R, "cvt.sat.s16.u32 %0, %1;", "r"(a32))                           \
  X("cvt.sat.u16.s32", U32, R, "cvt.sat.u16.s32 %0, %1;", "r"(a32))                           \
  X("cvt.sat.u32.s32", U32, R, "cvt.sat.u32.s32 %0, %1;", "r"(a32))                           \
  X("cvt.sat.s32.u32", U32, R, "cvt.sat.s32.u32 %0, %1;", "r"(a32))                           \
  X("cvt.sat.s32.s64", U64, R, "cvt.sat.s32.s64 %0, %1;", "l"(A))                             \
  X("cvt.sat.u32.u64", U64, R, "cvt.sat.u32.u64 %0, %1;", "l"(A))                             \
  X("cvt.sat.s64.u64", U64, L, "cvt.sat.s64.u64 %0, %1;", "l"(A))                             \
  X("cvt.s64.s32", U32, L, "cvt.s64.s32 %0, %1;", "r"(a32))                                   \
  X("cvt.u64.u32", U32, L, "cvt.u64.u32 %0, %1;", "r"(a32))                                   \
  X("cvt.u32.u64", U64, R, "cvt.u32.u64 %0, %1;", "l"(A))                                     \
  X("cvt.pack.sat.s16.s32", U32, R, "cvt.pack.sat.s16.s32 %0, %1, %2;", "r"(a32), "r"(b32))   \
  X("cvt.pack.sat.u16.s32", U32, R, "cvt.pack.sat.u16.s32 %0, %1, %2;", "r"(a32), "r"(b32))   \
  X("cvt.pack.sat.u8.s32.b32", U32, R, "cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;", "r"(a32),   \
    "r"(b32), "r"(d32))                                                                       \
  X("cvt.pack.sat.s8.s32.b32", U32, R, "cvt.pack.sat.s8.s32.b32 %0, %1, %2, %3;", "r"(a32),   \
    "r"(b32), "r"(d32))                                                                       \
  X("cvt.rn.f32.s32", U32, F, "cvt.rn.f32.s32 %0, %1;", "r"(a32))                             \
  X("cvt.rz.f32.s32", U32, F, "cvt.rz.f32.s32 %0, %1;", "r"(a32))                             \
  X("cvt.rm.f32.u32", U32, F, "cvt.rm.f32.u32 %0, %1;", "r"(a32))                             \
  X("cvt.rp.f32.u32", U32, F, "cvt.rp.f32.u32 %0, %1;", "r"(a32))                             \
  X("cvt.rn.f32.s64", U64, F, "cvt.rn.f32.s64 %0, %1;", "l"(A))                               \
  X("cvt.rz.f32.u64", U64, F, "cvt.rz.f32.u64 %0, %1;", "l"(A))                               \
  X("cvt.rp.f32.s64", U64, F, "cvt.rp.f32.s64 %0, %1;", "l"(A))                               \
  X("cvt.rn.f64.s64", U64, D, "cvt.rn.f64.s64 %0, %1;", "l"(A))                               \
  X("cvt.rm.f64.u64", U64, D, "cvt.rm.f64.u64 %0, %1;", "l"(A))                               \
  X("cvt.rz.f64.s64", U64, D, "cvt.rz.f64.s64 %0, %1;", "l"(A))                               \
  X("cvt.rn.f64.s32", U32, D, "cvt.rn.f64.s32 %0, %1;", "r"(a32))                             \
  X("cvt.rn.f16.s32", U32, H, "cvt.rn.f16.s32 %0, %1;", "r"(a32))                             \
  X("cvt.rz.f16.u32", U32, H, "cvt.rz.f16.u32 %0, %1;", "r"(a32))                             \
  X("cvt.rn.bf16.s32", U32, H, "cvt.rn.bf16.s32 %0, %1;", "r"(a32))

#define F32_CASES(X)                                                                          \
  X("add.rn.f32", F32, F, "add.rn.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("add.rz.f32", F32, F, "add.rz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("add.rm.f32", F32, F, "add.rm.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("add.rp.f32", F32, F, "add.rp.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("add.rn.ftz.f32", F32, F, "add.rn.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                 \
  X("add.rz.ftz.f32", F32, F, "add.rz.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                 \
  X("add.rn.sat.f32", F32, F, "add.rn.sat.f32 %0, %1, %2;", "f"(fa), "f"(fb))                 \
  X("sub.rn.f32", F32, F, "sub.rn.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("sub.rm.ftz.f32", F32, F, "sub.rm.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                 \
  X("mul.rn.f32", F32, F, "mul.rn.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("mul.rz.f32", F32, F, "mul.rz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("mul.rm.f32", F32, F, "mul.rm.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("mul.rp.f32", F32, F, "mul.rp.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("mul.rn.ftz.f32", F32, F, "mul.rn.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                 \
  X("mul.rn.ftz.sat.f32", F32, F, "mul.rn.ftz.sat.f32 %0, %1, %2;", "f"(fa), "f"(fb))         \
  X("fma.rn.f32", F32, F, "fma.rn.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))            \
  X("fma.rz.f32", F32, F, "fma.rz.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))            \
  X("fma.rm.f32", F32, F, "fma.rm.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))            \
  X("fma.rp.f32", F32, F, "fma.rp.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))            \
  X("fma.rn.ftz.f32", F32, F, "fma.rn.ftz.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))    \
  X("fma.rn.sat.f32", F32, F, "fma.rn.sat.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))    \
  X("mad.rn.f32", F32, F, "mad.rn.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))            \
  X("div.rn.f32", F32, F, "div.rn.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("div.rz.f32", F32, F, "div.rz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("div.rm.f32", F32, F, "div.rm.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("div.rp.f32", F32, F, "div.rp.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("div.rn.ftz.f32", F32, F, "div.rn.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                 \
  X("div.approx.f32", F32, F, "div.approx.f32 %0, %1, %2;", "f"(fa), "f"(fb))                 \
  X("div.approx.ftz.f32", F32, F, "div.approx.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))         \
  X("div.full.f32", F32, F, "div.full.f32 %0, %1, %2;", "f"(fa), "f"(fb))                     \
  X("div.full.ftz.f32", F32, F, "div.full.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))             \
  X("rcp.rn.f32", F32, F, "rcp.rn.f32 %0, %1;", "f"(fa))                                      \
  X("rcp.rz.f32", F32, F, "rcp.rz.f32 %0, %1;", "f"(fa))                                      \
  X("rcp.rm.f32", F32, F, "rcp.rm.f32 %0, %1;", "f"(fa))                                      \
  X("rcp.rp.f32", F32, F, "rcp.rp.f32 %0, %1;", "f"(fa))                                      \
  X("rcp.rn.ftz.f32", F32, F, "rcp.rn.ftz.f32 %0, %1;", "f"(fa))                              \
  X("rcp.approx.f32", F32, F, "rcp.approx.f32 %0, %1;", "f"(fa))                              \
  X("rcp.approx.ftz.f32", F32, F, "rcp.approx.ftz.f32 %0, %1;", "f"(fa))                      \
  X("sqrt.rn.f32", F32, F, "sqrt.rn.f32 %0, %1;", "f"(fa))                                    \
  X("sqrt.rz.f32", F32, F, "sqrt.rz.f32 %0, %1;", "f"(fa))                                    \
  X("sqrt.rm.f32", F32, F, "sqrt.rm.f32 %0, %1;", "f"(fa))                                    \
  X("sqrt.rp.f32", F32, F, "sqrt.rp.f32 %0, %1;", "f"(fa))                                    \
  X("sqrt.rn.ftz.f32", F32, F, "sqrt.rn.ftz.f32 %0, %1;", "f"(fa))                            \
  X("sqrt.approx.f32", F32, F, "sqrt.approx.f32 %0, %1;", "f"(fa))                            \
  X("sqrt.approx.ftz.f32", F32, F, "sqrt.approx.ftz.f32 %0, %1;", "f"(fa))                    \
  X("rsqrt.approx.f32", F32, F, "rsqrt.approx.f32 %0, %1;", "f"(fa))                          \
  X("rsqrt.approx.ftz.f32", F32, F, "rsqrt.approx.ftz.f32 %0, %1;", "f"(fa))                  \
  X("ex2.approx.f32", F32T, F, "ex2.approx.f32 %0, %1;", "f"(fa))                             \
  X("ex2.approx.ftz.f32", F32T, F, "ex2.approx.ftz.f32 %0, %1;", "f"(fa))                     \
  X("lg2.approx.f32", F32, F, "lg2.approx.f32 %0, %1;", "f"(fa))                              \
  X("lg2.approx.ftz.f32", F32, F, "lg2.approx.ftz.f32 %0, %1;", "f"(fa))                      \
  X("sin.approx.f32", F32T, F, "sin.approx.f32 %0, %1;", "f"(fa))                             \
  X("cos.approx.f32", F32T, F, "cos.approx.f32 %0, %1;", "f"(fa))                             \
  X("sin.approx.ftz.f32", F32T, F, "sin.approx.ftz.f32 %0, %1;", "f"(fa))                     \
  X("tanh.approx.f32", F32T, F, "tanh.approx.f32 %0, %1;", "f"(fa))                           \
  X("min.f32", F32, F, "min.f32 %0, %1, %2;", "f"(fa), "f"(fb))                               \
  X("max.f32", F32, F, "max.f32 %0, %1, %2;", "f"(fa), "f"(fb))                               \
  X("min.ftz.f32", F32, F, "min.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("max.ftz.f32", F32, F, "max.ftz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("min.NaN.f32", F32, F, "min.NaN.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("max.NaN.f32", F32, F, "max.NaN.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("min.xorsign.abs.f32", F32, F, "min.xorsign.abs.f32 %0, %1, %2;", "f"(fa), "f"(fb))       \
  X("max.xorsign.abs.f32", F32, F, "max.xorsign.abs.f32 %0, %1, %2;", "f"(fa), "f"(fb))       \
  X("abs.f32", F32, F, "abs.f32 %0, %1;", "f"(fa))                                            \
  X("abs.ftz.f32", F32, F, "abs.ftz.f32 %0, %1;", "f"(fa))                                    \
  X("neg.f32", F32, F, "neg.f32 %0, %1;", "f"(fa))                                            \
  X("neg.ftz.f32", F32, F, "neg.ftz.f32 %0, %1;", "f"(fa))                                    \
  X("copysign.f32", F32, F, "copysign.f32 %0, %1, %2;", "f"(fa), "f"(fb))                     \
  X("testp.finite.f32", F32, R, PSEL("testp.finite.f32 p, %1;"), "f"(fa))                     \
  X("testp.infinite.f32", F32, R, PSEL("testp.infinite.f32 p, %1;"), "f"(fa))                 \
  X("testp.number.f32", F32, R, PSEL("testp.number.f32 p, %1;"), "f"(fa))                     \
  X("testp.notanumber.f32", F32, R, PSEL("testp.notanumber.f32 p, %1;"), "f"(fa))             \
  X("testp.normal.f32", F32, R, PSEL("testp.normal.f32 p, %1;"), "f"(fa))                     \
  X("testp.subnormal.f32", F32, R, PSEL("testp.subnormal.f32 p, %1;"), "f"(fa))               \
  X("setp.eq.f32", F32, R, PSEL("setp.eq.f32 p, %1, %2;"), "f"(fa), "f"(fb))                  \
  X("setp.ne.f32", F32, R, PSEL("setp.ne.f32 p, %1, %2;"), "f"(fa), "f"(fb))                  \
  X("setp.lt.f32", F32, R, PSEL("setp.lt.f32 p, %1, %2;"), "f"(fa), "f"(fb))                  \
  X("setp.le.f32", F32, R, PSEL("setp.le.f32 p, %1, %2;"), "f"(fa), "f"(fb))                  \
  X("setp.gt.f32", F32, R, PSEL("setp.gt.f32 p, %1, %2;"), "f"(fa), "f"(fb))                  \
  X("setp.ge.f32", F32, R, PSEL("setp.ge.f32 p, %1, %2;"), "f"(fa), "f"(fb))                  \
  X("setp.equ.f32", F32, R, PSEL("setp.equ.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("setp.neu.f32", F32, R, PSEL("setp.neu.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("setp.ltu.f32", F32, R, PSEL("setp.ltu.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("setp.leu.f32", F32, R, PSEL("setp.leu.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("setp.gtu.f32", F32, R, PSEL("setp.gtu.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("setp.geu.f32", F32, R, PSEL("setp.geu.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("setp.num.f32", F32, R, PSEL("setp.num.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("setp.nan.f32", F32, R, PSEL("setp.nan.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("setp.lt.ftz.f32", F32, R, PSEL("setp.lt.ftz.f32 p, %1, %2;"), "f"(fa), "f"(fb))          \
  X("setp.eq.ftz.f32", F32, R, PSEL("setp.eq.ftz.f32 p, %1, %2;"), "f"(fa), "f"(fb))          \
  X("set.gtu.f32.f32", F32, F, "set.gtu.f32.f32 %0, %1, %2;", "f"(fa), "f"(fb))               \
  X("set.le.u32.f32", F32, R, "set.le.u32.f32 %0, %1, %2;", "f"(fa), "f"(fb))                 \
  X("cvt.rni.s32.f32", F32, R, "cvt.rni.s32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rzi.s32.f32", F32, R, "cvt.rzi.s32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rmi.s32.f32", F32, R, "cvt.rmi.s32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rpi.s32.f32", F32, R, "cvt.rpi.s32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rni.u32.f32", F32, R, "cvt.rni.u32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rzi.u32.f32", F32, R, "cvt.rzi.u32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rzi.s64.f32", F32, L, "cvt.rzi.s64.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rni.u64.f32", F32, L, "cvt.rni.u64.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rni.s16.f32", F32, H, "cvt.rni.s16.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rzi.u16.f32", F32, H, "cvt.rzi.u16.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rzi.ftz.s32.f32", F32, R, "cvt.rzi.ftz.s32.f32 %0, %1;", "f"(fa))                    \
  X("cvt.rni.f32.f32", F32, F, "cvt.rni.f32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rzi.f32.f32", F32, F, "cvt.rzi.f32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rmi.f32.f32", F32, F, "cvt.rmi.f32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rpi.ftz.f32.f32", F32, F, "cvt.rpi.ftz.f32.f32 %0, %1;", "f"(fa))                    \
  X("cvt.sat.f32.f32", F32, F, "cvt.sat.f32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.ftz.f32.f32", F32, F, "cvt.ftz.f32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.f64.f32", F32, D, "cvt.f64.f32 %0, %1;", "f"(fa))                                    \
  X("cvt.ftz.f64.f32", F32, D, "cvt.ftz.f64.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rn.f16.f32", F32, H, "cvt.rn.f16.f32 %0, %1;", "f"(fa))                              \
  X("cvt.rz.f16.f32", F32, H, "cvt.rz.f16.f32 %0, %1;", "f"(fa))                              \
  X("cvt.rm.f16.f32", F32, H, "cvt.rm.f16.f32 %0, %1;", "f"(fa))                              \
  X("cvt.rp.f16.f32", F32, H, "cvt.rp.f16.f32 %0, %1;", "f"(fa))                              \
  X("cvt.rn.relu.f16.f32", F32, H, "cvt.rn.relu.f16.f32 %0, %1;", "f"(fa))                    \
  X("cvt.rn.sat.f16.f32", F32, H, "cvt.rn.sat.f16.f32 %0, %1;", "f"(fa))                      \
  X("cvt.rn.bf16.f32", F32, H, "cvt.rn.bf16.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rz.bf16.f32", F32, H, "cvt.rz.bf16.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rm.bf16.f32", F32, H, "cvt.rm.bf16.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rp.bf16.f32", F32, H, "cvt.rp.bf16.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rn.relu.bf16.f32", F32, H, "cvt.rn.relu.bf16.f32 %0, %1;", "f"(fa))                  \
  X("cvt.rn.f16x2.f32", F32, R, "cvt.rn.f16x2.f32 %0, %1, %2;", "f"(fa), "f"(fb))             \
  X("cvt.rn.relu.f16x2.f32", F32, R, "cvt.rn.relu.f16x2.f32 %0, %1, %2;", "f"(fa), "f"(fb))   \
  X("cvt.rz.f16x2.f32", F32, R, "cvt.rz.f16x2.f32 %0, %1, %2;", "f"(fa), "f"(fb))             \
  X("cvt.rn.bf16x2.f32", F32, R, "cvt.rn.bf16x2.f32 %0, %1, %2;", "f"(fa), "f"(fb))           \
  X("cvt.rz.relu.bf16x2.f32", F32, R, "cvt.rz.relu.bf16x2.f32 %0, %1, %2;", "f"(fa),          \
    "f"(fb))                                                                                  \
  X("cvt.rna.tf32.f32", F32, R, "cvt.rna.tf32.f32 %0, %1;", "f"(fa))                          \
  X("cvt.rn.tf32.f32", F32, R, "cvt.rn.tf32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rz.tf32.f32", F32, R, "cvt.rz.tf32.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rn.satfinite.e4m3x2.f32", F32, H, "cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;",         \
    "f"(fa), "f"(fb))                                                                         \
  X("cvt.rn.satfinite.e5m2x2.f32", F32, H, "cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;",         \
    "f"(fa), "f"(fb))                                                                         \
  X("cvt.rn.satfinite.relu.e4m3x2.f32", F32, H,                                               \
    "cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;", "f"(fa), "f"(fb))                         \
  X("cvt.rn.f16x2.e4m3x2", U32, R, "cvt.rn.f16x2.e4m3x2 %0, %1;", "h"(ha))                    \
  X("cvt.rn.f16x2.e5m2x2", U32, R, "cvt.rn.f16x2.e5m2x2 %0, %1;", "h"(ha))                    \
  X("cvt.rn.relu.f16x2.e4m3x2", U32, R, "cvt.rn.relu.f16x2.e4m3x2 %0, %1;", "h"(ha))

#define F64_CASES(X)                                                                          \
  X("add.rn.f64", F64, D, "add.rn.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("add.rz.f64", F64, D, "add.rz.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("add.rm.f64", F64, D, "add.rm.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("add.rp.f64", F64, D, "add.rp.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("sub.rn.f64", F64, D, "sub.rn.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("mul.rn.f64", F64, D, "mul.rn.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("mul.rz.f64", F64, D, "mul.rz.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("mul.rm.f64", F64, D, "mul.rm.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("mul.rp.f64", F64, D, "mul.rp.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("fma.rn.f64", F64, D, "fma.rn.f64 %0, %1, %2, %3;", "d"(da), "d"(db), "d"(dc))            \
  X("fma.rz.f64", F64, D, "fma.rz.f64 %0, %1, %2, %3;", "d"(da), "d"(db), "d"(dc))            \
  X("fma.rm.f64", F64, D, "fma.rm.f64 %0, %1, %2, %3;", "d"(da), "d"(db), "d"(dc))            \
  X("fma.rp.f64", F64, D, "fma.rp.f64 %0, %1, %2, %3;", "d"(da), "d"(db), "d"(dc))            \
  X("div.rn.f64", F64, D, "div.rn.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("div.rz.f64", F64, D, "div.rz.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("div.rm.f64", F64, D, "div.rm.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("div.rp.f64", F64, D, "div.rp.f64 %0, %1, %2;", "d"(da), "d"(db))                         \
  X("rcp.rn.f64", F64, D, "rcp.rn.f64 %0, %1;", "d"(da))                                      \
  X("rcp.rz.f64", F64, D, "rcp.rz.f64 %0, %1;", "d"(da))                                      \
  X("rcp.approx.ftz.f64", F64, D, "rcp.approx.ftz.f64 %0, %1;", "d"(da))                      \
  X("sqrt.rn.f64", F64, D, "sqrt.rn.f64 %0, %1;", "d"(da))                                    \
  X("sqrt.rz.f64", F64, D, "sqrt.rz.f64 %0, %1;", "d"(da))                                    \
  X("sqrt.rm.f64", F64, D, "sqrt.rm.f64 %0, %1;", "d"(da))                                    \
  X("sqrt.rp.f64", F64, D, "sqrt.rp.f64 %0, %1;", "d"(da))                                    \
  X("rsqrt.approx.f64", F64, D, "rsqrt.approx.f64 %0, %1;", "d"(da))                          \
  X("min.f64", F64, D, "min.f64 %0, %1, %2;", "d"(da), "d"(db))                               \
  X("max.f64", F64, D, "max.f64 %0, %1, %2;", "d"(da), "d"(db))                               \
  X("abs.f64", F64, D, "abs.f64 %0, %1;", "d"(da))                                            \
  X("neg.f64", F64, D, "neg.f64 %0, %1;", "d"(da))                                            \
  X("copysign.f64", F64, D, "copysign.f64 %0, %1, %2;", "d"(da), "d"(db))                     \
  X("testp.subnormal.f64", F64, R, PSEL("testp.subnormal.f64 p, %1;"), "d"(da))               \
  X("testp.normal.f64", F64, R, PSEL("testp.normal.f64 p, %1;"), "d"(da))                     \
  X("setp.lt.f64", F64, R, PSEL("setp.lt.f64 p, %1, %2;"), "d"(da), "d"(db))                  \
  X("setp.geu.f64", F64, R, PSEL("setp.geu.f64 p, %1, %2;"), "d"(da), "d"(db))                \
  X("setp.nan.f64", F64, R, PSEL("setp.nan.f64 p, %1, %2;"), "d"(da), "d"(db))                \
  X("cvt.rn.f32.f64", F64, F, "cvt.rn.f32.f64 %0, %1;", "d"(da))                              \
  X("cvt.rz.f32.f64", F64, F, "cvt.rz.f32.f64 %0, %1;", "d"(da))                              \
  X("cvt.rm.f32.f64", F64, F, "cvt.rm.f32.f64 %0, %1;", "d"(da))                              \
  X("cvt.rp.f32.f64", F64, F, "cvt.rp.f32.f64 %0, %1;", "d"(da))                              \
  X("cvt.rn.ftz.f32.f64", F64, F, "cvt.rn.ftz.f32.f64 %0, %1;", "d"(da))                      \
  X("cvt.rn.sat.f32.f64", F64, F, "cvt.rn.sat.f32.f64 %0, %1;", "d"(da))                      \
  X("cvt.rn.f16.f64", F64, H, "cvt.rn.f16.f64 %0, %1;", "d"(da))                              \
  X("cvt.rni.s32.f64", F64, R, "cvt.rni.s32.f64 %0, %1;", "d"(da))                            \
  X("cvt.rzi.u32.f64", F64, R, "cvt.rzi.u32.f64 %0, %1;", "d"(da))                            \
  X("cvt.rzi.s64.f64", F64, L, "cvt.rzi.s64.f64 %0, %1;", "d"(da))                            \
  X("cvt.rni.u64.f64", F64, L, "cvt.rni.u64.f64 %0, %1;", "d"(da))                            \
  X("cvt.rmi.s64.f64", F64, L, "cvt.rmi.s64.f64 %0, %1;", "d"(da))                            \
  X("cvt.rni.f64.f64", F64, D, "cvt.rni.f64.f64 %0, %1;", "d"(da))                            \
  X("cvt.rpi.f64.f64", F64, D, "cvt.rpi.f64.f64 %0, %1;", "d"(da))

#define HALF_CASES(X)                                                                         \
  X("add.rn.f16", H16, H, "add.rn.f16 %0, %1, %2;", "h"(ha), "h"(hb))                         \
  X("add.rn.ftz.f16", H16, H, "add.rn.ftz.f16 %0, %1, %2;", "h"(ha), "h"(hb))                 \
  X("add.rn.sat.f16", H16, H, "add.rn.sat.f16 %0, %1, %2;", "h"(ha), "h"(hb))                 \
  X("add.rn.f16x2", H16, R, "add.rn.f16x2 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("sub.rn.f16x2", H16, R, "sub.rn.f16x2 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("mul.rn.f16x2", H16, R, "mul.rn.f16x2 %0, %1, %2;", "r"(a32), "r"(b32))                   \
  X("mul.rn.ftz.f16x2", H16, R, "mul.rn.ftz.f16x2 %0, %1, %2;", "r"(a32), "r"(b32))           \
  X("fma.rn.f16x2", H16, R, "fma.rn.f16x2 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))     \
  X("fma.rn.relu.f16x2", H16, R, "fma.rn.relu.f16x2 %0, %1, %2, %3;", "r"(a32), "r"(b32),     \
    "r"(c32))                                                                                 \
  X("fma.rn.sat.f16x2", H16, R, "fma.rn.sat.f16x2 %0, %1, %2, %3;", "r"(a32), "r"(b32),       \
    "r"(c32))                                                                                 \
  X("fma.rn.ftz.f16", H16, H, "fma.rn.ftz.f16 %0, %1, %2, %3;", "h"(ha), "h"(hb), "h"(hc))    \
  X("min.f16x2", H16, R, "min.f16x2 %0, %1, %2;", "r"(a32), "r"(b32))                         \
  X("max.NaN.f16x2", H16, R, "max.NaN.f16x2 %0, %1, %2;", "r"(a32), "r"(b32))                 \
  X("min.xorsign.abs.f16x2", H16, R, "min.xorsign.abs.f16x2 %0, %1, %2;", "r"(a32), "r"(b32)) \
  X("neg.f16x2", H16, R, "neg.f16x2 %0, %1;", "r"(a32))                                       \
  X("abs.f16x2", H16, R, "abs.f16x2 %0, %1;", "r"(a32))                                       \
  X("ex2.approx.f16x2", H16, R, "ex2.approx.f16x2 %0, %1;", "r"(a32))                         \
  X("tanh.approx.f16x2", H16, R, "tanh.approx.f16x2 %0, %1;", "r"(a32))                       \
  X("cvt.f32.f16", H16, F, "cvt.f32.f16 %0, %1;", "h"(ha))                                    \
  X("cvt.rni.s32.f16", H16, R, "cvt.rni.s32.f16 %0, %1;", "h"(ha))                            \
  X("cvt.rn.satfinite.e4m3x2.f16x2", H16, H, "cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;",         \
    "r"(a32))                                                                                 \
  X("add.rn.bf16x2", BH16, R, "add.rn.bf16x2 %0, %1, %2;", "r"(a32), "r"(b32))                \
  X("sub.rn.bf16", BH16, H, "sub.rn.bf16 %0, %1, %2;", "h"(ha), "h"(hb))                      \
  X("mul.rn.bf16x2", BH16, R, "mul.rn.bf16x2 %0, %1, %2;", "r"(a32), "r"(b32))                \
  X("fma.rn.bf16x2", BH16, R, "fma.rn.bf16x2 %0, %1, %2, %3;", "r"(a32), "r"(b32), "r"(c32))  \
  X("fma.rn.relu.bf16x2", BH16, R, "fma.rn.relu.bf16x2 %0, %1, %2, %3;", "r"(a32), "r"(b32),  \
    "r"(c32))                                                                                 \
  X("min.bf16x2", BH16, R, "min.bf16x2 %0, %1, %2;", "r"(a32), "r"(b32))                      \
  X("max.NaN.bf16x2", BH16, R, "max.NaN.bf16x2 %0, %1, %2;", "r"(a32), "r"(b32))              \
  X("neg.bf16x2", BH16, R, "neg.bf16x2 %0, %1;", "r"(a32))                                    \
  X("abs.bf16x2", BH16, R, "abs.bf16x2 %0, %1;", "r"(a32))                                    \
  X("ex2.approx.ftz.bf16x2", BH16, R, "ex2.approx.ftz.bf16x2 %0, %1;", "r"(a32))              \
  X("tanh.approx.bf16x2", BH16, R, "tanh.approx.bf16x2 %0, %1;", "r"(a32))                    \
  X("cvt.f32.bf16", BH16, F, "cvt.f32.bf16 %0, %1;", "h"(ha))

// Every pair of special values (the *SP classes: a x b over the edge lists, c cycling).
#define SPECIAL_CASES(X)                                                                      \
  X("add.rn.f32", F32SP, F, "add.rn.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("add.rm.f32", F32SP, F, "add.rm.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("sub.rn.f32", F32SP, F, "sub.rn.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("mul.rn.f32", F32SP, F, "mul.rn.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("mul.rn.ftz.sat.f32", F32SP, F, "mul.rn.ftz.sat.f32 %0, %1, %2;", "f"(fa), "f"(fb))       \
  X("fma.rn.f32", F32SP, F, "fma.rn.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))          \
  X("fma.rp.f32", F32SP, F, "fma.rp.f32 %0, %1, %2, %3;", "f"(fa), "f"(fb), "f"(fc))          \
  X("div.rn.f32", F32SP, F, "div.rn.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("div.rz.f32", F32SP, F, "div.rz.f32 %0, %1, %2;", "f"(fa), "f"(fb))                       \
  X("div.approx.f32", F32SP, F, "div.approx.f32 %0, %1, %2;", "f"(fa), "f"(fb))               \
  X("div.full.f32", F32SP, F, "div.full.f32 %0, %1, %2;", "f"(fa), "f"(fb))                   \
  X("min.f32", F32SP, F, "min.f32 %0, %1, %2;", "f"(fa), "f"(fb))                             \
  X("max.NaN.f32", F32SP, F, "max.NaN.f32 %0, %1, %2;", "f"(fa), "f"(fb))                     \
  X("min.xorsign.abs.f32", F32SP, F, "min.xorsign.abs.f32 %0, %1, %2;", "f"(fa), "f"(fb))     \
  X("min.NaN.xorsign.abs.f32", F32SP, F, "min.NaN.xorsign.abs.f32 %0, %1, %2;", "f"(fa),      \
    "f"(fb))                                                                                  \
  X("copysign.f32", F32SP, F, "copysign.f32 %0, %1, %2;", "f"(fa), "f"(fb))                   \
  X("setp.ltu.f32", F32SP, R, PSEL("setp.ltu.f32 p, %1, %2;"), "f"(fa), "f"(fb))              \
  X("setp.ne.f32", F32SP, R, PSEL("setp.ne.f32 p, %1, %2;"), "f"(fa), "f"(fb))                \
  X("add.rn.f64", F64SP, D, "add.rn.f64 %0, %1, %2;", "d"(da), "d"(db))                       \
  X("add.rz.f64", F64SP, D, "add.rz.f64 %0, %1, %2;", "d"(da), "d"(db))                       \
  X("sub.rn.f64", F64SP, D, "sub.rn.f64 %0, %1, %2;", "d"(da), "d"(db))                       \
  X("mul.rn.f64", F64SP, D, "mul.rn.f64 %0, %1, %2;", "d"(da), "d"(db))                       \
  X("mul.rp.f64", F64SP, D, "mul.rp.f64 %0, %1, %2;", "d"(da), "d"(db))                       \
  X("fma.rn.f64", F64SP, D, "fma.rn.f64 %0, %1, %2, %3;", "d"(da), "d"(db), "d"(dc))          \
  X("fma.rm.f64", F64SP, D, "fma.rm.f64 %0, %1, %2, %3;", "d"(da), "d"(db), "d"(dc))          \
  X("div.rn.f64", F64SP, D, "div.rn.f64 %0, %1, %2;", "d"(da), "d"(db))                       \
  X("div.rp.f64", F64SP, D, "div.rp.f64 %0, %1, %2;", "d"(da), "d"(db))                       \
  X("rcp.rm.f64", F64SP, D, "rcp.rm.f64 %0, %1;", "d"(da))                                    \
  X("rcp.rp.f64", F64SP, D, "rcp.rp.f64 %0, %1;", "d"(da))                                    \
  X("sqrt.rn.f64", F64SP, D, "sqrt.rn.f64 %0, %1;", "d"(da))                                  \
  X("min.f64", F64SP, D, "min.f64 %0, %1, %2;", "d"(da), "d"(db))                             \
  X("max.f64", F64SP, D, "max.f64 %0, %1, %2;", "d"(da), "d"(db))                             \
  X("setp.equ.f64", F64SP, R, PSEL("setp.equ.f64 p, %1, %2;"), "d"(da), "d"(db))              \
  X("setp.le.f64", F64SP, R, PSEL("setp.le.f64 p, %1, %2;"), "d"(da), "d"(db))                \
  X("testp.finite.f64", F64SP, R, PSEL("testp.finite.f64 p, %1;"), "d"(da))                   \
  X("testp.infinite.f64", F64SP, R, PSEL("testp.infinite.f64 p, %1;"), "d"(da))               \
  X("testp.notanumber.f64", F64SP, R, PSEL("testp.notanumber.f64 p, %1;"), "d"(da))           \
  X("cvt.rn.f32.f64", F64SP, F, "cvt.rn.f32.f64 %0, %1;", "d"(da))                            \
  X("cvt.rzi.s32.f64", F64SP, R, "cvt.rzi.s32.f64 %0, %1;", "d"(da))                          \
  X("cvt.rpi.u64.f64", F64SP, L, "cvt.rpi.u64.f64 %0, %1;", "d"(da))                          \
  X("cvt.rni.f64.f64", F64SP, D, "cvt.rni.f64.f64 %0, %1;", "d"(da))                          \
  X("add.rn.ftz.sat.f16x2", H16, R, "add.rn.ftz.sat.f16x2 %0, %1, %2;", "r"(a32), "r"(b32))   \
  X("min.ftz.NaN.f16x2", H16, R, "min.ftz.NaN.f16x2 %0, %1, %2;", "r"(a32), "r"(b32))         \
  X("fma.rn.ftz.relu.f16x2", H16, R, "fma.rn.ftz.relu.f16x2 %0, %1, %2, %3;", "r"(a32),       \
    "r"(b32), "r"(c32))                                                                       \
  X("max.xorsign.abs.bf16x2", BH16, R, "max.xorsign.abs.bf16x2 %0, %1, %2;", "r"(a32),        \
    "r"(b32))                                                                                 \
  X("cvt.rni.f16.f16", H16, H, "cvt.rni.f16.f16 %0, %1;", "h"(ha))                            \
  X("cvt.rzi.s16.f16", H16, H, "cvt.rzi.s16.f16 %0, %1;", "h"(ha))                            \
  X("cvt.rn.f16.f32", F32SP, H, "cvt.rn.f16.f32 %0, %1;", "f"(fa))                            \
  X("cvt.rn.satfinite.e5m2x2.f32", F32SP, H, "cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;",       \
    "f"(fa), "f"(fb))

#define ALL_CASES(X) INT_CASES(X) F32_CASES(X) F64_CASES(X) HALF_CASES(X) SPECIAL_CASES(X)
