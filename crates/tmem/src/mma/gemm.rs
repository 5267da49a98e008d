//! The f32 GEMM under the MMA's fast path: `C ← α·A·B + β·C` with `α = ±1`, `β ∈ {0, 1}`.
//!
//! `matrixmultiply` copies ("packs") both operands into its own strips before every product.
//! Here the operands are the MMA's gathered panels, which tmemu has just written in an order of
//! its choosing, so for a B whose columns are contiguous (an MN-major B, gathered K by rows) the
//! copy buys nothing: the micro-kernel broadcasts A's elements from wherever they lie and loads
//! 16 of B's columns in one vector. Measured on 128 × 128 × 256 (one fused panel block,
//! AVX-512; docs/arch/perf.md, session 13): on an AMD Zen 4 core `matrixmultiply` 89-105 µs
//! against 74-83 µs here; on the Intel Xeon of the benchmark host the two are equal within
//! that machine's noise (63-116 against 60-114 µs), so nothing is lost where it does not gain.
//!
//! **The same bits as `matrixmultiply`**, so that which path runs never shows in a result:
//! both compute each output's products over one K block of [`KC`] (its `kc`) as one chain of
//! fused multiply-adds from zero in K order, then store its epilogue's `fma(α, ab, β·C)` (or
//! `α·ab` when β = 0, without reading C, which may hold anything); the next K block adds to C
//! with β = 1. Test `same_bits_as_matrixmultiply` holds this for both kernels on random
//! operands, signed zeros included.
//!
//! Anything else (B not column-contiguous, extents not multiples of the kernel's tile, a CPU
//! without FMA) goes to `matrixmultiply`, whose FMA kernels make the same sums.

/// K per block: `matrixmultiply`'s `kc` for f32 (`archparam::S_KC`), so a longer K splits where
/// its does.
const KC: usize = 256;

/// One f32 GEMM, `m × k` A times `k × n` B into `m × n` C (row stride `rsc`, unit column
/// stride). Element `(i, kk)` of A is at `a[i·rsa + kk·csa]`, `(kk, j)` of B at
/// `b[kk·rsb + j·csb]`.
///
/// # Safety
/// Every element those strides name for `i < m`, `kk < k`, `j < n` lies in its allocation,
/// C's are writable and do not overlap A or B, `alpha` is ±1 and `beta` is 0 or 1.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn sgemm(
    m: usize,
    k: usize,
    n: usize,
    alpha: f32,
    a: *const f32,
    rsa: usize,
    csa: usize,
    b: *const f32,
    rsb: usize,
    csb: usize,
    beta: f32,
    c: *mut f32,
    rsc: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if k > 0 && n.is_multiple_of(16) && (csb == 1 || rsb == 1) {
        let kernel = if m.is_multiple_of(16) && avx512_usable() {
            Some(Gemm::run_avx512 as unsafe fn(&Gemm))
        } else if m.is_multiple_of(4) && avx2_fma_usable() {
            Some(Gemm::run_avx2 as unsafe fn(&Gemm))
        } else {
            None
        };
        if let Some(kernel) = kernel {
            let mut g = Gemm {
                m,
                k,
                n,
                alpha,
                a,
                rsa,
                csa,
                b,
                rsb,
                accumulate: beta != 0.0,
                c,
                rsc,
            };
            if csb == 1 {
                // SAFETY: the kernel's features were checked; the extents are the caller's.
                return kernel(&g);
            }
            // A K-major B (`(kk, j)` at `b[kk + j·csb]`): transposed once into columns the
            // kernel loads 16 at a time. That is the half of matrixmultiply's packing the
            // kernel needs (A's elements are broadcast from where they lie).
            return B_COLUMNS.with(|t| {
                let mut t = t.borrow_mut();
                let t = transpose_k_major(b, csb, k, n, &mut t);
                (g.b, g.rsb) = (t.as_ptr(), n);
                // SAFETY: as above; `t` holds the k × n B with row stride n.
                kernel(&g)
            });
        }
    }
    matrixmultiply::sgemm(
        m,
        k,
        n,
        alpha,
        a,
        rsa as isize,
        csa as isize,
        b,
        rsb as isize,
        csb as isize,
        beta,
        c,
        rsc as isize,
        1,
    );
}

