//! CTA barriers (bar/barrier), the cluster barrier, mbarriers (shared/spec/sync.md §7.4),
//! bar.warp.sync and setmaxnreg.
//!
//! Waiting lanes are parked with a [`WaitKind`] naming the generation (or mbarrier version)
//! they saw; [`poll`] releases them once it moved. A `try_wait` that would return false parks
//! its lanes on the mbarrier until the barrier changes (try_wait may suspend, PTX ISA
//! §9.7.13.15.16), and a `test_wait` spin that re-reads an unchanged barrier is parked the same
//! way — so a spin on a barrier that can never change is a hang, found at once.
//!
//! Barrier arrival counts threads. The count-less form expects every non-exited thread of the
//! CTA (DERIVED: PTX says "all threads in the CTA"; exited threads cannot arrive, and hardware
//! since Volta does not wait for them).

use super::{CtaState, Ctx, Flow, Warp, FULL};
use crate::error::rules;
use crate::observer::{BulkGroup, CpAsyncGroup, Observer, Sem, SyncKey};
use crate::program::{Any, BarKind, Inst, MbarInst, MbarOp, Space};

/// What parked lanes wait for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitKind {
    Bar {
        id: u8,
        gen: u64,
    },
    ClusterBar {
        gen: u64,
    },
    Mbar {
        owner: u16,
        off: u32,
        version: u64,
        parity_or_state: u64,
    },
    /// A `.sync` warp instruction waits for the other live lanes of its membermask to arrive
    /// at the same instruction (or exit).
    WarpSync {
        member: u32,
    },
    /// Blocked in a tcgen05 instruction (exec/tcgen05).
    Tcgen05(super::tcgen05::TcBlocked),
    /// `setmaxnreg.inc` waits for the CTA's register pool to hold the registers that raise
    /// the warp to `count` a thread (TM0513 when it never does).
    Regs {
        count: u32,
        /// Registers the warp asked the pool for (32 threads x the increase).
        need: u32,
    },
}

/// The mbarriers of a CTA by shared-memory offset. Keys are few, 8-byte aligned offsets
/// below 16 MiB, looked up on every mbarrier instruction, commit and complete_tx: a
/// multiplicative hash instead of the default SipHash (no untrusted keys to defend against).
pub type MbarMap =
    std::collections::HashMap<u32, Mbar, std::hash::BuildHasherDefault<OffsetHasher>>;

/// Fibonacci hashing of a `u32` key, folded so both the low bits (hashbrown's bucket index)
/// and the top 7 (its tag) depend on every key bit.
#[derive(Default, Clone, Copy)]
pub struct OffsetHasher(u64);

impl std::hash::Hasher for OffsetHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 29)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8 | u64::from(b)).rotate_left(5) ^ self.0;
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = self.0 << 32 ^ u64::from(v);
    }
}

/// mbarrier state (sync.md §7.4).
#[derive(Clone, Copy, Debug, Default)]
pub struct Mbar {
    pub valid: bool,
    pub phase: u32,
    pub pending: i64,
    pub expected: i64,
    pub tx: i64,
    /// Bumped on every change, so parked waiters know when to look again.
    pub version: u64,
    /// The phase during which a test_wait/try_wait last returned true, i.e. observed the
    /// phase before it complete: an arrive-on in phase p > 0 needs `seen == p` (§9.7.13.15.4).
    pub seen: u32,
}

const TX_LIMIT: i64 = (1 << 20) - 1;
/// Marks our opaque state encoding (DERIVED; the ISA leaves it to the implementation):
/// `STATE_TAG | pending << 32 | phase`, the phase and the pending arrival count before the
/// arrive-on operation that returned it (bits 32..51: a pending count is below 2^20).
const STATE_TAG: u64 = 0x7e30_0000_0000_0000;
const STATE_PENDING_MASK: u64 = (1 << 20) - 1;

/// `mbarrier.pending_count`: the ISA (§9.7.13.15.17) returns "the pending count of the mbarrier
/// object prior to the arrive-on operation from which the state register was obtained", for
/// a state from an `.noComplete` arrive (any other state is undefined behaviour, which we do
/// not diagnose: the field is there for every arrive).
pub fn state_pending(state: u64) -> u32 {
    ((state >> 32) & STATE_PENDING_MASK) as u32
}

impl Mbar {
    /// TM0232's message when an arrive-on now would land in a phase whose predecessor no
    /// wait has observed complete (arrivals beyond the count complete phases nobody waits for).
    pub(crate) fn phase_skip(&self, what: &str) -> Option<(crate::error::Rule, String)> {
        (self.phase > self.seen).then(|| {
            (
                crate::error::rules::MBAR_PHASE_SKIP,
                format!(
                    "{what} lands in phase {} of the mbarrier before any test_wait/try_wait returned true for phase {}",
                    self.phase,
                    self.phase - 1
                ),
            )
        })
    }

    pub(crate) fn try_complete(&mut self) -> bool {
        if self.pending == 0 && self.tx == 0 {
            self.phase = self.phase.wrapping_add(1);
            self.pending = self.expected;
            true
        } else {
            false
        }
    }
}

/// TM0224's message for a plain `expect_tx` / `complete_tx` of `n` bytes.
fn tx_range_message(tx: i64, op: &str, n: u64) -> String {
    format!(
        "mbarrier tx-count {tx} outside [-(2^20-1), 2^20-1] after {op} of {} bytes",
        n as u32
    )
}

