//! Property tests: the run-based copies against the naive reference on random maps and
//! coordinates, and arbitrary (mostly invalid) maps never panic.

mod reference;

use proptest::prelude::*;
use reference::*;
use tmemu_spec::tensormap::{
    Im2colParams, Interleave, L2Promotion, OobFill, SwizzleAtomicity, SwizzleMode, TensorMapDesc,
    TensorMapMode, TmElemType,
};
use tmemu_tma::{copy_box, load, reduce_box, store, store_box, FlatGlobal, ReduceOp, TileBox};

/// One element of `op` written out per type: integers in i128, floats in f64 rounded once.
fn reference_reduce(op: ReduceOp, ty: TmElemType, g: &[u8], s: &[u8]) -> Vec<u8> {
    let e = g.len();
    let le = |b: &[u8]| {
        let mut x = [0u8; 16];
        x[..e].copy_from_slice(b);
        u128::from_le_bytes(x)
    };
    let signed = matches!(ty, TmElemType::S32 | TmElemType::S64);
    let int = |b: &[u8]| -> i128 {
        let v = le(b) as i128;
        if signed && v >> (8 * e - 1) & 1 == 1 {
            v - (1i128 << (8 * e))
        } else {
            v
        }
    };
    let out_int = |v: i128| (v.rem_euclid(1i128 << (8 * e)) as u128).to_le_bytes()[..e].to_vec();
    match ty {
        TmElemType::F32 => {
            let r = f32::from_le_bytes(g.try_into().unwrap()) as f64
                + f32::from_le_bytes(s.try_into().unwrap()) as f64;
            (r as f32).to_le_bytes().to_vec()
        }
        TmElemType::F64 => (f64::from_le_bytes(g.try_into().unwrap())
            + f64::from_le_bytes(s.try_into().unwrap()))
        .to_le_bytes()
        .to_vec(),
        TmElemType::F16 | TmElemType::BF16 => {
            let f = |b: &[u8]| {
                let bits = u16::from_le_bytes(b.try_into().unwrap());
                if ty == TmElemType::F16 {
                    half::f16::from_bits(bits).to_f64()
                } else {
                    half::bf16::from_bits(bits).to_f64()
                }
            };
            let (a, b) = (f(g), f(s));
            let r = match op {
                ReduceOp::Add => a + b,
                ReduceOp::Min => a.min(b),
                _ => a.max(b),
            };
            let bits = if ty == TmElemType::F16 {
                half::f16::from_f64(r).to_bits()
            } else {
                half::bf16::from_f64(r).to_bits()
            };
            bits.to_le_bytes().to_vec()
        }
        _ => {
            let (a, b) = (int(g), int(s));
            out_int(match op {
                ReduceOp::Add => a + b,
                ReduceOp::Min => a.min(b),
                ReduceOp::Max => a.max(b),
                ReduceOp::Inc => {
                    if a >= b {
                        0
                    } else {
                        a + 1
                    }
                }
                ReduceOp::Dec => {
                    if a == 0 || a > b {
                        b
                    } else {
                        a - 1
                    }
                }
                ReduceOp::And => a & b,
                ReduceOp::Or => a | b,
                ReduceOp::Xor => a ^ b,
            })
        }
    }
}

const SMEM_SIZE: usize = 160 * 1024;

const SWIZZLES: [(SwizzleMode, SwizzleAtomicity, u32); 7] = [
    (SwizzleMode::None, SwizzleAtomicity::B16, 256),
    (SwizzleMode::B32, SwizzleAtomicity::B16, 32),
    (SwizzleMode::B64, SwizzleAtomicity::B16, 64),
    (SwizzleMode::B128, SwizzleAtomicity::B16, 128),
    (SwizzleMode::B128, SwizzleAtomicity::B32, 128),
    (SwizzleMode::B128, SwizzleAtomicity::B64, 128),
    (SwizzleMode::B128, SwizzleAtomicity::B32Flip8B, 128),
];

const TYPES: [TmElemType; 8] = [
    TmElemType::U8,
    TmElemType::U16,
    TmElemType::F16,
    TmElemType::BF16,
    TmElemType::F32,
    TmElemType::S32,
    TmElemType::F64,
    TmElemType::S64,
];

