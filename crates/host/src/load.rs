//! PTX text → loaded kernel, with the messages every front end shows.

use std::path::Path;

use tmemu_sim::{Kernel, LoadError};

use crate::error::{ErrorClass, HostError};

/// Reads, parses and loads `path`; `entry` picks the `.entry` (None: the only one). Returns
/// the source text (diagnostic spans point into it) and the kernel. Messages name the file
/// as `path.display()`.
///
/// A file that is absent but committed compressed beside it (`path` + `.gz`, or `.xz`) is
/// read from there: large compiler output stays under the repository's size limit.
pub fn load_ptx_file(path: &Path, entry: Option<&str>) -> Result<(String, Kernel), HostError> {
    let src = read_ptx_file(path)?;
    let kernel = load_ptx_source(&src, &path.display().to_string(), entry)?;
    Ok((src, kernel))
}

/// The text of the PTX file `path`, or, where it is absent, of `path.gz` or `path.xz` beside
/// it decompressed (the corpus commits PTX over 64 KiB as `.gz`, kernels/regen.py; gzip
/// first: inflate costs a run ~10x fewer instructions than the pure-Rust xz decoder). A
/// corrupt archive is an error naming it. Text that is not UTF-8 is bad input at its first
/// invalid byte (`path:line:col`, the line and column of the decompressed text for an
/// archive), so an editor can jump there.
pub fn read_ptx_file(path: &Path) -> Result<String, HostError> {
    let shown = path.display().to_string();
    let bytes = match tmemu_spec::read_maybe_gz(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => read_xz_beside(path)
            .ok_or_else(|| HostError::bad(format!("{shown}: cannot read: {e}")))??,
        other => other.map_err(|e| HostError::bad(format!("{shown}: cannot read: {e}")))?,
    };
    String::from_utf8(bytes).map_err(|e| {
        let bytes = e.as_bytes();
        let at = e.utf8_error().valid_up_to();
        // the prefix is valid UTF-8 by definition of valid_up_to
        let before = std::str::from_utf8(&bytes[..at]).unwrap_or("");
        let (line, col) = tmemu_ptx::SourceMap::new(before).line_col(at as u32);
        HostError::bad(format!(
            "{shown}:{line}:{col}: error: not UTF-8 text: byte 0x{:02x} at offset {at}",
            bytes[at]
        ))
    })
}

/// The bytes of `path.xz`, if that file exists.
fn read_xz_beside(path: &Path) -> Option<Result<Vec<u8>, HostError>> {
    let mut xz = path.as_os_str().to_owned();
    xz.push(".xz");
    let xz = Path::new(&xz);
    let packed = std::fs::read(xz).ok()?;
    let shown = xz.display();
    let mut out = Vec::new();
    Some(
        lzma_rs::xz_decompress(&mut packed.as_slice(), &mut out)
            .map(|()| out)
            .map_err(|e| HostError::bad(format!("{shown}: cannot decompress: {e}"))),
    )
}

/// Parses and loads PTX text; `shown` names it in messages:
/// `{shown}:{line}:{col}: error: ...` (bad input) or `{shown}:{line}:{col}: unsupported: ...`.
pub fn load_ptx_source(src: &str, shown: &str, entry: Option<&str>) -> Result<Kernel, HostError> {
    load_ptx_module(&parse_ptx(src, shown)?, src, shown, entry)
}

/// Parses PTX text, with [`load_ptx_source`]'s message on failure. A caller that needs the
/// module for more than loading (the static checker, the report's line table) parses once
/// here and passes it on: the 1 700-line Triton matmul takes 3.5 M host instructions a parse.
pub fn parse_ptx<'a>(src: &'a str, shown: &str) -> Result<tmemu_ptx::ast::Module<'a>, HostError> {
    tmemu_ptx::parse(src).map_err(|e| HostError::bad(format!("{shown}:{}: error: {e}", e.span)))
}

/// Loads a module [`parse_ptx`] parsed from `src`, with [`load_ptx_source`]'s messages.
pub fn load_ptx_module(
    module: &tmemu_ptx::ast::Module<'_>,
    src: &str,
    shown: &str,
    entry: Option<&str>,
) -> Result<Kernel, HostError> {
    tmemu_sim::load(module, src, shown, entry).map_err(|e| match e {
        LoadError::Unsupported { form, span } => HostError {
            class: ErrorClass::Unsupported,
            message: format!("{shown}:{span}: unsupported: {form}"),
        },
        LoadError::Invalid { message, span } => {
            HostError::bad(format!("{shown}:{span}: error: {message}"))
        }
    })
}
