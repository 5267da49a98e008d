//! Which `.target` / `.version` accept which tcgen05 instruction and variant
//! (shared/spec/targets.md §1–§4; tmem.md rules 24 and 30).
//!
//! Findings: TM0409 when the target (or the PTX version for it) has no tcgen05 at all —
//! reported once per module, at the first tcgen05 instruction, with the `.target` as related
//! span (ptxas reports every instruction; one finding says it all) — and per instruction for
//! a variant the target lacks (`shift` on a family target, `.kind::i8` off its targets).
//! `tcgen05.ld.red` on a target without it is TM0405 (tmem.md rule 24 lists the target among
//! the ld.red conditions, so it gets the more specific rule).

use tmemu_ptx::ast::{Instruction, Module};
use tmemu_ptx::decode::{self, MmaKind, ScaleVec, Tcgen05, Tcgen05Op};
use tmemu_ptx::span::Span;
use tmemu_tmem::rules;

use crate::StaticFinding;

/// `sm_<number><suffix>` as written in `.target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sm {
    pub number: u32,
    pub suffix: Suffix,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suffix {
    /// `sm_100`: baseline, no tcgen05.
    Plain,
    /// `sm_100a`: architecture-specific.
    Arch,
    /// `sm_100f`: family-specific.
    Family,
}

impl Sm {
    /// `sm_100a` → Sm { 100, Arch }; `compute_*` and anything else → None.
    pub fn parse(name: &str) -> Option<Sm> {
        let rest = name.strip_prefix("sm_")?;
        let (digits, suffix) = match rest.as_bytes().last()? {
            b'a' => (&rest[..rest.len() - 1], Suffix::Arch),
            b'f' => (&rest[..rest.len() - 1], Suffix::Family),
            _ => (rest, Suffix::Plain),
        };
        Some(Sm {
            number: digits.parse().ok()?,
            suffix,
        })
    }

    /// sm_101* was renamed sm_110* in PTX ISA 9.0 (targets.md §2); both spellings are the
    /// same GPU to us.
    fn canonical(self) -> u32 {
        if self.number == 101 {
            110
        } else {
            self.number
        }
    }
}

/// PTX ISA version as `major * 10 + minor` (8.6 → 86).
pub type PtxVersion = u32;

/// The first PTX version in which this target has tcgen05 at all; `None` = never
/// (targets.md §3/§4: alloc row, which Table 72 shares with every base instruction).
pub fn tcgen05_min_version(sm: Sm) -> Option<PtxVersion> {
    use Suffix::*;
    match (sm.number, sm.suffix) {
        (_, Plain) => None,
        (100, Arch) | (101, Arch) => Some(86),
        (100, Family) | (101, Family) | (103, Arch) | (103, Family) => Some(88),
        (110, Arch) | (110, Family) => Some(90),
        (107, Arch) | (107, Family) => Some(94),
        _ => None,
    }
}

/// `tcgen05.ld.red`: sm_101a/f (→ sm_110a/f) and sm_103f+ (so sm_103a/f, sm_107a/f), from
/// PTX 8.8; never sm_100a/f (ptxas 13.5 probe in targets.md §4).
pub fn ld_red_supported(sm: Sm, version: PtxVersion) -> bool {
    matches!(sm.canonical(), 103 | 107 | 110)
        && sm.suffix != Suffix::Plain
        && tcgen05_min_version(sm).is_some_and(|v| version >= v.max(88))
}

/// `tcgen05.shift`: architecture-specific targets only (rejected on every `f` target,
/// ptxas 13.5 probe; LLVM `hasTcgen05ShiftSupport`).
pub fn shift_supported(sm: Sm) -> bool {
    sm.suffix == Suffix::Arch && matches!(sm.canonical(), 100 | 103 | 107 | 110)
}

/// `.kind::i8`: targets.md §4 says "a-only (sm_100a, sm_110a)"; ptxas 13.5 probe (this
/// crate's author): rejected on sm_100f and on sm_103a ("Feature '.kind::i8' not supported
/// on .target 'sm_103a'"), accepted on sm_100a. sm_107a is not probed; we read the table
/// literally and reject it.
pub fn mma_i8_supported(sm: Sm) -> bool {
    sm.suffix == Suffix::Arch && matches!(sm.canonical(), 100 | 110)
}

/// Why an mma variant is not available on this target/version, if it is not. From ptxas
/// 13.5 probes (recorded in tests/data/ptxas_verdicts.tsv) and targets.md §4 / mma.md:
/// `.kind::i8` only on sm_100a/sm_110a; `.scale_vec::NX` only on architecture-specific
/// targets ("Feature '.scale_vec::1X' not supported on .target 'sm_100f'"); `.block16` /
/// `.block32` from PTX 8.8; `.kind::mxf4nvf4` and `.scale_vec::4X` from PTX 8.7.
pub fn mma_variant_unsupported(t: &Tcgen05, sm: Sm, version: PtxVersion) -> Option<&'static str> {
    use ScaleVec::*;
    if t.kind == Some(MmaKind::I8) && !mma_i8_supported(sm) {
        return Some(".kind::i8 is not supported on this target");
    }
    if matches!(t.scale_vec, Some(X1 | X2 | X4)) && sm.suffix != Suffix::Arch {
        return Some(".scale_vec::NX needs an architecture-specific (a) target");
    }
    if matches!(t.scale_vec, Some(Block16 | Block32)) && version < 88 {
        return Some(".block16/.block32 require PTX ISA .version 8.8 or later");
    }
    if (t.kind == Some(MmaKind::Mxf4nvf4) || t.scale_vec == Some(X4)) && version < 87 {
        return Some(".kind::mxf4nvf4 and .scale_vec::4X require PTX ISA .version 8.7 or later");
    }
    None
}

