//! Malformed input never panics, hangs or allocates without bound, and errors carry the
//! right line:col. Peak heap use is measured with a counting global allocator.

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use tmemu_ptx::{parse, ParseErrorKind};

/// Counts heap bytes per thread (tests run in parallel; each measures only its own thread).
struct Counting;

thread_local! {
    static CURRENT: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn track(delta: isize) {
    let _ = CURRENT.try_with(|c| {
        let now = c.get() + delta;
        c.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        track(l.size() as isize);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        track(-(l.size() as isize));
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        track(new as isize - l.size() as isize);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak heap bytes allocated by this thread (above the level at entry) while running `f`.
fn peak_heap_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    (r, (PEAK.with(Cell::get) - base).max(0) as usize)
}

/// Each file under tests/corpus whose first line is `// expect-error: LINE:COL: message prefix`
/// (tests/corpus/parse/err and any added elsewhere) fails with exactly that error.
#[test]
fn error_corpus_reports_expected_positions() {
    let files = common::bad_corpus_files();
    assert!(files.len() >= 10, "error corpus missing");
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let want = src
            .lines()
            .next()
            .and_then(|l| l.strip_prefix(common::EXPECT_ERROR))
            .unwrap_or_else(|| panic!("{}: no expect-error header", path.display()));
        let err = parse(&src).expect_err(&path.display().to_string());
        let got = format!("{}:{}: {}", err.span.line, err.span.col, err);
        assert!(
            got.starts_with(want),
            "{}: got `{got}`, want `{want}`",
            path.display()
        );
        let rendered = err.render("f.ptx");
        assert!(rendered.starts_with(&format!(
            "f.ptx:{}:{}: error: ",
            err.span.line, err.span.col
        )));
    }
}

fn header() -> &'static str {
    ".version 9.0\n.target sm_100a\n.address_size 64\n"
}

#[test]
fn empty_and_whitespace_inputs_are_errors_at_their_end() {
    for (src, line, col) in [
        ("", 1, 1),
        ("   ", 1, 4),
        ("\n\n", 3, 1),
        ("// only a comment", 1, 18),
    ] {
        let e = parse(src).unwrap_err();
        assert_eq!((e.span.line, e.span.col), (line, col), "{src:?}");
    }
}

#[test]
fn binary_garbage_is_an_error_not_a_panic() {
    let mut rng = common::Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2000 {
        let n = rng.below(512);
        let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        let text = String::from_utf8_lossy(&bytes);
        let r = catch_unwind(AssertUnwindSafe(|| parse(&text).map(|m| m.items.len())));
        assert!(r.is_ok(), "panic on garbage {bytes:?}");
    }
}

#[test]
fn unknown_opcode_parses_but_unknown_directive_does_not() {
    let ok = format!("{}.entry k() {{ frob.x::y.z %r1, [%r2+4]; }}", header());
    let m = parse(&ok).unwrap();
    let body = m.functions().next().unwrap().body.as_ref().unwrap();
    let tmemu_ptx::ast::Statement::Instruction(i) = &body.statements[0] else {
        panic!()
    };
    assert_eq!(i.name, "frob");
    assert_eq!(i.modifiers.iter().collect::<Vec<_>>(), ["x::y", "z"]);
    let bad = format!("{}.entry k() {{ .frob 1; }}", header());
    let e = parse(&bad).unwrap_err();
    assert!(matches!(e.kind, ParseErrorKind::UnknownDirective(ref d) if d == ".frob"));
    assert_eq!((e.span.line, e.span.col), (4, 14));
}

#[test]
fn deep_nesting_is_a_bounded_error() {
    // Left-deep operator chains too: `1+1+1+...` (evaluation and drop recurse over them).
    for chain in ["+1", "*1", "|1"] {
        let src = format!("{}.global .u32 x = 1{};", header(), chain.repeat(100_000));
        assert_eq!(
            parse(&src).unwrap_err().kind,
            ParseErrorKind::TooDeep,
            "{chain}"
        );
        let src = format!(
            "{}.entry k() {{ mov.b32 %r1, 1{}; }}",
            header(),
            chain.repeat(100_000)
        );
        assert_eq!(
            parse(&src).unwrap_err().kind,
            ParseErrorKind::TooDeep,
            "{chain}"
        );
    }
    // ... while 200 terms are fine.
    let src = format!("{}.global .u32 x = 1{};", header(), "+1".repeat(200));
    assert!(parse(&src).is_ok());
    for open in ["{", "{{", "(", "-", "~", "[", "[{"] {
        let depth = 100_000;
        let src = match open {
            "{" => format!("{}.entry k() {}", header(), "{".repeat(depth)),
            "{{" => format!(
                "{}.entry k() {{ mov.b32 %r1, {}",
                header(),
                "{".repeat(depth)
            ),
            "[" => format!(
                "{}.entry k() {{ ld.b32 %r1, {}",
                header(),
                "[%r1, ".repeat(depth)
            ),
            "[{" => format!(
                "{}.entry k() {{ ld.b32 %r1, {}",
                header(),
                "[%r1, {".repeat(depth)
            ),
            other => format!("{}.global .u32 x = {}1;", header(), other.repeat(depth)),
        };
        let e = parse(&src).unwrap_err();
        assert_eq!(e.kind, ParseErrorKind::TooDeep, "{open}");
    }
}

const HUNDRED_MB: usize = 100 << 20;

fn repeated(prefix: &str, line: &str) -> String {
    let mut s = String::with_capacity(HUNDRED_MB + line.len() + prefix.len());
    s.push_str(prefix);
    while s.len() < HUNDRED_MB {
        s.push_str(line);
    }
    s
}

/// 100 MB of one repeated line: parsing stays linear and memory stays bounded (measured with
/// the counting allocator; the input itself is allocated before measuring).
#[test]
fn hundred_megabytes_of_one_line() {
    // Valid: comments only. No tree nodes, so the parse allocates (almost) nothing.
    let src = repeated(header(), "// the same comment line, again and again\n");
    let t = Instant::now();
    let (r, peak) = peak_heap_during(|| parse(&src).map(|m| m.items.len()));
    assert_eq!(r.unwrap(), 3);
    assert!(peak < 64 << 10, "comment-only parse allocated {peak} bytes");
    assert!(t.elapsed() < Duration::from_secs(60));
    drop(src);

    // Invalid at once: an instruction at module scope fails on line 4, without reading on.
    let src = repeated(header(), "add.s32 %r1, %r2, %r3;\n");
    let (r, peak) = peak_heap_during(|| parse(&src));
    let e = r.unwrap_err();
    assert_eq!((e.span.line, e.span.col), (4, 1));
    assert!(peak < 64 << 10, "{peak}");
    drop(src);

    // Valid tree: 10 MB of instructions in one body. Tree memory is linear in the input;
    // measured ~28 bytes of peak heap per input byte for 24-byte instruction lines (Vec growth
    // included), documented in docs/arch/ptx.md. (At 100 MB this would need ~3 GB, too much
    // for a shared test machine, so the linear case is measured at a tenth of the size.)
    let n = HUNDRED_MB / 10;
    let mut src = format!("{}.entry k() {{\n", header());
    while src.len() < n {
        src.push_str("\tadd.s32 %r1, %r2, %r3;\n");
    }
    src.push('}');
    let t = Instant::now();
    let (r, peak) = peak_heap_during(|| parse(&src).map(|m| m.instruction_count()));
    assert_eq!(r.unwrap(), (n - header().len() - 12) / 24 + 1);
    assert!(peak < 32 * n, "{peak}");
    eprintln!(
        "10 MB body: {} bytes peak heap per input byte, {:?}",
        peak / n,
        t.elapsed()
    );
}

/// Mutations of every corpus file: truncation, byte flips, deletions, duplications and token
/// insertions. No panic, and each parse is fast (linear parser: a generous bound).
#[test]
fn seeded_mutations_of_corpus_never_panic() {
    const SNIPPETS: &[&str] = &[
        "{", "}", ";", "[", "]", "(", ")", ",", ".reg", ".entry", "%r1", "0x", "\"", "/*", "//",
        "@", "!", "|", "<", ">", "=", ".b32", "-", "0f", "1.5e", "\n", ".section", "_", "::",
    ];
    let files = common::good_corpus_files();
    let mut total = 0usize;
    for (fi, path) in files.iter().enumerate() {
        let src = common::read(path);
        let seed = 0xC0FFEE ^ (fi as u64) << 20;
        let mut rng = common::Rng(seed | 1);
        for case in 0..60 {
            let mut m = src.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(m.len() + 1);
                match rng.below(5) {
                    0 => m.truncate(at),
                    1 if at < m.len() => m[at] = rng.next_u64() as u8,
                    2 => {
                        let end = (at + rng.below(64)).min(m.len());
                        m.drain(at..end);
                    }
                    3 => {
                        let end = (at + rng.below(256)).min(m.len());
                        let chunk = m[at..end].to_vec();
                        m.splice(at..at, chunk);
                    }
                    _ => {
                        let s = SNIPPETS[rng.below(SNIPPETS.len())];
                        m.splice(at..at, s.bytes());
                    }
                }
            }
            let text = String::from_utf8_lossy(&m);
            let t = Instant::now();
            let r = catch_unwind(AssertUnwindSafe(|| match parse(&text) {
                Ok(md) => md.to_string().len(),
                Err(e) => e.render("x").len(),
            }));
            assert!(
                r.is_ok(),
                "panic: {} seed {seed:#x} case {case}",
                path.display()
            );
            assert!(
                t.elapsed() < Duration::from_secs(5),
                "slow: {} case {case}",
                path.display()
            );
            total += 1;
        }
    }
    eprintln!("mutations: {total} parsed without panic");
}

