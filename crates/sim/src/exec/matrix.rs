//! `ldmatrix` / `stmatrix` (PTX ISA 9.1 §9.7.14.5.15, §9.7.14.5.16): warp-collective loads and
//! stores of 8×8 matrices of 16-bit elements between shared memory and registers, which
//! Triton emits around its tcgen05 matmuls (operand staging, epilogues).
//!
//! `.m8n8.xN.b16`: matrix i (i < N) has its 8 rows at the addresses held by lanes 8i..8i+7
//! (16 contiguous bytes per row). In registers, lane t holds for matrix i the 32-bit pair
//! (row t/4, columns 2(t%4), 2(t%4)+1), low half first; with `.trans` the pair is (rows 2(t%4),
//! 2(t%4)+1 of column t/4), i.e. the matrix is transposed on the way. `stmatrix` is the
//! inverse.
//!
//! The sm_100a 8-bit forms (PTX 8.6; `.trans` only). Lane t is split as a = t%4, b = t/4;
//! "row r of matrix m" is the 16 bytes at the address held by the lane named:
//! - `ldmatrix.m16n16.xN.trans.b8` (N = 1, 2; two registers per matrix): matrix m has its 16
//!   rows at lanes 16m..16m+15. Byte j of register 2m+h of lane t is row 4a + 2h + (j&1),
//!   byte b + 8(j>>1).
//! - `stmatrix.m16n8.xN.trans.b8` (N = 1, 2, 4; one register per matrix): matrix m has its 8
//!   rows at lanes 8m..8m+7. Byte j of register m of lane t goes to row 2a + (j&1), byte
//!   b + 8(j>>1) — i.e. lane t holds the `mma` m16n8 accumulator fragment (rows b, b+8, columns
//!   2a, 2a+1) of the 16×8 matrix whose column n is stored as row n.
//!
//! DERIVED from CUTLASS's copy traits (`SM100_U8x8_LDSM_T`, `SM100_U8x16_LDSM_T`,
//! `SM100_U8x{4,8,16}_STSM_T` in cute/atom/copy_traits_sm100.hpp), which give both sides'
//! (thread, value) → bit maps; the ISA gives these layouts only as figures. Two consistency
//! checks: the stmatrix fragment is exactly the m16n8 accumulator fragment, and CUTLASS's
//! byte interleave after the ldmatrix (bytes 0,1 of the first register with bytes 0,1 of the
//! second) yields rows 4a..4a+3 of column b, the `mma` k32 B-fragment order. UNCONFIRMED on
//! hardware (no sm_100 device to record on). The decompressing `.b8x16` forms stay
//! load-time `unsupported`.
//!
//! `movmatrix.sync.aligned.m8n8.trans.b16 d, a` (§9.7.14.5.17): `a` holds the matrix in the
//! non-transposed fragment layout above (lane t: row t/4, columns 2(t%4), 2(t%4)+1) and `d`
//! gets the transposed matrix in the same layout, i.e. what `ldmatrix.trans` would load from
//! the matrix stored row-major.

use super::memory::{fault, lane_addr, lane_addrs, resolve, shared_offsets, Loc};
use super::{Ctx, Flow, Warp, FULL};
use crate::error::rules;
use crate::mem::MemFault;
use crate::observer::{AccessKind, MemOrder, MemSpace, Observer};
use crate::program::{Addr, Space};

/// The shape and element size of an `ldmatrix` / `stmatrix`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatShape {
    /// `.m8n8.b16`
    M8n8B16,
    /// `ldmatrix.m16n16.trans.b8`: two registers per matrix
    M16n16B8,
    /// `stmatrix.m16n8.trans.b8`
    M16n8B8,
}

#[derive(Clone, Debug)]
pub struct MatrixInst {
    pub store: bool,
    pub trans: bool,
    pub shape: MatShape,
    /// Registers of the N matrices (destinations of ldmatrix, sources of stmatrix).
    pub regs: Vec<u16>,
    pub addr: Addr,
    /// `Shared` (`.shared{::cta}`) or `Generic`.
    pub space: Space,
}

