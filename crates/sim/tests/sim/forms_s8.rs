//! Forms left `incomplete` before session 8 (docs/arch/forms.md "Session 8"), run through the
//! engine with values the PTX ISA (or the C semantics of the compiled source) fixes, computed
//! here on the host: `alloca`, `stacksave`, `stackrestore` (PTX ISA §9.7.17), on nvcc 13.5's
//! own output (tests/corpus/forms_s8/alloca.cu) and on hand-written PTX for the forms nvcc
//! does not emit.

use tmemu_sim::{install_globals, load, run, GlobalMemory, LoadError, RunOptions};

use super::support::{corpus_file, load_src, param_block, plain_launch, u32_words};

/// Runs kernel `entry` of tests/corpus/forms_s8/alloca.ptx as `entry(in, out, n)` with
/// `threads` threads in each of `ctas` CTAs; returns `out` and the diagnostics' rule IDs.
fn run_nvcc(
    entry: &str,
    input: &[i32],
    out_words: usize,
    n: u32,
    threads: u32,
    ctas: u32,
) -> (Vec<i32>, Vec<String>) {
    let (path, src) = corpus_file("forms_s8", "alloca.ptx");
    let m = tmemu_ptx::parse(&src).expect("parse");
    let k = load(&m, &src, &path.display().to_string(), Some(entry)).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let bytes: Vec<u8> = input.iter().flat_map(|v| v.to_le_bytes()).collect();
    let a = g.alloc("in", &bytes);
    let out = g.alloc("out", &vec![0u8; 4 * out_words]);
    let launch = plain_launch(
        [ctas, 1, 1],
        [threads, 1, 1],
        param_block(&k, [a, out, n as u64]),
    );
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    let rules = r
        .diagnostics
        .iter()
        .map(|d| d.rule.id.to_string())
        .collect();
    let words = u32_words(&g.read_buffer(out).unwrap());
    (words.into_iter().map(|w| w as i32).collect(), rules)
}

/// Deterministic inputs with both signs and large magnitudes, so wrapping arithmetic shows.
fn inputs(len: usize) -> Vec<i32> {
    let mut x = 0x9e37_79b9u32;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as i32
        })
        .collect()
}

#[test]
fn nvcc_alloca_array_folded_back_to_front() {
    // n = 37 runs every path of nvcc's unrolled loops (16-, 8-, 4-wide and the remainder);
    // 64 threads: two warps, each lane with its own stack
    let (n, threads) = (37usize, 64usize);
    let input = inputs(n * threads);
    let (out, rules) = run_nvcc("rev_poly", &input, threads, n as u32, threads as u32, 1);
    assert!(rules.is_empty(), "{rules:?}");
    for t in 0..threads {
        let want = (0..n).rev().fold(0i32, |s, i| {
            s.wrapping_mul(7)
                .wrapping_add(input[t * n + i].wrapping_mul(3))
        });
        assert_eq!(out[t], want, "thread {t}");
    }
}

#[test]
fn nvcc_alloca_in_a_loop_keeps_every_allocation() {
    // 40 allocations of 1..40 ints, none freed before the kernel returns: 820 ints (3.2 KiB
    // plus alignment) per thread, past any initial local slot; two CTAs of 33 threads (a
    // partial warp) so that a warp reused for the second CTA starts from an empty stack
    let n = 40usize;
    let input = inputs(n);
    let (out, rules) = run_nvcc("grow", &input, 33, n as u32, 33, 2);
    assert!(rules.is_empty(), "{rules:?}");
    let want = (1..=n as i32).fold(0i32, |s, k| {
        s.wrapping_add(input[0].wrapping_add(k))
            .wrapping_add(input[k as usize - 1].wrapping_add(k))
    });
    assert!(out.iter().all(|&v| v == want), "{out:?} want {want}");
}

