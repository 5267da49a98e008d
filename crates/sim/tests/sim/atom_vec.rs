//! Vector atomics (`atom`/`red` `.global .vN` on `.f32`, `.f16`, `.bf16`, `.f16x2`, `.bf16x2`,
//! PTX ISA §9.7.13.5/6) and `getctarank` (§9.7.9.24), run through the engine.
//!
//! References, independent of the engine's tmemu-num path:
//! - `.add` on 16-bit floats: the `half` crate's RNE of the host f32 sum (correctly rounded,
//!   see atom_half.rs's module comment);
//! - `.min`/`.max` on 16-bit floats: IEEE minNum/maxNum on the host f32 values (a NaN operand
//!   gives the other operand, -0 below +0), returning the operand's own bits;
//! - `.add.f32`: the host f32 sum with subnormal inputs and results flushed to sign-preserving
//!   zero (the ISA's "current implementation" of global f32 atomic adds).
//!
//! NaN results are compared as "some NaN".

use half::{bf16, f16};
use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions, RunResult};

use crate::support::{load_src, param_block, plain_launch, u32_words};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Ty {
    F16,
    Bf16,
    F16x2,
    Bf16x2,
    F32,
}

impl Ty {
    pub(crate) fn ptx(self) -> &'static str {
        match self {
            Ty::F16 => "f16",
            Ty::Bf16 => "bf16",
            Ty::F16x2 => "f16x2",
            Ty::Bf16x2 => "bf16x2",
            Ty::F32 => "f32",
        }
    }
    /// Bytes of one vector element.
    pub(crate) fn size(self) -> usize {
        match self {
            Ty::F16 | Ty::Bf16 => 2,
            _ => 4,
        }
    }
    fn is_bf16(self) -> bool {
        matches!(self, Ty::Bf16 | Ty::Bf16x2)
    }
}

fn h2f(bf: bool, x: u16) -> f32 {
    if bf {
        bf16::from_bits(x).to_f32()
    } else {
        f16::from_bits(x).to_f32()
    }
}

fn f2h(bf: bool, x: f32) -> u16 {
    if bf {
        bf16::from_f32(x).to_bits()
    } else {
        f16::from_f32(x).to_bits()
    }
}

/// The reference of one 16-bit lane.
fn ref16(bf: bool, op: &str, a: u16, b: u16) -> u16 {
    let (x, y) = (h2f(bf, a), h2f(bf, b));
    match op {
        "add" => f2h(bf, x + y),
        _ => {
            if x.is_nan() && y.is_nan() {
                return 0x7fff;
            }
            if x.is_nan() {
                return b;
            }
            if y.is_nan() {
                return a;
            }
            // -0 < +0: compare (value, sign) with the negative sign first
            let less = x < y || (x == y && a & 0x8000 != 0 && b & 0x8000 == 0);
            if (op == "min") == less {
                a
            } else {
                b
            }
        }
    }
}

fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        0.0f32.copysign(x)
    } else {
        x
    }
}

/// The reference of one element word.
fn reference(ty: Ty, op: &str, a: u32, b: u32) -> u32 {
    match ty {
        // `.add.noftz.f32` (PTX 9.4) keeps subnormals
        Ty::F32 if op == "add.noftz" => (f32::from_bits(a) + f32::from_bits(b)).to_bits(),
        Ty::F32 => ftz32(ftz32(f32::from_bits(a)) + ftz32(f32::from_bits(b))).to_bits(),
        Ty::F16 | Ty::Bf16 => ref16(ty.is_bf16(), op, a as u16, b as u16) as u32,
        Ty::F16x2 | Ty::Bf16x2 => {
            let bf = ty.is_bf16();
            let lo = ref16(bf, op, a as u16, b as u16) as u32;
            let hi = ref16(bf, op, (a >> 16) as u16, (b >> 16) as u16) as u32;
            lo | hi << 16
        }
    }
}

