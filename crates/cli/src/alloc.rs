//! The binary's global allocator: the system's, except for large over-aligned blocks.
//!
//! `matrixmultiply` allocates a 64-byte-aligned packing buffer of ≈ 192 KiB on every `sgemm`
//! (four per CTA of issue 7's benchmark, when the fused MMA panels are flushed). Rust's system
//! allocator serves alignments above 16 with `posix_memalign`, and glibc's memalign splits the
//! block it carves from its arena: the next small allocation takes the freed space at the
//! buffer's end, so each new buffer starts past it, on pages never touched before. Per thread
//! the buffers crept through ≈ 2.7 MiB of fresh pages, ≈ 8 000 of the 22 000 page faults of a
//! 16-thread run (`perf record -e page-faults -d`; docs/arch/perf.md, session 9). A plain
//! `malloc` of the size plus the alignment, handed out aligned inside, is reused in place.
//!
//! Small over-aligned blocks keep `posix_memalign` (no creep worth a header there), and every
//! block of alignment 16 or less is the system allocator's untouched. Which path a block takes
//! is a function of its `Layout` alone, so `dealloc` and `realloc` find it again.
//!
//! Large zeroed blocks ([`zero_map`]) are mappings of their own, so that their pages stay
//! untouched until written. `main` pads glibc's arenas (`M_TOP_PAD`), so a 2 MiB `calloc` comes
//! from an arena's top and glibc memsets it whole on the calling thread: issue 7's benchmark
//! zeroed its 2 MiB output before the first CTA, one more page fault per 4 KiB on the way to
//! the engine's start, for pages the kernel then writes anyway. A fresh anonymous mapping is
//! zero already; its pages are faulted in by the engine threads that write them.

use std::alloc::{GlobalAlloc, Layout, System};

/// What glibc's `malloc` guarantees on the 64-bit targets we build for.
const MALLOC_ALIGN: usize = 16;
/// From this size on, an over-aligned block is placed inside a plain `malloc` block.
const BIG: usize = 64 << 10;

pub struct Allocator;

/// Whether `layout` is placed inside a larger plain block (with the base pointer stored in the
/// 8 bytes before the returned one).
fn inside(layout: Layout) -> bool {
    layout.align() > MALLOC_ALIGN && layout.size() >= BIG
}

/// The plain block that holds an [`inside`] block of `layout`: room to align the start past an
/// 8-byte header. A base aligned to 16 rounds `base + 8` up to an alignment of at least 32 no
/// further than `base + align`, so `size + align` bytes always fit.
fn outer(layout: Layout) -> Option<Layout> {
    Layout::from_size_align(layout.size().checked_add(layout.align())?, MALLOC_ALIGN).ok()
}

/// Aligns inside `base` (a block of [`outer`]`(layout)`) and records `base` before the result.
///
/// # Safety
/// `base` is non-null and was allocated with `outer(layout)`.
unsafe fn place(base: *mut u8, layout: Layout) -> *mut u8 {
    let addr = base as usize;
    let user = (addr + 8 + layout.align() - 1) & !(layout.align() - 1);
    let p = base.add(user - addr);
    // SAFETY: user − addr ≥ 8, so the header lies inside the block, 8-aligned (user is).
    (p as *mut *mut u8).sub(1).write(base);
    p
}

/// `alloc` and `alloc_zeroed`, which differ only in the `System` call (`get`): zeroing the
/// outer block zeroes the inner one.
///
/// # Safety
/// `get` is `System.alloc` or `System.alloc_zeroed`; `layout` has a non-zero size.
#[inline(always)]
unsafe fn alloc_with(layout: Layout, get: impl FnOnce(Layout) -> *mut u8) -> *mut u8 {
    if !inside(layout) {
        return get(layout);
    }
    let Some(o) = outer(layout) else {
        return std::ptr::null_mut();
    };
    let base = get(o);
    if base.is_null() {
        return base;
    }
    place(base, layout)
}

unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        alloc_with(layout, |l| System.alloc(l))
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if zero_map::eligible(layout) {
            if let Some(p) = zero_map::map(layout.size()) {
                return p;
            }
        }
        alloc_with(layout, |l| System.alloc_zeroed(l))
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if zero_map::eligible(layout) && zero_map::unmap(ptr, layout.size()) {
            return;
        }
        if !inside(layout) {
            return System.dealloc(ptr, layout);
        }
        let base = (ptr as *mut *mut u8).sub(1).read();
        // `alloc` succeeded with this layout, so `outer` is Some.
        System.dealloc(base, outer(layout).unwrap_unchecked());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align_unchecked(new_size, layout.align());
        if zero_map::eligible(layout) && zero_map::owns(ptr) {
            // into a block of the usual kind (a grown or shrunk zeroed block is no longer
            // all zero), then the mapping goes
            let q = alloc_with(new, |l| System.alloc(l));
            if !q.is_null() {
                std::ptr::copy_nonoverlapping(ptr, q, layout.size().min(new_size));
                zero_map::unmap(ptr, layout.size());
            }
            return q;
        }
        if !inside(layout) && !inside(new) {
            return System.realloc(ptr, layout, new_size);
        }
        let q = self.alloc(new);
        if !q.is_null() {
            std::ptr::copy_nonoverlapping(ptr, q, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        q
    }
}

