//! Findings built by hand for the snapshot and structure tests. Locations are computed from
//! the test PTX text here (line and needle), independently of the renderer's own arithmetic.

#![allow(dead_code)]

use tmemu_diag::{
    BlockedWarp, ExecContext, Finding, HangReport, Incomplete, Location, Report, Severity,
    SourceLine, Sources,
};
use tmemu_tmem::rules;

/// Relative to the crate directory, where `cargo test` runs.
pub const PTX: &str = "tests/data/kernels/alloc.ptx";
pub const RELINQUISH_PTX: &str = "kernels/in_memory.ptx";
pub const RELINQUISH_TEXT: &str = "\
.version 8.7
.target sm_100a
.visible .entry k()
{
\t.reg .b32 %r<4>;
\ttcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32;
\ttcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
\tret;
}
";

/// The location of `needle` on 1-based `line` of `file` (text given), with its byte range.
pub fn at_in(file: &str, text: &str, line: u32, needle: &str) -> Location {
    let mut offset = 0usize;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            let col = l
                .find(needle)
                .unwrap_or_else(|| panic!("{needle:?} not on line {line}: {l:?}"));
            let start = (offset + col) as u32;
            return Location::new(file, line, col as u32 + 1)
                .with_range(start..start + needle.len() as u32);
        }
        offset += l.len();
    }
    panic!("no line {line}");
}

pub fn at(line: u32, needle: &str) -> Location {
    let text = std::fs::read_to_string(PTX).expect("test PTX");
    at_in(PTX, &text, line, needle)
}

pub fn ctx(cta: [u32; 3], warp: Option<u32>, lanes: u32) -> ExecContext {
    ExecContext {
        cluster: [0, 0, 0],
        cta,
        sm: Some(cta[0] % 148),
        warp,
        lanes,
    }
}

pub const ALL: u32 = u32::MAX;

pub fn leak() -> Finding {
    Finding::for_rule(
        &rules::ALLOC_LEAK,
        "the CTA exited with 128 TMEM columns (0-127) still allocated",
        at(36, "ret").with_label("the CTA exits here"),
    )
    .with_related(
        at(
            24,
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
        )
        .with_label("allocated here"),
    )
    .with_context(ctx([1, 0, 0], None, 0))
}

pub fn race() -> Finding {
    Finding::for_rule(
        &rules::TMEM_ACCESS_RACE,
        "tcgen05.ld reads lanes 0-31, columns 0-3 while the tcgen05.mma that writes them may still be running",
        at(29, "[%r2]").with_label("read here"),
    )
    .with_related(
        at(28, "tcgen05.mma.cta_group::1.kind::f16")
            .with_label("written by this tcgen05.mma; no tcgen05.commit + mbarrier wait orders it before the read"),
    )
    .with_context(ctx([0, 0, 0], Some(0), ALL))
    .with_source(SourceLine {
        file: "src/matmul.py".into(),
        line: 11,
        column: 15,
    })
}

/// 96 raw findings, one per CTA, given in reverse order.
pub fn grouped_raw() -> Vec<Finding> {
    (0..96)
        .rev()
        .map(|x| {
            Finding::for_rule(
                &rules::ALLOC_AFTER_RELINQUISH,
                "tcgen05.alloc after this CTA relinquished its allocation permit",
                at(
                    31,
                    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                )
                .with_label("allocates after the relinquish"),
            )
            .with_related(
                at(
                    25,
                    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
                )
                .with_label("permit relinquished here"),
            )
            .with_context(ctx([x, 0, 0], Some(1), ALL))
            .with_source(SourceLine {
                file: "kernels/triton/missing.py".into(),
                line: 42,
                column: 0,
            })
        })
        .collect()
}

pub fn no_context() -> Finding {
    Finding::for_rule(
        &rules::NCOLS_NOT_POWER_OF_TWO,
        "nCols is 48, which is not a power of two",
        at(31, "48").with_label("48 columns"),
    )
    .with_note("ptxas rejects this immediate: \"value must be power of 2\"")
}

pub fn warning() -> Finding {
    Finding::for_rule(
        &rules::ALLOC_MULTIPLE_WARPS,
        "warp 2 allocates while warp 0 of the same CTA made the earlier allocation",
        at(
            31,
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
        ),
    )
    .with_related(
        at(
            24,
            "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
        )
        .with_label("first allocation, by warp 0"),
    )
    .with_context(ctx([0, 0, 0], Some(2), ALL))
}

/// A finding in a file given to [`Sources::insert`] rather than read from disk.
pub fn note_in_memory() -> Finding {
    Finding::for_rule(
        &rules::MISSING_RELINQUISH,
        "no warp of this CTA executed tcgen05.relinquish_alloc_permit; co-resident CTAs could not tell that it would allocate no more",
        at_in(RELINQUISH_PTX, RELINQUISH_TEXT, 6, "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"),
    )
    .with_context(ctx([3, 0, 0], Some(0), ALL))
}

/// A rule the catalogue does not have (as the engine's own TM05xx rules are today): no help
/// line. A test-only ID, so the snapshot does not change when the catalogue grows. Partial
/// lane mask, seed and notes.
pub fn engine_rule() -> Finding {
    Finding::new(
        "TM0599",
        "out-of-bounds-access-test-only",
        Severity::Error,
        "ld.global reads 4 bytes at 0x7f0000001000, one past the end of buffer `a` (0x7f0000000000, 4096 bytes)",
        at(34, "[%rd3+4096]").with_label("4 bytes past the end of `a`"),
    )
    .with_context(ExecContext {
        cluster: [1, 0, 0],
        cta: [2, 1, 0],
        sm: Some(5),
        warp: Some(3),
        lanes: 0b1111_0101,
    })
    .with_seed(12345)
    .with_note("buffer `a` is the launch spec's [buffers.a] (f32, shape [32, 32])")
}

