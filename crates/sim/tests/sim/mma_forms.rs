//! The tcgen05 forms added for issue 7: the `.ws` zero-column mask on a real MMA, the
//! `tcgen05.ld.red` reduction, and the fail-closed mapping of data-only unmodelled forms.
//! References are written here from the PTX ISA text (f64 products, a hand-built column mask,
//! min/max by the ISA's NaN and signed-zero rules), never from the engine's own helpers.

use tmemu_sim::exec::mma::{check, compute, AOperand, MmaOp};
use tmemu_sim::{install_globals, load, run, GlobalMemory, Launch, RunOptions};
use tmemu_tmem::desc::MmaKind;

// ---- .ws zero-column mask -------------------------------------------------------------------

/// Writes `x` (rows × 16, row-major, f16) K-major without swizzle at `base`: core matrices of
/// 8 rows × 16 bytes; the two 16-byte K chunks `LBO` = 128 bytes apart, 8-row groups
/// `SBO` = 256 bytes apart (PTX ISA §9.7.16.3.3, K-major "none" row).
fn put_k16(smem: &mut [u8], base: usize, x: &[f32], rows: usize) {
    for r in 0..rows {
        for kk in 0..16 {
            let off = (r % 8) * 16 + (r / 8) * 256 + (kk % 8) * 2 + (kk / 8) * 128;
            let bits = half::f16::from_f32(x[r * 16 + kk]).to_bits();
            smem[base + off..base + off + 2].copy_from_slice(&bits.to_le_bytes());
        }
    }
}

fn desc_k16(start: usize) -> u64 {
    let enc = |x: usize| ((x & 0x3FFFF) >> 4) as u64;
    enc(start) | (enc(128) << 16) | (enc(256) << 32) | (1 << 46)
}

fn ints(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            ((s >> 24) % 7) as f32 - 3.0
        })
        .collect()
}

/// One `.ws` f16 MMA, M = 128, N = 64, K = 16, with zero-column mask `zcm`; returns D
/// (row-major 128 × 64, f32 bits) as TMEM holds it (layout D: lane = row, column = j).
fn ws_mma(zcm: u64, a: &[f32], b: &[f32]) -> Result<Vec<f32>, String> {
    let (m, n) = (128usize, 64usize);
    let mut smem = vec![0u8; 16 * 1024];
    put_k16(&mut smem, 0, a, m);
    put_k16(&mut smem, 8192, b, n);
    let idesc = (1 << 4) | ((n as u32 >> 3) << 17) | ((m as u32 >> 4) << 24);
    let op = MmaOp {
        kind: MmaKind::F16,
        cta_group: 1,
        ws: true,
        idesc,
        d_taddr: 0,
        a: AOperand::Desc(desc_k16(0)),
        b_desc: desc_k16(8192),
        dol: [0; 8],
        enable_d: false,
        sid: 0,
        scale: None,
        zcm,
        meta: None,
    };
    let c = check(&op).map_err(|e| e.to_string())?;
    let mut tmem = vec![0u32; 128 * 512];
    compute(&op, &c, &[&smem], &mut [&mut tmem[..]]).map_err(|e| e.to_string())?;
    Ok((0..m * n)
        .map(|x| f32::from_bits(tmem[(x / n) * 512 + x % n]))
        .collect())
}

#[test]
fn ws_zero_column_mask_zeroes_the_masked_columns_of_b() {
    let a = ints(128 * 16, 5);
    let b = ints(64 * 16, 6);
    // The ISA's example pattern: runs of 4 used columns and 3 zero columns (fields 3 and 2),
    // non-zero-mask flag set, starting in a used run.
    let zcm = (1u64 << 39) | (2u64 << 40) | (3u64 << 48);
    let zero = |j: usize| j % 7 >= 4;
    let d = ws_mma(zcm, &a, &b).unwrap();
    let mut masked = 0;
    for i in 0..128 {
        for j in 0..64 {
            let want: f64 = if zero(j) {
                0.0
            } else {
                (0..16)
                    .map(|k| f64::from(a[i * 16 + k]) * f64::from(b[j * 16 + k]))
                    .sum()
            };
            assert_eq!(f64::from(d[i * 64 + j]), want, "D[{i}][{j}]");
            masked += usize::from(zero(j) && i == 0);
        }
    }
    assert_eq!(masked, 27, "the pattern masks 27 of 64 columns");
    // Without the operand (0) or with the flag clear, every column is used.
    for zcm in [0, (2u64 << 40) | (3u64 << 48)] {
        let d = ws_mma(zcm, &a, &b).unwrap();
        let j = 5; // a column the pattern above masks
        let want: f64 = (0..16)
            .map(|k| f64::from(a[k]) * f64::from(b[j * 16 + k]))
            .sum();
        assert_eq!(f64::from(d[j]), want);
    }
}

