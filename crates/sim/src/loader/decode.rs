//! Instruction decoding: opcode + modifiers + operands → [`Inst`].
//!
//! Grouped by family (one function each). Whatever is not matched is `unsupported`.
//! Memory-ordering qualifiers (`.relaxed`, `.acquire`, scopes), cache hints and eviction
//! priorities are accepted and ignored: a sequential interpreter orders everything.

use tmemu_ptx::ast::{FloatLit, Instruction, Operand, OperandKind};
use tmemu_ptx::span::Span;

use super::{invalid, unsupported, Gen, Scopes, Sym, VarSpace};
use crate::error::LoadError;
use crate::fp;
use crate::observer::{Fence, MemOrder, Sem};
use crate::program::*;

type R<T> = Result<T, LoadError>;

// Child modules of this one (so they use the decoding context `D`), kept in files of their own.
#[path = "atom128.rs"]
mod atom128;
#[path = "brx.rs"]
mod brx;
#[path = "clc.rs"]
mod clc;
#[path = "matrix.rs"]
mod matrix;
#[path = "mma.rs"]
mod mma;
#[path = "mma_sync.rs"]
mod mma_sync;
#[path = "st_async.rs"]
mod st_async;
#[path = "st_bulk.rs"]
mod st_bulk;
#[path = "stack.rs"]
mod stack;
#[path = "tcgen05.rs"]
mod tcgen05;
#[path = "tma.rs"]
mod tma;
#[path = "wmma.rs"]
mod wmma;

/// Lane width and kind of a type modifier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    B(u8),
    U(u8),
    S(u8),
    F(u8),
    F16x2,
    Bf16x2,
    Bf16,
    F32x2,
    Pred,
}

fn parse_ty(s: &str) -> Option<Ty> {
    Some(match s {
        "b8" => Ty::B(8),
        "b16" => Ty::B(16),
        "b32" => Ty::B(32),
        "b64" => Ty::B(64),
        "u8" => Ty::U(8),
        "u16" => Ty::U(16),
        "u32" => Ty::U(32),
        "u64" => Ty::U(64),
        "s8" => Ty::S(8),
        "s16" => Ty::S(16),
        "s32" => Ty::S(32),
        "s64" => Ty::S(64),
        "f16" => Ty::F(16),
        "f32" => Ty::F(32),
        "f64" => Ty::F(64),
        "f16x2" => Ty::F16x2,
        "bf16x2" => Ty::Bf16x2,
        "bf16" => Ty::Bf16,
        "f32x2" => Ty::F32x2,
        "pred" => Ty::Pred,
        _ => return None,
    })
}

impl Ty {
    fn bits(self) -> u8 {
        match self {
            Ty::B(n) | Ty::U(n) | Ty::S(n) | Ty::F(n) => n,
            Ty::F16x2 | Ty::Bf16x2 => 32,
            Ty::Bf16 => 16,
            Ty::F32x2 => 64,
            Ty::Pred => 1,
        }
    }
    fn signed(self) -> bool {
        matches!(self, Ty::S(_))
    }
    fn narrow(self) -> Narrow {
        match self {
            Ty::S(8) => Narrow::S8,
            Ty::S(16) => Narrow::S16,
            Ty::U(8) | Ty::B(8) => Narrow::U8,
            Ty::U(16) | Ty::B(16) => Narrow::U16,
            _ => Narrow::None,
        }
    }
}

/// The decoding context of one instruction.
struct D<'a, 'g, 'm, 'src> {
    g: &'g mut Gen<'m, 'src>,
    sc: &'a Scopes<'a, 'src>,
    i: &'a Instruction<'src>,
    mods: Vec<&'src str>,
}

impl<'src> D<'_, '_, '_, 'src> {
    fn opcode(&self) -> &'src str {
        self.i.opcode(self.g.src)
    }
    fn has(&self, m: &str) -> bool {
        self.mods.contains(&m)
    }
    fn unsup<T>(&self) -> R<T> {
        unsupported(format!("`{}`", self.opcode()), self.i.span)
    }
    fn unsup_why<T>(&self, why: &str) -> R<T> {
        unsupported(format!("`{}` ({why})", self.opcode()), self.i.span)
    }
    /// The type modifiers, in order.
    fn tys(&self) -> Vec<Ty> {
        self.mods.iter().filter_map(|m| parse_ty(m)).collect()
    }
    fn ty(&self) -> R<Ty> {
        match self.mods.iter().rev().find_map(|m| parse_ty(m)) {
            Some(t) => Ok(t),
            None => invalid(
                format!("`{}` has no type modifier", self.opcode()),
                self.i.opcode_span,
            ),
        }
    }
    fn op(&self, n: usize) -> R<&Operand<'src>> {
        match self.i.operands.get(n) {
            Some(o) => Ok(o),
            None => invalid(
                format!("`{}` needs at least {} operands", self.opcode(), n + 1),
                self.i.span,
            ),
        }
    }
    fn nops(&self) -> usize {
        self.i.operands.len()
    }
    fn lookup(&self, name: &str, span: Span) -> R<Sym> {
        match self.sc.lookup(name) {
            Some(s) => Ok(s),
            None => {
                if let Some(why) = sreg_unmodelled(name) {
                    return unsupported(format!("special register `{name}`: {why}"), span);
                }
                if name.starts_with('%') && sreg(name).is_some() {
                    return unsupported(
                        format!(
                            "special register `{name}` as an operand of `{}`",
                            self.opcode()
                        ),
                        span,
                    );
                }
                invalid(format!("unknown name `{name}`"), span)
            }
        }
    }
    /// An operand as "any": register, immediate (ints, floats as bits of `fbits` width,
    /// variable addresses).
    fn any_w(&self, o: &Operand<'src>, fbits: u8) -> R<Any> {
        Ok(match &o.kind {
            OperandKind::Ident(id) => match self.lookup(id.name, id.span)? {
                Sym::R32(r) => Any::R32(r),
                Sym::R64(r) => Any::R64(r),
                Sym::R128(_) => {
                    return unsupported(
                        format!(
                            "the .b128 register `{}` as an operand of `{}`",
                            id.name,
                            self.opcode()
                        ),
                        id.span,
                    )
                }
                Sym::Var(_, a) => Any::Imm(a),
                Sym::Pred(_) => {
                    return invalid(format!("predicate `{}` used as a value", id.name), id.span)
                }
                Sym::Label(_) | Sym::Func(_) => {
                    return invalid(
                        format!("label or function `{}` used as a value", id.name),
                        id.span,
                    )
                }
            },
            OperandKind::SymbolOffset(id, off) => match self.lookup(id.name, id.span)? {
                Sym::Var(_, a) => Any::Imm(a.wrapping_add(*off as u64)),
                _ => return invalid(format!("`{}` is not a variable", id.name), id.span),
            },
            OperandKind::Int(v) => Any::Imm(*v as u64),
            OperandKind::Float(f) => Any::Imm(float_bits(*f, fbits)),
            OperandKind::Sink => Any::Sink,
            _ => {
                return invalid(
                    format!("unexpected operand form in `{}`", self.opcode()),
                    o.span,
                )
            }
        })
    }
    fn any(&self, o: &Operand<'src>) -> R<Any> {
        self.any_w(o, 32)
    }
    fn s32_w(&self, n: usize, fbits: u8) -> R<S32> {
        let o = self.op(n)?;
        match self.any_w(o, fbits)? {
            Any::R32(r) => Ok(S::R(r)),
            Any::Imm(v) => Ok(S::I(v as u32)),
            Any::R64(_) => invalid(
                format!(
                    "64-bit register where `{}` needs a 32-bit operand",
                    self.opcode()
                ),
                o.span,
            ),
            Any::Sink => invalid("`_` is not a source", o.span),
        }
    }
    fn s32(&self, n: usize) -> R<S32> {
        self.s32_w(n, 32)
    }
    fn s64(&self, n: usize) -> R<S64> {
        let o = self.op(n)?;
        match self.any_w(o, 64)? {
            Any::R64(r) => Ok(S::R(r)),
            Any::Imm(v) => Ok(S::I(v)),
            Any::R32(_) => invalid(
                format!(
                    "32-bit register where `{}` needs a 64-bit operand",
                    self.opcode()
                ),
                o.span,
            ),
            Any::Sink => invalid("`_` is not a source", o.span),
        }
    }
    fn d32(&self, n: usize) -> R<u16> {
        let o = self.op(n)?;
        match self.any(o)? {
            Any::R32(r) => Ok(r),
            _ => invalid(
                format!(
                    "`{}` needs a 32-bit (or narrower) destination register",
                    self.opcode()
                ),
                o.span,
            ),
        }
    }
    fn d64(&self, n: usize) -> R<u16> {
        let o = self.op(n)?;
        match self.any(o)? {
            Any::R64(r) => Ok(r),
            _ => invalid(
                format!("`{}` needs a 64-bit destination register", self.opcode()),
                o.span,
            ),
        }
    }
    fn dany(&self, n: usize) -> R<Any> {
        let o = self.op(n)?;
        match self.any(o)? {
            a @ (Any::R32(_) | Any::R64(_) | Any::Sink) => Ok(a),
            _ => invalid("destination must be a register", o.span),
        }
    }
    fn pred_of(&self, o: &Operand<'src>) -> R<PSrc> {
        match &o.kind {
            OperandKind::Ident(id) => match self.lookup(id.name, id.span)? {
                Sym::Pred(p) => Ok(PSrc::P { idx: p, neg: false }),
                _ => invalid(format!("`{}` is not a predicate", id.name), id.span),
            },
            OperandKind::Not(id) => match self.lookup(id.name, id.span)? {
                Sym::Pred(p) => Ok(PSrc::P { idx: p, neg: true }),
                _ => invalid(format!("`{}` is not a predicate", id.name), id.span),
            },
            OperandKind::Int(v) => Ok(PSrc::Const(*v != 0)),
            _ => invalid("expected a predicate", o.span),
        }
    }
    fn psrc(&self, n: usize) -> R<PSrc> {
        self.pred_of(self.op(n)?)
    }
    fn pdst(&self, n: usize) -> R<u16> {
        match self.psrc(n)? {
            PSrc::P { idx, neg: false } => Ok(idx),
            _ => invalid("expected a predicate destination", self.op(n)?.span),
        }
    }
    /// `[base + off]`
    fn addr(&self, n: usize) -> R<Addr> {
        let o = self.op(n)?;
        let OperandKind::Address(a) = &o.kind else {
            return invalid(
                format!("`{}` expects an address operand [..]", self.opcode()),
                o.span,
            );
        };
        if !a.rest.is_empty() {
            return self.unsup_why("address lists");
        }
        Ok(match &a.base {
            None => Addr {
                base: Any::Imm(0),
                offset: a.offset,
            },
            Some(id) => match self.lookup(id.name, id.span)? {
                Sym::R32(r) => Addr {
                    base: Any::R32(r),
                    offset: a.offset,
                },
                Sym::R64(r) => Addr {
                    base: Any::R64(r),
                    offset: a.offset,
                },
                Sym::Var(_, v) => Addr {
                    base: Any::Imm(v),
                    offset: a.offset,
                },
                _ => return invalid(format!("`{}` cannot be an address", id.name), id.span),
            },
        })
    }
    /// The shared address named by operand `n` when it is a `.shared` variable (`sym` or
    /// `sym+off`), so that its value can carry the executing CTA's rank bits.
    fn shared_sym(&self, n: usize) -> Option<u64> {
        let (name, off) = match &self.i.operands.get(n)?.kind {
            OperandKind::Ident(id) => (id.name, 0),
            OperandKind::SymbolOffset(id, off) => (id.name, *off),
            _ => return None,
        };
        match self.sc.lookup(name)? {
            Sym::Var(VarSpace::Shared, a) => Some(a.wrapping_add(off as u64)),
            _ => None,
        }
    }
    /// The variable space behind an address operand's base name, if it is a variable.
    fn addr_var_space(&self, n: usize) -> Option<VarSpace> {
        let OperandKind::Address(a) = &self.i.operands.get(n)?.kind else {
            return None;
        };
        match self.sc.lookup(a.base?.name)? {
            Sym::Var(s, _) => Some(s),
            _ => None,
        }
    }
    /// Registers of a `{a, b, ...}` vector operand, or the single register.
    fn regs(&self, n: usize) -> R<Vec<Any>> {
        let o = self.op(n)?;
        match &o.kind {
            OperandKind::Vector(items) => items.iter().map(|x| self.any(x)).collect(),
            _ => Ok(vec![self.any(o)?]),
        }
    }
    fn space(&self) -> Space {
        for m in &self.mods {
            match *m {
                "global" => return Space::Global,
                "shared" | "shared::cta" => return Space::Shared,
                "shared::cluster" => return Space::SharedCluster,
                "local" => return Space::Local,
                "param" | "param::entry" | "param::func" => return Space::Param,
                "const" => return Space::Const,
                _ => {}
            }
        }
        Space::Generic
    }
    fn fmods(&self) -> FMods {
        let mut rnd = Rnd::Rn;
        for m in &self.mods {
            rnd = match *m {
                "rn" | "rni" => Rnd::Rn,
                "rz" | "rzi" => Rnd::Rz,
                "rm" | "rmi" => Rnd::Rm,
                "rp" | "rpi" => Rnd::Rp,
                "approx" => Rnd::Approx,
                "full" => Rnd::Full,
                "rna" => Rnd::Rna,
                _ => continue,
            };
        }
        FMods {
            rnd,
            ftz: self.has("ftz"),
            sat: self.has("sat") || self.has("satfinite"),
        }
    }
}

