//! The H100 differential recording (tests/corpus/diff/h100, made by kernels/diff/harness.cu on
//! a real H100) and the rules by which a modelled result is compared with the GPU's: bit for
//! bit, except the approximate instructions (within their documented error bounds) and the
//! documented places where the H100 departs from the PTX ISA.
//!
//! Layout: `manifest.json` gives `n` (threads per case), the input classes (each 4 operand
//! columns of `n` little-endian u64 at an offset of `inputs.bin`) and the cases (kernel, name,
//! input class, output width in bytes and offset in `outputs.bin`).

use std::collections::BTreeMap;
use std::path::PathBuf;

/// One input class: 4 operand columns (a, b, c, d) of `n` u64 each.
pub struct Class {
    /// The raw little-endian bytes, as the GPU read them (`32 * n` bytes).
    pub bytes: Vec<u8>,
    /// The same as words: column `k` is `words[k * n..(k + 1) * n]`.
    pub words: Vec<u64>,
}

/// One recorded case.
pub struct Case {
    /// Position in the manifest (the K of `diff_case<K>` for arithmetic cases).
    pub index: usize,
    /// `diff_arith`, or a harness kernel (`diff_shfl`, `diff_atom`, `diff_bulk`).
    pub kernel: String,
    /// The instruction form, e.g. `add.rn.f32`.
    pub name: String,
    /// The input class the case read.
    pub class: String,
    /// Bytes per output element (4 or 8).
    pub width: usize,
    /// The GPU's output, one zero-extended word per thread.
    pub out: Vec<u64>,
}

/// The whole recording.
pub struct Recording {
    /// Threads per case.
    pub n: usize,
    pub classes: BTreeMap<String, Class>,
    pub cases: Vec<Case>,
}

/// tests/corpus/diff of the repository.
pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/diff")
}

/// Little-endian words of `w` bytes each, zero-extended.
pub fn words(bytes: &[u8], w: usize) -> Vec<u64> {
    bytes
        .chunks_exact(w)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..w].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

impl Recording {
    /// Reads the committed recording; panics (the test fails) if it is missing or malformed.
    pub fn load() -> Recording {
        let dir = corpus_dir().join("h100");
        let read = |f: &str| crate::recording::read(&dir.join(f));
        let man: serde_json::Value =
            serde_json::from_slice(&read("manifest.json")).expect("manifest.json is JSON");
        let inputs = read("inputs.bin");
        let outputs = read("outputs.bin");
        let n = man["n"].as_u64().unwrap() as usize;
        let classes = man["classes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let off = c["offset"].as_u64().unwrap() as usize;
                let bytes = inputs[off..off + 32 * n].to_vec();
                let words = words(&bytes, 8);
                (
                    c["name"].as_str().unwrap().to_string(),
                    Class { bytes, words },
                )
            })
            .collect();
        let cases = man["cases"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(index, c)| {
                let off = c["offset"].as_u64().unwrap() as usize;
                let width = c["width"].as_u64().unwrap() as usize;
                Case {
                    index,
                    kernel: c["kernel"].as_str().unwrap().to_string(),
                    name: c["name"].as_str().unwrap().to_string(),
                    class: c["class"].as_str().unwrap().to_string(),
                    width,
                    out: words(&outputs[off..off + width * n], width),
                }
            })
            .collect();
        Recording { n, classes, cases }
    }

    /// The operands (a, b, c, d) thread `i` read from `class`.
    pub fn operands(&self, class: &str, i: usize) -> [u64; 4] {
        let (w, n) = (&self.classes[class].words, self.n);
        [w[i], w[n + i], w[2 * n + i], w[3 * n + i]]
    }

    /// The case named `name`; panics if the recording has none.
    pub fn case(&self, name: &str) -> &Case {
        self.cases
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("the recording has no case `{name}`"))
    }
}

