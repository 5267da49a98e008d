//! Decoding of `st.bulk` (a child module of `decode`; exec/st_bulk.rs runs it):
//! `st.bulk{.weak}{.shared::cta} [a], size, initval;` (PTX ISA 8.6, sm_100). `size` is a
//! 64-bit integer (register or immediate; a 32-bit register is taken zero-extended, as
//! ptxas 13.5 accepts it), `initval` must be the immediate 0.

use tmemu_ptx::ast::OperandKind;

use super::{invalid, D, R};
use crate::exec::st_bulk::StBulkInst;
use crate::program::{Any, Inst, Space};

pub(super) fn st_bulk(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if d.nops() != 3 {
        return invalid("st.bulk takes [a], size, initval", d.i.span);
    }
    let space = match d.space() {
        s @ (Space::Generic | Space::Shared) => s,
        _ => return invalid("st.bulk writes .shared::cta memory", d.i.opcode_span),
    };
    let init = d.op(2)?;
    if !matches!(init.kind, OperandKind::Int(0)) {
        return invalid("st.bulk's initval must be the immediate 0", init.span);
    }
    let size = d.any(d.op(1)?)?;
    if matches!(size, Any::Sink) {
        return invalid("st.bulk's size is an integer", d.op(1)?.span);
    }
    Ok(Inst::StBulk(Box::new(StBulkInst {
        space,
        addr: d.addr(0)?,
        size,
    })))
}