#[test]
fn an_unmodelled_zero_column_mask_is_a_tmemu_limit() {
    let a = ints(128 * 16, 5);
    let b = ints(64 * 16, 6);
    // column shift 4: not modelled → the MMA is refused as "not modelled" (TM0511 in a run)
    let zcm = (1u64 << 39) | (2u64 << 40) | (3u64 << 48) | (4u64 << 56);
    let e = ws_mma(zcm, &a, &b).unwrap_err();
    assert!(e.contains("not modelled"), "{e}");
}

// ---- engine runs ----------------------------------------------------------------------------

struct Ran {
    out: Vec<u32>,
    diags: Vec<tmemu_sim::Diagnostic>,
}

/// Loads and runs one CTA of `block` threads of `src`; param 0 = an output buffer of
/// `out_words` words, param 1 = `input` (if any).
fn run_ptx(src: &str, block: u32, out_words: usize, input: &[u32]) -> Ran {
    let m = tmemu_ptx::parse(src).expect("parse");
    let k = load(&m, src, "inline.ptx", None).expect("load");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &vec![0u8; out_words * 4]);
    let inp: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let inp = g.alloc("in", &inp);
    let mut params = vec![0u8; k.param_bytes as usize];
    for (p, v) in k.params.iter().zip([out, inp]) {
        params[p.offset as usize..(p.offset + p.size) as usize]
            .copy_from_slice(&v.to_le_bytes()[..p.size as usize]);
    }
    let launch = Launch {
        grid: [1, 1, 1],
        block: [block, 1, 1],
        cluster: None,
        dyn_shared: 0,
        params,
    };
    let opts = RunOptions {
        max_steps: 1_000_000,
        ..Default::default()
    };
    let r = run(&k, &launch, &g, &opts).expect("launch");
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);
    let out = g
        .read_buffer(out)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    Ran {
        out,
        diags: r.diagnostics,
    }
}

// ---- tcgen05.ld.red -------------------------------------------------------------------------

/// One warp: every thread stores its four input words to TMEM lane = thread, columns 0..3,
/// then reads them back with five `tcgen05.ld.red.32x32b.x4` forms and one
/// `.16x32bx2.x2` form, and writes out (per thread, 16 words): the four registers of the
/// first load, the six `redval`s, and the two registers of the `.16x32bx2` load.
const LD_RED: &str = r#"
.version 8.8
.target sm_103a
.address_size 64

