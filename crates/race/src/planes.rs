//! The dense shadow of shared and global memory in two planes: per byte, the id of its write
//! state ([`WriteState`]: last write, last weak write) and the id of its read set
//! ([`ReadSet`]), each plane a [`DenseShadow`] of its own.
//!
//! Why two planes: with one state per byte, a byte's state is the product of its write and
//! its reads, so bytes that were written together but read by different lanes (a transposed
//! one-byte read of scale factors, a swizzled store read back row-wise) each hold a state of
//! their own, and every read of such a byte built, compared and stored a new whole state
//! (~900-1 000 instructions per byte on dot_scaled_mxfp8, session 5). Here a read only
//! *checks* the write plane (nothing is stored there) and only *changes* the read plane, whose
//! transition is a function of the old read set alone: the bytes of one instruction that held
//! one read set share one new read-set id whatever their writes, and a write-plane id that a
//! read of the instruction found clean is not checked again.
//!
//! A write needs both planes: it is checked per maximal run of equal (write state, read set),
//! which are the intersections of the two planes' runs (each plane's runs are maximal, so two
//! adjacent intersections always differ in one plane), in address order, exactly as the
//! one-state shadow did; then the write plane takes its new state (a function of the old
//! one) and a weak write empties the read plane's bytes.
//!
//! Same answers as the run-length map (`ShadowMap`, one [`Cell`](crate::shadow::Cell) per
//! run): both call the same [`Check`] functions per maximal run of equal state, so the
//! conflicts recorded are the same, in the same order (`tests/dense_vs_runs.rs`).

use crate::access::{Check, ReadSet, WriteState};
use crate::dense::{groups_both, CellId, DenseShadow, NEVER};
use crate::detector::Conflict;
use crate::event::AccessKind;

/// Byte-granular shadow of one memory in a write plane and a read plane (module docs).
#[derive(Default)]
pub(crate) struct PlaneShadow {
    w: DenseShadow<WriteState>,
    r: DenseShadow<ReadSet>,
    /// The tag of the current access (or batch): a write-plane id whose mark equals it was
    /// checked without a conflict by a read of this access. The check is a function of the
    /// state, the record and the view, which a batch keeps, and a read changes no write-plane
    /// id, so it needs no second check. A new access, a batch and every write take a new
    /// epoch (a write may change or free ids), so an older mark never matches. A tag in the
    /// id's entry instead of a list of clean ids: the list was searched linearly for every
    /// run of the write plane, and an mma operand read over a tile meets one run per
    /// instruction that wrote it.
    epoch: u32,
    /// Whether the updates until the batch ends are one access ([`DenseShadow::batch`]).
    batch: bool,
    /// Scratch: the runs of each plane in the access being checked.
    wg: Vec<(u64, u64, CellId)>,
    rg: Vec<(u64, u64, CellId)>,
}

impl PlaneShadow {
    /// Ids in use in both planes (a measure of shadow memory in use).
    pub fn states(&self) -> usize {
        self.w.states() + self.r.states()
    }

    /// Starts (`true`) or ends a batch: the accesses until it ends are the ranges of one
    /// warp-instruction, checked under one record and one view.
    pub fn batch(&mut self, on: bool) {
        self.batch = on;
        self.new_epoch();
        self.w.batch(on);
        self.r.batch(on);
    }

    /// A tag no write-plane id holds yet (0 is a fresh id's; on wrapping, every mark is reset).
    fn new_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.w.clear_marks();
            self.epoch = 1;
        }
    }

    /// Checks the access `c` of `[start, end)` and records it (the `Shadow` contract).
    pub fn check(&mut self, start: u64, end: u64, c: &Check<'_, '_>, out: &mut Vec<Conflict>) {
        if start >= end {
            return;
        }
        if !self.batch {
            self.new_epoch();
        }
        let mut wg = std::mem::take(&mut self.wg);
        if c.kind == AccessKind::Read {
            self.w.groups(start, end, &mut wg);
            for &(s, e, id) in &wg {
                if self.w.mark(id) == self.epoch {
                    continue;
                }
                if !c.check_writes(self.w.state(id), s, e, out) {
                    self.w.set_mark(id, self.epoch);
                }
            }
            self.r.update(start, end, |_, _, rs| {
                c.read_set(&mut rs.0);
                true
            });
        } else {
            // The write plane changes: ids checked clean may be freed and reused.
            self.new_epoch();
            let mut rg = std::mem::take(&mut self.rg);
            // One walk for both planes' runs (their page tables agree: `groups_both`).
            let (w_one, r_one) =
                groups_both(&mut self.w, &mut self.r, start, end, &mut wg, &mut rg);
            let (mut i, mut j, mut pos) = (0, 0, start);
            while pos < end {
                let (_, we, wid) = wg[i];
                let (_, re, rid) = rg[j];
                let e = we.min(re);
                c.check_run(self.w.state(wid), &self.r.state(rid).0, pos, e, out);
                pos = e;
                i += usize::from(we == e);
                j += usize::from(re == e);
            }
            // Bytes nobody read since their last weak write hold the empty set's id.
            let no_reads = rg.len() == 1 && rg[0].2 == NEVER;
            self.rg = rg;
            if c.clears_reads() {
                // A weak write's new write state does not depend on the old one.
                let mut ws = WriteState::default();
                c.write_state(&mut ws);
                self.w.assign(start, end, &ws, w_one);
                if !no_reads {
                    self.r.clear(start, end, r_one);
                }
            } else {
                self.w.update(start, end, |_, _, ws| {
                    c.write_state(ws);
                    true
                });
            }
        }
        self.wg = wg;
    }
}
