//! Decoding of the tcgen05 family except `tcgen05.mma*` (a child module of `decode`, whose
//! context `D` it uses): alloc / dealloc / relinquish_alloc_permit, ld / st / wait, cp, shift,
//! commit, fence. Syntax: PTX ISA 9.1 §9.7.16.7–§9.7.16.12; shared/spec/tmem.md,
//! data-movement.md.
//!
//! Static rules (mandatory qualifiers, shape/num legality, cp shape ↔ multicast, one
//! cta_group per kernel...) are the static checker's; here a malformed form is `Invalid`
//! and a form we do not execute (`tcgen05.ld.red`) is `Unsupported`, so a run never ends
//! clean on something it did not model.

use tmemu_ptx::ast::OperandKind;
use tmemu_tmem::layout::{CpForm, CpMulticast, CpShape, CpSrcFormat, LdStForm, LdStShape};

use super::{invalid, D, R};
use crate::exec::tcgen05::{TcInst, TcOp};
use crate::program::{Any, Inst, Space};

/// `.cta_group::N` (None when absent; the static checker reports a missing one).
fn cta_group(d: &D<'_, '_, '_, '_>) -> R<u8> {
    if d.has("cta_group::1") {
        Ok(1)
    } else if d.has("cta_group::2") {
        Ok(2)
    } else {
        invalid(
            format!("`{}` needs .cta_group::1 or .cta_group::2", d.opcode()),
            d.i.opcode_span,
        )
    }
}

fn ldst_form(d: &D<'_, '_, '_, '_>, pack: &str) -> R<LdStForm> {
    let shape = d
        .mods
        .iter()
        .find_map(|m| {
            Some(match *m {
                "16x64b" => LdStShape::S16x64b,
                "16x128b" => LdStShape::S16x128b,
                "16x256b" => LdStShape::S16x256b,
                "32x32b" => LdStShape::S32x32b,
                "16x32bx2" => LdStShape::S16x32bx2,
                _ => return None,
            })
        })
        .map_or_else(
            || invalid(format!("`{}` needs a shape", d.opcode()), d.i.opcode_span),
            Ok,
        )?;
    let num = d
        .mods
        .iter()
        .find_map(|m| m.strip_prefix('x').and_then(|n| n.parse::<u32>().ok()))
        .map_or_else(
            || {
                invalid(
                    format!("`{}` needs .num (.x1 ...)", d.opcode()),
                    d.i.opcode_span,
                )
            },
            Ok,
        )?;
    LdStForm::new(shape, num, d.has(pack))
        .or_else(|e| invalid(format!("`{}`: {e}", d.opcode()), d.i.opcode_span))
}

/// The 32-bit immediate `immHalfSplitoff` of `.16x32bx2` at operand `n`.
fn split_imm(d: &D<'_, '_, '_, '_>, n: usize) -> R<u32> {
    let o = d.op(n)?;
    match o.kind {
        OperandKind::Int(v) => Ok(v as u32),
        _ => invalid("immHalfSplitoff must be an immediate", o.span),
    }
}

fn r32_vector(d: &D<'_, '_, '_, '_>, n: usize, want: u32) -> R<Vec<Any>> {
    let regs = d.regs(n)?;
    if regs.len() != want as usize {
        return invalid(
            format!(
                "`{}` needs a vector of {want} registers, got {}",
                d.opcode(),
                regs.len()
            ),
            d.op(n)?.span,
        );
    }
    Ok(regs)
}

/// The reduction of `tcgen05.ld.red` (data-movement.md §2.1): `.min`/`.max`, then `.f32`
/// (with `.abs`, `.NaN`) or `.u32`/`.s32`, in either order (ptxas accepts both); `redval` is
/// operand 1. Shape/num/pack legality is the static checker's (TM0405).
fn ld_red(d: &D<'_, '_, '_, '_>) -> R<crate::exec::tcgen05::LdRed> {
    use crate::exec::tcgen05::{LdRed, RedOp, RedType};
    let op = if d.has("min") {
        RedOp::Min
    } else if d.has("max") {
        RedOp::Max
    } else {
        return invalid("tcgen05.ld.red needs .min or .max", d.i.opcode_span);
    };
    let ty = if d.has("f32") {
        RedType::F32 {
            abs: d.has("abs"),
            nan: d.has("NaN"),
        }
    } else if d.has("u32") {
        RedType::U32
    } else if d.has("s32") {
        RedType::S32
    } else {
        return invalid("tcgen05.ld.red needs .f32, .u32 or .s32", d.i.opcode_span);
    };
    let dst = match d.any(d.op(1)?)? {
        Any::R32(r) => r,
        _ => return invalid("redval must be a 32-bit register", d.op(1)?.span),
    };
    Ok(LdRed { op, ty, dst })
}

