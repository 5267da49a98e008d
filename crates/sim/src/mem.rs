//! Memories and address windows.
//!
//! Generic addresses (64-bit) are split into windows, so a generic access resolves by range:
//!
//! | window | generic range | space address |
//! |---|---|---|
//! | shared | `SHARED_WINDOW + a` | `a` = 32-bit `.shared::cluster` address |
//! | local | `LOCAL_WINDOW + off` | per-thread offset |
//! | const | `CONST_WINDOW + off` | offset in the const bank |
//! | param | `PARAM_WINDOW + off` | offset in the kernel param block |
//! | global | everything else | device address of a buffer |
//!
//! The 32-bit shared address of cluster rank `r` at byte offset `o` of its shared memory is
//! `(r << 24) | (SHARED_BASE + o)`, as on hardware, where a CTA's own addresses carry its rank
//! in bits 24 and up and are thereby also its `.shared::cluster` addresses:
//!
//! | producer | value |
//! |---|---|
//! | `mov d, shared_sym`, `cvta.shared d, shared_sym` | executing rank's bits (`MovSharedSym`) |
//! | `mapa a, r` | `(r << 24) \| (a & 0xFF_FFFF)` |
//! | `[shared_sym+off]` operand | rank bits 0 (a loader immediate, shared by all CTAs) |
//!
//! | access | decodes |
//! |---|---|
//! | `.shared::cluster`, generic shared window | rank `a >> 24`, must be < cluster size |
//! | `.shared::cta` | own CTA when `a >> 24` is 0 or the executing rank; else TM0503 (`OtherWindow`) |
//! | either, another rank | that CTA must not have exited; else TM0231 (`PeerExited`) |
//!
//! So clearing bit 24 of an own address (CUTLASS's "peer bit" idiom) names the even CTA of a
//! pair, and a launch without clusters (rank 0) sees the same numbers as before ranks existed.
//! Known gap: a `.shared::cta` access from rank r > 0 to an address with rank bits 0 is taken
//! as its own window (indistinguishable from a `[sym+off]` immediate), not diagnosed.
//! DERIVED: `[shared_sym]` in a `.shared::cluster` access names rank 0, not the executing CTA
//! (compilers materialise the address in a register first; none of the corpus does this).
//! The numeric layout is ours (DERIVED): PTX leaves window bases to the platform.
//!
//! Global memory is shared by the worker threads of a parallel run. Every access goes through
//! a relaxed atomic of the access's natural size (PTX requires natural alignment; misaligned
//! accesses are diagnosed and not performed), which on x86-64 compiles to a plain move and keeps
//! the program free of Rust data races whatever the kernel does.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

pub const SHARED_BASE: u32 = 0x400;
pub const SHARED_WINDOW: u64 = 0x0000_0100_0000_0000;
pub const LOCAL_WINDOW: u64 = 0x0000_0200_0000_0000;
pub const CONST_WINDOW: u64 = 0x0000_0300_0000_0000;
pub const PARAM_WINDOW: u64 = 0x0000_0400_0000_0000;
pub const WINDOW_SIZE: u64 = 0x0000_0001_0000_0000;
/// First device address handed to global buffers (module globals first, then user buffers).
pub const GLOBAL_BASE: u64 = 0x0000_7000_0000_0000;
/// Unmapped bytes between two buffers, so an overrun lands in no buffer and is diagnosed.
pub const GUARD_GAP: u64 = 64 * 1024;

/// Which window a generic address falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Window {
    Shared(u32),
    Local(u64),
    Const(u64),
    Param(u64),
    Global(u64),
}

#[inline]
pub fn classify(generic: u64) -> Window {
    let w = generic & !(WINDOW_SIZE - 1);
    let off = generic - w;
    match w {
        SHARED_WINDOW => Window::Shared(off as u32),
        LOCAL_WINDOW => Window::Local(off),
        CONST_WINDOW => Window::Const(off),
        PARAM_WINDOW => Window::Param(off),
        _ => Window::Global(generic),
    }
}

/// What an out-of-bounds message adds after "outside every allocation". Worked out only
/// when the message is made: a kernel faulting in a loop makes millions of faults past the
/// diagnostics cap, and formatting each one's text up front was most of its run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Nearest {
    /// Nothing.
    None,
    Text(String),
    /// The global buffer nearest the address, its name and bounds.
    GlobalBuffer,
    /// The size of the state space (`shared memory is N bytes`).
    SpaceSize(u64),
}

