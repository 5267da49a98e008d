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
                for chunk in out.chunks_exact_mut(size) {
                    let u = (rng.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
                    dtype.encode_f64(low + span * u, chunk);
                }
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
