//! The executor: warps with per-thread PCs, stepped one warp-instruction at a time.
//!
//! A warp runs the lanes at the lowest PC among its runnable lanes (reconvergence at the
//! lowest PC). The current group (`cur_pc`, `cur_mask`) is kept explicitly, and `parked_min`
//! is the lowest PC of the other runnable lanes, so the common case — a converged warp
//! stepping forward — costs one compare per instruction. Blocked lanes (barriers, mbarrier
//! waits) carry a [`Wait`] that the scheduler re-checks; nobody wakes anybody.
//!
//! One file per family: `int`, `float`, `cvt`, `memory`, `warp_ops`, `sync`, `control`.

pub mod atom128;
pub mod atom_half;
pub mod atom_vec;
pub mod brx;
pub mod clc;
mod control;
mod cp_async;
pub(crate) mod cvt;
mod float;
mod getctarank;
mod int;
pub mod matrix;
mod mbar_wait;
mod memory;
pub mod mma;
pub mod mma_sync;
pub(crate) mod scan;
pub mod st_async;
pub mod st_bulk;
mod stack;
pub(crate) mod sync;
pub mod tcgen05;
pub mod tma;
mod warp_ops;
pub mod wmma;

use crate::error::{Context, Diagnostic, Rule};
use crate::mem::GlobalMemory;
use crate::observer::{At, Observer};
use crate::program::{Any, BoolOp, Inst, Kernel, PSrc, S};

pub(crate) use cvt::supported as cvt_supported;
pub(crate) use sync::{Mbar, WaitKind};

pub const FULL: u32 = !0;

/// One lane type of a register class.
pub trait Lane: Copy + Default + 'static {
    fn file(w: &Warp) -> &Vec<[Self; 32]>;
    fn file_mut(w: &mut Warp) -> &mut Vec<[Self; 32]>;
    /// `v` where `m` is all ones, `self` where it is zero.
    fn blend(self, v: Self, m: u32) -> Self;
}

/// All ones when bit `l` of `mask` is set, else zero: the per-lane mask of a branch-free
/// masked write (LLVM turns a loop of these into SSE2 compares against lane-bit constants).
#[inline(always)]
pub(crate) fn lane_ones(mask: u32, l: usize) -> u32 {
    ((mask >> l) & 1).wrapping_neg()
}

impl Lane for u32 {
    #[inline(always)]
    fn file(w: &Warp) -> &Vec<[u32; 32]> {
        &w.r32
    }
    #[inline(always)]
    fn file_mut(w: &mut Warp) -> &mut Vec<[u32; 32]> {
        &mut w.r32
    }
    #[inline(always)]
    fn blend(self, v: u32, m: u32) -> u32 {
        (v & m) | (self & !m)
    }
}

impl Lane for u64 {
    #[inline(always)]
    fn file(w: &Warp) -> &Vec<[u64; 32]> {
        &w.r64
    }
    #[inline(always)]
    fn file_mut(w: &mut Warp) -> &mut Vec<[u64; 32]> {
        &mut w.r64
    }
    #[inline(always)]
    fn blend(self, v: u64, m: u32) -> u64 {
        let m = m as i32 as i64 as u64;
        (v & m) | (self & !m)
    }
}

/// Lanes blocked at `pc` for `kind`.
#[derive(Clone, Debug)]
pub struct Wait {
    pub mask: u32,
    pub pc: u32,
    pub kind: WaitKind,
}

pub struct Warp {
    pub r32: Vec<[u32; 32]>,
    pub r64: Vec<[u64; 32]>,
    pub preds: Vec<u32>,
    /// PC of each lane not in the current group.
    pub pc: [u32; 32],
    /// Lanes that have not exited.
    pub live: u32,
    /// Lanes blocked in a [`Wait`].
    pub blocked: u32,
    pub cur_pc: u32,
    pub cur_mask: u32,
    pub parked_min: u32,
    pub waits: Vec<Wait>,
    /// Per-thread `.local` memory, `local_bytes` per lane, lane-major.
    pub local: Vec<u8>,
    pub local_bytes: u32,
    /// Per-lane call stacks (call-site PC, stack pointer at the call), allocated on the first
    /// call.
    pub call_stacks: Vec<Vec<(u32, u64)>>,
    /// Per-lane dynamic stack pointers (`.local` addresses, exec/stack.rs), allocated on the
    /// first `alloca`/`stacksave`/`stackrestore`; empty otherwise.
    pub stack_top: Vec<u64>,
    /// Warp index within its CTA.
    pub id: u32,
    /// `(pc, owner, offset, version)` of the last test_wait that returned false, to park a
    /// warp that spins on an unchanged barrier.
    pub spin_memo: Option<(u32, u32, u32, u64)>,
    /// The lanes whose test_wait on an invalid mbarrier set `spin_memo` (exec/sync.rs): only
    /// they spin when they meet it again; another group of the warp at the same instruction
    /// (divergent lanes) waits once and goes on.
    pub spin_lanes: u32,
    /// Lanes that arrived at the cluster barrier in generation `cluster_gen`.
    pub cluster_arrived: u32,
    pub cluster_gen: u64,
    /// CC.CF of each lane (add.cc / addc and friends).
    pub cc: u32,
}

