//! `atom`/`red` `.add.noftz` on `.f16`, `.bf16`, `.f16x2`, `.bf16x2` (PTX ISA §9.7.13.5,
//! §9.7.13.6) run through the engine, against an independent reference: the `half` crate's
//! round-to-nearest-even conversion of the f32 sum of the two inputs. That reference is the
//! correctly rounded 16-bit sum: an f32 add followed by a rounding to a format of p bits is
//! innocuous double rounding when 24 >= 2p + 2 (Figueroa, "When is double rounding
//! innocuous?", 1995): p = 11 for f16, 8 for bf16; f32 keeps subnormals on the host (no FTZ),
//! matching `.noftz`. The engine computes in f64 and rounds through tmemu-num, a different
//! path.
//!
//! Inputs: hand-picked values (signed zeros, smallest/largest subnormals, largest finite,
//! infinities, NaNs, halfway ties at several exponents, cancellation) paired with each other,
//! plus pseudo-random bit patterns. NaN results are compared as "some NaN" (payload
//! UNCONFIRMED on hardware; the engine stores the canonical 0x7fff).

use half::{bf16, f16};
use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions};

use crate::support::{load_src, param_block, plain_launch};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fmt {
    F16,
    Bf16,
}

impl Fmt {
    fn to_f32(self, x: u16) -> f32 {
        match self {
            Fmt::F16 => f16::from_bits(x).to_f32(),
            Fmt::Bf16 => bf16::from_bits(x).to_f32(),
        }
    }
    fn encode(self, x: f32) -> u16 {
        match self {
            Fmt::F16 => f16::from_f32(x).to_bits(),
            Fmt::Bf16 => bf16::from_f32(x).to_bits(),
        }
    }
    fn is_nan(self, x: u16) -> bool {
        self.to_f32(x).is_nan()
    }
    /// The correctly rounded `a + b` (see the module comment).
    fn sum(self, a: u16, b: u16) -> u16 {
        self.encode(self.to_f32(a) + self.to_f32(b))
    }
    fn ptx(self, x2: bool) -> &'static str {
        match (self, x2) {
            (Fmt::F16, false) => "f16",
            (Fmt::Bf16, false) => "bf16",
            (Fmt::F16, true) => "f16x2",
            (Fmt::Bf16, true) => "bf16x2",
        }
    }
    fn special(self) -> Vec<u16> {
        match self {
            Fmt::F16 => vec![
                0x0000, 0x8000, // +-0
                0x0001, 0x8001, 0x0002, 0x03ff, 0x83ff, // subnormals
                0x0400, 0x8400, // smallest normals
                0x3c00, 0xbc00, 0x3c01, 0x1000, 0x0c00, // 1, -1, 1+ulp, 2^-11, 2^-12
                0x6800, 0x3800, 0x3400, 0x6801, // 2048, 0.5, 0.25, 2050: ties at 2048
                0x7bff, 0xfbff, 0x5000, 0x57ff, // max finite, 32, 127.9
                0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x7c01, // inf, -inf, NaNs
            ],
            Fmt::Bf16 => vec![
                0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, // zeros, subnormals
                0x0080, 0x8080, // smallest normals
                0x3f80, 0xbf80, 0x3f81, 0x3b80, 0x3b00, // 1, -1, 1+ulp, 2^-8, 2^-9
                0x4380, 0x3f00, 0x4381, 0x3c00, // 256, 0.5, 258, 2^-7
                0x7f7f, 0xff7f, 0x7f7e, // max finite
                0x7f80, 0xff80, 0x7fc0, 0xffc1, 0x7f81, // inf, -inf, NaNs
            ],
        }
    }
}

/// The pairs (memory value, addend): every special with every special, then random patterns.
fn pairs(f: Fmt, n_random: usize) -> Vec<(u16, u16)> {
    let s = f.special();
    let mut v: Vec<(u16, u16)> = s
        .iter()
        .flat_map(|&a| s.iter().map(move |&b| (a, b)))
        .collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        // xorshift64*
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    };
    for _ in 0..n_random {
        let r = next();
        // half the pairs share an exponent neighbourhood (close magnitudes: cancellation, ties)
        let a = r as u16;
        let b = if r >> 31 == 1 {
            (a & 0xfc00) ^ (next() as u16 & 0x83ff)
        } else {
            (r >> 16) as u16
        };
        v.push((a, b));
    }
    v
}

