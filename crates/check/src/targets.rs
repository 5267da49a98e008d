//! Which `.target` / `.version` accept which tcgen05 instruction and variant
//! (shared/spec/targets.md §1–§4; tmem.md rules 24 and 30).
//!
//! Findings: TM0409 when the target (or the PTX version for it) has no tcgen05 at all —
//! reported once per module, at the first tcgen05 instruction, with the `.target` as related
//! span (ptxas reports every instruction; one finding says it all) — and per instruction for
//! a variant the target lacks (`shift` on a family target, `.kind::i8` off its targets).
//! `tcgen05.ld.red` on a target without it is TM0405 (tmem.md rule 24 lists the target among
//! the ld.red conditions, so it gets the more specific rule).
//!
//! Atomics have target notes too (checked by [`TargetCheck::check_atomic`], also TM0409):
//! `atom`/`red` with a vector `.v2/.v4/.v8` need sm_90 and PTX ISA 8.1, `.noftz` on `.f32`
//! needs sm_90 and PTX ISA 9.4 (§9.7.13.5–6 Target/PTX ISA notes; ptxas 13.5 says "Feature
//! 'red instruction with vector types' requires .target sm_90 or higher" and "Feature 'red
//! with .noftz and .f32' requires PTX ISA .version 9.4 or later").
//!
//! Cluster Launch Control (`clusterlaunchcontrol.try_cancel` / `query_cancel`, PTX ISA
//! §9.7.13.17–18: "Requires sm_100 or higher", PTX ISA 8.6) is checked by
//! [`TargetCheck::check_clc`], also TM0409. ptxas 13.5 probes (this crate's author): every form
//! is accepted on sm_100 and later, plain targets included (sm_100, sm_120), and rejected on
//! sm_90a ("Feature 'clusterlaunchcontrol.try_cancel.async' requires .target sm_100 or
//! higher", "Feature 'clusterlaunchcontrol.query_cancel' requires ..."); `.multicast::cluster::all`
//! is rejected on every plain target ("Feature '.multicast::cluster::all' not supported on
//! .target 'sm_100'", also sm_120) and accepted on every `a`/`f` target of sm_100 and later
//! (sm_100a/f, sm_103a/f, sm_110a/f, sm_120a/f, sm_121a).

use tmemu_ptx::ast::{Instruction, Module, OperandKind};
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

/// A target note of `atom`/`red`: what needs it, the lowest sm number and PTX version.
struct AtomicNote {
    feature: &'static str,
    min_sm: u32,
    min_version: PtxVersion,
}

/// The target notes `i` (an `atom` or `red`) is subject to, most demanding first.
fn atomic_notes(i: &Instruction<'_>) -> impl Iterator<Item = AtomicNote> {
    let m = &i.modifiers;
    let noftz_f32 = (m.contains("noftz") && m.contains("f32")).then_some(AtomicNote {
        feature: ".noftz with .f32",
        min_sm: 90,
        min_version: 94,
    });
    let vector = (m.contains("v2") || m.contains("v4") || m.contains("v8")).then_some(AtomicNote {
        feature: "vector types (.v2/.v4/.v8)",
        min_sm: 90,
        min_version: 81,
    });
    // st.async / red.async (ptxas 13.5: "Feature 'st.async' requires PTX ISA .version 8.1
    // or later", "... requires .target sm_90 or higher"); wmma with bf16/tf32 ("Feature 'WMMA
    // with .bf16/.tf32 FP types' requires .target sm_80 or higher"), PTX 7.0 per the ISA
    let async_ = m.contains("async").then_some(AtomicNote {
        feature: "with .async",
        min_sm: 90,
        min_version: 81,
    });
    // st.bulk (ptxas 13.5: "Feature 'st.bulk' requires PTX ISA .version 8.6 or later",
    // "... requires .target sm_100 or higher")
    let st_bulk = (i.name == "st" && m.contains("bulk")).then_some(AtomicNote {
        feature: "with .bulk",
        min_sm: 100,
        min_version: 86,
    });
    // atom.{exch,cas}.b128 (ptxas 13.5: "Instruction 'atom.exch.b128.global' requires .target
    // sm_90 or higher"; `.b128` types need PTX 8.3)
    let b128 = m.contains("b128").then_some(AtomicNote {
        feature: "with .b128",
        min_sm: 90,
        min_version: 83,
    });
    let wmma_new =
        (i.name == "wmma" && (m.contains("bf16") || m.contains("tf32"))).then_some(AtomicNote {
            feature: "with .bf16/.tf32",
            min_sm: 80,
            min_version: 70,
        });
    async_
        .into_iter()
        .chain(st_bulk)
        .chain(noftz_f32)
        .chain(b128)
        .chain(vector)
        .chain(wmma_new)
}

