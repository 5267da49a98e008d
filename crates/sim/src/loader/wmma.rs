//! Decoding of `wmma.load`, `wmma.store`, `wmma.mma` (a child module of `decode`;
//! exec/wmma.rs runs them). Modelled: the f16 / bf16 / tf32 forms with f32 or f16
//! accumulators of PTX ISA 9.1 §9.7.14.4 (.m16n16k16, .m32n8k16, .m8n32k16; tf32 .m16n16k8),
//! including f16 inputs with C and D of different types (`.f32.f16`, `.f16.f32`). Everything
//! else — the integer, sub-byte, b1 and f64 forms, `.satfinite` — is a load-time `unsupported`.

use tmemu_ptx::ast::OperandKind;

use super::{invalid, D, R};
use crate::exec::wmma::{frag_elems, Use, WElem, WmmaInst, WmmaOp};
use crate::program::{Any, Inst, Space};

fn shape(d: &D<'_, '_, '_, '_>) -> Option<(u8, u8, u8)> {
    d.mods.iter().find_map(|s| match *s {
        "m16n16k16" => Some((16, 16, 16)),
        "m32n8k16" => Some((32, 8, 16)),
        "m8n32k16" => Some((8, 32, 16)),
        "m16n16k8" => Some((16, 16, 8)),
        _ => None,
    })
}

fn elem(s: &str) -> Option<WElem> {
    Some(match s {
        "f16" => WElem::F16,
        "bf16" => WElem::Bf16,
        "tf32" => WElem::Tf32,
        "f32" => WElem::F32,
        _ => return None,
    })
}

/// The shape is allowed for A/B elements of type `ab`.
fn shape_ok(ab: WElem, (m, n, k): (u8, u8, u8)) -> bool {
    match ab {
        WElem::Tf32 => (m, n, k) == (16, 16, 8),
        _ => k == 16,
    }
}

/// The fragment's registers: a `{...}` vector of `n` 32-bit registers.
fn frag_regs(d: &D<'_, '_, '_, '_>, at: usize, n: usize, dst: bool) -> R<Vec<Any>> {
    let o = d.op(at)?;
    let OperandKind::Vector(items) = &o.kind else {
        return invalid("a wmma fragment is a {...} vector of registers", o.span);
    };
    if items.len() != n {
        return invalid(
            format!(
                "this wmma fragment takes {n} registers, not {}",
                items.len()
            ),
            o.span,
        );
    }
    let mut out = Vec::with_capacity(n);
    for it in items {
        match d.any(it)? {
            v @ Any::R32(_) => out.push(v),
            Any::Sink if dst => out.push(Any::Sink),
            _ => {
                return invalid(
                    "a wmma fragment register must be a 32-bit register",
                    it.span,
                )
            }
        }
    }
    Ok(out)
}

fn layout(d: &D<'_, '_, '_, '_>) -> Vec<bool> {
    d.mods
        .iter()
        .filter_map(|m| match *m {
            "row" => Some(false),
            "col" => Some(true),
            _ => None,
        })
        .collect()
}

fn space(d: &D<'_, '_, '_, '_>) -> R<Space> {
    match d.space() {
        s @ (Space::Generic | Space::Global | Space::Shared) => Ok(s),
        Space::SharedCluster => Ok(Space::SharedCluster),
        _ => invalid("wmma accesses .global or .shared memory", d.i.opcode_span),
    }
}