impl Nearest {
    pub fn describe(self, space: &str, addr: u64, global: &GlobalMemory) -> Option<String> {
        match self {
            Nearest::None => None,
            Nearest::Text(t) => Some(t),
            Nearest::GlobalBuffer => global.nearest(addr),
            Nearest::SpaceSize(len) => Some(format!("{space} memory is {len} bytes")),
        }
    }
}

/// Whether `[addr, addr + size)` lies in buffer `b`, for `addr >= b.addr`, without an
/// overflowing sum.
#[inline(always)]
fn fits(b: &Buffer, addr: u64, size: u32) -> bool {
    b.len
        .checked_sub(u64::from(size))
        .is_some_and(|room| addr - b.addr <= room)
}

/// A fault of one access, turned into a diagnostic by the executor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemFault {
    OutOfBounds {
        space: &'static str,
        addr: u64,
        size: u32,
        nearest: Nearest,
    },
    Misaligned {
        space: &'static str,
        addr: u64,
        size: u32,
    },
    ReadOnly {
        space: &'static str,
        addr: u64,
    },
    /// An address of another CTA's window in an access of the own CTA's space
    /// (`.shared::cta` with another rank's bits): undefined in PTX, reported as TM0503.
    OtherWindow {
        space: &'static str,
        addr: u64,
        why: String,
    },
    /// A `.shared::cluster` address of a CTA of the cluster that has exited: its shared
    /// memory is gone (TM0231).
    PeerExited {
        addr: u64,
        rank: usize,
    },
}

/// One device allocation.
pub struct Buffer {
    pub name: String,
    pub addr: u64,
    pub len: u64,
    /// The allocation, owned as `owner` says (freed in `Drop`). Held as a raw pointer rather
    /// than a `Box` so that an adopted byte vector and a zeroed word array look the same to
    /// every access: all of them go through `base` with atomic operations of their own size.
    base: *mut u8,
    owner: Owner,
}

/// How a [`Buffer`]'s allocation was made, so that it is freed with the same layout.
enum Owner {
    /// `Box<[AtomicU64]>` of this many words ([`zeroed_words`]).
    Words(usize),
    /// `Box<[u8]>` of this many bytes, adopted without a copy ([`GlobalMemory::alloc_owned`]).
    Bytes(usize),
}

// SAFETY: `base` is owned by the buffer alone and every access through it, from any thread,
// is an atomic operation (or happens with `&mut GlobalMemory`: `GlobalMemory::view`).
unsafe impl Send for Buffer {}
unsafe impl Sync for Buffer {}

impl Buffer {
    #[inline(always)]
    fn ptr(&self) -> *mut u8 {
        self.base
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: `base` came from `Box::into_raw` of the type and length `owner` records.
        unsafe {
            match self.owner {
                Owner::Words(n) => drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    self.base as *mut AtomicU64,
                    n,
                ))),
                Owner::Bytes(n) => drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
                    self.base, n,
                ))),
            }
        }
    }
}

/// Global memory: buffers at device addresses separated by guard gaps.
#[derive(Default)]
pub struct GlobalMemory {
    buffers: Vec<Buffer>,
    next: u64,
}

impl GlobalMemory {
    pub fn new() -> Self {
        GlobalMemory {
            buffers: Vec::new(),
            next: GLOBAL_BASE,
        }
    }

    /// Places `bytes` at the next free device address (256-byte aligned, after a guard gap)
    /// and returns the address.
    pub fn alloc(&mut self, name: &str, bytes: &[u8]) -> u64 {
        self.alloc_len(name, bytes.len() as u64, bytes)
    }

    /// Places a buffer of `len` bytes whose first bytes are `init` (rest zero).
    pub fn alloc_len(&mut self, name: &str, len: u64, init: &[u8]) -> u64 {
        let nwords = len.div_ceil(8).max(1) as usize;
        let words = Box::into_raw(zeroed_words(nwords)) as *mut u8;
        // SAFETY: fresh allocation of nwords*8 >= init.len() bytes, not yet shared.
        unsafe {
            std::ptr::copy_nonoverlapping(init.as_ptr(), words, init.len().min(len as usize))
        };
        self.place(name, len, words, Owner::Words(nwords))
    }

    /// Places `bytes` as a buffer without copying them when their address suits atomic
    /// access of every size (8-byte aligned, as any large allocation is); otherwise as
    /// [`alloc`](Self::alloc). A launch's inputs are generated in parallel straight into the
    /// vectors handed here, so their pages are first touched there, not by a serial copy.
    pub fn alloc_owned(&mut self, name: &str, bytes: Vec<u8>) -> u64 {
        if bytes.is_empty() || bytes.as_ptr() as usize & 7 != 0 {
            return self.alloc(name, &bytes);
        }
        let len = bytes.len();
        // `into_boxed_slice` reallocates only when capacity exceeds the length (not for the
        // `vec![0; n]` of a fill); the result is checked again for its alignment
        let boxed = bytes.into_boxed_slice();
        if boxed.as_ptr() as usize & 7 != 0 {
            return self.alloc(name, &boxed);
        }
        let base = Box::into_raw(boxed) as *mut u8;
        self.place(name, len as u64, base, Owner::Bytes(len))
    }

