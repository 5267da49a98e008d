//! Walks every launch spec under tests/corpus/kernels/ and tests/corpus/engine/{triton,nvcc}/ and runs the ones whose PTX uses no
//! tcgen05 instruction (tcgen05 execution is the next issue). Each run must load, finish
//! without diagnostics or hangs, and match every `[[expect]]` reference (numpy outputs,
//! tolerances as the spec states them). Nothing is skipped silently: the test prints which
//! specs ran, which were skipped for tcgen05, and which are known to be incomplete today.

use std::path::{Path, PathBuf};

use tmemu_sim::{install_globals, GlobalMemory, Launch, LoadError, RunOptions};
use tmemu_spec::{resolve, ParamInfo, ParamKind, Spec};

/// Specs that load as `incomplete` today, with the reason. FIXME: each entry goes away when
/// the numerics crate provides the form (the test fails if one starts to pass, so the list
/// cannot go stale).
const KNOWN_INCOMPLETE: &[(&str, &str)] = &[];

fn specs(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            specs(&p, out);
        } else if p.extension().is_some_and(|e| e == "toml") {
            out.push(p);
        }
    }
}

enum Outcome {
    Passed(String),
    Incomplete(String),
    Failed(String),
}

fn run_spec(path: &Path) -> Outcome {
    let spec = match Spec::load(path) {
        Ok(s) => s,
        Err(e) => return Outcome::Failed(format!("spec: {e}")),
    };
    let src = std::fs::read_to_string(&spec.ptx.value).unwrap();
    let m = match tmemu_ptx::parse(&src) {
        Ok(m) => m,
        Err(e) => return Outcome::Failed(format!("parse: {e}")),
    };
    let k = match tmemu_sim::load(
        &m,
        &src,
        "k.ptx",
        spec.kernel.as_ref().map(|k| k.value.as_str()),
    ) {
        Ok(k) => k,
        Err(e @ LoadError::Unsupported { .. }) => return Outcome::Incomplete(e.to_string()),
        Err(e) => return Outcome::Failed(format!("load: {e}")),
    };
    let params: Vec<ParamInfo> = k
        .params
        .iter()
        .map(|p| ParamInfo {
            name: p.name.clone(),
            kind: if p.is_pointer {
                ParamKind::Pointer
            } else if p.is_array {
                ParamKind::ByteArray {
                    len: p.size as usize,
                    align: p.align as usize,
                }
            } else {
                ParamKind::Scalar {
                    bits: p.elem_bits,
                    is_float: p.is_float,
                }
            },
        })
        .collect();
    let l = match resolve(&spec, &params) {
        Ok(l) => l,
        Err(e) => return Outcome::Failed(format!("resolve: {e}")),
    };
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let addrs: Vec<u64> = l
        .buffers
        .iter()
        .map(|b| g.alloc(&b.name, &b.bytes))
        .collect();
    let launch = Launch {
        grid: l.grid,
        block: l.block,
        cluster: if l.cluster == [1, 1, 1] {
            None
        } else {
            Some(l.cluster)
        },
        dyn_shared: l.shared_bytes,
        params: l.param_block(&addrs),
    };
    let r = match tmemu_sim::run(
        &k,
        &launch,
        &g,
        &RunOptions {
            threads: 2,
            ..Default::default()
        },
    ) {
        Ok(r) => r,
        Err(e) => return Outcome::Failed(format!("launch: {e}")),
    };
    if !r.diagnostics.is_empty()
        || !r.hangs.is_empty()
        || !r.budget_exhausted.is_empty()
        || r.trapped
    {
        return Outcome::Failed(format!(
            "diagnostics {:?} hangs {:?}",
            r.diagnostics, r.hangs
        ));
    }
    let mut notes = Vec::new();
    for e in &l.expects {
        let b = &l.buffers[e.buffer];
        let bytes = g.read_buffer(addrs[e.buffer]).unwrap();
        match e.check(b, &bytes) {
            Ok(c) if c.passed() => {
                notes.push(format!("{}: max abs err {:.2e}", b.name, c.max_abs_err))
            }
            Ok(c) => {
                return Outcome::Failed(format!(
                    "expect {}: {} mismatches of {}",
                    b.name, c.mismatches, c.elements
                ))
            }
            Err(err) => return Outcome::Failed(format!("expect {}: {err}", b.name)),
        }
    }
    if l.expects.is_empty() {
        // benchmark specs carry no reference: clean execution is all they can show
        notes.push("no [[expect]]: ran clean".into());
    }
    Outcome::Passed(notes.join(", "))
}

#[test]
fn non_tcgen05_corpus_kernels_match_numpy() {
    // the shared corpus (compiler output of the corpus engineers) and the engine's own Triton set
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    let mut all = Vec::new();
    specs(&root.join("kernels"), &mut all);
    let shared = all.len();
    specs(&root.join("engine/triton"), &mut all);
    specs(&root.join("engine/nvcc"), &mut all);
    assert!(
        shared > 0 && all.len() > shared,
        "no specs under {}",
        root.display()
    );
    let mut ran = 0;
    let mut failures = Vec::new();
    for p in &all {
        let name = p.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(p).unwrap();
        let ptx_rel = text
            .lines()
            .find_map(|l| {
                l.trim().strip_prefix("ptx").map(|r| {
                    r.trim()
                        .trim_start_matches('=')
                        .trim()
                        .trim_matches('"')
                        .to_string()
                })
            })
            .unwrap();
        let ptx = std::fs::read_to_string(p.parent().unwrap().join(&ptx_rel)).unwrap_or_default();
        if ptx.contains("tcgen05") {
            println!("skipped (uses tcgen05): {name}");
            continue;
        }
        let known = KNOWN_INCOMPLETE.iter().find(|(n, _)| *n == name);
        match (run_spec(p), known) {
            (Outcome::Passed(notes), None) => {
                ran += 1;
                println!("passed: {name} ({notes})");
            }
            (Outcome::Incomplete(why), Some((_, reason))) => {
                println!("known incomplete: {name}: {why} [{reason}]")
            }
            (Outcome::Passed(_), Some(_)) => failures.push(format!(
                "{name}: passes now; remove it from KNOWN_INCOMPLETE"
            )),
            (Outcome::Incomplete(why), None) => failures.push(format!("{name}: incomplete: {why}")),
            (Outcome::Failed(why), _) => failures.push(format!("{name}: {why}")),
        }
    }
    println!("{ran} non-tcgen05 specs ran and matched their references");
    assert!(failures.is_empty(), "failures:\n{}", failures.join("\n"));
    assert!(ran >= 1);
}