fn float_bits(f: FloatLit, bits: u8) -> u64 {
    match (f, bits) {
        (FloatLit::F32Bits(b), 64) => (f32::from_bits(b) as f64).to_bits(),
        (FloatLit::F32Bits(b), _) => b as u64,
        (FloatLit::F64Bits(b), 64) => b,
        (FloatLit::F64Bits(b), _) => (f64::from_bits(b) as f32).to_bits() as u64,
        (FloatLit::Decimal(v), 64) => v.to_bits(),
        (FloatLit::Decimal(v), _) => (v as f32).to_bits() as u64,
    }
}

pub(crate) fn sreg(name: &str) -> Option<Sreg> {
    let dim = |s: &str| match s {
        "x" => Some(0u8),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    let (base, d) = match name.rsplit_once('.') {
        Some((b, x)) if dim(x).is_some() => (b, dim(x)),
        _ => (name, None),
    };
    Some(match (base, d) {
        ("%tid", Some(i)) => Sreg::Tid(i),
        ("%ntid", Some(i)) => Sreg::Ntid(i),
        ("%ctaid", Some(i)) => Sreg::Ctaid(i),
        ("%nctaid", Some(i)) => Sreg::Nctaid(i),
        ("%clusterid", Some(i)) => Sreg::ClusterId(i),
        ("%nclusterid", Some(i)) => Sreg::NClusterId(i),
        ("%cluster_ctaid", Some(i)) => Sreg::ClusterCtaId(i),
        ("%cluster_nctaid", Some(i)) => Sreg::ClusterNCtaId(i),
        ("%laneid", None) => Sreg::LaneId,
        ("%warpid", None) => Sreg::WarpId,
        ("%nwarpid", None) => Sreg::NWarpId,
        ("%cluster_ctarank", None) => Sreg::ClusterCtaRank,
        ("%cluster_nctarank", None) => Sreg::ClusterNCtaRank,
        ("%is_explicit_cluster", None) => Sreg::IsExplicitCluster,
        ("%smid", None) => Sreg::SmId,
        ("%nsmid", None) => Sreg::NSmId,
        ("%gridid", None) => Sreg::GridId,
        ("%clock", None) => Sreg::Clock,
        ("%clock64", None) => Sreg::Clock64,
        ("%clock_hi", None) => Sreg::ClockHi,
        ("%globaltimer", None) => Sreg::GlobalTimer,
        ("%globaltimer_lo", None) => Sreg::GlobalTimerLo,
        ("%globaltimer_hi", None) => Sreg::GlobalTimerHi,
        ("%lanemask_eq", None) => Sreg::LanemaskEq,
        ("%lanemask_le", None) => Sreg::LanemaskLe,
        ("%lanemask_lt", None) => Sreg::LanemaskLt,
        ("%lanemask_ge", None) => Sreg::LanemaskGe,
        ("%lanemask_gt", None) => Sreg::LanemaskGt,
        ("%dynamic_smem_size", None) => Sreg::DynamicSmemSize,
        ("%total_smem_size", None) => Sreg::TotalSmemSize,
        ("%aggr_smem_size", None) => Sreg::AggrSmemSize,
        ("%current_graph_exec", None) => Sreg::CurrentGraphExec,
        _ => return None,
    })
}

/// Special registers of the PTX ISA's list (§10) whose values the platform defines and tmemu
/// cannot know: reading one is `unsupported` (verdict incomplete), never bad input, because
/// ptxas accepts them. The reserved region's offsets are where the driver keeps its own
/// shared-memory state; a made-up value would let a kernel that stores there look clean.
pub(crate) fn sreg_unmodelled(name: &str) -> Option<&'static str> {
    // `%<prefix><i>` with a decimal index below `n`, written without leading zeros
    let indexed = |prefix: &str, n: u32| {
        name.strip_prefix(prefix).is_some_and(|i| {
            !i.is_empty()
                && i.bytes().all(|c| c.is_ascii_digit())
                && (i == "0" || !i.starts_with('0'))
                && i.parse::<u32>().is_ok_and(|i| i < n)
        })
    };
    const RESERVED: &str = "the driver-reserved shared memory region is not modelled";
    const PM: &str = "performance-monitor counters are undefined by the ISA";
    Some(match name {
        "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_cap" => RESERVED,
        _ if indexed("%reserved_smem_offset_", 2) => RESERVED,
        _ if indexed("%envreg", 32) => "the driver-defined %envreg values are not modelled",
        _ if indexed("%pm", 8) => PM,
        _ if name.strip_suffix("_64").is_some_and(|b| {
            b.len() == 4 && b.starts_with("%pm") && (b"01234567").contains(&b.as_bytes()[3])
        }) =>
        {
            PM
        }
        _ => return None,
    })
}

/// Decodes one instruction and appends it to the kernel.
pub(crate) fn instruction<'src>(
    g: &mut Gen<'_, 'src>,
    sc: &Scopes<'_, 'src>,
    i: &Instruction<'src>,
) -> R<()> {
    let mut mods = std::mem::take(&mut g.mods);
    mods.clear();
    mods.extend(i.modifiers.iter());
    let mut d = D { g, sc, i, mods };
    let guard = match &i.guard {
        None => None,
        Some(gd) => match d.lookup(gd.pred.name, gd.pred.span)? {
            Sym::Pred(p) => Some(PSrc::P {
                idx: p,
                neg: gd.negated,
            }),
            _ => {
                return invalid(
                    format!("guard `{}` is not a predicate", gd.pred.name),
                    gd.span,
                )
            }
        },
    };
    let inst = decode(&mut d)?;
    let g = d.g;
    g.mods = d.mods;
    g.code.push(inst);
    g.guards.push(guard);
    g.info.push(InstInfo {
        span: i.span,
        opcode: i.opcode_span,
    });
    Ok(())
}

fn decode(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let name = d.i.name;
    match name {
        "mov" if d.has("b128") => clc::mov128(d),
        "mov" => mov(d),
        "mul24" | "mad24" | "sad" | "dp4a" | "dp2a" | "bmsk" | "szext" | "fns" | "slct" | "set" => {
            int_ext(d)
        }
        "mad" if d.has("sat") && d.has("hi") && d.has("s32") => int_ext(d),
        "min" | "max" if (d.has("relu") && d.has("s32")) || d.has("s16x2") || d.has("u16x2") => {
            int_ext(d)
        }
        "prmt"
            if d.mods.iter().any(|m| {
                tmemu_num::ops::int::PrmtMode::from_ptx(m)
                    .is_some_and(|m| m != tmemu_num::ops::int::PrmtMode::Default)
            }) =>
        {
            int_ext(d)
        }
        "add" | "sub" | "mul" | "mad" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor"
        | "not" | "shl" | "shr" | "neg" | "abs" | "popc" | "clz" | "brev" | "bfind" | "cnot"
        | "fma" | "bfe" | "bfi" | "prmt" | "lop3" | "shf" | "sqrt" | "rsqrt" | "rcp" | "ex2"
        | "lg2" | "sin" | "cos" | "tanh" | "copysign" => arith(d),
        "addc" | "subc" | "madc" => {
            let ty = d.ty()?;
            if !matches!(ty, Ty::U(32 | 64) | Ty::S(32 | 64) | Ty::B(32 | 64)) {
                return d.unsup();
            }
            carry(d, d.i.name, ty)
        }
        "setp" => setp(d),
        "testp" => {
            let op = d
                .mods
                .iter()
                .find_map(|m| tmemu_num::ops::TestP::from_ptx(m));
            let ty = d.ty()?;
            match (op, ty) {
                (Some(op), Ty::F(32) | Ty::F(64)) => Ok(Inst::Testp {
                    op,
                    f64: ty == Ty::F(64),
                    p: d.pdst(0)?,
                    a: d.any_w(d.op(1)?, ty.bits())?,
                }),
                _ => d.unsup(),
            }
        }
        "selp" => selp(d),
        "cvt" => cvt(d),
        "cvta" => {
            let to = d.has("to");
            let sp = d.space();
            if let (false, Space::Shared | Space::SharedCluster, Some(a)) =
                (to, sp, d.shared_sym(1))
            {
                return Ok(Inst::MovSharedSym {
                    generic: true,
                    d: d.dany(0)?,
                    a,
                });
            }
            Ok(Inst::Cvta {
                to_generic: !to,
                space: sp,
                d: d.dany(0)?,
                a: d.any(d.op(1)?)?,
            })
        }
        "ld" | "st" if d.has("b128") => clc::ldst128(d),
        // `st.bulk` (sm_100: zero a shared-memory region): loader/st_bulk.rs, exec/st_bulk.rs
        "st" if d.has("bulk") => st_bulk::st_bulk(d),
        "ld" | "ldu" | "st" => ldst(d),
        "clusterlaunchcontrol" => clc::decode(d),
        "atom" | "red" => atom(d),
        "bra" => {
            let o = d.op(0)?;
            let OperandKind::Ident(id) = &o.kind else {
                return invalid("bra needs a label", o.span);
            };
            match d.lookup(id.name, id.span)? {
                Sym::Label(pc) => Ok(Inst::Bra {
                    target: pc,
                    uni: d.has("uni"),
                }),
                _ => invalid(format!("`{}` is not a label", id.name), id.span),
            }
        }
        "call" => call(d),
        "ret" => Ok(Inst::Ret),
        "exit" => Ok(Inst::Exit),
        "trap" => Ok(Inst::Trap),
        "brkpt" => Ok(Inst::Brkpt),
        "bar" | "barrier" => bar(d),
        // every fence/membar orders memory, which a sequential interpreter does anyway
        // fences order memory, which a sequential interpreter does anyway; kept as events
        "membar" | "fence" => Ok(Inst::Fence {
            kind: fence_kind(d),
        }),
        "shfl" | "vote" | "redux" | "match" | "elect" | "activemask" => warp_op(d),
        "mbarrier" => mbar(d),
        "isspacep" => {
            let space = d.space();
            if space == Space::Generic || d.nops() != 2 {
                return d.unsup();
            }
            Ok(Inst::Isspacep {
                d: d.pdst(0)?,
                space,
                a: d.any(d.op(1)?)?,
            })
        }
        "cp" if d.has("tensor") || d.has("prefetch") => tma::cp_tensor(d),
        "cp" if d.has("reduce") => tma::cp_reduce_bulk(d),
        "cp" => cp(d),
        "tensormap" => tma::tensormap(d),
        "tcgen05" if d.has("mma") => mma::mma(d),
        "mma" => mma_sync::mma_sync(d),
        "wmma" => wmma::wmma(d),
        "ldmatrix" | "stmatrix" => matrix::matrix(d),
        "movmatrix" => matrix::movmatrix(d),
        "alloca" | "stacksave" | "stackrestore" => stack::stack(d),
        "brx" => brx::brx(d),
        "tcgen05" => tcgen05::decode(d),
        "mapa" => {
            let generic = !d.has("shared::cluster");
            Ok(Inst::Mapa {
                generic,
                d: d.dany(0)?,
                a: d.any(d.op(1)?)?,
                rank: d.s32(2)?,
            })
        }
        "griddepcontrol" => {
            if d.has("launch_dependents") {
                Ok(Inst::GriddepLaunch)
            } else {
                Ok(Inst::GriddepWait)
            }
        }
        "setmaxnreg" => {
            let n = match &d.op(0)?.kind {
                OperandKind::Int(v) => *v as u32,
                _ => return invalid("setmaxnreg needs an immediate", d.op(0)?.span),
            };
            if !(24..=256).contains(&n) || n % 8 != 0 {
                return invalid(
                    format!("setmaxnreg count {n} must be a multiple of 8 in [24, 256]"),
                    d.op(0)?.span,
                );
            }
            Ok(Inst::Setmaxnreg {
                inc: d.has("inc"),
                count: n,
            })
        }
        "prefetch" | "prefetchu" | "nanosleep" | "pmevent" | "discard" | "applypriority" => {
            Ok(Inst::Nop)
        }
        "createpolicy" => Ok(Inst::Mov64 {
            d: d.d64(0)?,
            a: S::I(0),
        }),
        "getctarank" => {
            // a shared variable names the executing CTA's own memory: its rank
            if d.shared_sym(1).is_some() {
                return Ok(Inst::MovSreg {
                    d: d.dany(0)?,
                    s: Sreg::ClusterCtaRank,
                });
            }
            Ok(Inst::Getctarank {
                generic: !d.has("shared::cluster"),
                d: d.dany(0)?,
                a: d.any(d.op(1)?)?,
            })
        }
        _ => d.unsup(),
    }
}