impl Warp {
    pub fn new(k: &Kernel, id: u32, lanes: u32) -> Warp {
        let live = if lanes >= 32 {
            FULL
        } else {
            (1u32 << lanes) - 1
        };
        Warp {
            // written whole here: Triton's matmul has 158 KiB of registers a warp, ~40 pages,
            // and each engine thread builds its warps once (perf.md, session 15)
            r32: tmemu_pages::zeroed(k.n_r32 as usize),
            r64: tmemu_pages::zeroed(k.n_r64 as usize),
            preds: vec![0; k.n_pred as usize],
            pc: [k.entry_pc; 32],
            live,
            blocked: 0,
            cur_pc: k.entry_pc,
            cur_mask: live,
            parked_min: u32::MAX,
            waits: Vec::new(),
            local: vec![0; (k.local_bytes as usize) * 32],
            local_bytes: k.local_bytes,
            call_stacks: Vec::new(),
            stack_top: Vec::new(),
            id,
            spin_memo: None,
            spin_lanes: 0,
            cluster_arrived: 0,
            cluster_gen: 0,
            cc: 0,
        }
    }

    /// Makes this warp a fresh one (for a new CTA), keeping its allocations.
    pub fn reset(&mut self, k: &Kernel, lanes: u32) {
        let live = if lanes >= 32 {
            FULL
        } else {
            (1u32 << lanes) - 1
        };
        // only the registers some thread may read before writing (loader/reset.rs): any
        // other register is written before it is read, so its old value never shows
        for &r in &k.reset_r32 {
            self.r32[r as usize] = [0; 32];
        }
        for &r in &k.reset_r64 {
            self.r64[r as usize] = [0; 32];
        }
        self.preds.fill(0);
        self.pc = [k.entry_pc; 32];
        self.live = live;
        self.blocked = 0;
        self.cur_pc = k.entry_pc;
        self.cur_mask = live;
        self.parked_min = u32::MAX;
        self.waits.clear();
        self.local.fill(0);
        self.call_stacks.iter_mut().for_each(Vec::clear);
        self.stack_top.fill(k.local_bytes as u64);
        self.spin_memo = None;
        self.spin_lanes = 0;
        self.cluster_arrived = 0;
        self.cluster_gen = 0;
        self.cc = 0;
    }

    #[inline(always)]
    pub fn get<T: Lane>(&self, s: S<T>) -> [T; 32] {
        match s {
            S::R(i) => T::file(self)[i as usize],
            S::I(v) => [v; 32],
        }
    }

