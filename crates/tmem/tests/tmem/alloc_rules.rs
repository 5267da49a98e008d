//! One test per allocation rule the allocator enforces: a program fragment that breaks it and
//! one that keeps it. Rule facts: shared/spec/tmem.md §7 (PTX ISA 9.1 §9.7.16.7.1).

// The reference spells arithmetic plainly; `is_multiple_of` also postdates the MSRV (1.85).
#![allow(clippy::manual_is_multiple_of, clippy::manual_range_contains)]

use tmemu_tmem::alloc::{
    BlockedOn, Config, CtaGroup, CtaId, Done, Effect, Event, Issue, LaneValues, Origin, Outcome,
    PairCollective, SmId, StepError, TmemAllocator, WarpId, WarpLanes,
};
use tmemu_tmem::geometry::{ColumnRange, TmemAddr};
use tmemu_tmem::rules::{self, Rule};

fn cfg(sms: u32) -> Config {
    Config {
        sms,
        ..Config::default()
    }
}

struct H {
    a: TmemAllocator,
    next: u64,
}

impl H {
    fn new(config: Config) -> Self {
        H {
            a: TmemAllocator::new(config),
            next: 1,
        }
    }

    fn origin(&mut self) -> Origin {
        self.next += 1;
        Origin(self.next)
    }

    fn launch(&mut self, cta: u32, sm: u32, peer: Option<u32>) {
        let out = self
            .a
            .step(Event::Launch {
                cta: CtaId(cta),
                sm: SmId(sm),
                peer: peer.map(CtaId),
            })
            .unwrap();
        assert_eq!(out.effect, Effect::Launched);
    }

    fn issue(&mut self, cta: u32, warp: u32, group: CtaGroup) -> Issue {
        let o = self.origin();
        Issue::warp(CtaId(cta), WarpId(warp), group, o)
    }

    fn alloc_g(&mut self, cta: u32, warp: u32, n: u32, g: CtaGroup) -> Result<Outcome, StepError> {
        let issue = self.issue(cta, warp, g);
        self.a.step(Event::Alloc {
            issue,
            ncols: LaneValues::Uniform(n),
        })
    }

    fn alloc(&mut self, cta: u32, warp: u32, n: u32) -> Result<Outcome, StepError> {
        self.alloc_g(cta, warp, n, CtaGroup::One)
    }

    fn dealloc_g(
        &mut self,
        cta: u32,
        warp: u32,
        taddr: u32,
        n: u32,
        g: CtaGroup,
    ) -> Result<Outcome, StepError> {
        let issue = self.issue(cta, warp, g);
        self.a.step(Event::Dealloc {
            issue,
            taddr: LaneValues::Uniform(taddr),
            ncols: LaneValues::Uniform(n),
        })
    }

    fn dealloc(&mut self, cta: u32, warp: u32, taddr: u32, n: u32) -> Result<Outcome, StepError> {
        self.dealloc_g(cta, warp, taddr, n, CtaGroup::One)
    }

    fn relinquish_g(&mut self, cta: u32, warp: u32, g: CtaGroup) -> Result<Outcome, StepError> {
        let issue = self.issue(cta, warp, g);
        self.a.step(Event::Relinquish { issue })
    }

    fn exit(&mut self, cta: u32) -> Result<Outcome, StepError> {
        let origin = self.origin();
        self.a.step(Event::CtaExit {
            cta: CtaId(cta),
            origin,
        })
    }
}

#[track_caller]
fn granted(r: Result<Outcome, StepError>) -> u32 {
    match r {
        Ok(Outcome {
            effect: Effect::Granted(a),
            ..
        }) => a.raw(),
        other => panic!("expected a grant, got {other:?}"),
    }
}

#[track_caller]
fn clean(r: Result<Outcome, StepError>) -> Outcome {
    let out = r.unwrap_or_else(|e| panic!("expected no error, got {e}"));
    assert!(
        out.findings.is_empty(),
        "unexpected findings {:?}",
        out.findings
    );
    out
}

#[track_caller]
fn violates(r: Result<Outcome, StepError>, rule: &Rule) -> tmemu_tmem::alloc::Violation {
    match r {
        Err(StepError::Violation(v)) => {
            assert_eq!(v.rule.id, rule.id, "wrong rule: {v}");
            v
        }
        other => panic!("expected {} {}, got {other:?}", rule.id, rule.name),
    }
}

