//! Decoding of the dynamic-stack instructions (a child module of `decode`; exec/stack.rs runs
//! them), PTX ISA §9.7.17 (PTX 7.3, sm_52): `alloca.type ptr, size{, immAlign}`,
//! `stacksave.type d`, `stackrestore.type a`, `.type` one of `.u32`/`.u64`.
//!
//! What ptxas 13.5 refuses is refused here as bad input, with its words: an alignment that is
//! not a power of two ("Alignment must be a power of two"), one above 2^23 ("Alignment value
//! too large, exceeds 2^23"), a register alignment ("Arguments mismatch"). ptxas takes
//! `.u32` with `.address_size 64` too, so the loader does.

use tmemu_ptx::ast::OperandKind;

use super::{invalid, Ty, D, R};
use crate::program::{Any, Inst};

/// The ISA's `frame_align`: "the minimum guaranteed alignment", which is also immAlign's
/// default (8).
const FRAME_ALIGN: u32 = 8;

pub(super) fn stack(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let bits = match d.ty()? {
        Ty::U(b @ (32 | 64)) => b,
        _ => {
            return invalid(
                format!("`{}` takes .u32 or .u64", d.opcode()),
                d.i.opcode_span,
            )
        }
    };
    // an operand of the instruction's type: a register of its width (or an immediate where
    // the ISA allows one)
    let operand = |n: usize, imm_ok: bool| -> R<Any> {
        let o = d.op(n)?;
        let a = d.any(o)?;
        match (a, bits) {
            (Any::R32(_), 32) | (Any::R64(_), 64) => Ok(a),
            (Any::Imm(_), _) if imm_ok => Ok(a),
            _ => invalid(
                format!(
                    "`{}` needs a {bits}-bit {} here",
                    d.opcode(),
                    if imm_ok {
                        "register or immediate"
                    } else {
                        "register"
                    }
                ),
                o.span,
            ),
        }
    };
    match d.i.name {
        "alloca" => {
            if !(2..=3).contains(&d.nops()) {
                return invalid("alloca takes ptr, size{, immAlign}", d.i.span);
            }
            let align = match d.i.operands.get(2) {
                None => FRAME_ALIGN,
                Some(o) => match o.kind {
                    OperandKind::Int(v) if v > 0 && (v as u64).is_power_of_two() => {
                        if v > 1 << 23 {
                            return invalid("Alignment value too large, exceeds 2^23", o.span);
                        }
                        (v as u32).max(FRAME_ALIGN)
                    }
                    OperandKind::Int(_) => {
                        return invalid("Alignment must be a power of two", o.span)
                    }
                    _ => return invalid("alloca's alignment must be an integer constant", o.span),
                },
            };
            Ok(Inst::Alloca {
                d: operand(0, false)?,
                size: operand(1, true)?,
                align,
            })
        }
        "stacksave" if d.nops() == 1 => Ok(Inst::StackSave {
            d: operand(0, false)?,
        }),
        "stackrestore" if d.nops() == 1 => Ok(Inst::StackRestore {
            a: operand(0, false)?,
        }),
        _ => invalid(format!("`{}` takes one register", d.opcode()), d.i.span),
    }
}