fn mov(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let ty = d.ty()?;
    let src = d.op(1)?;
    let dst = d.op(0)?;
    // special registers
    if let OperandKind::Ident(id) = &src.kind {
        if d.sc.lookup(id.name).is_none() {
            if let Some(s) = sreg(id.name) {
                // `mov.pred p, %is_explicit_cluster` (PTX 7.8): the one predicate register
                if ty == Ty::Pred {
                    if s != Sreg::IsExplicitCluster {
                        return invalid(
                            format!("`{}` is not a predicate special register", id.name),
                            src.span,
                        );
                    }
                    return Ok(Inst::MovSregPred { d: d.pdst(0)?, s });
                }
                return Ok(Inst::MovSreg { d: d.dany(0)?, s });
            }
            if let Some(why) = sreg_unmodelled(id.name) {
                return unsupported(format!("special register `{}`: {why}", id.name), src.span);
            }
        }
    }
    if let Some(a) = d.shared_sym(1) {
        return Ok(Inst::MovSharedSym {
            generic: false,
            d: d.dany(0)?,
            a,
        });
    }
    if ty == Ty::Pred {
        return Ok(Inst::PredMov {
            d: d.pdst(0)?,
            a: d.psrc(1)?,
        });
    }
    match (&dst.kind, &src.kind) {
        (_, OperandKind::Vector(items)) if items.len() == 2 => {
            let lo = d.any(&items[0])?;
            let hi = d.any(&items[1])?;
            let cv = |a: Any| match a {
                Any::R32(r) => Ok(S::R(r)),
                Any::Imm(v) => Ok(S::I(v as u32)),
                _ => invalid("mov pack: halves must be 32-bit or narrower", src.span),
            };
            if ty.bits() == 64 {
                Ok(Inst::Pack64 {
                    d: d.d64(0)?,
                    lo: cv(lo)?,
                    hi: cv(hi)?,
                })
            } else if ty.bits() == 32 {
                Ok(Inst::Pack32 {
                    d: d.d32(0)?,
                    lo: cv(lo)?,
                    hi: cv(hi)?,
                })
            } else {
                d.unsup()
            }
        }
        (OperandKind::Vector(items), _) if items.len() == 2 => {
            let lo = d.any(&items[0])?;
            let hi = d.any(&items[1])?;
            if ty.bits() == 64 {
                Ok(Inst::Unpack64 {
                    lo,
                    hi,
                    a: d.s64(1)?,
                })
            } else if ty.bits() == 32 {
                Ok(Inst::Unpack32 {
                    lo,
                    hi,
                    a: d.s32(1)?,
                })
            } else {
                d.unsup()
            }
        }
        // Triton 3.9's e2m1 upcast (holdout ho5_dot_scaled_bf16_mxfp4):
        // `mov.b32 {b0, b1, b2, b3}, %r` into `.b8` registers
        (OperandKind::Vector(items), _) if items.len() == 4 && ty.bits() == 32 => {
            Ok(Inst::Unpack32x4 {
                d: Box::new([
                    d.any(&items[0])?,
                    d.any(&items[1])?,
                    d.any(&items[2])?,
                    d.any(&items[3])?,
                ]),
                a: d.s32(1)?,
            })
        }
        (OperandKind::Vector(_), _) | (_, OperandKind::Vector(_)) => d.unsup_why("vector of 4"),
        _ => {
            if ty.bits() == 64 {
                Ok(Inst::Mov64 {
                    d: d.d64(0)?,
                    a: d.s64(1)?,
                })
            } else {
                Ok(Inst::Mov32 {
                    d: d.d32(0)?,
                    a: d.s32_w(1, 32)?,
                })
            }
        }
    }
}

/// The rarer 32-bit integer forms ([`IntExtOp`]), evaluated by `tmemu_num::ops::int`.
fn int_ext(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let name = d.i.name;
    // the type modifiers in order (dp4a/dp2a have two: atype, btype)
    let tys: Vec<&str> = d
        .mods
        .iter()
        .copied()
        .filter(|m| matches!(*m, "s32" | "u32" | "b32" | "s16x2" | "u16x2"))
        .collect();
    // Some(signed) when the form has exactly one type and it is one of `want`
    let one = |want: &[&str]| match tys.as_slice() {
        [t] if want.contains(t) => Some(t.starts_with('s')),
        _ => None,
    };
    let (hi, clamp, sat, relu) = (d.has("hi"), d.has("clamp"), d.has("sat"), d.has("relu"));
    let op = match name {
        "mul24" => one(&["s32", "u32"]).map(|signed| IntExtOp::Mul24 { signed, hi }),
        // .sat only with .hi.s32
        "mad24" => one(&["s32", "u32"])
            .filter(|&signed| !sat || (signed && hi))
            .map(|signed| IntExtOp::Mad24 { signed, hi, sat }),
        "sad" => one(&["s32", "u32"]).map(|signed| IntExtOp::Sad { signed }),
        "dp4a" | "dp2a" => match tys.as_slice() {
            [a, b] if ["s32", "u32"].contains(a) && ["s32", "u32"].contains(b) => {
                let (a_signed, b_signed) = (a.starts_with('s'), b.starts_with('s'));
                Some(if name == "dp4a" {
                    IntExtOp::Dp4a { a_signed, b_signed }
                } else {
                    IntExtOp::Dp2a {
                        hi,
                        a_signed,
                        b_signed,
                    }
                })
            }
            _ => None,
        },
        "bmsk" => one(&["b32"]).map(|_| IntExtOp::Bmsk { clamp }),
        "szext" => one(&["s32", "u32"]).map(|signed| IntExtOp::Szext { signed, clamp }),
        "fns" => one(&["b32"]).map(|_| IntExtOp::Fns),
        "mad" => (one(&["s32"]).is_some() && hi && sat).then_some(IntExtOp::MadHiSatS32),
        "min" | "max" => {
            let is_min = name == "min";
            match tys.as_slice() {
                ["s32"] if relu => Some(IntExtOp::MinMaxReluS32 { is_min }),
                ["s16x2"] => Some(IntExtOp::MinMax16x2 {
                    signed: true,
                    is_min,
                    relu,
                }),
                ["u16x2"] if !relu => Some(IntExtOp::MinMax16x2 {
                    signed: false,
                    is_min,
                    relu,
                }),
                _ => None,
            }
        }
        "slct" => {
            let all: Vec<&str> = d
                .mods
                .iter()
                .copied()
                .filter(|m| tmemu_num::ops::ScalarType::from_ptx(m).is_some())
                .collect();
            match all.as_slice() {
                [dt, ct]
                    if matches!(*dt, "b32" | "u32" | "s32" | "f32")
                        && matches!(*ct, "s32" | "f32") =>
                {
                    Some(IntExtOp::Slct {
                        c_f32: *ct == "f32",
                        ftz: d.has("ftz"),
                    })
                }
                _ => None,
            }
        }
        "set" => {
            let all: Vec<&str> = d
                .mods
                .iter()
                .copied()
                .filter(|m| tmemu_num::ops::ScalarType::from_ptx(m).is_some())
                .collect();
            let cmp = d
                .mods
                .iter()
                .find_map(|m| tmemu_num::ops::CmpOp::from_ptx(m));
            match (cmp, all.as_slice()) {
                (Some(op), [dt, st])
                    if matches!(*dt, "u32" | "s32" | "f32")
                        && matches!(*st, "b32" | "u32" | "s32" | "f32") =>
                {
                    Some(IntExtOp::Set {
                        op,
                        src_f32: *st == "f32",
                        signed: *st == "s32",
                        ftz: d.has("ftz"),
                        dst_f32: *dt == "f32",
                    })
                }
                _ => None,
            }
        }
        "prmt" => one(&["b32"]).and_then(|_| {
            d.mods
                .iter()
                .find_map(|m| tmemu_num::ops::int::PrmtMode::from_ptx(m))
                .filter(|m| *m != tmemu_num::ops::int::PrmtMode::Default)
                .map(IntExtOp::Prmt)
        }),
        _ => None,
    };
    let Some(op) = op else {
        return d.unsup();
    };
    // set.CmpOp.BoolOp.dtype.stype d, a, b, {!}c (PTX ISA §9.7.7.x): the comparison combined
    // with predicate c before the result is written
    let bool_op = match () {
        _ if name != "set" => None,
        _ if d.has("and") => Some(BoolOp::And),
        _ if d.has("or") => Some(BoolOp::Or),
        _ if d.has("xor") => Some(BoolOp::Xor),
        _ => None,
    };
    if let Some(bool_op) = bool_op {
        if d.nops() != 4 {
            return invalid(
                "set with a boolean operation takes d, a, b, {!}c".to_string(),
                d.i.span,
            );
        }
        return Ok(Inst::SetBool {
            op,
            bool_op,
            d: d.d32(0)?,
            a: d.s32(1)?,
            b: d.s32(2)?,
            c: d.psrc(3)?,
        });
    }
    let two_src = matches!(name, "mul24" | "bmsk" | "szext" | "min" | "max" | "set");
    if d.nops() != if two_src { 3 } else { 4 } {
        return d.unsup();
    }
    Ok(Inst::IntExt32 {
        op,
        d: d.d32(0)?,
        a: d.s32(1)?,
        b: d.s32(2)?,
        c: if two_src { d.s32(2)? } else { d.s32(3)? },
    })
}

