//! Tensor-copy throughput: the GEMM-typical boxes (f16, 64 × 128 elements = one 128-byte
//! swizzle row by 128 rows, 16 KiB) loaded and stored through `FlatGlobal`, against a plain
//! `memcpy` of the same bytes as the native reference.
//! Run: `cargo bench -p tmemu-tma --bench copy`.

use divan::counter::BytesCount;
use divan::{black_box, Bencher};
use tmemu_spec::tensormap::{
    Interleave, L2Promotion, OobFill, SwizzleAtomicity, SwizzleMode, TensorMapDesc, TensorMapMode,
    TmElemType,
};
use tmemu_tma::{copy_box, store_box, FlatGlobal};

fn main() {
    divan::main();
}

const BASE: u64 = 0x10_0000;
const BOX_BYTES: usize = 64 * 128 * 2;

fn desc(swizzle: SwizzleMode) -> TensorMapDesc {
    TensorMapDesc {
        elem_type: TmElemType::F16,
        rank: 2,
        global_address: BASE,
        global_dims: [1024, 1024, 0, 0, 0],
        global_strides: [2048, 0, 0, 0],
        box_dims: [64, 128, 0, 0, 0],
        elem_strides: [1, 1, 0, 0, 0],
        interleave: Interleave::None,
        swizzle,
        swizzle_atomicity: SwizzleAtomicity::B16,
        oob_fill: OobFill::Zero,
        l2_promotion: L2Promotion::None,
        mode: TensorMapMode::Tile,
    }
}

const MODES: [SwizzleMode; 2] = [SwizzleMode::None, SwizzleMode::B128];

#[divan::bench(args = MODES)]
fn load(bencher: Bencher, mode: SwizzleMode) {
    let d = desc(mode);
    let mem = FlatGlobal::new(BASE, vec![1; 1024 * 2048]);
    let mut smem = vec![0u8; 64 * 1024];
    bencher
        .counter(BytesCount::new(BOX_BYTES))
        .bench_local(|| copy_box(&d, black_box(&[64, 256]), 0x4000, &mem, &mut smem).unwrap());
}

/// A box hanging over the tensor's corner: three quarters filled.
#[divan::bench(args = MODES)]
fn load_edge(bencher: Bencher, mode: SwizzleMode) {
    let d = desc(mode);
    let mem = FlatGlobal::new(BASE, vec![1; 1024 * 2048]);
    let mut smem = vec![0u8; 64 * 1024];
    bencher
        .counter(BytesCount::new(BOX_BYTES))
        .bench_local(|| copy_box(&d, black_box(&[992, 960]), 0x4000, &mem, &mut smem).unwrap());
}

#[divan::bench(args = MODES)]
fn store(bencher: Bencher, mode: SwizzleMode) {
    let d = desc(mode);
    let mut mem = FlatGlobal::new(BASE, vec![1; 1024 * 2048]);
    let smem = vec![3u8; 64 * 1024];
    bencher
        .counter(BytesCount::new(BOX_BYTES))
        .bench_local(|| store_box(&d, black_box(&[64, 256]), 0x4000, &smem, &mut mem).unwrap());
}

/// Native reference: the same 128 rows of 128 bytes copied with `copy_from_slice`.
#[divan::bench]
fn memcpy_rows(bencher: Bencher) {
    let g = vec![1u8; 1024 * 2048];
    let mut smem = vec![0u8; 64 * 1024];
    bencher.counter(BytesCount::new(BOX_BYTES)).bench_local(|| {
        for r in 0..128 {
            let src = (256 + r) * 2048 + 128;
            smem[0x4000 + r * 128..0x4000 + (r + 1) * 128]
                .copy_from_slice(black_box(&g[src..src + 128]));
        }
    });
}

/// An im2col load of the same size: 128 pixels × 64 f16 channels of an NHWC [4, 32, 32, 64]
/// activation (3×3 filter, padding 1, so the first row of pixels is padding), 128B swizzle.
#[divan::bench(args = MODES)]
fn load_im2col(bencher: Bencher, mode: SwizzleMode) {
    let d = TensorMapDesc {
        rank: 4,
        global_dims: [64, 32, 32, 4, 0],
        global_strides: [128, 128 * 32, 128 * 32 * 32, 0],
        box_dims: [0; 5],
        elem_strides: [1, 1, 1, 1, 0],
        mode: TensorMapMode::Im2col(tmemu_spec::tensormap::Im2colParams {
            lower: [-1, -1, 0],
            upper: [-1, -1, 0],
            channels: 64,
            pixels: 128,
        }),
        ..desc(mode)
    };
    let mem = FlatGlobal::new(BASE, vec![1; 4 * 32 * 32 * 128]);
    let mut smem = vec![0u8; 64 * 1024];
    bencher.counter(BytesCount::new(BOX_BYTES)).bench_local(|| {
        let b = tmemu_tma::TileBox::new_im2col(&d, black_box(&[0, -1, -1, 1]), &[0, 0], 0x4000)
            .unwrap();
        tmemu_tma::load(&b, &mem, &mut smem).unwrap()
    });
}
