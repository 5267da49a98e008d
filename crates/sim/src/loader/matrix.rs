//! Decoding of `ldmatrix` / `stmatrix` / `movmatrix` (a child module of `decode`): PTX ISA 9.1
//! §9.7.14.5.15–17. Executed: `.m8n8` with `.b16` elements, and the sm_100a 8-bit forms
//! `ldmatrix.m16n16.{x1,x2}.trans.b8` / `stmatrix.m16n8.{x1,x2,x4}.trans.b8` (exec/matrix.rs
//! says where their layouts come from). The `.m8n16` and `.m16n16` decompressing forms
//! (`.b8x16.b6x16_p32`, `.b8x16.b4x16_p64`) are load-time `unsupported`: where a 4/6-bit value
//! sits in its 8-bit container is not pinned down (shared/spec/data-movement.md §5.4).

use tmemu_ptx::ast::OperandKind;

use super::{invalid, D, R};
use crate::exec::matrix::{MatShape, MatrixInst};
use crate::program::{Any, Inst, Space};

pub(super) fn matrix(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let store = d.i.name == "stmatrix";
    if !d.has("sync") || !d.has("aligned") {
        return invalid(
            format!("`{}` needs .sync.aligned", d.opcode()),
            d.i.opcode_span,
        );
    }
    if d.has("b8x16") {
        return d.unsup_why(
            "the decompressing .b8x16 forms are not modelled: where a 4/6-bit value sits in its \
             8-bit container is not pinned down",
        );
    }
    let shape = if d.has("m8n8") && d.has("b16") {
        MatShape::M8n8B16
    } else if !store && d.has("m16n16") && d.has("b8") {
        MatShape::M16n16B8
    } else if store && d.has("m16n8") && d.has("b8") {
        MatShape::M16n8B8
    } else {
        return d
            .unsup_why("only .m8n8.b16, ldmatrix .m16n16.b8 and stmatrix .m16n8.b8 are modelled");
    };
    // ptxas 13.5: "Modifier '.trans' require for instruction ldmatrix with shape '.m16n16'"
    // (likewise stmatrix .m16n8)
    if shape != MatShape::M8n8B16 && !d.has("trans") {
        return invalid(
            format!("`{}`: the 8-bit shapes need .trans", d.opcode()),
            d.i.opcode_span,
        );
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
    // ptxas 13.5: "Incorrect no. of matrix: 4 for ldmatrix with shape '.m16n16'"
    if shape == MatShape::M16n16B8 && num == 4 {
        return invalid(
            format!("`{}`: .m16n16 takes .x1 or .x2", d.opcode()),
            d.i.opcode_span,
        );
    }
    // an .m16n16 matrix fills two registers per thread
    let num = if shape == MatShape::M16n16B8 {
        2 * num
    } else {
        num
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
        shape,
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
