//! ld / st / atom / red / cvta / mapa and the copy instructions (cp.async, cp.async.bulk).
//!
//! Copies complete at issue (the `immediate` completion policy): their bytes land and their
//! mbarrier complete-tx is applied before the next instruction. Group waits are then no-ops.

use super::{sync, Ctx, Flow, Warp, FULL};
use crate::error::rules;
use crate::fp;
use crate::mem::{self, classify, MemFault, Window};
use crate::observer::{AccessKind, AsyncId, MemOrder, MemSpace, Observer, OpKind, Place, SyncKey};
use crate::program::{
    Addr, Any, AtomInst, AtomOp, CpAsyncInst, CpBulkG2SInst, CpBulkS2ClusterInst, CpBulkS2GInst,
    FMods, Inst, LdSt, Rnd, Space,
};

/// A resolved location.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Loc {
    Global(u64),
    /// CTA index within the cluster, byte offset in its shared memory.
    Shared(usize, u32),
    Local(u64),
    Param(u64),
    Const(u64),
}

#[inline(always)]
pub(crate) fn lane_addr(w: &Warp, a: Addr, lane: usize) -> u64 {
    w.read_any(a.base, lane).wrapping_add(a.offset as u64)
}

/// Decodes a 32-bit shared address (see `mem`): bits 24 and up are the cluster rank of the
/// CTA whose shared memory it names. A `.shared::cta` access also takes rank bits 0, the form
/// of the loader's `[sym+off]` immediates, as its own CTA; any other rank is not its window.
#[inline]
pub(crate) fn shared_loc(
    a: u32,
    me: usize,
    nctas: usize,
    cluster_space: bool,
) -> Result<Loc, MemFault> {
    let rank = (a >> 24) as usize;
    let off = (a & 0x00ff_ffff).wrapping_sub(mem::SHARED_BASE);
    if cluster_space {
        if rank < nctas {
            return Ok(Loc::Shared(rank, off));
        }
    } else if rank == 0 || rank == me {
        return Ok(Loc::Shared(me, off));
    }
    if cluster_space {
        Err(MemFault::OutOfBounds {
            space: "shared::cluster",
            addr: a as u64,
            size: 0,
            nearest: crate::mem::Nearest::Text(format!(
                "no CTA of rank {rank} in this cluster of {nctas}"
            )),
        })
    } else {
        Err(MemFault::OtherWindow {
            space: "shared::cta",
            addr: a as u64,
            why: format!("it names CTA rank {rank}, not the executing CTA (rank {me})"),
        })
    }
}

#[inline(always)]
pub(crate) fn resolve<O: Observer>(
    cx: &Ctx<'_, '_, O>,
    space: Space,
    raw: u64,
) -> Result<Loc, MemFault> {
    let n = cx.ctas.len();
    Ok(match space {
        Space::Global => Loc::Global(raw),
        Space::Shared => shared_loc(raw as u32, cx.me, n, false)?,
        Space::SharedCluster => live_peer(cx, shared_loc(raw as u32, cx.me, n, true)?, raw)?,
        Space::Local => Loc::Local(raw),
        Space::Param => Loc::Param(raw),
        Space::Const => Loc::Const(raw),
        Space::Generic => match classify(raw) {
            Window::Global(a) => Loc::Global(a),
            Window::Shared(a) => live_peer(cx, shared_loc(a, cx.me, n, true)?, raw)?,
            Window::Local(o) => Loc::Local(o),
            Window::Const(o) => Loc::Const(o),
            Window::Param(o) => Loc::Param(o),
        },
    })
}

/// A peer's shared memory lives only as long as the peer (TM0231). Only the forms that can
/// name another CTA call this (a `.shared::cta` access is always its own CTA's), and an
/// own-CTA access pays one compare.
#[inline(always)]
fn live_peer<O: Observer>(cx: &Ctx<'_, '_, O>, loc: Loc, raw: u64) -> Result<Loc, MemFault> {
    if let Loc::Shared(c, _) = loc {
        if c != cx.me && cx.ctas[c].live_threads == 0 {
            return Err(MemFault::PeerExited { addr: raw, rank: c });
        }
    }
    Ok(loc)
}

/// Tells the observer about one lane's access of a resolved location (shared and global
/// only: local, param and const memory are private or read-only), with the instruction's
/// `At` computed once for all its lanes (the general ld/st/atom paths report up to 8
/// elements × 32 lanes per instruction).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn observe_lane_at<O: Observer>(
    cx: &mut Ctx<'_, '_, O>,
    at: crate::observer::At,
    lane: usize,
    loc: Loc,
    size: u32,
    kind: AccessKind,
    order: MemOrder,
) {
    let (space, addr) = match loc {
        Loc::Global(a) => (MemSpace::Global, a),
        Loc::Shared(c, off) => (MemSpace::Shared { cta: c as u32 }, off as u64),
        _ => return,
    };
    cx.obs
        .memory(at, lane as u32, space, addr, size, kind, order);
}

/// Whether the fast `ld`/`st` paths may run: no per-lane observer, or one that takes a
/// warp-instruction's accesses as one batch ([`Observer::memory_lanes`]).
#[inline(always)]
pub(super) fn fast_ok<O: Observer>(cx: &Ctx<'_, '_, O>) -> bool {
    !cx.env.reference_paths && (!cx.obs.wants_memory() || cx.obs.wants_memory_lanes())
}

/// Reports a fast path's accesses (lanes `lanes` at `addrs`) as one batch.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn observe_lanes<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    lanes: u32,
    space: MemSpace,
    addrs: &[u64; 32],
    size: u32,
    kind: AccessKind,
    order: MemOrder,
) {
    if cx.obs.wants_memory() && lanes != 0 {
        let at = cx.at(w, mask);
        cx.obs
            .memory_lanes(at, lanes, space, addrs, size, kind, order);
    }
}

/// Reports a fast path's vector accesses (`elems` elements of `size` bytes per lane) as one
/// batch.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn observe_lanes_vec<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    space: MemSpace,
    addrs: &[u64; 32],
    size: u32,
    elems: u32,
    kind: AccessKind,
    order: MemOrder,
) {
    if cx.obs.wants_memory() && mask != 0 {
        let at = cx.at(w, mask);
        cx.obs
            .memory_lanes_vec(at, mask, space, addrs, size, elems, kind, order);
    }
}

#[inline(always)]
pub(crate) fn load<O: Observer>(
    w: &Warp,
    cx: &Ctx<'_, '_, O>,
    lane: usize,
    loc: Loc,
    size: u32,
) -> Result<u64, MemFault> {
    match loc {
        Loc::Global(a) => cx.env.global.load(a, size),
        Loc::Shared(c, off) => mem::bytes_load(&cx.ctas[c].shared, "shared", off as u64, size),
        Loc::Local(off) => mem::bytes_load(w.local_lane(lane), "local", off, size),
        Loc::Param(off) => mem::bytes_load(cx.env.params, "param", off, size),
        Loc::Const(off) => mem::bytes_load(&cx.env.k.const_image, "const", off, size),
    }
}