#[cfg(target_arch = "x86_64")]
thread_local! {
    /// A K-major B transposed for the kernels (at most 256 × 256 floats: a fused panel's K
    /// block times the largest N).
    static B_COLUMNS: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `t[kk·n + j] = b[kk + j·csb]` for `kk < k`, `j < n` (n a multiple of 8), `t` the returned
/// part of `out`, which starts at a 64-byte boundary (whole-line vector loads): eight rows of
/// the K-major B read side by side, so both the reads and the 8-float writes stay sequential.
///
/// # Safety
/// Every `b[kk + j·csb]` named lies in its allocation.
#[cfg(target_arch = "x86_64")]
unsafe fn transpose_k_major(
    b: *const f32,
    csb: usize,
    k: usize,
    n: usize,
    out: &mut Vec<f32>,
) -> &[f32] {
    out.clear();
    out.resize(k * n + 16, 0.0);
    let off = out.as_ptr().align_offset(64);
    let out = &mut out[off..off + k * n];
    for j0 in (0..n).step_by(8) {
        let rows: [*const f32; 8] = std::array::from_fn(|jj| b.add((j0 + jj) * csb));
        for kk in 0..k {
            let dst = &mut out[kk * n + j0..kk * n + j0 + 8];
            for (d, r) in dst.iter_mut().zip(rows) {
                *d = *r.add(kk);
            }
        }
    }
    out
}

#[cfg(target_arch = "x86_64")]
fn avx512_usable() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

#[cfg(target_arch = "x86_64")]
fn avx2_fma_usable() -> bool {
    std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
}

/// A GEMM whose B has unit column stride (see [`sgemm`]).
#[cfg(target_arch = "x86_64")]
struct Gemm {
    m: usize,
    k: usize,
    n: usize,
    /// ±1.
    alpha: f32,
    a: *const f32,
    rsa: usize,
    csa: usize,
    b: *const f32,
    rsb: usize,
    /// β = 1 (else 0: C is only written).
    accumulate: bool,
    c: *mut f32,
    rsc: usize,
}

#[cfg(target_arch = "x86_64")]
impl Gemm {
    /// 16 × 16 tiles in sixteen 512-bit accumulators. Per K block, a 16-column strip of B
    /// (16 KiB at K = 256) stays in L1 while every 16-row strip of A passes by it.
    #[target_feature(enable = "avx512f")]
    unsafe fn run_avx512(&self) {
        use std::arch::x86_64::*;
        let s = self;
        for k0 in (0..s.k).step_by(KC) {
            let kc = KC.min(s.k - k0);
            let add = s.accumulate || k0 > 0;
            for j0 in (0..s.n).step_by(16) {
                let bp = s.b.add(k0 * s.rsb + j0);
                for i0 in (0..s.m).step_by(16) {
                    let ap = s.a.add(i0 * s.rsa + k0 * s.csa);
                    let mut acc = [_mm512_setzero_ps(); 16];
                    for kk in 0..kc {
                        let bv = _mm512_loadu_ps(bp.add(kk * s.rsb));
                        let ak = ap.add(kk * s.csa);
                        for (i, acc) in acc.iter_mut().enumerate() {
                            *acc = _mm512_fmadd_ps(_mm512_set1_ps(*ak.add(i * s.rsa)), bv, *acc);
                        }
                    }
                    let alpha = _mm512_set1_ps(s.alpha);
                    for (i, &ab) in acc.iter().enumerate() {
                        let cp = s.c.add((i0 + i) * s.rsc + j0);
                        // matrixmultiply's epilogue, operation for operation
                        let v = if add {
                            let cv = _mm512_mul_ps(_mm512_loadu_ps(cp), _mm512_set1_ps(1.0));
                            _mm512_fmadd_ps(alpha, ab, cv)
                        } else {
                            _mm512_mul_ps(alpha, ab)
                        };
                        _mm512_storeu_ps(cp, v);
                    }
                }
            }
        }
    }

    /// 4 × 16 tiles in eight 256-bit accumulators (two per row). The loops are
    /// [`Gemm::run_avx512`]'s with another tile: each kernel is a function of its own so that
    /// every intrinsic in it is compiled with its target features.
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run_avx2(&self) {
        use std::arch::x86_64::*;
        let s = self;
        for k0 in (0..s.k).step_by(KC) {
            let kc = KC.min(s.k - k0);
            let add = s.accumulate || k0 > 0;
            for j0 in (0..s.n).step_by(16) {
                let bp = s.b.add(k0 * s.rsb + j0);
                for i0 in (0..s.m).step_by(4) {
                    let ap = s.a.add(i0 * s.rsa + k0 * s.csa);
                    let mut acc = [[_mm256_setzero_ps(); 2]; 4];
                    for kk in 0..kc {
                        let b0 = _mm256_loadu_ps(bp.add(kk * s.rsb));
                        let b1 = _mm256_loadu_ps(bp.add(kk * s.rsb + 8));
                        let ak = ap.add(kk * s.csa);
                        for (i, acc) in acc.iter_mut().enumerate() {
                            let av = _mm256_set1_ps(*ak.add(i * s.rsa));
                            acc[0] = _mm256_fmadd_ps(av, b0, acc[0]);
                            acc[1] = _mm256_fmadd_ps(av, b1, acc[1]);
                        }
                    }
                    let alpha = _mm256_set1_ps(s.alpha);
                    for (i, row) in acc.iter().enumerate() {
                        for (h, &ab) in row.iter().enumerate() {
                            let cp = s.c.add((i0 + i) * s.rsc + j0 + 8 * h);
                            // matrixmultiply's epilogue, operation for operation
                            let v = if add {
                                let cv = _mm256_mul_ps(_mm256_loadu_ps(cp), _mm256_set1_ps(1.0));
                                _mm256_fmadd_ps(alpha, ab, cv)
                            } else {
                                _mm256_mul_ps(alpha, ab)
                            };
                            _mm256_storeu_ps(cp, v);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Which kernel a case runs on.
    #[derive(Clone, Copy, Debug)]
    enum Path {
        Avx512,
        Avx2,
        /// [`sgemm`] itself with a K-major B (transposed, then whichever kernel it picks).
        KMajorB,
    }

    /// Operands in either order with a padded leading dimension, random bits of every
    /// exponent the MMA produces (products of f16 values and their sums), C full of junk
    /// (NaN included) where β = 0 must not read it.
    #[allow(clippy::too_many_arguments)]
    fn case(
        path: Path,
        m: usize,
        n: usize,
        k: usize,
        a_rows: bool,
        pad: usize,
        zeros: u64,
        seed: u64,
    ) {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut value = |scale: i32| {
            let z = next();
            if z % zeros == 0 {
                // zeros of both signs: the epilogue's sign of zero must match too
                return if z & 32 == 0 { 0.0 } else { -0.0 };
            }
            let mantissa = (z >> 40) as f32 / (1u64 << 24) as f32 + 0.5;
            let sign = if z & 1 == 1 { -1.0 } else { 1.0 };
            sign * mantissa * 2f32.powi((z >> 8) as i32 % scale)
        };
        let (rsa, csa, alen) = if a_rows {
            (k + pad, 1, m * (k + pad))
        } else {
            (1, m + pad, k * (m + pad))
        };
        let a: Vec<f32> = (0..alen).map(|_| value(12)).collect();
        let (rsb, csb) = match path {
            Path::KMajorB => (1, k + pad),
            _ => (n + pad, 1),
        };
        let b: Vec<f32> = (0..k.max(n) * (k.max(n) + pad))
            .map(|_| value(12))
            .collect();
        let rsc = n + 8;
        for (alpha, beta) in [(1.0, 1.0), (-1.0, 1.0), (1.0, 0.0), (-1.0, 0.0)] {
            let c0: Vec<f32> = (0..m * rsc)
                .map(|i| match (beta == 0.0, i % 7) {
                    (true, 0) => f32::NAN,
                    _ => value(20),
                })
                .collect();
            let (mut want, mut got) = (c0.clone(), c0.clone());
            let g = Gemm {
                m,
                k,
                n,
                alpha,
                a: a.as_ptr(),
                rsa,
                csa,
                b: b.as_ptr(),
                rsb,
                accumulate: beta != 0.0,
                c: got.as_mut_ptr(),
                rsc,
            };
            // SAFETY: the extents above; the features are checked by the caller.
            unsafe {
                match path {
                    Path::Avx512 => g.run_avx512(),
                    Path::Avx2 => g.run_avx2(),
                    Path::KMajorB => sgemm(
                        m,
                        k,
                        n,
                        alpha,
                        a.as_ptr(),
                        rsa,
                        csa,
                        b.as_ptr(),
                        rsb,
                        csb,
                        beta,
                        got.as_mut_ptr(),
                        rsc,
                    ),
                }
                matrixmultiply::sgemm(
                    m,
                    k,
                    n,
                    alpha,
                    a.as_ptr(),
                    rsa as isize,
                    csa as isize,
                    b.as_ptr(),
                    rsb as isize,
                    csb as isize,
                    beta,
                    want.as_mut_ptr(),
                    rsc as isize,
                    1,
                );
            }
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&got),
                bits(&want),
                "{path:?} m {m} n {n} k {k} a_rows {a_rows} pad {pad} alpha {alpha} beta {beta}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Bit for bit what `matrixmultiply` computes, across K blocks (K up to 600 spans
        /// three of them), both A orders, padded and unpadded strides; with few K and many
        /// zero operands, sums that are zeros of either sign.
        #[test]
        fn same_bits_as_matrixmultiply(
            mt in 1usize..9, nt in 1usize..5,
            (k, zeros) in prop_oneof![(1usize..600, Just(16u64)), (1usize..4, Just(2u64))],
            a_rows: bool, pad in prop_oneof![Just(0usize), Just(16), 1usize..20], seed: u64,
        ) {
            if avx512_usable() {
                case(Path::Avx512, 16 * mt, 16 * nt, k, a_rows, pad, zeros, seed);
            }
            if avx2_fma_usable() {
                case(Path::Avx2, 4 * mt, 16 * nt, k, a_rows, pad, zeros, seed);
            }
            case(Path::KMajorB, 4 * mt, 16 * nt, k, a_rows, pad, zeros, seed);
        }
    }

    /// The dispatcher takes the fallback for what the kernels do not cover, with the same
    /// result as `matrixmultiply` called directly.
    #[test]
    fn fallback_shapes_match() {
        let (m, n, k) = (6, 12, 40);
        let a: Vec<f32> = (0..m * k).map(|i| (i % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| (i % 11) as f32 * 0.5).collect();
        let (mut got, mut want) = (vec![1.0f32; m * n], vec![1.0f32; m * n]);
        // SAFETY: extents as allocated; B column-major here (csb = k) to force the fallback.
        unsafe {
            sgemm(
                m,
                k,
                n,
                -1.0,
                a.as_ptr(),
                k,
                1,
                b.as_ptr(),
                1,
                k,
                1.0,
                got.as_mut_ptr(),
                n,
            );
            matrixmultiply::sgemm(
                m,
                k,
                n,
                -1.0,
                a.as_ptr(),
                k as isize,
                1,
                b.as_ptr(),
                1,
                k as isize,
                1.0,
                want.as_mut_ptr(),
                n as isize,
                1,
            );
        }
        assert_eq!(got, want);
    }
}
