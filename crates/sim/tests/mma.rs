//! `tcgen05.mma` as the engine executes it (`tmemu_sim::exec::mma::{check, compute}`) on
//! operands laid out in shared memory by this test from the PTX ISA's canonical layouts
//! (§9.7.16.3.3, written out independently here) and compared with an f64 reference product.
//! Values are small integers (or halves), so every f32 sum is exact and the comparison is exact.

use tmemu_sim::exec::mma::{check, compute, AOperand, MmaOp};
use tmemu_tmem::desc::MmaKind;

const SHARED: usize = 64 * 1024;

/// 128B-swizzled address (`Swizzle<3,4,3>` on the byte address).
fn sw128(a: usize) -> usize {
    a ^ (((a >> 7) & 7) << 4)
}

/// Writes `x` (rows × k, row-major) as a K-major 128B-swizzled f16/bf16 operand at `base`
/// (atoms of 8 rows × 128 bytes; 8-row groups `sbo` apart; K blocks of 64 elements `kblk`
/// apart).
fn put_kmajor(smem: &mut [u8], base: usize, x: &[f32], rows: usize, k: usize, bf16: bool) {
    let sbo = 1024;
    let kblk = rows / 8 * sbo;
    for r in 0..rows {
        for kk in 0..k {
            let off = (r % 8) * 128 + (r / 8) * sbo + (kk / 64) * kblk + (kk % 64) * 2;
            let a = sw128(base + off);
            let bits = to16(x[r * k + kk], bf16);
            smem[a..a + 2].copy_from_slice(&bits.to_le_bytes());
        }
    }
}

/// Writes `x` (rows × k) as an MN-major 128B-swizzled operand: ((8,8,m),(8,k)) :
/// ((1,8,LBO),(64,SBO)) in elements, LBO between 64-row blocks, SBO between 8-K-row groups.
fn put_mnmajor(
    smem: &mut [u8],
    base: usize,
    x: &[f32],
    rows: usize,
    k: usize,
    lbo: usize,
    bf16: bool,
) {
    let sbo = 1024;
    for r in 0..rows {
        for kk in 0..k {
            let off = (r % 64) * 2 + (r / 64) * lbo + (kk % 8) * 128 + (kk / 8) * sbo;
            let a = sw128(base + off);
            let bits = to16(x[r * k + kk], bf16);
            smem[a..a + 2].copy_from_slice(&bits.to_le_bytes());
        }
    }
}

fn to16(v: f32, bf16: bool) -> u16 {
    if bf16 {
        half::bf16::from_f32(v).to_bits()
    } else {
        half::f16::from_f32(v).to_bits()
    }
}

fn smem_desc(start: usize, lbo: usize, sbo: usize) -> u64 {
    let enc = |x: usize| ((x & 0x3FFFF) >> 4) as u64;
    enc(start) | (enc(lbo) << 16) | (enc(sbo) << 32) | (1 << 46) | (2u64 << 61)
}

/// Instruction descriptor of `.kind::f16` with an f32 accumulator.
fn idesc_f16(m: u32, n: u32, bf16: bool, a_mn: bool, b_mn: bool) -> u32 {
    let ty = u32::from(bf16);
    (1 << 4)
        | (ty << 7)
        | (ty << 10)
        | (u32::from(a_mn) << 15)
        | (u32::from(b_mn) << 16)
        | ((n >> 3) << 17)
        | ((m >> 4) << 24)
}

fn ints(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((s >> 24) % 9) as f32 - 4.0
        })
        .collect()
}

fn reference(a: &[f32], b: &[f32], m: usize, n: usize, k: usize) -> Vec<f64> {
    let mut d = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            d[i * n + j] = (0..k)
                .map(|kk| f64::from(a[i * k + kk]) * f64::from(b[j * k + kk]))
                .sum();
        }
    }
    d
}

/// A: 128 × 64 K-major at 0; B: n × 64 at 32 KiB (K- or MN-major); four K=16 steps into D at
/// TMEM column `col`; then D is compared with A·Bᵀ.
fn f16_gemm(n: usize, bf16: bool, b_mn: bool, col: u32) {
    let (m, k) = (128usize, 64usize);
    let a = ints(m * k, 1);
    let b = ints(n * k, 2);
    let mut smem = vec![0u8; SHARED];
    put_kmajor(&mut smem, 0, &a, m, k, bf16);
    let bbase = 32 * 1024;
    if b_mn {
        put_mnmajor(&mut smem, bbase, &b, n, k, 8 * 1024, bf16);
    } else {
        put_kmajor(&mut smem, bbase, &b, n, k, bf16);
    }
    let mut tmem = vec![0xDEAD_BEEFu32; 128 * 512];
    for step in 0..4 {
        // K-major: 16 elements = 32 bytes further along the swizzled row; MN-major: two groups
        // of 8 K-rows = 2 · SBO.
        let a_desc = smem_desc(step * 32, 16, 1024);
        let b_desc = if b_mn {
            smem_desc(bbase + step * 2048, 8 * 1024, 1024)
        } else {
            smem_desc(bbase + step * 32, 16, 1024)
        };
        let op = MmaOp {
            kind: MmaKind::F16,
            cta_group: 1,
            ws: false,
            idesc: idesc_f16(m as u32, n as u32, bf16, false, b_mn),
            d_taddr: col,
            a: AOperand::Desc(a_desc),
            b_desc,
            dol: [0; 8],
            enable_d: step > 0,
            sid: 0,
            scale: None,
            zcm: 0,
            meta: None,
        };
        let c = check(&op).expect("legal mma");
        compute(&op, &c, &[&smem], &mut [&mut tmem[..]]).expect("mma");
    }
    let want = reference(&a, &b, m, n, k);
    for i in 0..m {
        for j in 0..n {
            let got = f32::from_bits(tmem[i * 512 + col as usize + j]);
            assert_eq!(f64::from(got), want[i * n + j], "D[{i}][{j}]");
        }
    }
    // Columns outside D are untouched.
    if col > 0 {
        assert_eq!(tmem[col as usize - 1], 0xDEAD_BEEF);
    }
}