#[test]
fn nvcc_alloca_in_a_callee_is_freed_at_its_return() {
    // sum_sq allocates n ints per call; its return frees them, so the second call's pointer
    // (stored through a generic cvta.local address into the caller's depot) equals the first
    let (n, threads) = (21usize, 32usize);
    let input = inputs(n + threads);
    let (out, rules) = run_nvcc("callee", &input, 2 * threads, n as u32, threads as u32, 1);
    assert!(rules.is_empty(), "{rules:?}");
    for t in 0..threads {
        let sq = |from: usize| {
            (0..n).fold(0i32, |s, i| {
                s.wrapping_add(input[from + i].wrapping_mul(input[from + i]))
            })
        };
        assert_eq!(out[2 * t], sq(t).wrapping_add(sq(t + 1)), "thread {t}");
        assert_eq!(
            out[2 * t + 1],
            0,
            "thread {t}: the two calls' stack pointers differ"
        );
    }
}

/// A kernel `k(out)` whose thread t stores `%r10..%r13` at out[4t..4t+4] after `body`.
/// `%r1` = %tid.x; a 12-byte static `.local` array sits below the dynamic stack.
fn kernel(body: &str) -> String {
    format!(
        r#"
.version 9.0
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<8>;
    .reg .b32 %r<64>;
    .reg .b64 %rd<32>;
    .local .align 4 .b8 fixed[12];

    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r10, 0;
    mov.u32 %r11, 0;
    mov.u32 %r12, 0;
    mov.u32 %r13, 0;
{body}
    mul.wide.u32 %rd2, %r1, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {{%r10, %r11, %r12, %r13}};
    ret;
}}
"#
    )
}

