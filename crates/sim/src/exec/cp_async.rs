//! The warp-wide `cp.async.{ca,cg}.shared{::cta}.global` (4, 8 or 16 bytes, with or without
//! a source size): one bounds and alignment scan of the warp's destinations and one of its
//! sources, then unchecked copies, lane by lane in lane order.
//!
//! The per-lane path (`memory::exec_copy`) stays the reference: whenever this one cannot
//! prove that no lane faults it returns false having touched nothing, and the per-lane path
//! runs and reports every fault at its lane exactly as before. In particular:
//!
//! - A destination must lie in the executing CTA's window (rank bits 0 or its own rank),
//!   aligned to the copy size, with all `cp-size` bytes inside its shared memory (the bytes
//!   past the source size are zero-filled there, so all of them are written).
//! - A lane whose source size (clamped to `cp-size`, as the per-lane path does) is 0 reads no
//!   source byte, so its source address is not checked (Triton's masked chunks). Every other
//!   lane's source must be aligned to the copy size with all `cp-size` bytes in one global
//!   buffer, even when it reads fewer: stricter than needed, so a partial chunk at the very
//!   end of a buffer takes the per-lane path, which copies and reports the same.
//! - The per-lane path demands no alignment of `cp.async` addresses (it steps through the
//!   copy in bytes where 4-byte steps are misaligned); this path demands it so that its
//!   loads are naturally aligned, and leaves a misaligned lane to the per-lane path.
//!
//! Events: neither path reports the copy's loads and stores as thread accesses (they go
//! through `memory::{load, store}`, which are not observed). Instead the warp-instruction's
//! copies are reported as one asynchronous op (`OpKind::CpAsync`): by this path from the
//! offsets its scans computed ([`observe_offsets`]), else by [`observe`] from the registers
//! before the per-lane path runs, the same events either way (test
//! `cp_async_events_equal_the_per_lane_path`); the race model completes it where each thread
//! observes it (`cp.async.wait_group`, `wait_all`, `cp.async.mbarrier.arrive`).
//!
//! Copies complete at issue (the engine's `immediate` completion policy, see memory.rs), so
//! the source bytes are read and the destination written here.

use super::memory::{fast_ok, lane_addrs, mbar_guard, shared_offsets};
use super::{Ctx, Warp};
use crate::mem::{GlobalSpan, SHARED_BASE};
use crate::observer::{AccessKind, AsyncId, MemSpace, Observer, OpKind, Place};
use crate::program::{Any, CpAsyncInst};

/// Runs `c` for the lanes of `mask` when no lane can fault; returns false, having touched
/// nothing, otherwise (or under an observer that wants per-lane memory events).
#[inline]
pub(super) fn warp<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    c: &CpAsyncInst,
) -> bool {
    if mask == 0 || !fast_ok(cx) {
        return false;
    }
    let size = u32::from(c.size);
    if mask == u32::MAX && full_warp(w, cx, c, size) {
        return true;
    }
    let n = source_sizes(w, c.src_size, size);
    // lanes that read at least one source byte
    let reads = match c.src_size {
        None => mask,
        Some(_) => super::scan::nonzero_lanes(&n) & mask,
    };
    let src = lane_addrs(w, c.src);
    let span = if reads != 0 {
        match cx.env.global.lanes_span(&src, reads, size, size) {
            Some(s) => Some(s),
            None => return false,
        }
    } else {
        None
    };
    let dst = lane_addrs(w, c.dst);
    let me = cx.me;
    let sh = &mut cx.ctas[me].shared[..];
    let Some(offs) = shared_offsets(&dst, mask, size, size, sh.len(), me) else {
        return false;
    };
    let p = sh.as_mut_ptr();
    // Every lane active and reading its whole chunk (Triton's unmasked tiles, the 1024³
    // benchmark's every copy): a straight loop of constant-size copies, no per-lane test of
    // the source size. `n[l] <= size`, so the sum is 32·size exactly when every lane is full.
    if let (u32::MAX, Some(span)) = (mask, span) {
        if n.iter().sum::<u32>() == 32 * size {
            // SAFETY (each arm): as below, every lane reading `size` bytes
            unsafe {
                match size {
                    16 => copy_full_warp::<16>(span, &src, p, &offs),
                    8 => copy_full_warp::<8>(span, &src, p, &offs),
                    _ => copy_full_warp::<4>(span, &src, p, &offs),
                }
            }
            observe_offsets(w, cx, mask, size, &offs, Sources::Lanes(&src, &n));
            mbar_guard(w, cx, "cp.async write", mask, me, &offs, size);
            return true;
        }
    }
    // SAFETY (each arm): `lanes_span` proved [src, src + size) of every reading lane inside
    // the span's buffer, src a multiple of size; `shared_offsets` proved [o, o + size) of
    // every lane of `mask` inside `sh`.
    unsafe {
        match size {
            16 => copy_lanes::<16>(span, &src, p, &offs, &n, mask),
            8 => copy_lanes::<8>(span, &src, p, &offs, &n, mask),
            _ => copy_lanes::<4>(span, &src, p, &offs, &n, mask),
        }
    }
    observe_offsets(w, cx, mask, size, &offs, Sources::Lanes(&src, &n));
    mbar_guard(w, cx, "cp.async write", mask, me, &offs, size);
    true
}

/// The full warp whose lanes all read their whole chunk or all read none (Triton's tiles:
/// every copy of the 1024³ benchmark), with the destination in a 32-bit register and the
/// source in a 64-bit one (the forms nvcc and Triton emit): the shared and global scans
/// write each lane's offset as they check it, so the copy is two array reads and the moves
/// per lane, with no `[u64; 32]` of addresses and no per-lane subtraction (≈ 1 080 host
/// instructions per warp-instruction through the general path below; perf.md, session 9).
/// It accepts exactly what the general path accepts for such a warp, except for lanes that
/// name their CTA's rank and buffers of 2 GiB or more, and copies the same bytes in the same
/// lane order. Returns false, having touched nothing, for any other shape or any lane the
/// scans refuse: the general path then decides, as it did before this one existed.
#[inline(always)]
fn full_warp<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, c: &CpAsyncInst, size: u32) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 detected just now
        return unsafe { full_warp_avx2(w, cx, c, size) };
    }
    full_warp_with::<Base, O>(w, cx, c, size)
}

/// [`full_warp_with`] compiled for AVX2, its scans eight lanes per instruction (≈ 100 host
/// instructions per warp-instruction fewer than SSE2's four).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn full_warp_avx2<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    c: &CpAsyncInst,
    size: u32,
) -> bool {
    full_warp_with::<Avx2, O>(w, cx, c, size)
}

