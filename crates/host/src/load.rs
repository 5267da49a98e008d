//! PTX text → loaded kernel, with the messages every front end shows.

use std::path::Path;

use tmemu_sim::{Kernel, LoadError};

use crate::error::{ErrorClass, HostError};

/// Reads, parses and loads `path`; `entry` picks the `.entry` (None: the only one). Returns
/// the source text (diagnostic spans point into it) and the kernel. Messages name the file
/// as `path.display()`.
///
/// A file that is absent but committed xz-compressed beside (`path` + `.xz`) is read from
/// there: large compiler output (CUTLASS kernels) stays under the repository's size limit.
pub fn load_ptx_file(path: &Path, entry: Option<&str>) -> Result<(String, Kernel), HostError> {
    let shown = path.display().to_string();
    let src = match std::fs::read_to_string(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => read_xz_beside(path)
            .ok_or_else(|| HostError::bad(format!("{shown}: cannot read: {e}")))??,
        other => other.map_err(|e| HostError::bad(format!("{shown}: cannot read: {e}")))?,
    };
    let kernel = load_ptx_source(&src, &shown, entry)?;
    Ok((src, kernel))
}

/// The text of `path.xz`, if that file exists.
fn read_xz_beside(path: &Path) -> Option<Result<String, HostError>> {
    let mut xz = path.as_os_str().to_owned();
    xz.push(".xz");
    let xz = Path::new(&xz);
    let packed = std::fs::read(xz).ok()?;
    let shown = xz.display();
    let mut out = Vec::new();
    Some(
        lzma_rs::xz_decompress(&mut packed.as_slice(), &mut out)
            .map_err(|e| HostError::bad(format!("{shown}: cannot decompress: {e}")))
            .and_then(|()| {
                String::from_utf8(out)
                    .map_err(|e| HostError::bad(format!("{shown}: not UTF-8 text: {e}")))
            }),
    )
}

/// Parses and loads PTX text; `shown` names it in messages:
/// `{shown}:{line}:{col}: error: ...` (bad input) or `{shown}:{line}:{col}: unsupported: ...`.
pub fn load_ptx_source(src: &str, shown: &str, entry: Option<&str>) -> Result<Kernel, HostError> {
    let module = tmemu_ptx::parse(src)
        .map_err(|e| HostError::bad(format!("{shown}:{}: error: {e}", e.span)))?;
    tmemu_sim::load(&module, src, shown, entry).map_err(|e| match e {
        LoadError::Unsupported { form, span } => HostError {
            class: ErrorClass::Unsupported,
            message: format!("{shown}:{span}: unsupported: {form}"),
        },
        LoadError::Invalid { message, span } => {
            HostError::bad(format!("{shown}:{span}: error: {message}"))
        }
    })
}