/// How a modelled result is compared with the GPU's.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Check {
    Exact,
    /// f32 results within this many ulp (NaN matches NaN, infinities and zeros exactly).
    Ulp32(u32),
    /// Each f16/bf16 half within this many ulp.
    Ulp16x2(u32),
    /// f32 result within this absolute error, for inputs with |x| <= the given bound.
    Abs32(f64, f32),
    /// f32 results within this many ulp or this absolute error (lg2: the absolute error
    /// bounds results near 0, the ulp bound large results).
    UlpOrAbs32(u32, f64),
    /// f64 results within this relative error.
    Rel64(f64),
}

/// The comparison for the recorded case `name`: the documented error bounds of the `.approx`
/// forms (docs/arch/num.md), exact for everything else.
pub fn check_of(name: &str) -> Check {
    use Check::*;
    match name {
        "div.approx.f32" | "div.approx.ftz.f32" | "div.full.f32" | "div.full.ftz.f32" => Ulp32(2),
        "rcp.approx.f32" | "rcp.approx.ftz.f32" => Ulp32(1),
        "sqrt.approx.f32" | "sqrt.approx.ftz.f32" => Ulp32(1),
        "rsqrt.approx.f32" | "rsqrt.approx.ftz.f32" => Ulp32(1),
        "ex2.approx.f32" | "ex2.approx.ftz.f32" => Ulp32(2),
        "lg2.approx.f32" | "lg2.approx.ftz.f32" => UlpOrAbs32(2, 4.0e-7),
        "sin.approx.f32" | "cos.approx.f32" | "sin.approx.ftz.f32" => Abs32(1e-5, 100.0),
        "tanh.approx.f32" => Ulp32(128),
        "rcp.approx.ftz.f64" => Rel64(1e-6),
        "rsqrt.approx.f64" => Rel64(4e-16),
        "ex2.approx.f16x2"
        | "tanh.approx.f16x2"
        | "ex2.approx.ftz.bf16x2"
        | "tanh.approx.bf16x2" => Ulp16x2(1),
        _ => Exact,
    }
}

fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// Distance in ulp between two f32 bit patterns (both NaN: 0; one NaN: `u32::MAX`).
pub fn ulp32(x: u32, y: u32) -> u32 {
    let (nx, ny) = (is_nan32(x), is_nan32(y));
    if nx || ny {
        return if nx && ny { 0 } else { u32::MAX };
    }
    let key = |v: u32| {
        if v & 0x8000_0000 != 0 {
            -((v & 0x7fff_ffff) as i64)
        } else {
            v as i64
        }
    };
    (key(x) - key(y)).unsigned_abs().min(u32::MAX as u64) as u32
}

/// Distance in ulp between two f16 (or, with `bf16`, bf16) bit patterns, NaNs as [`ulp32`].
pub fn ulp16(bf16: bool, x: u16, y: u16) -> u32 {
    let exp_mask: u16 = if bf16 { 0x7f80 } else { 0x7c00 };
    let is_nan = |v: u16| v & 0x7fff > exp_mask;
    let (nx, ny) = (is_nan(x), is_nan(y));
    if nx || ny {
        return if nx && ny { 0 } else { u32::MAX };
    }
    let key = |v: u16| {
        if v & 0x8000 != 0 {
            -((v & 0x7fff) as i64)
        } else {
            v as i64
        }
    };
    (key(x) - key(y)).unsigned_abs() as u32
}

/// Whether `ours` is acceptable against `gpu` under `check` (`class`: the input class, which
/// tells f16 from bf16; `input`: operand a, for the domain of [`Check::Abs32`]).
pub fn within(check: Check, class: &str, input: u64, ours: u64, gpu: u64) -> bool {
    if ours == gpu {
        return true;
    }
    match check {
        Check::Exact => false,
        Check::Ulp32(u) => ulp32(ours as u32, gpu as u32) <= u,
        Check::UlpOrAbs32(u, e) => {
            let abs =
                (f32::from_bits(ours as u32) as f64 - f32::from_bits(gpu as u32) as f64).abs();
            ulp32(ours as u32, gpu as u32) <= u || abs <= e
        }
        Check::Ulp16x2(u) => {
            let bf = class == "bf16x2";
            ulp16(bf, ours as u16, gpu as u16) <= u
                && ulp16(bf, (ours >> 16) as u16, (gpu >> 16) as u16) <= u
        }
        Check::Abs32(e, dom) => {
            let x = f32::from_bits(input as u32);
            if x.is_nan() || x.abs() > dom {
                return true; // outside the bound's documented domain
            }
            let (o, g) = (f32::from_bits(ours as u32), f32::from_bits(gpu as u32));
            if o.is_nan() || g.is_nan() || o.is_infinite() || g.is_infinite() {
                o.is_nan() && g.is_nan()
            } else {
                (o as f64 - g as f64).abs() <= e
            }
        }
        Check::Rel64(e) => {
            let (o, g) = (f64::from_bits(ours), f64::from_bits(gpu));
            (o.is_nan() && g.is_nan()) || ((o - g) / g).abs() <= e
        }
    }
}

