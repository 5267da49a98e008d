//! Warp-level `wmma` (PTX ISA 9.1 §9.7.14.4): `wmma.load.{a,b,c}`, `wmma.mma`, `wmma.store.d`
//! on the f16 / bf16 / tf32 shapes (.m16n16k16, .m32n8k16, .m8n32k16; tf32 .m16n16k8), with
//! f32 or f16 accumulators, row- or column-major memory and an optional stride. What nvcc's
//! WMMA API (`nvcuda::wmma::load_matrix_sync` / `mma_sync` / `store_matrix_sync`) lowers to.
//!
//! **Fragments.** The ISA leaves the distribution of a fragment's elements over the lanes
//! unspecified ("opaque"); a correct program only moves fragments between wmma instructions
//! (or applies one operation to every element). tmemu uses the layout an H100 uses, recorded
//! by kernels/wmma_h100 (each fragment loaded from a matrix whose element i holds i, then
//! dumped): [`frag_rc`]. With g = lane / 4, t = lane % 4 and e the element index in
//! register order (the low half of a 32-bit register first), it is the mma.m16n8k16 /
//! m16n8k8 fragment layout tiled over the shape; the f16 A and B fragments always hold 16
//! elements (8 registers), so the smaller tiles repeat their elements (an m8n32k16 A
//! fragment holds 4 distinct elements 4 times, the m16n16k16 one 8 elements twice), while
//! the bf16 ones hold each element once (4, 8 or 2 registers). A store or mma reads the
//! last copy of a repeated element.
//!
//! **Arithmetic.** D = A·B + C per element is the HMMA dot product of `mma.sync`
//! (exec/mma_sync.rs: exact products, alignment to the largest exponent with truncation,
//! one rounding), over the whole k of the shape, computed in 16×8 (8×8 for m8n32k16) blocks
//! by mma_sync's code: what an H100 runs for these shapes, checked bit for bit against
//! tests/corpus/wmma_h100. The 16-bit shapes are one HMMA.16816 per block (k = 16 at once);
//! tf32 m16n16k8 is two HMMA.1684 per block (k 0..4, then 4..8 onto that result: two
//! truncations), as nvcc 13.5 compiles it for sm_90a. DERIVED for sm_100a: the same SASS
//! instructions are assumed. With f16 inputs C and D may differ in type (`.f32.f16`,
//! `.f16.f32`): the product accumulates in f32, an f16 C widened exactly, an f16 D rounded
//! from the f32 result (recorded on the H100 like every other form).

use super::memory::{fault, lane_addr, load, observe_lane_at, resolve, store, Loc};
use super::mma_sync::{self, Accum, BitOp, Elem, MmaSyncInst};
use super::{Ctx, Flow, Warp, FULL};
use crate::error::rules;
use crate::observer::{AccessKind, MemOrder, Observer};
use crate::program::{Addr, Any, Space};

/// Which matrix a fragment holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    A,
    B,
    /// C or D (the accumulator).
    C,
}

/// Element type of a fragment (tf32 sits in memory and registers as f32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WElem {
    F16,
    Bf16,
    Tf32,
    F32,
}

impl WElem {
    /// Bytes per element in memory.
    pub fn bytes(self) -> u32 {
        match self {
            WElem::F16 | WElem::Bf16 => 2,
            WElem::Tf32 | WElem::F32 => 4,
        }
    }
    /// Elements per 32-bit register.
    pub fn per_reg(self) -> usize {
        if self.bytes() == 2 {
            2
        } else {
            1
        }
    }
}

#[derive(Clone, Debug)]
pub enum WmmaOp {
    /// `wmma.load.{a,b,c}`: `regs` (the fragment) from memory.
    Load {
        frag: Use,
        ty: WElem,
        col: bool,
        space: Space,
        addr: Addr,
        stride: Option<Any>,
        regs: Vec<Any>,
    },
    /// `wmma.store.d`: the fragment `regs` to memory.
    Store {
        ty: WElem,
        col: bool,
        space: Space,
        addr: Addr,
        stride: Option<Any>,
        regs: Vec<Any>,
    },
    /// `wmma.mma`: d = a·b + c (`acc` is the type of D, `cty` that of C).
    Mma {
        ab: WElem,
        acc: WElem,
        cty: WElem,
        d: Vec<Any>,
        a: Vec<Any>,
        b: Vec<Any>,
        c: Vec<Any>,
    },
}

