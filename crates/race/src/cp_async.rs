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

use smallvec::SmallVec;

use super::{op_mut, GroupSeq, OpId, RaceDetector};
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
