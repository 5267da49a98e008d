//! The allocation protocol across all SMs: per-CTA permits and history, the FIFO waiter
//! queue, and the `.cta_group::2` rendezvous. See the module docs of `alloc` for the
//! contract.

// `%` rather than `is_multiple_of`: the workspace MSRV (1.85) predates it.
#![allow(clippy::manual_is_multiple_of)]

use std::collections::VecDeque;

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::columns::{aligned_starts, Allocation, ColumnAllocator};
use super::pair::{Half, PairOp};
use super::violation::{Misuse, StepError, Violation};
use super::warp::{check_lanes, uniform};
use super::{
    Config, CtaGroup, CtaId, Done, Effect, Event, Issue, LaneValues, Origin, Outcome,
    PairCollective, Placement, SmId, Wake, WarpId,
};
use crate::geometry::{ColumnRange, TmemAddr, ALLOC_UNIT, MAX_NCOLS, MIN_NCOLS};
use crate::rules::{self, Rule};

mod hang;
mod rendezvous;
mod table;

pub use hang::{Blocked, BlockedOn, Explanation, PeerState};
use rendezvous::Arrival;
use table::{CtaRecord, CtaTable, Life};

/// One warp taking part in an alloc request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Member {
    cta: CtaId,
    warp: WarpId,
    sm: SmId,
    origin: Origin,
}

/// An alloc request: one warp (`.cta_group::1`) or one warp in each CTA of a pair.
#[derive(Clone, Copy, Debug)]
struct Request {
    members: [Member; 2],
    len: usize,
    ncols: u32,
    group: CtaGroup,
}

impl Request {
    fn members(&self) -> &[Member] {
        &self.members[..self.len]
    }

    fn shares_sm(&self, other: &Request) -> bool {
        self.members()
            .iter()
            .any(|a| other.members().iter().any(|b| a.sm == b.sm))
    }
}

/// TMEM allocation state of a whole launch: one [`ColumnAllocator`] per SM, every CTA's
/// permit and history, blocked requests and pending pair collectives.
#[derive(Clone, Debug)]
pub struct TmemAllocator {
    config: Config,
    rng: Pcg64Mcg,
    sms: Vec<ColumnAllocator>,
    ctas: CtaTable,
    /// Blocked alloc requests in arrival order (FIFO per SM).
    waiters: VecDeque<Request>,
}

#[cold]
fn misuse(message: String) -> StepError {
    StepError::Misuse(Misuse { message })
}

/// The rule an nCols value of alloc/dealloc breaks, if any: TM0003 (outside [32, 512]), then
/// TM0002 (not a multiple of 32), then TM0001 (not a power of two) — one rule per value, the
/// most basic. A static checker uses this for immediates; the allocator for register values.
pub fn ncols_rule(n: u32) -> Option<&'static Rule> {
    if !(MIN_NCOLS..=MAX_NCOLS).contains(&n) {
        Some(&rules::NCOLS_OUT_OF_RANGE)
    } else if n % ALLOC_UNIT != 0 {
        Some(&rules::NCOLS_NOT_MULTIPLE_OF_32)
    } else if !n.is_power_of_two() {
        Some(&rules::NCOLS_NOT_POWER_OF_TWO)
    } else {
        None
    }
}

fn check_ncols(issue: &Issue, n: u32, what: &str) -> Result<(), Violation> {
    let Some(rule) = ncols_rule(n) else {
        return Ok(());
    };
    Err(Violation::new(
        rule,
        issue,
        format!(
            "{what} with nCols = {n}: nCols must be a power of two in [32, 512] (32, 64, 128, 256 or 512)"
        ),
    ))
}

