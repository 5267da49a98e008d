//! Setup shared by the engine tests: read and load a PTX program, pack a parameter block,
//! build a launch, read words back. Only plumbing: what a test runs and asserts stays in it.

use std::path::PathBuf;

use tmemu_sim::{load, Kernel, Launch};

/// `tests/corpus/<dir>/<name>` of the repository: its path and text.
pub fn corpus_file(dir: &str, name: &str) -> (PathBuf, String) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(dir)
        .join(name);
    let s = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    (p, s)
}

/// Parses and loads the first kernel of `src` (`file` names it in diagnostics); a parse or
/// load error fails the test.
pub fn load_src(src: &str, file: &str) -> Kernel {
    let m = tmemu_ptx::parse(src).expect("parse");
    load(&m, src, file, None).expect("load")
}

/// `tests/corpus/<dir>/<name>`, loaded.
pub fn load_corpus(dir: &str, name: &str) -> Kernel {
    let (path, src) = corpus_file(dir, name);
    load_src(&src, &path.display().to_string())
}

/// The kernel's parameter block with `vals` in declaration order, each little-endian at its
/// parameter's offset and cut to its size; parameters without a value stay zero.
pub fn param_block(k: &Kernel, vals: impl IntoIterator<Item = u64>) -> Vec<u8> {
    let mut params = vec![0u8; k.param_bytes as usize];
    for (p, v) in k.params.iter().zip(vals) {
        params[p.offset as usize..(p.offset + p.size) as usize]
            .copy_from_slice(&v.to_le_bytes()[..p.size as usize]);
    }
    params
}

/// A launch without a cluster and without dynamic shared memory.
pub fn plain_launch(grid: [u32; 3], block: [u32; 3], params: Vec<u8>) -> Launch {
    Launch {
        grid,
        block,
        cluster: None,
        dyn_shared: 0,
        params,
    }
}

/// `bytes` as little-endian u32 words.
pub fn u32_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
