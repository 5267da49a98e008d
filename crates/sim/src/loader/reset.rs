//! Which registers a fresh warp must zero: those some thread may read before writing.
//!
//! `Warp::reset` reuses a warp's register files for the next CTA. Zeroing all of them (22 KB
//! for a Triton matmul) is the engine's cost per warp; zeroing only the registers that can be
//! read before they are written gives the same results, because a register written before
//! every read never shows its old value.
//!
//! The analysis is a forward must-analysis ("definitely written") per thread over the control
//! flow graph, conservative wherever it is unsure:
//! - **Reads** are taken from the PTX text: every register named in an instruction's operands
//!   (a PTX instruction reads no register it does not name). Only for the lane-local forms of
//!   [`lane_local_writes`] is the destination operand excluded, and only when the decoded
//!   instruction confirms that operand 0 is exactly what it writes.
//! - **Writes** count only for those lane-local forms, and only when unguarded: each writes its
//!   destination in every lane that executes it (faulting loads write 0). Every other form
//!   writes nothing as far as the analysis knows.
//! - Registers named by any other form are **always** zeroed: such a form may read another
//!   lane's register (`shfl`, `stmatrix`, a descriptor taken from one lane), and that lane may
//!   never have written it (exited, or beyond the CTA's thread count).
//! - Control flow: branches (both ways when guarded), `brx.idx` to each listed target, `call`
//!   falls through (a callee has its own register range and is a root of its own, entered with
//!   nothing written), `ret`/`exit`/`trap` end the path (guarded: fall through too); every other
//!   instruction continues at `pc + 1`. A blocked instruction re-executes itself, which a
//!   must-analysis need not model.
//!
//! A read at a reachable instruction of a register not definitely written there is zeroed;
//! unreachable code reads nothing.

use tmemu_ptx::ast::{Instruction, Operand, OperandKind};

use super::{Scopes, Sym};
use crate::program::{Any, Inst, PSrc};

/// Registers named in each instruction's operand 0 and in its other operands, as tagged
/// indices (r32 `i` is `i`, r64 `j` is `R64 | j`: the register counts are known only after
/// every function is declared). Flat, one entry per pc in `ends` (where operand 0's
/// registers end, where the instruction's end), since two vectors per instruction were most
/// of this pass's cost.
#[derive(Clone, Debug, Default)]
pub(crate) struct Named {
    regs: Vec<u32>,
    ends: Vec<[u32; 2]>,
}

pub(crate) const R64: u32 = 1 << 31;

impl Named {
    /// The registers `i` names, through the scopes the decoder resolves them in.
    pub(crate) fn push_instruction(&mut self, sc: &Scopes<'_, '_>, i: &Instruction<'_>) {
        fn walk(sc: &Scopes<'_, '_>, o: &Operand<'_>, out: &mut Vec<u32>) {
            let mut id = |name: &str| match sc.lookup(name) {
                Some(Sym::R32(r)) => out.push(r as u32),
                Some(Sym::R64(r)) => out.push(R64 | r as u32),
                Some(Sym::R128(r)) => out.extend([R64 | r as u32, R64 | (r as u32 + 1)]),
                _ => {}
            };
            match &o.kind {
                OperandKind::Ident(x) | OperandKind::Not(x) | OperandKind::SymbolOffset(x, _) => {
                    id(x.name)
                }
                OperandKind::PredPair(x, y) => {
                    id(x.name);
                    id(y.name);
                }
                OperandKind::Address(a) => {
                    if let Some(b) = &a.base {
                        id(b.name);
                    }
                    for r in &a.rest {
                        walk(sc, r, out);
                    }
                }
                OperandKind::Vector(v) | OperandKind::List(v) => {
                    for r in v {
                        walk(sc, r, out);
                    }
                }
                OperandKind::Int(_) | OperandKind::Float(_) | OperandKind::Sink => {}
            }
        }
        let mut first_end = self.regs.len() as u32;
        for (k, o) in i.operands.iter().enumerate() {
            walk(sc, o, &mut self.regs);
            if k == 0 {
                first_end = self.regs.len() as u32;
            }
        }
        self.ends.push([first_end, self.regs.len() as u32]);
    }