fn int_op(name: &str, ty: Ty, d: &D<'_, '_, '_, '_>) -> R<IntOp> {
    let s = ty.signed();
    Ok(match name {
        "add" if d.has("sat") => IntOp::AddSatS,
        "sub" if d.has("sat") => IntOp::SubSatS,
        "add" => IntOp::Add,
        "sub" => IntOp::Sub,
        "mul" if d.has("hi") => {
            if s {
                IntOp::MulHiS
            } else {
                IntOp::MulHiU
            }
        }
        "mul" => IntOp::MulLo,
        "div" => {
            if s {
                IntOp::DivS
            } else {
                IntOp::DivU
            }
        }
        "rem" => {
            if s {
                IntOp::RemS
            } else {
                IntOp::RemU
            }
        }
        "min" => {
            if s {
                IntOp::MinS
            } else {
                IntOp::MinU
            }
        }
        "max" => {
            if s {
                IntOp::MaxS
            } else {
                IntOp::MaxU
            }
        }
        "and" => IntOp::And,
        "or" => IntOp::Or,
        "xor" => IntOp::Xor,
        "shl" => IntOp::Shl,
        "shr" => {
            if s {
                IntOp::ShrS
            } else {
                IntOp::ShrU
            }
        }
        _ => return d.unsup(),
    })
}

fn arith(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let name = d.i.name;
    let ty = d.ty()?;
    if d.has("cc")
        && matches!(name, "add" | "sub" | "mad")
        && matches!(ty, Ty::U(32 | 64) | Ty::S(32 | 64) | Ty::B(32 | 64))
    {
        return carry(d, name, ty);
    }
    // `.relu` is defined on the 16-bit float `fma` (PTX ISA §9.7.4.x, sm_80): negative results
    // clamp to +0, NaN stays the canonical NaN (tmemu-num's `HalfMods::relu`)
    let half_relu = name == "fma" && matches!(ty, Ty::F(16) | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2);
    if d.has("cc") || (d.has("relu") && !half_relu) || d.has("oob") {
        return d.unsup();
    }
    match ty {
        Ty::Pred => {
            let dd = d.pdst(0)?;
            return match name {
                "and" => Ok(Inst::PredLogic {
                    op: BoolOp::And,
                    d: dd,
                    a: d.psrc(1)?,
                    b: d.psrc(2)?,
                }),
                "or" => Ok(Inst::PredLogic {
                    op: BoolOp::Or,
                    d: dd,
                    a: d.psrc(1)?,
                    b: d.psrc(2)?,
                }),
                "xor" => Ok(Inst::PredLogic {
                    op: BoolOp::Xor,
                    d: dd,
                    a: d.psrc(1)?,
                    b: d.psrc(2)?,
                }),
                "not" => {
                    let PSrc::P { idx, neg } = d.psrc(1)? else {
                        return d.unsup();
                    };
                    Ok(Inst::PredMov {
                        d: dd,
                        a: PSrc::P { idx, neg: !neg },
                    })
                }
                _ => d.unsup(),
            };
        }
        Ty::F(32) | Ty::F(64) | Ty::F32x2 => return float(d, ty),
        Ty::F(_) | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2 => return half(d),
        _ => {}
    }
    let bits = ty.bits();
    let n = ty.narrow();
    match name {
        "add" | "sub" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl" | "shr"
        | "mul"
            if !(name == "mul" && d.has("wide")) =>
        {
            if d.has("relu") {
                return d.unsup();
            }
            if d.nops() > 3 {
                return d.unsup_why("three-input integer min/max");
            }
            let op = int_op(name, ty, d)?;
            if bits == 64 {
                if matches!(op, IntOp::Shl | IntOp::ShrU | IntOp::ShrS) {
                    return Ok(Inst::Shift64 {
                        op,
                        d: d.d64(0)?,
                        a: d.s64(1)?,
                        b: d.s32(2)?,
                    });
                }
                if matches!(op, IntOp::AddSatS | IntOp::SubSatS) {
                    return d.unsup();
                }
                Ok(Inst::Bin64 {
                    op,
                    d: d.d64(0)?,
                    a: d.s64(1)?,
                    b: d.s64(2)?,
                })
            } else {
                Ok(Inst::Bin32 {
                    op,
                    n,
                    d: d.d32(0)?,
                    a: d.s32(1)?,
                    b: d.s32(2)?,
                })
            }
        }
        "mul" => {
            // mul.wide
            match bits {
                32 => Ok(Inst::MulWide32 {
                    signed: ty.signed(),
                    d: d.d64(0)?,
                    a: d.s32(1)?,
                    b: d.s32(2)?,
                }),
                16 => Ok(Inst::MulWide16 {
                    signed: ty.signed(),
                    d: d.d32(0)?,
                    a: d.s32(1)?,
                    b: d.s32(2)?,
                }),
                _ => d.unsup(),
            }
        }
        "mad" => {
            if d.has("wide") {
                if bits == 16 {
                    // Triton 3.9 (holdout ho5_attn_ws_desc): `mad.wide.u16 %r, %rs, 8, %r`
                    return Ok(Inst::MadWide16 {
                        signed: ty.signed(),
                        d: d.d32(0)?,
                        a: d.s32(1)?,
                        b: d.s32(2)?,
                        c: d.s32(3)?,
                    });
                }
                if bits != 32 {
                    return d.unsup();
                }
                return Ok(Inst::MadWide32 {
                    signed: ty.signed(),
                    d: d.d64(0)?,
                    a: d.s32(1)?,
                    b: d.s32(2)?,
                    c: d.s64(3)?,
                });
            }
            if d.has("sat") {
                return d.unsup();
            }
            let hi = if d.has("hi") { Some(ty.signed()) } else { None };
            if bits == 64 {
                Ok(Inst::Mad64 {
                    hi,
                    d: d.d64(0)?,
                    a: d.s64(1)?,
                    b: d.s64(2)?,
                    c: d.s64(3)?,
                })
            } else {
                Ok(Inst::Mad32 {
                    hi,
                    n,
                    d: d.d32(0)?,
                    a: d.s32(1)?,
                    b: d.s32(2)?,
                    c: d.s32(3)?,
                })
            }
        }
        "not" | "neg" | "abs" | "popc" | "clz" | "brev" | "bfind" | "cnot" => {
            let op = match name {
                "not" => IntUnOp::Not,
                "neg" => IntUnOp::Neg,
                "abs" => IntUnOp::Abs,
                "popc" => IntUnOp::Popc,
                "clz" => IntUnOp::Clz,
                "brev" => IntUnOp::Brev,
                "cnot" => IntUnOp::Cnot,
                _ => match (ty.signed(), d.has("shiftamt")) {
                    (true, false) => IntUnOp::BfindS,
                    (false, false) => IntUnOp::BfindU,
                    (true, true) => IntUnOp::BfindShiftS,
                    (false, true) => IntUnOp::BfindShiftU,
                },
            };
            if bits == 64 {
                Ok(Inst::Un64 {
                    op,
                    d: d.dany(0)?,
                    a: d.s64(1)?,
                })
            } else {
                Ok(Inst::Un32 {
                    op,
                    n,
                    d: d.d32(0)?,
                    a: d.s32(1)?,
                })
            }
        }
        "bfe" => {
            if bits == 64 {
                Ok(Inst::Bfe64 {
                    signed: ty.signed(),
                    d: d.d64(0)?,
                    a: d.s64(1)?,
                    b: d.s32(2)?,
                    c: d.s32(3)?,
                })
            } else {
                Ok(Inst::Bfe32 {
                    signed: ty.signed(),
                    d: d.d32(0)?,
                    a: d.s32(1)?,
                    b: d.s32(2)?,
                    c: d.s32(3)?,
                })
            }
        }
        "bfi" if bits == 64 => Ok(Inst::Bfi64 {
            d: d.d64(0)?,
            a: d.s64(1)?,
            b: d.s64(2)?,
            c: d.s32(3)?,
            e: d.s32(4)?,
        }),
        "bfi" if bits == 32 => Ok(Inst::Bfi32 {
            d: d.d32(0)?,
            a: d.s32(1)?,
            b: d.s32(2)?,
            c: d.s32(3)?,
            e: d.s32(4)?,
        }),
        "prmt" => {
            if d.mods
                .iter()
                .any(|m| matches!(*m, "f4e" | "b4e" | "rc8" | "ecl" | "ecr" | "rc16"))
            {
                return d.unsup();
            }
            Ok(Inst::Prmt {
                d: d.d32(0)?,
                a: d.s32(1)?,
                b: d.s32(2)?,
                c: d.s32(3)?,
            })
        }
        "lop3" => {
            if d.nops() != 5 {
                return d.unsup_why("lop3 with predicate output");
            }
            let lut = match &d.op(4)?.kind {
                OperandKind::Int(v) => *v as u8,
                _ => return invalid("lop3 needs an immediate LUT", d.op(4)?.span),
            };
            if bits == 64 {
                Ok(Inst::Lop3_64 {
                    d: d.d64(0)?,
                    a: d.s64(1)?,
                    b: d.s64(2)?,
                    c: d.s64(3)?,
                    lut,
                })
            } else {
                Ok(Inst::Lop3 {
                    d: d.d32(0)?,
                    a: d.s32(1)?,
                    b: d.s32(2)?,
                    c: d.s32(3)?,
                    lut,
                })
            }
        }
        "shf" => Ok(Inst::Shf {
            left: d.has("l"),
            clamp: d.has("clamp"),
            d: d.d32(0)?,
            a: d.s32(1)?,
            b: d.s32(2)?,
            c: d.s32(3)?,
        }),
        _ => d.unsup(),
    }
}

