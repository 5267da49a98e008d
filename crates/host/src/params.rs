//! The entry's parameters as the spec crate needs them, and spec resolution.

use tmemu_sim::Kernel;
use tmemu_spec::{resolve, ParamInfo, ParamKind, ResolvedLaunch, SetOverride, Spec};

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
    let params = param_infos(kernel);
    let bad = |m: String| HostError::bad(m);
    let sets: Vec<SetOverride> = sets
        .iter()
        .map(|s| SetOverride::parse(s))
        .collect::<Result<_, _>>()
        .map_err(|e| bad(e.to_string()))?;
    spec.apply_overrides(&sets, &params)
        .map_err(|e| bad(e.to_string()))?;
    resolve(spec, &params).map_err(|e| bad(e.to_string()))
}
