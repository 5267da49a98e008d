//! Helpers shared by the integration tests (included with `mod common;`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's `tests/corpus` directory.
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus")
}

/// Every `.ptx` under `tests/corpus`, sorted, except the deliberately malformed inputs in
/// `tests/corpus/parse/err` (checked by `malformed.rs`).
pub fn good_corpus_files() -> Vec<PathBuf> {
    let root = corpus_root();
    let err_dir = root.join("parse/err");
    let mut out = Vec::new();
    walk(&root, &mut |p| {
        if p.extension().is_some_and(|e| e == "ptx") && !p.starts_with(&err_dir) {
            out.push(p.to_path_buf());
        }
    });
    out.sort();
    out
}

/// Every `.ptx` under `dir`, sorted.
pub fn ptx_files_in(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(dir, &mut |p| {
        if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p.to_path_buf());
        }
    });
    out.sort();
    out
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
