//! `.npy` reading and writing (format versions 1.0, 2.0 and 3.0).
//!
//! Hand-written rather than npyz / ndarray-npy: we need the raw little-endian bytes plus the
//! header's `descr` string as written, because bf16 / fp8 arrive under descrs those crates do
//! not map to a Rust type: raw void (`|V2`, `<V1`), ml_dtypes' spellings (`float8_e5m2` is
//! saved as `<f1`, `bfloat16` as `<V2`, `float8_e4m3fn` as `<V1`), or same-width unsigned
//! integers. The format is a magic string, a length and a Python dict literal; ~200 lines.

use crate::dtype::DType;
use std::fmt::Write as _;

/// What an `.npy` file says its elements are.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NpyElem {
    /// A numeric type we know (including bf16/fp8 when named by ml_dtypes' names).
    Typed(DType),
    /// Raw bytes of this width (`|V2`, `<V1`): bit patterns of whatever the reader expects.
    Void(usize),
}

impl NpyElem {
    pub fn size(self) -> usize {
        match self {
            NpyElem::Typed(d) => d.size(),
            NpyElem::Void(w) => w,
        }
    }

    /// Whether an array of this element type may be used as a buffer of `want`: the same type,
    /// or for bf16 / fp8 their bit patterns as same-width unsigned integers or raw void.
    pub fn fits(self, want: DType) -> bool {
        match self {
            NpyElem::Typed(d) if d == want => true,
            NpyElem::Typed(DType::U16) | NpyElem::Void(2) => want == DType::BF16,
            NpyElem::Typed(DType::U8) | NpyElem::Void(1) => {
                matches!(want, DType::Fp8E4M3 | DType::Fp8E5M2)
            }
            _ => false,
        }
    }

    pub fn describe(self) -> String {
        match self {
            NpyElem::Typed(d) => d.name().to_string(),
            NpyElem::Void(w) => format!("raw void of {w} byte(s)"),
        }
    }
}

/// A loaded `.npy` array: C-order elements, little-endian.
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray {
    pub elem: NpyElem,
    pub shape: Vec<usize>,
    pub data: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NpyError {
    #[error("not an .npy file (missing the \\x93NUMPY magic)")]
    BadMagic,
    #[error("unsupported .npy format version {0}.{1}")]
    Version(u8, u8),
    #[error("truncated .npy file: {0}")]
    Truncated(&'static str),
    #[error("malformed .npy header: {0}")]
    Header(String),
    #[error("unsupported .npy dtype '{0}' (expected one of f8 f4 f2 i1..i8 u1..u8, raw void V1/V2, or ml_dtypes' bfloat16 / float8_e4m3fn / float8_e5m2)")]
    Dtype(String),
    #[error(
        "the .npy array is in Fortran order; save it in C order (numpy.ascontiguousarray) first"
    )]
    FortranOrder,
    #[error(".npy data has {found} bytes, but shape {shape:?} of {elem} needs {expected}")]
    DataLength {
        found: usize,
        expected: usize,
        shape: Vec<usize>,
        elem: String,
    },
}

const MAGIC: &[u8] = b"\x93NUMPY";