impl TmemAllocator {
    pub fn new(config: Config) -> Self {
        let seed = match config.placement {
            Placement::Random { seed } => seed,
            Placement::Lowest => 0,
        };
        TmemAllocator {
            config,
            rng: Pcg64Mcg::seed_from_u64(seed),
            sms: vec![ColumnAllocator::default(); config.sms as usize],
            ctas: CtaTable::default(),
            waiters: VecDeque::new(),
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Change whether later `.cta_group::2` dealloc/relinquish arrivals wait for their peer
    /// (a choice point for a schedule explorer; halves already recorded keep their mode).
    pub fn set_pair_collective(&mut self, mode: PairCollective) {
        self.config.pair_collective = mode;
    }

    /// Apply one event. See the `alloc` module docs for what `Ok` and `Err` mean.
    pub fn step(&mut self, event: Event) -> Result<Outcome, StepError> {
        match event {
            Event::Launch { cta, sm, peer } => self.launch(cta, sm, peer),
            Event::Alloc { issue, ncols } => self.alloc(&issue, &ncols),
            Event::Dealloc {
                issue,
                taddr,
                ncols,
            } => self.dealloc(&issue, &taddr, &ncols),
            Event::Relinquish { issue } => self.relinquish(&issue),
            Event::CtaExit { cta, origin } => self.exit(cta, origin),
        }
    }

    // ---- queries (hang reports, checkers) ------------------------------------------------

    /// The columns of one SM.
    pub fn columns(&self, sm: SmId) -> Option<&ColumnAllocator> {
        self.sms.get(sm.0 as usize)
    }

    /// Who holds the columns of SM `sm`: every live allocation there, lowest column first.
    pub fn holders(&self, sm: SmId) -> impl Iterator<Item = &Allocation> + '_ {
        self.columns(sm).into_iter().flat_map(|c| c.allocations())
    }

    /// Live allocations of one CTA.
    pub fn live_allocations(&self, cta: CtaId) -> impl Iterator<Item = &Allocation> + '_ {
        let sm = self.sm_of(cta);
        sm.into_iter()
            .flat_map(move |sm| self.holders(sm))
            .filter(move |a| a.cta == cta)
    }

    /// The SM a CTA is resident on (None once its record is dropped after exit).
    pub fn sm_of(&self, cta: CtaId) -> Option<SmId> {
        self.ctas.get(&cta).map(|r| r.sm)
    }

    pub fn has_relinquished(&self, cta: CtaId) -> bool {
        self.ctas
            .get(&cta)
            .is_some_and(|r| r.relinquished.is_some())
    }

    /// True for an exited CTA whose record is still kept (a pair member whose peer is still
    /// resident); records of finished CTAs are dropped, so the engine, which knows which
    /// CTAs exited, is the authority on that.
    pub fn has_exited(&self, cta: CtaId) -> bool {
        self.ctas
            .get(&cta)
            .is_some_and(|r| matches!(r.life, Life::Exited(_)))
    }

    /// How many CTA records the allocator keeps (resident CTAs, plus exited pair members
    /// whose peer is still resident).
    pub fn tracked_ctas(&self) -> usize {
        self.ctas.0.len()
    }

    // ---- events -------------------------------------------------------------------------

    fn launch(&mut self, cta: CtaId, sm: SmId, peer: Option<CtaId>) -> Result<Outcome, StepError> {
        if sm.0 >= self.config.sms {
            return Err(misuse(format!(
                "CTA {} launched on SM {} of {}",
                cta.0, sm.0, self.config.sms
            )));
        }
        if self.ctas.get(&cta).is_some() {
            return Err(misuse(format!("CTA {} launched twice", cta.0)));
        }
        if let Some(p) = peer {
            if p == cta {
                return Err(misuse(format!("CTA {} is its own peer", cta.0)));
            }
            if let Some(pr) = self.ctas.get(&p) {
                if pr.peer != Some(cta) {
                    return Err(misuse(format!(
                        "CTA {} names peer {} whose peer is {:?}",
                        cta.0, p.0, pr.peer
                    )));
                }
                // Hardware places a CTA pair on the two SMs of a TPC; both CTAs get the
                // same columns, which needs two allocators.
                if pr.sm == sm {
                    return Err(misuse(format!(
                        "CTA pair {} and {} placed on the same SM {}",
                        cta.0, p.0, sm.0
                    )));
                }
            }
        }
        self.ctas.0.insert(
            cta,
            CtaRecord {
                life: Life::Resident,
                sm,
                peer,
                relinquished: None,
                last_alloc: None,
                alloc_warp: None,
                alloc_in_flight: None,
                halves: VecDeque::new(),
            },
        );
        Ok(Outcome::new(Effect::Launched))
    }

