//! The TMA → MMA contract: a box written by a tensor copy with a swizzle is read back,
//! element for element, through the `tcgen05` shared-memory descriptor address function of
//! `tmemu_tmem::desc` for the canonical layout with the same swizzle (descriptors.md §2.3–2.4).
//! Both sides must use the absolute-address swizzle for this to hold at any 128-byte-aligned
//! destination.

use tmemu_spec::tensormap::{
    Interleave, L2Promotion, OobFill, SwizzleAtomicity, SwizzleMode, TensorMapDesc, TensorMapMode,
    TmElemType,
};
use tmemu_tma::{copy_box, FlatGlobal, TmaSwizzle};
use tmemu_tmem::desc::{Major, OperandLayout, SmemDescriptor, Swizzle};

const BASE: u64 = 0x1_0000;

fn map(ty: TmElemType, dims: [u64; 2], boxd: [u32; 2], sw: SwizzleMode) -> TensorMapDesc {
    let e = ty.bits() / 8;
    TensorMapDesc {
        elem_type: ty,
        rank: 2,
        global_address: BASE,
        global_dims: [dims[0], dims[1], 0, 0, 0],
        global_strides: [dims[0] * e, 0, 0, 0],
        box_dims: [boxd[0], boxd[1], 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        interleave: Interleave::None,
        swizzle: sw,
        swizzle_atomicity: SwizzleAtomicity::B16,
        oob_fill: OobFill::Zero,
        l2_promotion: L2Promotion::None,
        mode: TensorMapMode::Tile,
    }
}

/// A row-major matrix whose every element is distinct: value = row·cols + col (mod 2^bits).
fn matrix(rows: u64, cols: u64, e: u64) -> Vec<u8> {
    (0..rows * cols)
        .flat_map(|i| i.to_le_bytes()[..e as usize].to_vec())
        .collect()
}

fn elem(bytes: &[u8], at: usize, e: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..e].copy_from_slice(&bytes[at..at + e]);
    u64::from_le_bytes(b)
}

/// K-major operand (A, or B stored N×K): TMA box = one swizzle row of K by `rows` of M/N.
/// Canonical K-major SW{32,64,128}: 8-row groups S bytes apart per row, SBO = 8·S.
#[test]
fn k_major_boxes_read_back_through_the_descriptor() {
    for (sw, s, mma_sw) in [
        (SwizzleMode::B128, 128u32, Swizzle::B128),
        (SwizzleMode::B64, 64, Swizzle::B64),
        (SwizzleMode::B32, 32, Swizzle::B32),
    ] {
        for ty in [TmElemType::F16, TmElemType::F32, TmElemType::U8] {
            let e = (ty.bits() / 8) as u32;
            let (m, k) = (128u64, 3 * u64::from(s / e)); // matrix M × K, K-major in global
            let kbox = s / e;
            let d = map(ty, [k, m], [kbox, 64], sw);
            assert_eq!(TmaSwizzle::of(&d).unwrap().as_mma_swizzle(), Some(mma_sw));
            let g = matrix(m, k, e as u64);
            let mem = FlatGlobal::new(BASE, g.clone());
            let mut smem = vec![0u8; 64 * 1024];
            for dst in [0x2000u32, 0x2400] {
                // K block 1 (columns kbox..2·kbox), M rows 64..128.
                copy_box(&d, &[kbox as i32, 64], dst, &mem, &mut smem).unwrap();
                let layout = OperandLayout::new(
                    SmemDescriptor {
                        start: dst,
                        lbo: 16,
                        sbo: 8 * s,
                        base_offset: 0,
                        lbo_absolute: false,
                        swizzle: mma_sw,
                    },
                    Major::K,
                );
                for row in 0..64u32 {
                    for col in 0..kbox {
                        let a = layout.element_address(row, col, e) as usize;
                        let want = (u64::from(row) + 64) * k + u64::from(col + kbox);
                        let want = want & ((1u64 << (8 * e)) - 1);
                        assert_eq!(
                            elem(&smem, a, e as usize),
                            want,
                            "{sw:?} {ty:?} {dst:#x} ({row},{col})"
                        );
                    }
                }
            }
        }
    }
}

/// MN-major operand (B stored K×N with N contiguous): the box's inner dimension is one S-byte
/// run of N, its rows are K. Canonical MN-major SW S: K-rows S bytes apart, 8-row groups by SBO.
#[test]
fn mn_major_boxes_read_back_through_the_descriptor() {
    for (sw, s, mma_sw) in [
        (SwizzleMode::B128, 128u32, Swizzle::B128),
        (SwizzleMode::B64, 64, Swizzle::B64),
        (SwizzleMode::B32, 32, Swizzle::B32),
    ] {
        let ty = TmElemType::F16;
        let e = 2u32;
        let (kdim, n) = (32u64, 2 * u64::from(s / e));
        let nbox = s / e;
        let d = map(ty, [n, kdim], [nbox, 32], sw);
        let g = matrix(kdim, n, 2);
        let mem = FlatGlobal::new(BASE, g);
        let mut smem = vec![0u8; 64 * 1024];
        copy_box(&d, &[nbox as i32, 0], 0x3000, &mem, &mut smem).unwrap();
        let layout = OperandLayout::new(
            SmemDescriptor {
                start: 0x3000,
                lbo: 32 * s, // next S-byte block of N (unused: the box holds one)
                sbo: 8 * s,
                base_offset: 0,
                lbo_absolute: false,
                swizzle: mma_sw,
            },
            Major::MN,
        );
        for nn in 0..nbox {
            for kk in 0..32u32 {
                let a = layout.element_address(nn, kk, e) as usize;
                let want = u64::from(kk) * n + u64::from(nn + nbox);
                assert_eq!(elem(&smem, a, 2), want, "{sw:?} (n {nn}, k {kk})");
            }
        }
    }
}

/// 128B swizzle with 32-byte atomicity (MN-major tf32, CuTe `Swizzle<2,5,2>`): a box of 32 f32
/// along N (128 bytes) by K rows, read through the MN-major 32B-atom canonical layout
/// (4 K-rows of 128 bytes per atom; atoms along K `SBO` = 512 bytes apart).
#[test]
fn mn_major_128b_atom32_reads_back() {
    let mut d = map(TmElemType::TF32, [64, 16], [32, 16], SwizzleMode::B128);
    d.swizzle_atomicity = SwizzleAtomicity::B32;
    assert_eq!(
        TmaSwizzle::of(&d).unwrap().as_mma_swizzle(),
        Some(Swizzle::B128Atom32)
    );
    let g = matrix(16, 64, 4);
    let mem = FlatGlobal::new(BASE, g);
    let mut smem = vec![0u8; 64 * 1024];
    copy_box(&d, &[32, 0], 0x1080, &mem, &mut smem).unwrap();
    let layout = OperandLayout::new(
        SmemDescriptor {
            start: 0x1080,
            lbo: 2048,
            sbo: 512,
            base_offset: 0,
            lbo_absolute: false,
            swizzle: Swizzle::B128Atom32,
        },
        Major::MN,
    );
    for nn in 0..32u32 {
        for kk in 0..16u32 {
            let a = layout.element_address(nn, kk, 4) as usize;
            let want = u64::from(kk) * 64 + u64::from(nn + 32);
            assert_eq!(elem(&smem, a, 4), want, "(n {nn}, k {kk})");
        }
    }
}