/// Applies complete_tx(n) from an async copy to the mbarrier at `off` of CTA `c`.
pub(crate) fn complete_tx<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    c: usize,
    off: u32,
    n: i64,
) {
    let pc = w.cur_pc;
    let Some(m) = cx.ctas[c].mbars.get_mut(&off).filter(|m| m.valid) else {
        cx.diag(w, pc, 0, rules::MBAR_UNINIT, format!("complete_tx on shared offset {off:#x} of CTA rank {c}, which holds no initialised mbarrier"));
        return;
    };
    m.tx -= n;
    m.version += 1;
    let out_of_range = m.tx < -TX_LIMIT;
    let done = m.try_complete();
    let phase = m.phase;
    if out_of_range {
        cx.diag(
            w,
            pc,
            0,
            rules::MBAR_TX_RANGE,
            format!("mbarrier tx-count left [-(2^20-1), 2^20-1] after complete_tx of {n} bytes"),
        );
    }
    let _ = phase;
    if done {
        let at = cx.at(w, 0);
        cx.obs.sync_complete(
            at,
            SyncKey::Mbarrier {
                cta: c as u32,
                offset: off,
            },
        );
    }
}

fn bar_expected(cta: &CtaState, id: usize) -> u32 {
    let b = &cta.bars[id];
    if b.all {
        cta.live_threads
    } else {
        b.expected
    }
}

/// Completes CTA barriers whose expected count is now met (after arrivals or exits).
pub(crate) fn check_bars(cta: &mut CtaState) {
    for id in 0..16 {
        let b = &cta.bars[id];
        if b.arrived > 0 && b.arrived >= bar_expected(cta, id) {
            let b = &mut cta.bars[id];
            b.gen += 1;
            b.last_popc = b.red_popc;
            b.last_and = b.red_and;
            b.last_or = b.red_or;
            *b = super::CtaBar {
                gen: b.gen,
                last_popc: b.last_popc,
                last_and: b.last_and,
                last_or: b.last_or,
                ..Default::default()
            };
        }
    }
}

/// Completes the cluster barrier if every live thread of the cluster arrived.
pub(crate) fn check_cluster_bar(cl: &mut super::ClusterShared) {
    if cl.bar_arrived > 0 && cl.bar_arrived >= cl.live_threads {
        cl.bar_arrived = 0;
        cl.bar_gen += 1;
    }
}

/// The mbarrier a lane names, or the rule its address breaks and why: TM0226 for an address
/// that is not an 8-byte aligned location of shared memory, TM0503 for one outside the
/// instruction's state space (a peer's `mapa` address in a `.shared::cta` arrive), TM0501 for
/// a rank the cluster does not have.
pub(super) fn mbar_key<O: Observer>(
    w: &Warp,
    cx: &Ctx<'_, '_, O>,
    i: &MbarInst,
    lane: usize,
) -> Result<(usize, u32), (crate::error::Rule, String)> {
    let a = super::memory::lane_addr(w, i.addr, lane);
    let space = if i.space == Space::SharedCluster {
        Space::SharedCluster
    } else {
        i.space
    };
    match super::memory::resolve(cx, space, a) {
        Ok(super::memory::Loc::Shared(c, off)) => {
            if off % 8 != 0 {
                return Err((
                    rules::MBAR_ALIGN,
                    format!("mbarrier address {a:#x} is not 8-byte aligned"),
                ));
            }
            if off as usize + 8 > cx.ctas[c].shared.len() {
                return Err((
                    rules::MBAR_ALIGN,
                    format!("mbarrier address {a:#x} is outside shared memory"),
                ));
            }
            Ok((c, off))
        }
        Ok(_) => Err((
            rules::MBAR_ALIGN,
            format!("mbarrier address {a:#x} is not in shared memory"),
        )),
        Err(e) => Err(mbar_address_fault(a, e, cx.env.global)),
    }
}

/// The rule and message of an mbarrier address that does not resolve. Out of line: the
/// mbarrier paths are inlined into the warp loop, and the error texts would only grow it.
#[cold]
#[inline(never)]
fn mbar_address_fault(
    a: u64,
    e: crate::mem::MemFault,
    global: &crate::mem::GlobalMemory,
) -> (crate::error::Rule, String) {
    use crate::mem::MemFault;
    // the rule as for any access (`memory::fault_rule`); the message names the mbarrier
    let rule = super::memory::fault_rule(&e);
    let msg = match e {
        MemFault::OtherWindow { space, why, .. } => format!(
            "mbarrier address {a:#x} is outside the {space} window: {why}; a peer's mbarrier takes the .shared::cluster form"
        ),
        MemFault::OutOfBounds {
            nearest,
            space,
            addr,
            ..
        } => format!(
            "mbarrier address {a:#x}: {}",
            nearest
                .describe(space, addr, global)
                .unwrap_or_else(|| "outside shared memory".into())
        ),
        MemFault::PeerExited { rank, .. } => format!(
            "mbarrier address {a:#x} is in CTA rank {rank} of the cluster, which has exited"
        ),
        e => format!("mbarrier address {a:#x}: {e:?}"),
    };
    (rule, msg)
}

/// The memory semantics an arrive on the mbarrier of CTA `c` has for the race check. A release
/// synchronises with an acquire only when each one's scope includes the other thread (PTX ISA
/// §8, morally strong); waits are always by threads of the barrier's CTA, so an arrive with
/// an explicit `.release.cta` by a thread of another CTA (a `.shared::cluster` arrive on a
/// peer's barrier, NVIDIA/cutlass PR #3647) releases nothing to them: it is a relaxed
/// arrival. The default scope is trusted as `.cluster` (MbarInst::cta_scope).
fn arrive_sem(i: &MbarInst, c: usize, me: usize) -> Sem {
    if i.sem == Sem::Ordering && i.cta_scope && c != me {
        Sem::Relaxed
    } else {
        i.sem
    }
}