/// One decoded `wmma` instruction (boxed in `Inst::Wmma`).
#[derive(Clone, Debug)]
pub struct WmmaInst {
    pub m: u8,
    pub n: u8,
    pub k: u8,
    pub op: WmmaOp,
}

/// Elements (in register order) of a fragment per lane.
pub fn frag_elems(frag: Use, ty: WElem, m: u8, n: u8, k: u8) -> usize {
    let (m, n, k) = (m as usize, n as usize, k as usize);
    match (frag, ty) {
        (Use::A | Use::B, WElem::F16) => 16,
        (Use::A, _) => m * k / 32,
        (Use::B, _) => k * n / 32,
        (Use::C, _) => m * n / 32,
    }
}

/// Rows and columns of the fragment's matrix: A is m×k, B k×n, C/D m×n.
pub fn frag_dims(frag: Use, m: u8, n: u8, k: u8) -> (usize, usize) {
    match frag {
        Use::A => (m as usize, k as usize),
        Use::B => (k as usize, n as usize),
        Use::C => (m as usize, n as usize),
    }
}

/// (row, column) of element `e` (register order) of lane `lane`'s fragment: the H100 layout
/// (module notes; tests/corpus/wmma_h100, every dumped fragment matches).
pub fn frag_rc(frag: Use, ty: WElem, m: u8, n: u8, lane: usize, e: usize) -> (usize, usize) {
    let (g, t) = (lane >> 2, lane & 3);
    let tf32 = ty == WElem::Tf32;
    match frag {
        Use::A if tf32 => (g + 8 * (e & 1), t + 4 * (e >> 1)),
        Use::B if tf32 => (t + 4 * (e & 1), g + 8 * (e >> 1)),
        Use::A => match (m, n) {
            (16, 16) => {
                let e = e & 7;
                let (p, i) = (e >> 1, e & 1);
                (g + 8 * (p & 1), 2 * t + i + 8 * (p >> 1))
            }
            (32, 8) => {
                let (blk, e) = (e >> 3, e & 7);
                let (p, i) = (e >> 1, e & 1);
                (g + 8 * (p & 1) + 16 * blk, 2 * t + i + 8 * (p >> 1))
            }
            _ => {
                let e = e & 3;
                (g, 2 * t + (e & 1) + 8 * (e >> 1))
            }
        },
        Use::B => match (m, n) {
            (16, 16) => {
                let e = e & 7;
                let (p, i) = (e >> 1, e & 1);
                (2 * t + i + 8 * (p & 1), g + 8 * (p >> 1))
            }
            (32, 8) => {
                let e = e & 3;
                (2 * t + (e & 1) + 8 * (e >> 1), g)
            }
            _ => {
                let (blk, e) = (e >> 3, e & 7);
                let (p, i) = (e >> 1, e & 1);
                (2 * t + i + 8 * (p >> 1), g + 8 * (p & 1) + 16 * blk)
            }
        },
        Use::C => {
            let (p, i) = (e >> 1, e & 1);
            match (m, n) {
                (32, 8) => (g + 8 * p, 2 * t + i),
                (8, 32) => (2 * t + i, g + 8 * p),
                _ => (g + 8 * (p & 1), 2 * t + i + 8 * (p >> 1)),
            }
        }
    }
}