#[track_caller]
fn finding_ids(out: &Outcome) -> Vec<&'static str> {
    out.findings.iter().map(|v| v.rule.id).collect()
}

fn one_cta() -> H {
    let mut h = H::new(cfg(2));
    h.launch(0, 0, None);
    h
}

// ---- TM0001..TM0003: nCols values ---------------------------------------------------------

#[test]
fn tm0001_ncols_not_power_of_two() {
    let mut h = one_cta();
    violates(h.alloc(0, 0, 96), &rules::NCOLS_NOT_POWER_OF_TWO);
    violates(h.alloc(0, 0, 384), &rules::NCOLS_NOT_POWER_OF_TWO);
    // Rejected events leave no trace: the legal alloc gets column 0.
    assert_eq!(granted(h.alloc(0, 0, 64)), 0);
    violates(h.dealloc(0, 0, 0, 96), &rules::NCOLS_NOT_POWER_OF_TWO);
    clean(h.dealloc(0, 0, 0, 64));
}

#[test]
fn tm0002_ncols_not_multiple_of_32() {
    let mut h = one_cta();
    violates(h.alloc(0, 0, 40), &rules::NCOLS_NOT_MULTIPLE_OF_32);
    violates(h.alloc(0, 0, 48), &rules::NCOLS_NOT_MULTIPLE_OF_32);
    for n in [32, 64, 128, 256, 512] {
        let a = granted(h.alloc(0, 0, n));
        clean(h.dealloc(0, 0, a, n));
    }
}

#[test]
fn ncols_rule_classifies_every_value_up_to_2048() {
    use tmemu_tmem::alloc::ncols_rule;
    for n in 0..=2048u32 {
        let want = if n < 32 || n > 512 {
            Some("TM0003")
        } else if n % 32 != 0 {
            Some("TM0002")
        } else if ![32, 64, 128, 256, 512].contains(&n) {
            Some("TM0001")
        } else {
            None
        };
        assert_eq!(ncols_rule(n).map(|r| r.id), want, "nCols = {n}");
    }
}

#[test]
fn tm0003_ncols_out_of_range() {
    let mut h = one_cta();
    for n in [0, 1, 16, 1024, u32::MAX] {
        violates(h.alloc(0, 0, n), &rules::NCOLS_OUT_OF_RANGE);
    }
    violates(h.dealloc(0, 0, 0, 16), &rules::NCOLS_OUT_OF_RANGE);
    assert_eq!(granted(h.alloc(0, 0, 512)), 0);
    assert_eq!(h.a.columns(SmId(0)).unwrap().free_columns(), 0);
}

// ---- TM0004, TM0005, TM0006, TM0018: warp-level preconditions ------------------------------

#[test]
fn tm0004_ncols_not_uniform() {
    let mut h = one_cta();
    let mut v = [32u32; 32];
    v[7] = 64;
    let issue = h.issue(0, 0, CtaGroup::One);
    let e = violates(
        h.a.step(Event::Alloc {
            issue,
            ncols: LaneValues::PerLane(v),
        }),
        &rules::NCOLS_NOT_UNIFORM,
    );
    assert_eq!(e.lanes, 1 << 7);
    // A lane that is not part of the warp (partial warp) may hold anything.
    let mut issue = h.issue(0, 0, CtaGroup::One);
    issue.lanes = WarpLanes {
        population: 0x7f,
        exited: 0,
        present: 0x7f,
    };
    let out = h.a.step(Event::Alloc {
        issue,
        ncols: LaneValues::PerLane(v),
    });
    assert_eq!(granted(out), 0);
    // Dealloc's nCols too.
    let issue = h.issue(0, 0, CtaGroup::One);
    violates(
        h.a.step(Event::Dealloc {
            issue,
            taddr: LaneValues::Uniform(0),
            ncols: LaneValues::PerLane(v),
        }),
        &rules::NCOLS_NOT_UNIFORM,
    );
}