#[inline(always)]
pub(crate) fn store<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    lane: usize,
    loc: Loc,
    size: u32,
    v: u64,
) -> Result<(), MemFault> {
    match loc {
        Loc::Global(a) => cx.env.global.store(a, size, v),
        Loc::Shared(c, off) => {
            if sync::mbar_span_meets(cx, c, off, size) {
                sync::mbar_overwritten_lane(w, cx, "write", lane, c, off, size);
            }
            mem::bytes_store(&mut cx.ctas[c].shared, "shared", off as u64, size, v)
        }
        Loc::Local(off) => mem::bytes_store(w.local_lane_mut(lane), "local", off, size, v),
        Loc::Param(a) => Err(MemFault::ReadOnly {
            space: "param",
            addr: a,
        }),
        Loc::Const(a) => Err(MemFault::ReadOnly {
            space: "const",
            addr: a,
        }),
    }
}

fn space_name(s: Space) -> &'static str {
    match s {
        Space::Generic => "generic",
        Space::Global => "global",
        Space::Shared => "shared",
        Space::SharedCluster => "shared::cluster",
        Space::Local => "local",
        Space::Param => "param",
        Space::Const => "const",
    }
}

/// The rule a memory fault breaks, for every instruction that resolves addresses (plain
/// accesses here, mbarriers in `sync::mbar_key`).
pub(crate) fn fault_rule(f: &MemFault) -> crate::error::Rule {
    match f {
        MemFault::OutOfBounds { .. } => rules::OUT_OF_BOUNDS,
        MemFault::Misaligned { .. } => rules::MISALIGNED,
        MemFault::OtherWindow { .. } | MemFault::ReadOnly { .. } => rules::BAD_ADDRESS_SPACE,
        MemFault::PeerExited { .. } => rules::PEER_EXITED,
    }
}

#[cold]
pub(crate) fn fault<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    lanes: u32,
    lane: usize,
    f: MemFault,
    space: Space,
) {
    if cx.diag_full() {
        return;
    }
    let pc = w.cur_pc;
    let rule = fault_rule(&f);
    let msg = match f {
        MemFault::OutOfBounds { space: s, addr, size, nearest } => format!(
                "{}-byte {} access at address {addr:#x} (lane {lane}) is outside every allocation{}",
                size,
                if s == "global" { space_name(space) } else { s },
                nearest
                    .describe(s, addr, cx.env.global)
                    .map(|n| format!(": {n}"))
                    .unwrap_or_default()
            ),
        MemFault::Misaligned { space: s, addr, size } => {
            format!("{size}-byte {s} access at address {addr:#x} (lane {lane}) is not {size}-byte aligned")
        }
        MemFault::OtherWindow { space: s, addr, why } => {
            format!("{s} access at address {addr:#x} (lane {lane}) is outside the {s} window: {why}")
        }
        MemFault::PeerExited { addr, rank } => format!(
            "shared::cluster access at address {addr:#x} (lane {lane}) targets CTA rank {rank} of the cluster, which has exited: its shared memory is gone (keep it alive with a cluster barrier before its exit)"
        ),
        MemFault::ReadOnly { space: s, addr } => {
            format!("store to read-only {s} space at {addr:#x} (lane {lane})")
        }
    };
    cx.diag(w, pc, lanes, rule, msg);
}

/// Expands `$body` once per access size with `$S` a constant of that size, so the per-lane
/// loops inside it compile to single loads and stores.
macro_rules! by_size {
    ($size:expr, $S:ident => $body:expr) => {
        match $size {
            1 => {
                const $S: u32 = 1;
                $body
            }
            2 => {
                const $S: u32 = 2;
                $body
            }
            4 => {
                const $S: u32 = 4;
                $body
            }
            _ => {
                const $S: u32 = 8;
                $body
            }
        }
    };
}

/// Calls `f` for each lane of `mask`, in lane order.
#[inline(always)]
fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == FULL {
        for l in 0..32 {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            f(m.trailing_zeros() as usize);
            m &= m - 1;
        }
    }
}

/// Every lane's address of `a` (what [`lane_addr`] gives lane by lane).
#[inline(always)]
pub(super) fn lane_addrs(w: &Warp, a: Addr) -> [u64; 32] {
    let off = a.offset as u64;
    match a.base {
        Any::R64(b) => {
            let r = &w.r64[b as usize];
            std::array::from_fn(|l| r[l].wrapping_add(off))
        }
        Any::R32(b) => {
            let r = &w.r32[b as usize];
            std::array::from_fn(|l| (r[l] as u64).wrapping_add(off))
        }
        Any::Imm(v) => [v.wrapping_add(off); 32],
        Any::Sink => [off; 32],
    }
}

/// The alignment the per-lane path demands of an access of `n` elements of `size` bytes:
/// natural for a scalar; a vector's whole size, at most 16 bytes (and at least `size`).
#[inline(always)]
fn access_align(size: u32, n: u32) -> u32 {
    if n > 1 {
        (size * n).min(16).max(size)
    } else {
        size
    }
}

/// Writes `f(l)`, sign-extended from `size` bytes when `signed`, to lane `l` of `r` for each
/// lane of `mask` (a 32-bit register keeps the low half, as `Warp::write_any`).
#[inline(always)]
fn write_lanes(
    w: &mut Warp,
    r: Any,
    mask: u32,
    signed: bool,
    size: u32,
    mut f: impl FnMut(usize) -> u64,
) {
    let ext = |v: u64| {
        let sh = 64 - 8 * size;
        (((v << sh) as i64) >> sh) as u64
    };
    let sx = signed && size < 8;
    match r {
        Any::R32(d) if sx => {
            let dst = &mut w.r32[d as usize];
            for_lanes(mask, |l| dst[l] = ext(f(l)) as u32);
        }
        Any::R32(d) => {
            let dst = &mut w.r32[d as usize];
            for_lanes(mask, |l| dst[l] = f(l) as u32);
        }
        Any::R64(d) if sx => {
            let dst = &mut w.r64[d as usize];
            for_lanes(mask, |l| dst[l] = ext(f(l)));
        }
        Any::R64(d) => {
            let dst = &mut w.r64[d as usize];
            for_lanes(mask, |l| dst[l] = f(l));
        }
        // the loads still happen (and were proven not to fault); nothing is written
        Any::Imm(_) | Any::Sink => for_lanes(mask, |l| {
            f(l);
        }),
    }
}

/// Calls `f(l, value)` with lane `l`'s value of `r` (zero-extended) for each lane of `mask`.
#[inline(always)]
fn read_lanes(w: &Warp, r: Any, mask: u32, mut f: impl FnMut(usize, u64)) {
    match r {
        Any::R32(s) => {
            let src = &w.r32[s as usize];
            for_lanes(mask, |l| f(l, src[l] as u64));
        }
        Any::R64(s) => {
            let src = &w.r64[s as usize];
            for_lanes(mask, |l| f(l, src[l]));
        }
        Any::Imm(v) => for_lanes(mask, |l| f(l, v)),
        Any::Sink => for_lanes(mask, |l| f(l, 0)),
    }
}

