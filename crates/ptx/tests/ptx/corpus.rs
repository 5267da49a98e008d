//! Every `.ptx` under `tests/corpus` (walked, so files added later are included) parses, and
//! printing then re-parsing gives the same tree (spans excluded).

use crate::common;

use tmemu_ptx::spanless::ClearSpans;

#[test]
fn corpus_parses_and_round_trips() {
    let files = common::good_corpus_files();
    assert!(
        !files.is_empty(),
        "no .ptx files under {}",
        common::corpus_root().display()
    );
    let (mut instructions, mut bytes) = (0usize, 0usize);
    let mut failures = Vec::new();
    for path in &files {
        let src = common::read_text(path);
        bytes += src.len();
        let shown = path.display().to_string();
        let module = match tmemu_ptx::parse(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(e.render(&shown));
                continue;
            }
        };
        instructions += module.instruction_count();
        // Sanity against an independent count: every instruction line of compiler output
        // ends in `;` and is not a declaration; the parser must not lose any.
        let printed = module.to_string();
        let reparsed = match tmemu_ptx::parse(&printed) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!(
                    "{shown}: printed text does not parse: {}",
                    e.render("<printed>")
                ));
                continue;
            }
        };
        let (mut a, mut b) = (module.clone(), reparsed);
        a.clear_spans();
        b.clear_spans();
        if a != b {
            failures.push(format!("{shown}: round trip changed the tree"));
        }
        // Printing is a fixed point after one round.
        assert_eq!(printed, b.to_string(), "{shown}: printer is not idempotent");
    }
    eprintln!(
        "corpus: {} files, {} instructions, {} bytes parsed",
        files.len(),
        instructions,
        bytes
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The parser's instruction count equals an independent line-based count for compiler output
/// (a statement is a `;`-terminated piece of a line, comments removed; it is an instruction when
/// its first token is an opcode or guard). Statements are split within a line because inline
/// PTX scopes put several on one (`{ .reg .b32 tmp; mov.b64 {%r3, tmp}, %rd23; }`, as libdevice's
/// f64 functions do).
#[test]
fn instruction_count_matches_line_count_for_kernels() {
    let root = common::corpus_root().join("kernels");
    for path in common::ptx_files_in(&root) {
        let src = common::read_text(&path);
        let expected = src
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .flat_map(|l| {
                // only `;`-terminated pieces are statements (the last piece is what follows
                // the final `;`, e.g. a closing brace)
                let n = l.matches(';').count();
                l.split(';').take(n)
            })
            .map(|l| {
                l.trim()
                    .trim_start_matches('{')
                    .trim_end_matches('}')
                    .trim()
            })
            .filter(|l| !l.is_empty())
            .filter(|l| {
                let c = l.as_bytes()[0];
                // Not a directive, not a label-prefixed directive (`$L: .branchtargets`), not a comment.
                c != b'.'
                    && !l.starts_with("//")
                    && !l.contains(": .")
                    && (c == b'@' || c.is_ascii_alphabetic())
            })
            .count();
        let module = tmemu_ptx::parse(&src).unwrap();
        assert_eq!(module.instruction_count(), expected, "{}", path.display());
    }
}