/// The PTX file is gone: `--> file:line:col` and the labels as notes.
pub fn missing_file() -> Finding {
    Finding::for_rule(
        &rules::DEALLOC_NOT_LIVE,
        "tcgen05.dealloc of columns 0-31, which no allocation of this CTA holds",
        Location::new("kernels/gone.ptx", 57, 2)
            .with_range(1200..1250)
            .with_label("frees columns 0-31"),
    )
    .with_related(Location::new("kernels/gone.ptx", 40, 2).with_label("already freed here"))
    .with_context(ctx([0, 0, 0], Some(0), ALL))
}

/// The byte range does not fit the file: the renderer falls back to line:column.
pub fn bad_range() -> Finding {
    let mut loc = at(35, "[%rd4]");
    loc.byte_range = Some(1_000_000..1_000_010);
    Finding::new(
        "TM0598",
        "mbarrier-misaligned-test-only",
        Severity::Error,
        "mbarrier address 0x4 is not 8-byte aligned",
        loc,
    )
    .with_context(ctx([0, 0, 0], Some(4), 1))
}

/// A rule whose ID the catalogue holds under another name (as happens while an engine's own
/// IDs and the catalogue are reconciled): no help line, rather than the wrong rule's.
pub fn id_conflict() -> Finding {
    Finding::new(
        "TM0001",
        "mbarrier-uninitialized-test-only",
        Severity::Error,
        "mbarrier.try_wait on shared offset 0x10, which holds no initialised mbarrier",
        at(35, "[%rd4]"),
    )
    .with_context(ctx([0, 0, 0], Some(4), ALL))
}

/// The `32` operand of the dealloc (not the `32` of `.b32`).
fn freed_32() -> Location {
    let l = at_in(RELINQUISH_PTX, RELINQUISH_TEXT, 7, "32;");
    let r = l.byte_range.clone().unwrap();
    Location {
        byte_range: Some(r.start..r.end - 1),
        ..l
    }
    .with_label("frees 32")
}

/// Two spans on one line, and a related span in another file.
pub fn spans_across_files() -> Finding {
    Finding::for_rule(
        &rules::DEALLOC_NCOLS_MISMATCH,
        "tcgen05.dealloc frees 32 columns of an allocation of 128",
        at(24, "128").with_label("allocation of 128 columns"),
    )
    .with_related(at(24, "[%r1]").with_label("address written here"))
    .with_related(freed_32())
    .with_context(ctx([0, 0, 0], Some(0), ALL))
}

pub fn hang() -> HangReport {
    let mut warps = Vec::new();
    for cta in 0..2u32 {
        for warp in 0..2u32 {
            warps.push(BlockedWarp {
                context: ctx([cta, 0, 0], Some(warp), ALL),
                location: at(33, "bar.sync"),
                instruction: "bar.sync".into(),
                waiting_for:
                    "barrier 0: 64 of 128 threads arrived; warps 2-3 took the other branch".into(),
            });
        }
    }
    warps.push(BlockedWarp {
        context: ctx([0, 0, 0], Some(4), ALL),
        location: at(35, "mbarrier.try_wait.parity.shared::cta.b64"),
        instruction: "mbarrier.try_wait.parity.shared::cta.b64".into(),
        waiting_for:
            "mbarrier at smem+0x10 to finish phase 0 (1 of 1 arrivals pending; nothing will arrive)"
                .into(),
    });
    HangReport {
        rule: "TM0504",
        name: "barrier-deadlock",
        summary: "no warp can make progress and nothing asynchronous is pending".into(),
        warps,
    }
}

pub fn incomplete() -> Incomplete {
    Incomplete {
        message: "tcgen05.mma.kind::mxf4nvf4 with block scaling is not modelled".into(),
        location: Some(at(28, "tcgen05.mma.cta_group::1.kind::f16")),
    }
}

/// Named single-finding reports, each snapshotted in the human format.
pub fn cases() -> Vec<(&'static str, Report)> {
    vec![
        ("leak", Report::new(vec![leak()])),
        ("race", Report::new(vec![race()])),
        ("grouped_96_ctas", Report::new(grouped_raw())),
        ("no_context", Report::new(vec![no_context()])),
        ("warning", Report::new(vec![warning()])),
        ("note_in_memory", Report::new(vec![note_in_memory()])),
        ("engine_rule", Report::new(vec![engine_rule()])),
        ("missing_file", Report::new(vec![missing_file()])),
        ("bad_range", Report::new(vec![bad_range()])),
        ("id_conflict", Report::new(vec![id_conflict()])),
        (
            "spans_across_files",
            Report::new(vec![spans_across_files()]),
        ),
        ("hang", Report::new(vec![]).with_hang(hang())),
        (
            "incomplete",
            Report::new(vec![]).with_incomplete(incomplete()),
        ),
        ("clean", Report::new(vec![])),
    ]
}

/// Everything at once (for the JSON and SARIF snapshots).
pub fn everything() -> Report {
    let mut all = vec![leak(), race()];
    all.extend(grouped_raw());
    all.extend([
        no_context(),
        warning(),
        note_in_memory(),
        engine_rule(),
        missing_file(),
        bad_range(),
        id_conflict(),
    ]);
    Report::new(all)
        .with_hang(hang())
        .with_incomplete(incomplete())
}

pub fn sources(report: &Report) -> Sources {
    let mut s = Sources::load(report);
    s.insert(RELINQUISH_PTX, RELINQUISH_TEXT);
    s
}