#[inline]
fn reg_elem(w: &Warp, regs: &[Any], ty: WElem, lane: usize, e: usize) -> u64 {
    let per = ty.per_reg();
    let v = w.read_any(regs[e / per], lane);
    if per == 2 {
        (v >> (16 * (e % 2))) & 0xffff
    } else {
        v & 0xffff_ffff
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &WmmaInst,
) -> Flow {
    if mask != FULL & w.live || mask == 0 {
        if mask != 0 {
            let pc = w.cur_pc;
            cx.diag(
                w,
                pc,
                mask,
                rules::DIVERGENT_ALIGNED,
                format!("wmma .sync.aligned executed by a subset of the warp (lanes {mask:#010x})"),
            );
        }
        return Flow::Next;
    }
    match &i.op {
        WmmaOp::Load {
            frag,
            ty,
            col,
            space,
            addr,
            stride,
            regs,
        } => {
            let ne = frag_elems(*frag, *ty, i.m, i.n, i.k);
            let (rows, cols) = frag_dims(*frag, i.m, i.n, i.k);
            let es = ty.bytes();
            let per = ty.per_reg();
            let at = cx.at(w, mask);
            let mut out = [[0u32; 32]; 8];
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                let base = lane_addr(w, *addr, l);
                let ld = stride.map_or(if *col { rows } else { cols } as u64, |s| {
                    w.read_any(s, l) & 0xffff_ffff
                });
                for e in 0..ne {
                    let (r, c) = frag_rc(*frag, *ty, i.m, i.n, l, e);
                    let off = if *col {
                        c as u64 * ld + r as u64
                    } else {
                        r as u64 * ld + c as u64
                    };
                    let a = base.wrapping_add(off * u64::from(es));
                    let v = match resolve(cx, *space, a).and_then(|loc| {
                        let v = load(w, cx, l, loc, es)?;
                        if cx.obs.wants_memory() {
                            observe_lane_at(cx, at, l, loc, es, AccessKind::Read, MemOrder::Weak);
                        }
                        Ok(v)
                    }) {
                        Ok(v) => v as u32,
                        Err(f) => {
                            fault(w, cx, 1 << l, l, f, *space);
                            0
                        }
                    };
                    if per == 2 {
                        out[e / 2][l] |= v << (16 * (e % 2));
                    } else {
                        out[e][l] = v;
                    }
                }
            }
            for (r, v) in regs.iter().zip(&out) {
                if let Any::R32(reg) = *r {
                    w.set(reg, mask, v);
                }
            }
        }
        WmmaOp::Store {
            ty,
            col,
            space,
            addr,
            stride,
            regs,
        } => {
            let ne = frag_elems(Use::C, *ty, i.m, i.n, i.k);
            let (rows, cols) = frag_dims(Use::C, i.m, i.n, i.k);
            let es = ty.bytes();
            let at = cx.at(w, mask);
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                let base = lane_addr(w, *addr, l);
                let ld = stride.map_or(if *col { rows } else { cols } as u64, |s| {
                    w.read_any(s, l) & 0xffff_ffff
                });
                for e in 0..ne {
                    let (r, c) = frag_rc(Use::C, *ty, i.m, i.n, l, e);
                    let off = if *col {
                        c as u64 * ld + r as u64
                    } else {
                        r as u64 * ld + c as u64
                    };
                    let a = base.wrapping_add(off * u64::from(es));
                    let v = reg_elem(w, regs, *ty, l, e);
                    let res: Result<Loc, _> = resolve(cx, *space, a).and_then(|loc| {
                        store(w, cx, l, loc, es, v)?;
                        Ok(loc)
                    });
                    match res {
                        Ok(loc) if cx.obs.wants_memory() => {
                            observe_lane_at(cx, at, l, loc, es, AccessKind::Write, MemOrder::Weak)
                        }
                        Ok(_) => {}
                        Err(f) => fault(w, cx, 1 << l, l, f, *space),
                    }
                }
            }
        }
        WmmaOp::Mma {
            ab,
            acc,
            cty,
            d,
            a,
            b,
            c,
        } => mma(w, mask, i, *ab, (*acc, *cty), d, a, b, c),
    }
    Flow::Next
}