#[test]
fn f16_k_major_both() {
    f16_gemm(64, false, false, 0);
}

#[test]
fn bf16_n_major_b_at_a_column_offset() {
    f16_gemm(128, true, true, 128);
}

#[test]
fn f16_n_major_b_n256() {
    f16_gemm(256, false, true, 256);
}

#[test]
fn cta_pair_m256_each_cta_gets_its_rows_from_both_ctas_b_halves() {
    let (m, n, k) = (256usize, 128usize, 16usize);
    let a = ints(m * k, 3);
    let b = ints(n * k, 4);
    let mut s0 = vec![0u8; SHARED];
    let mut s1 = vec![0u8; SHARED];
    // CTA v holds A rows v·128.. and B columns v·64.. at the same addresses.
    put_kmajor(&mut s0, 0, &a[..128 * k], 128, k, false);
    put_kmajor(&mut s1, 0, &a[128 * k..], 128, k, false);
    put_kmajor(&mut s0, 16384, &b[..64 * k], 64, k, false);
    put_kmajor(&mut s1, 16384, &b[64 * k..], 64, k, false);
    let mut t0 = vec![0u32; 128 * 512];
    let mut t1 = vec![0u32; 128 * 512];
    let op = MmaOp {
        kind: MmaKind::F16,
        cta_group: 2,
        ws: false,
        idesc: idesc_f16(m as u32, n as u32, false, false, false),
        d_taddr: 0,
        a: AOperand::Desc(smem_desc(0, 16, 1024)),
        b_desc: smem_desc(16384, 16, 1024),
        dol: [0; 8],
        enable_d: false,
        sid: 0,
        scale: None,
        zcm: 0,
        meta: None,
    };
    let c = check(&op).expect("legal");
    compute(&op, &c, &[&s0, &s1], &mut [&mut t0[..], &mut t1[..]]).expect("mma");
    let want = reference(&a, &b, m, n, k);
    for i in 0..m {
        let t = if i < 128 { &t0 } else { &t1 };
        for j in 0..n {
            let got = f32::from_bits(t[(i % 128) * 512 + j]);
            assert_eq!(f64::from(got), want[i * n + j], "D[{i}][{j}]");
        }
    }
}

#[test]
fn descriptor_and_shape_errors_name_their_rules() {
    let base = MmaOp {
        kind: MmaKind::F16,
        cta_group: 1,
        ws: false,
        idesc: idesc_f16(128, 64, false, false, false),
        d_taddr: 0,
        a: AOperand::Desc(smem_desc(0, 16, 1024)),
        b_desc: smem_desc(16384, 16, 1024),
        dol: [0; 8],
        enable_d: false,
        sid: 0,
        scale: None,
        zcm: 0,
        meta: None,
    };
    let rule = |op: &MmaOp| check(op).unwrap_err().rule().map(|r| r.id);
    // version bits 46-48 = 0
    let mut op = base;
    op.a = AOperand::Desc(smem_desc(0, 16, 1024) & !(1 << 46));
    assert_eq!(rule(&op), Some("TM0301"));
    // reserved bit 53
    let mut op = base;
    op.b_desc |= 1 << 53;
    assert_eq!(rule(&op), Some("TM0302"));
    // layout type 3
    let mut op = base;
    op.b_desc = (op.b_desc & !(7u64 << 61)) | (3u64 << 61);
    assert_eq!(rule(&op), Some("TM0303"));
    // M = 256 with cta_group::1
    let mut op = base;
    op.idesc = idesc_f16(256, 64, false, false, false);
    assert_eq!(rule(&op), Some("TM0308"));
    // N = 12 is not a multiple of 8
    let mut op = base;
    op.idesc = (op.idesc & !(0x3F << 17)) | (1 << 17);
    assert!(check(&op).is_ok(), "N = 8 is legal");
    op.idesc = (op.idesc & !(0x3F << 17)) | (33 << 17);
    assert_eq!(rule(&op), Some("TM0308"), "N = 264");
    // D lane field 32 with M = 128
    let mut op = base;
    op.d_taddr = 32 << 16;
    assert_eq!(rule(&op), Some("TM0314"));
}
