//! Emulated `tcgen05.mma` FLOP/s per kind (f16, tf32, f8f6f4, mxf4) on an M=128, N=256 tile
//! with each kind's K (16, 8, 32, 64: one 32-byte K-row per operand row), against a native
//! f32 GEMM (`matrixmultiply::sgemm`) of the same M×N×K in the same process.
//!
//! The emulated side does what the engine does for one MMA: gather A (128×K) and B (256×K),
//! both K-major with the 128-byte swizzle, through their descriptors from a shared-memory
//! image; for mxf4, read the ue8m0 block-32 scale factors from TMEM and fold them into the
//! operands; multiply and accumulate into the TMEM cells of datapath layout D (f32
//! accumulator, enable-input-d). The native side is `sgemm` with β = 1 on ready f32
//! matrices.
//!
//! A second summary measures a K loop as the engine runs it with K fusion (`tmemu-sim`'s
//! `exec/mma/fuse.rs`): `FUSED_MMAS` f16 MMAs of K = 16 into one D, each gathered and appended
//! to a K panel, then one GEMM of K = 16·`FUSED_MMAS`, against one native sgemm of that K.
//!
//! Run: `cargo bench -p tmemu-tmem --bench mma_kinds`. After divan's table it prints, per
//! kind, best-of-rounds GFLOP/s (per thread CPU-second) of both sides and the ratio emulated/native measured
//! back to back (goal for f16: ≥ 0.5).
use std::hint::black_box;
use tmemu_tmem::desc::*;
use tmemu_tmem::mma::*;

const M: usize = 128;
const N: usize = 256;
const LDC: usize = 512;
const KINDS: [&str; 4] = ["f16", "tf32", "f8f6f4", "mxf4"];
/// Shared-memory offsets of the operands (A: 128 rows × 128 B, B: 256 rows × 128 B).
const A_START: u32 = 0x0000;
const B_START: u32 = 0x4000;
/// TMEM columns of the scale factors (mxf4) and of D.
const SFA_COL: u32 = 300;
const SFB_COL: u32 = 310;
const D_COL: u32 = 0;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    /// Uniform in [-2, 2).
    fn unit(&mut self) -> f32 {
        (self.next() % (1 << 24)) as f32 / (1 << 22) as f32 - 2.0
    }
}

struct Setup {
    kind: MmaKind,
    fmt: OperandFormat,
    idesc: InstrDescriptor,
    k: usize,
    smem: Vec<u8>,
    /// TMEM with the scale factors in place (mxf4) and D initialised to finite values.
    tmem: Vec<u32>,
}

fn k_major_sw128(start: u32) -> OperandLayout {
    OperandLayout::new(
        SmemDescriptor {
            start,
            lbo: 16,
            sbo: 1024,
            base_offset: 0,
            lbo_absolute: false,
            swizzle: Swizzle::B128,
        },
        Major::K,
    )
}

