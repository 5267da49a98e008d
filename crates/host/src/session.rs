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