/// Byte offsets in the executing CTA's shared memory of every active lane's `len`-byte
/// `.shared` access at `addrs` (the low 32 bits are the shared address, as in `resolve`),
/// when each lies in the CTA's own window (rank bits 0 or its own rank), is a multiple of
/// `align` and ends inside the `sh_len` bytes; `None` otherwise, and the caller takes the
/// per-lane path, which reports the fault exactly as before.
#[inline(always)]
pub(super) fn shared_offsets(
    addrs: &[u64; 32],
    mask: u32,
    align: u32,
    len: u32,
    sh_len: usize,
    me: usize,
) -> Option<[u32; 32]> {
    // the last offset at which `len` bytes still fit; all u32 and `&` (no short circuit), so
    // the loop is straight-line
    let limit = u32::try_from(sh_len.checked_sub(len as usize)?).unwrap_or(u32::MAX);
    let (me, amask) = (me as u32, align - 1);
    let mut offs = [0u32; 32];
    // four lanes at a time (exec/scan.rs); the inactive lanes are masked off afterwards
    let bad = super::scan::shared_bad_lanes(addrs, me, amask, limit, mem::SHARED_BASE, &mut offs);
    let ok = mask != 0 && bad & mask == 0;
    ok.then_some(offs)
}

/// Little-endian `size` bytes at `p`, zero-extended.
///
/// # Safety
/// `p` must be valid for reading `size` (at most 8) bytes.
#[inline(always)]
unsafe fn read_le(p: *const u8, size: u32) -> u64 {
    let mut b = [0u8; 8];
    std::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), size as usize);
    u64::from_le_bytes(b)
}

/// Writes the low `size` bytes of `v` at `p`, little-endian.
///
/// # Safety
/// `p` must be valid for writing `size` (at most 8) bytes.
#[inline(always)]
unsafe fn write_le(p: *mut u8, size: u32, v: u64) {
    std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), p, size as usize);
}

/// Whether the warp-wide `ld`/`st` may take this access: a plain size, at least one lane,
/// an observer it can serve (a scalar's accesses are one batch event; a vector's are
/// reported per lane and element by the general path only).
#[inline(always)]
fn warp_form_ok<O: Observer>(cx: &Ctx<'_, '_, O>, mask: u32, i: &LdSt) -> bool {
    mask != 0
        && matches!(i.elem.size, 1 | 2 | 4 | 8)
        && fast_ok(cx)
        && (i.regs.len() == 1 || !cx.obs.wants_memory() || cx.obs.wants_memory_lanes_vec())
}

/// The warp-wide `ld` of global (and generic-to-global) and `.shared` memory, scalars and
/// vectors: one bounds and alignment scan for the warp, then unchecked copies into the
/// destination registers, element by element. Returns false, having touched nothing, when
/// any lane would fault or the form is not one it takes; the per-lane paths then run and
/// report the faults exactly as before.
#[inline(always)]
fn ld_warp<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, mask: u32, i: &LdSt) -> bool {
    if !warp_form_ok(cx, mask, i) {
        return false;
    }
    let (size, n, signed) = (i.elem.size as u32, i.regs.len() as u32, i.elem.signed);
    let (total, align) = (size * n, access_align(size, n));
    let addrs = lane_addrs(w, i.addr);
    match i.space {
        Space::Global | Space::Generic => {
            let Some(span) = cx.env.global.lanes_span(&addrs, mask, align, total) else {
                return false;
            };
            for (e, &r) in i.regs.iter().enumerate() {
                let eo = e as u64 * size as u64;
                // SAFETY: `lanes_span` proved every lane's [a, a + total) inside the buffer
                // with a a multiple of align >= size, so each element is in bounds and aligned
                by_size!(size, S => write_lanes(w, r, mask, signed, S, |l| unsafe {
                    span.load(addrs[l] + eo, S)
                }));
            }
            // Every lane reads inside the span's buffer: a weak read of a buffer the observer
            // ignores is one range test here, not a batch it tests lane by lane
            // (matmul_fp16_bench1024: 524 288 `ld.global.b16` of read-only A and B).
            if i.order == MemOrder::Weak
                && cx.obs.wants_memory()
                && cx.obs.ignores_global_read(span.addr(), span.end())
            {
                return true;
            }
            if n == 1 {
                observe_lanes(
                    w,
                    cx,
                    mask,
                    mask,
                    MemSpace::Global,
                    &addrs,
                    size,
                    AccessKind::Read,
                    i.order,
                );
            } else {
                let g = MemSpace::Global;
                observe_lanes_vec(w, cx, mask, g, &addrs, size, n, AccessKind::Read, i.order);
            }
        }
        Space::Shared => {
            let me = cx.me;
            let sh = &cx.ctas[me].shared[..];
            let Some(offs) = shared_offsets(&addrs, mask, align, total, sh.len(), me) else {
                return false;
            };
            for (e, &r) in i.regs.iter().enumerate() {
                let eo = e * size as usize;
                // SAFETY: `shared_offsets` proved every lane's [off, off + total) inside `sh`
                by_size!(size, S => write_lanes(w, r, mask, signed, S, |l| unsafe {
                    read_le(sh.as_ptr().add(offs[l] as usize + eo), S)
                }));
            }
            if cx.obs.wants_memory() {
                let seen: [u64; 32] = std::array::from_fn(|l| offs[l] as u64);
                let space = MemSpace::Shared { cta: me as u32 };
                if n == 1 {
                    observe_lanes(
                        w,
                        cx,
                        mask,
                        mask,
                        space,
                        &seen,
                        size,
                        AccessKind::Read,
                        i.order,
                    );
                } else {
                    let k = AccessKind::Read;
                    observe_lanes_vec(w, cx, mask, space, &seen, size, n, k, i.order);
                }
            }
        }
        _ => return false,
    }
    true
}