fn valid_case() -> impl Strategy<Value = Case> {
    (
        0..TYPES.len(),
        0..SWIZZLES.len(),
        1..=5usize,
        any::<u64>(),
        0..=2u64,
        0..=24u32,
        any::<bool>(),
    )
        .prop_map(|(t, s, rank, seed, pad16, smem_lines, nan)| {
            let ty = TYPES[t];
            let (sw, atom, span) = SWIZZLES[s];
            let e = esize(ty) as u64;
            // A small deterministic generator keeps the strategy flat and shrinkable by seed.
            let mut x = seed | 1;
            let mut next = |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            let max_chunks = (u64::from(span) / 16).min(256 * e / 16);
            let inner = (1 + next(max_chunks)) * 16 / e;
            let mut boxd = vec![inner as u32];
            let mut dims = vec![1 + next(inner * 2)];
            let mut es = vec![1 + next(8) as u32];
            for _ in 1..rank {
                boxd.push(1 + next(4) as u32);
                dims.push(1 + next(7));
                es.push(1 + next(3) as u32);
            }
            let fill = if nan && ty.is_float() {
                OobFill::Nan
            } else {
                OobFill::Zero
            };
            let d = make_desc(ty, &dims, &boxd, &es, pad16, sw, atom, fill);
            let coords = (0..rank)
                .map(|i| {
                    let lo = -(boxd[i] as i64) - 2;
                    let hi = dims[i] as i64 + 2;
                    (lo + next((hi - lo + 1) as u64) as i64) as i32
                })
                .collect();
            Case {
                desc: d,
                coords,
                smem: smem_lines * 128,
            }
        })
}

