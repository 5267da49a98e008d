//! Descriptor decoding and shared-memory address functions, checked against independent
//! references: the worked layouts of PTX ISA 9.1 §9.7.16.3.3 (descriptors.md §2.3) evaluated
//! here with a tiny CuTe-style layout evaluator, the TMA swizzle rule "16-byte chunk index
//! XOR row index" (PTX ISA §5.5.7), and instruction descriptors emitted by Triton 3.9 for
//! sm_100a (tests/corpus/kernels/triton/*.ptx).
use tmemu_tmem::desc::*;

/// A hierarchical CuTe layout mode: (shape, stride) pairs, innermost first.
type Mode = &'static [(u32, u32)];

fn eval_mode(mode: Mode, mut i: u32) -> u32 {
    let mut off = 0;
    for &(shape, stride) in mode {
        off += (i % shape) * stride;
        i /= shape;
    }
    off
}

fn extent(mode: Mode) -> u32 {
    mode.iter().map(|&(s, _)| s).product()
}

/// CuTe `Swizzle<B,M,S>` on a byte address.
fn cute_swizzle(b: u32, m: u32, s: u32, a: u32) -> u32 {
    let mask = ((1u32 << b) - 1) << (m + s);
    a ^ ((a & mask) >> s)
}

struct Worked {
    name: &'static str,
    major: Major,
    swizzle: Swizzle,
    elem_bytes: u32,
    mn: Mode,
    k: Mode,
    swz_b: u32,
    lbo: u32,
    sbo: u32,
    /// Only K indices below this are meaningful (see the 32B K-major note).
    k_limit: u32,
}

const WORKED: &[Worked] = &[
    Worked {
        name: "K-major none tf32",
        major: Major::K,
        swizzle: Swizzle::None,
        elem_bytes: 4,
        mn: &[(8, 4), (2, 32)],
        k: &[(4, 1), (4, 64)],
        swz_b: 0,
        lbo: 256,
        sbo: 128,
        k_limit: 16,
    },
    // The ISA example's K mode (4,4):(1,4) runs past the 32-byte swizzle row after k = 8,
    // where it would alias the next row: only the first 32 bytes of K (one MMA) are meant.
    Worked {
        name: "K-major 32B tf32",
        major: Major::K,
        swizzle: Swizzle::B32,
        elem_bytes: 4,
        mn: &[(8, 8), (2, 64)],
        k: &[(4, 1), (4, 4)],
        swz_b: 1,
        lbo: 16,
        sbo: 256,
        k_limit: 8,
    },
    Worked {
        name: "MN-major none bf16",
        major: Major::MN,
        swizzle: Swizzle::None,
        elem_bytes: 2,
        mn: &[(8, 1), (1, 8), (2, 64)],
        k: &[(8, 8), (2, 128)],
        swz_b: 0,
        lbo: 256,
        sbo: 128,
        k_limit: 16,
    },
    Worked {
        name: "MN-major 32B bf16",
        major: Major::MN,
        swizzle: Swizzle::B32,
        elem_bytes: 2,
        mn: &[(8, 1), (2, 8), (2, 128)],
        k: &[(8, 16), (2, 256)],
        swz_b: 1,
        lbo: 256,
        sbo: 512,
        k_limit: 16,
    },
    Worked {
        name: "MN-major 64B bf16",
        major: Major::MN,
        swizzle: Swizzle::B64,
        elem_bytes: 2,
        mn: &[(8, 1), (4, 8), (2, 256)],
        k: &[(8, 32), (2, 512)],
        swz_b: 2,
        lbo: 512,
        sbo: 1024,
        k_limit: 16,
    },
    // Not a worked example of the ISA, but the canonical K-major 128B table row
    // ((8,m),(T,2k)):((8T,SBO),(1,T)) for f16 (T = 8), m = 2, SBO = 1024 bytes.
    Worked {
        name: "K-major 128B f16",
        major: Major::K,
        swizzle: Swizzle::B128,
        elem_bytes: 2,
        mn: &[(8, 64), (2, 512)],
        k: &[(8, 1), (2, 8)],
        swz_b: 3,
        lbo: 16,
        sbo: 1024,
        k_limit: 16,
    },
    Worked {
        name: "K-major 64B f8",
        major: Major::K,
        swizzle: Swizzle::B64,
        elem_bytes: 1,
        mn: &[(8, 64), (3, 512)],
        k: &[(16, 1), (2, 16)],
        swz_b: 2,
        lbo: 16,
        sbo: 512,
        k_limit: 32,
    },
];

