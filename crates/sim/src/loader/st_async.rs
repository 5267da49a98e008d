//! Decoding of `st.async` and `red.async` (a child module of `decode`; exec/st_async.rs runs
//! them). Only the sm_90 `.shared::cluster` forms with `.mbarrier::complete_tx::bytes` are
//! modelled; the sm_100 `.global` `.release` / `.mmio` forms (two operands, no mbarrier) stay
//! a load-time `unsupported`. Type and operation combinations ptxas 13.5 refuses are
//! `invalid` here too (checked: `.v4` of a 64-bit type, `.min.u64`).

use super::{invalid, Ty, D, R};
use crate::exec::st_async::{StAsyncInst, StAsyncOp};
use crate::program::{Any, AtomOp, Inst};

fn completes_tx(d: &D<'_, '_, '_, '_>) -> bool {
    d.has("mbarrier::complete_tx::bytes")
}

fn space_ok(d: &D<'_, '_, '_, '_>) -> bool {
    !d.mods
        .iter()
        .any(|m| matches!(*m, "global" | "shared" | "shared::cta" | "local" | "param"))
}

/// `st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type [a], b, [mbar]`
pub(super) fn st_async(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if !completes_tx(d) || d.has("global") || d.has("release") || d.has("mmio") {
        return d.unsup_why(
            "only the .shared::cluster .mbarrier::complete_tx::bytes form of st.async is modelled",
        );
    }
    if !space_ok(d) {
        return invalid("st.async writes .shared::cluster memory", d.i.opcode_span);
    }
    let ty = d.ty()?;
    let esize: u8 = match ty {
        Ty::B(32) | Ty::U(32) | Ty::S(32) | Ty::F(32) => 4,
        Ty::B(64) | Ty::U(64) | Ty::S(64) | Ty::F(64) => 8,
        _ => {
            return invalid(
                "st.async takes .b32/.u32/.s32/.f32/.b64/.u64/.s64/.f64",
                d.i.opcode_span,
            )
        }
    };
    let vals = d.regs(1)?;
    let want = if d.has("v4") {
        4
    } else if d.has("v2") {
        2
    } else {
        1
    };
    if vals.len() != want {
        return invalid(
            format!(
                "st.async takes {want} source value(s) here, not {}",
                vals.len()
            ),
            d.op(1)?.span,
        );
    }
    if want * usize::from(esize) > 16 {
        return invalid("st.async vector exceeds 128 bits", d.i.opcode_span);
    }
    if d.nops() != 3 {
        return invalid("st.async takes [a], b, [mbar]", d.i.span);
    }
    sources_ok(d, &vals, esize)?;
    Ok(Inst::StAsync(Box::new(StAsyncInst {
        op: StAsyncOp::Store,
        esize,
        vals,
        addr: d.addr(0)?,
        mbar: d.addr(2)?,
    })))
}

/// `red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type [a], b, [mbar]`
pub(super) fn red_async(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if !completes_tx(d) || d.has("global") || d.has("release") || d.has("mmio") {
        return d.unsup_why(
            "only the .shared::cluster .mbarrier::complete_tx::bytes form of red.async is modelled",
        );
    }
    if !space_ok(d) {
        return invalid("red.async writes .shared::cluster memory", d.i.opcode_span);
    }
    if d.mods.iter().any(|m| m.starts_with('v') && m.len() == 2) || d.has("noftz") {
        return d.unsup_why("vector and floating-point red.async forms are not modelled");
    }
    let ty = d.ty()?;
    let opname = d
        .mods
        .iter()
        .copied()
        .find(|m| {
            matches!(
                *m,
                "add" | "min" | "max" | "inc" | "dec" | "and" | "or" | "xor"
            )
        })
        .unwrap_or("");
    // PTX ISA §9.7.13.6's table (ptxas 13.5 also takes .add.s64, the same bits as .u64)
    let (op, esize) = match (opname, ty) {
        ("inc", Ty::U(32)) => (AtomOp::Inc, 4),
        ("dec", Ty::U(32)) => (AtomOp::Dec, 4),
        ("min", Ty::U(32)) => (AtomOp::Min, 4),
        ("max", Ty::U(32)) => (AtomOp::Max, 4),
        ("min", Ty::S(32)) => (AtomOp::MinS, 4),
        ("max", Ty::S(32)) => (AtomOp::MaxS, 4),
        ("and", Ty::B(32)) => (AtomOp::And, 4),
        ("or", Ty::B(32)) => (AtomOp::Or, 4),
        ("xor", Ty::B(32)) => (AtomOp::Xor, 4),
        ("add", Ty::U(32) | Ty::S(32)) => (AtomOp::Add, 4),
        ("add", Ty::U(64) | Ty::S(64)) => (AtomOp::Add, 8),
        _ => {
            return invalid(
                format!("red.async has no .{opname} form for this type"),
                d.i.opcode_span,
            )
        }
    };
    if d.nops() != 3 {
        return invalid("red.async takes [a], b, [mbar]", d.i.span);
    }
    let b = d.any_w(d.op(1)?, esize * 8)?;
    sources_ok(d, &[b], esize)?;
    Ok(Inst::StAsync(Box::new(StAsyncInst {
        op: StAsyncOp::Red(op),
        esize,
        vals: vec![b],
        addr: d.addr(0)?,
        mbar: d.addr(2)?,
    })))
}

/// Sources are registers of the element's width or immediates.
fn sources_ok(d: &D<'_, '_, '_, '_>, vals: &[Any], esize: u8) -> R<()> {
    for v in vals {
        match (v, esize) {
            (Any::R32(_), 4) | (Any::R64(_), 8) | (Any::Imm(_), _) => {}
            _ => {
                return invalid(
                    format!(
                        "st.async/red.async source must be a {}-bit register",
                        esize * 8
                    ),
                    d.op(1)?.span,
                )
            }
        }
    }
    Ok(())
}
