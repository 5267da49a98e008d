//! Control: special registers, call/ret, exit, trap.
//!
//! Calls: each lane keeps a stack of call-site PCs. Parameters and return values live in
//! per-thread `.local` slots the loader assigned to every `.func` parameter and every `.param`
//! declared at a call site; `call` copies argument slots into the callee's parameter slots and
//! `ret` copies the callee's return slots back. Registers of a `.func` are its own (the loader
//! gives each function a disjoint register range), which is why the loader refuses recursion.

use super::{memory, sync, Ctx, Flow, Warp};
use crate::error::rules;
use crate::observer::{Observer, SyncKey};
use crate::program::{Any, Inst, Sreg};

fn sreg<O: Observer>(w: &Warp, cx: &Ctx<'_, '_, O>, s: Sreg, lane: usize) -> u64 {
    let env = cx.env;
    let cta = &cx.ctas[cx.me];
    let b = env.block;
    let cd = env.cluster_dim;
    (match s {
        Sreg::Tid(i) => {
            let t = w.id * 32 + lane as u32;
            let tid = [t % b[0], (t / b[0]) % b[1], t / (b[0] * b[1])];
            tid[i as usize]
        }
        Sreg::Ntid(i) => b[i as usize],
        Sreg::Ctaid(i) => cta.ctaid[i as usize],
        Sreg::Nctaid(i) => env.grid[i as usize],
        Sreg::LaneId => lane as u32,
        Sreg::WarpId => w.id,
        Sreg::NWarpId => (b[0] * b[1] * b[2]).div_ceil(32),
        Sreg::ClusterCtaRank => cta.rank,
        Sreg::ClusterNCtaRank => cd[0] * cd[1] * cd[2],
        Sreg::ClusterId(i) => cta.ctaid[i as usize] / cd[i as usize],
        Sreg::NClusterId(i) => env.nclusters[i as usize],
        Sreg::ClusterCtaId(i) => cta.ctaid[i as usize] % cd[i as usize],
        Sreg::ClusterNCtaId(i) => cd[i as usize],
        Sreg::IsExplicitCluster => env.explicit_cluster as u32,
        Sreg::SmId => cta.smid,
        Sreg::NSmId => env.nsms,
        Sreg::GridId => 1,
        // deterministic clocks: the executed warp-instruction count of this unit
        Sreg::Clock => cx.out.warp_instructions as u32,
        Sreg::Clock64 | Sreg::GlobalTimer => return cx.out.warp_instructions,
        Sreg::ClockHi | Sreg::GlobalTimerHi => (cx.out.warp_instructions >> 32) as u32,
        Sreg::GlobalTimerLo => cx.out.warp_instructions as u32,
        Sreg::LanemaskEq => 1 << lane,
        Sreg::LanemaskLe => ((2u64 << lane) - 1) as u32,
        Sreg::LanemaskLt => (1u32 << lane) - 1,
        Sreg::LanemaskGe => !0u32 << lane,
        Sreg::LanemaskGt => ((!0u64 << (lane + 1)) & 0xffff_ffff) as u32,
        Sreg::DynamicSmemSize => env.dyn_smem,
        Sreg::TotalSmemSize => env.total_smem,
        // DERIVED: user shared memory plus the 1 KiB the CUDA driver reserves per CTA on
        // sm_80+ (cudaDevAttrReservedSharedMemoryPerBlock), the region below
        // `mem::SHARED_BASE` in our window layout
        Sreg::AggrSmemSize => env.total_smem + crate::mem::SHARED_BASE,
        // a tmemu launch is never part of a CUDA graph; the ISA gives 0 outside one
        Sreg::CurrentGraphExec => return 0,
    }) as u64
}

/// Ends `lanes` of the current group and settles barriers that were waiting for them.
pub(crate) fn exit<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, lanes: u32) {
    let pc = w.cur_pc;
    w.exit_lanes(lanes);
    let n = lanes.count_ones();
    let me = cx.me;
    let cta = &mut cx.ctas[me];
    cta.live_threads -= n;
    let gens: [u64; 16] = std::array::from_fn(|i| cta.bars[i].gen);
    sync::check_bars(cta);
    cx.cluster.live_threads -= n;
    let cgen = cx.cluster.bar_gen;
    sync::check_cluster_bar(cx.cluster);
    exited(w, cx, pc, lanes, gens, cgen);
}