#[test]
fn worked_examples_match_the_isa_layouts() {
    for start in [0u32, 0x2000, 0x8400] {
        for w in WORKED {
            let desc = SmemDescriptor {
                start,
                lbo: w.lbo,
                sbo: w.sbo,
                base_offset: 0,
                lbo_absolute: false,
                swizzle: w.swizzle,
            };
            let layout = OperandLayout::new(desc, w.major);
            let mut seen = std::collections::HashSet::new();
            for row in 0..extent(w.mn) {
                for k in 0..extent(w.k).min(w.k_limit) {
                    let elems = eval_mode(w.mn, row) + eval_mode(w.k, k);
                    let want = if w.swz_b == 0 {
                        start + elems * w.elem_bytes
                    } else {
                        cute_swizzle(w.swz_b, 4, 3, start + elems * w.elem_bytes)
                    };
                    let got = layout.element_address(row, k, w.elem_bytes);
                    assert_eq!(got, want, "{} start {start:#x} row {row} k {k}", w.name);
                    assert!(seen.insert(got), "{}: address {got:#x} used twice", w.name);
                }
            }
        }
    }
}

#[test]
fn encoded_lbo_sbo_of_the_worked_examples() {
    // descriptors.md §2.3 "encoded LBO / SBO" column: the 14-bit fields hold bytes / 16.
    for (lbo, sbo, enc_lbo, enc_sbo) in [
        (256, 128, 16, 8),
        (16, 256, 1, 16),
        (256, 512, 16, 32),
        (512, 1024, 32, 64),
    ] {
        let d = SmemDescriptor {
            start: 0,
            lbo,
            sbo,
            base_offset: 0,
            lbo_absolute: false,
            swizzle: Swizzle::None,
        };
        let raw = d.encode();
        assert_eq!((raw >> 16) & 0x3FFF, enc_lbo);
        assert_eq!((raw >> 32) & 0x3FFF, enc_sbo);
    }
}

#[test]
fn swizzles_xor_the_chunk_with_the_row() {
    // TMA rule (PTX ISA §5.5.7): inside a 1024/512/256-byte aligned pattern, the 16-byte
    // chunk index c of 128-byte row r is stored at chunk c ^ (r % 8 | 4 | 2).
    for (sw, rows) in [(Swizzle::B128, 8), (Swizzle::B64, 4), (Swizzle::B32, 2)] {
        for base in [0u32, 1024, 4096] {
            for r in 0..16u32 {
                for c in 0..8u32 {
                    let a = base + r * 128 + c * 16 + 5;
                    let want = base + r * 128 + ((c ^ (r % rows)) * 16) + 5;
                    assert_eq!(sw.apply(a), want, "{sw:?} r {r} c {c}");
                }
            }
        }
    }
    // 128B with 32-byte atoms: 32-byte units XOR (row % 4).
    for r in 0..8u32 {
        for u in 0..4u32 {
            let a = r * 128 + u * 32 + 17;
            assert_eq!(
                Swizzle::B128Atom32.apply(a),
                r * 128 + ((u ^ (r % 4)) * 32) + 17
            );
        }
    }
    assert_eq!(Swizzle::None.apply(0x1234), 0x1234);
}