    /// An instruction the loader adds (the `ret` ending a function): it names nothing.
    pub(crate) fn push_none(&mut self) {
        let end = self.regs.len() as u32;
        self.ends.push([end, end]);
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Operand 0's registers and the others' of the instruction at `pc`.
    pub(crate) fn of(&self, pc: usize) -> (&[u32], &[u32]) {
        let start = match pc {
            0 => 0,
            _ => self.ends[pc - 1][1],
        } as usize;
        let [first, end] = self.ends[pc];
        (
            &self.regs[start..first as usize],
            &self.regs[first as usize..end as usize],
        )
    }
}

/// The r32 and r64 registers `Warp::reset` must zero.
///
/// Runs once per kernel load, before the first CTA, on the thread that loads the PTX: per-pc
/// facts live in flat arrays (ranges per pc), not in a vector per instruction, since 13 600
/// small allocations were half of this function's cost on a 1 700-line Triton matmul.
///
/// Also returns the per-pc facts it found, with the registers it must zero or could not
/// follow (`need`, combined indices), for the register compaction (`compact.rs`); `None`
/// where it gave up.
#[allow(clippy::type_complexity)]
pub(crate) fn registers_to_zero<'a>(
    code: &'a [Inst],
    guards: &'a [Option<PSrc>],
    named: &Named,
    roots: &[u32],
    n_r32: u16,
    n_r64: u16,
) -> (Vec<u16>, Vec<u16>, Option<(Facts<'a>, Vec<u64>)>) {
    registers_to_zero_with(code, guards, named, roots, n_r32, n_r64, by_blocks)
}

/// [`registers_to_zero`] with the data-flow pass `flow`: it adds to `need` each register
/// read at a reachable pc where it is not definitely written, `false` if it gave up.
#[allow(clippy::type_complexity)]
fn registers_to_zero_with<'a>(
    code: &'a [Inst],
    guards: &'a [Option<PSrc>],
    named: &Named,
    roots: &[u32],
    n_r32: u16,
    n_r64: u16,
    flow: fn(&Facts<'_>, &[u32], &mut [u64]) -> bool,
) -> (Vec<u16>, Vec<u16>, Option<(Facts<'a>, Vec<u64>)>) {
    let all = || ((0..n_r32).collect(), (0..n_r64).collect(), None);
    if named.len() != code.len() || guards.len() != code.len() {
        return all();
    }
    let n = n_r32 as usize + n_r64 as usize;
    let words = n.div_ceil(64);
    let n_pc = code.len();
    let untag = |t: u32| -> u32 {
        if t & R64 != 0 {
            n_r32 as u32 + (t & !R64)
        } else {
            t
        }
    };
    // per pc: registers it writes for sure (lane-local forms, unguarded) and its reads, pc's
    // entries at `writes[write_at[pc]..write_at[pc + 1]]` (and the same for reads)
    let mut writes: Vec<u32> = Vec::new();
    let mut write_at: Vec<u32> = Vec::with_capacity(n_pc + 1);
    let mut reads: Vec<u32> = Vec::new();
    let mut read_at: Vec<u32> = Vec::with_capacity(n_pc + 1);
    write_at.push(0);
    read_at.push(0);
    let mut need = vec![0u64; words];
    let (mut first, mut dst, mut scratch) = (Vec::new(), Vec::new(), (Vec::new(), Vec::new()));
    for (pc, inst) in code.iter().enumerate() {
        let (nm_first, nm_rest) = named.of(pc);
        first.clear();
        first.extend(nm_first.iter().map(|&t| untag(t)));
        let rest = nm_rest.iter().map(|&t| untag(t));
        dst.clear();
        match lane_local_writes(inst, n_r32, &mut dst) {
            Some(Effect::ReadsOnly) => {
                // every register it names is a read of the executing lane's own value
                reads.extend(first.iter().copied().chain(rest));
            }
            Some(Effect::Writes) if confirms(&dst, &first, &mut scratch) => {
                // operand 0 is the destination; a destination also named among the sources
                // (`add r, r, 1`) is in `rest` and stays a read
                let unguarded = matches!(guards[pc], None | Some(PSrc::Const(true)));
                if unguarded {
                    writes.extend_from_slice(&dst);
                }
                reads.extend(rest);
            }
            _ => {
                // unknown effect: whatever it names is zeroed for good
                for r in first.iter().copied().chain(rest) {
                    set(&mut need, r);
                }
            }
        }
        write_at.push(writes.len() as u32);
        read_at.push(reads.len() as u32);
    }
    let facts = Facts {
        code,
        guards,
        writes,
        write_at,
        reads,
        read_at,
        n,
        words,
        blocks: std::cell::OnceCell::new(),
    };
    if !flow(&facts, roots, &mut need) {
        return all();
    }
    let r32 = (0..n_r32).filter(|&i| get(&need, i as u32)).collect();
    let r64 = (0..n_r64)
        .filter(|&j| get(&need, n_r32 as u32 + j as u32))
        .collect();
    (r32, r64, Some((facts, need)))
}

/// Per pc: the registers it writes for sure (lane-local forms, unguarded) and those it reads,
/// pc's entries at `writes[write_at[pc]..write_at[pc + 1]]` (and the same for reads), as
/// indices into bit sets of `words` words (r32 first, then r64).
pub(crate) struct Facts<'a> {
    code: &'a [Inst],
    guards: &'a [Option<PSrc>],
    writes: Vec<u32>,
    write_at: Vec<u32>,
    reads: Vec<u32>,
    read_at: Vec<u32>,
    pub(crate) n: usize,
    pub(crate) words: usize,
    /// [`blocks`], made once for this analysis and the compaction's.
    blocks: std::cell::OnceCell<(Vec<usize>, Vec<u32>)>,
}

impl Facts<'_> {
    pub(crate) fn writes_of(&self, pc: usize) -> &[u32] {
        &self.writes[self.write_at[pc] as usize..self.write_at[pc + 1] as usize]
    }

    pub(crate) fn reads_of(&self, pc: usize) -> &[u32] {
        &self.reads[self.read_at[pc] as usize..self.read_at[pc + 1] as usize]
    }

    pub(crate) fn n_pc(&self) -> usize {
        self.code.len()
    }

    /// The basic blocks from `roots` ([`blocks`]); every caller passes the same roots.
    pub(crate) fn blocks(&self, roots: &[u32]) -> &(Vec<usize>, Vec<u32>) {
        self.blocks.get_or_init(|| blocks(self, roots))
    }

    /// The pcs that may execute after `pc`, into `out`.
    pub(crate) fn succ(&self, pc: usize, out: &mut Vec<usize>) {
        out.clear();
        let guarded = !matches!(self.guards[pc], None | Some(PSrc::Const(true)));
        let next = pc + 1;
        match &self.code[pc] {
            Inst::Bra { target, .. } => {
                out.push(*target as usize);
                if guarded {
                    out.push(next);
                }
            }
            Inst::Brx(b) => {
                out.extend(b.targets.iter().map(|&t| t as usize));
                // an index outside the list falls through (exec/brx.rs)
                out.push(next);
            }
            Inst::Ret | Inst::Exit | Inst::Trap | Inst::AssertFail => {
                if guarded {
                    out.push(next);
                }
            }
            _ => out.push(next),
        }
        // a successor past the end cannot execute (the loader ends every function with ret)
        out.retain(|&s| s < self.code.len());
    }
}