fn mbar<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, mask: u32, i: &MbarInst) -> Flow {
    if let Some(flow) = super::mbar_wait::uniform(w, cx, mask, i) {
        return flow;
    }
    let pc = w.cur_pc;
    let mut park: Vec<(u32, usize, u32, u64)> = Vec::new();
    // the memo as this instruction found it: a lane must not see the memo its neighbour set
    // in the same warp-instruction
    let (memo_before, lanes_before) = (w.spin_memo, w.spin_lanes);
    let (mut memo_after, mut memo_lanes) = (None, 0u32);
    let mut consumed_timeout = false;
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let (c, off) = match mbar_key(w, cx, i, l) {
            Ok(k) => k,
            Err((rule, msg)) => {
                cx.diag(w, pc, 1 << l, rule, msg);
                continue;
            }
        };
        let b = i.b.map(|b| w.read_any(b, l)).unwrap_or(1);
        // sync.md §7.4: an arrive count outside [1, 2^20-1] is undefined (TM0222); the
        // arrive is reported and takes no effect, as a rejected operation does
        let counted = matches!(
            i.op,
            MbarOp::Arrive {
                expect_tx: false,
                ..
            }
        ) && i.b.is_some();
        if counted && !(1..=TX_LIMIT).contains(&(b as u32 as i64)) {
            let msg = format!("mbarrier arrive count {} outside [1, 2^20-1]", b as u32);
            cx.diag(w, pc, 1 << l, rules::MBAR_COUNT_RANGE, msg);
            continue;
        }
        let remote = c != cx.me;
        if remote
            && !matches!(
                i.op,
                MbarOp::Arrive { .. } | MbarOp::ExpectTx | MbarOp::CompleteTx
            )
        {
            cx.diag(
                w,
                pc,
                1 << l,
                rules::MBAR_REMOTE_WAIT,
                format!("{:?} on an mbarrier of another CTA (rank {c})", i.op),
            );
            continue;
        }
        if let MbarOp::Init = i.op {
            let count = b as i64;
            let m = cx.ctas[c].mbars.entry(off).or_default();
            if m.valid {
                let msg = format!(
                    "mbarrier at shared offset {off:#x} initialised again without mbarrier.inval"
                );
                cx.diag(w, pc, 1 << l, rules::MBAR_REINIT, msg);
            }
            // TM0233's span: every valid barrier lies in it (an inval shrinks it again)
            let span = &mut cx.ctas[c].mbar_span;
            *span = (span.0.min(off), span.1.max(off + 8));
            let m = cx.ctas[c].mbars.entry(off).or_default();
            let version = m.version + 1;
            *m = super::Mbar {
                valid: true,
                phase: 0,
                pending: count,
                expected: count,
                tx: 0,
                version,
                seen: 0,
            };
            if !(1..=TX_LIMIT).contains(&count) {
                cx.diag(
                    w,
                    pc,
                    1 << l,
                    rules::MBAR_COUNT_RANGE,
                    format!("mbarrier.init count {count} outside [1, 2^20-1]"),
                );
            }
            let at = cx.at(w, 1 << l);
            let key = SyncKey::Mbarrier {
                cta: c as u32,
                offset: off,
            };
            cx.obs.mbar_init(at, key);
            continue;
        }
        let Some(m) = cx.ctas[c].mbars.get_mut(&off).filter(|m| m.valid) else {
            let msg = format!(
                "mbarrier operation on shared offset {off:#x}, which holds no initialised mbarrier"
            );
            cx.diag(w, pc, 1 << l, rules::MBAR_UNINIT, msg);
            if let MbarOp::TestWait { .. } | MbarOp::TryWait { .. } = i.op {
                // No phase of an invalid barrier completes: the wait is false, and the lane
                // parks until the location is initialised again. Returning false each time
                // made the usual retry loop spin until the step budget (NVIDIA/Fuser PR
                // #1663's early inval took `tmemu check` minutes); parked, it is a hang
                // (TM0225). As on a valid barrier, a test_wait parks only when it spins, and
                // a try_wait time-out still lets a bounded retry loop go on.
                if let Some(p) = i.dp {
                    w.preds[p as usize] &= !(1 << l);
                }
                let version = cx.ctas[c].mbars.get(&off).map_or(u64::MAX, |m| m.version);
                let is_try = matches!(i.op, MbarOp::TryWait { .. });
                // spinning: these lanes met this invalid barrier here last time (a divergent
                // group of the warp at the same instruction is not spinning)
                let spun =
                    memo_before == Some((pc, c as u32, off, version)) && lanes_before >> l & 1 != 0;
                if is_try && memo_before == Some((pc, c as u32, off, version | TRY_TIMEOUT)) {
                    consumed_timeout = true;
                } else if is_try || spun {
                    park.push((1 << l, c, off, version));
                } else {
                    memo_after = Some((pc, c as u32, off, version));
                    memo_lanes |= 1 << l;
                }
            }
            continue;
        };
        let mut diag: Option<(crate::error::Rule, String)> = None;
        let mut completed = false;
        match i.op {
            MbarOp::Init => unreachable!(),
            MbarOp::Inval => {
                m.valid = false;
                m.version += 1;
            }
            MbarOp::ExpectTx => {
                m.tx += b as u32 as i64;
                m.version += 1;
                if m.tx.abs() > TX_LIMIT {
                    let msg = tx_range_message(m.tx, "expect_tx", b);
                    diag = Some((rules::MBAR_TX_RANGE, msg));
                }
            }
            MbarOp::CompleteTx => {
                m.tx -= b as u32 as i64;
                m.version += 1;
                if m.tx.abs() > TX_LIMIT {
                    let msg = tx_range_message(m.tx, "complete_tx", b);
                    diag = Some((rules::MBAR_TX_RANGE, msg));
                }
                completed = m.try_complete();
            }
            MbarOp::Arrive {
                drop,
                expect_tx,
                no_complete,
            } => {
                let pending = (m.pending.clamp(0, STATE_PENDING_MASK as i64) as u64) << 32;
                let state = STATE_TAG | pending | m.phase as u64;
                diag = m.phase_skip("mbarrier.arrive");
                let count = if expect_tx { 1 } else { b as u32 as i64 };
                if expect_tx {
                    m.tx += b as u32 as i64;
                }
                if drop {
                    m.expected -= count;
                }
                m.pending -= count;
                m.version += 1;
                if m.pending < 0 {
                    diag = Some((rules::MBAR_OVERARRIVE, format!("mbarrier arrive made the pending count {} (more arrivals than expected in phase {})", m.pending, m.phase)));
                    m.pending = 0;
                }
                if m.tx.abs() > TX_LIMIT {
                    diag = Some((
                        rules::MBAR_TX_RANGE,
                        format!("mbarrier tx-count {} outside [-(2^20-1), 2^20-1]", m.tx),
                    ));
                }
                completed = m.try_complete();
                if completed && no_complete {
                    diag = Some((
                        rules::MBAR_NOCOMPLETE,
                        "mbarrier.arrive.noComplete completed the phase".into(),
                    ));
                }
                if let Some(d) = i.d {
                    w.write_any(d, l, state);
                }
            }
            MbarOp::TestWait { parity } | MbarOp::TryWait { parity } => {
                let done = if parity {
                    (m.phase & 1) as u64 != (b & 1)
                } else {
                    m.phase as u64 != (b & 0xffff_ffff)
                };
                let version = m.version;
                if done {
                    m.seen = m.seen.max(m.phase);
                }
                if let Some(p) = i.dp {
                    w.preds[p as usize] = (w.preds[p as usize] & !(1 << l)) | ((done as u32) << l);
                }
                if !done {
                    let is_try = matches!(i.op, MbarOp::TryWait { .. });
                    let spun = memo_before == Some((pc, c as u32, off, version));
                    let timed_out =
                        is_try && memo_before == Some((pc, c as u32, off, version | TRY_TIMEOUT));
                    if timed_out {
                        // the time limit of try_wait ran out: false, and the lane goes on
                        consumed_timeout = true;
                    } else if is_try || spun {
                        park.push((1 << l, c, off, version));
                    } else {
                        memo_after = Some((pc, c as u32, off, version));
                    }
                }
            }
        }
        let waited = matches!(i.op, MbarOp::TestWait { .. } | MbarOp::TryWait { .. })
            && i.dp.is_some_and(|p| w.preds[p as usize] >> l & 1 != 0);
        if let MbarOp::Inval = i.op {
            // TM0233's span shrinks to the barriers still valid: a buffer that reuses the
            // memory of invalidated ones (Triton's allocator does) pays one compare again
            let cta = &mut cx.ctas[c];
            cta.mbar_span = cta
                .mbars
                .iter()
                .filter(|(_, m)| m.valid)
                .fold((u32::MAX, 0), |(lo, hi), (&o, _)| {
                    (lo.min(o), hi.max(o + 8))
                });
        }
        if let Some((rule, msg)) = diag {
            cx.diag(w, pc, 1 << l, rule, msg);
        }
        let key = SyncKey::Mbarrier {
            cta: c as u32,
            offset: off,
        };
        if matches!(i.op, MbarOp::Arrive { .. }) {
            let at = cx.at(w, 1 << l);
            cx.obs.sync_arrive(at, key, arrive_sem(i, c, cx.me));
        }
        if matches!(i.op, MbarOp::ExpectTx | MbarOp::CompleteTx | MbarOp::Inval) {
            let at = cx.at(w, 1 << l);
            cx.obs.mbar_use(at, key);
        }
        if completed {
            let at = cx.at(w, 1 << l);
            cx.obs.sync_complete(at, key);
        }
        if waited {
            let at = cx.at(w, 1 << l);
            cx.obs.sync_wait(at, key, i.sem);
        }
    }
    if memo_after.is_some() {
        w.spin_memo = memo_after;
        w.spin_lanes = memo_lanes;
    } else if consumed_timeout {
        w.spin_memo = None;
    }
    if park.is_empty() {
        return Flow::Next;
    }
    // park lanes per barrier; the rest of the group moves on
    let mut parked = 0u32;
    let mut groups: Vec<(u32, usize, u32, u64)> = Vec::new();
    for (lm, c, off, v) in park {
        parked |= lm;
        match groups.iter_mut().find(|g| g.1 == c && g.2 == off) {
            Some(g) => g.0 |= lm,
            None => groups.push((lm, c, off, v)),
        }
    }
    let stay = w.cur_mask & !parked;
    for (lm, c, off, v) in groups {
        let parity =
            i.b.map(|b| w.read_any(b, lm.trailing_zeros() as usize))
                .unwrap_or(0);
        w.waits.push(super::Wait {
            mask: lm,
            pc,
            kind: WaitKind::Mbar {
                owner: c as u16,
                off,
                version: v,
                parity_or_state: parity,
            },
        });
    }
    park_lanes(w, pc, stay, parked)
}

