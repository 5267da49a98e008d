//! tcgen05.alloc / dealloc / relinquish_alloc_permit through the per-group
//! `TmemAllocator` (which owns every allocation rule, TM0001–TM0019), the weak store of the
//! allocated address, warps blocked in the allocator, CTA launch/exit, and hang explanations.

use tmemu_tmem::alloc::{
    BlockedOn, CtaGroup, CtaId, Done, Effect, Event, Issue, LaneValues, Origin, Outcome, PeerState,
    SmId, StepError, Violation, WarpId, WarpLanes,
};

use super::{population, rule_of, TcBlocked};
use crate::error::{Context, Diagnostic};
use crate::exec::memory::{lane_addr, shared_loc, Loc};
use crate::exec::{Ctx, Env, Flow, Outcome as ExecOutcome, WaitKind, Warp, MAX_DIAGNOSTICS};
use crate::mem::{classify, Window};
use crate::observer::{MemSpace, Observer, TmemEvent, TmemLifetime};
use crate::program::{Addr, Any, Space};

fn group_of(g: u8) -> CtaGroup {
    if g == 2 {
        CtaGroup::Two
    } else {
        CtaGroup::One
    }
}

fn issue<O: Observer>(w: &Warp, cx: &Ctx<'_, '_, O>, mask: u32, group: u8) -> Issue {
    let pop = population(w, cx);
    Issue {
        cta: cx.tc.cta_id(cx.cluster.index, cx.me as u32),
        warp: WarpId(w.id),
        lanes: WarpLanes {
            population: pop,
            exited: pop & !w.live,
            present: mask,
        },
        group: group_of(group),
        origin: Origin(w.cur_pc as u64),
    }
}

fn lane_values(w: &Warp, a: Any, mask: u32) -> LaneValues {
    match a {
        Any::Imm(v) => LaneValues::Uniform(v as u32),
        _ => {
            let mut v = [0u32; 32];
            for (l, x) in v.iter_mut().enumerate() {
                if mask >> l & 1 != 0 {
                    *x = w.read_any(a, l) as u32;
                }
            }
            LaneValues::PerLane(v)
        }
    }
}

/// The `.shared::cta` offset an alloc writes to, or why it is not in that window (TM0007).
fn alloc_dst<O: Observer>(
    w: &Warp,
    cx: &Ctx<'_, '_, O>,
    lane: usize,
    dst: Addr,
    space: Space,
) -> Result<u32, String> {
    let a = lane_addr(w, dst, lane);
    let n = cx.ctas.len();
    let loc = match space {
        Space::Shared => shared_loc(a as u32, cx.me, n, false),
        _ => match classify(a) {
            Window::Shared(x) => shared_loc(x, cx.me, n, true),
            _ => {
                return Err(format!(
                "tcgen05.alloc destination {a:#x} is a generic address outside the shared window"
            ))
            }
        },
    };
    match loc {
        Ok(Loc::Shared(c, off)) if c == cx.me => {
            if off as usize + 4 <= cx.ctas[c].shared.len() && off % 4 == 0 {
                Ok(off)
            } else {
                Err(format!(
                    "tcgen05.alloc destination {a:#x} is outside the CTA's {} bytes of shared memory (or not 4-byte aligned)",
                    cx.ctas[c].shared.len()
                ))
            }
        }
        Ok(_) => Err(format!(
            "tcgen05.alloc destination {a:#x} is in another CTA's shared memory, not .shared::cta"
        )),
        Err(_) => Err(format!(
            "tcgen05.alloc destination {a:#x} is not a .shared::cta address"
        )),
    }
}

/// Context of CTA `cta` (allocator numbering) if it is in the executing warp's cluster.
fn ctx_of<O: Observer>(cx: &Ctx<'_, '_, O>, cta: CtaId, warp: u32, lanes: u32, pc: u32) -> Context {
    let rank = (cta.0 % cx.tc.csize) as usize;
    let same = cta.0 / cx.tc.csize == cx.cluster.index;
    Context {
        cluster: cx.cluster.id,
        cta: if same && rank < cx.ctas.len() {
            cx.ctas[rank].ctaid
        } else {
            ctaid_of(cx.env, cta, cx.tc.csize)
        },
        warp,
        lanes,
        pc,
    }
}

