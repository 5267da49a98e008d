//! Setup shared by the engine tests: read and load a PTX program, pack a parameter block,
//! build a launch, read words back. Only plumbing: what a test runs and asserts stays in it.

use std::path::PathBuf;

use tmemu_sim::{load, Kernel, Launch};

/// `tests/corpus/<dir>/<name>` of the repository: its path and text (from `<name>.xz` when a
/// large file is committed compressed).
pub fn corpus_file(dir: &str, name: &str) -> (PathBuf, String) {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(dir)
        .join(name);
    let s = String::from_utf8(tmemu_testkit::recording::read(&p))
        .unwrap_or_else(|e| panic!("{}: not UTF-8: {e}", p.display()));
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

/// The diagnostics of one CTA of `threads` threads of the single-parameter kernel `src` run
/// with that parameter `mode`: (rule id, pc, the lines of its related spans).
pub fn mode_diagnostics(
    src: &str,
    file: &str,
    threads: u32,
    mode: u32,
) -> Vec<(String, u32, Vec<u32>)> {
    let k = load_src(src, file);
    let g = tmemu_sim::GlobalMemory::new();
    let launch = plain_launch([1, 1, 1], [threads, 1, 1], param_block(&k, [mode as u64]));
    let opts = tmemu_sim::RunOptions {
        max_steps: 100_000,
        ..Default::default()
    };
    let r = tmemu_sim::run(&k, &launch, &g, &opts).expect("launch");
    r.diagnostics
        .iter()
        .map(|d| {
            (
                d.rule.id.to_string(),
                d.ctx.pc,
                d.related.iter().map(|x| x.0.line).collect(),
            )
        })
        .collect()
}

/// PTX of the atomics tests' kernel `k(mem, bs, olds)`, one element per thread: after the
/// prologue `%r1` is the global thread index and `%rd5`, `%rd6`, `%rd7` address the thread's
/// element (`elem_bytes` apart) of `mem`, `bs` and `olds`. `decls` declares what `body` uses
/// besides `%r<12>` and `%rd<10>`; `body` is whole indented lines.
pub fn atom_kernel(version: &str, decls: &str, elem_bytes: usize, body: &str) -> String {
    format!(
        r#"
.version {version}
.target sm_100a
.address_size 64

.visible .entry k(.param .u64 mem, .param .u64 bs, .param .u64 olds)
{{
    {decls}
    .reg .b32 %r<12>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [mem];
    ld.param.u64 %rd2, [bs];
    ld.param.u64 %rd3, [olds];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r1, %r1, %r2, %r3;
    mul.wide.u32 %rd4, %r1, {elem_bytes};
    add.u64 %rd5, %rd1, %rd4;
    add.u64 %rd6, %rd2, %rd4;
    add.u64 %rd7, %rd3, %rd4;
{body}    ret;
}}
"#
    )
}
