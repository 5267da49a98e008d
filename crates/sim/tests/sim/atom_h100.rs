//! The float atomics recorded on an H100 (tests/corpus/atom_h100, written by
//! kernels/atom_h100/harness.cu) replayed through the engine, bit for bit, NaN payloads
//! included: the vector forms (`red.global.add.noftz.v8.f16/.bf16`, `atom.global.v2.*.min/max
//! .noftz` on f16/bf16/f16x2/bf16x2, `.v2/.v4 .f32 .add`) and the scalar `.f32` add on global
//! (subnormals flushed) and shared memory (kept), `.add.noftz.f16/.bf16`, and PTX 9.4's
//! `.add.noftz.f32` (vector and scalar, global and shared: subnormals kept).
//!
//! Each manifest line names the instruction (inst, space, op, vector width, type); the dump
//! holds the memory words before, the operands, the memory after and the old values.

use crate::atom_vec::{kernel, run_src_elems, Ty};
use crate::support::corpus_file;

struct Case {
    name: String,
    inst: String,
    space: String,
    op: String,
    vec: usize,
    ty: Ty,
    es: usize,
    a: Vec<u32>,
    b: Vec<u32>,
    after: Vec<u32>,
    olds: Vec<u32>,
}

fn ty_of(s: &str) -> Ty {
    match s {
        "f16" => Ty::F16,
        "bf16" => Ty::Bf16,
        "f16x2" => Ty::F16x2,
        "bf16x2" => Ty::Bf16x2,
        "f32" => Ty::F32,
        _ => panic!("unknown type {s}"),
    }
}

fn cases() -> Vec<Case> {
    let (_, manifest) = corpus_file("atom_h100", "manifest.txt");
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/atom_h100/dumps.bin");
    let dump = tmemu_testkit::recording::read(&p);
    let mut out = Vec::new();
    for line in manifest.lines().filter(|l| l.starts_with("name=")) {
        let kv: std::collections::HashMap<&str, &str> = line
            .split_whitespace()
            .filter_map(|f| f.split_once('='))
            .collect();
        let es: usize = kv["esize"].parse().unwrap();
        let count: usize = kv["count"].parse().unwrap();
        let at: usize = kv["dump_at"].parse().unwrap();
        let arr = |k: usize| -> Vec<u32> {
            dump[at + k * count * es..at + (k + 1) * count * es]
                .chunks(es)
                .map(|c| {
                    let mut w = [0u8; 4];
                    w[..es].copy_from_slice(c);
                    u32::from_le_bytes(w)
                })
                .collect()
        };
        out.push(Case {
            name: kv["name"].to_string(),
            inst: kv["inst"].to_string(),
            space: kv["space"].to_string(),
            op: kv["op"].to_string(),
            vec: kv["vec"].parse().unwrap(),
            ty: ty_of(kv["type"]),
            es,
            a: arr(0),
            b: arr(1),
            after: arr(2),
            olds: arr(3),
        });
    }
    out
}

/// The scalar forms: thread i applies `atom.{space}.{op}{.noftz}.{ty}` to word i (through a
/// shared-memory slot for `.shared`) and stores the old value.
fn scalar_kernel(c: &Case) -> String {
    let bits = c.es * 8;
    let (reg, decl) = if c.es == 2 {
        ("%h", ".reg .b16 %h<8>;")
    } else {
        ("%s", ".reg .b32 %s<8>;")
    };
    let noftz = if c.ty == Ty::F32 { "" } else { ".noftz" };
    let t = c.ty.ptx();
    let body = if c.space == "shared" {
        format!(
            "    mov.u32 %r4, slot;\n    shl.b32 %r5, %r3, {sh};\n    add.u32 %r4, %r4, %r5;\n    \
             ld.global.b{bits} {reg}0, [%rd5];\n    st.shared.b{bits} [%r4], {reg}0;\n    \
             ld.global.b{bits} {reg}1, [%rd6];\n    \
             atom.shared.{op}{noftz}.{t} {reg}2, [%r4], {reg}1;\n    \
             st.global.b{bits} [%rd7], {reg}2;\n    ld.shared.b{bits} {reg}3, [%r4];\n    \
             st.global.b{bits} [%rd5], {reg}3;\n",
            sh = c.es.trailing_zeros(),
            op = c.op
        )
    } else {
        format!(
            "    ld.global.b{bits} {reg}1, [%rd6];\n    \
             atom.global.{op}{noftz}.{t} {reg}2, [%rd5], {reg}1;\n    \
             st.global.b{bits} [%rd7], {reg}2;\n",
            op = c.op
        )
    };
    let version = if c.op.contains("noftz") { "9.4" } else { "8.7" };
    let decls = format!(".shared .align 4 .b32 slot[64];\n    {decl}");
    crate::support::atom_kernel(version, &decls, c.es, &body)
}

#[test]
fn float_atomics_match_the_h100_bit_for_bit() {
    let cases = cases();
    assert_eq!(cases.len(), 20, "the recording has 20 cases");
    let mut report = Vec::new();
    for c in &cases {
        let src = if c.vec == 1 {
            scalar_kernel(c)
        } else {
            kernel(&c.inst, c.vec, c.ty, &c.op)
        };
        let (after, olds) = run_src_elems(&src, c.vec, c.es, &c.a, &c.b);
        let bad: Vec<String> = (0..c.a.len())
            .filter(|&i| after[i] != c.after[i] || (c.inst == "atom" && olds[i] != c.olds[i]))
            .map(|i| {
                format!(
                    "{:#x} {} {:#x}: tmemu {:#x}, H100 {:#x}",
                    c.a[i], c.op, c.b[i], after[i], c.after[i]
                )
            })
            .collect();
        if !bad.is_empty() {
            report.push(format!(
                "{}: {} of {} differ, first {:?}",
                c.name,
                bad.len(),
                c.a.len(),
                &bad[..bad.len().min(4)]
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}
