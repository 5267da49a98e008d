//! `TMEMU_PHASES=1`: one stderr line per phase boundary of a command, with the microseconds
//! since `main` began, so the serial time around the engine can be read off a whole-process
//! wall-clock run (issue 7's benchmark: docs/arch/perf.md, "Session 8"). The clock starts at
//! `main`'s entry: exec, dynamic linking and the kernel's teardown after `exit` are what the
//! process's wall time has beyond the last line. Off (the variable unset, empty or `0`), a
//! mark is one load and a branch.

use std::sync::OnceLock;
use std::time::Instant;

static START: OnceLock<Option<Instant>> = OnceLock::new();

/// Reads `TMEMU_PHASES` and starts the clock; called first thing in `main`.
pub fn init() {
    START.get_or_init(|| {
        std::env::var_os("TMEMU_PHASES")
            .is_some_and(|v| !v.is_empty() && v != "0")
            .then(Instant::now)
    });
}

/// Prints `tmemu phase: <µs since main> us <name>` when phases are on.
#[inline]
pub fn mark(name: &str) {
    if let Some(Some(t0)) = START.get() {
        eprintln!("tmemu phase: {:>8} us {name}", t0.elapsed().as_micros());
    }
}
