//! Helpers shared by the integration tests (included with `mod common;`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's `tests/corpus` directory.
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// First-line marker of a deliberately malformed input: `// expect-error: LINE:COL: message`.
pub const EXPECT_ERROR: &str = "// expect-error: ";

fn expects_error(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 32];
    let n = std::fs::File::open(p)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    head[..n].starts_with(EXPECT_ERROR.as_bytes())
}

/// Every `.ptx` under `tests/corpus`, sorted, except the deliberately malformed inputs (those
/// whose first line is an `// expect-error:` marker, checked by `malformed.rs`).
pub fn good_corpus_files() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ptx_files_in(&corpus_root())
        .into_iter()
        .filter(|p| !expects_error(p))
        .collect();
    out.sort();
    out
}

/// Every `.ptx` under `tests/corpus` that starts with an `// expect-error:` marker.
pub fn bad_corpus_files() -> Vec<PathBuf> {
    ptx_files_in(&corpus_root())
        .into_iter()
        .filter(|p| expects_error(p))
        .collect()
}

/// Every `.ptx` under `dir`, and every `.ptx.gz` (the corpus commits PTX over 64 KiB
/// gzip-compressed: kernels/regen.py), sorted. Read them with [`read`] / [`read_text`].
pub fn ptx_files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut |p| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        if name.ends_with(".ptx") || name.ends_with(".ptx.gz") {
            out.push(p.to_path_buf());
        }
    });
    out.sort();
    out
}

/// The bytes of a file [`ptx_files_in`] lists, decompressed where it is a `.gz`.
pub fn read(p: &Path) -> Vec<u8> {
    let bytes = std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    if !p.to_string_lossy().ends_with(".gz") {
        return bytes;
    }
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{}: not a valid gzip file: {e}", p.display()));
    out
}

/// [`read`], as text.
pub fn read_text(p: &Path) -> String {
    String::from_utf8(read(p)).unwrap_or_else(|e| panic!("{}: not UTF-8: {e}", p.display()))
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, f);
        } else {
            f(&p);
        }
    }
}

/// A small deterministic PRNG (xorshift64*), so mutation tests need no extra crate and print
/// a reproducible seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}
