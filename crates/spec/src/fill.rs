//! Generated buffer contents: zeros, ones, iota and seeded uniform random numbers.
//!
//! The random generator is specified exactly so that other front ends (the Python package, a
//! user's numpy script) can reproduce it bit for bit:
//!
//! * SplitMix64 with state `seed`: `state += 0x9E3779B97F4A7C15; z = state;
//!   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
//!   return z ^ (z >> 31)` (wrapping arithmetic), one call per element in C order.
//! * float dtypes: `u = (next >> 11) * 2^-53` in [0, 1), value `low + (high - low) * u` in f64,
//!   then rounded to the dtype (nearest even); rounding may give `high` itself.
//! * integer dtypes: `low + ((next as u128 * (high - low) as u128) >> 64)`, in [low, high).

use crate::dtype::DType;

/// How a buffer's initial contents are generated.
#[derive(Clone, Debug, PartialEq)]
pub enum Fill {
    Zeros,
    /// 1 in the dtype.
    Ones,
    /// 0, 1, 2, ... in C order, converted to the dtype (floats round to nearest even; integers
    /// wrap modulo 2^bits, like `numpy.arange(n).astype(dtype)`).
    Iota,
    /// Uniform in [low, high) for float dtypes; see the module documentation.
    Random {
        seed: u64,
        low: f64,
        high: f64,
    },
    /// Uniform integers in [low, high) for integer dtypes; see the module documentation.
    RandomInt {
        seed: u64,
        low: i128,
        high: i128,
    },
}

/// SplitMix64's state increment (the golden-ratio "gamma").
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// SplitMix64's output function of one state.
#[inline(always)]
fn mix(state: u64) -> u64 {
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// SplitMix64 (Steele, Lea, Flood 2014), the generator behind `Fill::Random`.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }
}

/// Elements below which a thread of its own does not pay for itself: starting one costs tens
/// of microseconds, a random f16 element a few nanoseconds.
const PAR_MIN_ELEMENTS: usize = 1 << 16;

impl Fill {
    /// The bytes of `elements` elements of `dtype` filled this way.
    ///
    /// `Random` on an integer dtype draws floats and truncates them; specs use `RandomInt`
    /// for integer dtypes (the parser checks `low < high` and reports it with a position).
    pub fn generate(&self, dtype: DType, elements: usize) -> Vec<u8> {
        self.generate_threads(dtype, elements, 1)
    }