impl TargetCheck {
    /// TM0409 for an `atom`/`red` form the module's `.target`/`.version` lacks (ptxas rejects
    /// each). A target tmemu cannot parse (`compute_*`, none) is not judged.
    pub(crate) fn check_atomic(&self, i: &Instruction<'_>, out: &mut Vec<StaticFinding>) {
        let Some(sm) = self.sm else { return };
        for note in atomic_notes(i) {
            let op = i.opcode_display();
            let msg = if sm.canonical() < note.min_sm {
                format!(
                    "`{op}`: {} {} requires .target sm_{} or higher (.target '{}')",
                    i.name, note.feature, note.min_sm, self.name
                )
            } else if self.version < note.min_version {
                format!(
                    "`{op}`: {} {} requires PTX ISA .version {}.{} or later",
                    i.name,
                    note.feature,
                    note.min_version / 10,
                    note.min_version % 10
                )
            } else {
                continue;
            };
            out.push(
                StaticFinding::new(&rules::TARGET_UNSUPPORTED, i.span, msg)
                    .related(self.target_span),
            );
            return;
        }
    }
}

impl TargetCheck {
    /// TM0409 for a `clusterlaunchcontrol.*` the module's `.target`/`.version` lacks. A
    /// target tmemu cannot parse (`compute_*`, none) is not judged.
    pub(crate) fn check_clc(&self, i: &Instruction<'_>, out: &mut Vec<StaticFinding>) {
        let Some(sm) = self.sm else { return };
        let op = i.opcode_display();
        let msg = if sm.canonical() < 100 {
            format!(
                "`{op}`: clusterlaunchcontrol requires .target sm_100 or higher (.target '{}')",
                self.name
            )
        } else if self.version < 86 {
            format!("`{op}`: clusterlaunchcontrol requires PTX ISA .version 8.6 or later")
        } else if i.modifiers.contains("multicast::cluster::all") && sm.suffix == Suffix::Plain {
            format!(
                "`{op}`: .multicast::cluster::all is not supported on .target '{}' (it needs an \
                 architecture- or family-specific target)",
                self.name
            )
        } else {
            return;
        };
        out.push(
            StaticFinding::new(&rules::TARGET_UNSUPPORTED, i.span, msg).related(self.target_span),
        );
    }
}

/// Which targets a form needs besides a PTX version.
enum Targets {
    /// `sm_<n>` or higher, any suffix.
    MinSm(u32),
    /// Exactly these targets (architecture- or family-specific forms).
    Only(&'static [&'static str]),
}

/// A target note of a non-atomic form: what needs it, the targets, the lowest PTX version.
struct FormNote {
    feature: &'static str,
    targets: Targets,
    min_version: PtxVersion,
}

