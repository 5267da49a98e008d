//! Register compaction: registers whose live ranges never meet share a slot of the register
//! file, so that a warp's `r32`/`r64` arrays (`Warp`, sized by `Kernel::n_r32`/`n_r64`) are
//! as small as the registers live at once, not as the registers declared.
//!
//! Compiler PTX (Triton, nvcc, CuTe DSL, Gluon) is SSA-like: a Triton matmul declares 813
//! `.b32` and 210 `.b64` registers, 158 KiB of register file per warp, of which few hold a
//! value at the same time. Every warp of every engine thread touches its register file, so
//! its size is first-touch page faults per thread and L2 misses (perf.md session 15).
//!
//! The pass is fail-safe: where it is unsure, a register keeps a slot of its own (or the
//! kernel is left as it was), so that compaction can never change what a run computes or
//! reports.
//! - **Which registers share.** Only registers that `reset.rs`'s analysis follows: every
//!   instruction naming them is a lane-local form whose reads and writes it knows (each lane
//!   reads and writes only its own lane of them, at the instruction). A register named by any
//!   other form (`tcgen05.ld` destinations, which complete at `wait::ld`; `shfl`, `mma`
//!   descriptors and every cross-lane or asynchronous form; whatever the analysis does not
//!   know) keeps its own slot, and so does every register some thread may read before
//!   writing (`Kernel::reset_r32`/`reset_r64`: its zero must show), and `.b128` halves (a pair
//!   must stay adjacent).
//! - **Liveness** is the standard backward analysis per thread over the CFG of `reset.rs`'s
//!   blocks (branches, guarded branches, `brx.idx`, `ret`/`exit`): an instruction's reads make
//!   a register live before it, an unguarded lane-local write kills it, a guarded one does
//!   not. Lanes diverge, but each lane's slot is its own and every form that reads another
//!   lane's register is excluded above, so per-thread liveness is the whole story.
//! - **Sharing.** A register's range is the hull `[lo, hi]` of the pcs where it is named and
//!   of the blocks it is live into or out of (a loop-carried register covers its loop). Every
//!   pc where a register is written, read or live after is inside its hull, so two registers
//!   whose hulls do not meet never hold a value at the same pc; a register read and one
//!   written by the same instruction never share (`[lo, hi]` are closed). The hulls are
//!   coloured greedily by their start, which is optimal for intervals.
//! - **Calls.** A callee's registers are in use while the caller's are live across the call,
//!   and pcs do not say so: a kernel with a `.func` is left as it is.
//!
//! The renumbering keeps the order of the registers that keep their own slot (so adjacent
//! ones stay adjacent), then the shared slots. Registers are named in diagnostics, traces and
//! JSON from the source text (spans), never from their index, so no output changes;
//! `load_with(.., LoadOptions { compact_registers: false })` (or `TMEMU_REG_COMPACT=0`) turns
//! the pass off, which the differential tests compare against.

use super::reset::{self, Facts, Named, R64};
use crate::exec::mma::MmaA;
use crate::exec::tcgen05::TcOp;
use crate::exec::tma::{TensormapInst, TmaOp};
use crate::program::{Addr, Any, Inst, S};

/// The renumbering of both register classes: old index → new, and the new counts.
#[derive(Debug)]
pub(crate) struct Plan {
    pub map32: Vec<u16>,
    pub map64: Vec<u16>,
    pub n_r32: u16,
    pub n_r64: u16,
}

