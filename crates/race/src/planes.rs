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
use crate::clock::{Stamp, VClock};
use crate::dense::{groups_both, one_page_both, pages_both, CellId, DenseShadow, NEVER};
use crate::detector::Conflict;
use crate::event::{AccessKind, Agent};

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
    /// Operand reads whose write-plane check came out clean ([`CleanRead`]).
    clean: [CleanRead; CLEAN_READS],
    /// The next entry of `clean` to replace.
    clean_next: usize,
    /// Bit `k`: entry `k` of `clean` holds a range (a write then needs no loop when none does).
    clean_live: u8,
}

/// Entries of [`PlaneShadow::clean`]: a K loop's operand extents (A and B of each stage:
/// 4 to 8 in Triton's and CuTe's GEMMs).
const CLEAN_READS: usize = 8;
/// Operand reads shorter than this are checked without [`CleanRead`]s: an entry costs two
/// clock copies (a few hundred op slots each), about the walk of 8 pages of the write plane.
/// GEMM operand extents are 8 to 32 KiB; gluon_tcgen05_copy's `tcgen05.cp` reads one or two
/// pages, each freshly written, where entries only added cost (+1.6 M, 1.6 %).
const CLEAN_MIN_BYTES: u64 = 1024;

/// A range that an operand read of `agent` (an `tcgen05.mma` or `tcgen05.cp`: ops that write
/// no shared or global memory) checked against the write plane without a conflict, under the
/// views `hb` and `pf`, while no byte of it held a strong write; kept until a write touches it.
///
/// Why: every MMA of a K loop reads the whole extent of its stage's A and B (four MMAs per
/// 64-wide stage of f16), and the check walked the write plane's runs of all its pages each
/// time (~18 000 host instructions per operand on matmul_fp16_div16_bench1024, perf.md
/// session 8). A later read by the same kind of agent of a part of that range, under views
/// that include these, finds no conflict either, so its check is skipped and only its read
/// set is recorded:
///
/// - Every write state of the range was *ordered* before the earlier read (`hb` covers it)
///   and, if it is of the other proxy, covered by its proxy fences (`pf`): with no strong
///   write, an unordered one would have been a conflict (`Check::conflicts`). Views that
///   include `hb` and `pf` keep both true.
/// - Strong writes are excluded because they are the one case an unordered write is clean
///   (a weak read racing a strong write); the same write ordered under a larger view would
///   then need the proxy fence, a finding the earlier check could not have made.
/// - No write touched the range since (each write drops the entries it overlaps), and a read
///   changes no write state, so the states are the ones checked.
/// - The new record enters the check only through its stamp (an op of another stamp cannot
///   be the writer: these agents write no memory) and its proxy (the same agent).
///
/// The run-length reference has no such shortcut: `tests/dense_vs_runs.rs` holds the two to
/// the same findings on streams of repeated operand reads between writes and fences.
#[derive(Default)]
struct CleanRead {
    start: u64,
    end: u64,
    agent: Option<Agent>,
    hb: VClock,
    pf: VClock,
}

impl PlaneShadow {
    /// Forgets every byte's state, keeping the planes' buffers (`DenseShadow::forget_all`): the
    /// same as `PlaneShadow::default()` to every access.
    pub fn forget_all(&mut self) {
        self.w.forget_all();
        self.r.forget_all();
        self.epoch = 0;
        self.batch = false;
        self.wg.clear();
        self.rg.clear();
        for c in &mut self.clean {
            c.start = 0;
            c.end = 0;
            c.agent = None;
            c.hb.clear();
            c.pf.clear();
        }
        self.clean_next = 0;
        self.clean_live = 0;
    }

    /// Room held by both planes ([`DenseShadow::capacity`]).
    pub fn capacity(&self) -> usize {
        self.w.capacity() + self.r.capacity()
    }

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

