//! A deliberately naive model of tile-mode tensor copies, written from bulk-copies.md §1.5
//! and §2.3 without looking at the crate's run-based code: one element at a time,
//! coordinates → global offset → value, dense box offset → swizzled address by the 16-byte
//! chunk tables of PTX §5.5.7.

#![allow(dead_code, clippy::too_many_arguments, clippy::needless_range_loop)]

use tmemu_spec::tensormap::{
    Interleave, L2Promotion, OobFill, SwizzleAtomicity, SwizzleMode, TensorMapDesc, TensorMapMode,
    TmElemType,
};

pub const GLOBAL_BASE: u64 = 0x7000_0000;

/// A copy to test: a map, coordinates and the shared-memory address.
#[derive(Clone, Debug)]
pub struct Case {
    pub desc: TensorMapDesc,
    pub coords: Vec<i32>,
    pub smem: u32,
}

pub fn esize(ty: TmElemType) -> usize {
    (ty.bits() / 8) as usize
}

/// A map over a dense-ish tensor at `GLOBAL_BASE`: strides padded by `pad16` × 16 bytes.
pub fn make_desc(
    ty: TmElemType,
    dims: &[u64],
    boxd: &[u32],
    es: &[u32],
    pad16: u64,
    swizzle: SwizzleMode,
    atom: SwizzleAtomicity,
    fill: OobFill,
) -> TensorMapDesc {
    let rank = dims.len();
    let mut d = TensorMapDesc {
        elem_type: ty,
        rank: rank as u8,
        global_address: GLOBAL_BASE,
        global_dims: [0; 5],
        global_strides: [0; 4],
        box_dims: [0; 5],
        elem_strides: [0; 5],
        interleave: Interleave::None,
        swizzle,
        swizzle_atomicity: atom,
        oob_fill: fill,
        l2_promotion: L2Promotion::None,
        mode: TensorMapMode::Tile,
    };
    let mut stride = (dims[0] * esize(ty) as u64).div_ceil(16) * 16 + 16 * pad16;
    for i in 0..rank {
        d.global_dims[i] = dims[i];
        d.box_dims[i] = boxd[i];
        d.elem_strides[i] = es[i];
        if i >= 1 {
            d.global_strides[i - 1] = stride;
            stride = stride * dims[i] + 16 * pad16;
        }
    }
    d
}

/// Bytes the tensor spans from its base (highest element + 1).
pub fn tensor_span(d: &TensorMapDesc) -> u64 {
    let e = esize(d.elem_type) as u64;
    let mut last = (d.global_dims[0] - 1) * e;
    for i in 1..d.rank as usize {
        last += (d.global_dims[i] - 1) * d.global_strides[i - 1];
    }
    last + e
}

/// A recognisable byte for every global address.
pub fn global_byte(addr: u64) -> u8 {
    let x = addr.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (x >> 56) as u8 | 1
}

/// The swizzled address of dense address `a` by the chunk tables of §2.3: the 128-byte row is
/// `a / 128`; a 16-byte chunk `c` (or a 32/64-byte unit) is exchanged with `c ^ (row mod n)`.
pub fn swizzle_table(d: &TensorMapDesc, a: u32) -> u32 {
    let row = a / 128;
    let line = row * 128;
    let within = a % 128;
    match (d.swizzle, d.swizzle_atomicity) {
        (SwizzleMode::None, _) => a,
        (SwizzleMode::B32 | SwizzleMode::B64 | SwizzleMode::B128, SwizzleAtomicity::B16) => {
            let n = match d.swizzle {
                SwizzleMode::B32 => 2,
                SwizzleMode::B64 => 4,
                _ => 8,
            };
            let chunk = within / 16;
            line + (chunk ^ (row % n)) * 16 + within % 16
        }
        (SwizzleMode::B128, SwizzleAtomicity::B32) => {
            let unit = within / 32;
            line + (unit ^ (row % 4)) * 32 + within % 32
        }
        (SwizzleMode::B128, SwizzleAtomicity::B64) => {
            let unit = within / 64;
            line + (unit ^ (row % 2)) * 64 + within % 64
        }
        (SwizzleMode::B128, SwizzleAtomicity::B32Flip8B) => {
            let unit = within / 32;
            let mut off = (unit ^ (row % 4)) * 32 + within % 32;
            if row % 2 == 1 {
                // swap the 8-byte halves of the 16 bytes
                off = (off / 16) * 16 + ((off % 16) + 8) % 16;
            }
            line + off
        }
        other => panic!("no table for {other:?}"),
    }
}