impl NpyArray {
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// Parses the bytes of an `.npy` file.
    pub fn parse(bytes: &[u8]) -> Result<NpyArray, NpyError> {
        if bytes.len() < 8 || &bytes[..6] != MAGIC {
            return Err(NpyError::BadMagic);
        }
        let (major, minor) = (bytes[6], bytes[7]);
        let (header_len, header_start) = match major {
            1 => {
                let b = bytes
                    .get(8..10)
                    .ok_or(NpyError::Truncated("header length"))?;
                (u16::from_le_bytes([b[0], b[1]]) as usize, 10)
            }
            2 | 3 => {
                let b = bytes
                    .get(8..12)
                    .ok_or(NpyError::Truncated("header length"))?;
                (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize, 12)
            }
            _ => return Err(NpyError::Version(major, minor)),
        };
        let header = bytes
            .get(header_start..header_start + header_len)
            .ok_or(NpyError::Truncated("header"))?;
        let header = std::str::from_utf8(header)
            .map_err(|_| NpyError::Header("header is not text".into()))?;
        let dict = parse_header(header)?;
        let (elem, big_endian) = parse_descr(&dict.descr)?;
        if dict.fortran_order && dict.shape.iter().filter(|&&d| d > 1).count() > 1 {
            return Err(NpyError::FortranOrder);
        }
        let data = &bytes[header_start + header_len..];
        let count = dict
            .shape
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| NpyError::Header("shape too large".into()))?;
        let expected = count
            .checked_mul(elem.size())
            .ok_or_else(|| NpyError::Header("shape too large".into()))?;
        if data.len() != expected {
            return Err(NpyError::DataLength {
                found: data.len(),
                expected,
                shape: dict.shape,
                elem: elem.describe(),
            });
        }
        let mut data = data.to_vec();
        if big_endian && elem.size() > 1 {
            for chunk in data.chunks_exact_mut(elem.size()) {
                chunk.reverse();
            }
        }
        Ok(NpyArray {
            elem,
            shape: dict.shape,
            data,
        })
    }

    /// Encodes an array as an `.npy` file (version 1.0, C order, little-endian). bf16 and fp8
    /// are written as their bit patterns in `<u2` / `|u1`, since numpy has no such types.
    pub fn encode(dtype: DType, shape: &[usize], data: &[u8]) -> Vec<u8> {
        let mut out = Self::encode_header(dtype, shape);
        out.reserve_exact(data.len());
        out.extend_from_slice(data);
        out
    }

    /// The bytes [`NpyArray::encode`] puts before the data: magic, version, header length
    /// and the padded header.
    pub fn encode_header(dtype: DType, shape: &[usize]) -> Vec<u8> {
        let descr = match dtype {
            DType::F64 => "<f8",
            DType::F32 => "<f4",
            DType::F16 => "<f2",
            DType::BF16 | DType::U16 => "<u2",
            DType::Fp8E4M3 | DType::Fp8E5M2 | DType::U8 => "|u1",
            DType::I8 => "|i1",
            DType::I16 => "<i2",
            DType::I32 => "<i4",
            DType::U32 => "<u4",
            DType::I64 => "<i8",
            DType::U64 => "<u8",
        };
        let mut shape_text = String::from("(");
        for (i, d) in shape.iter().enumerate() {
            if i > 0 {
                shape_text.push_str(", ");
            }
            let _ = write!(shape_text, "{d}");
        }
        if shape.len() == 1 {
            shape_text.push(',');
        }
        shape_text.push(')');
        let mut header =
            format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_text}, }}");
        // Total of magic(6) + version(2) + length(2) + header is a multiple of 64, ending in \n.
        let unpadded = 10 + header.len() + 1;
        header.extend(std::iter::repeat_n(' ', (64 - unpadded % 64) % 64));
        header.push('\n');
        let mut out = Vec::with_capacity(10 + header.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[1, 0]);
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out
    }
}

fn parse_descr(descr: &str) -> Result<(NpyElem, bool), NpyError> {
    let named = match descr {
        "bfloat16" => Some(DType::BF16),
        "float8_e4m3fn" => Some(DType::Fp8E4M3),
        "float8_e5m2" => Some(DType::Fp8E5M2),
        _ => None,
    };
    if let Some(d) = named {
        return Ok((NpyElem::Typed(d), false));
    }
    let bad = || NpyError::Dtype(descr.to_string());
    let mut chars = descr.chars();
    let order = chars.next().ok_or_else(bad)?;
    let big_endian = match order {
        '<' | '|' | '=' => false,
        '>' => true,
        _ => return Err(bad()),
    };
    let rest = chars.as_str();
    let (kind, width) = rest.split_at(rest.len().min(1));
    let width: usize = width.parse().map_err(|_| bad())?;
    let elem = match (kind, width) {
        ("f", 8) => NpyElem::Typed(DType::F64),
        ("f", 4) => NpyElem::Typed(DType::F32),
        ("f", 2) => NpyElem::Typed(DType::F16),
        // ml_dtypes registers float8_e5m2 with kind 'f', so np.save writes '<f1'.
        ("f", 1) => NpyElem::Typed(DType::Fp8E5M2),
        ("i", 1) => NpyElem::Typed(DType::I8),
        ("i", 2) => NpyElem::Typed(DType::I16),
        ("i", 4) => NpyElem::Typed(DType::I32),
        ("i", 8) => NpyElem::Typed(DType::I64),
        ("u", 1) => NpyElem::Typed(DType::U8),
        ("u", 2) => NpyElem::Typed(DType::U16),
        ("u", 4) => NpyElem::Typed(DType::U32),
        ("u", 8) => NpyElem::Typed(DType::U64),
        ("V", w @ (1 | 2)) => NpyElem::Void(w),
        _ => return Err(bad()),
    };
    Ok((elem, big_endian))
}