fn run_body(body: &str, threads: u32) -> (Vec<[u32; 4]>, Vec<String>) {
    let src = kernel(body);
    let k = load_src(&src, "forms_s8.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &vec![0u8; 16 * threads as usize]);
    let launch = plain_launch([1, 1, 1], [threads, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    let rules = r
        .diagnostics
        .iter()
        .map(|d| d.rule.id.to_string())
        .collect();
    let words = u32_words(&g.read_buffer(out).unwrap());
    (
        words.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
        rules,
    )
}

fn load_err(body: &str) -> LoadError {
    let src = kernel(body);
    let m = tmemu_ptx::parse(&src).expect("parse");
    match load(&m, &src, "forms_s8.ptx", None) {
        Ok(_) => panic!("loaded: {body}"),
        Err(e) => e,
    }
}

#[test]
fn alloca_alignment_and_stacksave_stackrestore() {
    // stacksave s; alloca 3 (default alignment 8); alloca 8 with immAlign 64; stackrestore s;
    // alloca 8 again returns s rounded up to 8 (the first pointer), and the static array below
    // the stack stays usable
    let body = "    stacksave.u64 %rd10;
    alloca.u64 %rd11, 3;
    alloca.u64 %rd12, 8, 64;
    mov.u64 %rd13, 0x5555;
    st.local.u64 [%rd12], %rd13;
    ld.local.u64 %rd14, [%rd12];
    stackrestore.u64 %rd10;
    alloca.u32 %r20, %r1, 4;
    cvt.u64.u32 %rd15, %r20;
    st.local.u32 [fixed+8], %r1;
    ld.local.u32 %r21, [fixed+8];
    sub.s64 %rd20, %rd11, %rd10;
    cvt.u32.u64 %r10, %rd20;
    sub.s64 %rd21, %rd12, %rd11;
    cvt.u32.u64 %r11, %rd21;
    and.b64 %rd22, %rd12, 63;
    cvt.u32.u64 %r12, %rd22;
    sub.s64 %rd23, %rd15, %rd11;
    cvt.u32.u64 %r13, %rd23;
    setp.ne.u64 %p1, %rd14, 0x5555;
    setp.ne.u32 %p2, %r21, %r1;
    or.pred %p1, %p1, %p2;
    @%p1 mov.u32 %r13, 0xbad;";
    let (w, rules) = run_body(body, 40);
    assert!(rules.is_empty(), "{rules:?}");
    for (t, v) in w.iter().enumerate() {
        // s is 12 (the static array), so the first pointer is 16; the second is 64-aligned
        // and at least 3 bytes above it; after the restore the next one is s rounded to 8
        // (immAlign 4 is raised to the minimum 8)
        assert_eq!(v[0], 4, "thread {t}: first pointer - saved sp");
        assert_eq!(v[2], 0, "thread {t}: immAlign 64");
        assert_eq!(v[1], 64 - 16, "thread {t}: second pointer - first");
        assert_eq!(v[3], 0, "thread {t}: pointer after stackrestore");
    }
}

#[test]
fn freed_and_unallocated_stack_is_out_of_bounds() {
    // a load through a pointer freed by stackrestore is TM0501 (undefined in the ISA)
    let freed = "    stacksave.u64 %rd10;
    alloca.u64 %rd11, 16, 16;
    st.local.u32 [%rd11], %r1;
    stackrestore.u64 %rd10;
    ld.local.u32 %r10, [%rd11];";
    let (_, rules) = run_body(freed, 32);
    assert_eq!(rules, ["TM0501"], "{rules:?}");
    // past the end of an allocation
    let past = "    alloca.u64 %rd11, 16, 16;
    st.local.u32 [%rd11+16], %r1;";
    let (_, rules) = run_body(past, 32);
    assert_eq!(rules, ["TM0501"], "{rules:?}");
    // the last word of the allocation is fine
    let (_, rules) = run_body(
        "    alloca.u64 %rd11, 16, 16;\n    st.local.u32 [%rd11+12], %r1;",
        32,
    );
    assert!(rules.is_empty(), "{rules:?}");
}

#[test]
fn an_allocation_beyond_local_memory_faults_on_access_only() {
    // 600 KiB exceed the 512 KiB a thread's local memory can hold: alloca returns its pointer
    // (ISA: "may result in stack overflow"), the start is reachable, the end is TM0501
    let body = "    alloca.u64 %rd11, 614400, 16;
    st.local.u32 [%rd11], %r1;
    ld.local.u32 %r10, [%rd11];
    add.s64 %rd12, %rd11, 614396;
    st.local.u32 [%rd12], %r1;";
    let (w, rules) = run_body(body, 32);
    assert_eq!(rules, ["TM0501"], "{rules:?}");
    let _ = w;
    let ok = "    alloca.u64 %rd11, 614400, 16;\n    st.local.u32 [%rd11+1024], %r1;\n    ld.local.u32 %r10, [%rd11+1024];";
    let (w, rules) = run_body(ok, 32);
    assert!(rules.is_empty(), "{rules:?}");
    assert!(w.iter().enumerate().all(|(t, v)| v[0] == t as u32), "{w:?}");
}

#[test]
fn stackrestore_below_the_stack_is_incomplete() {
    let (_, rules) = run_body("    mov.u64 %rd10, 0;\n    stackrestore.u64 %rd10;", 32);
    assert_eq!(rules, ["TM0511"], "{rules:?}");
}

#[test]
fn malformed_stack_forms_are_refused_as_bad_input() {
    // ptxas 13.5: "Alignment must be a power of two", "Alignment value too large, exceeds
    // 2^23", "Arguments mismatch for instruction 'alloca'"
    for body in [
        "    alloca.u64 %rd11, 16, 3;",
        "    alloca.u64 %rd11, 16, 16777216;",
        "    alloca.u64 %rd11, 16, %r1;",
        "    alloca.u64 %r11, 16;",
        "    alloca.u32 %r11, %rd2;",
        "    alloca.b64 %rd11, 16;",
        "    stacksave.u64 %r11;",
        "    stackrestore.u32 %rd11;",
    ] {
        assert!(
            matches!(load_err(body), LoadError::Invalid { .. }),
            "{body}"
        );
    }
    // 2^23 itself is accepted
    let _ = load_src(
        &kernel("    alloca.u64 %rd11, 16, 8388608;"),
        "forms_s8.ptx",
    );
}