/// TM0233's one compare: whether `[off, off + size)` meets the span of shared offsets of CTA
/// `c` that hold valid mbarriers (`CtaState::mbar_span`). Only a write that does pays for
/// the lookup in [`mbar_overwritten`]; a CTA with no valid mbarrier has an empty span.
#[inline(always)]
pub(crate) fn mbar_span_meets<O: Observer>(
    cx: &Ctx<'_, '_, O>,
    c: usize,
    off: u32,
    size: u32,
) -> bool {
    let (lo, hi) = cx.ctas[c].mbar_span;
    off < hi && off.saturating_add(size) > lo
}

/// TM0233: the lanes of `lanes` each wrote `size` bytes at shared offset `offs[l]` of CTA `c`
/// (`what`: the kind of write, for the message). Reported once for the lanes whose bytes
/// overlap an mbarrier that is still valid, i.e. initialised and not invalidated since (the
/// ISA wants mbarrier.inval before the memory is used for any other purpose, §9.7.13.15.10);
/// silent for an invalidated one. Callers test [`mbar_span_meets`] first.
#[cold]
#[inline(never)]
pub(crate) fn mbar_overwritten<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    what: &str,
    lanes: u32,
    c: usize,
    offs: &[u32; 32],
    size: u32,
) {
    let (mut hit, mut first) = (0u32, None);
    for l in (0..32).filter(|l| lanes >> l & 1 != 0) {
        if let Some(o) = valid_mbar_in(cx, c, offs[l], size) {
            hit |= 1 << l;
            first.get_or_insert((offs[l], o));
        }
    }
    if let Some((off, o)) = first {
        report_overwrite(w, cx, what, hit, c, off, size, o);
    }
}

