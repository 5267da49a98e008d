//! Decoding of Cluster Launch Control (a child module of `decode`, whose context `D` it uses)
//! and of the `.b128` loads and stores that carry its 16-byte responses.
//!
//! Syntax (PTX ISA 8.6+, sm_100; §9.7.12.x "clusterlaunchcontrol"):
//! - `clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
//!   {.multicast::cluster::all}.b128 [addr], [mbar];`
//! - `clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, resp;`
//! - `clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {x, y, z, _}, resp;`
//! - `clusterlaunchcontrol.query_cancel.get_first_ctaid::{x,y,z}.b32.b128 d, resp;`
//!
//! A `.b128` register is a pair of consecutive 64-bit registers (`Sym::R128(lo)`: bits 0..63
//! in `lo`, 64..127 in `lo + 1`), so `ld.b128` / `st.b128` are the existing two-element
//! 8-byte vector access: the same bytes, the same 16-byte alignment rule, the same observer
//! events.

use tmemu_ptx::ast::OperandKind;

use super::{invalid, Sym, D, R};
use crate::exec::clc::ClcInst;
use crate::observer::MemOrder;
use crate::program::{Any, Elem, Inst, LdSt, Space};

/// The two 64-bit halves of the `.b128` register named by operand `n`.
fn reg128(d: &D<'_, '_, '_, '_>, n: usize) -> R<u16> {
    let o = d.op(n)?;
    let OperandKind::Ident(id) = &o.kind else {
        return d.unsup_why("a .b128 operand other than a .b128 register");
    };
    match d.lookup(id.name, id.span)? {
        Sym::R128(lo) => Ok(lo),
        _ => invalid(
            format!(
                "`{}` needs a .b128 register, `{}` is not one",
                d.opcode(),
                id.name
            ),
            id.span,
        ),
    }
}

/// `ld{.space}.b128 r, [a]` and `st{.space}.b128 [a], r` (PTX ISA 8.3+, sm_70+ for `.b128`).
pub(super) fn ldst128(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let is_ld = d.i.name != "st";
    if d.has("async") || d.mods.iter().any(|m| m.starts_with('v') && m.len() == 2) {
        return d.unsup_why("vector or asynchronous .b128 accesses");
    }
    let (reg_n, addr_n) = if is_ld { (0, 1) } else { (1, 0) };
    let lo = reg128(d, reg_n)?;
    let addr = d.addr(addr_n)?;
    let space = d.space();
    if space == Space::Param {
        return d.unsup_why(".b128 parameter accesses");
    }
    let order = if d.has("volatile") || d.has("relaxed") {
        MemOrder::Relaxed
    } else if d.has("acquire") || d.has("release") {
        return d.unsup_why("acquire/release .b128 accesses");
    } else {
        MemOrder::Weak
    };
    let i = LdSt {
        space,
        elem: Elem {
            size: 8,
            signed: false,
        },
        regs: vec![Any::R64(lo), Any::R64(lo + 1)],
        addr,
        order,
    };
    Ok(if is_ld {
        Inst::Ld(Box::new(i))
    } else {
        Inst::St(Box::new(i))
    })
}

/// One side of a `mov.b128`: a `.b128` register (its two halves) or a vector `{lo, hi}` of
/// 64-bit registers (or immediates, as a source).
fn pair(d: &D<'_, '_, '_, '_>, n: usize, dst: bool) -> R<[Any; 2]> {
    let o = d.op(n)?;
    match &o.kind {
        OperandKind::Vector(items) if items.len() == 2 => {
            let mut out = [Any::Sink; 2];
            for (i, it) in items.iter().enumerate() {
                out[i] = match d.any_w(it, 64)? {
                    a @ Any::R64(_) => a,
                    a @ Any::Imm(_) if !dst => a,
                    _ => {
                        return invalid(
                            "mov.b128 packs and unpacks two 64-bit registers {lo, hi}",
                            it.span,
                        )
                    }
                };
            }
            Ok(out)
        }
        OperandKind::Ident(_) => {
            let lo = reg128(d, n)?;
            Ok([Any::R64(lo), Any::R64(lo + 1)])
        }
        _ => d.unsup_why("a mov.b128 operand other than a .b128 register or {lo, hi}"),
    }
}

/// `mov.b128 q, {lo, hi}`, `mov.b128 {lo, hi}, q` and `mov.b128 q, r` (PTX ISA 8.3+).
pub(super) fn mov128(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    Ok(Inst::Clc(Box::new(ClcInst::Mov128 {
        dst: pair(d, 0, true)?,
        src: pair(d, 1, false)?,
    })))
}

pub(super) fn decode(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if !d.has("b128") {
        return d.unsup_why("clusterlaunchcontrol without .b128");
    }
    if d.has("try_cancel") {
        if !d.has("async") || !d.has("mbarrier::complete_tx::bytes") {
            return invalid(
                "clusterlaunchcontrol.try_cancel needs .async and .mbarrier::complete_tx::bytes",
                d.i.span,
            );
        }
        return Ok(Inst::Clc(Box::new(ClcInst::TryCancel {
            addr: d.addr(0)?,
            mbar: d.addr(1)?,
            generic: !d.has("shared::cta"),
            multicast: d.has("multicast::cluster::all"),
        })));
    }
    if !d.has("query_cancel") {
        return d.unsup();
    }
    if d.has("is_canceled") {
        if !d.has("pred") {
            return invalid("query_cancel.is_canceled needs .pred", d.i.span);
        }
        return Ok(Inst::Clc(Box::new(ClcInst::IsCanceled {
            p: d.pdst(0)?,
            resp: reg128(d, 1)?,
        })));
    }
    let dim = |m: &str| match m {
        "get_first_ctaid::x" => Some(0u8),
        "get_first_ctaid::y" => Some(1),
        "get_first_ctaid::z" => Some(2),
        _ => None,
    };
    if let Some(k) = d.mods.iter().find_map(|m| dim(m)) {
        let mut dst = [Any::Sink; 4];
        dst[k as usize] = d.dany(0)?;
        return Ok(Inst::Clc(Box::new(ClcInst::FirstCtaid {
            dst,
            resp: reg128(d, 1)?,
        })));
    }
    if d.has("get_first_ctaid") && d.has("v4") {
        let o = d.op(0)?;
        let OperandKind::Vector(items) = &o.kind else {
            return invalid("get_first_ctaid.v4 needs a vector {x, y, z, _}", o.span);
        };
        if items.len() != 4 {
            return invalid("get_first_ctaid.v4 needs four destinations", o.span);
        }
        let mut dst = [Any::Sink; 4];
        for (i, it) in items.iter().enumerate() {
            dst[i] = match d.any(it)? {
                a @ (Any::R32(_) | Any::Sink) => a,
                _ => {
                    return invalid(
                        "get_first_ctaid.v4.b32 destinations are 32-bit registers or `_`",
                        it.span,
                    )
                }
            };
        }
        return Ok(Inst::Clc(Box::new(ClcInst::FirstCtaid {
            dst,
            resp: reg128(d, 1)?,
        })));
    }
    d.unsup()
}