/// The basic blocks: each block's first pc (then `n_pc`), and each pc's block. A block starts
/// at a root, at a target, and after a pc that does not just fall through.
fn blocks(f: &Facts<'_>, roots: &[u32]) -> (Vec<usize>, Vec<u32>) {
    let n_pc = f.code.len();
    let mut block_of = vec![u32::MAX; n_pc + 1];
    let mut next = Vec::new();
    for &r in roots {
        if (r as usize) < n_pc {
            block_of[r as usize] = 0;
        }
    }
    for pc in 0..n_pc {
        f.succ(pc, &mut next);
        if next.as_slice() != [pc + 1] {
            for &s in &next {
                block_of[s] = 0;
            }
            block_of[pc + 1] = 0;
        }
    }
    let mut starts: Vec<usize> = Vec::new();
    for pc in 0..n_pc {
        if pc == 0 || block_of[pc] == 0 {
            block_of[pc] = starts.len() as u32;
            starts.push(pc);
        } else {
            block_of[pc] = block_of[pc - 1];
        }
    }
    starts.push(n_pc);
    block_of.truncate(n_pc);
    (starts, block_of)
}

/// The forward must-analysis over basic blocks: a block's state is kept at its entry only,
/// and a block passes on its entry state plus every register it writes. The per-pc pass
/// ([`per_pc`], kept as the tests' reference) stored and intersected a state of every pc
/// (1 000 pcs × 15 words for a Triton matmul), most of `registers_to_zero`'s cost; inside a
/// block a pc's only predecessor is the one before it, so the fixpoint is the same, and the
/// reads are checked in one pass over each reached block.
fn by_blocks(f: &Facts<'_>, roots: &[u32], need: &mut [u64]) -> bool {
    let (n_pc, words) = (f.code.len(), f.words);
    let (starts, block_of) = f.blocks(roots);
    let nb = starts.len() - 1;
    let mut next = Vec::new();
    let at = |b: usize| b * words..(b + 1) * words;
    // what each block writes for sure, all of it by its end
    let mut gen = vec![0u64; nb * words];
    for b in 0..nb {
        for pc in starts[b]..starts[b + 1] {
            for &r in f.writes_of(pc) {
                set(&mut gen[at(b)], r);
            }
        }
    }
    let mut into: Vec<u64> = vec![!0u64; nb * words];
    let mut reached = vec![false; nb];
    let mut work: Vec<usize> = Vec::new();
    for &r in roots {
        let r = r as usize;
        if r < n_pc {
            let b = block_of[r] as usize;
            into[at(b)].iter_mut().for_each(|w| *w = 0);
            reached[b] = true;
            work.push(b);
        }
    }
    let mut out = vec![0u64; words];
    // the state only shrinks from all-ones, so this terminates; the bound is a backstop
    let mut budget = (nb as u64 + 1) * (f.n as u64 + 2) * 4;
    while let Some(b) = work.pop() {
        if budget == 0 {
            return false;
        }
        budget -= 1;
        for ((o, i), g) in out.iter_mut().zip(&into[at(b)]).zip(&gen[at(b)]) {
            *o = i | g;
        }
        f.succ(starts[b + 1] - 1, &mut next);
        for &s in &next {
            let s = block_of[s] as usize;
            let mut changed = !reached[s];
            reached[s] = true;
            for (d, o) in into[at(s)].iter_mut().zip(&out) {
                let v = *d & *o;
                changed |= v != *d;
                *d = v;
            }
            if changed {
                work.push(s);
            }
        }
    }
    for b in (0..nb).filter(|&b| reached[b]) {
        out.copy_from_slice(&into[at(b)]);
        for pc in starts[b]..starts[b + 1] {
            for &r in f.reads_of(pc) {
                if !get(&out, r) {
                    set(need, r);
                }
            }
            for &r in f.writes_of(pc) {
                set(&mut out, r);
            }
        }
    }
    true
}

