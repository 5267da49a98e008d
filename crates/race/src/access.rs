//! The check of one access against the shadow state of a run of bytes or cells, and the
//! state it leaves, split by plane: what a write checks and changes ([`WriteState`]: the last
//! write and the last weak write) and what a read changes (the read set).
//!
//! Why split: a read checks only the write state and changes only the read set, so a shadow
//! that keeps the two apart (`crate::planes`) updates one plane per read and shares the
//! read-set ids of bytes whose read sets were equal, whatever their writes were. The
//! run-length map (TMEM, and the reference shadow of the differential tests) keeps the two in
//! one [`Cell`] and applies both parts to it ([`check_cell`]); both shadows call the same
//! functions, in the same order per maximal run of equal state, so they record the same
//! conflicts (`tests/dense_vs_runs.rs`).

use smallvec::SmallVec;

use crate::detector::{ordered_in, Conflict, View};
use crate::event::{AccessKind, Agent};
use crate::finding::Cause;
use crate::shadow::{Cell, Rec};

/// The write plane of a byte: the last write, and the last weak write while later writes are
/// strong (strong writes never race each other, so they cannot stand in for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WriteState {
    pub write: Option<Rec>,
    pub weak_write: Option<Rec>,
}

/// The read plane of a byte: reads since the last weak write that are not known to
/// happen-before a later read.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct ReadSet(pub SmallVec<[Rec; 2]>);

impl Clone for ReadSet {
    fn clone(&self) -> Self {
        ReadSet(self.0.clone())
    }

    /// Keeps `self`'s buffer (the dense shadow builds every new state in one scratch value).
    fn clone_from(&mut self, source: &Self) {
        self.0.clone_from(&source.0);
    }
}

/// One access being checked: the record it leaves, its kind and the views it is judged by.
pub(crate) struct Check<'a, 'v> {
    pub new: Rec,
    pub kind: AccessKind,
    pub view: &'a View<'v>,
    pub tmem: bool,
}

impl Check<'_, '_> {
    /// Whether `prev` conflicts with the new access over `[s, e)`; a conflict is recorded in
    /// `out` (merged with the last one when it continues it).
    #[inline]
    pub fn conflicts(
        &self,
        prev: &Rec,
        prev_kind: AccessKind,
        s: u64,
        e: u64,
        out: &mut Vec<Conflict>,
    ) -> bool {
        // The common verdict inline, the rest out of line: most previous accesses a check
        // meets are ordered before the new one in happens-before and need no proxy fence.
        // The call and its frame were ~30 host instructions of each such visit (dot_scaled's
        // one-byte scale reads meet one per byte).
        let (new, view) = (&self.new, self.view);
        if !self.tmem
            && prev.stamp != new.stamp
            && prev.agent != Agent::Dealloc
            && (prev_kind != AccessKind::Write
                || self.kind != AccessKind::Read
                || prev.agent.is_async_proxy() == new.agent.is_async_proxy())
            && ordered_in(view.hb, prev, new, false)
        {
            return false;
        }
        self.conflicts_slow(prev, prev_kind, s, e, out)
    }

    #[inline(never)]
    fn conflicts_slow(
        &self,
        prev: &Rec,
        prev_kind: AccessKind,
        s: u64,
        e: u64,
        out: &mut Vec<Conflict>,
    ) -> bool {
        let (new, kind, view, tmem) = (&self.new, self.kind, self.view, self.tmem);
        // The same op (its own read and write of D) or the same warp epoch. An op's
        // views do not include its own component, so a recycled slot's earlier records
        // are judged by what the issuer had observed, not by slot identity.
        // Copies merged into one cp.async op share its stamp but are different
        // instructions, unordered with each other (`cp_async.rs`).
        if prev.stamp == new.stamp && (prev.agent != Agent::CpAsync || prev.span == new.span) {
            return false;
        }
        // The two halves of a collective dealloc (and a dealloc of cells a dealloc
        // already freed) are one lifetime's end, not two conflicting writes.
        if prev.agent == Agent::Dealloc && new.agent == Agent::Dealloc {
            return false;
        }
        // TMEM: a completion observed through thread synchronisation (the generic view
        // covers the completion stamp) orders the access even without the tcgen05 fence
        // pair; see the crate docs, "TM0207", for the reading and why.
        let ordered =
            ordered_in(view.hb, prev, new, tmem) || (tmem && view.generic.covers(prev.stamp));
        let cause = if ordered {
            // The proxy fence is what makes data written through one proxy visible to a
            // read through the other (read-after-write). Write-after-write across proxies
            // only needs ordering: the later write's data is what remains (Triton reuses
            // the tcgen05.alloc address slot as a TMA destination after bar.sync, without
            // fence.proxy.async).
            if !tmem
                && prev_kind == AccessKind::Write
                && kind == AccessKind::Read
                && prev.agent.is_async_proxy() != new.agent.is_async_proxy()
                && !view.pf.covers(prev.stamp)
            {
                Cause::ProxyFence
            } else {
                return false;
            }
        } else {
            // Strong accesses race each other only when they are not morally strong: a
            // scope (`.cta`, `.cluster`) that does not include the other thread (PTX ISA §8,
            // "Morally strong operations", "Conflict and Data-races"). A weak *read* racing
            // only strong writes (atomics, relaxed/release stores) is not reported: each
            // strong write is single-copy atomic, so the read returns one of the written
            // values, and the idiom that relies on it (the CUDA Programming Guide's
            // `old = *p; do { ... } while (atomicCAS(p, ...) != old)`) is correct code.
            // A weak write racing anything is a data race.
            if !tmem
                && (prev.strong || prev_kind == AccessKind::Read)
                && (new.strong || kind == AccessKind::Read)
                && !(prev.strong && new.strong && !prev.morally_strong(new))
            {
                return false;
            }
            // Two threads' writes by the same instruction: the "uniform store" of compiled
            // code, where every thread of a CTA stores the same value to one address
            // (Triton's `st.shared.b32 [global_smem+N], imm`). Whatever the order, the
            // bytes end the same when the values are equal, which the detector cannot
            // see: a deliberate miss (a same-instruction store of different values, e.g.
            // `out[0] = tid`, is not reported either). Only within one CTA: two CTAs storing
            // to one address through the same instruction (both CTAs of a pair writing the one
            // output tile, tile-ai/tilelang PR #2274) are a data race the uniform-store idiom
            // never produces (its address is its own CTA's).
            if !tmem
                && prev_kind == AccessKind::Write
                && kind == AccessKind::Write
                && prev.agent == Agent::Thread
                && new.agent == Agent::Thread
                && prev.span == new.span
                && prev.warp.same_cta(new.warp)
            {
                return false;
            }
            // The same for bulk copies: one `cp.async.bulk.tensor` store executed by every
            // lane of a warp (CuTe DSL's TMA-store epilogue without elect) issues identical
            // copies of the same bytes; a deliberate miss like the uniform store.
            if !tmem
                && prev_kind == AccessKind::Write
                && kind == AccessKind::Write
                && prev.agent == Agent::Bulk
                && new.agent == Agent::Bulk
                && prev.span == new.span
                && prev.warp.same_cta(new.warp)
            {
                return false;
            }
            Cause::Unordered {
                ordered_without_tc_fence: tmem && ordered_in(view.generic, prev, new, tmem),
            }
        };
        match out.last_mut() {
            Some(c)
                if c.first == *prev
                    && c.first_kind == prev_kind
                    && c.cause == cause
                    && c.end == s =>
            {
                c.end = e
            }
            _ => out.push(Conflict {
                first: *prev,
                first_kind: prev_kind,
                cause,
                start: s,
                end: e,
            }),
        }
        true
    }

