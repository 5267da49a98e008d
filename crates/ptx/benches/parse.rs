//! Parse throughput on the largest Triton matmul PTX of the corpus (MB/s via divan's
//! `bytes_count`). Run: `cargo bench -p tmemu-ptx --bench parse`.

use std::path::{Path, PathBuf};

use divan::counter::BytesCount;
use divan::Bencher;

/// The benchmark parses the same file again and again. With glibc's malloc, freeing one tree
/// returns its pages to the OS and the next parse page-faults them back (about a quarter of
/// the time measured), which a single-shot parse does not repeat. mimalloc keeps the pages, so
/// the figure is the parser's own speed. (Run with the system allocator by removing these two
/// lines; the report in docs/arch/ptx.md gives both.)
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

/// The largest `tests/corpus/kernels/triton/matmul*.ptx` (the corpus grows; pick at run time),
/// by text size: the large ones are committed as `.ptx.gz` (kernels/regen.py), decompressed
/// here so the figure stays the parse of the biggest matmul.
fn largest_triton_matmul() -> (PathBuf, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/kernels/triton");
    std::fs::read_dir(&dir)
        .expect("tests/corpus/kernels/triton")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("matmul") && (name.ends_with(".ptx") || name.ends_with(".ptx.gz"))
        })
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            let text = if p.extension().is_some_and(|e| e == "gz") {
                use std::io::Read;
                let mut out = String::new();
                flate2::read::GzDecoder::new(bytes.as_slice())
                    .read_to_string(&mut out)
                    .unwrap();
                out
            } else {
                String::from_utf8(bytes).unwrap()
            };
            (p, text)
        })
        .max_by_key(|(_, text)| text.len())
        .expect("a Triton matmul .ptx in the corpus")
}

#[divan::bench]
fn parse_triton_matmul(bencher: Bencher) {
    let (path, src) = largest_triton_matmul();
    eprintln!("bench input: {} ({} bytes)", path.display(), src.len());
    bencher
        .counter(BytesCount::new(src.len()))
        .bench(|| tmemu_ptx::parse(divan::black_box(&src)).unwrap());
}

#[divan::bench]
fn lex_only_triton_matmul(bencher: Bencher) {
    let (_, src) = largest_triton_matmul();
    bencher.counter(BytesCount::new(src.len())).bench(|| {
        let mut lx = tmemu_ptx::lexer::Lexer::new(divan::black_box(&src));
        let mut n = 0usize;
        while lx.next_token().unwrap().kind != tmemu_ptx::lexer::TokKind::Eof {
            n += 1;
        }
        n
    });
}