/// The (row, 2-column) pair lane `t` holds, as (row, column) of its first element and the step
/// to its second: `(t/4, 2(t%4))`, step one column; transposed `(2(t%4), t/4)`, step one row.
#[inline]
fn pair(t: usize, trans: bool) -> [(usize, usize); 2] {
    let (a, b) = (t / 4, 2 * (t % 4));
    if trans {
        [(b, a), (b + 1, a)]
    } else {
        [(a, b), (a, b + 1)]
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &MatrixInst,
) -> Flow {
    let pc = w.cur_pc;
    if mask != FULL & w.live || mask == 0 {
        if mask != 0 {
            let what = if i.store { "stmatrix" } else { "ldmatrix" };
            cx.diag(
                w,
                pc,
                mask,
                rules::DIVERGENT_ALIGNED,
                format!(
                    "{what}.sync.aligned executed by a subset of the warp (lanes {mask:#010x})"
                ),
            );
        }
        return Flow::Next;
    }
    // every form takes its row addresses from lanes 0..8n (m16n16: 16 lanes per two registers)
    let n = i.regs.len();
    // rows[m][r]: the shared location of the row at lane 8m + r (row r of matrix m for .m8n8)
    let mut rows = [[None::<(usize, u32)>; 8]; 4];
    // a `.shared` form whose row addresses all lie, 16-byte aligned, in the CTA's own window
    // (every Triton ldmatrix): the warp's addresses checked four lanes at a time, as the
    // warp-wide ld/st do; any other case takes the per-lane loop, which reports the faults
    let row_lanes = if n >= 4 { FULL } else { (1u32 << (8 * n)) - 1 };
    let fast = (i.space == Space::Shared && !cx.env.reference_paths)
        .then(|| {
            let addrs = lane_addrs(w, i.addr);
            shared_offsets(
                &addrs,
                row_lanes,
                16,
                16,
                cx.ctas[cx.me].shared.len(),
                cx.me,
            )
        })
        .flatten();
    if let Some(offs) = fast {
        for (m, rs) in rows.iter_mut().enumerate().take(n) {
            for (r, row) in rs.iter_mut().enumerate() {
                *row = Some((cx.me, offs[8 * m + r]));
            }
        }
    }
    for m in 0..if fast.is_some() { 0 } else { n } {
        for r in 0..8 {
            let l = 8 * m + r;
            let raw = lane_addr(w, i.addr, l);
            match resolve(cx, i.space, raw) {
                Ok(Loc::Shared(c, off)) => {
                    let mem = &cx.ctas[c].shared;
                    if off % 16 != 0 || off as usize + 16 > mem.len() {
                        let f = if off % 16 != 0 {
                            MemFault::Misaligned {
                                space: "shared",
                                addr: raw,
                                size: 16,
                            }
                        } else {
                            MemFault::OutOfBounds {
                                space: "shared",
                                addr: raw,
                                size: 16,
                                nearest: crate::mem::Nearest::None,
                            }
                        };
                        fault(w, cx, 1 << l, l, f, Space::Shared);
                    } else {
                        rows[m][r] = Some((c, off));
                    }
                }
                Ok(_) => fault(
                    w,
                    cx,
                    1 << l,
                    l,
                    MemFault::OutOfBounds {
                        space: "shared",
                        addr: raw,
                        size: 16,
                        nearest: crate::mem::Nearest::Text("not a shared-memory address".into()),
                    },
                    Space::Shared,
                ),
                Err(f) => fault(w, cx, 1 << l, l, f, Space::Shared),
            }
        }
    }
    if cx.obs.wants_memory() {
        let at = cx.at(w, mask);
        let kind = if i.store {
            AccessKind::Write
        } else {
            AccessKind::Read
        };
        for (m, rs) in rows.iter().enumerate().take(n) {
            for (r, loc) in rs.iter().enumerate() {
                if let Some((c, off)) = loc {
                    let space = MemSpace::Shared { cta: *c as u32 };
                    cx.obs.memory(
                        at,
                        (8 * m + r) as u32,
                        space,
                        u64::from(*off),
                        16,
                        kind,
                        MemOrder::Weak,
                    );
                }
            }
        }
    }
    if i.shape != MatShape::M8n8B16 {
        bytes8(w, cx, mask, i, &rows);
        return Flow::Next;
    }
    for (m, &reg) in i.regs.iter().enumerate() {
        if i.store {
            let v = w.r32[reg as usize];
            for t in 0..32 {
                for (h, (row, col)) in pair(t, i.trans).into_iter().enumerate() {
                    if let Some((c, off)) = rows[m][row] {
                        let at = off as usize + 2 * col;
                        let half = (v[t] >> (16 * h)) as u16;
                        cx.ctas[c].shared[at..at + 2].copy_from_slice(&half.to_le_bytes());
                    }
                }
            }
        } else {
            // a faulting row (`None`, already reported) reads as zero
            let ctas = &*cx.ctas;
            let bytes: [Option<&[u8; 16]>; 8] = std::array::from_fn(|r| {
                rows[m][r].map(|(c, off)| {
                    let at = off as usize;
                    <&[u8; 16]>::try_from(&ctas[c].shared[at..at + 16]).expect("16 bytes")
                })
            });
            let out = if i.trans {
                transposed_pairs(&bytes)
            } else {
                row_pairs(&bytes)
            };
            w.set(reg, mask, &out);
        }
    }
    Flow::Next
}

/// One `.m8n8.b16` matrix as loaded without `.trans`: lane t holds the two elements at row
/// t/4, columns 2(t%4) and 2(t%4)+1 — the four-byte word t%4 of row t/4, low half first — so
/// the warp's 32 registers are the 8 rows of 16 bytes laid end to end, read as little-endian
/// words. A missing row reads as zero.
fn row_pairs(rows: &[Option<&[u8; 16]>; 8]) -> [u32; 32] {
    let mut out = [0u32; 32];
    for (words, row) in out.chunks_exact_mut(4).zip(rows) {
        if let Some(bytes) = row {
            for (v, b) in words.iter_mut().zip(bytes.chunks_exact(4)) {
                *v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
        }
    }
    out
}

/// One `.m8n8.trans.b16` matrix: the 8 rows copied once into a tile, then lane t's pair
/// (rows 2(t%4), 2(t%4)+1 of column t/4) picked at constant indices. A missing row reads as
/// zero.
fn transposed_pairs(rows: &[Option<&[u8; 16]>; 8]) -> [u32; 32] {
    let mut tile = [[0u16; 8]; 8];
    for (row, bytes) in tile.iter_mut().zip(rows) {
        if let Some(bytes) = bytes {
            for (e, b) in row.iter_mut().zip(bytes.chunks_exact(2)) {
                *e = u16::from_le_bytes([b[0], b[1]]);
            }
        }
    }
    std::array::from_fn(|t| {
        let [(r0, c0), (r1, c1)] = pair(t, true);
        u32::from(tile[r0][c0]) | u32::from(tile[r1][c1]) << 16
    })
}

/// The address lane and the byte within its 16-byte row of byte `j` of register `q` of lane
/// `t`, for the 8-bit forms (module comment).
#[inline]
fn byte_at(shape: MatShape, q: usize, t: usize, j: usize) -> (usize, usize) {
    let (a, b) = (t % 4, t / 4);
    let col = b + 8 * (j >> 1);
    match shape {
        MatShape::M16n16B8 => (16 * (q / 2) + 4 * a + 2 * (q % 2) + (j & 1), col),
        _ => (8 * q + 2 * a + (j & 1), col),
    }
}

/// `ldmatrix.m16n16.trans.b8` / `stmatrix.m16n8.trans.b8`; `rows` as checked by `exec`
/// (a faulting row reads as zero and is not written).
fn bytes8<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &MatrixInst,
    rows: &[[Option<(usize, u32)>; 8]; 4],
) {
    let row = |l: usize| rows[l / 8][l % 8];
    for (q, &reg) in i.regs.iter().enumerate() {
        if i.store {
            let v = w.r32[reg as usize];
            for (t, x) in v.iter().enumerate() {
                for j in 0..4 {
                    let (l, col) = byte_at(i.shape, q, t, j);
                    if let Some((c, off)) = row(l) {
                        cx.ctas[c].shared[off as usize + col] = (x >> (8 * j)) as u8;
                    }
                }
            }
        } else {
            let out: [u32; 32] = std::array::from_fn(|t| {
                (0..4).fold(0u32, |acc, j| {
                    let (l, col) = byte_at(i.shape, q, t, j);
                    let v = row(l).map_or(0, |(c, off)| cx.ctas[c].shared[off as usize + col]);
                    acc | u32::from(v) << (8 * j)
                })
            });
            w.set(reg, mask, &out);
        }
    }
}

pub(super) fn movmatrix<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    d: u16,
    a: u16,
) -> Flow {
    if mask != FULL & w.live || mask == 0 {
        if mask != 0 {
            let msg = format!(
                "movmatrix.sync.aligned executed by a subset of the warp (lanes {mask:#010x})"
            );
            cx.diag(w, w.cur_pc, mask, rules::DIVERGENT_ALIGNED, msg);
        }
        return Flow::Next;
    }
    let v = w.r32[a as usize];
    let mut tile = [[0u16; 8]; 8];
    for (t, x) in v.iter().enumerate() {
        for (h, (row, col)) in pair(t, false).into_iter().enumerate() {
            tile[row][col] = (x >> (16 * h)) as u16;
        }
    }
    let out: [u32; 32] = std::array::from_fn(|t| {
        let [(r0, c0), (r1, c1)] = pair(t, true);
        u32::from(tile[r0][c0]) | u32::from(tile[r1][c1]) << 16
    });
    w.set(d, mask, &out);
    Flow::Next
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition: lane t takes the elements `pair(t, trans)` names, each the
    /// little-endian 16-bit value at (row, 2·column) of the 8 rows; a missing row is zero.
    fn by_definition(rows: &[Option<&[u8; 16]>; 8], trans: bool) -> [u32; 32] {
        std::array::from_fn(|t| {
            let [e0, e1] = pair(t, trans).map(|(r, c)| {
                rows[r].map_or(0, |b| {
                    u32::from(u16::from_le_bytes([b[2 * c], b[2 * c + 1]]))
                })
            });
            e0 | e1 << 16
        })
    }

    #[test]
    fn matrix_pairs_equal_the_layout_definition() {
        let mut next = crate::xorshift64(0x2545_f491_4f6c_dd1d_u64);
        for _ in 0..2_000 {
            let data: [[u8; 16]; 8] =
                std::array::from_fn(|_| std::array::from_fn(|_| next() as u8));
            let missing = next() as u8;
            let rows: [Option<&[u8; 16]>; 8] = std::array::from_fn(|r| {
                (missing >> r & 1 == 0 || missing < 64).then_some(&data[r])
            });
            assert_eq!(row_pairs(&rows), by_definition(&rows, false), "{rows:?}");
            assert_eq!(
                transposed_pairs(&rows),
                by_definition(&rows, true),
                "{rows:?}"
            );
        }
    }
}