/// The scans [`full_warp_with`] runs: `scan`'s (SSE2 on x86-64) or `scan::avx2`'s.
trait Scans {
    fn all_or_none(v: &[u32; 32], size: u32) -> Option<bool>;
    fn global_offsets(r: &[u64; 32], add: u64, room: u32, amask: u32, o: &mut [u32; 32]) -> bool;
    fn shared_offsets_own(r: &[u32; 32], add: u32, amask: u32, lim: u32, o: &mut [u32; 32])
        -> bool;
}

struct Base;

impl Scans for Base {
    #[inline(always)]
    fn all_or_none(v: &[u32; 32], size: u32) -> Option<bool> {
        super::scan::all_or_none(v, size)
    }
    #[inline(always)]
    fn global_offsets(r: &[u64; 32], add: u64, room: u32, amask: u32, o: &mut [u32; 32]) -> bool {
        super::scan::global_offsets(r, add, room, amask, o)
    }
    #[inline(always)]
    fn shared_offsets_own(
        r: &[u32; 32],
        add: u32,
        amask: u32,
        lim: u32,
        o: &mut [u32; 32],
    ) -> bool {
        super::scan::shared_offsets_own(r, add, amask, lim, o)
    }
}

/// Only ever run inside [`full_warp_avx2`], on a CPU with AVX2 (the SAFETY of each call).
#[cfg(target_arch = "x86_64")]
struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Scans for Avx2 {
    #[inline(always)]
    fn all_or_none(v: &[u32; 32], size: u32) -> Option<bool> {
        // SAFETY: see `Avx2`
        unsafe { super::scan::avx2::all_or_none(v, size) }
    }
    #[inline(always)]
    fn global_offsets(r: &[u64; 32], add: u64, room: u32, amask: u32, o: &mut [u32; 32]) -> bool {
        // SAFETY: see `Avx2`
        unsafe { super::scan::avx2::global_offsets(r, add, room, amask, o) }
    }
    #[inline(always)]
    fn shared_offsets_own(
        r: &[u32; 32],
        add: u32,
        amask: u32,
        lim: u32,
        o: &mut [u32; 32],
    ) -> bool {
        // SAFETY: see `Avx2`
        unsafe { super::scan::avx2::shared_offsets_own(r, add, amask, lim, o) }
    }
}

/// The body of [`full_warp`], with the scans of `S`.
#[inline(always)]
fn full_warp_with<S: Scans, O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    c: &CpAsyncInst,
    size: u32,
) -> bool {
    // whether the lanes read (all of them) or not (none): the source size clamped to `size`
    let reads = match c.src_size {
        None => true,
        Some(Any::R32(r)) => match S::all_or_none(&w.r32[r as usize], size) {
            Some(reads) => reads,
            None => return false,
        },
        _ => return false,
    };
    let (Any::R32(d), Any::R64(s)) = (c.dst.base, c.src.base) else {
        return false;
    };
    let mut soffs = [0u32; 32];
    let span = if reads {
        // the source's address `r + offset` wraps as `lane_addrs` computes it
        let regs = &w.r64[s as usize];
        match cx.env.global.warp_offsets(
            regs,
            c.src.offset as u64,
            size,
            &mut soffs,
            S::global_offsets,
        ) {
            Some(span) => Some(span),
            None => return false,
        }
    } else {
        None
    };
    let sh = &mut cx.ctas[cx.me].shared[..];
    // below 2^24 with the window's base: what `shared_offsets_own` needs to decide as
    // `shared_offsets` does
    let limit = match sh.len().checked_sub(size as usize) {
        Some(l) if l + (SHARED_BASE as usize) < 1 << 24 => l as u32,
        _ => return false,
    };
    let mut doffs = [0u32; 32];
    // the low 32 bits of `r + offset`, as `shared_bad_lanes` reads `lane_addrs`'s sum
    let add = (c.dst.offset as u32).wrapping_sub(SHARED_BASE);
    let regs = &w.r32[d as usize];
    if !S::shared_offsets_own(regs, add, size - 1, limit, &mut doffs) {
        return false;
    }
    let p = sh.as_mut_ptr();
    // SAFETY (each arm): `warp_offsets` proved [o, o + size) of every lane's source offset
    // inside the span's buffer, o a multiple of size; `shared_offsets_own` proved
    // [o, o + size) of every destination offset inside `sh`.
    unsafe {
        match (span, size) {
            (Some(span), 16) => copy_offsets::<16>(span, &soffs, p, &doffs),
            (Some(span), 8) => copy_offsets::<8>(span, &soffs, p, &doffs),
            (Some(span), _) => copy_offsets::<4>(span, &soffs, p, &doffs),
            // no lane reads a byte: every destination chunk zero-filled, in lane order
            (None, _) => {
                for &o in doffs.iter() {
                    std::ptr::write_bytes(p.add(o as usize), 0, size as usize);
                }
            }
        }
    }
    let src = match span {
        Some(span) => Sources::Offsets(span.addr(), &soffs),
        None => Sources::None,
    };
    observe_offsets(w, cx, u32::MAX, size, &doffs, src);
    // TM0233: one compare unless the CTA has a valid mbarrier
    mbar_guard(w, cx, "cp.async write", u32::MAX, cx.me, &doffs, size);
    true
}

/// [`copy_full_warp`] from source offsets in the span's buffer: lane by lane in lane order,
/// each lane's `S` bytes in one 16-byte move ([`GlobalSpan::copy16_at`]) or one naturally
/// aligned 4- or 8-byte relaxed load (the shared stores are the CTA's own plain bytes).
/// Not inlined: the scans then leave the offsets in the two arrays, one load each per lane,
/// where inlined LLVM kept them in vector registers and spent two instructions extracting
/// each (≈ 8 instead of 4 per 16-byte lane).
///
/// # Safety
/// For every lane `l`: `[doffs[l], doffs[l] + S)` inside the allocation at `p`, and
/// `[soffs[l], soffs[l] + S)` inside `span`'s buffer with `soffs[l]` a multiple of `S`.
/// How far past each lane's source the copy prefetches. A K loop's `cp.async` of a K-major
/// tile reads each row 128 bytes (64 f16) at a time, and its next stage reads the next 128:
/// rows of a large operand lie a page or more apart, too many streams for the hardware's
/// prefetcher, so without the hint most sources miss the cache (the copy was ~10 % of issue
/// 7's benchmark at one thread, nearly all of it waiting on those loads; with it, 0.93 of
/// the wall time; 256 bytes ahead gained nothing more). A prefetch never faults, so one past
/// the buffer costs nothing but the hint.
const PREFETCH_AHEAD: usize = 128;

