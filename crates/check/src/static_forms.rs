//! Instruction forms ptxas rejects that the other static modules do not cover: the state
//! destination of an `mbarrier.arrive` on a `.shared::cluster` barrier (TM0412) and
//! `tcgen05.mma` qualifier combinations (TM0413). Each case below was probed with ptxas 13.5
//! (`-arch=sm_100a`, PTX 8.8) by this module's author; its message is quoted next to it.
//!
//! - TM0412 (PTX ISA §9.7.13.15.13, sync.md MB-REMOTE-STATE): an arrive on a barrier in
//!   another CTA's shared memory cannot return that barrier's state, so the destination must
//!   be the sink `_` ("Sink '_' is expected as a destination operand for instruction
//!   'mbarrier.arrive' with '.shared::cluster'").
//! - TM0413 (PTX ISA §9.7.16.10.9.1, §9.7.16.10.7.1; mma.md MMA-ASHIFT, MMA-SV, MMA-SID):
//!   - `.ashift` only on `tcgen05.mma{.sp}` with A in TMEM ("Illegal modifier '.ashift' for
//!     instruction 'tcgen05.mma'" with a descriptor A, "... 'tcgen05.mma.ws'"), and not with
//!     `.collector::a::fill` or `::use` ("Modifier '.collector::a::fill' cannot be combined with
//!     modifier '.ashift'"; `::lastuse` and `::discard` are accepted);
//!   - the scale vector size per block-scaled kind: `.kind::mxf8f6f4` takes none, `1X` or
//!     `block32`; `.kind::mxf4` none, `2X` or `block32`; `.kind::mxf4nvf4` requires one of
//!     `2X`, `4X`, `block16`, `block32` ("Modifier '.kind::mxf4' cannot be combined with
//!     modifier '.scale_vec::1X'", "Modifier '.kind::mxf4nvf4' requires modifier
//!     '.scale_vectorsize' for instruction 'tcgen05.mma'");
//!   - an immediate scale-input-d must lie in 0..15 ("value '16' out of range, expected to
//!     be in range [0..15]") and is refused with `.kind::f8f6f4` ("Illegal modifier
//!     '.kind::f8f6f4' for instruction 'tcgen05.mma' with 'arg scale-inp-d-imm'"). ptxas
//!     accepts it with `.kind::f16`, `.kind::tf32` and also `.kind::i8` (the ISA text names only
//!     f16 and tf32; we follow the assembler and stay silent on i8).

use tmemu_ptx::ast::{Instruction, OperandKind};
use tmemu_ptx::decode::{self, Collector, CollectorOp, MmaKind, ScaleVec, Tcgen05Op};
use tmemu_tmem::rules;

use crate::StaticFinding;

/// TM0412 for an `mbarrier.arrive{_drop}` on `.shared::cluster` whose state destination is a
/// register.
pub(crate) fn check_mbarrier(i: &Instruction<'_>, out: &mut Vec<StaticFinding>) {
    let m = &i.modifiers;
    if !(m.contains("arrive") || m.contains("arrive_drop")) || !m.contains("shared::cluster") {
        return;
    }
    let Some(dst) = i.operands.first() else {
        return;
    };
    if matches!(dst.kind, OperandKind::Ident(_)) {
        out.push(StaticFinding::new(
            &rules::MBARRIER_CLUSTER_ARRIVE_STATE,
            i.span,
            format!(
                "`{}`: an arrive on a .shared::cluster mbarrier returns no state: the \
                 destination must be the sink `_`",
                i.opcode_display()
            ),
        ));
    }
}

