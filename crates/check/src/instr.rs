//! Per-instruction static rules: the immediate nCols (TM0001–TM0003), ld/st forms
//! (TM0402–TM0405), cp forms (TM0406, TM0407), commit multicast (TM0408), mandatory
//! qualifiers (TM0410) and the alloc state space (TM0411).

use tmemu_ptx::ast::{Instruction, OperandKind, ScalarType, StateSpace};
use tmemu_ptx::decode::{self, CpMulticast, CpShape, CpSrcFormat, LdStShape, Tcgen05, Tcgen05Op};
use tmemu_tmem::alloc::ncols_rule;
use tmemu_tmem::layout;
use tmemu_tmem::rules::{self, Rule};

use crate::regs::RegTypes;
use crate::StaticFinding;

pub(crate) fn check(i: &Instruction<'_>, regs: &RegTypes<'_>, out: &mut Vec<StaticFinding>) {
    // A misspelt or repeated qualifier is the loader's "unsupported" report, not a rule —
    // except a `.xN` that no ld/st form has (`.x3`, `.x256`), which is TM0402 (ptxas:
    // "Modifier .xN not allowed").
    let Ok(t) = decode::decode_tcgen05(i) else {
        let mut mods = i.modifiers.iter();
        if matches!(mods.next(), Some("ld" | "st")) {
            if let Some(x) = mods.find(|m| is_num_qualifier(m)) {
                out.push(StaticFinding::new(
                    &rules::LDST_VECTOR_LENGTH,
                    i.span,
                    format!(
                        "`{}`: .{x} is not a tcgen05.ld/st repeat count",
                        i.opcode_display()
                    ),
                ));
            }
        }
        return;
    };
    let mut report = |rule: &'static Rule, msg: String| {
        out.push(StaticFinding::new(rule, i.span, msg));
    };
    let op = i.opcode_display();
    missing_qualifiers(&t, &mut |what| {
        report(
            &rules::MISSING_QUALIFIER,
            format!("`{op}` lacks the mandatory {what}"),
        )
    });
    match t.op {
        Tcgen05Op::Alloc | Tcgen05Op::Dealloc => {
            if let Some(OperandKind::Int(n)) = i.operands.get(1).map(|o| &o.kind) {
                for rule in ncols_rules(*n) {
                    let why = match rule.id {
                        "TM0003" => "out of range, expected to be in [32, 512]",
                        "TM0002" => "not a multiple of 32",
                        _ => "not a power of two",
                    };
                    report(rule, format!("`{op}` with nCols = {n}: {why}"));
                }
            }
            if t.op == Tcgen05Op::Alloc && t.space.is_some_and(|s| s != StateSpace::SharedCta) {
                report(
                    &rules::ALLOC_STATE_SPACE,
                    format!("`{op}`: the state space of tcgen05.alloc must be .shared::cta"),
                );
            }
        }
        Tcgen05Op::Ld | Tcgen05Op::St | Tcgen05Op::LdRed => ldst(i, &t, &mut report),
        Tcgen05Op::Cp => cp(i, &t, &mut report),
        Tcgen05Op::Commit => {
            let has_mask = i.operands.len() >= 2;
            if t.multicast_cluster != has_mask {
                let msg = if has_mask {
                    "a ctaMask operand needs .multicast::cluster"
                } else {
                    ".multicast::cluster needs a 16-bit ctaMask operand"
                };
                report(&rules::COMMIT_MULTICAST_MASK, format!("`{op}`: {msg}"));
            }
            // The mask is 16 bits: an immediate or a .b16/.u16/.s16 register (ptxas 13.5
            // probe: a .b32 register is "must be 16-bit size", .b64 and .f16 "Arguments
            // mismatch"). A register whose declaration is not in this function is left alone.
            if let Some(OperandKind::Ident(id)) = i.operands.get(1).map(|o| &o.kind) {
                if let Some(ty) = regs.type_of(id.name) {
                    if !matches!(ty, ScalarType::B16 | ScalarType::U16 | ScalarType::S16) {
                        report(
                            &rules::COMMIT_MULTICAST_MASK,
                            format!(
                                "`{op}`: ctaMask {} is .{}, it must be a 16-bit integer",
                                id.name,
                                ty.as_str().trim_start_matches('.')
                            ),
                        );
                    }
                }
            }
        }
        _ => {}
    }
    // Packing qualifiers on the wrong operation (ld.red has its own rule, TM0405).
    if t.pack_16b && !matches!(t.op, Tcgen05Op::Ld | Tcgen05Op::LdRed) {
        report(
            &rules::PACK_UNPACK_MISPLACED,
            format!("`{op}`: .pack::16b belongs to tcgen05.ld"),
        );
    }
    if t.unpack_16b && t.op != Tcgen05Op::St {
        report(
            &rules::PACK_UNPACK_MISPLACED,
            format!("`{op}`: .unpack::16b belongs to tcgen05.st"),
        );
    }
    if t.op != Tcgen05Op::Cp && (t.cp_dst_b8x16 || t.cp_src_format.is_some()) {
        report(
            &rules::CP_FORMAT_PAIR,
            format!("`{op}`: decompression formats belong to tcgen05.cp"),
        );
    }
}

