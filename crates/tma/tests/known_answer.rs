//! Known-answer tests: the crate's run-based copies against the naive element-by-element model
//! in `reference/`, over every rank, swizzle and element size, in and out of bounds.

mod reference;

use reference::*;
use tmemu_spec::tensormap::{OobFill, SwizzleAtomicity, SwizzleMode, TensorMapDesc, TmElemType};
use tmemu_tma::{
    copy_box, reduce_box, store_box, tensormap_replace, CopyStats, FlatGlobal, ReduceOp,
    ReplaceField, TileBox, TmaError,
};

const SMEM_SIZE: usize = 64 * 1024;
const SMEM_INIT: u8 = 0xEE;

const SWIZZLES: [(SwizzleMode, SwizzleAtomicity, u32); 7] = [
    (SwizzleMode::None, SwizzleAtomicity::B16, 128),
    (SwizzleMode::B32, SwizzleAtomicity::B16, 32),
    (SwizzleMode::B64, SwizzleAtomicity::B16, 64),
    (SwizzleMode::B128, SwizzleAtomicity::B16, 128),
    (SwizzleMode::B128, SwizzleAtomicity::B32, 128),
    (SwizzleMode::B128, SwizzleAtomicity::B64, 128),
    (SwizzleMode::B128, SwizzleAtomicity::B32Flip8B, 128),
];

/// Runs a load both ways and compares everything observable.
fn check_load(c: &Case) -> CopyStats {
    let global = global_image(&c.desc);
    let mem = FlatGlobal::new(GLOBAL_BASE, global.clone());
    let init = vec![SMEM_INIT; SMEM_SIZE];
    let mut smem = init.clone();
    let stats = copy_box(&c.desc, &c.coords, c.smem, &mem, &mut smem)
        .unwrap_or_else(|e| panic!("{e} for {c:?}"));
    let want = reference_load(c, &global, &init);
    if smem != want {
        let first = smem.iter().zip(&want).position(|(a, b)| a != b).unwrap();
        panic!(
            "smem differs first at {first:#x}: got {:#04x}, want {:#04x}, case {c:?}",
            smem[first], want[first]
        );
    }
    let e = esize(c.desc.elem_type) as u64;
    let els = elements(c);
    assert_eq!(stats.tx_bytes, els.len() as u64 * e, "{c:?}");
    let oob = els.iter().filter(|(_, g)| g.is_none()).count() as u64 * e;
    assert_eq!(stats.oob_bytes, oob, "{c:?}");
    assert_eq!(stats.global_bytes + stats.oob_bytes, stats.tx_bytes);

    // The per-element view agrees with the reference too.
    let b = TileBox::new(&c.desc, &c.coords, c.smem).unwrap();
    let mut got = Vec::new();
    b.for_each_element(|el| got.push((el.smem, el.global)));
    let want: Vec<_> = els
        .iter()
        .map(|&(dense, g)| (swizzle_table(&c.desc, c.smem + dense as u32), g))
        .collect();
    assert_eq!(got, want, "{c:?}");
    stats
}

fn case(desc: TensorMapDesc, coords: &[i32], smem: u32) -> Case {
    Case {
        desc,
        coords: coords.to_vec(),
        smem,
    }
}