    fn place(&mut self, name: &str, len: u64, base: *mut u8, owner: Owner) -> u64 {
        if self.next == 0 {
            // a `Default` memory starts where `new` does
            self.next = GLOBAL_BASE;
        }
        let addr = self.next;
        self.buffers.push(Buffer {
            name: name.to_string(),
            addr,
            len,
            base,
            owner,
        });
        self.next = (addr + len + GUARD_GAP).next_multiple_of(256);
        addr
    }

    /// Read access to the buffers' bytes in place: the exclusive borrow proves no run is in
    /// progress, so the contents can be read (saved, compared) without a copy.
    pub fn view(&mut self) -> GlobalView<'_> {
        GlobalView { mem: self }
    }

    /// The bytes of the buffer at `addr` (for saving outputs).
    pub fn read_buffer(&self, addr: u64) -> Option<Vec<u8>> {
        let b = self.buffers.iter().find(|b| b.addr == addr)?;
        let mut out = vec![0u8; b.len as usize];
        // SAFETY: no run is in progress when outputs are read (we hold &self of the owner).
        unsafe { std::ptr::copy_nonoverlapping(b.ptr(), out.as_mut_ptr(), b.len as usize) };
        Some(out)
    }

    pub fn buffers(&self) -> impl Iterator<Item = (&str, u64, u64)> {
        self.buffers
            .iter()
            .map(|b| (b.name.as_str(), b.addr, b.len))
    }

    #[inline]
    fn find(&self, addr: u64, size: u32) -> Result<(&Buffer, usize), MemFault> {
        let i = self.buffers.partition_point(|b| b.addr <= addr);
        if i > 0 {
            let b = &self.buffers[i - 1];
            // `addr - b.addr <= len - size`, not `addr + size <= end`: an address near 2^64
            // (a register holding -1) wrapped the sum and passed (fuzz/mutate_run.py: a
            // segfault)
            if fits(b, addr, size) {
                if addr & (size as u64 - 1) != 0 {
                    return Err(MemFault::Misaligned {
                        space: "global",
                        addr,
                        size,
                    });
                }
                return Ok((b, (addr - b.addr) as usize));
            }
        }
        Err(MemFault::OutOfBounds {
            space: "global",
            addr,
            size,
            nearest: Nearest::GlobalBuffer,
        })
    }

    #[cold]
    pub(crate) fn nearest(&self, addr: u64) -> Option<String> {
        let b = self.buffers.iter().min_by_key(|b| {
            if addr < b.addr {
                b.addr - addr
            } else {
                addr.saturating_sub(b.addr + b.len)
            }
        })?;
        let rel = if addr < b.addr {
            format!("{} bytes before", b.addr - addr)
        } else if addr >= b.addr + b.len {
            format!("{} bytes after the end of", addr - (b.addr + b.len))
        } else {
            format!("at offset {} of", addr - b.addr)
        };
        Some(format!(
            "{rel} buffer `{}` [{:#x}, {:#x})",
            b.name,
            b.addr,
            b.addr + b.len
        ))
    }

    /// Like `find`, but tries buffer `*hint` first (a warp's lanes mostly hit one buffer) and
    /// leaves the buffer it found in `*hint`.
    #[inline(always)]
    fn find_hinted(
        &self,
        hint: &mut usize,
        addr: u64,
        size: u32,
    ) -> Result<(&Buffer, usize), MemFault> {
        if let Some(b) = self.buffers.get(*hint) {
            if addr >= b.addr && fits(b, addr, size) && addr & (size as u64 - 1) == 0 {
                return Ok((b, (addr - b.addr) as usize));
            }
        }
        let r = self.find(addr, size)?;
        *hint = self.buffers.partition_point(|b| b.addr <= addr) - 1;
        Ok(r)
    }

    /// [`load`](Self::load) with a buffer hint (see `find_hinted`).
    #[inline(always)]
    pub fn load_hinted(&self, hint: &mut usize, addr: u64, size: u32) -> Result<u64, MemFault> {
        let (b, off) = self.find_hinted(hint, addr, size)?;
        // SAFETY: bounds and natural alignment checked; the words are atomics.
        unsafe { Ok(atomic_load(b.ptr().add(off), size)) }
    }

    /// [`store`](Self::store) with a buffer hint.
    #[inline(always)]
    pub fn store_hinted(
        &self,
        hint: &mut usize,
        addr: u64,
        size: u32,
        v: u64,
    ) -> Result<(), MemFault> {
        let (b, off) = self.find_hinted(hint, addr, size)?;
        // SAFETY: as in `load_hinted`.
        unsafe { atomic_store(b.ptr().add(off), size, v) };
        Ok(())
    }

    /// The buffer holding every active lane's `size`-byte access at `addrs[l]`, when one
    /// buffer holds them all and each is naturally aligned: one range and alignment check
    /// for the warp instead of one per lane. `None` tells the caller to take its per-lane
    /// path, which reports the faults.
    #[inline]
    fn warp_span(&self, addrs: &[u64; 32], mask: u32, size: u32) -> Option<&Buffer> {
        self.lanes_span(addrs, mask, size, size).map(|s| s.buf)
    }

    /// The buffer holding every active lane's `len`-byte access at `addrs[l]`, each address a
    /// multiple of `align` (a power of two): one range and alignment scan for the warp.
    /// `None` (any lane outside the buffer of the lowest address, misaligned, or no lane
    /// active) tells the caller to take its per-lane path, which reports the faults.
    ///
    /// Buffers lie at [`GLOBAL_BASE`] and above, outside every window of [`classify`], so a
    /// span found for generic addresses proves each of them a global address too.
    #[inline]
    pub fn lanes_span(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        align: u32,
        len: u32,
    ) -> Option<GlobalSpan<'_>> {
        if mask == 0 {
            return None;
        }
        // the buffer of the first active lane; every active lane must lie in it: one
        // subtraction and compare per lane (independent, no min/max chain)
        let a0 = addrs[mask.trailing_zeros() as usize];
        let i = self.buffers.partition_point(|b| b.addr <= a0);
        let buf = self.buffers.get(i.checked_sub(1)?)?;
        let room = buf.len.checked_sub(len as u64)?;
        // four lanes at a time (exec/scan.rs); the inactive lanes are masked off afterwards
        let bad = crate::exec::scan::global_bad_lanes(addrs, buf.addr, room, align as u64 - 1);
        (bad & mask == 0).then_some(GlobalSpan { buf })
    }

    /// [`lanes_span`](Self::lanes_span) for a full warp whose lane `l` accesses `len` bytes
    /// (4, 8 or 16) at `regs[l] + add` (wrapping), keeping what that scan computes and drops:
    /// each lane's offset in the buffer, in `offs`. `Some` only when every access lies in the
    /// first lane's buffer and is aligned to `len`, as `lanes_span` with align = `len` and
    /// every lane active accepts (and only for buffers under 2 GiB); `None` otherwise, the
    /// caller then taking its general path. `scan` is `exec::scan::global_offsets` or its
    /// AVX2 twin (the caller picks by CPU); the span's proof is that scan's verdict.
    #[inline(always)]
    pub(crate) fn warp_offsets(
        &self,
        regs: &[u64; 32],
        add: u64,
        len: u32,
        offs: &mut [u32; 32],
        scan: impl FnOnce(&[u64; 32], u64, u32, u32, &mut [u32; 32]) -> bool,
    ) -> Option<GlobalSpan<'_>> {
        let a0 = regs[0].wrapping_add(add);
        let i = self.buffers.partition_point(|b| b.addr <= a0);
        let buf = self.buffers.get(i.checked_sub(1)?)?;
        let room = u32::try_from(buf.len.checked_sub(u64::from(len))?)
            .ok()
            .filter(|&r| r <= i32::MAX as u32)?;
        // an offset is aligned when its address is: buffers start at multiples of 256
        if buf.addr & u64::from(len - 1) != 0 {
            return None;
        }
        let add = add.wrapping_sub(buf.addr);
        scan(regs, add, room, len - 1, offs).then_some(GlobalSpan { buf })
    }

    /// Warp-wide load of `size` (1, 2 or 4) bytes per active lane into `out` (zero-extended)
    /// when [`warp_span`](Self::warp_span) proves every access in bounds and aligned;
    /// returns false, touching nothing, otherwise.
    #[inline]
    pub fn load_lanes_u32(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: u32,
        out: &mut [u32; 32],
    ) -> bool {
        let Some(b) = self.warp_span(addrs, mask, size) else {
            return false;
        };
        for l in 0..32 {
            if mask >> l & 1 != 0 {
                // SAFETY: warp_span checked that this lane's access lies in `b` and is
                // naturally aligned; the words are atomics.
                out[l] =
                    unsafe { atomic_load(b.ptr().add((addrs[l] - b.addr) as usize), size) } as u32;
            }
        }
        true
    }

    /// Warp-wide store, the counterpart of [`load_lanes_u32`](Self::load_lanes_u32).
    #[inline]
    pub fn store_lanes_u32(
        &self,
        addrs: &[u64; 32],
        mask: u32,
        size: u32,
        vals: &[u32; 32],
    ) -> bool {
        let Some(b) = self.warp_span(addrs, mask, size) else {
            return false;
        };
        for l in 0..32 {
            if mask >> l & 1 != 0 {
                // SAFETY: as in `load_lanes_u32`.
                unsafe {
                    atomic_store(
                        b.ptr().add((addrs[l] - b.addr) as usize),
                        size,
                        u64::from(vals[l]),
                    )
                };
            }
        }
        true
    }

    /// Loads `size` (1, 2, 4, 8) bytes, zero-extended.
    #[inline]
    pub fn load(&self, addr: u64, size: u32) -> Result<u64, MemFault> {
        let (b, off) = self.find(addr, size)?;
        // SAFETY: bounds and natural alignment checked by `find`; the words are atomics.
        unsafe { Ok(atomic_load(b.ptr().add(off), size)) }
    }

    #[inline]
    pub fn store(&self, addr: u64, size: u32, v: u64) -> Result<(), MemFault> {
        let (b, off) = self.find(addr, size)?;
        // SAFETY: as in `load`.
        unsafe { atomic_store(b.ptr().add(off), size, v) };
        Ok(())
    }

    /// Read-modify-write of one naturally aligned 4- or 8-byte word; returns the old value.
    /// Atomic with respect to other worker threads.
    pub fn rmw(&self, addr: u64, size: u32, f: impl Fn(u64) -> u64) -> Result<u64, MemFault> {
        let (b, off) = self.find(addr, size)?;
        // SAFETY: as in `load`.
        unsafe {
            let p = b.ptr().add(off);
            Ok(match size {
                4 => {
                    let a = AtomicU32::from_ptr(p as *mut u32);
                    a.fetch_update(Relaxed, Relaxed, |x| Some(f(x as u64) as u32))
                        .unwrap() as u64
                }
                8 => {
                    let a = AtomicU64::from_ptr(p as *mut u64);
                    a.fetch_update(Relaxed, Relaxed, |x| Some(f(x))).unwrap()
                }
                2 => {
                    let a = AtomicU16::from_ptr(p as *mut u16);
                    a.fetch_update(Relaxed, Relaxed, |x| Some(f(x as u64) as u16))
                        .unwrap() as u64
                }
                _ => {
                    let a = AtomicU8::from_ptr(p);
                    a.fetch_update(Relaxed, Relaxed, |x| Some(f(x as u64) as u8))
                        .unwrap() as u64
                }
            })
        }
    }
}

