//! The vector atomics (sm_90+, PTX ISA §9.7.13.5 atom, §9.7.13.6 red, "with vector type"):
//!
//! ```text
//! atom/red .global .add .v2/.v4          .f32
//! atom/red .global .add/.min/.max .noftz .v2/.v4/.v8 .f16/.bf16
//! atom/red .global .add/.min/.max .noftz .v2/.v4     .f16x2/.bf16x2
//! ```
//!
//! Triton emits them for a vectorised `tl.atomic_add` (`red.global.gpu.relaxed.add.noftz.v8.f16`,
//! `red.global.gpu.relaxed.add.v4.f32`); `.min`/`.max` on 16-bit floats exist only in these
//! vector forms (ptxas 13.5 refuses the scalar `atom.min.noftz.f16`: "Vector modifier required").
//!
//! Semantics, per the ISA: the vector names adjacent scalar elements and "the atomicity is
//! guaranteed separately for each of the individual scalar elements; the entire atom is not
//! guaranteed to be atomic as a single access". So each element is its own read-modify-write
//! (an `.f16x2` element is one 4-byte word), in element order; `atom` returns each element's
//! old value in the matching destination register. Only `.global` (or a generic address in
//! the global window) is allowed: any other window is TM0503, as for other accesses.
//!
//! The scalar `atom/red.add.noftz.f32` (PTX ISA 9.4) runs here too, as a vector of one
//! [`VecElem::F32Noftz`] element, on global or shared memory.
//!
//! Alignment: the whole vector's size (vector width × element size), as for `ld`/`st`
//! vectors (§5.4.4 "Addresses as operands": vector accesses are aligned to their total size).
//! DERIVED for atomics (the ISA's alignment paragraph names `ld`/`st` vectors); a misaligned
//! vector is TM0502 and nothing is written.
//!
//! Arithmetic: `.add` on 16-bit floats is [`super::atom_half`]'s correctly rounded sum;
//! `.min`/`.max` are tmemu-num's `min`/`max` on the format (a NaN operand gives the other
//! operand, two NaNs the canonical NaN, -0 is below +0), the rules of the non-atomic `min.f16`
//! /`min.bf16` (§9.7.4.x), which the ISA does not restate for atomics: UNCONFIRMED, so the H100
//! recording in `tests/corpus/atom_h100` checks it. `.f32` `.add` rounds to nearest even; see
//! [`F32_GLOBAL_FTZ`] for subnormals.

use super::atom_half::{self, HalfAtom};
use super::memory::{fault, lane_addr, observe_lane_at, resolve, Loc};
use super::{Ctx, Flow, Warp};
use crate::fp;
use crate::mem::{self, MemFault};
use crate::observer::{AccessKind, MemOrder, Observer};
use crate::program::{Addr, Any, FMods, Rnd, Space};

/// Whether a global `.f32` atomic add flushes subnormal inputs and results to sign-preserving
/// zero. The ISA (§9.7.13.5): "Current implementation of atom.add.f32 on global memory flushes
/// subnormal inputs and results to sign-preserving zero"; PTX 9.4 adds an explicit `.noftz`
/// for `.f32` to turn that off, which confirms the default. Recorded on H100 for the vector
/// form and the scalar one (tests/corpus/atom_h100: 2^-149 + 2^-149 = +0 on global, 2^-148 on
/// shared).
pub const F32_GLOBAL_FTZ: bool = true;

/// The element type of a vector atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VecElem {
    F32,
    /// `.add.noftz.f32` (PTX ISA 9.4): subnormals kept on global memory too. Also the scalar
    /// form (one element), which may address shared memory, where `.f32` adds never flush.
    F32Noftz,
    Half(HalfAtom),
}

impl VecElem {
    /// Bytes of one element (one atomic word).
    pub fn size(self) -> u8 {
        match self {
            VecElem::F32 | VecElem::F32Noftz => 4,
            VecElem::Half(h) => h.size(),
        }
    }
}

/// The operation of a vector atomic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VecOp {
    Add,
    Min,
    Max,
}

/// A decoded vector `atom`/`red`.
#[derive(Clone, Debug)]
pub struct AtomVecInst {
    /// `.global` or generic (the loader refuses other spaces, as ptxas does).
    pub space: Space,
    pub elem: VecElem,
    pub op: VecOp,
    /// One operand per element (2, 4 or 8).
    pub b: Vec<Any>,
    /// `atom`'s destinations, one per element; `None` for `red`.
    pub d: Option<Vec<Any>>,
    pub addr: Addr,
    pub order: MemOrder,
}

