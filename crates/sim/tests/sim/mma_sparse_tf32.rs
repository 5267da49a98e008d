//! `tcgen05.mma.sp` with `.kind::tf32` (1:2 sparsity, PTX ISA §9.7.16.10.8): M = 128, N = 16
//! (and `.ws` with N = 64),
//! sparse K = 16, packed A (128 × 8 f32) and B in shared memory, the metadata at TMEM column
//! 64. The reference is the f64 product of the dense A written out here from the packed values
//! and the pair positions, so it shares nothing with the engine's expansion.
//!
//! The metadata encoding and place are this test's statement of the reading documented in
//! `tmemu_tmem::mma::sparse` (DERIVED): one nibble per pair of K elements, 0b0100 = the stored
//! element is the pair's first, 0b1110 = its second (the ISA's two meaningful tf32 values); the
//! nibble of pair g of row m on lane (m % 8) + 8·(g / 4) + 16·(m / 16), bit
//! 16·((m / 8) % 2) + 4·(g % 4) (CUTLASS `tmem_e_frg`'s TF32 atom, M = 128).

use tmemu_sim::exec::mma::{check, compute, AOperand, MmaOp};
use tmemu_tmem::desc::MmaKind;

const M: usize = 128;
const K: usize = 16;

/// Writes row r's bytes K-major without swizzle: 16-byte chunk c of row r at
/// `(r % 8)·16 + (r / 8)·sbo + c·lbo` (PTX ISA §9.7.16.3.3).
fn put_rows(
    smem: &mut [u8],
    base: usize,
    rows: usize,
    lbo: usize,
    sbo: usize,
    row: impl Fn(usize) -> Vec<u8>,
) {
    for r in 0..rows {
        for (i, byte) in row(r).into_iter().enumerate() {
            smem[base + (r % 8) * 16 + (r / 8) * sbo + (i % 16) + (i / 16) * lbo] = byte;
        }
    }
}

fn desc_none(start: usize, lbo: usize, sbo: usize) -> u64 {
    let enc = |x: usize| ((x & 0x3FFFF) >> 4) as u64;
    enc(start) | (enc(lbo) << 16) | (enc(sbo) << 32) | (1 << 46)
}

/// Small values exact in tf32 (and their 16-term sums exact in f32).
fn vals(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((s >> 24) % 15) as f32 - 7.0 + if s & 0x100 != 0 { 0.5 } else { 0.0 }
        })
        .collect()
}

/// (dense M × K, packed M × K/2, nibbles M × K/2): per row and pair one stored value, at the
/// pair's first or second position.
fn sparse_a(seed: u32) -> (Vec<f32>, Vec<f32>, Vec<u8>) {
    let v = vals(M * K / 2, seed);
    let mut s = seed ^ 0xa5a5;
    let (mut dense, mut nib) = (vec![0f32; M * K], Vec::new());
    for r in 0..M {
        for g in 0..K / 2 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let second = s >> 31 == 1;
            dense[r * K + 2 * g + usize::from(second)] = v[r * K / 2 + g];
            nib.push(if second { 0b1110 } else { 0b0100 });
        }
    }
    (dense, v, nib)
}

fn put_meta(tmem: &mut [u32], c0: usize, nib: &[u8]) {
    let pairs = K / 2;
    for m in 0..M {
        for g in 0..pairs {
            let lane = (m % 8) + 8 * (g / 4) + 16 * (m / 16);
            let bit = 16 * ((m / 8) % 2) + 4 * (g % 4);
            tmem[lane * 512 + c0] |= u32::from(nib[m * pairs + g]) << bit;
        }
    }
}

/// Runs the MMA (`.ws` when `ws`, N columns) with the metadata `nib`; returns (D as
/// computed, the f64 reference).
fn sp_tf32(
    nib_override: Option<(usize, u8)>,
    selector: u32,
    ws: bool,
    n: usize,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let (dense, packed, mut nib) = sparse_a(7);
    if let Some((i, x)) = nib_override {
        nib[i] = x;
    }
    let b = vals(n * K, 8);
    let bytes =
        |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|x| x.to_bits().to_le_bytes()).collect() };
    let mut smem = vec![0u8; 32 * 1024];
    // packed A: 8 f32 = 32 bytes per row (two chunks, LBO 128, SBO 256)
    put_rows(&mut smem, 0, M, 128, 256, |r| {
        bytes(&packed[r * K / 2..(r + 1) * K / 2])
    });
    // B: 16 f32 = 64 bytes per row (four chunks, LBO 128, SBO 512)
    put_rows(&mut smem, 16384, n, 128, 512, |r| {
        bytes(&b[r * K..(r + 1) * K])
    });
    let mut tmem = vec![0u32; 128 * 512];
    put_meta(&mut tmem, 64, &nib);
    // D f32, A and B tf32 (code 2), sparse, n, M
    let idesc = (1 << 4)
        | (2 << 7)
        | (2 << 10)
        | (1 << 2)
        | ((n as u32 >> 3) << 17)
        | ((M as u32 >> 4) << 24)
        | selector;
    let op = MmaOp {
        kind: MmaKind::Tf32,
        cta_group: 1,
        ws,
        idesc,
        d_taddr: 0,
        a: AOperand::Desc(desc_none(0, 128, 256)),
        b_desc: desc_none(16384, 128, 512),
        dol: [0; 8],
        enable_d: false,
        sid: 0,
        scale: None,
        zcm: 0,
        meta: Some(64),
    };
    let c = check(&op).map_err(|e| e.to_string())?;
    compute(&op, &c, &[&smem], &mut [&mut tmem[..]]).map_err(|e| e.to_string())?;
    let got = (0..M * n)
        .map(|x| f64::from(f32::from_bits(tmem[(x / n) * 512 + x % n])))
        .collect();
    let want = (0..M * n)
        .map(|x| {
            let (i, j) = (x / n, x % n);
            (0..K)
                .map(|kk| f64::from(dense[i * K + kk]) * f64::from(b[j * K + kk]))
                .sum()
        })
        .collect();
    Ok((got, want))
}

#[test]
fn sparse_tf32_mma_equals_the_dense_product_of_the_expanded_a() {
    let (got, want) = sp_tf32(None, 0, false, 16).unwrap();
    assert!(want.iter().any(|&x| x != 0.0));
    assert_eq!(got, want);
}

#[test]
fn sparse_tf32_metadata_other_than_the_two_meaningful_nibbles_is_refused() {
    // 0b1000 would be a valid 2:4 pair (0, 2) for f16, but names no tf32 position
    for bad in [0b1000u8, 0b0000, 0b1111] {
        let e = sp_tf32(Some((5, bad)), 0, false, 16).unwrap_err();
        assert!(e.contains("not modelled") && e.contains("tf32"), "{e}");
    }
    // a non-zero sparsity selector: which sub-columns it picks is only in the ISA's figures
    let e = sp_tf32(None, 1, false, 16).unwrap_err();
    assert!(e.contains("not modelled"), "{e}");
}

#[test]
fn ws_sparse_tf32_mma_with_m_128_reads_the_same_metadata_place() {
    // `.ws.sp`, M = 128 (layout D), N = 64 (sparse .ws allows 64 and 128)
    let (got, want) = sp_tf32(None, 0, true, 64).unwrap();
    assert!(want.iter().any(|&x| x != 0.0));
    assert_eq!(got, want);
}
