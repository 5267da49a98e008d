//! One-instruction programs per static rule: legal forms stay silent, each broken form gives
//! exactly its rule. Expectations come from shared/spec (tmem.md §7 rules 21–32,
//! data-movement.md Tables 49/50, targets.md) and the ptxas 13.5 messages quoted there, not
//! from this crate's output.

use tmemu_check::static_check;

fn ids_on(target: &str, version: &str, line: &str) -> Vec<&'static str> {
    let src = format!(
        ".version {version}\n.target {target}\n.address_size 64\n.entry k()\n{{\n    .reg .b32 %r<200>;\n    .reg .b64 %rd<4>;\n    .reg .b16 %rs<4>;\n    {line}\n    ret;\n}}\n"
    );
    let m = tmemu_ptx::parse(&src).unwrap_or_else(|e| panic!("{}", e.render("t.ptx")));
    let found = static_check(&m, "t.ptx");
    for f in &found {
        assert_eq!(f.span.line, 9, "finding away from the instruction: {f}");
    }
    found.iter().map(|f| f.rule.id).collect()
}

fn ids(line: &str) -> Vec<&'static str> {
    ids_on("sm_100a", "8.8", line)
}

fn regs(n: usize) -> String {
    let v: Vec<String> = (0..n).map(|i| format!("%r{i}")).collect();
    format!("{{{}}}", v.join(", "))
}

#[test]
fn legal_forms_are_silent() {
    for line in [
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;".to_string(),
        "tcgen05.alloc.cta_group::2.sync.aligned.b32 [%r1], 512;".to_string(),
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 256;".to_string(),
        "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, %r2;".to_string(),
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;".to_string(),
        format!("tcgen05.ld.sync.aligned.16x256b.x32.b32 {}, [%r199];", regs(128)),
        format!("tcgen05.ld.sync.aligned.16x128b.x64.b32 {}, [%r199];", regs(128)),
        format!("tcgen05.ld.sync.aligned.32x32b.x128.b32 {}, [%r199];", regs(128)),
        "tcgen05.ld.sync.aligned.16x64b.x2.b32 {%r1, %r2}, [%r3];".to_string(),
        "tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r1, %r2}, [%r3], 16;".to_string(),
        "tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r3], 16, {%r1};".to_string(),
        "tcgen05.ld.sync.aligned.32x32b.x2.pack::16b.b32 {%r1, %r2}, [%r3];".to_string(),
        "tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32 [%r3], {%r1};".to_string(),
        "tcgen05.wait::ld.sync.aligned;".to_string(),
        "tcgen05.cp.cta_group::1.32x128b.warpx4 [%r1], %rd1;".to_string(),
        "tcgen05.cp.cta_group::2.64x128b.warpx2::01_23 [%r1], %rd1;".to_string(),
        "tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%r1], %rd1;".to_string(),
        "tcgen05.cp.cta_group::1.4x256b.b8x16.b4x16_p64 [%r1], %rd1;".to_string(),
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd1];".to_string(),
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%rd1], %rs1;".to_string(),
        "tcgen05.shift.cta_group::1.down [%r1];".to_string(),
        "tcgen05.fence::before_thread_sync;".to_string(),
    ] {
        assert_eq!(ids(&line), Vec::<&str>::new(), "{line}");
    }
}

#[test]
fn immediate_ncols() {
    let alloc = |n: &str| {
        ids(&format!(
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], {n};"
        ))
    };
    assert_eq!(alloc("96"), ["TM0001"]);
    assert_eq!(
        alloc("48"),
        ["TM0001", "TM0002"],
        "ptxas 13.5 reports both for 48"
    );
    // ptxas 13.5 probes: conditions reported independently.
    assert_eq!(alloc("1024"), ["TM0003"]);
    assert_eq!(alloc("16"), ["TM0002", "TM0003"]);
    assert_eq!(alloc("24"), ["TM0001", "TM0002", "TM0003"]);
    assert_eq!(alloc("513"), ["TM0001", "TM0002", "TM0003"]);
    assert_eq!(alloc("0"), ["TM0003"]);
    assert_eq!(alloc("-32"), ["TM0003"]);
    assert_eq!(alloc("64"), Vec::<&str>::new());
    assert_eq!(
        ids("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 160;"),
        ["TM0001"]
    );
}

