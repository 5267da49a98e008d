//! `st.async` and `red.async` (PTX ISA 9.1 §9.7.9.12 and §9.7.13.6, sm_90+): a store or an
//! atomic reduction into the shared memory of a CTA of the cluster (`.shared::cluster`,
//! usually another CTA's, named through `mapa`) that signals `complete_tx` of its size on an
//! mbarrier (`.mbarrier::complete_tx::bytes`), so the receiving CTA learns of the data by
//! waiting on its mbarrier with an `expect_tx` of the bytes it will receive.
//!
//! Forms: `st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2,.v4}.type`
//! (`.b32 .u32 .s32 .f32 .b64 .u64 .s64 .f64`, at most 128 bits) and
//! `red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type`
//! (`.inc/.dec.u32`, `.min/.max.u32/.s32`, `.and/.or/.xor.b32`, `.add.u32/.s32/.u64`).
//! The complete_tx counts the bytes written: 4·V or 8·V for `st.async`, the operand size for
//! `red.async`.
//!
//! Semantics in the engine: the write completes at issue (the `immediate` policy every async
//! copy follows, see memory.rs), lane by lane in lane order, then its complete_tx applies to
//! the mbarrier; the reduction is `atom`'s arithmetic (`memory::atom_apply`). The address must
//! be aligned to the access size (TM0502 otherwise) and name a CTA of the cluster (TM0501);
//! the mbarrier must be initialised (TM0220). Checked bit for bit against an H100 recording
//! (tests/corpus/st_async_h100, every form, clusters of 2, 3 and 4, two phases).
//!
//! Events (what the race model sees):
//! - `st.async`: one asynchronous op per warp-instruction, of kind `OpKind::Bulk` (what the
//!   race model calls a bulk copy: an async-proxy write completed by an mbarrier
//!   complete_tx), with a `Write` access per lane of its bytes in the destination CTA,
//!   completed at issue and released to each destination mbarrier by `async_arrive` (the
//!   complete_tx has release semantics at cluster scope; the mbarrier completion also
//!   bridges the proxies, as for a bulk copy). A reader is ordered after it only through
//!   that mbarrier's phase, as on hardware; the issuing thread is not ordered after its own
//!   `st.async` either. APPROXIMATED: the ISA makes `st.async` a weak store of no stated
//!   proxy, not an async-proxy copy; the difference shows only for a read ordered after the
//!   store by something other than its mbarrier without `fence.proxy.async`, which this
//!   model reports (TM0208) and hardware may not need. (`OpKind::CpAsync`, the generic-proxy
//!   async op, is completed by its thread's cp.async-groups, which `st.async` never joins.)
//! - `red.async`: a relaxed (strong) `Write` of the issuing thread per lane, then a release
//!   `sync_arrive` on the destination mbarrier. APPROXIMATED: the reduction is treated as done
//!   by the thread at issue, because two async ops' writes are never strong for the race
//!   model and concurrent reductions into one word (the point of `red.async`) would be
//!   reported as races. What this misses: the issuing thread's own later plain access of the
//!   word without waiting on the mbarrier.

use super::memory::{atom_apply, fault, lane_addr, load, resolve, store, Loc};
use super::{sync, Ctx, Flow, Warp};
use crate::mem::MemFault;
use crate::observer::{AccessKind, MemOrder, MemSpace, Observer, OpKind, Place, Sem, SyncKey};
use crate::program::{Addr, Any, AtomOp, Space};

/// What the instruction does at its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StAsyncOp {
    /// `st.async`: store the elements.
    Store,
    /// `red.async.<op>`: one atomic reduction (`atom`'s arithmetic).
    Red(AtomOp),
}

/// One decoded `st.async` / `red.async`.
#[derive(Clone, Debug)]
pub struct StAsyncInst {
    pub op: StAsyncOp,
    /// Bytes per element: 4 or 8.
    pub esize: u8,
    /// One source per element (1, 2 or 4; one for `red.async`).
    pub vals: Vec<Any>,
    /// The `.shared::cluster` destination.
    pub addr: Addr,
    /// The `.shared::cluster` mbarrier that receives the complete_tx.
    pub mbar: Addr,
}

impl StAsyncInst {
    /// Bytes written, and signalled as complete_tx, per lane.
    pub fn bytes(&self) -> u32 {
        u32::from(self.esize) * self.vals.len() as u32
    }
}