/// The renumbering of a kernel's registers, `None` where it would not shrink a register file
/// or the pass gave up. `need` is `reset.rs`'s set (read before written or not followed),
/// `pairs` the `.b128` registers' first halves.
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan(
    f: &Facts<'_>,
    need: &[u64],
    named: &Named,
    roots: &[u32],
    n_r32: u16,
    n_r64: u16,
    pairs: &[u16],
) -> Option<Plan> {
    let (n, words, n_pc) = (f.n, f.words, f.n_pc());
    if named.len() != n_pc || n == 0 {
        return None;
    }
    let mut fixed = need.to_vec();
    for &lo in pairs {
        reset::set(&mut fixed, n_r32 as u32 + lo as u32);
        reset::set(&mut fixed, n_r32 as u32 + lo as u32 + 1);
    }
    let (starts, block_of) = f.blocks(roots);
    let nb = starts.len() - 1;
    let at = |b: usize| b * words..(b + 1) * words;
    // per block: registers read before any write in it (gen) and written for sure (kill)
    let mut gen = vec![0u64; nb * words];
    let mut kill = vec![0u64; nb * words];
    for b in 0..nb {
        let (g, k) = (&mut gen[at(b)], &mut kill[at(b)]);
        for pc in starts[b]..starts[b + 1] {
            for &r in f.reads_of(pc) {
                if !reset::get(k, r) {
                    reset::set(g, r);
                }
            }
            for &r in f.writes_of(pc) {
                reset::set(k, r);
            }
        }
    }
    // successor blocks, flat
    let mut succ_at = Vec::with_capacity(nb + 1);
    let mut succ: Vec<u32> = Vec::new();
    let mut next = Vec::new();
    succ_at.push(0u32);
    for b in 0..nb {
        f.succ(starts[b + 1] - 1, &mut next);
        succ.extend(next.iter().map(|&s| block_of[s]));
        succ_at.push(succ.len() as u32);
    }
    let mut live_in = vec![0u64; nb * words];
    let mut live_out = vec![0u64; nb * words];
    let mut out = vec![0u64; words];
    // blocks in reverse order: a loop-free stretch settles in one sweep, each loop level
    // costs one more; the bound is a backstop
    let mut changed = true;
    let mut sweeps = 0;
    while changed {
        changed = false;
        sweeps += 1;
        if sweeps > nb + 2 {
            return None;
        }
        for b in (0..nb).rev() {
            out.iter_mut().for_each(|w| *w = 0);
            for &s in &succ[succ_at[b] as usize..succ_at[b + 1] as usize] {
                for (o, i) in out.iter_mut().zip(&live_in[at(s as usize)]) {
                    *o |= i;
                }
            }
            live_out[at(b)].copy_from_slice(&out);
            let ins = &mut live_in[at(b)];
            for w in 0..words {
                let v = gen[b * words + w] | (out[w] & !kill[b * words + w]);
                changed |= v != ins[w];
                ins[w] = v;
            }
        }
    }
    // hulls
    let mut lo = vec![u32::MAX; n];
    let mut hi = vec![0u32; n];
    let untag = |t: u32| -> usize {
        if t & R64 != 0 {
            n_r32 as usize + (t & !R64) as usize
        } else {
            t as usize
        }
    };
    for pc in 0..n_pc {
        let (a, b) = named.of(pc);
        for &t in a.iter().chain(b) {
            let r = untag(t);
            lo[r] = lo[r].min(pc as u32);
            hi[r] = hi[r].max(pc as u32);
        }
    }
    // a hull reaches down to the first block a register is live into and up to the last
    // block it is live out of: only each register's first sighting in each direction counts
    // (a walk over every live bit of every block was most of this pass)
    let mut seen = fixed.clone();
    for b in 0..nb {
        for w in 0..words {
            let mut i = live_in[b * words + w] & !seen[w];
            seen[w] |= i;
            while i != 0 {
                let r = w * 64 + i.trailing_zeros() as usize;
                i &= i - 1;
                lo[r] = lo[r].min(starts[b] as u32);
            }
        }
    }
    seen.copy_from_slice(&fixed);
    for b in (0..nb).rev() {
        for w in 0..words {
            let mut o = live_out[b * words + w] & !seen[w];
            seen[w] |= o;
            while o != 0 {
                let r = w * 64 + o.trailing_zeros() as usize;
                o &= o - 1;
                hi[r] = hi[r].max(starts[b + 1] as u32 - 1);
            }
        }
    }
    let (map32, c32) = colour(0..n_r32 as usize, &fixed, &lo, &hi, n_pc);
    let (map64, c64) = colour(n_r32 as usize..n, &fixed, &lo, &hi, n_pc);
    if c32 >= n_r32 as usize && c64 >= n_r64 as usize {
        return None;
    }
    Some(Plan {
        map32,
        map64,
        n_r32: c32 as u16,
        n_r64: c64 as u16,
    })
}