/// The warp-wide `st`, the counterpart of [`ld_warp`]. Elements are written element by
/// element over the lanes rather than lane by lane, which leaves the same bytes only when two
/// lanes' ranges are equal or disjoint: true of every scalar and of vectors of at most 16
/// bytes (aligned to their size); a larger vector takes the per-lane path.
#[inline(always)]
fn st_warp<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, mask: u32, i: &LdSt) -> bool {
    if !warp_form_ok(cx, mask, i) {
        return false;
    }
    let (size, n) = (i.elem.size as u32, i.regs.len() as u32);
    let (total, align) = (size * n, access_align(size, n));
    if total > 16 && n > 1 {
        return false;
    }
    let addrs = lane_addrs(w, i.addr);
    match i.space {
        Space::Global | Space::Generic => {
            let Some(span) = cx.env.global.lanes_span(&addrs, mask, align, total) else {
                return false;
            };
            for (e, &r) in i.regs.iter().enumerate() {
                let eo = e as u64 * size as u64;
                // SAFETY: as in `ld_warp`
                by_size!(size, S => read_lanes(w, r, mask, |l, v| unsafe {
                    span.store(addrs[l] + eo, S, v)
                }));
            }
            if n == 1 {
                observe_lanes(
                    w,
                    cx,
                    mask,
                    mask,
                    MemSpace::Global,
                    &addrs,
                    size,
                    AccessKind::Write,
                    i.order,
                );
            } else {
                let g = MemSpace::Global;
                observe_lanes_vec(w, cx, mask, g, &addrs, size, n, AccessKind::Write, i.order);
            }
        }
        Space::Shared => {
            let me = cx.me;
            let sh = &mut cx.ctas[me].shared[..];
            let Some(offs) = shared_offsets(&addrs, mask, align, total, sh.len(), me) else {
                return false;
            };
            let p = sh.as_mut_ptr();
            for (e, &r) in i.regs.iter().enumerate() {
                let eo = e * size as usize;
                // SAFETY: as in `ld_warp`
                by_size!(size, S => read_lanes(w, r, mask, |l, v| unsafe {
                    write_le(p.add(offs[l] as usize + eo), S, v)
                }));
            }
            mbar_guard(w, cx, "write", mask, me, &offs, total);
            if cx.obs.wants_memory() {
                let seen: [u64; 32] = std::array::from_fn(|l| offs[l] as u64);
                let space = MemSpace::Shared { cta: me as u32 };
                if n == 1 {
                    observe_lanes(
                        w,
                        cx,
                        mask,
                        mask,
                        space,
                        &seen,
                        size,
                        AccessKind::Write,
                        i.order,
                    );
                } else {
                    let k = AccessKind::Write;
                    observe_lanes_vec(w, cx, mask, space, &seen, size, n, k, i.order);
                }
            }
        }
        _ => return false,
    }
    true
}

/// TM0233 for a warp-wide write of `size` bytes per lane at `offs` in CTA `c`'s shared memory:
/// one compare when the CTA has no valid mbarrier, one per active lane when it has.
#[inline(always)]
pub(super) fn mbar_guard<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    what: &str,
    mask: u32,
    c: usize,
    offs: &[u32; 32],
    size: u32,
) {
    let (lo, hi) = cx.ctas[c].mbar_span;
    if lo < hi {
        // [o, o + size) meets [lo, hi) iff o lies in [lo - size + 1, hi): one subtraction and
        // one unsigned compare per lane, branch-free over all 32 (vectorised), the mask
        // applied once (an inactive lane's offset may be anything)
        let from = lo.saturating_sub(size - 1);
        let width = hi - from;
        let mut meets = 0u32;
        for (l, &o) in offs.iter().enumerate() {
            meets |= u32::from(o.wrapping_sub(from) < width) << l;
        }
        meets &= mask;
        if meets != 0 {
            sync::mbar_overwritten(w, cx, what, meets, c, offs, size);
        }
    }
}

fn ld<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, mask: u32, i: &LdSt) {
    let size = i.elem.size as u32;
    if matches!(i.space, Space::Param | Space::Const)
        && matches!(i.addr.base, Any::Imm(_))
        && i.regs.len() == 1
        && !i.elem.signed
        && mask != 0
        && fast_ok(cx)
    {
        // hot path: a kernel parameter or constant at a fixed address is one value for the
        // whole warp; a fault falls through to the per-lane path, which reports it
        let a = lane_addr(w, i.addr, 0);
        if let Ok(v) = resolve(cx, i.space, a).and_then(|loc| load(w, cx, 0, loc, size)) {
            let r = i.regs[0];
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    w.write_any(r, l, v);
                }
            }
            return;
        }
    }
    if ld_warp(w, cx, mask, i) {
        return;
    }
    if i.space == Space::Global && i.regs.len() == 1 && !i.elem.signed && fast_ok(cx) {
        // a scalar global load with a faulting lane: each faulting lane is reported on its
        // own and reads 0, the others load, and their accesses are one batch
        let r = i.regs[0];
        let mut hint = usize::MAX;
        let (mut ok, mut seen) = (mask, [0u64; 32]);
        for l in 0..32 {
            if mask >> l & 1 != 0 {
                let a = lane_addr(w, i.addr, l);
                seen[l] = a;
                match cx.env.global.load_hinted(&mut hint, a, size) {
                    Ok(v) => w.write_any(r, l, v),
                    Err(f) => {
                        w.write_any(r, l, 0);
                        ok &= !(1 << l);
                        fault(w, cx, 1 << l, l, f, i.space);
                    }
                }
            }
        }
        observe_lanes(
            w,
            cx,
            mask,
            ok,
            MemSpace::Global,
            &seen,
            size,
            AccessKind::Read,
            i.order,
        );
        return;
    }
    let n = i.regs.len() as u64;
    let mut bad = 0u32;
    let mut first: Option<(usize, MemFault)> = None;
    let at = cx.at(w, mask);
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let a = lane_addr(w, i.addr, l);
        let total = size as u64 * n;
        let res = resolve(cx, i.space, a).and_then(|loc| {
            if n > 1 && !a.is_multiple_of(total.min(16).max(size as u64)) {
                return Err(MemFault::Misaligned {
                    space: space_name(i.space),
                    addr: a,
                    size: total as u32,
                });
            }
            let mut vals = [0u64; 8];
            for (e, v) in vals.iter_mut().enumerate().take(n as usize) {
                let le = advance(loc, e as u64 * size as u64);
                *v = load(w, cx, l, le, size)?;
                if cx.obs.wants_memory() {
                    observe_lane_at(cx, at, l, le, size, AccessKind::Read, i.order);
                }
            }
            Ok(vals)
        });
        match res {
            Ok(vals) => {
                for (e, r) in i.regs.iter().enumerate() {
                    let mut v = vals[e];
                    if i.elem.signed && size < 8 {
                        let sh = 64 - 8 * size;
                        v = (((v << sh) as i64) >> sh) as u64;
                        if matches!(r, crate::program::Any::R32(_)) {
                            v &= 0xffff_ffff;
                        }
                    }
                    w.write_any(*r, l, v);
                }
            }
            Err(f) => {
                bad |= 1 << l;
                if first.is_none() {
                    first = Some((l, f));
                }
                for r in i.regs.iter() {
                    w.write_any(*r, l, 0);
                }
            }
        }
    }
    if let Some((l, f)) = first {
        fault(w, cx, bad, l, f, i.space);
    }
}

#[inline]
fn advance(loc: Loc, by: u64) -> Loc {
    match loc {
        Loc::Global(a) => Loc::Global(a + by),
        Loc::Shared(c, o) => Loc::Shared(c, o.wrapping_add(by as u32)),
        Loc::Local(o) => Loc::Local(o + by),
        Loc::Param(o) => Loc::Param(o + by),
        Loc::Const(o) => Loc::Const(o + by),
    }
}

