//! Tensor-copy loads recorded on an H100 (tests/corpus/tma_h100, made by
//! kernels/tma_h100/harness.cu) replayed through `tmemu_tma` and compared bit for bit: tile and
//! im2col modes, odd shapes, padding corners and offsets, traversal strides, out-of-bounds
//! zero and NaN fill, the 32B/64B/128B swizzles at 1024- and 128-byte aligned destinations,
//! 3-D to 5-D. The harness prefilled shared memory with 0xA5 and dumped 4× the box, so bytes
//! the copy must leave alone are compared too. `tx_ok=1` says the mbarrier completed with
//! `expect` bytes of complete-tx, which must equal the model's count.

use std::collections::HashMap;
use std::path::PathBuf;

use tmemu_spec::tensormap::{
    Im2colParams, Interleave, L2Promotion, OobFill, TensorMapDesc, TensorMapMode, TmElemType,
    SWIZZLE_NAMES,
};
use tmemu_tma::{load, reduce, store, FlatGlobal, ReduceOp, TileBox, TmaError};

const GLOBAL_BASE: u64 = 0x10_0000;
const SENTINEL: u8 = 0xA5;

/// A store's source in the harness: byte i of shared memory from the box's start.
fn smem_pattern(i: u64) -> u8 {
    ((i * 37 + 11) & 0xFF) as u8
}

/// The harness's tensor bytes: byte i of the buffer.
fn pattern(i: u64) -> u8 {
    (i.wrapping_mul(151)
        .wrapping_add((i >> 7).wrapping_mul(29))
        .wrapping_add(7)
        & 0xFF) as u8
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/tma_h100")
}

fn ints<T: std::str::FromStr>(s: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    if s.is_empty() {
        return Vec::new();
    }
    s.split(',').map(|x| x.parse().unwrap()).collect()
}

struct Case {
    kv: HashMap<String, String>,
}

impl Case {
    fn get(&self, k: &str) -> &str {
        self.kv
            .get(k)
            .unwrap_or_else(|| panic!("manifest line without '{k}'"))
    }
    fn num(&self, k: &str) -> u64 {
        self.get(k).parse().unwrap()
    }

    fn desc(&self) -> TensorMapDesc {
        let rank = self.num("rank") as usize;
        let (mode, atom) = SWIZZLE_NAMES
            .iter()
            .find(|s| s.0 == self.get("swizzle"))
            .map(|s| (s.1, s.2))
            .unwrap();
        let mut d = TensorMapDesc {
            elem_type: TmElemType::from_name(self.get("dtype")).unwrap(),
            rank: rank as u8,
            global_address: GLOBAL_BASE,
            global_dims: [0; 5],
            global_strides: [0; 4],
            box_dims: [0; 5],
            elem_strides: [0; 5],
            interleave: Interleave::None,
            swizzle: mode,
            swizzle_atomicity: atom,
            oob_fill: if self.get("fill") == "nan" {
                OobFill::Nan
            } else {
                OobFill::Zero
            },
            l2_promotion: L2Promotion::None,
            mode: TensorMapMode::Tile,
        };
        for (i, v) in ints::<u64>(self.get("dims")).into_iter().enumerate() {
            d.global_dims[i] = v;
        }
        for (i, v) in ints::<u64>(self.get("strides")).into_iter().enumerate() {
            d.global_strides[i] = v;
        }
        for (i, v) in ints::<u32>(self.get("estr")).into_iter().enumerate() {
            d.elem_strides[i] = v;
        }
        if self.get("mode").ends_with("im2col") {
            let mut p = Im2colParams {
                channels: self.num("channels") as u16,
                pixels: self.num("pixels") as u16,
                ..Im2colParams::default()
            };
            for (j, v) in ints::<i16>(self.get("lower")).into_iter().enumerate() {
                p.lower[j] = v;
            }
            for (j, v) in ints::<i16>(self.get("upper")).into_iter().enumerate() {
                p.upper[j] = v;
            }
            d.mode = TensorMapMode::Im2col(p);
        } else {
            for (i, v) in ints::<u32>(self.get("box")).into_iter().enumerate() {
                d.box_dims[i] = v;
            }
        }
        d
    }

    fn global_bytes(&self, d: &TensorMapDesc) -> u64 {
        let r = d.rank as usize;
        if r == 1 {
            return d.global_dims[0] * (d.elem_type.bits() / 8);
        }
        d.global_strides[r - 2] * d.global_dims[r - 1]
    }
}