/// The offset of the first mbarrier of CTA `c` that is still valid and overlaps `[off, off +
/// size)`. Barriers are 8-byte aligned, and only offsets inside the span can hold one.
pub(crate) fn valid_mbar_in<O: Observer>(
    cx: &Ctx<'_, '_, O>,
    c: usize,
    off: u32,
    size: u32,
) -> Option<u32> {
    let (lo, hi) = cx.ctas[c].mbar_span;
    let end = off.saturating_add(size).min(hi);
    let mut o = off.max(lo) & !7;
    while o < end {
        if cx.ctas[c].mbars.get(&o).is_some_and(|m| m.valid) {
            return Some(o);
        }
        o += 8;
    }
    None
}

/// Reports TM0233 for `lanes`, whose `size`-byte write at `off` (CTA `c`) met the valid
/// mbarrier at `o`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn report_overwrite<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    what: &str,
    lanes: u32,
    c: usize,
    off: u32,
    size: u32,
    o: u32,
) {
    let whose = if c == cx.me {
        String::new()
    } else {
        format!(" of CTA rank {c}")
    };
    let msg = format!(
        "{size}-byte {what} to shared offset {off:#x}{whose} overwrites the mbarrier at offset {o:#x}, which is still valid (no mbarrier.inval before its memory is reused)"
    );
    cx.diag(w, w.cur_pc, lanes, rules::MBAR_MEMORY_REUSED, msg);
}

/// [`mbar_overwritten`] for one lane's write (the per-lane paths).
#[cold]
#[inline(never)]
pub(crate) fn mbar_overwritten_lane<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    what: &str,
    lane: usize,
    c: usize,
    off: u32,
    size: u32,
) {
    let mut offs = [0u32; 32];
    offs[lane] = off;
    mbar_overwritten(w, cx, what, 1 << lane, c, &offs, size);
}

/// TM0507 for an aligned blocking barrier (`bar.sync`, `barrier.sync.aligned`) that joins an
/// instance of named barrier `id` whose first aligned participant executed another instruction,
/// at `first` (mlc-ai/TIRx-kernels PR #21): `.aligned` promises that all threads taking part
/// execute the same barrier instruction (PTX ISA §9.7.13.1); role branches that meet at one
/// barrier from two sites must use the unaligned `barrier.sync`.
#[cold]
#[inline(never)]
fn split_aligned_barrier<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    pc: u32,
    mask: u32,
    id: u32,
    first: u32,
) {
    let seen = cx.env.k.info[first as usize].span;
    cx.diag_related(
        w,
        pc,
        mask,
        rules::DIVERGENT_ALIGNED,
        format!(
            "aligned barrier {id} is completed from two instructions: this one and line {} \
             joined the same instance; `bar.sync`/`barrier.sync.aligned` requires every \
             participating thread to execute the same barrier instruction (use the \
             unaligned `barrier.sync` when roles meet from different branches)",
            seen.line
        ),
        Some((
            seen,
            "the instance's first participant executed this barrier".to_string(),
        )),
    );
}

/// TM0512: the warp of `w` executes a barrier instruction on named barrier `id` after its own
/// `bar.arrive` at `first` (a pc) joined the same, still incomplete, instance.
#[cold]
#[inline(never)]
fn barrier_rearrive<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    pc: u32,
    mask: u32,
    id: u32,
    first: u32,
) {
    let seen = cx.env.k.info[first as usize].span;
    cx.diag_related(
        w,
        pc,
        mask,
        rules::BAR_REARRIVE,
        format!(
            "warp {} executes a barrier instruction on barrier {id} after its bar.arrive (line {}) \
             joined the same instance, which has not completed: its threads count twice toward \
             one instance (a producer that signals with bar.arrive ran ahead of the consumer's \
             bar.sync; use one barrier id per outstanding round)",
            w.id, seen.line
        ),
        Some((
            seen,
            "this warp's earlier bar.arrive joined the same barrier instance".to_string(),
        )),
    );
}