fn st<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, mask: u32, i: &LdSt) {
    let size = i.elem.size as u32;
    if st_warp(w, cx, mask, i) {
        return;
    }
    if i.space == Space::Global && i.regs.len() == 1 && fast_ok(cx) {
        // a scalar global store with a faulting lane, as in `ld`
        let r = i.regs[0];
        let mut hint = usize::MAX;
        let (mut ok, mut seen) = (mask, [0u64; 32]);
        for l in 0..32 {
            if mask >> l & 1 != 0 {
                let a = lane_addr(w, i.addr, l);
                seen[l] = a;
                let v = w.read_any(r, l);
                if let Err(f) = cx.env.global.store_hinted(&mut hint, a, size, v) {
                    ok &= !(1 << l);
                    fault(w, cx, 1 << l, l, f, i.space);
                }
            }
        }
        observe_lanes(
            w,
            cx,
            mask,
            ok,
            MemSpace::Global,
            &seen,
            size,
            AccessKind::Write,
            i.order,
        );
        return;
    }
    let n = i.regs.len() as u64;
    let mut bad = 0u32;
    let mut first: Option<(usize, MemFault)> = None;
    let at = cx.at(w, mask);
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let a = lane_addr(w, i.addr, l);
        let total = size as u64 * n;
        let res = resolve(cx, i.space, a).and_then(|loc| {
            if n > 1 && !a.is_multiple_of(total.min(16).max(size as u64)) {
                return Err(MemFault::Misaligned {
                    space: space_name(i.space),
                    addr: a,
                    size: total as u32,
                });
            }
            for (e, r) in i.regs.iter().enumerate() {
                let v = w.read_any(*r, l);
                let le = advance(loc, e as u64 * size as u64);
                store(w, cx, l, le, size, v)?;
                if cx.obs.wants_memory() {
                    observe_lane_at(cx, at, l, le, size, AccessKind::Write, i.order);
                }
            }
            Ok(())
        });
        if let Err(f) = res {
            bad |= 1 << l;
            if first.is_none() {
                first = Some((l, f));
            }
        }
    }
    if let Some((l, f)) = first {
        fault(w, cx, bad, l, f, i.space);
    }
}

pub(super) fn atom_apply(op: AtomOp, size: u8, old: u64, b: u64, c: u64) -> u64 {
    let m = FMods {
        rnd: Rnd::Rn,
        ftz: false,
        sat: false,
    };
    let sx = |v: u64| {
        if size == 4 {
            v as u32 as i32 as i64
        } else {
            v as i64
        }
    };
    match op {
        AtomOp::Add => old.wrapping_add(b),
        AtomOp::FAdd32 => fp::add32(old as u32, b as u32, m) as u64,
        AtomOp::FAdd64 => fp::add64(old, b, m),
        AtomOp::Min => old.min(b),
        AtomOp::Max => old.max(b),
        AtomOp::MinS => sx(old).min(sx(b)) as u64,
        AtomOp::MaxS => sx(old).max(sx(b)) as u64,
        AtomOp::Inc => {
            if old >= b {
                0
            } else {
                old + 1
            }
        }
        AtomOp::Dec => {
            if old == 0 || old > b {
                b
            } else {
                old - 1
            }
        }
        AtomOp::And => old & b,
        AtomOp::Or => old | b,
        AtomOp::Xor => old ^ b,
        AtomOp::Exch => b,
        AtomOp::Cas => {
            if old == b {
                c
            } else {
                old
            }
        }
        AtomOp::FMin32 => fp::min32(old as u32, b as u32, m, false) as u64,
        AtomOp::FMax32 => fp::max32(old as u32, b as u32, m, false) as u64,
        AtomOp::HalfAdd(h) => super::atom_half::add(h, old, b),
    }
}

fn atom<O: Observer>(w: &mut Warp, cx: &mut Ctx<'_, '_, O>, mask: u32, i: &AtomInst) {
    let size = i.size as u32;
    let szmask = if size == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * size)) - 1
    };
    // lanes in lane order: a deterministic serialisation of the warp's atomics
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let a = lane_addr(w, i.addr, l);
        let b = w.read_any(i.b, l) & szmask;
        let c = i.c.map(|c| w.read_any(c, l) & szmask).unwrap_or(0);
        let res = resolve(cx, i.space, a).and_then(|loc| match loc {
            // A global f32 add flushes subnormal inputs and results (PTX ISA §9.7.13.5,
            // recorded on H100: tests/corpus/atom_h100); a shared one keeps them.
            Loc::Global(g) if i.op == AtomOp::FAdd32 => cx.env.global.rmw(g, size, |old| {
                super::atom_vec::global_f32_add(old, b) & szmask
            }),
            Loc::Global(g) => cx
                .env
                .global
                .rmw(g, size, |old| atom_apply(i.op, i.size, old, b, c) & szmask),
            Loc::Shared(ci, off) => {
                if sync::mbar_span_meets(cx, ci, off, size) {
                    sync::mbar_overwritten_lane(w, cx, "atomic", l, ci, off, size);
                }
                let old = mem::bytes_load(&cx.ctas[ci].shared, "shared", off as u64, size)?;
                let new = atom_apply(i.op, i.size, old, b, c) & szmask;
                mem::bytes_store(&mut cx.ctas[ci].shared, "shared", off as u64, size, new)?;
                Ok(old)
            }
            _ => Err(MemFault::ReadOnly {
                space: "atomic on non-global/shared",
                addr: a,
            }),
        });
        match res {
            Ok(old) => {
                if cx.obs.wants_memory() {
                    if let Ok(loc) = resolve(cx, i.space, a) {
                        let at = cx.at(w, mask);
                        observe_lane_at(cx, at, l, loc, size, AccessKind::Write, i.order);
                    }
                }
                if let Some(d) = i.d {
                    w.write_any(d, l, old);
                }
            }
            Err(f) => {
                fault(w, cx, 1 << l, l, f, i.space);
            }
        }
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    inst: &Inst,
) -> Flow {
    match inst {
        Inst::Ld(i) => ld(w, cx, mask, i),
        Inst::St(i) => st(w, cx, mask, i),
        Inst::Atom(i) => atom(w, cx, mask, i),
        Inst::Cvta {
            to_generic,
            space,
            d,
            a,
        } => {
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                let v = w.read_any(*a, l);
                let r = match (to_generic, space) {
                    (true, Space::Shared | Space::SharedCluster) => {
                        mem::SHARED_WINDOW + (v & 0xffff_ffff)
                    }
                    (true, Space::Local) => mem::LOCAL_WINDOW + v,
                    (true, Space::Const) => mem::CONST_WINDOW + v,
                    (true, Space::Param) => mem::PARAM_WINDOW + v,
                    (true, _) => v,
                    (false, Space::Shared | Space::SharedCluster) => {
                        v.wrapping_sub(mem::SHARED_WINDOW) & 0xffff_ffff
                    }
                    (false, Space::Local) => v.wrapping_sub(mem::LOCAL_WINDOW),
                    (false, Space::Const) => v.wrapping_sub(mem::CONST_WINDOW),
                    (false, Space::Param) => v.wrapping_sub(mem::PARAM_WINDOW),
                    (false, _) => v,
                };
                w.write_any(*d, l, r);
            }
        }
        Inst::Isspacep { d, space, a } => {
            // PTX ISA §9.7.9.19: the `.param` window lies inside the `.global` one, so
            // `isspacep.global` is true for kernel parameters too
            let (me, n) = (cx.me as u32, cx.ctas.len() as u32);
            let mut v = 0u32;
            for l in 0..32 {
                let win = classify(w.read_any(*a, l));
                let yes = match (space, win) {
                    (Space::Global, Window::Global(_) | Window::Param(_)) => true,
                    (Space::Param, Window::Param(_)) => true,
                    (Space::Local, Window::Local(_)) => true,
                    (Space::Const, Window::Const(_)) => true,
                    (Space::Shared, Window::Shared(s)) => s >> 24 == me,
                    (Space::SharedCluster, Window::Shared(s)) => s >> 24 < n,
                    _ => false,
                };
                v |= (yes as u32) << l;
            }
            w.set_pred(*d, mask, v);
        }
        Inst::Mapa {
            generic,
            d,
            a,
            rank,
        } => {
            let ranks = w.get(*rank);
            for l in 0..32 {
                if mask >> l & 1 == 0 {
                    continue;
                }
                let v = w.read_any(*a, l);
                let r = ranks[l];
                let low = if *generic {
                    v.wrapping_sub(mem::SHARED_WINDOW)
                } else {
                    v
                } as u32
                    & 0x00ff_ffff;
                let s = (r << 24) | low;
                if r as usize >= cx.ctas.len() {
                    let pc = w.cur_pc;
                    cx.diag(
                        w,
                        pc,
                        1 << l,
                        rules::BAD_ADDRESS_SPACE,
                        format!(
                            "mapa to CTA rank {r}, but the cluster has {} CTAs",
                            cx.ctas.len()
                        ),
                    );
                }
                let out = if *generic {
                    mem::SHARED_WINDOW + s as u64
                } else {
                    s as u64
                };
                w.write_any(*d, l, out);
            }
        }
        Inst::MovSharedSym { generic, d, a } => {
            let v = ((*a as u32 & 0x00ff_ffff) | ((cx.me as u32) << 24)) as u64;
            let v = if *generic { mem::SHARED_WINDOW + v } else { v };
            for l in 0..32 {
                if mask >> l & 1 != 0 {
                    w.write_any(*d, l, v);
                }
            }
        }
        _ => unreachable!("memory::exec() called with {inst:?}"),
    }
    Flow::Next
}

