//! Data-movement maps: exhaustive bijection / footprint / lane-quarter checks for every
//! tcgen05.ld/st shape × num × packing, every tcgen05.cp shape × multicast, known answers
//! from data-movement.md (worked examples, register-count table) and decompression.
use std::collections::HashSet;
use tmemu_tmem::desc::{Major, OperandLayout, SmemDescriptor, Swizzle};
use tmemu_tmem::layout::*;

const NUMS: [u32; 8] = [1, 2, 4, 8, 16, 32, 64, 128];

fn legal_forms() -> Vec<LdStForm> {
    let mut v = Vec::new();
    for shape in LdStShape::ALL {
        for num in NUMS {
            for pack in [false, true] {
                if let Ok(f) = LdStForm::new(shape, num, pack) {
                    v.push(f);
                }
            }
        }
    }
    v
}

#[test]
fn register_counts_match_tables_49_and_50() {
    // Rows: .num; columns: (32x32b/16x64b/16x32bx2, 16x128b, 16x256b); 0 = not allowed.
    let table: [(u32, [u32; 3]); 8] = [
        (1, [1, 2, 4]),
        (2, [2, 4, 8]),
        (4, [4, 8, 16]),
        (8, [8, 16, 32]),
        (16, [16, 32, 64]),
        (32, [32, 64, 128]),
        (64, [64, 128, 0]),
        (128, [128, 0, 0]),
    ];
    for (num, counts) in table {
        for (shape, want) in [
            (LdStShape::S32x32b, counts[0]),
            (LdStShape::S16x64b, counts[0]),
            (LdStShape::S16x32bx2, counts[0]),
            (LdStShape::S16x128b, counts[1]),
            (LdStShape::S16x256b, counts[2]),
        ] {
            for pack in [false, true] {
                match LdStForm::new(shape, num, pack) {
                    Ok(f) => assert_eq!(f.regs(), want, "{shape:?} x{num}"),
                    Err(e) => {
                        assert_eq!(want, 0, "{shape:?} x{num} should exist");
                        assert_eq!(e.rule().unwrap().id, "TM0402");
                    }
                }
            }
        }
    }
    assert!(LdStForm::new(LdStShape::S32x32b, 3, false).is_err());
    assert!(LdStForm::new(LdStShape::S32x32b, 256, false).is_err());
    assert!(LdStForm::new(LdStShape::S32x32b, 0, false).is_err());
}

/// Every (thread, register, half) goes to a distinct (lane, column, half) and together they
/// cover exactly the declared footprint.
#[test]
fn ldst_maps_are_bijections_onto_their_footprint() {
    let mut checked = 0;
    for f in legal_forms() {
        // CUTLASS places the second 16x32bx2 half right after the first: splitoff = columns.
        let split = if f.shape == LdStShape::S16x32bx2 {
            f.columns()
        } else {
            0
        };
        let taddr = (32 << 16) | 64; // lane 32, column 64
        let mut seen = HashSet::new();
        for t in 0..32 {
            for r in 0..f.regs() {
                let cells = match f.cells(taddr, split, t, r) {
                    RegCells::Full(c) => {
                        assert!(!f.pack16);
                        vec![(c, 0)]
                    }
                    RegCells::Halves(lo, hi) => {
                        assert!(f.pack16);
                        assert_eq!(lo.lane, hi.lane);
                        assert_eq!(hi.column, lo.column + 1);
                        vec![(lo, 0), (hi, 0)]
                    }
                };
                for c in cells {
                    assert!(seen.insert(c), "{f:?}: cell {c:?} mapped twice");
                    checked += 1;
                }
            }
        }
        let lanes = f.shape.lanes();
        let cols = if f.shape == LdStShape::S16x32bx2 {
            2 * f.columns()
        } else {
            f.columns()
        };
        assert_eq!(seen.len() as u32, lanes * cols, "{f:?} footprint size");
        for (c, _) in &seen {
            assert!((32..32 + lanes).contains(&c.lane), "{f:?} lane {}", c.lane);
            assert!(
                (64..64 + cols).contains(&c.column),
                "{f:?} column {}",
                c.column
            );
        }
        // The table form agrees with the formula.
        let table = f.table();
        for t in 0..32 {
            for r in 0..f.regs() {
                assert_eq!(table[(r * 32 + t) as usize], f.unpacked(t, r));
            }
        }
    }
    assert!(checked > 100_000);
}