/// Leaves the lanes of `parked` (whose waits are pushed) at `pc` and moves the other lanes of
/// the group, `stay`, past it.
pub(super) fn park_lanes(w: &mut Warp, pc: u32, stay: u32, parked: u32) -> Flow {
    w.spin_memo = None;
    for l in 0..32 {
        if stay >> l & 1 != 0 {
            w.pc[l] = pc + 1;
        }
        if parked >> l & 1 != 0 {
            w.pc[l] = pc;
        }
    }
    w.blocked |= parked;
    w.regroup_from_pcs();
    Flow::Moved
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    inst: &Inst,
) -> Flow {
    let pc = w.cur_pc;
    match inst {
        Inst::Bar(b) => {
            if mask == 0 {
                return Flow::Next;
            }
            let id = w.get(b.id)[mask.trailing_zeros() as usize];
            if id >= 16 {
                cx.diag(
                    w,
                    pc,
                    mask,
                    rules::BAD_BARRIER,
                    format!("barrier id {id} is not in 0..15"),
                );
                return Flow::Next;
            }
            let count = b.count.map(|c| w.get(c)[mask.trailing_zeros() as usize]);
            if b.aligned && mask != w.live {
                cx.diag(
                    w,
                    pc,
                    mask,
                    rules::DIVERGENT_ALIGNED,
                    format!(
                        "barrier executed by lanes {mask:#010x} of a warp whose live lanes are {:#010x}; `bar`/`barrier.sync.aligned` must be executed by the whole warp",
                        w.live
                    ),
                );
            }
            let pred = b.pred.map(|p| w.pred(p) & mask).unwrap_or(0);
            let me = cx.me;
            let cta = &mut cx.ctas[me];
            let bar = &mut cta.bars[id as usize];
            if bar.arrived == 0 {
                bar.all = count.is_none();
                bar.expected = count.unwrap_or(0);
                bar.red_and = true;
                bar.red_or = false;
                bar.red_popc = 0;
            }
            let other_site = if b.aligned && b.kind != BarKind::Arrive {
                match bar.aligned_site {
                    0 => {
                        bar.aligned_site = pc + 1;
                        None
                    }
                    s if s != pc + 1 => Some(s - 1),
                    _ => None,
                }
            } else {
                None
            };
            // TM0512: this warp already arrived (non-blocking) in the current instance
            let wi = (w.id as usize).min(31);
            let rearrive = (bar.arrive_lanes[wi] & mask != 0).then(|| bar.arrive_site[wi] - 1);
            if b.kind == BarKind::Arrive {
                bar.arrive_lanes[wi] |= mask;
                bar.arrive_site[wi] = pc + 1;
            }
            bar.arrived += mask.count_ones();
            bar.red_popc += pred.count_ones();
            bar.red_and &= pred == mask;
            bar.red_or |= pred != 0;
            let gen = bar.gen;
            check_bars(cta);
            let done = cta.bars[id as usize].gen != gen;
            if let Some(first) = other_site {
                split_aligned_barrier(w, cx, pc, mask, id, first);
            }
            if let Some(first) = rearrive {
                barrier_rearrive(w, cx, pc, mask, id, first);
            }
            let at = cx.at(w, mask);
            let key = SyncKey::CtaBarrier { cta: me as u32, id };
            cx.obs.sync_arrive(at, key, Sem::Ordering);
            if done {
                cx.obs.sync_complete(at, key);
            }
            if b.kind == BarKind::Arrive {
                return Flow::Next;
            }
            if done {
                cx.obs.sync_wait(at, key, Sem::Ordering);
                write_bar_red(w, cx, pc, mask);
                return Flow::Next;
            }
            // the guard-false lanes of the group continue
            w.block(mask, pc, WaitKind::Bar { id: id as u8, gen });
            Flow::Moved
        }
        Inst::BarWarpSync { mask: m } => {
            if mask == 0 {
                return Flow::Next;
            }
            let member = w.get(*m)[mask.trailing_zeros() as usize];
            if member & w.live & !w.cur_mask != 0 {
                let group = w.cur_mask;
                w.block(group, pc, WaitKind::WarpSync { member });
                return Flow::Moved;
            }
            Flow::Next
        }
        Inst::ClusterArrive { relaxed } => {
            if mask == 0 {
                return Flow::Next;
            }
            if w.cluster_gen != cx.cluster.bar_gen {
                w.cluster_gen = cx.cluster.bar_gen;
                w.cluster_arrived = 0;
            }
            if w.cluster_arrived & mask != 0 {
                cx.diag(
                    w,
                    pc,
                    w.cluster_arrived & mask,
                    rules::CLUSTER_REARRIVE,
                    "barrier.cluster.arrive again before the barrier completed".into(),
                );
            }
            let fresh = mask & !w.cluster_arrived;
            w.cluster_arrived |= mask;
            cx.cluster.bar_arrived += fresh.count_ones();
            let gen = cx.cluster.bar_gen;
            check_cluster_bar(cx.cluster);
            let at = cx.at(w, mask);
            let sem = if *relaxed {
                Sem::Relaxed
            } else {
                Sem::Ordering
            };
            cx.obs.sync_arrive(at, SyncKey::ClusterBarrier, sem);
            if cx.cluster.bar_gen != gen {
                cx.obs.sync_complete(at, SyncKey::ClusterBarrier);
            }
            Flow::Next
        }
        Inst::ClusterWait => {
            if mask == 0 {
                return Flow::Next;
            }
            if w.cluster_gen == cx.cluster.bar_gen && w.cluster_arrived & mask != 0 {
                let gen = w.cluster_gen;
                w.block(mask, pc, WaitKind::ClusterBar { gen });
                return Flow::Moved;
            }
            let at = cx.at(w, mask);
            cx.obs.sync_wait(at, SyncKey::ClusterBarrier, Sem::Ordering);
            Flow::Next
        }
        Inst::Mbar(i) => mbar(w, cx, mask, i),
        Inst::Setmaxnreg { inc, count } => setmaxnreg(w, cx, mask, *inc, *count),
        _ => unreachable!("sync::exec() called with {inst:?}"),
    }
}

/// The registers a warp of 32 threads needs from (positive) or gives to the CTA's pool to
/// move from `cur` to `count` registers a thread.
fn reg_delta(cur: u16, count: u32) -> i64 {
    (count as i64 - cur as i64) * 32
}

/// Takes the registers for the warp's `setmaxnreg.inc` to `count` from the CTA's pool when it
/// holds them (and sets the warp's count); `false` leaves both as they are.
fn take_regs(cta: &mut CtaState, warp: u32, count: u32) -> bool {
    let cur = cta.warp_nreg[warp as usize];
    let need = reg_delta(cur, count).max(0) as u32;
    if cta.reg_pool < need {
        return false;
    }
    cta.reg_pool -= need;
    cta.warp_nreg[warp as usize] = cur.max(count as u16);
    true
}

