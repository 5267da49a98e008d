//! `st.async` / `red.async` (exec/st_async.rs).
//!
//! The H100 recording (tests/corpus/st_async_h100, written by kernels/st_async_h100/
//! harness.cu) replayed through the engine: the same PTX (nvcc's output for the harness),
//! the recorded inputs, the same launch (2 clusters of 2, 3 or 4 CTAs, 2 mbarrier phases);
//! every CTA's shared buffer after each phase and the mbarrier test_wait flags must equal
//! the H100's bit for bit. Plus the decoder's refusals and the engine's diagnostics.

use tmemu_sim::{install_globals, load, run, GlobalMemory, Launch, RunOptions};

use crate::support::{corpus_file, load_src, param_block};

struct Case {
    name: String,
    cs: u32,
    vals: Vec<u8>,
    init: Vec<u8>,
    out: Vec<u8>,
    flags: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let (_, manifest) = corpus_file("st_async_h100", "manifest.txt");
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/st_async_h100/dumps.bin");
    let dump = tmemu_testkit::recording::read(&p);
    let mut out = Vec::new();
    for line in manifest.lines().filter(|l| l.starts_with("name=")) {
        let kv: std::collections::HashMap<&str, &str> = line
            .split_whitespace()
            .filter_map(|f| f.split_once('='))
            .collect();
        let n = |k: &str| -> usize { kv[k].parse().unwrap() };
        let cs = n("cs");
        let (at, vl, il, ol) = (n("dump_at"), n("vals_len"), n("init_len"), n("out_len"));
        let fl = 2 * cs * 2 * 4;
        out.push(Case {
            name: kv["name"].to_string(),
            cs: cs as u32,
            vals: dump[at..at + vl].to_vec(),
            init: dump[at + vl..at + vl + il].to_vec(),
            out: dump[at + vl + il..at + vl + il + ol].to_vec(),
            flags: dump[at + vl + il + ol..at + vl + il + ol + fl].to_vec(),
        });
    }
    out
}

#[test]
fn st_async_and_red_async_match_the_h100_bit_for_bit() {
    let cases = cases();
    assert_eq!(cases.len(), 31, "the recording has 31 cases");
    let (path, src) = corpus_file("st_async_h100", "harness.sm_90a.ptx");
    let module = tmemu_ptx::parse(&src).expect("harness PTX parses");
    let mut failures = Vec::new();
    let mut bytes = 0usize;
    for c in &cases {
        // the recording is not degenerate: every phase of every CTA completed (flag bit 0),
        // the next phase had not (bit 1 clear), no wait timed out (bit 2 clear)
        assert!(
            c.flags.chunks(4).all(|f| f == [1, 0, 0, 0]),
            "{}: H100 flags {:?}",
            c.name,
            c.flags
        );
        let entry = format!("k_{}", c.name);
        let k = load(&module, &src, &path.display().to_string(), Some(&entry))
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let vals = g.alloc("vals", &c.vals);
        let init = g.alloc("init", &c.init);
        let out = g.alloc("out", &vec![0xeeu8; c.out.len()]);
        let flags = g.alloc("flags", &vec![0xeeu8; c.flags.len()]);
        let launch = Launch {
            grid: [2 * c.cs, 1, 1],
            block: [64, 1, 1],
            cluster: Some([c.cs, 1, 1]),
            dyn_shared: 0,
            params: param_block(&k, [vals, init, out, flags]),
        };
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        assert!(
            r.diagnostics.is_empty() && r.hangs.is_empty(),
            "{}: {:?} {:?}",
            c.name,
            r.diagnostics.first().map(|d| d.to_string()),
            r.hangs.first()
        );
        let ours = g.read_buffer(out).unwrap();
        let our_flags = g.read_buffer(flags).unwrap();
        bytes += ours.len();
        if our_flags != c.flags {
            failures.push(format!("{}: flags {our_flags:?}", c.name));
        }
        if let Some(i) = (0..ours.len()).find(|&i| ours[i] != c.out[i]) {
            let bad = (0..ours.len() / 4)
                .filter(|w| ours[w * 4..w * 4 + 4] != c.out[w * 4..w * 4 + 4])
                .count();
            failures.push(format!(
                "{}: {bad} of {} words differ, first at byte {i}: tmemu {:#x}, H100 {:#x}",
                c.name,
                ours.len() / 4,
                ours[i],
                c.out[i]
            ));
        }
    }
    println!(
        "st.async/red.async vs H100: {} cases, {bytes} bytes compared",
        cases.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn kernel(body: &str) -> String {
    format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n\
         .reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n{body}\nret;\n}}\n"
    )
}

