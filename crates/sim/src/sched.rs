//! The scheduler of one SM group: resident clusters, warp rotation, hang and livelock
//! detection.
//!
//! Default schedule: warps in order (cluster, CTA, warp), each for up to `quantum`
//! warp-instructions. With a seed, each round visits the warps in a seeded random order with a
//! seeded random quantum (SplitMix64, so the same seed gives the same run). A round in which
//! no warp could run (every live lane parked on a wait that has not resolved) is a hang:
//! nothing asynchronous is ever pending, because copies complete at issue.

use crate::error::{rules, BlockedWarp, HangReport};
use crate::exec::tcgen05::queue::{drain, Drain, Pending};
use crate::exec::{self, run_warp, ClusterShared, CtaBar, CtaState, Ctx, Env, Outcome, Stop, Warp};
use crate::launch::{Launch, RunOptions};
use crate::mem::GlobalMemory;
use crate::observer::{At, Observer};
use crate::program::Kernel;
use crate::tmem_sm::TcState;

/// How many times per SM group parked `mbarrier.try_wait`s may time out when nothing else can
/// run (a bounded retry loop needs one per iteration; an unbounded one is a hang after this).
const MAX_TRY_TIMEOUTS: u32 = 256;

pub(crate) struct GroupPlan<'a> {
    pub kernel: &'a Kernel,
    pub launch: &'a Launch,
    pub global: &'a GlobalMemory,
    pub opts: &'a RunOptions,
    pub cluster: [u32; 3],
    pub nclusters: [u32; 3],
    pub per_sm: u32,
    pub ngroups: u32,
    pub total_clusters: u64,
}

/// Finished clusters kept for reuse by later clusters of the same launch (one pool per
/// worker thread): their register files and shared memory are reset, not reallocated.
#[derive(Default)]
pub(crate) struct Pool(Vec<ClusterRun>);

impl Pool {
    fn pop(&mut self) -> Option<ClusterRun> {
        self.0.pop()
    }
    fn push(&mut self, c: ClusterRun) {
        self.0.push(c)
    }
}

pub(crate) struct ClusterRun {
    ctas: Vec<CtaState>,
    warps: Vec<Vec<Warp>>,
    shared: ClusterShared,
}

impl ClusterRun {
    fn done(&self) -> bool {
        self.warps.iter().all(|ws| ws.iter().all(Warp::is_done))
    }
}

/// SplitMix64: small, seedable, good enough for schedule choices.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn make_cluster(
    p: &GroupPlan<'_>,
    idx: u64,
    group: u32,
    slot: u32,
    spare: Option<ClusterRun>,
) -> ClusterRun {
    let k = p.kernel;
    let l = p.launch;
    let nc = p.nclusters;
    let cid = [
        (idx % nc[0] as u64) as u32,
        ((idx / nc[0] as u64) % nc[1] as u64) as u32,
        (idx / (nc[0] as u64 * nc[1] as u64)) as u32,
    ];
    let cd = p.cluster;
    let csize = cd[0] * cd[1] * cd[2];
    let threads = l.block[0] * l.block[1] * l.block[2];
    let nwarps = threads.div_ceil(32);
    let smem = if l.dyn_shared == 0 {
        k.static_shared
    } else {
        k.dyn_shared_offset + l.dyn_shared
    };
    // a finished cluster's allocations are reused: same shapes, contents reset
    if let Some(mut c) = spare {
        for (rank, (cta, ws)) in c.ctas.iter_mut().zip(c.warps.iter_mut()).enumerate() {
            let rank = rank as u32;
            let r = [rank % cd[0], (rank / cd[0]) % cd[1], rank / (cd[0] * cd[1])];
            cta.shared.fill(0);
            cta.ctaid = [
                cid[0] * cd[0] + r[0],
                cid[1] * cd[1] + r[1],
                cid[2] * cd[2] + r[2],
            ];
            cta.live_threads = threads;
            cta.smid = group * csize + rank;
            cta.bars = [CtaBar::default(); 16];
            cta.mbars.clear();
            cta.mbar_span = (u32::MAX, 0);
            cta.reg_pool = 0;
            cta.warp_nreg
                .fill(exec::launch_regs(k.setmaxnreg_entry, threads));
            for (wi, w) in ws.iter_mut().enumerate() {
                w.reset(k, (threads - wi as u32 * 32).min(32));
            }
        }
        c.shared = ClusterShared {
            id: cid,
            live_threads: threads * csize,
            bar_arrived: 0,
            bar_gen: 0,
            index: idx as u32,
            slot,
        };
        return c;
    }
    let mut ctas = Vec::with_capacity(csize as usize);
    let mut warps = Vec::with_capacity(csize as usize);
    for rank in 0..csize {
        let r = [rank % cd[0], (rank / cd[0]) % cd[1], rank / (cd[0] * cd[1])];
        let ctaid = [
            cid[0] * cd[0] + r[0],
            cid[1] * cd[1] + r[1],
            cid[2] * cd[2] + r[2],
        ];
        ctas.push(CtaState {
            // a CTA's shared memory is the stage buffers it fills: faulted in at once
            shared: tmemu_pages::zeroed(smem as usize),
            ctaid,
            rank,
            smid: group * csize + rank,
            nthreads: threads,
            live_threads: threads,
            bars: [CtaBar::default(); 16],
            mbars: Default::default(),
            mbar_span: (u32::MAX, 0),
            reg_pool: 0,
            warp_nreg: vec![exec::launch_regs(k.setmaxnreg_entry, threads); nwarps as usize],
        });
        warps.push(
            (0..nwarps)
                .map(|wi| Warp::new(k, wi, (threads - wi * 32).min(32)))
                .collect(),
        );
    }
    ClusterRun {
        ctas,
        warps,
        shared: ClusterShared {
            id: cid,
            live_threads: threads * csize,
            bar_arrived: 0,
            bar_gen: 0,
            index: idx as u32,
            slot,
        },
    }
}