/// The buffers of a [`GlobalMemory`] that no run is using ([`GlobalMemory::view`]).
pub struct GlobalView<'m> {
    mem: &'m GlobalMemory,
}

impl<'m> GlobalView<'m> {
    /// The bytes of the buffer at `addr`, in place.
    pub fn bytes(&self, addr: u64) -> Option<&'m [u8]> {
        let b = self.mem.buffers.iter().find(|b| b.addr == addr)?;
        // SAFETY: `view` took `&mut GlobalMemory` for 'm, so nothing writes the buffer while
        // the slice lives; `base` is valid for `len` bytes.
        Some(unsafe { std::slice::from_raw_parts(b.ptr(), b.len as usize) })
    }
}

/// `n` (at least 1) zeroed words from the allocator's zeroed path: a large allocation is
/// fresh zero pages from the kernel, so only the bytes later written (the initial contents,
/// the kernel's stores) are ever touched, once.
fn zeroed_words(n: usize) -> Box<[AtomicU64]> {
    let layout = std::alloc::Layout::array::<AtomicU64>(n.max(1)).expect("buffer size overflows");
    // SAFETY: the layout has a non-zero size; all-zero bytes are a valid AtomicU64; the
    // pointer comes from the global allocator with this layout, as Box requires.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout) as *mut AtomicU64;
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n.max(1)))
    }
}

