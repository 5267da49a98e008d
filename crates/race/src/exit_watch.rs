//! Asynchronous operations still accessing a CTA's shared memory when the CTA exits
//! (TM0234 async-smem-read-at-exit, TM0235 async-smem-unwaited-at-exit; docs/arch/race.md).
//!
//! A CTA's shared memory lives as long as the CTA (PTX ISA §5.1.5): once its last thread has
//! exited, the SM may give the bytes to the next CTA. So every access an asynchronous op makes
//! of a CTA's shared memory must happen before that exit, which in the model means: some warp
//! of the CTA has observed the access's completion (its stamp is in one of the warp's views)
//! by the time the CTA's last warp exits. The CTA's exit follows every one of its warps'
//! exits, so "some warp's view covers the stamp" is exactly "ordered before the exit"; no
//! clock is joined. Observations count through any channel (a relaxed mbarrier wait on a
//! commit's barrier included): the question is whether the access is over, not what data it
//! publishes.
//!
//! Severities (DERIVED): an unobserved read by a tcgen05.mma/cp or an mbarrier-completed copy
//! is TM0234 (error); an unobserved write, or the source read of a `.bulk_group` copy whose
//! issuing warp never executes another bulk wait, is TM0235 (warning); a `.bulk_group` copy
//! whose warp did wait for its groups in a pipeline (`wait_group.read N`) is left to the exit
//! (CUTLASS's sm100 epilogue ends that way).
//!
//! Each op's shared-memory accesses are noted per destination CTA at issue (one entry per op,
//! side and CTA: the record stamp and the instruction), and checked once, when the observer
//! reports the CTA's last warp exit. Entries a warp of the CTA already observed are dropped
//! when a list doubles, so a long-running CTA keeps only what is still in flight.

use std::collections::HashSet;

use crate::clock::Stamp;
use crate::event::{AccessKind, Agent, MemSpace, SpanToken, WarpId, WARP_IDS_PER_CTA};
use crate::finding::{self, Access, Race, Region};

use super::RaceDetector;

/// Entries a CTA's list holds before the first pruning pass.
const FIRST_PRUNE: usize = 64;

/// One op's accesses of one side (reads or writes) of one CTA's shared memory.
#[derive(Clone, Copy, Debug)]
struct Watch {
    stamp: Stamp,
    kind: AccessKind,
    span: SpanToken,
    issuer: WarpId,
    agent: Agent,
    /// Bytes `[lo, hi)` spanned by the op's ranges (for the message).
    lo: u64,
    hi: u64,
    /// A `.bulk_group` copy's source read: the issuer's count of bulk waits when the copy
    /// joined its group (`ExitWatch::bulk_waits`).
    bulk: Option<u32>,
}

#[derive(Debug, Default)]
struct CtaWatch {
    /// First warp id of the CTA occupying the index (`u32::MAX`: none announced).
    base: u32,
    pending: Vec<Watch>,
    prune_at: usize,
}

/// The watch lists of a detector, by domain CTA index.
#[derive(Debug, Default)]
pub(super) struct ExitWatch {
    ctas: Vec<CtaWatch>,
    /// (op instruction, side) already reported: one finding per instruction, not per CTA.
    reported: HashSet<(SpanToken, AccessKind)>,
    /// Per warp id: the `cp.async.bulk.wait_group{.read}` instructions it executed.
    bulk_waits: Vec<u32>,
}

const WHY_READ: &str = "the CTA's shared memory lives only as long as the CTA, and nothing orders the end of this asynchronous read before the CTA's last thread exits; observe it first (cp.async.bulk.wait_group.read 0 by the issuing thread for a TMA store or bulk copy, tcgen05.commit + mbarrier wait for tcgen05.mma/cp), then synchronise with the exiting threads";

const WHY_BULK: &str = "the CTA's shared memory lives only as long as the CTA, and the issuing thread never waits for this bulk copy's group (cp.async.bulk.wait_group{.read}) before the CTA exits: wait with cp.async.bulk.wait_group.read 0 after the last commit_group, as Triton's and the CUDA Programming Guide's TMA stores do";

const WHY_WRITE: &str = "the CTA's shared memory lives only as long as the CTA, and nothing orders the end of this asynchronous write before the CTA's last thread exits (a load issued and never waited for); wait for it (the mbarrier of its complete_tx, cp.async.wait_group) before the CTA exits, or do not issue it";

impl RaceDetector {
    /// The CTA with domain index `cta` begins, its warps numbered from `base` (an engine
    /// numbers a CTA's warps `base + warp`, `base` a multiple of [`WARP_IDS_PER_CTA`]):
    /// what the index's previous occupant left is forgotten.
    pub fn exit_watch_begin(&mut self, cta: u32, base: WarpId) {
        let w = cta_watch(&mut self.exit, cta);
        w.base = base.0;
        w.pending.clear();
        w.prune_at = FIRST_PRUNE;
    }

