//! End to end against real compiler output and numpy: the Triton 3.9 sm_100a matmul corpus
//! (tests/corpus/kernels/triton/matmul_{fp16,fp8}.*) keeps A, B and numpy's C = A·B. Each
//! CTA of that kernel stages a 128×64 (f16) / 128×128 (fp8) K-major A tile and an N-major B
//! tile in shared memory with the 128-byte swizzle, then issues 4 tcgen05.mma per K tile with
//! the instruction descriptor and descriptor constants seen in the PTX (high word
//! 0x40004040 = SBO 1024, version 1, 128B swizzle; A advanced by 32 bytes per MMA; B with
//! LBO = the next 64/128-element block of N, advanced by K_mma rows per MMA).
//!
//! Here the tiles are written with the TMA/st.shared swizzle rule (16-byte chunk c of the
//! 128-byte row at address bits 7..9 = r goes to chunk c ^ r), the MMAs run through
//! `gather_operand` + `execute`, and D is compared with numpy's C with the corpus's own
//! tolerances (the .toml files explain them).
use std::path::PathBuf;
use tmemu_tmem::desc::*;
use tmemu_tmem::mma::*;

/// A C-order .npy array: (shape, raw little-endian bytes, element size).
fn npy(name: &str) -> (Vec<usize>, Vec<u8>, usize) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/kernels/triton")
        .join(name);
    // Large arrays are committed as NAME.npy.gz (kernels/regen.py); specs still name NAME.npy.
    let bytes = tmemu_testkit::recording::read(&path);
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let (hlen, hstart) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        )
    };
    let header = std::str::from_utf8(&bytes[hstart..hstart + hlen]).unwrap();
    assert!(header.contains("'fortran_order': False"));
    let elem = if header.contains("<f2") {
        2
    } else if header.contains("|u1") {
        1
    } else {
        assert!(header.contains("<f4"), "{header}");
        4
    };
    let shape_txt = &header[header.find("'shape': (").unwrap() + 10..];
    let shape: Vec<usize> = shape_txt[..shape_txt.find(')').unwrap()]
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().unwrap())
        .collect();
    (shape, bytes[hstart + hlen..].to_vec(), elem)
}

/// Stores byte `b` of 128-byte row `r` of a swizzled region starting at a 1024-aligned `base`.
fn put(smem: &mut [u8], base: usize, r: usize, b: usize, v: u8) {
    smem[base + r * 128 + (((b / 16) ^ (r % 8)) * 16) + b % 16] = v;
}

fn run(prefix: &str, kind: MmaKind, idesc_raw: u32, rtol: f32, atol: f32) {
    let (ashape, a, e) = npy(&format!("{prefix}.a.npy"));
    let (bshape, b, _) = npy(&format!("{prefix}.b.npy"));
    let (cshape, c, ce) = npy(&format!("{prefix}.expected.c.npy"));
    assert_eq!(ce, 4);
    let (m_all, k_all, n) = (ashape[0], ashape[1], bshape[1]);
    assert_eq!((bshape[0], cshape[0], cshape[1]), (k_all, m_all, n));
    let idesc = InstrDescriptor::decode(idesc_raw, kind).unwrap();
    assert_eq!((idesc.m as usize, idesc.n as usize), (128, n));
    let k_mma = idesc.k() as usize; // 32 bytes of K per MMA
    let bk = 128 / e; // one 128-byte row of K per A row
    let elems_per_block = 128 / e; // N elements per 128-byte B row
    let (a_base, b_base) = (0usize, 0x4000usize);
    let b_lbo = bk * 128; // next block of N: BK rows of 128 bytes
    let hi = 0x4000_4040u64 << 32;
    let enc = |addr: usize| (addr as u64 >> 4) & 0x3FFF;
    let fmt_a = OperandFormat {
        elem: idesc.a_type,
        kind,
    };
    let fmt_b = OperandFormat {
        elem: idesc.b_type,
        kind,
    };
    let mut worst = 0f32;
    for pid in 0..m_all / 128 {
        let mut tmem = vec![0u32; 128 * 512];
        let mut scratch = MmaScratch::default();
        let mut first = true;
        for kt in 0..k_all / bk {
            let mut smem = vec![0u8; 0x4000 + b_lbo * n.div_ceil(elems_per_block)];
            for i in 0..128 {
                for kb in 0..bk * e {
                    let src = ((pid * 128 + i) * k_all + kt * bk) * e + kb;
                    put(&mut smem, a_base, i, kb, a[src]);
                }
            }
            for kk in 0..bk {
                for j in 0..n {
                    for h in 0..e {
                        let src = ((kt * bk + kk) * n + j) * e + h;
                        let blk = b_base + (j / elems_per_block) * b_lbo;
                        put(&mut smem, blk, kk, (j % elems_per_block) * e + h, b[src]);
                    }
                }
            }
            for q in 0..bk / k_mma {
                let adesc = hi | enc(a_base + 32 * q);
                let bdesc = hi | ((b_lbo as u64 >> 4) << 16) | enc(b_base + q * k_mma * 128);
                let mut ga = vec![0f32; 128 * k_mma];
                let mut gb = vec![0f32; n * k_mma];
                gather_operand(
                    &smem,
                    adesc,
                    idesc.a_major,
                    fmt_a,
                    'A',
                    128,
                    k_mma as u32,
                    GatherOrder::RowsByK,
                    &mut ga,
                )
                .unwrap();
                gather_operand(
                    &smem,
                    bdesc,
                    idesc.b_major,
                    fmt_b,
                    'B',
                    n as u32,
                    k_mma as u32,
                    GatherOrder::KByRows,
                    &mut gb,
                )
                .unwrap();
                let req = MmaRequest {
                    idesc: &idesc,
                    layout: DLayout::D,
                    a: &ga,
                    a_order: GatherOrder::RowsByK,
                    b: &gb,
                    b_order: GatherOrder::KByRows,
                    enable_input_d: !first,
                    scale_input_d: 0,
                    disable_output_lane: [0; 4],
                };
                execute(&req, 0, 0, &mut tmem, &mut scratch).unwrap();
                first = false;
            }
        }
        for i in 0..128 {
            for j in 0..n {
                let at = ((pid * 128 + i) * n + j) * 4;
                let want = f32::from_le_bytes(c[at..at + 4].try_into().unwrap());
                let got = f32::from_bits(tmem[i * 512 + j]);
                let err = (got - want).abs();
                worst = worst.max(err / (atol + rtol * want.abs()));
                assert!(
                    err <= atol + rtol * want.abs(),
                    "{prefix} C[{}][{j}] = {got}, numpy {want}",
                    pid * 128 + i
                );
            }
        }
    }
    eprintln!("{prefix}: worst error / tolerance = {worst:.3}");
}

#[test]
fn triton_matmul_fp16_matches_numpy() {
    // tests/corpus/kernels/triton/matmul_fp16.toml: rtol 0.002, atol 0.001.
    run("matmul_fp16", MmaKind::F16, 136380432, 0.002, 0.001);
}

#[test]
fn triton_matmul_fp8_matches_numpy() {
    // matmul_fp8.toml: rtol 0.002, atol 0.02.
    run("matmul_fp8", MmaKind::F8f6f4, 136380432, 0.002, 0.02);
}