    /// The conflicts of `[s, e)`, whose state is `w` and `reads`; returns whether any was
    /// recorded. A write reports the most recent conflicting access: a conflicting read since
    /// the write already names the bug (the write is ordered before that read). A read
    /// checks only the writes.
    pub fn check_run(
        &self,
        w: &WriteState,
        reads: &[Rec],
        s: u64,
        e: u64,
        out: &mut Vec<Conflict>,
    ) -> bool {
        let mut read_conflict = false;
        if self.kind == AccessKind::Write {
            for r in reads {
                read_conflict |= self.conflicts(r, AccessKind::Read, s, e, out);
            }
            if read_conflict {
                return true;
            }
        }
        self.check_writes(w, s, e, out)
    }

    /// The write plane's part of [`Check::check_run`] (all of it for a read).
    pub fn check_writes(&self, w: &WriteState, s: u64, e: u64, out: &mut Vec<Conflict>) -> bool {
        if let Some(p) = w.write {
            if self.conflicts(&p, AccessKind::Write, s, e, out) {
                return true;
            }
        }
        match w.weak_write {
            Some(p) => self.conflicts(&p, AccessKind::Write, s, e, out),
            None => false,
        }
    }

    /// A write's new write state (a function of the old one: the new record replaces the
    /// write; a strong write keeps the last weak write).
    pub fn write_state(&self, w: &mut WriteState) {
        if self.new.strong {
            // Strong writes do not race strong accesses, so they cannot summarise the
            // weak history: keep the reads and the last weak write.
            if let Some(p) = w.write.filter(|p| !p.strong) {
                w.weak_write = Some(p);
            }
        } else {
            w.weak_write = None;
        }
        w.write = Some(self.new);
    }

    /// Whether a write empties the read set (a weak write does; a strong one keeps it).
    pub fn clears_reads(&self) -> bool {
        !self.new.strong
    }

    /// A read's new read set (a function of the old one).
    pub fn read_set(&self, reads: &mut SmallVec<[Rec; 2]>) {
        let (new, hb) = (&self.new, self.view.hb);
        // A read ordered after an earlier one stands in for it, unless a strong read would
        // replace a weak one (strong accesses do not race each other).
        reads.retain(|r| {
            let same_actor = r.stamp.actor == new.stamp.actor
                && (r.agent != Agent::CpAsync || r.span == new.span);
            let subsumed = same_actor || hb.covers(r.stamp);
            !(subsumed && (r.strong || !new.strong))
        });
        reads.push(*new);
    }
}

/// Both parts on one [`Cell`] (the run-length map's state): the check of the run, then its
/// new state. Returns whether no conflict was recorded (the new state is then a function of
/// the old one alone; `Shadow::update`'s contract).
pub(crate) fn check_cell(
    c: &Check<'_, '_>,
    s: u64,
    e: u64,
    cell: &mut Cell,
    out: &mut Vec<Conflict>,
) -> bool {
    let mut w = WriteState {
        write: cell.write,
        weak_write: cell.weak_write,
    };
    let conflicted = c.check_run(&w, &cell.reads, s, e, out);
    if c.kind == AccessKind::Write {
        c.write_state(&mut w);
        (cell.write, cell.weak_write) = (w.write, w.weak_write);
        if c.clears_reads() {
            cell.reads.clear();
        }
    } else {
        c.read_set(&mut cell.reads);
    }
    !conflicted
}
