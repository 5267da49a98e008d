//! Decoding of `ldmatrix` / `stmatrix` / `movmatrix` (a child module of `decode`): PTX ISA 9.1
//! §9.7.14.5.15–17. Only `.m8n8` with `.b16` elements is executed; the other shapes and
//! types are load-time `unsupported`.

use tmemu_ptx::ast::OperandKind;

use super::{invalid, D, R};
use crate::exec::matrix::MatrixInst;
use crate::program::{Any, Inst, Space};

pub(super) fn matrix(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let store = d.i.name == "stmatrix";
    if !d.has("sync") || !d.has("aligned") {
        return invalid(
            format!("`{}` needs .sync.aligned", d.opcode()),
            d.i.opcode_span,
        );
    }
    if !d.has("m8n8") || !d.has("b16") {
        return d.unsup_why("only .m8n8 with .b16 elements is modelled");
    }
    let num = if d.has("x1") {
        1
    } else if d.has("x2") {
        2
    } else if d.has("x4") {
        4
    } else {
        return invalid(
            format!("`{}` needs .x1, .x2 or .x4", d.opcode()),
            d.i.opcode_span,
        );
    };
    let space = if d.has("shared") || d.has("shared::cta") {
        Space::Shared
    } else {
        Space::Generic
    };
    let (ri, ai) = if store { (1, 0) } else { (0, 1) };
    let o = d.op(ri)?;
    let items: Vec<_> = match &o.kind {
        OperandKind::Vector(v) => v.iter().collect(),
        _ => vec![o],
    };
    if items.len() != num {
        return invalid(
            format!(
                "`{}` takes {num} registers, not {}",
                d.opcode(),
                items.len()
            ),
            o.span,
        );
    }
    let mut regs = Vec::with_capacity(num);
    for it in items {
        match d.any(it)? {
            Any::R32(r) => regs.push(r),
            _ => return invalid("ldmatrix/stmatrix registers are 32-bit", it.span),
        }
    }
    Ok(Inst::Matrix(Box::new(MatrixInst {
        store,
        trans: d.has("trans"),
        regs,
        addr: d.addr(ai)?,
        space,
    })))
}

/// `movmatrix.sync.aligned.m8n8.trans.b16 d, a` (sm_75, PTX 7.8): the one form the ISA has.
pub(super) fn movmatrix(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    for m in ["sync", "aligned", "m8n8", "trans", "b16"] {
        if !d.has(m) {
            return invalid(
                format!("`{}` needs .sync.aligned.m8n8.trans.b16", d.opcode()),
                d.i.opcode_span,
            );
        }
    }
    if d.nops() != 2 {
        return invalid("movmatrix takes two registers".to_string(), d.i.span);
    }
    Ok(Inst::MovMatrix {
        d: d.d32(0)?,
        a: d.d32(1)?,
    })
}
