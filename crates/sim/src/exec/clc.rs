//! Cluster Launch Control (PTX ISA 8.6+, sm_100): `clusterlaunchcontrol.try_cancel` and
//! `clusterlaunchcontrol.query_cancel`, the work-stealing primitive of CUTLASS's SM100
//! persistent tile schedulers (`docs/arch/clc.md`).
//!
//! The launch model (ours): each SM group owns the clusters `g, g + groups, g + 2·groups, ..`
//! of the grid (`launch.rs`) and starts them in that order as residency allows. The clusters
//! of a group that have not started yet are its pending queue, [`ClcQueue`]. A `try_cancel`
//! succeeds by taking the head of its own group's queue: that cluster never runs, and the
//! response carries the ctaid of its first CTA (rank 0); once the queue is empty it fails.
//! Taking only from the own group keeps groups independent, so `--threads N` gives the same
//! bytes for any N (UNCONFIRMED: hardware may cancel any not-yet-started cluster of the grid;
//! ours is one admissible hardware order, in which the other groups' clusters are already
//! claimed by their SMs).
//!
//! The response is an asynchronous write of 16 bytes (the async proxy, like a TMA load) to
//! `addr` of the executing CTA, or of every CTA of the cluster with
//! `.multicast::cluster::all`, followed by complete-tx(16) on the mbarrier at `mbar` of each
//! CTA written. It completes at issue (the engine's immediate policy for bulk copies); the
//! program observes it through the mbarrier, and the race observer sees a bulk op.
//!
//! The 16 bytes are opaque in the ISA; ours are four little-endian words `x, y, z, tag` with
//! `tag` = [`TAG_CANCELED`] (the first ctaid in x, y, z) or [`TAG_FAILED`] (x, y, z all ones:
//! the ISA leaves the ctaid of a failed request undefined).

use super::memory::{fault, resolve, Loc};
use super::{sync, Ctx, Flow, Warp};
use crate::error::{rules, Rule};
use crate::observer::{AccessKind, MemSpace, Observer, OpKind, Place, SyncKey};
use crate::program::{Addr, Any, Space};

/// A cancelled cluster's response: word 3.
pub const TAG_CANCELED: u32 = 0x434c_4301;
/// A failed request's response: word 3.
pub const TAG_FAILED: u32 = 0x434c_4300;

/// TM0230: a `try_cancel` after the CTA observed a failed one (PTX ISA §9.7.13.17).
const TRY_CANCEL_AFTER_FAILURE: Rule = Rule {
    id: tmemu_tmem::rules::CLC_TRY_CANCEL_AFTER_FAILURE.id,
    name: tmemu_tmem::rules::CLC_TRY_CANCEL_AFTER_FAILURE.name,
};

/// One Cluster Launch Control instruction, decoded (`loader/clc.rs`).
#[derive(Clone, Debug)]
pub enum ClcInst {
    /// `try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes{.multicast::cluster::all}`:
    /// `generic` when `.shared::cta` is absent (both addresses are then generic).
    TryCancel {
        addr: Addr,
        mbar: Addr,
        generic: bool,
        multicast: bool,
    },
    /// `query_cancel.is_canceled.pred.b128 p, resp` (`resp`: the low r64 of the pair).
    IsCanceled { p: u16, resp: u16 },
    /// `query_cancel.get_first_ctaid{.v4 | ::x | ::y | ::z}.b32.b128`: destinations of x, y, z
    /// (and the ignored fourth element), `Any::Sink` where none.
    FirstCtaid { dst: [Any; 4], resp: u16 },
    /// `mov.b128`: the two 64-bit halves `src` to `dst` (a `.b128` register is the pair
    /// `R64(lo), R64(lo + 1)`; a vector `{lo, hi}` names its halves directly).
    Mov128 { dst: [Any; 2], src: [Any; 2] },
}