/// Large zeroed blocks as anonymous mappings of their own, found again by address in a small
/// table (a block's `Layout` cannot say whether it came from `alloc_zeroed`, and blocks this
/// large are few: a launch's zero-filled buffers). A block that finds the table full, or a
/// system without `mmap`, takes the system allocator's `calloc` as before.
mod zero_map {
    use std::alloc::Layout;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// From this size on (glibc's own threshold for mapping a block apart is 128 KiB to 32 MiB,
    /// but `main`'s arena pad serves such blocks from the arena).
    pub const MIN: usize = tmemu_pages::LAZY_ZEROED_MIN;
    const SLOTS: usize = 64;
    /// Block addresses; 0 is a free slot.
    static TABLE: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];

    pub fn eligible(layout: Layout) -> bool {
        layout.size() >= MIN && layout.align() <= 4096
    }

    /// A fresh zero mapping of `size` bytes, recorded in the table.
    #[cfg(target_os = "linux")]
    pub unsafe fn map(size: usize) -> Option<*mut u8> {
        // a full table costs no mapping
        slot_of(0)?;
        let p = libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if p == libc::MAP_FAILED {
            return None;
        }
        // another thread may take a free slot first: any free one
        let claim = |s: &AtomicUsize| {
            s.compare_exchange(0, p as usize, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        };
        if TABLE.iter().any(claim) {
            return Some(p as *mut u8);
        }
        libc::munmap(p, size);
        None
    }

    #[cfg(not(target_os = "linux"))]
    pub unsafe fn map(_size: usize) -> Option<*mut u8> {
        None
    }

    /// The slot holding `addr` (0: a free slot).
    fn slot_of(addr: usize) -> Option<&'static AtomicUsize> {
        TABLE.iter().find(|s| s.load(Ordering::Acquire) == addr)
    }

    pub fn owns(ptr: *mut u8) -> bool {
        // (a null pointer would find a free slot)
        !ptr.is_null() && slot_of(ptr as usize).is_some()
    }

    /// Unmaps `ptr` if it is a block of the table (of `size` bytes); false if it is not.
    pub unsafe fn unmap(ptr: *mut u8, size: usize) -> bool {
        let Some(slot) = slot_of(ptr as usize).filter(|_| !ptr.is_null()) else {
            return false;
        };
        // the slot first: until the munmap no mapping can take this address, so the table
        // never holds an address twice
        slot.store(0, Ordering::Release);
        #[cfg(target_os = "linux")]
        libc::munmap(ptr as *mut libc::c_void, size);
        #[cfg(not(target_os = "linux"))]
        let _ = size;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every path: aligned as asked, the bytes kept across realloc (growing and shrinking
    /// across the threshold both ways), zeroed when asked, freed without complaint (a wrong
    /// base pointer aborts in glibc's free or shows under valgrind).
    #[test]
    fn blocks_are_aligned_keep_their_bytes_and_free() {
        let a = Allocator;
        for align in [1usize, 8, 16, 32, 64, 128, 4096] {
            for size in [1usize, 100, BIG - 1, BIG, BIG + 1, 200_000, 1 << 20] {
                let l = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let z = a.alloc_zeroed(l);
                    assert!(!z.is_null());
                    assert_eq!(z as usize % align, 0, "zeroed {size} @ {align}");
                    assert!(std::slice::from_raw_parts(z, size).iter().all(|&b| b == 0));
                    a.dealloc(z, l);

                    for new_size in [size / 2 + 1, size, size * 2, BIG + 7, 3] {
                        let p = a.alloc(l);
                        assert!(!p.is_null());
                        assert_eq!(p as usize % align, 0, "{size} @ {align}");
                        for i in 0..size {
                            p.add(i).write(i as u8 ^ 0x5a);
                        }
                        let q = a.realloc(p, l, new_size);
                        assert!(!q.is_null());
                        assert_eq!(q as usize % align, 0, "{size} -> {new_size} @ {align}");
                        for i in 0..size.min(new_size) {
                            assert_eq!(q.add(i).read(), i as u8 ^ 0x5a);
                        }
                        a.dealloc(q, Layout::from_size_align(new_size, align).unwrap());
                    }
                }
            }
        }
    }

    /// A large zeroed block is zero, keeps its pages untouched until written (`mincore`),
    /// and keeps its bytes across realloc; a full table leaves the rest to calloc.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_large_zeroed_block_is_a_mapping_of_its_own() {
        let a = Allocator;
        let size = zero_map::MIN + 12345;
        let l = Layout::from_size_align(size, 8).unwrap();
        let resident = |p: *mut u8, len: usize| -> usize {
            let page = 4096;
            let mut v = vec![0u8; len.div_ceil(page)];
            // SAFETY: p is page aligned (a fresh mapping), v has a byte per page.
            assert_eq!(
                unsafe { libc::mincore(p as *mut libc::c_void, len, v.as_mut_ptr()) },
                0
            );
            v.iter().filter(|&&b| b & 1 != 0).count()
        };
        unsafe {
            let p = a.alloc_zeroed(l);
            assert!(zero_map::owns(p));
            assert_eq!(resident(p, size), 0, "a fresh zeroed block touched");
            assert!(std::slice::from_raw_parts(p, size).iter().all(|&b| b == 0));
            for i in (0..size).step_by(4096) {
                p.add(i).write(i as u8 | 1);
            }
            let q = a.realloc(p, l, size * 2);
            assert!(!zero_map::owns(q) && !zero_map::owns(p));
            for i in (0..size).step_by(4096) {
                assert_eq!(q.add(i).read(), i as u8 | 1);
            }
            a.dealloc(q, Layout::from_size_align(size * 2, 8).unwrap());
            // many at once, more than the table: the rest take calloc, all freed alike
            let ps: Vec<*mut u8> = (0..80).map(|_| a.alloc_zeroed(l)).collect();
            assert!(ps.iter().all(|p| !p.is_null()));
            assert!(ps.iter().filter(|&&p| zero_map::owns(p)).count() >= 1);
            for &p in &ps {
                assert_eq!(p.add(size - 1).read(), 0);
                a.dealloc(p, l);
            }
            // a block of the same size from `alloc` is the system's
            let r = a.alloc(l);
            assert!(!zero_map::owns(r));
            a.dealloc(r, l);
        }
    }

    /// The point of it: a big over-aligned block freed and asked for again between small
    /// long-lived allocations comes back at the same place (with `posix_memalign` each one
    /// started past the last, on fresh pages).
    #[test]
    fn a_freed_big_aligned_block_is_reused_in_place() {
        let a = Allocator;
        let l = Layout::from_size_align(196_608, 64).unwrap();
        // on its own thread, as the engine's workers allocate (glibc gives it its own arena)
        std::thread::spawn(move || unsafe {
            let mut keep = Vec::new();
            let mut starts = Vec::new();
            for i in 0..16 {
                let p = a.alloc(l);
                p.write_bytes(1, l.size());
                starts.push(p as usize);
                a.dealloc(p, l);
                keep.push(vec![0u8; 64 + (i % 3) * 200]);
            }
            // (the first ones may be glibc's mmap threshold adapting: a fresh arena)
            let lo = *starts[2..].iter().min().unwrap();
            let hi = *starts[2..].iter().max().unwrap();
            // (one step past the small blocks that took the freed space is fine; a step per
            // round is the creep)
            assert!(
                hi - lo < 2 * l.size(),
                "the buffer crept through {} bytes: {starts:x?}",
                hi - lo
            );
        })
        .join()
        .unwrap();
    }
}
