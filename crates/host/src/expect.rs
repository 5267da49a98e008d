//! After the run: `save` buffers written as `.npy`, `[[expect]]` references compared.

use tmemu_spec::{CompareError, Comparison, ResolvedLaunch};

use crate::error::HostError;

/// Writes every buffer that has a `save` path, as `.npy` of its dtype and shape.
/// `contents[i]` is buffer i after the run ([`crate::Outcome::buffers`], or
/// [`crate::Session::contents`] in place).
pub fn save_outputs<B: AsRef<[u8]>>(
    resolved: &ResolvedLaunch,
    contents: &[B],
) -> Result<(), HostError> {
    for (i, bytes) in contents.iter().enumerate() {
        save_output(resolved, i, bytes.as_ref())?;
    }
    Ok(())
}

/// Writes buffer `i` as `.npy` if it has a `save` path (header, then the contents as they
/// are: no copy into one vector first). [`save_outputs`] for one buffer, so that callers may
/// write several at once; the message is the same.
pub fn save_output(resolved: &ResolvedLaunch, i: usize, bytes: &[u8]) -> Result<(), HostError> {
    let Some(b) = resolved.buffers.get(i) else {
        return Ok(());
    };
    let Some(path) = &b.save else {
        return Ok(());
    };
    let write = || -> std::io::Result<()> {
        use std::io::Write;
        let mut f = std::fs::File::create(path)?;
        f.write_all(&b.npy_header())?;
        f.write_all(bytes)
    };
    write().map_err(|e| HostError::bad(format!("{}: cannot write: {e}", path.display())))
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
pub fn check_expects<B: AsRef<[u8]>>(
    resolved: &ResolvedLaunch,
    contents: &[B],
) -> Vec<ExpectReport> {
    resolved
        .expects
        .iter()
        .map(|e| {
            let b = &resolved.buffers[e.buffer];
            let bytes = contents.get(e.buffer).map_or(&[][..], |v| v.as_ref());
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