/// Observer events and TMEM bookkeeping after `lanes` exited (`gens`/`cgen`: the barrier
/// generations before): completed barriers, the warp's exit, the CTA's exit.
fn exited<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    pc: u32,
    lanes: u32,
    gens: [u64; 16],
    cgen: u64,
) {
    let me = cx.me;
    if w.live == 0 {
        sync::release_regs(&mut cx.ctas[me], w.id);
    }
    // an exit can complete a barrier the others wait at
    let mut at = cx.at(w, lanes);
    at.pc = pc;
    for (id, g) in gens.iter().enumerate() {
        if cx.ctas[me].bars[id].gen != *g {
            let key = SyncKey::CtaBarrier {
                cta: me as u32,
                id: id as u32,
            };
            cx.obs.sync_complete(at, key);
        }
    }
    if cx.cluster.bar_gen != cgen {
        cx.obs.sync_complete(at, SyncKey::ClusterBarrier);
    }
    if w.live == 0 {
        cx.obs.warp_exit(at);
    }
    if cx.tc.enabled && cx.ctas[me].live_threads == 0 {
        super::tcgen05::cta_exit(w, cx, pc);
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    inst: &Inst,
) -> Flow {
    let pc = w.cur_pc;
    match inst {
        Inst::MovSreg { d, s } => {
            if mask == 0 {
                return Flow::Next;
            }
            let per_lane = matches!(
                s,
                Sreg::Tid(_)
                    | Sreg::LaneId
                    | Sreg::LanemaskEq
                    | Sreg::LanemaskLe
                    | Sreg::LanemaskLt
                    | Sreg::LanemaskGe
                    | Sreg::LanemaskGt
            );
            if let Any::R32(r) = *d {
                // whole register array; a warp-uniform register is computed once
                let t0 = w.id * 32;
                let v: [u32; 32] = match *s {
                    // 1-D thread index inside the block's x extent: tid.x is the thread
                    // number itself (no division per lane)
                    Sreg::Tid(0) if t0 + 31 < cx.env.block[0] => {
                        std::array::from_fn(|l| t0 + l as u32)
                    }
                    _ if per_lane => std::array::from_fn(|l| sreg(w, cx, *s, l) as u32),
                    _ => [sreg(w, cx, *s, mask.trailing_zeros() as usize) as u32; 32],
                };
                w.set(r, mask, &v);
                return Flow::Next;
            }
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    let v = sreg(w, cx, *s, l);
                    w.write_any(*d, l, v);
                }
            }
            Flow::Next
        }
        Inst::MovSregPred { d, s } => {
            if mask != 0 {
                // warp-uniform: %is_explicit_cluster is one value per launch
                let v = sreg(w, cx, *s, mask.trailing_zeros() as usize) != 0;
                w.set_pred(*d, mask, if v { !0 } else { 0 });
            }
            Flow::Next
        }
        Inst::Exit => {
            if mask == 0 {
                return Flow::Next;
            }
            exit(w, cx, mask);
            Flow::Moved
        }
        Inst::Ret => {
            if mask == 0 {
                return Flow::Next;
            }
            let mut leave = 0u32;
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                match w.call_stacks.get_mut(l).and_then(|s| s.pop()) {
                    None => leave |= 1 << l,
                    Some((site, sp)) => {
                        // the callee's `alloca`s are freed when it returns (PTX ISA §9.7.17)
                        if let Some(top) = w.stack_top.get_mut(l) {
                            *top = sp;
                        }
                        if let Inst::Call(c) = &cx.env.k.code[site as usize] {
                            copy_slots(w, l, c.rets.iter().copied());
                        }
                        w.pc[l] = site + 1;
                    }
                }
            }
            // lanes of the group that neither return nor leave (guard false) move on
            for l in 0..32 {
                if (w.cur_mask & !mask) >> l & 1 != 0 {
                    w.pc[l] = pc + 1;
                }
            }
            if leave != 0 {
                // exit_lanes regroups from pc[]: make sure the returning lanes keep their PCs
                w.live &= !leave;
                let n = leave.count_ones();
                let cta = &mut cx.ctas[cx.me];
                cta.live_threads -= n;
                let gens: [u64; 16] = std::array::from_fn(|i| cta.bars[i].gen);
                sync::check_bars(cta);
                cx.cluster.live_threads -= n;
                let cgen = cx.cluster.bar_gen;
                sync::check_cluster_bar(cx.cluster);
                exited(w, cx, pc, leave, gens, cgen);
            }
            w.regroup_from_pcs();
            Flow::Moved
        }
        Inst::Call(c) => {
            if mask == 0 {
                return Flow::Next;
            }
            if w.call_stacks.is_empty() {
                w.call_stacks = vec![Vec::new(); 32];
            }
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                if w.call_stacks[l].len() >= cx.env.max_call_depth {
                    cx.diag(
                        w,
                        pc,
                        1 << l,
                        rules::CALL_DEPTH,
                        format!("call depth exceeds {}", cx.env.max_call_depth),
                    );
                    return Flow::Trap;
                }
                let sp = w
                    .stack_top
                    .get(l)
                    .copied()
                    .unwrap_or(cx.env.k.local_bytes as u64);
                w.call_stacks[l].push((pc, sp));
                copy_slots(w, l, c.args.iter().copied());
            }
            if mask == w.cur_mask {
                w.goto(c.target);
            } else {
                w.split(mask, c.target);
            }
            Flow::Moved
        }
        Inst::Trap | Inst::Brkpt => trap(w, cx, pc, mask, "trap executed: the grid is aborted"),
        Inst::Vprintf { fmt, ret } => {
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                match printf_args(w, cx, l, *fmt) {
                    Ok(n) => {
                        let lb = w.local_bytes as usize;
                        let at = l * lb + *ret as usize;
                        if let Some(dst) = w.local.get_mut(at..at + 4) {
                            dst.copy_from_slice(&n.to_le_bytes());
                        }
                    }
                    Err(f) => {
                        memory::fault(w, cx, 1 << l, l, f, crate::program::Space::Generic);
                        return Flow::Trap;
                    }
                }
            }
            Flow::Next
        }
        Inst::AssertFail => trap(
            w,
            cx,
            pc,
            mask,
            "device-side assertion failed (`__assertfail`): the grid is aborted",
        ),
        _ => unreachable!("control::exec() called with {inst:?}"),
    }
}

