//! tmemu-spec: launch specs.
//!
//! Two steps, kept apart so that other front ends can skip the first:
//!
//! 1. TOML → [`Spec`] ([`Spec::parse`] / [`Spec::load`]): typed, with the file position of
//!    every item, names cross-checked, tensor maps validated.
//! 2. [`Spec`] + the entry's [`ParamInfo`]s → [`ResolvedLaunch`] ([`resolve`]): buffers
//!    materialised (`.npy` files read, fills generated), the parameter block laid out with
//!    relocations, tensor maps encoded in tmemu's own 128-byte format ([`TensorMapDesc`]),
//!    reference arrays loaded for [`compare`].
//!
//! The crate does no execution and knows nothing of PTX.

mod compare;
mod dtype;
mod error;
mod fill;
mod npy;
mod parse;
mod resolve;
mod spec;
pub mod tensormap;

pub use compare::{compare, is_close, unravel_index, CompareError, Comparison};
pub use dtype::DType;
pub use error::{Site, SpecError};
pub use fill::{Fill, SplitMix64};
pub use npy::{NpyArray, NpyElem, NpyError};
pub use parse::{tensor_map_desc, tm_elem_type, MAX_BUFFER_BYTES};
pub use resolve::{
    committed_file_exists, materialize, materialize_buffers, materialize_threads, read_maybe_gz,
    resolve, resolve_prefilled, resolve_threads, Expectation, GlobalBuffer, KernelRef, ParamInfo,
    ParamKind, Relocation, ResolvedLaunch, SetOverride, TensorMapBinding,
};
pub use spec::*;
pub use tensormap::{TensorMapDesc, TensorMapError};

use std::path::Path;

impl Spec {
    /// Parses spec text; `file` names it in messages and relative paths are joined with `dir`.
    /// Does no IO (files are read by [`resolve`]).
    pub fn parse(text: &str, file: &str, dir: &Path) -> Result<Spec, SpecError> {
        parse::parse_spec(text, file, dir)
    }

    /// Reads and parses a spec file, and checks that its PTX file exists (or, compressed,
    /// `NAME.ptx.gz` or `NAME.ptx.xz` beside it: tmemu_host::read_ptx_file reads them).
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let file = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| {
            SpecError::new(
                &file,
                Site::unplaced(""),
                format!("cannot read the spec: {e}"),
            )
        })?;
        // a spec that is not UTF-8 is bad at its first invalid byte: name that line and column
        let text = String::from_utf8(bytes).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let before = &e.as_bytes()[..at];
            let line = before.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            let line_start = before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |i| i + 1);
            // columns count characters, as every other spec error's do
            let col = std::str::from_utf8(&before[line_start..]).map_or(1, |s| s.chars().count())
                as u32
                + 1;
            SpecError::new(
                &file,
                Site::new(line, col, ""),
                format!("not UTF-8 text: byte 0x{:02x}", e.as_bytes()[at]),
            )
        })?;
        let dir = path.parent().unwrap_or(Path::new(""));
        let spec = Spec::parse(&text, &file, dir)?;
        if !committed_file_exists(&spec.ptx.value) {
            // a directory (or a device) exists but is no PTX file: say which
            let why = if spec.ptx.value.is_dir() {
                "is a directory"
            } else if spec.ptx.value.exists() {
                "is not a regular file"
            } else {
                "does not exist"
            };
            return Err(SpecError::new(
                &file,
                spec.ptx.site.clone(),
                format!(
                    "expected a PTX file, but '{}' {why}",
                    spec.ptx.value.display()
                ),
            ));
        }
        Ok(spec)
    }
}