#[test]
fn truncation_at_every_line_is_an_error_or_a_prefix_module() {
    let path = common::corpus_root().join("parse/ok/grammar_features.ptx");
    let src = std::fs::read_to_string(path).unwrap();
    for (i, _) in src.match_indices('\n') {
        let cut = &src[..i];
        if let Err(e) = parse(cut) {
            // An error points inside (or at the end of) the truncated text.
            assert!(e.span.start as usize <= cut.len());
            let map = tmemu_ptx::SourceMap::new(cut);
            assert_eq!(map.line_col(e.span.start), (e.span.line, e.span.col));
        }
    }
}

#[test]
fn caret_snippet_points_at_the_column() {
    let src = ".version 9.0\n.target sm_100a\n.entry k()\n{\n\tmov.u32 %r1, #5;\n}\n";
    let e = parse(src).unwrap_err();
    assert_eq!(
        e.render_with_source("a.ptx", src),
        "a.ptx:5:15: error: unexpected character '#'\n  |\n5 | \tmov.u32 %r1, #5;\n  | \t             ^"
    );
    // Error at end of file (after the last newline) shows an empty line.
    let e = parse("").unwrap_err();
    assert!(e.render_with_source("b.ptx", "").ends_with("1 | \n  | ^"));
    // A 1 MB line is cut around the column, never printed whole.
    let long = format!(".version 9.0\n.target sm_100a\n{}#", " ".repeat(1 << 20));
    let r = parse(&long).unwrap_err().render_with_source("c.ptx", &long);
    assert!(r.len() < 600, "{}", r.len());
    assert!(r.ends_with('^'));
}
