//! Grouping and rendering cost for a grid-wide bug: 64 distinct findings, each hit by every
//! warp of 148 CTAs × 4 warps (37,888 raw findings), as a bad kernel on a full B200 would.
//! Run: `cargo bench -p tmemu-diag --bench render`.

use tmemu_diag::{
    group, render_human, render_json, render_sarif, ExecContext, Finding, HumanOptions, Location,
    Report, SarifOptions, Severity, Sources,
};

fn main() {
    divan::main();
}

const PTX: &str = "bench.ptx";

fn ptx_text() -> String {
    (1..=200)
        .map(|i| {
            format!("\ttcgen05.ld.sync.aligned.32x32b.x4.b32 {{%r{i}, %r1, %r2, %r3}}, [%r9];\n")
        })
        .collect()
}

fn raw_findings(text: &str) -> Vec<Finding> {
    let line_starts: Vec<u32> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect();
    let mut out = Vec::new();
    for cta in 0..148u32 {
        for warp in 0..4u32 {
            for bug in 0..64u32 {
                let line = bug * 3 + 1;
                let start = line_starts[line as usize - 1] + 1;
                out.push(
                    Finding::new(
                        "TM0599",
                        "bench-only",
                        Severity::Error,
                        format!("bug {bug}"),
                        Location::new(PTX, line, 2).with_range(start..start + 10),
                    )
                    .with_context(ExecContext {
                        cluster: [cta, 0, 0],
                        cta: [cta, 0, 0],
                        sm: Some(cta),
                        warp: Some(warp),
                        lanes: u32::MAX,
                    }),
                );
            }
        }
    }
    out
}

#[divan::bench]
fn group_37888_raw(bencher: divan::Bencher) {
    let text = ptx_text();
    bencher
        .with_inputs(|| raw_findings(&text))
        .bench_values(|raw| group(raw).len());
}

fn grouped() -> (Report, Sources) {
    let text = ptx_text();
    let report = Report::new(raw_findings(&text));
    let mut sources = Sources::default();
    sources.insert(PTX, text);
    (report, sources)
}

#[divan::bench]
fn human_64(bencher: divan::Bencher) {
    let (report, sources) = grouped();
    bencher.bench(|| render_human(&report, &sources, HumanOptions { color: false }).len());
}

#[divan::bench]
fn json_64(bencher: divan::Bencher) {
    let (report, _) = grouped();
    bencher.bench(|| render_json(&report).len());
}

#[divan::bench]
fn sarif_64(bencher: divan::Bencher) {
    let (report, _) = grouped();
    let opts = SarifOptions::default();
    bencher.bench(|| render_sarif(&report, &opts).len());
}