pub(super) fn wmma(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if !d.has("sync") || !d.has("aligned") {
        return invalid("`wmma` needs .sync.aligned", d.i.opcode_span);
    }
    let Some((m, n, k)) = shape(d) else {
        return d.unsup_why("only the f16/bf16/tf32 shapes of wmma are modelled");
    };
    if d.has("satfinite") {
        return d.unsup_why("wmma .satfinite is not modelled");
    }
    let tys: Vec<WElem> = d.mods.iter().filter_map(|m| elem(m)).collect();
    let other_ty = d.mods.iter().any(|m| {
        matches!(
            *m,
            "s8" | "u8" | "s4" | "u4" | "b1" | "f64" | "s32" | "e4m3" | "e5m2"
        )
    });
    if other_ty {
        return d.unsup_why("the integer, sub-byte, b1 and f64 wmma forms are not modelled");
    }
    let lay = layout(d);
    if d.has("load") || d.has("store") {
        let is_load = d.has("load");
        let frag = if !is_load {
            Use::C
        } else if d.has("a") {
            Use::A
        } else if d.has("b") {
            Use::B
        } else if d.has("c") {
            Use::C
        } else {
            return invalid("wmma.load needs .a, .b or .c", d.i.opcode_span);
        };
        if !is_load && !d.has("d") {
            return invalid("wmma.store needs .d", d.i.opcode_span);
        }
        let (Some(&ty), [col]) = (tys.last(), lay.as_slice()) else {
            return invalid(
                "wmma.load/store needs one layout and a type",
                d.i.opcode_span,
            );
        };
        let ok = match frag {
            Use::A | Use::B => matches!(ty, WElem::F16 | WElem::Bf16 | WElem::Tf32),
            Use::C => matches!(ty, WElem::F16 | WElem::F32),
        };
        if !ok {
            return invalid(
                "wmma fragment type not valid for this matrix",
                d.i.opcode_span,
            );
        }
        if frag != Use::C && !shape_ok(ty, (m, n, k)) {
            return invalid("wmma shape not valid for this type", d.i.opcode_span);
        }
        let nregs = frag_elems(frag, ty, m, n, k) / ty.per_reg();
        let (regs_at, addr_at) = if is_load { (0, 1) } else { (1, 0) };
        let regs = frag_regs(d, regs_at, nregs, is_load)?;
        let stride = if d.nops() > 2 {
            Some(d.any(d.op(2)?)?)
        } else {
            None
        };
        let (space, addr, col) = (space(d)?, d.addr(addr_at)?, *col);
        let op = if is_load {
            WmmaOp::Load {
                frag,
                ty,
                col,
                space,
                addr,
                stride,
                regs,
            }
        } else {
            WmmaOp::Store {
                ty,
                col,
                space,
                addr,
                stride,
                regs,
            }
        };
        return Ok(Inst::Wmma(Box::new(WmmaInst { m, n, k, op })));
    }
    if !d.has("mma") {
        return d.unsup();
    }
    if lay.len() != 2 {
        return invalid("wmma.mma needs the A and B layouts", d.i.opcode_span);
    }
    // .dtype.ctype (f16 inputs) or .dtype.atype.btype.ctype (bf16, tf32)
    let (ab, dt, ct) = match tys.as_slice() {
        [dt, ct] => (WElem::F16, *dt, *ct),
        [dt, a, b, ct] if a == b && matches!(a, WElem::Bf16 | WElem::Tf32) => (*a, *dt, *ct),
        _ => return invalid("wmma.mma types not valid", d.i.opcode_span),
    };
    if !matches!(dt, WElem::F16 | WElem::F32) || !matches!(ct, WElem::F16 | WElem::F32) {
        return invalid("wmma.mma accumulators are .f16 or .f32", d.i.opcode_span);
    }
    // mixed C/D (`.f32.f16`, `.f16.f32`) exist for f16 inputs only (PTX ISA 9.1 §9.7.14.4)
    if dt != ct && ab != WElem::F16 {
        return invalid(
            "only f16 wmma.mma takes C and D of different types",
            d.i.opcode_span,
        );
    }
    if ab != WElem::F16 && dt != WElem::F32 {
        return invalid("bf16 and tf32 wmma.mma accumulate in .f32", d.i.opcode_span);
    }
    if !shape_ok(ab, (m, n, k)) {
        return invalid("wmma shape not valid for this type", d.i.opcode_span);
    }
    let na = frag_elems(Use::A, ab, m, n, k) / ab.per_reg();
    let nb = frag_elems(Use::B, ab, m, n, k) / ab.per_reg();
    let nd = frag_elems(Use::C, dt, m, n, k) / dt.per_reg();
    let nc = frag_elems(Use::C, ct, m, n, k) / ct.per_reg();
    let dregs = frag_regs(d, 0, nd, true)?;
    let a = frag_regs(d, 1, na, false)?;
    let b = frag_regs(d, 2, nb, false)?;
    let c = frag_regs(d, 3, nc, false)?;
    Ok(Inst::Wmma(Box::new(WmmaInst {
        m,
        n,
        k,
        op: WmmaOp::Mma {
            ab,
            acc: dt,
            cty: ct,
            d: dregs,
            a,
            b,
            c,
        },
    })))
}