    /// A source operand's lanes by reference: a register's array in place (no 128- or
    /// 256-byte copy), an immediate broadcast into `tmp`.
    #[inline(always)]
    pub fn src<'a, T: Lane>(
        &'a self,
        s: S<T>,
        tmp: &'a mut std::mem::MaybeUninit<[T; 32]>,
    ) -> &'a [T; 32] {
        match s {
            S::R(i) => &T::file(self)[i as usize],
            S::I(v) => tmp.write([v; 32]),
        }
    }

    #[inline(always)]
    pub fn set<T: Lane>(&mut self, d: u16, mask: u32, v: &[T; 32]) {
        let r = &mut T::file_mut(self)[d as usize];
        if mask == FULL {
            *r = *v;
        } else {
            // a blend, not a branch per lane (vectorises)
            for l in 0..32 {
                r[l] = r[l].blend(v[l], lane_ones(mask, l));
            }
        }
    }

    /// `pc[l] = v` for the lanes in `mask`, without a branch per lane.
    #[inline(always)]
    fn set_pcs(&mut self, mask: u32, v: u32) {
        for l in 0..32 {
            self.pc[l] = self.pc[l].blend(v, lane_ones(mask, l));
        }
    }

    /// `d = a` under `mask`: one copy of the register array in place (no temporary).
    #[inline(always)]
    pub fn mov<T: Lane>(&mut self, d: u16, mask: u32, a: S<T>) {
        let f = T::file_mut(self);
        match a {
            S::R(i) if mask == FULL => {
                let i = i as usize;
                f.copy_within(i..i + 1, d as usize);
            }
            S::R(i) => {
                let (i, d) = (i as usize, d as usize);
                for l in 0..32 {
                    if mask >> l & 1 != 0 {
                        f[d][l] = f[i][l];
                    }
                }
            }
            S::I(v) => self.set(d, mask, &[v; 32]),
        }
    }

    #[inline(always)]
    pub fn pred(&self, p: PSrc) -> u32 {
        match p {
            PSrc::P { idx, neg } => {
                let v = self.preds[idx as usize];
                if neg {
                    !v
                } else {
                    v
                }
            }
            PSrc::Const(true) => FULL,
            PSrc::Const(false) => 0,
        }
    }

    #[inline(always)]
    pub fn set_pred(&mut self, d: u16, mask: u32, v: u32) {
        let p = &mut self.preds[d as usize];
        *p = (*p & !mask) | (v & mask);
    }

    /// Reads one lane of an any-class operand, zero-extended.
    #[inline(always)]
    pub fn read_any(&self, a: Any, lane: usize) -> u64 {
        match a {
            Any::R32(i) => self.r32[i as usize][lane] as u64,
            Any::R64(i) => self.r64[i as usize][lane],
            Any::Imm(v) => v,
            Any::Sink => 0,
        }
    }

    #[inline(always)]
    pub fn write_any(&mut self, a: Any, lane: usize, v: u64) {
        match a {
            Any::R32(i) => self.r32[i as usize][lane] = v as u32,
            Any::R64(i) => self.r64[i as usize][lane] = v,
            Any::Imm(_) | Any::Sink => {}
        }
    }

    /// Lane `lane`'s accessible `.local` bytes: its whole slot, or below its stack pointer
    /// once the dynamic stack is in use (exec/stack.rs).
    #[inline(always)]
    pub fn local_lane(&self, lane: usize) -> &[u8] {
        let (at, end) = self.local_range(lane);
        &self.local[at..at + end]
    }

    #[inline(always)]
    pub fn local_lane_mut(&mut self, lane: usize) -> &mut [u8] {
        let (at, end) = self.local_range(lane);
        &mut self.local[at..at + end]
    }

    #[inline(always)]
    fn local_range(&self, lane: usize) -> (usize, usize) {
        let lb = self.local_bytes as usize;
        let end = match self.stack_top.get(lane) {
            Some(&top) => (top as usize).min(lb),
            None => lb,
        };
        (lane * lb, end)
    }

    /// The current group moves on to `pc`.
    #[inline(always)]
    pub fn goto(&mut self, pc: u32) {
        self.cur_pc = pc;
        if pc >= self.parked_min {
            self.regroup();
        }
    }

    /// Lanes of the current group in `taken` go to `target`, the rest to `cur_pc + 1`.
    pub fn split(&mut self, taken: u32, target: u32) {
        let next = self.cur_pc + 1;
        self.set_pcs(self.cur_mask & !taken, next);
        self.set_pcs(self.cur_mask & taken, target);
        self.regroup_from_pcs();
    }

    /// Writes the current group's PC back and picks the lowest-PC runnable group.
    pub fn regroup(&mut self) {
        self.set_pcs(self.cur_mask, self.cur_pc);
        self.regroup_from_pcs();
    }

    /// Picks the lowest-PC group among runnable lanes (`pc[]` is authoritative for all).
    /// Leaves `cur_mask == 0` when none is runnable.
    pub fn regroup_from_pcs(&mut self) {
        let runnable = self.live & !self.blocked;
        // nothing runnable (a whole warp blocked at a barrier, or exited): what the scans below
        // give for no lane, without their two passes over 32 lanes
        if runnable == 0 {
            self.cur_pc = u32::MAX;
            self.cur_mask = 0;
            self.parked_min = u32::MAX;
            return;
        }
        if !self.call_stacks.is_empty() && self.stacks_differ(runnable) {
            self.regroup_by_frames(runnable);
            return;
        }
        // every runnable lane at one PC (a converged warp, or one a barrier released whole):
        // what the scan below gives, without its two branchy passes
        if runnable != 0 {
            let p = self.pc[runnable.trailing_zeros() as usize];
            let mut diff = 0u32;
            for l in 0..32 {
                diff |= (self.pc[l] ^ p) & lane_ones(runnable, l);
            }
            if diff == 0 {
                self.cur_pc = p;
                self.cur_mask = runnable;
                self.parked_min = u32::MAX;
                return;
            }
        }
        let mut min = u32::MAX;
        for l in 0..32 {
            if runnable >> l & 1 != 0 && self.pc[l] < min {
                min = self.pc[l];
            }
        }
        let mut mask = 0;
        let mut second = u32::MAX;
        for l in 0..32 {
            if runnable >> l & 1 != 0 {
                if self.pc[l] == min {
                    mask |= 1 << l;
                } else if self.pc[l] < second {
                    second = self.pc[l];
                }
            }
        }
        self.cur_pc = min;
        self.cur_mask = mask;
        self.parked_min = second;
    }

    fn stack(&self, l: usize) -> &[(u32, u64)] {
        &self.call_stacks[l]
    }

    /// Whether runnable lanes sit in different call frames.
    fn stacks_differ(&self, runnable: u32) -> bool {
        let Some(first) = (0..32).find(|&l| runnable >> l & 1 != 0) else {
            return false;
        };
        // call sites only: lanes of one frame may hold different stack pointers
        let sites = |l: usize| self.call_stacks[l].iter().map(|f| f.0);
        (first + 1..32).any(|l| runnable >> l & 1 != 0 && !sites(l).eq(sites(first)))
    }

    /// Program order of two lanes when calls are involved: their positions compare as the
    /// sequence (call sites outermost first, then the PC), so lanes inside a call made from an
    /// earlier point run before lanes further along in the caller, and reconverge after it
    /// returns — the lowest-PC rule lifted to call frames.
    fn lane_cmp(&self, a: usize, b: usize) -> std::cmp::Ordering {
        let (sa, sb) = (self.stack(a), self.stack(b));
        let n = sa.len().max(sb.len());
        for i in 0..=n {
            let x = sa.get(i).map_or(self.pc[a], |f| f.0);
            let y = sb.get(i).map_or(self.pc[b], |f| f.0);
            // a lane at the call instruction itself goes before lanes already inside that call
            let (xd, yd) = (i >= sa.len(), i >= sb.len());
            match x.cmp(&y).then(yd.cmp(&xd)) {
                std::cmp::Ordering::Equal if xd && yd => return std::cmp::Ordering::Equal,
                std::cmp::Ordering::Equal => continue,
                o => return o,
            }
        }
        std::cmp::Ordering::Equal
    }

    /// `regroup_from_pcs` for lanes in different call frames. `parked_min` is set to 0 so
    /// that every step re-evaluates the order until the frames agree again.
    fn regroup_by_frames(&mut self, runnable: u32) {
        let mut best: Option<usize> = None;
        for l in 0..32 {
            if runnable >> l & 1 != 0 && best.is_none_or(|b| self.lane_cmp(l, b).is_lt()) {
                best = Some(l);
            }
        }
        let b = best.expect("stacks_differ implies a runnable lane");
        let mut mask = 0;
        for l in 0..32 {
            if runnable >> l & 1 != 0 && self.lane_cmp(l, b).is_eq() {
                mask |= 1 << l;
            }
        }
        self.cur_pc = self.pc[b];
        self.cur_mask = mask;
        self.parked_min = 0;
    }

    /// Blocks the current group's `lanes` at `pc` for `kind` and moves to another group.
    pub fn block(&mut self, lanes: u32, pc: u32, kind: WaitKind) {
        self.set_pcs(self.cur_mask, self.cur_pc);
        self.set_pcs(lanes, pc);
        self.blocked |= lanes;
        self.waits.push(Wait {
            mask: lanes,
            pc,
            kind,
        });
        self.regroup_from_pcs();
    }

    /// Unblocks `lanes` at `pc`.
    pub fn unblock(&mut self, lanes: u32, pc: u32) {
        self.set_pcs(lanes, pc);
        if self.cur_mask != 0 {
            self.set_pcs(self.cur_mask, self.cur_pc);
        }
        self.blocked &= !lanes;
        self.regroup_from_pcs();
    }

    /// Ends the lanes in `lanes`.
    pub fn exit_lanes(&mut self, lanes: u32) {
        self.live &= !lanes;
        let rest = self.cur_mask & !lanes;
        self.set_pcs(rest, self.cur_pc + 1);
        self.regroup_from_pcs();
    }

    pub fn is_done(&self) -> bool {
        self.live == 0
    }
}