/// `trap` and what aborts the grid like it (a failed device-side assert): TM0505 at `pc` for
/// the lanes of `mask`, the launch marked trapped.
fn trap<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, pc: u32, mask: u32, why: &str) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    cx.diag(w, pc, mask, rules::TRAP, why.into());
    cx.out.trapped = true;
    Flow::Trap
}

/// The number of arguments `vprintf`'s format string consumes (CUDA: printf returns the number
/// of arguments parsed): one per conversion, one more per `*` width or precision, none for
/// `%%`; -1 for a null format. Reads the string byte by byte through the generic window.
fn printf_args<O: Observer>(
    w: &Warp,
    cx: &Ctx<'_, '_, O>,
    lane: usize,
    fmt: u32,
) -> Result<i32, crate::mem::MemFault> {
    let ptr = memory::load(w, cx, lane, memory::Loc::Local(fmt as u64), 8)?;
    if ptr == 0 {
        return Ok(-1);
    }
    let byte = |i: u64| -> Result<u8, crate::mem::MemFault> {
        let loc = memory::resolve(cx, crate::program::Space::Generic, ptr + i)?;
        Ok(memory::load(w, cx, lane, loc, 1)? as u8)
    };
    let (mut i, mut n) = (0u64, 0i32);
    // a format string has a terminator within the module's globals; the bound only stops a
    // pointer into unterminated data from scanning all of memory
    while i < 1 << 16 {
        let c = byte(i)?;
        i += 1;
        if c == 0 {
            return Ok(n);
        }
        if c != b'%' {
            continue;
        }
        if byte(i)? == b'%' {
            i += 1;
            continue;
        }
        // flags, width, precision, length, then the conversion character
        loop {
            let c = byte(i)?;
            i += 1;
            match c {
                0 => return Ok(n),
                b'*' => n += 1,
                b'-'
                | b'+'
                | b' '
                | b'#'
                | b'.'
                | b'0'..=b'9'
                | b'h'
                | b'l'
                | b'L'
                | b'q'
                | b'j'
                | b'z'
                | b't' => {}
                _ => {
                    n += 1;
                    break;
                }
            }
        }
    }
    Ok(n)
}

/// Copies (from, to, size) byte ranges within one lane's local memory.
fn copy_slots(w: &mut Warp, lane: usize, slots: impl Iterator<Item = (u32, u32, u32)>) {
    let lb = w.local_bytes as usize;
    let mem = &mut w.local[lane * lb..(lane + 1) * lb];
    for (from, to, size) in slots {
        let (f, t, s) = (from as usize, to as usize, size as usize);
        if f + s <= mem.len() && t + s <= mem.len() {
            mem.copy_within(f..f + s, t);
        }
    }
}
