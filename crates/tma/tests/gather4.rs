//! `.tile::gather4` / `.tile::scatter4` (sm_100a, PTX ISA 9.1 §5.5.6): four rows of a 2-D
//! tensor, chosen by four row coordinates, moved as the four rows of a tile box. The expected
//! bytes are computed here element by element from that definition and the swizzle tables of
//! PTX §5.5.7 (16-byte chunk c of 128-byte line r goes to chunk c ^ (r mod 2^B)), not by the
//! crate's run machinery. No hardware recording: the H100 has no gather4.

use tmemu_spec::tensormap::{
    Interleave, L2Promotion, OobFill, SwizzleAtomicity, SwizzleMode, TensorMapDesc, TensorMapMode,
    TmElemType,
};
use tmemu_tma::{load, store, FlatGlobal, TileBox, TmaError};

const BASE: u64 = 0x4000;
const COLS: u64 = 100;
const ROWS: u64 = 50;
const STRIDE: u64 = 208; // 100 f16 = 200 bytes, padded to 16

fn map(box0: u32, swizzle: SwizzleMode, fill: OobFill) -> TensorMapDesc {
    TensorMapDesc {
        elem_type: TmElemType::F16,
        rank: 2,
        global_address: BASE,
        global_dims: [COLS, ROWS, 0, 0, 0],
        global_strides: [STRIDE, 0, 0, 0],
        box_dims: [box0, 1, 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        interleave: Interleave::None,
        swizzle,
        swizzle_atomicity: SwizzleAtomicity::B16,
        oob_fill: fill,
        l2_promotion: L2Promotion::None,
        mode: TensorMapMode::Tile,
    }
}

fn swizzle(a: u64, sw: SwizzleMode) -> u64 {
    let bits = match sw {
        SwizzleMode::None => 0,
        SwizzleMode::B32 => 1,
        SwizzleMode::B64 => 2,
        SwizzleMode::B128 => 3,
        _ => unreachable!(),
    };
    a ^ (((a >> 7) & ((1 << bits) - 1)) << 4)
}

fn span(sw: SwizzleMode) -> u64 {
    match sw {
        SwizzleMode::None => 0,
        SwizzleMode::B32 => 32,
        SwizzleMode::B64 => 64,
        _ => 128,
    }
}

/// Element (x, y) of the tensor holds y * 1000 + x (as u16).
fn tensor() -> FlatGlobal {
    let mut bytes = vec![0u8; (STRIDE * ROWS) as usize];
    for y in 0..ROWS {
        for x in 0..COLS {
            let o = (y * STRIDE + x * 2) as usize;
            bytes[o..o + 2].copy_from_slice(&((y * 1000 + x) as u16).to_le_bytes());
        }
    }
    FlatGlobal::new(BASE, bytes)
}

#[test]
fn gather4_loads_four_chosen_rows_per_swizzle() {
    let g = tensor();
    for (sw, box0) in [
        (SwizzleMode::None, 24u32),
        (SwizzleMode::B32, 16),
        (SwizzleMode::B64, 32),
        (SwizzleMode::B128, 64),
        // a row narrower than the span occupies the whole span
        (SwizzleMode::B128, 32),
    ] {
        for fill in [OobFill::Zero, OobFill::Nan] {
            let d = map(box0, sw, fill);
            // Rows out of order, repeated, negative and past the end; columns past the edge.
            let coords = [COLS as i32 - 20, 7, -1, 49, 7 + ROWS as i32];
            let dst = 0x1080u32;
            let b = TileBox::new_gather4(&d, &coords, dst).unwrap();
            let mut smem = vec![0xEEu8; 0x4000];
            let stats = load(&b, &g, &mut smem).unwrap();
            assert_eq!(stats.tx_bytes, 4 * u64::from(box0) * 2);
            let row_bytes = u64::from(box0) * 2;
            let pitch = row_bytes.max(span(sw));
            let oob = if fill == OobFill::Nan { 0x7FF7u16 } else { 0 };
            let mut want = vec![0xEEu8; 0x4000];
            for (r, &y) in coords[1..].iter().enumerate() {
                for k in 0..u64::from(box0) {
                    let x = i64::from(coords[0]) + k as i64;
                    let inb =
                        (0..ROWS as i64).contains(&i64::from(y)) && (0..COLS as i64).contains(&x);
                    let v = if inb {
                        (y as u64 * 1000 + x as u64) as u16
                    } else {
                        oob
                    };
                    let a = swizzle(u64::from(dst) + r as u64 * pitch + k * 2, sw) as usize;
                    want[a..a + 2].copy_from_slice(&v.to_le_bytes());
                }
            }
            assert!(smem == want, "gather4 {sw:?} box {box0} fill {fill:?}");
        }
    }
}

#[test]
fn scatter4_stores_the_rows_back_and_skips_outside_ones() {
    let d = map(32, SwizzleMode::B64, OobFill::Zero);
    let coords = [80, 3, 60, -2, 11];
    let src = 0x800u32;
    let smem: Vec<u8> = (0..0x2000u32).map(|i| (i * 7 + 3) as u8).collect();
    let mut g = FlatGlobal::new(BASE, vec![0u8; (STRIDE * ROWS) as usize]);
    let b = TileBox::new_gather4(&d, &coords, src).unwrap();
    let stats = store(&b, &smem, &mut g).unwrap();
    // rows 3 and 11 exist; columns 80..100 of the 32 (20 of them) are inside
    assert_eq!(stats.global_bytes, 2 * 20 * 2);
    let mut want = vec![0u8; (STRIDE * ROWS) as usize];
    for (r, &y) in coords[1..].iter().enumerate() {
        for k in 0..32u64 {
            let x = 80 + k;
            if !(0..ROWS as i64).contains(&i64::from(y)) || x >= COLS {
                continue;
            }
            let a = swizzle(u64::from(src) + r as u64 * 64 + k * 2, SwizzleMode::B64) as usize;
            let o = (y as u64 * STRIDE + x * 2) as usize;
            want[o..o + 2].copy_from_slice(&smem[a..a + 2]);
        }
    }
    assert!(g.bytes == want);
}

#[test]
fn gather4_shape_rules() {
    let d = map(32, SwizzleMode::None, OobFill::Zero);
    let e = TileBox::new_gather4(&d, &[0, 1, 2, 3], 0).unwrap_err();
    assert!(matches!(e, TmaError::Gather4Shape { given: 4, .. }));
    assert_eq!(e.rule_id(), Some("TM0120"));
    let mut tall = d.clone();
    tall.box_dims[1] = 4;
    let e = TileBox::new_gather4(&tall, &[0, 1, 2, 3, 4], 0).unwrap_err();
    assert_eq!(e, TmaError::Gather4Box { rows: 4 });
    assert_eq!(e.rule_id(), Some("TM0123"));
    let e = TileBox::new_gather4(&d, &[0, 1, 2, 3, 4], 64).unwrap_err();
    assert_eq!(e.rule_id(), Some("TM0121"));
}