fn cases() -> (Vec<Case>, Vec<u8>) {
    let text = std::fs::read_to_string(dir().join("manifest.txt")).unwrap();
    let dumps = tmemu_testkit::recording::read(&dir().join("dumps.bin"));
    let cases = text
        .lines()
        .filter(|l| l.starts_with("name="))
        .map(|l| Case {
            kv: l
                .split_whitespace()
                .map(|f| {
                    let (k, v) = f.split_once('=').unwrap();
                    (k.to_string(), v.to_string())
                })
                .collect(),
        })
        .collect();
    (cases, dumps)
}

impl Case {
    /// The copy decoded as the engine decodes it, with the checks the engine applies.
    fn decode(&self, d: &TensorMapDesc, dst: u32) -> Result<TileBox, TmaError> {
        let coords: Vec<i32> = ints(self.get("coords"));
        let mode = self.get("mode");
        let b = if mode == "im2col" {
            let offs: Vec<i16> = ints(self.get("offs"));
            TileBox::new_im2col(d, &coords, &offs, dst)
        } else if mode == "store_im2col" || mode == "red_im2col" {
            // .im2col_no_offs
            let n = usize::from(d.rank) - 2;
            TileBox::new_im2col(d, &coords, &vec![0; n], dst)
        } else {
            TileBox::new(d, &coords, dst)
        }?;
        b.check_start_alignment()?;
        if mode.starts_with("store") || mode.starts_with("red") {
            b.check_store()?;
        }
        Ok(b)
    }
}