#[test]
fn tm0018_taddr_not_uniform() {
    let mut h = one_cta();
    let a = granted(h.alloc(0, 0, 32));
    let mut t = [a; 32];
    t[31] = a + 32;
    let issue = h.issue(0, 0, CtaGroup::One);
    let e = violates(
        h.a.step(Event::Dealloc {
            issue,
            taddr: LaneValues::PerLane(t),
            ncols: LaneValues::Uniform(32),
        }),
        &rules::TADDR_NOT_UNIFORM,
    );
    assert_eq!(e.lanes, 1 << 31);
    let issue = h.issue(0, 0, CtaGroup::One);
    clean(h.a.step(Event::Dealloc {
        issue,
        taddr: LaneValues::PerLane([a; 32]),
        ncols: LaneValues::Uniform(32),
    }));
}

#[test]
fn tm0005_warp_not_converged() {
    let mut h = one_cta();
    let mut issue = h.issue(0, 0, CtaGroup::One);
    issue.lanes.present = !(1 << 3);
    let e = violates(
        h.a.step(Event::Alloc {
            issue,
            ncols: LaneValues::Uniform(32),
        }),
        &rules::ALLOC_WARP_NOT_CONVERGED,
    );
    assert_eq!(e.lanes, 1 << 3);
    let mut issue = h.issue(0, 0, CtaGroup::One);
    issue.lanes.present = 0xffff;
    violates(
        h.a.step(Event::Relinquish { issue }),
        &rules::ALLOC_WARP_NOT_CONVERGED,
    );
    // A partial warp (16 threads) with all of them present is converged.
    let mut issue = h.issue(0, 0, CtaGroup::One);
    issue.lanes = WarpLanes {
        population: 0xffff,
        exited: 0,
        present: 0xffff,
    };
    assert_eq!(
        granted(h.a.step(Event::Alloc {
            issue,
            ncols: LaneValues::Uniform(32)
        })),
        0
    );
}

#[test]
fn tm0006_lane_exited() {
    let mut h = one_cta();
    let mut issue = h.issue(0, 2, CtaGroup::One);
    issue.lanes.exited = 1 << 30;
    issue.lanes.present = !(1 << 30);
    let e = violates(
        h.a.step(Event::Alloc {
            issue,
            ncols: LaneValues::Uniform(32),
        }),
        &rules::ALLOC_WARP_LANE_EXITED,
    );
    assert_eq!(e.lanes, 1 << 30);
    assert_eq!(e.warp, Some(WarpId(2)));
    let mut issue = h.issue(0, 2, CtaGroup::One);
    issue.lanes.exited = 1;
    issue.lanes.present = !1;
    violates(
        h.a.step(Event::Relinquish { issue }),
        &rules::ALLOC_WARP_LANE_EXITED,
    );
    assert_eq!(granted(h.alloc(0, 2, 32)), 0);
}

// ---- TM0008, TM0009: per-CTA history --------------------------------------------------------

#[test]
fn tm0008_ncols_grows() {
    let mut h = one_cta();
    let first = h.alloc(0, 0, 64).unwrap();
    assert!(first.findings.is_empty());
    let out = h.alloc(0, 0, 128).unwrap();
    assert_eq!(finding_ids(&out), ["TM0008"]);
    assert_eq!(
        out.findings[0].related[0].origin,
        Origin(2),
        "points at the 64-column alloc"
    );
    // The allocation itself still happens: 128 columns aligned after the 64.
    assert_eq!(out.effect, Effect::Granted(TmemAddr::new(0, 128).unwrap()));

    let mut h = one_cta();
    clean(h.alloc(0, 0, 128));
    clean(h.alloc(0, 0, 64));
    clean(h.alloc(0, 0, 64));
}

#[test]
fn tm0009_alloc_after_relinquish() {
    let mut h = one_cta();
    let a = granted(h.alloc(0, 0, 32));
    let rel = h.relinquish_g(0, 1, CtaGroup::One).unwrap();
    assert_eq!(rel.effect, Effect::Relinquished);
    let e = violates(h.alloc(0, 0, 32), &rules::ALLOC_AFTER_RELINQUISH);
    assert_eq!(e.related.len(), 1, "points at the relinquish");
    // Dealloc after relinquish is legal (ISA example order: dealloc, then relinquish, either way).
    clean(h.dealloc(0, 0, a, 32));
    assert!(h.a.has_relinquished(CtaId(0)));
}