/// `x` followed by digits: a repeat count as written (legal or not).
fn is_num_qualifier(m: &str) -> bool {
    m.strip_prefix('x')
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The rules an immediate nCols breaks, as ptxas 13.5 reports them: each of the three
/// conditions on its own (probed: 48 → multiple-of-32 and power-of-2; 16 → multiple-of-32
/// and range; 24, 600, 513 → all three; 1024 → range only; 0 → "non-zero" and range, which
/// is TM0003 alone). `ncols_rule` (the allocator's verdict) decides whether anything is
/// wrong at all, so static and dynamic checks never disagree on legality.
fn ncols_rules(n: i64) -> impl Iterator<Item = &'static Rule> {
    let mut v: [Option<&'static Rule>; 3] = [None, None, None];
    match u32::try_from(n) {
        Ok(n) if ncols_rule(n).is_none() => {}
        Ok(n) if n > 0 => {
            if n % 32 != 0 {
                v[0] = Some(&rules::NCOLS_NOT_MULTIPLE_OF_32);
            }
            if !n.is_power_of_two() {
                v[1] = Some(&rules::NCOLS_NOT_POWER_OF_TWO);
            }
            if ncols_rule(n).is_some_and(|r| r.id == rules::NCOLS_OUT_OF_RANGE.id)
                || !(32..=512).contains(&n)
            {
                v[2] = Some(&rules::NCOLS_OUT_OF_RANGE);
            }
        }
        // 0, negative, or beyond 32 bits.
        _ => v[2] = Some(&rules::NCOLS_OUT_OF_RANGE),
    }
    v.into_iter().flatten()
}

/// tmem.md rule 31: `.sync.aligned` on alloc/dealloc/relinquish/ld/st/wait, `.cta_group::N`
/// on alloc/dealloc/relinquish/cp/shift/commit/mma, `.b32` on alloc/dealloc/ld/st, the
/// shape and `.num` of ld/st, the shape of cp, `.kind` of mma, `.mbarrier::arrive::one` of
/// commit. (Shape/num/kind/arrive are DERIVED from the syntax blocks: no form without them
/// exists, so their absence cannot be a legal default.)
fn missing_qualifiers(t: &Tcgen05, report: &mut impl FnMut(&str)) {
    use Tcgen05Op::*;
    let sync_aligned = matches!(
        t.op,
        Alloc | Dealloc | RelinquishAllocPermit | Ld | LdRed | St | WaitLd | WaitSt
    );
    if sync_aligned && !t.sync {
        report(".sync qualifier");
    }
    if sync_aligned && !t.aligned {
        report(".aligned qualifier");
    }
    let cta_group = matches!(
        t.op,
        Alloc
            | Dealloc
            | RelinquishAllocPermit
            | Cp
            | Shift
            | Commit
            | Mma
            | MmaSp
            | MmaWs
            | MmaWsSp
    );
    if cta_group && t.cta_group.is_none() {
        report(".cta_group::N qualifier");
    }
    if matches!(t.op, Alloc | Dealloc | Ld | St) && t.ty.is_none() {
        report(".b32 type");
    }
    // ptxas 13.5 probes: "Unexpected instruction types" without a type, "Reduction operation
    // is required", ".down modifier required".
    if t.op == LdRed && t.ty.is_none() {
        report("type (.f32, .u32 or .s32)");
    }
    if t.op == LdRed && t.red.is_none() {
        report("reduction operation (.min or .max)");
    }
    if t.op == Shift && !t.down {
        report(".down qualifier");
    }
    if matches!(t.op, Ld | LdRed | St) && t.shape.is_none() {
        report("shape qualifier");
    }
    if matches!(t.op, Ld | LdRed | St) && t.num.is_none() {
        report(".num qualifier (.xN)");
    }
    if t.op == Cp && t.cp_shape.is_none() {
        report("shape qualifier");
    }
    if matches!(t.op, Mma | MmaSp | MmaWs | MmaWsSp) && t.kind.is_none() {
        report(".kind qualifier");
    }
    if t.op == Commit && !t.mbarrier_arrive_one {
        report(".mbarrier::arrive::one qualifier");
    }
}

fn ldst(i: &Instruction<'_>, t: &Tcgen05, report: &mut impl FnMut(&'static Rule, String)) {
    let op = i.opcode_display();
    let (Some(shape), Some(num)) = (t.shape, t.num) else {
        return; // TM0410 already
    };
    if t.op == Tcgen05Op::LdRed {
        let mut bad = Vec::new();
        if !matches!(shape, LdStShape::S32x32b | LdStShape::S16x32bx2) {
            bad.push("shape must be .32x32b or .16x32bx2");
        }
        if num < 2 {
            bad.push("num must be .x2 or more");
        }
        if t.pack_16b {
            bad.push(".pack::16b is not allowed");
        }
        if (t.abs || t.nan) && t.ty != Some(tmemu_ptx::ast::ScalarType::F32) {
            bad.push(".abs/.NaN need .f32");
        }
        for b in bad {
            report(&rules::LD_RED_INVALID, format!("`{op}`: {b}"));
        }
    }
    let form = layout::LdStForm::new(layout_shape(shape), u32::from(num), false);
    let form = match form {
        Ok(f) => f,
        Err(e) => {
            report(&rules::LDST_VECTOR_LENGTH, format!("`{op}`: {e}"));
            return;
        }
    };
    // The register vector: first operand of ld / ld.red, last operand of st. It must be a
    // `{..}` vector even for one register (ptxas 13.5: "Vector expected for argument 0").
    let vec = if t.op == Tcgen05Op::St {
        i.operands.last()
    } else {
        i.operands.first()
    };
    let len = match vec.map(|o| &o.kind) {
        Some(OperandKind::Vector(v)) => v.len(),
        _ => 0,
    };
    if len as u32 != form.regs() {
        report(
            &rules::LDST_VECTOR_LENGTH,
            format!(
                "`{op}` moves {} registers per thread, the vector has {len}",
                form.regs()
            ),
        );
    }
    if shape == LdStShape::S16x32bx2 {
        let addr = i
            .operands
            .iter()
            .position(|o| matches!(o.kind, OperandKind::Address(_)));
        let split = addr.and_then(|a| i.operands.get(a + 1));
        if !matches!(split.map(|o| &o.kind), Some(OperandKind::Int(_))) {
            report(
                &rules::HALF_SPLITOFF_NOT_IMMEDIATE,
                format!("`{op}`: .16x32bx2 needs an immediate immHalfSplitoff after the address"),
            );
        }
    }
}

