//! `st.bulk{.weak}{.shared::cta} [a], size, 0` (PTX ISA 8.6 §9.7.9.x, sm_100): each thread
//! sets `size` bytes of its CTA's shared memory from `a` to zero. CUTLASS and the CUDA
//! headers use it to clear shared-memory buffers in one instruction.
//!
//! Semantics (PTX ISA text): a weak store of the whole region (no asynchronous completion
//! mechanism is named, so it completes at issue like `st.weak`); `size` must be a multiple
//! of 8 and at most 33554432, `initval` 0, and an address outside the `.shared` window is
//! undefined behaviour. DERIVED: the ISA names no alignment for `a`; tmemu requires 8 bytes
//! (the granule `size` is counted in) and reports a misaligned start, a `size` that is not a
//! multiple of 8 (TM0502) and a region outside the CTA's shared memory or a generic address
//! outside the shared window (TM0501/TM0503); a faulting lane writes nothing.
//!
//! Events: one weak `Write` per lane and 8-byte word, as a plain `st.shared.u64` loop would
//! report them.

use super::memory::{fault, lane_addr, observe_lane_at, resolve, store, Loc};
use super::{Ctx, Flow, Warp};
use crate::mem::MemFault;
use crate::observer::{AccessKind, MemOrder, Observer};
use crate::program::{Addr, Any, Space};

/// The ISA's bound on `size`.
pub const MAX_BYTES: u64 = 33_554_432;

/// One decoded `st.bulk`.
#[derive(Clone, Debug)]
pub struct StBulkInst {
    /// `.shared::cta` or generic.
    pub space: Space,
    pub addr: Addr,
    /// Bytes to clear (register or immediate).
    pub size: Any,
}

fn region<O: Observer>(
    w: &Warp,
    cx: &Ctx<'_, '_, O>,
    i: &StBulkInst,
    l: usize,
) -> Result<(usize, u32, u64), MemFault> {
    let a = lane_addr(w, i.addr, l);
    let n = w.read_any(i.size, l);
    let space = if i.space == Space::Shared {
        "shared"
    } else {
        "generic"
    };
    if !a.is_multiple_of(8) || !n.is_multiple_of(8) {
        return Err(MemFault::Misaligned {
            space,
            addr: if a.is_multiple_of(8) { a + n } else { a },
            size: 8,
        });
    }
    if n > MAX_BYTES {
        return Err(MemFault::OutOfBounds {
            space,
            addr: a,
            size: u32::MAX,
            nearest: crate::mem::Nearest::Text(format!("st.bulk size {n} exceeds {MAX_BYTES}")),
        });
    }
    match resolve(cx, i.space, a)? {
        Loc::Shared(c, off) => Ok((c, off, n)),
        _ => Err(MemFault::OutOfBounds {
            space,
            addr: a,
            size: n as u32,
            nearest: crate::mem::Nearest::Text(
                "st.bulk writes only the .shared::cta window".into(),
            ),
        }),
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &StBulkInst,
) -> Flow {
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let at = cx.at(w, 1 << l);
        let r = region(w, cx, i, l).and_then(|(c, off, n)| {
            // the whole region is checked before any byte is written
            if n > 0 {
                let last = Loc::Shared(c, off.wrapping_add(n as u32 - 8));
                super::memory::load(w, cx, l, last, 8)?;
            }
            for k in (0..n).step_by(8) {
                let loc = Loc::Shared(c, off.wrapping_add(k as u32));
                store(w, cx, l, loc, 8, 0)?;
                if cx.obs.wants_memory() {
                    observe_lane_at(cx, at, l, loc, 8, AccessKind::Write, MemOrder::Weak);
                }
            }
            Ok(())
        });
        if let Err(f) = r {
            fault(w, cx, 1 << l, l, f, i.space);
        }
    }
    Flow::Next
}