fn is_nan(ty: Ty, v: u32) -> bool {
    match ty {
        Ty::F32 => f32::from_bits(v).is_nan(),
        _ => h2f(ty.is_bf16(), v as u16).is_nan(),
    }
}

fn same(ty: Ty, got: u32, want: u32) -> bool {
    match ty {
        Ty::F16x2 | Ty::Bf16x2 => {
            same(Ty::F16.with_bf(ty), got & 0xffff, want & 0xffff)
                && same(Ty::F16.with_bf(ty), got >> 16, want >> 16)
        }
        _ => got == want || (is_nan(ty, got) && is_nan(ty, want)),
    }
}

impl Ty {
    fn with_bf(self, of: Ty) -> Ty {
        if of.is_bf16() {
            Ty::Bf16
        } else {
            self
        }
    }
}

/// Thread i applies `{atom|red}.global.v{n}.{ty}.{op}` to vector i of `mem` with vector i of
/// `bs`; `atom` stores the old elements to vector i of `olds`.
pub(crate) fn kernel(inst: &str, n: usize, ty: Ty, op: &str) -> String {
    let es = ty.size();
    let (reg, decl) = if es == 2 {
        ("%h", ".reg .b16 %h<24>;")
    } else {
        ("%s", ".reg .b32 %s<24>;")
    };
    let bits = es * 8;
    let list = |base: usize| -> String {
        (0..n)
            .map(|k| format!("{reg}{}", base + k))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let loads: String = (0..n)
        .map(|k| format!("    ld.global.b{bits} {reg}{k}, [%rd6+{}];\n", k * es))
        .collect();
    let noftz = if ty == Ty::F32 { "" } else { ".noftz" };
    let body = if inst == "atom" {
        let stores: String = (0..n)
            .map(|k| {
                format!(
                    "    st.global.b{bits} [%rd7+{}], {reg}{};\n",
                    k * es,
                    10 + k
                )
            })
            .collect();
        format!(
            "    atom.global.v{n}.{t}.{op}{noftz} {{{d}}}, [%rd5], {{{b}}};\n{stores}",
            t = ty.ptx(),
            d = list(10),
            b = list(0)
        )
    } else {
        format!(
            "    red.global.gpu.relaxed.{op}{noftz}.v{n}.{t} [%rd5], {{{b}}};\n",
            t = ty.ptx(),
            b = list(0)
        )
    };
    // `.noftz` on `.f32` needs PTX ISA 9.4
    let version = if op.contains("noftz") { "9.4" } else { "8.7" };
    crate::support::atom_kernel(version, decl, n * es, &format!("{loads}{body}"))
}

/// Loads `src`; with `TMEMU_DUMP_PTX=DIR` also writes it to DIR (named by a hash of the text),
/// so that every program of these tests can be fed to `ptxas -arch=sm_100a`.
fn load_dumped(src: &str, file: &str) -> tmemu_sim::Kernel {
    if let Ok(dir) = std::env::var("TMEMU_DUMP_PTX") {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        src.hash(&mut h);
        let p = std::path::Path::new(&dir).join(format!("{:016x}.ptx", h.finish()));
        std::fs::write(p, src).unwrap();
    }
    load_src(src, file)
}

fn words(bytes: &[u8], es: usize) -> Vec<u32> {
    bytes
        .chunks(es)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..es].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

fn to_bytes(v: &[u32], es: usize, len: usize) -> Vec<u8> {
    let mut out: Vec<u8> = v
        .iter()
        .flat_map(|x| x.to_le_bytes()[..es].to_vec())
        .collect();
    out.resize(len, 0);
    out
}

/// Runs the kernel over element words `a` (memory) and `b` (operands); returns (memory
/// after, olds).
fn run_elems(inst: &str, n: usize, ty: Ty, op: &str, a: &[u32], b: &[u32]) -> (Vec<u32>, Vec<u32>) {
    run_src_elems(&kernel(inst, n, ty, op), n, ty.size(), a, b)
}

/// Runs `src` (parameters `mem`, `bs`, `olds`; thread i owns vector i of `n` elements of `es`
/// bytes) over element words `a` and `b`; returns (memory after, olds).
pub(crate) fn run_src_elems(
    src: &str,
    n: usize,
    es: usize,
    a: &[u32],
    b: &[u32],
) -> (Vec<u32>, Vec<u32>) {
    const BLOCK: usize = 64;
    let threads = a.len().div_ceil(n).div_ceil(BLOCK) * BLOCK;
    let len = threads * n * es;
    let k = load_dumped(src, "atom_vec.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let m = g.alloc("mem", &to_bytes(a, es, len));
    let bb = g.alloc("b", &to_bytes(b, es, len));
    let olds = g.alloc("olds", &vec![0u8; len]);
    let launch = plain_launch(
        [(threads / BLOCK) as u32, 1, 1],
        [BLOCK as u32, 1, 1],
        param_block(&k, [m, bb, olds]),
    );
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let rd = |x: u64| words(&g.read_buffer(x).unwrap(), es)[..a.len()].to_vec();
    (rd(m), rd(olds))
}

fn specials(bf: bool) -> Vec<u16> {
    if bf {
        vec![
            0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80, 0x3f81, 0x4380, 0x3f00,
            0x4381, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81,
        ]
    } else {
        vec![
            0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x6800, 0x3800,
            0x6801, 0x7bff, 0xfbff, 0x5000, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01,
        ]
    }
}

fn specials32() -> Vec<u32> {
    vec![
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x8000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x8080_0000,
        0x0080_0001,
        0x3f80_0000,
        0xbf80_0000,
        0x3f80_0001,
        0x4b80_0000,
        0x3f00_0000,
        0x7f7f_ffff,
        0xff7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0001,
        0x7f80_0001,
    ]
}

fn rng(seed: u64) -> impl FnMut() -> u32 {
    let mut x = seed;
    move || {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

/// (memory, operand) element words: every special with every special, then random words.
fn pairs(ty: Ty, n_random: usize) -> (Vec<u32>, Vec<u32>) {
    let s: Vec<u32> = match ty {
        Ty::F32 => specials32(),
        Ty::F16 | Ty::Bf16 => specials(ty.is_bf16()).iter().map(|&x| x as u32).collect(),
        // packed: the specials in the low half, a rotation of them in the high half
        Ty::F16x2 | Ty::Bf16x2 => {
            let h = specials(ty.is_bf16());
            (0..h.len())
                .map(|i| h[i] as u32 | (h[(i * 7 + 3) % h.len()] as u32) << 16)
                .collect()
        }
    };
    let (mut a, mut b): (Vec<u32>, Vec<u32>) = s
        .iter()
        .flat_map(|&x| s.iter().map(move |&y| (x, y)))
        .unzip();
    let mut next = rng(0x9e37_79b9_7f4a_7c15 ^ ty.size() as u64);
    let mask = if ty.size() == 2 { 0xffff } else { u32::MAX };
    for _ in 0..n_random {
        a.push(next() & mask);
        b.push(next() & mask);
    }
    (a, b)
}

fn check(inst: &str, n: usize, ty: Ty, op: &str) {
    let (a, b) = pairs(ty, 1024);
    let (after, olds) = run_elems(inst, n, ty, op, &a, &b);
    let mut bad = Vec::new();
    for i in 0..a.len() {
        let want = reference(ty, op, a[i], b[i]);
        if !same(ty, after[i], want) {
            bad.push(format!(
                "{:#x} {op} {:#x}: got {:#x}, want {want:#x}",
                a[i], b[i], after[i]
            ));
        }
        if inst == "atom" && olds[i] != a[i] {
            bad.push(format!(
                "old of element {i}: got {:#x}, want {:#x}",
                olds[i], a[i]
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{inst}.v{n}.{}.{op}: {} of {} wrong, first: {:?}",
        ty.ptx(),
        bad.len(),
        a.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
fn vector_half_add_is_the_correctly_rounded_sum_per_element() {
    check("red", 8, Ty::F16, "add"); // Triton's vectorised tl.atomic_add on fp16
    check("red", 8, Ty::Bf16, "add");
    check("atom", 2, Ty::F16, "add");
    check("atom", 4, Ty::Bf16x2, "add");
    check("red", 2, Ty::F16x2, "add");
}

#[test]
fn vector_half_min_max_follow_min_and_max_per_element() {
    for ty in [Ty::F16, Ty::Bf16] {
        check("atom", 8, ty, "min");
        check("red", 4, ty, "max");
    }
    for ty in [Ty::F16x2, Ty::Bf16x2] {
        check("atom", 2, ty, "max");
        check("red", 4, ty, "min");
    }
}

#[test]
fn vector_f32_add_flushes_subnormals_like_global_f32_atomics() {
    check("red", 4, Ty::F32, "add"); // Triton's vectorised tl.atomic_add on fp32
    check("atom", 2, Ty::F32, "add");
    // worked by hand: 2^-149 + 2^-149 is 0 after the input flush; 1 + 2^-126 stays 1 + 0
    let (after, _) = run_elems(
        "atom",
        2,
        Ty::F32,
        "add",
        &[1, 0x0080_0000],
        &[1, 0x0080_0000],
    );
    assert_eq!(after, vec![0, 0x0100_0000]);
}

#[test]
fn noftz_f32_adds_keep_subnormals_vector_scalar_global_and_shared() {
    check("red", 4, Ty::F32, "add.noftz");
    check("atom", 2, Ty::F32, "add.noftz");
    // 2^-149 + 2^-149 = 2^-148: nothing flushed
    let (after, _) = run_elems("atom", 2, Ty::F32, "add.noftz", &[1, 0x8000_0001], &[1, 0]);
    assert_eq!(after, vec![2, 0x8000_0001]);
    // the scalar forms, global and shared (one thread)
    let (r, out) = run_one_out(
        "    .reg .f32 %f<4>;\n    mov.b32 %f1, 0x00000001;\n    \
         st.global.b32 [%rd2], %f1;\n    red.global.add.noftz.f32 [%rd2], %f1;\n    \
         ld.global.b32 %f2, [%rd2];\n    st.global.b32 [%rd1], %f2;\n    \
         st.shared.b32 [sh], %f1;\n    atom.shared.add.noftz.f32 %f3, [sh], %f1;\n    \
         ld.shared.b32 %f2, [sh];\n    st.global.b32 [%rd1+4], %f2;\n    \
         st.global.b32 [%rd1+8], %f3;",
    );
    assert!(r.diagnostics.is_empty(), "{r:?}");
    assert_eq!(u32_words(&out[..12]), vec![2, 2, 1]);
}

#[test]
fn vector_min_max_hand_picked() {
    // f16: min(+0, -0) = -0, max(-0, +0) = +0, min(NaN, 2) = 2, min(1, -inf) = -inf
    let a = [0x0000u32, 0x8000, 0x7e00, 0x3c00];
    let b = [0x8000u32, 0x0000, 0x4000, 0xfc00];
    let (mn, _) = run_elems("atom", 4, Ty::F16, "min", &a, &b);
    assert_eq!(mn, vec![0x8000, 0x8000, 0x4000, 0xfc00]);
    let (mx, _) = run_elems("atom", 4, Ty::F16, "max", &a, &b);
    assert_eq!(mx, vec![0x0000, 0x0000, 0x4000, 0x3c00]);
}

/// One thread runs `body` (with `%rd1` = out, `%rd2` = a 16-byte buffer at offset 0 of `buf`);
/// returns the run and the 16 bytes of `out`.
fn run_one_out(body: &str) -> (RunResult, Vec<u8>) {
    let src = format!(
        r#"
.version 9.4
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 out, .param .u64 buf)
{{
    .shared .align 16 .b8 sh[64];
    .reg .b16 %h<8>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [buf];
{body}
    ret;
}}
"#
    );
    let k = load_dumped(&src, "atom_vec_fault.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 16]);
    let buf = g.alloc("buf", &[0u8; 16]);
    let launch = plain_launch([1, 1, 1], [1, 1, 1], param_block(&k, [out, buf]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    (r, g.read_buffer(out).unwrap())
}

fn run_one(body: &str) -> RunResult {
    run_one_out(body).0
}

fn only_rule(r: &RunResult, rule: &str) {
    assert!(!r.diagnostics.is_empty(), "no diagnostic: {r:?}");
    for d in &r.diagnostics {
        assert!(d.to_string().contains(rule), "{d}");
    }
}

#[test]
fn misaligned_vector_is_tm0502_and_a_shared_address_tm0503() {
    // a .v4.f32 at offset 8: aligned for one element, not for the 16-byte vector
    only_rule(
        &run_one("    red.global.add.v4.f32 [%rd2+8], {%r1, %r1, %r1, %r1};"),
        "TM0502",
    );
    // a generic address of shared memory: vector atomics are global-only
    only_rule(
        &run_one("    cvta.shared.u64 %rd3, sh;\n    red.add.noftz.v2.f16 [%rd3], {%h1, %h1};"),
        "TM0503",
    );
    // past the end of the buffer: nothing is written, TM0501
    only_rule(
        &run_one(
            "    red.global.add.noftz.v8.bf16 [%rd2+16], {%h1, %h1, %h1, %h1, %h1, %h1, %h1, %h1};",
        ),
        "TM0501",
    );
}

#[test]
fn atom_cas_b16_swaps_on_equal() {
    // word 0x1234 compared with 0x1234 -> 0xbeef; then compared with 0x1234 again -> kept
    let (r, out) = run_one_out(
        "    st.global.b16 [%rd2], 0x1234;\n    mov.b16 %h1, 0x1234;\n    mov.b16 %h2, 0xbeef;\n    \
         atom.global.cas.b16 %h3, [%rd2], %h1, %h2;\n    atom.global.cas.b16 %h4, [%rd2], %h1, %h1;\n    \
         st.global.b16 [%rd1], %h3;\n    st.global.b16 [%rd1+2], %h4;",
    );
    assert!(r.diagnostics.is_empty(), "{r:?}");
    // the first returns 0x1234 and stores 0xbeef; the second sees 0xbeef != 0x1234 and
    // returns it unchanged
    assert_eq!(&out[..4], &[0x34, 0x12, 0xef, 0xbe]);
}

// ---- getctarank -------------------------------------------------------------------------

/// Per CTA of a cluster of 4 (4 words): getctarank of a `mapa` address of rank (own+1)%4,
/// of the own variable by name, of a generic own address, and of the generic form of the
/// `mapa` address.
const GETCTARANK: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 out_ptr)
.reqnctapercluster 4, 1, 1
{
    .shared .align 4 .b32 cell[2];
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out_ptr];
    mov.u32 %r1, %cluster_ctarank;
    add.u32 %r2, %r1, 1;
    and.b32 %r2, %r2, 3;
    mov.u32 %r3, cell;
    mapa.shared::cluster.u32 %r4, %r3, %r2;
    getctarank.shared::cluster.u32 %r5, %r4;
    getctarank.shared::cluster.u32 %r6, cell+4;
    cvta.shared.u64 %rd2, cell;
    getctarank.u64 %r7, %rd2;
    mapa.u64 %rd3, %rd2, %r2;
    getctarank.u64 %r8, %rd3;
    mov.u32 %r9, %ctaid.x;
    mul.wide.u32 %rd4, %r9, 16;
    add.u64 %rd4, %rd1, %rd4;
    st.global.u32 [%rd4], %r5;
    st.global.u32 [%rd4+4], %r6;
    st.global.u32 [%rd4+8], %r7;
    st.global.u32 [%rd4+12], %r8;
    ret;
}
"#;

#[test]
fn getctarank_reads_the_rank_of_mapa_symbol_and_generic_addresses() {
    let k = load_dumped(GETCTARANK, "getctarank.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 8 * 16]);
    let launch = plain_launch([8, 1, 1], [32, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let w = u32_words(&g.read_buffer(out).unwrap());
    for cta in 0..8u32 {
        let rank = cta % 4;
        let next = (rank + 1) % 4;
        assert_eq!(
            &w[cta as usize * 4..cta as usize * 4 + 4],
            &[next, rank, rank, next],
            "CTA {cta}"
        );
    }
}

#[test]
fn getctarank_of_a_global_address_is_tm0503() {
    let r = run_one("    getctarank.u64 %r1, %rd2;\n    st.global.u32 [%rd1], %r1;");
    only_rule(&r, "TM0503");
    assert!(r.diagnostics[0].to_string().contains("getctarank"), "{r:?}");
}

// ---- real compiler output ---------------------------------------------------------------

/// CUDA 13.5's atomic intrinsics for sm_100a (kernels/atom_h100/nvcc_atomics.cu: float2/float4
/// `atomicAdd` → `atom.global.add.v2/.v4.f32`, half2/bfloat162/half/bfloat16 → `atom.add.noftz`
/// through a generic address, unsigned short `atomicCAS` → `atom.global.cas.b16`, double →
/// `atom.relaxed.gpu.global.add.f64`), run on 32 threads against host arithmetic.
#[test]
fn nvcc_atomic_intrinsics_run_and_match_host_arithmetic() {
    let k = crate::support::load_corpus("atom_h100", "nvcc_atomics.sm_100a.ptx");
    let mut next = rng(0x1234_5678);
    let mut f = |scale: f32| (next() % 2001) as f32 / 1000.0 * scale - scale;
    // x: lane 3 a subnormal (flushed by the global f32 adds), the rest ordinary values
    let x: Vec<f32> = (0..32)
        .map(|t| if t == 3 { 1.0e-40 } else { f(8.0) })
        .collect();
    let f2: Vec<f32> = (0..64)
        .map(|i| if i == 6 { 3.0e-39 } else { f(100.0) })
        .collect();
    let f4: Vec<f32> = (0..128).map(|_| f(100.0)).collect();
    let h2: Vec<u16> = (0..64).map(|_| f16::from_f32(f(50.0)).to_bits()).collect();
    let b2: Vec<u16> = (0..64).map(|_| bf16::from_f32(f(50.0)).to_bits()).collect();
    let h: Vec<u16> = (0..32).map(|_| f16::from_f32(f(50.0)).to_bits()).collect();
    let b: Vec<u16> = (0..32).map(|_| bf16::from_f32(f(50.0)).to_bits()).collect();
    let us: Vec<u16> = (0..32).map(|t| (t % 3) as u16).collect();
    let d: Vec<f64> = (0..32).map(|_| f64::from(f(1000.0)) / 3.0).collect();
    let le32 = |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let le16 = |v: &[u16]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let bufs = [
        g.alloc("x", &le32(&x)),
        g.alloc("f2", &le32(&f2)),
        g.alloc("f4", &le32(&f4)),
        g.alloc("old", &[0u8; 128]),
        g.alloc("h2", &le16(&h2)),
        g.alloc("b2", &le16(&b2)),
        g.alloc("h", &le16(&h)),
        g.alloc("b", &le16(&b)),
        g.alloc("us", &le16(&us)),
        g.alloc(
            "d",
            &d.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
        ),
    ];
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, bufs));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let rd = |i: usize| g.read_buffer(bufs[i]).unwrap();
    let f32s = |i: usize| -> Vec<f32> {
        rd(i)
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let u16s = |i: usize| -> Vec<u16> {
        rd(i)
            .chunks(2)
            .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let gadd = |a: f32, b: f32| ftz32(ftz32(a) + ftz32(b));
    let hadd = |bf: bool, a: u16, b: f32| f2h(bf, h2f(bf, a) + h2f(bf, f2h(bf, b)));
    let (g2, g4, gold) = (f32s(1), f32s(2), f32s(3));
    let (gh2, gb2, gh, gb, gus) = (u16s(4), u16s(5), u16s(6), u16s(7), u16s(8));
    let gd: Vec<f64> = rd(9)
        .chunks(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for t in 0..32 {
        let v = x[t];
        let bits = |a: &[f32]| a.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(
            bits(&g2[2 * t..2 * t + 2]),
            bits(&[gadd(f2[2 * t], v), gadd(f2[2 * t + 1], -v)]),
            "float2 {t}"
        );
        let add4 = [v, 2.0 * v, v * v, -1.0];
        let want4: Vec<f32> = (0..4).map(|i| gadd(f4[4 * t + i], add4[i])).collect();
        assert_eq!(bits(&g4[4 * t..4 * t + 4]), bits(&want4), "float4 {t}");
        assert_eq!(gold[t].to_bits(), f4[4 * t].to_bits(), "float4 old .x {t}");
        assert_eq!(
            (gh2[2 * t], gh2[2 * t + 1]),
            (
                hadd(false, h2[2 * t], v),
                hadd(false, h2[2 * t + 1], 0.5 * v)
            ),
            "half2 {t}"
        );
        assert_eq!(
            (gb2[2 * t], gb2[2 * t + 1]),
            (hadd(true, b2[2 * t], v), hadd(true, b2[2 * t + 1], 0.5 * v)),
            "bfloat162 {t}"
        );
        assert_eq!(gh[t], hadd(false, h[t], v), "half {t}");
        assert_eq!(gb[t], hadd(true, b[t], v), "bfloat16 {t}");
        let cas = if us[t] == (t & 1) as u16 {
            1000 + t as u16
        } else {
            us[t]
        };
        assert_eq!(gus[t], cas, "ushort cas {t}");
        assert_eq!(
            gd[t].to_bits(),
            (d[t] + f64::from(v)).to_bits(),
            "double {t}"
        );
    }
    // lane 3's subnormal operand and float2 word 6 (subnormal) were flushed: +0 + +0
    assert_eq!(g4[12].to_bits(), f4[12].to_bits());
    assert_eq!(g2[6].to_bits(), 0);
}

/// Triton 3.9's vectorised `tl.atomic_add` (kernels/atom_h100/triton_scatter.py): 6 programs
/// of 128 threads each add their 256 values into the same 256-element window with
/// `red.global.gpu.relaxed.add.noftz.v2.f16` / `red.global.gpu.relaxed.add.v2.f32`. The values
/// are multiples of 1/4 below 2, so every partial sum is exact in f16 and f32 and the result
/// does not depend on the order: it must equal the host sum exactly.
#[test]
fn triton_vectorised_atomic_add_sums_every_program() {
    for (file, bytes) in [
        ("triton_scatter_f16.ptx", 2usize),
        ("triton_scatter_f32.ptx", 4),
    ] {
        let k = crate::support::load_corpus("atom_h100", file);
        let mut next = rng(99);
        let y: Vec<f64> = (0..1536)
            .map(|_| f64::from(next() % 16) * 0.25 - 2.0)
            .collect();
        let enc = |v: f64| -> Vec<u8> {
            if bytes == 2 {
                f16::from_f64(v).to_bits().to_le_bytes().to_vec()
            } else {
                (v as f32).to_le_bytes().to_vec()
            }
        };
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let x = g.alloc("x", &vec![0u8; 256 * bytes]);
        let yb = g.alloc("y", &y.iter().flat_map(|&v| enc(v)).collect::<Vec<u8>>());
        // (x, y, n, Triton's global and profile scratch: null)
        let launch = plain_launch([6, 1, 1], [128, 1, 1], param_block(&k, [x, yb, 1536, 0, 0]));
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        assert!(
            r.diagnostics.is_empty() && r.hangs.is_empty(),
            "{file}: {r:?}"
        );
        let got = g.read_buffer(x).unwrap();
        for j in 0..256 {
            let want: f64 = (0..6).map(|p| y[p * 256 + j]).sum();
            assert_eq!(
                got[j * bytes..(j + 1) * bytes],
                enc(want)[..],
                "{file}: x[{j}] should be {want}"
            );
        }
    }
}