/// Copies `size` bytes between resolved locations, byte by byte through the checked accessors.
fn copy<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    lane: usize,
    dst: Loc,
    src: Loc,
    size: u32,
) -> Result<(), MemFault> {
    let mut off = 0u32;
    while off < size {
        // 4-byte steps when both sides allow it, else bytes
        let step = if (size - off) >= 4 && aligned(dst, off, 4) && aligned(src, off, 4) {
            4
        } else {
            1
        };
        let v = load(w, cx, lane, advance(src, off as u64), step)?;
        store(w, cx, lane, advance(dst, off as u64), step, v)?;
        off += step;
    }
    Ok(())
}

/// Issues a bulk copy to the observer with its source range.
fn bulk_issue<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    lanes: u32,
    src: Loc,
    n: u32,
    kind: AccessKind,
) -> AsyncId {
    let id = cx.tc.async_id();
    let at = cx.at(w, lanes);
    cx.obs.async_issue(at, id, OpKind::Bulk);
    bulk_access(cx, id, src, n, kind);
    id
}

fn bulk_access<O: Observer>(
    cx: &mut Ctx<'_, '_, O>,
    id: AsyncId,
    at: Loc,
    n: u32,
    kind: AccessKind,
) {
    let (space, addr) = match at {
        Loc::Global(a) => (MemSpace::Global, a),
        Loc::Shared(c, off) => (MemSpace::Shared { cta: c as u32 }, off as u64),
        _ => return,
    };
    let place = Place::Mem {
        space,
        addr,
        len: n as u64,
    };
    cx.obs.async_access(id, place, kind);
}

fn aligned(l: Loc, off: u32, n: u64) -> bool {
    let a = match advance(l, off as u64) {
        Loc::Global(a) | Loc::Local(a) | Loc::Param(a) | Loc::Const(a) => a,
        Loc::Shared(_, o) => o as u64,
    };
    a % n == 0
}

