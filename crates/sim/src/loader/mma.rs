//! Decoding of `tcgen05.mma{.ws}` (a child module of `decode`, whose context `D` it uses).
//! Syntax: PTX ISA 9.1 §9.7.16.10.9.1–.3, `shared/spec/mma.md` §2. Qualifiers are accepted in
//! any order (llc writes `.collector::a::discard` before `.ashift`, the ISA grammar lists both).
//! `.ashift` is a load-time `unsupported` (not modelled). `.sp` (sparse A, with its metadata
//! operand) and the `.ws` zero-column mask are operands whose modelled encodings are decided
//! at execution (`exec::mma`), where an unmodelled one ends the run `incomplete`.

use tmemu_ptx::ast::OperandKind;
use tmemu_tmem::desc::MmaKind;

use super::{invalid, D, R};
use crate::exec::mma::{MmaA, MmaInst, ScaleVec};
use crate::program::{Any, Inst, S32};

fn kind(d: &D<'_, '_, '_, '_>) -> Option<MmaKind> {
    d.mods.iter().find_map(|m| {
        Some(match *m {
            "kind::f16" => MmaKind::F16,
            "kind::tf32" => MmaKind::Tf32,
            "kind::f8f6f4" => MmaKind::F8f6f4,
            "kind::i8" => MmaKind::I8,
            "kind::mxf8f6f4" => MmaKind::MxF8f6f4,
            "kind::mxf4" => MmaKind::MxF4,
            "kind::mxf4nvf4" => MmaKind::MxF4Nvf4,
            _ => return None,
        })
    })
}

fn scale_vec(d: &D<'_, '_, '_, '_>, kind: MmaKind) -> R<Option<ScaleVec>> {
    if !kind.is_block_scaled() {
        if d.has("block_scale") {
            return invalid(
                ".block_scale needs a block-scaled kind (mxf8f6f4, mxf4, mxf4nvf4)",
                d.i.opcode_span,
            );
        }
        return Ok(None);
    }
    if !d.has("block_scale") {
        return invalid(
            "block-scaled kinds need the .block_scale qualifier",
            d.i.opcode_span,
        );
    }
    let given = d.mods.iter().find_map(|m| match *m {
        "scale_vec::1X" => Some(ScaleVec::X1),
        "scale_vec::2X" => Some(ScaleVec::X2),
        "scale_vec::4X" => Some(ScaleVec::X4),
        "block16" => Some(ScaleVec::Block16),
        "block32" => Some(ScaleVec::Block32),
        _ => None,
    });
    // Defaults (mma.md §6): mxf4 → block32; mxf8f6f4 → block32 (UNCONFIRMED: the text is
    // silent; block32 is the only size mxf8f6f4 has); mxf4nvf4 must say.
    Ok(Some(match (given, kind) {
        (Some(v), _) => v,
        (None, MmaKind::MxF4Nvf4) => {
            return invalid(
                ".kind::mxf4nvf4 needs an explicit scale vector size",
                d.i.opcode_span,
            )
        }
        (None, _) => ScaleVec::Block32,
    }))
}

fn s32_of<'s>(d: &D<'_, '_, '_, 's>, o: &tmemu_ptx::ast::Operand<'s>) -> R<S32> {
    match d.any(o)? {
        Any::R32(r) => Ok(S32::R(r)),
        Any::Imm(v) => Ok(S32::I(v as u32)),
        _ => invalid("expected a 32-bit operand", o.span),
    }
}

/// `tcgen05.mma{.ws}.cta_group::N.kind::K{.block_scale{.SV}}{.collector::..}`.
pub(super) fn mma(d: &mut D<'_, '_, '_, '_>) -> R<Inst> {
    if d.has("ashift") {
        return d.unsup_why(".ashift is not modelled");
    }
    let Some(kind) = kind(d) else {
        return invalid("tcgen05.mma needs a .kind qualifier", d.i.opcode_span);
    };
    let ws = d.has("ws");
    let cta_group = if d.has("cta_group::2") {
        2
    } else if d.has("cta_group::1") || ws {
        1
    } else {
        return invalid("tcgen05.mma needs .cta_group::1 or ::2", d.i.opcode_span);
    };
    let scale = scale_vec(d, kind)?;
    // Collector qualifiers (`.collector::a::fill` ...) are permissions to reuse an operand;
    // the operand is always read from memory here, so they change no result (mma.md §7).
    let dtm = d.addr(0)?;
    let a = match &d.op(1)?.kind {
        OperandKind::Address(_) => MmaA::Tmem(d.addr(1)?),
        _ => MmaA::Desc(d.s64(1)?),
    };
    let b = d.s64(2)?;
    // `.sp`: `[sp-meta-tmem]` sits between b-desc and idesc (PTX ISA §9.7.16.10.9.2).
    let (meta, at) = if d.has("sp") {
        (Some(d.addr(3)?), 4)
    } else {
        (None, 3)
    };
    let idesc = d.s32(at)?;
    let mut next = at + 1;
    let (mut scale_a, mut scale_b) = (None, None);
    let mut dol = Vec::new();
    if scale.is_some() {
        scale_a = Some(d.addr(next)?);
        scale_b = Some(d.addr(next + 1)?);
        next += 2;
    } else if !ws {
        let dol_at = next;
        if let OperandKind::Vector(v) = &d.op(dol_at)?.kind {
            let want = 4 * cta_group as usize;
            if v.len() != want {
                return invalid(
                    format!(
                        "disable-output-lane of .cta_group::{cta_group} has {want} elements, not {}",
                        v.len()
                    ),
                    d.op(dol_at)?.span,
                );
            }
            for o in v {
                dol.push(s32_of(d, o)?);
            }
            next = dol_at + 1;
        }
    }
    let enable_d = d.psrc(next)?;
    let mut sid = 0;
    let mut zcm = None;
    if ws && d.nops() > next + 1 {
        // `.ws`: the optional operand after enable-input-d is the zero-column-mask descriptor.
        zcm = Some(d.s64(next + 1)?);
    } else if d.nops() > next + 1 {
        if scale.is_some() {
            return invalid(
                "block-scaled tcgen05.mma takes no scale-input-d",
                d.op(next + 1)?.span,
            );
        }
        match &d.op(next + 1)?.kind {
            OperandKind::Int(v) if (0..=15).contains(v) => {
                if !matches!(kind, MmaKind::F16 | MmaKind::Tf32) {
                    return invalid(
                        "scale-input-d is only allowed with .kind::f16 and .kind::tf32",
                        d.op(next + 1)?.span,
                    );
                }
                sid = *v as u32;
            }
            _ => {
                return invalid(
                    "scale-input-d must be an immediate in 0..15",
                    d.op(next + 1)?.span,
                )
            }
        }
    }
    Ok(Inst::Mma(Box::new(MmaInst {
        kind,
        cta_group,
        ws,
        d: dtm,
        a,
        b,
        idesc,
        dol,
        enable_d,
        sid,
        scale,
        scale_a,
        scale_b,
        zcm,
        meta,
    })))
}
