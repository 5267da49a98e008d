//! Shadow memory: for every byte (shared/global) or TMEM cell, the last write and the reads
//! since, stored as runs of identical state in an ordered map.
//!
//! Run-length keeps bulk accesses cheap: a TMA box, an mma operand or a warp's 32 contiguous
//! 4-byte stores from one clock epoch become one run, so the cost of an access is
//! O(log runs + runs it overlaps), not O(bytes).

use std::collections::BTreeMap;

use smallvec::SmallVec;

use crate::clock::Stamp;
use crate::cross::Reach;
use crate::event::{Agent, SpanToken, WarpId};

/// The cluster of a thread whose cluster the detector was not told
/// ([`crate::RaceDetector::set_cluster`]): taken as the same cluster as any other, so a
/// `.cluster`-scoped access of such a thread races nothing for its scope.
pub(crate) const NO_CLUSTER: u32 = CLUSTER_MASK;
const CLUSTER_MASK: u32 = (1 << 30) - 1;

/// What moral strength needs of a strong access (PTX ISA §8, "Morally strong operations"):
/// its scope (top 2 bits) and the cluster of its thread (the rest; the CTA is its warp's,
/// [`WarpId::same_cta`]). One word, so a record stays 32 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scope(u32);

impl Scope {
    /// Weak accesses and asynchronous ops (whose records are never strong), and strong
    /// accesses at `.gpu`/`.sys` scope of a thread of unknown cluster.
    pub const WIDE: Scope = Scope(2 << 30 | NO_CLUSTER);

    /// Clusters are numbered modulo 2^30 (two that collide are taken as one: silence).
    #[inline]
    pub fn new(reach: Reach, cluster: u32) -> Scope {
        let r = match reach {
            Reach::Cta => 0,
            Reach::Cluster => 1,
            Reach::Grid => 2,
        };
        Scope(r << 30 | (cluster & CLUSTER_MASK))
    }

    pub fn reach(self) -> Reach {
        match self.0 >> 30 {
            0 => Reach::Cta,
            1 => Reach::Cluster,
            _ => Reach::Grid,
        }
    }

    pub fn cluster(self) -> u32 {
        self.0 & CLUSTER_MASK
    }
}

/// One recorded access: who (stamp, warp, agent), where in the program (span), and what the
/// ordering rules need (strength, cta_group and pipeline key of tcgen05 ops).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rec {
    /// For an asynchronous op, the stamp of its completion.
    pub stamp: Stamp,
    pub span: SpanToken,
    /// The warp that accessed, or that issued the op.
    pub warp: WarpId,
    pub agent: Agent,
    pub strong: bool,
    /// Meaningful for strong records only.
    pub scope: Scope,
    pub cta_group: u8,
    pub pipe: u64,
}

// Records fill the shadow's states: the scope word must not make them larger.
const _: () = assert!(std::mem::size_of::<Rec>() == 32);

impl Rec {
    /// Whether two strong records of different threads are morally strong with each other:
    /// each one's scope includes the other's thread (PTX ISA §8, "Morally strong operations":
    /// `.cta` the threads of its CTA, `.cluster` of its cluster, `.gpu`/`.sys` all of the
    /// grid's). Both are generic-proxy thread accesses, and the complete-overlap condition is
    /// not checked (docs/arch/race.md, "Strong accesses").
    #[inline(never)]
    pub fn morally_strong(&self, other: &Rec) -> bool {
        let same_cta = self.warp.same_cta(other.warp);
        let (a, b) = (self.scope.cluster(), other.scope.cluster());
        let same_cluster = same_cta || a == b || a == NO_CLUSTER || b == NO_CLUSTER;
        self.scope.reach().includes(same_cta, same_cluster)
            && other.scope.reach().includes(same_cta, same_cluster)
    }
}

/// Shadow state of a run of bytes or cells.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Cell {
    pub write: Option<Rec>,
    /// The last weak write, kept while later writes are strong: strong writes never race each
    /// other, so they cannot stand in for it.
    pub weak_write: Option<Rec>,
    /// Reads since `write` that are not known to happen-before a later read.
    pub reads: SmallVec<[Rec; 2]>,
}

impl Clone for Cell {
    fn clone(&self) -> Self {
        Cell {
            write: self.write,
            weak_write: self.weak_write,
            reads: self.reads.clone(),
        }
    }