/// The module's target and version, read once.
pub(crate) struct TargetCheck {
    sm: Option<Sm>,
    name: String,
    version: PtxVersion,
    target_span: Span,
}

#[derive(Default)]
pub(crate) struct Reported {
    base: bool,
}

impl TargetCheck {
    pub(crate) fn new(module: &Module<'_>) -> Self {
        let target = module.target();
        let name = target.and_then(|t| t.sm()).unwrap_or("<none>").to_string();
        TargetCheck {
            sm: Sm::parse(&name),
            name,
            version: module
                .version()
                .map_or(0, |v| v.major * 10 + v.minor.min(9)),
            target_span: target.map_or(Span::DUMMY, |t| t.span),
        }
    }

    pub(crate) fn check(
        &self,
        i: &Instruction<'_>,
        state: &mut Reported,
        out: &mut Vec<StaticFinding>,
    ) {
        let op = i.opcode_display();
        let base_min = self.sm.and_then(tcgen05_min_version);
        if base_min.is_none_or(|m| self.version < m) {
            if !state.base {
                state.base = true;
                let msg = match base_min {
                    None => format!(
                        "`{op}`: tcgen05 is not supported on .target '{}'",
                        self.name
                    ),
                    Some(m) => format!(
                        "`{op}`: tcgen05 on .target '{}' requires PTX ISA .version {}.{} or later",
                        self.name,
                        m / 10,
                        m % 10
                    ),
                };
                out.push(
                    StaticFinding::new(&rules::TARGET_UNSUPPORTED, i.span, msg)
                        .related(self.target_span),
                );
            }
            return;
        }
        let Some(sm) = self.sm else { return };
        let Ok(t) = decode::decode_tcgen05(i) else {
            return;
        };
        match t.op {
            Tcgen05Op::LdRed if !ld_red_supported(sm, self.version) => out.push(
                StaticFinding::new(
                    &rules::LD_RED_INVALID,
                    i.span,
                    format!(
                        "`{op}`: tcgen05.ld.red is not supported on .target '{}'",
                        self.name
                    ),
                )
                .related(self.target_span),
            ),
            Tcgen05Op::Shift if !shift_supported(sm) => out.push(
                StaticFinding::new(
                    &rules::TARGET_UNSUPPORTED,
                    i.span,
                    format!(
                        "`{op}`: tcgen05.shift is not supported on .target '{}'",
                        self.name
                    ),
                )
                .related(self.target_span),
            ),
            Tcgen05Op::Mma | Tcgen05Op::MmaSp | Tcgen05Op::MmaWs | Tcgen05Op::MmaWsSp => {
                if let Some(why) = mma_variant_unsupported(&t, sm, self.version) {
                    out.push(
                        StaticFinding::new(
                            &rules::TARGET_UNSUPPORTED,
                            i.span,
                            format!("`{op}`: {why} (.target '{}')", self.name),
                        )
                        .related(self.target_span),
                    )
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sm(s: &str) -> Sm {
        Sm::parse(s).unwrap()
    }

    #[test]
    fn parse_target_names() {
        assert_eq!(
            sm("sm_100a"),
            Sm {
                number: 100,
                suffix: Suffix::Arch
            }
        );
        assert_eq!(
            sm("sm_103f"),
            Sm {
                number: 103,
                suffix: Suffix::Family
            }
        );
        assert_eq!(
            sm("sm_90"),
            Sm {
                number: 90,
                suffix: Suffix::Plain
            }
        );
        assert_eq!(Sm::parse("compute_100a"), None);
        assert_eq!(Sm::parse("sm_x"), None);
    }

    /// targets.md §3 row by row, and §1: plain and non-Blackwell targets have none.
    #[test]
    fn base_tcgen05_versions() {
        for (t, v) in [
            ("sm_100a", Some(86)),
            ("sm_101a", Some(86)),
            ("sm_100f", Some(88)),
            ("sm_101f", Some(88)),
            ("sm_103a", Some(88)),
            ("sm_103f", Some(88)),
            ("sm_110a", Some(90)),
            ("sm_110f", Some(90)),
            ("sm_107a", Some(94)),
            ("sm_107f", Some(94)),
            ("sm_100", None),
            ("sm_110", None),
            ("sm_90a", None),
            ("sm_120a", None),
            ("sm_120f", None),
        ] {
            assert_eq!(tcgen05_min_version(sm(t)), v, "{t}");
        }
    }

    /// targets.md §4: ld.red not on sm_100a/f; on sm_103a/f, sm_110a/f (and sm_101a/f).
    #[test]
    fn ld_red_targets() {
        for t in ["sm_100a", "sm_100f", "sm_90a", "sm_103"] {
            assert!(!ld_red_supported(sm(t), 90), "{t}");
        }
        for t in [
            "sm_103a", "sm_103f", "sm_110a", "sm_110f", "sm_101a", "sm_101f",
        ] {
            assert!(ld_red_supported(sm(t), 90), "{t}");
        }
        assert!(ld_red_supported(sm("sm_103a"), 88));
        assert!(!ld_red_supported(sm("sm_101a"), 86), "ld.red is PTX 8.8+");
    }

    /// targets.md §4: shift is arch-specific only.
    #[test]
    fn shift_targets() {
        for t in ["sm_100a", "sm_101a", "sm_103a", "sm_110a", "sm_107a"] {
            assert!(shift_supported(sm(t)), "{t}");
        }
        for t in ["sm_100f", "sm_103f", "sm_110f", "sm_100", "sm_120a"] {
            assert!(!shift_supported(sm(t)), "{t}");
        }
    }
}