// ---- TM0010, TM0011: dealloc --------------------------------------------------------------

#[test]
fn tm0010_dealloc_not_live() {
    let mut h = H::new(cfg(1));
    h.launch(0, 0, None);
    h.launch(1, 0, None);
    let a0 = granted(h.alloc(0, 0, 64));
    let a1 = granted(h.alloc(1, 0, 64));
    assert_eq!((a0, a1), (0, 64));
    // Never allocated.
    violates(h.dealloc(0, 0, 256, 64), &rules::DEALLOC_NOT_LIVE);
    // Another CTA's allocation: names it.
    let e = violates(h.dealloc(0, 0, a1, 64), &rules::DEALLOC_NOT_LIVE);
    assert_eq!(e.related[0].cta, CtaId(1));
    // Inside its own allocation, not its base.
    violates(h.dealloc(0, 0, 32, 32), &rules::DEALLOC_NOT_LIVE);
    // Lane bits set (a warp's quarter address instead of the base).
    violates(
        h.dealloc(0, 0, (32 << 16) | a0, 64),
        &rules::DEALLOC_NOT_LIVE,
    );
    clean(h.dealloc(0, 0, a0, 64));
    // Double free.
    violates(h.dealloc(0, 0, a0, 64), &rules::DEALLOC_NOT_LIVE);
    clean(h.dealloc(1, 0, a1, 64));
}

#[test]
fn tm0011_dealloc_ncols_mismatch() {
    let mut h = one_cta();
    let a = granted(h.alloc(0, 0, 64));
    let e = violates(h.dealloc(0, 0, a, 32), &rules::DEALLOC_NCOLS_MISMATCH);
    assert_eq!(e.related[0].label, "allocated here");
    violates(h.dealloc(0, 0, a, 128), &rules::DEALLOC_NCOLS_MISMATCH);
    let out = clean(h.dealloc(0, 0, a, 64));
    assert_eq!(
        out.effect,
        Effect::Freed(ColumnRange {
            first: 0,
            ncols: 64
        })
    );
}

// ---- TM0012, TM0019: at CTA exit -----------------------------------------------------------

#[test]
fn tm0012_alloc_leak() {
    let mut h = H::new(cfg(1));
    h.launch(0, 0, None);
    h.launch(1, 0, None);
    granted(h.alloc(0, 0, 512));
    let alloc_origin = Origin(h.next);
    // CTA 1 blocks behind the leak...
    let b = h.alloc(1, 4, 256).unwrap();
    assert_eq!(b.effect, Effect::Blocked(BlockedOn::Columns { ncols: 256 }));
    let out = h.exit(0).unwrap();
    assert_eq!(finding_ids(&out), ["TM0012", "TM0019"]);
    assert_eq!(out.findings[0].related[0].origin, alloc_origin);
    assert_eq!(out.effect, Effect::Exited { reclaimed: 512 });
    // ...and the reclaimed columns go to it.
    assert_eq!(out.woken.len(), 1);
    assert_eq!(out.woken[0].cta, CtaId(1));
    assert_eq!(out.woken[0].done, Done::Alloc(TmemAddr::new(0, 0).unwrap()));

    // Freed and relinquished: exit is clean.
    let a = granted(h.alloc(1, 4, 128));
    assert_eq!(a, 256);
    clean(h.dealloc(1, 4, 0, 256));
    clean(h.dealloc(1, 4, a, 128));
    clean(h.relinquish_g(1, 4, CtaGroup::One));
    let out = clean(h.exit(1));
    assert_eq!(out.effect, Effect::Exited { reclaimed: 0 });
}

#[test]
fn tm0019_missing_relinquish_is_a_note() {
    assert_eq!(rules::MISSING_RELINQUISH.severity, rules::Severity::Note);
    let mut h = one_cta();
    let a = granted(h.alloc(0, 0, 32));
    clean(h.dealloc(0, 0, a, 32));
    let out = h.exit(0).unwrap();
    assert_eq!(finding_ids(&out), ["TM0019"]);
    // A CTA that never allocated owes nothing.
    let mut h = one_cta();
    clean(h.exit(0));
}