fn float(d: &mut D<'_, '_, '_, '_>, ty: Ty) -> R<Inst> {
    let name = d.i.name;
    let mut m = d.fmods();
    let op_name = match name {
        "mad" => "fma",
        n => n,
    };
    let nan = d.has("NaN");
    let xorsign = d.has("xorsign") && d.has("abs");
    if (d.has("abs") && !xorsign && matches!(name, "min" | "max")) || (xorsign && ty != Ty::F(32)) {
        return d.unsup();
    }
    let ok = match ty {
        Ty::F(64) if op_name == "rcp" && m.rnd == Rnd::Approx => fp::supported_f64("rcp_approx", m),
        Ty::F(64) => fp::supported_f64(op_name, m),
        _ => fp::supported_f32(op_name, m),
    };
    if !ok {
        return d.unsup_why("needs tmemu-num for this rounding/approximation");
    }
    if matches!(name, "min" | "max") {
        m.rnd = Rnd::Rn;
    }
    let fop = |n: &str| match (n, nan) {
        ("min", false) if xorsign => FOp::MinXorsign,
        ("max", false) if xorsign => FOp::MaxXorsign,
        ("min", true) if xorsign => FOp::MinXorsignNan,
        ("max", true) if xorsign => FOp::MaxXorsignNan,
        ("copysign", _) => FOp::Copysign,
        ("add", _) => FOp::Add,
        ("sub", _) => FOp::Sub,
        ("mul", _) => FOp::Mul,
        ("div", _) => FOp::Div,
        ("min", false) => FOp::Min,
        ("max", false) => FOp::Max,
        ("min", true) => FOp::MinNan,
        _ => FOp::MaxNan,
    };
    match (ty, name) {
        (Ty::F(32), "add" | "sub" | "mul" | "div" | "min" | "max" | "copysign") => {
            if d.nops() == 4 && matches!(name, "min" | "max") {
                return Ok(Inst::F32Max3 {
                    op: fop(name),
                    m,
                    d: d.d32(0)?,
                    a: d.s32(1)?,
                    b: d.s32(2)?,
                    c: d.s32(3)?,
                });
            }
            Ok(Inst::F32Bin {
                op: fop(name),
                m,
                d: d.d32(0)?,
                a: d.s32(1)?,
                b: d.s32(2)?,
            })
        }
        (Ty::F(32), "fma" | "mad") => Ok(Inst::F32Fma {
            m,
            d: d.d32(0)?,
            a: d.s32(1)?,
            b: d.s32(2)?,
            c: d.s32(3)?,
        }),
        (
            Ty::F(32),
            "neg" | "abs" | "sqrt" | "rsqrt" | "rcp" | "ex2" | "lg2" | "sin" | "cos" | "tanh",
        ) => {
            let op = match name {
                "neg" => FUnOp::Neg,
                "abs" => FUnOp::Abs,
                "sqrt" => FUnOp::Sqrt,
                "rsqrt" => FUnOp::Rsqrt,
                "rcp" => FUnOp::Rcp,
                "ex2" => FUnOp::Ex2,
                "lg2" => FUnOp::Lg2,
                "sin" => FUnOp::Sin,
                "cos" => FUnOp::Cos,
                _ => FUnOp::Tanh,
            };
            Ok(Inst::F32Un {
                op,
                m,
                d: d.d32(0)?,
                a: d.s32(1)?,
            })
        }
        (Ty::F(64), "add" | "sub" | "mul" | "div" | "min" | "max" | "copysign") => {
            Ok(Inst::F64Bin {
                op: fop(name),
                m,
                d: d.d64(0)?,
                a: d.s64(1)?,
                b: d.s64(2)?,
            })
        }
        (Ty::F(64), "fma" | "mad") => Ok(Inst::F64Fma {
            m,
            d: d.d64(0)?,
            a: d.s64(1)?,
            b: d.s64(2)?,
            c: d.s64(3)?,
        }),
        (Ty::F(64), "neg" | "abs" | "sqrt" | "rcp" | "rsqrt") => {
            let op = match name {
                "neg" => FUnOp::Neg,
                "abs" => FUnOp::Abs,
                "rcp" => FUnOp::Rcp,
                "rsqrt" => FUnOp::Rsqrt,
                _ => FUnOp::Sqrt,
            };
            Ok(Inst::F64Un {
                op,
                m,
                d: d.d64(0)?,
                a: d.s64(1)?,
            })
        }
        (Ty::F32x2, "add" | "sub" | "mul") => Ok(Inst::F32x2Bin {
            op: fop(name),
            m,
            d: d.d64(0)?,
            a: d.s64(1)?,
            b: d.s64(2)?,
        }),
        (Ty::F32x2, "fma") => Ok(Inst::F32x2Fma {
            m,
            d: d.d64(0)?,
            a: d.s64(1)?,
            b: d.s64(2)?,
            c: d.s64(3)?,
        }),
        _ => d.unsup(),
    }
}

/// Carry chains: add.cc, addc{.cc}, sub.cc, subc{.cc}, mad{c}.{lo,hi}{.cc}.
fn carry(d: &mut D<'_, '_, '_, '_>, name: &str, ty: Ty) -> R<Inst> {
    let use_cf = name.ends_with('c') && name != "mad" || name == "madc";
    let sub = name.starts_with("sub");
    let mad_hi = if name.starts_with("mad") {
        if d.has("wide") {
            return d.unsup();
        }
        Some(d.has("hi"))
    } else {
        None
    };
    let wide = ty.bits() == 64;
    let fb = ty.bits();
    let c = if mad_hi.is_some() {
        d.any_w(d.op(3)?, fb)?
    } else {
        Any::Imm(0)
    };
    Ok(Inst::AddCarry(Box::new(CarryInst {
        sub,
        use_cf,
        set_cf: d.has("cc"),
        mad_hi,
        wide,
        d: d.dany(0)?,
        a: d.any_w(d.op(1)?, fb)?,
        b: d.any_w(d.op(2)?, fb)?,
        c,
    })))
}

/// f16/bf16 arithmetic (scalar and x2) and the f32-destination mixed forms.
fn half(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    use tmemu_num::ops::{HalfKind, HalfMods, HalfOp, MinMaxMods, Rounding};
    let name = d.i.name;
    let tys = d.tys();
    // mixed precision: add/sub/fma .f32.f16 (destination f32, 16-bit sources)
    if tys.len() == 2 && tys[0] == Ty::F(32) && matches!(tys[1], Ty::F(16) | Ty::Bf16) {
        let m = d.fmods();
        if !matches!(m.rnd, Rnd::Rn | Rnd::Rz | Rnd::Rm | Rnd::Rp) || m.ftz {
            return d.unsup();
        }
        let bf16 = tys[1] == Ty::Bf16;
        let (op, fma) = match name {
            "add" => (FOp::Add, false),
            "sub" => (FOp::Sub, false),
            "fma" => (FOp::Add, true),
            _ => return d.unsup(),
        };
        let (a, b, c) = if fma {
            (d.s32(1)?, d.s32(2)?, d.s32(3)?)
        } else {
            (d.s32(1)?, S::I(0), d.s32(2)?)
        };
        return Ok(Inst::Mixed(Box::new(MixedInst {
            op,
            fma,
            bf16,
            m,
            d: d.d32(0)?,
            a,
            b,
            c,
        })));
    }
    if tys.len() != 1 {
        return d.unsup();
    }
    let (kind, x2) = match tys[0] {
        Ty::F(16) => (HalfKind::F16, false),
        Ty::F16x2 => (HalfKind::F16, true),
        Ty::Bf16 => (HalfKind::Bf16, false),
        Ty::Bf16x2 => (HalfKind::Bf16, true),
        _ => return d.unsup(),
    };
    let approx = d.has("approx");
    let rnd = d
        .mods
        .iter()
        .find_map(|m| Rounding::from_ptx(m))
        .unwrap_or_default();
    let m = HalfMods {
        rnd,
        ftz: d.has("ftz"),
        sat: d.has("sat"),
        relu: d.has("relu"),
    };
    let mm = MinMaxMods {
        ftz: d.has("ftz"),
        nan: d.has("NaN"),
        xorsign_abs: d.has("xorsign"),
    };
    let (op, nsrc) = match (name, approx) {
        ("add", false) => (HalfOp::Add, 2),
        ("sub", false) => (HalfOp::Sub, 2),
        ("mul", false) => (HalfOp::Mul, 2),
        ("fma", false) => (HalfOp::Fma, 3),
        ("min", false) => (HalfOp::Min(mm), 2),
        ("max", false) => (HalfOp::Max(mm), 2),
        ("neg", false) => (HalfOp::Neg, 1),
        ("abs", false) => (HalfOp::Abs, 1),
        ("ex2", true) => (HalfOp::Ex2Approx, 1),
        ("tanh", true) => (HalfOp::TanhApprox, 1),
        _ => return d.unsup(),
    };
    if d.nops() != nsrc + 1 {
        return d.unsup_why("operand count");
    }
    let a = d.s32(1)?;
    let b = if nsrc > 1 { d.s32(2)? } else { S::I(0) };
    let c = if nsrc > 2 { d.s32(3)? } else { S::I(0) };
    Ok(Inst::Half(Box::new(HalfInst {
        kind,
        x2,
        op,
        m,
        d: d.d32(0)?,
        a,
        b,
        c,
    })))
}

fn cmp_op(d: &D<'_, '_, '_, '_>, ty: Ty) -> R<CmpOp> {
    let float = matches!(ty, Ty::F(_));
    let s = ty.signed();
    for m in &d.mods {
        let c = match (*m, float, s) {
            ("eq", false, _) => CmpOp::Eq,
            ("ne", false, _) => CmpOp::Ne,
            ("lt", false, true) => CmpOp::LtS,
            ("le", false, true) => CmpOp::LeS,
            ("gt", false, true) => CmpOp::GtS,
            ("ge", false, true) => CmpOp::GeS,
            ("lt" | "lo", false, false) => CmpOp::LtU,
            ("le" | "ls", false, false) => CmpOp::LeU,
            ("gt" | "hi", false, false) => CmpOp::GtU,
            ("ge" | "hs", false, false) => CmpOp::GeU,
            ("eq", true, _) => CmpOp::FEq,
            ("ne", true, _) => CmpOp::FNe,
            ("lt", true, _) => CmpOp::FLt,
            ("le", true, _) => CmpOp::FLe,
            ("gt", true, _) => CmpOp::FGt,
            ("ge", true, _) => CmpOp::FGe,
            ("equ", true, _) => CmpOp::FEqu,
            ("neu", true, _) => CmpOp::FNeu,
            ("ltu", true, _) => CmpOp::FLtu,
            ("leu", true, _) => CmpOp::FLeu,
            ("gtu", true, _) => CmpOp::FGtu,
            ("geu", true, _) => CmpOp::FGeu,
            ("num", true, _) => CmpOp::FNum,
            ("nan", true, _) => CmpOp::FNan,
            _ => continue,
        };
        return Ok(c);
    }
    d.unsup_why("comparison")
}

/// `setp`'s destination: one predicate, or a `p|q` pair (q receives the complement).
fn setp_dests(d: &mut D<'_, '_, '_, '_>) -> R<(u16, Option<u16>)> {
    match &d.op(0)?.kind {
        OperandKind::PredPair(a, b) => {
            let pa = match d.lookup(a.name, a.span)? {
                Sym::Pred(x) => x,
                _ => return invalid("expected predicates", a.span),
            };
            let pb = match d.lookup(b.name, b.span)? {
                Sym::Pred(x) => x,
                _ => return invalid("expected predicates", b.span),
            };
            Ok((pa, Some(pb)))
        }
        _ => Ok((d.pdst(0)?, None)),
    }
}

/// `setp`'s optional fourth operand: `.and`/`.or`/`.xor` with a predicate source.
fn setp_combine(d: &mut D<'_, '_, '_, '_>) -> R<Option<(BoolOp, PSrc)>> {
    if d.nops() <= 3 {
        return Ok(None);
    }
    let op = if d.has("and") {
        BoolOp::And
    } else if d.has("or") {
        BoolOp::Or
    } else if d.has("xor") {
        BoolOp::Xor
    } else {
        return invalid("setp with a fourth operand needs .and/.or/.xor", d.i.span);
    };
    Ok(Some((op, d.psrc(3)?)))
}