/// The clusters of one SM group that have not started: started by the scheduler in order,
/// or taken by a successful `try_cancel`.
#[derive(Clone, Debug)]
pub struct ClcQueue {
    next: u64,
    stride: u64,
    total: u64,
    /// Clusters cancelled so far.
    pub cancelled: u64,
    /// CTAs (cluster index, rank) that have observed a failed response, with the pc of the
    /// `is_canceled` that observed it: a later `try_cancel` of theirs is TM0230.
    failed_seen: Vec<(u32, u32, u32)>,
}

impl ClcQueue {
    /// The clusters `first, first + stride, ..` below `total`.
    pub fn new(first: u64, stride: u64, total: u64) -> Self {
        ClcQueue {
            next: first,
            stride: stride.max(1),
            total,
            cancelled: 0,
            failed_seen: Vec::new(),
        }
    }

    pub fn has_pending(&self) -> bool {
        self.next < self.total
    }

    /// The next cluster to start (the scheduler admits it), if any.
    pub fn admit(&mut self) -> Option<u64> {
        let k = self.next;
        (k < self.total).then(|| {
            self.next += self.stride;
            k
        })
    }

    /// The cluster a successful `try_cancel` takes, if any: it will never start.
    pub fn cancel(&mut self) -> Option<u64> {
        let k = self.admit()?;
        self.cancelled += 1;
        Some(k)
    }
}

/// The 16 response bytes for a cancelled cluster `k` (or a failure).
fn response<O: Observer>(cx: &Ctx<'_, '_, O>, k: Option<u64>) -> [u8; 16] {
    let words = match k {
        Some(k) => {
            let nc = cx.env.nclusters;
            let cd = cx.env.cluster_dim;
            let cid = [
                (k % nc[0] as u64) as u32,
                ((k / nc[0] as u64) % nc[1] as u64) as u32,
                (k / (nc[0] as u64 * nc[1] as u64)) as u32,
            ];
            [cid[0] * cd[0], cid[1] * cd[1], cid[2] * cd[2], TAG_CANCELED]
        }
        None => [u32::MAX, u32::MAX, u32::MAX, TAG_FAILED],
    };
    let mut b = [0u8; 16];
    for (i, w) in words.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    b
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &ClcInst,
) -> Flow {
    match *i {
        ClcInst::TryCancel {
            addr,
            mbar,
            generic,
            multicast,
        } => {
            // each executing thread makes its own request, in lane order
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    try_cancel(w, cx, l, addr, mbar, generic, multicast);
                }
            }
        }
        ClcInst::IsCanceled { p, resp } => {
            let mut bits = 0u32;
            let mut failed = false;
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    let tag = (w.r64[resp as usize + 1][l] >> 32) as u32;
                    bits |= ((tag == TAG_CANCELED) as u32) << l;
                    failed |= tag == TAG_FAILED;
                }
            }
            w.set_pred(p, mask, bits);
            // The ISA's "observed the completion of a try_cancel as failed": a thread of the
            // CTA read a genuine failure response (bytes that are no response, e.g. read too
            // early, are the race observer's business, not an observation).
            if failed {
                let key = (cx.cluster.index, cx.me as u32);
                if !cx.clc.failed_seen.iter().any(|f| (f.0, f.1) == key) {
                    cx.clc.failed_seen.push((key.0, key.1, w.cur_pc));
                }
            }
        }
        ClcInst::Mov128 { dst, src } => {
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    // both halves read before either is written (`mov.b128 {a, b}, q` may
                    // overlap its source)
                    let v = [w.read_any(src[0], l), w.read_any(src[1], l)];
                    w.write_any(dst[0], l, v[0]);
                    w.write_any(dst[1], l, v[1]);
                }
            }
        }
        ClcInst::FirstCtaid { dst, resp } => {
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                let lo = w.r64[resp as usize][l];
                let hi = w.r64[resp as usize + 1][l];
                let words = [lo as u32, (lo >> 32) as u32, hi as u32];
                for (k, d) in dst.iter().take(3).enumerate() {
                    if !matches!(d, Any::Sink) {
                        w.write_any(*d, l, words[k] as u64);
                    }
                }
            }
        }
    }
    Flow::Next
}