    /// Keeps `self`'s read buffer (the dense shadow builds every new state in one scratch
    /// cell: a spilled read set is not reallocated per access).
    fn clone_from(&mut self, source: &Self) {
        self.write = source.write;
        self.weak_write = source.weak_write;
        self.reads.clone_from(&source.reads);
    }
}

#[derive(Clone, Debug)]
struct Seg {
    end: u64,
    cell: Cell,
}

/// An interval map from `[start, end)` runs to their [`Cell`]. Gaps were never accessed.
#[derive(Clone, Debug, Default)]
pub(crate) struct ShadowMap {
    segs: BTreeMap<u64, Seg>,
}

impl ShadowMap {
    /// Number of runs (for benchmarks and tests).
    pub fn runs(&self) -> usize {
        self.segs.len()
    }

    /// Cuts the run that straddles `x` so a run starts at `x`.
    fn split_at(&mut self, x: u64) {
        let Some((&start, seg)) = self.segs.range_mut(..x).next_back() else {
            return;
        };
        if seg.end > x {
            let tail = Seg {
                end: seg.end,
                cell: seg.cell.clone(),
            };
            seg.end = x;
            debug_assert!(start < x);
            self.segs.insert(x, tail);
        }
    }

    /// Calls `f(start, end, cell)` for every run of `[start, end)`, creating runs for gaps,
    /// then merges equal neighbours again.
    pub fn update(&mut self, start: u64, end: u64, mut f: impl FnMut(u64, u64, &mut Cell)) {
        if start >= end {
            return;
        }
        // Fast path: the range lies inside one run and the access leaves its state unchanged
        // (a repeated access from the same epoch): no split, no merge.
        if let Some((&k, seg)) = self.segs.range_mut(..=start).next_back() {
            if seg.end >= end {
                let mut cell = seg.cell.clone();
                f(start, end, &mut cell);
                if cell == seg.cell {
                    return;
                }
                if k == start && seg.end == end {
                    seg.cell = cell;
                    self.merge_around(start, end);
                    return;
                }
                // Split and store the new state for the sub-range; `f` already ran.
                self.split_at(start);
                self.split_at(end);
                self.segs.get_mut(&start).expect("split").cell = cell;
                self.merge_around(start, end);
                return;
            }
        }
        self.split_at(start);
        self.split_at(end);
        // Runs now start and end on the range bounds; fill the gaps between them.
        let mut gaps: SmallVec<[(u64, u64); 4]> = SmallVec::new();
        let mut pos = start;
        for (&k, seg) in self.segs.range(start..end) {
            if k > pos {
                gaps.push((pos, k));
            }
            pos = seg.end;
        }
        if pos < end {
            gaps.push((pos, end));
        }
        for (s, e) in gaps {
            self.segs.insert(
                s,
                Seg {
                    end: e,
                    cell: Cell::default(),
                },
            );
        }
        for (&k, seg) in self.segs.range_mut(start..end) {
            f(k, seg.end, &mut seg.cell);
        }
        self.merge_around(start, end);
    }

    /// Merges equal adjacent runs from the one before `start` to the one starting at `end`,
    /// in one pass over the map followed by the removals.
    fn merge_around(&mut self, start: u64, end: u64) {
        let first = match self.segs.range(..start).next_back() {
            Some((&k, s)) if s.end == start => k,
            _ => start,
        };
        let mut removals: SmallVec<[u64; 16]> = SmallVec::new();
        let mut extends: SmallVec<[(u64, u64); 4]> = SmallVec::new();
        let mut it = self.segs.range(first..);
        let Some((&k0, s0)) = it.next() else {
            return;
        };
        let (mut keep, mut keep_end, mut keep_cell) = (k0, s0.end, &s0.cell);
        let mut grown = false;
        if k0 < end {
            for (&k, seg) in it {
                if k == keep_end && seg.cell == *keep_cell {
                    removals.push(k);
                    keep_end = seg.end;
                    grown = true;
                } else {
                    if grown {
                        extends.push((keep, keep_end));
                        grown = false;
                    }
                    (keep, keep_end, keep_cell) = (k, seg.end, &seg.cell);
                }
                if k >= end {
                    break;
                }
            }
        }
        if grown {
            extends.push((keep, keep_end));
        }
        for k in removals {
            self.segs.remove(&k);
        }
        for (k, e) in extends {
            self.segs.get_mut(&k).expect("kept run").end = e;
        }
    }