#[inline(never)]
unsafe fn copy_offsets<const S: u32>(
    span: GlobalSpan<'_>,
    soffs: &[u32; 32],
    p: *mut u8,
    doffs: &[u32; 32],
) {
    for l in 0..32 {
        let (s, d) = (soffs[l] as usize, p.add(doffs[l] as usize));
        span.prefetch_at(s + PREFETCH_AHEAD);
        match S {
            16 => span.copy16_at(s, d),
            8 => write_le(d, 8, span.load_at(s, 8)),
            _ => write_le(d, 4, span.load_at(s, 4)),
        }
    }
}

/// Reports the `cp.async` of the lanes of `mask` to the observer (only when it
/// `wants_memory`): one async op that writes each lane's `cp-size` destination bytes in shared
/// memory and reads its source-size bytes of global memory (PTX ISA §9.7.9.25.3.1). The lanes'
/// byte ranges are sorted and merged first, so the observer gets the few maximal ranges of the
/// warp (Triton's swizzled 16-byte chunks of a 128-byte row are out of lane order but one
/// range) instead of up to 32 per side. Lanes whose address does not resolve are left out
/// (the copy reports their fault). The engine copies at issue; the op completes at once and
/// joins each issuing thread's open cp.async-group, so an observer decides when a thread
/// observes it.
pub(super) fn observe<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, mask: u32, c: &CpAsyncInst) {
    if mask == 0 || !cx.obs.wants_memory() {
        return;
    }
    let id = cx.tc.async_id();
    let at = cx.at(w, mask);
    cx.obs.async_issue(at, id, OpKind::CpAsync);
    let size = u32::from(c.size);
    let dst_addrs = lane_addrs(w, c.dst);
    let src_addrs = lane_addrs(w, c.src);
    let n = source_sizes(w, c.src_size, size);
    let mut dst = [(0u64, 0u64); 32];
    let mut src = [(0u64, 0u64); 32];
    let (nd, ns) = lane_items(
        &dst_addrs, &src_addrs, &n, mask, size, cx.me, &mut dst, &mut src,
    );
    let mut ranges = [(0u64, 0u64); 32];
    let n = match chunk_ranges(&dst[..nd], u64::from(size), &mut ranges) {
        Some(n) => n,
        None => merged_ranges(&mut dst[..nd], &mut ranges),
    };
    for &(s, e) in &ranges[..n] {
        let place = Place::Mem {
            space: MemSpace::Shared {
                cta: (s >> 32) as u32,
            },
            addr: s & 0xffff_ffff,
            len: e - s,
        };
        cx.obs.async_access(id, place, AccessKind::Write);
    }
    let (lo, hi) = (src[..ns].iter()).fold((u64::MAX, 0), |(lo, hi), &(a, n)| {
        (lo.min(a), hi.max(a.saturating_add(n)))
    });
    if !(lo < hi && cx.obs.ignores_global_read(lo, hi)) {
        report_source_reads(cx, id, &mut src[..ns]);
    }
    cx.obs.async_complete(id, cx.out.warp_instructions);
    cx.obs.cp_async_add(at, id);
}

/// Reports the source items `(address, bytes)` of copy `id` as their maximal ranges of
/// global memory read.
fn report_source_reads<O: Observer>(
    cx: &mut Ctx<'_, '_, O>,
    id: AsyncId,
    items: &mut [(u64, u64)],
) {
    let mut ranges = [(0u64, 0u64); 32];
    let n = merged_ranges(items, &mut ranges);
    for &(s, e) in &ranges[..n] {
        let place = Place::Mem {
            space: MemSpace::Global,
            addr: s,
            len: e - s,
        };
        cx.obs.async_access(id, place, AccessKind::Read);
    }
}

/// The source bytes of the lanes a warp-wide copy reads, as its scans left them.
enum Sources<'a> {
    /// No lane reads a byte.
    None,
    /// Every lane reads its whole chunk, at the buffer address plus its offset.
    Offsets(u64, &'a [u32; 32]),
    /// Lane `l` reads `n[l]` bytes (at most the copy size; 0: none) at `addrs[l]`.
    Lanes(&'a [u64; 32], &'a [u32; 32]),
}

/// [`observe`] of a copy the warp-wide path made, from what its scans computed: each lane of
/// `mask` wrote `size` bytes at `doffs[l]` (a multiple of `size`) in the executing CTA's
/// window, and read `src`. The same events `observe` reports from the registers (test
/// `cp_async_events_equal_the_per_lane_path`) without computing the addresses, lane items and
/// sorted ranges again (~1 600 host instructions per warp-instruction of a checked
/// matmul_fp16_div16_bench1024, perf.md session 12), the destination ranges from
/// [`line_ranges`], and the source lanes not even listed when the observer ignores their
/// extent (read-only inputs).
#[inline(always)]
fn observe_offsets<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    size: u32,
    doffs: &[u32; 32],
    src: Sources<'_>,
) {
    if !cx.obs.wants_memory() {
        return;
    }
    observe_offsets_cold(w, cx, mask, size, doffs, src);
}

#[inline(never)]
fn observe_offsets_cold<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    size: u32,
    doffs: &[u32; 32],
    src: Sources<'_>,
) {
    let id = cx.tc.async_id();
    let at = cx.at(w, mask);
    cx.obs.async_issue(at, id, OpKind::CpAsync);
    let mut out = [(0u32, 0u32); 32];
    let k = line_ranges(doffs, mask, size.trailing_zeros(), &mut out);
    cx.obs.cp_async_writes(id, cx.me as u32, &out[..k]);
    // the reading lanes' extent, then (unless the observer ignores it) their items
    let (lo, hi) = match src {
        Sources::None => (u64::MAX, 0),
        Sources::Offsets(base, offs) => {
            let (lo, hi) = offsets_extent(offs);
            (base + u64::from(lo), base + u64::from(hi) + u64::from(size))
        }
        Sources::Lanes(addrs, n) => {
            let (mut lo, mut hi) = (u64::MAX, 0u64);
            for l in 0..32 {
                let on = mask >> l & 1 != 0 && n[l] != 0;
                lo = lo.min(if on { addrs[l] } else { u64::MAX });
                hi = hi.max(if on {
                    addrs[l].saturating_add(u64::from(n[l]))
                } else {
                    0
                });
            }
            (lo, hi)
        }
    };
    if lo < hi && !cx.obs.ignores_global_read(lo, hi) {
        let mut items = [(0u64, 0u64); 32];
        let ns = match src {
            Sources::None => 0,
            Sources::Offsets(base, offs) => {
                for (x, &o) in items.iter_mut().zip(offs.iter()) {
                    *x = (base + u64::from(o), u64::from(size));
                }
                32
            }
            Sources::Lanes(addrs, n) => {
                let mut ns = 0;
                for l in 0..32 {
                    if mask >> l & 1 != 0 && n[l] != 0 {
                        items[ns] = (addrs[l], u64::from(n[l]));
                        ns += 1;
                    }
                }
                ns
            }
        };
        report_source_reads(cx, id, &mut items[..ns]);
    }
    cx.obs.async_complete(id, cx.out.warp_instructions);
    cx.obs.cp_async_add(at, id);
}

