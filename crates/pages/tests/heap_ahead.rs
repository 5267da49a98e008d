//! `HeapAhead` against glibc's allocator, alone in its process: tests allocating on other
//! threads, or an arena an exited test thread left behind, would place this test's blocks
//! elsewhere than above the probe.

/// A new thread's small allocations after `probe` land in the populated range: writing them
/// faults (almost) no page, where ~128 faults without the populate. Linux with glibc: a new
/// thread gets an arena of its own, carved from the bottom up, whose mapped part grows by the
/// top pad (16 MiB as `tmemu` sets it, not glibc's default 128 KiB). Both threads stay alive
/// until both have measured, so neither inherits the other's arena.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn allocations_after_the_probe_find_their_pages() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Barrier;
    use tmemu_pages::HeapAhead;

    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const M_TOP_PAD: i32 = -2;
    fn minor_faults() -> i64 {
        // SAFETY: getrusage writes the struct it is given.
        unsafe {
            let mut u: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_THREAD, &mut u);
            u.ru_minflt
        }
    }
    // SAFETY: sets one allocator parameter before the threads below allocate
    unsafe { mallopt(M_TOP_PAD, 16 << 20) };
    // SAFETY: an empty range; only whether the kernel knows the advice is asked
    let available = unsafe { libc::madvise(std::ptr::null_mut(), 0, 23) == 0 };
    let done = Barrier::new(2);
    let faults_writing = |populate: bool| {
        // the thread's arena exists before the probe
        let warm = std::hint::black_box(vec![1u8; 64]);
        let ahead = HeapAhead::probe(1 << 20);
        if populate {
            ahead.populate(&AtomicBool::new(false));
        }
        let before = minor_faults();
        let blocks: Vec<Vec<u64>> = (0..128).map(|i| vec![i; 500]).collect();
        let after = minor_faults();
        done.wait();
        drop((warm, std::hint::black_box(blocks)));
        after - before
    };
    let (without, with) = std::thread::scope(|s| {
        let without = s.spawn(|| faults_writing(false));
        let with = s.spawn(|| faults_writing(true));
        (without.join().unwrap(), with.join().unwrap())
    });
    if available {
        assert!(
            without >= 64,
            "only {without} faults writing 128 fresh blocks"
        );
        assert!(with * 8 < without, "{with} faults populated, {without} not");
    }
}