    /// The runs overlapping `[start, end)`, clipped (tests and diagnostics).
    #[cfg(test)]
    pub fn runs_in(&self, start: u64, end: u64) -> Vec<(u64, u64, Cell)> {
        let first = match self.segs.range(..=start).next_back() {
            Some((&k, s)) if s.end > start => k,
            _ => start,
        };
        self.segs
            .range(first..end)
            .map(|(&k, s)| (k.max(start), s.end.min(end), s.cell.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::ActorIdx;

    fn rec(actor: u32, time: u32) -> Rec {
        Rec {
            stamp: Stamp {
                actor: ActorIdx(actor),
                time,
            },
            span: SpanToken(0),
            warp: WarpId(actor),
            agent: Agent::Thread,
            strong: false,
            scope: Scope::WIDE,
            cta_group: 0,
            pipe: 0,
        }
    }

    fn write(m: &mut ShadowMap, s: u64, e: u64, r: Rec) {
        m.update(s, e, |_, _, c| {
            c.write = Some(r);
            c.reads.clear();
        });
    }

    #[test]
    fn contiguous_equal_writes_merge_into_one_run() {
        let mut m = ShadowMap::default();
        for lane in 0..32u64 {
            write(&mut m, lane * 4, lane * 4 + 4, rec(0, 1));
        }
        assert_eq!(m.runs(), 1);
        assert_eq!(m.runs_in(0, 128).len(), 1);
    }

    #[test]
    fn partial_overwrite_splits_and_rejoins() {
        let mut m = ShadowMap::default();
        write(&mut m, 0, 100, rec(0, 1));
        write(&mut m, 40, 60, rec(1, 1));
        let runs = m.runs_in(0, 100);
        assert_eq!(
            runs.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
            vec![(0, 40), (40, 60), (60, 100)]
        );
        assert_eq!(runs[1].2.write, Some(rec(1, 1)));
        assert_eq!(runs[2].2.write, Some(rec(0, 1)));
        write(&mut m, 40, 60, rec(0, 1));
        assert_eq!(m.runs(), 1);
    }

    #[test]
    fn update_visits_gaps_and_existing_runs_exactly_once() {
        let mut m = ShadowMap::default();
        write(&mut m, 10, 20, rec(0, 1));
        write(&mut m, 30, 40, rec(1, 1));
        let mut seen = Vec::new();
        m.update(5, 35, |s, e, c| {
            seen.push((s, e, c.write.map(|r| r.stamp.actor.0)))
        });
        assert_eq!(
            seen,
            vec![
                (5, 10, None),
                (10, 20, Some(0)),
                (20, 30, None),
                (30, 35, Some(1))
            ]
        );
        // Bytes are covered exactly once and nothing outside was touched.
        let total: u64 = seen.iter().map(|(s, e, _)| e - s).sum();
        assert_eq!(total, 30);
        assert_eq!(m.runs_in(35, 40)[0].2.write, Some(rec(1, 1)));
    }

    #[test]
    fn matches_a_byte_array_model() {
        // Reference: one Option<actor> per byte, updated naively.
        let mut m = ShadowMap::default();
        let mut bytes = vec![None; 256];
        let mut x: u64 = 12345;
        for step in 0..2000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let s = (x >> 33) % 256;
            let len = 1 + (x >> 20) % 40;
            let e = (s + len).min(256);
            let actor = (x >> 50) as u32 % 3;
            write(&mut m, s, e, rec(actor, 1 + step % 2));
            for b in &mut bytes[s as usize..e as usize] {
                *b = Some((actor, 1 + step % 2));
            }
        }
        for (i, want) in bytes.iter().enumerate() {
            let got = m.runs_in(i as u64, i as u64 + 1);
            let got = got
                .first()
                .and_then(|r| r.2.write)
                .map(|r| (r.stamp.actor.0, r.stamp.time));
            assert_eq!(got, *want, "byte {i}");
        }
        // Runs are maximal: no two adjacent runs hold equal state.
        let runs = m.runs_in(0, 256);
        for w in runs.windows(2) {
            assert!(
                w[0].1 < w[1].0 || w[0].2 != w[1].2,
                "unmerged runs {:?}",
                (w[0].0, w[1].0)
            );
        }
    }
}