/// Runs every cluster assigned to `group`; returns its outcome, hang reports and livelock
/// reports.
pub(crate) fn run_group<O: Observer>(
    p: &GroupPlan<'_>,
    group: u32,
    obs: &mut O,
    spare: &mut Pool,
) -> (Outcome, Vec<HangReport>, Vec<HangReport>) {
    let k = p.kernel;
    let l = p.launch;
    let env = Env {
        k,
        global: p.global,
        params: &l.params,
        grid: l.grid,
        block: l.block,
        cluster_dim: p.cluster,
        nclusters: p.nclusters,
        explicit_cluster: k.explicit_cluster
            || l.cluster.is_some()
            || k.reqnctapercluster.is_some(),
        nsms: p.opts.nsms,
        dyn_smem: l.dyn_shared,
        total_smem: if l.dyn_shared == 0 {
            k.static_shared
        } else {
            k.dyn_shared_offset + l.dyn_shared
        },
        max_call_depth: p.opts.max_call_depth,
        reference_paths: p.opts.reference_paths,
        stack_bytes: std::sync::atomic::AtomicU64::new(0),
    };
    let mut out = Outcome::default();
    let mut hangs = Vec::new();
    let mut try_timeouts = 0u32;
    let mut budget = Vec::new();
    // the group's clusters not yet started, in start order; a clusterlaunchcontrol.try_cancel
    // takes the head (exec/clc.rs)
    let mut clc = exec::clc::ClcQueue::new(group as u64, p.ngroups as u64, p.total_clusters);
    let mut resident: Vec<ClusterRun> = Vec::new();
    let mut rng = p
        .opts
        .seed
        .map(|s| Rng(s ^ (group as u64).wrapping_mul(0xa076_1d64_78bd_642f)));
    let mut order: Vec<(usize, usize, usize)> = Vec::new();
    let mut pct = crate::pct::Pct::new(p.opts, group);
    let csize = p.cluster.iter().product::<u32>();
    let mut tc = TcState::new(
        k.code
            .iter()
            .any(|i| matches!(i, crate::program::Inst::Tc(_))),
        csize,
        p.opts.async_policy,
        tmemu_tmem::alloc::Config {
            sms: csize,
            placement: p.opts.tmem_placement,
            pair_collective: p.opts.pair_collective,
        },
    );
    tc.mma_panels.enabled = p.opts.mma_fusion;
    'outer: loop {
        while resident.len() < p.per_sm as usize && clc.has_pending() {
            let next = clc.admit().expect("pending");
            let spare_one = spare.pop();
            // the smallest slot no resident cluster uses (observer `At::slot`)
            let slot = (0..)
                .find(|s| resident.iter().all(|c| c.shared.slot != *s))
                .unwrap_or(0);
            let c = make_cluster(p, next, group, slot, spare_one);
            for (rank, (cta, ws)) in c.ctas.iter().zip(&c.warps).enumerate() {
                let at = At {
                    cluster: c.shared.index,
                    slot,
                    cta: rank as u32,
                    ctaid: cta.ctaid,
                    sm: cta.smid,
                    warp: 0,
                    pc: k.entry_pc,
                    lanes: 0,
                    time: out.warp_instructions,
                };
                obs.cta_begin(at, ws.len() as u32);
            }
            if tc.enabled {
                // a refusal here is an allocator contract bug; the run goes on without TMEM
                let _ = exec::tcgen05::cta_launch(&mut tc, c.shared.index, csize);
            }
            resident.push(c);
        }
        if resident.is_empty() {
            break;
        }
        order.clear();
        for (ci, c) in resident.iter().enumerate() {
            for (ti, ws) in c.warps.iter().enumerate() {
                for (wi, w) in ws.iter().enumerate() {
                    if !w.is_done() {
                        order.push((ci, ti, wi));
                    }
                }
            }
        }
        if let Some(r) = rng.as_mut() {
            for i in (1..order.len()).rev() {
                let j = r.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
        }
        if let Some(x) = pct.as_mut() {
            x.order(&mut order, |ci| resident[ci].shared.index);
        }
        let mut progressed = false;
        for &(ci, ti, wi) in &order {
            let c = &mut resident[ci];
            let w = &mut c.warps[ti][wi];
            let mut cx = Ctx {
                env: &env,
                ctas: &mut c.ctas,
                cluster: &mut c.shared,
                me: ti,
                obs: &mut *obs,
                out: &mut out,
                tc: &mut tc,
                clc: &mut clc,
            };
            exec::sync::poll(w, &mut cx);
            if w.cur_mask == 0 {
                continue;
            }
            let q = match rng.as_mut() {
                Some(r) => 1 + r.below(p.opts.quantum),
                None => p.opts.quantum,
            };
            let q = pct.as_mut().map_or(q, |x| x.quantum(p.opts.quantum));
            progressed = true;
            let before = cx.out.warp_instructions;
            let stop = run_warp(w, &mut cx, q);
            if let Some(c) = &p.opts.progress {
                c.fetch_add(
                    cx.out.warp_instructions - before,
                    std::sync::atomic::Ordering::Relaxed,
                );
            }
            if stop == Stop::Trap {
                break 'outer;
            }
        }
        if out.warp_instructions > p.opts.max_steps {
            budget.push(report(&env, &mut resident, obs, &mut out, &mut tc, true));
            break;
        }
        // queued tcgen05 ops: the Delayed policy completes those old enough; under any
        // policy a round in which no warp ran completes the oldest one (a pending op is
        // never a hang)
        if !tc.queue.is_empty() {
            let now = tc.round;
            if let Some(n) = tc.policy.rounds_until_due() {
                for c in resident.iter_mut() {
                    let idx = c.shared.index;
                    drain_cluster(
                        &env,
                        c,
                        obs,
                        &mut out,
                        &mut tc,
                        idx,
                        &|q| q.round + n as u64 <= now,
                        usize::MAX,
                    );
                }
            }
            if !progressed {
                if let Some(idx) = tc.queue.oldest_cluster() {
                    if let Some(c) = resident.iter_mut().find(|c| c.shared.index == idx) {
                        drain_cluster(&env, c, obs, &mut out, &mut tc, idx, &|_| true, 1);
                        progressed = true;
                    }
                }
            }
        }
        tc.round += 1;
        if !progressed {
            // one more poll pass: a barrier may have completed by the last exit
            let mut woke = false;
            for c in resident.iter_mut() {
                for (ti, ws) in c.warps.iter_mut().enumerate() {
                    for w in ws.iter_mut() {
                        let mut cx = Ctx {
                            env: &env,
                            ctas: &mut c.ctas,
                            cluster: &mut c.shared,
                            me: ti,
                            obs: &mut *obs,
                            out: &mut out,
                            tc: &mut tc,
                            clc: &mut clc,
                        };
                        woke |= exec::sync::poll(w, &mut cx);
                    }
                }
            }
            if !woke {
                // parked try_waits time out (a bounded number of times) before this is a hang
                let mut timed_out = false;
                if try_timeouts < MAX_TRY_TIMEOUTS {
                    for c in resident.iter_mut() {
                        for ws in c.warps.iter_mut() {
                            for w in ws.iter_mut() {
                                timed_out |= exec::sync::time_out_try_wait(w, &k.code);
                            }
                        }
                    }
                }
                if timed_out {
                    try_timeouts += 1;
                } else {
                    hangs.push(report(&env, &mut resident, obs, &mut out, &mut tc, false));
                    break;
                }
            }
        }
        let mut i = 0;
        while i < resident.len() {
            if resident[i].done() {
                let idx = resident[i].shared.index;
                if tc.queue.has_cluster(idx) {
                    // its ops complete before the cluster leaves the SM
                    drain_cluster(
                        &env,
                        &mut resident[i],
                        obs,
                        &mut out,
                        &mut tc,
                        idx,
                        &|_| true,
                        usize::MAX,
                    );
                }
                spare.push(resident.swap_remove(i));
            } else {
                i += 1;
            }
        }
    }
    (out, hangs, budget)
}