#[test]
fn worked_examples() {
    let rel = |f: &LdStForm, t, r| {
        let (c, _) = f.unpacked(t, r);
        (c.lane, c.column)
    };
    // .16x64b.x1: t0→(0,0), t1→(8,0), t2→(0,1), t3→(8,1), t4→(1,0), t31→(15,1).
    let f = LdStForm::new(LdStShape::S16x64b, 1, false).unwrap();
    let want = [(0, 0), (8, 0), (0, 1), (8, 1), (1, 0)];
    for (t, w) in want.iter().enumerate() {
        assert_eq!(rel(&f, t as u32, 0), *w);
    }
    assert_eq!(rel(&f, 31, 0), (15, 1));
    // .16x256b.x1: t0 r0..3 → (0,0),(0,1),(8,0),(8,1); t1 → (0,2),(0,3),(8,2),(8,3); t4 → (1,0).
    let f = LdStForm::new(LdStShape::S16x256b, 1, false).unwrap();
    let t0: Vec<_> = (0..4).map(|r| rel(&f, 0, r)).collect();
    assert_eq!(t0, [(0, 0), (0, 1), (8, 0), (8, 1)]);
    let t1: Vec<_> = (0..4).map(|r| rel(&f, 1, r)).collect();
    assert_eq!(t1, [(0, 2), (0, 3), (8, 2), (8, 3)]);
    assert_eq!(rel(&f, 4, 0), (1, 0));
    // .32x32b: thread = lane, register = column.
    let f = LdStForm::new(LdStShape::S32x32b, 4, false).unwrap();
    assert_eq!(rel(&f, 17, 3), (17, 3));
    // .16x32bx2: the second half is at taddr + immHalfSplitoff (whole-address add).
    let f = LdStForm::new(LdStShape::S16x32bx2, 2, false).unwrap();
    assert_eq!(
        f.cells(0x0010_0008, 2, 3, 1),
        RegCells::Full(CellRef {
            lane: 19,
            column: 9
        })
    );
    assert_eq!(
        f.cells(0x0010_0008, 2, 19, 1),
        RegCells::Full(CellRef {
            lane: 19,
            column: 11
        })
    );
    // Packed: register bits 0..15 ↔ column 2c, bits 16..31 ↔ column 2c+1.
    let f = LdStForm::new(LdStShape::S32x32b, 2, true).unwrap();
    assert_eq!(
        f.cells(0, 0, 5, 1),
        RegCells::Halves(
            CellRef { lane: 5, column: 2 },
            CellRef { lane: 5, column: 3 }
        )
    );
}