    /// As [`Fill::generate`], on up to `threads` threads for a large buffer. Every element's
    /// value is a function of its index alone (draw `i` is `mix(seed + (i + 1)·GAMMA)`), so
    /// each thread fills contiguous ranges from the state their first index gives, and the
    /// bytes are those of `generate` for any `threads` (test
    /// `threaded_fill_equals_the_serial_one`). Inputs are generated before the engine starts,
    /// so with many engine threads this serial step was a large part of a short run.
    pub fn generate_threads(&self, dtype: DType, elements: usize, threads: usize) -> Vec<u8> {
        let size = dtype.size();
        let parts = threads.min(Self::useful_threads(elements));
        // ranges of whole 8-draw blocks; a few more ranges than threads, so a thread that
        // starts late takes fewer of them
        let per = elements.div_ceil(parts * 4).next_multiple_of(8);
        if parts > 1 && rayon::current_thread_index().is_some() {
            // called on a rayon pool's thread (`tmemu run` runs fills and engine in one pool):
            // the ranges become its tasks, and no thread is started for them. The buffer is
            // not zeroed first: glibc's calloc of a block from a thread arena's top memsets it
            // whole, one thread first-touching every page (6 MB of page faults and stores
            // before issue 7's benchmark could start, perf.md session 9); each task zeroes and
            // fills its own range instead, so the first touch is spread over the pool.
            use rayon::prelude::*;
            let len = elements * size;
            if *self == Fill::Zeros && tmemu_pages::lazy_zeroed(len) {
                // zero pages need no writing where the allocator maps a large zeroed block on
                // its own (`tmemu`'s): each page is left to the engine thread that first
                // writes it, none is touched before the first CTA
                return vec![0u8; len];
            }
            let mut out: Vec<u8> = Vec::with_capacity(len);
            out.spare_capacity_mut()[..len]
                .par_chunks_mut(per * size)
                .enumerate()
                .for_each(|(k, chunk)| {
                    tmemu_pages::prefault_for_write(chunk);
                    chunk.fill(std::mem::MaybeUninit::new(0));
                    // SAFETY: every byte of `chunk` was initialised just above, and u8 has no
                    // invalid values.
                    let chunk =
                        unsafe { &mut *(chunk as *mut [std::mem::MaybeUninit<u8>] as *mut [u8]) };
                    if *self != Fill::Zeros {
                        self.fill_from(dtype, chunk, k * per);
                    }
                });
            // SAFETY: the chunks cover 0..len, each initialised by its task.
            unsafe { out.set_len(len) };
            return out;
        }
        if *self == Fill::Zeros {
            return vec![0u8; elements * size];
        }
        // every byte is written below: the pages are faulted in with one call first, before
        // the zeroing (glibc's calloc would memset a block from its arena page by page)
        let len = elements * size;
        let mut out: Vec<u8> = Vec::with_capacity(len);
        tmemu_pages::prefault_for_write(&mut out.spare_capacity_mut()[..len]);
        out.resize(len, 0);
        if parts == 1 {
            self.fill_from(dtype, &mut out, 0);
            return out;
        }
        let work = std::sync::Mutex::new(out.chunks_mut(per * size).enumerate());
        let run = || loop {
            let next = work.lock().unwrap_or_else(|e| e.into_inner()).next();
            let Some((k, chunk)) = next else { break };
            self.fill_from(dtype, chunk, k * per);
        };
        std::thread::scope(|s| {
            for _ in 1..parts {
                // a thread that cannot start leaves its ranges to the others (this one at least)
                if std::thread::Builder::new().spawn_scoped(s, run).is_err() {
                    break;
                }
            }
            run();
        });
        out
    }

    /// The most threads [`Fill::generate_threads`] uses for `elements` elements.
    pub fn useful_threads(elements: usize) -> usize {
        (elements / PAR_MIN_ELEMENTS).max(1)
    }

    /// Fills `out` with elements `first`, `first + 1`, ... of this fill.
    fn fill_from(&self, dtype: DType, out: &mut [u8], first: usize) {
        let size = dtype.size();
        // the generator state just before draw `first`
        let skip = |seed: u64| seed.wrapping_add(GAMMA.wrapping_mul(first as u64));
        match *self {
            Fill::Zeros => out.fill(0),
            Fill::Ones => {
                let mut one = [0u8; 8];
                dtype.encode_int(1, &mut one[..size]);
                for chunk in out.chunks_exact_mut(size) {
                    chunk.copy_from_slice(&one[..size]);
                }
            }
            Fill::Iota => {
                for (i, chunk) in out.chunks_exact_mut(size).enumerate() {
                    dtype.encode_int((first + i) as i128, chunk);
                }
            }
            Fill::Random { seed, low, high } => {
                let span = high - low;
                let state = skip(seed);
                // whole blocks of draws computed lane-parallel (block.rs), the rest one by one
                let done = block::fill(dtype, out, state, low, span);
                let mut rng = SplitMix64::new(state.wrapping_add(GAMMA.wrapping_mul(done as u64)));
                let next = move || low + span * unit_f64(rng.next());
                encode_each(dtype, &mut out[done * size..], next);
            }
            Fill::RandomInt { seed, low, high } => {
                let mut rng = SplitMix64::new(skip(seed));
                let span = (high - low).max(0) as u128;
                for chunk in out.chunks_exact_mut(size) {
                    let k = ((rng.next() as u128 * span) >> 64) as i128;
                    dtype.encode_int(low + k, chunk);
                }
            }
        }
    }
}