/// `%ctaid` of allocator CTA `cta` (cluster index × cluster size + rank).
fn ctaid_of(env: &Env<'_>, cta: CtaId, csize: u32) -> [u32; 3] {
    let idx = cta.0 / csize;
    let rank = cta.0 % csize;
    let nc = env.nclusters;
    let cd = env.cluster_dim;
    let cid = [idx % nc[0], (idx / nc[0]) % nc[1], idx / (nc[0] * nc[1])];
    let r = [rank % cd[0], (rank / cd[0]) % cd[1], rank / (cd[0] * cd[1])];
    [
        cid[0] * cd[0] + r[0],
        cid[1] * cd[1] + r[1],
        cid[2] * cd[2] + r[2],
    ]
}

#[cold]
fn push(out: &mut ExecOutcome, d: Diagnostic) {
    if out.diagnostics.len() >= MAX_DIAGNOSTICS {
        out.diagnostics_dropped += 1;
    } else {
        out.diagnostics.push(d);
    }
}

/// Reports an allocator finding at its origin, with its related spans.
#[cold]
fn report<O: Observer>(cx: &mut Ctx<'_, '_, O>, w_id: u32, v: &Violation) {
    let pc = v.origin.0 as u32;
    let k = cx.env.k;
    let span = k.info[(pc as usize).min(k.info.len() - 1)].span;
    let warp = v.warp.map(|x| x.0).unwrap_or(w_id);
    let ctx = ctx_of(cx, v.cta, warp, v.lanes, pc);
    let related = v
        .related
        .iter()
        .map(|r| {
            (
                k.info[(r.origin.0 as usize).min(k.info.len() - 1)].span,
                r.label.clone(),
            )
        })
        .collect();
    push(
        cx.out,
        Diagnostic {
            rule: rule_of(v.rule),
            message: v.message.clone(),
            span,
            ctx,
            related,
        },
    );
}

#[cold]
fn misuse<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, m: &tmemu_tmem::alloc::Misuse) {
    let pc = w.cur_pc;
    cx.diag(
        w,
        pc,
        0,
        crate::error::rules::STEP_BUDGET,
        format!("{m} (the run cannot be trusted past this point)"),
    );
}

/// Steps the allocator; reports findings, registers woken warps, returns the effect.
/// `ncols`: the nCols operand of the first executing lane (alloc, dealloc).
fn step<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    ev: Event,
    ncols: Option<u32>,
) -> Option<Effect> {
    match cx.tc.allocator.step(ev) {
        Ok(o) => Some(settle(w.id, cx, o)),
        Err(StepError::Violation(v)) => {
            report(cx, w.id, &v);
            // 48 is neither a multiple of 32 nor a power of two: both rules, as ptxas says
            // for an immediate (the allocator names the first that applies)
            if let Some(n) = ncols.filter(|n| {
                v.rule.id == tmemu_tmem::rules::NCOLS_NOT_MULTIPLE_OF_32.id && !n.is_power_of_two()
            }) {
                let mut v2 = v.clone();
                v2.rule = &tmemu_tmem::rules::NCOLS_NOT_POWER_OF_TWO;
                v2.message = format!("nCols = {n} is not a power of two");
                v2.related.clear();
                report(cx, w.id, &v2);
            }
            None
        }
        Err(StepError::Misuse(m)) => {
            misuse(w, cx, &m);
            None
        }
    }
}

fn settle<O: Observer>(w_id: u32, cx: &mut Ctx<'_, '_, O>, o: Outcome) -> Effect {
    for v in &o.findings {
        report(cx, w_id, v);
    }
    for wk in o.woken {
        cx.tc.wakes.insert((wk.cta, wk.warp), wk.done);
    }
    o.effect
}

/// Writes the allocated address into shared memory (a weak store) and tells observers.
fn grant<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    lanes: u32,
    off: u32,
    addr: u32,
    ncols: u32,
    group: u8,
) {
    let me = cx.me;
    cx.ctas[me].shared[off as usize..off as usize + 4].copy_from_slice(&addr.to_le_bytes());
    let at = cx.at(w, lanes);
    cx.obs
        .alloc_address_store(at, MemSpace::Shared { cta: me as u32 }, off as u64);
    cx.obs.tmem_event(
        at,
        TmemEvent::Alloc {
            col: addr & 0xffff,
            ncols,
        },
    );
    cx.obs.tmem_lifetime(
        at,
        TmemLifetime::Alloc {
            cta_group: group,
            col: addr & 0xffff,
            ncols,
        },
    );
}

fn ncols_of(w: &Warp, a: Any, lanes: u32) -> u32 {
    w.read_any(a, lanes.trailing_zeros().min(31) as usize) as u32
}

