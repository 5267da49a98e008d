//! static_check over the largest compiler kernels of the corpus (the module is parsed once;
//! the figure is the checker alone, in input bytes per second).
use divan::counter::BytesCount;
use divan::Bencher;

fn main() {
    divan::main();
}

const FILES: &[&str] = &["triton/matmul_bf16.ptx", "triton/dot_scaled_mxfp8.ptx"];

#[divan::bench(args = FILES)]
fn check(b: Bencher, file: &str) {
    let path = format!(
        "{}/../../tests/corpus/kernels/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    // committed as NAME.ptx.gz (over 64 KiB): read as tmemu reads it
    let text = tmemu_host::read_ptx_file(std::path::Path::new(&path)).unwrap();
    let module = tmemu_ptx::parse(&text).unwrap();
    b.counter(BytesCount::new(text.len()))
        .bench(|| tmemu_check::static_check(divan::black_box(&module), "k.ptx"));
}