/// Scale vector sizes ptxas accepts per block-scaled kind (`None` = not written).
fn scale_vec_allowed(kind: MmaKind, v: Option<ScaleVec>) -> Result<(), &'static str> {
    use ScaleVec::*;
    match (kind, v) {
        (MmaKind::Mxf8f6f4, None | Some(X1 | Block32)) => Ok(()),
        (MmaKind::Mxf8f6f4, _) => Err(".kind::mxf8f6f4 takes only .scale_vec::1X or .block32"),
        (MmaKind::Mxf4, None | Some(X2 | Block32)) => Ok(()),
        (MmaKind::Mxf4, _) => Err(".kind::mxf4 takes only .scale_vec::2X or .block32"),
        (MmaKind::Mxf4nvf4, Some(X2 | X4 | Block16 | Block32)) => Ok(()),
        (MmaKind::Mxf4nvf4, None) => {
            Err(".kind::mxf4nvf4 requires a scale vector size (.scale_vec::2X/4X, .block16/32)")
        }
        (MmaKind::Mxf4nvf4, _) => {
            Err(".kind::mxf4nvf4 takes only .scale_vec::2X/4X or .block16/.block32")
        }
        _ => Ok(()),
    }
}

/// TM0413 for a `tcgen05.mma*` qualifier combination ptxas rejects.
pub(crate) fn check_mma(i: &Instruction<'_>, out: &mut Vec<StaticFinding>) {
    let Ok(t) = decode::decode_tcgen05(i) else {
        return;
    };
    if !matches!(
        t.op,
        Tcgen05Op::Mma | Tcgen05Op::MmaSp | Tcgen05Op::MmaWs | Tcgen05Op::MmaWsSp
    ) {
        return;
    }
    let ws = matches!(t.op, Tcgen05Op::MmaWs | Tcgen05Op::MmaWsSp);
    let a_in_tmem = matches!(
        i.operands.get(1).map(|o| &o.kind),
        Some(OperandKind::Address(_))
    );
    let why: Option<String> = if t.ashift && ws {
        Some(".ashift is not allowed on tcgen05.mma.ws".into())
    } else if t.ashift && !a_in_tmem {
        Some(".ashift needs the A operand in Tensor Memory ([taddr])".into())
    } else if t.ashift
        && matches!(
            t.collector,
            Some(Collector::A(CollectorOp::Fill | CollectorOp::Use))
        )
    {
        Some(".ashift cannot be combined with .collector::a::fill or ::use".into())
    } else if let Some(Err(e)) = t
        .kind
        .filter(|_| t.block_scale || t.scale_vec.is_some())
        .map(|k| scale_vec_allowed(k, t.scale_vec))
    {
        Some(e.into())
    } else {
        scale_input_d(i, t.kind)
    };
    if let Some(why) = why {
        out.push(StaticFinding::new(
            &rules::MMA_QUALIFIER_COMBINATION,
            i.span,
            format!("`{}`: {why}", i.opcode_display()),
        ));
    }
}

/// The immediate scale-input-d (the last operand, right after the enable-input-d predicate),
/// when out of range or on a kind that refuses it.
fn scale_input_d(i: &Instruction<'_>, kind: Option<MmaKind>) -> Option<String> {
    let n = i.operands.len();
    if n < 2 {
        return None;
    }
    let (OperandKind::Int(v), OperandKind::Ident(_) | OperandKind::Not(_)) =
        (&i.operands[n - 1].kind, &i.operands[n - 2].kind)
    else {
        return None;
    };
    if kind == Some(MmaKind::F8f6f4) {
        return Some("scale-input-d is not allowed with .kind::f8f6f4".into());
    }
    (!(0..=15).contains(v)).then(|| format!("scale-input-d {v} is out of range [0..15]"))
}

#[cfg(test)]
mod tests {
    fn findings(inst: &str) -> Vec<(String, String)> {
        let src = format!(
            ".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .b64 %rd<4>;\n.reg .pred %p<2>;\n.reg .b32 %r<8>;\n{inst}\nret;\n}}\n"
        );
        let module = tmemu_ptx::parse(&src).expect("parses");
        crate::static_check(&module, "t.ptx")
            .into_iter()
            .map(|f| (f.rule.id.to_string(), f.message))
            .collect()
    }

    fn one(inst: &str, rule: &str, want: &str) {
        let f = findings(inst);
        assert!(
            f.len() == 1 && f[0].0 == rule && f[0].1.contains(want),
            "{inst}: {f:?}"
        );
    }