fn layout_shape(s: LdStShape) -> layout::LdStShape {
    match s {
        LdStShape::S16x64b => layout::LdStShape::S16x64b,
        LdStShape::S16x128b => layout::LdStShape::S16x128b,
        LdStShape::S16x256b => layout::LdStShape::S16x256b,
        LdStShape::S32x32b => layout::LdStShape::S32x32b,
        LdStShape::S16x32bx2 => layout::LdStShape::S16x32bx2,
    }
}

fn cp(i: &Instruction<'_>, t: &Tcgen05, report: &mut impl FnMut(&'static Rule, String)) {
    let op = i.opcode_display();
    // Decompression formats: both or neither, `.b8x16` first (tmem.md rule 26).
    let mut dst_pos = None;
    let mut src_pos = None;
    for (k, m) in i.modifiers.iter().enumerate() {
        match m {
            "b8x16" => dst_pos = Some(k),
            "b6x16_p32" | "b4x16_p64" => src_pos = Some(k),
            _ => {}
        }
    }
    let pair_ok = match (dst_pos, src_pos) {
        (None, None) => true,
        (Some(d), Some(s)) => d < s,
        _ => false,
    };
    if !pair_ok {
        report(
            &rules::CP_FORMAT_PAIR,
            format!("`{op}`: decompression formats come as the pair .b8x16.<source format>"),
        );
    }
    let Some(shape) = t.cp_shape else { return };
    let shape = match shape {
        CpShape::S128x256b => layout::CpShape::S128x256b,
        CpShape::S4x256b => layout::CpShape::S4x256b,
        CpShape::S128x128b => layout::CpShape::S128x128b,
        CpShape::S64x128b => layout::CpShape::S64x128b,
        CpShape::S32x128b => layout::CpShape::S32x128b,
    };
    let multicast = match t.multicast {
        None => layout::CpMulticast::None,
        Some(CpMulticast::Warpx2_02_13) => layout::CpMulticast::Warpx2_02_13,
        Some(CpMulticast::Warpx2_01_23) => layout::CpMulticast::Warpx2_01_23,
        Some(CpMulticast::Warpx4) => layout::CpMulticast::Warpx4,
    };
    let src = match t.cp_src_format {
        None => layout::CpSrcFormat::Plain,
        Some(CpSrcFormat::B6x16P32) => layout::CpSrcFormat::B6x16P32,
        Some(CpSrcFormat::B4x16P64) => layout::CpSrcFormat::B4x16P64,
    };
    if let Err(e) = layout::CpForm::new(shape, multicast, src) {
        report(&rules::CP_SHAPE_MULTICAST, format!("`{op}`: {e}"));
    }
}