/// A buffer that [`GlobalMemory::lanes_span`] proved to hold a warp's accesses.
#[derive(Clone, Copy)]
pub struct GlobalSpan<'m> {
    buf: &'m Buffer,
}

impl GlobalSpan<'_> {
    /// The device address of the span buffer's byte 0 (an offset's address is this plus it).
    #[inline(always)]
    pub fn addr(self) -> u64 {
        self.buf.addr
    }

    /// The device address one past the span buffer's last byte.
    #[inline(always)]
    pub fn end(self) -> u64 {
        self.buf.addr + self.buf.len
    }

    /// Loads `size` (1, 2, 4, 8) bytes at device address `addr`, zero-extended.
    ///
    /// # Safety
    /// `[addr, addr + size)` must lie inside the span's buffer and `addr` must be a multiple
    /// of `size`: true of every element of an access that `lanes_span` accepted, when the
    /// access's alignment is at least `size`.
    #[inline(always)]
    pub unsafe fn load(self, addr: u64, size: u32) -> u64 {
        debug_assert!(addr >= self.buf.addr && addr + size as u64 <= self.buf.addr + self.buf.len);
        atomic_load(self.buf.ptr().add((addr - self.buf.addr) as usize), size)
    }

    /// Loads `size` (1, 2, 4, 8) bytes at byte `off` of the span's buffer, zero-extended.
    ///
    /// # Safety
    /// `[off, off + size)` must lie inside the span's buffer and `off` must be a multiple of
    /// `size`: true of every element of an access whose offset
    /// [`warp_offsets`](GlobalMemory::warp_offsets) gave, when `size` divides its length.
    #[inline(always)]
    pub unsafe fn load_at(self, off: usize, size: u32) -> u64 {
        debug_assert!(off as u64 + u64::from(size) <= self.buf.len);
        atomic_load(self.buf.ptr().add(off), size)
    }

    /// Hints that byte `off` of the span's buffer (or past its end: a prefetch never faults)
    /// will be read soon.
    #[inline(always)]
    pub fn prefetch_at(self, off: usize) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch reads nothing architecturally and cannot fault.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.buf.ptr().wrapping_add(off) as *const i8);
        }
    }

    /// Copies the 16 bytes at byte `off` of the span's buffer to `dst`.
    ///
    /// On x86-64 one 16-byte SSE load and one store. Rust has no 16-byte atomic load, and the
    /// buffer's bytes may be written by other threads (other CTAs) at the same time, so the
    /// load is inline assembly: opaque to the compiler, hence no data race in Rust's sense,
    /// and on the hardware the same reads as the two relaxed 8-byte loads it replaces (what
    /// a racing writer can make it see is a tear between or within them, as with those
    /// loads). Elsewhere it is those two loads.
    ///
    /// # Safety
    /// `[off, off + 16)` must lie inside the span's buffer with `off` a multiple of 8, and
    /// `dst` be valid for writing 16 bytes that no other thread accesses.
    #[inline(always)]
    pub unsafe fn copy16_at(self, off: usize, dst: *mut u8) {
        debug_assert!(off as u64 + 16 <= self.buf.len && off.is_multiple_of(8));
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{__m128i, _mm_storeu_si128};
            let v: __m128i;
            std::arch::asm!(
                "movdqu {v}, xmmword ptr [{b} + {o}]",
                b = in(reg) self.buf.ptr(),
                o = in(reg) off,
                v = out(xmm_reg) v,
                options(nostack, preserves_flags, readonly, pure),
            );
            _mm_storeu_si128(dst as *mut __m128i, v);
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            for h in 0..2 {
                let v = atomic_load(self.buf.ptr().add(off + 8 * h), 8);
                std::ptr::copy_nonoverlapping(v.to_le_bytes().as_ptr(), dst.add(8 * h), 8);
            }
        }
    }

    /// Stores the low `size` bytes of `v` at `addr`.
    ///
    /// # Safety
    /// As for [`load`](Self::load).
    #[inline(always)]
    pub unsafe fn store(self, addr: u64, size: u32, v: u64) {
        debug_assert!(addr >= self.buf.addr && addr + size as u64 <= self.buf.addr + self.buf.len);
        atomic_store(self.buf.ptr().add((addr - self.buf.addr) as usize), size, v)
    }
}

