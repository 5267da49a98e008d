//! Vector clocks and epochs.
//!
//! An actor is either a warp or one asynchronous operation (mma, cp, shift, tcgen05.ld/st,
//! bulk copy). Each owns one component of every clock. A [`Stamp`] names one moment of one
//! actor; a clock *covers* a stamp when everything that actor did up to that moment
//! happens-before the clock's owner.

use smallvec::SmallVec;

/// A logical time on one actor's component. 0 means "nothing yet".
pub type Time = u32;

/// Index of an actor's component in every [`VClock`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActorIdx(pub u32);

impl ActorIdx {
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One moment of one actor (an epoch, in FastTrack's words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stamp {
    pub actor: ActorIdx,
    pub time: Time,
}

/// A vector clock: component `i` is the latest time of actor `i` known to happen-before.
///
/// Stored densely (actors are recycled, so the index space stays small); the first 8
/// components live inline, which covers one CTA's warps without a heap allocation.
#[derive(Default, Debug, PartialEq, Eq)]
pub struct VClock(SmallVec<[Time; 8]>);

/// By hand for `clone_from`, which keeps the destination's buffer (a derived `Clone` would
/// allocate a new one: a recycled op state's views are refilled this way).
impl Clone for VClock {
    fn clone(&self) -> Self {
        VClock(self.0.clone())
    }

    fn clone_from(&mut self, source: &Self) {
        // one copy of the slice: `SmallVec::clone_from` pushes the part past the destination's
        // length element by element (a recycled op state's views, a few hundred op slots)
        if self.0.len() == source.0.len() {
            self.0.copy_from_slice(&source.0);
        } else {
            self.0.clear();
            self.0.extend_from_slice(&source.0);
        }
    }
}

impl VClock {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether no component was ever raised (a channel nothing was released into).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    #[inline]
    pub fn get(&self, a: ActorIdx) -> Time {
        self.0.get(a.index()).copied().unwrap_or(0)
    }

    /// Raises component `a` to at least `t`.
    #[inline]
    pub fn raise(&mut self, a: ActorIdx, t: Time) {
        let i = a.index();
        if i >= self.0.len() {
            self.0.resize(i + 1, 0);
        }
        if self.0[i] < t {
            self.0[i] = t;
        }
    }

    /// Increments component `a` and returns the new time.
    #[inline]
    pub fn tick(&mut self, a: ActorIdx) -> Time {
        let t = self.get(a).saturating_add(1);
        self.raise(a, t);
        t
    }

    /// Pointwise maximum.
    #[inline]
    pub fn join(&mut self, other: &VClock) {
        // `max` without a branch: the compiler vectorises it (a cp.async merge joins clocks of
        // a few hundred op slots per copy instruction: 52 M host instructions of
        // matmul_fp16_div16_bench1024's checked run with the compare-and-store loop)
        for (mine, theirs) in self.0.iter_mut().zip(other.0.iter()) {
            *mine = (*mine).max(*theirs);
        }
        if other.0.len() > self.0.len() {
            self.join_tail(other);
        }
    }

    /// The part of a join past this clock's end, where its components are 0: `other`'s, copied
    /// at once (`SmallVec::resize` pushed zeros one by one before the loop, ~12 M host
    /// instructions of matmul_fp16_div16_bench1024's checked run: joins into cleared clocks,
    /// e.g. a barrier's pending clocks, an operand read's clean entry). Out of line: most
    /// joins meet clocks of equal length, and the inlined loop stays small.
    #[inline(never)]
    fn join_tail(&mut self, other: &VClock) {
        let n = self.0.len();
        self.0.extend_from_slice(&other.0[n..]);
    }

    /// Whether everything `s` names happens-before this clock.
    #[inline]
    pub fn covers(&self, s: Stamp) -> bool {
        self.get(s.actor) >= s.time
    }