    fn alloc(&mut self, issue: &Issue, ncols: &LaneValues) -> Result<Outcome, StepError> {
        const WHAT: &str = "tcgen05.alloc";
        self.check_issuer(issue)?;
        check_lanes(issue, WHAT)?;
        let n = uniform(issue, ncols, &rules::NCOLS_NOT_UNIFORM, "nCols")?;
        check_ncols(issue, n, WHAT)?;
        let rec = &self.ctas[issue.cta];
        if let Some(at) = rec.relinquished {
            return Err(Violation::new(
                &rules::ALLOC_AFTER_RELINQUISH,
                issue,
                format!(
                    "{WHAT} by CTA {} after it relinquished its allocation permit",
                    issue.cta.0
                ),
            )
            .related(at, issue.cta, "permit relinquished here")
            .into());
        }
        if let Some((w, at)) = rec.alloc_in_flight {
            return Err(Violation::new(
                &rules::ALLOC_CONCURRENT_WARPS,
                issue,
                format!(
                    "{WHAT} by warp {} while warp {} of the same CTA is still allocating",
                    issue.warp.0, w.0
                ),
            )
            .related(at, issue.cta, "the other warp's alloc")
            .into());
        }
        let op = PairOp::Alloc { ncols: n };
        let pair = match issue.group {
            CtaGroup::One => None,
            CtaGroup::Two => Some(self.pair_arrival(issue, op)?),
        };

        // Accepted: from here on the event takes effect.
        let mut out = Outcome::new(Effect::Launched);
        let rec = &mut self.ctas[issue.cta];
        if let Some((prev, at)) = rec.last_alloc.filter(|&(prev, _)| n > prev) {
            out.findings.push(
                Violation::new(
                    &rules::NCOLS_GROWS,
                    issue,
                    format!(
                        "{WHAT} of {n} columns after an allocation of {prev} columns: nCols must not increase within a CTA"
                    ),
                )
                .related(at, issue.cta, "previous allocation"),
            );
        }
        if let Some((w, at)) = rec.alloc_warp.filter(|&(w, _)| w != issue.warp) {
            out.findings.push(
                Violation::new(
                    &rules::ALLOC_MULTIPLE_WARPS,
                    issue,
                    format!(
                        "{WHAT} by warp {} but warp {} allocated earlier in this CTA; a single warp should allocate",
                        issue.warp.0, w.0
                    ),
                )
                .related(at, issue.cta, "first allocation by another warp"),
            );
        }
        rec.last_alloc = Some((n, issue.origin));
        rec.alloc_warp.get_or_insert((issue.warp, issue.origin));
        let me = Member {
            cta: issue.cta,
            warp: issue.warp,
            sm: rec.sm,
            origin: issue.origin,
        };
        let req = match pair {
            None => Request {
                members: [me, me],
                len: 1,
                ncols: n,
                group: CtaGroup::One,
            },
            Some(Arrival::First { peer }) => {
                rec.alloc_in_flight = Some((issue.warp, issue.origin));
                rec.halves.push_back(Half {
                    warp: issue.warp,
                    origin: issue.origin,
                    op,
                    waiting: true,
                });
                out.effect = Effect::Blocked(BlockedOn::Peer { peer });
                return Ok(out);
            }
            Some(Arrival::Second { peer, half }) => {
                let peer_member = Member {
                    cta: peer,
                    warp: half.warp,
                    sm: self.ctas[peer].sm,
                    origin: half.origin,
                };
                Request {
                    members: [peer_member, me],
                    len: 2,
                    ncols: n,
                    group: CtaGroup::Two,
                }
            }
        };
        let earlier = self.waiters.iter().any(|w| w.shares_sm(&req));
        match (!earlier).then(|| self.place(&req)).flatten() {
            Some(range) => {
                self.grant(&req, range);
                out.effect = Effect::Granted(range.base());
                for m in &req.members()[..req.len - 1] {
                    out.woken.push(Wake {
                        cta: m.cta,
                        warp: m.warp,
                        origin: m.origin,
                        done: Done::Alloc(range.base()),
                    });
                }
            }
            None => {
                for m in req.members() {
                    self.ctas[m.cta].alloc_in_flight = Some((m.warp, m.origin));
                }
                self.waiters.push_back(req);
                out.effect = Effect::Blocked(BlockedOn::Columns { ncols: n });
            }
        }
        Ok(out)
    }