/// The maximal ranges `[start, end)` covered by the chunks `[offs[l], offs[l] + 2^shift)` of
/// the lanes of `mask` (each offset a multiple of the chunk size), in address order; returns
/// how many. Chunk `c` (its offset over the chunk size) is bit `c % 64` of line `c / 64`: the
/// lanes' lines and bits come from [`line_bits`] (a warp's 16-byte chunks of four swizzled
/// 128-byte rows, Triton's A tile, are one line; its B tile's two 64-column halves, 8 KiB
/// apart, two lines that alternate every 8 lanes), the few lines are sorted, and their runs
/// of ones joined across lines. No sort of the lanes: [`chunk_ranges`] and [`merged_ranges`]
/// took ~620 and ~1 450 host instructions per such warp, this ~750 with the scalar
/// `line_bits` and ~310 with AVX2's (perf.md, session 13).
fn line_ranges(offs: &[u32; 32], mask: u32, shift: u32, out: &mut [(u32, u32); 32]) -> usize {
    // A whole warp whose chunks are 32 consecutive ones (Triton's A tile: four swizzled
    // 128-byte rows) is one range, found without the lines (~40 AVX2 instructions against
    // ~310; half of matmul_fp16_div16_bench1024's copies).
    #[cfg(target_arch = "x86_64")]
    if mask == u32::MAX && std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 detected just now
        if let Some(c) = unsafe { avx2_lines::one_block(offs, shift) } {
            out[0] = (c << shift, (c + 32) << shift);
            return 1;
        }
    }
    let (mut line, mut bits) = ([0u32; 32], [0u64; 32]);
    let nl = line_bits(offs, mask, shift, &mut line, &mut bits);
    runs_of_lines(&mut line[..nl], &mut bits[..nl], shift, out)
}

/// The lines of the lanes of `mask` (in the order of their lowest lane) and each line's
/// bits; returns how many lines. AVX2 where the CPU has it, unless the lanes span more than
/// [`avx2_lines::MAX_LINES`] lines.
#[inline(always)]
fn line_bits(
    offs: &[u32; 32],
    mask: u32,
    shift: u32,
    line: &mut [u32; 32],
    bits: &mut [u64; 32],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 detected just now
        if let Some(nl) = unsafe { avx2_lines::line_bits(offs, mask, shift, line, bits) } {
            return nl;
        }
    }
    line_bits_scalar(offs, mask, shift, line, bits)
}

/// [`line_bits`] lane by lane, with the last line found at hand (a vector pass for every
/// lane's line plus one vector compare per line present, compiled for baseline x86-64, was
/// slower: perf.md session 12).
fn line_bits_scalar(
    offs: &[u32; 32],
    mask: u32,
    shift: u32,
    line: &mut [u32; 32],
    bits: &mut [u64; 32],
) -> usize {
    let (mut nl, mut cur) = (0usize, 0usize);
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let c = offs[l] >> shift;
        let (ln, bit) = (c >> 6, 1u64 << (c & 63));
        if cur >= nl || line[cur] != ln {
            cur = match line[..nl].iter().position(|&x| x == ln) {
                Some(i) => i,
                None => {
                    line[nl] = ln;
                    bits[nl] = 0;
                    nl += 1;
                    nl - 1
                }
            };
        }
        bits[cur] |= bit;
    }
    nl
}

/// The ranges of [`line_ranges`] from distinct lines and their bits, in any order.
fn runs_of_lines(
    line: &mut [u32],
    bits: &mut [u64],
    shift: u32,
    out: &mut [(u32, u32); 32],
) -> usize {
    let nl = line.len();
    // insertion sort: one or two lines in the warps that matter
    for i in 1..nl {
        let mut j = i;
        while j > 0 && line[j - 1] > line[j] {
            line.swap(j - 1, j);
            bits.swap(j - 1, j);
            j -= 1;
        }
    }
    let mut k = 0usize;
    for i in 0..nl {
        let (base, mut b) = (line[i] << 6, bits[i]);
        while b != 0 {
            let first = b.trailing_zeros();
            let run = (!(b >> first)).trailing_zeros();
            let (s, e) = ((base + first) << shift, (base + first + run) << shift);
            // a run reaching the top of its line may continue in the next
            match k.checked_sub(1).map(|j| &mut out[j]) {
                Some(r) if r.1 == s => r.1 = e,
                _ => {
                    out[k] = (s, e);
                    k += 1;
                }
            }
            b = if first + run >= 64 {
                0
            } else {
                b & !((1u64 << (first + run)) - 1)
            };
        }
    }
    k
}

/// The lowest and highest of 32 offsets: AVX2's unsigned minimum and maximum where the CPU
/// has them (baseline x86-64's SSE2 has none for 32 bits, and its emulation was ~110 host
/// instructions of each observed warp-wide `cp.async`, perf.md session 13).
#[inline(always)]
fn offsets_extent(offs: &[u32; 32]) -> (u32, u32) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 detected just now
        return unsafe { avx2_lines::extent(offs) };
    }
    offsets_extent_scalar(offs)
}

#[inline(always)]
fn offsets_extent_scalar(offs: &[u32; 32]) -> (u32, u32) {
    offs.iter()
        .fold((u32::MAX, 0u32), |(lo, hi), &o| (lo.min(o), hi.max(o)))
}

#[cfg(target_arch = "x86_64")]
mod avx2_lines {
    use std::arch::x86_64::*;

    /// More lines than this (scattered lanes) are left to the scalar walk: each line costs a
    /// pass over the 32 lanes here.
    pub(super) const MAX_LINES: usize = 4;