/// The target note of `i`, if it has one. ptxas 13.5 probes (docs/arch/forms.md "Session 7"):
/// "Feature 'movmatrix' requires PTX ISA .version 7.8"; "Instruction 'redux.f32' not supported
/// on .target 'sm_100'" (accepted on sm_100a/f and sm_103a/f, refused on sm_90a, sm_110a/f,
/// sm_120a/f, sm_121a; "requires PTX ISA .version 8.6"); "Feature '.rs' not supported on
/// .target 'sm_100f'" (accepted on sm_100a and sm_103a only; PTX 8.7); isspacep's "Feature
/// '::cluster' requires .target sm_90" (PTX 7.8); "Feature '%is_explicit_cluster' requires
/// .target sm_90" (PTX 7.8); "Feature '%aggr_smem_size' requires .target sm_90" (PTX 8.1);
/// `%current_graph_exec` PTX 8.0 and `%reserved_smem_offset_*` PTX 7.6 on any target.
/// Session 8: "Feature 'alloca' requires PTX ISA .version 7.3 or later" (likewise `stacksave`,
/// `stackrestore`); sm_52 is the ISA's target requirement (ptxas 13.5 knows no target below
/// sm_75 to probe it). "Feature 'ldmatrix.b8' not supported on .target 'sm_100'" (likewise
/// `stmatrix.b8`; accepted on sm_100a/f, sm_101a, sm_103a/f, sm_110a/f, sm_120a/f, sm_121a/f;
/// refused on sm_90a, sm_100, sm_120; "requires PTX ISA .version 8.6").
fn form_note(i: &Instruction<'_>) -> Option<FormNote> {
    let m = &i.modifiers;
    let note = |feature, targets, min_version| {
        Some(FormNote {
            feature,
            targets,
            min_version,
        })
    };
    match i.name {
        "movmatrix" => note("movmatrix", Targets::MinSm(75), 78),
        "ldmatrix" | "stmatrix" if m.contains("b8") => note(
            "the 8-bit ldmatrix/stmatrix shapes",
            Targets::Only(&[
                "sm_100a", "sm_100f", "sm_101a", "sm_103a", "sm_103f", "sm_110a", "sm_110f",
                "sm_120a", "sm_120f", "sm_121a", "sm_121f",
            ]),
            86,
        ),
        "alloca" => note("alloca", Targets::MinSm(52), 73),
        "stacksave" => note("stacksave", Targets::MinSm(52), 73),
        "stackrestore" => note("stackrestore", Targets::MinSm(52), 73),
        "redux" if m.contains("f32") => note(
            "redux.f32",
            Targets::Only(&["sm_100a", "sm_100f", "sm_103a", "sm_103f"]),
            86,
        ),
        "cvt" if m.contains("rs") => {
            note(".rs rounding", Targets::Only(&["sm_100a", "sm_103a"]), 87)
        }
        "isspacep" if m.contains("shared::cluster") => {
            note("isspacep.shared::cluster", Targets::MinSm(90), 78)
        }
        "mov" => {
            let id = i.operands.get(1).and_then(|o| match &o.kind {
                OperandKind::Ident(id) => Some(id.name),
                _ => None,
            })?;
            match id {
                "%is_explicit_cluster" => note("%is_explicit_cluster", Targets::MinSm(90), 78),
                "%aggr_smem_size" => note("%aggr_smem_size", Targets::MinSm(90), 81),
                "%current_graph_exec" => note("%current_graph_exec", Targets::MinSm(0), 80),
                _ if id.starts_with("%reserved_smem_offset_") => {
                    note("%reserved_smem_offset_*", Targets::MinSm(0), 76)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

impl TargetCheck {
    /// TM0409 for a form with a target note ([`form_note`]) the module's `.target`/`.version`
    /// lacks. A target tmemu cannot parse (`compute_*`, none) is not judged.
    pub(crate) fn check_form(&self, i: &Instruction<'_>, out: &mut Vec<StaticFinding>) {
        let Some(sm) = self.sm else { return };
        let Some(note) = form_note(i) else { return };
        let op = i.opcode_display();
        let msg = match note.targets {
            Targets::MinSm(n) if sm.canonical() < n => format!(
                "`{op}`: {} requires .target sm_{n} or higher (.target '{}')",
                note.feature, self.name
            ),
            Targets::Only(names) if !names.contains(&self.name.as_str()) => format!(
                "`{op}`: {} is not supported on .target '{}' (only {})",
                note.feature,
                self.name,
                names.join(", ")
            ),
            _ if self.version < note.min_version => format!(
                "`{op}`: {} requires PTX ISA .version {}.{} or later",
                note.feature,
                note.min_version / 10,
                note.min_version % 10
            ),
            _ => return,
        };
        out.push(
            StaticFinding::new(&rules::TARGET_UNSUPPORTED, i.span, msg).related(self.target_span),
        );
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

    /// The TM0409 findings `static_check` gives one atomic under `.version`/`.target`.
    fn atomic_findings(version: &str, target: &str, inst: &str) -> Vec<String> {
        let src = format!(
            ".version {version}\n.target {target}\n.address_size 64\n\
             .visible .entry k(.param .u64 p)\n{{\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n\
             ld.param.u64 %rd1, [p];\nmov.f32 %f1, 0f3F800000;\n{inst}\nret;\n}}\n"
        );
        let module = tmemu_ptx::parse(&src).expect("parses");
        crate::static_check(&module, "t.ptx")
            .into_iter()
            .map(|f| {
                assert_eq!(f.rule.id, "TM0409");
                assert_eq!(f.span.line, 10, "at the atomic");
                f.message
            })
            .collect()
    }

    /// PTX ISA §9.7.13.5-6 target notes, as ptxas 13.5 enforces them: vector atomics need
    /// sm_90 and PTX 8.1, `.noftz.f32` needs sm_90 and PTX 9.4.
    #[test]
    fn atomic_target_notes() {
        let vec_red = "red.global.add.v2.f32 [%rd1], {%f1, %f1};";
        let vec_atom = "atom.global.v4.f32.add {%f1, %f2, %f3, %f1}, [%rd1], {%f1, %f1, %f1, %f1};";
        let noftz = "red.global.add.noftz.f32 [%rd1], %f1;";
        let noftz_atom = "atom.global.add.noftz.f32 %f2, [%rd1], %f1;";
        for ok in [
            ("9.4", "sm_100a", noftz),
            ("9.4", "sm_90", noftz_atom),
            ("8.1", "sm_90", vec_red),
            ("8.8", "sm_100a", vec_atom),
            ("8.0", "sm_80", "red.global.add.f32 [%rd1], %f1;"),
            ("8.0", "sm_80", "red.global.add.noftz.f16 [%rd1], %f1;"),
        ] {
            assert!(atomic_findings(ok.0, ok.1, ok.2).is_empty(), "{ok:?}");
        }
        let m = atomic_findings("9.3", "sm_100a", noftz);
        assert_eq!(m.len(), 1);
        assert!(m[0].contains("requires PTX ISA .version 9.4"), "{m:?}");
        let m = atomic_findings("9.4", "sm_80", noftz_atom);
        assert!(m[0].contains("requires .target sm_90"), "{m:?}");
        let m = atomic_findings("9.4", "sm_89", vec_red);
        assert!(
            m[0].contains("vector types") && m[0].contains("sm_90"),
            "{m:?}"
        );
        let m = atomic_findings("8.0", "sm_90a", vec_atom);
        assert!(m[0].contains("requires PTX ISA .version 8.1"), "{m:?}");
        // one finding per instruction, the first note that fails
        assert_eq!(
            atomic_findings(
                "8.0",
                "sm_80",
                "red.global.add.noftz.v2.f32 [%rd1], {%f1, %f1};"
            )
            .len(),
            1
        );
    }

    /// clusterlaunchcontrol: sm_100 and PTX 8.6, `.multicast::cluster::all` only on a/f
    /// targets (ptxas 13.5 probes quoted in the module doc).
    #[test]
    fn clc_target_notes() {
        let tc = "clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128 [%rd1], [%rd1];";
        let mc = "clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [%rd1], [%rd1];";
        let q = "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %rd1;";
        for ok in [
            ("8.6", "sm_100a", tc),
            ("8.6", "sm_100a", mc),
            ("8.6", "sm_100", tc),
            ("8.8", "sm_120", q),
            ("8.8", "sm_100f", mc),
            ("8.8", "sm_120a", mc),
            ("9.0", "sm_110f", mc),
        ] {
            assert!(atomic_findings(ok.0, ok.1, ok.2).is_empty(), "{ok:?}");
        }
        for (v, t, inst, want) in [
            ("8.6", "sm_90a", tc, "requires .target sm_100"),
            ("8.6", "sm_90a", q, "requires .target sm_100"),
            ("8.5", "sm_100a", tc, "requires PTX ISA .version 8.6"),
            ("8.6", "sm_100", mc, "not supported on .target 'sm_100'"),
            ("8.8", "sm_120", mc, "not supported on .target 'sm_120'"),
        ] {
            let m = atomic_findings(v, t, inst);
            assert!(m.len() == 1 && m[0].contains(want), "{v} {t} {inst}: {m:?}");
        }
    }

    /// The session-7 forms' notes, from the ptxas 13.5 probes quoted at [`form_note`].
    #[test]
    fn form_target_notes() {
        let b128 = "atom.global.exch.b128 %q1, [%rd1], %q2;";
        let mov = "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;";
        let redux = "redux.sync.max.abs.NaN.f32 %f2, %f1, 0xffffffff;";
        let rs = "cvt.rs.bf16x2.f32 %r1, %f1, %f1, %r2;";
        let isp = "isspacep.shared::cluster %p1, %rd1;";
        let expl = "mov.pred %p1, %is_explicit_cluster;";
        let aggr = "mov.u32 %r1, %aggr_smem_size;";
        let graph = "mov.u64 %rd2, %current_graph_exec;";
        let resv = "mov.u32 %r1, %reserved_smem_offset_begin;";
        for ok in [
            ("8.3", "sm_90", b128),
            ("7.8", "sm_75", mov),
            ("8.6", "sm_100a", redux),
            ("8.8", "sm_100f", redux),
            ("8.8", "sm_103f", redux),
            ("8.7", "sm_100a", rs),
            ("8.8", "sm_103a", rs),
            ("7.8", "sm_90", isp),
            ("7.8", "sm_90", expl),
            ("8.1", "sm_90", aggr),
            ("8.0", "sm_80", graph),
            ("7.6", "sm_80", resv),
            ("9.0", "sm_100a", "mov.u32 %r1, %tid.x;"),
        ] {
            assert!(atomic_findings(ok.0, ok.1, ok.2).is_empty(), "{ok:?}");
        }
        for (v, t, inst, want) in [
            ("8.2", "sm_90", b128, "requires PTX ISA .version 8.3"),
            ("8.3", "sm_80", b128, "requires .target sm_90"),
            ("7.7", "sm_80", mov, "requires PTX ISA .version 7.8"),
            ("8.5", "sm_100a", redux, "requires PTX ISA .version 8.6"),
            ("9.0", "sm_90a", redux, "not supported on .target 'sm_90a'"),
            ("9.0", "sm_100", redux, "not supported on .target 'sm_100'"),
            (
                "9.0",
                "sm_110a",
                redux,
                "not supported on .target 'sm_110a'",
            ),
            (
                "9.0",
                "sm_120a",
                redux,
                "not supported on .target 'sm_120a'",
            ),
            ("8.6", "sm_100a", rs, "requires PTX ISA .version 8.7"),
            ("9.0", "sm_100f", rs, "not supported on .target 'sm_100f'"),
            ("9.0", "sm_103f", rs, "not supported on .target 'sm_103f'"),
            ("9.0", "sm_110a", rs, "not supported on .target 'sm_110a'"),
            ("7.8", "sm_80", isp, "requires .target sm_90"),
            ("7.8", "sm_80", expl, "requires .target sm_90"),
            ("8.0", "sm_90", aggr, "requires PTX ISA .version 8.1"),
            ("8.1", "sm_80", aggr, "requires .target sm_90"),
            ("7.9", "sm_80", graph, "requires PTX ISA .version 8.0"),
            ("7.5", "sm_80", resv, "requires PTX ISA .version 7.6"),
        ] {
            let m = atomic_findings(v, t, inst);
            assert!(m.len() == 1 && m[0].contains(want), "{v} {t} {inst}: {m:?}");
        }
    }

    /// ldmatrix.m16n16 / stmatrix.m16n8 .b8: PTX 8.6, architecture- or family-specific
    /// sm_100+ targets only (ptxas 13.5).
    #[test]
    fn eight_bit_matrix_target_notes() {
        let ld = "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%rd1];";
        let st = "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%rd1], %r1;";
        for inst in [ld, st] {
            for t in [
                "sm_100a", "sm_100f", "sm_103a", "sm_110f", "sm_120a", "sm_121f",
            ] {
                assert!(atomic_findings("9.0", t, inst).is_empty(), "{t} {inst}");
            }
            for (v, t, want) in [
                ("8.5", "sm_100a", "requires PTX ISA .version 8.6"),
                ("9.0", "sm_100", "not supported on .target 'sm_100'"),
                ("9.0", "sm_90a", "not supported on .target 'sm_90a'"),
                ("9.0", "sm_120", "not supported on .target 'sm_120'"),
            ] {
                let m = atomic_findings(v, t, inst);
                assert!(m.len() == 1 && m[0].contains(want), "{v} {t} {inst}: {m:?}");
            }
        }
        // the .b16 shapes have no such note
        let b16 = "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%rd1];";
        assert!(atomic_findings("9.0", "sm_100", b16).is_empty());
    }

    /// alloca / stacksave / stackrestore: PTX 7.3 (ptxas 13.5), sm_52 (the ISA).
    #[test]
    fn stack_target_notes() {
        for inst in [
            "alloca.u64 %rd1, %rd2, 16;",
            "stacksave.u64 %rd1;",
            "stackrestore.u64 %rd1;",
        ] {
            assert!(atomic_findings("7.3", "sm_75", inst).is_empty(), "{inst}");
            let m = atomic_findings("7.2", "sm_75", inst);
            assert!(
                m.len() == 1 && m[0].contains("requires PTX ISA .version 7.3"),
                "{inst}: {m:?}"
            );
            let m = atomic_findings("7.3", "sm_50", inst);
            assert!(
                m.len() == 1 && m[0].contains("requires .target sm_52"),
                "{inst}: {m:?}"
            );
        }
    }

    /// st.async / red.async need sm_90 and PTX 8.1, wmma with bf16/tf32 sm_80 (ptxas 13.5).
    #[test]
    fn async_and_wmma_target_notes() {
        let st = "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%rd1], {%f1, %f2}, [%rd2];";
        let red = "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [%rd1], %rd3, [%rd2];";
        let wmma =
            "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 {%f1, %f2, %f3, %f1}, [%rd1];";
        for ok in [
            ("8.1", "sm_90", st),
            ("8.1", "sm_90a", red),
            ("7.0", "sm_80", wmma),
        ] {
            assert!(atomic_findings(ok.0, ok.1, ok.2).is_empty(), "{ok:?}");
        }
        let m = atomic_findings("8.0", "sm_90", st);
        assert!(
            m.len() == 1 && m[0].contains("with .async requires PTX ISA .version 8.1"),
            "{m:?}"
        );
        let m = atomic_findings("8.8", "sm_89", red);
        assert!(
            m.len() == 1 && m[0].contains("requires .target sm_90"),
            "{m:?}"
        );
        let bulk = "st.bulk.weak.shared::cta [%rd1], 256, 0;";
        assert!(atomic_findings("8.6", "sm_100", bulk).is_empty());
        let m = atomic_findings("8.6", "sm_90a", bulk);
        assert!(
            m.len() == 1 && m[0].contains("requires .target sm_100"),
            "{m:?}"
        );
        let m = atomic_findings("8.5", "sm_100a", bulk);
        assert!(
            m.len() == 1 && m[0].contains("requires PTX ISA .version 8.6"),
            "{m:?}"
        );
        let m = atomic_findings("8.8", "sm_75", wmma);
        assert!(
            m.len() == 1 && m[0].contains(".bf16/.tf32 requires .target sm_80"),
            "{m:?}"
        );
    }
}
