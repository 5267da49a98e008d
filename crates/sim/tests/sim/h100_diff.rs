//! The H100 differential test through the engine, without a GPU: every case recorded on a real
//! H100 (tests/corpus/diff/h100, made by kernels/diff/harness.cu) is loaded from the committed
//! PTX (tests/corpus/diff/{cases,harness}.sm_90a.ptx), run by `tmemu_sim::run` on the recorded
//! inputs and compared with the recorded GPU outputs: bit for bit, except the approximate
//! instructions, which must stay within their documented bounds, and the documented places
//! where the H100 departs from the PTX ISA (both in `tmemu_testkit::h100`, shared with
//! crates/num/tests/num/ops_vs_h100.rs).
//!
//! A case the engine refuses at load is listed with its form and fails the test: since
//! session 7 the engine runs every recorded case (it was 14 refused forms before).

use std::collections::BTreeMap;

use tmemu_sim::{install_globals, load, run, GlobalMemory, Kernel, LoadError, RunOptions};
use tmemu_testkit::h100::{check_of, corpus_dir, isa_deviation, within, words, Case, Recording};

use crate::support::{param_block, plain_launch};

const BLOCK: u32 = 128;

/// What one case came to.
enum Outcome {
    Matched,
    NotRunnable(String),
    Failed(String),
}

/// Runs `kernel` with the parameters (mode?, in, out, n) and returns the out words.
fn launch_case(
    k: &Kernel,
    n: usize,
    mode: Option<u32>,
    input: &[u8],
    width: usize,
) -> Result<Vec<u64>, String> {
    let mut g = GlobalMemory::new();
    install_globals(k, &mut g).map_err(|e| e.to_string())?;
    let inp = g.alloc("in", input);
    let out = g.alloc("out", &vec![0u8; 8 * n]);
    let mut vals: Vec<u64> = mode.map(u64::from).into_iter().collect();
    vals.extend([inp, out, n as u64]);
    if vals.len() != k.params.len() {
        return Err(format!(
            "kernel has {} parameters, expected {}",
            k.params.len(),
            vals.len()
        ));
    }
    let launch = plain_launch(
        [n as u32 / BLOCK, 1, 1],
        [BLOCK, 1, 1],
        param_block(k, vals),
    );
    let r = run(k, &launch, &g, &RunOptions::default()).map_err(|e| format!("launch: {e}"))?;
    if let Some(d) = r.diagnostics.first() {
        return Err(format!(
            "engine reported {} diagnostics, first: {d} at {}",
            r.diagnostics.len(),
            d.span
        ));
    }
    if !r.hangs.is_empty() || !r.budget_exhausted.is_empty() || r.trapped {
        return Err("hang, step budget or trap".into());
    }
    let bytes = g.read_buffer(out).ok_or("output buffer lost")?;
    Ok(words(&bytes[..width * n], width))
}

#[allow(clippy::needless_range_loop)] // `i` indexes the recording's operands too
fn compare(rec: &Recording, case: &Case, ours: &[u64], deviations_ok: bool) -> Outcome {
    let n = rec.n;
    let cols = &rec.classes[&case.class].words;
    let check = check_of(&case.name);
    let mut bad = Vec::new();
    for i in 0..n {
        let v = rec.operands(&case.class, i);
        let (o, g) = (ours[i], case.out[i]);
        if deviations_ok && isa_deviation(&case.name, &v, o, g) {
            continue;
        }
        if !within(check, &case.class, v[0], o, g) {
            bad.push(i);
        }
    }
    match bad.first() {
        None => Outcome::Matched,
        Some(&i) => Outcome::Failed(format!(
            "{} [{}] ({:?}): {} of {n} differ, first thread {i} (a={:#x} b={:#x} c={:#x}): \
             tmemu {:#x}, H100 {:#x}",
            case.name,
            case.class,
            check,
            bad.len(),
            cols[i],
            cols[n + i],
            cols[2 * n + i],
            ours[i],
            case.out[i]
        )),
    }
}