/// Every rank 1–5 × every swizzle × u8/f16/f32 × coordinates in bounds, across the far edge,
/// negative, and entirely outside.
#[test]
fn every_rank_swizzle_and_size() {
    let mut loads = 0;
    for ty in [TmElemType::U8, TmElemType::F16, TmElemType::F32] {
        let e = esize(ty) as u32;
        for (sw, atom, span) in SWIZZLES {
            // A full swizzle row, and (for the wide swizzles) a row of half the span.
            let mut inners = vec![span / e];
            if span >= 64 {
                inners.push(span / 2 / e);
            }
            for inner in inners {
                for rank in 1..=5usize {
                    let boxd: Vec<u32> = [inner, 4, 2, 2, 3][..rank].to_vec();
                    let dims: Vec<u64> = [inner as u64 * 3 / 2 + 1, 6, 3, 3, 4][..rank].to_vec();
                    let es = vec![1; rank];
                    let d = make_desc(ty, &dims, &boxd, &es, 1, sw, atom, OobFill::Zero);
                    let coord_sets: [Vec<i32>; 5] = [
                        vec![0; rank],
                        (0..rank).map(|i| dims[i] as i32 - 1).collect(),
                        (0..rank).map(|i| -(boxd[i] as i32) / 2 - 1).collect(),
                        (0..rank)
                            .map(|i| if i == rank - 1 { dims[i] as i32 + 3 } else { 1 })
                            .collect(),
                        (0..rank).map(|i| if i % 2 == 0 { -1 } else { 1 }).collect(),
                    ];
                    for coords in coord_sets {
                        for smem in [0, 0x480, 0x2000] {
                            check_load(&case(d.clone(), &coords, smem));
                            loads += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(loads > 1000);
}

#[test]
fn element_strides_and_nan_fill() {
    for ty in [TmElemType::F16, TmElemType::F32, TmElemType::F64] {
        let e = esize(ty) as u32;
        for (sw, atom, span) in SWIZZLES {
            let inner = span.min(64) / e;
            for fill in [OobFill::Zero, OobFill::Nan] {
                let d = make_desc(
                    ty,
                    &[inner as u64 + 3, 11, 7],
                    &[inner, 7, 5],
                    // element stride 0 is ignored without interleave; 3 and 2 do stride.
                    &[2, 3, 2],
                    2,
                    sw,
                    atom,
                    fill,
                );
                for coords in [[0, 0, 0], [5, 6, 3], [-2, -4, -1], [1, 9, 6]] {
                    let s = check_load(&case(d.clone(), &coords, 0x400));
                    // ceil(7/3) = 3 rows, ceil(5/2) = 3 planes
                    assert_eq!(s.tx_bytes, u64::from(inner * e) * 3 * 3);
                }
            }
        }
    }
}

/// Interleaved maps honour element stride 0 (the non-interleaved path ignores it).
#[test]
fn interleaved_maps_stride_the_inner_dimension() {
    use tmemu_spec::tensormap::Interleave;
    for (il, sw, atom) in [
        (Interleave::B16, SwizzleMode::None, SwizzleAtomicity::B16),
        (Interleave::B16, SwizzleMode::B64, SwizzleAtomicity::B16),
        (Interleave::B32, SwizzleMode::B32, SwizzleAtomicity::B16),
    ] {
        for (inner_es, box0) in [(1, 8), (2, 16), (2, 15)] {
            let mut d = make_desc(
                TmElemType::F16,
                &[16, 5, 4],
                &[box0, 3, 2],
                &[inner_es, 1, 2],
                0,
                sw,
                atom,
                OobFill::Zero,
            );
            d.interleave = il;
            // Global strides must be multiples of 32 for the 32B interleave.
            d.global_strides = [32, 32 * 5, 0, 0];
            for coords in [[0, 0, 0], [3, 4, 3], [-3, -1, 1]] {
                let s = check_load(&case(d.clone(), &coords, 0x100));
                // 8 elements of 2 bytes × 3 rows × ceil(2 / 2) planes
                assert_eq!(s.tx_bytes, 8 * 2 * 3);
            }
        }
    }
}

/// b4x16 (packed 4-bit, no gaps) moves the same bytes as a u8 tensor of element pairs.
#[test]
fn packed_b4x16_copies_bytes() {
    let bytes = make_desc(
        TmElemType::U8,
        &[256, 6, 3],
        &[128, 4, 2],
        &[1, 1, 1],
        1,
        SwizzleMode::B128,
        SwizzleAtomicity::B16,
        OobFill::Zero,
    );
    let mut nib = bytes.clone();
    nib.elem_type = TmElemType::B4x16;
    nib.global_dims[0] = 512;
    nib.box_dims[0] = 256;
    let global = global_image(&bytes);
    let mem = FlatGlobal::new(GLOBAL_BASE, global);
    for (c_nib, c_byte) in [
        ([0, 0, 0], [0, 0, 0]),
        ([384, 4, 2], [192, 4, 2]),
        ([-128, -1, 0], [-64, -1, 0]),
    ] {
        let mut a = vec![0u8; SMEM_SIZE];
        let mut b = vec![0u8; SMEM_SIZE];
        let sa = copy_box(&nib, &c_nib, 0x400, &mem, &mut a).unwrap();
        let sb = copy_box(&bytes, &c_byte, 0x400, &mem, &mut b).unwrap();
        assert_eq!(sa, sb);
        assert_eq!(sa.tx_bytes, 128 * 4 * 2);
        assert!(a == b);
    }
    // A copy starting inside a byte is not modelled.
    let mut s = vec![0u8; SMEM_SIZE];
    assert!(matches!(
        copy_box(&nib, &[1, 0, 0], 0x400, &mem, &mut s),
        Err(TmaError::Unsupported(_))
    ));
}

/// A placement worked out by hand from §2.3: f32, 32 × 8 box, 128B swizzle at 0x400.
/// Element (x = 4, y = 1) is dense byte 144 = row 1, chunk 1 → chunk 1 ^ 1 = 0, so it lands
/// at 0x400 + 128. Element (x = 9, y = 3) is dense (3·32 + 9)·4 = 420 = row 3, chunk 2,
/// byte 4 → chunk 2 ^ 3 = 1: 0x400 + 3·128 + 16 + 4.
/// Element (x = 2, y = 5) is dense 648 = row 5, chunk 0, byte 8 → chunk 5.
#[test]
fn hand_computed_128b_placement() {
    let d = make_desc(
        TmElemType::F32,
        &[32, 8],
        &[32, 8],
        &[1, 1],
        0,
        SwizzleMode::B128,
        SwizzleAtomicity::B16,
        OobFill::Zero,
    );
    let vals: Vec<u8> = (0..32 * 8u32)
        .flat_map(|i| (i as f32).to_le_bytes())
        .collect();
    let mem = FlatGlobal::new(GLOBAL_BASE, vals);
    let mut smem = vec![0u8; 8192];
    copy_box(&d, &[0, 0], 0x400, &mem, &mut smem).unwrap();
    let at = |a: usize| f32::from_le_bytes(smem[a..a + 4].try_into().unwrap());
    assert_eq!(at(0x400 + 128), 36.0); // 1·32 + 4
    assert_eq!(at(0x400 + 3 * 128 + 16 + 4), 105.0); // 3·32 + 9
    assert_eq!(at(0x400), 0.0);
    // (x = 2, y = 5): dense 648 = row 5, chunk 0, byte 8 → chunk 5 (a 64B swizzle would give 1).
    assert_eq!(at(0x400 + 5 * 128 + 5 * 16 + 8), 162.0);
}

#[test]
fn stores_skip_out_of_bounds_elements() {
    for ty in [TmElemType::U8, TmElemType::F16, TmElemType::F32] {
        let e = esize(ty) as u32;
        for (sw, atom, span) in SWIZZLES {
            for rank in 1..=5usize {
                let inner = span / e;
                let boxd: Vec<u32> = [inner, 3, 2, 2, 2][..rank].to_vec();
                let dims: Vec<u64> = [inner as u64 + 5, 4, 3, 2, 3][..rank].to_vec();
                let d = make_desc(ty, &dims, &boxd, &vec![1; rank], 1, sw, atom, OobFill::Zero);
                for coords in [
                    vec![0; rank],
                    (0..rank).map(|i| dims[i] as i32 - 1).collect(),
                ] {
                    let c = case(d.clone(), &coords, 0x800);
                    let smem: Vec<u8> = (0..SMEM_SIZE).map(|i| (i * 7 + 3) as u8).collect();
                    let global = global_image(&d);
                    let mut mem = FlatGlobal::new(GLOBAL_BASE, global.clone());
                    let s = store_box(&d, &coords, 0x800, &smem, &mut mem).unwrap();
                    assert_eq!(mem.bytes, reference_store(&c, &smem, &global), "{c:?}");
                    assert_eq!(s.global_bytes + s.oob_bytes, s.tx_bytes);
                }
            }
        }
    }
}

#[test]
fn load_then_store_round_trips() {
    let d = make_desc(
        TmElemType::F16,
        &[64, 16, 3],
        &[64, 8, 2],
        &[1, 1, 1],
        0,
        SwizzleMode::B128,
        SwizzleAtomicity::B16,
        OobFill::Zero,
    );
    let global = global_image(&d);
    let src = FlatGlobal::new(GLOBAL_BASE, global.clone());
    let mut dst = FlatGlobal::new(GLOBAL_BASE, vec![0; global.len()]);
    let mut smem = vec![0u8; SMEM_SIZE];
    for y in (0..16).step_by(8) {
        for z in (0..3).step_by(2) {
            copy_box(&d, &[0, y, z], 0x1000, &src, &mut smem).unwrap();
            store_box(&d, &[0, y, z], 0x1000, &smem, &mut dst).unwrap();
        }
    }
    assert_eq!(dst.bytes, global);
}

/// Reductions: each in-bounds element combined with its shared-memory element, computed here
/// with plain Rust arithmetic per element.
#[test]
fn reductions_match_per_element_arithmetic() {
    type Case3 = (TmElemType, ReduceOp, fn(&[u8], &[u8]) -> Vec<u8>);
    let cases: [Case3; 5] = [
        (TmElemType::U32, ReduceOp::Add, |g, s| {
            let r = u32::from_le_bytes(g.try_into().unwrap())
                .wrapping_add(u32::from_le_bytes(s.try_into().unwrap()));
            r.to_le_bytes().to_vec()
        }),
        (TmElemType::S32, ReduceOp::Min, |g, s| {
            let r = i32::from_le_bytes(g.try_into().unwrap())
                .min(i32::from_le_bytes(s.try_into().unwrap()));
            r.to_le_bytes().to_vec()
        }),
        (TmElemType::U64, ReduceOp::Xor, |g, s| {
            let r = u64::from_le_bytes(g.try_into().unwrap())
                ^ u64::from_le_bytes(s.try_into().unwrap());
            r.to_le_bytes().to_vec()
        }),
        (TmElemType::F32, ReduceOp::Add, |g, s| {
            let r = f32::from_le_bytes(g.try_into().unwrap())
                + f32::from_le_bytes(s.try_into().unwrap());
            r.to_le_bytes().to_vec()
        }),
        (TmElemType::U32, ReduceOp::Inc, |g, s| {
            let (g, s) = (
                u32::from_le_bytes(g.try_into().unwrap()),
                u32::from_le_bytes(s.try_into().unwrap()),
            );
            (if g >= s { 0 } else { g + 1 }).to_le_bytes().to_vec()
        }),
    ];
    for (ty, op, f) in cases {
        let e = esize(ty);
        let d = make_desc(
            ty,
            &[20, 6],
            &[(128 / e) as u32, 4],
            &[1, 1],
            1,
            SwizzleMode::B128,
            SwizzleAtomicity::B16,
            OobFill::Zero,
        );
        // Normal floats only, so the f32 flush-to-zero never matters.
        let mk = |seed: u64, n: usize| -> Vec<u8> {
            (0..n / e)
                .flat_map(|i| {
                    let x = (i as u64 + seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
                    if ty == TmElemType::F32 {
                        ((x % 1000) as f32 * 0.37 - 150.0).to_le_bytes().to_vec()
                    } else {
                        x.to_le_bytes()[..e].to_vec()
                    }
                })
                .collect()
        };
        let span = tensor_span(&d) as usize;
        let global = mk(1, span.div_ceil(e) * e);
        let smem = mk(2, SMEM_SIZE);
        let coords = [12, 3];
        let c = case(d.clone(), &coords, 0x400);
        let mut want = global.clone();
        for (dense, g) in elements(&c) {
            let Some(g) = g else { continue };
            let go = (g - GLOBAL_BASE) as usize;
            let src: Vec<u8> = (0..e)
                .map(|j| smem[swizzle_table(&d, 0x400 + (dense + j) as u32) as usize])
                .collect();
            let r = f(&want[go..go + e], &src);
            want[go..go + e].copy_from_slice(&r);
        }
        let mut mem = FlatGlobal::new(GLOBAL_BASE, global);
        reduce_box(&d, &coords, op, 0x400, &smem, &mut mem).unwrap();
        assert_eq!(mem.bytes, want, "{ty:?} {op:?}");
    }
}

fn basic_desc() -> TensorMapDesc {
    make_desc(
        TmElemType::F16,
        &[128, 64],
        &[64, 32],
        &[1, 1],
        0,
        SwizzleMode::B128,
        SwizzleAtomicity::B16,
        OobFill::Zero,
    )
}

#[test]
fn rule_violations_have_ids() {
    let mem = FlatGlobal::new(GLOBAL_BASE, global_image(&basic_desc()));
    let mut smem = vec![0u8; SMEM_SIZE];
    let rule = |r: Result<CopyStats, TmaError>| r.unwrap_err().rule_id();
    let d = basic_desc();
    assert_eq!(rule(copy_box(&d, &[0], 0, &mem, &mut smem)), Some("TM0120"));
    assert_eq!(
        rule(copy_box(&d, &[0, 0], 0x40, &mem, &mut smem)),
        Some("TM0121")
    );
    // 1024-byte alignment is not required for the 128B swizzle: 128 is enough.
    assert!(copy_box(&d, &[0, 0], 0x80, &mem, &mut smem).is_ok());
    let mut wide = d.clone();
    wide.box_dims[0] = 128; // 256 bytes > 128-byte span
    assert_eq!(
        rule(copy_box(&wide, &[0, 0], 0, &mem, &mut smem)),
        Some("TM0122")
    );
    let mut bad = d.clone();
    bad.box_dims[1] = 0;
    assert_eq!(
        rule(copy_box(&bad, &[0, 0], 0, &mem, &mut smem)),
        Some("TM0123")
    );
    let mut small = vec![0u8; 4096]; // the box is 64·2·32 = 4096 bytes at 0x80
    assert_eq!(
        rule(copy_box(&d, &[0, 0], 0x80, &mem, &mut small)),
        Some("TM0126")
    );
    assert!(copy_box(&d, &[0, 0], 0, &mem, &mut small).is_ok());
    // The tensor's own out-of-bounds elements are legal; the engine's buffer ending is not.
    assert!(copy_box(&d, &[100, 60], 0, &mem, &mut smem).is_ok());
    let short = FlatGlobal::new(GLOBAL_BASE, vec![0; 1000]);
    assert_eq!(
        rule(copy_box(&d, &[0, 0], 0, &short, &mut smem)),
        Some("TM0127")
    );
    let mut m = d.clone();
    m.elem_type = TmElemType::U16;
    let mut gm = FlatGlobal::new(GLOBAL_BASE, global_image(&m));
    assert_eq!(
        rule(reduce_box(&m, &[0, 0], ReduceOp::Add, 0, &smem, &mut gm)),
        Some("TM0125")
    );
    let mut s96 = d.clone();
    s96.swizzle = SwizzleMode::B96;
    s96.box_dims[0] = 48;
    assert!(matches!(
        copy_box(&s96, &[0, 0], 0, &mem, &mut smem),
        Err(TmaError::Unsupported(_))
    ));
}

/// The OOB fill value for NaN-request maps is a NaN of the element type.
#[test]
fn nan_fill_is_nan() {
    let mut d = basic_desc();
    d.oob_fill = OobFill::Nan;
    let mem = FlatGlobal::new(GLOBAL_BASE, global_image(&d));
    let mut smem = vec![0u8; SMEM_SIZE];
    copy_box(&d, &[-64, 0], 0, &mem, &mut smem).unwrap();
    for i in 0..64 * 32 {
        let h = half::f16::from_le_bytes([smem[2 * i], smem[2 * i + 1]]);
        assert!(h.is_nan());
    }
}

#[test]
fn tensormap_replace_builds_a_map_from_zero_bytes() {
    let want = basic_desc();
    let mut bytes = [0u8; 128];
    let r = |b: &mut [u8; 128], name: &str, ord: Option<u32>, v: u64| {
        tensormap_replace(b, ReplaceField::parse(name, ord).unwrap(), v).unwrap()
    };
    r(&mut bytes, "global_address", None, GLOBAL_BASE);
    r(&mut bytes, "rank", None, 1); // rank - 1
    for i in 0..2 {
        r(
            &mut bytes,
            "box_dim",
            Some(i),
            want.box_dims[i as usize] as u64,
        );
        r(
            &mut bytes,
            "global_dim",
            Some(i),
            want.global_dims[i as usize],
        );
        r(&mut bytes, "element_stride", Some(i), 1);
    }
    r(&mut bytes, "global_stride", Some(0), want.global_strides[0]);
    r(&mut bytes, "elemtype", None, 6); // f16 in PTX Table 33
    r(&mut bytes, "swizzle_mode", None, 3); // 128B
    r(&mut bytes, "interleave_layout", None, 0);
    r(&mut bytes, "swizzle_atomicity", None, 0);
    r(&mut bytes, "fill_mode", None, 0);
    assert_eq!(TensorMapDesc::decode(&bytes).unwrap(), want);

    // One field changes, and only it.
    r(&mut bytes, "fill_mode", None, 1);
    let got = TensorMapDesc::decode(&bytes).unwrap();
    assert_eq!(got.oob_fill, OobFill::Nan);
    assert_eq!(
        TensorMapDesc {
            oob_fill: OobFill::Zero,
            ..got
        },
        want
    );
    r(&mut bytes, "swizzle_atomicity", None, 3);
    assert_eq!(
        TensorMapDesc::decode(&bytes).unwrap().swizzle_atomicity,
        SwizzleAtomicity::B64
    );

    // What cannot be stored is refused and leaves the bytes alone.
    let before = bytes;
    let bad = |b: &mut [u8; 128], name: &str, ord: Option<u32>, v: u64| {
        ReplaceField::parse(name, ord).and_then(|f| tensormap_replace(b, f, v))
    };
    assert!(bad(&mut bytes, "elemtype", None, 16).is_err());
    assert!(bad(&mut bytes, "swizzle_mode", None, 5).is_err());
    assert!(bad(&mut bytes, "rank", None, 5).is_err());
    assert!(bad(&mut bytes, "box_dim", Some(5), 1).is_err());
    assert!(bad(&mut bytes, "global_stride", Some(4), 16).is_err());
    assert!(bad(&mut bytes, "box_dim", None, 1).is_err());
    assert!(bad(&mut bytes, "rank", Some(0), 1).is_err());
    assert!(bad(&mut bytes, "element_stride", Some(0), 256).is_err());
    assert!(bad(&mut bytes, "l2_promotion", None, 0).is_err());
    assert_eq!(bytes, before);
    // Garbage is not a map.
    let mut junk = [7u8; 128];
    assert!(bad(&mut junk, "rank", None, 0).is_err());
}