// ---- TM0013, TM0014: which warps allocate ---------------------------------------------------

#[test]
fn tm0013_concurrent_warps_and_tm0014_second_warp() {
    let mut h = H::new(cfg(1));
    h.launch(0, 0, None);
    h.launch(1, 0, None);
    let full = granted(h.alloc(1, 0, 512));
    let out = h.alloc(0, 0, 32).unwrap();
    assert_eq!(
        out.effect,
        Effect::Blocked(BlockedOn::Columns { ncols: 32 })
    );
    // Warp 1 allocates while warp 0's alloc is in flight: error, rejected.
    let e = violates(h.alloc(0, 1, 32), &rules::ALLOC_CONCURRENT_WARPS);
    assert_eq!(e.warp, Some(WarpId(1)));
    let freed = clean(h.dealloc(1, 0, full, 512));
    assert_eq!(freed.woken[0].warp, WarpId(0));
    // Warp 1 allocates later, sequentially: only a warning, and it is granted.
    let out = h.alloc(0, 1, 32).unwrap();
    assert_eq!(finding_ids(&out), ["TM0014"]);
    assert_eq!(out.effect, Effect::Granted(TmemAddr::new(0, 32).unwrap()));
    assert_eq!(
        rules::ALLOC_MULTIPLE_WARPS.severity,
        rules::Severity::Warning
    );
    // The same warp allocating again is fine.
    clean(h.alloc(0, 0, 32));
}

// ---- TM0015..TM0017: CTA pairs -------------------------------------------------------------

fn pair(mode: PairCollective) -> H {
    let mut h = H::new(Config {
        sms: 2,
        pair_collective: mode,
        ..Config::default()
    });
    h.launch(0, 0, Some(1));
    h.launch(1, 1, Some(0));
    h
}

#[test]
fn tm0015_pair_no_peer() {
    let mut h = H::new(cfg(2));
    h.launch(0, 0, None);
    violates(h.alloc_g(0, 0, 32, CtaGroup::Two), &rules::PAIR_NO_PEER);
    violates(h.relinquish_g(0, 0, CtaGroup::Two), &rules::PAIR_NO_PEER);
    // Peer named by the cluster but never launched.
    h.launch(2, 0, Some(3));
    let e = violates(h.alloc_g(2, 0, 32, CtaGroup::Two), &rules::PAIR_NO_PEER);
    assert!(e.message.contains("never launched"), "{}", e.message);
    // With the peer launched, the first arrival waits for it.
    h.launch(3, 1, Some(2));
    let out = clean(h.alloc_g(2, 0, 32, CtaGroup::Two));
    assert_eq!(
        out.effect,
        Effect::Blocked(BlockedOn::Peer { peer: CtaId(3) })
    );
}

#[test]
fn tm0016_pair_peer_exited() {
    // Peer exits before joining the alloc: the late arrival is refused.
    let mut h = pair(PairCollective::Blocking);
    clean(h.exit(1));
    violates(h.alloc_g(0, 0, 32, CtaGroup::Two), &rules::PAIR_PEER_EXITED);

    // Peer exits while this CTA waits for it: reported at the exit; the warp stays blocked.
    let mut h = pair(PairCollective::Blocking);
    clean(h.alloc_g(0, 0, 32, CtaGroup::Two));
    let out = h.exit(1).unwrap();
    assert_eq!(finding_ids(&out), ["TM0016"]);
    assert!(out.findings[0].message.contains("waits forever"));
    let blocked = h.a.blocked();
    assert_eq!(blocked.len(), 1);
    assert_eq!(blocked[0].on, BlockedOn::Peer { peer: CtaId(1) });

    // ISA Table 47 with eager collectives: CTA 0 deallocates and exits before CTA 1 arrives.
    let mut h = pair(PairCollective::Eager);
    let a = granted_pair(&mut h, 64);
    clean(h.dealloc_g(0, 0, a, 64, CtaGroup::Two));
    clean(h.relinquish_g(0, 0, CtaGroup::Two));
    clean(h.exit(0));
    clean(h.dealloc_g(1, 0, a, 64, CtaGroup::Two));
    clean(h.relinquish_g(1, 0, CtaGroup::Two));
    clean(h.exit(1));
}