    fn dealloc(
        &mut self,
        issue: &Issue,
        taddr: &LaneValues,
        ncols: &LaneValues,
    ) -> Result<Outcome, StepError> {
        const WHAT: &str = "tcgen05.dealloc";
        self.check_issuer(issue)?;
        check_lanes(issue, WHAT)?;
        let t = TmemAddr::from_raw(uniform(issue, taddr, &rules::TADDR_NOT_UNIFORM, "taddr")?);
        let n = uniform(issue, ncols, &rules::NCOLS_NOT_UNIFORM, "nCols")?;
        check_ncols(issue, n, WHAT)?;
        let range = self.live_allocation_at(issue, t, n)?;
        let op = PairOp::Dealloc { taddr: t, ncols: n };
        let pair = match issue.group {
            CtaGroup::One => None,
            CtaGroup::Two => Some(self.pair_arrival(issue, op)?),
        };
        let mut out = Outcome::new(Effect::Freed(range));
        match pair {
            None => self.free(issue.cta, range),
            Some(Arrival::First { peer }) => {
                let waiting = self.config.pair_collective == PairCollective::Blocking;
                self.ctas[issue.cta].halves.push_back(Half {
                    warp: issue.warp,
                    origin: issue.origin,
                    op,
                    waiting,
                });
                if waiting {
                    out.effect = Effect::Blocked(BlockedOn::Peer { peer });
                    return Ok(out);
                }
                self.free(issue.cta, range);
            }
            Some(Arrival::Second { peer, half }) => {
                self.free(issue.cta, range);
                if half.waiting {
                    // The peer's allocation may already be gone if another of its warps
                    // freed it meanwhile; that warp's dealloc was checked on its own.
                    let peer_range = ColumnRange {
                        first: t.column(),
                        ncols: n,
                    };
                    self.free(peer, peer_range);
                    out.woken.push(Wake {
                        cta: peer,
                        warp: half.warp,
                        origin: half.origin,
                        done: Done::Dealloc(peer_range),
                    });
                }
            }
        }
        self.pump(&mut out);
        Ok(out)
    }

    fn relinquish(&mut self, issue: &Issue) -> Result<Outcome, StepError> {
        self.check_issuer(issue)?;
        check_lanes(issue, "tcgen05.relinquish_alloc_permit")?;
        let op = PairOp::Relinquish;
        let pair = match issue.group {
            CtaGroup::One => None,
            CtaGroup::Two => Some(self.pair_arrival(issue, op)?),
        };
        let mut out = Outcome::new(Effect::Relinquished);
        // The permit is gone once any thread executes the instruction, even while a
        // blocking pair relinquish still waits for the peer.
        let rec = &mut self.ctas[issue.cta];
        rec.relinquished.get_or_insert(issue.origin);
        match pair {
            None => {}
            Some(Arrival::First { peer }) => {
                let waiting = self.config.pair_collective == PairCollective::Blocking;
                rec.halves.push_back(Half {
                    warp: issue.warp,
                    origin: issue.origin,
                    op,
                    waiting,
                });
                if waiting {
                    out.effect = Effect::Blocked(BlockedOn::Peer { peer });
                }
            }
            Some(Arrival::Second { peer, half }) if half.waiting => {
                out.woken.push(Wake {
                    cta: peer,
                    warp: half.warp,
                    origin: half.origin,
                    done: Done::Relinquish,
                });
            }
            Some(Arrival::Second { .. }) => {}
        }
        Ok(out)
    }

