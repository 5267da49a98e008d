//! Launch: geometry checks, occupancy, placement of clusters on SMs, and the parallel driver.
//!
//! Placement (ours, DERIVED): SMs form groups of `cluster size` SMs (one SM per CTA rank, so a
//! cluster's CTAs sit on distinct SMs of one group). Cluster `k` goes to group `k mod groups`;
//! each group keeps up to `ctas_per_sm` clusters resident and admits the next when one
//! finishes, so CTAs beyond capacity wait for a slot.
//!
//! Determinism: a group is the unit of parallel work. Groups share nothing but global memory,
//! and results are merged in group order, so `--threads N` gives the same bytes for any N as
//! long as CTAs of different groups do not communicate through global memory. Global atomics
//! are the way kernels do that, so a kernel that uses them runs on one thread (groups in order).
//! Within a group, the warp schedule is a pure function of the seed.

use rayon::prelude::*;

use crate::error::{HangReport, LaunchError, LaunchKey};
use crate::exec::Outcome;
use crate::mem::GlobalMemory;
use crate::observer::{NoObserver, Observer};
use crate::program::Kernel;
use crate::sched::{run_group, GroupPlan, Pool};

/// Hardware limits of the modelled GPU (sm_100, B200).
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_threads_per_cta: u32,
    pub max_threads_per_sm: u32,
    pub max_ctas_per_sm: u32,
    pub smem_per_sm: u32,
    pub smem_per_cta: u32,
    pub regs_per_sm: u32,
    pub max_cluster: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_threads_per_cta: 1024,
            max_threads_per_sm: 2048,
            max_ctas_per_sm: 32,
            smem_per_sm: 228 * 1024,
            smem_per_cta: 227 * 1024,
            regs_per_sm: 65536,
            // 8 is portable; 16 with the non-portable opt-in, which we allow
            max_cluster: 16,
        }
    }
}

/// What a launch provides, independent of any file format.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// None: from `.reqnctapercluster`, else 1×1×1.
    pub cluster: Option<[u32; 3]>,
    pub dyn_shared: u32,
    /// The kernel's parameter block (see `Kernel::params` for offsets).
    pub params: Vec<u8>,
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub nsms: u32,
    pub threads: usize,
    /// None: the default deterministic schedule.
    pub seed: Option<u64>,
    /// Warp-instructions per SM group before the run is declared a livelock.
    pub max_steps: u64,
    /// Warp-instructions a warp runs before the scheduler moves on.
    pub quantum: u64,
    pub limits: Limits,
    pub max_call_depth: usize,
    /// With a seed: probabilistic concurrency testing with this depth (`pct.rs`; 0: the
    /// plain seeded random schedule).
    pub pct_depth: u32,
    /// When queued tcgen05 operations complete (exec/tcgen05/queue.rs).
    pub async_policy: crate::exec::tcgen05::queue::AsyncPolicy,
    /// Whether the first warp of a `.cta_group::2` dealloc/relinquish waits for its peer.
    pub pair_collective: tmemu_tmem::alloc::PairCollective,
    /// Where TMEM allocations land.
    pub tmem_placement: tmemu_tmem::alloc::Placement,
    /// Warp-instructions executed so far, added once per scheduling quantum: a progress
    /// display reads it without attaching an observer (one atomic add per quantum).
    pub progress: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// K fusion of consecutive `tcgen05.mma` into one accumulator (`exec/mma/fuse.rs`):
    /// the same result up to f32 summation order. On unless the environment sets
    /// `TMEMU_MMA_FUSION=0` (an A/B switch for tests and benchmarks).
    pub mma_fusion: bool,
    /// Runs every instruction through its general per-lane path, never a warp-wide fast path
    /// (exec/{cp_async,mbar_wait}.rs, the warp-wide ld/st): the reference the fast paths are
    /// tested against. Same results, slower.
    pub reference_paths: bool,
    /// A rayon pool to run the SM groups on instead of starting one for this run (`tmemu run`
    /// makes its inputs on the same threads first). Used when it has `threads` threads, or
    /// more while the launch has no more groups than `threads`; otherwise a pool is started.
    pub pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            nsms: 148,
            threads: 1,
            seed: None,
            max_steps: 2_000_000_000,
            quantum: 512,
            limits: Limits::default(),
            max_call_depth: 64,
            pct_depth: 0,
            async_policy: Default::default(),
            pair_collective: tmemu_tmem::alloc::PairCollective::Blocking,
            tmem_placement: tmemu_tmem::alloc::Placement::Lowest,
            progress: None,
            mma_fusion: std::env::var_os("TMEMU_MMA_FUSION").is_none_or(|v| v != "0"),
            reference_paths: false,
            pool: None,
        }
    }
}

