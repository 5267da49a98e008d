//! First touch of fresh memory, in bulk.
//!
//! A page of a fresh allocation costs a page fault when it is first written: on the machines
//! tmemu runs on (virtual machines) about 2 µs each, and 4-5 µs on a fresh one (docs/arch/perf.md,
//! session 15), most of it the fault's entry and exit rather than zeroing the page. Issue 7's
//! benchmark writes ~1 500 pages of inputs and, per engine thread, ~160 pages of register
//! files before its first instruction. Where a buffer is about to be written whole anyway,
//! asking the kernel for all its pages in one call (`MADV_POPULATE_WRITE`, Linux 5.14) does
//! the same work without a fault per page: 1.3 µs a page instead of 2.0 on the 2-core
//! machine.
//!
//! It is only ever a hint: contents are unchanged, and where the call is not available (older
//! kernels, other systems) or fails, the pages fault in one by one as before.

/// Below this many bytes the call costs about what the faults it saves do (a page or two,
/// perhaps already present). The fills of a 16-thread run write ranges of 32 KiB.
pub const MIN_BYTES: usize = 16 << 10;

/// Backs the pages under `buf` with writable memory now, for a buffer the caller is about to
/// write whole. Pages at either end that `buf` shares with neighbouring data are included
/// (populating does not change what they hold). Does nothing for buffers under [`MIN_BYTES`].
pub fn prefault_for_write<T>(buf: &mut [T]) {
    let len = std::mem::size_of_val(buf);
    if len >= MIN_BYTES {
        populate_write(buf.as_mut_ptr() as usize, len);
    }
}

/// `n` zeroed elements, their pages faulted in with one call first, for a buffer that will be
/// written anyway. `vec![0; n]` gives a block from one of glibc's arenas (most blocks under
/// its mmap threshold, which grows as large blocks are freed) by `calloc`, which zeroes it
/// with a page fault per page; and `vec!` of a non-zero-sized array writes each element.
pub fn zeroed<T: Copy + Default>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    prefault_for_write(&mut v.spare_capacity_mut()[..n]);
    v.resize(n, T::default());
    v
}

/// From this size on, a zeroed block is left untouched by the allocator of a process that
/// said so ([`declare_lazy_zeroed_blocks`]).
pub const LAZY_ZEROED_MIN: usize = 2 << 20;

static LAZY_ZEROED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Said by a binary whose global allocator gives zeroed blocks of at least [`LAZY_ZEROED_MIN`]
/// bytes as fresh zero pages, untouched until written (`tmemu`'s: cli/src/alloc.rs), so that
/// code about to make a large zero buffer can ask for one (`vec![0; n]`) instead of writing
/// its zeros over the pool's threads.
pub fn declare_lazy_zeroed_blocks() {
    LAZY_ZEROED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether a zeroed block of `bytes` bytes comes untouched ([`declare_lazy_zeroed_blocks`]).
pub fn lazy_zeroed(bytes: usize) -> bool {
    bytes >= LAZY_ZEROED_MIN && LAZY_ZEROED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The memory this thread's allocator will most likely hand out next: the `bytes` above a
/// small block allocated and freed now.
///
/// Parsing and loading a PTX file is a stream of small allocations (~1.2 MB for Triton's 62 KB
/// matmul, ~300 pages, on the serial path before the first CTA), which glibc carves one after
/// another from the top of the thread's heap: fresh pages, each a fault. Another thread can
/// fault them in ahead of the parser ([`HeapAhead::populate`]), which the parser then finds
/// present. It is a guess about addresses, and harmless when wrong: populating changes no
/// byte of whatever lies there (free heap, another allocation, another mapping), and it stops
/// at the first page that cannot be populated (the end of the heap's mapped part).
#[derive(Clone, Copy, Debug)]
pub struct HeapAhead {
    start: usize,
    len: usize,
}

impl HeapAhead {
    /// The `bytes` from a block this thread allocates and frees now.
    pub fn probe(bytes: usize) -> HeapAhead {
        let block = std::hint::black_box(Box::new([0u64; 2]));
        let start = &*block as *const [u64; 2] as usize;
        drop(block);
        HeapAhead { start, len: bytes }
    }

    /// Populates the range from its start in steps of [`HeapAhead::STEP`], until `stop` is set,
    /// a step fails, or the range ends. Meant for another thread than the allocating one.
    pub fn populate(&self, stop: &std::sync::atomic::AtomicBool) {
        let mut at = self.start;
        let end = self.start.saturating_add(self.len);
        while at < end && !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let step = Self::STEP.min(end - at);
            if !populate_write(at, step) {
                break;
            }
            at += step;
        }
    }

    /// Steps small enough that the populating thread stops soon after the work it runs
    /// beside, large enough that a call costs little beside its 16 pages.
    pub const STEP: usize = 64 << 10;
}

/// Whether the call populated the whole range (false where it is not available).
#[cfg(target_os = "linux")]
fn populate_write(addr: usize, len: usize) -> bool {
    /// Not yet in every `libc` release we may build with; the value is the kernel's ABI.
    const MADV_POPULATE_WRITE: libc::c_int = 23;
    // SAFETY: sysconf has no preconditions.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        p if p > 0 => p as usize,
        _ => return false,
    };
    let start = addr & !(page - 1);
    let end = addr + len;
    // SAFETY: MADV_POPULATE_WRITE only faults pages in, as a write would, without changing
    // their contents, so no Rust value observes anything, whoever owns the range; on a range
    // with pages that cannot be written (unmapped, PROT_NONE, read-only) it fails there.
    // Failure (EINVAL before Linux 5.14) leaves the pages to fault in on first write.
    unsafe { libc::madvise(start as *mut libc::c_void, end - start, MADV_POPULATE_WRITE) == 0 }
}