    /// [`super::line_bits_scalar`] eight lanes per instruction: every lane's line and its
    /// chunk's bit (a 64-bit variable shift) once, then per line present one compare of
    /// all lines against it, whose mask selects the bits to OR. `None` (with `line` and
    /// `bits` partly written) past [`MAX_LINES`] lines.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn line_bits(
        offs: &[u32; 32],
        mask: u32,
        shift: u32,
        line: &mut [u32; 32],
        bits: &mut [u64; 32],
    ) -> Option<usize> {
        let count = _mm_cvtsi32_si128(shift as i32);
        let lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        let (one, low6) = (_mm256_set1_epi64x(1), _mm256_set1_epi32(63));
        let mut lines = [_mm256_setzero_si256(); 4];
        let mut bit = [_mm256_setzero_si256(); 8];
        for q in 0..4 {
            let c = _mm256_srl_epi32(
                _mm256_loadu_si256(offs.as_ptr().add(8 * q) as *const __m256i),
                count,
            );
            let m = _mm256_and_si256(_mm256_set1_epi32((mask >> (8 * q)) as i32), lane_bit);
            let inactive = _mm256_cmpeq_epi32(m, _mm256_setzero_si256());
            // an inactive lane's line is all ones, which no chunk below 2^32 has
            lines[q] = _mm256_or_si256(_mm256_srli_epi32(c, 6), inactive);
            let p = _mm256_and_si256(c, low6);
            bit[2 * q] = _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(p)));
            bit[2 * q + 1] =
                _mm256_sllv_epi64(one, _mm256_cvtepu32_epi64(_mm256_extracti128_si256(p, 1)));
        }
        let (mut rest, mut nl) = (mask, 0usize);
        while rest != 0 {
            if nl == MAX_LINES {
                return None;
            }
            let ln = offs[rest.trailing_zeros() as usize] >> shift >> 6;
            let want = _mm256_set1_epi32(ln as i32);
            let (mut acc, mut on) = (_mm256_setzero_si256(), 0u32);
            for q in 0..4 {
                let e = _mm256_cmpeq_epi32(lines[q], want);
                on |= (_mm256_movemask_ps(_mm256_castsi256_ps(e)) as u32) << (8 * q);
                let e0 = _mm256_cvtepi32_epi64(_mm256_castsi256_si128(e));
                let e1 = _mm256_cvtepi32_epi64(_mm256_extracti128_si256(e, 1));
                acc = _mm256_or_si256(
                    acc,
                    _mm256_or_si256(
                        _mm256_and_si256(bit[2 * q], e0),
                        _mm256_and_si256(bit[2 * q + 1], e1),
                    ),
                );
            }
            let x = _mm_or_si128(
                _mm256_castsi256_si128(acc),
                _mm256_extracti128_si256(acc, 1),
            );
            let x = _mm_or_si128(x, _mm_unpackhi_epi64(x, x));
            line[nl] = ln;
            bits[nl] = _mm_cvtsi128_si64(x) as u64;
            nl += 1;
            rest &= !on;
        }
        Some(nl)
    }

    /// The lowest chunk (offset over the chunk size) of the 32 lanes when their chunks are 32
    /// consecutive ones, each once: then their ranges are the one range of those chunks. The
    /// lanes' bits relative to the lowest chunk (a shift by 32 or more gives none) fill all
    /// 32 bits only when no two lanes share a chunk and none lies beyond the 32nd.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn one_block(offs: &[u32; 32], shift: u32) -> Option<u32> {
        let count = _mm_cvtsi32_si128(shift as i32);
        let c: [__m256i; 4] = std::array::from_fn(|q| {
            _mm256_srl_epi32(
                _mm256_loadu_si256(offs.as_ptr().add(8 * q) as *const __m256i),
                count,
            )
        });
        let m = _mm256_min_epu32(_mm256_min_epu32(c[0], c[1]), _mm256_min_epu32(c[2], c[3]));
        let m = _mm_min_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
        let m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0b01_00_11_10));
        let m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0b10_11_00_01));
        let lo = _mm_cvtsi128_si32(m) as u32;
        let (lo_v, one) = (_mm256_set1_epi32(lo as i32), _mm256_set1_epi32(1));
        let mut acc = _mm256_setzero_si256();
        for v in c {
            acc = _mm256_or_si256(acc, _mm256_sllv_epi32(one, _mm256_sub_epi32(v, lo_v)));
        }
        let a = _mm_or_si128(
            _mm256_castsi256_si128(acc),
            _mm256_extracti128_si256(acc, 1),
        );
        let a = _mm_or_si128(a, _mm_shuffle_epi32(a, 0b01_00_11_10));
        let a = _mm_or_si128(a, _mm_shuffle_epi32(a, 0b10_11_00_01));
        (_mm_cvtsi128_si32(a) as u32 == u32::MAX).then_some(lo)
    }

    /// [`super::offsets_extent_scalar`] compiled for AVX2 (`vpminud`/`vpmaxud`).
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn extent(offs: &[u32; 32]) -> (u32, u32) {
        super::offsets_extent_scalar(offs)
    }
}

/// The copies of the lanes of `mask` as destination items `(cta << 32 | offset, size)` (a
/// CTA's shared window is below 4 GiB) and source items `(address, bytes read)`, in lane
/// order; returns how many of each. What `memory::resolve` makes of each lane, for the whole warp
/// at once: a `.shared::cta` destination resolves when its rank bits are 0 or the executing
/// CTA's (`memory::shared_loc`), and a lane whose destination does not resolve is left out
/// with its source (the copy reports its fault); a `.global` source always resolves to
/// itself, and a lane reading no byte (source size 0) reads nothing. Per lane, `resolve` and
/// the source-size read were ~2 400 host instructions per warp-instruction of a checked
/// matmul_fp16_div16_bench1024 (perf.md, session 8); `lane_items_per_lane` is the
/// reference the tests hold this to.
#[allow(clippy::too_many_arguments)]
#[inline]
fn lane_items(
    dst_addrs: &[u64; 32],
    src_addrs: &[u64; 32],
    n: &[u32; 32],
    mask: u32,
    size: u32,
    me: usize,
    dst: &mut [(u64, u64); 32],
    src: &mut [(u64, u64); 32],
) -> (usize, usize) {
    let mut offs = [0u32; 32];
    // rank bits only: no alignment (amask 0) and no bound (every offset <= u32::MAX)
    let bad = super::scan::shared_bad_lanes(
        dst_addrs,
        me as u32,
        0,
        u32::MAX,
        crate::mem::SHARED_BASE,
        &mut offs,
    );
    let cta = (me as u64) << 32;
    let (mut nd, mut ns) = (0, 0);
    let mut m = mask & !bad;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        dst[nd] = (cta | u64::from(offs[l]), u64::from(size));
        nd += 1;
        src[ns] = (src_addrs[l], u64::from(n[l]));
        ns += usize::from(n[l] != 0);
    }
    (nd, ns)
}

/// [`lane_items`] lane by lane through `resolve`'s own functions (the definition).
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
fn lane_items_per_lane(
    dst_addrs: &[u64; 32],
    src_addrs: &[u64; 32],
    n: &[u32; 32],
    mask: u32,
    size: u32,
    me: usize,
    nctas: usize,
    dst: &mut [(u64, u64); 32],
    src: &mut [(u64, u64); 32],
) -> (usize, usize) {
    let (mut nd, mut ns) = (0, 0);
    for l in 0..32usize {
        if mask >> l & 1 == 0 {
            continue;
        }
        let Ok(super::memory::Loc::Shared(cta, off)) =
            super::memory::shared_loc(dst_addrs[l] as u32, me, nctas, false)
        else {
            continue;
        };
        dst[nd] = ((cta as u64) << 32 | u64::from(off), u64::from(size));
        nd += 1;
        let k = n[l].min(size);
        if k == 0 {
            continue;
        }
        src[ns] = (src_addrs[l], u64::from(k));
        ns += 1;
    }
    (nd, ns)
}