fn setp(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let ty = d.ty()?;
    if matches!(ty, Ty::F(16) | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2) {
        return setp_half(d, ty);
    }
    let cmp = cmp_op(d, ty)?;
    let (p, q) = setp_dests(d)?;
    let comb = setp_combine(d)?;
    if ty.bits() == 64 {
        Ok(Inst::Setp64 {
            cmp,
            p,
            q,
            a: d.s64(1)?,
            b: d.s64(2)?,
            comb,
        })
    } else {
        Ok(Inst::Setp32 {
            cmp,
            n: ty.narrow(),
            ftz: d.has("ftz"),
            p,
            q,
            a: d.s32(1)?,
            b: d.s32(2)?,
            comb,
        })
    }
}

fn setp_half(d: &mut D<'_, '_, '_, '_>, ty: Ty) -> R<Inst> {
    use tmemu_num::ops::HalfKind;
    let Some(op) = d
        .mods
        .iter()
        .find_map(|m| tmemu_num::ops::CmpOp::from_ptx(m))
    else {
        return d.unsup_why("comparison");
    };
    let (kind, x2) = match ty {
        Ty::F(16) => (HalfKind::F16, false),
        Ty::F16x2 => (HalfKind::F16, true),
        Ty::Bf16 => (HalfKind::Bf16, false),
        _ => (HalfKind::Bf16, true),
    };
    let (p, q) = setp_dests(d)?;
    let comb = setp_combine(d)?;
    let ftz = d.has("ftz");
    Ok(Inst::SetpHalf(Box::new(SetpHalfInst {
        kind,
        x2,
        op,
        ftz,
        p,
        q,
        a: d.s32(1)?,
        b: d.s32(2)?,
        comb,
    })))
}

fn selp(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let ty = d.ty()?;
    if ty.bits() == 64 {
        Ok(Inst::Selp64 {
            d: d.d64(0)?,
            a: d.s64(1)?,
            b: d.s64(2)?,
            p: d.psrc(3)?,
        })
    } else {
        Ok(Inst::Selp32 {
            d: d.d32(0)?,
            a: d.s32(1)?,
            b: d.s32(2)?,
            p: d.psrc(3)?,
        })
    }
}

fn num_ty(s: &str) -> Option<tmemu_num::ops::ScalarType> {
    use tmemu_num::ops::ScalarType as T;
    Some(match s {
        "u8" | "b8" => T::U8,
        "u16" | "b16" => T::U16,
        "u32" | "b32" => T::U32,
        "u64" | "b64" => T::U64,
        "s8" => T::S8,
        "s16" => T::S16,
        "s32" => T::S32,
        "s64" => T::S64,
        "f16" => T::F16,
        "f16x2" => T::F16x2,
        "bf16" => T::Bf16,
        "bf16x2" => T::Bf16x2,
        "tf32" => T::Tf32,
        "f32" => T::F32,
        "f64" => T::F64,
        "e4m3" => T::E4m3,
        "e5m2" => T::E5m2,
        "e4m3x2" => T::E4m3x2,
        "e5m2x2" => T::E5m2x2,
        "e2m3x2" => T::E2m3x2,
        "e3m2x2" => T::E3m2x2,
        "e2m1x2" => T::E2m1x2,
        "ue8m0x2" => T::Ue8m0x2,
        _ => return None,
    })
}

fn cvt(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if d.has("rs") {
        return cvt_rs(d);
    }
    if d.has("pack") {
        return cvt_pack(d);
    }
    // cvt{.frnd|.irnd}{.ftz}{.sat}{.relu}{.satfinite}.dtype.atype
    let tys: Vec<&str> = d
        .mods
        .iter()
        .copied()
        .filter(|m| num_ty(m).is_some())
        .collect();
    if tys.len() != 2 {
        return d.unsup();
    }
    let (to, from) = (num_ty(tys[0]).unwrap(), num_ty(tys[1]).unwrap());
    let rnd = d
        .mods
        .iter()
        .find_map(|m| tmemu_num::ops::Rounding::from_ptx(m))
        .unwrap_or_default();
    let m = tmemu_num::ops::CvtMods {
        rnd,
        ftz: d.has("ftz"),
        sat: d.has("sat"),
        relu: d.has("relu"),
        satfinite: d.has("satfinite"),
    };
    let src_bits = match from {
        tmemu_num::ops::ScalarType::F64 => 64,
        _ => 32,
    };
    let b = if d.nops() > 2 {
        Some(d.any_w(d.op(2)?, 32)?)
    } else {
        None
    };
    let c = CvtInst {
        to,
        from,
        m,
        d: d.dany(0)?,
        a: d.any_w(d.op(1)?, src_bits)?,
        b,
    };
    if d.nops() > 3 || !crate::exec::cvt_supported(&c) {
        return d.unsup_why("not provided by tmemu-num");
    }
    Ok(Inst::Cvt(Box::new(c)))
}

/// `cvt.pack.sat.{u16,s16}.s32 d, a, b` and `cvt.pack.sat.{u8,s8}.s32.b32 d, a, b, c` (PTX ISA
/// §9.7.9.22, sm_72): `tmemu_num::ops::cvt::cvt_pack_sat`, bit for bit against the H100
/// recording. The 4- and 2-bit destinations are not modelled.
fn cvt_pack(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let (bits, signed) = match () {
        _ if d.has("u16") => (16, false),
        _ if d.has("s16") => (16, true),
        _ if d.has("u8") => (8, false),
        _ if d.has("s8") => (8, true),
        _ => return d.unsup_why("cvt.pack to 4- or 2-bit integers"),
    };
    let want = if bits == 16 { 3 } else { 4 };
    if !d.has("sat") || !d.has("s32") || d.nops() != want {
        return invalid(
            format!(
                "`{}`: cvt.pack.sat.{{u16,s16}}.s32 d, a, b or cvt.pack.sat.{{u8,s8}}.s32.b32 \
                 d, a, b, c",
                d.opcode()
            ),
            d.i.span,
        );
    }
    Ok(Inst::CvtPackSat {
        d: d.d32(0)?,
        a: d.s32(1)?,
        b: d.s32(2)?,
        c: if bits == 8 { d.s32(3)? } else { S::I(0) },
        bits,
        signed,
    })
}

/// `cvt.rs` (stochastic rounding, sm_100a, PTX 8.7). Only `.bf16x2.f32` runs: there every
/// finite input discards exactly the 16 bits its 16 random bits are added to. For `.f16x2`
/// (13 random bits) and the x4 narrow forms (16 or 8 random bits for 20 discarded bits) the
/// ISA does not say how the random bits line up with the discarded ones when the result is
/// subnormal or the input out of range, so those stay unsupported rather than guessed.
fn cvt_rs(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if !(d.has("bf16x2") && d.has("f32")) || d.has("ftz") || d.has("sat") {
        return d.unsup_why(
            "stochastic rounding is modelled for .bf16x2.f32 only: the ISA leaves the random \
             bits' alignment to subnormal results of the other formats open",
        );
    }
    if d.nops() != 4 {
        return invalid(
            "cvt.rs.bf16x2.f32 takes d, a, b, rbits".to_string(),
            d.i.span,
        );
    }
    let rbits = match d.s32(3)? {
        r @ S::R(_) => r,
        S::I(_) => {
            return invalid(
                "cvt.rs: rbits is a .b32 register operand".to_string(),
                d.op(3)?.span,
            )
        }
    };
    Ok(Inst::CvtRsBf16x2 {
        d: d.d32(0)?,
        a: d.s32(1)?,
        b: d.s32(2)?,
        rbits,
        relu: d.has("relu"),
        satfinite: d.has("satfinite"),
    })
}

fn ldst(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    // `st.async` (sm_90: a store into another cluster CTA's shared memory that signals
    // complete_tx on that CTA's mbarrier): loader/st_async.rs, exec/st_async.rs
    if d.has("async") {
        return st_async::st_async(d);
    }
    let is_ld = d.i.name != "st";
    let ty = d.ty()?;
    let mut space = d.space();
    let addr_n = if is_ld { 1 } else { 0 };
    let reg_n = if is_ld { 0 } else { 1 };
    let addr = d.addr(addr_n)?;
    // .param accesses to .func parameters and call-site params live in .local
    if space == Space::Param {
        match d.addr_var_space(addr_n) {
            Some(VarSpace::Local) => space = Space::Local,
            Some(VarSpace::KParam) | None => {}
            Some(_) => return invalid("ld.param of a non-parameter", d.i.span),
        }
    }
    if ty.bits() > 64 {
        return d.unsup_why("128-bit elements");
    }
    let size = (ty.bits() / 8).max(1);
    if matches!(ty, Ty::Pred) {
        return d.unsup();
    }
    let regs = d.regs(reg_n)?;
    if ![1, 2, 4, 8].contains(&regs.len()) {
        return invalid(
            "vector of 1, 2, 4 or 8 registers expected",
            d.op(reg_n)?.span,
        );
    }
    let i = LdSt {
        space,
        elem: Elem {
            size,
            signed: ty.signed(),
        },
        regs,
        addr,
        order: mem_order(d, MemOrder::Weak),
    };
    Ok(if is_ld {
        Inst::Ld(Box::new(i))
    } else {
        Inst::St(Box::new(i))
    })
}

fn atom(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let is_red = d.i.name == "red";
    // `red.async` (sm_90: a remote shared::cluster reduction that signals complete_tx on an
    // mbarrier): loader/st_async.rs, exec/st_async.rs
    if d.has("async") {
        return st_async::red_async(d);
    }
    if d.has("b128") {
        return atom128::atom128(d);
    }
    let ty = d.ty()?;
    let space = d.space();
    if matches!(space, Space::Global | Space::Generic) {
        d.g.uses_global_atomics = true;
    }
    // `.noftz` is the required spelling of the 16-bit float adds (PTX ISA §9.7.13.5).
    let half = match ty {
        Ty::F(16) => Some(crate::exec::atom_half::HalfAtom::F16),
        Ty::Bf16 => Some(crate::exec::atom_half::HalfAtom::Bf16),
        Ty::F16x2 => Some(crate::exec::atom_half::HalfAtom::F16x2),
        Ty::Bf16x2 => Some(crate::exec::atom_half::HalfAtom::Bf16x2),
        _ => None,
    }
    .filter(|_| d.has("add"));
    if d.mods.iter().any(|m| m.starts_with('v') && m.len() == 2) {
        return atom_vec(d, ty, space, is_red);
    }
    // `.add.noftz.f32` (PTX ISA 9.4: keep subnormals on global memory too): a one-element
    // vector atomic, which also takes shared addresses (exec/atom_vec.rs).
    if d.has("noftz") && ty == Ty::F(32) && d.has("add") {
        return atom_vec(d, ty, space, is_red);
    }
    if d.has("noftz") && half.is_none() {
        return d.unsup();
    }
    let opname = d
        .mods
        .iter()
        .copied()
        .find(|m| {
            matches!(
                *m,
                "add" | "min" | "max" | "inc" | "dec" | "and" | "or" | "xor" | "exch" | "cas"
            )
        })
        .unwrap_or("");
    let op = match (opname, ty) {
        ("add", Ty::F(32)) => AtomOp::FAdd32,
        ("add", Ty::F(64)) => AtomOp::FAdd64,
        ("add", _) if d.has("noftz") && half.is_some() => AtomOp::HalfAdd(half.unwrap()),
        ("min", Ty::F(32)) => AtomOp::FMin32,
        ("max", Ty::F(32)) => AtomOp::FMax32,
        (_, Ty::F(_) | Ty::F16x2 | Ty::Bf16 | Ty::Bf16x2) => return d.unsup(),
        ("add", _) => AtomOp::Add,
        ("min", t) if t.signed() => AtomOp::MinS,
        ("max", t) if t.signed() => AtomOp::MaxS,
        ("min", _) => AtomOp::Min,
        ("max", _) => AtomOp::Max,
        ("inc", _) => AtomOp::Inc,
        ("dec", _) => AtomOp::Dec,
        ("and", _) => AtomOp::And,
        ("or", _) => AtomOp::Or,
        ("xor", _) => AtomOp::Xor,
        ("exch", _) => AtomOp::Exch,
        ("cas", _) => AtomOp::Cas,
        _ => return d.unsup(),
    };
    let size = ty.bits() / 8;
    // `atom.cas.b16` (sm_70+) is the one 16-bit integer form; the rmw path handles 2 bytes.
    let cas16 = op == AtomOp::Cas && size == 2;
    if size != 4 && size != 8 && !matches!(op, AtomOp::HalfAdd(_)) && !cas16 {
        return d.unsup_why("atomics on other than 32/64-bit");
    }
    let base = if is_red { 0 } else { 1 };
    let dd = if is_red { None } else { Some(d.dany(0)?) };
    let c = if op == AtomOp::Cas {
        Some(d.any_w(d.op(base + 2)?, ty.bits())?)
    } else {
        None
    };
    Ok(Inst::Atom(Box::new(AtomInst {
        space,
        op,
        size,
        d: dd,
        addr: d.addr(base)?,
        b: d.any_w(d.op(base + 1)?, ty.bits())?,
        c,
        order: mem_order(d, MemOrder::Relaxed),
    })))
}