.visible .entry ld_red(.param .u64 p_out, .param .u64 p_in)
{
    .reg .b32 %r<48>;
    .reg .b64 %rd<8>;
    .shared .align 4 .b32 slot;

    ld.param.u64 %rd1, [p_out];
    ld.param.u64 %rd2, [p_in];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, slot;
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r2], 32;
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    tcgen05.fence::before_thread_sync;
    bar.sync 0;
    tcgen05.fence::after_thread_sync;
    ld.shared.u32 %r3, [%r2];
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.v4.u32 {%r4, %r5, %r6, %r7}, [%rd4];
    tcgen05.st.sync.aligned.32x32b.x4.b32 [%r3], {%r4, %r5, %r6, %r7};
    tcgen05.wait::st.sync.aligned;
    tcgen05.ld.red.sync.aligned.32x32b.x4.min.f32 {%r10, %r11, %r12, %r13}, %r20, [%r3];
    tcgen05.ld.red.sync.aligned.32x32b.x4.max.abs.f32 {%r14, %r15, %r16, %r17}, %r21, [%r3];
    tcgen05.ld.red.sync.aligned.32x32b.x4.max.NaN.f32 {%r14, %r15, %r16, %r17}, %r22, [%r3];
    tcgen05.ld.red.sync.aligned.32x32b.x4.min.abs.NaN.f32 {%r14, %r15, %r16, %r17}, %r23, [%r3];
    tcgen05.ld.red.sync.aligned.32x32b.x4.min.s32 {%r14, %r15, %r16, %r17}, %r24, [%r3];
    tcgen05.ld.red.sync.aligned.32x32b.x4.u32.max {%r14, %r15, %r16, %r17}, %r25, [%r3];
    tcgen05.ld.red.sync.aligned.16x32bx2.x2.max.f32 {%r30, %r31}, %r26, [%r3], 2;
    tcgen05.wait::ld.sync.aligned;
    mul.wide.u32 %rd3, %r1, 64;
    add.s64 %rd5, %rd1, %rd3;
    st.global.v4.u32 [%rd5], {%r10, %r11, %r12, %r13};
    st.global.v4.u32 [%rd5+16], {%r20, %r21, %r22, %r23};
    st.global.v4.u32 [%rd5+32], {%r24, %r25, %r26, %r30};
    st.global.u32 [%rd5+48], %r31;
    tcgen05.fence::before_thread_sync;
    bar.sync 0;
    tcgen05.fence::after_thread_sync;
    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;
    ret;
}
"#;

const NAN: u32 = 0x7fff_ffff;

/// min/max of f32 bit patterns by the rules of PTX `min`/`max` `.f32` (§9.7.3.10/.11): NaN
/// elements are ignored unless `.NaN` (then any NaN gives the canonical NaN); all NaN gives
/// the canonical NaN; −0 is smaller than +0. `.abs` compares and returns magnitudes.
fn ref_f32(vals: &[u32], max: bool, abs: bool, nan: bool) -> u32 {
    let is_nan = |x: u32| f32::from_bits(x).is_nan();
    if nan && vals.iter().any(|&x| is_nan(x)) {
        return NAN;
    }
    let mags = vals
        .iter()
        .filter(|&&x| !is_nan(x))
        .map(|&x| if abs { x & 0x7fff_ffff } else { x });
    // order: by value, and −0 below +0
    let key = |x: u32| (f64::from(f32::from_bits(x)), x >> 31 == 0);
    let pick = mags.reduce(|a, b| {
        let less = key(b).partial_cmp(&key(a)) == Some(std::cmp::Ordering::Less);
        if less != max {
            b
        } else {
            a
        }
    });
    pick.unwrap_or(NAN)
}

