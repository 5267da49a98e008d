//! `tmemu._tmemu`: the native half of the `tmemu` Python package.
//!
//! The Python half (python/tmemu) turns numpy arrays and Python scalars into plain values
//! (dtype names, shapes, little-endian bytes, tagged argument tuples); this module builds a
//! [`tmemu_spec::Spec`] from them and goes through the same path as `tmemu run`, the
//! `tmemu_host` glue: PTX → kernel → resolved spec → `tmemu_host::Session` → run. Argument packing
//! exists once, in tmemu-spec.
//!
//! Errors are raised as the exception classes of `tmemu._errors` (defined in Python, so the
//! package has one hierarchy), with the CLI's `file:line:col: error: ...` messages.

mod cache;
mod convert;
mod launch;
mod report;

use pyo3::prelude::*;

/// The native module. Only the Python package imports it; its functions take plain values.
#[pymodule]
fn _tmemu(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(launch::launch, m)?)?;
    m.add_function(wrap_pyfunction!(launch::kernel_params, m)?)?;
    m.add_function(wrap_pyfunction!(launch::entries, m)?)?;
    m.add_class::<report::NativeReport>()?;
    m.add("DTYPES", tmemu_spec::DType::ALL.map(|d| d.name()).to_vec())?;
    Ok(())
}
