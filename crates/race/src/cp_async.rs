//! Non-bulk `cp.async`: one async op per warp and cp.async-group, not per copy instruction.
//!
//! The copies of one thread's cp.async-group complete together: every event that observes one
//! of them (`cp.async.wait_group`/`wait_all`/`cp.async.mbarrier.arrive` of that thread)
//! observes all of them (PTX ISA §9.7.9.25.3.2). So the copies a warp issues with the same
//! lanes between two commits of those lanes can share one op actor, one issue and one
//! completion clock; only their accesses differ. Triton's 3-stage pipelines issue 8-16 copies
//! per stage and warp: this is one op instead of 8-16, one group entry per lane instead of
//! 8-16, one observation per wait.
//!
//! Why it gives the findings of one op per instruction (`tests/cp_async_merge.rs` checks it on
//! random streams):
//!
//! - *Views.* An op checks its accesses under the issuer's views at issue and its completion
//!   carries them. A warp's views only grow, so joining the members' views is the last
//!   member's view: a merge refreshes the op's views (its accesses are checked under the
//!   view of their own instruction) and its completion clock.
//! - *Completion.* A merge needs the same lanes as the open op and happens only while no lane
//!   of it has committed since (a commit by any of those lanes closes it), so every lane
//!   observes all members at the same wait.
//! - *Members are told apart by their instruction.* Two copies of one group are not ordered
//!   with each other; with one stamp the shadow would take the second for the first (an op
//!   never races itself). A record of a `cp.async` with the same stamp but another span is
//!   checked like another op's (`detector::check_range`), and a member whose instruction is
//!   already in the op starts a new op (a loop issuing the same `cp.async` twice before a
//!   commit), so members of one op always have distinct spans.

use std::collections::VecDeque;

use smallvec::SmallVec;

use super::{op_mut, GroupSeq, OpId, RaceDetector, MAX_BULK_GROUPS};
use crate::event::{AccessKind, MemSpace, OpKind, SpanToken, WarpId};

/// Instructions one merged op holds before a further copy starts a new op (a bound on the
/// linear search of `spans`; Triton issues at most 16 per stage and warp).
const MAX_MEMBERS: usize = 32;

/// A warp's cp.async op still taking copies: issued by `lanes`, none of which has committed
/// since.
#[derive(Debug)]
pub(super) struct OpenCpAsync {
    op: OpId,
    lanes: u32,
    /// The instructions merged so far.
    spans: SmallVec<[SpanToken; 16]>,
    /// The issuer's `Views::changes` when the op last took its views.
    views: u64,
}

impl RaceDetector {
    /// A non-bulk `cp.async` by the threads `lanes` of warp `w` (instruction `span`): returns
    /// the op its accesses belong to ([`Self::op_access`]; [`Self::complete`] after them),
    /// which has already joined each issuing thread's open cp.async-group. That is the warp's
    /// open op when the same lanes issued it since their last commit, else a new op. Same
    /// findings as [`Self::issue`] + [`Self::cp_async_add_lanes`] per instruction (module docs).
    pub fn cp_async_issue(&mut self, w: WarpId, lanes: u32, span: SpanToken) -> OpId {
        self.warp(w);
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        if let Some(open) = ws.cpa_open.as_mut() {
            let mergeable = open.lanes == lanes
                && open.spans.len() < MAX_MEMBERS
                && !open.spans.contains(&span);
            if mergeable {
                if let Some(op) = op_mut(&mut self.actors, open.op) {
                    open.spans.push(span);
                    // Views only grow: the last member's view is the join of all members'.
                    // Unchanged since the op took them (no event of the warp in between: a
                    // Triton stage's copies), they are the op's already, and so is `done`'s
                    // join of them.
                    if open.views != ws.v.changes() {
                        open.views = ws.v.changes();
                        op.gen.clear();
                        op.gen.join(ws.v.gen());
                        op.gen.join(ws.v.tc());
                        op.pf.clear();
                        op.pf.join(ws.v.pf());
                        // `tc` is left as it is: a cp.async touches no TMEM, and its
                        // completion clock (`gen` ∪ `tc`) needs only `gen`, which holds each
                        // member's `tc`. Nothing completes an open op but an eager
                        // `complete`; the race observer leaves it to the first observation
                        // (`done_clock`).
                        if let Some(done) = op.done.as_mut() {
                            done.join(&op.gen);
                        }
                    }
                    op.span = span;
                    self.stats.ops_merged += 1;
                    return open.op;
                }
            }
        }
        // before `issue`, which takes the views first: a change it made after could only
        // cost a refresh
        let views = ws.v.changes();
        let id = self.issue(w, OpKind::CpAsync, span);
        self.group_add(GroupSeq::CpAsync, w, lanes, id);
        let ws = self.warps[w.0 as usize].as_mut().expect("registered");
        ws.cpa_open = Some(OpenCpAsync {
            op: id,
            lanes,
            spans: SmallVec::from_slice(&[span]),
            views,
        });
        id
    }
}

impl RaceDetector {
    /// The ranges `[start, end)` of `space` the op reads or writes: [`Self::op_access`] for
    /// each, sharing the shadow's transitions between them (one record, one view: the ranges
    /// of one warp-instruction, as `access_lanes` does for thread accesses).
    pub fn op_access_ranges(
        &mut self,
        id: OpId,
        space: MemSpace,
        ranges: &[(u64, u64)],
        kind: AccessKind,
    ) {
        self.op_mem_ranges(id, space, ranges, kind);
    }
}

/// A commit by `lanes` closes the warp's open op if any of its lanes commits.
pub(super) fn close_on_commit(open: &mut Option<OpenCpAsync>, lanes: u32) {
    if open.as_ref().is_some_and(|o| o.lanes & lanes != 0) {
        *open = None;
    }
}