#[test]
fn advancing_k_by_the_start_address_inside_a_swizzle_atom() {
    // Kernels step K inside a 128B atom by adding bytes to the start field (base offset 0).
    let d0 = SmemDescriptor {
        start: 0x4000,
        lbo: 16,
        sbo: 1024,
        base_offset: 0,
        lbo_absolute: false,
        swizzle: Swizzle::B128,
    };
    let d1 = SmemDescriptor {
        start: 0x4000 + 32,
        ..d0
    };
    let (l0, l1) = (
        OperandLayout::new(d0, Major::K),
        OperandLayout::new(d1, Major::K),
    );
    for row in 0..64 {
        for k in 0..16 {
            assert_eq!(
                l1.element_address(row, k, 2),
                l0.element_address(row, k + 16, 2)
            );
        }
    }
}

#[test]
fn smem_descriptor_round_trip_and_errors() {
    let d = SmemDescriptor {
        start: 0x3FFF0,
        lbo: 0x100,
        sbo: 0x400,
        base_offset: 0,
        lbo_absolute: false,
        swizzle: Swizzle::B64,
    };
    let raw = d.encode();
    assert_eq!(SmemDescriptor::decode(raw), Ok(d));
    assert_eq!(raw >> 61, 4);
    assert_eq!((raw >> 46) & 7, 1);
    // Triton 3.9, matmul_fp16.ptx: high word 0x40004040 = SBO 1024, version 1, 128B swizzle.
    let t = SmemDescriptor::decode(0x4000_4040u64 << 32).unwrap();
    assert_eq!(
        (t.sbo, t.swizzle, t.start, t.lbo),
        (1024, Swizzle::B128, 0, 0)
    );

    let e = SmemDescriptor::decode(raw & !(1 << 46)).unwrap_err();
    assert_eq!(e, DescError::SmemVersion { found: 0 });
    assert_eq!(e.rule().id, "TM0301");
    let e = SmemDescriptor::decode(raw | (1 << 55)).unwrap_err();
    assert_eq!(e.rule().id, "TM0302");
    let e = SmemDescriptor::decode(raw | (1 << 14)).unwrap_err();
    assert_eq!(e, DescError::SmemReservedBits { bits: 1 << 14 });
    for code in [3u64, 5, 7] {
        let e = SmemDescriptor::decode((raw & !(7 << 61)) | (code << 61)).unwrap_err();
        assert_eq!(e, DescError::SmemLayoutInvalid { code: code as u8 });
        assert_eq!(e.rule().id, "TM0303");
    }
    let abs = SmemDescriptor::decode(raw | (1 << 52)).unwrap();
    assert_eq!(abs.check_sm100().unwrap_err().rule().id, "TM0304");
    let based = SmemDescriptor::decode(raw | (3 << 49)).unwrap();
    assert_eq!(
        based.check_sm100(),
        Err(DescError::SmemBaseOffsetUnmodelled { base: 3 })
    );
    assert!(d.check_sm100().is_ok());
    // No swizzle: the base offset (a swizzle-pattern phase) has nothing to act on and is
    // accepted. Triton 3.9, ho5_dot_scaled_preshuffled.ptx: tcgen05.cp descriptor high word
    // 0x00084008 = SBO 128, version 1, base offset 4, no swizzle.
    let interleaved = SmemDescriptor::decode(0x0008_4008u64 << 32).unwrap();
    assert_eq!(
        (interleaved.base_offset, interleaved.swizzle),
        (4, Swizzle::None)
    );
    assert_eq!(interleaved.check_sm100(), Ok(()));
    // Hopper-style wgmma descriptor (no version bits, layout in 62-63) is rejected.
    assert!(SmemDescriptor::decode(1u64 << 62).is_err());
}

const CG1: MmaShapeContext = MmaShapeContext {
    cta_group: 1,
    ws: false,
    allow_k96: false,
};
const CG2: MmaShapeContext = MmaShapeContext {
    cta_group: 2,
    ws: false,
    allow_k96: false,
};
const WS: MmaShapeContext = MmaShapeContext {
    cta_group: 1,
    ws: true,
    allow_k96: false,
};