#[test]
fn ld_red_reduces_what_each_thread_loads() {
    let f = |x: f32| x.to_bits();
    let mut input = Vec::new();
    for t in 0..32u32 {
        let row = match t % 8 {
            0 => [f(1.5), f(-2.0), f(0.25), f(3.0)],
            1 => [f(-0.0), f(0.0), f(-1e-30), f(1e-30)],
            2 => [f(f32::NAN), f(-7.0), f(2.0), f(-8.5)],
            3 => [f(f32::NAN), f(f32::NAN), f(f32::NAN), f(f32::NAN)],
            4 => [f(f32::INFINITY), f(-f32::INFINITY), f(5.0), f(-5.0)],
            5 => [0x8000_0001, 0x7fff_fffe, 0xffff_ffff, 0x0000_0002], // ints, some NaN as f32
            6 => [f(-3.0), f(-3.0), f(-1.0), f(-4.0)],
            _ => [t, t.wrapping_mul(2_654_435_761), !t, t << 20],
        };
        input.extend_from_slice(&row);
    }
    let ran = run_ptx(LD_RED, 32, 32 * 16, &input);
    assert!(ran.diags.is_empty(), "{:?}", ran.diags);
    for t in 0..32usize {
        let v = &input[t * 4..t * 4 + 4];
        let o = &ran.out[t * 16..t * 16 + 16];
        assert_eq!(&o[0..4], v, "thread {t}: r keeps the loaded values");
        assert_eq!(o[4], ref_f32(v, false, false, false), "thread {t}: min.f32");
        assert_eq!(
            o[5],
            ref_f32(v, true, true, false),
            "thread {t}: max.abs.f32"
        );
        assert_eq!(
            o[6],
            ref_f32(v, true, false, true),
            "thread {t}: max.NaN.f32"
        );
        assert_eq!(
            o[7],
            ref_f32(v, false, true, true),
            "thread {t}: min.abs.NaN.f32"
        );
        let smin = v.iter().map(|&x| x as i32).min().unwrap() as u32;
        assert_eq!(o[8], smin, "thread {t}: min.s32");
        assert_eq!(o[9], *v.iter().max().unwrap(), "thread {t}: max.u32");
        // .16x32bx2: the redval reduces exactly the two registers this thread received
        assert_eq!(
            o[10],
            ref_f32(&o[11..13], true, false, false),
            "thread {t}: 16x32bx2"
        );
    }
    // the reading on a few hand-checked rows
    assert_eq!(ran.out[4], f(-2.0)); // thread 0 min
    assert_eq!(ran.out[16 + 4], f(-1e-30)); // thread 1: below -0 and +0
    assert_eq!(ran.out[2 * 16 + 4], f(-8.5)); // thread 2: NaN skipped
    assert_eq!(ran.out[2 * 16 + 6], NAN); // thread 2: .NaN propagates
    assert_eq!(ran.out[3 * 16 + 4], NAN); // thread 3: all NaN
    assert_eq!(ran.out[4 * 16 + 5], f(f32::INFINITY)); // thread 4 max.abs
}

// ---- tcgen05.mma.sp -------------------------------------------------------------------------

/// Writes `bytes(r)` (one row's bytes) K-major without swizzle: chunk c of row r at
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
            let off = (r % 8) * 16 + (r / 8) * sbo + (i % 16) + (i / 16) * lbo;
            smem[base + off] = byte;
        }
    }
}

fn desc_none(start: usize, lbo: usize, sbo: usize) -> u64 {
    let enc = |x: usize| ((x & 0x3FFFF) >> 4) as u64;
    enc(start) | (enc(lbo) << 16) | (enc(sbo) << 32) | (1 << 46)
}

/// A 2:4-sparse M × K matrix: per row and group of 4, two distinct positions (any order)
/// hold non-zero values; returns (dense, packed M × K/2, nibbles M × K/4).
fn sparse_a(m: usize, k: usize, seed: u32) -> (Vec<f32>, Vec<f32>, Vec<u8>) {
    const PAIRS: [(usize, usize); 8] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (1, 2),
        (1, 3),
        (2, 3),
        (3, 1),
        (2, 0),
    ];
    let vals = ints(m * k, seed);
    let mut s = seed ^ 0x5555;
    let (mut dense, mut packed, mut nib) = (vec![0f32; m * k], vec![], vec![]);
    for r in 0..m {
        for g in 0..k / 4 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let (i0, i1) = PAIRS[(s >> 28) as usize % 8];
            let (v0, v1) = (vals[r * k + 4 * g], vals[r * k + 4 * g + 1] + 0.5);
            dense[r * k + 4 * g + i0] = v0;
            dense[r * k + 4 * g + i1] = v1;
            packed.extend([v0, v1]);
            nib.push((i0 | i1 << 2) as u8);
        }
    }
    (dense, packed, nib)
}

/// The metadata cells as CUTLASS's `tmem_e_frg` places them for M = 128 (the reading
/// `tmemu_tmem::mma::MetaLayout` documents), written from the nibbles at column `c0`.
fn put_meta(tmem: &mut [u32], c0: usize, nib: &[u8], groups: usize, f16: bool) {
    for m in 0..128 {
        for g in 0..groups {
            let (lane, col, bit) = if f16 {
                (
                    (m % 8) + 8 * (g / 4) + 16 * (m / 16),
                    c0,
                    16 * ((m / 8) % 2) + 4 * (g % 4),
                )
            } else {
                (m, c0 + g / 8, 4 * (g % 8))
            };
            tmem[lane * 512 + col] |= u32::from(nib[m * groups + g]) << bit;
        }
    }
}