#[test]
fn tm0017_pair_collective_mismatch() {
    let mut h = pair(PairCollective::Blocking);
    clean(h.alloc_g(0, 0, 64, CtaGroup::Two));
    violates(
        h.alloc_g(1, 0, 128, CtaGroup::Two),
        &rules::PAIR_COLLECTIVE_MISMATCH,
    );
    violates(
        h.relinquish_g(1, 0, CtaGroup::Two),
        &rules::PAIR_COLLECTIVE_MISMATCH,
    );
    // The matching arrival completes the rendezvous.
    let out = clean(h.alloc_g(1, 0, 64, CtaGroup::Two));
    assert_eq!(out.effect, Effect::Granted(TmemAddr::new(0, 0).unwrap()));
    assert_eq!(out.woken.len(), 1);
    assert_eq!(out.woken[0].cta, CtaId(0));
    // Dealloc with a different taddr on the two sides.
    let mut h = pair(PairCollective::Eager);
    clean(h.alloc_g(0, 0, 32, CtaGroup::Two));
    clean(h.alloc_g(1, 0, 32, CtaGroup::Two));
    clean(h.alloc_g(0, 0, 32, CtaGroup::Two));
    clean(h.alloc_g(1, 0, 32, CtaGroup::Two));
    clean(h.dealloc_g(0, 0, 0, 32, CtaGroup::Two));
    violates(
        h.dealloc_g(1, 0, 32, 32, CtaGroup::Two),
        &rules::PAIR_COLLECTIVE_MISMATCH,
    );
    clean(h.dealloc_g(1, 0, 0, 32, CtaGroup::Two));
}

// ---- behaviour ------------------------------------------------------------------------------

fn granted_pair(h: &mut H, n: u32) -> u32 {
    let first = clean(h.alloc_g(0, 0, n, CtaGroup::Two));
    assert_eq!(
        first.effect,
        Effect::Blocked(BlockedOn::Peer { peer: CtaId(1) })
    );
    let second = clean(h.alloc_g(1, 0, n, CtaGroup::Two));
    let a = granted(Ok(second.clone()));
    assert_eq!(second.woken[0].done, Done::Alloc(TmemAddr::from_raw(a)));
    a
}

#[test]
fn pair_alloc_takes_the_lowest_range_free_on_both_sms() {
    let mut h = pair(PairCollective::Blocking);
    h.launch(2, 0, None);
    h.launch(3, 1, None);
    // SM0 holds columns 0..128, SM1 holds 128..256: the lowest 128-aligned range free on
    // both is 256..384.
    granted(h.alloc(2, 0, 128));
    assert_eq!(granted(h.alloc(3, 0, 128)), 0);
    assert_eq!(granted(h.alloc(3, 0, 128)), 128);
    clean(h.dealloc(3, 0, 0, 128));
    assert_eq!(granted_pair(&mut h, 128), 256);
    let both: Vec<_> = [CtaId(0), CtaId(1)]
        .iter()
        .map(|&c| h.a.live_allocations(c).next().unwrap().range)
        .collect();
    assert_eq!(
        both,
        [ColumnRange {
            first: 256,
            ncols: 128
        }; 2]
    );
}

#[test]
fn pair_alloc_waits_until_the_same_range_is_free_on_both_sms() {
    let mut h = pair(PairCollective::Blocking);
    h.launch(2, 0, None);
    h.launch(3, 1, None);
    // SM0: 0..256 and 256..384 taken; SM1: 256..512 taken. No 256-aligned range is free
    // on both.
    assert_eq!(granted(h.alloc(2, 0, 256)), 0);
    assert_eq!(granted(h.alloc(2, 0, 128)), 256);
    assert_eq!(granted(h.alloc(3, 0, 256)), 0);
    assert_eq!(granted(h.alloc(3, 0, 256)), 256);
    clean(h.dealloc(3, 0, 0, 256));
    clean(h.alloc_g(0, 0, 256, CtaGroup::Two));
    let out = clean(h.alloc_g(1, 0, 256, CtaGroup::Two));
    assert_eq!(
        out.effect,
        Effect::Blocked(BlockedOn::Columns { ncols: 256 })
    );
    assert_eq!(h.a.blocked().len(), 2, "both warps wait for columns");
    // SM1 frees everything: SM0 still has no free 256-aligned range.
    let out = clean(h.dealloc(3, 0, 256, 256));
    assert!(out.woken.is_empty());
    // SM0 frees 0..256: granted there on both SMs, both warps released.
    let out = clean(h.dealloc(2, 0, 0, 256));
    let woken: Vec<_> = out.woken.iter().map(|w| (w.cta, w.done)).collect();
    let at = Done::Alloc(TmemAddr::new(0, 0).unwrap());
    assert_eq!(woken, [(CtaId(0), at), (CtaId(1), at)]);
    assert!(h.a.blocked().is_empty());
}

