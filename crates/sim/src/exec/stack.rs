//! The per-thread dynamic stack: `alloca`, `stacksave`, `stackrestore` (PTX ISA §9.7.17;
//! nvcc emits `alloca.u64 ptr, size, 16` for `alloca()`/`__builtin_alloca` in device code).
//!
//! A thread's stack lives in its `.local` memory above the loader's static frames
//! (`Kernel::local_bytes`, the lowest stack address): `Warp::stack_top` holds each lane's stack
//! pointer, a `.local` address, and is created on the first use so a kernel without `alloca`
//! keeps its old layout and costs nothing. The stack grows upward here (the ISA leaves the
//! direction and the addresses to the platform; ptr is only ever dereferenced through
//! `ld.local`/`st.local` or a `cvta.local` of it).
//!
//! Only memory below a lane's stack pointer is accessible (`Warp::local_lane`): an access to
//! memory freed by `stackrestore` or by the function's return, or past the last allocation,
//! is out of bounds (TM0501), which is what the ISA leaves undefined ("accessing deallocated
//! memory after executing stackrestore results in undefined behavior").
//!
//! DERIVED: the stack holds at most [`STACK_LIMIT`] bytes per thread, the hardware's maximum
//! local memory per thread. An `alloca` beyond it still returns its pointer (the ISA: "may
//! result in stack overflow"; only an access through ptr is undefined), and an access past
//! the limit is TM0501. tmemu does not know the launch's `cudaLimitStackSize` (1 KiB by
//! default), so an overflow of a smaller configured stack is not reported.
//!
//! What the stacks may add to the warps' memory is bounded per SM group ([`GROUP_BUDGET`]): a
//! kernel past it (thousands of threads each with hundreds of KiB of stack, which no driver
//! would launch) stops as TM0511, incomplete, instead of exhausting the host's memory.

use super::{Ctx, Flow, Warp};
use crate::error::rules;
use crate::observer::Observer;
use crate::program::Inst;

/// Local memory per thread that any stack may reach: 512 KiB (CUDA C++ Programming Guide,
/// "Maximum amount of local memory per thread", every compute capability since 2.0).
pub const STACK_LIMIT: u64 = 512 * 1024;

/// Bytes the dynamic stacks of one SM group's warps may add to their `.local` memory.
pub const GROUP_BUDGET: u64 = 256 << 20;

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    inst: &Inst,
) -> Flow {
    if mask == 0 {
        return Flow::Next;
    }
    let base = cx.env.k.local_bytes as u64;
    if w.stack_top.is_empty() {
        w.stack_top = vec![base; 32];
    }
    match inst {
        Inst::Alloca { d, size, align } => {
            let a = *align as u64;
            let mut need = 0u64;
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                // ptr and size have the instruction's type: a .u32 size is taken as 32 bits
                let n = w.read_any(*size, l);
                // saturating: a stack pointer past every address (an earlier absurd size)
                // stays there rather than wrapping
                let ptr = w.stack_top[l]
                    .checked_next_multiple_of(a)
                    .unwrap_or(u64::MAX);
                let top = ptr.saturating_add(n);
                w.stack_top[l] = top;
                w.write_any(*d, l, ptr);
                need = need.max(top.min(STACK_LIMIT));
            }
            if need > w.local_bytes as u64 && !grow(w, cx, need) {
                let msg = format!(
                    "the dynamic stacks of this SM group's warps would exceed tmemu's budget of \
                     {} MiB of local memory; tmemu cannot run it",
                    GROUP_BUDGET >> 20
                );
                cx.diag(w, w.cur_pc, mask, rules::UNMODELLED, msg);
                return Flow::Trap;
            }
        }
        Inst::StackSave { d } => {
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    let sp = w.stack_top[l];
                    w.write_any(*d, l, sp);
                }
            }
        }
        Inst::StackRestore { a } => {
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                let v = w.read_any(*a, l);
                if v < base {
                    // below the static frames: no stacksave returns such a value, and the ISA
                    // leaves "an arbitrary value" undefined; tmemu cannot say what follows
                    cx.diag(
                        w,
                        w.cur_pc,
                        1 << l,
                        rules::UNMODELLED,
                        format!(
                            "stackrestore to {v:#x}, below the thread's stack ({base:#x}): not a \
                             value stacksave returns, undefined in the PTX ISA; tmemu cannot run it"
                        ),
                    );
                    return Flow::Trap;
                }
                w.stack_top[l] = v;
            }
        }
        _ => unreachable!("stack::exec() called with {inst:?}"),
    }
    Flow::Next
}

/// Widens every lane's `.local` memory to at least `need` bytes (the layout is lane-major with
/// stride `local_bytes`), doubling so that a loop of allocations copies O(total) bytes; false
/// (nothing changed) when that would pass the group's [`GROUP_BUDGET`].
fn grow<O: Observer>(w: &mut Warp, cx: &Ctx<'_, '_, O>, need: u64) -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    let old = w.local_bytes as usize;
    let new = (need as usize).max((old * 2).min(STACK_LIMIT as usize));
    let added = 32 * (new - old) as u64;
    if cx.env.stack_bytes.load(Relaxed) + added > GROUP_BUDGET {
        return false;
    }
    cx.env.stack_bytes.fetch_add(added, Relaxed);
    let mut local = vec![0u8; new * 32];
    for (l, lane) in w.local.chunks_exact(old.max(1)).enumerate().take(32) {
        local[l * new..l * new + old].copy_from_slice(&lane[..old]);
    }
    w.local = local;
    w.local_bytes = new as u32;
    true
}