pub(super) fn alloc<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    group: u8,
    dst: Addr,
    space: Space,
    ncols: Any,
) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    let pc = w.cur_pc;
    let lane = mask.trailing_zeros() as usize;
    let off = match alloc_dst(w, cx, lane, dst, space) {
        Ok(off) => off,
        Err(msg) => {
            cx.diag(
                w,
                pc,
                mask,
                rule_of(&tmemu_tmem::rules::ALLOC_DST_NOT_SHARED_CTA),
                msg,
            );
            return Flow::Next;
        }
    };
    let iss = issue(w, cx, mask, group);
    let n = ncols_of(w, ncols, mask);
    let ev = Event::Alloc {
        issue: iss,
        ncols: lane_values(w, ncols, mask),
    };
    match step(w, cx, ev, Some(n)) {
        Some(Effect::Granted(addr)) => {
            grant(w, cx, mask, off, addr.raw(), n, group);
            Flow::Next
        }
        Some(Effect::Blocked(on)) => {
            if let BlockedOn::Columns { ncols } = on {
                let at = cx.at(w, mask);
                cx.obs.tmem_event(at, TmemEvent::Blocked { ncols });
            }
            w.block(
                mask,
                pc,
                WaitKind::Tcgen05(TcBlocked::Allocator {
                    warp: w.id,
                    dst: Some(off),
                }),
            );
            Flow::Moved
        }
        _ => Flow::Next,
    }
}

pub(super) fn dealloc<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    group: u8,
    taddr: Any,
    ncols: Any,
) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    let pc = w.cur_pc;
    // TM0201 (a TMEM access or an alloc half of the pair not ordered before this dealloc) is
    // a happens-before rule: the race observer reports it under every policy, from the
    // `tmem_lifetime` events below.
    let iss = issue(w, cx, mask, group);
    let n = ncols_of(w, ncols, mask);
    let ev = Event::Dealloc {
        issue: iss,
        taddr: lane_values(w, taddr, mask),
        ncols: lane_values(w, ncols, mask),
    };
    match step(w, cx, ev, Some(n)) {
        Some(Effect::Freed(r)) => {
            // the freed columns' pending K-fused MMA products land now, not in a later
            // owner's time (and their panels' memory is released)
            if cx.tc.mma_panels.any() {
                cx.tc.flush_mma(cx.me, r.first..r.first + r.ncols);
            }
            let at = cx.at(w, mask);
            cx.obs.tmem_event(
                at,
                TmemEvent::Dealloc {
                    col: r.first,
                    ncols: r.ncols,
                },
            );
            cx.obs.tmem_lifetime(
                at,
                TmemLifetime::Dealloc {
                    cta_group: group,
                    col: r.first,
                    ncols: r.ncols,
                },
            );
            Flow::Next
        }
        Some(Effect::Blocked(_)) => {
            w.block(
                mask,
                pc,
                WaitKind::Tcgen05(TcBlocked::Allocator {
                    warp: w.id,
                    dst: None,
                }),
            );
            Flow::Moved
        }
        _ => Flow::Next,
    }
}

pub(super) fn relinquish<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    group: u8,
) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    let pc = w.cur_pc;
    let iss = issue(w, cx, mask, group);
    match step(w, cx, Event::Relinquish { issue: iss }, None) {
        Some(Effect::Relinquished) => {
            let at = cx.at(w, mask);
            cx.obs.tmem_event(at, TmemEvent::Relinquish);
            Flow::Next
        }
        Some(Effect::Blocked(_)) => {
            let at = cx.at(w, mask);
            cx.obs.tmem_event(at, TmemEvent::Relinquish);
            w.block(
                mask,
                pc,
                WaitKind::Tcgen05(TcBlocked::Allocator {
                    warp: w.id,
                    dst: None,
                }),
            );
            Flow::Moved
        }
        _ => Flow::Next,
    }
}