#[test]
fn ldst_vector_length_and_shape_num() {
    // Table 49: 16x256b up to .x32, 16x128b up to .x64 (nregs ≤ 128).
    assert_eq!(
        ids(&format!(
            "tcgen05.ld.sync.aligned.16x256b.x64.b32 {}, [%r199];",
            regs(128)
        )),
        ["TM0402"]
    );
    assert_eq!(
        ids(&format!(
            "tcgen05.ld.sync.aligned.16x128b.x128.b32 {}, [%r199];",
            regs(128)
        )),
        ["TM0402"]
    );
    assert_eq!(
        ids("tcgen05.ld.sync.aligned.16x128b.x1.b32 {%r1}, [%r3];"),
        ["TM0402"]
    );
    assert_eq!(
        ids("tcgen05.st.sync.aligned.32x32b.x4.b32 [%r9], {%r1, %r2, %r3};"),
        ["TM0402"]
    );
    assert_eq!(
        ids("tcgen05.ld.sync.aligned.32x32b.x3.b32 {%r1, %r2, %r3}, [%r9];"),
        ["TM0402"]
    );
    // ptxas 13.5: "Vector expected for argument 0" — a bare register is not a vector.
    assert_eq!(
        ids("tcgen05.ld.sync.aligned.32x32b.x1.b32 %r1, [%r3];"),
        ["TM0402"]
    );
}

#[test]
fn half_splitoff_and_packing() {
    assert_eq!(
        ids("tcgen05.st.sync.aligned.16x32bx2.x1.b32 [%r3], %r4, {%r1};"),
        ["TM0403"]
    );
    assert_eq!(
        ids("tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%r1}, [%r3];"),
        ["TM0403"]
    );
    assert_eq!(
        ids("tcgen05.ld.sync.aligned.32x32b.x1.unpack::16b.b32 {%r1}, [%r3];"),
        ["TM0404"]
    );
    assert_eq!(
        ids("tcgen05.st.sync.aligned.32x32b.x1.pack::16b.b32 [%r3], {%r1};"),
        ["TM0404"]
    );
}

#[test]
fn ld_red_forms_and_targets() {
    let on103 = |l: &str| ids_on("sm_103a", "8.8", l);
    assert_eq!(
        on103("tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.f32 {%r1, %r2}, %r3, [%r4];"),
        Vec::<&str>::new()
    );
    assert_eq!(
        on103("tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.u32 {%r1, %r2}, %r3, [%r4], 8;"),
        Vec::<&str>::new()
    );
    assert_eq!(
        on103("tcgen05.ld.red.sync.aligned.16x64b.x2.min.u32 {%r1, %r2}, %r3, [%r4];"),
        ["TM0405"]
    );
    assert_eq!(
        on103("tcgen05.ld.red.sync.aligned.32x32b.x2.pack::16b.min.u32 {%r1, %r2}, %r3, [%r4];"),
        ["TM0405"]
    );
    assert_eq!(
        on103("tcgen05.ld.red.sync.aligned.32x32b.x2.min.abs.u32 {%r1, %r2}, %r3, [%r4];"),
        ["TM0405"]
    );
    // targets.md §4: not on sm_100a (ptxas 13.5: "not supported on .target 'sm_100a'").
    assert_eq!(
        ids("tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {%r1, %r2}, %r3, [%r4];"),
        ["TM0405"]
    );
    assert_eq!(
        ids_on(
            "sm_110a",
            "9.0",
            "tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {%r1, %r2}, %r3, [%r4];"
        ),
        Vec::<&str>::new()
    );
}