    fn exit(&mut self, cta: CtaId, origin: Origin) -> Result<Outcome, StepError> {
        let rec = self.resident(cta)?;
        if let Some((w, _)) = rec.alloc_in_flight {
            return Err(misuse(format!(
                "CTA {} exits while warp {} is blocked in tcgen05.alloc",
                cta.0, w.0
            )));
        }
        if let Some(h) = rec.halves.iter().find(|h| h.waiting) {
            return Err(misuse(format!(
                "CTA {} exits while warp {} is blocked in a .cta_group::2 collective",
                cta.0, h.warp.0
            )));
        }
        let (sm, peer) = (rec.sm, rec.peer);
        let mut out = Outcome::new(Effect::Exited { reclaimed: 0 });
        // Leaks: report each, then return the columns so the run can go on and find more.
        // (Hardware may keep them; the leak is already an error either way.)
        let mut reclaimed = 0;
        let columns = &mut self.sms[sm.0 as usize];
        let leaked: Vec<Allocation> = columns
            .allocations()
            .filter(|a| a.cta == cta)
            .copied()
            .collect();
        for a in leaked {
            columns.release(a.range.first);
            reclaimed += a.range.ncols;
            out.findings.push(
                Violation::for_cta(
                    &rules::ALLOC_LEAK,
                    cta,
                    origin,
                    format!(
                        "CTA {} exited with {} ({} columns at {}) still allocated",
                        cta.0,
                        a.range,
                        a.range.ncols,
                        a.range.base()
                    ),
                )
                .related(a.origin, cta, "allocated here"),
            );
        }
        let rec = &self.ctas[cta];
        if rec.last_alloc.is_some() && rec.relinquished.is_none() {
            let at = rec.last_alloc.map(|(_, o)| o).unwrap_or(origin);
            out.findings.push(
                Violation::for_cta(
                    &rules::MISSING_RELINQUISH,
                    cta,
                    origin,
                    format!(
                        "CTA {} allocated TMEM and exited without tcgen05.relinquish_alloc_permit",
                        cta.0
                    ),
                )
                .related(at, cta, "last allocation"),
            );
        }
        if let Some(p) = peer.filter(|p| self.sm_of(*p).is_some()) {
            for h in &self.ctas[p].halves {
                let fate = if h.waiting {
                    "; that warp waits forever"
                } else {
                    ""
                };
                out.findings.push(
                    Violation::for_cta(
                        &rules::PAIR_PEER_EXITED,
                        cta,
                        origin,
                        format!(
                            "CTA {} exited without joining the .cta_group::2 {} that warp {} of its peer CTA {} performed{fate}",
                            cta.0,
                            h.op.name(),
                            h.warp.0,
                            p.0
                        ),
                    )
                    .related(h.origin, p, "peer's collective"),
                );
            }
        }
        self.ctas[cta].life = Life::Exited(origin);
        self.forget_finished(cta, peer);
        out.effect = Effect::Exited { reclaimed };
        self.pump(&mut out);
        Ok(out)
    }

    // ---- helpers ------------------------------------------------------------------------

    /// Drop the records of an exited CTA that nothing can ask about any more: a CTA without
    /// a (launched) peer at once; a pair once both have exited (their unmatched halves were
    /// reported at the second exit). Keeps the table as small as the resident CTAs.
    fn forget_finished(&mut self, cta: CtaId, peer: Option<CtaId>) {
        match peer.map(|p| (p, self.ctas.get(&p).map(|r| r.life))) {
            None | Some((_, None)) => {
                self.ctas.0.remove(&cta);
            }
            Some((p, Some(Life::Exited(_)))) => {
                self.ctas.0.remove(&cta);
                self.ctas.0.remove(&p);
            }
            Some((_, Some(Life::Resident))) => {}
        }
    }

    fn resident(&self, cta: CtaId) -> Result<&CtaRecord, StepError> {
        match self.ctas.get(&cta).map(|r| (r, r.life)) {
            Some((r, Life::Resident)) => Ok(r),
            Some((_, Life::Exited(_))) => Err(misuse(format!("CTA {} has exited", cta.0))),
            _ => Err(misuse(format!("CTA {} was not launched", cta.0))),
        }
    }

    /// The issuing CTA is resident and the warp is not blocked here already.
    fn check_issuer(&self, issue: &Issue) -> Result<(), StepError> {
        let rec = self.resident(issue.cta)?;
        let busy = rec.alloc_in_flight.is_some_and(|(w, _)| w == issue.warp)
            || rec.halves.iter().any(|h| h.waiting && h.warp == issue.warp);
        if busy {
            return Err(misuse(format!(
                "warp {} of CTA {} issued while blocked in the allocator",
                issue.warp.0, issue.cta.0
            )));
        }
        if issue.lanes.present & issue.lanes.population == 0 {
            return Err(misuse(format!(
                "warp {} of CTA {} issued with no thread present",
                issue.warp.0, issue.cta.0
            )));
        }
        Ok(())
    }