fn idesc(d: u32, a: u32, b: u32, m: u32, n: u32) -> u32 {
    (d << 4) | (a << 7) | (b << 10) | ((n >> 3) << 17) | ((m >> 4) << 24)
}

#[test]
fn triton_instruction_descriptors() {
    // matmul_fp16.ptx: mov.b32 %r309, 136380432 (0x08210010).
    let d = InstrDescriptor::decode(136380432, MmaKind::F16).unwrap();
    assert_eq!(
        (d.a_type, d.b_type, d.d_type),
        (ElemType::F16, ElemType::F16, AccumType::F32)
    );
    assert_eq!((d.m, d.n, d.k()), (128, 128, 16));
    assert_eq!((d.a_major, d.b_major), (Major::K, Major::MN));
    assert!(d.check_shape(CG1).is_ok());
    // matmul_bf16.ptx: 136381584 (0x08210490).
    let d = InstrDescriptor::decode(136381584, MmaKind::F16).unwrap();
    assert_eq!((d.a_type, d.b_type), (ElemType::Bf16, ElemType::Bf16));
    // matmul_fp8.ptx (kind::f8f6f4): 136380432.
    let d = InstrDescriptor::decode(136380432, MmaKind::F8f6f4).unwrap();
    assert_eq!(
        (d.a_type, d.b_type, d.k()),
        (ElemType::E4m3, ElemType::E4m3, 32)
    );
    assert!(d.check_shape(CG1).is_ok());
    // matmul_tf32.ptx: 136317200 (0x08200910).
    let d = InstrDescriptor::decode(136317200, MmaKind::Tf32).unwrap();
    assert_eq!(
        (d.a_type, d.b_major, d.m, d.n, d.k()),
        (ElemType::Tf32, Major::K, 128, 128, 8)
    );
}

