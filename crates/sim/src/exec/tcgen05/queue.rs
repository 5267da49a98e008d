//! The queue of pending asynchronous tcgen05 operations of one SM group, and when they
//! complete (the async policy).
//!
//! Ops (`cp`, `shift`, `mma`, and `commit` markers) enter in issue order and complete in that
//! order per cluster (FIFO). FIFO is one order the hardware may choose: it keeps every
//! architected pipelined pair (mma→mma on one accumulator, cp→mma, shift→mma, mma→shift,
//! shift→cp.4x256b; PTX ISA §9.7.16.6.2) ordered without a wait, and a commit arrives only
//! after every op issued before it — in particular every earlier op of the committing thread
//! with its `.cta_group` (§9.7.16.12.1). An op *executes* at completion: `cp` reads shared
//! memory then, `mma` reads its operands then, so a program that overwrites a source before
//! the op's commit has been waited on sees the hazard in its results.
//!
//! Policies ([`AsyncPolicy`]):
//! - `Immediate`: an op completes at issue (inside the issuing instruction).
//! - `Delayed(n)`: an op completes at the end of the `n`-th scheduler round after the one it
//!   was issued in (`n = 0`: end of its own round).
//! - `Adversarial`: an op completes only when nothing else can run: at the end of a round in
//!   which no warp made progress (every live warp blocked — typically on the commit's
//!   mbarrier — or exited), the oldest pending op of the group completes; and when a cluster
//!   finishes, its remaining ops complete before it leaves the SM. That is as late as the rules
//!   allow: a pending op is never the reason for a hang, and any completion point a warp could
//!   observe comes after every point where it could still run without it. One bound keeps it
//!   fair: an op pending for [`ADVERSARIAL_MAX_ROUNDS`] rounds completes (a warp that polls
//!   memory instead of parking on an mbarrier would otherwise spin forever).
//!
//! `tcgen05.ld` / `tcgen05.st` are not queued: they read/write TMEM at issue (the value a real
//! load returns is sampled somewhere between issue and `wait::ld`; issue is one such point) and
//! complete, for observers, at the warp's next `wait::ld` / `wait::st`.

use std::collections::VecDeque;

use tmemu_tmem::layout::CpForm;

use crate::error::{Context, Diagnostic, Rule};
use crate::exec::{CtaState, Env, Outcome, MAX_DIAGNOSTICS};
use crate::observer::{AsyncId, At, CommitId, Observer, SyncKey};
use crate::tmem_sm::TcState;

/// When queued tcgen05 operations complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AsyncPolicy {
    /// At issue.
    #[default]
    Immediate,
    /// After this many further scheduler rounds.
    Delayed(u32),
    /// As late as the rules allow (see the module docs).
    Adversarial,
}

/// Rounds after which the adversarial policy completes an op even though some warp could
/// still run: hardware completes every operation eventually, and a warp polling memory that
/// the op writes (instead of parking on an mbarrier) must not livelock the run.
pub const ADVERSARIAL_MAX_ROUNDS: u32 = 64;

impl AsyncPolicy {
    /// Scheduler rounds after its issue round at which an op is completed regardless
    /// (`None`: only at issue, `Immediate`).
    pub fn rounds_until_due(self) -> Option<u32> {
        match self {
            AsyncPolicy::Immediate => None,
            AsyncPolicy::Delayed(n) => Some(n),
            AsyncPolicy::Adversarial => Some(ADVERSARIAL_MAX_ROUNDS),
        }
    }

    /// `immediate`, `delayed` (2 rounds), `delayed:N`, `adversarial`.
    pub fn parse(s: &str) -> Option<AsyncPolicy> {
        Some(match s {
            "immediate" => AsyncPolicy::Immediate,
            "delayed" => AsyncPolicy::Delayed(2),
            "adversarial" => AsyncPolicy::Adversarial,
            _ => AsyncPolicy::Delayed(s.strip_prefix("delayed:")?.parse().ok()?),
        })
    }
}

