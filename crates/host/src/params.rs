//! The entry's parameters as the spec crate needs them, and spec resolution.

use tmemu_sim::Kernel;
use tmemu_spec::{resolve_threads, ParamInfo, ParamKind, ResolvedLaunch, SetOverride, Spec};

use crate::error::HostError;

/// What `tmemu_spec::resolve` needs to know about each of the kernel's parameters, in order.
pub fn param_infos(k: &Kernel) -> Vec<ParamInfo> {
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

/// Applies `sets` (`NAME=VALUE` / `INDEX=VALUE`, as `tmemu run --set` takes them) to `spec`,
/// then resolves it against the kernel's parameters. Every failure is bad input, with the
/// spec crate's message (`file:line:col: error: ...`).
pub fn resolve_spec(
    spec: &mut Spec,
    sets: &[String],
    kernel: &Kernel,
) -> Result<ResolvedLaunch, HostError> {
    resolve_spec_threads(spec, sets, kernel, 1)
}

/// As [`resolve_spec`], generating buffer fills on up to `threads` threads (the same bytes
/// for any number).
pub fn resolve_spec_threads(
    spec: &mut Spec,
    sets: &[String],
    kernel: &Kernel,
    threads: usize,
) -> Result<ResolvedLaunch, HostError> {
    resolve_spec_with(spec, sets, kernel, threads, None)
}

/// As [`resolve_spec_threads`], with the spec's buffers made beforehand by
/// [`tmemu_spec::materialize_buffers`] (while the PTX loaded): the same launch and messages.
pub fn resolve_spec_prefilled(
    spec: &mut Spec,
    sets: &[String],
    kernel: &Kernel,
    threads: usize,
    prefilled: Vec<Result<Vec<u8>, tmemu_spec::SpecError>>,
) -> Result<ResolvedLaunch, HostError> {
    resolve_spec_with(spec, sets, kernel, threads, Some(prefilled))
}

fn resolve_spec_with(
    spec: &mut Spec,
    sets: &[String],
    kernel: &Kernel,
    threads: usize,
    prefilled: Option<Vec<Result<Vec<u8>, tmemu_spec::SpecError>>>,
) -> Result<ResolvedLaunch, HostError> {
    let params = param_infos(kernel);
    let bad = |m: String| HostError::bad(m);
    let sets: Vec<SetOverride> = sets
        .iter()
        .map(|s| SetOverride::parse(s))
        .collect::<Result<_, _>>()
        .map_err(|e| bad(e.to_string()))?;
    let kernel_ref = tmemu_spec::KernelRef {
        name: &kernel.name,
        place: entry_place(kernel),
    };
    spec.apply_overrides_to(&sets, &params, &kernel_ref)
        .map_err(|e| bad(e.to_string()))?;
    match prefilled {
        Some(made) => tmemu_spec::resolve_prefilled(spec, &params, threads, made),
        None => resolve_threads(spec, &params, threads),
    }
    .map_err(|e| bad(e.to_string()))
}

/// `file:line` of the kernel's `.entry` directive, for messages about its parameters.
fn entry_place(kernel: &Kernel) -> Option<String> {
    let src: &str = &kernel.source;
    let mut from = 0;
    while let Some(i) = src[from..].find(".entry") {
        let at = from + i;
        let rest = src[at + ".entry".len()..].trim_start();
        let after = rest.strip_prefix(kernel.name.as_str());
        if after
            .is_some_and(|a| !a.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$'))
        {
            let line = src[..at].matches('\n').count() + 1;
            return Some(format!("{}:{line}", kernel.file));
        }
        from = at + ".entry".len();
    }
    None
}