/// The vector atomics (exec/atom_vec.rs): `.global`/generic only, `.add` on `.v2/.v4 .f32`,
/// `.add/.min/.max .noftz` on `.v2/.v4/.v8 .f16/.bf16` and `.v2/.v4 .f16x2/.bf16x2`.
fn atom_vec(d: &mut D<'_, '_, '_, '_>, ty: Ty, space: Space, is_red: bool) -> R<Inst> {
    use crate::exec::atom_half::HalfAtom;
    use crate::exec::atom_vec::{AtomVecInst, VecElem, VecOp};
    let n: usize = match d.mods.iter().find(|m| m.starts_with('v') && m.len() == 2) {
        Some(&"v2") => 2,
        Some(&"v4") => 4,
        Some(&"v8") => 8,
        // the scalar `.add.noftz.f32`
        None => 1,
        _ => return d.unsup(),
    };
    if n > 1 && !matches!(space, Space::Global | Space::Generic) {
        return invalid(
            "vector atomics are only defined on .global memory (PTX ISA §9.7.13.5)",
            d.i.span,
        );
    }
    let elem = match ty {
        Ty::F(32) if d.has("noftz") => VecElem::F32Noftz,
        Ty::F(32) => VecElem::F32,
        Ty::F(16) => VecElem::Half(HalfAtom::F16),
        Ty::Bf16 => VecElem::Half(HalfAtom::Bf16),
        Ty::F16x2 => VecElem::Half(HalfAtom::F16x2),
        Ty::Bf16x2 => VecElem::Half(HalfAtom::Bf16x2),
        _ => return d.unsup_why("vector atomics on this type"),
    };
    let op = if d.has("add") {
        VecOp::Add
    } else if d.has("min") {
        VecOp::Min
    } else if d.has("max") {
        VecOp::Max
    } else {
        return d.unsup();
    };
    let half = matches!(elem, VecElem::Half(_));
    // `.noftz` is required on the 16-bit types and optional on `.f32` (PTX 9.4); `.f32` has
    // only `.add`, and at most 128 bits in all (`.v8` only for one 16-bit element).
    let max_n = if elem.size() == 2 { 8 } else { 4 };
    if (half && !d.has("noftz")) || (!half && op != VecOp::Add) || n > max_n {
        return d.unsup();
    }
    let base = if is_red { 0 } else { 1 };
    let b = d.regs(base + 1)?;
    let dd = if is_red { None } else { Some(d.regs(0)?) };
    if b.len() != n || dd.as_ref().is_some_and(|v| v.len() != n) {
        return invalid(
            format!("`.v{n}` atomic needs {n}-element vector operands"),
            d.i.span,
        );
    }
    Ok(Inst::AtomVec(Box::new(AtomVecInst {
        space,
        elem,
        op,
        b,
        d: dd,
        addr: d.addr(base)?,
        order: mem_order(d, MemOrder::Relaxed),
    })))
}

fn call(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    // call{.uni} (ret), func, (args);  |  call func, (args);  |  call func;
    let ops = &d.i.operands;
    let mut idx = 0;
    let mut rets: Vec<&Operand<'_>> = Vec::new();
    if let Some(OperandKind::List(l)) = ops.first().map(|o| &o.kind) {
        rets = l.iter().collect();
        idx = 1;
    }
    let fo = d.op(idx)?;
    let OperandKind::Ident(fid) = &fo.kind else {
        return d.unsup_why("indirect call");
    };
    // The one external function whose whole effect is known: the assertion system call
    // aborts the launch (its message only goes to the host's stderr). Only when it is not
    // defined here, so a module's own function of that name keeps its body.
    if fid.name == "__assertfail" && d.sc.lookup(fid.name).is_none() && rets.is_empty() {
        return Ok(Inst::AssertFail);
    }
    if fid.name == "vprintf" && d.sc.lookup(fid.name).is_none() && rets.len() == 1 {
        let (fmt, ret) = match (ops.get(idx + 1).map(|o| &o.kind), &rets[0].kind) {
            (Some(OperandKind::List(l)), OperandKind::Ident(r)) if l.len() == 2 => {
                match (&l[0].kind, d.lookup(r.name, r.span)?) {
                    (OperandKind::Ident(f), Sym::Var(VarSpace::Local, ro)) => {
                        match d.lookup(f.name, f.span)? {
                            Sym::Var(VarSpace::Local, fo) => (fo as u32, ro as u32),
                            _ => return d.unsup_why("vprintf format that is not a .param"),
                        }
                    }
                    _ => return d.unsup_why("vprintf arguments that are not .param variables"),
                }
            }
            _ => return d.unsup_why("vprintf with other than (format, args)"),
        };
        return Ok(Inst::Vprintf { fmt, ret });
    }
    if d.sc.lookup(fid.name).is_none() {
        return unsupported(
            format!(
                "call of `{}`, which has no body in this module (external function)",
                fid.name
            ),
            fid.span,
        );
    }
    let callee = match d.lookup(fid.name, fid.span)? {
        Sym::Func(i) => i,
        _ => return d.unsup_why("indirect call"),
    };
    let args: Vec<&Operand<'_>> = match ops.get(idx + 1).map(|o| &o.kind) {
        Some(OperandKind::List(l)) => l.iter().collect(),
        None => Vec::new(),
        Some(_) => return d.unsup_why("call with a prototype"),
    };
    let (ps, rs) = d.g.func_slots[callee].clone();
    if args.len() != ps.len() || rets.len() != rs.len() {
        return invalid(
            format!("call of `{}` with the wrong number of arguments", fid.name),
            d.i.span,
        );
    }
    let slot = |o: &Operand<'_>| -> R<u32> {
        match &o.kind {
            OperandKind::Ident(id) => match d.lookup(id.name, id.span)? {
                Sym::Var(VarSpace::Local, off) => Ok(off as u32),
                _ => unsupported("call argument that is not a .param variable", o.span),
            },
            _ => unsupported("call argument that is not a .param variable", o.span),
        }
    };
    let mut a = Vec::new();
    for (o, (off, size)) in args.iter().zip(&ps) {
        a.push((slot(o)?, *off, *size));
    }
    let mut r = Vec::new();
    for (o, (off, size)) in rets.iter().zip(&rs) {
        r.push((*off, slot(o)?, *size));
    }
    let pc = d.g.code.len();
    d.g.call_fixups.push((pc, callee));
    Ok(Inst::Call(Box::new(CallInst {
        target: 0,
        args: a,
        rets: r,
    })))
}

fn bar(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if d.i.name == "bar" && d.has("warp") {
        return Ok(Inst::BarWarpSync { mask: d.s32(0)? });
    }
    if d.i.name == "barrier" && d.has("cluster") {
        return Ok(if d.has("arrive") {
            Inst::ClusterArrive {
                relaxed: d.has("relaxed"),
            }
        } else {
            Inst::ClusterWait
        });
    }
    let kind = if d.has("sync") {
        BarKind::Sync
    } else if d.has("arrive") {
        BarKind::Arrive
    } else if d.has("red") {
        if d.has("popc") {
            BarKind::RedPopc
        } else if d.has("and") {
            BarKind::RedAnd
        } else if d.has("or") {
            BarKind::RedOr
        } else {
            return d.unsup();
        }
    } else if d.mods.is_empty() || d.mods == ["cta"] || d.mods == ["aligned"] {
        // plain `bar 0;` is bar.sync
        BarKind::Sync
    } else {
        return d.unsup();
    };
    let red = matches!(kind, BarKind::RedPopc | BarKind::RedAnd | BarKind::RedOr);
    let base = if red { 1 } else { 0 };
    let id = d.s32(base)?;
    let (count, pred) = if red {
        let n = d.nops();
        let pred = Some(d.psrc(n - 1)?);
        let count = if n == 4 { Some(d.s32(2)?) } else { None };
        (count, pred)
    } else {
        let count = if d.nops() > 1 { Some(d.s32(1)?) } else { None };
        (count, None)
    };
    if kind == BarKind::Arrive && count.is_none() {
        return invalid("bar.arrive needs a thread count", d.i.span);
    }
    let dst = if red {
        if kind == BarKind::RedPopc {
            Some(d.dany(0)?)
        } else {
            Some(Any::Imm(d.pdst(0)? as u64))
        }
    } else {
        None
    };
    Ok(Inst::Bar(Box::new(BarInst {
        kind,
        id,
        count,
        d: dst,
        pred,
        aligned: d.i.name == "bar" || d.has("aligned"),
    })))
}