/// Interleaved maps (rank >= 3): element stride 0 is honoured, so inner rows are strided.
fn interleaved_case() -> impl Strategy<Value = Case> {
    (
        0..3usize,
        0..4usize,
        3..=5usize,
        1..=4u64,
        1..=3u32,
        any::<u64>(),
        0..=8u32,
    )
        .prop_map(|(t, s, rank, chunks, es0, seed, smem_lines)| {
            let ty = [TmElemType::U8, TmElemType::F16, TmElemType::F32][t];
            let (sw, atom, _) = SWIZZLES[s];
            let e = esize(ty) as u64;
            let mut x = seed | 1;
            let mut next = |n: u64| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x % n
            };
            // n0 elements make whole 16-byte chunks; box0 is any value with ceil(box0/es0) = n0.
            let n0 = (chunks * 16 / e).min(256 / u64::from(es0));
            let n0 = n0 - n0 % (16 / e);
            let box0 = (n0 * u64::from(es0) - next(u64::from(es0))) as u32;
            let mut boxd = vec![box0];
            let mut dims = vec![1 + next(u64::from(box0) + 8)];
            let mut es = vec![es0];
            for _ in 1..rank {
                boxd.push(1 + next(3) as u32);
                dims.push(1 + next(5));
                es.push(1 + next(2) as u32);
            }
            let mut d = make_desc(ty, &dims, &boxd, &es, next(2), sw, atom, OobFill::Zero);
            d.interleave = Interleave::B16;
            let coords = (0..rank)
                .map(|i| next(dims[i] + boxd[i] as u64 + 4) as i32 - boxd[i] as i32 - 2)
                .collect();
            Case {
                desc: d,
                coords,
                smem: smem_lines * 128,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn load_matches_reference(c in valid_case()) {
        let global = global_image(&c.desc);
        let mem = FlatGlobal::new(GLOBAL_BASE, global.clone());
        let init = vec![0xA5u8; SMEM_SIZE];
        let mut smem = init.clone();
        let stats = copy_box(&c.desc, &c.coords, c.smem, &mem, &mut smem).unwrap();
        prop_assert_eq!(&smem, &reference_load(&c, &global, &init));
        let e = esize(c.desc.elem_type) as u64;
        prop_assert_eq!(stats.tx_bytes, elements(&c).len() as u64 * e);
    }

    #[test]
    fn interleaved_load_and_store_match_reference(c in interleaved_case()) {
        let global = global_image(&c.desc);
        let mem = FlatGlobal::new(GLOBAL_BASE, global.clone());
        let init = vec![0x5Au8; SMEM_SIZE];
        let mut smem = init.clone();
        copy_box(&c.desc, &c.coords, c.smem, &mem, &mut smem).unwrap();
        prop_assert_eq!(&smem, &reference_load(&c, &global, &init));
        let src: Vec<u8> = (0..SMEM_SIZE).map(|i| (i * 29 + 11) as u8).collect();
        let mut out = FlatGlobal::new(GLOBAL_BASE, global.clone());
        store_box(&c.desc, &c.coords, c.smem, &src, &mut out).unwrap();
        prop_assert_eq!(&out.bytes, &reference_store(&c, &src, &global));
    }

    #[test]
    fn store_matches_reference(c in valid_case()) {
        let global = global_image(&c.desc);
        let smem: Vec<u8> = (0..SMEM_SIZE).map(|i| (i * 13 + 5) as u8).collect();
        let mut mem = FlatGlobal::new(GLOBAL_BASE, global.clone());
        store_box(&c.desc, &c.coords, c.smem, &smem, &mut mem).unwrap();
        prop_assert_eq!(&mem.bytes, &reference_store(&c, &smem, &global));
    }

    #[test]
    fn element_view_matches_reference(c in valid_case()) {
        let b = TileBox::new(&c.desc, &c.coords, c.smem).unwrap();
        let mut got = Vec::new();
        b.for_each_element(|el| got.push((el.smem, el.global)));
        let want: Vec<_> = elements(&c)
            .into_iter()
            .map(|(dense, g)| (swizzle_table(&c.desc, c.smem + dense as u32), g))
            .collect();
        prop_assert_eq!(got, want);
        // Runs tile each row exactly once; rows are `row_pitch` apart.
        let (mut row, mut in_row, mut total) = (0u32, 0u32, 0u64);
        b.for_each_run(|r| {
            assert_eq!(r.box_offset, row * b.row_pitch() + in_row);
            in_row += r.len;
            total += u64::from(r.len);
            if in_row == b.row_bytes() {
                row += 1;
                in_row = 0;
            }
        });
        prop_assert_eq!(total, b.box_bytes());
        // Pieces map every box byte to its swizzled address and its global byte (or none).
        let mut by_pieces = std::collections::BTreeMap::new();
        b.for_each_piece(|p| {
            for j in 0..p.len {
                let prev = by_pieces.insert(p.smem + j, p.global.map(|g| g + u64::from(j)));
                assert!(prev.is_none(), "byte {:#x} written twice", p.smem + j);
            }
        });
        let e = esize(c.desc.elem_type);
        let mut want = std::collections::BTreeMap::new();
        for (dense, g) in elements(&c) {
            for j in 0..e {
                let a = swizzle_table(&c.desc, c.smem + (dense + j) as u32);
                want.insert(a, g.map(|g| g + j as u64));
            }
        }
        prop_assert_eq!(by_pieces, want);
    }

    /// Reductions on random boxes: every in-bounds element becomes `global op smem` computed
    /// here per element; pairs the ISA does not define are TM0125.
    #[test]
    fn reduce_matches_per_element_reference(c in valid_case(), op in 0usize..8, seed in any::<u64>()) {
        let op = ReduceOp::ALL[op];
        let ty = c.desc.elem_type;
        let e = esize(ty);
        let span = tensor_span(&c.desc) as usize;
        let noise = |k: u64, i: usize| -> u8 {
            ((i as u64 ^ k).wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
        };
        // Finite, normal floats of moderate size so the sums stay comparable.
        let fix_floats = |bytes: &mut [u8]| {
            for el in bytes.chunks_exact_mut(e) {
                match ty {
                    TmElemType::F16 | TmElemType::BF16 => { el[1] = (el[1] & 0x83) | 0x3C; }
                    TmElemType::F32 => { el[3] = (el[3] & 0x83) | 0x3C; }
                    TmElemType::F64 => { el[7] = (el[7] & 0x83) | 0x3C; }
                    _ => {}
                }
            }
        };
        let mut global: Vec<u8> = (0..span.div_ceil(e) * e).map(|i| noise(seed, i)).collect();
        fix_floats(&mut global);
        let mut smem: Vec<u8> = (0..SMEM_SIZE).map(|i| noise(!seed, i)).collect();
        fix_floats(&mut smem);
        let mut mem = FlatGlobal::new(GLOBAL_BASE, global.clone());
        let got = reduce_box(&c.desc, &c.coords, op, c.smem, &smem, &mut mem);
        if op.check(ty).is_err() {
            prop_assert_eq!(got.unwrap_err().rule_id(), Some("TM0125"));
            return Ok(());
        }
        got.unwrap();
        let mut want = global;
        for (dense, g) in elements(&c) {
            let Some(g) = g else { continue };
            let go = (g - GLOBAL_BASE) as usize;
            let src: Vec<u8> = (0..e)
                .map(|j| smem[swizzle_table(&c.desc, c.smem + (dense + j) as u32) as usize])
                .collect();
            let r = reference_reduce(op, ty, &want[go..go + e], &src);
            want[go..go + e].copy_from_slice(&r);
        }
        prop_assert_eq!(mem.bytes, want);
    }

    /// Valid maps at extreme coordinates and addresses: loads fill, stores skip, nothing
    /// overflows.
    #[test]
    fn extreme_coordinates_never_panic(
        c in valid_case(),
        coords in proptest::collection::vec(any::<i32>(), 5),
        addr in any::<u64>(),
    ) {
        let mut d = c.desc.clone();
        d.global_address = addr & !31;
        let coords = &coords[..d.rank as usize];
        let mut window = vec![0u8; SMEM_SIZE];
        let mut mem = FlatGlobal::new(d.global_address, vec![0; 4096]);
        let _ = copy_box(&d, coords, c.smem, &mem, &mut window);
        let _ = store_box(&d, coords, c.smem, &window, &mut mem);
    }

    /// Arbitrary field values: every call returns, none panics.
    #[test]
    fn arbitrary_maps_never_panic(
        ty in 0u8..16, rank in 0u8..7, inter in 0u8..3, sw in 0u8..5, atom in 0u8..4,
        fill in 0u8..2, addr in any::<u64>(),
        dims in proptest::array::uniform5(0u64..(1 << 34)),
        strides in proptest::array::uniform4(any::<u64>()),
        boxd in proptest::array::uniform5(0u32..300),
        es in proptest::array::uniform5(0u32..10),
        coords in proptest::collection::vec(any::<i32>(), 0..6),
        smem in any::<u32>(),
        op in 0usize..8,
    ) {
        let d = TensorMapDesc {
            elem_type: TmElemType::from_code(ty).unwrap(),
            rank,
            global_address: addr,
            global_dims: dims,
            global_strides: strides,
            box_dims: boxd,
            elem_strides: es,
            interleave: Interleave::from_code(inter).unwrap(),
            swizzle: SwizzleMode::from_code(sw).unwrap(),
            swizzle_atomicity: SwizzleAtomicity::from_code(atom).unwrap(),
            oob_fill: OobFill::from_code(fill).unwrap(),
            l2_promotion: L2Promotion::None,
            mode: TensorMapMode::Tile,
        };
        let mut window = vec![0u8; 8192];
        let mut mem = FlatGlobal::new(addr, vec![0; 4096]);
        let _ = copy_box(&d, &coords, smem, &mem, &mut window);
        let _ = store_box(&d, &coords, smem, &window, &mut mem);
        let _ = reduce_box(&d, &coords, ReduceOp::ALL[op], smem, &window, &mut mem);
    }

    /// Arbitrary im2col maps, offsets and gather4 rows: every call returns, none panics.
    #[test]
    fn arbitrary_im2col_and_gather4_never_panic(
        c in valid_case(),
        lower in proptest::array::uniform3(any::<i16>()),
        upper in proptest::array::uniform3(any::<i16>()),
        channels in 0u16..300, pixels in 0u16..1100,
        offs in proptest::collection::vec(any::<i16>(), 0..4),
        coords in proptest::collection::vec(any::<i32>(), 0..6),
        rank in 0u8..7,
        smem in any::<u32>(),
    ) {
        let mut d = c.desc.clone();
        d.rank = rank;
        let mut window = vec![0u8; 8192];
        let mut mem = FlatGlobal::new(d.global_address, vec![0; 4096]);
        if let Ok(b) = TileBox::new_gather4(&d, &coords, smem) {
            let _ = load(&b, &mem, &mut window);
            let _ = store(&b, &window, &mut mem);
        }
        d.box_dims = [0; 5];
        d.mode = TensorMapMode::Im2col(Im2colParams { lower, upper, channels, pixels });
        if let Ok(b) = TileBox::new_im2col(&d, &coords, &offs, smem) {
            let _ = load(&b, &mem, &mut window);
            let _ = store(&b, &window, &mut mem);
            let mut n = 0u64;
            b.for_each_element(|_| n += 1);
            prop_assert_eq!(n * u64::from(b.elem_bytes()), b.box_bytes());
        }
    }
}