#[test]
fn blocked_requests_are_served_in_arrival_order() {
    let mut h = H::new(cfg(1));
    for c in 0..3 {
        h.launch(c, 0, None);
    }
    let a = granted(h.alloc(0, 0, 512));
    // CTA 1 wants 512, CTA 2 wants 32; when CTA 0 frees 256, 32 would fit, but CTA 2 must
    // not overtake CTA 1.
    assert!(matches!(
        h.alloc(1, 0, 512).unwrap().effect,
        Effect::Blocked(_)
    ));
    assert!(matches!(
        h.alloc(2, 0, 32).unwrap().effect,
        Effect::Blocked(_)
    ));
    let blocked: Vec<_> = h.a.blocked().iter().map(|b| b.cta).collect();
    assert_eq!(blocked, [CtaId(1), CtaId(2)]);
    let holders: Vec<_> =
        h.a.holders(SmId(0))
            .map(|a| (a.cta, a.range.ncols))
            .collect();
    assert_eq!(holders, [(CtaId(0), 512)]);
    let out = clean(h.dealloc(0, 0, a, 512));
    // Both fit now? No: 512 for CTA 1 takes everything; CTA 2 still waits.
    assert_eq!(out.woken.len(), 1);
    assert_eq!(out.woken[0].cta, CtaId(1));
    let out = clean(h.dealloc(1, 0, 0, 512));
    assert_eq!(out.woken[0].cta, CtaId(2));
}

#[test]
fn table48_pair_dealloc_hangs_when_collectives_block() {
    // CTA 1 deallocates before the cluster barrier; CTA 0 waits at the barrier first.
    // With blocking collectives CTA 1's warp waits for CTA 0's dealloc, which never comes
    // while CTA 0 waits for CTA 1 at the barrier: the allocator shows CTA 1 blocked on its
    // peer, which is what a hang report needs.
    let mut h = pair(PairCollective::Blocking);
    let a = granted_pair(&mut h, 32);
    let out = clean(h.dealloc_g(1, 0, a, 32, CtaGroup::Two));
    assert_eq!(
        out.effect,
        Effect::Blocked(BlockedOn::Peer { peer: CtaId(0) })
    );
    let blocked = h.a.blocked();
    assert_eq!(
        (blocked[0].cta, blocked[0].on),
        (CtaId(1), BlockedOn::Peer { peer: CtaId(0) })
    );
    // Both allocations are still held while the collective is incomplete.
    assert_eq!(h.a.live_allocations(CtaId(1)).count(), 1);
    // If CTA 0 does arrive, both are freed and CTA 1's warp is released.
    let out = clean(h.dealloc_g(0, 0, a, 32, CtaGroup::Two));
    assert_eq!(out.woken[0].cta, CtaId(1));
    assert_eq!(h.a.live_allocations(CtaId(0)).count(), 0);
    assert_eq!(h.a.live_allocations(CtaId(1)).count(), 0);

    // With eager collectives the same order completes.
    let mut h = pair(PairCollective::Eager);
    let a = granted_pair(&mut h, 32);
    let out = clean(h.dealloc_g(1, 0, a, 32, CtaGroup::Two));
    assert!(matches!(out.effect, Effect::Freed(_)));
    assert!(h.a.blocked().is_empty());
}

