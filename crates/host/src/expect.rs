//! After the run: `save` buffers written as `.npy`, `[[expect]]` references compared.

use tmemu_spec::{CompareError, Comparison, ResolvedLaunch};

use crate::error::HostError;

/// Writes every buffer that has a `save` path, as `.npy` of its dtype and shape.
/// `contents[i]` is buffer i after the run ([`crate::Outcome::buffers`]).
pub fn save_outputs(resolved: &ResolvedLaunch, contents: &[Vec<u8>]) -> Result<(), HostError> {
    for (b, bytes) in resolved.buffers.iter().zip(contents) {
        if let Some(path) = &b.save {
            std::fs::write(path, b.to_npy(bytes))
                .map_err(|e| HostError::bad(format!("{}: cannot write: {e}", path.display())))?;
        }
    }
    Ok(())
}

/// One `[[expect]]` checked.
#[derive(Clone, Debug)]
pub struct ExpectReport {
    /// Index into `ResolvedLaunch::buffers`.
    pub buffer: usize,
    /// The buffer's name.
    pub name: String,
    /// The reference as the spec wrote it.
    pub label: String,
    pub rtol: f64,
    pub atol: f64,
    /// Err: the contents could not be compared at all (shape or dtype mismatch).
    pub comparison: Result<Comparison, CompareError>,
}

impl ExpectReport {
    pub fn passed(&self) -> bool {
        matches!(&self.comparison, Ok(c) if c.passed())
    }
}

/// Checks every `[[expect]]` of the launch, in spec order.
pub fn check_expects(resolved: &ResolvedLaunch, contents: &[Vec<u8>]) -> Vec<ExpectReport> {
    resolved
        .expects
        .iter()
        .map(|e| {
            let b = &resolved.buffers[e.buffer];
            let bytes = contents.get(e.buffer).map_or(&[][..], |v| v.as_slice());
            ExpectReport {
                buffer: e.buffer,
                name: b.name.clone(),
                label: e.label.clone(),
                rtol: e.rtol,
                atol: e.atol,
                comparison: e.check(b, bytes),
            }
        })
        .collect()
}