#[test]
fn lane_quarters() {
    for f in legal_forms() {
        let split = if f.shape == LdStShape::S16x32bx2 {
            f.columns()
        } else {
            0
        };
        for warp in 0..16u32 {
            let q = warp % 4;
            for base in (0..128u32).step_by(16) {
                let res = f.check_access(base << 16, split, warp);
                let inside = base >= 32 * q && base + f.shape.lanes() <= 32 * q + 32;
                let span = if split > 0 {
                    2 * f.columns()
                } else {
                    f.columns()
                };
                if span > 512 || base + f.shape.lanes() > 128 {
                    assert!(
                        matches!(res, Err(LayoutError::OutOfRange { .. })),
                        "{f:?} {base}"
                    );
                    continue;
                }
                assert_eq!(
                    res.is_ok(),
                    inside,
                    "{f:?} warp {warp} lane base {base}: {res:?}"
                );
                if let Err(e) = res {
                    assert_eq!(e.rule().unwrap().id, "TM0103");
                }
            }
        }
    }
    // The split-off may move the second half into another quarter.
    let f = LdStForm::new(LdStShape::S16x32bx2, 1, false).unwrap();
    assert!(f.check_access(0, 1, 0).is_ok());
    let e = f.check_access(0, 32 << 16, 0).unwrap_err();
    assert_eq!(
        e,
        LayoutError::LaneQuarter {
            lane: 32,
            warp_quarter: 0
        }
    );
    // Columns past 512 are out of TMEM.
    let f = LdStForm::new(LdStShape::S32x32b, 128, false).unwrap();
    assert!(f.check_access(384, 0, 0).is_ok());
    assert!(matches!(
        f.check_access(385, 0, 0),
        Err(LayoutError::OutOfRange { .. })
    ));
}

fn cp_forms() -> Vec<CpForm> {
    use CpMulticast::*;
    use CpShape::*;
    let mut v = Vec::new();
    for shape in [S128x256b, S4x256b, S128x128b, S64x128b, S32x128b] {
        for mc in [None, Warpx2_02_13, Warpx2_01_23, Warpx4] {
            for src in [
                CpSrcFormat::Plain,
                CpSrcFormat::B6x16P32,
                CpSrcFormat::B4x16P64,
            ] {
                if let Ok(f) = CpForm::new(shape, mc, src) {
                    v.push(f);
                }
            }
        }
    }
    v
}

#[test]
fn cp_shape_multicast_legality() {
    use CpMulticast::*;
    use CpShape::*;
    let legal: Vec<_> = cp_forms()
        .iter()
        .map(|f| (f.shape, f.multicast))
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let want: HashSet<_> = [
        (S128x256b, None),
        (S4x256b, None),
        (S128x128b, None),
        (S64x128b, Warpx2_02_13),
        (S64x128b, Warpx2_01_23),
        (S32x128b, Warpx4),
    ]
    .into();
    assert_eq!(legal.into_iter().collect::<HashSet<_>>(), want);
    assert_eq!(
        CpForm::new(S32x128b, Warpx2_01_23, CpSrcFormat::Plain)
            .unwrap_err()
            .rule()
            .unwrap()
            .id,
        "TM0406"
    );
}

#[test]
fn cp_maps_are_bijections_onto_their_footprint() {
    for f in cp_forms() {
        let mut cells = HashSet::new();
        let mut rows_per_quarter = vec![HashSet::new(); 4];
        for ch in f.chunks() {
            assert!(ch.row < f.rows() && ch.chunk < f.chunks_per_row());
            for &lane in ch.lanes() {
                rows_per_quarter[(lane / 32) as usize].insert(ch.row);
                for c in 0..4 {
                    assert!(
                        cells.insert((lane, ch.column + c)),
                        "{f:?}: cell written twice"
                    );
                }
            }
        }
        // `.4x256b` writes one lane per warp quarter (0, 32, 64, 96); every other shape all 128.
        let lane_set: HashSet<u32> = match f.shape {
            CpShape::S4x256b => [0, 32, 64, 96].into(),
            _ => (0..128).collect(),
        };
        assert_eq!(
            cells.len() as u32,
            lane_set.len() as u32 * f.columns(),
            "{f:?}"
        );
        assert!(cells
            .iter()
            .all(|&(l, c)| lane_set.contains(&l) && c < f.columns()));
        // Multicast: which source rows each warp quarter receives (ISA wording).
        let rows = |r: std::ops::Range<u32>| r.collect::<HashSet<u32>>();
        match f.multicast {
            CpMulticast::Warpx2_02_13 => {
                assert_eq!(rows_per_quarter[0], rows(0..32));
                assert_eq!(rows_per_quarter[2], rows(0..32));
                assert_eq!(rows_per_quarter[1], rows(32..64));
                assert_eq!(rows_per_quarter[3], rows(32..64));
            }
            CpMulticast::Warpx2_01_23 => {
                assert_eq!(rows_per_quarter[0], rows(0..32));
                assert_eq!(rows_per_quarter[1], rows(0..32));
                assert_eq!(rows_per_quarter[2], rows(32..64));
                assert_eq!(rows_per_quarter[3], rows(32..64));
            }
            CpMulticast::Warpx4 => {
                for quarter in &rows_per_quarter {
                    assert_eq!(*quarter, rows(0..32));
                }
            }
            CpMulticast::None => {}
        }
    }
}