/// # Safety
/// `p` must be valid for `size` bytes and aligned to `size`.
#[inline(always)]
unsafe fn atomic_load(p: *mut u8, size: u32) -> u64 {
    match size {
        4 => AtomicU32::from_ptr(p as *mut u32).load(Relaxed) as u64,
        8 => AtomicU64::from_ptr(p as *mut u64).load(Relaxed),
        2 => AtomicU16::from_ptr(p as *mut u16).load(Relaxed) as u64,
        _ => AtomicU8::from_ptr(p).load(Relaxed) as u64,
    }
}

/// # Safety
/// As for [`atomic_load`].
#[inline(always)]
unsafe fn atomic_store(p: *mut u8, size: u32, v: u64) {
    match size {
        4 => AtomicU32::from_ptr(p as *mut u32).store(v as u32, Relaxed),
        8 => AtomicU64::from_ptr(p as *mut u64).store(v, Relaxed),
        2 => AtomicU16::from_ptr(p as *mut u16).store(v as u16, Relaxed),
        _ => AtomicU8::from_ptr(p).store(v as u8, Relaxed),
    }
}

/// A plain byte memory (shared, local, const, param): bounds- and alignment-checked.
#[inline]
pub fn bytes_load(mem: &[u8], space: &'static str, off: u64, size: u32) -> Result<u64, MemFault> {
    check(mem.len(), space, off, size)?;
    let o = off as usize;
    let mut b = [0u8; 8];
    b[..size as usize].copy_from_slice(&mem[o..o + size as usize]);
    Ok(u64::from_le_bytes(b))
}