/// CTA barrier (`bar`/`barrier`) state.
#[derive(Clone, Copy, Debug, Default)]
pub struct CtaBar {
    pub arrived: u32,
    /// Thread count of the current instance (0 = not started).
    pub expected: u32,
    /// All non-exited threads (no count operand).
    pub all: bool,
    pub gen: u64,
    /// 1 + the pc of the first aligned blocking participant (`bar.sync`, `barrier.sync.aligned`)
    /// of the current instance; 0 = none yet. Every aligned blocking participant of one
    /// instance must execute that instruction (PTX ISA §9.7.13.1; TM0507).
    pub aligned_site: u32,
    /// Per warp of the CTA (index < 32): the lanes that executed `bar.arrive` /
    /// `barrier.arrive` in the current instance, and 1 + the pc of that arrive. A further
    /// barrier instruction of those lanes on this barrier before the instance completes is
    /// TM0512 (PTX ISA §9.7.13.1: "barrier{.cta}.arrive followed by any other barrier{.cta}
    /// instruction to the same barrier prior to the reset of the barrier").
    pub arrive_lanes: [u32; 32],
    pub arrive_site: [u32; 32],
    pub red_popc: u32,
    pub red_and: bool,
    pub red_or: bool,
    /// Reduction results of the last completed instance.
    pub last_popc: u32,
    pub last_and: bool,
    pub last_or: bool,
}