/// The analysis pc by pc, as `registers_to_zero` ran it before the blocks: the reference of
/// `by_blocks` in the tests.
#[cfg(test)]
fn per_pc(f: &Facts<'_>, roots: &[u32], need: &mut [u64]) -> bool {
    let (n_pc, words, n) = (f.code.len(), f.words, f.n);
    let mut into: Vec<u64> = vec![!0u64; n_pc * words];
    let at = |pc: usize| pc * words..(pc + 1) * words;
    let mut reached = vec![false; n_pc];
    let mut work: Vec<usize> = Vec::new();
    for &r in roots {
        let r = r as usize;
        if r < n_pc {
            into[at(r)].iter_mut().for_each(|w| *w = 0);
            reached[r] = true;
            work.push(r);
        }
    }
    let mut out = vec![0u64; words];
    let mut next = Vec::new();
    let mut budget = (n_pc as u64 + 1) * (n as u64 + 2) * 4;
    while let Some(pc) = work.pop() {
        if budget == 0 {
            return false;
        }
        budget -= 1;
        out.copy_from_slice(&into[at(pc)]);
        for &r in f.writes_of(pc) {
            set(&mut out, r);
        }
        f.succ(pc, &mut next);
        for &s in &next {
            let mut changed = !reached[s];
            reached[s] = true;
            for (d, o) in into[at(s)].iter_mut().zip(&out) {
                let v = *d & *o;
                changed |= v != *d;
                *d = v;
            }
            if changed {
                work.push(s);
            }
        }
    }
    for pc in 0..n_pc {
        if !reached[pc] {
            continue;
        }
        for &r in f.reads_of(pc) {
            if !get(&into[at(pc)], r) {
                set(need, r);
            }
        }
    }
    true
}

/// [`registers_to_zero`] with the per-pc analysis, for the tests to compare.
#[cfg(test)]
pub(crate) fn registers_to_zero_per_pc(
    code: &[Inst],
    guards: &[Option<PSrc>],
    named: &Named,
    roots: &[u32],
    n_r32: u16,
    n_r64: u16,
) -> (Vec<u16>, Vec<u16>) {
    let (r32, r64, _) = registers_to_zero_with(code, guards, named, roots, n_r32, n_r64, per_pc);
    (r32, r64)
}

#[inline]
pub(crate) fn set(bits: &mut [u64], r: u32) {
    if let Some(w) = bits.get_mut(r as usize / 64) {
        *w |= 1 << (r % 64);
    }
}

