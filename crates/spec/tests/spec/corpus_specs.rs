//! Every launch spec of the repository's kernel corpus (real nvcc / Triton / Gluon / CuTe DSL
//! output) must load and resolve against the parameters its PTX entry declares.
//!
//! The PTX parameter list is read here with a few lines of text matching (this crate must not
//! depend on the PTX parser); it only needs `.param` declarations of `.entry` headers.

use std::path::{Path, PathBuf};
use tmemu_spec::{materialize_buffers, resolve, resolve_prefilled, ParamInfo, ParamKind, Spec};

fn specs_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            specs_under(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml")
            // `expected.toml` beside a bug reproduction lists its expected findings
            // (tests/corpus/bugs/README); it is not a launch spec.
            && p.file_name().is_some_and(|n| n != "expected.toml")
        {
            out.push(p);
        }
    }
}

/// `(entry name, params)` for every `.entry` of a PTX module.
fn entries(ptx: &str) -> Vec<(String, Vec<ParamInfo>)> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry ") {
        let after = &rest[at + ".entry ".len()..];
        let open = after.find('(');
        let brace = after.find('{');
        let name_end = after
            .find(|c: char| c == '(' || c.is_whitespace())
            .unwrap_or(after.len());
        let name = after[..name_end].to_string();
        let mut params = Vec::new();
        // A parameter list exists only if '(' comes before the body.
        if let (Some(open), Some(brace)) = (open, brace) {
            if open < brace {
                let close = open + after[open..].find(')').expect("closing paren");
                for decl in after[open + 1..close].split(',') {
                    let decl = decl.trim();
                    if decl.is_empty() {
                        continue;
                    }
                    params.push(param_info(decl));
                }
            }
        }
        out.push((name, params));
        rest = &after[name_end..];
    }
    out
}

fn param_info(decl: &str) -> ParamInfo {
    let words: Vec<&str> = decl.split_whitespace().collect();
    let last = *words.last().unwrap();
    let align = words
        .iter()
        .position(|w| *w == ".align")
        .map(|i| words[i + 1].parse::<usize>().unwrap());
    if let Some(bracket) = last.find('[') {
        let len: usize = last[bracket + 1..last.len() - 1].parse().unwrap();
        return ParamInfo {
            name: last[..bracket].to_string(),
            kind: ParamKind::ByteArray {
                len,
                align: align.unwrap_or(1),
            },
        };
    }
    let ty = words
        .iter()
        .find(|w| {
            let w = w.trim_start_matches('.');
            w.len() >= 2
                && matches!(&w[..1], "u" | "s" | "b" | "f")
                && w[1..].parse::<u32>().is_ok()
        })
        .unwrap_or_else(|| panic!("no type in {decl}"));
    let bits: u32 = ty[2..].parse().unwrap();
    let kind = if words.contains(&".ptr") {
        ParamKind::Pointer
    } else {
        ParamKind::Scalar {
            bits,
            is_float: ty.starts_with(".f"),
        }
    };
    ParamInfo {
        name: last.to_string(),
        kind,
    }
}

#[test]
fn ptx_param_reader_reads_the_forms_compilers_emit() {
    let ptx = ".visible .entry k(\n\t.param .align 64 .b8 k_param_0[128],\n\t.param .u64 .ptr .global .align 16 k_param_1,\n\t.param .f32 k_param_2\n)\n{\n}\n.entry e()\n{\n}\n";
    let es = entries(ptx);
    assert_eq!(es.len(), 2);
    assert_eq!(
        es[0].1,
        [
            ParamInfo {
                name: "k_param_0".into(),
                kind: ParamKind::ByteArray {
                    len: 128,
                    align: 64
                }
            },
            ParamInfo {
                name: "k_param_1".into(),
                kind: ParamKind::Pointer
            },
            ParamInfo {
                name: "k_param_2".into(),
                kind: ParamKind::Scalar {
                    bits: 32,
                    is_float: true
                }
            },
        ]
    );
    assert!(es[1].1.is_empty());
}

#[test]
fn every_corpus_spec_loads_and_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut specs = Vec::new();
    specs_under(&root, &mut specs);
    specs.sort();
    assert!(
        specs.len() >= 20,
        "the corpus has lost its specs: {}",
        specs.len()
    );
    let mut failures = Vec::new();
    for path in &specs {
        let result = (|| -> Result<(), String> {
            let spec = Spec::load(path).map_err(|e| e.to_string())?;
            let ptx = read_ptx(&spec.ptx.value)?;
            let es = entries(&ptx);
            let params = match &spec.kernel {
                Some(k) => es
                    .iter()
                    .find(|(n, _)| *n == k.value)
                    .ok_or_else(|| format!("no entry {}", k.value))?
                    .1
                    .clone(),
                None if es.len() == 1 => es[0].1.clone(),
                None => return Err(format!("{} entries and no kernel key", es.len())),
            };
            let r = resolve(&spec, &params).map_err(|e| e.to_string())?;
            // the inputs made apart (as `tmemu run` makes them while the PTX loads) resolve to
            // the same launch
            let made = materialize_buffers(&spec, 3);
            let pre = resolve_prefilled(&spec, &params, 3, made).map_err(|e| e.to_string())?;
            if pre != r {
                return Err("resolve_prefilled differs from resolve".into());
            }
            for (m, b) in r.tensor_maps.iter().map(|m| (&m.desc, m.buffer)) {
                assert!(b < r.buffers.len() && m.box_bytes() > 0);
            }
            Ok(())
        })();
        if let Err(e) = result {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} corpus specs failed:\n{}",
        failures.len(),
        specs.len(),
        failures.join("\n")
    );
}

/// The PTX text, from NAME.ptx or, committed compressed, from NAME.ptx.gz or NAME.ptx.xz
/// (the test kit's reader of committed files; a corrupt archive fails the test there).
fn read_ptx(path: &std::path::Path) -> Result<String, String> {
    String::from_utf8(tmemu_testkit::recording::read(path)).map_err(|e| e.to_string())
}