/// Per-CTA state except the warps (kept apart so a warp can run with `&mut` to all CTAs of its
/// cluster: distributed shared memory and remote mbarriers).
pub struct CtaState {
    pub shared: Vec<u8>,
    pub ctaid: [u32; 3],
    pub rank: u32,
    pub smid: u32,
    pub nthreads: u32,
    pub live_threads: u32,
    pub bars: [CtaBar; 16],
    /// mbarriers by shared offset (their 8 bytes in `shared` hold an opaque encoding).
    pub mbars: sync::MbarMap,
    /// [lowest, highest + 8) of the offsets of the valid mbarriers (empty: `(u32::MAX, 0)`;
    /// init widens it, inval shrinks it to the barriers still valid), so a shared-memory write
    /// outside it skips the TM0233 lookup with one compare.
    pub mbar_span: (u32, u32),
    /// The CTA's register pool (PTX ISA §9.7.19.5, setmaxnreg): registers that
    /// setmaxnreg.dec (and, DERIVED, exited warps) released and setmaxnreg.inc can take.
    /// Empty at launch.
    pub reg_pool: u32,
    /// Each warp's per-thread register count: [`launch_regs`] until its first setmaxnreg.
    pub warp_nreg: Vec<u16>,
}

/// The per-thread register count tmemu gives each warp at launch, for setmaxnreg's pool
/// (TM0513): the largest the launch can have had, so that a reported wait hangs whatever
/// count ptxas chose (a larger count only releases more at a decrease and asks less at an
/// increase): the kernel's bound (`Kernel::setmaxnreg_entry`: `.maxnreg`, or 65536 over the
/// bounded threads times `.minnctapersm`) and the register file of an SM (65536) over the
/// launch's threads (whole warps), a multiple of 8. 0 when ptxas ignores setmaxnreg (no bound):
/// then setmaxnreg does nothing.
pub fn launch_regs(entry: Option<u32>, threads: u32) -> u16 {
    let Some(bound) = entry else {
        return 0;
    };
    let per_thread = 65536 / (threads.div_ceil(32) * 32).max(32);
    (per_thread / 8 * 8).min(bound).min(256) as u16
}

/// Cluster-wide state shared by the CTAs of one cluster.
#[derive(Default)]
pub struct ClusterShared {
    pub id: [u32; 3],
    pub live_threads: u32,
    pub bar_arrived: u32,
    pub bar_gen: u64,
    /// Linear index of the cluster in the grid (x fastest).
    pub index: u32,
    /// Dense index among the clusters resident in the SM group (observer `At::slot`).
    pub slot: u32,
}

/// Read-only launch facts the instructions need.
pub struct Env<'a> {
    pub k: &'a Kernel,
    pub global: &'a GlobalMemory,
    pub params: &'a [u8],
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub cluster_dim: [u32; 3],
    pub nclusters: [u32; 3],
    pub explicit_cluster: bool,
    pub nsms: u32,
    pub dyn_smem: u32,
    pub total_smem: u32,
    /// Calls deeper than this end the lanes with a diagnostic.
    pub max_call_depth: usize,
    /// `RunOptions::reference_paths`: no warp-wide fast path.
    pub reference_paths: bool,
    /// Bytes of `.local` memory this SM group's warps have added for dynamic stacks
    /// (exec/stack.rs; bounded by `stack::GROUP_BUDGET`). Per group, so a verdict never
    /// depends on how groups interleave.
    pub stack_bytes: std::sync::atomic::AtomicU64,
}

