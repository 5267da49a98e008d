//! The native entry points: `launch`, `kernel_params`, `entries`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use std::sync::Arc;

use tmemu_host::{
    param_infos, resolve_spec, CheckOptions, ErrorClass, Policy, ReportBuilder, RunConfig,
    RunOptions, Session,
};

use crate::cache::{self, Loaded};

use crate::convert::{build_spec, ArgIn, ArrayIn, FieldIn, Geometry, TensorMapIn};
use crate::report::NativeReport;

/// An instance of `tmemu._errors.<class>` with `message`, as a `PyErr`.
fn raise(py: Python<'_>, class: &str, message: String) -> PyErr {
    match py
        .import("tmemu._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1((message,)))
    {
        Ok(e) => PyErr::from_value(e),
        Err(e) => e,
    }
}

/// The same `file:line:col: error: ...` texts as `tmemu run`. Cached by text (crate::cache).
fn load_kernel(
    py: Python<'_>,
    src: &str,
    shown: &str,
    entry: Option<&str>,
) -> PyResult<Arc<Loaded>> {
    cache::load(src, shown, entry).map_err(|e| {
        let class = match e.class {
            ErrorClass::Unsupported => "UnsupportedError",
            ErrorClass::BadInput => "PtxError",
        };
        let message = match e.class {
            ErrorClass::BadInput => with_static_errors(src, shown, e.message),
            ErrorClass::Unsupported => e.message,
        };
        raise(py, class, message)
    })
}

/// A PTX the loader refuses may break a rule ptxas enforces on that very line (a `.x2` load
/// into one register, TM0402): `tmemu run` then reports the static finding (a violation)
/// instead of bad input. Python raises `PtxError` either way (there is nothing to run), and
/// names the rule under the loader's message so the two front ends say the same thing.
fn with_static_errors(src: &str, shown: &str, message: String) -> String {
    let line: Option<u32> = message
        .strip_prefix(shown)
        .and_then(|m| m.strip_prefix(':'))
        .and_then(|m| m.split(':').next())
        .and_then(|l| l.parse().ok());
    let Some(line) = line else { return message };
    let mut out = message;
    for f in cache::static_findings(src, shown)
        .iter()
        .filter(|f| f.severity == tmemu_diag::rules::Severity::Error && f.span.line == line)
    {
        out.push_str(&format!(
            "\n{shown}:{}:{}: error[{}]: {} (the static check, as ptxas)",
            f.span.line, f.span.col, f.rule.id, f.message
        ));
    }
    out
}

fn arg_in(py: Python<'_>, index: usize, t: &Bound<'_, PyTuple>) -> PyResult<ArgIn> {
    let tag: String = t.get_item(0)?.extract()?;
    Ok(match tag.as_str() {
        "int" => ArgIn::Int(t.get_item(1)?.extract()?),
        "float" => ArgIn::Float(t.get_item(1)?.extract()?),
        "null" => ArgIn::Null,
        "buffer" => ArgIn::Buffer(t.get_item(1)?.extract()?),
        "tensormap" => ArgIn::TensorMap(TensorMapIn {
            array: t.get_item(1)?.extract()?,
            box_dims: t.get_item(2)?.extract()?,
            swizzle: t.get_item(3)?.extract()?,
            elem_strides: t.get_item(4)?.extract()?,
            interleave: t.get_item(5)?.extract()?,
            oob_fill: t.get_item(6)?.extract()?,
            l2_promotion: t.get_item(7)?.extract()?,
            elem_type: t.get_item(8)?.extract()?,
        }),
        "packed" => {
            let mut fields = Vec::new();
            for f in t.get_item(1)?.try_iter()? {
                let f = f?;
                let ftag: String = f.get_item(0)?.extract()?;
                fields.push(match ftag.as_str() {
                    "int" => FieldIn::Int {
                        dtype: f.get_item(1)?.extract()?,
                        value: f.get_item(2)?.extract()?,
                    },
                    "float" => FieldIn::Float {
                        dtype: f.get_item(1)?.extract()?,
                        value: f.get_item(2)?.extract()?,
                    },
                    _ => FieldIn::Buffer {
                        array: f.get_item(1)?.extract()?,
                        offset_bytes: f.get_item(2)?.extract()?,
                    },
                });
            }
            ArgIn::Packed(fields)
        }
        other => {
            return Err(raise(
                py,
                "LaunchError",
                format!("tmemu.launch: error: key 'arg[{index}]': unknown argument tag '{other}'"),
            ))
        }
    })
}

/// Runs one launch. `arrays` are `(name, dtype, shape, bytes)`; `args` tagged tuples (see
/// python/tmemu/_launch.py). Returns a dict: `verdict`, `findings`, `stats`, `outputs` (the
/// arrays' bytes after the run, in order), `kernel`.
///
/// `check = Some(seeds)` runs `tmemu_host::check` instead of one run: the adversarial async
/// policy under the default schedule and `seeds - 1` seeded ones (from `seed`, default 1),
/// then the immediate policy; findings are the union, `outputs` the first run's buffers.
#[pyfunction]
#[pyo3(signature = (ptx, ptx_name, kernel, grid, block, cluster, shared_bytes, arrays, args, sms, seed, threads, max_steps, check=None, async_policy=None))]
#[allow(clippy::too_many_arguments)]
pub fn launch<'py>(
    py: Python<'py>,
    ptx: &str,
    ptx_name: &str,
    kernel: Option<&str>,
    grid: [u32; 3],
    block: [u32; 3],
    cluster: [u32; 3],
    shared_bytes: u32,
    arrays: Vec<(String, String, Vec<usize>, Bound<'py, PyBytes>)>,
    args: Vec<Bound<'py, PyTuple>>,
    sms: u32,
    seed: Option<u64>,
    threads: usize,
    max_steps: u64,
    check: Option<u32>,
    async_policy: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    // The CLI's names and mapping (`tmemu run --async-policy`, tmemu_host::RunConfig).
    let policy = match async_policy {
        None => Policy::Immediate,
        Some(name) => Policy::parse(name).ok_or_else(|| {
            raise(
                py,
                "LaunchError",
                format!("tmemu.launch: error: key 'async_policy': expected 'immediate', 'delayed' or 'adversarial', found '{name}'"),
            )
        })?,
    };
    let loaded = load_kernel(py, ptx, ptx_name, kernel)?;
    let k = &loaded.kernel;
    let params = param_infos(k);
    let arrays: Vec<ArrayIn> = arrays
        .into_iter()
        .map(|(name, dtype, shape, bytes)| ArrayIn {
            name,
            dtype,
            shape,
            bytes: bytes.as_bytes().to_vec(),
        })
        .collect();
    let args: Vec<ArgIn> = args
        .iter()
        .enumerate()
        .map(|(i, t)| arg_in(py, i, t))
        .collect::<PyResult<_>>()?;
    if args.len() != params.len() {
        let list: Vec<String> = k
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let ty = if p.is_pointer {
                    "pointer".to_string()
                } else if p.is_array {
                    format!("{} bytes", p.size)
                } else if p.is_float {
                    format!("f{}", p.elem_bits)
                } else {
                    format!("{}-bit int", p.elem_bits)
                };
                format!("{i} '{}' ({ty})", p.name)
            })
            .collect();
        return Err(raise(
            py,
            "LaunchError",
            format!(
                "tmemu.launch: error: key 'args': expected {} arguments, one per parameter of kernel '{}' ({}), found {}",
                params.len(),
                k.name,
                if list.is_empty() { "it has none".to_string() } else { list.join(", ") },
                args.len()
            ),
        ));
    }
    let geometry = Geometry {
        grid,
        block,
        cluster,
        shared_bytes,
    };
    let spec = build_spec(&geometry, Some(&k.name), arrays, &args)
        .map_err(|m| raise(py, "LaunchError", m))?;
    let mut spec = spec;
    let resolved =
        resolve_spec(&mut spec, &[], k).map_err(|e| raise(py, "LaunchError", e.message))?;
    drop(spec);

    let session = Session::new(k, &resolved)
        .map_err(|e| raise(py, "LaunchError", format!("{ptx_name}: error: {e}")))?;
    let base = RunOptions {
        nsms: sms,
        // 0 = every available core, as `tmemu run`'s default (results are identical for any N).
        threads: if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        },
        seed,
        max_steps,
        ..Default::default()
    };
    let opts = RunConfig {
        seed,
        policy,
        ..Default::default()
    }
    .options(&base);
    let out = PyDict::new(py);
    out.set_item("kernel", &k.name)?;
    let stats = PyDict::new(py);
    // As the CLI does (crates/cli prepare.rs): the launch's cluster shape, else the kernel's
    // `.reqnctapercluster`, groups CTAs into clusters in the findings' context.
    let cluster_dims = if resolved.cluster != [1, 1, 1] {
        resolved.cluster
    } else {
        k.reqnctapercluster.unwrap_or([1, 1, 1])
    };
    let mut builder =
        ReportBuilder::with_locs(ptx_name, loaded.locs.clone()).cluster_dims(cluster_dims);
    // Every report opens with the static checker's findings, as `tmemu run`'s does: a kernel
    // ptxas would refuse (wrong target, a missing mandatory qualifier) is never `clean`.
    builder.add_static(&loaded.statics);
    let buffers = match check {
        None => {
            // The engine does not touch Python objects: let other Python threads run meanwhile.
            let run = py.detach(|| session.run(&opts));
            let outcome =
                run.map_err(|e| raise(py, "LaunchError", format!("tmemu.launch: error: {e}")))?;
            let r = &outcome.result;
            builder.set_seed(seed);
            builder.add_run(r);
            out.set_item("diagnostics_dropped", r.diagnostics_dropped)?;
            out.set_item("trapped", r.trapped)?;
            stats.set_item("warp_instructions", r.warp_instructions)?;
            stats.set_item("thread_instructions", r.thread_instructions)?;
            stats.set_item("wall_seconds", outcome.wall_seconds)?;
            stats.set_item("ctas", r.ctas)?;
            stats.set_item("warps", r.warps)?;
            stats.set_item("threads", r.threads_used)?;
            stats.set_item("ctas_per_sm", r.ctas_per_sm)?;
            outcome.buffers
        }
        Some(seeds) => {
            drop(session);
            let copts = CheckOptions {
                seeds: seeds.max(1),
                base_seed: seed.unwrap_or(CheckOptions::default().base_seed),
                engine: opts,
                ..Default::default()
            };
            let run = py.detach(|| tmemu_host::check(k, &resolved, &copts));
            let c =
                run.map_err(|e| raise(py, "LaunchError", format!("tmemu.launch: error: {e}")))?;
            builder.add_check(&c);
            out.set_item("diagnostics_dropped", c.stats.diagnostics_dropped)?;
            out.set_item("trapped", false)?;
            stats.set_item("runs", c.stats.runs)?;
            stats.set_item("warp_instructions", c.stats.warp_instructions)?;
            stats.set_item("wall_seconds", c.stats.wall_seconds)?;
            let ctas: u64 = resolved.grid.iter().map(|&d| d as u64).product();
            stats.set_item("ctas", ctas)?;
            let per_run = PyList::empty(py);
            for r in &c.runs {
                let d = PyDict::new(py);
                d.set_item("seed", r.config.seed)?;
                d.set_item("policy", r.config.policy.as_str())?;
                d.set_item("verdict", r.verdict.as_str())?;
                d.set_item("warp_instructions", r.warp_instructions)?;
                d.set_item("wall_seconds", r.wall_seconds)?;
                per_run.append(d)?;
            }
            stats.set_item("per_run", per_run)?;
            c.buffers
        }
    };
    out.set_item("stats", stats)?;
    let report = builder.finish();
    out.set_item("json", tmemu_diag::render_json(&report))?;
    out.set_item("report", NativeReport::new(report, ptx_name, ptx))?;
    let outputs = PyList::empty(py);
    for bytes in &buffers {
        outputs.append(PyBytes::new(py, bytes))?;
    }
    out.set_item("outputs", outputs)?;
    Ok(out)
}