#[test]
fn cp_decompression_known_answers() {
    let f4 = CpForm::new(CpShape::S128x128b, CpMulticast::None, CpSrcFormat::B4x16P64).unwrap();
    // 16 nibbles 0..15, element 0 in the low nibble of byte 0; 8 bytes of padding ignored.
    let mut src = [0xEEu8; 16];
    src[..8].copy_from_slice(&[0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE]);
    let out = f4.convert(&src);
    assert_eq!(out, core::array::from_fn::<u8, 16, _>(|i| i as u8));
    assert_eq!(CpForm::chunk_cells(&out)[1], 0x0706_0504);

    let f6 = CpForm::new(CpShape::S128x128b, CpMulticast::None, CpSrcFormat::B6x16P32).unwrap();
    // Elements e_i = 63 - 4i (6-bit), packed LSB-first: bits 6i..6i+5.
    let elems: [u8; 16] = core::array::from_fn(|i| 63 - 4 * i as u8);
    let mut bits: u128 = 0;
    for (i, &e) in elems.iter().enumerate() {
        bits |= (e as u128) << (6 * i);
    }
    let mut src = [0xAAu8; 16];
    src[..12].copy_from_slice(&bits.to_le_bytes()[..12]);
    assert_eq!(f6.convert(&src), elems);
    let plain = CpForm::new(CpShape::S128x128b, CpMulticast::None, CpSrcFormat::Plain).unwrap();
    assert_eq!(plain.convert(&src), src);
}

/// End to end: a 128x256b copy from a K-major 128B-swizzled image (written by the TMA rule
/// "chunk ^= row % 8"), checked cell by cell.
#[test]
fn cp_through_a_swizzled_descriptor() {
    let f = CpForm::new(CpShape::S128x256b, CpMulticast::None, CpSrcFormat::Plain).unwrap();
    let start = 0x1000u32;
    let mut smem = vec![0u8; 0x1000 + 128 * 128];
    // Logical row i, byte b (0..32) holds (i * 7 + b) as u8; TMA 128B swizzle: each row is
    // 128 bytes, 16-byte chunk c of row i stored at chunk c ^ (i % 8).
    for i in 0..128u32 {
        for b in 0..32u32 {
            let phys = start + i * 128 + (((b / 16) ^ (i % 8)) * 16) + b % 16;
            smem[phys as usize] = (i * 7 + b) as u8;
        }
    }
    let desc = SmemDescriptor {
        start,
        lbo: 16,
        sbo: 1024,
        base_offset: 0,
        lbo_absolute: false,
        swizzle: Swizzle::B128,
    };
    let mut tmem = vec![0u32; 128 * 512];
    let c0 = 40u32;
    f.execute(&smem, desc.encode(), c0, &mut tmem).unwrap();
    // The chunk addresses the copy used are the layout's (checked against the ISA's worked
    // examples in tests/desc.rs).
    let layout = OperandLayout::new(desc, Major::K);
    // Row 9 has address bits 7..9 = 1, so its chunk 1 sits at chunk position 1 ^ 1 = 0 and
    // its chunk 0 at position 1.
    assert_eq!(layout.chunk_address(9, 1), start + 9 * 128);
    assert_eq!(layout.chunk_address(9, 0), start + 9 * 128 + 16);
    for i in 0..128u32 {
        for col in 0..8u32 {
            let want =
                u32::from_le_bytes(core::array::from_fn(|k| (i * 7 + col * 4 + k as u32) as u8));
            assert_eq!(
                tmem[(i * 512 + c0 + col) as usize],
                want,
                "lane {i} column {col}"
            );
        }
    }
}

