//! `mma.sync.aligned` through the engine against an H100 (tests/corpus/mma_sync_h100, made by
//! kernels/mma_sync_h100/gen.py and run_on_device.sh): each form's kernel (the nvcc PTX of the
//! recording harness) runs in tmemu on the recorded register words, and every D word must equal
//! the H100's bit for bit. The inputs are raw register words (random values, wide exponent
//! ranges, random bit patterns, alignment/cancellation probes, small integers, sprinkled
//! specials), so this checks the fragment layouts and the accumulation model together.

use tmemu_sim::{install_globals, load, run, GlobalMemory, RunOptions};

use crate::support::{corpus_file, param_block, plain_launch};

struct Form {
    name: String,
    width: usize,
    in_at: usize,
    in_len: usize,
    out_at: usize,
    out_len: usize,
}

fn manifest() -> (usize, Vec<Form>) {
    let (_, text) = corpus_file("mma_sync_h100", "manifest.txt");
    let mut trials = 0;
    let mut forms = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# trials=") {
            trials = rest.split(';').next().unwrap().trim().parse().unwrap();
            continue;
        }
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let get = |k: &str| {
            line.split_whitespace()
                .find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
                .unwrap_or_else(|| panic!("manifest line lacks {k}: {line}"))
        };
        let num = |k: &str| get(k).parse::<usize>().unwrap();
        forms.push(Form {
            name: get("name").to_string(),
            width: num("width"),
            in_at: num("in_at"),
            in_len: num("in_len"),
            out_at: num("out_at"),
            out_len: num("out_len"),
        });
    }
    assert!(trials > 0 && !forms.is_empty(), "manifest unreadable");
    (trials, forms)
}

fn bytes(name: &str) -> Vec<u8> {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/mma_sync_h100")
        .join(name);
    tmemu_testkit::recording::read(&p)
}

#[test]
fn engine_matches_h100_mma_sync_recording() {
    let (trials, forms) = manifest();
    let inputs = bytes("inputs.bin");
    let outputs = bytes("outputs.bin");
    let (path, src) = corpus_file("mma_sync_h100", "harness.sm_90a.ptx");
    let module = tmemu_ptx::parse(&src).expect("harness PTX parses");
    // the recording is not degenerate: most D words are nonzero
    let nonzero = outputs
        .chunks(4)
        .filter(|c| c.iter().any(|&b| b != 0))
        .count();
    assert!(nonzero * 4 > outputs.len() / 4 * 3, "recording mostly zero");
    let mut failures = Vec::new();
    let mut words_checked = 0usize;
    for f in &forms {
        let entry = format!("k_{}", f.name);
        let k = match load(&module, &src, &path.display().to_string(), Some(&entry)) {
            Ok(k) => k,
            Err(e) => {
                failures.push(format!("{}: does not load: {e}", f.name));
                continue;
            }
        };
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let inp = g.alloc("in", &inputs[f.in_at..f.in_at + f.in_len]);
        let out = g.alloc("out", &vec![0u8; f.out_len]);
        let launch = plain_launch(
            [trials as u32, 1, 1],
            [32, 1, 1],
            param_block(&k, [inp, out]),
        );
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        assert!(
            r.diagnostics.is_empty(),
            "{}: diagnostics {:?}",
            f.name,
            r.diagnostics.first().map(|d| d.to_string())
        );
        let ours = g.read_buffer(out).unwrap();
        let theirs = &outputs[f.out_at..f.out_at + f.out_len];
        let w = f.width / 8;
        let per_trial = f.out_len / trials;
        let mut bad = 0;
        let mut first = None;
        for (i, (a, b)) in ours.chunks(w).zip(theirs.chunks(w)).enumerate() {
            words_checked += 1;
            if a != b {
                bad += 1;
                if first.is_none() {
                    let word = |x: &[u8]| {
                        let mut v = [0u8; 8];
                        v[..w].copy_from_slice(x);
                        u64::from_le_bytes(v)
                    };
                    let trial = i * w / per_trial;
                    let reg = (i * w % per_trial) / (32 * w);
                    first = Some(format!(
                        "trial {trial} (kind {}) D register {reg} lane {}: tmemu {:#x}, H100 {:#x}",
                        trial % 7,
                        i % 32,
                        word(a),
                        word(b)
                    ));
                }
            }
        }
        if bad > 0 {
            failures.push(format!(
                "{}: {bad} of {} words differ; first: {}",
                f.name,
                ours.len() / w,
                first.unwrap()
            ));
        }
    }
    println!(
        "mma.sync vs H100: {} forms, {words_checked} D words compared, {} forms differ",
        forms.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