/// Counters and findings of one unit of execution.
#[derive(Default)]
pub struct Outcome {
    pub warp_instructions: u64,
    pub thread_instructions: u64,
    pub diagnostics: Vec<Diagnostic>,
    pub diagnostics_dropped: u64,
    /// A `trap` ended the grid.
    pub trapped: bool,
}

pub const MAX_DIAGNOSTICS: usize = 200;

/// Why `run_warp` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    Quantum,
    /// No runnable lane left (all blocked or exited).
    NoRunnable,
    Trap,
}

/// What an instruction handler tells the loop.
pub(crate) enum Flow {
    /// Advance the group to the next instruction.
    Next,
    /// The handler moved the PC / regrouped itself.
    Moved,
    Trap,
}

/// Everything one warp step may touch besides the warp itself.
pub struct Ctx<'a, 'e, O: Observer> {
    pub env: &'a Env<'e>,
    pub ctas: &'a mut [CtaState],
    pub cluster: &'a mut ClusterShared,
    /// Index of the warp's CTA in `ctas` (its cluster rank).
    pub me: usize,
    pub obs: &'a mut O,
    pub out: &'a mut Outcome,
    /// Tensor Memory, the async tcgen05 queue and observer identities of the SM group.
    pub tc: &'a mut crate::tmem_sm::TcState,
    /// The SM group's clusters that have not started (Cluster Launch Control, exec/clc.rs).
    pub clc: &'a mut clc::ClcQueue,
}

impl<O: Observer> Ctx<'_, '_, O> {
    #[cold]
    /// True (and the diagnostic counted as dropped) once the cap is reached: callers that
    /// build a message from several values ask first, so that a kernel faulting in a loop
    /// does not spend its run formatting messages that are thrown away.
    #[inline]
    pub fn diag_full(&mut self) -> bool {
        if self.out.diagnostics.len() >= MAX_DIAGNOSTICS {
            self.out.diagnostics_dropped += 1;
            return true;
        }
        false
    }

    pub fn diag(&mut self, w: &Warp, pc: u32, lanes: u32, rule: Rule, message: String) {
        self.diag_related(w, pc, lanes, rule, message, None);
    }

    /// [`Ctx::diag`] with a related span and its label (the earlier instruction a finding
    /// refers to).
    pub fn diag_related(
        &mut self,
        w: &Warp,
        pc: u32,
        lanes: u32,
        rule: Rule,
        message: String,
        related: Option<(tmemu_ptx::span::Span, String)>,
    ) {
        if self.out.diagnostics.len() >= MAX_DIAGNOSTICS {
            self.out.diagnostics_dropped += 1;
            return;
        }
        let cta = &self.ctas[self.me];
        self.out.diagnostics.push(Diagnostic {
            rule,
            message,
            span: self.env.k.info[pc as usize].span,
            ctx: Context {
                cluster: self.cluster.id,
                cta: cta.ctaid,
                warp: w.id,
                lanes,
                pc,
            },
            related: related.into_iter().collect(),
        });
    }

    /// The observer's view of "here and now". Pure (no panicking index), so it costs nothing
    /// when the observer ignores it.
    #[inline(always)]
    pub fn at(&self, w: &Warp, lanes: u32) -> At {
        let (ctaid, sm) = self
            .ctas
            .get(self.me)
            .map(|c| (c.ctaid, c.smid))
            .unwrap_or_default();
        At {
            cluster: self.cluster.index,
            slot: self.cluster.slot,
            cta: self.me as u32,
            ctaid,
            sm,
            warp: w.id,
            pc: w.cur_pc,
            lanes,
            time: self.out.warp_instructions,
        }
    }
}