#[allow(clippy::too_many_arguments)]
fn mma(
    w: &mut Warp,
    mask: u32,
    i: &WmmaInst,
    ab: WElem,
    (acc, cty): (WElem, WElem),
    d: &[Any],
    a: &[Any],
    b: &[Any],
    c: &[Any],
) {
    let (m, n, k) = (i.m as usize, i.n as usize, i.k as usize);
    // the matrices, row-major, element bits
    let mut am = [0u64; 32 * 16];
    let mut bm = [0u64; 16 * 32];
    let mut cm = [0u64; 16 * 16];
    let gather = |w: &Warp, frag: Use, ty: WElem, regs: &[Any], out: &mut [u64], cols: usize| {
        let ne = frag_elems(frag, ty, i.m, i.n, i.k);
        for l in 0..32 {
            for e in 0..ne {
                let (r, col) = frag_rc(frag, ty, i.m, i.n, l, e);
                out[r * cols + col] = reg_elem(w, regs, ty, l, e);
            }
        }
    };
    gather(w, Use::A, ab, a, &mut am, k);
    gather(w, Use::B, ab, b, &mut bm, n);
    gather(w, Use::C, cty, c, &mut cm, n);
    // Mixed C/D (f16 inputs): the tensor core accumulates in f32 whenever either is f32; an
    // f16 C widens exactly, an f16 D is the f32 result rounded to nearest even (checked
    // against the H100 recording, tests/corpus/wmma_h100 `mix_*` forms)
    let wide = acc == WElem::F32 || cty == WElem::F32;
    if wide && cty == WElem::F16 {
        for v in cm.iter_mut() {
            *v = u64::from(half::f16::from_bits(*v as u16).to_f32().to_bits());
        }
    }
    let elem = match ab {
        WElem::F16 => Elem::F16,
        WElem::Bf16 => Elem::Bf16,
        _ => Elem::Tf32,
    };
    let accum = if wide { Accum::F32 } else { Accum::F16 };
    // 16×8 blocks (8×8 for m = 8): mma.sync's HMMA dot products over the whole k
    let bm_rows = m.min(16);
    // nvcc (13.5, sm_90a) compiles the tf32 m16n16k8 into two HMMA.1684 per 16×8 block (k
    // 0..4, then 4..8 accumulating onto the first), the 16-bit shapes into one HMMA.16816
    // each: the truncation happens per instruction, so the k steps matter (tf32 recorded)
    let kstep = if ab == WElem::Tf32 { 4 } else { k };
    let blk = MmaSyncInst {
        m: bm_rows,
        n: 8,
        k: kstep,
        a_ty: elem,
        b_ty: elem,
        acc: accum,
        satfinite: false,
        bitop: BitOp::And,
        d: Vec::new(),
        a: Vec::new(),
        b: Vec::new(),
        c: Vec::new(),
    };
    let mut dm = [0u64; 16 * 32];
    let (mut ab_, mut bb, mut cb, mut db) = (
        [0u64; 16 * 16],
        [0u64; 16 * 8],
        [0u64; 16 * 8],
        [0u64; 16 * 8],
    );
    for r0 in (0..m).step_by(bm_rows) {
        for c0 in (0..n).step_by(8) {
            for r in 0..bm_rows {
                for kk in 0..k {
                    ab_[r * k + kk] = am[(r0 + r) * k + kk];
                }
                for cc in 0..8 {
                    cb[r * 8 + cc] = cm[(r0 + r) * n + c0 + cc];
                }
            }
            // B as n×k (column-major), the form mma_sync's dot takes
            for cc in 0..8 {
                for kk in 0..k {
                    bb[cc * k + kk] = bm[kk * n + c0 + cc];
                }
            }
            // k in steps of `kstep` (the HMMA instructions the shape becomes), each step's
            // D the next one's C
            let ks = blk.k;
            let (mut ak, mut bk) = ([0u64; 16 * 16], [0u64; 8 * 16]);
            for k0 in (0..k).step_by(ks) {
                for r in 0..bm_rows {
                    ak[r * ks..(r + 1) * ks].copy_from_slice(&ab_[r * k + k0..r * k + k0 + ks]);
                }
                for cc in 0..8 {
                    bk[cc * ks..(cc + 1) * ks].copy_from_slice(&bb[cc * k + k0..cc * k + k0 + ks]);
                }
                mma_sync::dot_block(
                    &blk,
                    &ak[..bm_rows * ks],
                    &bk[..8 * ks],
                    &cb[..bm_rows * 8],
                    &mut db[..bm_rows * 8],
                );
                cb = db;
            }
            for r in 0..bm_rows {
                for cc in 0..8 {
                    dm[(r0 + r) * n + c0 + cc] = db[r * 8 + cc];
                }
            }
        }
    }
    // scatter D into its fragment
    let ne = frag_elems(Use::C, acc, i.m, i.n, i.k);
    let per = acc.per_reg();
    let mut out = [[0u32; 32]; 8];
    for l in 0..32 {
        for e in 0..ne {
            let (r, col) = frag_rc(Use::C, acc, i.m, i.n, l, e);
            let mut v = dm[r * n + col] as u32;
            if wide && acc == WElem::F16 {
                v = u32::from(tmemu_num::ops::half::f32_to_f16_rne(f32::from_bits(v)));
            }
            if per == 2 {
                out[e / 2][l] |= (v & 0xffff) << (16 * (e % 2));
            } else {
                out[e][l] = v;
            }
        }
    }
    for (r, v) in d.iter().zip(&out) {
        if let Any::R32(reg) = *r {
            w.set(reg, mask, v);
        }
    }
}