fn warp_op(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let name = d.i.name;
    match name {
        "shfl" => {
            let mode = if d.has("up") {
                ShflMode::Up
            } else if d.has("down") {
                ShflMode::Down
            } else if d.has("bfly") {
                ShflMode::Bfly
            } else if d.has("idx") {
                ShflMode::Idx
            } else {
                return d.unsup();
            };
            if !d.has("sync") {
                return d.unsup_why("shfl without .sync");
            }
            let (dd, p) = match &d.op(0)?.kind {
                OperandKind::PredPair(a, b) => {
                    let ra = match d.lookup(a.name, a.span)? {
                        Sym::R32(r) => r,
                        _ => return invalid("shfl destination must be a 32-bit register", a.span),
                    };
                    let pb = match d.lookup(b.name, b.span)? {
                        Sym::Pred(p) => p,
                        _ => return invalid("expected a predicate", b.span),
                    };
                    (ra, Some(pb))
                }
                _ => (d.d32(0)?, None),
            };
            Ok(Inst::Shfl {
                mode,
                d: dd,
                p,
                a: d.s32(1)?,
                b: d.s32(2)?,
                c: d.s32(3)?,
                mask: d.s32(4)?,
            })
        }
        "vote" => {
            let mode = if d.has("all") {
                VoteMode::All
            } else if d.has("any") {
                VoteMode::Any
            } else if d.has("uni") {
                VoteMode::Uni
            } else if d.has("ballot") {
                VoteMode::Ballot
            } else {
                return d.unsup();
            };
            if !d.has("sync") {
                return d.unsup_why("vote without .sync");
            }
            let dd = if mode == VoteMode::Ballot {
                d.dany(0)?
            } else {
                Any::Imm(d.pdst(0)? as u64)
            };
            Ok(Inst::Vote {
                mode,
                d: dd,
                a: d.psrc(1)?,
                mask: d.s32(2)?,
            })
        }
        "redux" => {
            let ty = d.ty()?;
            let f = ty == Ty::F(32);
            let abs = d.has("abs");
            let nan = d.has("NaN");
            let op = match (
                d.mods
                    .iter()
                    .copied()
                    .find(|m| matches!(*m, "add" | "min" | "max" | "and" | "or" | "xor")),
                f,
            ) {
                (Some("add"), false) => ReduxOp::Add,
                (Some("min"), false) if ty.signed() => ReduxOp::MinS,
                (Some("max"), false) if ty.signed() => ReduxOp::MaxS,
                (Some("min"), false) => ReduxOp::MinU,
                (Some("max"), false) => ReduxOp::MaxU,
                (Some("and"), false) => ReduxOp::And,
                (Some("or"), false) => ReduxOp::Or,
                (Some("xor"), false) => ReduxOp::Xor,
                (Some("min"), true) if abs && !nan => ReduxOp::FMinAbs,
                (Some("max"), true) if abs && !nan => ReduxOp::FMaxAbs,
                (Some("min"), true) if abs => ReduxOp::FMinAbsNan,
                (Some("max"), true) if abs => ReduxOp::FMaxAbsNan,
                (Some("min"), true) if !abs => {
                    if nan {
                        ReduxOp::FMinNan
                    } else {
                        ReduxOp::FMin
                    }
                }
                (Some("max"), true) if !abs => {
                    if nan {
                        ReduxOp::FMaxNan
                    } else {
                        ReduxOp::FMax
                    }
                }
                _ => return d.unsup(),
            };
            Ok(Inst::Redux {
                op,
                d: d.d32(0)?,
                a: d.s32(1)?,
                mask: d.s32(2)?,
            })
        }
        "match" => {
            let ty = d.ty()?;
            let all = d.has("all");
            let (dd, p) = match &d.op(0)?.kind {
                OperandKind::PredPair(a, b) => {
                    let ra = match d.lookup(a.name, a.span)? {
                        Sym::R32(r) => r,
                        _ => return invalid("match destination must be a 32-bit register", a.span),
                    };
                    let pb = match d.lookup(b.name, b.span)? {
                        Sym::Pred(p) => p,
                        _ => return invalid("expected a predicate", b.span),
                    };
                    (ra, Some(pb))
                }
                _ => (d.d32(0)?, None),
            };
            Ok(Inst::Match {
                all,
                b64: ty.bits() == 64,
                d: dd,
                p,
                a: d.any_w(d.op(1)?, ty.bits())?,
                mask: d.s32(2)?,
            })
        }
        "elect" => {
            let (dd, p) = match &d.op(0)?.kind {
                OperandKind::PredPair(a, b) => {
                    let da = if a.name == "_" {
                        Any::Sink
                    } else {
                        match d.lookup(a.name, a.span)? {
                            Sym::R32(r) => Any::R32(r),
                            _ => {
                                return invalid(
                                    "elect destination must be a 32-bit register",
                                    a.span,
                                )
                            }
                        }
                    };
                    let pb = match d.lookup(b.name, b.span)? {
                        Sym::Pred(p) => p,
                        _ => return invalid("expected a predicate", b.span),
                    };
                    (da, Some(pb))
                }
                _ => (d.dany(0)?, None),
            };
            Ok(Inst::Elect {
                d: dd,
                p,
                mask: d.s32(1)?,
            })
        }
        _ => Ok(Inst::Activemask { d: d.d32(0)? }),
    }
}

fn mbar(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if d.has("pending_count") {
        // `mbarrier.pending_count.b64 count, state` (sm_80, PTX 7.0): a register operation
        return Ok(Inst::MbarPendingCount {
            d: d.d32(0)?,
            state: d.s64(1)?,
        });
    }
    let space = if d.has("shared::cluster") {
        Space::SharedCluster
    } else if d.has("shared") || d.has("shared::cta") {
        Space::Shared
    } else {
        Space::Generic
    };
    let has = |m: &str| d.has(m);
    let (op, addr_n, dst, dp, b): (MbarOp, usize, Option<Any>, Option<u16>, Option<Any>) =
        if has("init") {
            (MbarOp::Init, 0, None, None, Some(d.any(d.op(1)?)?))
        } else if has("inval") {
            (MbarOp::Inval, 0, None, None, None)
        } else if has("arrive") || has("arrive_drop") {
            let drop = has("arrive_drop");
            let expect_tx = has("expect_tx");
            let no_complete = has("noComplete");
            let dst = d.dany(0)?;
            let b = if d.nops() > 2 {
                Some(d.any(d.op(2)?)?)
            } else {
                None
            };
            (
                MbarOp::Arrive {
                    drop,
                    expect_tx,
                    no_complete,
                },
                1,
                Some(dst),
                None,
                b,
            )
        } else if has("expect_tx") {
            (MbarOp::ExpectTx, 0, None, None, Some(d.any(d.op(1)?)?))
        } else if has("complete_tx") {
            (MbarOp::CompleteTx, 0, None, None, Some(d.any(d.op(1)?)?))
        } else if has("test_wait") || has("try_wait") {
            let parity = has("parity");
            let op = if has("test_wait") {
                MbarOp::TestWait { parity }
            } else {
                MbarOp::TryWait { parity }
            };
            (op, 1, None, Some(d.pdst(0)?), Some(d.any_w(d.op(2)?, 64)?))
        } else {
            return d.unsup();
        };
    Ok(Inst::Mbar(Box::new(MbarInst {
        op,
        space,
        addr: d.addr(addr_n)?,
        d: dst,
        dp,
        b,
        sem: if d.has("relaxed") {
            Sem::Relaxed
        } else {
            Sem::Ordering
        },
        cta_scope: d.has("cta"),
    })))
}

/// The memory-model strength of `ld`/`st`/`atom`/`red` (PTX ISA §8.4: `.volatile` is
/// `.relaxed.sys`; `.mmio` is `.relaxed`).
fn mem_order(d: &D<'_, '_, '_, '_>, plain: MemOrder) -> MemOrder {
    if d.has("acq_rel") {
        MemOrder::AcqRel
    } else if d.has("acquire") {
        MemOrder::Acquire
    } else if d.has("release") {
        MemOrder::Release
    } else if d.has("relaxed") || d.has("volatile") || d.has("mmio") {
        MemOrder::Relaxed
    } else {
        plain
    }
}

/// What a `fence`/`membar` is to observers. `fence.proxy.async*` bridges the async proxy;
/// `fence.{sc,acq_rel}`, `membar` and `fence.mbarrier_init` (a release fence) order strong
/// accesses; the other proxy fences (alias, tensormap) order nothing an observer models.
fn fence_kind(d: &D<'_, '_, '_, '_>) -> Option<Fence> {
    if d.has("proxy") {
        return d
            .mods
            .iter()
            .any(|m| m.starts_with("async"))
            .then_some(Fence::ProxyAsync);
    }
    if d.has("mbarrier_init") {
        return Some(Fence::MbarInit);
    }
    Some(Fence::AcqRel)
}

fn cp(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if !d.has("async") {
        return d.unsup();
    }
    if d.has("bulk") && d.has("commit_group") {
        return Ok(Inst::BulkGroup(crate::observer::BulkGroup::Commit));
    }
    if d.has("bulk") && d.has("wait_group") {
        let n = match &d.op(0)?.kind {
            OperandKind::Int(v) if (0..=i64::from(u32::MAX)).contains(v) => *v as u32,
            _ => return invalid("cp.async.bulk.wait_group needs an immediate", d.op(0)?.span),
        };
        return Ok(Inst::BulkGroup(crate::observer::BulkGroup::Wait {
            n,
            read: d.has("read"),
        }));
    }
    if !d.has("bulk") && d.has("commit_group") {
        return Ok(Inst::CpAsyncGroup(crate::observer::CpAsyncGroup::Commit));
    }
    if !d.has("bulk") && d.has("wait_group") {
        let n = match &d.op(0)?.kind {
            OperandKind::Int(v) if (0..=i64::from(u32::MAX)).contains(v) => *v as u32,
            _ => return invalid("cp.async.wait_group needs an immediate", d.op(0)?.span),
        };
        return Ok(Inst::CpAsyncGroup(crate::observer::CpAsyncGroup::Wait {
            n,
        }));
    }
    if !d.has("bulk") && d.has("wait_all") {
        return Ok(Inst::CpAsyncGroup(crate::observer::CpAsyncGroup::WaitAll));
    }
    if d.has("commit_group") || d.has("wait_group") || d.has("wait_all") {
        return Ok(Inst::AsyncGroupMark);
    }
    if d.has("tensor") || d.has("prefetch") || d.has("reduce") || d.has("cp_mask") {
        return d.unsup();
    }
    if d.has("mbarrier") && d.has("arrive") && !d.has("bulk") {
        // cp.async.mbarrier.arrive{.noinc}: copies complete at issue, so the arrive-on happens
        // now. Without .noinc the pending count is first incremented, so the pair has no net
        // effect on the phase (PTX ISA §9.7.9.25.3.x); with .noinc it is one arrival.
        let space = if d.has("shared::cluster") {
            Space::SharedCluster
        } else {
            Space::Shared
        };
        let noinc = d.has("noinc");
        return Ok(Inst::CpAsyncArrive(
            Box::new(MbarInst {
                op: MbarOp::Arrive {
                    drop: false,
                    expect_tx: false,
                    no_complete: false,
                },
                space,
                addr: d.addr(0)?,
                d: None,
                dp: None,
                b: None,
                sem: Sem::Ordering,
                cta_scope: false,
            }),
            noinc,
        ));
    }
    if d.has("bulk") {
        let dst = d.addr(0)?;
        let src = d.addr(1)?;
        let size = d.any(d.op(2)?)?;
        let dst_space = d
            .mods
            .iter()
            .position(|m| m.starts_with("shared") || *m == "global");
        let first = dst_space.map(|i| d.mods[i]).unwrap_or("");
        if first == "global" {
            return Ok(Inst::CpBulkS2G(Box::new(CpBulkS2GInst { dst, src, size })));
        }
        let src_is_global = d.has("global");
        if !d.has("complete_tx::bytes")
            && !d
                .mods
                .iter()
                .any(|m| m.starts_with("mbarrier::complete_tx"))
        {
            return d.unsup();
        }
        let mbar = d.addr(3)?;
        if src_is_global {
            let multicast = if d.has("multicast::cluster") {
                Some(d.s32(4)?)
            } else {
                None
            };
            return Ok(Inst::CpBulkG2S(Box::new(CpBulkG2SInst {
                dst,
                src,
                size,
                mbar,
                multicast,
            })));
        }
        return Ok(Inst::CpBulkS2Cluster(Box::new(CpBulkS2ClusterInst {
            dst,
            src,
            size,
            mbar,
        })));
    }
    // cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size}{, cache-policy}
    let size = match &d.op(2)?.kind {
        OperandKind::Int(v) if [4, 8, 16].contains(v) => *v as u8,
        _ => return invalid("cp.async size must be 4, 8 or 16", d.op(2)?.span),
    };
    let src_size = if d.nops() > 3 && !d.has("L2::cache_hint") {
        Some(d.any(d.op(3)?)?)
    } else {
        None
    };
    if d.has("ignore-src") {
        return d.unsup();
    }
    Ok(Inst::CpAsync(Box::new(CpAsyncInst {
        dst: d.addr(0)?,
        src: d.addr(1)?,
        size,
        src_size,
    })))
}