/// The executing CTA's shared location of `a` for lane `l` (`.shared::cta` or, when
/// `generic`, a generic address in the shared window), or a reported fault.
fn own_shared<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    l: usize,
    a: Addr,
    generic: bool,
    what: &str,
) -> Option<u32> {
    let raw = super::memory::lane_addr(w, a, l);
    let space = if generic {
        Space::Generic
    } else {
        Space::Shared
    };
    match resolve(cx, space, raw) {
        Ok(Loc::Shared(c, off)) if c == cx.me => Some(off),
        Ok(_) => {
            let pc = w.cur_pc;
            cx.diag(
                w,
                pc,
                1 << l,
                rules::BAD_ADDRESS_SPACE,
                format!(
                    "clusterlaunchcontrol.try_cancel {what} {raw:#x} (lane {l}) is not in the \
                     .shared::cta window of the executing CTA (the ISA leaves the result \
                     undefined); the request is dropped"
                ),
            );
            None
        }
        Err(f) => {
            fault(w, cx, 1 << l, l, f, space);
            None
        }
    }
}

fn try_cancel<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    l: usize,
    addr: Addr,
    mbar: Addr,
    generic: bool,
    multicast: bool,
) {
    let Some(off) = own_shared(w, cx, l, addr, generic, "response address") else {
        return;
    };
    let Some(moff) = own_shared(w, cx, l, mbar, generic, "mbarrier address") else {
        return;
    };
    let pc = w.cur_pc;
    let me = (cx.cluster.index, cx.me as u32);
    if let Some(&(_, _, seen_pc)) = cx.clc.failed_seen.iter().find(|f| (f.0, f.1) == me) {
        let seen = cx.env.k.info[seen_pc as usize].span;
        cx.diag_related(
            w,
            pc,
            1 << l,
            TRY_CANCEL_AFTER_FAILURE,
            format!(
                "clusterlaunchcontrol.try_cancel (lane {l}) after this CTA observed a failed \
                 request (query_cancel.is_canceled at line {}): the ISA leaves a further \
                 request undefined; tmemu answers it with a failure",
                seen.line
            ),
            Some((seen, "the failed response observed here".to_string())),
        );
    }
    let size = cx.ctas[cx.me].shared.len() as u64;
    if off % 16 != 0 || moff % 8 != 0 {
        cx.diag(
            w,
            pc,
            1 << l,
            rules::MISALIGNED,
            format!(
                "clusterlaunchcontrol.try_cancel (lane {l}): the response address (shared offset \
                 {off:#x}) must be 16-byte aligned and the mbarrier (offset {moff:#x}) 8-byte \
                 aligned; the request is dropped"
            ),
        );
        return;
    }
    if off as u64 + 16 > size {
        cx.diag(
            w,
            pc,
            1 << l,
            rules::OUT_OF_BOUNDS,
            format!(
                "clusterlaunchcontrol.try_cancel (lane {l}): the 16-byte response at shared \
                 offset {off:#x} ends past the CTA's {size} bytes of shared memory; the request \
                 is dropped"
            ),
        );
        return;
    }
    let taken = cx.clc.cancel();
    let bytes = response(cx, taken);
    let targets: Vec<usize> = if multicast {
        (0..cx.ctas.len()).collect()
    } else {
        vec![cx.me]
    };
    let id = cx.tc.async_id();
    let at = cx.at(w, 1 << l);
    cx.obs.async_issue(at, id, OpKind::Bulk);
    for &c in &targets {
        cx.obs.async_access(
            id,
            Place::Mem {
                space: MemSpace::Shared { cta: c as u32 },
                addr: off as u64,
                len: 16,
            },
            AccessKind::Write,
        );
        cx.ctas[c].shared[off as usize..off as usize + 16].copy_from_slice(&bytes);
    }
    // the response completes at issue: completion, then each complete_tx
    cx.obs.async_complete(id, cx.out.warp_instructions);
    for &c in &targets {
        let key = SyncKey::Mbarrier {
            cta: c as u32,
            offset: moff,
        };
        cx.obs.async_arrive(id, key);
        sync::complete_tx(w, cx, c, moff, 16);
    }
}