#[test]
fn cp_forms_and_commit_mask() {
    assert_eq!(
        ids("tcgen05.cp.cta_group::1.128x256b.warpx4 [%r1], %rd1;"),
        ["TM0406"]
    );
    assert_eq!(
        ids("tcgen05.cp.cta_group::1.32x128b.warpx2::02_13 [%r1], %rd1;"),
        ["TM0406"]
    );
    assert_eq!(
        ids("tcgen05.cp.cta_group::1.32x128b [%r1], %rd1;"),
        ["TM0406"]
    );
    assert_eq!(
        ids("tcgen05.cp.cta_group::1.128x256b.b6x16_p32.b8x16 [%r1], %rd1;"),
        ["TM0407"]
    );
    assert_eq!(
        ids("tcgen05.cp.cta_group::1.128x256b.b8x16 [%r1], %rd1;"),
        ["TM0407"]
    );
    assert_eq!(
        ids("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%rd1], %rs1;"),
        ["TM0408"]
    );
}

#[test]
fn targets_and_versions() {
    let alloc = "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;";
    assert_eq!(ids_on("sm_100a", "8.6", alloc), Vec::<&str>::new());
    assert_eq!(ids_on("sm_101a", "8.6", alloc), Vec::<&str>::new());
    assert_eq!(ids_on("sm_100f", "8.8", alloc), Vec::<&str>::new());
    assert_eq!(ids_on("sm_103f", "8.8", alloc), Vec::<&str>::new());
    assert_eq!(ids_on("sm_110f", "9.0", alloc), Vec::<&str>::new());
    assert_eq!(ids_on("sm_100a", "8.5", alloc), ["TM0409"]);
    assert_eq!(ids_on("sm_100f", "8.7", alloc), ["TM0409"]);
    assert_eq!(ids_on("sm_110a", "8.8", alloc), ["TM0409"]);
    assert_eq!(ids_on("sm_100", "8.8", alloc), ["TM0409"]);
    assert_eq!(ids_on("sm_120a", "8.8", alloc), ["TM0409"]);
    let shift = "tcgen05.shift.cta_group::1.down [%r1];";
    assert_eq!(ids_on("sm_100f", "8.8", shift), ["TM0409"]);
    assert_eq!(ids_on("sm_103a", "8.8", shift), Vec::<&str>::new());
    let i8mma = "tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1;";
    assert_eq!(ids_on("sm_100f", "8.8", i8mma), ["TM0409"]);
    assert_eq!(ids_on("sm_100a", "8.8", i8mma), Vec::<&str>::new());
}

#[test]
fn whole_module_without_tcgen05_reports_the_target_once() {
    let src = ".version 8.8\n.target sm_90a\n.address_size 64\n.entry k()\n{\n    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n    tcgen05.fence::before_thread_sync;\n    ret;\n}\n";
    let m = tmemu_ptx::parse(src).unwrap();
    let f = static_check(&m, "t.ptx");
    assert_eq!(f.len(), 1);
    assert_eq!(
        (f[0].rule.id, f[0].span.line, f[0].related[0].line),
        ("TM0409", 6, 2)
    );
}

