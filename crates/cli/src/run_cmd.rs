//! `tmemu run SPEC.toml`: spec → PTX → engine → saved buffers, `[[expect]]` checks, summary.
//!
//! Exit codes: 0 clean, 1 diagnostics (or a failed expect), 2 bad input or usage, 3 hang,
//! 4 incomplete (an unsupported form, or the step budget ran out).

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use tmemu_sim::{install_globals, GlobalMemory, Launch, LoadError, RunOptions};
use tmemu_spec::{resolve, ParamInfo, ParamKind, SetOverride, Spec};

/// Arguments of `tmemu run`.
#[derive(clap::Args)]
pub struct Args {
    /// The launch spec (TOML).
    pub spec: PathBuf,
    /// Write run statistics as JSON to this file.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Worker threads (SM groups run in parallel; results are identical for any N).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Select a seeded random warp schedule (same seed, same run).
    #[arg(long)]
    pub schedule_seed: Option<u64>,
    /// Number of SMs.
    #[arg(long, default_value_t = 148)]
    pub sms: u32,
    /// Override a scalar argument: `--set 3=512` or `--set n_cols=512`.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub sets: Vec<String>,
    /// Warp-instructions per SM group before the run counts as a livelock.
    #[arg(long, default_value_t = 2_000_000_000)]
    pub max_steps: u64,
}

pub fn run(args: &Args) -> u8 {
    match run_inner(args) {
        Ok(code) => code,
        Err((code, msg)) => {
            eprintln!("{msg}");
            code
        }
    }
}

fn param_infos(k: &tmemu_sim::Kernel) -> Vec<ParamInfo> {
    k.params
        .iter()
        .map(|p| ParamInfo {
            name: p.name.clone(),
            kind: if p.is_pointer {
                ParamKind::Pointer
            } else if p.is_array {
                ParamKind::ByteArray {
                    len: p.size as usize,
                    align: p.align as usize,
                }
            } else {
                ParamKind::Scalar {
                    bits: p.elem_bits,
                    is_float: p.is_float,
                }
            },
        })
        .collect()
}