/// The maximal ranges of `items` that are all `len` bytes (a power of two: a warp's
/// destination chunks), when each lies a multiple of `len` above the lowest and within 64
/// chunks of it (Triton's swizzled 16-byte chunks of four 128-byte rows): the runs of ones of
/// one word with a bit per chunk, from one pass for the lowest address and one for the bits.
/// `None` otherwise ([`merged_ranges`] then). The general function spent ~1 400 host
/// instructions per such warp in its passes over the items (sorted? lowest? aligned? highest?)
/// and line lookups (perf.md, session 8).
fn chunk_ranges(items: &[(u64, u64)], len: u64, out: &mut [(u64, u64); 32]) -> Option<usize> {
    debug_assert!(len.is_power_of_two() && items.iter().all(|x| x.1 == len));
    let lo = items.iter().fold(u64::MAX, |m, x| m.min(x.0));
    let shift = len.trailing_zeros();
    let (mut bits, mut bad) = (0u64, false);
    for &(a, _) in items {
        let d = a - lo;
        bad |= d & (len - 1) != 0 || d >> shift >= 64;
        bits |= 1u64 << ((d >> shift) & 63);
    }
    if bad {
        return None;
    }
    let mut k = 0;
    while bits != 0 {
        let first = u64::from(bits.trailing_zeros());
        let run = u64::from((!(bits >> first)).trailing_zeros());
        out[k] = (lo + (first << shift), lo + ((first + run) << shift));
        k += 1;
        bits = if first + run >= 64 {
            0
        } else {
            bits & !((1u64 << (first + run)) - 1)
        };
    }
    Some(k)
}

/// The maximal ranges `[start, end)` covered by `items` (`(start, length)`, at most 32), in
/// address order, written to `out`; returns how many. Lanes in address order (coalesced
/// sources) are merged in one pass. Chunks of one power-of-two size aligned to the lowest
/// (a warp's swizzled destinations: 16-byte chunks permuted within 128-byte rows, rows apart)
/// are set as bits in lines of 64 chunks, the few lines sorted and their runs of bits joined.
/// Only the rest (partial sources) is sorted.
fn merged_ranges(items: &mut [(u64, u64)], out: &mut [(u64, u64); 32]) -> usize {
    let Some(&(_, len)) = items.first() else {
        return 0;
    };
    let sorted = items.windows(2).all(|p| p[0].0 <= p[1].0);
    if !sorted && len.is_power_of_two() {
        let lo = items.iter().map(|x| x.0).min().unwrap_or(0);
        let shift = len.trailing_zeros();
        if items
            .iter()
            .all(|&(a, n)| n == len && (a - lo) & (len - 1) == 0)
        {
            // Within 64 chunks of the lowest (a warp's 16-byte chunks of four swizzled
            // 128-byte rows: Triton's cp.async tiles) the chunks are the bits of one word, and
            // its runs of ones are the ranges: no line to look up per item and no sort (the
            // general lines below cost ~1 500 host instructions per such warp).
            let hi = items.iter().map(|x| x.0).max().unwrap_or(lo);
            if (hi - lo) >> shift < 64 {
                let mut bits = 0u64;
                for &(a, _) in items.iter() {
                    bits |= 1u64 << ((a - lo) >> shift);
                }
                let mut k = 0;
                while bits != 0 {
                    let first = u64::from(bits.trailing_zeros());
                    let run = u64::from((!(bits >> first)).trailing_zeros());
                    out[k] = (lo + (first << shift), lo + ((first + run) << shift));
                    k += 1;
                    bits = if first + run >= 64 {
                        0
                    } else {
                        bits & !((1u64 << (first + run)) - 1)
                    };
                }
                return k;
            }
            // (line, bits): chunk `line * 64 + i` is covered when bit `i` is set
            let mut lines = [(0u64, 0u64); 32];
            let mut nl = 0;
            for &(a, _) in items.iter() {
                let idx = (a - lo) >> shift;
                let (line, bit) = (idx >> 6, 1u64 << (idx & 63));
                match lines[..nl].iter_mut().rev().find(|x| x.0 == line) {
                    Some(x) => x.1 |= bit,
                    None => {
                        lines[nl] = (line, bit);
                        nl += 1;
                    }
                }
            }
            let lines = &mut lines[..nl];
            if !lines.windows(2).all(|p| p[0].0 < p[1].0) {
                lines.sort_unstable_by_key(|x| x.0);
            }
            let mut k = 0;
            let mut open: Option<(u64, u64)> = None;
            for &(line, mut bits) in lines.iter() {
                while bits != 0 {
                    let first = u64::from(bits.trailing_zeros());
                    let run = u64::from((!(bits >> first)).trailing_zeros());
                    let s = lo + ((line * 64 + first) << shift);
                    let e = lo + ((line * 64 + first + run) << shift);
                    open = match open {
                        Some((os, oe)) if oe == s => Some((os, e)),
                        Some(r) => {
                            out[k] = r;
                            k += 1;
                            Some((s, e))
                        }
                        None => Some((s, e)),
                    };
                    bits = if first + run >= 64 {
                        0
                    } else {
                        bits & !((1u64 << (first + run)) - 1)
                    };
                }
            }
            if let Some(r) = open {
                out[k] = r;
                k += 1;
            }
            return k;
        }
    }
    if !sorted {
        items.sort_unstable();
    }
    let mut k = 0;
    let mut i = 0;
    while i < items.len() {
        let (s, mut e) = (items[i].0, items[i].0.saturating_add(items[i].1));
        i += 1;
        while i < items.len() && items[i].0 <= e {
            e = e.max(items[i].0.saturating_add(items[i].1));
            i += 1;
        }
        out[k] = (s, e);
        k += 1;
    }
    k
}

/// Each lane's number of source bytes: the `src-size` operand (its low 32 bits, as the
/// per-lane path reads it) clamped to the copy size, or the copy size without one.
#[inline(always)]
fn source_sizes(w: &Warp, src_size: Option<Any>, size: u32) -> [u32; 32] {
    match src_size {
        None => [size; 32],
        Some(Any::R32(r)) => {
            let v = &w.r32[r as usize];
            std::array::from_fn(|l| v[l].min(size))
        }
        Some(a) => std::array::from_fn(|l| (w.read_any(a, l) as u32).min(size)),
    }
}