pub(super) fn decode(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    let op = if d.has("alloc") {
        let space = match d.space() {
            Space::Shared => Space::Shared,
            Space::Generic => Space::Generic,
            _ => {
                return invalid(
                    "tcgen05.alloc writes to .shared::cta (or a generic address)",
                    d.i.opcode_span,
                )
            }
        };
        TcOp::Alloc {
            group: cta_group(d)?,
            dst: d.addr(0)?,
            space,
            ncols: d.any(d.op(1)?)?,
        }
    } else if d.has("dealloc") {
        TcOp::Dealloc {
            group: cta_group(d)?,
            taddr: d.any(d.op(0)?)?,
            ncols: d.any(d.op(1)?)?,
        }
    } else if d.has("relinquish_alloc_permit") {
        TcOp::Relinquish {
            group: cta_group(d)?,
        }
    } else if d.has("ld") {
        // `tcgen05.ld.red` (sm_103a): `r, redval, [taddr]{, imm}` — one operand more.
        let red = if d.has("red") { Some(ld_red(d)?) } else { None };
        let at = if red.is_some() { 1 } else { 0 };
        let form = ldst_form(d, "pack::16b")?;
        let split = if form.shape == LdStShape::S16x32bx2 {
            split_imm(d, 2 + at)?
        } else {
            0
        };
        let regs = r32_vector(d, 0, form.regs())?;
        let mut dst = Vec::with_capacity(regs.len());
        for (k, r) in regs.iter().enumerate() {
            match r {
                Any::R32(x) => dst.push(*x),
                _ => {
                    return invalid(
                        format!("tcgen05.ld destination {k} is not a 32-bit register"),
                        d.op(0)?.span,
                    )
                }
            }
        }
        TcOp::Ld {
            form,
            taddr: d.addr(1 + at)?,
            split,
            dst,
            red,
        }
    } else if d.has("st") {
        let form = ldst_form(d, "unpack::16b")?;
        let (split, rn) = if form.shape == LdStShape::S16x32bx2 {
            (split_imm(d, 1)?, 2)
        } else {
            (0, 1)
        };
        TcOp::St {
            form,
            taddr: d.addr(0)?,
            split,
            src: r32_vector(d, rn, form.regs())?,
        }
    } else if d.has("wait::ld") {
        TcOp::Wait { st: false }
    } else if d.has("wait::st") {
        TcOp::Wait { st: true }
    } else if d.has("fence::before_thread_sync") {
        TcOp::Fence { after: false }
    } else if d.has("fence::after_thread_sync") {
        TcOp::Fence { after: true }
    } else if d.has("commit") {
        if !d.has("mbarrier::arrive::one") {
            return d.unsup();
        }
        let multicast = d.has("multicast::cluster");
        let mask = if multicast {
            Some(d.any(d.op(1)?)?)
        } else {
            None
        };
        TcOp::Commit {
            group: cta_group(d)?,
            mbar: d.addr(0)?,
            space: if d.has("shared::cluster") {
                Space::SharedCluster
            } else {
                Space::Generic
            },
            mask,
        }
    } else if d.has("cp") {
        let shape = d
            .mods
            .iter()
            .find_map(|m| {
                Some(match *m {
                    "128x256b" => CpShape::S128x256b,
                    "4x256b" => CpShape::S4x256b,
                    "128x128b" => CpShape::S128x128b,
                    "64x128b" => CpShape::S64x128b,
                    "32x128b" => CpShape::S32x128b,
                    _ => return None,
                })
            })
            .map_or_else(|| invalid("tcgen05.cp needs a shape", d.i.opcode_span), Ok)?;
        let multicast = if d.has("warpx2::02_13") {
            CpMulticast::Warpx2_02_13
        } else if d.has("warpx2::01_23") {
            CpMulticast::Warpx2_01_23
        } else if d.has("warpx4") {
            CpMulticast::Warpx4
        } else {
            CpMulticast::None
        };
        let src = if d.has("b6x16_p32") {
            CpSrcFormat::B6x16P32
        } else if d.has("b4x16_p64") {
            CpSrcFormat::B4x16P64
        } else {
            CpSrcFormat::Plain
        };
        let form = CpForm::new(shape, multicast, src)
            .or_else(|e| invalid(format!("`{}`: {e}", d.opcode()), d.i.opcode_span))?;
        let desc = d.any_w(d.op(1)?, 64)?;
        if matches!(desc, Any::R32(_)) {
            return invalid("the tcgen05.cp source descriptor is 64-bit", d.op(1)?.span);
        }
        TcOp::Cp {
            group: cta_group(d)?,
            form,
            taddr: d.addr(0)?,
            desc,
        }
    } else if d.has("shift") {
        if !d.has("down") {
            return d.unsup();
        }
        TcOp::Shift {
            group: cta_group(d)?,
            taddr: d.addr(0)?,
        }
    } else {
        return d.unsup();
    };
    Ok(Inst::Tc(Box::new(TcInst { op })))
}