    /// Partial order: every component of `self` is at most the one of `other`.
    pub fn le(&self, other: &VClock) -> bool {
        // branch-free over the common prefix (clocks run to hundreds of op slots); past
        // `other`'s end, `other` is 0
        let n = self.0.len().min(other.0.len());
        let prefix = (self.0[..n].iter())
            .zip(&other.0[..n])
            .fold(true, |ok, (&a, &b)| ok & (a <= b));
        prefix && self.0[n..].iter().all(|&t| t == 0)
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// A warp's generic, proxy-fenced and tcgen05 views, and how many times they were borrowed
/// mutably.
///
/// Why the count: a merged `cp.async` op takes its issuer's views again at each member
/// instruction (detector's `cp_async.rs`), a join over a few hundred op slots per copy (76 M
/// host instructions of matmul_fp16_div16_bench1024's checked run), while a Triton stage issues
/// its 8-16 copies with no event in between that changes them. An equal count means the views
/// are the ones the op took. The fields are reachable only through these methods, and every
/// mutable borrow counts whether or not it changes anything, so no change can go uncounted.
#[derive(Debug, Default)]
pub(crate) struct Views {
    gen: VClock,
    pf: VClock,
    tc: VClock,
    changes: u64,
}

impl Views {
    /// Generic happens-before.
    #[inline]
    pub fn gen(&self) -> &VClock {
        &self.gen
    }

    /// Proxy-fenced.
    #[inline]
    pub fn pf(&self) -> &VClock {
        &self.pf
    }

    /// tcgen05 ordering.
    #[inline]
    pub fn tc(&self) -> &VClock {
        &self.tc
    }

    /// Changes when any view may have changed.
    #[inline]
    pub fn changes(&self) -> u64 {
        self.changes
    }

    #[inline]
    pub fn gen_mut(&mut self) -> &mut VClock {
        self.changes += 1;
        &mut self.gen
    }

    #[inline]
    pub fn pf_mut(&mut self) -> &mut VClock {
        self.changes += 1;
        &mut self.pf
    }

    #[inline]
    pub fn tc_mut(&mut self) -> &mut VClock {
        self.changes += 1;
        &mut self.tc
    }

    /// All three at once (`gen`, `pf`, `tc`), for a change that reads one while writing
    /// another.
    #[inline]
    pub fn all_mut(&mut self) -> (&mut VClock, &mut VClock, &mut VClock) {
        self.changes += 1;
        (&mut self.gen, &mut self.pf, &mut self.tc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vc(v: &[Time]) -> VClock {
        let mut c = VClock::new();
        for (i, &t) in v.iter().enumerate() {
            c.raise(ActorIdx(i as u32), t);
        }
        c
    }

    #[test]
    fn every_mutable_borrow_of_a_view_counts_as_a_change() {
        let mut v = Views::default();
        let mut last = v.changes();
        let mut bumped = |v: &Views| {
            let c = v.changes();
            let b = c != last;
            last = c;
            b
        };
        v.gen_mut().raise(ActorIdx(0), 1);
        assert!(bumped(&v));
        v.pf_mut();
        assert!(bumped(&v));
        v.tc_mut();
        assert!(bumped(&v));
        v.all_mut();
        assert!(bumped(&v));
        let _ = (v.gen(), v.pf(), v.tc());
        assert!(!bumped(&v));
    }

    #[test]
    fn missing_components_read_as_zero() {
        let c = vc(&[3]);
        assert_eq!(c.get(ActorIdx(0)), 3);
        assert_eq!(c.get(ActorIdx(40)), 0);
    }

    #[test]
    fn raise_never_lowers() {
        let mut c = vc(&[5, 2]);
        c.raise(ActorIdx(0), 4);
        c.raise(ActorIdx(1), 7);
        assert_eq!(c, vc(&[5, 7]));
    }

    #[test]
    fn tick_increments_only_own_component() {
        let mut c = vc(&[1, 1]);
        assert_eq!(c.tick(ActorIdx(1)), 2);
        assert_eq!(c.tick(ActorIdx(3)), 1);
        assert_eq!(c, vc(&[1, 2, 0, 1]));
    }

    #[test]
    fn join_is_pointwise_max_of_different_lengths() {
        let mut a = vc(&[1, 5]);
        a.join(&vc(&[4, 0, 9]));
        assert_eq!(a, vc(&[4, 5, 9]));
        let mut b = vc(&[4, 0, 9, 2]);
        b.join(&vc(&[1, 5]));
        assert_eq!(b, vc(&[4, 5, 9, 2]));
    }

    /// `join` and `clone_from` against component-wise references, over lengths on both sides
    /// of the inline capacity (8) and destinations that were longer before a `clear` (a
    /// recycled clock keeps its buffer): the same components and the same length.
    #[test]
    fn join_and_clone_from_match_the_componentwise_reference() {
        let val = |seed: usize, i: usize| ((seed * 7 + i * 13) % 11) as Time;
        let make = |seed: usize, n: usize| {
            let mut c = VClock::new();
            for i in 0..n {
                c.0.push(val(seed, i));
            }
            c
        };
        for n in [0, 1, 7, 8, 9, 20, 300] {
            for m in [0, 1, 7, 8, 9, 20, 300] {
                for before in [0, 9, 300] {
                    let (a, b) = (make(1, n), make(2, m));
                    let mut j = make(3, before);
                    j.clear();
                    j.join(&a);
                    j.join(&b);
                    let len = n.max(m);
                    let want: Vec<Time> = (0..len)
                        .map(|i| {
                            let x = if i < n { val(1, i) } else { 0 };
                            let y = if i < m { val(2, i) } else { 0 };
                            x.max(y)
                        })
                        .collect();
                    assert_eq!(j.0.as_slice(), want.as_slice(), "join {n} {m} {before}");
                    let mut c = make(3, before);
                    c.clone_from(&b);
                    assert_eq!(c, b, "clone_from {m} {before}");
                }
            }
        }
    }

    #[test]
    fn join_is_commutative_associative_idempotent() {
        let xs = [vc(&[1, 0, 3]), vc(&[0, 2]), vc(&[5, 1, 1, 1])];
        for x in &xs {
            let mut xx = x.clone();
            xx.join(x);
            assert_eq!(&xx, x);
            for y in &xs {
                let mut xy = x.clone();
                xy.join(y);
                let mut yx = y.clone();
                yx.join(x);
                assert_eq!(xy, yx);
                for z in &xs {
                    let mut l = xy.clone();
                    l.join(z);
                    let mut yz = y.clone();
                    yz.join(z);
                    let mut r = x.clone();
                    r.join(&yz);
                    assert_eq!(l, r);
                }
            }
        }
    }

    #[test]
    fn covers_and_partial_order() {
        let c = vc(&[2, 0, 4]);
        assert!(c.covers(Stamp {
            actor: ActorIdx(0),
            time: 2
        }));
        assert!(!c.covers(Stamp {
            actor: ActorIdx(0),
            time: 3
        }));
        assert!(!c.covers(Stamp {
            actor: ActorIdx(1),
            time: 1
        }));
        assert!(c.covers(Stamp {
            actor: ActorIdx(9),
            time: 0
        }));
        assert!(vc(&[1, 0, 4]).le(&c));
        assert!(!vc(&[1, 1]).le(&c));
        // Concurrent clocks: neither is below the other.
        assert!(!vc(&[3]).le(&c) && !c.le(&vc(&[3])));
    }
}