#[test]
fn instruction_descriptor_errors() {
    let ok = idesc(1, 0, 0, 128, 256);
    assert!(InstrDescriptor::decode(ok, MmaKind::F16).is_ok());
    let rule = |raw, kind| InstrDescriptor::decode(raw, kind).unwrap_err().rule().id;
    assert_eq!(rule(ok | 1 << 6, MmaKind::F16), "TM0306");
    assert_eq!(rule(ok | 1 << 23, MmaKind::F16), "TM0306");
    assert_eq!(rule(idesc(1, 2, 2, 128, 64), MmaKind::F16), "TM0307"); // tf32 code in f16
    assert_eq!(rule(idesc(0, 1, 1, 128, 64), MmaKind::F16), "TM0307"); // f16 D with bf16
    assert_eq!(rule(idesc(0, 2, 2, 128, 64), MmaKind::Tf32), "TM0307"); // tf32 needs f32 D
    assert_eq!(rule(idesc(1, 2, 0, 128, 64), MmaKind::F8f6f4), "TM0307"); // code 2 invalid
    assert_eq!(rule(idesc(1, 1, 1, 128, 64), MmaKind::I8), "TM0307"); // i8 needs s32
    assert_eq!(
        rule(idesc(2, 1, 1, 128, 64) | 1 << 13, MmaKind::I8),
        "TM0309"
    );
    assert_eq!(rule(ok | 1, MmaKind::F16), "TM0311"); // selector without sparsity
    assert!(InstrDescriptor::decode(ok | 1 | 1 << 2, MmaKind::F16).is_ok());
    assert_eq!(rule(ok | 1 << 3, MmaKind::F16), "TM0311"); // saturate on float
    assert_eq!(
        rule(idesc(1, 5, 0, 128, 64) | 1 << 15, MmaKind::F8f6f4),
        "TM0310"
    ); // fp4 MN-major
       // Block-scaled.
    let mx = (1 << 23) | (1 << 7) | (1 << 10) | ((256 >> 3) << 17) | (1 << 27);
    let d = InstrDescriptor::decode(mx, MmaKind::MxF4).unwrap();
    assert_eq!(
        (d.scale_type, d.m, d.k(), d.a_type),
        (Some(ScaleType::Ue8m0), 128, 64, ElemType::E2m1)
    );
    assert!(d.check_shape(CG1).is_ok());
    assert_eq!(rule(mx & !(1 << 23), MmaKind::MxF4), "TM0312"); // ue4m3 needs nvf4
    assert_eq!(
        InstrDescriptor::decode(mx & !(1 << 23), MmaKind::MxF4Nvf4)
            .unwrap()
            .scale_type,
        Some(ScaleType::Ue4m3)
    );
    assert_eq!(rule(mx | 1 << 29, MmaKind::MxF4), "TM0312"); // SFA id 1
    assert!(InstrDescriptor::decode(mx | 2 << 29 | 2 << 4, MmaKind::MxF4).is_ok());
    assert_eq!(rule(mx | 1 << 15, MmaKind::MxF4), "TM0310");
    assert_eq!(rule(mx | 1 << 31, MmaKind::MxF8f6f4), "TM0306");
    // Bits 24-26 of a block-scaled idesc are reserved in the ISA (M is bits 27-28), and
    // Triton 3.9 sets bit 24 for mxf4nvf4.block16 with UE8M0 scales (0x09200480): an
    // unmodelled form (TM0511, verdict incomplete), not "M = 144".
    for bit in 24..=26 {
        assert_eq!(
            InstrDescriptor::decode(mx | 1 << bit, MmaKind::MxF4Nvf4),
            Err(DescError::IdescUnmodelledBits { bits: 1 << bit })
        );
    }
    assert_eq!(rule(0x0920_0480, MmaKind::MxF4Nvf4), "TM0511");
    let no24 = InstrDescriptor::decode(0x0920_0480 & !(1 << 24), MmaKind::MxF4Nvf4).unwrap();
    assert_eq!(
        (no24.m, no24.n, no24.scale_type),
        (128, 128, Some(ScaleType::Ue4m3))
    );
    let k96 =
        InstrDescriptor::decode((mx & !(1 << 27)) | 1 << 28 | 1 << 31, MmaKind::MxF4).unwrap();
    assert_eq!((k96.m, k96.k()), (256, 96));
    assert_eq!(k96.check_shape(CG2).unwrap_err().rule().id, "TM0311"); // sm_100a
    let sm103 = MmaShapeContext {
        allow_k96: true,
        ..CG2
    };
    assert!(k96.check_shape(sm103).is_ok());
    assert!(k96
        .check_shape(MmaShapeContext {
            allow_k96: true,
            ..CG1
        })
        .is_err());
}

fn shape_ok(kind: MmaKind, d: u32, a: u32, m: u32, n: u32, ctx: MmaShapeContext) -> bool {
    let raw = if kind.is_block_scaled() {
        (1 << 23) | (a << 7) | (a << 10) | ((n >> 3) << 17) | ((m >> 4) << 24)
    } else {
        idesc(d, a, a, m, n)
    };
    match InstrDescriptor::decode(raw, kind) {
        // Block-scaled M = 64 would set bit 26, reserved in the ISA (M is bits 27-28).
        Err(DescError::IdescUnmodelledBits { .. }) if kind.is_block_scaled() && m == 64 => false,
        d => d.unwrap().check_shape(ctx).is_ok(),
    }
}

