//! The 128-bit atomics `atom.exch.b128` and `atom.cas.b128` (PTX ISA 8.3, sm_90; decoded by
//! loader/atom128.rs).
//!
//! Semantics (§9.7.13.5): one atomic read-modify-write of the 16 bytes at `a`, which must be
//! 16-byte aligned (natural alignment, §5.4.4: a misaligned one is TM0502 and nothing is
//! written). `exch` stores `b`; `cas` stores `c` when the old value equals `b`
//! (`*a = (*a == b) ? c : *a`), comparing all 128 bits. `d` gets the old value.
//!
//! Atomicity: lanes run in lane order, each lane's two 8-byte halves read before either is
//! written. Kernels with global atomics run their SM groups on one thread (`launch`), so no
//! other access interleaves with the pair; shared memory belongs to one group anyway.

use super::memory::{fault, lane_addr, observe_lane_at, resolve, Loc};
use super::{Ctx, Flow, Warp};
use crate::mem::{self, MemFault};
use crate::observer::{AccessKind, MemOrder, Observer};
use crate::program::{Addr, Any, Space};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atom128Op {
    Exch,
    Cas,
}

/// A decoded 128-bit atomic; the `.b128` operands are pairs of 64-bit registers
/// (`lo`, `lo + 1`).
#[derive(Clone, Debug)]
pub struct Atom128Inst {
    pub space: Space,
    pub op: Atom128Op,
    pub d: u16,
    pub addr: Addr,
    pub b: u16,
    /// `cas`'s new value (unused for `exch`).
    pub c: u16,
    pub order: MemOrder,
}

/// The value stored, given the old one: `[lo, hi]` halves.
pub fn apply(op: Atom128Op, old: [u64; 2], b: [u64; 2], c: [u64; 2]) -> [u64; 2] {
    match op {
        Atom128Op::Exch => b,
        Atom128Op::Cas if old == b => c,
        Atom128Op::Cas => old,
    }
}

fn pair(w: &Warp, lo: u16, l: usize) -> [u64; 2] {
    [w.r64[lo as usize][l], w.r64[lo as usize + 1][l]]
}

/// One lane's read-modify-write at `loc`; the old value.
fn rmw<O: Observer>(
    cx: &mut Ctx<'_, '_, O>,
    loc: Loc,
    f: impl Fn([u64; 2]) -> [u64; 2],
) -> Result<[u64; 2], MemFault> {
    match loc {
        Loc::Global(g) => {
            let gm = &cx.env.global;
            // both halves checked before either is written
            let old = [gm.load(g, 8)?, gm.load(g + 8, 8)?];
            let new = f(old);
            gm.store(g, 8, new[0])?;
            gm.store(g + 8, 8, new[1])?;
            Ok(old)
        }
        Loc::Shared(ci, off) => {
            let sh = &mut cx.ctas[ci].shared;
            let off = off as u64;
            let old = [
                mem::bytes_load(sh, "shared", off, 8)?,
                mem::bytes_load(sh, "shared", off + 8, 8)?,
            ];
            let new = f(old);
            mem::bytes_store(sh, "shared", off, 8, new[0])?;
            mem::bytes_store(sh, "shared", off + 8, 8, new[1])?;
            Ok(old)
        }
        _ => unreachable!("resolved by `exec`"),
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &Atom128Inst,
) -> Flow {
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let a = lane_addr(w, i.addr, l);
        let (b, c) = (pair(w, i.b, l), pair(w, i.c, l));
        let res = resolve(cx, i.space, a).and_then(|loc| match loc {
            Loc::Global(_) | Loc::Shared(..) if !a.is_multiple_of(16) => {
                Err(MemFault::Misaligned {
                    space: if matches!(loc, Loc::Global(_)) {
                        "global"
                    } else {
                        "shared"
                    },
                    addr: a,
                    size: 16,
                })
            }
            Loc::Global(_) | Loc::Shared(..) => {
                rmw(cx, loc, |old| apply(i.op, old, b, c)).map(|old| (loc, old))
            }
            _ => Err(MemFault::ReadOnly {
                space: "atomic on non-global/shared",
                addr: a,
            }),
        });
        match res {
            Ok((loc, old)) => {
                if cx.obs.wants_memory() {
                    let at = cx.at(w, mask);
                    observe_lane_at(cx, at, l, loc, 16, AccessKind::Write, i.order);
                }
                w.write_any(Any::R64(i.d), l, old[0]);
                w.write_any(Any::R64(i.d + 1), l, old[1]);
            }
            Err(f) => fault(w, cx, 1 << l, l, f, i.space),
        }
    }
    Flow::Next
}