#[test]
fn mandatory_qualifiers_and_alloc_space() {
    assert_eq!(ids("tcgen05.dealloc.sync.aligned.b32 %r1, 32;"), ["TM0410"]);
    assert_eq!(
        ids("tcgen05.ld.aligned.32x32b.x1.b32 {%r1}, [%r2];"),
        ["TM0410"]
    );
    assert_eq!(ids("tcgen05.wait::st.sync;"), ["TM0410"]);
    assert_eq!(
        ids("tcgen05.relinquish_alloc_permit.cta_group::1;"),
        ["TM0410", "TM0410"]
    );
    assert_eq!(
        ids("tcgen05.alloc.cta_group::1.sync.aligned.shared::cluster.b32 [%r1], 32;"),
        ["TM0411"]
    );
    // ptxas 13.5 probes: these are rejected too.
    assert_eq!(
        ids("tcgen05.alloc.cta_group::1.sync.aligned.shared.b32 [%r1], 32;"),
        ["TM0411"]
    );
    assert_eq!(
        ids("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta [%r1], 32;"),
        ["TM0410"]
    );
    assert_eq!(
        ids("tcgen05.ld.sync.aligned.32x32b.x1 {%r1}, [%r3];"),
        ["TM0410"]
    );
    assert_eq!(ids("tcgen05.shift.cta_group::1 [%r1];"), ["TM0410"]);
    assert_eq!(
        ids("tcgen05.mma.cta_group::1 [%r1], %rd1, %rd2, %r2, %p1;"),
        ["TM0410"]
    );
    assert_eq!(ids("tcgen05.cp.cta_group::1 [%r1], %rd1;"), ["TM0410"]);
    assert_eq!(
        ids("tcgen05.commit.cta_group::1.shared::cluster.b64 [%rd1];"),
        ["TM0410"]
    );
    let on103 = |l: &str| ids_on("sm_103a", "8.8", l);
    assert_eq!(
        on103("tcgen05.ld.red.sync.aligned.32x32b.x2.min {%r1, %r2}, %r3, [%r4];"),
        ["TM0410"]
    );
    assert_eq!(
        on103("tcgen05.ld.red.sync.aligned.32x32b.x2.u32 {%r1, %r2}, %r3, [%r4];"),
        ["TM0410"]
    );
}

/// Every rule-corpus program with one line deleted (what still parses): no panic, and
/// every finding points into the file.
#[test]
fn line_deletions_never_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/rules");
    let mut n = 0;
    for d in std::fs::read_dir(dir).unwrap() {
        let d = d.unwrap().path();
        if !d.is_dir() || !d.file_name().unwrap().to_str().unwrap().starts_with("TM04") {
            continue;
        }
        let text = std::fs::read_to_string(d.join("break.ptx")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for skip in 0..lines.len() {
            let src: String = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| format!("{l}\n"))
                .collect();
            if let Ok(m) = tmemu_ptx::parse(&src) {
                for f in static_check(&m, "t.ptx") {
                    assert!(f.span.line as usize <= lines.len());
                }
                n += 1;
            }
        }
    }
    assert!(n > 300, "only {n} variants parsed");
}

/// Whole programs for TM0401 across calls, with ptxas 13.5's verdicts (probed: the rejects
/// say "Function 'k' uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2)
/// and that is not allowed."). A reject must give exactly one TM0401, an accept nothing.
#[test]
fn cta_group_programs_match_ptxas() {
    let f2 = ".func f2()\n{\n .reg .b64 %rd<2>;\n mov.u64 %rd1, 0;\n tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.b64 [%rd1];\n ret;\n}\n";
    let g = ".func g()\n{\n call f2, ();\n ret;\n}\n";
    let r1 = " tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n";
    let r2 = " tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n";
    let call = " call f2, ();\n";
    let cases = [
        (format!("{f2}.entry k()\n{{\n{r1}{call} ret;\n}}\n"), false),
        (
            format!("{f2}.entry a()\n{{\n{call} ret;\n}}\n.entry b()\n{{\n{r1} ret;\n}}\n"),
            true,
        ),
        (format!("{f2}.entry k()\n{{\n{r2}{call} ret;\n}}\n"), true),
        (
            format!("{f2}{g}.entry k()\n{{\n{r1} call g, ();\n ret;\n}}\n"),
            false,
        ),
        (format!("{f2}.entry k()\n{{\n{r1} ret;\n}}\n"), true),
    ];
    for (body, ptxas_accepts) in cases {
        let src = format!(".version 8.8\n.target sm_100a\n.address_size 64\n{body}");
        let m = tmemu_ptx::parse(&src).unwrap();
        let ids: Vec<_> = static_check(&m, "t.ptx")
            .iter()
            .map(|f| f.rule.id)
            .collect();
        let expected: &[&str] = if ptxas_accepts { &[] } else { &["TM0401"] };
        assert_eq!(ids, expected, "{src}");
    }
}