#[test]
fn legal_shapes_follow_table_39() {
    for n in (8..=256).step_by(8) {
        assert!(shape_ok(MmaKind::F16, 1, 0, 128, n, CG1));
        assert!(shape_ok(MmaKind::F16, 1, 0, 64, n, CG1));
        assert_eq!(shape_ok(MmaKind::F16, 1, 0, 256, n, CG2), n % 16 == 0);
        assert!(!shape_ok(MmaKind::F16, 1, 0, 256, n, CG1));
        assert!(!shape_ok(MmaKind::F16, 1, 0, 64, n, CG2));
        let i8_cg1 = matches!(n, 8 | 16 | 24 | 32) || (n >= 48 && n % 16 == 0);
        assert_eq!(shape_ok(MmaKind::I8, 2, 1, 128, n, CG1), i8_cg1, "i8 n {n}");
        assert_eq!(shape_ok(MmaKind::I8, 2, 1, 256, n, CG2), n % 32 == 0);
        assert!(shape_ok(MmaKind::MxF8f6f4, 1, 0, 128, n, CG1));
        assert!(!shape_ok(MmaKind::MxF8f6f4, 1, 0, 64, n, CG1));
        assert_eq!(
            shape_ok(MmaKind::F16, 1, 0, 64, n, WS),
            matches!(n, 64 | 128 | 256)
        );
        assert_eq!(
            shape_ok(MmaKind::F16, 1, 0, 32, n, WS),
            matches!(n, 64 | 128 | 256)
        );
        assert!(!shape_ok(MmaKind::MxF4, 1, 1, 128, n, WS));
    }
    assert!(!shape_ok(MmaKind::F16, 1, 0, 128, 0, CG1));
    assert!(!shape_ok(MmaKind::F16, 1, 0, 128, 264, CG1));
    // 8-bit N-major B: N step 16 with cta_group::1 (Table 52).
    let raw = idesc(1, 0, 0, 128, 24) | 1 << 16;
    let d = InstrDescriptor::decode(raw, MmaKind::F8f6f4).unwrap();
    assert_eq!(
        d.check_shape(CG1).unwrap_err(),
        DescError::IdescShape { m: 128, n: 24 }
    );
    // max shift only with .ws.
    let d = InstrDescriptor::decode(idesc(1, 0, 0, 128, 64) | 1 << 30, MmaKind::F16).unwrap();
    assert_eq!(d.max_shift, 8);
    assert_eq!(d.check_shape(CG1), Err(DescError::IdescMaxShift));
    assert!(d.check_shape(WS).is_ok());
}

#[test]
fn operand_swizzle_rules_table_54() {
    use Swizzle::*;
    for sw in [None, B32, B64, B128, B128Atom32] {
        assert!(InstrDescriptor::check_operand_swizzle(ElemType::F16, Major::K, sw, 'A').is_ok());
        assert_eq!(
            InstrDescriptor::check_operand_swizzle(ElemType::F16, Major::MN, sw, 'A').is_ok(),
            sw != B128Atom32
        );
        assert_eq!(
            InstrDescriptor::check_operand_swizzle(ElemType::Tf32, Major::MN, sw, 'B').is_ok(),
            sw == B128Atom32
        );
    }
}

/// Bad input never panics: arbitrary descriptor words decode to a value or a typed error,
/// and whatever decodes can be asked for its shape, K and addresses.
#[test]
fn arbitrary_descriptors_never_panic() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let kinds = [
        MmaKind::F16,
        MmaKind::Tf32,
        MmaKind::F8f6f4,
        MmaKind::I8,
        MmaKind::MxF8f6f4,
        MmaKind::MxF4,
        MmaKind::MxF4Nvf4,
    ];
    let (mut ok_s, mut ok_i) = (0, 0);
    for _ in 0..200_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Bias towards well-formed words so both paths are exercised.
        let raw = if x & 1 == 0 {
            (x & !(7 << 46) & !(0xFF << 53)) | (1 << 46)
        } else {
            x
        };
        if let Ok(d) = SmemDescriptor::decode(raw) {
            ok_s += 1;
            let _ = d.check_sm100();
            for major in [Major::K, Major::MN] {
                let l = OperandLayout::new(d, major);
                let _ = l.element_address((x >> 20) as u32 % 256, (x >> 40) as u32 % 64, 2);
            }
        }
        for kind in kinds {
            if let Ok(i) = InstrDescriptor::decode((x >> 11) as u32, kind) {
                ok_i += 1;
                let _ = i.k();
                for ctx in [CG1, CG2, WS] {
                    let _ = i.check_shape(ctx);
                }
            }
        }
    }
    assert!(
        ok_s > 1_000 && ok_i > 1_000,
        "too few valid samples: {ok_s} {ok_i}"
    );
}