fn load_err(body: &str) -> String {
    let src = kernel(body);
    let m = tmemu_ptx::parse(&src).expect("parse");
    match load(&m, &src, "k.ptx", None) {
        Ok(_) => panic!("`{body}` loaded"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_isa_form_loads() {
    let forms = [
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3];",
        "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%r1], {%r2, %r3, %r4, %r5}, [%r6];",
        "st.async.mbarrier::complete_tx::bytes.v2.s64 [%r1], {%rd2, %rd3}, [%r6];",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [%r1], %r2, [%r3];",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.s32 [%r1], %r2, [%r3];",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64 [%r1], %rd2, [%r3];",
        "red.async.relaxed.cluster.mbarrier::complete_tx::bytes.xor.b32 [%r1], 7, [%r3];",
    ];
    for f in forms {
        let src = kernel(f);
        let m = tmemu_ptx::parse(&src).expect("parse");
        load(&m, &src, "k.ptx", None).unwrap_or_else(|e| panic!("{f}: {e}"));
    }
}

#[test]
fn forms_ptxas_refuses_are_invalid_and_unmodelled_forms_unsupported() {
    // ptxas 13.5: "Vector type too large, exceeds 128 bit limit"
    let e = load_err(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b64 [%r1], {%rd1, %rd2, %rd3, %rd4}, [%r3];",
    );
    assert!(e.contains("128 bits"), "{e}");
    // ptxas 13.5: "Incorrect type '.u64' for operation '.min' in instruction 'red.async'"
    let e = load_err(
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.u64 [%r1], %rd1, [%r3];",
    );
    assert!(e.contains("red.async has no .min form"), "{e}");
    // the sm_100 global release form has no mbarrier: not modelled, never a plain st
    let e = load_err("st.async.release.gpu.global.b32 [%rd1], %r2;");
    assert!(e.contains("unsupported") && e.contains("st.async"), "{e}");
}

/// CTA 1 stores two words into CTA 0 and reduces into a third; CTA 0 expects `tx` bytes.
fn pair_kernel(tx: u32, store_off: u32) -> String {
    format!(
        r#".version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out)
.reqnctapercluster 2, 1, 1
{{
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    .reg .pred %p<4>;
    .shared .align 16 .b32 buf[8];
    .shared .align 8 .b64 bar;
    mov.u32 %r1, %cluster_ctarank;
    mov.u32 %r2, bar;
    mov.u32 %r3, buf;
    setp.eq.u32 %p1, %r1, 0;
    mov.u32 %r10, %tid.x;
    setp.eq.u32 %p3, %r10, 0;
    and.pred %p3, %p3, %p1;
    @%p3 mbarrier.init.shared::cta.b64 [%r2], 1;
    @%p3 st.shared.u32 [buf+8], 5;
    fence.mbarrier_init.release.cluster;
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    @%p3 mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%r2], {tx};
    @%p1 bra WAIT;
    mapa.shared::cluster.u32 %r4, %r3, 0;
    add.u32 %r4, %r4, {store_off};
    mapa.shared::cluster.u32 %r5, %r2, 0;
    st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%r4], {{11, 22}}, [%r5];
    add.u32 %r6, %r4, 8;
    red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r6], 100, [%r5];
    bra DONE;
WAIT:
    mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p2, [%r2], 0;
    @!%p2 bra WAIT;
    ld.param.u64 %rd1, [out];
    ld.shared.v2.u32 {{%r7, %r8}}, [buf];
    ld.shared.u32 %r9, [buf+8];
    st.global.v2.u32 [%rd1], {{%r7, %r8}};
    st.global.u32 [%rd1+8], %r9;
DONE:
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    ret;
}}
"#
    )
}

fn run_pair(src: &str) -> (tmemu_sim::RunResult, Vec<u8>) {
    let k = load_src(src, "pair.ptx");
    let mut g = GlobalMemory::new();
    let out = g.alloc("out", &[0u8; 12]);
    let launch = Launch {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        cluster: Some([2, 1, 1]),
        dyn_shared: 0,
        params: param_block(&k, [out]),
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    let bytes = g.read_buffer(out).unwrap();
    (r, bytes)
}

#[test]
fn complete_tx_counts_the_bytes_and_completes_the_phase() {
    // 8 bytes of st.async.v2.b32 + 4 of red.async.add.u32, per lane, 32 lanes
    let (r, out) = run_pair(&pair_kernel(32 * 12, 0));
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let w = |i: usize| u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!((w(0), w(1), w(2)), (11, 22, 5 + 32 * 100));
}

#[test]
fn an_expect_tx_larger_than_what_arrives_hangs() {
    let (r, _) = run_pair(&pair_kernel(32 * 12 + 4, 0));
    assert_eq!(r.hangs.len(), 1, "{r:?}");
    let h = r.hangs[0].to_string();
    assert!(h.contains("TM0225") || h.contains("mbarrier"), "{h}");
}

#[test]
fn a_misaligned_vector_store_is_tm0502() {
    let (r, _) = run_pair(&pair_kernel(32 * 12, 4));
    assert!(
        r.diagnostics.iter().any(|d| d.rule.id == "TM0502"),
        "{:?}",
        r.diagnostics
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    );
}