fn setup(name: &str) -> Setup {
    let mut rng = Rng(0x5EED ^ name.len() as u64);
    let mut smem = vec![0u8; 0x14000];
    // Every byte of the image is a valid finite code of the kind's element type, so the
    // arithmetic never meets NaN/Inf (which would not be representative).
    let (kind, elem, a_code, d_code) = match name {
        "f16" => {
            for w in smem.chunks_exact_mut(2) {
                w.copy_from_slice(&half::f16::from_f32(rng.unit()).to_bits().to_le_bytes());
            }
            (MmaKind::F16, ElemType::F16, 0, 1u32 << 4)
        }
        "tf32" => {
            for w in smem.chunks_exact_mut(4) {
                w.copy_from_slice(&rng.unit().to_bits().to_le_bytes());
            }
            (MmaKind::Tf32, ElemType::Tf32, 2, 1 << 4)
        }
        "f8f6f4" => {
            // e4m3 × e4m3: every code but the two NaNs (0x7F, 0xFF).
            for b in smem.iter_mut() {
                *b = loop {
                    let c = rng.next() as u8;
                    if c & 0x7F != 0x7F {
                        break c;
                    }
                };
            }
            (MmaKind::F8f6f4, ElemType::E4m3, 0, 1 << 4)
        }
        "mxf4" => {
            // e2m1 × e2m1, two per byte: every nibble is finite. Scale type ue8m0 (bit 23).
            for b in smem.iter_mut() {
                *b = rng.next() as u8;
            }
            (MmaKind::MxF4, ElemType::E2m1, 1, 1 << 23)
        }
        _ => unreachable!("unknown kind {name}"),
    };
    let idesc_raw = d_code
        | (a_code << 7)
        | (a_code << 10)
        | (((N as u32) >> 3) << 17)
        | (((M as u32) >> 4) << 24);
    let idesc = InstrDescriptor::decode(idesc_raw, kind).unwrap();
    let mut tmem = vec![0u32; 128 * 512];
    for lane in 0..128 {
        for c in 0..N {
            tmem[lane * 512 + D_COL as usize + c] = rng.unit().to_bits();
        }
    }
    if kind == MmaKind::MxF4 {
        // ue8m0 scales 2^-4..2^4 in bytes 0 and 1 (block32: 2 per row), row r at lane r % 32
        // (replicated in every lane quarter), column + r / 32.
        for (col0, rows) in [(SFA_COL, M as u32), (SFB_COL, N as u32)] {
            for r in 0..rows {
                let code = [123 + (rng.next() % 9) as u8, 123 + (rng.next() % 9) as u8];
                for q in 0..4 {
                    let cell = &mut tmem[((r % 32 + 32 * q) * 512 + col0 + r / 32) as usize];
                    let mut bytes = cell.to_le_bytes();
                    bytes[..2].copy_from_slice(&code);
                    *cell = u32::from_le_bytes(bytes);
                }
            }
        }
    }
    Setup {
        kind,
        fmt: OperandFormat { elem, kind },
        k: idesc.k() as usize,
        idesc,
        smem,
        tmem,
    }
}

/// One emulated MMA: gather, (scale), multiply-accumulate into TMEM.
fn emulated_mma(s: &Setup, tmem: &mut [u32], scratch: &mut MmaScratch) {
    let k = s.k;
    let mut a = std::mem::take(&mut scratch.a);
    let mut b = std::mem::take(&mut scratch.b);
    a.resize(M * k, 0.0);
    b.resize(N * k, 0.0);
    let order = GatherOrder::RowsByK;
    // Both K-major, so both gathered in their natural order (K contiguous); gathering a
    // K-major operand by K scatters every element (see gather_smem).
    let b_order = order;
    gather_smem(
        &s.smem,
        &k_major_sw128(A_START),
        s.fmt,
        M as u32,
        k as u32,
        order,
        &mut a,
    )
    .unwrap();
    gather_smem(
        &s.smem,
        &k_major_sw128(B_START),
        s.fmt,
        N as u32,
        k as u32,
        b_order,
        &mut b,
    )
    .unwrap();
    if s.kind.is_block_scaled() {
        let nsf = 2u32;
        let mut sf = [0f32; N * 2];
        gather_scales_tmem(tmem, SFA_COL, M as u32, nsf, 0, ScaleType::Ue8m0, &mut sf).unwrap();
        apply_block_scales(&mut a, M as u32, k as u32, order, &sf, nsf);
        gather_scales_tmem(tmem, SFB_COL, N as u32, nsf, 0, ScaleType::Ue8m0, &mut sf).unwrap();
        apply_block_scales(&mut b, N as u32, k as u32, b_order, &sf, nsf);
    }
    let req = MmaRequest {
        idesc: &s.idesc,
        layout: DLayout::D,
        a: &a,
        a_order: order,
        b: &b,
        b_order,
        enable_input_d: true,
        scale_input_d: 0,
        disable_output_lane: [0; 4],
    };
    execute(&req, 0, D_COL, tmem, scratch).unwrap();
    scratch.a = a;
    scratch.b = b;
}