pub(super) fn exec_copy<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    inst: &Inst,
) -> Flow {
    if let Inst::CpAsync(ref c) = *inst {
        // the warp-wide path reports the copy from its own scans; when it declines, having
        // touched nothing, the same events come from the registers before the per-lane copy
        if super::cp_async::warp(w, cx, mask, c) {
            return Flow::Next;
        }
        super::cp_async::observe(w, cx, mask, c);
    }
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let r: Result<(), MemFault> = (|| {
            match *inst {
                Inst::CpAsync(ref c) => {
                    let CpAsyncInst {
                        dst,
                        src,
                        size,
                        src_size,
                    } = **c;
                    let d = resolve(cx, Space::Shared, lane_addr(w, dst, l))?;
                    let s = resolve(cx, Space::Global, lane_addr(w, src, l))?;
                    // cp.async's alignment is that of "Addresses as Operands" (§6.4.1): each
                    // address naturally aligned to the access size, cp-size (TM0502)
                    for (loc, space, a) in [(d, "shared", dst), (s, "global", src)] {
                        if !aligned(loc, 0, size as u64) {
                            return Err(MemFault::Misaligned {
                                space,
                                addr: lane_addr(w, a, l),
                                size: size as u32,
                            });
                        }
                    }
                    let n = src_size
                        .map(|v| w.read_any(v, l) as u32)
                        .unwrap_or(size as u32)
                        .min(size as u32);
                    copy(w, cx, l, d, s, n)?;
                    for z in n..size as u32 {
                        store(w, cx, l, advance(d, z as u64), 1, 0)?;
                    }
                }
                Inst::CpBulkG2S(ref c) => {
                    let CpBulkG2SInst {
                        dst,
                        src,
                        size,
                        mbar,
                        multicast,
                    } = **c;
                    let n = w.read_any(size, l) as u32;
                    let s = resolve(cx, Space::Global, lane_addr(w, src, l))?;
                    let dst_a = lane_addr(w, dst, l) as u32;
                    let mbar_a = lane_addr(w, mbar, l) as u32;
                    let targets: u32 = match multicast {
                        Some(m) => w.get(m)[l] & 0xffff,
                        None => 0,
                    };
                    let mut dests = Vec::new();
                    if multicast.is_some() {
                        for r in 0..cx.ctas.len().min(16) {
                            if targets >> r & 1 != 0 {
                                let off = (dst_a & 0x00ff_ffff) | ((r as u32) << 24);
                                let moff = (mbar_a & 0x00ff_ffff) | ((r as u32) << 24);
                                dests.push((off, moff));
                            }
                        }
                    } else {
                        dests.push((dst_a, mbar_a));
                    }
                    // The copies first, the observer after: a copy that faults (a size past
                    // the end of shared memory) is an error, not an access of `n` bytes the
                    // race detector would shadow (a 4 GiB size exhausted its memory).
                    let mut bars = Vec::with_capacity(dests.len());
                    for (da, ma) in dests {
                        let d = resolve(cx, Space::SharedCluster, da as u64)?;
                        copy(w, cx, l, d, s, n)?;
                        let Loc::Shared(c, off) = resolve(cx, Space::SharedCluster, ma as u64)?
                        else {
                            unreachable!()
                        };
                        bars.push((d, c, off));
                    }
                    let id = bulk_issue(w, cx, 1 << l, s, n, AccessKind::Read);
                    for &(d, _, _) in &bars {
                        bulk_access(cx, id, d, n, AccessKind::Write);
                    }
                    // copies complete at issue: completion, then each complete_tx
                    cx.obs.async_complete(id, cx.out.warp_instructions);
                    for (_, c, off) in bars {
                        let key = SyncKey::Mbarrier {
                            cta: c as u32,
                            offset: off,
                        };
                        cx.obs.async_arrive(id, key);
                        sync::complete_tx(w, cx, c, off, n as i64);
                    }
                }
                Inst::CpBulkS2G(ref c) => {
                    let CpBulkS2GInst { dst, src, size } = **c;
                    let n = w.read_any(size, l) as u32;
                    let d = resolve(cx, Space::Global, lane_addr(w, dst, l))?;
                    let s = resolve(cx, Space::Shared, lane_addr(w, src, l))?;
                    // copy first: see the global-to-shared arm
                    copy(w, cx, l, d, s, n)?;
                    let id = bulk_issue(w, cx, 1 << l, s, n, AccessKind::Read);
                    bulk_access(cx, id, d, n, AccessKind::Write);
                    cx.obs.async_complete(id, cx.out.warp_instructions);
                    // the copy completes at issue in the engine; the program observes it at
                    // the cp.async.bulk.wait_group of its bulk async-group
                    let at = cx.at(w, 1 << l);
                    cx.obs.bulk_group_add(at, id);
                }
                Inst::CpBulkS2Cluster(ref c) => {
                    let CpBulkS2ClusterInst {
                        dst,
                        src,
                        size,
                        mbar,
                    } = **c;
                    let n = w.read_any(size, l) as u32;
                    let d = resolve(cx, Space::SharedCluster, lane_addr(w, dst, l))?;
                    let s = resolve(cx, Space::Shared, lane_addr(w, src, l))?;
                    // copy first: see the global-to-shared arm
                    copy(w, cx, l, d, s, n)?;
                    let id = bulk_issue(w, cx, 1 << l, s, n, AccessKind::Read);
                    bulk_access(cx, id, d, n, AccessKind::Write);
                    let Loc::Shared(c, off) =
                        resolve(cx, Space::SharedCluster, lane_addr(w, mbar, l))?
                    else {
                        unreachable!()
                    };
                    cx.obs.async_complete(id, cx.out.warp_instructions);
                    let key = SyncKey::Mbarrier {
                        cta: c as u32,
                        offset: off,
                    };
                    cx.obs.async_arrive(id, key);
                    sync::complete_tx(w, cx, c, off, n as i64);
                }
                _ => unreachable!(),
            }
            Ok(())
        })();
        if let Err(f) = r {
            fault(w, cx, 1 << l, l, f, Space::Generic);
        }
    }
    Flow::Next
}

#[cfg(test)]
mod shared_fast_path_tests {
    use crate::{install_globals, load, run, GlobalMemory, Launch, RunOptions};

    /// Each thread stores its id to `buf[tid]` (lane `bad` 4 KB past the end), then reads
    /// `buf[31 - tid]` into `out[tid]`.
    const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry sh(.param .u64 out_ptr, .param .u32 bad)
{
    .reg .b32 %r<9>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    .shared .align 4 .b8 buf[128];
    ld.param.u64 %rd1, [out_ptr];
    ld.param.u32 %r6, [bad];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, buf;
    add.u32 %r4, %r3, %r2;
    setp.eq.u32 %p1, %r1, %r6;
    @%p1 add.u32 %r4, %r4, 4096;
    st.shared.u32 [%r4], %r1;
    bar.sync 0;
    mov.u32 %r8, 124;
    sub.u32 %r5, %r8, %r2;
    add.u32 %r5, %r3, %r5;
    ld.shared.u32 %r7, [%r5];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r7;
    ret;
}
"#;

    fn run_with_bad(bad: u32) -> (crate::RunResult, Vec<u32>) {
        let m = tmemu_ptx::parse(PTX).expect("parse");
        let k = load(&m, PTX, "sh.ptx", None).expect("load");
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let out = g.alloc("out", &[0u8; 128]);
        let mut params = vec![0u8; k.param_bytes as usize];
        for (p, v) in k.params.iter().zip([out, bad as u64]) {
            params[p.offset as usize..(p.offset + p.size) as usize]
                .copy_from_slice(&v.to_le_bytes()[..p.size as usize]);
        }
        let launch = Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            cluster: None,
            dyn_shared: 0,
            params,
        };
        let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
        let words = g
            .read_buffer(out)
            .unwrap()
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        (r, words)
    }

    #[test]
    fn in_bounds_exchange_goes_through_shared_memory() {
        let (r, out) = run_with_bad(99);
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        assert_eq!(out, (0..32).rev().collect::<Vec<u32>>());
    }

    #[test]
    fn one_faulting_lane_is_reported_and_the_others_still_store() {
        let (r, out) = run_with_bad(5);
        assert_eq!(r.diagnostics.len(), 1, "{:?}", r.diagnostics);
        let d = &r.diagnostics[0];
        assert_eq!(d.rule.id, "TM0501");
        assert_eq!(d.ctx.lanes, 1 << 5);
        assert!(d.message.contains("(lane 5)"), "{}", d.message);
        // buf[5] was never written (shared memory starts zeroed), every other word was
        let want: Vec<u32> = (0..32u32)
            .map(|t| if 31 - t == 5 { 0 } else { 31 - t })
            .collect();
        assert_eq!(out, want);
    }
}

/// The warp-wide `ld`/`st` paths against the per-lane path they short-cut: the same kernel
/// run with no observer (every fast path), with an observer that takes batched accesses
/// (scalar fast paths), and with one that wants per-lane events (which turns every fast path
/// off) must leave the same bytes, the same diagnostics and the same accesses.
#[cfg(test)]
mod warp_path_tests {
    use crate::observer::{AccessKind, At, MemOrder, MemSpace, Observer};
    use crate::{install_globals, load, run_observed, GlobalMemory, Launch, RunOptions};