/// Whether the blocked warp's allocator request was released; finishes it (the alloc's
/// address store) if so.
pub(crate) fn poll<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    pc: u32,
    lanes: u32,
    b: TcBlocked,
) -> bool {
    let TcBlocked::Allocator { warp, dst } = b;
    let key = (cx.tc.cta_id(cx.cluster.index, cx.me as u32), WarpId(warp));
    let Some(done) = cx.tc.wakes.remove(&key) else {
        return false;
    };
    let mut at = cx.at(w, lanes);
    at.pc = pc;
    cx.obs.tmem_event(at, TmemEvent::Unblocked);
    match done {
        Done::Alloc(addr) => {
            if let Some(off) = dst {
                let me = cx.me;
                cx.ctas[me].shared[off as usize..off as usize + 4]
                    .copy_from_slice(&addr.raw().to_le_bytes());
                cx.obs
                    .alloc_address_store(at, MemSpace::Shared { cta: me as u32 }, off as u64);
                let (ncols, group) = cx
                    .tc
                    .allocator
                    .columns(SmId(me as u32))
                    .and_then(|c| c.starting_at(addr.column()))
                    .map_or((0, 1), |a| {
                        (a.range.ncols, if a.group == CtaGroup::Two { 2 } else { 1 })
                    });
                cx.obs.tmem_event(
                    at,
                    TmemEvent::Alloc {
                        col: addr.column(),
                        ncols,
                    },
                );
                cx.obs.tmem_lifetime(
                    at,
                    TmemLifetime::Alloc {
                        cta_group: group,
                        col: addr.column(),
                        ncols,
                    },
                );
            }
        }
        Done::Dealloc(r) => {
            cx.obs.tmem_event(
                at,
                TmemEvent::Dealloc {
                    col: r.first,
                    ncols: r.ncols,
                },
            );
            // Only the pair collective's first half blocks in a dealloc.
            cx.obs.tmem_lifetime(
                at,
                TmemLifetime::Dealloc {
                    cta_group: 2,
                    col: r.first,
                    ncols: r.ncols,
                },
            );
        }
        Done::Relinquish => {}
    }
    true
}

/// A cluster became resident: its CTAs enter the allocator (each with its pair peer).
pub(crate) fn cta_launch(
    tc: &mut crate::tmem_sm::TcState,
    cluster: u32,
    csize: u32,
) -> Vec<String> {
    let mut bugs = Vec::new();
    for rank in 0..csize {
        let peer = (rank ^ 1 < csize).then(|| tc.cta_id(cluster, rank ^ 1));
        let ev = Event::Launch {
            cta: tc.cta_id(cluster, rank),
            sm: SmId(rank),
            peer,
        };
        if let Err(e) = tc.allocator.step(ev) {
            bugs.push(format!("{e:?}"));
        }
    }
    bugs
}

/// The CTA's last thread exited (at `pc`): leaks (TM0012), missing relinquish (TM0019),
/// peers left waiting (TM0016).
pub(crate) fn cta_exit<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, pc: u32) {
    let cta = cx.tc.cta_id(cx.cluster.index, cx.me as u32);
    let ev = Event::CtaExit {
        cta,
        origin: Origin(pc as u64),
    };
    match cx.tc.allocator.step(ev) {
        Ok(o) => {
            settle(w.id, cx, o);
        }
        Err(StepError::Violation(v)) => report(cx, w.id, &v),
        Err(StepError::Misuse(m)) => misuse(w, cx, &m),
    }
}

/// What a warp blocked in the allocator waits for, naming the CTAs that hold the columns
/// and where they allocated, or the peer's state (hang reports).
pub(crate) fn describe<O: Observer>(b: &TcBlocked, cx: &Ctx<'_, '_, O>) -> String {
    let TcBlocked::Allocator { warp, .. } = *b;
    let me = cx.tc.cta_id(cx.cluster.index, cx.me as u32);
    let k = cx.env.k;
    let line = |o: Origin| k.info[(o.0 as usize).min(k.info.len() - 1)].span;
    let csize = cx.tc.csize;
    for e in cx.tc.allocator.explain_blocked() {
        if e.blocked.cta != me || e.blocked.warp != WarpId(warp) {
            continue;
        }
        return match e.blocked.on {
            BlockedOn::Columns { ncols } => {
                let holders: Vec<String> = e
                    .holders
                    .iter()
                    .map(|a| {
                        format!(
                            "CTA {:?} holds columns {}..{} (allocated at {})",
                            ctaid_of(cx.env, a.cta, csize),
                            a.range.first,
                            a.range.end(),
                            line(a.origin)
                        )
                    })
                    .collect();
                let ahead = if e.ahead.is_empty() {
                    String::new()
                } else {
                    format!("; {} earlier request(s) wait ahead of it", e.ahead.len())
                };
                format!(
                    "{ncols} free TMEM columns on SM {}: {}{ahead}",
                    e.sm.0,
                    if holders.is_empty() {
                        "no CTA holds any (the request can never be satisfied)".to_string()
                    } else {
                        holders.join("; ")
                    }
                )
            }
            BlockedOn::Peer { peer } => {
                let state = match e.peer {
                    Some(PeerState::Resident) => "resident, has not joined".to_string(),
                    Some(PeerState::Exited(o)) => format!("exited at {}", line(o)),
                    _ => "not launched".to_string(),
                };
                format!(
                    "the peer CTA {:?} to join this .cta_group::2 collective (peer {state})",
                    ctaid_of(cx.env, peer, csize)
                )
            }
        };
    }
    "the TMEM allocator".to_string()
}
