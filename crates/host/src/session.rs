//! One launch: buffers in a fresh global memory, the engine run, contents read back.

use std::time::Instant;

use tmemu_sim::observer::Observer;
use tmemu_sim::{
    install_globals, GlobalMemory, Kernel, Launch, LaunchError, RunOptions, RunResult,
};
use tmemu_spec::ResolvedLaunch;

/// A resolved launch made concrete for one kernel: module globals installed, one allocation
/// per spec buffer (in spec order), and the [`Launch`] whose parameter block carries their
/// device addresses.
pub struct Session<'k> {
    kernel: &'k Kernel,
    global: GlobalMemory,
    /// Device address of `resolved.buffers[i]`.
    addrs: Vec<u64>,
    launch: Launch,
}

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    pub result: RunResult,
    /// Seconds spent in the engine (buffer set-up and read-back excluded).
    pub wall_seconds: f64,
    /// Contents of each spec buffer after the run, in spec order.
    pub buffers: Vec<Vec<u8>>,
}

impl<'k> Session<'k> {
    /// Allocates the buffers and builds the launch. Fails only when the module's own
    /// `.global` variables cannot be installed.
    pub fn new(kernel: &'k Kernel, resolved: &ResolvedLaunch) -> Result<Self, LaunchError> {
        Self::build(kernel, resolved, |global, _, b| {
            global.alloc(&b.name, &b.bytes)
        })
    }

    /// As [`Session::new`], but moves each buffer's initial bytes into device memory instead
    /// of copying them (`resolved.buffers[i].bytes` is left empty): for a single run, whose
    /// inputs were generated in parallel, a serial copy of every input was the largest part
    /// of the set-up (`tmemu run`).
    pub fn new_taking(
        kernel: &'k Kernel,
        resolved: &mut ResolvedLaunch,
    ) -> Result<Self, LaunchError> {
        let mut owned: Vec<Vec<u8>> = resolved
            .buffers
            .iter_mut()
            .map(|b| std::mem::take(&mut b.bytes))
            .collect();
        Self::build(kernel, resolved, |global, i, b| {
            global.alloc_owned(&b.name, std::mem::take(&mut owned[i]))
        })
    }

    fn build(
        kernel: &'k Kernel,
        resolved: &ResolvedLaunch,
        mut place: impl FnMut(&mut GlobalMemory, usize, &tmemu_spec::GlobalBuffer) -> u64,
    ) -> Result<Self, LaunchError> {
        let mut global = GlobalMemory::new();
        install_globals(kernel, &mut global)?;
        let addrs: Vec<u64> = resolved
            .buffers
            .iter()
            .enumerate()
            .map(|(i, b)| place(&mut global, i, b))
            .collect();
        let launch = Launch {
            grid: resolved.grid,
            block: resolved.block,
            // No `cluster` key is a launch without one: None lets the kernel's
            // `.reqnctapercluster` apply. An explicit 1×1×1 is a cluster launch of one CTA.
            cluster: (resolved.cluster_given || resolved.cluster != [1, 1, 1])
                .then_some(resolved.cluster),
            dyn_shared: resolved.shared_bytes,
            params: resolved.param_block(&addrs),
        };
        Ok(Session {
            kernel,
            global,
            addrs,
            launch,
        })
    }

    /// The launch as the engine will see it.
    pub fn launch(&self) -> &Launch {
        &self.launch
    }

    /// Device addresses of the spec buffers, in spec order.
    pub fn buffer_addresses(&self) -> &[u64] {
        &self.addrs
    }

    /// The address ranges `[start, end)` of the spec buffers the kernel cannot write by its
    /// code (`Kernel::written_params`: no global write's address derives from a parameter
    /// that points into them), sorted: what the race observer may skip the weak reads of,
    /// verifying that no write lands there (`RaceObserver::with_read_only`). Empty when any
    /// write's address may come from memory.
    pub fn read_only_ranges(&self, resolved: &ResolvedLaunch) -> Vec<(u64, u64)> {
        let Some(written) = &self.kernel.written_params else {
            return Vec::new();
        };
        // the parameter holding a relocated address: the last one starting at or before it
        let param_of = |off: usize| resolved.param_offsets.iter().rposition(|&o| o <= off);
        let mut buffer_written = vec![false; self.addrs.len()];
        for r in &resolved.relocations {
            let w =
                param_of(r.param_offset).is_none_or(|p| written.get(p).copied().unwrap_or(true));
            if w {
                if let Some(b) = buffer_written.get_mut(r.buffer) {
                    *b = true;
                }
            }
        }
        let read_only =
            |a: u64| (self.addrs.iter().zip(&buffer_written)).any(|(&b, &w)| b == a && !w);
        // the global memory's buffers are in address order
        self.global
            .buffers()
            .filter(|&(_, a, len)| len > 0 && read_only(a))
            .map(|(_, a, len)| (a, a + len))
            .collect()
    }

    /// Runs the engine once and reads every buffer back. `Err` is a launch the engine
    /// refuses (bad geometry, too much shared memory, ...): the caller adds its prefix.
    pub fn run(&self, opts: &RunOptions) -> Result<Outcome, LaunchError> {
        let t0 = Instant::now();
        let result = tmemu_sim::run(self.kernel, &self.launch, &self.global, opts)?;
        Ok(self.outcome(result, t0))
    }

    /// [`Session::run`] with one observer per SM group (`make(group)`, see
    /// `tmemu_sim::run_observed`); the observers come back in group order.
    pub fn run_observed<O: Observer + Send>(
        &self,
        opts: &RunOptions,
        make: impl Fn(u32) -> O + Sync,
    ) -> Result<(Outcome, Vec<O>), LaunchError> {
        let t0 = Instant::now();
        let (result, observers) =
            tmemu_sim::run_observed(self.kernel, &self.launch, &self.global, opts, make)?;
        Ok((self.outcome(result, t0), observers))
    }

    /// [`Session::run_observed`] without reading the buffers back: the result, the engine's
    /// wall seconds and the observers; [`Session::contents`] reads the buffers in place.
    pub fn run_observed_in_place<O: Observer + Send>(
        &self,
        opts: &RunOptions,
        make: impl Fn(u32) -> O + Sync,
    ) -> Result<(RunResult, f64, Vec<O>), LaunchError> {
        let t0 = Instant::now();
        let (result, observers) =
            tmemu_sim::run_observed(self.kernel, &self.launch, &self.global, opts, make)?;
        Ok((result, t0.elapsed().as_secs_f64(), observers))
    }

    /// Every spec buffer's current bytes, in spec order, without a copy (the borrow keeps
    /// runs out while they are read).
    pub fn contents(&mut self) -> Vec<&[u8]> {
        let view = self.global.view();
        self.addrs
            .iter()
            .map(|&a| view.bytes(a).unwrap_or_default())
            .collect()
    }

    fn outcome(&self, result: RunResult, t0: Instant) -> Outcome {
        let wall_seconds = t0.elapsed().as_secs_f64();
        let buffers = self
            .addrs
            .iter()
            .map(|&a| self.global.read_buffer(a).unwrap_or_default())
            .collect();
        Outcome {
            result,
            wall_seconds,
            buffers,
        }
    }
}