/// `setmaxnreg.{inc,dec}.sync.aligned.u32 count` (PTX ISA §9.7.19.5), in kernels where ptxas
/// honours it ([`super::launch_regs`] not 0): a pool of registers per
/// CTA, empty at launch; `.dec` releases the warp's registers above `count` into it, `.inc`
/// blocks until it holds the registers that raise the warp to `count` (TM0513 when that never
/// comes). Counts are per warp (the ISA's warpgroup executes the same instruction in each of
/// its warps, so the sums are the same). A `.dec` above or an `.inc` below the current count
/// (undefined per the ISA) is not reported: the launch count is an upper bound
/// ([`super::launch_regs`]), not ptxas's count.
fn setmaxnreg<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    inc: bool,
    count: u32,
) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    let cta = &mut cx.ctas[cx.me];
    let cur = cta.warp_nreg[w.id as usize];
    if cur == 0 {
        // ptxas ignores setmaxnreg in this kernel (no entry register count), or the warp has
        // no count
        return Flow::Next;
    }
    if !inc {
        cta.reg_pool += (-reg_delta(cur, count)).max(0) as u32;
        cta.warp_nreg[w.id as usize] = cur.min(count as u16);
        return Flow::Next;
    }
    if take_regs(cta, w.id, count) {
        return Flow::Next;
    }
    let pc = w.cur_pc;
    let need = reg_delta(cur, count) as u32;
    w.block(mask, pc, WaitKind::Regs { count, need });
    Flow::Moved
}

/// A warp whose last lane exited returns its registers to the CTA's pool (DERIVED: the ISA
/// does not say; returning them can only let a waiting `setmaxnreg.inc` go on, so TM0513 is
/// never reported because of it).
pub(crate) fn release_regs(cta: &mut CtaState, warp: u32) {
    let n = std::mem::take(&mut cta.warp_nreg[warp as usize]);
    cta.reg_pool += n as u32 * 32;
}

/// bar.red: writes the reduction of the completed instance into the lanes' destination.
fn write_bar_red<O: Observer>(w: &mut Warp, cx: &Ctx<'_, '_, O>, pc: u32, lanes: u32) {
    let Inst::Bar(b) = &cx.env.k.code[pc as usize] else {
        return;
    };
    let Some(d) = b.d else { return };
    let id = w.get(b.id)[lanes.trailing_zeros().min(31) as usize] as usize;
    let bar = &cx.ctas[cx.me].bars[id.min(15)];
    let v = match b.kind {
        BarKind::RedPopc => bar.last_popc as u64,
        BarKind::RedAnd => bar.last_and as u64,
        BarKind::RedOr => bar.last_or as u64,
        _ => return,
    };
    match d {
        Any::R32(_) | Any::R64(_) => {
            for l in 0..32 {
                if lanes >> l & 1 != 0 {
                    w.write_any(d, l, v);
                }
            }
        }
        // predicate destination encoded as Imm(pred index)
        Any::Imm(p) => {
            let m = if v != 0 { FULL } else { 0 };
            w.set_pred(p as u16, lanes, m);
        }
        Any::Sink => {}
    }
}

/// Marks a `spin_memo` version: the try_wait it names returns false once without parking.
pub(super) const TRY_TIMEOUT: u64 = 1 << 63;

/// "try_wait may return false after a system-dependent time limit" (PTX ISA
/// §9.7.13.15.16): called when no warp of the SM group can run, it lets the first
/// `mbarrier.try_wait` this warp is parked in return false, so a bounded retry loop ends as on
/// hardware. Returns whether it released lanes. The scheduler bounds how often it does this,
/// so a loop that retries forever is still reported as a hang.
pub(crate) fn time_out_try_wait(w: &mut Warp, code: &[Inst]) -> bool {
    for wt in w.waits.iter_mut() {
        let WaitKind::Mbar {
            owner,
            off,
            ref mut version,
            ..
        } = wt.kind
        else {
            continue;
        };
        let is_try = matches!(
            code.get(wt.pc as usize),
            Some(Inst::Mbar(i)) if matches!(i.op, MbarOp::TryWait { .. })
        );
        if !is_try {
            continue;
        }
        w.spin_memo = Some((wt.pc, owner as u32, off, *version | TRY_TIMEOUT));
        // a stored version the barrier does not have releases the wait at the next poll
        *version = version.wrapping_add(1);
        return true;
    }
    false
}

/// Releases parked lanes whose wait is over. Returns whether any lane became runnable.
pub(crate) fn poll<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>) -> bool {
    if w.waits.is_empty() {
        return false;
    }
    let mut any = false;
    let mut i = 0;
    while i < w.waits.len() {
        let wt = w.waits[i].clone();
        let (ready, resume_pc) = match wt.kind {
            WaitKind::Bar { id, gen } => (cx.ctas[cx.me].bars[id as usize].gen != gen, wt.pc + 1),
            WaitKind::ClusterBar { gen } => (cx.cluster.bar_gen != gen, wt.pc + 1),
            WaitKind::Mbar {
                owner,
                off,
                version,
                ..
            } => {
                let v = cx.ctas[owner as usize]
                    .mbars
                    .get(&off)
                    .map(|m| m.version)
                    .unwrap_or(u64::MAX);
                (v != version, wt.pc)
            }
            WaitKind::WarpSync { member } => {
                let here = w
                    .waits
                    .iter()
                    .filter(|x| x.pc == wt.pc && matches!(x.kind, WaitKind::WarpSync { .. }))
                    .fold(0u32, |m, x| m | x.mask);
                (member & w.live & !here == 0, wt.pc)
            }
            WaitKind::Tcgen05(b) => (
                super::tcgen05::poll(w, cx, wt.pc, wt.mask & w.live, b),
                wt.pc + 1,
            ),
            WaitKind::Regs { count, .. } => {
                (take_regs(&mut cx.ctas[cx.me], w.id, count), wt.pc + 1)
            }
        };
        if ready {
            if let WaitKind::WarpSync { .. } = wt.kind {
                // every lane that waits at this instruction goes on together
                let mut lanes = 0;
                w.waits.retain(|x| {
                    let same = x.pc == wt.pc && matches!(x.kind, WaitKind::WarpSync { .. });
                    if same {
                        lanes |= x.mask;
                    }
                    !same
                });
                w.unblock(lanes & w.live, wt.pc);
                any = true;
                i = 0;
                continue;
            }
            w.waits.swap_remove(i);
            if let WaitKind::Bar { .. } = wt.kind {
                write_bar_red(w, cx, wt.pc, wt.mask);
            }
            let key = match wt.kind {
                WaitKind::Bar { id, .. } => Some(SyncKey::CtaBarrier {
                    cta: cx.me as u32,
                    id: id as u32,
                }),
                WaitKind::ClusterBar { .. } => Some(SyncKey::ClusterBarrier),
                // an mbarrier waiter re-executes its test/try_wait, which reports the wait
                _ => None,
            };
            if let Some(key) = key {
                let mut at = cx.at(w, wt.mask & w.live);
                at.pc = wt.pc;
                cx.obs.sync_wait(at, key, Sem::Ordering);
            }
            w.unblock(wt.mask & w.live, resume_pc);
            any = true;
        } else {
            i += 1;
        }
    }
    any
}