struct HeaderDict {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

/// Tokens of the Python dict literal in an `.npy` header.
#[derive(Debug, PartialEq)]
enum Tok<'a> {
    Str(&'a str),
    Int(usize),
    Ident(&'a str),
    Punct(char),
}

fn tokenize(text: &str) -> Result<Vec<Tok<'_>>, NpyError> {
    let mut toks = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b' ' | b'\n' | b'\t' | b'\r' => i += 1,
            b'{' | b'}' | b'(' | b')' | b'[' | b']' | b':' | b',' => {
                toks.push(Tok::Punct(c as char));
                i += 1;
            }
            b'\'' | b'"' => {
                let end = text[i + 1..]
                    .find(c as char)
                    .ok_or_else(|| NpyError::Header("unterminated string".into()))?;
                toks.push(Tok::Str(&text[i + 1..i + 1 + end]));
                i += end + 2;
            }
            b'0'..=b'9' => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                // Python 2 era writers may append 'L' to longs.
                let n = text[start..i]
                    .parse()
                    .map_err(|_| NpyError::Header("dimension too large".into()))?;
                if i < bytes.len() && bytes[i] == b'L' {
                    i += 1;
                }
                toks.push(Tok::Int(n));
            }
            c if c.is_ascii_alphabetic() => {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                toks.push(Tok::Ident(&text[start..i]));
            }
            _ => {
                return Err(NpyError::Header(format!(
                    "unexpected character '{}'",
                    text[i..].chars().next().unwrap_or('?')
                )))
            }
        }
    }
    Ok(toks)
}

fn parse_header(text: &str) -> Result<HeaderDict, NpyError> {
    let toks = tokenize(text)?;
    let err = |m: &str| NpyError::Header(m.to_string());
    let mut it = toks.iter().peekable();
    if it.next() != Some(&Tok::Punct('{')) {
        return Err(err("expected a dict"));
    }
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        match it.next() {
            Some(Tok::Punct('}')) => break,
            Some(Tok::Str(key)) => {
                if it.next() != Some(&Tok::Punct(':')) {
                    return Err(err("expected ':' after a key"));
                }
                match *key {
                    "descr" => match it.next() {
                        Some(Tok::Str(s)) => descr = Some(s.to_string()),
                        Some(Tok::Punct('[')) => {
                            return Err(NpyError::Dtype("structured (record) dtype".into()))
                        }
                        _ => return Err(err("'descr' must be a string")),
                    },
                    "fortran_order" => match it.next() {
                        Some(Tok::Ident("True")) => fortran = Some(true),
                        Some(Tok::Ident("False")) => fortran = Some(false),
                        _ => return Err(err("'fortran_order' must be True or False")),
                    },
                    "shape" => {
                        if it.next() != Some(&Tok::Punct('(')) {
                            return Err(err("'shape' must be a tuple"));
                        }
                        let mut dims = Vec::new();
                        loop {
                            match it.next() {
                                Some(Tok::Punct(')')) => break,
                                Some(Tok::Int(n)) => dims.push(*n),
                                Some(Tok::Punct(',')) => {}
                                _ => return Err(err("'shape' must hold integers")),
                            }
                        }
                        shape = Some(dims);
                    }
                    other => return Err(err(&format!("unknown key '{other}'"))),
                }
                if it.peek() == Some(&&Tok::Punct(',')) {
                    it.next();
                }
            }
            _ => return Err(err("expected a key or '}'")),
        }
    }
    Ok(HeaderDict {
        descr: descr.ok_or_else(|| err("missing 'descr'"))?,
        fortran_order: fortran.ok_or_else(|| err("missing 'fortran_order'"))?,
        shape: shape.ok_or_else(|| err("missing 'shape'"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_header_is_64_aligned_and_parses() {
        for shape in [vec![], vec![3], vec![2, 3], vec![1, 2, 3, 4, 5]] {
            let n: usize = shape.iter().product();
            let data = vec![7u8; n * 4];
            let bytes = NpyArray::encode(DType::F32, &shape, &data);
            let hl = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
            assert_eq!((10 + hl) % 64, 0);
            assert_eq!(bytes[10 + hl - 1], b'\n');
            let a = NpyArray::parse(&bytes).unwrap();
            assert_eq!(a.shape, shape);
            assert_eq!(a.data, data);
        }
    }

    #[test]
    fn rejects_garbage() {
        assert_eq!(NpyArray::parse(b"hello"), Err(NpyError::BadMagic));
        let mut b = NpyArray::encode(DType::U8, &[4], &[1, 2, 3, 4]);
        b.pop();
        assert!(matches!(
            NpyArray::parse(&b),
            Err(NpyError::DataLength { found: 3, .. })
        ));
        let b = NpyArray::encode(DType::U8, &[4], &[1, 2, 3, 4]);
        assert!(NpyArray::parse(&b[..20]).is_err());
    }
}