fn unsupported(e: LoadError) -> String {
    match e {
        LoadError::Unsupported { form, .. } => form,
        LoadError::Invalid { message, span } => format!("invalid PTX at {span}: {message}"),
    }
}

#[test]
fn engine_matches_h100_recording() {
    let rec = Recording::load();
    let n = rec.n;
    // large PTX is committed as NAME.xz
    let read =
        |f: &str| String::from_utf8(tmemu_testkit::recording::read(&corpus_dir().join(f))).unwrap();
    let cases_src = read("cases.sm_90a.ptx");
    let cases_mod = tmemu_ptx::parse(&cases_src).expect("cases.sm_90a.ptx parses");
    let harness_src = read("harness.sm_90a.ptx");
    let harness_mod = tmemu_ptx::parse(&harness_src).expect("harness.sm_90a.ptx parses");

    let mut matched = 0usize;
    let mut failed = Vec::new();
    let mut not_runnable: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut n_not_runnable = 0usize;
    // The harness kernels take a mode argument; the manifest lists their cases in mode order.
    let mut modes: BTreeMap<&str, u32> = BTreeMap::new();
    let mut harness_cases = 0usize;

    for case in &rec.cases {
        let input = &rec.classes[&case.class].bytes;
        let (module, src, file, entry, mode) = match case.kernel.as_str() {
            "diff_arith" => (
                &cases_mod,
                &cases_src,
                "cases.sm_90a.ptx",
                format!("_Z9diff_caseILi{}EEvPKmPvi", case.index),
                None,
            ),
            k @ ("diff_shfl" | "diff_atom" | "diff_bulk") => {
                harness_cases += 1;
                let mangled = match k {
                    "diff_shfl" => "_Z9diff_shfliPKmPmi",
                    "diff_atom" => "_Z9diff_atomiPKmPji",
                    _ => "_Z9diff_bulkPKmPmi",
                };
                let mode = if k == "diff_bulk" {
                    None
                } else {
                    let m = modes.entry(k).or_insert(0);
                    *m += 1;
                    Some(*m - 1)
                };
                (
                    &harness_mod,
                    &harness_src,
                    "harness.sm_90a.ptx",
                    mangled.to_string(),
                    mode,
                )
            }
            other => panic!("manifest names an unknown kernel {other}"),
        };
        let outcome = match load(module, src, file, Some(&entry)) {
            Err(e) => Outcome::NotRunnable(unsupported(e)),
            Ok(k) => match launch_case(&k, n, mode, input, case.width) {
                Err(e) => Outcome::Failed(format!("{}: {e}", case.name)),
                Ok(ours) => compare(&rec, case, &ours, case.kernel == "diff_arith"),
            },
        };
        match outcome {
            Outcome::Matched => matched += 1,
            Outcome::Failed(m) => failed.push(m),
            Outcome::NotRunnable(form) => {
                n_not_runnable += 1;
                not_runnable
                    .entry(form)
                    .or_default()
                    .push(case.name.clone());
            }
        }
    }

    let ran = rec.cases.len() - n_not_runnable;
    println!(
        "H100 differential through the engine: {} recorded cases ({} harness), {ran} ran, \
         {matched} matched, {} differ, {n_not_runnable} not runnable",
        rec.cases.len(),
        harness_cases,
        failed.len()
    );
    for (form, names) in &not_runnable {
        println!(
            "  not runnable ({}): {form}: {}",
            names.len(),
            names.join(", ")
        );
    }
    for f in &failed {
        println!("  DIFF {f}");
    }
    assert!(
        rec.cases.len() > 440,
        "the recording has {} cases",
        rec.cases.len()
    );
    assert!(
        failed.is_empty(),
        "{} cases differ from the H100:\n{}",
        failed.len(),
        failed.join("\n")
    );
    assert!(
        n_not_runnable == 0,
        "{n_not_runnable} recorded cases not runnable (every case ran before)"
    );
}