    /// The range of the live allocation of this CTA that `taddr`/`ncols` name (TM0010,
    /// TM0011). `taddr` must be exactly what alloc returned: lane 0, first column.
    fn live_allocation_at(
        &self,
        issue: &Issue,
        taddr: TmemAddr,
        n: u32,
    ) -> Result<ColumnRange, StepError> {
        let sm = self.ctas[issue.cta].sm;
        let columns = &self.sms[sm.0 as usize];
        let found = (taddr.lane() == 0)
            .then(|| columns.starting_at(taddr.column()))
            .flatten()
            .filter(|a| a.cta == issue.cta);
        let Some(a) = found else {
            let mut v = Violation::new(&rules::DEALLOC_NOT_LIVE, issue, String::new());
            let why = if taddr.lane() != 0 {
                format!("its lane field is {} (alloc returns lane 0)", taddr.lane())
            } else {
                match columns.owner_of(taddr.column()) {
                    Some(o) if o.cta != issue.cta => {
                        v = v.related(o.origin, o.cta, "allocated by another CTA here");
                        format!("{} belongs to CTA {}", o.range, o.cta.0)
                    }
                    Some(o) => {
                        v = v.related(o.origin, o.cta, "allocated here");
                        format!("it points inside {} (base {})", o.range, o.range.base())
                    }
                    None => "no live allocation of this CTA starts there (never allocated, or already freed)".to_string(),
                }
            };
            v.message = format!(
                "tcgen05.dealloc of taddr {taddr}, which is not a live allocation of CTA {}: {why}",
                issue.cta.0
            );
            return Err(v.into());
        };
        if a.range.ncols != n {
            return Err(Violation::new(
                &rules::DEALLOC_NCOLS_MISMATCH,
                issue,
                format!(
                    "tcgen05.dealloc of {n} columns at {taddr}, but the allocation there has {} columns",
                    a.range.ncols
                ),
            )
            .related(a.origin, a.cta, "allocated here")
            .into());
        }
        Ok(a.range)
    }

    /// Pick a free aligned range for `req` on all its SMs, or None.
    fn place(&mut self, req: &Request) -> Option<ColumnRange> {
        let free = req.members().iter().fold(u16::MAX, |m, mem| {
            m & self.sms[mem.sm.0 as usize].free_mask()
        });
        let units = req.ncols / ALLOC_UNIT;
        let starts = aligned_starts(free, units);
        if starts == 0 {
            return None;
        }
        let unit = match self.config.placement {
            Placement::Lowest => starts.trailing_zeros(),
            Placement::Random { .. } => {
                let k = (self.rng.next_u64() % u64::from(starts.count_ones())) as u32;
                nth_set_bit(starts, k)
            }
        };
        Some(ColumnRange {
            first: unit * ALLOC_UNIT,
            ncols: req.ncols,
        })
    }

    fn grant(&mut self, req: &Request, range: ColumnRange) {
        for m in req.members() {
            self.sms[m.sm.0 as usize].occupy(Allocation {
                cta: m.cta,
                warp: m.warp,
                range,
                origin: m.origin,
                group: req.group,
            });
            self.ctas[m.cta].alloc_in_flight = None;
        }
    }

    fn free(&mut self, cta: CtaId, range: ColumnRange) {
        let sm = self.ctas[cta].sm;
        let columns = &mut self.sms[sm.0 as usize];
        if columns
            .starting_at(range.first)
            .is_some_and(|a| a.cta == cta && a.range == range)
        {
            columns.release(range.first);
        }
    }

    /// Grant blocked requests that now fit, in arrival order; a request waits while an
    /// earlier one on any of its SMs is still blocked (FIFO, no overtaking).
    fn pump(&mut self, out: &mut Outcome) {
        let mut i = 0;
        while i < self.waiters.len() {
            let req = self.waiters[i];
            let earlier = self.waiters.iter().take(i).any(|w| w.shares_sm(&req));
            if !earlier {
                if let Some(range) = self.place(&req) {
                    self.grant(&req, range);
                    self.waiters.remove(i);
                    for m in req.members() {
                        out.woken.push(Wake {
                            cta: m.cta,
                            warp: m.warp,
                            origin: m.origin,
                            done: Done::Alloc(range.base()),
                        });
                    }
                    continue;
                }
            }
            i += 1;
        }
    }
}

/// Index of the `k`-th set bit (0-based) of `mask`, which has more than `k` set bits.
fn nth_set_bit(mut mask: u16, k: u32) -> u32 {
    for _ in 0..k {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}