#[test]
fn shift_down() {
    let moves: Vec<_> = shift_down_moves((32 << 16) | 8).unwrap().collect();
    assert_eq!(moves.len(), 31);
    assert_eq!(moves[0], (62, 63));
    assert_eq!(moves[30], (32, 33));
    assert_eq!(
        shift_down_moves(16 << 16).err().unwrap().rule().unwrap().id,
        "TM0104"
    );
    assert!(shift_down_moves(128 << 16).is_err());
    // Applied in order, rows 32..62 end up one lane lower; row 32 keeps its value.
    let mut rows: Vec<u32> = (0..128).collect();
    for (from, to) in shift_down_moves(32 << 16).unwrap() {
        rows[to as usize] = rows[from as usize];
    }
    assert_eq!(&rows[32..35], &[32, 32, 33]);
    assert_eq!(rows[63], 62);
    assert_eq!(rows[64], 64);
}

#[test]
fn cp_multicast_and_errors() {
    let f = CpForm::new(
        CpShape::S64x128b,
        CpMulticast::Warpx2_02_13,
        CpSrcFormat::B4x16P64,
    )
    .unwrap();
    // No swizzle, K-major: row i at (i % 8) * 16 + (i / 8) * SBO.
    let desc = SmemDescriptor {
        start: 0,
        lbo: 2048,
        sbo: 128,
        base_offset: 0,
        lbo_absolute: false,
        swizzle: Swizzle::None,
    };
    let mut smem = vec![0u8; 64 * 16];
    for i in 0..64usize {
        let at = (i % 8) * 16 + (i / 8) * 128;
        smem[at] = i as u8 & 0xF | 0x50; // elements 0 = i % 16, 1 = 5
    }
    let mut tmem = vec![0u32; 128 * 512];
    f.execute(&smem, desc.encode(), 7, &mut tmem).unwrap();
    for i in 0..64u32 {
        for lane in [i, 64 + i] {
            assert_eq!(
                tmem[(lane * 512 + 7) as usize],
                (i % 16) | (5 << 8),
                "lane {lane}"
            );
        }
    }
    // Errors: source past the window, TMEM past column 511, malformed descriptor.
    let e = f
        .execute(&smem[..1000], desc.encode(), 7, &mut tmem)
        .unwrap_err();
    assert!(matches!(e, LayoutError::SmemOutOfBounds { .. }));
    assert!(e.rule().is_none());
    let e = f.execute(&smem, desc.encode(), 510, &mut tmem).unwrap_err();
    assert!(matches!(e, LayoutError::OutOfRange { .. }));
    let e = f
        .execute(&smem, desc.encode() & !(1 << 46), 7, &mut tmem)
        .unwrap_err();
    assert_eq!(e.rule().unwrap().id, "TM0301");
    let e = f
        .execute(&smem, desc.encode(), 1 << 16, &mut tmem)
        .unwrap_err();
    assert!(
        matches!(e, LayoutError::OutOfRange { .. }),
        "multicast needs all 128 lanes"
    );
}