/// `atom` (storing the old value) or `red` of `.add.noftz.<ty>` by thread i on word i.
fn kernel(op: &str, ty: &str, x2: bool) -> String {
    let (w, reg, rdecl) = if x2 {
        (4, "%r", "")
    } else {
        (2, "%h", ".reg .b16 %h<12>;")
    };
    let bits = w * 8;
    let body = if op == "atom" {
        format!(
            "atom.global.add.noftz.{ty} {reg}10, [%rd5], {reg}9;\n    \
             st.global.b{bits} [%rd7], {reg}10;"
        )
    } else {
        format!("red.global.gpu.relaxed.add.noftz.{ty} [%rd5], {reg}9;")
    };
    let body = format!("    ld.global.b{bits} {reg}9, [%rd6];\n    {body}\n");
    crate::support::atom_kernel("8.7", rdecl, w, &body)
}

/// Runs `op` over the elements (`mem`, `b`: 16-bit patterns, packed two per word when `x2`);
/// returns (memory after, old values).
fn run_elems(op: &str, f: Fmt, x2: bool, mem: &[u16], b: &[u16]) -> (Vec<u16>, Vec<u16>) {
    const BLOCK: usize = 128;
    let per_thread = if x2 { 2 } else { 1 };
    let threads = mem.len().div_ceil(per_thread).div_ceil(BLOCK) * BLOCK;
    let n = threads * per_thread;
    let bytes = |v: &[u16]| -> Vec<u8> {
        let mut out: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        out.resize(n * 2, 0);
        out
    };
    let k = load_src(&kernel(op, f.ptx(x2), x2), "atom_half.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let m = g.alloc("mem", &bytes(mem));
    let bb = g.alloc("b", &bytes(b));
    let olds = g.alloc("olds", &vec![0u8; n * 2]);
    let launch = plain_launch(
        [(threads / BLOCK) as u32, 1, 1],
        [BLOCK as u32, 1, 1],
        param_block(&k, [m, bb, olds]),
    );
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let halves = |a: u64| -> Vec<u16> {
        g.read_buffer(a).unwrap()[..mem.len() * 2]
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    };
    (halves(m), halves(olds))
}

fn same(f: Fmt, got: u16, want: u16) -> bool {
    got == want || (f.is_nan(got) && f.is_nan(want))
}

fn check(op: &str, f: Fmt, x2: bool) {
    let ps = pairs(f, 4000);
    let a: Vec<u16> = ps.iter().map(|p| p.0).collect();
    let b: Vec<u16> = ps.iter().map(|p| p.1).collect();
    let (after, olds) = run_elems(op, f, x2, &a, &b);
    let mut bad = Vec::new();
    for i in 0..ps.len() {
        let want = f.sum(a[i], b[i]);
        if !same(f, after[i], want) {
            bad.push(format!(
                "{:#06x} + {:#06x}: got {:#06x}, want {want:#06x}",
                a[i], b[i], after[i]
            ));
        }
        if op == "atom" && olds[i] != a[i] {
            bad.push(format!(
                "old of {i}: got {:#06x}, want {:#06x}",
                olds[i], a[i]
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{op}.add.noftz.{}: {} of {} wrong, first: {:?}",
        f.ptx(x2),
        bad.len(),
        ps.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
fn atom_add_noftz_f16_is_the_correctly_rounded_sum_and_returns_the_old_value() {
    check("atom", Fmt::F16, false);
}

#[test]
fn red_add_noftz_f16_is_the_correctly_rounded_sum() {
    check("red", Fmt::F16, false);
}

#[test]
fn atom_add_noftz_bf16_is_the_correctly_rounded_sum_and_returns_the_old_value() {
    check("atom", Fmt::Bf16, false);
}

#[test]
fn atom_add_noftz_f16x2_adds_each_half_independently() {
    check("atom", Fmt::F16, true);
}

#[test]
fn red_add_noftz_bf16x2_adds_each_half_independently() {
    check("red", Fmt::Bf16, true);
}

#[test]
fn hand_picked_results_hold() {
    // Values worked out by hand, so the reference itself is checked too.
    let cases: &[(Fmt, u16, u16, u16)] = &[
        (Fmt::F16, 0x0001, 0x0001, 0x0002), // subnormals kept: 2^-24 + 2^-24 = 2^-23
        (Fmt::F16, 0x03ff, 0x0001, 0x0400), // largest subnormal + min = smallest normal
        (Fmt::F16, 0x6800, 0x3c00, 0x6800), // 2048 + 1: tie, to even 2048
        (Fmt::F16, 0x6801, 0x3c00, 0x6802), // 2050 + 1: tie, to even 2052
        // 65504 + 32 = 65536 is past max + half ulp (65520): infinity; 65504 + 8 stays
        (Fmt::F16, 0x7bff, 0x5000, 0x7c00),
        (Fmt::F16, 0x7bff, 0x4800, 0x7bff),
        (Fmt::F16, 0x0000, 0x8000, 0x0000),  // +0 + -0 = +0 (RNE)
        (Fmt::F16, 0x3c00, 0xbc00, 0x0000),  // 1 - 1 = +0
        (Fmt::F16, 0x7c00, 0xfc00, 0x7fff),  // inf - inf = NaN
        (Fmt::Bf16, 0x0001, 0x0001, 0x0002), // bf16 subnormals kept
        (Fmt::Bf16, 0x4380, 0x3f80, 0x4380), // 256 + 1: tie, to even 256
        (Fmt::Bf16, 0x4381, 0x3f80, 0x4382), // 258 + 1: tie, to even 260
    ];
    for &(f, a, b, want) in cases {
        let (after, _) = run_elems("atom", f, false, &[a], &[b]);
        assert!(
            same(f, after[0], want),
            "{f:?} {a:#06x} + {b:#06x}: got {:#06x}, want {want:#06x}",
            after[0]
        );
        assert!(
            same(f, f.sum(a, b), want),
            "reference disagrees on {a:#06x} + {b:#06x}"
        );
    }
}

#[test]
fn contended_red_on_one_word_sums_every_lane() {
    // 256 threads each add 0.5 to word 0 (all sums of halves up to 128 are exact in f16 and
    // bf16, so the order of the serialisation does not matter).
    for f in [Fmt::F16, Fmt::Bf16] {
        let half = f.encode(0.5);
        let src = kernel("red", f.ptx(false), false)
            .replace("add.u64 %rd5, %rd1, %rd4;", "mov.u64 %rd5, %rd1;");
        let k = load_src(&src, "contended.ptx");
        let mut g = GlobalMemory::new();
        let m = g.alloc("mem", &[0u8; 2]);
        let bb = g.alloc("b", &half.to_le_bytes().repeat(256));
        let olds = g.alloc("olds", &[0u8; 512]);
        let launch = plain_launch([2, 1, 1], [128, 1, 1], param_block(&k, [m, bb, olds]));
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
        let got = g.read_buffer(m).unwrap();
        assert_eq!(
            u16::from_le_bytes([got[0], got[1]]),
            f.encode(128.0),
            "{f:?}"
        );
    }
}

#[test]
fn shared_memory_half_atomics_add_in_place() {
    // 64 threads of one CTA: each adds 0.25 to a shared f16 word with `atom` and (0.25, -0.5)
    // to a shared bf16x2 word with `red`; thread 0 publishes both after the barrier.
    const SRC: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 out)
{
    .shared .align 4 .b8 cell[8];
    .reg .b16 %h<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 st.shared.b32 [cell], 0;
    @%p1 st.shared.b32 [cell+4], 0;
    bar.sync 0;
    mov.b16 %h1, 0x3400;
    atom.shared.add.noftz.f16 %h2, [cell], %h1;
    mov.b32 %r2, 0xbf003e80;
    red.shared.add.noftz.bf16x2 [cell+4], %r2;
    bar.sync 0;
    @!%p1 bra DONE;
    ld.param.u64 %rd1, [out];
    ld.shared.b32 %r3, [cell];
    ld.shared.b32 %r4, [cell+4];
    st.global.b32 [%rd1], %r3;
    st.global.b32 [%rd1+4], %r4;
DONE:
    ret;
}
"#;
    let k = load_src(SRC, "shared_half.ptx");
    let mut g = GlobalMemory::new();
    let out = g.alloc("out", &[0u8; 8]);
    let launch = plain_launch([1, 1, 1], [64, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty() && r.hangs.is_empty(), "{r:?}");
    let w = g.read_buffer(out).unwrap();
    let h = |i: usize| u16::from_le_bytes([w[i], w[i + 1]]);
    // 64 * 0.25 = 16 (f16 0x4c00); the untouched upper half of the f16 word stays 0;
    // bf16x2: low 64 * 0.25 = 16 (0x4180), high 64 * -0.5 = -32 (0xc200)
    assert_eq!(
        (h(0), h(2), h(4), h(6)),
        (
            f16::from_f32(16.0).to_bits(),
            0,
            bf16::from_f32(16.0).to_bits(),
            bf16::from_f32(-32.0).to_bits()
        )
    );
}