/// New indices of one class's registers (`regs`, combined indices) and the class's new count:
/// the fixed ones first in their order, then the shared slots, then registers no instruction
/// names (each its own slot, so that even an index the code should not hold stays apart).
///
/// The hulls are taken in order of their start, a slot freed once a hull starts after the end
/// of the one holding it: both orders by counting sort over the `n_pc` pcs (a comparison
/// sort and a heap cost more than the rest of the pass).
fn colour(
    regs: std::ops::Range<usize>,
    fixed: &[u64],
    lo: &[u32],
    hi: &[u32],
    n_pc: usize,
) -> (Vec<u16>, usize) {
    let base = regs.start;
    let mut map = vec![0u16; regs.len()];
    let mut next = 0usize;
    // registers starting and ending at each pc, by counting sort
    let mut start_at = vec![0u32; n_pc + 1];
    let mut end_at = vec![0u32; n_pc + 1];
    let mut unnamed = Vec::new();
    for r in regs.clone() {
        if reset::get(fixed, r as u32) {
            map[r - base] = next as u16;
            next += 1;
        } else if lo[r] == u32::MAX {
            unnamed.push(r);
        } else {
            start_at[lo[r] as usize] += 1;
            end_at[hi[r] as usize] += 1;
        }
    }
    let prefix = |v: &mut Vec<u32>| {
        let mut acc = 0;
        for c in v.iter_mut() {
            let k = *c;
            *c = acc;
            acc += k;
        }
        acc as usize
    };
    let total = prefix(&mut start_at);
    prefix(&mut end_at);
    let mut by_start = vec![0u32; total];
    let mut by_end = vec![0u32; total];
    for r in regs {
        if lo[r] != u32::MAX && !reset::get(fixed, r as u32) {
            let s = &mut start_at[lo[r] as usize];
            by_start[*s as usize] = r as u32;
            *s += 1;
            let e = &mut end_at[hi[r] as usize];
            by_end[*e as usize] = r as u32;
            *e += 1;
        }
    }
    let first = next;
    // free slots, the latest freed first (its lines are the likeliest in cache)
    let mut free: Vec<u16> = Vec::new();
    let mut slots = 0usize;
    // hulls are closed: a register whose hull ends before the next one starts frees its slot
    let mut e = 0usize;
    for &r in &by_start {
        let l = lo[r as usize];
        while e < total && hi[by_end[e] as usize] < l {
            free.push(map[by_end[e] as usize - base] - first as u16);
            e += 1;
        }
        let slot = free.pop().unwrap_or_else(|| {
            slots += 1;
            slots as u16 - 1
        });
        map[r as usize - base] = first as u16 + slot;
    }
    next = first + slots;
    for r in unnamed {
        map[r - base] = next as u16;
        next += 1;
    }
    (map, next)
}

