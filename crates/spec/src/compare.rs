//! Comparing an output buffer with a reference array, with numpy's `isclose` semantics.

use crate::dtype::DType;
use crate::npy::{NpyArray, NpyElem};

/// The outcome of comparing `actual` with `expected` element by element.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub elements: usize,
    /// Largest |actual − expected| over elements where both are finite (0 when none).
    pub max_abs_err: f64,
    /// Largest |actual − expected| / |expected| over elements where both are finite and
    /// expected ≠ 0 (0 when none).
    pub max_rel_err: f64,
    /// Number of elements that are not close.
    pub mismatches: usize,
    /// Flat (C-order) index of the first element that is not close.
    pub first_mismatch_index: Option<usize>,
    /// (actual, expected) at `first_mismatch_index`.
    pub first_mismatch_values: Option<(f64, f64)>,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }

    /// One line for reports, with the first mismatch as a multi-index of `shape`, e.g.
    /// `3 of 16384 elements differ; first at [0, 5]: actual 1.5, expected 1.25; max abs err 0.25, max rel err 0.2`.
    pub fn summary(&self, shape: &[usize]) -> String {
        let errs = format!(
            "max abs err {}, max rel err {}",
            self.max_abs_err, self.max_rel_err
        );
        match (self.first_mismatch_index, self.first_mismatch_values) {
            (Some(i), Some((a, e))) => format!(
                "{} of {} elements differ; first at {:?}: actual {a}, expected {e}; {errs}",
                self.mismatches,
                self.elements,
                unravel_index(i, shape)
            ),
            _ => format!("all {} elements match; {errs}", self.elements),
        }
    }
}

/// The C-order multi-index of flat index `i` in `shape` (numpy `unravel_index`).
pub fn unravel_index(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (slot, &d) in idx.iter_mut().zip(shape).rev() {
        if d > 0 {
            *slot = i % d;
            i /= d;
        }
    }
    idx
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("the reference has {expected} elements, the buffer has {actual}")]
    Length { expected: usize, actual: usize },
    #[error("the reference holds raw {0}-byte values whose type is unknown; give it a numeric dtype or one of the buffer's width")]
    UntypedReference(usize),
}

/// numpy `isclose(actual, expected, rtol, atol, equal_nan=True)` for one pair:
/// |a − e| <= atol + rtol·|e|; NaN matches only NaN; an infinity matches only itself.
pub fn is_close(actual: f64, expected: f64, rtol: f64, atol: f64) -> bool {
    if actual.is_nan() || expected.is_nan() {
        return actual.is_nan() && expected.is_nan();
    }
    if actual.is_infinite() || expected.is_infinite() {
        return actual == expected;
    }
    (actual - expected).abs() <= atol + rtol * expected.abs()
}

/// Compares `actual_bytes` (elements of `dtype`, little-endian) with `expected`.
///
/// A reference of raw void elements, or of the unsigned type of the buffer's width when the
/// buffer is bf16 / fp8, is read as bit patterns of `dtype`; any other numeric reference is
/// compared by value (e.g. an f32 reference for an f16 output).
pub fn compare(
    expected: &NpyArray,
    actual_bytes: &[u8],
    dtype: DType,
    rtol: f64,
    atol: f64,
) -> Result<Comparison, CompareError> {
    let ref_type = match expected.elem {
        e if e.fits(dtype) => dtype,
        NpyElem::Typed(t) => t,
        NpyElem::Void(w) => return Err(CompareError::UntypedReference(w)),
    };
    let n = actual_bytes.len() / dtype.size();
    let expected_n = expected.data.len() / ref_type.size();
    if n != expected_n || !actual_bytes.len().is_multiple_of(dtype.size()) {
        return Err(CompareError::Length {
            expected: expected_n,
            actual: n,
        });
    }
    let mut c = Comparison {
        elements: n,
        max_abs_err: 0.0,
        max_rel_err: 0.0,
        mismatches: 0,
        first_mismatch_index: None,
        first_mismatch_values: None,
    };
    let pairs = actual_bytes
        .chunks_exact(dtype.size())
        .zip(expected.data.chunks_exact(ref_type.size()));
    for (i, (a, e)) in pairs.enumerate() {
        let a = dtype.decode_f64(a);
        let e = ref_type.decode_f64(e);
        if a.is_finite() && e.is_finite() {
            let abs = (a - e).abs();
            c.max_abs_err = c.max_abs_err.max(abs);
            if e != 0.0 {
                c.max_rel_err = c.max_rel_err.max(abs / e.abs());
            }
        }
        if !is_close(a, e, rtol, atol) {
            c.mismatches += 1;
            if c.first_mismatch_index.is_none() {
                c.first_mismatch_index = Some(i);
                c.first_mismatch_values = Some((a, e));
            }
        }
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_array(v: &[f32]) -> NpyArray {
        NpyArray {
            elem: NpyElem::Typed(DType::F32),
            shape: vec![v.len()],
            data: v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    #[test]
    fn isclose_matches_numpy_rules() {
        assert!(is_close(1.0 + 1e-6, 1.0, 1e-5, 0.0));
        assert!(!is_close(1.0 + 1e-4, 1.0, 1e-5, 0.0));
        // asymmetric: tolerance scales with the expected value only
        assert!(is_close(0.0, 1e-9, 0.0, 1e-8));
        assert!(is_close(f64::NAN, f64::NAN, 0.0, 0.0));
        assert!(!is_close(f64::NAN, 1.0, 1.0, 1.0));
        assert!(is_close(f64::INFINITY, f64::INFINITY, 0.0, 0.0));
        assert!(!is_close(f64::INFINITY, f64::NEG_INFINITY, 1.0, 1.0));
        assert!(!is_close(1e300, f64::INFINITY, 1.0, 1.0));
    }

    #[test]
    fn reports_errors_and_first_mismatch() {
        let exp = f32_array(&[1.0, 2.0, 4.0, 0.0]);
        let act: Vec<u8> = [1.0f32, 2.5, 4.0, 0.5]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let c = compare(&exp, &act, DType::F32, 1e-3, 1e-3).unwrap();
        assert_eq!(c.mismatches, 2);
        assert_eq!(c.first_mismatch_index, Some(1));
        assert_eq!(c.max_abs_err, 0.5);
        assert_eq!(c.max_rel_err, 0.25);
        assert!(compare(&exp, &act[..8], DType::F32, 0.0, 0.0).is_err());
        assert_eq!(
            c.summary(&[2, 2]),
            "2 of 4 elements differ; first at [0, 1]: actual 2.5, expected 2; max abs err 0.5, max rel err 0.25"
        );
        assert_eq!(unravel_index(23, &[2, 3, 4]), [1, 2, 3]);
    }

    #[test]
    fn bf16_reference_as_u16_bits() {
        let exp = NpyArray {
            elem: NpyElem::Typed(DType::U16),
            shape: vec![2],
            data: [0x3F80u16, 0x4000]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
        };
        let act: Vec<u8> = [0x3F80u16, 0x4000]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let c = compare(&exp, &act, DType::BF16, 0.0, 0.0).unwrap();
        assert!(c.passed());
        // and by value against an f32 reference of 1.0, 2.0
        let c = compare(&f32_array(&[1.0, 2.0]), &act, DType::BF16, 0.0, 0.0).unwrap();
        assert!(c.passed());
    }
}
