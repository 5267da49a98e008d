//! tmemu's 128-byte tensor-map encoding: round trips, rejection of garbage, and the driver's
//! validation rules (CUDA Driver API §6.30 as summarised in shared/spec/bulk-copies.md §2.2).

use tmemu_spec::tensormap::*;
use tmemu_spec::SplitMix64;

fn desc_2d() -> TensorMapDesc {
    // An f16 [256, 192] row-major matrix, 64 x 128 box, 128B swizzle (the contract example).
    TensorMapDesc {
        elem_type: TmElemType::F16,
        rank: 2,
        global_address: 0x7f00_0000_1000,
        global_dims: [192, 256, 0, 0, 0],
        global_strides: [384, 0, 0, 0],
        box_dims: [64, 128, 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        interleave: Interleave::None,
        swizzle: SwizzleMode::B128,
        swizzle_atomicity: SwizzleAtomicity::B16,
        oob_fill: OobFill::Zero,
        l2_promotion: L2Promotion::B128,
        mode: TensorMapMode::Tile,
    }
}

fn rule(d: TensorMapDesc) -> String {
    match d.validate() {
        Err(TensorMapError::Invalid(m)) => m,
        other => panic!("expected a rule violation, got {other:?}"),
    }
}

#[test]
fn round_trip_and_layout() {
    let d = desc_2d();
    d.validate().unwrap();
    let b = d.encode();
    assert_eq!(&b[0..4], b"tmTM");
    assert_eq!(b[6], 6, "elemtype uses the tensormap.replace code for f16");
    assert_eq!(b[7], 2);
    assert_eq!(b[9], 3, "swizzle_mode code 3 = 128B");
    assert_eq!(
        &b[GLOBAL_ADDRESS_OFFSET..GLOBAL_ADDRESS_OFFSET + 8],
        &0x7f00_0000_1000u64.to_le_bytes()
    );
    assert_eq!(TensorMapDesc::decode(&b).unwrap(), d);
}

#[test]
fn relocating_the_address_keeps_the_map_valid() {
    let mut b = desc_2d().encode();
    b[GLOBAL_ADDRESS_OFFSET..GLOBAL_ADDRESS_OFFSET + 8]
        .copy_from_slice(&0x1234_5600u64.to_le_bytes());
    assert_eq!(
        TensorMapDesc::decode(&b).unwrap().global_address,
        0x1234_5600
    );
    // ... but a misaligned address is a rule violation.
    b[GLOBAL_ADDRESS_OFFSET] = 0x08;
    assert_eq!(
        TensorMapDesc::decode(&b),
        Err(TensorMapError::Invalid(
            "global address 0x12345608 is not 16-byte aligned".into()
        ))
    );
}

#[test]
fn garbage_is_rejected() {
    assert!(matches!(
        TensorMapDesc::decode(&[0u8; 128]),
        Err(TensorMapError::Magic(_))
    ));
    let mut rng = SplitMix64::new(99);
    for _ in 0..1000 {
        let mut b = [0u8; 128];
        for chunk in b.chunks_exact_mut(8) {
            chunk.copy_from_slice(&rng.next().to_le_bytes());
        }
        assert!(TensorMapDesc::decode(&b).is_err());
        // Even with the right magic and version, random contents fail the checksum.
        b[0..4].copy_from_slice(b"tmTM");
        b[4..6].copy_from_slice(&1u16.to_le_bytes());
        assert!(matches!(
            TensorMapDesc::decode(&b),
            Err(TensorMapError::Checksum { .. })
        ));
    }
    // Any single-bit flip outside the address is detected.
    let good = desc_2d().encode();
    for byte in (0..128).filter(|i| !(GLOBAL_ADDRESS_OFFSET..GLOBAL_ADDRESS_OFFSET + 8).contains(i))
    {
        for bit in 0..8 {
            let mut b = good;
            b[byte] ^= 1 << bit;
            assert!(
                TensorMapDesc::decode(&b).is_err(),
                "flip of byte {byte} bit {bit} went unnoticed"
            );
        }
    }
}

/// A random map, valid or not: decode(encode(d)) must succeed exactly when d is valid, and
/// then give d back.
#[test]
fn decode_accepts_exactly_the_valid_maps() {
    let mut rng = SplitMix64::new(2024);
    let mut pick = |n: u64| rng.next() % n;
    let (mut valid, mut invalid) = (0, 0);
    for _ in 0..20000 {
        let rank = 1 + pick(5) as usize;
        let elem_type = TmElemType::from_code(pick(16) as u8).unwrap();
        let mut d = TensorMapDesc {
            elem_type,
            rank: rank as u8,
            global_address: pick(4) * 16 + pick(2) * 8,
            global_dims: [0; 5],
            global_strides: [0; 4],
            box_dims: [0; 5],
            elem_strides: [0; 5],
            interleave: Interleave::None,
            swizzle: SwizzleMode::from_code(pick(5) as u8).unwrap(),
            swizzle_atomicity: SwizzleAtomicity::B16,
            oob_fill: OobFill::from_code(pick(2) as u8).unwrap(),
            l2_promotion: L2Promotion::from_code(pick(4) as u8).unwrap(),
            mode: TensorMapMode::Tile,
        };
        if pick(4) == 0 {
            d.interleave = Interleave::from_code(pick(3) as u8).unwrap();
        }
        if pick(3) == 0 {
            d.swizzle_atomicity = SwizzleAtomicity::from_code(pick(4) as u8).unwrap();
        }
        let esize_bits = elem_type.bits();
        let mut stride = 0u64;
        for i in 0..rank {
            d.global_dims[i] = [1, 7, 64, 128, 256, 1000][pick(6) as usize];
            d.box_dims[i] = [1, 8, 16, 32, 64, 128, 256, 300][pick(8) as usize];
            let wide = pick(8) == 0;
            d.elem_strides[i] = 1 + pick(if wide { 9 } else { 1 }) as u32;
            if i == 0 {
                stride = (d.global_dims[0] * esize_bits).div_ceil(8);
            } else {
                // Usually the dense stride rounded up to 16 bytes; sometimes too small or odd.
                let dense = stride.next_multiple_of(16);
                let s = match pick(6) {
                    0 => dense.saturating_sub(16),
                    1 => dense + 8,
                    _ => dense,
                };
                d.global_strides[i - 1] = s;
                stride = s * d.global_dims[i];
            }
        }
        let encoded = d.encode();
        match d.validate() {
            Ok(()) => {
                valid += 1;
                assert_eq!(TensorMapDesc::decode(&encoded).as_ref(), Ok(&d));
            }
            Err(e) => {
                invalid += 1;
                assert_eq!(TensorMapDesc::decode(&encoded), Err(e));
            }
        }
    }
    // The generator must exercise both sides.
    assert!(
        valid > 300 && invalid > 1000,
        "valid {valid}, invalid {invalid}"
    );
}

#[test]
fn driver_rules() {
    let ok = desc_2d();
    assert_eq!(
        rule(TensorMapDesc {
            rank: 0,
            ..ok.clone()
        }),
        "rank 0 is not in 1..=5"
    );
    assert_eq!(
        rule(TensorMapDesc {
            interleave: Interleave::B16,
            ..ok.clone()
        }),
        "an interleaved map needs rank >= 3, found rank 2"
    );
    assert_eq!(
        rule(TensorMapDesc {
            box_dims: [64, 257, 0, 0, 0],
            ..ok.clone()
        }),
        "box dim 1 = 257 is not in 1..=256"
    );
    assert_eq!(
        rule(TensorMapDesc {
            elem_strides: [1, 9, 0, 0, 0],
            ..ok.clone()
        }),
        "element stride 1 = 9 is not in 1..=8"
    );
    assert_eq!(
        rule(TensorMapDesc {
            global_strides: [200, 0, 0, 0],
            ..ok.clone()
        }),
        "global stride of dim 1 = 200 bytes must be a multiple of 16 and below 2^40"
    );
    assert_eq!(
        rule(TensorMapDesc {
            global_strides: [368, 0, 0, 0],
            ..ok.clone()
        }),
        "global stride of dim 1 = 368 bytes is smaller than the 384 bytes that dim 0 spans"
    );
    // Padding between rows is allowed.
    TensorMapDesc {
        global_strides: [512, 0, 0, 0],
        ..ok.clone()
    }
    .validate()
    .unwrap();
    assert_eq!(
        rule(TensorMapDesc {
            global_dims: [192, 0, 0, 0, 0],
            ..ok.clone()
        }),
        "global dim 1 = 0 is not in 1..=2^32"
    );
    assert_eq!(
        rule(TensorMapDesc {
            box_dims: [72, 128, 0, 0, 0],
            ..ok.clone()
        }),
        "inner box dim 72 spans 144 bytes, more than the 128-byte swizzle span"
    );
    assert_eq!(
        rule(TensorMapDesc {
            swizzle: SwizzleMode::B32,
            ..ok.clone()
        }),
        "inner box dim 64 spans 128 bytes, more than the 32-byte swizzle span"
    );
    assert_eq!(
        rule(TensorMapDesc {
            swizzle: SwizzleMode::B64,
            swizzle_atomicity: SwizzleAtomicity::B32,
            box_dims: [32, 128, 0, 0, 0],
            ..ok.clone()
        }),
        "swizzle atomicity 32B needs the 128B swizzle mode"
    );
    assert_eq!(
        rule(TensorMapDesc {
            box_dims: [64, 128, 4, 0, 0],
            ..ok.clone()
        }),
        "dimension 2 is beyond rank 2 but not zero"
    );
    assert_eq!(
        rule(TensorMapDesc {
            elem_type: TmElemType::U8,
            global_dims: [384, 256, 0, 0, 0],
            oob_fill: OobFill::Nan,
            ..ok.clone()
        }),
        "OOB-NaN fill needs a floating-point element type"
    );
    // 96B swizzle: the inner box may span 96 bytes but not 128.
    TensorMapDesc {
        swizzle: SwizzleMode::B96,
        box_dims: [48, 128, 0, 0, 0],
        ..ok.clone()
    }
    .validate()
    .unwrap();
    assert_eq!(
        rule(TensorMapDesc {
            swizzle: SwizzleMode::B96,
            ..ok.clone()
        }),
        "inner box dim 64 spans 128 bytes, more than the 96-byte swizzle span"
    );
    // Interleave 32B needs swizzle 32B and 32-byte alignment.
    let il = TensorMapDesc {
        rank: 3,
        global_dims: [16, 64, 8, 0, 0],
        global_strides: [32, 2048, 0, 0],
        box_dims: [16, 64, 8, 0, 0],
        elem_strides: [1, 1, 1, 0, 0],
        interleave: Interleave::B32,
        swizzle: SwizzleMode::B32,
        global_address: 0x1000,
        ..ok.clone()
    };
    il.validate().unwrap();
    assert_eq!(
        rule(TensorMapDesc {
            swizzle: SwizzleMode::B128,
            ..il.clone()
        }),
        "interleave 32B requires swizzle 32B, found 128B"
    );
    assert_eq!(
        rule(TensorMapDesc {
            global_address: 0x1010,
            ..il
        }),
        "global address 0x1010 is not 32-byte aligned"
    );
}

#[test]
fn names_and_codes() {
    for (name, mode, atom) in SWIZZLE_NAMES {
        assert!(!name.is_empty());
        assert_eq!(SwizzleMode::from_code(*mode as u8), Some(*mode));
        assert_eq!(SwizzleAtomicity::from_code(*atom as u8), Some(*atom));
    }
    assert_eq!(SwizzleMode::from_code(5), None);
    assert_eq!(TmElemType::from_code(15), Some(TmElemType::B6x16P32));
    assert_eq!(TmElemType::from_code(16), None);
    assert_eq!(OobFill::from_name("nan"), Some(OobFill::Nan));
    assert_eq!(Interleave::from_name("32B"), Some(Interleave::B32));
}

/// An im2col map over an f16 NHWC tensor [2, 5, 7, 24] (C innermost): 3×3 filter, padding 1.
fn desc_im2col() -> TensorMapDesc {
    TensorMapDesc {
        elem_type: TmElemType::F16,
        rank: 4,
        global_address: 0x1000,
        global_dims: [24, 7, 5, 2, 0],
        global_strides: [48, 336, 1680, 0],
        box_dims: [0; 5],
        elem_strides: [1, 1, 1, 1, 0],
        interleave: Interleave::None,
        swizzle: SwizzleMode::B32,
        swizzle_atomicity: SwizzleAtomicity::B16,
        oob_fill: OobFill::Zero,
        l2_promotion: L2Promotion::None,
        mode: TensorMapMode::Im2col(Im2colParams {
            lower: [-1, -1, 0],
            upper: [-1, -1, 0],
            channels: 16,
            pixels: 96,
        }),
    }
}

#[test]
fn im2col_maps_round_trip_and_follow_the_encoder_rules() {
    let d = desc_im2col();
    d.validate().unwrap();
    let b = d.encode();
    assert_eq!(b[13], 1, "mode byte");
    assert_eq!(TensorMapDesc::decode(&b).unwrap(), d);
    assert_eq!(d.box_bytes(), 16 * 96 * 2);
    // Extremes of every field survive the encoding.
    let mut e = d.clone();
    e.rank = 3;
    e.global_dims = [24, 7, 10, 0, 0];
    e.global_strides = [48, 336, 0, 0];
    e.elem_strides = [1, 1, 1, 0, 0];
    e.swizzle = SwizzleMode::None;
    e.mode = TensorMapMode::Im2col(Im2colParams {
        lower: [i16::MIN, 0, 0],
        upper: [i16::MAX, 0, 0],
        channels: 256,
        pixels: 1024,
    });
    e.validate().unwrap();
    assert_eq!(TensorMapDesc::decode(&e.encode()).unwrap(), e);
    // A tile map keeps its old encoding (mode byte and im2col bytes zero).
    let t = desc_2d().encode();
    assert!(t[13..16].iter().chain(&t[111..124]).all(|&x| x == 0));

    let with = |f: &dyn Fn(&mut Im2colParams)| {
        let mut x = desc_im2col();
        if let TensorMapMode::Im2col(p) = &mut x.mode {
            f(p);
        }
        x
    };
    assert!(rule(with(&|p| p.lower[0] = -129)).contains("not in -128..=127 for rank 4"));
    assert!(rule(with(&|p| p.upper[2] = 1)).contains("beyond the 2 spatial dimensions"));
    assert!(rule(with(&|p| p.channels = 0)).contains("channels per pixel 0"));
    assert!(rule(with(&|p| p.pixels = 1025)).contains("pixels per column 1025"));
    // 24 channels of f16 = 48 bytes: not a multiple of 16... it is; 20 channels are not.
    assert!(rule(with(&|p| p.channels = 20)).contains("not a multiple of 16"));
    // 32 channels = 64 bytes exceed the 32B swizzle span.
    assert!(rule(with(&|p| p.channels = 32)).contains("more than the 32-byte swizzle span"));
    let mut r2 = desc_im2col();
    r2.rank = 2;
    r2.global_dims = [24, 7, 0, 0, 0];
    r2.global_strides = [48, 0, 0, 0];
    r2.elem_strides = [1, 1, 0, 0, 0];
    assert!(rule(r2).contains("rank 3..=5"));
    let mut boxed = desc_im2col();
    boxed.box_dims[0] = 16;
    assert!(rule(boxed).contains("no box dims"));
    // A stray mode code is named.
    let mut b = d.encode();
    b[13] = 2;
    let sum = {
        // recompute the checksum the way the encoder does (address bytes as zero)
        let mut h: u32 = 0x811C_9DC5;
        for (i, &x) in b[..124].iter().enumerate() {
            let x = if (16..24).contains(&i) { 0 } else { x };
            h ^= x as u32;
            h = h.wrapping_mul(0x0100_0193);
        }
        h
    };
    b[124..128].copy_from_slice(&sum.to_le_bytes());
    assert_eq!(
        TensorMapDesc::decode(&b),
        Err(TensorMapError::Code {
            field: "mode",
            code: 2
        })
    );
}

#[test]
fn launch_specs_describe_im2col_maps() {
    let dir = std::env::temp_dir().join(format!("tmemu-spec-im2col-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = r#"ptx = "k.ptx"
grid = [1]
block = [32]
[buffers.x]
dtype = "f16"
shape = [2, 5, 7, 24]
fill = "zeros"
[[arg]]
tensormap = { buffer = "x", mode = "im2col", lower = [-1, -1], upper = [-1, -1], channels = 16, pixels = 96, swizzle = "32B" }
"#;
    let spec = tmemu_spec::Spec::parse(text, "k.toml", &dir).unwrap();
    let tmemu_spec::ArgKind::TensorMap(tm) = &spec.args[0].kind else {
        panic!("not a tensor map arg")
    };
    let buf = &spec.buffers[0];
    let d = tmemu_spec::tensor_map_desc(tm, buf, 0x1000).unwrap();
    assert_eq!(d, desc_im2col());
    // Errors name the key.
    let bad = text.replace("channels = 16", "channels = 300");
    let e = tmemu_spec::Spec::parse(&bad, "k.toml", &dir).unwrap_err();
    assert!(e.to_string().contains("channels"), "{e}");
    let bad = text.replace(
        "mode = \"im2col\",",
        "mode = \"im2col\", box = [16, 8, 1, 1],",
    );
    let e = tmemu_spec::Spec::parse(&bad, "k.toml", &dir).unwrap_err();
    assert!(e.to_string().contains("no 'box'"), "{e}");
    let bad = text.replace("shape = [2, 5, 7, 24]", "shape = [7, 24]");
    let e = tmemu_spec::Spec::parse(&bad, "k.toml", &dir).unwrap_err();
    assert!(e.to_string().contains("rank 3 to 5"), "{e}");
}

/// CUTLASS 4.2's block-scaled GEMMs move their scale factors with maps whose strides are not in
/// increasing order (holdout ho6_cutlass_mxf8: SFB as 256 x u16 atoms, N atoms at 1024 bytes,
/// K atoms at 512, L at 2048). Those kernels run on Blackwell, so the driver accepts such maps:
/// only a row must fit in each stride. A spec describes them with explicit `dims` / `strides`.
#[test]
fn cutlass_scale_factor_maps_with_unordered_strides() {
    let dir = std::env::temp_dir().join(format!("tmemu-spec-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = r#"ptx = "k.ptx"
grid = [1]
block = [32]
[buffers.sfb]
dtype = "u8"
shape = [2048]
fill = "zeros"
[[arg]]
tensormap = { buffer = "sfb", box = [256, 1, 1, 1], elem_type = "u16", dims = [256, 2, 2, 1], strides = [1024, 512, 2048] }
"#;
    let spec = tmemu_spec::Spec::parse(text, "k.toml", &dir).unwrap();
    let tmemu_spec::ArgKind::TensorMap(tm) = &spec.args[0].kind else {
        panic!("not a tensor map arg")
    };
    let d = tmemu_spec::tensor_map_desc(tm, &spec.buffers[0], 0x2000).unwrap();
    assert_eq!(d.elem_type, TmElemType::U16);
    assert_eq!(d.rank, 4);
    assert_eq!(&d.global_dims[..4], &[256, 2, 2, 1]);
    assert_eq!(&d.global_strides[..3], &[1024, 512, 2048]);
    assert_eq!(&d.box_dims[..4], &[256, 1, 1, 1]);
    assert_eq!(TensorMapDesc::decode(&d.encode()), Ok(d.clone()));
    // A row wider than a stride still overlaps the next one: rejected.
    let mut narrow = d.clone();
    narrow.global_strides[1] = 256;
    assert_eq!(
        rule(narrow),
        "global stride of dim 2 = 256 bytes is smaller than the 512 bytes that dim 0 spans"
    );
    // The view must stay inside the buffer: 512 + 1024 + 512 + 2048 bytes > 2048.
    let bad = text.replace("dims = [256, 2, 2, 1]", "dims = [256, 2, 2, 2]");
    let e = tmemu_spec::Spec::parse(&bad, "k.toml", &dir).unwrap_err();
    assert!(
        e.to_string()
            .contains("spans 4096 bytes, more than the 2048 bytes"),
        "{e}"
    );
    // dims and strides come together, one dim per box entry, one stride fewer.
    for (from, to, needle) in [
        (
            ", strides = [1024, 512, 2048]",
            "",
            "both 'dims' and 'strides'",
        ),
        (
            "dims = [256, 2, 2, 1]",
            "dims = [256, 2, 2]",
            "one entry per 'box' entry",
        ),
        (
            "strides = [1024, 512, 2048]",
            "strides = [1024, 512]",
            "3 entries",
        ),
    ] {
        let e = tmemu_spec::Spec::parse(&text.replace(from, to), "k.toml", &dir).unwrap_err();
        assert!(e.to_string().contains(needle), "{e}");
    }
}