/// Calls `f` on every r32 (`false`) and r64 (`true`) register index `i` holds; `false` for a
/// form it does not know (the caller then leaves the kernel as it is). Each arm lists every
/// register field of its form: a missed one would keep an old index, which the loader's
/// test-build check (every register an instruction names is visited) catches.
pub(crate) fn visit(i: &mut Inst, f: &mut impl FnMut(&mut u16, bool)) -> bool {
    fn s<T>(x: &mut S<T>, wide: bool, f: &mut impl FnMut(&mut u16, bool)) {
        if let S::R(r) = x {
            f(r, wide)
        }
    }
    fn any(x: &mut Any, f: &mut impl FnMut(&mut u16, bool)) {
        match x {
            Any::R32(r) => f(r, false),
            Any::R64(r) => f(r, true),
            Any::Imm(_) | Any::Sink => {}
        }
    }
    fn addr(a: &mut Addr, f: &mut impl FnMut(&mut u16, bool)) {
        any(&mut a.base, f)
    }
    const N: bool = false;
    const W: bool = true;
    match i {
        Inst::Nop
        | Inst::Ret
        | Inst::Exit
        | Inst::Trap
        | Inst::Brkpt
        | Inst::AssertFail
        | Inst::Bra { .. }
        | Inst::ClusterArrive { .. }
        | Inst::ClusterWait
        | Inst::Fence { .. }
        | Inst::GriddepLaunch
        | Inst::GriddepWait
        | Inst::Setmaxnreg { .. }
        | Inst::AsyncGroupMark
        | Inst::CpAsyncGroup(_)
        | Inst::BulkGroup(_)
        | Inst::PredLogic { .. }
        | Inst::PredMov { .. }
        | Inst::MovSregPred { .. } => {}
        Inst::Bin32 { d, a, b, .. } | Inst::MulWide16 { d, a, b, .. } => {
            f(d, N);
            s(a, N, f);
            s(b, N, f);
        }
        Inst::Bin64 { d, a, b, .. } => {
            f(d, W);
            s(a, W, f);
            s(b, W, f);
        }
        Inst::Shift64 { d, a, b, .. } => {
            f(d, W);
            s(a, W, f);
            s(b, N, f);
        }
        Inst::Un32 { d, a, .. } => {
            f(d, N);
            s(a, N, f);
        }
        Inst::Un64 { d, a, .. } => {
            any(d, f);
            s(a, W, f);
        }
        Inst::MulWide32 { d, a, b, .. } => {
            f(d, W);
            s(a, N, f);
            s(b, N, f);
        }
        Inst::Mad32 { d, a, b, c, .. }
        | Inst::MadWide16 { d, a, b, c, .. }
        | Inst::Lop3 { d, a, b, c, .. }
        | Inst::Prmt { d, a, b, c, .. }
        | Inst::IntExt32 { d, a, b, c, .. }
        | Inst::Shf { d, a, b, c, .. }
        | Inst::Bfe32 { d, a, b, c, .. }
        | Inst::F32Max3 { d, a, b, c, .. }
        | Inst::F32Fma { d, a, b, c, .. }
        | Inst::CvtPackSat { d, a, b, c, .. } => {
            f(d, N);
            s(a, N, f);
            s(b, N, f);
            s(c, N, f);
        }
        Inst::Mad64 { d, a, b, c, .. }
        | Inst::Lop3_64 { d, a, b, c, .. }
        | Inst::F64Fma { d, a, b, c, .. }
        | Inst::F32x2Fma { d, a, b, c, .. } => {
            f(d, W);
            s(a, W, f);
            s(b, W, f);
            s(c, W, f);
        }
        Inst::MadWide32 { d, a, b, c, .. } => {
            f(d, W);
            s(a, N, f);
            s(b, N, f);
            s(c, W, f);
        }
        Inst::Bfe64 { d, a, b, c, .. } => {
            f(d, W);
            s(a, W, f);
            s(b, N, f);
            s(c, N, f);
        }
        Inst::Bfi32 { d, a, b, c, e } => {
            f(d, N);
            s(a, N, f);
            s(b, N, f);
            s(c, N, f);
            s(e, N, f);
        }
        Inst::Bfi64 { d, a, b, c, e } => {
            f(d, W);
            s(a, W, f);
            s(b, W, f);
            s(c, N, f);
            s(e, N, f);
        }
        Inst::Setp32 { a, b, .. } => {
            s(a, N, f);
            s(b, N, f);
        }
        Inst::Setp64 { a, b, .. } => {
            s(a, W, f);
            s(b, W, f);
        }
        Inst::Selp32 { d, a, b, .. } | Inst::F32Bin { d, a, b, .. } => {
            f(d, N);
            s(a, N, f);
            s(b, N, f);
        }
        Inst::Selp64 { d, a, b, .. }
        | Inst::F64Bin { d, a, b, .. }
        | Inst::F32x2Bin { d, a, b, .. } => {
            f(d, W);
            s(a, W, f);
            s(b, W, f);
        }
        Inst::Mov32 { d, a } | Inst::F32Un { d, a, .. } => {
            f(d, N);
            s(a, N, f);
        }
        Inst::Mov64 { d, a } | Inst::F64Un { d, a, .. } => {
            f(d, W);
            s(a, W, f);
        }
        Inst::Pack64 { d, lo, hi } => {
            f(d, W);
            s(lo, N, f);
            s(hi, N, f);
        }
        Inst::Pack32 { d, lo, hi } => {
            f(d, N);
            s(lo, N, f);
            s(hi, N, f);
        }
        Inst::Unpack64 { lo, hi, a } => {
            any(lo, f);
            any(hi, f);
            s(a, W, f);
        }
        Inst::Unpack32 { lo, hi, a } => {
            any(lo, f);
            any(hi, f);
            s(a, N, f);
        }
        Inst::Unpack32x4 { d, a } => {
            d.iter_mut().for_each(|x| any(x, f));
            s(a, N, f);
        }
        Inst::MovSreg { d, .. } | Inst::StackSave { d } => any(d, f),
        Inst::StackRestore { a } => any(a, f),
        Inst::MbarPendingCount { d, state } => {
            f(d, N);
            s(state, W, f);
        }
        Inst::Isspacep { a, .. } | Inst::Testp { a, .. } => any(a, f),
        Inst::Alloca { d, size, .. } => {
            any(d, f);
            any(size, f);
        }
        Inst::MovMatrix { d, a } => {
            f(d, N);
            f(a, N);
        }
        Inst::SetBool { d, a, b, .. } => {
            f(d, N);
            s(a, N, f);
            s(b, N, f);
        }
        Inst::CvtRsBf16x2 { d, a, b, rbits, .. } => {
            f(d, N);
            s(a, N, f);
            s(b, N, f);
            s(rbits, N, f);
        }
        Inst::Half(h) => {
            f(&mut h.d, N);
            s(&mut h.a, N, f);
            s(&mut h.b, N, f);
            s(&mut h.c, N, f);
        }
        Inst::Mixed(m) => {
            f(&mut m.d, N);
            s(&mut m.a, N, f);
            s(&mut m.b, N, f);
            s(&mut m.c, N, f);
        }
        Inst::SetpHalf(h) => {
            s(&mut h.a, N, f);
            s(&mut h.b, N, f);
        }
        Inst::AddCarry(c) => {
            any(&mut c.d, f);
            any(&mut c.a, f);
            any(&mut c.b, f);
            any(&mut c.c, f);
        }
        Inst::Cvt(c) => {
            any(&mut c.d, f);
            any(&mut c.a, f);
            if let Some(b) = &mut c.b {
                any(b, f);
            }
        }
        Inst::Ld(l) | Inst::St(l) => {
            l.regs.iter_mut().for_each(|x| any(x, f));
            addr(&mut l.addr, f);
        }
        Inst::Atom(a) => {
            if let Some(d) = &mut a.d {
                any(d, f);
            }
            addr(&mut a.addr, f);
            any(&mut a.b, f);
            if let Some(c) = &mut a.c {
                any(c, f);
            }
        }
        Inst::AtomVec(a) => {
            a.b.iter_mut().for_each(|x| any(x, f));
            if let Some(d) = &mut a.d {
                d.iter_mut().for_each(|x| any(x, f));
            }
            addr(&mut a.addr, f);
        }
        Inst::Getctarank { d, a, .. } | Inst::Cvta { d, a, .. } => {
            any(d, f);
            any(a, f);
        }
        Inst::Mapa { d, a, rank, .. } => {
            any(d, f);
            any(a, f);
            s(rank, N, f);
        }
        Inst::MovSharedSym { d, .. } => any(d, f),
        Inst::CpAsync(c) => {
            addr(&mut c.dst, f);
            addr(&mut c.src, f);
            if let Some(x) = &mut c.src_size {
                any(x, f);
            }
        }
        Inst::CpBulkG2S(c) => {
            addr(&mut c.dst, f);
            addr(&mut c.src, f);
            any(&mut c.size, f);
            addr(&mut c.mbar, f);
            if let Some(m) = &mut c.multicast {
                s(m, N, f);
            }
        }
        Inst::CpBulkS2G(c) => {
            addr(&mut c.dst, f);
            addr(&mut c.src, f);
            any(&mut c.size, f);
        }
        Inst::CpBulkS2Cluster(c) => {
            addr(&mut c.dst, f);
            addr(&mut c.src, f);
            any(&mut c.size, f);
            addr(&mut c.mbar, f);
        }
        Inst::Shfl {
            d, a, b, c, mask, ..
        } => {
            f(d, N);
            s(a, N, f);
            s(b, N, f);
            s(c, N, f);
            s(mask, N, f);
        }
        Inst::Vote { d, mask, .. } => {
            any(d, f);
            s(mask, N, f);
        }
        Inst::Redux { d, a, mask, .. } => {
            f(d, N);
            s(a, N, f);
            s(mask, N, f);
        }
        Inst::Match { d, a, mask, .. } => {
            f(d, N);
            any(a, f);
            s(mask, N, f);
        }
        Inst::Elect { d, mask, .. } => {
            any(d, f);
            s(mask, N, f);
        }
        Inst::Activemask { d } => f(d, N),
        Inst::Bar(b) => {
            s(&mut b.id, N, f);
            if let Some(c) = &mut b.count {
                s(c, N, f);
            }
            if let Some(d) = &mut b.d {
                any(d, f);
            }
        }
        Inst::BarWarpSync { mask } => s(mask, N, f),
        Inst::Mbar(m) | Inst::CpAsyncArrive(m, _) => {
            addr(&mut m.addr, f);
            if let Some(d) = &mut m.d {
                any(d, f);
            }
            if let Some(b) = &mut m.b {
                any(b, f);
            }
        }
        Inst::Tc(t) => match &mut t.op {
            TcOp::Alloc { dst, ncols, .. } => {
                addr(dst, f);
                any(ncols, f);
            }
            TcOp::Dealloc { taddr, ncols, .. } => {
                any(taddr, f);
                any(ncols, f);
            }
            TcOp::Relinquish { .. } | TcOp::Wait { .. } | TcOp::Fence { .. } => {}
            TcOp::Ld {
                taddr, dst, red, ..
            } => {
                addr(taddr, f);
                dst.iter_mut().for_each(|r| f(r, N));
                if let Some(red) = red {
                    f(&mut red.dst, N);
                }
            }
            TcOp::St { taddr, src, .. } => {
                addr(taddr, f);
                src.iter_mut().for_each(|x| any(x, f));
            }
            TcOp::Commit { mbar, mask, .. } => {
                addr(mbar, f);
                if let Some(m) = mask {
                    any(m, f);
                }
            }
            TcOp::Cp { taddr, desc, .. } => {
                addr(taddr, f);
                any(desc, f);
            }
            TcOp::Shift { taddr, .. } => addr(taddr, f),
        },
        Inst::Tma(t) => {
            addr(&mut t.map, f);
            t.coords.iter_mut().for_each(|c| s(c, N, f));
            if let Some(v) = &mut t.im2col {
                v.iter_mut().for_each(|c| s(c, N, f));
            }
            match &mut t.op {
                TmaOp::Load {
                    dst,
                    mbar,
                    multicast,
                    ..
                } => {
                    addr(dst, f);
                    addr(mbar, f);
                    if let Some(m) = multicast {
                        s(m, N, f);
                    }
                }
                TmaOp::Store { src } | TmaOp::Reduce { src, .. } => addr(src, f),
                TmaOp::Prefetch => {}
            }
        }
        Inst::BulkReduce(b) => {
            addr(&mut b.dst, f);
            addr(&mut b.src, f);
            any(&mut b.size, f);
            if let Some(m) = &mut b.mbar {
                addr(m, f);
            }
        }
        Inst::Tensormap(t) => match &mut **t {
            TensormapInst::Replace { addr: a, value, .. } => {
                addr(a, f);
                any(value, f);
            }
            TensormapInst::CpFence { dst, src, .. } => {
                addr(dst, f);
                addr(src, f);
            }
        },
        Inst::Mma(m) => {
            addr(&mut m.d, f);
            match &mut m.a {
                MmaA::Desc(a) => s(a, W, f),
                MmaA::Tmem(a) => addr(a, f),
            }
            s(&mut m.b, W, f);
            s(&mut m.idesc, N, f);
            m.dol.iter_mut().for_each(|x| s(x, N, f));
            for a in [&mut m.scale_a, &mut m.scale_b, &mut m.meta]
                .into_iter()
                .flatten()
            {
                addr(a, f);
            }
            if let Some(z) = &mut m.zcm {
                s(z, W, f);
            }
        }
        Inst::Matrix(m) => {
            m.regs.iter_mut().for_each(|r| f(r, N));
            addr(&mut m.addr, f);
        }
        Inst::MmaSync(m) => {
            for v in [&mut m.d, &mut m.a, &mut m.b, &mut m.c] {
                v.iter_mut().for_each(|x| any(x, f));
            }
        }
        Inst::Brx(b) => s(&mut b.index, N, f),
        Inst::StAsync(a) => {
            a.vals.iter_mut().for_each(|x| any(x, f));
            addr(&mut a.addr, f);
            addr(&mut a.mbar, f);
        }
        Inst::StBulk(b) => {
            addr(&mut b.addr, f);
            any(&mut b.size, f);
        }
        // calls (a kernel with one is not compacted), `vprintf`'s argument buffer, `.b128`
        // forms and wmma's fragments: not followed
        Inst::Call(_) | Inst::Vprintf { .. } | Inst::Atom128(_) | Inst::Clc(_) | Inst::Wmma(_) => {
            return false
        }
    }
    true
}