/// The uniform f64 in [0, 1) of one SplitMix64 output: `(z >> 11) * 2^-53`. The shifted value
/// is below 2^53, so converting it as an `i64` gives the same f64 as the `u64` conversion in one
/// instruction (`u64 as f64` is a dozen on x86-64 without AVX-512).
#[inline(always)]
pub(crate) fn unit_f64(z: u64) -> f64 {
    ((z >> 11) as i64) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `ieee_narrow` for results in the normal range only (one unsigned range check instead of
/// three branches): `None` for zeros, subnormal and overflowing results, infinities and NaN,
/// which the caller sends down the general path. Same rounding (nearest even on the dropped
/// bits), so the same bits wherever it answers (test `narrow_normal_equals_ieee_narrow`).
#[inline(always)]
pub(crate) fn narrow_normal<const E: u32, const M: u32>(x: f64) -> Option<u16> {
    let b = x.to_bits();
    let a = b & !(1u64 << 63);
    let bias = (1u64 << (E - 1)) - 1;
    // [2^(1 - bias), 2^(bias + 1)): a normal result or one that rounds up to the largest
    // finite value's successor (the rounding below carries into the infinity encoding then,
    // as ieee_narrow's does)
    let lo = (1024 - bias) << 52;
    let hi = (1024 + bias) << 52;
    if a.wrapping_sub(lo) >= hi - lo {
        return None;
    }
    let v = a - ((1023 - bias) << 52);
    let sh = 52 - M;
    let r = (v + ((1u64 << (sh - 1)) - 1) + ((v >> sh) & 1)) >> sh;
    Some((((b >> 63) << (E + M)) | r) as u16)
}

/// Writes `next()` encoded as `dtype` into each element of `out`, with the dtype matched once
/// (a loop per common float type, the finite f16/bf16 values through the one-step narrowing)
/// instead of once per element; the bytes are those of `DType::encode_f64` element by element.
fn encode_each(dtype: DType, out: &mut [u8], mut next: impl FnMut() -> f64) {
    fn each<const N: usize>(out: &mut [u8], mut v: impl FnMut() -> [u8; N]) {
        for c in out.chunks_exact_mut(N) {
            c.copy_from_slice(&v());
        }
    }
    fn narrow16<const E: u32, const M: u32>(dtype: DType, x: f64) -> [u8; 2] {
        if let Some(bits) = narrow_normal::<E, M>(x) {
            return bits.to_le_bytes();
        }
        match crate::dtype::ieee_narrow::<E, M>(x) {
            Some(bits) => (bits as u16).to_le_bytes(),
            None => {
                let mut b = [0u8; 2];
                dtype.encode_f64(x, &mut b);
                b
            }
        }
    }
    match dtype {
        DType::F64 => each(out, || next().to_le_bytes()),
        DType::F32 => each(out, || (next() as f32).to_le_bytes()),
        DType::F16 => each(out, || narrow16::<5, 10>(dtype, next())),
        DType::BF16 => each(out, || narrow16::<8, 7>(dtype, next())),
        _ => {
            for chunk in out.chunks_exact_mut(dtype.size()) {
                dtype.encode_f64(next(), chunk);
            }
        }
    }
}

/// Random fills computed a block of draws at a time: draw `i` of a seed is
/// `mix(seed + (i + 1) * GAMMA)`, so the draws of a block are independent and each step of the
/// recipe (SplitMix64, the unit f64, `low + span * u`, the narrowing) runs as one loop over the
/// block's lanes, which LLVM vectorises (detected at run time: with AVX-512, eight 64-bit lanes
/// per instruction and one `vpmullq` per multiply; with AVX2, four lanes, the 64-bit multiplies
/// as `vpmuludq` triples). Every lane computes the same IEEE
/// operations as the one-by-one path, so the bytes are the same (tests
/// `block_fill_equals_the_draw_by_draw_definition` and `random_floats_match_numpy`).
mod block {
    use super::{mix, GAMMA};
    use crate::dtype::DType;

    /// Draws per block.
    const B: usize = 8;

    /// The unit f64 of `unit_f64` without a 64-bit integer conversion (none exists below
    /// AVX-512): `x = z >> 11 < 2^53` is split in two halves below 2^27, each made exact f64
    /// by the 2^52 exponent trick, and recombined exactly (`hi * 2^26 + lo < 2^53`).
    #[inline(always)]
    fn unit_split(z: u64) -> f64 {
        const TWO52: u64 = 0x4330_0000_0000_0000;
        let x = z >> 11;
        let hi = f64::from_bits(TWO52 | (x >> 26)) - f64::from_bits(TWO52);
        let lo = f64::from_bits(TWO52 | (x & ((1 << 26) - 1))) - f64::from_bits(TWO52);
        (hi * 67_108_864.0 + lo) * (1.0 / (1u64 << 53) as f64)
    }

    /// `low + span * u` of the `B` draws after `state`.
    #[inline(always)]
    fn values(state: u64, low: f64, span: f64) -> [f64; B] {
        let mut z = [0u64; B];
        for (j, z) in z.iter_mut().enumerate() {
            *z = mix(state.wrapping_add(GAMMA.wrapping_mul(j as u64 + 1)));
        }
        let mut x = [0f64; B];
        for j in 0..B {
            x[j] = low + span * unit_split(z[j]);
        }
        x
    }

    /// `narrow_normal` of every lane without a branch: the bits, and whether every lane was in
    /// the normal range (else the caller redoes the block through the general path).
    #[inline(always)]
    fn narrow_block<const E: u32, const M: u32>(x: &[f64; B]) -> ([u16; B], bool) {
        let bias = (1u64 << (E - 1)) - 1;
        let (lo, hi) = ((1024 - bias) << 52, (1024 + bias) << 52);
        let sh = 52 - M;
        let mut r = [0u16; B];
        let mut bad = 0u64;
        for j in 0..B {
            let b = x[j].to_bits();
            let a = b & !(1u64 << 63);
            bad |= (a.wrapping_sub(lo) >= hi - lo) as u64;
            let v = a.wrapping_sub((1023 - bias) << 52);
            let m = (v
                .wrapping_add((1u64 << (sh - 1)) - 1)
                .wrapping_add((v >> sh) & 1))
                >> sh;
            r[j] = (((b >> 63) << (E + M)) | m) as u16;
        }
        (r, bad == 0)
    }

    #[inline(always)]
    fn fill16<const E: u32, const M: u32>(
        dtype: DType,
        out: &mut [u8],
        seed: u64,
        low: f64,
        span: f64,
    ) -> usize {
        let mut state = seed;
        let mut n = 0;
        for c in out.chunks_exact_mut(2 * B) {
            let x = values(state, low, span);
            let (bits, normal) = narrow_block::<E, M>(&x);
            if normal {
                for (o, b) in c.chunks_exact_mut(2).zip(bits) {
                    o.copy_from_slice(&b.to_le_bytes());
                }
            } else {
                // zeros, subnormals, overflow: the general narrowing, lane by lane
                for (o, &v) in c.chunks_exact_mut(2).zip(&x) {
                    dtype.encode_f64(v, o);
                }
            }
            state = state.wrapping_add(GAMMA.wrapping_mul(B as u64));
            n += B;
        }
        n
    }

    #[inline(always)]
    fn fill32(out: &mut [u8], seed: u64, low: f64, span: f64) -> usize {
        let mut state = seed;
        let mut n = 0;
        for c in out.chunks_exact_mut(4 * B) {
            let x = values(state, low, span);
            for (o, v) in c.chunks_exact_mut(4).zip(x) {
                o.copy_from_slice(&(v as f32).to_le_bytes());
            }
            state = state.wrapping_add(GAMMA.wrapping_mul(B as u64));
            n += B;
        }
        n
    }

    /// One body, compiled for baseline x86-64, with AVX2 and with AVX-512 enabled.
    #[inline(always)]
    fn body(dtype: DType, out: &mut [u8], seed: u64, low: f64, span: f64) -> usize {
        match dtype {
            DType::F16 => fill16::<5, 10>(dtype, out, seed, low, span),
            DType::BF16 => fill16::<8, 7>(dtype, out, seed, low, span),
            DType::F32 => fill32(out, seed, low, span),
            _ => 0,
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn body_avx2(dtype: DType, out: &mut [u8], seed: u64, low: f64, span: f64) -> usize {
        body(dtype, out, seed, low, span)
    }

    /// With AVX-512 (F, DQ, VL): SplitMix64's 64-bit multiplies are one `vpmullq` each, where
    /// AVX2 has none and builds each from three 32-bit multiplies and the shifts and adds
    /// between them.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
    unsafe fn body_avx512(dtype: DType, out: &mut [u8], seed: u64, low: f64, span: f64) -> usize {
        body(dtype, out, seed, low, span)
    }

    /// Fills whole blocks of `out` (f16, bf16, f32; nothing for other dtypes) and returns how
    /// many elements it wrote, from the start.
    pub(super) fn fill(dtype: DType, out: &mut [u8], seed: u64, low: f64, span: f64) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            // SAFETY: the CPU has these features (checked just above)
            return unsafe { body_avx512(dtype, out, seed, low, span) };
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above)
            return unsafe { body_avx2(dtype, out, seed, low, span) };
        }
        body(dtype, out, seed, low, span)
    }

    /// The baseline body alone (tests compare both code paths).
    #[cfg(test)]
    pub(super) fn fill_baseline(
        dtype: DType,
        out: &mut [u8],
        seed: u64,
        low: f64,
        span: f64,
    ) -> usize {
        body(dtype, out, seed, low, span)
    }

    /// The AVX2 body alone where the CPU has AVX2 (`fill` prefers AVX-512 where it exists, so
    /// without this the AVX2 body would go untested on such machines).
    #[cfg(test)]
    pub(super) fn fill_avx2(
        dtype: DType,
        out: &mut [u8],
        seed: u64,
        low: f64,
        span: f64,
    ) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above)
            return Some(unsafe { body_avx2(dtype, out, seed, low, span) });
        }
        None
    }

    #[cfg(test)]
    #[test]
    fn unit_split_equals_unit_f64() {
        let mut s = 3u64;
        for z in [0, !0, 1 << 11, (1 << 37) - 1, 1 << 63] {
            assert_eq!(unit_split(z).to_bits(), super::unit_f64(z).to_bits());
        }
        for _ in 0..100_000 {
            s = s.wrapping_add(GAMMA);
            let z = mix(s);
            assert_eq!(unit_split(z).to_bits(), super::unit_f64(z).to_bits());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_reference_values() {
        // Reference outputs of SplitMix64 seeded with 1234567 (from the published C code).
        let mut r = SplitMix64::new(1234567);
        let got: Vec<u64> = (0..5).map(|_| r.next()).collect();
        assert_eq!(
            got,
            [
                6457827717110365317,
                3203168211198807973,
                9817491932198370423,
                4593380528125082431,
                16408922859458223821
            ]
        );
    }

    /// `random = {seed, low, high}` is a contract with other front ends: values computed
    /// independently with Python integers (SplitMix64) and numpy's f64 → f16/f32 casts
    /// (`np.array(low + (high - low) * ((z >> 11) * 2.0**-53)).astype(np.float16)`).
    #[test]
    fn random_floats_match_numpy() {
        fn words(dtype: DType, seed: u64, low: f64, high: f64, n: usize) -> Vec<u64> {
            let b = Fill::Random { seed, low, high }.generate(dtype, n);
            b.chunks(dtype.size())
                .map(|c| c.iter().rev().fold(0u64, |acc, &x| acc << 8 | x as u64))
                .collect()
        }
        assert_eq!(
            words(DType::F16, 1, -1.0, 1.0, 6),
            [0x3043, 0x37dd, 0x3b89, 0xaf1f, 0xaf22, 0x3835]
        );
        assert_eq!(
            words(DType::F16, 2, -1.0, 1.0, 6),
            [0x31d6, 0x37f9, 0x321f, 0x383f, 0xb607, 0xb4e8]
        );
        assert_eq!(words(DType::F16, 1, -1.0, 1.0, 100_001)[100_000], 0xac23);
        // subnormal f16 results
        assert_eq!(
            words(DType::F16, 3, -1e-4, 1e-4, 6),
            [0x8511, 0x2a0, 0x17b, 0x8599, 0x83b7, 0x1c9]
        );
        assert_eq!(
            words(DType::F32, 7, -3.0, 5.0, 6),
            [0x3df2f879, 0xc0376786, 0x40869841, 0x3fd4ebae, 0x3f1e99db, 0xbf809506]
        );
        // every float dtype: the per-dtype loop gives encode_f64's bytes element by element
        for dtype in [
            DType::F64,
            DType::F32,
            DType::F16,
            DType::BF16,
            DType::Fp8E4M3,
            DType::Fp8E5M2,
        ] {
            let (low, high) = (-1e5, 3e5); // beyond f16/fp8 range: overflow to inf / NaN too
            let got = Fill::Random { seed: 5, low, high }.generate(dtype, 4096);
            let mut rng = SplitMix64::new(5);
            let mut want = vec![0u8; got.len()];
            for c in want.chunks_exact_mut(dtype.size()) {
                let u = (rng.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                dtype.encode_f64(low + (high - low) * u, c);
            }
            assert_eq!(got, want, "{dtype}");
        }
    }

    #[test]
    fn block_fill_equals_the_draw_by_draw_definition() {
        // ranges inside the normal range, across zero (subnormal and zero results), beyond
        // f16's range (overflow), odd lengths (a scalar tail), for each dtype with a block path
        let cases = [
            (-1.0, 1.0),
            (-1e-4, 1e-4),
            (0.5, 0.75),
            (-1e5, 3e5),
            (-7e4, -6e4),
            (0.0, 1e-30),
        ];
        for dtype in [DType::F16, DType::BF16, DType::F32, DType::F64] {
            for (k, &(low, high)) in cases.iter().enumerate() {
                for n in [0usize, 1, 7, 8, 9, 1000, 4099] {
                    let seed = 17 + k as u64;
                    let got = Fill::Random { seed, low, high }.generate(dtype, n);
                    let mut rng = SplitMix64::new(seed);
                    let mut want = vec![0u8; n * dtype.size()];
                    for c in want.chunks_exact_mut(dtype.size()) {
                        let u = (rng.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                        dtype.encode_f64(low + (high - low) * u, c);
                    }
                    assert_eq!(got, want, "{dtype} [{low}, {high}) n {n}");
                    // the baseline (non-SIMD) body gives the same bytes
                    let mut base = vec![0u8; n * dtype.size()];
                    let done = block::fill_baseline(dtype, &mut base, seed, low, high - low);
                    let sz = dtype.size();
                    assert_eq!(base[..done * sz], want[..done * sz], "{dtype} baseline");
                    // and so does the AVX2 body (`generate` took AVX-512 where the CPU has it)
                    let mut avx2 = vec![0u8; n * sz];
                    if let Some(done) = block::fill_avx2(dtype, &mut avx2, seed, low, high - low) {
                        assert_eq!(avx2[..done * sz], want[..done * sz], "{dtype} avx2");
                    }
                }
            }
        }
    }

    #[test]
    fn narrow_normal_equals_ieee_narrow() {
        // every f16/bf16 boundary: around each power of two, ties and near-ties, the normal
        // range's ends, plus random doubles of every magnitude
        let mut xs = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            1e-300,
        ];
        for e in -140..140 {
            let p = 2f64.powi(e);
            for m in [
                1.0,
                1.5,
                1.0 + 2f64.powi(-11),
                1.0 + 2f64.powi(-8),
                1.999_999_9,
            ] {
                for d in [-1e-12, 0.0, 1e-12] {
                    xs.push(p * m * (1.0 + d));
                    xs.push(-p * m * (1.0 + d));
                }
            }
        }
        xs.extend([
            65504.0,
            65519.999,
            65520.0,
            65536.0,
            6.103_515_625e-5,
            6.1e-5,
        ]);
        let mut rng = SplitMix64::new(11);
        for _ in 0..100_000 {
            let z = rng.next();
            xs.push(f64::from_bits(z & 0xc7ff_ffff_ffff_ffff));
        }
        for &x in &xs {
            if let Some(h) = narrow_normal::<5, 10>(x) {
                assert_eq!(
                    Some(h as u64),
                    crate::dtype::ieee_narrow::<5, 10>(x),
                    "f16 {x:e}"
                );
            }
            if let Some(h) = narrow_normal::<8, 7>(x) {
                assert_eq!(
                    Some(h as u64),
                    crate::dtype::ieee_narrow::<8, 7>(x),
                    "bf16 {x:e}"
                );
            }
        }
        assert_eq!(narrow_normal::<5, 10>(1.0), Some(0x3c00));
        assert_eq!(narrow_normal::<5, 10>(0.0), None);
    }

    #[test]
    fn unit_f64_equals_the_u64_conversion() {
        for z in [0, 1 << 11, !0, 0x8000_0000_0000_0000, 0x7fff_ffff_ffff_f800] {
            assert_eq!(unit_f64(z), (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64));
        }
    }

    #[test]
    fn random_ints_stay_in_range_and_cover_it() {
        let bytes = Fill::RandomInt {
            seed: 7,
            low: -3,
            high: 4,
        }
        .generate(DType::I8, 1000);
        let vals: Vec<i8> = bytes.iter().map(|&b| b as i8).collect();
        assert!(vals.iter().all(|&v| (-3..4).contains(&v)));
        for v in -3..4 {
            assert!(vals.contains(&v), "{v} never drawn");
        }
    }

    /// Threaded fills against the serial one: every fill kind, dtypes of each width, lengths
    /// that split unevenly (tails inside and after a block), more threads than ranges. Also
    /// against the draw-by-draw definition across range boundaries, so a range that restarts
    /// the sequence (or skips a draw) cannot pass by being equally wrong in both paths.
    #[test]
    fn threaded_fill_equals_the_serial_one() {
        let fills = [
            Fill::Zeros,
            Fill::Ones,
            Fill::Iota,
            Fill::Random {
                seed: 1,
                low: -1.0,
                high: 1.0,
            },
            Fill::Random {
                seed: 9,
                low: -1e-4,
                high: 1e5,
            },
            Fill::RandomInt {
                seed: 3,
                low: -100,
                high: 1 << 40,
            },
        ];
        let dtypes = [
            DType::F16,
            DType::BF16,
            DType::F32,
            DType::F64,
            DType::I8,
            DType::I64,
        ];
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        for fill in &fills {
            for dtype in dtypes {
                let int_fill = matches!(fill, Fill::RandomInt { .. });
                if int_fill == dtype.is_float() {
                    continue;
                }
                for n in [
                    PAR_MIN_ELEMENTS * 3 - 1,
                    PAR_MIN_ELEMENTS * 3 + 13,
                    PAR_MIN_ELEMENTS * 2,
                ] {
                    let serial = fill.generate(dtype, n);
                    for threads in [2, 3, 5, 64] {
                        let got = fill.generate_threads(dtype, n, threads);
                        assert!(got == serial, "{fill:?} {dtype} n {n} threads {threads}");
                        // the same ranges as tasks of the rayon pool it is called from, into
                        // memory that held other bytes (the pool path does not start from a
                        // zeroed block: a range it left unwritten shows as 0xA5)
                        let got = pool.install(|| {
                            drop(std::hint::black_box(vec![0xA5u8; serial.len()]));
                            fill.generate_threads(dtype, n, threads)
                        });
                        assert!(got == serial, "{fill:?} {dtype} n {n} in a pool, {threads}");
                    }
                }
            }
        }
        let n = PAR_MIN_ELEMENTS * 4 + 5;
        let (seed, low, high) = (42, -2.0, 3.0);
        let got = Fill::Random { seed, low, high }.generate_threads(DType::F32, n, 4);
        let mut rng = SplitMix64::new(seed);
        for (i, c) in got.chunks_exact(4).enumerate() {
            let u = (rng.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            let want = ((low + (high - low) * u) as f32).to_le_bytes();
            assert_eq!(c, want, "element {i}");
        }
    }

    #[test]
    fn iota_wraps_for_small_ints() {
        let b = Fill::Iota.generate(DType::U8, 300);
        assert_eq!(b[255], 255);
        assert_eq!(b[256], 0);
        assert_eq!(b[299], 43);
    }
}