/// The result of a run.
#[derive(Debug, Default)]
pub struct RunResult {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub ctas: u64,
    pub warps: u64,
    pub diagnostics: Vec<crate::error::Diagnostic>,
    pub diagnostics_dropped: u64,
    pub hangs: Vec<HangReport>,
    /// A group ran past `max_steps` (a livelock or a very long kernel).
    pub budget_exhausted: Vec<HangReport>,
    pub trapped: bool,
    /// Threads actually used (1 when the kernel uses global atomics).
    pub threads_used: usize,
    pub ctas_per_sm: u32,
}

/// Checks a launch against the kernel and the limits; returns (cluster dims, CTAs per SM).
pub fn check_launch(
    k: &Kernel,
    l: &Launch,
    opts: &RunOptions,
) -> Result<([u32; 3], u32), LaunchError> {
    let lim = &opts.limits;
    use LaunchKey::*;
    let e = |m: String, key: LaunchKey| Err(LaunchError(m, key));
    if l.grid.contains(&0) || l.block.contains(&0) {
        return e(
            format!(
                "grid {:?} and block {:?} must be at least 1 in every dimension",
                l.grid, l.block
            ),
            if l.grid.contains(&0) { Grid } else { Block },
        );
    }
    if l.block[2] > 64 {
        return e(
            format!("block z dimension {} exceeds 64", l.block[2]),
            Block,
        );
    }
    if l.grid[1] > 65535 || l.grid[2] > 65535 {
        return e(
            format!("grid y/z dimensions {:?} exceed 65535", l.grid),
            Grid,
        );
    }
    let threads = l.block.iter().map(|&x| x as u64).product::<u64>();
    if threads > lim.max_threads_per_cta as u64 {
        return e(
            format!(
                "block of {threads} threads exceeds the limit of {} per CTA",
                lim.max_threads_per_cta
            ),
            Block,
        );
    }
    if let Some(r) = k.reqntid {
        if r != l.block {
            return e(
                format!(
                    "kernel `{}` requires .reqntid {r:?}, launch block is {:?}",
                    k.name, l.block
                ),
                Block,
            );
        }
    }
    if let Some(m) = k.maxntid {
        if threads > m.iter().map(|&x| x as u64).product::<u64>() {
            return e(
                format!("block of {threads} threads exceeds the kernel's .maxntid {m:?}"),
                Block,
            );
        }
    }
    let cluster = match (l.cluster, k.reqnctapercluster) {
        (Some(c), Some(r)) if c != r => {
            return e(
                format!("launch cluster {c:?} differs from the kernel's .reqnctapercluster {r:?}"),
                Cluster,
            )
        }
        (Some(c), _) => c,
        (None, Some(r)) => r,
        (None, None) => [1, 1, 1],
    };
    if cluster.contains(&0) {
        return e(
            format!("cluster dimensions {cluster:?} must be at least 1"),
            Cluster,
        );
    }
    let csize = cluster.iter().product::<u32>();
    if csize > lim.max_cluster {
        return e(
            format!(
                "cluster of {csize} CTAs exceeds the limit of {}",
                lim.max_cluster
            ),
            Cluster,
        );
    }
    for i in 0..3 {
        if !l.grid[i].is_multiple_of(cluster[i]) {
            return e(
                format!(
                    "grid {:?} is not a multiple of the cluster {cluster:?}",
                    l.grid
                ),
                Grid,
            );
        }
    }
    if csize > opts.nsms {
        return e(
            format!(
                "cluster of {csize} CTAs needs {csize} SMs, the GPU has {}",
                opts.nsms
            ),
            Cluster,
        );
    }
    let smem = k.dyn_shared_offset as u64 + l.dyn_shared as u64;
    let smem = if l.dyn_shared == 0 {
        k.static_shared as u64
    } else {
        smem
    };
    if smem > lim.smem_per_cta as u64 {
        return e(
            format!(
            "{smem} bytes of shared memory per CTA ({} static + {} dynamic) exceed the limit of {}",
            k.static_shared, l.dyn_shared, lim.smem_per_cta
        ),
            if k.static_shared as u64 > lim.smem_per_cta as u64 {
                StaticShared
            } else {
                SharedBytes
            },
        );
    }
    let warps = (threads as u32).div_ceil(32);
    let mut per_sm = lim
        .max_ctas_per_sm
        .min(lim.max_threads_per_sm / (warps * 32));
    if let Some(n) = (lim.smem_per_sm as u64).checked_div(smem) {
        per_sm = per_sm.min(n as u32);
    }
    if let Some(r) = k.maxnreg {
        let regs = r.next_multiple_of(8) * warps * 32;
        per_sm = per_sm.min(lim.regs_per_sm / regs.max(1));
    }
    if per_sm == 0 {
        return e(
            "the CTA does not fit on one SM (registers or shared memory)".into(),
            Launch,
        );
    }
    Ok((cluster, per_sm))
}