/// Renumbers every register of `code` and the reset lists by `p`; `false` (and `code` as it
/// was) where some instruction is of a form [`visit`] does not know.
pub(crate) fn apply(
    p: &Plan,
    code: &mut [Inst],
    reset_r32: &mut [u16],
    reset_r64: &mut [u16],
) -> bool {
    let mut noop = |_: &mut u16, _: bool| {};
    if !code.iter_mut().all(|i| visit(i, &mut noop)) {
        return false;
    }
    let mut map = |r: &mut u16, wide: bool| {
        *r = if wide {
            p.map64[*r as usize]
        } else {
            p.map32[*r as usize]
        }
    };
    for i in code.iter_mut() {
        visit(i, &mut map);
    }
    reset_r32.iter_mut().for_each(|r| map(r, false));
    reset_r64.iter_mut().for_each(|r| map(r, true));
    true
}

/// Test builds: the registers [`visit`] finds in each instruction are those its operands name
/// (`reset::Named`), so that no register field is left out of the renumbering.
#[cfg(test)]
pub(crate) fn assert_visit_finds_named(code: &[Inst], named: &Named) {
    let mut bad = Vec::new();
    for (pc, inst) in code.iter().enumerate() {
        let mut i = inst.clone();
        let mut seen = Vec::new();
        if !visit(&mut i, &mut |r: &mut u16, wide: bool| {
            seen.push(if wide { R64 | *r as u32 } else { *r as u32 })
        }) {
            continue;
        }
        // forms that keep none of the registers they name (`fence.proxy.tensormap`'s
        // address): nothing to renumber
        if matches!(inst, Inst::Fence { .. } | Inst::Nop) {
            continue;
        }
        let (a, b) = named.of(pc);
        let mut want: Vec<u32> = a.iter().chain(b).copied().collect();
        seen.sort_unstable();
        seen.dedup();
        want.sort_unstable();
        want.dedup();
        // a form that takes an `.L2::cache_hint` policy (a 64-bit register) ignores it
        let policy = matches!(
            inst,
            Inst::Tma(_)
                | Inst::CpAsync(_)
                | Inst::CpBulkG2S(_)
                | Inst::CpBulkS2G(_)
                | Inst::CpBulkS2Cluster(_)
                | Inst::BulkReduce(_)
                | Inst::Ld(_)
                | Inst::St(_)
                | Inst::Atom(_)
                | Inst::AtomVec(_)
        );
        let missing: Vec<u32> = want.iter().filter(|r| !seen.contains(r)).copied().collect();
        let ok = seen.iter().all(|r| want.contains(r))
            && (missing.is_empty() || policy && matches!(missing[..], [r] if r & R64 != 0));
        if !ok {
            bad.push(format!("pc {pc}: {seen:?} for {want:?} named ({inst:?})"));
        }
    }
    assert!(bad.is_empty(), "registers not visited:\n{}", bad.join("\n"));
}

