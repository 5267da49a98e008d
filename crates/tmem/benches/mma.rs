//! Emulated `tcgen05.mma.kind::f16` throughput on a 128×256×16 tile, against a plain f32
//! GEMM of the same size from `matrixmultiply` in the same process.
//!
//! The emulated path does everything the engine does for one MMA: gather A (128×16) and B
//! (256×16, N-major like Triton's) from a 128B-swizzled shared-memory image through their
//! descriptors, convert f16 → f32, multiply, and accumulate into the TMEM cells of layout D.
//! The native path is `sgemm` on ready f32 matrices with β = 1.
//!
//! Run: `cargo bench -p tmemu-tmem --bench mma`. After divan's table it prints the ratio of
//! the two measured in this process (goal: emulated ≥ 0.5 × native).
use std::hint::black_box;
use std::time::Instant;
use tmemu_tmem::desc::*;
use tmemu_tmem::mma::*;

const M: usize = 128;
const N: usize = 256;
const K: usize = 16;
const FLOP: f64 = (2 * M * N * K) as f64;

struct Setup {
    smem: Vec<u8>,
    a_layout: OperandLayout,
    b_layout: OperandLayout,
    idesc: InstrDescriptor,
}

fn setup() -> Setup {
    let mut smem = vec![0u8; 0x14000];
    // A: K-major, 128B swizzle at 0x0000; B: N-major, 128B swizzle at 0x4000 (LBO = next
    // 64 columns of N, SBO = next 8 K-rows). Contents: any finite f16 pattern.
    for (i, b) in smem.iter_mut().enumerate() {
        *b = if i % 2 == 1 {
            0x3C ^ (i as u8 & 0x3)
        } else {
            (i * 37) as u8
        };
    }
    let desc = |start, lbo, sbo| SmemDescriptor {
        start,
        lbo,
        sbo,
        base_offset: 0,
        lbo_absolute: false,
        swizzle: Swizzle::B128,
    };
    let idesc_raw = (1 << 4) | (1 << 16) | (((N as u32) >> 3) << 17) | (((M as u32) >> 4) << 24);
    Setup {
        a_layout: OperandLayout::new(desc(0, 16, 1024), Major::K),
        b_layout: OperandLayout::new(desc(0x4000, 8192, 1024), Major::MN),
        idesc: InstrDescriptor::decode(idesc_raw, MmaKind::F16).unwrap(),
        smem,
    }
}

fn emulated_mma(s: &Setup, tmem: &mut [u32], scratch: &mut MmaScratch) {
    let fmt = OperandFormat {
        elem: ElemType::F16,
        kind: MmaKind::F16,
    };
    let mut a = std::mem::take(&mut scratch.a);
    let mut b = std::mem::take(&mut scratch.b);
    a.resize(M * K, 0.0);
    b.resize(N * K, 0.0);
    // Each operand in its natural order: K-major A by rows, N-major B by K.
    gather_smem(
        &s.smem,
        &s.a_layout,
        fmt,
        M as u32,
        K as u32,
        GatherOrder::RowsByK,
        &mut a,
    )
    .unwrap();
    gather_smem(
        &s.smem,
        &s.b_layout,
        fmt,
        N as u32,
        K as u32,
        GatherOrder::KByRows,
        &mut b,
    )
    .unwrap();
    let req = MmaRequest {
        idesc: &s.idesc,
        layout: DLayout::D,
        a: &a,
        a_order: GatherOrder::RowsByK,
        b: &b,
        b_order: GatherOrder::KByRows,
        enable_input_d: true,
        scale_input_d: 0,
        disable_output_lane: [0; 4],
    };
    execute(&req, 0, 0, tmem, scratch).unwrap();
    scratch.a = a;
    scratch.b = b;
}

fn native_sgemm(a: &[f32], b: &[f32], c: &mut [f32]) {
    // SAFETY: a is M×K, b is K×N, c is M×N, all row-major and in bounds.
    unsafe {
        matrixmultiply::sgemm(
            M,
            K,
            N,
            1.0,
            a.as_ptr(),
            K as isize,
            1,
            b.as_ptr(),
            N as isize,
            1,
            1.0,
            c.as_mut_ptr(),
            N as isize,
            1,
        );
    }
}

#[divan::bench]
fn emulated_f16_128x256x16(bencher: divan::Bencher) {
    let s = setup();
    let mut tmem = vec![0u32; 128 * 512];
    let mut scratch = MmaScratch::default();
    bencher
        .counter(divan::counter::ItemsCount::new(FLOP as u64))
        .bench_local(|| emulated_mma(black_box(&s), black_box(&mut tmem), &mut scratch));
}

#[divan::bench]
fn native_sgemm_128x256x16(bencher: divan::Bencher) {
    let a = vec![0.5f32; M * K];
    let b = vec![0.25f32; K * N];
    let mut c = vec![0f32; M * N];
    bencher
        .counter(divan::counter::ItemsCount::new(FLOP as u64))
        .bench_local(|| native_sgemm(black_box(&a), black_box(&b), black_box(&mut c)));
}

/// Best-of-rounds time per call, in seconds.
fn best_time(mut f: impl FnMut()) -> f64 {
    let iters = 2000;
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let t = Instant::now();
        for _ in 0..iters {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / iters as f64);
    }
    best
}

fn main() {
    divan::main();
    let s = setup();
    let mut tmem = vec![0u32; 128 * 512];
    let mut scratch = MmaScratch::default();
    let emu = best_time(|| emulated_mma(black_box(&s), black_box(&mut tmem), &mut scratch));
    let a = vec![0.5f32; M * K];
    let b = vec![0.25f32; K * N];
    let mut c = vec![0f32; M * N];
    let nat = best_time(|| native_sgemm(black_box(&a), black_box(&b), black_box(&mut c)));
    println!(
        "mma 128x256x16 f16: emulated {:.2} GFLOP/s ({:.1} us), native sgemm {:.2} GFLOP/s ({:.1} us), emulated/native = {:.2}",
        FLOP / emu / 1e9,
        emu * 1e6,
        FLOP / nat / 1e9,
        nat * 1e6,
        nat / emu
    );
}