/// Runs up to `budget` warp-instructions of `w`.
pub fn run_warp<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, budget: u64) -> Stop {
    let k = cx.env.k;
    // both arrays cut to one length (the loader's are equal), so one bounds check covers both
    let n = k.code.len().min(k.guards.len());
    let (code, guards) = (&k.code[..n], &k.guards[..n]);
    let mut steps = 0u64;
    let mut threads = 0u64;
    let stop = loop {
        // read once: the stores through `cx` below would make the compiler read it again
        let cur = w.cur_mask;
        if cur == 0 {
            break Stop::NoRunnable;
        }
        if steps >= budget {
            break Stop::Quantum;
        }
        let pc = w.cur_pc;
        let inst = &code[pc as usize];
        let mask = match guards[pc as usize] {
            None => cur,
            Some(g) => cur & w.pred(g),
        };
        steps += 1;
        // a converged warp skips the popcount (a dozen instructions on baseline x86-64)
        threads += if cur == FULL {
            32
        } else {
            cur.count_ones() as u64
        };
        // per step (not batched) so that observers see a monotone `At::time`
        cx.out.warp_instructions += 1;
        cx.obs.instruction(cx.at(w, mask));
        let flow = match inst {
            Inst::Fence { kind } => {
                if let Some(f) = *kind {
                    let at = cx.at(w, mask);
                    cx.obs.fence(at, f);
                }
                Flow::Next
            }
            Inst::Nop | Inst::AsyncGroupMark | Inst::GriddepLaunch | Inst::GriddepWait => {
                Flow::Next
            }
            Inst::BulkGroup(ev) => sync::bulk_group(w, cx, mask, *ev),
            Inst::CpAsyncGroup(ev) => sync::cp_async_group(w, cx, mask, *ev),
            Inst::CpAsyncArrive(i, noinc) => sync::cp_async_arrive(w, cx, mask, i, *noinc),
            Inst::Bin32 { op, n, d, a, b } => int::bin32(w, mask, *op, *n, *d, *a, *b),
            Inst::Bin64 { op, d, a, b } => int::bin64(w, mask, *op, *d, *a, *b),
            Inst::Mov32 { d, a } => {
                w.mov(*d, mask, *a);
                Flow::Next
            }
            Inst::Mov64 { d, a } => {
                w.mov(*d, mask, *a);
                Flow::Next
            }
            Inst::Setp32 { .. } | Inst::Setp64 { .. } => int::compare(w, mask, inst),
            Inst::Selp32 { d, a, b, p } => int::selp32(w, mask, *d, *a, *b, *p),
            Inst::Selp64 { d, a, b, p } => int::selp64(w, mask, *d, *a, *b, *p),
            Inst::F32Bin { .. }
            | Inst::F32Fma { .. }
            | Inst::F32Un { .. }
            | Inst::F32Max3 { .. }
            | Inst::F64Bin { .. }
            | Inst::F64Fma { .. }
            | Inst::F64Un { .. }
            | Inst::F32x2Bin { .. }
            | Inst::F32x2Fma { .. }
            | Inst::Half(_)
            | Inst::Mixed(_)
            | Inst::Testp { .. }
            | Inst::SetpHalf(_) => float::exec(w, mask, inst),
            Inst::Ld(_)
            | Inst::St(_)
            | Inst::Atom(_)
            | Inst::Cvta { .. }
            | Inst::Mapa { .. }
            | Inst::Isspacep { .. }
            | Inst::MovSharedSym { .. } => memory::exec(w, cx, mask, inst),
            Inst::CpAsync(_)
            | Inst::CpBulkG2S(_)
            | Inst::CpBulkS2G(_)
            | Inst::CpBulkS2Cluster(_) => memory::exec_copy(w, cx, mask, inst),
            Inst::AtomVec(i) => atom_vec::exec(w, cx, mask, i),
            Inst::Atom128(i) => atom128::exec(w, cx, mask, i),
            Inst::Getctarank { generic, d, a } => getctarank::exec(w, cx, mask, *generic, *d, *a),
            Inst::Tma(t) => tma::exec(w, cx, mask, t),
            Inst::BulkReduce(t) => tma::exec_bulk_reduce(w, cx, mask, t),
            Inst::Mma(m) => mma::exec(w, cx, mask, m),
            Inst::Matrix(m) => matrix::exec(w, cx, mask, m),
            Inst::MovMatrix { d, a } => matrix::movmatrix(w, cx, mask, *d, *a),
            Inst::MmaSync(m) => mma_sync::exec(w, cx, mask, m),
            Inst::Brx(b) => brx::exec(w, cx, mask, b),
            Inst::Clc(c) => clc::exec(w, cx, mask, c),
            Inst::StAsync(s) => st_async::exec(w, cx, mask, s),
            Inst::StBulk(s) => st_bulk::exec(w, cx, mask, s),
            Inst::Wmma(m) => wmma::exec(w, cx, mask, m),
            Inst::Tensormap(t) => tma::exec_tensormap(w, cx, mask, t),
            Inst::Tc(t) => tcgen05::exec(w, cx, mask, t),
            Inst::Cvt(c) => cvt::exec(w, mask, c),
            Inst::CvtRsBf16x2 { .. } => cvt::exec_rs(w, mask, inst),
            Inst::CvtPackSat { .. } => cvt::exec_pack_sat(w, mask, inst),
            Inst::Bra { target, .. } => {
                if mask == w.cur_mask {
                    w.goto(*target);
                } else if mask == 0 {
                    w.goto(pc + 1);
                } else {
                    w.split(mask, *target);
                }
                Flow::Moved
            }
            Inst::Shfl { .. }
            | Inst::Vote { .. }
            | Inst::Redux { .. }
            | Inst::Match { .. }
            | Inst::Elect { .. }
            | Inst::Activemask { .. } => warp_ops::exec(w, cx, mask, inst),
            Inst::Bar(_)
            | Inst::BarWarpSync { .. }
            | Inst::ClusterArrive { .. }
            | Inst::ClusterWait
            | Inst::Mbar(_)
            | Inst::Setmaxnreg { .. } => sync::exec(w, cx, mask, inst),
            Inst::MovSreg { .. }
            | Inst::MovSregPred { .. }
            | Inst::Call(_)
            | Inst::Ret
            | Inst::Exit
            | Inst::Trap
            | Inst::Brkpt
            | Inst::AssertFail
            | Inst::Vprintf { .. } => control::exec(w, cx, mask, inst),
            Inst::Alloca { .. } | Inst::StackSave { .. } | Inst::StackRestore { .. } => {
                stack::exec(w, cx, mask, inst)
            }
            // Triton's predicate chains: too small for a call into `exec_other`
            Inst::PredLogic { op, d, a, b } => {
                let (x, y) = (w.pred(*a), w.pred(*b));
                let v = match op {
                    BoolOp::And => x & y,
                    BoolOp::Or => x | y,
                    BoolOp::Xor => x ^ y,
                };
                w.set_pred(*d, mask, v);
                Flow::Next
            }
            _ => int::exec_other(w, mask, inst),
        };
        match flow {
            Flow::Next => {
                let next = pc + 1;
                w.cur_pc = next;
                if next >= w.parked_min {
                    w.regroup();
                }
            }
            Flow::Moved => {}
            Flow::Trap => break Stop::Trap,
        }
    };
    cx.out.thread_instructions += threads;
    stop
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warp(pc: [u32; 32], live: u32, blocked: u32) -> Warp {
        Warp {
            r32: Vec::new(),
            r64: Vec::new(),
            preds: Vec::new(),
            pc,
            live,
            blocked,
            cur_pc: 7,
            cur_mask: 1,
            parked_min: 3,
            waits: Vec::new(),
            local: Vec::new(),
            local_bytes: 0,
            call_stacks: Vec::new(),
            stack_top: Vec::new(),
            id: 0,
            spin_memo: None,
            spin_lanes: 0,
            cluster_arrived: 0,
            cluster_gen: 0,
            cc: 0,
        }
    }

    /// The lowest-PC rule by definition: the group is the runnable lanes at the lowest PC,
    /// `parked_min` the lowest PC of the other runnable lanes; none runnable is
    /// (`u32::MAX`, 0, `u32::MAX`).
    fn by_definition(w: &Warp) -> (u32, u32, u32) {
        let runnable = w.live & !w.blocked;
        let lanes = (0..32).filter(|&l| runnable >> l & 1 != 0);
        let min = lanes.clone().map(|l| w.pc[l]).min().unwrap_or(u32::MAX);
        let mask = lanes
            .clone()
            .filter(|&l| w.pc[l] == min)
            .fold(0, |m, l| m | 1 << l);
        let second = lanes
            .map(|l| w.pc[l])
            .filter(|&p| p != min)
            .min()
            .unwrap_or(u32::MAX);
        (min, mask, second)
    }

    #[test]
    fn regroup_from_pcs_picks_the_lowest_pc_group() {
        let mut next = crate::xorshift64(0x243f_6a88_85a3_08d3_u64);
        for i in 0..20_000 {
            let pc: [u32; 32] = std::array::from_fn(|_| (next() % 4) as u32 + 10);
            let live = match i % 4 {
                0 => 0,
                1 => !0,
                _ => next() as u32,
            };
            let blocked = match i % 3 {
                0 => live,
                1 => 0,
                _ => next() as u32,
            };
            let mut w = warp(pc, live, blocked);
            w.regroup_from_pcs();
            assert_eq!((w.cur_pc, w.cur_mask, w.parked_min), by_definition(&w));
        }
    }
}