#[cfg(test)]
mod tests {
    use crate::program::{Any, Inst};

    /// Which slot each register got, from the destinations of the instructions that write
    /// them (pc → the written register's new index).
    fn dest(code: &[Inst], pc: usize) -> u16 {
        match &code[pc] {
            Inst::Mov32 { d, .. } | Inst::Bin32 { d, .. } => *d,
            Inst::MovSreg { d: Any::R32(d), .. } => *d,
            Inst::Tc(t) => match &t.op {
                crate::exec::tcgen05::TcOp::Ld { dst, .. } => dst[0],
                other => panic!("pc {pc}: {other:?}"),
            },
            other => panic!("pc {pc}: {other:?}"),
        }
    }

    /// The liveness pieces: a loop-carried register (%r1) shares with nothing in its loop, but
    /// with one dead before the loop (%r0); a guarded
    /// write (pc 9) does not end %r4's range, so %r5, written while %r4 is live, gets another
    /// slot; a `tcgen05.ld` destination (%r7) and a register read before written (%r6) keep
    /// slots of their own; a divergent branch's two sides (%r8, %r9) are live together only
    /// where they are, so they may share.
    #[test]
    fn live_ranges_decide_what_shares() {
        let src = "
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<12>;
    .reg .pred %p<3>;
    mov.u32 %r0, %tid.x;
    setp.eq.u32 %p0, %r0, 0;
    mov.u32 %r1, 7;
LOOP:
    add.u32 %r1, %r1, 1;
    mov.u32 %r2, 3;
    add.u32 %r3, %r2, 1;
    setp.lt.u32 %p1, %r1, %r3;
    @%p1 bra LOOP;
    mov.u32 %r4, 5;
    @%p0 mov.u32 %r4, 6;
    mov.u32 %r5, 9;
    add.u32 %r10, %r4, %r5;
    tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r7}, [%r10];
    add.u32 %r6, %r6, %r7;
    @%p0 bra ELSE;
    mov.u32 %r8, 1;
    add.u32 %r11, %r8, %r6;
    bra END;
ELSE:
    mov.u32 %r9, 2;
    add.u32 %r11, %r9, %r6;
END:
    st.global.u32 [%r11], %r11;
    ret;
}
";
        let m = tmemu_ptx::parse(src).unwrap();
        let on = crate::loader::LoadOptions {
            compact_registers: true,
        };
        let k = crate::loader::load_with(&m, src, "k.ptx", None, &on).unwrap();
        let c = &k.code;
        let (r0, r1, r2, r3) = (dest(c, 0), dest(c, 2), dest(c, 4), dest(c, 5));
        let (r4, r5, r10) = (dest(c, 8), dest(c, 10), dest(c, 11));
        let (r7, r6) = (dest(c, 12), dest(c, 13));
        let (r8, r9) = (dest(c, 15), dest(c, 18));
        assert!(r1 != r2 && r1 != r3 && r2 != r3, "loop: {r1} {r2} {r3}");
        assert_eq!(r0, r1, "%r0 is dead before %r1 is written");
        assert_ne!(r4, r5, "a guarded write does not end %r4's range");
        assert_eq!(r8, r9, "the two sides of the branch");
        // the kept registers come first, in declaration order: %r6 (read before written),
        // %r7 (tcgen05.ld's destination) and %r10 (its address); nothing else shares them
        assert_eq!((r6, r7, r10), (0, 1, 2), "kept slots");
        assert_eq!(k.reset_r32, vec![r6, r7, r10]);
        for (i, r) in [r0, r1, r2, r3, r4, r5, r8, r9].into_iter().enumerate() {
            assert!(r > 2, "register {i} in a kept slot: {r}");
        }
        assert!(k.n_r32 < 12, "{} slots", k.n_r32);
    }
}
