//! `.npy` files written by numpy / ml_dtypes, our writer's round trips, and our number
//! conversions and fills against numpy / ml_dtypes references (tests/data/gen.py).

use std::path::PathBuf;
use tmemu_spec::{DType, Fill, NpyArray, NpyElem, NpyError};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn load(name: &str) -> NpyArray {
    NpyArray::parse(&std::fs::read(data(name)).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn values(a: &NpyArray, d: DType) -> Vec<f64> {
    a.data
        .chunks_exact(d.size())
        .map(|c| d.decode_f64(c))
        .collect()
}

#[test]
fn reads_numpy_files_of_every_plain_dtype() {
    let cases = [
        ("f64", DType::F64),
        ("f32", DType::F32),
        ("f16", DType::F16),
        ("i8", DType::I8),
        ("u8", DType::U8),
        ("i16", DType::I16),
        ("u16", DType::U16),
        ("i32", DType::I32),
        ("u32", DType::U32),
        ("i64", DType::I64),
        ("u64", DType::U64),
    ];
    for (name, d) in cases {
        let a = load(&format!("plain_{name}.npy"));
        assert_eq!(a.elem, NpyElem::Typed(d), "{name}");
        assert_eq!(a.shape, [2, 3], "{name}");
        let last = if d.is_float() || d.is_signed_int() {
            -7.0
        } else {
            7.0
        };
        assert_eq!(values(&a, d), [0.0, 1.0, 2.0, 3.0, 100.0, last], "{name}");
    }
}

#[test]
fn reads_bf16_and_fp8_as_ml_dtypes_and_bit_patterns() {
    let expect = [1.0, -2.0, 0.5, 0.0, 3.0, -0.25];
    // ml_dtypes writes bfloat16 as '<V2', float8_e4m3fn as '<V1', float8_e5m2 as '<f1'.
    for (file, d, elem) in [
        ("mld_bf16.npy", DType::BF16, NpyElem::Void(2)),
        ("bits_bf16_void.npy", DType::BF16, NpyElem::Void(2)),
        ("bits_bf16_u16.npy", DType::BF16, NpyElem::Typed(DType::U16)),
        ("mld_fp8e4m3.npy", DType::Fp8E4M3, NpyElem::Void(1)),
        (
            "bits_fp8e4m3_u8.npy",
            DType::Fp8E4M3,
            NpyElem::Typed(DType::U8),
        ),
        (
            "mld_fp8e5m2.npy",
            DType::Fp8E5M2,
            NpyElem::Typed(DType::Fp8E5M2),
        ),
    ] {
        let a = load(file);
        assert_eq!(a.elem, elem, "{file}");
        assert!(a.elem.fits(d), "{file}");
        assert_eq!(values(&a, d), expect, "{file}");
    }
    assert!(!NpyElem::Void(2).fits(DType::F16));
    assert!(!NpyElem::Typed(DType::U16).fits(DType::F16));
    assert!(!NpyElem::Typed(DType::U8).fits(DType::I8));
}

#[test]
fn ml_dtypes_names_as_descr_are_accepted() {
    for (descr, d) in [
        ("bfloat16", DType::BF16),
        ("float8_e4m3fn", DType::Fp8E4M3),
        ("float8_e5m2", DType::Fp8E5M2),
    ] {
        let header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': (2,), }}\n");
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend(std::iter::repeat_n(0u8, 2 * d.size()));
        let a = NpyArray::parse(&bytes).unwrap();
        assert_eq!(a.elem, NpyElem::Typed(d), "{descr}");
    }
}

#[test]
fn layout_variants() {
    assert_eq!(
        NpyArray::parse(&std::fs::read(data("fortran_f32.npy")).unwrap()),
        Err(NpyError::FortranOrder)
    );
    let be = load("bigendian_i32.npy");
    assert_eq!(values(&be, DType::I32), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    let v2 = load("v2_u8.npy");
    assert_eq!(v2.data, [0, 1, 2, 3, 4]);
    let s = load("scalar_f64.npy");
    assert_eq!(s.shape, Vec::<usize>::new());
    assert_eq!(values(&s, DType::F64), [2.5]);
}

#[test]
fn writer_round_trips_every_dtype() {
    for d in DType::ALL {
        let shape = [3usize, 5];
        let bytes = Fill::Iota.generate(d, 15);
        let file = NpyArray::encode(d, &shape, &bytes);
        let back = NpyArray::parse(&file).unwrap();
        assert_eq!(back.shape, shape, "{d}");
        assert_eq!(back.data, bytes, "{d}");
        assert!(back.elem.fits(d), "{d} read back as {:?}", back.elem);
    }
}

#[test]
fn writer_output_is_read_by_numpy() {
    // numpy itself must accept what we write; skipped silently only if the venv is absent.
    let python = PathBuf::from("/work/kvenv/bin/python");
    if !python.exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.npy");
    let bytes = Fill::Iota.generate(DType::BF16, 6);
    std::fs::write(&path, NpyArray::encode(DType::BF16, &[2, 3], &bytes)).unwrap();
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg("import numpy as np,sys; a=np.load(sys.argv[1]); print(a.dtype, a.shape, a.ravel().tolist())")
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        // bf16 bit patterns of 0..5
        "uint16 (2, 3) [0, 16256, 16384, 16448, 16512, 16544]"
    );
}

#[test]
fn narrow_conversions_match_numpy_and_ml_dtypes() {
    let vals = values(&load("conv_values_f64.npy"), DType::F64);
    for (file, d) in [
        ("conv_f16.npy", DType::F16),
        ("conv_bf16.npy", DType::BF16),
        ("conv_fp8e4m3.npy", DType::Fp8E4M3),
        ("conv_fp8e5m2.npy", DType::Fp8E5M2),
    ] {
        let want = load(file);
        let mut mismatches = Vec::new();
        for (i, (&v, w)) in vals
            .iter()
            .zip(want.data.chunks_exact(d.size()))
            .enumerate()
        {
            let mut got = vec![0u8; d.size()];
            d.encode_f64(v, &mut got);
            let nan_both = d.decode_f64(&got).is_nan() && d.decode_f64(w).is_nan();
            if got != w && !nan_both {
                mismatches.push((i, v, got, w.to_vec()));
            }
        }
        assert!(
            mismatches.is_empty(),
            "{d}: {} mismatches, first: {:?}",
            mismatches.len(),
            &mismatches[..mismatches.len().min(5)]
        );
    }
}

#[test]
fn fills_match_numpy_and_the_python_generator() {
    let cases: [(&str, DType, Fill, usize); 8] = [
        ("fill_iota_f16.npy", DType::F16, Fill::Iota, 3000),
        ("fill_iota_i8.npy", DType::I8, Fill::Iota, 300),
        ("fill_iota_bf16.npy", DType::BF16, Fill::Iota, 600),
        (
            "fill_random_f32.npy",
            DType::F32,
            Fill::Random {
                seed: 42,
                low: -1.0,
                high: 1.0,
            },
            1000,
        ),
        (
            "fill_random_bf16.npy",
            DType::BF16,
            Fill::Random {
                seed: 7,
                low: -3.0,
                high: 5.0,
            },
            1000,
        ),
        (
            "fill_random_fp8e4m3.npy",
            DType::Fp8E4M3,
            Fill::Random {
                seed: 9,
                low: -448.0,
                high: 448.0,
            },
            500,
        ),
        (
            "fill_random_i32.npy",
            DType::I32,
            Fill::RandomInt {
                seed: 3,
                low: -1000,
                high: 1000,
            },
            1000,
        ),
        (
            "fill_random_u64.npy",
            DType::U64,
            Fill::RandomInt {
                seed: 5,
                low: 0,
                high: 1 << 64,
            },
            100,
        ),
    ];
    for (file, d, fill, n) in cases {
        let want = load(file);
        assert_eq!(fill.generate(d, n), want.data, "{file}");
    }
    let ones = Fill::Ones.generate(DType::BF16, 2);
    assert_eq!(ones, [0x80, 0x3F, 0x80, 0x3F]);
}