/// Copies `n[l]` bytes from global `src[l]` to `p + offs[l]` and zero-fills the rest of the
/// `S` bytes, for each lane `l` of `mask` in lane order (two lanes' destinations, both
/// aligned to `S`, are equal or disjoint, so the last lane wins as on the per-lane path).
/// A full chunk (the common case) and an empty one (Triton's masked chunks) are straight-line
/// copies of constant size; a partial one goes 8, 4, then 1 byte at a time.
///
/// # Safety
/// For each lane of `mask`: `[offs[l], offs[l] + S)` inside the allocation at `p`; when
/// `n[l] > 0`, `span` is `Some` and holds `[src[l], src[l] + S)` with `src[l]` a multiple
/// of `S`; `n[l] <= S`.
#[inline(always)]
unsafe fn copy_lanes<const S: u32>(
    span: Option<GlobalSpan<'_>>,
    src: &[u64; 32],
    p: *mut u8,
    offs: &[u32; 32],
    n: &[u32; 32],
    mask: u32,
) {
    let mut m = mask;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        m &= m - 1;
        let (k, d) = (n[l], p.add(offs[l] as usize));
        if k == 0 {
            std::ptr::write_bytes(d, 0, S as usize);
            continue;
        }
        let (span, a) = (span.unwrap_unchecked(), src[l]);
        if k == S {
            copy_whole::<S>(span, a, d);
            continue;
        }
        let mut off = 0u32;
        while off < k {
            // the source is aligned to S >= each chunk taken and `off` is a multiple of it,
            // so every load is naturally aligned
            let step = match k - off {
                r if r >= 8 => 8,
                r if r >= 4 => 4,
                _ => 1,
            };
            let v = span.load(a + u64::from(off), step);
            match step {
                8 => write_le(d.add(off as usize), 8, v),
                4 => write_le(d.add(off as usize), 4, v),
                _ => write_le(d.add(off as usize), 1, v),
            }
            off += step;
        }
        // the bytes past the source size are zero-filled (PTX ISA, cp.async: src-size)
        for z in k..S {
            *d.add(z as usize) = 0;
        }
    }
}

/// `copy_lanes` for a full warp whose every lane reads all `S` bytes: the same copies in the
/// same lane order (so a destination two lanes share ends with the higher lane's bytes), as
/// one loop with nothing to decide per lane (test `full_warp_cp_async_equals_the_per_lane_path`).
///
/// # Safety
/// For every lane `l`: `[offs[l], offs[l] + S)` inside the allocation at `p`, and
/// `[src[l], src[l] + S)` inside `span` with `src[l]` a multiple of `S`.
#[inline(always)]
unsafe fn copy_full_warp<const S: u32>(
    span: GlobalSpan<'_>,
    src: &[u64; 32],
    p: *mut u8,
    offs: &[u32; 32],
) {
    for l in 0..32 {
        copy_whole::<S>(span, src[l], p.add(offs[l] as usize));
    }
}

/// One lane's copy of all `S` bytes from `a` to `d`, in naturally aligned 4- or 8-byte moves.
///
/// # Safety
/// `[a, a + S)` inside `span` with `a` a multiple of `S`, and `[d, d + S)` writable.
#[inline(always)]
unsafe fn copy_whole<const S: u32>(span: GlobalSpan<'_>, a: u64, d: *mut u8) {
    if S == 4 {
        write_le(d, 4, span.load(a, 4));
    } else {
        for i in 0..S / 8 {
            let o = 8 * i;
            write_le(d.add(o as usize), 8, span.load(a + u64::from(o), 8));
        }
    }
}