    /// Op access `[lo, hi)` of shared memory of CTA `cta`, stamped `stamp` (called where
    /// the op's ranges are checked).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exit_watch_note(
        &mut self,
        cta: u32,
        stamp: Stamp,
        kind: AccessKind,
        span: SpanToken,
        issuer: WarpId,
        agent: Agent,
        lo: u64,
        hi: u64,
    ) {
        let w = cta_watch(&mut self.exit, cta);
        // an op's ranges come one instruction (or one range) at a time, a cp.async op's
        // from several instructions of its group: the few latest entries find it
        if let Some(e) = (w.pending.iter_mut().rev().take(4))
            .find(|e| e.stamp == stamp && e.kind == kind && e.span == span)
        {
            e.lo = e.lo.min(lo);
            e.hi = e.hi.max(hi);
            return;
        }
        w.pending.push(Watch {
            stamp,
            kind,
            span,
            issuer,
            agent,
            lo,
            hi,
            bulk: None,
        });
        if w.pending.len() >= w.prune_at.max(FIRST_PRUNE) {
            self.exit_watch_prune(cta);
        }
    }

    /// Drops the entries a warp of the CTA has observed (views only grow: observed stays
    /// observed until the CTA exits).
    fn exit_watch_prune(&mut self, cta: u32) {
        let mut w = std::mem::take(&mut self.exit.ctas[cta as usize]);
        let base = w.base;
        w.pending.retain(|e| !self.cta_observed(base, e.stamp));
        w.prune_at = (2 * w.pending.len()).max(FIRST_PRUNE);
        self.exit.ctas[cta as usize] = w;
    }

    /// Warp `w` executed `cp.async.bulk.wait_group{.read}` (any lanes, any count).
    pub(super) fn exit_watch_bulk_wait(&mut self, w: WarpId) {
        let i = w.0 as usize;
        let v = &mut self.exit.bulk_waits;
        if v.len() <= i {
            v.resize(i + 1, 0);
        }
        v[i] = v[i].saturating_add(1);
    }

    /// The copy whose source read is stamped `stamp` joined a bulk async-group of its
    /// issuer `w` (a TMA store, bulk copy or reduction to global memory).
    pub(super) fn exit_watch_bulk_group(&mut self, w: WarpId, stamp: Stamp) {
        let waits = self.exit.bulk_waits.get(w.0 as usize).copied().unwrap_or(0);
        for cw in &mut self.exit.ctas {
            let tail = cw.pending.iter_mut().rev().take(4);
            for e in tail.filter(|e| e.stamp == stamp && e.kind == AccessKind::Read) {
                e.bulk = Some(waits);
            }
        }
    }

    /// Whether a warp of the CTA whose warps start at `base` has observed `stamp`, through
    /// any channel (module docs).
    fn cta_observed(&self, base: u32, stamp: Stamp) -> bool {
        if base == u32::MAX {
            // never announced: take it as observed (silence, never a guess)
            return true;
        }
        let end = base.saturating_add(WARP_IDS_PER_CTA) as usize;
        let ids = (base as usize).min(self.warps.len())..end.min(self.warps.len());
        self.warps[ids].iter().flatten().any(|ws| {
            ws.v.gen().covers(stamp) || ws.v.tc().covers(stamp) || ws.tc_acq.covers(stamp)
        })
    }

    /// The last warp of the CTA with domain index `cta` exited (warp `w`, at instruction
    /// `span`): every op access of its shared memory no warp of the CTA observed is a
    /// finding (TM0234 for reads, TM0235 for writes). The list is emptied.
    pub fn cta_exit(&mut self, cta: u32, w: WarpId, span: SpanToken) {
        let Some(cw) = self.exit.ctas.get_mut(cta as usize) else {
            return;
        };
        let pending = std::mem::take(&mut cw.pending);
        let base = cw.base;
        for e in &pending {
            if self.cta_observed(base, e.stamp) {
                continue;
            }
            let (rule, why) = match (e.kind, e.bulk) {
                (AccessKind::Read, None) => (&tmemu_tmem::rules::ASYNC_SMEM_READ_AT_EXIT, WHY_READ),
                (AccessKind::Read, Some(waits)) => {
                    // its thread waits for its bulk groups in a pipeline and leaves the last
                    // ones to the CTA's exit, as CUTLASS's sm100 epilogue does (docs/arch/
                    // race.md: DERIVED, silent); a thread that never waits again is reported
                    let later = self.exit.bulk_waits.get(e.issuer.0 as usize).copied();
                    if later.unwrap_or(0) > waits {
                        continue;
                    }
                    (&tmemu_tmem::rules::ASYNC_SMEM_UNWAITED_AT_EXIT, WHY_BULK)
                }
                (AccessKind::Write, _) => {
                    (&tmemu_tmem::rules::ASYNC_SMEM_UNWAITED_AT_EXIT, WHY_WRITE)
                }
            };
            if !self.exit.reported.insert((e.span, e.kind)) {
                continue;
            }
            let region = Region::Mem {
                space: MemSpace::Shared { cta },
                bytes: e.lo..e.hi,
            };
            let first = Access {
                warp: w,
                agent: Agent::Thread,
                kind: AccessKind::Write,
                span,
                region: region.clone(),
            };
            let second = Access {
                warp: e.issuer,
                agent: e.agent,
                kind: e.kind,
                span: e.span,
                region,
            };
            let message = finding::message(&first, &second, why);
            self.findings.push(Race {
                rule,
                first,
                second,
                message,
                why,
            });
        }
        // the buffer back, for the index's next occupant
        let cw = &mut self.exit.ctas[cta as usize];
        if cw.pending.is_empty() {
            cw.pending = pending;
            cw.pending.clear();
        }
        cw.base = u32::MAX;
    }
}

fn cta_watch(x: &mut ExitWatch, cta: u32) -> &mut CtaWatch {
    let i = cta as usize;
    if x.ctas.len() <= i {
        x.ctas.resize_with(i + 1, || CtaWatch {
            base: u32::MAX,
            pending: Vec::new(),
            prune_at: FIRST_PRUNE,
        });
    }
    &mut x.ctas[i]
}
