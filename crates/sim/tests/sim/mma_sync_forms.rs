//! `mma.sync` decoding: what the loader refuses (unsupported vs invalid), and what a subset of
//! the warp executing it reports. The arithmetic is checked against the H100 in
//! `mma_sync_h100.rs`.

use tmemu_sim::{install_globals, load, run, GlobalMemory, LoadError, RunOptions};

use crate::support::{param_block, plain_launch};

fn kernel(body: &str) -> String {
    format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .b32 %r<40>;\n.reg .b64 %rd<20>;\n.reg .pred %p<4>;\n{body}\nret;\n}}\n"
    )
}

fn load_err(body: &str) -> LoadError {
    let src = kernel(body);
    let m = tmemu_ptx::parse(&src).expect("parses");
    match load(&m, &src, "t.ptx", None) {
        Ok(_) => panic!("loaded: {body}"),
        Err(e) => e,
    }
}

fn is_unsupported(body: &str) -> bool {
    matches!(load_err(body), LoadError::Unsupported { .. })
}

const F16_K16: &str = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 \
    {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};";

#[test]
fn modelled_forms_load() {
    for body in [
        F16_K16,
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r0,%r1}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11};",
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%rd0,%rd1}, {%rd2}, {%rd3}, {%rd4,%rd5};",
        "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
        // a zero accumulator as immediates
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {0f00000000,0f00000000,0f00000000,0f00000000};",
    ] {
        let src = kernel(body);
        let m = tmemu_ptx::parse(&src).expect("parses");
        if let Err(e) = load(&m, &src, "t.ptx", None) {
            panic!("{body}: {e}");
        }
    }
}

#[test]
fn forms_not_modelled_are_unsupported() {
    // Volta quad-pair f16 fragments
    assert!(is_unsupported(
        "mma.sync.aligned.m8n8k4.row.row.f32.f16.f16.f32 {%r0,%r1,%r2,%r3,%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11}, {%r12,%r13,%r14,%r15,%r16,%r17,%r18,%r19};"
    ));
    // sparse
    assert!(is_unsupported(
        "mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9,%r10,%r11}, {%r12,%r13,%r14,%r15}, %r16, 0x0;"
    ));
    // sm_120 kinds
    assert!(is_unsupported(
        "mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col.f32.e2m1.e2m1.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};"
    ));
}

#[test]
fn forms_the_isa_forbids_are_invalid() {
    for body in [
        // layouts other than .row.col
        "mma.sync.aligned.m16n8k16.col.col.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
        // C type differs from D type (ptxas: .dtype must be .f32 when .ctype is .f32)
        "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f32 {%r0,%r1}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
        // wrong register count for A
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
        // no such shape for bf16
        "mma.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
        // f64 operands in 32-bit registers
        "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%r0,%r1}, {%r2}, {%r3}, {%r4,%r5};",
        // .satfinite on a float form
        "mma.sync.aligned.m16n8k16.row.col.satfinite.f32.f16.f16.f32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
        // b1 without the popc operation
        "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32 {%r0,%r1,%r2,%r3}, {%r4,%r5,%r6,%r7}, {%r8,%r9}, {%r10,%r11,%r12,%r13};",
    ] {
        match load_err(body) {
            LoadError::Invalid { .. } => {}
            e => panic!("{body}: expected invalid, got {e}"),
        }
    }
}

/// A divergent `mma.sync.aligned` is reported (TM0508-style divergent .aligned rule) and
/// leaves D untouched; the converged one computes D = A·B + C (here 16 · 1·1 + 0 with every
/// f16 operand 1.0 → 16.0 in every D element).
#[test]
fn divergent_mma_sync_is_reported_and_converged_one_computes() {
    let body = format!(
        "mov.b32 %r20, 0x3c003c00;\n\
         mov.b32 %r4, %r20; mov.b32 %r5, %r20; mov.b32 %r6, %r20; mov.b32 %r7, %r20;\n\
         mov.b32 %r8, %r20; mov.b32 %r9, %r20;\n\
         mov.b32 %r10, 0; mov.b32 %r11, 0; mov.b32 %r12, 0; mov.b32 %r13, 0;\n\
         mov.b32 %r0, 0; mov.b32 %r1, 0; mov.b32 %r2, 0; mov.b32 %r3, 0;\n\
         mov.u32 %r30, %tid.x;\n\
         setp.lt.u32 %p1, %r30, 16;\n\
         @%p1 bra SKIP;\n\
         {F16_K16}\n\
         SKIP:\n\
         {F16_K16}\n\
         ld.param.u64 %rd1, [out];\n\
         mul.wide.u32 %rd2, %r30, 16;\n\
         add.u64 %rd3, %rd1, %rd2;\n\
         st.global.v4.b32 [%rd3], {{%r0,%r1,%r2,%r3}};"
    );
    let src = kernel(&body);
    let m = tmemu_ptx::parse(&src).expect("parses");
    let k = load(&m, &src, "t.ptx", None).expect("loads");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 32 * 16]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("runs");
    assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
    assert!(
        r.diagnostics[0].message.contains("subset of the warp"),
        "{}",
        r.diagnostics[0].message
    );
    let bytes = g.read_buffer(out).unwrap();
    for w in bytes.chunks(4) {
        assert_eq!(f32::from_le_bytes(w.try_into().unwrap()), 16.0);
    }
}