/// Completes queued tcgen05 ops of cluster `idx` (resident as `c`) that `ready` accepts.
#[allow(clippy::too_many_arguments)]
fn drain_cluster<O: Observer>(
    env: &Env<'_>,
    c: &mut ClusterRun,
    obs: &mut O,
    out: &mut Outcome,
    tc: &mut TcState,
    idx: u32,
    ready: &dyn Fn(&Pending) -> bool,
    limit: usize,
) -> usize {
    let mut d = Drain {
        env,
        ctas: &mut c.ctas,
        obs,
        out,
    };
    drain(&mut d, tc, idx, ready, limit)
}

fn report<O: Observer>(
    env: &Env<'_>,
    resident: &mut [ClusterRun],
    obs: &mut O,
    out: &mut Outcome,
    tc: &mut TcState,
    livelock: bool,
) -> HangReport {
    let k = env.k;
    let mut warps = Vec::new();
    let mut mbar = false;
    // a warp blocked in the TMEM allocator (columns or a pair peer): TM0020
    let mut tmem_alloc = false;
    // a warp blocked in setmaxnreg.inc: TM0513
    let mut regs = false;
    // describing waits cancels nothing
    let mut clc = exec::clc::ClcQueue::new(0, 1, 0);
    for c in resident.iter_mut() {
        for (ti, ws) in c.warps.iter().enumerate() {
            let cx = Ctx {
                env,
                ctas: &mut c.ctas,
                cluster: &mut c.shared,
                me: ti,
                obs: &mut *obs,
                out: &mut *out,
                tc: &mut *tc,
                clc: &mut clc,
            };
            for w in ws {
                if w.is_done() {
                    continue;
                }
                for wt in &w.waits {
                    mbar |= matches!(wt.kind, exec::WaitKind::Mbar { .. });
                    tmem_alloc |= matches!(wt.kind, exec::WaitKind::Tcgen05(_));
                    regs |= matches!(wt.kind, exec::WaitKind::Regs { .. });
                    let info = &k.info[wt.pc as usize];
                    warps.push(BlockedWarp {
                        cta: cx.ctas[ti].ctaid,
                        warp: w.id,
                        lanes: wt.mask,
                        span: info.span,
                        opcode: k.source[info.opcode.start as usize..info.opcode.end as usize]
                            .to_string(),
                        waiting_for: exec::sync::describe(&wt.kind, &cx),
                    });
                }
                let running = w.live & !w.blocked;
                if running != 0 {
                    let pc = w.cur_pc.min(k.code.len() as u32 - 1);
                    let info = &k.info[pc as usize];
                    warps.push(BlockedWarp {
                        cta: cx.ctas[ti].ctaid,
                        warp: w.id,
                        lanes: running,
                        span: info.span,
                        opcode: k.source[info.opcode.start as usize..info.opcode.end as usize]
                            .to_string(),
                        waiting_for: "nothing (still running when the step budget ran out)".into(),
                    });
                }
            }
        }
    }
    let (rule, summary) = if livelock {
        (
            rules::STEP_BUDGET,
            format!(
                "step budget exhausted after {} warp-instructions (livelock or a very long kernel)",
                out.warp_instructions
            ),
        )
    } else if regs {
        // first: the other warps usually wait at a barrier for the warps that cannot start
        (
            rules::SETMAXNREG_HANG,
            "hang: a warp waits in setmaxnreg.inc for registers the CTA's pool can never supply"
                .to_string(),
        )
    } else if tmem_alloc {
        // first: the warps at barriers or mbarriers usually wait for the blocked allocator
        // warp (its CTA's work), not the other way round
        (
            rules::TMEM_ALLOC_HANG,
            "hang: a warp waits in the TMEM allocator for columns or a peer that can never come"
                .to_string(),
        )
    } else if mbar {
        (
            rules::MBAR_HANG,
            "hang: every live warp waits on an mbarrier or barrier that can no longer change"
                .to_string(),
        )
    } else {
        (
            rules::BARRIER_DEADLOCK,
            "hang: every live warp waits at a barrier that can no longer complete".to_string(),
        )
    };
    HangReport {
        rule,
        summary,
        warps,
    }
}
