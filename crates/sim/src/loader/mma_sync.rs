//! Decoding of warp-level `mma.sync.aligned` (a child module of `decode`): PTX ISA 9.1
//! §9.7.14.5.14. The shapes and types below are the ones the ISA lists for sm_80..sm_100a
//! (ptxas 13.5 accepts each of them for sm_90a and sm_100a); everything else — the Volta
//! `.m8n8k4` f16 forms, `mma.sp`, the sm_120 `.kind::` and block-scale forms — is a load-time
//! `unsupported`, and a combination the ISA forbids is `invalid`.

use tmemu_ptx::ast::OperandKind;

use super::{invalid, D, R};
use crate::exec::mma_sync::{Accum, BitOp, Elem, MmaSyncInst};
use crate::program::{Any, Inst};

fn elem(s: &str) -> Option<Elem> {
    Some(match s {
        "f16" => Elem::F16,
        "bf16" => Elem::Bf16,
        "tf32" => Elem::Tf32,
        "e4m3" => Elem::E4m3,
        "e5m2" => Elem::E5m2,
        "f64" => Elem::F64,
        "s8" => Elem::S8,
        "u8" => Elem::U8,
        "s4" => Elem::S4,
        "u4" => Elem::U4,
        "b1" => Elem::B1,
        _ => return None,
    })
}

fn accum(s: &str) -> Option<Accum> {
    Some(match s {
        "f32" => Accum::F32,
        "f16" => Accum::F16,
        "f64" => Accum::F64,
        "s32" => Accum::S32,
        _ => return None,
    })
}

/// Shapes the ISA allows per A type (dense `mma.sync`, sm_80 and later).
fn shape_ok(a: Elem, m: usize, n: usize, k: usize) -> bool {
    matches!(
        (a, m, n, k),
        (Elem::F16 | Elem::Bf16, 16, 8, 8 | 16)
            | (Elem::Tf32, 16, 8, 4 | 8)
            | (Elem::E4m3 | Elem::E5m2, 16, 8, 16 | 32)
            | (Elem::F64, 8, 8, 4)
            | (Elem::F64, 16, 8, 4 | 8 | 16)
            | (Elem::S8 | Elem::U8, 8, 8, 16)
            | (Elem::S8 | Elem::U8, 16, 8, 16 | 32)
            | (Elem::S4 | Elem::U4, 8, 8, 32)
            | (Elem::S4 | Elem::U4, 16, 8, 32 | 64)
            | (Elem::B1, 8, 8, 128)
            | (Elem::B1, 16, 8, 128 | 256)
    )
}

fn parse_shape(s: &str) -> Option<(usize, usize, usize)> {
    let rest = s.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = rest.split_once('k')?;
    Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
}