    /// The write-plane part of an operand read ([`CleanRead`]): the part of `[start, end)`
    /// that no entry usable under `c`'s views covers is checked, and the range (joined with the
    /// entry that covered the rest) is remembered when it came out clean. An entry covers all
    /// of the range (the K steps of a K-major operand read nested extents: nothing is checked)
    /// or a part at one end (an MN-major operand's extent slides by a K step's rows: only the
    /// new rows are checked). The part an entry covers holds no state that conflicts under
    /// `c`'s views, so no run of the checked part that continues into it conflicts either:
    /// the conflicts recorded are the whole range's.
    #[inline(never)]
    fn check_operand(
        &mut self,
        start: u64,
        end: u64,
        c: &Check<'_, '_>,
        wg: &mut Vec<(u64, u64, CellId)>,
        out: &mut Vec<Conflict>,
    ) {
        let usable = |m: &CleanRead| {
            m.start < end
                && start < m.end
                && m.agent == Some(c.new.agent)
                && m.hb.le(c.view.hb)
                && m.pf.le(c.view.pf)
        };
        // the entry covering the most of the range from one end
        let mut best: Option<(usize, u64, u64)> = None;
        for (k, m) in self.clean.iter().enumerate() {
            if self.clean_live >> k & 1 == 0 || !usable(m) {
                continue;
            }
            let rest = if m.start <= start && end <= m.end {
                (end, end)
            } else if m.start <= start {
                (m.end, end)
            } else if end <= m.end {
                (start, m.start)
            } else {
                continue;
            };
            if best.is_none_or(|b| rest.1 - rest.0 < b.2 - b.1) {
                best = Some((k, rest.0, rest.1));
            }
        }
        let (s0, e0) = best.map_or((start, end), |b| (b.1, b.2));
        if s0 < e0 {
            self.w.id_runs(s0, e0, wg);
            // whether no conflict was found and no byte holds a strong write
            let mut clean = true;
            // The stamps and agents of the last four writes found ordered before this read and
            // clean (a tile's runs alternate between a few ops): the members of one merged
            // `cp.async` op (`cp_async.rs`; a tile is 32 to 64 of them, ~100 host
            // instructions each to check) differ only in their span, which an
            // ordered write's verdict does not read (`Check::conflicts`: with `hb` covering
            // the stamp and another stamp than the read's, the answer is the proxy fence's,
            // a function of the stamp and the agent).
            let mut ordered: [Option<(Stamp, Agent)>; 4] = [None; 4];
            let mut next = 0;
            for &(s, e, id) in wg.iter() {
                let st = self.w.state(id);
                clean &= !st.write.is_some_and(|p| p.strong);
                if self.w.mark(id) == self.epoch {
                    continue;
                }
                let only = match (st.write, st.weak_write) {
                    (Some(p), None) => Some((p.stamp, p.agent)),
                    _ => None,
                };
                if only.is_some() && ordered.contains(&only) {
                    self.w.set_mark(id, self.epoch);
                    continue;
                }
                if c.check_writes(st, s, e, out) {
                    clean = false;
                } else {
                    self.w.set_mark(id, self.epoch);
                    if let Some((stamp, agent)) = only {
                        if stamp != c.new.stamp && c.view.hb.covers(stamp) && !c.tmem {
                            ordered[next] = Some((stamp, agent));
                            next = (next + 1) % ordered.len();
                        }
                    }
                }
            }
            if !clean {
                return;
            }
        }
        // The covered part was clean under views `c`'s include, the rest under `c`'s: the
        // union is clean under `c`'s, and takes the covering entry's place.
        let k = match best {
            Some((k, _, _)) => k,
            None => {
                let k = self.clean_next;
                self.clean_next = (k + 1) % CLEAN_READS;
                k
            }
        };
        let m = &mut self.clean[k];
        let (s, e) = if best.is_some() {
            (m.start.min(start), m.end.max(end))
        } else {
            (start, end)
        };
        (m.start, m.end, m.agent) = (s, e, Some(c.new.agent));
        // clear and join: keeps the entry's buffers (a derived `clone_from` allocates)
        m.hb.clear();
        m.hb.join(c.view.hb);
        m.pf.clear();
        m.pf.join(c.view.pf);
        self.clean_live |= 1 << k;
    }