/// MMAs of one fused K loop (K = 1024 for f16, the benchmark kernel's whole K).
const FUSED_MMAS: usize = 64;
/// K per panel block (`tmemu-sim`'s `exec/mma/fuse.rs`, `BLOCK_K`).
const BLOCK_K: usize = 256;

/// K panel of a fused loop as the engine keeps it: blocks of `BLOCK_K`, each A (M × BLOCK_K)
/// and B (N × BLOCK_K) with K contiguous.
struct Panel {
    a: Vec<f32>,
    b: Vec<f32>,
}

/// Gathers MMA `i` of the loop into its place in the panel (the engine gathers at each MMA's
/// completion, straight into the panel).
fn fused_gathers(s: &Setup, p: &mut Panel, i: usize) {
    let k = s.k;
    let (blk, off) = (i * k / BLOCK_K, i * k % BLOCK_K);
    for (start, rows, dst) in [(A_START, M, &mut p.a), (B_START, N, &mut p.b)] {
        gather_smem_strided(
            &s.smem,
            &k_major_sw128(start),
            s.fmt,
            rows as u32,
            k as u32,
            GatherOrder::RowsByK,
            BLOCK_K,
            &mut dst[blk * rows * BLOCK_K + off..],
        )
        .unwrap();
    }
}

/// The panel's GEMMs into D (one per block).
fn fused_gemms(p: &Panel, kt: usize, tmem: &mut [u32]) {
    for blk in 0..kt / BLOCK_K {
        let g = F32Gemm {
            layout: DLayout::D,
            n: N,
            k: BLOCK_K,
            a: Strided {
                data: &p.a[blk * M * BLOCK_K..],
                order: GatherOrder::RowsByK,
                ld: BLOCK_K,
            },
            b: Strided {
                data: &p.b[blk * N * BLOCK_K..],
                order: GatherOrder::RowsByK,
                ld: BLOCK_K,
            },
            negate: false,
            input_d: Some(0),
        };
        accumulate_f32(&g, 0, D_COL, tmem).unwrap();
    }
}

/// A fused K loop: every MMA's gathers, then the panel's GEMMs.
fn fused_loop(s: &Setup, p: &mut Panel, tmem: &mut [u32]) {
    for i in 0..FUSED_MMAS {
        fused_gathers(s, p, i);
    }
    fused_gemms(p, s.k * FUSED_MMAS, tmem);
}

struct Native {
    k: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
}

fn native(k: usize) -> Native {
    let mut rng = Rng(7);
    Native {
        k,
        a: (0..M * k).map(|_| rng.unit()).collect(),
        b: (0..k * N).map(|_| rng.unit()).collect(),
        c: (0..M * LDC).map(|_| rng.unit()).collect(),
    }
}

fn native_sgemm(n: &mut Native) {
    // SAFETY: a is M×k, b is k×N, c is M×N, all row-major and in bounds.
    unsafe {
        matrixmultiply::sgemm(
            M,
            n.k,
            N,
            1.0,
            n.a.as_ptr(),
            n.k as isize,
            1,
            n.b.as_ptr(),
            N as isize,
            1,
            1.0,
            n.c.as_mut_ptr(),
            LDC as isize,
            1,
        );
    }
}

fn flop(k: usize) -> u64 {
    (2 * M * N * k) as u64
}

#[divan::bench(args = KINDS)]
fn emulated(bencher: divan::Bencher, kind: &str) {
    let s = setup(kind);
    let mut tmem = s.tmem.clone();
    let mut scratch = MmaScratch::default();
    bencher
        .counter(divan::counter::ItemsCount::new(flop(s.k)))
        .bench_local(|| emulated_mma(black_box(&s), black_box(&mut tmem), &mut scratch));
}