/// Bad input never panics: random addresses, split-offs, descriptors and small shared
/// memory windows give typed errors or results.
#[test]
fn arbitrary_operands_never_panic() {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut tmem = vec![0u32; 128 * 512];
    let smem = vec![0x5Au8; 4096];
    let forms = cp_forms();
    for _ in 0..20_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let taddr = if x & 2 == 0 {
            (x >> 8) as u32 & 0x007F_01FF
        } else {
            (x >> 8) as u32
        };
        for f in legal_forms().iter().step_by(7) {
            let _ = f.check_access(taddr, (x >> 40) as u32, (x >> 50) as u32 % 32);
            let _ = f.cells(
                taddr,
                (x >> 40) as u32,
                (x as u32) % 32,
                (x >> 3) as u32 % f.regs(),
            );
        }
        let f = &forms[(x % forms.len() as u64) as usize];
        let desc = if x & 4 == 0 {
            (x & !(7 << 46)
                & !(0xFF << 53)
                & !(7 << 49)
                & !(1 << 52)
                & !(0b11 << 14)
                & !(0b11 << 30))
                | (1 << 46)
        } else {
            x
        };
        let _ = f.execute(&smem, desc, taddr, &mut tmem);
        let _ = shift_down_moves(taddr).map(|m| m.count());
    }
}

#[test]
fn cta_group_targets() {
    assert_eq!(cta_targets(1), Some(&[CtaTarget::This][..]));
    assert_eq!(
        cta_targets(2),
        Some(&[CtaTarget::This, CtaTarget::Peer][..])
    );
    assert_eq!(cta_targets(3), None);
}

/// tcgen05.st then tcgen05.ld with the same form gives the registers back, for every form;
/// what a form stores is what `.32x32b` reads at the mapped cells; `.unpack::16b` leaves the
/// high halves alone and `.pack::16b` joins two low halves.
#[test]
fn store_then_load_round_trips() {
    for f in legal_forms() {
        let split = if f.shape == LdStShape::S16x32bx2 {
            f.columns()
        } else {
            0
        };
        let span = if split > 0 {
            2 * f.columns()
        } else {
            f.columns()
        };
        let taddr = (32 << 16) | if span + 16 <= 512 { 16 } else { 0 };
        let regs: Vec<[u32; 32]> = (0..f.regs())
            .map(|r| core::array::from_fn(|t| 0x8000_0000 ^ (r << 16) ^ (t as u32 * 0x0101)))
            .collect();
        let mut tmem = vec![0xAAAA_0000u32; 128 * 512];
        f.store(&mut tmem, taddr, split, &regs).unwrap();
        let mut back = vec![[0u32; 32]; f.regs() as usize];
        f.load(&tmem, taddr, split, &mut back).unwrap();
        assert_eq!(back, regs, "{f:?}");
        for (r, reg) in regs.iter().enumerate() {
            for (t, &v) in reg.iter().enumerate() {
                match f.cells(taddr, split, t as u32, r as u32) {
                    RegCells::Full(c) => assert_eq!(tmem[(c.lane * 512 + c.column) as usize], v),
                    RegCells::Halves(lo, hi) => {
                        assert_eq!(
                            tmem[(lo.lane * 512 + lo.column) as usize],
                            0xAAAA_0000 | (v & 0xFFFF)
                        );
                        assert_eq!(
                            tmem[(hi.lane * 512 + hi.column) as usize],
                            0xAAAA_0000 | (v >> 16)
                        );
                    }
                }
            }
        }
    }
    // A 32x32b.x4 load sees what a 16x64b.x2 store wrote: thread t, register r of the load
    // is cell (t, r).
    let st = LdStForm::new(LdStShape::S16x64b, 2, false).unwrap();
    let regs: Vec<[u32; 32]> = (0..2)
        .map(|r| core::array::from_fn(|t| (t as u32) << 8 | r))
        .collect();
    let mut tmem = vec![0u32; 128 * 512];
    st.store(&mut tmem, 0, 0, &regs).unwrap();
    let ld = LdStForm::new(LdStShape::S32x32b, 4, false).unwrap();
    let mut seen = vec![[0u32; 32]; 4];
    ld.load(&tmem, 0, 0, &mut seen).unwrap();
    // 16x64b: lane = t/4 + 8(t%2), column = 2r + (t/2)%2 (data-movement.md §2.4).
    for t in 0..32u32 {
        for r in 0..2u32 {
            let (lane, col) = (t / 4 + 8 * (t % 2), 2 * r + (t / 2) % 2);
            assert_eq!(seen[col as usize][lane as usize], t << 8 | r);
        }
    }
    // Out of TMEM: an error, nothing written.
    let mut tmem = vec![0u32; 128 * 512];
    let e = ld.store(&mut tmem, 509, 0, &seen).unwrap_err();
    assert!(matches!(e, LayoutError::OutOfRange { .. }));
    assert!(tmem.iter().all(|&c| c == 0));
}

