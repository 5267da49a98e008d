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
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Fill {
    /// The bytes of `elements` elements of `dtype` filled this way.
    ///
    /// `Random` on an integer dtype draws floats and truncates them; specs use `RandomInt`
    /// for integer dtypes (the parser checks `low < high` and reports it with a position).
    pub fn generate(&self, dtype: DType, elements: usize) -> Vec<u8> {
        let size = dtype.size();
        let mut out = vec![0u8; elements * size];
        match *self {
            Fill::Zeros => {}
            Fill::Ones => {
                let mut one = [0u8; 8];
                dtype.encode_int(1, &mut one[..size]);
                for chunk in out.chunks_exact_mut(size) {
                    chunk.copy_from_slice(&one[..size]);
                }
            }
            Fill::Iota => {
                for (i, chunk) in out.chunks_exact_mut(size).enumerate() {
                    dtype.encode_int(i as i128, chunk);
                }
            }
            Fill::Random { seed, low, high } => {
                let mut rng = SplitMix64::new(seed);
                let span = high - low;
                let next = move || {
                    let u = (rng.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                    low + span * u
                };
                encode_each(dtype, &mut out, next);
            }
            Fill::RandomInt { seed, low, high } => {
                let mut rng = SplitMix64::new(seed);
                let span = (high - low).max(0) as u128;
                for chunk in out.chunks_exact_mut(size) {
                    let k = ((rng.next() as u128 * span) >> 64) as i128;
                    dtype.encode_int(low + k, chunk);
                }
            }
        }
        out
    }
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

    #[test]
    fn iota_wraps_for_small_ints() {
        let b = Fill::Iota.generate(DType::U8, 300);
        assert_eq!(b[255], 255);
        assert_eq!(b[256], 0);
        assert_eq!(b[299], 43);
    }
}