/// Documented places where the H100 (with the ptxas of CUDA 13.0) departs from what the PTX
/// ISA specifies (docs/arch/num.md); tmemu follows the ISA there. Each returns true only for
/// the exact pattern (`v`: the operands a, b, c, d).
pub fn isa_deviation(name: &str, v: &[u64; 4], ours: u64, gpu: u64) -> bool {
    let (b, c) = (v[1] as u32, v[2] as u32);
    match name {
        // fns with offset = INT_MIN: the ISA's loop finds nothing (0xffffffff); H100 gives 0.
        "fns.b32" => c == 0x8000_0000 && ours == 0xffff_ffff && gpu == 0,
        // 64-bit bfe/bfi: the ISA takes pos and len mod 256; ptxas's 64-bit sequence uses the
        // whole 32-bit operands (len >= 64 extracts everything, pos >= 64 extracts nothing).
        "bfe.u64" | "bfe.s64" | "bfi.b64" => b > 255 || c > 255,
        // set with an .f32 destination: the ISA says 1.0f for true; the H100 wrote 0x00000001.
        "set.hi.f32.u32" | "set.gtu.f32.f32" => ours == 0x3f80_0000 && gpu == 1,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distances_are_symmetric_and_cross_zero() {
        assert_eq!(ulp32(0x3f80_0000, 0x3f80_0001), 1);
        assert_eq!(ulp32(0x3f80_0001, 0x3f80_0000), 1);
        // +0 and -0 are the same value; the smallest subnormals either side are 2 apart.
        assert_eq!(ulp32(0x0000_0000, 0x8000_0000), 0);
        assert_eq!(ulp32(0x0000_0001, 0x8000_0001), 2);
        assert_eq!(ulp32(0x7fc0_0000, 0xffc0_0001), 0);
        assert_eq!(ulp32(0x7fc0_0000, 0x3f80_0000), u32::MAX);
        assert_eq!(ulp16(false, 0x3c00, 0x3c02), 2);
        // 0x7d00 is an f16 NaN but a finite bf16.
        assert_eq!(ulp16(false, 0x7d00, 0x3c00), u32::MAX);
        assert_eq!(ulp16(true, 0x7d00, 0x7d01), 1);
    }

    #[test]
    fn within_applies_each_bound_and_no_more() {
        let one = 1.0f32.to_bits() as u64;
        assert!(within(Check::Ulp32(2), "f32", 0, one + 2, one));
        assert!(!within(Check::Ulp32(2), "f32", 0, one + 3, one));
        assert!(!within(Check::Exact, "f32", 0, one + 1, one));
        // |x| > 100: outside the sin/cos bound's domain, anything goes.
        let big = 1000.0f32.to_bits() as u64;
        assert!(within(Check::Abs32(1e-5, 100.0), "f32", big, 0, one));
        assert!(!within(Check::Abs32(1e-5, 100.0), "f32", one, 0, one));
        let x = 2.0f64;
        let y = x * (1.0 + 1e-7);
        assert!(within(
            Check::Rel64(1e-6),
            "f64",
            0,
            y.to_bits(),
            x.to_bits()
        ));
        assert!(!within(
            Check::Rel64(1e-8),
            "f64",
            0,
            y.to_bits(),
            x.to_bits()
        ));
    }
}