    /// Checks the access `c` of `[start, end)` and records it (the `Shadow` contract).
    pub fn check(&mut self, start: u64, end: u64, c: &Check<'_, '_>, out: &mut Vec<Conflict>) {
        if start >= end {
            return;
        }
        if !self.batch {
            self.new_epoch();
        }
        let operand =
            matches!(c.new.agent, Agent::Mma | Agent::Cp) && end - start >= CLEAN_MIN_BYTES;
        if c.kind == AccessKind::Read && !operand {
            // A read within one page whose bytes hold one id in each plane (a lane's bytes):
            // one page lookup for both planes, kept for the read plane's fill.
            if let Some((pi, wid, rid)) = one_page_both(&mut self.w, &mut self.r, start, end) {
                if self.w.mark(wid) != self.epoch
                    && !c.check_writes(self.w.state(wid), start, end, out)
                {
                    self.w.set_mark(wid, self.epoch);
                }
                self.r.update_one(pi, start, end, rid, |_, _, rs| {
                    c.read_set(&mut rs.0);
                    true
                });
                return;
            }
        }
        let mut wg = std::mem::take(&mut self.wg);
        if c.kind == AccessKind::Read {
            if operand {
                self.check_operand(start, end, c, &mut wg, out);
            } else {
                self.w.groups(start, end, &mut wg);
                for &(s, e, id) in &wg {
                    if self.w.mark(id) == self.epoch {
                        continue;
                    }
                    if !c.check_writes(self.w.state(id), s, e, out) {
                        self.w.set_mark(id, self.epoch);
                    }
                }
            }
            self.r.update(start, end, |_, _, rs| {
                c.read_set(&mut rs.0);
                true
            });
        } else {
            // The write plane changes: ids checked clean may be freed and reused.
            self.new_epoch();
            if self.clean_live != 0 {
                for (k, m) in self.clean.iter().enumerate() {
                    if start < m.end && m.start < end {
                        self.clean_live &= !(1 << k);
                    }
                }
            }
            // A write within one page whose bytes hold one id in each plane (a lane's bytes, a
            // warp's store of a part of a page): the one run of both planes and the page
            // found once for the check and both stores. The general path below does the
            // same with run lists and a page lookup per plane and store, ~400 of the ~800 host
            // instructions of each swizzled `st.shared` of matmul_fp16_bench1024 (perf.md,
            // session 12).
            if let Some((pi, wid, rid)) = one_page_both(&mut self.w, &mut self.r, start, end) {
                c.check_run(self.w.state(wid), &self.r.state(rid).0, start, end, out);
                if c.clears_reads() {
                    let mut ws = WriteState::default();
                    c.write_state(&mut ws);
                    self.w.assign_in(Some(pi), start, end, &ws, Some(wid));
                    if rid != NEVER {
                        self.r.clear_in(Some(pi), start, end, Some(rid));
                    }
                } else {
                    self.w.update_one(pi, start, end, wid, |_, _, ws| {
                        c.write_state(ws);
                        true
                    });
                }
                return;
            }
            // A weak write of whole pages that each plane holds under one id (a `cp.async`
            // of a pipeline stage): the check of the one run, then both stores from the page
            // found once ([`pages_both`]).
            if c.clears_reads() {
                if let Some((pi, wid, rid)) = pages_both(&mut self.w, &mut self.r, start, end) {
                    c.check_run(self.w.state(wid), &self.r.state(rid).0, start, end, out);
                    let mut ws = WriteState::default();
                    c.write_state(&mut ws);
                    self.w.assign_in(Some(pi), start, end, &ws, Some(wid));
                    if rid != NEVER {
                        self.r.clear_in(Some(pi), start, end, Some(rid));
                    }
                    self.wg = wg;
                    return;
                }
            }
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