/// Per element of the box in dense order: (dense byte offset, global address or None).
pub fn elements(c: &Case) -> Vec<(usize, Option<u64>)> {
    let d = &c.desc;
    let r = d.rank as usize;
    let e = esize(d.elem_type);
    let step = |i: usize| {
        if i == 0 && d.interleave == Interleave::None {
            1
        } else {
            d.elem_strides[i] as i64
        }
    };
    let n: Vec<usize> = (0..r)
        .map(|i| (d.box_dims[i] as i64 + step(i) - 1) as usize / step(i) as usize)
        .collect();
    let total: usize = n.iter().product();
    let mut out = Vec::with_capacity(total);
    for lin in 0..total {
        // Unflatten, dimension 0 fastest.
        let mut rest = lin;
        let mut inb = true;
        let mut off: u64 = 0;
        for i in 0..r {
            let k = (rest % n[i]) as i64;
            rest /= n[i];
            let x = c.coords[i] as i64 + k * step(i);
            if x < 0 || x >= d.global_dims[i] as i64 {
                inb = false;
            } else if i == 0 {
                off += x as u64 * e as u64;
            } else {
                off += x as u64 * d.global_strides[i - 1];
            }
        }
        // A row narrower than the swizzle span still occupies the whole span (H100-recorded,
        // tests/corpus/tma_h100).
        let row_bytes = n[0] * e;
        let pitch = match (d.interleave, d.swizzle) {
            (Interleave::None, SwizzleMode::B32) => row_bytes.max(32),
            (Interleave::None, SwizzleMode::B64) => row_bytes.max(64),
            (Interleave::None, SwizzleMode::B128) => row_bytes.max(128),
            _ => row_bytes,
        };
        out.push((
            lin / n[0] * pitch + lin % n[0] * e,
            inb.then_some(GLOBAL_BASE + off),
        ));
    }
    out
}

pub fn nan_bytes(ty: TmElemType) -> Vec<u8> {
    match ty {
        // 0x7FF7 over every 16 bits, as an H100 writes it (tests/corpus/tma_h100).
        TmElemType::F16 | TmElemType::BF16 => vec![0xF7, 0x7F],
        TmElemType::F32 | TmElemType::TF32 | TmElemType::F32Ftz | TmElemType::TF32Ftz => {
            vec![0xF7, 0x7F, 0xF7, 0x7F]
        }
        TmElemType::F64 => [0xF7, 0x7F].repeat(4),
        _ => panic!("no NaN for {ty:?}"),
    }
}

/// The shared window after loading `c` into `smem` (which starts as `init`).
pub fn reference_load(c: &Case, global: &[u8], init: &[u8]) -> Vec<u8> {
    let d = &c.desc;
    let e = esize(d.elem_type);
    let mut smem = init.to_vec();
    for (dense, g) in elements(c) {
        for j in 0..e {
            let a = swizzle_table(d, c.smem + (dense + j) as u32) as usize;
            smem[a] = match g {
                Some(g) => global[(g - GLOBAL_BASE) as usize + j],
                None if d.oob_fill == OobFill::Nan => nan_bytes(d.elem_type)[j],
                None => 0,
            };
        }
    }
    smem
}

/// Global memory after storing the box of `c` from `smem`.
pub fn reference_store(c: &Case, smem: &[u8], global: &[u8]) -> Vec<u8> {
    let d = &c.desc;
    let e = esize(d.elem_type);
    let mut out = global.to_vec();
    for (dense, g) in elements(c) {
        if let Some(g) = g {
            for j in 0..e {
                let a = swizzle_table(d, c.smem + (dense + j) as u32) as usize;
                out[(g - GLOBAL_BASE) as usize + j] = smem[a];
            }
        }
    }
    out
}

pub fn global_image(d: &TensorMapDesc) -> Vec<u8> {
    (0..tensor_span(d))
        .map(|o| global_byte(GLOBAL_BASE + o))
        .collect()
}
