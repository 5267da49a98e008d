//! Forms the engine refused (exit 2) or left `incomplete` (exit 4) before session 7
//! (docs/arch/forms.md "Session 7"), each run through the engine with values the PTX ISA fixes,
//! computed here by hand or from the ISA's definition, not by tmemu-num:
//! special registers (`%aggr_smem_size`, `%current_graph_exec`, `mov.pred` of
//! `%is_explicit_cluster`, the driver-defined ones refused as unsupported), `atom.exch/cas.b128`,
//! `fma.rn.relu` on f16/bf16 (also bit for bit against the H100 recording in `h100_diff`),
//! `redux.sync.{min,max}.abs.NaN.f32`, `mbarrier.pending_count`, `isspacep`, `movmatrix`,
//! `cvt.rs.bf16x2.f32`.

use tmemu_sim::{install_globals, load, run, GlobalMemory, Launch, LoadError, RunOptions};

use super::support::{load_src, param_block, u32_words};

/// A kernel `k(out)` whose thread t stores `%r10..%r13` at out[4t..4t+4] after `body`.
/// Before `body`: `%r1` = %tid.x, `%rd1` = out (global), `%r30` = the address of the
/// 1024-byte shared buffer `sbuf`, `%rd9` = its generic address.
fn kernel(body: &str) -> String {
    format!(
        r#"
.version 9.0
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<16>;
    .reg .b16 %rs<16>;
    .reg .b32 %r<64>;
    .reg .f32 %f<32>;
    .reg .b64 %rd<32>;
    .reg .b128 %q<8>;
    .shared .align 16 .b8 sbuf[1024];
    .shared .align 8 .b64 mbar;
    .local .align 8 .b8 loc[16];

    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r30, sbuf;
    mov.u64 %rd9, sbuf;
    cvta.shared.u64 %rd9, %rd9;
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

/// Runs `body` with `threads` threads (one CTA, or a cluster of `cluster` CTAs) and returns
/// each thread's four words (of CTA 0) and the run's diagnostics' rule IDs.
fn run_body(
    body: &str,
    threads: u32,
    cluster: u32,
    dyn_shared: u32,
) -> (Vec<[u32; 4]>, Vec<String>) {
    let src = kernel(body);
    let k = load_src(&src, "forms_s7.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &vec![0u8; 16 * threads as usize]);
    let launch = Launch {
        grid: [cluster, 1, 1],
        block: [threads, 1, 1],
        cluster: (cluster > 1).then_some([cluster, 1, 1]),
        dyn_shared,
        params: param_block(&k, [out]),
    };
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    let words = u32_words(&g.read_buffer(out).unwrap());
    let rules = r
        .diagnostics
        .iter()
        .map(|d| d.rule.id.to_string())
        .collect();
    (
        words.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect(),
        rules,
    )
}

fn clean(body: &str, threads: u32) -> Vec<[u32; 4]> {
    let (w, rules) = run_body(body, threads, 1, 0);
    assert!(rules.is_empty(), "{rules:?}");
    w
}

fn load_err(body: &str) -> LoadError {
    let src = kernel(body);
    let m = tmemu_ptx::parse(&src).expect("parse");
    match load(&m, &src, "forms_s7.ptx", None) {
        Ok(_) => panic!("loaded: {body}"),
        Err(e) => e,
    }
}

#[test]
fn special_registers_of_the_isa_list() {
    // %aggr_smem_size: the CTA's shared memory (1024 + 8 static, 256 dynamic) plus the 1 KiB
    // the driver reserves; %current_graph_exec: 0 outside a CUDA graph
    let body = "    mov.u32 %r10, %aggr_smem_size;\n    mov.u32 %r11, %total_smem_size;\n    \
                mov.u64 %rd20, %current_graph_exec;\n    cvt.u32.u64 %r12, %rd20;\n    \
                mov.u32 %r13, %clock_hi;\n    mov.u32 %r14, %globaltimer_lo;\n    \
                mov.u32 %r15, %globaltimer_hi;";
    let (w, rules) = run_body(body, 32, 1, 256);
    assert!(rules.is_empty(), "{rules:?}");
    assert_eq!(
        w[0][1] + 1024,
        w[0][0],
        "aggr = total + reserved: {:?}",
        w[0]
    );
    assert!(w[0][1] >= 1024 + 8 + 256, "{:?}", w[0]);
    assert_eq!(w[0][2], 0);
    // the driver-defined ones load as unsupported (incomplete), never as bad input
    for r in [
        "%reserved_smem_offset_begin",
        "%reserved_smem_offset_end",
        "%reserved_smem_offset_cap",
        "%reserved_smem_offset_0",
        "%reserved_smem_offset_1",
        "%envreg3",
        "%pm7",
        "%pm0_64",
    ] {
        let ty = if r.ends_with("_64") {
            "u64 %rd20"
        } else {
            "u32 %r10"
        };
        let e = load_err(&format!("    mov.{ty}, {r};"));
        assert!(matches!(e, LoadError::Unsupported { .. }), "{r}: {e:?}");
    }
    // a name outside the list stays bad input
    let e = load_err("    mov.u32 %r10, %reserved_smem_offset_2;");
    assert!(matches!(e, LoadError::Invalid { .. }), "{e:?}");
}

#[test]
fn is_explicit_cluster_as_a_predicate() {
    let body = "    mov.pred %p3, %is_explicit_cluster;\n    selp.u32 %r10, 1, 2, %p3;";
    let (w, rules) = run_body(body, 32, 1, 0);
    assert!(rules.is_empty(), "{rules:?}");
    assert!(w.iter().all(|t| t[0] == 2), "no cluster: false");
    let (w, rules) = run_body(body, 32, 2, 0);
    assert!(rules.is_empty(), "{rules:?}");
    assert!(w.iter().all(|t| t[0] == 1), "cluster launch: true");
}

/// Each thread owns 16 bytes of `sbuf` (and of `out` for the global form), holding
/// (t, t+1, t+2, t+3) as four words.
const ATOM128_SETUP: &str = "    shl.b32 %r2, %r1, 4;\n    add.u32 %r3, %r30, %r2;\n    \
    add.u32 %r4, %r1, 1;\n    add.u32 %r5, %r1, 2;\n    add.u32 %r6, %r1, 3;\n    \
    st.shared.v4.u32 [%r3], {%r1, %r4, %r5, %r6};\n    \
    mov.b64 %rd10, {%r1, %r4};\n    mov.b64 %rd11, {%r5, %r6};\n    \
    mov.b128 %q1, {%rd10, %rd11};\n    \
    mov.b64 %rd12, 0x1111111122222222;\n    mov.b64 %rd13, 0x3333333344444444;\n    \
    mov.b128 %q2, {%rd12, %rd13};\n";

#[test]
fn atom_b128_exchange_and_compare_and_swap() {
    // exch: d gets the old 16 bytes, memory the new ones
    let body = format!(
        "{ATOM128_SETUP}    atom.shared.exch.b128 %q3, [%r3], %q2;\n    \
         mov.b128 {{%rd14, %rd15}}, %q3;\n    mov.b64 {{%r10, %r11}}, %rd14;\n    \
         mov.b64 {{%r12, %r13}}, %rd15;\n    ld.shared.v4.u32 {{%r20, %r21, %r22, %r23}}, [%r3];\n    \
         setp.eq.u32 %p1, %r20, 0x22222222;\n    setp.eq.and.u32 %p1, %r23, 0x33333333, %p1;\n    \
         @!%p1 mov.u32 %r10, 0xdead;"
    );
    let w = clean(&body, 32);
    for (t, v) in w.iter().enumerate() {
        let t = t as u32;
        assert_eq!(*v, [t, t + 1, t + 2, t + 3], "thread {t}");
    }
    // cas: swaps when all 128 bits equal the compare value (odd threads), not otherwise
    // (even threads compare against a value differing in bit 127 only)
    let body = format!(
        "{ATOM128_SETUP}    and.b32 %r7, %r1, 1;\n    setp.eq.u32 %p2, %r7, 0;\n    \
         @%p2 xor.b64 %rd11, %rd11, 0x8000000000000000;\n    \
         mov.b128 %q4, {{%rd10, %rd11}};\n    atom.cas.shared::cta.b128 %q3, [%r3], %q4, %q2;\n    \
         ld.shared.v4.u32 {{%r10, %r11, %r12, %r13}}, [%r3];\n    \
         mov.b128 {{%rd14, %rd15}}, %q3;\n    cvt.u32.u64 %r20, %rd14;\n    \
         setp.ne.u32 %p1, %r20, %r1;\n    @%p1 mov.u32 %r10, 0xdead;"
    );
    let w = clean(&body, 32);
    for (t, v) in w.iter().enumerate() {
        let t32 = t as u32;
        let want = if t % 2 == 1 {
            [0x2222_2222, 0x1111_1111, 0x4444_4444, 0x3333_3333]
        } else {
            [t32, t32 + 1, t32 + 2, t32 + 3]
        };
        assert_eq!(*v, want, "thread {t}");
    }
    // global, generic address: the same exchange through `out` (each thread its own slot)
    let body = format!(
        "{ATOM128_SETUP}    mul.wide.u32 %rd20, %r1, 16;\n    add.s64 %rd21, %rd1, %rd20;\n    \
         st.global.v4.u32 [%rd21], {{%r1, %r4, %r5, %r6}};\n    \
         atom.exch.b128 %q3, [%rd21], %q2;\n    ld.global.v4.u32 {{%r10, %r11, %r12, %r13}}, [%rd21];\n    \
         mov.b128 {{%rd14, %rd15}}, %q3;\n    cvt.u32.u64 %r20, %rd14;\n    \
         setp.ne.u32 %p1, %r20, %r1;\n    @%p1 mov.u32 %r10, 0xdead;"
    );
    let w = clean(&body, 32);
    for v in &w {
        assert_eq!(*v, [0x2222_2222, 0x1111_1111, 0x4444_4444, 0x3333_3333]);
    }
    // 8-byte aligned only: TM0502 and nothing written
    let body = format!(
        "{ATOM128_SETUP}    add.u32 %r8, %r3, 8;\n    atom.shared.exch.b128 %q3, [%r8], %q2;\n    \
         ld.shared.v4.u32 {{%r10, %r11, %r12, %r13}}, [%r3];"
    );
    let (w, rules) = run_body(&body, 1, 1, 0);
    assert!(rules.iter().any(|r| r == "TM0502"), "{rules:?}");
    assert_eq!(w[0], [0, 1, 2, 3]);
}

#[test]
fn fma_relu_on_half_types() {
    // per half: 1*2+0.5 = 2.5 (upper), 1*(-2)+0.5 = -1.5 -> +0 (lower)
    let body = "    mov.b32 %r2, 0x3f803f80;\n    mov.b32 %r3, 0x4000c000;\n    \
                mov.b32 %r4, 0x3f003f00;\n    fma.rn.relu.bf16x2 %r10, %r2, %r3, %r4;\n    \
                mov.b32 %r5, 0x3c003c00;\n    mov.b32 %r6, 0x4000c000;\n    \
                mov.b32 %r7, 0x38003800;\n    fma.rn.relu.f16x2 %r11, %r5, %r6, %r7;\n    \
                mov.b16 %rs1, 0xbc00;\n    mov.b16 %rs2, 0x3c00;\n    mov.b16 %rs3, 0x0000;\n    \
                fma.rn.ftz.relu.f16 %rs4, %rs1, %rs2, %rs3;\n    cvt.u32.u16 %r12, %rs4;\n    \
                mov.b32 %r8, 0x7fc17fc1;\n    fma.rn.relu.bf16x2 %r13, %r8, %r2, %r4;";
    let w = clean(body, 32);
    assert_eq!(w[0][0], 0x4020_0000, "bf16x2: 2.5 | +0");
    assert_eq!(w[0][1], 0x4100_0000, "f16x2: 2.5 | +0");
    assert_eq!(w[0][2], 0, "f16: -1*1+0 = -1 -> +0");
    assert_eq!(w[0][3], 0x7fff_7fff, "a NaN result is the canonical NaN");
}

#[test]
fn redux_abs_nan_f32() {
    // lane l holds (l - 16) / 2: |min| = 0 (lane 16), |max| = 8 (lane 0); lane 5 of the
    // second pair holds a NaN
    let body = "    sub.s32 %r2, %r1, 16;\n    cvt.rn.f32.s32 %f1, %r2;\n    mul.f32 %f1, %f1, 0f3F000000;\n    \
                redux.sync.min.abs.NaN.f32 %f2, %f1, 0xffffffff;\n    \
                redux.sync.max.abs.NaN.f32 %f3, %f1, 0xffffffff;\n    \
                mov.b32 %r10, %f2;\n    mov.b32 %r11, %f3;\n    \
                setp.eq.u32 %p1, %r1, 5;\n    @%p1 mov.b32 %f1, 0fFFC00001;\n    \
                redux.sync.max.abs.NaN.f32 %f4, %f1, 0xffffffff;\n    \
                redux.sync.max.abs.f32 %f5, %f1, 0xffffffff;\n    \
                mov.b32 %r12, %f4;\n    mov.b32 %r13, %f5;";
    let w = clean(body, 32);
    for v in &w {
        assert_eq!(v[0], 0, "min |x| = +0");
        assert_eq!(v[1], 8f32.to_bits(), "max |x| = 8");
        assert_eq!(
            v[2], 0x7fff_ffff,
            ".NaN: a NaN input gives the canonical NaN"
        );
        assert_eq!(
            v[3],
            8f32.to_bits(),
            "without .NaN the NaN input is ignored"
        );
    }
}

#[test]
fn mbarrier_pending_count_is_the_count_before_the_arrive() {
    let body = "    setp.eq.u32 %p1, %r1, 0;\n    @!%p1 bra DONE;\n    \
                mbarrier.init.shared::cta.b64 [mbar], 40;\n    \
                mbarrier.arrive.noComplete.shared::cta.b64 %rd20, [mbar], 3;\n    \
                mbarrier.pending_count.b64 %r10, %rd20;\n    \
                mbarrier.arrive.noComplete.shared::cta.b64 %rd21, [mbar], 30;\n    \
                mbarrier.pending_count.b64 %r11, %rd21;\n    \
                mbarrier.arrive.noComplete.shared::cta.b64 %rd22, [mbar], 1;\n    \
                mbarrier.pending_count.b64 %r12, %rd22;\n    \
                mbarrier.test_wait.shared::cta.b64 %p2, [mbar], %rd22;\n    \
                selp.u32 %r13, 1, 2, %p2;\nDONE:";
    let w = clean(body, 32);
    assert_eq!(
        w[0],
        [40, 37, 7, 2],
        "pending 40, 37, 7 before each arrive; phase open"
    );
}

#[test]
fn isspacep_by_window() {
    let body = "    isspacep.shared %p1, %rd9;\n    isspacep.shared::cluster %p2, %rd9;\n    \
                isspacep.global %p3, %rd9;\n    isspacep.global %p4, %rd1;\n    \
                isspacep.shared::cta %p5, %rd1;\n    mov.u64 %rd20, loc;\n    \
                cvta.local.u64 %rd20, %rd20;\n    isspacep.local %p6, %rd20;\n    \
                isspacep.global %p7, %rd20;\n    mov.u64 %rd21, out;\n    \
                cvta.param.u64 %rd21, %rd21;\n    isspacep.param %p8, %rd21;\n    \
                isspacep.global %p9, %rd21;\n    isspacep.const %p10, %rd1;\n    \
                selp.u32 %r10, 1, 0, %p1;\n    selp.u32 %r2, 2, 0, %p2;\n    or.b32 %r10, %r10, %r2;\n    \
                selp.u32 %r2, 4, 0, %p3;\n    or.b32 %r10, %r10, %r2;\n    \
                selp.u32 %r2, 8, 0, %p4;\n    or.b32 %r10, %r10, %r2;\n    \
                selp.u32 %r2, 16, 0, %p5;\n    or.b32 %r10, %r10, %r2;\n    \
                selp.u32 %r2, 32, 0, %p6;\n    or.b32 %r10, %r10, %r2;\n    \
                selp.u32 %r2, 64, 0, %p7;\n    or.b32 %r10, %r10, %r2;\n    \
                selp.u32 %r2, 128, 0, %p8;\n    or.b32 %r10, %r10, %r2;\n    \
                selp.u32 %r2, 256, 0, %p9;\n    or.b32 %r10, %r10, %r2;\n    \
                selp.u32 %r2, 512, 0, %p10;\n    or.b32 %r10, %r10, %r2;";
    let w = clean(body, 32);
    // shared: cta, cluster; not global. global: yes; not shared. local: yes, not global.
    // param: yes, and global too (the ISA: the param window lies in the global one). const: no.
    assert_eq!(w[0][0], 1 | 2 | 8 | 32 | 128 | 256, "{:#b}", w[0][0]);
    // in a cluster of two, the peer's shared window is .shared::cluster but not .shared::cta
    let body = "    mov.u32 %r2, %cluster_ctarank;\n    xor.b32 %r2, %r2, 1;\n    \
                mapa.u64 %rd20, %rd9, %r2;\n    isspacep.shared::cluster %p1, %rd20;\n    \
                isspacep.shared::cta %p2, %rd20;\n    selp.u32 %r10, 1, 0, %p1;\n    \
                selp.u32 %r11, 1, 0, %p2;\n    barrier.cluster.arrive;\n    barrier.cluster.wait;";
    let (w, rules) = run_body(body, 32, 2, 0);
    assert!(rules.is_empty(), "{rules:?}");
    assert_eq!([w[0][0], w[0][1]], [1, 0]);
}

#[test]
fn movmatrix_transposes_the_fragment() {
    // lane t holds elements (row t/4, columns 2(t%4) and 2(t%4)+1), element (r, c) = 8r + c
    let body = "    shr.u32 %r2, %r1, 2;\n    and.b32 %r3, %r1, 3;\n    shl.b32 %r3, %r3, 1;\n    \
                mad.lo.u32 %r4, %r2, 8, %r3;\n    add.u32 %r5, %r4, 1;\n    \
                shl.b32 %r5, %r5, 16;\n    or.b32 %r6, %r4, %r5;\n    \
                movmatrix.sync.aligned.m8n8.trans.b16 %r10, %r6;\n    mov.u32 %r11, %r6;";
    let w = clean(body, 32);
    for (t, v) in w.iter().enumerate() {
        // the transposed matrix in the same layout: element (r, c) of d is (c, r) of a
        let (r, c) = (t / 4, 2 * (t % 4));
        let want = (8 * c + r) as u32 | ((8 * (c + 1) + r) as u32) << 16;
        assert_eq!(v[0], want, "lane {t}");
    }
    // from a subset of the warp: TM0507 (divergent .aligned), as for ldmatrix
    let (_, rules) = run_body(
        "    setp.lt.u32 %p1, %r1, 16;\n    @%p1 movmatrix.sync.aligned.m8n8.trans.b16 %r10, %r1;",
        32,
        1,
        0,
    );
    assert!(rules.iter().any(|r| r == "TM0507"), "{rules:?}");
}

#[test]
fn cvt_rs_bf16x2_adds_the_random_bits_to_the_discarded_ones() {
    // 1 + 2^-8 (f32 0x3f808000) discards 0x8000: rbits 0x7fff keeps 1.0, 0x8000 carries to
    // 1 + 2^-7; -(1 + 2^-23) discards 0x0001: 0xffff carries (away from zero)
    let body = "    mov.b32 %f1, 0f3F808000;\n    mov.b32 %f2, 0fBF800001;\n    \
                mov.b32 %r20, 0x7fff0000;\n    mov.b32 %r21, 0x8000ffff;\n    \
                mov.b32 %r22, 0x00010000;\n    \
                cvt.rs.bf16x2.f32 %r10, %f1, %f2, %r20;\n    \
                cvt.rs.bf16x2.f32 %r11, %f1, %f2, %r21;\n    \
                mov.b32 %f3, 0f7F7FFFFF;\n    cvt.rs.satfinite.bf16x2.f32 %r12, %f3, %f3, %r22;\n    \
                cvt.rs.relu.bf16x2.f32 %r13, %f1, %f2, %r21;";
    let w = clean(body, 32);
    assert_eq!(w[0][0], 0x3f80_bf80);
    assert_eq!(w[0][1], 0x3f81_bf81);
    assert_eq!(
        w[0][2], 0x7f7f_7f7f,
        "MAX + carry: infinity, clamped by .satfinite"
    );
    assert_eq!(w[0][3], 0x3f81_0000, ".relu: the negative half is +0");
    // the forms whose random-bit alignment the ISA leaves open stay unsupported
    // rbits is a register operand (ptxas: "Arguments mismatch" for an immediate)
    let e = load_err("    cvt.rs.bf16x2.f32 %r10, %f1, %f2, 0x8000;");
    assert!(matches!(e, LoadError::Invalid { .. }), "{e:?}");
    for f in [
        "cvt.rs.f16x2.f32 %r10, %f1, %f2, %r1;",
        "cvt.rs.satfinite.e4m3x4.f32 %r10, {%f1, %f2, %f1, %f2}, %r1;",
    ] {
        let e = load_err(&format!("    {f}"));
        assert!(matches!(e, LoadError::Unsupported { .. }), "{f}: {e:?}");
    }
}