/// Describes what a parked wait is waiting for (hang reports).
pub(crate) fn describe<O: Observer>(wt: &WaitKind, cx: &Ctx<'_, '_, O>) -> String {
    match *wt {
        WaitKind::Bar { id, .. } => {
            let cta = &cx.ctas[cx.me];
            let b = &cta.bars[id as usize];
            let exp = if b.all { cta.live_threads } else { b.expected };
            format!("CTA barrier {id}: {} of {} threads arrived", b.arrived, exp)
        }
        WaitKind::Tcgen05(ref b) => super::tcgen05::describe(b, cx),
        WaitKind::Regs { count, need } => {
            let cta = &cx.ctas[cx.me];
            let held: u32 = cta.warp_nreg.iter().map(|&n| n as u32 * 32).sum();
            format!(
                "setmaxnreg.inc to {count} registers a thread needs {need} registers from the CTA's pool, which holds {}; the CTA's warps hold {held} (launch: at most {} a thread for {} threads)",
                cta.reg_pool,
                super::launch_regs(cx.env.k.setmaxnreg_entry, cta.nthreads),
                cta.nthreads
            )
        }
        WaitKind::WarpSync { member } => {
            format!("the other live lanes of membermask {member:#010x} to reach this .sync instruction")
        }
        WaitKind::ClusterBar { .. } => format!(
            "cluster barrier: {} of {} threads arrived",
            cx.cluster.bar_arrived, cx.cluster.live_threads
        ),
        WaitKind::Mbar { owner, off, parity_or_state, .. } => match cx.ctas[owner as usize].mbars.get(&off) {
            Some(m) if m.valid => format!(
                "mbarrier at shared offset {:#x} (CTA rank {owner}) to leave phase parity {}: phase {}, pending arrivals {} of {}, tx-count {}",
                off + crate::mem::SHARED_BASE,
                parity_or_state & 1,
                m.phase,
                m.pending,
                m.expected,
                m.tx
            ),
            _ => format!("mbarrier at shared offset {:#x}, which is not initialised", off + crate::mem::SHARED_BASE),
        },
    }
}

/// `cp.async.bulk.commit_group` / `cp.async.bulk.wait_group{.read} n`. The engine completes
/// bulk copies at issue (their bytes land at once), so nothing waits here; observers learn
/// where the program observes the completion: the race model completes a group's source
/// reads at `wait_group.read` and all its accesses at `wait_group` (PTX ISA §9.7.9.27.2,
/// bulk-copies.md §4), so a source buffer reused before the wait is a race.
pub(crate) fn bulk_group<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    ev: BulkGroup,
) -> Flow {
    if mask != 0 {
        let at = cx.at(w, mask);
        cx.obs.bulk_group(at, ev);
    }
    Flow::Next
}

/// `cp.async.commit_group` / `wait_group n` / `wait_all` (non-bulk). The engine completes
/// `cp.async` copies at issue, so nothing waits; observers learn where each thread observes
/// its copies' completion (PTX ISA §9.7.9.25.3.2).
pub(crate) fn cp_async_group<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    ev: CpAsyncGroup,
) -> Flow {
    if mask != 0 {
        let at = cx.at(w, mask);
        cx.obs.cp_async_group(at, ev);
    }
    Flow::Next
}

/// `cp.async.mbarrier.arrive{.noinc}` (PTX ISA §9.7.9.25.3.3): the arrive-on fires when the
/// thread's prior copies have completed, which in the engine is now. Observers first see the
/// threads observe their copies, then the arrive's release: with `.noinc` the real arrival
/// (an `mbarrier.arrive`), without it a release to the mbarrier that counts nothing (the
/// pending-count increment cancels the arrive-on, so the engine's phase is unchanged).
pub(crate) fn cp_async_arrive<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &MbarInst,
    noinc: bool,
) -> Flow {
    if mask != 0 {
        let at = cx.at(w, mask);
        cx.obs.cp_async_group(at, CpAsyncGroup::MbarArrive);
    }
    if noinc {
        return mbar(w, cx, mask, i);
    }
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        // a bad address is reported by the arrivals of the program's mbarrier instructions;
        // this one changes no state, so it has nothing to report
        if let Ok((c, off)) = mbar_key(w, cx, i, l) {
            let key = SyncKey::Mbarrier {
                cta: c as u32,
                offset: off,
            };
            let at = cx.at(w, 1 << l);
            cx.obs.sync_arrive(at, key, i.sem);
        }
    }
    Flow::Next
}