#[inline]
pub(crate) fn get(bits: &[u64], r: u32) -> bool {
    bits.get(r as usize / 64)
        .is_some_and(|w| w >> (r % 64) & 1 != 0)
}

/// Whether operand 0's registers are exactly the decoded destinations (so that `rest` holds
/// every register the instruction reads).
fn confirms(dst: &[u32], first: &[u32], scratch: &mut (Vec<u32>, Vec<u32>)) -> bool {
    let (a, b) = scratch;
    a.clear();
    a.extend_from_slice(dst);
    b.clear();
    b.extend_from_slice(first);
    a.sort_unstable();
    a.dedup();
    b.sort_unstable();
    b.dedup();
    a == b
}

/// What the analysis knows of a lane-local form: each executing lane reads only its own lane
/// of the registers the instruction names.
enum Effect {
    /// Operand 0 names exactly the registers put in `dst` (combined indices), written in
    /// every executing lane; the other operands are the reads.
    Writes,
    /// Writes no register; every register it names is a read.
    ReadsOnly,
}

/// The [`Effect`] of a lane-local form (its destinations appended to `dst`), `None` for every
/// other form. Each arm was checked against its handler in `exec/` (int, float, cvt, memory,
/// control).
fn lane_local_writes(inst: &Inst, n_r32: u16, dst: &mut Vec<u32>) -> Option<Effect> {
    let r64 = |d: u16| n_r32 as u32 + d as u32;
    let any = |a: Any, dst: &mut Vec<u32>| match a {
        Any::R32(i) => dst.push(i as u32),
        Any::R64(i) => dst.push(n_r32 as u32 + i as u32),
        Any::Imm(_) | Any::Sink => {}
    };
    match inst {
        Inst::Bin32 { d, .. }
        | Inst::Un32 { d, .. }
        | Inst::MulWide16 { d, .. }
        | Inst::MadWide16 { d, .. }
        | Inst::Mad32 { d, .. }
        | Inst::Lop3 { d, .. }
        | Inst::Prmt { d, .. }
        | Inst::IntExt32 { d, .. }
        | Inst::Shf { d, .. }
        | Inst::Bfe32 { d, .. }
        | Inst::Bfi32 { d, .. }
        | Inst::Selp32 { d, .. }
        | Inst::Mov32 { d, .. }
        | Inst::Pack32 { d, .. }
        | Inst::F32Bin { d, .. }
        | Inst::F32Max3 { d, .. }
        | Inst::F32Fma { d, .. }
        | Inst::F32Un { d, .. } => dst.push(*d as u32),
        Inst::Bin64 { d, .. }
        | Inst::Shift64 { d, .. }
        | Inst::MulWide32 { d, .. }
        | Inst::Mad64 { d, .. }
        | Inst::MadWide32 { d, .. }
        | Inst::Lop3_64 { d, .. }
        | Inst::Bfe64 { d, .. }
        | Inst::Bfi64 { d, .. }
        | Inst::Selp64 { d, .. }
        | Inst::Mov64 { d, .. }
        | Inst::Pack64 { d, .. }
        | Inst::F64Bin { d, .. }
        | Inst::F64Fma { d, .. }
        | Inst::F64Un { d, .. }
        | Inst::F32x2Bin { d, .. }
        | Inst::F32x2Fma { d, .. } => dst.push(r64(*d)),
        Inst::Un64 { d, .. } | Inst::MovSreg { d, .. } | Inst::Cvta { d, .. } => any(*d, dst),
        Inst::MovSharedSym { d, .. } => any(*d, dst),
        Inst::Alloca { d, .. } | Inst::StackSave { d } => any(*d, dst),
        Inst::Unpack64 { lo, hi, .. } | Inst::Unpack32 { lo, hi, .. } => {
            any(*lo, dst);
            any(*hi, dst);
        }
        Inst::Unpack32x4 { d, .. } => d.iter().for_each(|&r| any(r, dst)),
        Inst::Cvt(c) => any(c.d, dst),
        Inst::Ld(i) => i.regs.iter().for_each(|&r| any(r, dst)),
        // predicates are kept zeroed by `Warp::reset`; `st` reads its address and values
        Inst::Setp32 { .. }
        | Inst::Setp64 { .. }
        | Inst::PredLogic { .. }
        | Inst::PredMov { .. }
        | Inst::MovSregPred { .. }
        | Inst::Isspacep { .. }
        | Inst::StackRestore { .. }
        | Inst::Bra { .. }
        | Inst::St(_) => return Some(Effect::ReadsOnly),
        _ => return None,
    }
    Some(Effect::Writes)
}