#[cfg(not(target_os = "linux"))]
fn populate_write(_addr: usize, _len: usize) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Contents stay as they were, on either side of the threshold and for unaligned slices.
    #[test]
    fn contents_are_unchanged() {
        for len in [0usize, 100, MIN_BYTES - 1, MIN_BYTES, 3 * MIN_BYTES + 5] {
            let mut v: Vec<u8> = (0..len + 7).map(|i| (i * 31 % 251) as u8).collect();
            let before = v.clone();
            prefault_for_write(&mut v[3..3 + len]);
            assert_eq!(v, before, "len {len}");
        }
    }

    #[test]
    fn zeroed_is_zeroed() {
        for n in [0usize, 1, 5000, 100_000] {
            let v: Vec<[u32; 32]> = zeroed(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|r| *r == [0; 32]));
        }
    }

    /// Populating ahead of this thread's allocations changes nothing already there, stops at
    /// the end of the mapped heap, and honours `stop`.
    #[test]
    fn heap_ahead_changes_nothing() {
        use std::sync::atomic::AtomicBool;
        let live: Vec<Vec<u32>> = (0..200).map(|i| vec![i; 100 + i as usize]).collect();
        let ahead = HeapAhead::probe(64 << 20);
        let stopped = AtomicBool::new(true);
        ahead.populate(&stopped);
        std::thread::scope(|s| {
            s.spawn(|| ahead.populate(&AtomicBool::new(false)));
        });
        let more: Vec<Vec<u32>> = (0..200).map(|i| vec![i; 100 + i as usize]).collect();
        for (i, (a, b)) in live.iter().zip(&more).enumerate() {
            assert!(a.iter().all(|&x| x == i as u32) && a == b, "{i}");
        }
    }

    #[cfg(target_os = "linux")]
    fn minor_faults() -> i64 {
        // SAFETY: getrusage writes the struct it is given.
        unsafe {
            let mut u: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_THREAD, &mut u);
            u.ru_minflt
        }
    }

    /// The pages of a fresh buffer are present after the call: writing them faults no more
    /// (Linux only, where the call exists; on a kernel without it the test only checks that
    /// nothing breaks).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_fresh_buffer_is_populated() {
        let len = 4 << 20;
        let mut v: Vec<u8> = Vec::with_capacity(len);
        let spare = &mut v.spare_capacity_mut()[..len];
        prefault_for_write(spare);
        let before = minor_faults();
        spare.fill(std::mem::MaybeUninit::new(1));
        let after = minor_faults();
        // SAFETY: every byte was written just above.
        unsafe { v.set_len(len) };
        assert!(v.iter().all(|&b| b == 1));
        let populated = unsafe { libc::madvise(std::ptr::null_mut(), 0, 23) == 0 };
        if populated {
            assert!(
                after - before < 16,
                "{} faults writing a populated 4 MiB buffer",
                after - before
            );
        }
    }
}