/// What an op does when it completes, given the cluster's CTAs and the group's TMEM.
/// `tcgen05.mma` implements this in its own module and enqueues with
/// [`super::issue_async`].
pub trait AsyncWork {
    /// Performs the op. An error names the rule broken and a message; the op then has no
    /// further effect (the commit tracking it still arrives).
    fn execute(&mut self, cx: &mut OpCtx<'_>) -> Result<(), (Rule, String)>;
}

/// What a completing op may touch: its cluster's CTAs (shared memory) and the TMEM of the
/// group (`tc.tmem_mut(rank)`, rank = the CTA's cluster rank = its SM in the group).
pub struct OpCtx<'a> {
    pub ctas: &'a mut [CtaState],
    pub tc: &'a mut TcState,
    /// Cluster rank of the issuing CTA.
    pub issuer: usize,
}

pub enum Work {
    Cp {
        form: CpForm,
        desc: u64,
        taddr: u32,
        /// Cluster ranks whose TMEM (and shared memory) the copy uses.
        ranks: Vec<usize>,
    },
    Shift {
        taddr: u32,
        ranks: Vec<usize>,
    },
    /// `tcgen05.commit`: arrive once on each mbarrier `(rank, offset)`.
    Commit {
        id: CommitId,
        bars: Vec<(usize, u32)>,
    },
    Custom(Box<dyn AsyncWork>),
}

pub struct Pending {
    /// None for commit markers.
    pub id: Option<AsyncId>,
    /// Cluster index of the issuer.
    pub cluster: u32,
    pub rank: usize,
    pub round: u64,
    /// Where it was issued (diagnostics, and the `At` of completion events).
    pub at: At,
    pub ctx: Context,
    pub work: Work,
    /// TMEM the op touches: (cluster rank, first column, columns).
    pub tmem: Vec<(u32, u32, u32)>,
}

#[derive(Default)]
pub struct AsyncQueue {
    ops: VecDeque<Pending>,
}

impl AsyncQueue {
    pub fn push(&mut self, p: Pending) {
        self.ops.push_back(p);
    }
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    /// Cluster of the oldest pending op.
    pub fn oldest_cluster(&self) -> Option<u32> {
        self.ops.front().map(|p| p.cluster)
    }
    pub fn has_cluster(&self, cluster: u32) -> bool {
        self.ops.iter().any(|p| p.cluster == cluster)
    }
    /// The oldest pending op of `cluster` that touches columns `cols` of CTA `rank`'s TMEM.
    pub fn in_flight(
        &self,
        cluster: u32,
        rank: u32,
        cols: std::ops::Range<u32>,
    ) -> Option<&Pending> {
        self.ops.iter().find(|p| {
            p.cluster == cluster
                && p.tmem
                    .iter()
                    .any(|&(r, c, n)| r == rank && c < cols.end && cols.start < c + n)
        })
    }
    /// Removes the oldest op of `cluster` if `ready` accepts it.
    fn pop_front_of(&mut self, cluster: u32, ready: &dyn Fn(&Pending) -> bool) -> Option<Pending> {
        let i = self.ops.iter().position(|p| p.cluster == cluster)?;
        if !ready(&self.ops[i]) {
            return None;
        }
        self.ops.remove(i)
    }
}

/// What completing ops needs besides the group state.
pub(crate) struct Drain<'a, 'e, O: Observer> {
    pub env: &'a Env<'e>,
    pub ctas: &'a mut [CtaState],
    pub obs: &'a mut O,
    pub out: &'a mut Outcome,
}