#[test]
fn caller_misuse_is_not_a_violation() {
    let mut h = H::new(cfg(2));
    let r = h.alloc(0, 0, 32);
    assert!(matches!(r, Err(StepError::Misuse(_))), "{r:?}");
    h.launch(0, 0, Some(1));
    let r = h.a.step(Event::Launch {
        cta: CtaId(0),
        sm: SmId(1),
        peer: None,
    });
    assert!(matches!(r, Err(StepError::Misuse(_))), "launched twice");
    let r = h.a.step(Event::Launch {
        cta: CtaId(1),
        sm: SmId(0),
        peer: Some(CtaId(0)),
    });
    assert!(matches!(r, Err(StepError::Misuse(_))), "pair on one SM");
    let r = h.a.step(Event::Launch {
        cta: CtaId(5),
        sm: SmId(9),
        peer: None,
    });
    assert!(matches!(r, Err(StepError::Misuse(_))), "no such SM");
    h.launch(1, 1, Some(0));
    clean(h.alloc_g(0, 0, 32, CtaGroup::Two));
    // A blocked warp cannot issue again, and its CTA cannot exit.
    assert!(matches!(h.alloc(0, 0, 32), Err(StepError::Misuse(_))));
    assert!(matches!(h.exit(0), Err(StepError::Misuse(_))));
}

#[test]
fn records_of_finished_ctas_are_dropped() {
    // Global CTA numbering may be sparse and large; the allocator keeps only live records.
    let mut h = H::new(cfg(4));
    for i in 0..2000u32 {
        let cta = 4_000_000_000 - i;
        h.launch(cta, i % 4, None);
        let a = granted(h.alloc(cta, 0, 128));
        clean(h.dealloc(cta, 0, a, 128));
        clean(h.relinquish_g(cta, 0, CtaGroup::One));
        clean(h.exit(cta));
    }
    assert_eq!(h.a.tracked_ctas(), 0);
    // A pair member that exits first is kept for its peer's collectives, then both go.
    let mut h = pair(PairCollective::Eager);
    let a = granted_pair(&mut h, 32);
    clean(h.dealloc_g(0, 0, a, 32, CtaGroup::Two));
    clean(h.relinquish_g(0, 0, CtaGroup::Two));
    clean(h.exit(0));
    assert_eq!(h.a.tracked_ctas(), 2);
    assert!(h.a.has_exited(CtaId(0)));
    clean(h.dealloc_g(1, 0, a, 32, CtaGroup::Two));
    clean(h.relinquish_g(1, 0, CtaGroup::Two));
    clean(h.exit(1));
    assert_eq!(h.a.tracked_ctas(), 0);
}

#[test]
fn hang_explanations_name_holders_queue_and_peer() {
    use tmemu_tmem::alloc::PeerState;
    let mut h = H::new(cfg(2));
    for c in 0..3 {
        h.launch(c, 0, None);
    }
    granted(h.alloc(0, 0, 256));
    granted(h.alloc(0, 0, 256));
    let held_at = Origin(h.next);
    assert!(matches!(
        h.alloc(1, 1, 512).unwrap().effect,
        Effect::Blocked(_)
    ));
    assert!(matches!(
        h.alloc(2, 2, 32).unwrap().effect,
        Effect::Blocked(_)
    ));
    let ex = h.a.explain_blocked();
    assert_eq!(ex.len(), 2);
    let last = &ex[1];
    assert_eq!((last.blocked.cta, last.sm), (CtaId(2), SmId(0)));
    let holders: Vec<_> = last
        .holders
        .iter()
        .map(|a| (a.cta, a.range.first))
        .collect();
    assert_eq!(holders, [(CtaId(0), 0), (CtaId(0), 256)]);
    assert_eq!(last.holders[1].origin, held_at);
    assert_eq!(last.ahead.len(), 1);
    assert_eq!(last.ahead[0].cta, CtaId(1));
    assert!(ex[0].ahead.is_empty());

    // A warp waiting for a peer that exited.
    let mut h = pair(PairCollective::Blocking);
    clean(h.alloc_g(0, 3, 64, CtaGroup::Two));
    let exit_at = Origin(h.next + 1);
    h.exit(1).unwrap();
    let ex = h.a.explain_blocked();
    assert_eq!(ex.len(), 1);
    assert_eq!(ex[0].blocked.warp, WarpId(3));
    assert_eq!(ex[0].peer, Some(PeerState::Exited(exit_at)));
}