/// Runs a launch with one observer per SM group: `make(group)` builds the observer of group
/// `group`, and the observers come back in group order (the same for any `opts.threads`, since
/// a group's execution does not depend on the threads). Checkers, race detectors and tracers
/// use this; [`run`] is this with [`NoObserver`].
pub fn run_observed<O: Observer + Send>(
    k: &Kernel,
    l: &Launch,
    global: &GlobalMemory,
    opts: &RunOptions,
    make: impl Fn(u32) -> O + Sync,
) -> Result<(RunResult, Vec<O>), LaunchError> {
    let (cluster, per_sm) = check_launch(k, l, opts)?;
    if l.params.len() < k.param_bytes as usize {
        return Err(LaunchError(
            format!(
                "parameter block of {} bytes, kernel `{}` needs {}",
                l.params.len(),
                k.name,
                k.param_bytes
            ),
            LaunchKey::Launch,
        ));
    }
    let csize = cluster.iter().product::<u32>();
    let ngroups = (opts.nsms / csize).max(1);
    let nclusters = [
        l.grid[0] / cluster[0],
        l.grid[1] / cluster[1],
        l.grid[2] / cluster[2],
    ];
    let total_clusters = nclusters.iter().map(|&x| x as u64).product::<u64>();
    let plan = GroupPlan {
        kernel: k,
        launch: l,
        global,
        opts,
        cluster,
        nclusters,
        per_sm,
        ngroups,
        total_clusters,
    };
    let threads = if k.uses_global_atomics {
        1
    } else {
        opts.threads.max(1)
    };
    let groups: Vec<u32> = (0..ngroups.min(total_clusters.max(1) as u32)).collect();
    type GroupOut<O> = ((Outcome, Vec<HangReport>, Vec<HangReport>), O);
    let run_one = |pool: &mut Pool, g: u32| -> GroupOut<O> {
        let mut obs = make(g);
        let r = run_group(&plan, g, &mut obs, pool);
        obs.group_end();
        (r, obs)
    };
    let shared = opts.pool.as_deref().filter(|p| {
        let n = p.current_num_threads();
        n == threads || (n > threads && groups.len() <= threads)
    });
    let outs: Vec<GroupOut<O>> = if threads > 1 {
        let par = || {
            groups
                .par_iter()
                .map_init(Pool::default, |pool, &g| run_one(pool, g))
                .collect()
        };
        match shared {
            Some(p) => p.install(par),
            None => rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| {
                    LaunchError(
                        format!("cannot start {threads} threads: {e}"),
                        LaunchKey::Launch,
                    )
                })?
                .install(par),
        }
    } else {
        let mut pool = Pool::default();
        groups.iter().map(|&g| run_one(&mut pool, g)).collect()
    };
    let mut r = RunResult {
        ctas: total_clusters * csize as u64,
        warps: total_clusters
            * csize as u64
            * (l.block.iter().product::<u32>().div_ceil(32)) as u64,
        threads_used: threads,
        ctas_per_sm: per_sm,
        ..Default::default()
    };
    let mut observers = Vec::with_capacity(outs.len());
    for ((o, hangs, budget), obs) in outs {
        observers.push(obs);
        r.warp_instructions += o.warp_instructions;
        r.thread_instructions += o.thread_instructions;
        r.diagnostics_dropped += o.diagnostics_dropped;
        r.trapped |= o.trapped;
        for d in o.diagnostics {
            if r.diagnostics.len() < crate::exec::MAX_DIAGNOSTICS {
                r.diagnostics.push(d);
            } else {
                r.diagnostics_dropped += 1;
            }
        }
        r.hangs.extend(hangs);
        r.budget_exhausted.extend(budget);
    }
    Ok((r, observers))
}

/// Runs a launch with the no-op observer. `global` must hold the kernel's module globals
/// (see [`install_globals`]) and every buffer the parameters point to.
pub fn run(
    k: &Kernel,
    l: &Launch,
    global: &GlobalMemory,
    opts: &RunOptions,
) -> Result<RunResult, LaunchError> {
    run_observed(k, l, global, opts, |_| NoObserver).map(|(r, _)| r)
}

/// Allocates the kernel's module `.global` variables at the addresses the loader gave them.
/// Must be called on a fresh [`GlobalMemory`] before any other allocation.
pub fn install_globals(k: &Kernel, global: &mut GlobalMemory) -> Result<(), LaunchError> {
    let addrs: Vec<u64> = k.globals.iter().map(|g| g.addr).collect();
    for g in &k.globals {
        let mut init = g.init.clone();
        init.resize(g.size as usize, 0);
        for &(off, sym, add) in &g.relocs {
            let v = addrs[sym].wrapping_add(add as u64);
            init[off as usize..off as usize + 8].copy_from_slice(&v.to_le_bytes());
        }
        let a = global.alloc_len(&g.name, g.size, &init);
        if a != g.addr {
            return Err(LaunchError(format!(
                "module global `{}` landed at {a:#x}, the loader placed it at {:#x}: install_globals must run first",
                g.name, g.addr
            ), LaunchKey::Launch));
        }
    }
    Ok(())
}