/// The entry's parameters: dicts with `name`, `kind` (`"pointer"`, `"scalar"`, `"bytes"`),
/// `bits`, `is_float`, `size`, `align`, `offset`.
#[pyfunction]
#[pyo3(signature = (ptx, ptx_name, kernel=None))]
pub fn kernel_params<'py>(
    py: Python<'py>,
    ptx: &str,
    ptx_name: &str,
    kernel: Option<&str>,
) -> PyResult<Bound<'py, PyList>> {
    let loaded = load_kernel(py, ptx, ptx_name, kernel)?;
    let k = &loaded.kernel;
    let out = PyList::empty(py);
    for p in &k.params {
        let d = PyDict::new(py);
        d.set_item("name", &p.name)?;
        let kind = if p.is_pointer {
            "pointer"
        } else if p.is_array {
            "bytes"
        } else {
            "scalar"
        };
        d.set_item("kind", kind)?;
        d.set_item("bits", p.elem_bits)?;
        d.set_item("is_float", p.is_float)?;
        d.set_item("size", p.size)?;
        d.set_item("align", p.align)?;
        d.set_item("offset", p.offset)?;
        out.append(d)?;
    }
    Ok(out)
}

/// Names of the module's `.entry` definitions, in order.
#[pyfunction]
pub fn entries(py: Python<'_>, ptx: &str, ptx_name: &str) -> PyResult<Vec<String>> {
    let module = tmemu_ptx::parse(ptx)
        .map_err(|e| raise(py, "PtxError", format!("{ptx_name}:{}: error: {e}", e.span)))?;
    Ok(module
        .entries()
        .filter(|f| f.body.is_some())
        .map(|f| f.name.name.to_string())
        .collect())
}
