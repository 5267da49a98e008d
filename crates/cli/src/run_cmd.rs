//! `tmemu run SPEC.toml`: spec → PTX → engine → saved buffers, `[[expect]]` checks, summary.
//!
//! Exit codes: 0 clean, 1 diagnostics (or a failed expect), 2 bad input or usage, 3 hang,
//! 4 incomplete (an unsupported form, or the step budget ran out).

use std::fmt::Write as _;
use std::path::PathBuf;

use tmemu_host::{
    check_expects, load_ptx_file, resolve_spec, save_outputs, ErrorClass, RunOptions, Session,
};
use tmemu_spec::Spec;

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

fn run_inner(args: &Args) -> Result<u8, (u8, String)> {
    let bad = |m: String| (2u8, m);
    let mut spec = Spec::load(&args.spec).map_err(|e| bad(e.to_string()))?;
    let ptx_path = spec.ptx.value.clone();
    let shown = ptx_path.display().to_string();
    let entry = spec.kernel.as_ref().map(|k| k.value.clone());
    let (_src, kernel) = load_ptx_file(&ptx_path, entry.as_deref()).map_err(|e| {
        let code = e.exit_code();
        match e.class {
            ErrorClass::Unsupported => (code, format!("{}\nverdict: incomplete", e.message)),
            ErrorClass::BadInput => (code, e.message),
        }
    })?;
    let launch_spec =
        resolve_spec(&mut spec, &args.sets, &kernel).map_err(|e| (e.exit_code(), e.message))?;
    if !launch_spec.tensor_maps.is_empty() {
        return Err((4, "unsupported: tensor-map arguments (cp.async.bulk.tensor is not modelled yet)\nverdict: incomplete".into()));
    }

    let session = Session::new(&kernel, &launch_spec).map_err(|e| bad(e.to_string()))?;
    let opts = RunOptions {
        nsms: args.sms,
        threads: args.threads,
        seed: args.schedule_seed,
        max_steps: args.max_steps,
        ..Default::default()
    };
    let outcome = session
        .run(&opts)
        .map_err(|e| bad(format!("launch: {e}")))?;
    let r = &outcome.result;
    let wall = outcome.wall_seconds;

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
    save_outputs(&launch_spec, &outcome.buffers).map_err(|e| (e.exit_code(), e.message))?;
    let mut expect_failed = 0;
    for e in check_expects(&launch_spec, &outcome.buffers) {
        match &e.comparison {
            Ok(c) if c.passed() => {
                let _ = writeln!(
                    out,
                    "expect {} == {}: ok ({} elements, max abs err {:.3e}, max rel err {:.3e})",
                    e.name, e.label, c.elements, c.max_abs_err, c.max_rel_err
                );
            }
            Ok(c) => {
                expect_failed += 1;
                let _ = writeln!(
                    out,
                    "expect {} == {}: FAILED ({} of {} elements differ, first at flat index {}, max abs err {:.3e}, max rel err {:.3e}, rtol {}, atol {})",
                    e.name,
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
                let _ = writeln!(out, "expect {} == {}: FAILED ({err})", e.name, e.label);
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
