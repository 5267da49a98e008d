//! Decoding of the 128-bit atomics (a child module of `decode`):
//!
//! ```text
//! atom{.sem}{.scope}{.space}.exch.b128 d, [a], b;
//! atom{.sem}{.scope}{.space}.cas.b128  d, [a], b, c;
//! ```
//!
//! PTX ISA 8.3, sm_90 (§9.7.13.5 atom: "`.b128` type is supported only with `.exch` and `.cas`
//! operations"); `red` has no `.b128` form. Operands are `.b128` registers (pairs of 64-bit
//! registers, loader/clc.rs).

use super::{mem_order, Sym, D, R};
use crate::exec::atom128::{Atom128Inst, Atom128Op};
use crate::observer::MemOrder;
use crate::program::{Inst, Space};
use tmemu_ptx::ast::OperandKind;

fn reg128(d: &D<'_, '_, '_, '_>, n: usize) -> R<u16> {
    let o = d.op(n)?;
    let OperandKind::Ident(id) = &o.kind else {
        return super::invalid(format!("`{}` takes .b128 registers", d.opcode()), o.span);
    };
    match d.lookup(id.name, id.span)? {
        Sym::R128(lo) => Ok(lo),
        _ => super::invalid(
            format!(
                "`{}` needs a .b128 register, `{}` is not one",
                d.opcode(),
                id.name
            ),
            id.span,
        ),
    }
}

pub(super) fn atom128(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if d.i.name == "red" {
        return super::invalid(
            "`red` has no .b128 form (PTX ISA §9.7.13.6)".to_string(),
            d.i.opcode_span,
        );
    }
    let op = if d.has("exch") {
        Atom128Op::Exch
    } else if d.has("cas") {
        Atom128Op::Cas
    } else {
        return super::invalid(
            "`.b128` atomics are only `.exch` and `.cas` (PTX ISA §9.7.13.5)".to_string(),
            d.i.opcode_span,
        );
    };
    let space = d.space();
    if matches!(space, Space::Local | Space::Param | Space::Const) {
        return super::invalid(
            "atomics take .global, .shared or generic addresses".to_string(),
            d.i.span,
        );
    }
    let want = if op == Atom128Op::Cas { 4 } else { 3 };
    if d.nops() != want {
        return d.unsup_why("a .b128 atomic with a cache-policy operand");
    }
    if matches!(space, Space::Global | Space::Generic) {
        d.g.uses_global_atomics = true;
    }
    Ok(Inst::Atom128(Box::new(Atom128Inst {
        space,
        op,
        d: reg128(d, 0)?,
        addr: d.addr(1)?,
        b: reg128(d, 2)?,
        c: if op == Atom128Op::Cas {
            reg128(d, 3)?
        } else {
            0
        },
        order: mem_order(d, MemOrder::Relaxed),
    })))
}
