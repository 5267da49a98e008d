//! `wmma` (exec/wmma.rs) against the H100 recording of tests/corpus/wmma_h100 (written by
//! kernels/wmma_h100/harness.cu; the same PTX runs here):
//! - fragment dumps: each fragment loaded from a matrix whose element i holds i, every lane's
//!   elements written out: the engine's fragment layout must be the H100's, bit for bit;
//! - mma: per form (shape × types × A/B layouts, C and D row- or column-major, strides larger
//!   than the tile; f16 inputs also with C and D of different types) 4 trials of D = A·B + C, stored; D must equal the H100's bit for bit,
//!   including the elements outside the tile that the store must leave alone.

use std::collections::HashMap;

use tmemu_sim::{install_globals, load, run, GlobalMemory, RunOptions};

use crate::support::{corpus_file, param_block, plain_launch};

fn manifest(prefix: &str) -> Vec<HashMap<String, String>> {
    let (_, m) = corpus_file("wmma_h100", "manifest.txt");
    m.lines()
        .filter(|l| l.starts_with(prefix))
        .map(|l| {
            l.split_whitespace()
                .filter_map(|f| f.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

fn dump() -> Vec<u8> {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/wmma_h100/dumps.bin");
    tmemu_testkit::recording::read(&p)
}

/// The harness's PTX (committed as harness.sm_90a.ptx.xz: over 200 KB) and its path.
fn harness_ptx() -> (std::path::PathBuf, String) {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/wmma_h100/harness.sm_90a.ptx");
    let s = String::from_utf8(tmemu_testkit::recording::read(&p)).expect("PTX is UTF-8");
    (p, s)
}

fn num(kv: &HashMap<String, String>, k: &str) -> usize {
    kv[k].parse().unwrap()
}

#[test]
fn wmma_fragment_layouts_are_the_h100s() {
    let frags = manifest("frag=");
    assert_eq!(frags.len(), 29, "the recording has 29 fragment dumps");
    let dump = dump();
    let (path, src) = harness_ptx();
    let module = tmemu_ptx::parse(&src).expect("harness PTX parses");
    let mut failures = Vec::new();
    for f in &frags {
        let name = &f["frag"];
        let k = load(
            &module,
            &src,
            &path.display().to_string(),
            Some(&format!("k_frag_{name}")),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (count, es, ld, ne) = (
            num(f, "count"),
            num(f, "esize"),
            num(f, "ld"),
            num(f, "nelem"),
        );
        // element i holds the value i, in the fragment's storage type
        let mut bytes = Vec::with_capacity(count * es);
        for i in 0..count {
            let v = i as f32;
            match f["type"].as_str() {
                "f16" => bytes.extend(half::f16::from_f32(v).to_bits().to_le_bytes()),
                "bf16" => bytes.extend(half::bf16::from_f32(v).to_bits().to_le_bytes()),
                _ => bytes.extend(v.to_bits().to_le_bytes()),
            }
        }
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let srcb = g.alloc("src", &bytes);
        let out = g.alloc("out", &[0u8; (32 * 16 + 1) * 4]);
        let launch = plain_launch(
            [1, 1, 1],
            [32, 1, 1],
            param_block(&k, [srcb, ld as u64, out]),
        );
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        assert!(
            r.diagnostics.is_empty(),
            "{name}: {:?}",
            r.diagnostics.first()
        );
        let ours = g.read_buffer(out).unwrap();
        let at = num(f, "dump_at");
        let theirs = &dump[at..at + 32 * ne * 4];
        if &ours[..32 * ne * 4] != theirs {
            let w =
                |b: &[u8], i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
            let i = (0..32 * ne).find(|&i| w(&ours, i) != w(theirs, i)).unwrap();
            failures.push(format!(
                "{name}: lane {} element {}: tmemu {:#x}, H100 {:#x}",
                i / ne,
                i % ne,
                w(&ours, i),
                w(theirs, i)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn wmma_mma_matches_the_h100_bit_for_bit() {
    const AB: usize = 768;
    const CD: usize = 640;
    let mmas = manifest("mma=");
    assert_eq!(
        mmas.len(),
        64,
        "the recording has 64 mma forms (24 with C and D of different types)"
    );
    let dump = dump();
    let (path, src) = harness_ptx();
    let module = tmemu_ptx::parse(&src).expect("harness PTX parses");
    let mut failures = Vec::new();
    let mut compared = 0usize;
    for f in &mmas {
        let name = &f["mma"];
        let k = load(
            &module,
            &src,
            &path.display().to_string(),
            Some(&format!("k_mma_{name}")),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let trials = num(f, "trials");
        let es = if f["ab"] == "tf32" { 4 } else { 2 };
        // C's type is `cd`; D's is `dt` (the mixed forms) or `cd`
        let cs = if f["cd"] == "f32" { 4 } else { 2 };
        let ds = if f.get("dt").unwrap_or(&f["cd"]) == "f32" {
            4
        } else {
            2
        };
        let (la, lc, ld) = (trials * AB * es, trials * CD * cs, trials * CD * ds);
        let at = num(f, "dump_at");
        let (a, b) = (&dump[at..at + la], &dump[at + la..at + 2 * la]);
        let c = &dump[at + 2 * la..at + 2 * la + lc];
        let theirs = &dump[at + 2 * la + lc..at + 2 * la + lc + ld];
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let (ga, gb, gc) = (g.alloc("a", a), g.alloc("b", b), g.alloc("c", c));
        let gd = g.alloc("d", &vec![0xeeu8; ld]);
        let params = [
            ga,
            gb,
            gc,
            gd,
            num(f, "lda") as u64,
            num(f, "ldb") as u64,
            num(f, "ldc") as u64,
            num(f, "ldd") as u64,
            num(f, "c_col") as u64,
            num(f, "d_col") as u64,
        ];
        let launch = plain_launch([trials as u32, 1, 1], [32, 1, 1], param_block(&k, params));
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        assert!(
            r.diagnostics.is_empty(),
            "{name}: {:?}",
            r.diagnostics.first()
        );
        let ours = g.read_buffer(gd).unwrap();
        compared += ld / ds;
        let bad: Vec<usize> = (0..ld / ds)
            .filter(|&i| ours[i * ds..(i + 1) * ds] != theirs[i * ds..(i + 1) * ds])
            .collect();
        if let Some(&i) = bad.first() {
            let word = |x: &[u8]| {
                let mut v = [0u8; 4];
                v[..ds].copy_from_slice(&x[i * ds..(i + 1) * ds]);
                u32::from_le_bytes(v)
            };
            failures.push(format!(
                "{name}: {} of {} D elements differ; first: trial {} element {}: tmemu {:#x}, H100 {:#x}",
                bad.len(),
                ld / ds,
                i / CD,
                i % CD,
                word(&ours),
                word(theirs)
            ));
        }
    }
    println!(
        "wmma vs H100: {} forms, {compared} D-buffer elements compared",
        mmas.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The rule corpus's wmma program (tests/corpus/rules/legal-wmma-shared-tile: fragments
/// through shared memory, a default and an explicit stride): a 16×16 tile of ones times
/// itself is 16 in every element of D, which each thread reads back.
#[test]
fn a_shared_tile_of_ones_squared_is_sixteen() {
    let k = crate::support::load_corpus("rules/legal-wmma-shared-tile", "keep.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 128]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics.first());
    let words = crate::support::u32_words(&g.read_buffer(out).unwrap());
    assert_eq!(words, vec![16.0f32.to_bits(); 32]);
}