/// Completes, in order, the ops of `cluster` that `ready` accepts, stopping at the first it
/// does not (FIFO). Returns how many completed.
pub(crate) fn drain<O: Observer>(
    d: &mut Drain<'_, '_, O>,
    tc: &mut TcState,
    cluster: u32,
    ready: &dyn Fn(&Pending) -> bool,
    limit: usize,
) -> usize {
    let mut n = 0;
    while n < limit {
        let Some(p) = tc.queue.pop_front_of(cluster, ready) else {
            break;
        };
        complete(d, tc, p);
        n += 1;
    }
    n
}

#[cold]
fn push_diag(
    out: &mut Outcome,
    env: &Env<'_>,
    (pc, ctx): (u32, Context),
    rule: Rule,
    message: String,
) {
    if out.diagnostics.len() >= MAX_DIAGNOSTICS {
        out.diagnostics_dropped += 1;
        return;
    }
    out.diagnostics.push(Diagnostic {
        rule,
        message,
        span: env.k.info[pc as usize].span,
        ctx,
        related: Vec::new(),
    });
}

fn complete<O: Observer>(d: &mut Drain<'_, '_, O>, tc: &mut TcState, mut p: Pending) {
    let now = d.out.warp_instructions;
    let mut at = p.at;
    at.time = now;
    let site = (p.at.pc, p.ctx);
    if matches!(p.work, Work::Cp { .. } | Work::Shift { .. }) && tc.mma_panels.any() {
        // a copy or shift rewrites TMEM: pending K-fused MMA products there land first
        for &(rank, col, cols) in &p.tmem {
            tc.flush_mma(rank as usize, col..col.saturating_add(cols));
        }
    }
    let result = match &mut p.work {
        Work::Cp {
            form,
            desc,
            taddr,
            ranks,
        } => {
            let mut r = Ok(());
            // the descriptor holds the shared address as the program sees it; the CTA's
            // shared bytes start at address SHARED_BASE
            let field = *desc & 0x3fff;
            let rebased = (*desc & !0x3fff)
                | (field.wrapping_sub(crate::mem::SHARED_BASE as u64 >> 4) & 0x3fff);
            for &rank in ranks.iter() {
                let smem = &d.ctas[rank].shared;
                if let Err(e) = form.execute(smem, rebased, *taddr, tc.tmem_raw(rank)) {
                    r = Err(super::layout_rule(&e, "tcgen05.cp"));
                    break;
                }
            }
            r
        }
        Work::Shift { taddr, ranks } => {
            let mut r = Ok(());
            for &rank in ranks.iter() {
                if let Err(e) = super::shift::execute(tc.tmem_raw(rank), *taddr) {
                    r = Err(super::layout_rule(&e, "tcgen05.shift"));
                    break;
                }
            }
            r
        }
        Work::Commit { id, bars } => {
            let keys: Vec<SyncKey> = bars
                .iter()
                .map(|&(c, off)| SyncKey::Mbarrier {
                    cta: c as u32,
                    offset: off,
                })
                .collect();
            d.obs.commit_fire(*id, &keys, now);
            for &(c, off) in bars.iter() {
                let skip = d.ctas[c].mbars.get(&off).filter(|m| m.valid);
                if let Some((rule, msg)) =
                    skip.and_then(|m| m.phase_skip("tcgen05.commit's arrive"))
                {
                    push_diag(d.out, d.env, site, rule, msg);
                }
                match super::commit::arrive(&mut d.ctas[c], off) {
                    Ok(true) => d.obs.sync_complete(
                        at,
                        SyncKey::Mbarrier {
                            cta: c as u32,
                            offset: off,
                        },
                    ),
                    Ok(false) => {}
                    Err((rule, msg)) => push_diag(d.out, d.env, site, rule, msg),
                }
            }
            Ok(())
        }
        Work::Custom(w) => w.execute(&mut OpCtx {
            ctas: d.ctas,
            tc,
            issuer: p.rank,
        }),
    };
    if let Err((rule, msg)) = result {
        push_diag(d.out, d.env, site, rule, msg);
    }
    if let Some(id) = p.id {
        d.obs.async_complete(id, now);
    }
}