mod ldst_fast_path {
    //! `LdStForm::load` / `store` (row slices for `.32x32b`, closed-form cell indices for the
    //! others) against the cell-by-cell definitions `load_reference` / `store_reference`, over
    //! every shape × `.num` × packing, any in-bounds address and split-off, random contents.
    use super::legal_forms;
    use proptest::prelude::*;
    use tmemu_tmem::layout::{LdStForm, LdStShape};

    fn case() -> impl Strategy<Value = (LdStForm, u32, u32, u64)> {
        let forms = legal_forms();
        (0..forms.len(), any::<u32>(), any::<u32>(), any::<u64>()).prop_filter_map(
            "form does not fit",
            move |(i, a, b, seed)| {
                let f = forms[i];
                let cols = f.columns();
                let lanes = f.shape.lanes();
                if cols > 512 {
                    return None;
                }
                let lane = a % (128 - lanes + 1);
                let col = (a >> 8) % (512 - cols + 1);
                let taddr = lane << 16 | col;
                let split = if f.shape == LdStShape::S16x32bx2 {
                    // a split-off landing anywhere in bounds (lanes and columns)
                    let l1 = b % (128 - 16 + 1);
                    let c1 = (b >> 8) % (512 - cols + 1);
                    (l1 << 16 | c1).wrapping_sub(taddr)
                } else {
                    0
                };
                Some((f, taddr, split, seed))
            },
        )
    }

    fn fill(seed: u64, n: usize) -> Vec<u32> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u32
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]
        #[test]
        fn load_and_store_equal_the_reference((f, taddr, split, seed) in case()) {
            let tmem = fill(seed, 128 * 512);
            let regs: Vec<[u32; 32]> = fill(seed ^ 0x55, 32 * f.regs() as usize)
                .chunks_exact(32)
                .map(|c| c.try_into().unwrap())
                .collect();
            let (mut fast, mut slow) = (tmem.clone(), tmem.clone());
            f.store(&mut fast, taddr, split, &regs).unwrap();
            f.store_reference(&mut slow, taddr, split, &regs).unwrap();
            prop_assert!(fast == slow, "store differs: {f:?} taddr {taddr:#x} split {split:#x}");
            let mut a = vec![[0u32; 32]; f.regs() as usize];
            let mut b = vec![[1u32; 32]; f.regs() as usize];
            f.load(&tmem, taddr, split, &mut a).unwrap();
            f.load_reference(&tmem, taddr, split, &mut b).unwrap();
            prop_assert!(a == b, "load differs: {f:?} taddr {taddr:#x} split {split:#x}");
        }

        /// Out of bounds both fail alike and write nothing.
        #[test]
        fn out_of_bounds_fails_alike(i in 0usize..64, lane in 0u32..256, col in 0u32..1024) {
            let forms = legal_forms();
            let f = forms[i % forms.len()];
            let taddr = lane << 16 | col;
            let regs = vec![[7u32; 32]; f.regs() as usize];
            let mut fast = vec![0u32; 128 * 512];
            let mut slow = vec![0u32; 128 * 512];
            let a = f.store(&mut fast, taddr, 0, &regs);
            let b = f.store_reference(&mut slow, taddr, 0, &regs);
            prop_assert_eq!(a.is_err(), b.is_err());
            prop_assert!(fast == slow);
        }
    }
}