#[divan::bench(args = KINDS)]
fn native_sgemm_same_shape(bencher: divan::Bencher, kind: &str) {
    let mut n = native(setup(kind).k);
    bencher
        .counter(divan::counter::ItemsCount::new(flop(n.k)))
        .bench_local(|| native_sgemm(black_box(&mut n)));
}

/// CPU time of this thread, in seconds: on a machine shared with other jobs, wall time
/// counts the time the scheduler gives to others.
fn thread_cpu_seconds() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write to.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Best-of-rounds thread CPU time per call, in seconds.
fn best_time(mut f: impl FnMut()) -> f64 {
    let iters = 1000;
    let mut best = f64::INFINITY;
    for _ in 0..9 {
        let t = thread_cpu_seconds();
        for _ in 0..iters {
            f();
        }
        best = best.min((thread_cpu_seconds() - t) / iters as f64);
    }
    best
}

fn main() {
    divan::main();
    println!("tcgen05.mma M=128 N=256, f32 accumulate, operands K-major 128B-swizzled in smem:");
    for kind in KINDS {
        let s = setup(kind);
        let mut tmem = s.tmem.clone();
        let mut scratch = MmaScratch::default();
        let mut n = native(s.k);
        // Interleave the two sides so that both see the same machine load.
        let (mut emu, mut nat) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..3 {
            emu = emu.min(best_time(|| {
                emulated_mma(black_box(&s), black_box(&mut tmem), &mut scratch)
            }));
            nat = nat.min(best_time(|| native_sgemm(black_box(&mut n))));
        }
        let f = flop(s.k) as f64;
        println!(
            "  {kind:7} K={:3}: emulated {:6.2} GFLOP/s ({:6.2} us), native sgemm {:6.2} GFLOP/s ({:6.2} us), emulated/native = {:.2}",
            s.k,
            f / emu / 1e9,
            emu * 1e6,
            f / nat / 1e9,
            nat * 1e6,
            nat / emu
        );
    }
    let s = setup("f16");
    let kt = s.k * FUSED_MMAS;
    println!(
        "K loop of {FUSED_MMAS} f16 MMAs (K={kt}) fused into one GEMM, M=128 N=256, per loop:"
    );
    let mut tmem = s.tmem.clone();
    let mut p = Panel {
        a: vec![0.0; M * kt],
        b: vec![0.0; N * kt],
    };
    let mut n = native(kt);
    let best = |f: &mut dyn FnMut()| {
        let mut best = f64::INFINITY;
        for _ in 0..9 {
            let t = thread_cpu_seconds();
            for _ in 0..20 {
                f();
            }
            best = best.min((thread_cpu_seconds() - t) / 20.0);
        }
        best
    };
    let (mut emu, mut nat, mut gat, mut gemm) =
        (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        emu = emu.min(best(&mut || {
            fused_loop(black_box(&s), &mut p, black_box(&mut tmem))
        }));
        nat = nat.min(best(&mut || native_sgemm(black_box(&mut n))));
        // where the loop's time goes
        gat = gat.min(best(&mut || {
            for i in 0..FUSED_MMAS {
                fused_gathers(black_box(&s), &mut p, i);
            }
        }));
        gemm = gemm.min(best(&mut || fused_gemms(&p, kt, black_box(&mut tmem))));
    }
    println!("  gathers {:.1} us, GEMMs {:.1} us", gat * 1e6, gemm * 1e6);
    let f = flop(kt) as f64;
    println!(
        "  f16 fused K={kt}: emulated {:6.2} GFLOP/s ({:7.1} us), native sgemm {:6.2} GFLOP/s ({:7.1} us), emulated/native = {:.2}",
        f / emu / 1e9,
        emu * 1e6,
        f / nat / 1e9,
        nat * 1e6,
        nat / emu
    );
}
