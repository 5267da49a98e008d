//! Per-lane throughput of the hot arithmetic paths, as the engine calls them (one call per
//! lane over 32-lane arrays). Plain `std::time` measurement (no harness dependency): run with
//! `cargo bench -p tmemu-num --bench ops`. Reports lanes per second and the ratio to the
//! native CPU operation on the same data.

use std::hint::black_box;
use std::time::Instant;
use tmemu_num::ops::float::{self as fl, FloatMods};
use tmemu_num::ops::half::{eval_half_x2, HalfKind, HalfMods, HalfOp};
use tmemu_num::ops::{cvt, CvtMods, Rounding, ScalarType as T};

const LANES: usize = 32;
const ROUNDS: usize = 200_000;

fn inputs(seed: u32) -> [u32; LANES] {
    let mut x = seed;
    std::array::from_fn(|_| {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (x & 0x807f_ffff) | ((100 + (x >> 24) % 50) << 23)
    })
}

/// f16x2 operands with moderate exponents.
fn inputs_h2(seed: u32) -> [u32; LANES] {
    let mut x = seed;
    std::array::from_fn(|_| {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let h = |v: u32| (v & 0x83ff) | ((10 + (v >> 11) % 10) << 10);
        h(x) | (h(x >> 16) << 16)
    })
}

fn measure(
    name: &str,
    native: Option<f64>,
    mut f: impl FnMut(&[u32; LANES], &[u32; LANES], &[u32; LANES], &mut [u32; LANES]),
) -> f64 {
    let (a, b, c) = (inputs(1), inputs(2), inputs(3));
    let mut d = [0u32; LANES];
    let t = Instant::now();
    for _ in 0..ROUNDS {
        f(black_box(&a), black_box(&b), black_box(&c), &mut d);
        black_box(&d);
    }
    let per_s = (ROUNDS * LANES) as f64 / t.elapsed().as_secs_f64();
    match native {
        Some(n) => println!(
            "{name:32} {:8.1} M lanes/s  ({:.2}x native)",
            per_s / 1e6,
            n / per_s
        ),
        None => println!("{name:32} {:8.1} M lanes/s", per_s / 1e6),
    }
    per_s
}

fn main() {
    let native_fma = measure("native f32 mul_add (reference)", None, |a, b, c, d| {
        for i in 0..LANES {
            d[i] = f32::from_bits(a[i])
                .mul_add(f32::from_bits(b[i]), f32::from_bits(c[i]))
                .to_bits();
        }
    });
    let native_add = measure("native f32 add (reference)", None, |a, b, _, d| {
        for i in 0..LANES {
            d[i] = (f32::from_bits(a[i]) + f32::from_bits(b[i])).to_bits();
        }
    });
    let rn = FloatMods::RN;
    let rz = FloatMods {
        rnd: Rounding::Rz,
        ..rn
    };
    measure("fma.rn.f32", Some(native_fma), |a, b, c, d| {
        for i in 0..LANES {
            d[i] = fl::f32_fma(a[i], b[i], c[i], rn);
        }
    });
    measure("fma.rz.f32", Some(native_fma), |a, b, c, d| {
        for i in 0..LANES {
            d[i] = fl::f32_fma(a[i], b[i], c[i], rz);
        }
    });
    measure("add.rn.f32", Some(native_add), |a, b, _, d| {
        for i in 0..LANES {
            d[i] = fl::f32_add(a[i], b[i], rn);
        }
    });
    measure("add.rz.ftz.f32", Some(native_add), |a, b, _, d| {
        for i in 0..LANES {
            d[i] = fl::f32_add(a[i], b[i], FloatMods { ftz: true, ..rz });
        }
    });
    measure("div.rn.f32", Some(native_add), |a, b, _, d| {
        for i in 0..LANES {
            d[i] = fl::f32_div(a[i], b[i], rn);
        }
    });
    measure(
        "add.rz.f64 (apfloat slow path)",
        Some(native_add),
        |a, b, _, d| {
            for i in 0..LANES {
                d[i] = fl::f64_add((a[i] as u64) << 29, (b[i] as u64) << 29, Rounding::Rz) as u32;
            }
        },
    );
    let (ha, hb, hc) = (inputs_h2(4), inputs_h2(5), inputs_h2(6));
    measure(
        "fma.rn.f16x2 (2 lanes each)",
        Some(native_fma),
        |_, _, _, d| {
            for i in 0..LANES {
                d[i] = eval_half_x2(
                    HalfKind::F16,
                    HalfOp::Fma,
                    ha[i],
                    hb[i],
                    hc[i],
                    HalfMods::default(),
                );
            }
        },
    );
    measure(
        "add.rn.bf16x2 (2 lanes each)",
        Some(native_add),
        |_, _, _, d| {
            for i in 0..LANES {
                d[i] = eval_half_x2(
                    HalfKind::Bf16,
                    HalfOp::Add,
                    ha[i],
                    hb[i],
                    0,
                    HalfMods::default(),
                );
            }
        },
    );
    measure("cvt.rn.f16.f32", Some(native_add), |a, _, _, d| {
        for i in 0..LANES {
            d[i] = cvt(T::F16, T::F32, a[i] as u64, CvtMods::rnd(Rounding::Rn)).unwrap_or(0) as u32;
        }
    });
}