#[inline]
pub fn bytes_store(
    mem: &mut [u8],
    space: &'static str,
    off: u64,
    size: u32,
    v: u64,
) -> Result<(), MemFault> {
    check(mem.len(), space, off, size)?;
    let o = off as usize;
    mem[o..o + size as usize].copy_from_slice(&v.to_le_bytes()[..size as usize]);
    Ok(())
}

#[inline]
fn check(len: usize, space: &'static str, off: u64, size: u32) -> Result<(), MemFault> {
    if off.checked_add(size as u64).is_none_or(|e| e > len as u64) {
        return Err(MemFault::OutOfBounds {
            space,
            addr: off,
            size,
            nearest: Nearest::SpaceSize(len as u64),
        });
    }
    if off & (size as u64 - 1) != 0 {
        return Err(MemFault::Misaligned {
            space,
            addr: off,
            size,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_near_the_top_of_the_address_space_is_out_of_bounds() {
        // `addr + size` wraps to a small number for these: the bounds checks must not pass
        // them (they did, and the access read far outside the buffer)
        let mut g = GlobalMemory::new();
        let a = g.alloc("a", &[0; 64]);
        for addr in [u64::MAX, u64::MAX - 1, u64::MAX - 3, u64::MAX - 7] {
            for size in [1u32, 2, 4, 8] {
                let mut hint = 0;
                assert!(
                    matches!(g.load(addr, size), Err(MemFault::OutOfBounds { .. }))
                        || matches!(g.load(addr, size), Err(MemFault::Misaligned { .. })),
                    "load {addr:#x} size {size}"
                );
                assert!(g.load_hinted(&mut hint, addr, size).is_err(), "{addr:#x}");
                assert!(
                    g.store_hinted(&mut hint, addr, size, 1).is_err(),
                    "{addr:#x}"
                );
                assert!(g.store(addr, size, 1).is_err(), "{addr:#x}");
            }
        }
        assert_eq!(g.load(a + 60, 4).unwrap(), 0);
    }

    #[test]
    fn buffers_have_guard_gaps_and_faults_name_the_buffer() {
        let mut g = GlobalMemory::new();
        let a = g.alloc("a", &[1, 2, 3, 4, 5, 6, 7, 8]);
        let b = g.alloc("b", &[0; 16]);
        assert!(b >= a + 8 + GUARD_GAP);
        assert_eq!(g.load(a, 4).unwrap(), 0x0403_0201);
        g.store(b + 8, 8, 0x1122).unwrap();
        assert_eq!(g.load(b + 8, 8).unwrap(), 0x1122);
        match g.load(a + 8, 4) {
            Err(MemFault::OutOfBounds { nearest, addr, .. }) => {
                let n = nearest.describe("global", addr, &g).unwrap();
                assert!(n.contains("0 bytes after the end of buffer `a`"), "{n}")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(g.load(a + 2, 4), Err(MemFault::Misaligned { .. })));
        assert_eq!(g.rmw(b, 4, |x| x + 5).unwrap(), 0);
        assert_eq!(g.load(b, 4).unwrap(), 5);
    }

    /// A buffer adopted without a copy (`alloc_owned`) is the buffer `alloc` makes of the same
    /// bytes: the same address, every access of every size and offset the same value or the
    /// same fault (its storage ends at its length, not at a whole word), and `view` shows the
    /// adopted bytes in place.
    #[test]
    fn owned_buffers_behave_as_copied_ones() {
        for len in [1usize, 6, 13, 64, 70_001] {
            let init: Vec<u8> = (0..len).map(|i| (i * 37 + 5) as u8).collect();
            let mut copied = GlobalMemory::new();
            let mut owned = GlobalMemory::new();
            let before = copied.alloc("x", &[9; 24]);
            assert_eq!(owned.alloc_owned("x", vec![9; 24]), before);
            let a = copied.alloc("a", &init);
            let moved = init.clone();
            let at = moved.as_ptr();
            assert_eq!(owned.alloc_owned("a", moved), a, "len {len}");
            let after = copied.alloc("z", &[]);
            assert_eq!(owned.alloc_owned("z", Vec::new()), after);
            for size in [1u32, 2, 4, 8] {
                for off in (0..len as u64 + 16).chain([len as u64 + GUARD_GAP]) {
                    let addr = a + off;
                    let (c, o) = (copied.load(addr, size), owned.load(addr, size));
                    assert_eq!(
                        format!("{c:?}"),
                        format!("{o:?}"),
                        "len {len} +{off} size {size}"
                    );
                    let v = 0x0102_0304_0506_0708 ^ off;
                    let (c, o) = (copied.store(addr, size, v), owned.store(addr, size, v));
                    assert_eq!(
                        format!("{c:?}"),
                        format!("{o:?}"),
                        "store +{off} size {size}"
                    );
                }
            }
            assert_eq!(owned.read_buffer(a), copied.read_buffer(a));
            let expect = copied.read_buffer(a).unwrap();
            let view = owned.view();
            let bytes = view.bytes(a).unwrap();
            assert_eq!(bytes, &expect[..]);
            assert_eq!(
                bytes.as_ptr(),
                at,
                "len {len}: the vector was adopted, not copied"
            );
            assert_eq!(view.bytes(a + 1), None);
        }
    }

    #[test]
    fn windows_classify() {
        assert_eq!(classify(SHARED_WINDOW + 0x410), Window::Shared(0x410));
        assert_eq!(classify(LOCAL_WINDOW + 8), Window::Local(8));
        assert_eq!(classify(GLOBAL_BASE + 8), Window::Global(GLOBAL_BASE + 8));
    }

    /// The warp-wide fast paths agree with the per-lane accessors when every lane is in one
    /// buffer, and refuse (touching nothing) when a lane is out of bounds, misaligned, or in
    /// another buffer, so the per-lane path can report it.
    #[test]
    fn warp_lanes_fast_path() {
        let mut g = GlobalMemory::new();
        let init: Vec<u8> = (0..256u32).map(|i| i as u8).collect();
        let a = g.alloc("a", &init);
        let b = g.alloc("b", &init);
        let addrs: [u64; 32] = std::array::from_fn(|l| a + 4 * ((l as u64 * 7) % 64));
        let mask = 0xF0F0_FFFF;
        let mut out = [0xDEAD_u32; 32];
        assert!(g.load_lanes_u32(&addrs, mask, 4, &mut out));
        for l in 0..32 {
            let want = if mask >> l & 1 != 0 {
                g.load(addrs[l], 4).unwrap() as u32
            } else {
                0xDEAD
            };
            assert_eq!(out[l], want, "lane {l}");
        }
        // 1- and 2-byte accesses zero-extend like `load`
        assert!(g.load_lanes_u32(&addrs, mask, 2, &mut out));
        assert_eq!(out[1], g.load(addrs[1], 2).unwrap() as u32);
        let vals: [u32; 32] = std::array::from_fn(|l| 0x1000 + l as u32);
        let st: [u64; 32] = std::array::from_fn(|l| a + 4 * l as u64);
        assert!(g.store_lanes_u32(&st, u32::MAX, 4, &vals));
        for l in 0..32 {
            assert_eq!(g.load(st[l], 4).unwrap(), 0x1000 + l as u64);
        }
        // refusals: a lane past the end, a misaligned lane, lanes in two buffers, no lane
        let mut bad = st;
        bad[5] = a + 256;
        assert!(!g.load_lanes_u32(&bad, u32::MAX, 4, &mut out));
        assert!(!g.store_lanes_u32(&bad, u32::MAX, 4, &[7; 32]));
        assert_eq!(
            g.load(a + 20, 4).unwrap(),
            0x1005,
            "a refused store writes nothing"
        );
        assert!(g.load_lanes_u32(&bad, !(1 << 5), 4, &mut out));
        bad[5] = a + 2;
        assert!(!g.load_lanes_u32(&bad, u32::MAX, 4, &mut out));
        bad[5] = b;
        assert!(!g.load_lanes_u32(&bad, u32::MAX, 4, &mut out));
        assert!(!g.load_lanes_u32(&st, 0, 4, &mut out));
    }
}