/// A global `.f32` atomic add, scalar or vector: RNE, subnormals flushed
/// ([`F32_GLOBAL_FTZ`]).
pub fn global_f32_add(old: u64, b: u64) -> u64 {
    let m = FMods {
        rnd: Rnd::Rn,
        ftz: F32_GLOBAL_FTZ,
        sat: false,
    };
    fp::add32(old as u32, b as u32, m) as u64
}

/// The new value of one element word.
pub fn apply(elem: VecElem, op: VecOp, old: u64, b: u64) -> u64 {
    match (elem, op) {
        (VecElem::F32, _) => global_f32_add(old, b),
        (VecElem::F32Noftz, _) => {
            let m = FMods {
                rnd: Rnd::Rn,
                ftz: false,
                sat: false,
            };
            fp::add32(old as u32, b as u32, m) as u64
        }
        (VecElem::Half(h), VecOp::Add) => atom_half::add(h, old, b),
        (VecElem::Half(h), VecOp::Min) => atom_half::min(h, old, b),
        (VecElem::Half(h), VecOp::Max) => atom_half::max(h, old, b),
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &AtomVecInst,
) -> Flow {
    let es = i.elem.size() as u32;
    let n = i.b.len() as u32;
    let total = es * n;
    let wmask = (1u64 << (8 * es)) - 1;
    // lanes in lane order, elements in element order: a deterministic serialisation
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let a = lane_addr(w, i.addr, l);
        let g = match resolve(cx, i.space, a) {
            Ok(Loc::Global(g)) => g,
            // the scalar `.add.noftz.f32` (one element) is also defined on shared memory
            Ok(Loc::Shared(ci, off)) if n == 1 => {
                let sh = &mut cx.ctas[ci].shared;
                let b = w.read_any(i.b[0], l) & wmask;
                let res = mem::bytes_load(sh, "shared", off as u64, es).and_then(|old| {
                    let new = apply(i.elem, i.op, old, b) & wmask;
                    mem::bytes_store(sh, "shared", off as u64, es, new).map(|()| old)
                });
                match res {
                    Ok(old) => {
                        if let Some(d) = &i.d {
                            w.write_any(d[0], l, old);
                        }
                        if cx.obs.wants_memory() {
                            let at = cx.at(w, mask);
                            let loc = Loc::Shared(ci, off);
                            observe_lane_at(cx, at, l, loc, es, AccessKind::Write, i.order);
                        }
                    }
                    Err(f) => fault(w, cx, 1 << l, l, f, i.space),
                }
                continue;
            }
            Ok(_) => {
                let f = MemFault::OtherWindow {
                    space: "global",
                    addr: a,
                    why: "vector atomics are only defined on global memory (PTX ISA §9.7.13.5)"
                        .into(),
                };
                fault(w, cx, 1 << l, l, f, i.space);
                continue;
            }
            Err(f) => {
                fault(w, cx, 1 << l, l, f, i.space);
                continue;
            }
        };
        if g % total as u64 != 0 {
            let f = MemFault::Misaligned {
                space: "global",
                addr: g,
                size: total,
            };
            fault(w, cx, 1 << l, l, f, i.space);
            continue;
        }
        // Both ends inside one buffer means all of it is (buffers are separated by guard
        // gaps far wider than a vector), so a vector is applied whole or not at all.
        let last = g + (total - es) as u64;
        if let Err(f) = cx
            .env
            .global
            .load(g, es)
            .and_then(|_| cx.env.global.load(last, es))
        {
            fault(w, cx, 1 << l, l, f, i.space);
            continue;
        }
        for k in 0..n as usize {
            let ea = g + (k as u32 * es) as u64;
            let b = w.read_any(i.b[k], l) & wmask;
            let old = match cx
                .env
                .global
                .rmw(ea, es, |old| apply(i.elem, i.op, old, b) & wmask)
            {
                Ok(old) => old,
                Err(f) => {
                    fault(w, cx, 1 << l, l, f, i.space);
                    break;
                }
            };
            if let Some(d) = &i.d {
                w.write_any(d[k], l, old);
            }
        }
        if cx.obs.wants_memory() {
            let at = cx.at(w, mask);
            observe_lane_at(cx, at, l, Loc::Global(g), total, AccessKind::Write, i.order);
        }
    }
    Flow::Next
}