#[inline]
fn advance(loc: Loc, by: u32) -> Loc {
    match loc {
        Loc::Shared(c, o) => Loc::Shared(c, o.wrapping_add(by)),
        l => l,
    }
}

/// A CTA rank of the cluster and a byte offset in its shared memory.
type Target = (usize, u32);

/// The destination and mbarrier of lane `l`, both in the cluster's shared memory.
fn targets<O: Observer>(
    w: &Warp,
    cx: &Ctx<'_, '_, O>,
    i: &StAsyncInst,
    l: usize,
) -> Result<(Target, Target), MemFault> {
    let n = i.bytes();
    let a = lane_addr(w, i.addr, l);
    let Loc::Shared(c, off) = resolve(cx, Space::SharedCluster, a)? else {
        unreachable!("a .shared::cluster address resolves to shared memory")
    };
    if !a.is_multiple_of(u64::from(n)) {
        return Err(MemFault::Misaligned {
            space: "shared::cluster",
            addr: a,
            size: n,
        });
    }
    let m = lane_addr(w, i.mbar, l);
    let Loc::Shared(mc, moff) = resolve(cx, Space::SharedCluster, m)? else {
        unreachable!("a .shared::cluster address resolves to shared memory")
    };
    if !m.is_multiple_of(8) {
        return Err(MemFault::Misaligned {
            space: "shared::cluster",
            addr: m,
            size: 8,
        });
    }
    Ok(((c, off), (mc, moff)))
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &StAsyncInst,
) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    let es = u32::from(i.esize);
    let szmask = if es == 8 {
        u64::MAX
    } else {
        u64::from(u32::MAX)
    };
    let store_op = i.op == StAsyncOp::Store;
    let id = if store_op {
        let id = cx.tc.async_id();
        let at = cx.at(w, mask);
        cx.obs.async_issue(at, id, OpKind::Bulk);
        Some(id)
    } else {
        None
    };
    // each lane's mbarrier, for the complete_tx after the op completed
    let mut bars: [(u32, u32); 32] = [(u32::MAX, 0); 32];
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let r: Result<(), MemFault> = (|| {
            let ((c, off), (mc, moff)) = targets(w, cx, i, l)?;
            let dst = Loc::Shared(c, off);
            match i.op {
                StAsyncOp::Store => {
                    for (e, &v) in i.vals.iter().enumerate() {
                        let x = w.read_any(v, l) & szmask;
                        store(w, cx, l, advance(dst, e as u32 * es), es, x)?;
                    }
                }
                StAsyncOp::Red(op) => {
                    let b = w.read_any(i.vals[0], l) & szmask;
                    let old = load(w, cx, l, dst, es)?;
                    store(
                        w,
                        cx,
                        l,
                        dst,
                        es,
                        atom_apply(op, i.esize, old, b, 0) & szmask,
                    )?;
                }
            }
            let space = MemSpace::Shared { cta: c as u32 };
            match id {
                Some(id) => {
                    let place = Place::Mem {
                        space,
                        addr: u64::from(off),
                        len: u64::from(i.bytes()),
                    };
                    cx.obs.async_access(id, place, AccessKind::Write);
                }
                None => {
                    let at = cx.at(w, 1 << l);
                    let (kind, order) = (AccessKind::Write, MemOrder::Relaxed);
                    cx.obs
                        .memory(at, l as u32, space, u64::from(off), es, kind, order);
                }
            }
            bars[l] = (mc as u32, moff);
            Ok(())
        })();
        if let Err(f) = r {
            fault(w, cx, 1 << l, l, f, Space::SharedCluster);
        }
    }
    if let Some(id) = id {
        cx.obs.async_complete(id, cx.out.warp_instructions);
    }
    for (l, &(c, off)) in bars.iter().enumerate() {
        if c == u32::MAX {
            continue;
        }
        let key = SyncKey::Mbarrier {
            cta: c,
            offset: off,
        };
        match id {
            Some(id) => cx.obs.async_arrive(id, key),
            None => {
                let at = cx.at(w, 1 << l);
                cx.obs.sync_arrive(at, key, Sem::Ordering);
            }
        }
        sync::complete_tx(w, cx, c as usize, off, i64::from(i.bytes()));
    }
    Flow::Next
}
