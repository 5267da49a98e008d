//! The H100 differential test through the engine, without a GPU: every case recorded on a real
//! H100 (tests/corpus/diff/h100, made by kernels/diff/harness.cu) is loaded from the committed
//! PTX (tests/corpus/diff/{cases,harness}.sm_90a.ptx), run by `tmemu_sim::run` on the recorded
//! inputs and compared with the recorded GPU outputs: bit for bit, except the approximate
//! instructions, which must stay within the bounds of crates/num/tests/ops_vs_h100.rs, and the
//! documented places where the H100 departs from the PTX ISA (same list as that test).
//!
//! A case the engine refuses at load is listed with its form and counted; the count may not
//! exceed [`MAX_NOT_RUNNABLE`] (lower it when the engine learns a form).

use std::collections::BTreeMap;
use std::path::PathBuf;

use tmemu_sim::{install_globals, load, run, GlobalMemory, Kernel, Launch, LoadError, RunOptions};

/// Recorded cases the engine does not load today. A regression raises the count and fails;
/// an improvement should lower this number.
const MAX_NOT_RUNNABLE: usize = 14;

const BLOCK: u32 = 128;

struct Case {
    /// Position in the manifest (the K of `diff_case<K>` for arithmetic cases).
    index: usize,
    kernel: String,
    name: String,
    class: String,
    width: usize,
    out: Vec<u64>,
}

struct Recording {
    n: usize,
    /// Per class: the raw little-endian input bytes (4 columns of `n` u64) and the words.
    classes: BTreeMap<String, (Vec<u8>, Vec<u64>)>,
    cases: Vec<Case>,
}

fn words(bytes: &[u8], w: usize) -> Vec<u64> {
    bytes
        .chunks_exact(w)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/diff")
}

fn load_recording() -> Recording {
    let dir = corpus().join("h100");
    let man: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    let inputs = std::fs::read(dir.join("inputs.bin")).unwrap();
    let outputs = std::fs::read(dir.join("outputs.bin")).unwrap();
    let n = man["n"].as_u64().unwrap() as usize;
    let classes = man["classes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let off = c["offset"].as_u64().unwrap() as usize;
            let bytes = inputs[off..off + 32 * n].to_vec();
            let w = words(&bytes, 8);
            (c["name"].as_str().unwrap().to_string(), (bytes, w))
        })
        .collect();
    let cases = man["cases"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(index, c)| {
            let off = c["offset"].as_u64().unwrap() as usize;
            let width = c["width"].as_u64().unwrap() as usize;
            Case {
                index,
                kernel: c["kernel"].as_str().unwrap().to_string(),
                name: c["name"].as_str().unwrap().to_string(),
                class: c["class"].as_str().unwrap().to_string(),
                width,
                out: words(&outputs[off..off + width * n], width),
            }
        })
        .collect();
    Recording { n, classes, cases }
}

/// How a result is compared with the GPU's. The bounds are those of
/// crates/num/tests/ops_vs_h100.rs (the documented error bounds of the `.approx` forms); they
/// must stay equal to them.
#[derive(Copy, Clone, Debug)]
enum Check {
    Exact,
    /// f32 within this many ulp (NaN matches NaN).
    Ulp32(u32),
    /// Each f16/bf16 half within this many ulp.
    Ulp16x2(u32),
    /// f32 within this absolute error, for inputs with |x| <= the given bound.
    Abs32(f64, f32),
    /// f32 within this many ulp or this absolute error.
    UlpOrAbs32(u32, f64),
    /// f64 within this relative error.
    Rel64(f64),
}

fn check_of(name: &str) -> Check {
    use Check::*;
    match name {
        "div.approx.f32" | "div.approx.ftz.f32" | "div.full.f32" | "div.full.ftz.f32" => Ulp32(2),
        "rcp.approx.f32" | "rcp.approx.ftz.f32" => Ulp32(1),
        "sqrt.approx.f32" | "sqrt.approx.ftz.f32" => Ulp32(1),
        "rsqrt.approx.f32" | "rsqrt.approx.ftz.f32" => Ulp32(1),
        "ex2.approx.f32" | "ex2.approx.ftz.f32" => Ulp32(2),
        "lg2.approx.f32" | "lg2.approx.ftz.f32" => UlpOrAbs32(2, 4.0e-7),
        "sin.approx.f32" | "cos.approx.f32" | "sin.approx.ftz.f32" => Abs32(1e-5, 100.0),
        "tanh.approx.f32" => Ulp32(128),
        "rcp.approx.ftz.f64" => Rel64(1e-6),
        "rsqrt.approx.f64" => Rel64(4e-16),
        "ex2.approx.f16x2"
        | "tanh.approx.f16x2"
        | "ex2.approx.ftz.bf16x2"
        | "tanh.approx.bf16x2" => Ulp16x2(1),
        _ => Exact,
    }
}

fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

fn ulp32(x: u32, y: u32) -> u32 {
    let (nx, ny) = (is_nan32(x), is_nan32(y));
    if nx || ny {
        return if nx && ny { 0 } else { u32::MAX };
    }
    let key = |v: u32| {
        if v & 0x8000_0000 != 0 {
            -((v & 0x7fff_ffff) as i64)
        } else {
            v as i64
        }
    };
    (key(x) - key(y)).unsigned_abs().min(u32::MAX as u64) as u32
}

fn ulp16(bf16: bool, x: u16, y: u16) -> u32 {
    let exp_mask: u16 = if bf16 { 0x7f80 } else { 0x7c00 };
    let is_nan = |v: u16| v & 0x7fff > exp_mask;
    let (nx, ny) = (is_nan(x), is_nan(y));
    if nx || ny {
        return if nx && ny { 0 } else { u32::MAX };
    }
    let key = |v: u16| {
        if v & 0x8000 != 0 {
            -((v & 0x7fff) as i64)
        } else {
            v as i64
        }
    };
    (key(x) - key(y)).unsigned_abs() as u32
}

/// Whether `ours` is acceptable against `gpu` under `check` (`input`: operand a).
fn within(check: Check, class: &str, input: u64, ours: u64, gpu: u64) -> bool {
    if ours == gpu {
        return true;
    }
    match check {
        Check::Exact => false,
        Check::Ulp32(u) => ulp32(ours as u32, gpu as u32) <= u,
        Check::UlpOrAbs32(u, e) => {
            let abs =
                (f32::from_bits(ours as u32) as f64 - f32::from_bits(gpu as u32) as f64).abs();
            ulp32(ours as u32, gpu as u32) <= u || abs <= e
        }
        Check::Ulp16x2(u) => {
            let bf = class == "bf16x2";
            ulp16(bf, ours as u16, gpu as u16) <= u
                && ulp16(bf, (ours >> 16) as u16, (gpu >> 16) as u16) <= u
        }
        Check::Abs32(e, dom) => {
            let x = f32::from_bits(input as u32);
            if x.is_nan() || x.abs() > dom {
                return true; // outside the bound's documented domain
            }
            let (o, g) = (f32::from_bits(ours as u32), f32::from_bits(gpu as u32));
            if o.is_nan() || g.is_nan() || o.is_infinite() || g.is_infinite() {
                o.is_nan() && g.is_nan()
            } else {
                (o as f64 - g as f64).abs() <= e
            }
        }
        Check::Rel64(e) => {
            let (o, g) = (f64::from_bits(ours), f64::from_bits(gpu));
            (o.is_nan() && g.is_nan()) || ((o - g) / g).abs() <= e
        }
    }
}

/// The documented places where the H100 departs from the PTX ISA (the list of
/// crates/num/tests/ops_vs_h100.rs, docs/arch/num.md); the engine follows the ISA there.
fn isa_deviation(name: &str, v: &[u64; 4], ours: u64, gpu: u64) -> bool {
    let (b, c) = (v[1] as u32, v[2] as u32);
    match name {
        "fns.b32" => c == 0x8000_0000 && ours == 0xffff_ffff && gpu == 0,
        "bfe.u64" | "bfe.s64" | "bfi.b64" => b > 255 || c > 255,
        "set.hi.f32.u32" | "set.gtu.f32.f32" => ours == 0x3f80_0000 && gpu == 1,
        _ => false,
    }
}

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
    let mut params = vec![0u8; k.param_bytes as usize];
    for (p, v) in k.params.iter().zip(vals) {
        params[p.offset as usize..(p.offset + p.size) as usize]
            .copy_from_slice(&v.to_le_bytes()[..p.size as usize]);
    }
    let launch = Launch {
        grid: [n as u32 / BLOCK, 1, 1],
        block: [BLOCK, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params,
    };
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

fn compare(rec: &Recording, case: &Case, ours: &[u64], deviations_ok: bool) -> Outcome {
    let n = rec.n;
    let cols = &rec.classes[&case.class].1;
    let check = check_of(&case.name);
    let mut bad = Vec::new();
    for i in 0..n {
        let v = [cols[i], cols[n + i], cols[2 * n + i], cols[3 * n + i]];
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
    let rec = load_recording();
    let n = rec.n;
    let read = |f: &str| std::fs::read_to_string(corpus().join(f)).unwrap();
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
        let input = &rec.classes[&case.class].0;
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
         {matched} matched, {} differ, {n_not_runnable} not runnable (limit {MAX_NOT_RUNNABLE})",
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
        n_not_runnable <= MAX_NOT_RUNNABLE,
        "{n_not_runnable} cases not runnable, more than the committed {MAX_NOT_RUNNABLE}"
    );
}