fn run_inner(args: &Args) -> Result<u8, (u8, String)> {
    let bad = |m: String| (2u8, m);
    let mut spec = Spec::load(&args.spec).map_err(|e| bad(e.to_string()))?;
    let ptx_path = spec.ptx.value.clone();
    let shown = ptx_path.display().to_string();
    let src = std::fs::read_to_string(&ptx_path)
        .map_err(|e| bad(format!("{shown}: cannot read: {e}")))?;
    let module =
        tmemu_ptx::parse(&src).map_err(|e| bad(format!("{shown}:{}: error: {}", e.span, e)))?;
    let kernel = tmemu_sim::load(
        &module,
        &src,
        &shown,
        spec.kernel.as_ref().map(|k| k.value.as_str()),
    )
    .map_err(|e| match e {
        LoadError::Unsupported { form, span } => (
            4,
            format!("{shown}:{span}: unsupported: {form}\nverdict: incomplete"),
        ),
        LoadError::Invalid { message, span } => (2, format!("{shown}:{span}: error: {message}")),
    })?;
    let params = param_infos(&kernel);
    let sets: Vec<SetOverride> = args
        .sets
        .iter()
        .map(|s| SetOverride::parse(s))
        .collect::<Result<_, _>>()
        .map_err(|e| bad(e.to_string()))?;
    spec.apply_overrides(&sets, &params)
        .map_err(|e| bad(e.to_string()))?;
    let launch_spec = resolve(&spec, &params).map_err(|e| bad(e.to_string()))?;
    if !launch_spec.tensor_maps.is_empty() {
        return Err((4, "unsupported: tensor-map arguments (cp.async.bulk.tensor is not modelled yet)\nverdict: incomplete".into()));
    }

    let mut global = GlobalMemory::new();
    install_globals(&kernel, &mut global).map_err(|e| bad(e.to_string()))?;
    let addrs: Vec<u64> = launch_spec
        .buffers
        .iter()
        .map(|b| global.alloc(&b.name, &b.bytes))
        .collect();
    let launch = Launch {
        grid: launch_spec.grid,
        block: launch_spec.block,
        cluster: if launch_spec.cluster == [1, 1, 1] {
            None
        } else {
            Some(launch_spec.cluster)
        },
        dyn_shared: launch_spec.shared_bytes,
        params: launch_spec.param_block(&addrs),
    };
    let opts = RunOptions {
        nsms: args.sms,
        threads: args.threads,
        seed: args.schedule_seed,
        max_steps: args.max_steps,
        ..Default::default()
    };
    let t0 = Instant::now();
    let r = tmemu_sim::run(&kernel, &launch, &global, &opts)
        .map_err(|e| bad(format!("launch: {e}")))?;
    let wall = t0.elapsed().as_secs_f64();

    let mut out = String::new();
    for d in &r.diagnostics {
        let _ = writeln!(out, "{shown}:{}: {d}", d.span);
    }
    if r.diagnostics_dropped > 0 {
        let _ = writeln!(out, "... and {} more diagnostics", r.diagnostics_dropped);
    }
    for h in r.hangs.iter().chain(&r.budget_exhausted) {
        let _ = writeln!(
            out,
            "{}: {} {}: {}",
            shown, h.rule.id, h.rule.name, h.summary
        );
        for w in &h.warps {
            let _ = writeln!(
                out,
                "  {shown}:{}: cta ({},{},{}) warp {} lanes {:#010x}: blocked in `{}`: {}",
                w.span, w.cta[0], w.cta[1], w.cta[2], w.warp, w.lanes, w.opcode, w.waiting_for
            );
        }
    }
    // outputs
    let mut contents = Vec::with_capacity(addrs.len());
    for (b, &a) in launch_spec.buffers.iter().zip(&addrs) {
        let bytes = global.read_buffer(a).unwrap_or_default();
        if let Some(path) = &b.save {
            std::fs::write(path, b.to_npy(&bytes))
                .map_err(|e| bad(format!("{}: cannot write: {e}", path.display())))?;
        }
        contents.push(bytes);
    }
    let mut expect_failed = 0;
    for e in &launch_spec.expects {
        let b = &launch_spec.buffers[e.buffer];
        match e.check(b, &contents[e.buffer]) {
            Ok(c) if c.passed() => {
                let _ = writeln!(
                    out,
                    "expect {} == {}: ok ({} elements, max abs err {:.3e}, max rel err {:.3e})",
                    b.name, e.label, c.elements, c.max_abs_err, c.max_rel_err
                );
            }
            Ok(c) => {
                expect_failed += 1;
                let _ = writeln!(
                    out,
                    "expect {} == {}: FAILED ({} of {} elements differ, first at flat index {}, max abs err {:.3e}, max rel err {:.3e}, rtol {}, atol {})",
                    b.name,
                    e.label,
                    c.mismatches,
                    c.elements,
                    c.first_mismatch_index.unwrap_or(0),
                    c.max_abs_err,
                    c.max_rel_err,
                    e.rtol,
                    e.atol
                );
            }
            Err(err) => {
                expect_failed += 1;
                let _ = writeln!(out, "expect {} == {}: FAILED ({err})", b.name, e.label);
            }
        }
    }
    let code = if !r.hangs.is_empty() {
        3
    } else if !r.budget_exhausted.is_empty() {
        4
    } else if !r.diagnostics.is_empty() || r.trapped || expect_failed > 0 {
        1
    } else {
        0
    };
    let verdict = match code {
        0 => "clean",
        1 => "violation",
        3 => "hang",
        _ => "incomplete",
    };
    let _ = writeln!(
        out,
        "kernel {}: {} CTAs, {} warps, {} warp-instructions ({} thread-instructions) in {:.3} s ({:.1} M warp-instr/s, {} thread{}), {} diagnostics, {} of {} expects passed; verdict: {verdict}",
        kernel.name,
        r.ctas,
        r.warps,
        r.warp_instructions,
        r.thread_instructions,
        wall,
        r.warp_instructions as f64 / wall.max(1e-9) / 1e6,
        r.threads_used,
        if r.threads_used == 1 { "" } else { "s" },
        r.diagnostics.len() as u64 + r.diagnostics_dropped,
        launch_spec.expects.len() - expect_failed,
        launch_spec.expects.len()
    );
    print!("{out}");
    if let Some(p) = &args.stats {
        let json = format!(
            "{{\"kernel\": \"{}\", \"warp_instructions\": {}, \"thread_instructions\": {}, \"wall_seconds\": {:.6}, \"ctas\": {}, \"warps\": {}, \"threads\": {}, \"ctas_per_sm\": {}, \"diagnostics\": {}, \"hangs\": {}, \"expects_failed\": {}, \"exit_code\": {}}}\n",
            kernel.name.replace('"', "\\\""),
            r.warp_instructions,
            r.thread_instructions,
            wall,
            r.ctas,
            r.warps,
            r.threads_used,
            r.ctas_per_sm,
            r.diagnostics.len() as u64 + r.diagnostics_dropped,
            r.hangs.len(),
            expect_failed,
            code
        );
        std::fs::write(p, json).map_err(|e| bad(format!("{}: cannot write: {e}", p.display())))?;
    }
    Ok(code)
}