#[test]
fn copies_match_the_h100_bit_for_bit() {
    let (cases, dumps) = cases();
    let (mut loads, mut stores, mut im2col, mut faults) = (0, 0, 0, 0);
    let mut failures = Vec::new();
    for c in cases.iter().filter(|c| !c.get("mode").starts_with("red")) {
        let name = c.get("name");
        let d = c.desc();
        d.validate()
            .unwrap_or_else(|e| panic!("{name}: {e} (the driver accepted this map)"));
        if c.get("status") != "ok" {
            // The hardware faulted: tmemu must report a rule for the copy.
            assert!(c.get("status").starts_with("launch_error"), "{name}");
            let e = c
                .decode(&d, 2048 + c.num("smem_off") as u32)
                .err()
                .unwrap_or_else(|| panic!("{name}: faulted on the H100, tmemu accepts it"));
            eprintln!(
                "{name}: H100 {}, tmemu {:?}: {e}",
                c.get("status"),
                e.rule_id()
            );
            faults += 1;
            continue;
        }
        let base = c.num("smem_base") as usize;
        let dst = (base as u64 + c.num("smem_off")) as u32;
        let global: Vec<u8> = (0..c.global_bytes(&d)).map(pattern).collect();
        let mut global = FlatGlobal::new(GLOBAL_BASE, global);
        let len = c.num("dump_len") as usize;
        let at = c.num("dump_at") as usize;
        let want = &dumps[at..at + len];
        let b = c.decode(&d, dst).unwrap_or_else(|e| panic!("{name}: {e}"));
        if c.get("mode").ends_with("im2col") {
            im2col += 1;
        }
        let got = if c.get("mode").starts_with("store") {
            // The harness filled 4x the box + 128 bytes from the box's start.
            let fill = 4 * c.num("expect") as usize + 128;
            let mut smem = vec![0u8; dst as usize + fill + 4096];
            for i in 0..fill {
                smem[dst as usize + i] = smem_pattern(i as u64);
            }
            store(&b, &smem, &mut global).unwrap();
            stores += 1;
            global.bytes.clone()
        } else {
            assert_eq!(c.get("tx_ok"), "1", "{name}: the mbarrier did not complete");
            let mut smem = vec![SENTINEL; base + len + 4096];
            let stats = load(&b, &global, &mut smem).unwrap();
            assert_eq!(stats.tx_bytes, c.num("expect"), "{name}: complete-tx bytes");
            loads += 1;
            smem[base..base + len].to_vec()
        };
        if let Some(i) = (0..len).find(|&i| got[i] != want[i]) {
            failures.push(format!(
                "{name}: first difference at byte {i} of the dump: tmemu {:#04x}, H100 {:#04x}",
                got[i], want[i]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 29 cases: 20 loads (11 im2col), 3 stores (1 im2col_no_offs), 6 faults.
    assert!(
        loads >= 20 && stores >= 3 && im2col >= 12 && faults >= 6,
        "compared {loads} loads, {stores} stores ({im2col} im2col), {faults} faults"
    );
}

/// What the recording settled, spelled out as known answers (so a change of the model that
/// still matched by accident would be caught here with a readable message).
#[test]
fn recorded_facts() {
    let (cases, dumps) = cases();
    let dump = |name: &str| {
        let c = cases.iter().find(|c| c.get("name") == name).unwrap();
        let at = c.num("dump_at") as usize;
        dumps[at..at + c.num("dump_len") as usize].to_vec()
    };
    // OOB-NaN fill: 0x7FF7 over every 16 bits, also for f32.
    let f32_nan = dump("tile_f32_estr_nan");
    assert_eq!(&f32_nan[..4], &[0xF7, 0x7F, 0xF7, 0x7F]);
    let bf16_nan = dump("i2c_ndhwc_bf16_nan");
    assert_eq!(&bf16_nan[..2], &[0xF7, 0x7F]);
    // f64 too: row 0 of the 4 × 4 box at (8, 4) of a 10-wide tensor ends in two OOB elements.
    let f64_nan = dump("tile_f64_nan");
    assert_eq!(&f64_nan[16..32], &[0xF7, 0x7F].repeat(8)[..]);
    // A 64-byte row under the 128B swizzle occupies a 128-byte line: row 0 fills chunks 0..4
    // of line 0 and leaves chunks 4..8 untouched.
    let row64 = dump("tile_f16_row64_swz128");
    assert!(row64[64..128].iter().all(|&x| x == SENTINEL));
    assert!(row64[..64].iter().any(|&x| x != SENTINEL));
}

impl Case {
    fn bytes<'a>(&self, dumps: &'a [u8], at: &str, len: &str) -> &'a [u8] {
        let at = self.num(at) as usize;
        &dumps[at..at + self.num(len) as usize]
    }
}

/// The element type of a reduction case: the map's, or the instruction's for the non-tensor
/// form (`.b32`/`.b64` are the bitwise ops' spelling of the 32/64-bit integers).
fn red_type(c: &Case) -> TmElemType {
    match c.get("dtype") {
        "b32" => TmElemType::U32,
        "b64" => TmElemType::U64,
        t => TmElemType::from_name(t).unwrap(),
    }
}

/// Describes the first few elements where tmemu and the H100 differ.
fn element_diffs(
    ty: TmElemType,
    init: &[u8],
    src: &[u8],
    got: &[u8],
    want: &[u8],
) -> Option<String> {
    let n = (ty.bits() / 8) as usize;
    let hex = |b: &[u8]| {
        b.iter()
            .rev()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    let bad: Vec<usize> = (0..got.len() / n)
        .filter(|&e| got[e * n..(e + 1) * n] != want[e * n..(e + 1) * n])
        .collect();
    if bad.is_empty() {
        return None;
    }
    let shown: Vec<String> = bad
        .iter()
        .take(4)
        .map(|&e| {
            let r = e * n..(e + 1) * n;
            format!(
                "elem {e}: {} op {} = H100 {} tmemu {}",
                hex(&init[r.clone()]),
                src.get(r.clone()).map(hex).unwrap_or_default(),
                hex(&want[r.clone()]),
                hex(&got[r])
            )
        })
        .collect();
    Some(format!(
        "{} elements differ; {}",
        bad.len(),
        shown.join("; ")
    ))
}

/// `cp.reduce.async.bulk.tensor` (tile, `.im2col_no_offs`) recorded on an H100: every
/// operation over the map types it is defined on, boxes over the tensor's far edges, the
/// 32B/64B/128B swizzles, rows narrower than the swizzle span, 1-D to 4-D; inputs mixed with
/// NaNs, ±0, ±inf and subnormals. The harness recorded the tensor before and after and the
/// shared-memory source, so the whole tensor (elements outside the box and outside the tensor
/// included) is compared bit for bit. A case that faulted on the H100 must be refused by tmemu
/// with a rule.
#[test]
fn tensor_reductions_match_the_h100_bit_for_bit() {
    let (cases, dumps) = cases();
    let (mut ran, mut faults) = (0, 0);
    let mut failures = Vec::new();
    for c in cases
        .iter()
        .filter(|c| matches!(c.get("mode"), "red_tile" | "red_im2col"))
    {
        let name = c.get("name");
        let d = c.desc();
        d.validate()
            .unwrap_or_else(|e| panic!("{name}: {e} (the driver accepted this map)"));
        let op = ReduceOp::from_name(c.get("op")).unwrap();
        // Faulted cases have no recorded base; 2048 is where the others' windows began.
        let base = c.kv.get("smem_base").map_or(2048, |b| b.parse().unwrap());
        let dst = base + c.num("smem_off") as u32;
        let checked = op.check(d.elem_type).and_then(|()| c.decode(&d, dst));
        if c.get("status") != "ok" {
            match checked {
                Err(e) => {
                    assert!(e.rule_id().is_some(), "{name}: {e} has no rule");
                    faults += 1;
                }
                Ok(_) => failures.push(format!(
                    "{name}: faulted on the H100 ({}), tmemu accepts it",
                    c.get("status")
                )),
            }
            continue;
        }
        let b = match checked {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{name}: ran on the H100, tmemu refuses it: {e}"));
                continue;
            }
        };
        let at = dst as usize;
        let src = c.bytes(&dumps, "src_at", "src_len");
        let mut smem = vec![0u8; at + src.len() + 4096];
        smem[at..at + src.len()].copy_from_slice(src);
        let init = c.bytes(&dumps, "init_at", "dump_len");
        let want = c.bytes(&dumps, "dump_at", "dump_len");
        let mut global = FlatGlobal::new(GLOBAL_BASE, init.to_vec());
        reduce(&b, op, d.elem_type, &smem, &mut global).unwrap();
        if let Some(why) = element_diffs(d.elem_type, init, &[], &global.bytes, want) {
            failures.push(format!("{name}: {why}"));
        }
        ran += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 60 && faults >= 10, "compared {ran}, {faults} faults");
}

/// Non-tensor `cp.reduce.async.bulk.global.shared::cta.bulk_group` recorded on an H100: every
/// (op, type) ptxas accepts, 512 bytes into the middle of a 1 KiB buffer (the bytes around it
/// must stay), replayed through `ReduceOp::apply`, the arithmetic the engine uses for it.
#[test]
fn bulk_reductions_match_the_h100_bit_for_bit() {
    let (cases, dumps) = cases();
    let mut ran = 0;
    let mut failures = Vec::new();
    for c in cases.iter().filter(|c| c.get("mode") == "red_bulk") {
        let name = c.get("name");
        assert_eq!(c.get("status"), "ok", "{name}");
        let op = ReduceOp::from_name(c.get("op")).unwrap();
        let ty = red_type(c);
        op.check(ty)
            .unwrap_or_else(|e| panic!("{name}: ptxas and the H100 accept it, tmemu: {e}"));
        let init = c.bytes(&dumps, "init_at", "dump_len");
        let src = c.bytes(&dumps, "src_at", "src_len");
        let want = c.bytes(&dumps, "dump_at", "dump_len");
        let mut got = init.to_vec();
        let off = c.num("dst_off") as usize;
        op.apply(ty, &mut got[off..off + src.len()], src);
        let mut src_at = vec![0u8; init.len()];
        src_at[off..off + src.len()].copy_from_slice(src);
        if let Some(why) = element_diffs(ty, init, &src_at, &got, want) {
            failures.push(format!("{name}: {why}"));
        }
        ran += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 27, "compared {ran}");
}

/// The `.shared::cluster` forms (shared → shared): every `cp.reduce.async.bulk` into the CTA's
/// own shared memory faulted in a launch without a cluster (`red_cluster` cases), as did the
/// plain `cp.async.bulk` copy, with or without `mapa`; with a cluster of 1 (own CTA) or 2 CTAs
/// (into the peer) the reduction ran, completed the mbarrier and added element-wise (TM0131 in
/// the engine).
#[test]
fn shared_cluster_forms_need_a_cluster_launch() {
    let (cases, dumps) = cases();
    let plain: Vec<&Case> = cases
        .iter()
        .filter(|c| c.get("mode") == "red_cluster")
        .collect();
    assert!(plain.len() >= 12);
    for c in &plain {
        assert!(
            c.get("status").starts_with("launch_error"),
            "{}",
            c.get("name")
        );
    }
    let probes: Vec<&Case> = cases
        .iter()
        .filter(|c| c.get("mode") == "red_probe")
        .collect();
    assert_eq!(probes.len(), 6);
    for c in probes {
        let name = c.get("name");
        let in_cluster = c.num("cluster") > 0;
        assert_eq!(c.get("status") == "ok", in_cluster, "{name}");
        if !in_cluster {
            continue;
        }
        assert_eq!(c.get("tx_ok"), "1", "{name}: the mbarrier did not complete");
        let init = c.bytes(&dumps, "init_at", "dump_len");
        let src = c.bytes(&dumps, "src_at", "src_len");
        let mut got = init.to_vec();
        ReduceOp::Add.apply(TmElemType::U32, &mut got, src);
        assert_eq!(got, c.bytes(&dumps, "dump_at", "dump_len"), "{name}");
    }
}