    /// Every form ptxas 13.5 accepted in the probes of the module doc is silent.
    #[test]
    fn accepted_forms_are_silent() {
        let m = "tcgen05.mma.cta_group::1";
        for ok in [
            "mbarrier.arrive.shared::cluster.b64 _, [%r1];".to_string(),
            "mbarrier.arrive.shared::cta.b64 %rd1, [%r1];".into(),
            "mbarrier.arrive.release.cluster.shared::cta.b64 %rd1, [%r1];".into(),
            format!("{m}.kind::f16.ashift [%r2], [%r2], %rd2, %r2, %p1;"),
            format!("{m}.kind::f16.collector::a::lastuse.ashift [%r2], [%r2], %rd2, %r2, %p1;"),
            "tcgen05.mma.cta_group::2.kind::f16.ashift [%r2], [%r2], %rd2, %r2, %p1;".into(),
            format!("{m}.kind::tf32 [%r2], %rd2, %rd2, %r2, %p1, 3;"),
            format!("{m}.kind::i8 [%r2], %rd2, %rd2, %r2, %p1, 15;"),
            format!("{m}.kind::f16 [%r2], [%r2], %rd2, %r2, %p1, 0;"),
            format!("{m}.kind::mxf8f6f4.block_scale [%r2], %rd2, %rd2, %r2, [%r2], [%r2], %p1;"),
            format!("{m}.kind::mxf8f6f4.block_scale.scale_vec::1X [%r2], %rd2, %rd2, %r2, [%r2], [%r2], %p1;"),
            format!("{m}.kind::mxf4.block_scale.block32 [%r2], %rd2, %rd2, %r2, [%r2], [%r2], %p1;"),
            format!("{m}.kind::mxf4nvf4.block_scale.block16 [%r2], %rd2, %rd2, %r2, [%r2], [%r2], %p1;"),
            format!("{m}.kind::mxf4nvf4.block_scale.scale_vec::4X [%r2], %rd2, %rd2, %r2, [%r2], [%r2], %p1;"),
        ] {
            assert!(findings(&ok).is_empty(), "{ok}: {:?}", findings(&ok));
        }
    }

    /// Every form ptxas 13.5 rejected in the probes.
    #[test]
    fn rejected_forms() {
        let m = "tcgen05.mma.cta_group::1";
        one(
            "mbarrier.arrive.shared::cluster.b64 %rd1, [%r1];",
            "TM0412",
            "sink",
        );
        one(
            "mbarrier.arrive.release.cluster.shared::cluster.b64 %rd1, [%r1];",
            "TM0412",
            "sink",
        );
        one(
            &format!("{m}.kind::f16.ashift [%r2], %rd2, %rd2, %r2, %p1;"),
            "TM0413",
            "A operand in Tensor Memory",
        );
        one(
            "tcgen05.mma.ws.cta_group::1.kind::f16.ashift [%r2], [%r2], %rd2, %r2, %p1;",
            "TM0413",
            ".ws",
        );
        one(
            &format!("{m}.kind::f16.collector::a::fill.ashift [%r2], [%r2], %rd2, %r2, %p1;"),
            "TM0413",
            "cannot be combined",
        );
        one(
            &format!("{m}.kind::f16.collector::a::use.ashift [%r2], [%r2], %rd2, %r2, %p1;"),
            "TM0413",
            "cannot be combined",
        );
        for (k, v) in [
            ("mxf8f6f4", ".scale_vec::2X"),
            ("mxf8f6f4", ".block16"),
            ("mxf4", ".scale_vec::1X"),
            ("mxf4", ".scale_vec::4X"),
            ("mxf4nvf4", ""),
            ("mxf4nvf4", ".scale_vec::1X"),
        ] {
            one(
                &format!("{m}.kind::{k}.block_scale{v} [%r2], %rd2, %rd2, %r2, [%r2], [%r2], %p1;"),
                "TM0413",
                k,
            );
        }
        one(
            &format!("{m}.kind::f16 [%r2], %rd2, %rd2, %r2, %p1, 16;"),
            "TM0413",
            "out of range",
        );
        one(
            &format!("{m}.kind::f8f6f4 [%r2], %rd2, %rd2, %r2, %p1, 3;"),
            "TM0413",
            "f8f6f4",
        );
    }
}