pub(super) fn mma_sync(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if d.has("sp") || d.mods.iter().any(|m| m.starts_with("sp::")) {
        return d.unsup_why("sparse mma.sp is not modelled");
    }
    if d.mods
        .iter()
        .any(|m| m.starts_with("kind::") || m.starts_with("scale_vec") || *m == "block_scale")
    {
        return d.unsup_why("the sm_120 .kind:: / block-scale forms are not modelled");
    }
    if !d.has("sync") || !d.has("aligned") {
        return invalid("`mma` needs .sync.aligned", d.i.opcode_span);
    }
    let Some((m, n, k)) = d.mods.iter().find_map(|s| parse_shape(s)) else {
        return invalid(
            "`mma.sync` needs a shape such as .m16n8k16",
            d.i.opcode_span,
        );
    };
    // the layouts, in order: .row.col is the only one the modelled shapes allow
    let layouts: Vec<&str> = d
        .mods
        .iter()
        .copied()
        .filter(|s| *s == "row" || *s == "col")
        .collect();
    // the type modifiers in order: d, a, b, c
    let tys: Vec<&str> = d
        .mods
        .iter()
        .copied()
        .filter(|s| elem(s).is_some() || accum(s).is_some())
        .collect();
    if (m, n, k) == (8, 8, 4) && tys.contains(&"f16") {
        return d.unsup_why("the Volta .m8n8k4 f16 forms (quad-pair fragments) are not modelled");
    }
    if tys.len() != 4 {
        return invalid(
            "`mma.sync` needs four types: .dtype.atype.btype.ctype",
            d.i.opcode_span,
        );
    }
    let (Some(dt), Some(a_ty), Some(b_ty), Some(ct)) =
        (accum(tys[0]), elem(tys[1]), elem(tys[2]), accum(tys[3]))
    else {
        return invalid(
            format!("`mma.sync` types .{} not valid", tys.join(".")),
            d.i.opcode_span,
        );
    };
    if layouts != ["row", "col"] {
        return invalid(
            format!("`mma.sync.m{m}n{n}k{k}` needs the layouts .row.col"),
            d.i.opcode_span,
        );
    }
    if !shape_ok(a_ty, m, n, k) {
        return invalid(
            format!(
                "`mma.sync` has no shape .m{m}n{n}k{k} for .{} inputs",
                tys[1]
            ),
            d.i.opcode_span,
        );
    }
    // A and B must be of one family; C's type must be D's
    let family = |e: Elem| match e {
        Elem::F16 | Elem::Bf16 | Elem::Tf32 | Elem::F64 => e as u8,
        Elem::E4m3 | Elem::E5m2 => 100,
        Elem::S8 | Elem::U8 => 101,
        Elem::S4 | Elem::U4 => 102,
        Elem::B1 => 103,
    };
    let acc_ok = match a_ty {
        Elem::F16 | Elem::E4m3 | Elem::E5m2 => matches!(dt, Accum::F32 | Accum::F16),
        Elem::Bf16 | Elem::Tf32 => dt == Accum::F32,
        Elem::F64 => dt == Accum::F64,
        _ => dt == Accum::S32,
    };
    if family(a_ty) != family(b_ty) || dt != ct || !acc_ok {
        return invalid(
            format!(
                "`mma.sync` type combination .{} is not valid",
                tys.join(".")
            ),
            d.i.opcode_span,
        );
    }
    let satfinite = d.has("satfinite");
    if satfinite && !a_ty.is_int() {
        return invalid(
            ".satfinite applies to the integer mma.sync forms",
            d.i.opcode_span,
        );
    }
    let bitop = if d.has("xor") { BitOp::Xor } else { BitOp::And };
    if a_ty == Elem::B1 && !d.has("popc") {
        return invalid(
            "the .b1 mma.sync forms need .and.popc or .xor.popc",
            d.i.opcode_span,
        );
    }
    let (na, nb, nc) = MmaSyncInst::reg_counts(m, n, k, a_ty, dt);
    let wide = a_ty == Elem::F64;
    let mut groups: [Vec<Any>; 4] = Default::default();
    for (slot, want) in [nc, na, nb, nc].into_iter().enumerate() {
        let o = d.op(slot)?;
        let items: Vec<_> = match &o.kind {
            OperandKind::Vector(v) => v.iter().collect(),
            _ => vec![o],
        };
        let what = ["D", "A", "B", "C"][slot];
        if items.len() != want {
            return invalid(
                format!(
                    "`mma.sync.m{m}n{n}k{k}` takes {want} {what} registers, not {}",
                    items.len()
                ),
                o.span,
            );
        }
        // f64 forms hold every operand in 64-bit registers; the others in 32-bit ones
        let reg_wide = wide;
        for it in items {
            let v = d.any_w(it, if reg_wide { 64 } else { 32 })?;
            match (v, reg_wide, slot) {
                (Any::R32(_), false, _) | (Any::R64(_), true, _) => {}
                (Any::Sink, _, 0) => {}
                (Any::Imm(_), _, 1..) => {}
                _ => {
                    return invalid(
                        format!(
                            "`mma.sync` {what} operand must be a {} register",
                            if reg_wide { "64-bit" } else { "32-bit" }
                        ),
                        it.span,
                    )
                }
            }
            groups[slot].push(v);
        }
    }
    if d.nops() != 4 {
        return invalid("`mma.sync` takes four operands: d, a, b, c", d.i.span);
    }
    let [dd, a, b, c] = groups;
    Ok(Inst::MmaSync(Box::new(MmaSyncInst {
        m,
        n,
        k,
        a_ty,
        b_ty,
        acc: dt,
        satfinite,
        bitop,
        d: dd,
        a,
        b,
        c,
    })))
}