/// One `.sp` MMA, M = 128, N = 16, with packed A and B in shared memory and the metadata at
/// TMEM column 64; D at column 0. `kind`: F16 (f16 operands, K = 32) or I8 (s8, K = 64).
fn sp_mma(
    kind: MmaKind,
    idesc_extra: u32,
    nib_override: Option<u8>,
) -> Result<(Vec<f64>, Vec<f64>), String> {
    let (m, n) = (128usize, 16usize);
    let (k, f16) = match kind {
        MmaKind::F16 => (32usize, true),
        _ => (64, false),
    };
    let (dense, packed, mut nib) = sparse_a(m, k, 11);
    if let Some(x) = nib_override {
        nib[0] = x;
    }
    let b = ints(n * k, 12);
    let enc = |v: f32| -> Vec<u8> {
        if f16 {
            half::f16::from_f32(v).to_bits().to_le_bytes().to_vec()
        } else {
            vec![(v as i8) as u8]
        }
    };
    // s8 values must be integers: use the packed values rounded down for i8
    let packed: Vec<f32> = if f16 {
        packed
    } else {
        packed.iter().map(|v| v.floor()).collect()
    };
    let dense: Vec<f32> = if f16 {
        dense
    } else {
        dense.iter().map(|v| v.floor()).collect()
    };
    let mut smem = vec![0u8; 32 * 1024];
    // packed A: K/2 elements = 32 bytes per row (two 16-byte chunks)
    put_rows(&mut smem, 0, m, 128, 256, |r| {
        packed[r * k / 2..(r + 1) * k / 2]
            .iter()
            .flat_map(|&v| enc(v))
            .collect()
    });
    // B: K elements = 64 bytes per row (four chunks, LBO 128, SBO 512)
    put_rows(&mut smem, 16384, n, 128, 512, |r| {
        b[r * k..(r + 1) * k].iter().flat_map(|&v| enc(v)).collect()
    });
    let mut tmem = vec![0u32; 128 * 512];
    put_meta(&mut tmem, 64, &nib, k / 4, f16);
    let idesc = match kind {
        MmaKind::F16 => 1 << 4,
        _ => (2 << 4) | (1 << 7) | (1 << 10), // S32 D, s8 A and B
    } | (1 << 2)
        | ((n as u32 >> 3) << 17)
        | ((m as u32 >> 4) << 24)
        | idesc_extra;
    let op = MmaOp {
        kind,
        cta_group: 1,
        ws: false,
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
    let got = (0..m * n)
        .map(|x| {
            let cell = tmem[(x / n) * 512 + x % n];
            if f16 {
                f64::from(f32::from_bits(cell))
            } else {
                f64::from(cell as i32)
            }
        })
        .collect();
    let want = (0..m * n)
        .map(|x| {
            let (i, j) = (x / n, x % n);
            (0..k)
                .map(|kk| f64::from(dense[i * k + kk]) * f64::from(b[j * k + kk]))
                .sum()
        })
        .collect();
    Ok((got, want))
}

#[test]
fn sparse_f16_mma_equals_the_dense_product_of_the_expanded_a() {
    let (got, want) = sp_mma(MmaKind::F16, 0, None).unwrap();
    assert_eq!(got, want);
}

#[test]
fn sparse_i8_mma_equals_the_dense_product_of_the_expanded_a() {
    let (got, want) = sp_mma(MmaKind::I8, 0, None).unwrap();
    assert_eq!(got, want);
}

#[test]
fn sparse_forms_tmemu_cannot_read_are_refused_and_mismatches_are_rule_errors() {
    // invalid metadata (two equal indices)
    let e = sp_mma(MmaKind::F16, 0, Some(0b0101)).unwrap_err();
    assert!(e.contains("not modelled"), "{e}");
    // sparsity selector 1: which sub-columns it picks is not modelled
    let e = sp_mma(MmaKind::F16, 1, None).unwrap_err();
    assert!(e.contains("not modelled"), "{e}");
    // a dense instruction with the sparse idesc bit: TM0311
    let op = MmaOp {
        kind: MmaKind::F16,
        cta_group: 1,
        ws: false,
        idesc: (1 << 4) | (1 << 2) | (2 << 17) | (8 << 24),
        d_taddr: 0,
        a: AOperand::Desc(desc_none(0, 128, 256)),
        b_desc: desc_none(16384, 128, 512),
        dol: [0; 8],
        enable_d: false,
        sid: 0,
        scale: None,
        zcm: 0,
        meta: None,
    };
    let e = check(&op).unwrap_err();
    assert_eq!(e.rule().map(|r| r.id), Some("TM0311"), "{e}");
    // .sp with a dense idesc: TM0311 too
    let op = MmaOp {
        idesc: (1 << 4) | (2 << 17) | (8 << 24),
        meta: Some(64),
        ..op
    };
    assert_eq!(check(&op).unwrap_err().rule().map(|r| r.id), Some("TM0311"));
    // M = 64 sparse (layout F): metadata layout not modelled
    let op = MmaOp {
        idesc: (1 << 4) | (1 << 2) | (2 << 17) | (4 << 24),
        ..op
    };
    assert!(check(&op).unwrap_err().to_string().contains("not modelled"));
}

#[test]
fn the_loader_takes_sp_operands_in_isa_order_and_refuses_ashift() {
    let src = |body: &str| {
        format!(
            ".version 8.8\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n\
             .reg .pred %p<4>;\n.reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n{body}\nret;\n}}\n"
        )
    };
    for body in [
        "tcgen05.mma.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1;",
        "tcgen05.mma.sp.cta_group::1.kind::f16.collector::a::discard [%r1], %rd1, %rd2, [%r3], %r2, {%r4, %r5, %r6, %r7}, %p1;",
        "tcgen05.mma.sp.cta_group::1.kind::i8 [%r1], [%r5], %rd2, [%r3], %r2, %p1;",
        "tcgen05.mma.ws.sp.cta_group::1.kind::f16 [%r1], %rd1, %rd2, [%r3], %r2, %p1, %rd3;",
        "tcgen05.mma.ws.cta_group::1.kind::f16.collector::b1::fill [%r1], %rd1, %rd2, %r2, %p1, %rd3;",
    ] {
        let s = src(body);
        let m = tmemu_ptx::parse(&s).expect("parse");
        load(&m, &s, "k.ptx", None).unwrap_or_else(|e| panic!("{body}: {e}"));
    }
    let s = src("tcgen05.mma.cta_group::1.kind::f16.ashift [%r1], [%r5], %rd2, %r2, %p1;");
    let m = tmemu_ptx::parse(&s).expect("parse");
    let e = load(&m, &s, "k.ptx", None).unwrap_err();
    assert!(e.to_string().contains("unsupported"), "{e}");
}

/// A whole `.sp` MMA through the engine (loader, operands, TM0105, async queue, commit):
/// 128 threads fill packed A (s8, all ones) and B (s8, B[j][k] = k + 1) in shared memory,
/// store the metadata with `tcgen05.st` (odd rows: every group's nibble 0xD = indices 1 and
/// 3; even rows: 0x4 = indices 0 and 1), then thread 0 issues
/// `tcgen05.mma.sp.cta_group::1.kind::i8` (M = 128, N = 16, K = 64) and every thread reads its
/// row's D column 0.
const SP_RUN: &str = r#"
.version 8.8
.target sm_100a
.address_size 64

.visible .entry sp_run(.param .u64 p_out, .param .u64 p_in)
{
    .reg .pred %p<8>;
    .reg .b16 %rs<4>;
    .reg .b32 %r<64>;
    .reg .b64 %rd<16>;
    .shared .align 8 .b64 mbar;
    .shared .align 4 .b32 slot;
    .shared .align 1024 .b8 sa[4096];
    .shared .align 1024 .b8 sb[1024];

    ld.param.u64 %rd1, [p_out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    mov.u32 %r4, slot;
    mov.u32 %r7, mbar;
    setp.eq.u32 %p1, %r2, 0;
    setp.eq.u32 %p2, %r1, 0;
    @!%p1 bra L_ALLOCATED;
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 128;
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
L_ALLOCATED:
    @!%p2 bra L_INIT;
    mbarrier.init.shared::cta.b64 [%r7], 1;
L_INIT:
    mov.u32 %r10, sa;
    shl.b32 %r11, %r1, 5;
    add.u32 %r12, %r10, %r11;
    mov.u32 %r13, 0x01010101;
    st.shared.v4.u32 [%r12], {%r13, %r13, %r13, %r13};
    st.shared.v4.u32 [%r12+16], {%r13, %r13, %r13, %r13};
    mov.u32 %r20, sb;
    shl.b32 %r21, %r1, 3;
    add.u32 %r22, %r21, 8;
L_B:
    and.b32 %r23, %r21, 15;
    shr.u32 %r24, %r21, 7;
    and.b32 %r24, %r24, 3;
    shl.b32 %r24, %r24, 4;
    add.u32 %r23, %r23, %r24;
    add.u32 %r23, %r23, 1;
    cvt.u16.u32 %rs1, %r23;
    add.u32 %r25, %r20, %r21;
    st.shared.u8 [%r25], %rs1;
    add.u32 %r21, %r21, 1;
    setp.lt.u32 %p3, %r21, %r22;
    @%p3 bra L_B;
    fence.proxy.async.shared::cta;
    tcgen05.fence::before_thread_sync;
    bar.sync 0;
    tcgen05.fence::after_thread_sync;
    ld.shared.u32 %r30, [%r4];
    and.b32 %r31, %r2, 3;
    shl.b32 %r31, %r31, 21;
    add.u32 %r32, %r30, %r31;
    and.b32 %r33, %r1, 1;
    setp.eq.u32 %p4, %r33, 1;
    selp.b32 %r34, 0xDDDDDDDD, 0x44444444, %p4;
    add.u32 %r35, %r32, 64;
    tcgen05.st.sync.aligned.32x32b.x2.b32 [%r35], {%r34, %r34};
    tcgen05.wait::st.sync.aligned;
    tcgen05.fence::before_thread_sync;
    bar.sync 0;
    tcgen05.fence::after_thread_sync;
    @!%p2 bra L_ISSUED;
    and.b32 %r40, %r10, 262143;
    shr.u32 %r40, %r40, 4;
    cvt.u64.u32 %rd2, %r40;
    or.b64 %rd2, %rd2, 0x401000080000;
    and.b32 %r41, %r20, 262143;
    shr.u32 %r41, %r41, 4;
    cvt.u64.u32 %rd3, %r41;
    or.b64 %rd3, %rd3, 0x402000080000;
    mov.u32 %r42, 0x080404A4;
    add.u32 %r43, %r30, 64;
    setp.ne.u32 %p5, %r1, 0;
    tcgen05.mma.sp.cta_group::1.kind::i8 [%r30], %rd2, %rd3, [%r43], %r42, %p5;
    tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r7];
L_ISSUED:
L_WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p6, [%r7], 0;
    @!%p6 bra L_WAIT;
    tcgen05.fence::after_thread_sync;
    tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r50}, [%r32];
    tcgen05.wait::ld.sync.aligned;
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r50;
    tcgen05.fence::before_thread_sync;
    bar.sync 0;
    tcgen05.fence::after_thread_sync;
    @!%p1 bra L_END;
    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r30, 128;
L_END:
    ret;
}
"#;

#[test]
fn a_sparse_mma_runs_end_to_end_in_the_engine() {
    let ran = run_ptx(SP_RUN, 128, 128, &[]);
    assert!(ran.diags.is_empty(), "{:?}", ran.diags);
    for (row, &d) in ran.out.iter().enumerate() {
        // dense row: ones at 4g + i0 and 4g + i1 of each of 16 groups; B[j][k] = k + 1, so
        // D = sum over g of (4g + i0 + 1) + (4g + i1 + 1) = 8·120 + 16·(i0 + i1 + 2)
        let (i0, i1) = if row % 2 == 1 { (1, 3) } else { (0, 1) };
        assert_eq!(d as i32, 8 * 120 + 16 * (i0 + i1 + 2), "row {row}");
    }
}