    /// Each lane loads 16 bytes of `in` as a v4, plus signed 8/16-bit loads into 32- and
    /// 64-bit registers; stages them through shared memory as v4, v2, b16 and u8 stores; reads
    /// a neighbour's back as v4, v2, b16 and s8; and writes 64 bytes of `out` with v4, v2.u64,
    /// b16 and u8 stores. Lane `bad` adds `skew` to its load address (OOB or misaligned).
    const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry v(.param .u64 out_ptr, .param .u64 in_ptr, .param .u32 bad, .param .u64 skew)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .b16 %rs<8>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 buf[1024];
    ld.param.u64 %rd1, [out_ptr];
    ld.param.u64 %rd2, [in_ptr];
    ld.param.u32 %r30, [bad];
    ld.param.u64 %rd15, [skew];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 16;
    add.s64 %rd4, %rd2, %rd3;
    setp.eq.u32 %p1, %r1, %r30;
    @%p1 add.s64 %rd4, %rd4, %rd15;
    ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
    ld.global.s16 %r6, [%rd4+2];
    ld.global.s8 %rd5, [%rd4+3];
    ld.global.v2.u16 {%rs1, %rs2}, [%rd4+4];
    mov.u32 %r7, buf;
    shl.b32 %r8, %r1, 5;
    add.u32 %r9, %r7, %r8;
    st.shared.v4.u32 [%r9], {%r2, %r3, %r4, %r5};
    st.shared.v2.u32 [%r9+16], {%r6, %r5};
    st.shared.b16 [%r9+24], %rs2;
    st.shared.u8 [%r9+27], %r3;
    bar.sync 0;
    mov.u32 %r10, 31;
    sub.u32 %r11, %r10, %r1;
    shl.b32 %r12, %r11, 5;
    add.u32 %r13, %r7, %r12;
    ld.shared.v4.u32 {%r14, %r15, %r16, %r17}, [%r13];
    ld.shared.v2.u32 {%r18, %r19}, [%r13+16];
    ld.shared.b16 %rs3, [%r13+24];
    ld.shared.s8 %r20, [%r13+27];
    ld.shared.s16 %rd6, [%r13+16];
    mul.wide.u32 %rd7, %r1, 64;
    add.s64 %rd8, %rd1, %rd7;
    st.global.v4.u32 [%rd8], {%r14, %r15, %r16, %r17};
    st.global.v2.u64 [%rd8+16], {%rd5, %rd6};
    st.global.v2.u32 [%rd8+32], {%r18, %r19};
    st.global.b16 [%rd8+40], %rs3;
    st.global.b16 [%rd8+42], %rs1;
    st.global.u32 [%rd8+44], %r20;
    st.global.u8 [%rd8+48], %r6;
    ret;
}
"#;

    #[derive(Default)]
    struct Rec {
        batched: bool,
        events: Vec<String>,
    }

    impl Observer for Rec {
        fn wants_memory(&self) -> bool {
            true
        }
        fn wants_memory_lanes(&self) -> bool {
            self.batched
        }
        // vectors too: the default `memory_lanes_vec` forwards per lane and element, so the
        // warp-wide paths' vector events must equal the per-lane path's
        fn wants_memory_lanes_vec(&self) -> bool {
            self.batched
        }
        fn memory(
            &mut self,
            at: At,
            lane: u32,
            space: MemSpace,
            addr: u64,
            size: u32,
            kind: AccessKind,
            _order: MemOrder,
        ) {
            self.events.push(format!(
                "pc {} lane {lane} {space:?} {addr:#x} {size} {kind:?}",
                at.pc
            ));
        }
    }

    /// (out bytes, diagnostics as text, sorted access events or None without an observer)
    fn run_with(bad: u32, skew: u64, obs: Option<bool>) -> (Vec<u8>, Vec<String>, Vec<String>) {
        let m = tmemu_ptx::parse(PTX).expect("parse");
        let k = load(&m, PTX, "v.ptx", None).expect("load");
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let out = g.alloc("out", &[0xeeu8; 32 * 64]);
        let input: Vec<u8> = (0..512u32).map(|i| (i * 37 + 11) as u8).collect();
        let inp = g.alloc("in", &input);
        let mut params = vec![0u8; k.param_bytes as usize];
        for (p, v) in k.params.iter().zip([out, inp, bad as u64, skew]) {
            params[p.offset as usize..(p.offset + p.size) as usize]
                .copy_from_slice(&v.to_le_bytes()[..p.size as usize]);
        }
        let launch = Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            cluster: None,
            dyn_shared: 0,
            params,
        };
        let opts = RunOptions::default();
        let (r, events) = match obs {
            None => (crate::run(&k, &launch, &g, &opts).expect("launch"), vec![]),
            Some(batched) => {
                let (r, mut o) = run_observed(&k, &launch, &g, &opts, |_| Rec {
                    batched,
                    events: vec![],
                })
                .expect("launch");
                let mut ev = std::mem::take(&mut o[0].events);
                ev.sort();
                (r, ev)
            }
        };
        let diags = r
            .diagnostics
            .iter()
            .map(|d| {
                format!(
                    "{} {} {:#x} {}",
                    d.rule.id, d.ctx.pc, d.ctx.lanes, d.message
                )
            })
            .collect();
        (g.read_buffer(out).unwrap(), diags, events)
    }

    #[test]
    fn fast_and_per_lane_paths_agree() {
        // no fault, a lane far out of bounds, a lane misaligned for the v4 (and the s16)
        for (bad, skew) in [(99, 0u64), (5, 1 << 20), (17, 4), (0, 1)] {
            let fast = run_with(bad, skew, None);
            let batched = run_with(bad, skew, Some(true));
            let per_lane = run_with(bad, skew, Some(false));
            assert_eq!(fast.0, per_lane.0, "bytes, bad {bad} skew {skew}");
            assert_eq!(batched.0, per_lane.0, "bytes, bad {bad} skew {skew}");
            assert_eq!(fast.1, per_lane.1, "diagnostics, bad {bad} skew {skew}");
            assert_eq!(batched.1, per_lane.1, "diagnostics, bad {bad} skew {skew}");
            assert_eq!(batched.2, per_lane.2, "accesses, bad {bad} skew {skew}");
            if skew == 0 {
                assert!(per_lane.1.is_empty(), "{:?}", per_lane.1);
                // lane 0 read lane 31's staging: its v4 words are in[496..512]
                let word = |i: u32| {
                    u32::from_le_bytes(std::array::from_fn(|b| ((i + b as u32) * 37 + 11) as u8))
                };
                let got = u32::from_le_bytes(fast.0[0..4].try_into().unwrap());
                assert_eq!(got, word(496));
            } else {
                assert!(
                    !per_lane.1.is_empty(),
                    "bad {bad} skew {skew}: no diagnostic"
                );
            }
        }
    }
}