/// Writes the low `size` (1, 4 or 8; a constant at every call) bytes of `v` at `p`,
/// little-endian.
///
/// # Safety
/// `p` must be valid for writing `size` bytes.
#[inline(always)]
unsafe fn write_le(p: *mut u8, size: u32, v: u64) {
    std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), p, size as usize);
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "x86_64")]
    use super::avx2_lines;
    use super::{
        chunk_ranges, lane_items, lane_items_per_lane, line_bits_scalar, line_ranges,
        merged_ranges, offsets_extent, runs_of_lines,
    };

    /// The warp-at-once items equal `resolve`'s lane by lane: rank bits 0, the executing
    /// CTA's or another's (left out with its source), source sizes 0 (no source item),
    /// partial or whole, any lane mask.
    #[test]
    fn lane_items_equal_the_per_lane_resolve() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut left_out = 0;
        for case in 0..20_000 {
            let size = [4u32, 8, 16][(next() % 3) as usize];
            let (me, nctas) = ((next() % 4) as usize, 4);
            let mask = match case % 3 {
                0 => u32::MAX,
                _ => next() as u32,
            };
            let dst_addrs: [u64; 32] = std::array::from_fn(|_| {
                let rank = match next() % 8 {
                    0 => next() % 256,
                    1 | 2 => me as u64,
                    _ => 0,
                };
                // the high bits of the register are not part of a shared address
                (next() & 0xffff_ffff_0000_0000) | rank << 24 | ((next() % 0x1_0000) * 4)
            });
            let src_addrs: [u64; 32] = std::array::from_fn(|_| next());
            let n: [u32; 32] = std::array::from_fn(|_| match next() % 4 {
                0 => 0,
                1 => (next() % u64::from(size + 1)) as u32,
                _ => size,
            });
            let (mut d1, mut s1) = ([(0, 0); 32], [(0, 0); 32]);
            let (mut d2, mut s2) = ([(0, 0); 32], [(0, 0); 32]);
            let (nd1, ns1) =
                lane_items(&dst_addrs, &src_addrs, &n, mask, size, me, &mut d1, &mut s1);
            let (nd2, ns2) = lane_items_per_lane(
                &dst_addrs, &src_addrs, &n, mask, size, me, nctas, &mut d2, &mut s2,
            );
            assert_eq!(d1[..nd1], d2[..nd2], "case {case}");
            assert_eq!(s1[..ns1], s2[..ns2], "case {case}");
            left_out += (mask.count_ones() as usize) - nd2;
        }
        // the cases include lanes `resolve` refuses
        assert!(left_out > 1000, "{left_out}");
    }

    /// The ranges the obvious way: sorted, touching intervals merged.
    fn naive(items: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut v: Vec<(u64, u64)> = items.iter().map(|&(a, n)| (a, a + n)).collect();
        v.sort_unstable();
        let mut out: Vec<(u64, u64)> = Vec::new();
        for (s, e) in v {
            match out.last_mut() {
                Some(r) if s <= r.1 => r.1 = r.1.max(e),
                _ => out.push((s, e)),
            }
        }
        out
    }

    #[test]
    fn merged_ranges_are_the_sorted_union() {
        // xorshift: lane layouts in order, swizzled (the bitmap), sparse and partial (sorted)
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut one_word = 0;
        for case in 0..30_000 {
            let lanes = 1 + (next() % 32) as usize;
            let size = [4u64, 8, 16][(next() % 3) as usize];
            let base = 0x7000_0000 + (next() % 64) * size;
            let items: Vec<(u64, u64)> = (0..lanes as u64)
                .map(|l| {
                    let chunk = match case % 5 {
                        0 => l,
                        1 => (l & !7) | ((l ^ (l >> 3)) & 7),
                        // two halves 8 KiB apart, swizzled rows (Triton's 128-byte swizzled
                        // B tile), sometimes in another order
                        2 => (l & 8) * (next() % 3 * 64) + (l >> 4) * 8 + ((l ^ (l >> 4)) & 7),
                        3 => next() % 300,
                        _ => next() % 40,
                    };
                    let n = if case % 5 == 4 {
                        next() % (size + 1)
                    } else {
                        size
                    };
                    (base + chunk * size, n)
                })
                .collect();
            let mut buf = items.clone();
            let mut out = [(0, 0); 32];
            let k = merged_ranges(&mut buf, &mut out);
            let want: Vec<(u64, u64)> = naive(&items).into_iter().filter(|r| r.0 < r.1).collect();
            let got: Vec<(u64, u64)> = out[..k].iter().copied().filter(|r| r.0 < r.1).collect();
            assert_eq!(got, want, "{items:?}");
            // destinations: every item whole
            if items.iter().all(|x| x.1 == size) {
                if let Some(k) = chunk_ranges(&items, size, &mut out) {
                    assert_eq!(out[..k], want[..], "{items:?}");
                    one_word += 1;
                }
            }
        }
        // the one-word path is taken in most whole-chunk cases
        assert!(one_word > 10_000, "{one_word}");
    }

    /// `offsets_extent` over the whole `u32` range (an unsigned minimum and maximum).
    #[test]
    fn offsets_extent_is_unsigned() {
        let mut x = 0x51a3_07c9_e1d2_4b86u64;
        for case in 0..5000 {
            let offs: [u32; 32] = std::array::from_fn(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                match case % 3 {
                    0 => x as u32,
                    1 => u32::MAX - (x % 40) as u32,
                    _ => (x % 40) as u32 + ((x >> 40) as u32 & 0x8000_0000),
                }
            });
            let want = (
                offs.iter().copied().min().expect("32 lanes"),
                offs.iter().copied().max().expect("32 lanes"),
            );
            assert_eq!(offsets_extent(&offs), want, "{offs:?}");
        }
    }

    /// The lines' ranges equal the sorted union of the active lanes' chunks: swizzled rows,
    /// Triton's B tile halves 63 to 65 chunks apart (touching or not, across lines or not),
    /// scattered chunks over many lines, duplicate chunks and any lane mask.
    #[test]
    fn line_ranges_are_the_sorted_union() {
        let mut x = 0x2f6b_1d3a_94c7_e805u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut windows = [0usize; 3];
        let mut vector = 0usize;
        // swizzled blocks that `one_block` refused and took (the lines' path is the reference)
        let mut block = [0usize; 2];
        for case in 0..30_000 {
            let shift = (next() % 5) as u32;
            let size = 1u64 << shift;
            let base = (next() % 4096) * size;
            let mask = match case % 4 {
                0 | 1 => u32::MAX,
                _ => next() as u32,
            };
            let dup = (next() % 32, next() % 32);
            let offs: [u32; 32] = std::array::from_fn(|l| {
                let l = l as u64;
                let chunk = match case % 7 {
                    0 => (l & !7) | ((l ^ (l >> 3)) & 7),
                    // a swizzled block but for one lane, which copies another's chunk (or
                    // its own)
                    6 => {
                        let l = if l == dup.0 { dup.1 } else { l };
                        (l & !7) | ((l ^ (l >> 3)) & 7)
                    }
                    // the halves of 16 lanes' row, 64 chunks (or 63, 65: touching, apart) apart
                    1 => (l >> 4) * 8 + (l & 7) + ((l >> 3) & 1) * (63 + next() % 3),
                    2 => next() % 300,
                    3 => next() % 70,
                    4 => l * (1 + next() % 4) * 16,
                    _ => next() % 5000,
                };
                (base + chunk * size) as u32
            });
            let mut out = [(0, 0); 32];
            let k = line_ranges(&offs, mask, shift, &mut out);
            // the AVX2 lines and bits are the scalar walk's, in the same order
            let (mut line, mut bits) = ([0u32; 32], [0u64; 32]);
            let nl = line_bits_scalar(&offs, mask, shift, &mut line, &mut bits);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                let (mut vline, mut vbits) = ([7u32; 32], [7u64; 32]);
                // SAFETY: AVX2 detected just now
                let got =
                    unsafe { avx2_lines::line_bits(&offs, mask, shift, &mut vline, &mut vbits) };
                match got {
                    Some(n) => {
                        assert_eq!((&vline[..n], &vbits[..n]), (&line[..nl], &bits[..nl]));
                        vector += 1;
                    }
                    None => assert!(nl > avx2_lines::MAX_LINES, "{offs:?} {mask:#x}"),
                }
            }
            // the AVX2 extent is the lanes' lowest and highest offset
            let want = (
                offs.iter().copied().min().expect("32 lanes"),
                offs.iter().copied().max().expect("32 lanes"),
            );
            assert_eq!(offsets_extent(&offs), want);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 detected just now
                assert_eq!(unsafe { avx2_lines::extent(&offs) }, want);
                // SAFETY: AVX2 detected just now
                block[usize::from(unsafe { avx2_lines::one_block(&offs, shift) }.is_some())] +=
                    usize::from(case % 7 == 0 || case % 7 == 6);
            }
            let mut sout = [(0, 0); 32];
            let sk = runs_of_lines(&mut line[..nl], &mut bits[..nl], shift, &mut sout);
            assert_eq!(out[..k], sout[..sk]);
            let items: Vec<(u64, u64)> = (0..32)
                .filter(|l| mask >> l & 1 != 0)
                .map(|l| (u64::from(offs[l]), size))
                .collect();
            let got: Vec<(u64, u64)> = out[..k]
                .iter()
                .map(|&(s, e)| (u64::from(s), u64::from(e)))
                .collect();
            assert_eq!(got, naive(&items), "{offs:?} {mask:#x} {shift}");
            // the lanes' span in chunks: within one line's width, two, or more
            let (lo, hi) = (
                items.iter().map(|x| x.0).min(),
                items.iter().map(|x| x.0).max(),
            );
            if let (Some(lo), Some(hi)) = (lo, hi) {
                windows
                    [((hi - lo) >> shift >= 64) as usize + ((hi - lo) >> shift >= 128) as usize] +=
                    1;
            }
        }
        // each often
        assert!(windows.iter().all(|&n| n > 3000), "{windows:?}");
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            assert!(vector > 15_000, "{vector}");
            assert!(block.iter().all(|&n| n > 2000), "{block:?}");
        }
    }
}