/// A warp's cp.async-groups kept once for the warp instead of once per lane, while that
/// gives every lane's groups exactly: Triton's 32 lanes commit and wait together, and 32
/// per-lane queues cost ~270 host instructions per lane and wait (matmul_fp16_div16_bench1024:
/// 55 M of its checked run, perf.md session 13). The first event that would give two lanes of
/// `lanes` different groups (a commit or wait by some of them only, a copy by lanes without
/// groups while others have some) hands them to the per-lane queues
/// ([`RaceDetector::split_cp_groups`]), which stay the reference.
///
/// Lane `l` of `lanes` has `groups.len()` committed groups, group `i` holding the ops of
/// `groups[i]` whose lane mask has `l`, and the open ops of `open` with `l`; a lane outside
/// `lanes` has none and nothing open.
#[derive(Debug, Default)]
pub(super) struct WarpGroups {
    lanes: u32,
    /// Ops added since the lanes' last commit, with the lanes that added each (never none,
    /// always within `lanes`).
    open: SmallVec<[(OpId, u32); 4]>,
    /// Committed groups, oldest first.
    groups: VecDeque<SmallVec<[(OpId, u32); 4]>>,
}

impl WarpGroups {
    fn is_empty(&self) -> bool {
        self.open.is_empty() && self.groups.is_empty()
    }

    /// Adds `id` for `lanes`; false (nothing changed) when the lanes would diverge.
    pub(super) fn add(&mut self, lanes: u32, id: OpId) -> bool {
        if lanes == 0 {
            return true;
        }
        if self.groups.is_empty() {
            // no lane has a group yet: lanes joining now have as many (none) as the others
            self.lanes |= lanes;
        } else if lanes & !self.lanes != 0 {
            return false;
        }
        self.open.push((id, lanes));
        true
    }

    /// A commit by `lanes`; false (nothing changed) when the lanes would diverge, or when
    /// the oldest group would be evicted (left to the per-lane queues, whose order of
    /// observation is the reference's).
    pub(super) fn commit(&mut self, lanes: u32) -> bool {
        if lanes == 0 {
            return true;
        }
        // With no group yet, lanes beyond ours start with one empty group like ours; with
        // groups, only all of ours and no others keep every lane's count equal.
        let same =
            lanes == self.lanes || self.groups.is_empty() && lanes & self.lanes == self.lanes;
        if !same || self.groups.len() >= MAX_BULK_GROUPS {
            return false;
        }
        self.lanes = lanes;
        let g = std::mem::take(&mut self.open);
        self.groups.push_back(g);
        true
    }
}

impl RaceDetector {
    /// `cp.async.wait_group n` by `lanes` of warp `w` on its warp-wide groups: `None` when the
    /// lanes would diverge (nothing changed), else the ops to observe, each once with the
    /// number of lane-group entries that held it, in the order the per-lane queues give
    /// (`group_wait`: first appearance walking lane by lane, sorted by id past 16).
    pub(super) fn cp_groups_wait(
        &mut self,
        w: WarpId,
        lanes: u32,
        n: u32,
    ) -> Option<SmallVec<[(OpId, u32); 8]>> {
        let ws = self.warp(w);
        let wg = &mut ws.cpw;
        let k = wg.groups.len().saturating_sub(n as usize);
        let mut done: SmallVec<[(OpId, u32); 8]> = SmallVec::new();
        // lanes without groups observe nothing
        if k == 0 || lanes & wg.lanes == 0 {
            return Some(done);
        }
        if lanes & wg.lanes != wg.lanes {
            return None;
        }
        // An entry's op first appears at the lowest lane holding it; the per-lane walk
        // visits lane by lane, each lane's groups and entries in order.
        let mut keys: SmallVec<[(u32, u32); 8]> = SmallVec::new();
        let mut reorder = false;
        let mut seq = 0u32;
        for _ in 0..k {
            let g = wg.groups.pop_front().expect("k <= len");
            for &(id, ls) in &g {
                reorder |= ls != wg.lanes;
                let key = (ls.trailing_zeros(), seq);
                seq += 1;
                match done.iter().position(|e| e.0 == id) {
                    Some(i) => {
                        done[i].1 += ls.count_ones();
                        keys[i] = keys[i].min(key);
                    }
                    None => {
                        done.push((id, ls.count_ones()));
                        keys.push(key);
                    }
                }
            }
        }
        if wg.is_empty() {
            wg.lanes = 0;
        }
        if done.len() > 16 {
            done.sort_unstable();
        } else if reorder {
            let mut order: SmallVec<[usize; 8]> = (0..done.len()).collect();
            order.sort_unstable_by_key(|&i| keys[i]);
            done = order.iter().map(|&i| done[i]).collect();
        }
        Some(done)
    }

    /// Hands warp `w`'s warp-wide cp.async-groups to its per-lane queues, for good: the
    /// lanes are about to diverge.
    pub(super) fn split_cp_groups(&mut self, w: WarpId) {
        let ws = self.warp(w);
        let wg = std::mem::take(&mut ws.cpw);
        ws.cpa.resize_with(32, Default::default);
        for l in 0..32 {
            if wg.lanes >> l & 1 == 0 {
                continue;
            }
            let lb = &mut ws.cpa[l];
            let of_lane = |g: &[(OpId, u32)]| {
                g.iter()
                    .filter(|e| e.1 >> l & 1 != 0)
                    .map(|e| e.0)
                    .collect()
            };
            lb.open = of_lane(&wg.open);
            lb.groups = wg.groups.iter().map(|g| (of_lane(g), false)).collect();
        }
    }
}
