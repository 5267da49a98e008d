//! Spec + the entry's parameters → `ResolvedLaunch`: buffers materialised, the parameter block
//! laid out with relocations, tensor maps encoded, reference arrays loaded.
//!
//! The resolved form knows nothing of TOML, so other front ends (the Python package) can build
//! it from their own arrays.

use crate::compare::{compare, CompareError, Comparison};
use crate::dtype::DType;
use crate::error::{Site, SpecError};
use crate::npy::{NpyArray, NpyElem};
use crate::parse::tensor_map_desc;
use crate::spec::*;
use crate::tensormap::{TensorMapDesc, GLOBAL_ADDRESS_OFFSET, TENSOR_MAP_BYTES};
use std::path::{Path, PathBuf};

/// What the engine tells us about one `.param` of the entry (this crate does not know PTX).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamInfo {
    pub name: String,
    pub kind: ParamKind,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `.u8`..`.u64`, `.s*`, `.b*` (is_float = false) or `.f16`/`.f32`/`.f64` (is_float = true).
    Scalar { bits: u32, is_float: bool },
    /// A `.ptr` parameter (8 bytes).
    Pointer,
    /// `.b8 name[len]` with `.align align`.
    ByteArray { len: usize, align: usize },
}

impl ParamKind {
    pub fn size(self) -> usize {
        match self {
            ParamKind::Scalar { bits, .. } => (bits as usize).div_ceil(8),
            ParamKind::Pointer => 8,
            ParamKind::ByteArray { len, .. } => len,
        }
    }

    pub fn align(self) -> usize {
        match self {
            ParamKind::Scalar { .. } | ParamKind::Pointer => self.size().max(1),
            ParamKind::ByteArray { align, .. } => align.max(1),
        }
    }

    fn describe(self) -> String {
        match self {
            ParamKind::Scalar {
                bits,
                is_float: true,
            } => format!(".f{bits}"),
            ParamKind::Scalar {
                bits,
                is_float: false,
            } => format!(".b{bits}"),
            ParamKind::Pointer => ".u64 .ptr".to_string(),
            ParamKind::ByteArray { len, align } => format!(".align {align} .b8[{len}]"),
        }
    }
}

impl ParamInfo {
    fn describe(&self, index: usize) -> String {
        format!("{index} '{}' ({})", self.name, self.kind.describe())
    }
}

/// A global-memory buffer the launch allocates.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalBuffer {
    /// `[buffers.NAME]` name, or `arg<N>` for an inline buffer.
    pub name: String,
    pub dtype: DType,
    pub shape: Vec<usize>,
    /// Initial contents (little-endian elements, C order).
    pub bytes: Vec<u8>,
    /// Where to write it after the run (as `.npy`), if asked.
    pub save: Option<PathBuf>,
}

impl GlobalBuffer {
    /// `.npy` file bytes of `contents` (this buffer's bytes after the run); bf16 / fp8 are
    /// written as u16 / u8 bit patterns.
    pub fn to_npy(&self, contents: &[u8]) -> Vec<u8> {
        NpyArray::encode(self.dtype, &self.shape, contents)
    }

    /// The `.npy` header [`GlobalBuffer::to_npy`] puts before the contents, for writing
    /// them without first copying them behind it.
    pub fn npy_header(&self) -> Vec<u8> {
        NpyArray::encode_header(self.dtype, &self.shape)
    }
}

/// "At `param_offset` in the parameter block, write the 8-byte little-endian device address of
/// buffer `buffer` plus `addend`."
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Relocation {
    pub param_offset: usize,
    pub buffer: usize,
    pub addend: u64,
}

/// A tensor map placed in the parameter block.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapBinding {
    pub param_index: usize,
    /// Offset of the 128-byte map in the parameter block.
    pub param_offset: usize,
    pub buffer: usize,
    /// The map with `global_address` 0; the relocation at `param_offset + 16` supplies it.
    pub desc: TensorMapDesc,
}

/// A reference check to run after the launch.
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    pub buffer: usize,
    /// The reference, with bit-pattern forms (u16 / void for bf16, ...) already retyped as the
    /// buffer's dtype.
    pub reference: NpyArray,
    pub rtol: f64,
    pub atol: f64,
    /// For reports: the reference file as written in the spec.
    pub label: String,
}

impl Expectation {
    /// Compares the buffer's contents after the run with the reference.
    pub fn check(
        &self,
        buffer: &GlobalBuffer,
        contents: &[u8],
    ) -> Result<Comparison, CompareError> {
        compare(
            &self.reference,
            contents,
            buffer.dtype,
            self.rtol,
            self.atol,
        )
    }
}

/// Everything needed to launch: independent of TOML.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedLaunch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub cluster: [u32; 3],
    /// The spec gave `cluster` (see `Spec::cluster_given`).
    pub cluster_given: bool,
    pub shared_bytes: u32,
    pub buffers: Vec<GlobalBuffer>,
    /// The parameter block with every device address still zero.
    pub param_bytes: Vec<u8>,
    /// Offset of each parameter in `param_bytes` (each at its natural / declared alignment).
    pub param_offsets: Vec<usize>,
    pub relocations: Vec<Relocation>,
    pub tensor_maps: Vec<TensorMapBinding>,
    pub expects: Vec<Expectation>,
}

impl ResolvedLaunch {
    /// The parameter block with the relocations applied; `buffer_addresses[i]` is the device
    /// address of `buffers[i]` (a caller bug, and a panic, if it is shorter than `buffers`).
    pub fn param_block(&self, buffer_addresses: &[u64]) -> Vec<u8> {
        let mut block = self.param_bytes.clone();
        for r in &self.relocations {
            let addr = buffer_addresses[r.buffer].wrapping_add(r.addend);
            block[r.param_offset..r.param_offset + 8].copy_from_slice(&addr.to_le_bytes());
        }
        block
    }
}

/// Reads an `.npy` file, reporting problems at `site`. Where `NAME.npy` is absent and
/// `NAME.npy.gz` exists, the compressed file is read: the corpus commits large arrays that way
/// (kernels/regen.py), so the tracked tree stays under what the device machine carries, while
/// specs keep naming `NAME.npy`.
fn read_npy(file: &str, path: &Path, site: &Site) -> Result<NpyArray, SpecError> {
    let bytes = read_maybe_gz(path).map_err(|e| {
        SpecError::new(
            file,
            site.clone(),
            format!("cannot read '{}': {e}", path.display()),
        )
    })?;
    NpyArray::parse(&bytes)
        .map_err(|e| SpecError::new(file, site.clone(), format!("'{}': {e}", path.display())))
}

/// The bytes of `path`, or, when it does not exist, the decompressed bytes of `path`.gz.
/// The error is the plain file's when neither exists (the spec names the plain file).
pub fn read_maybe_gz(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    match std::fs::read(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let mut gz = path.as_os_str().to_owned();
            gz.push(".gz");
            let gz = Path::new(&gz);
            let packed = match std::fs::read(gz) {
                Ok(p) => p,
                Err(_) => return Err(e),
            };
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(packed.as_slice())
                .read_to_end(&mut out)
                .map_err(|d| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("'{}' is not a valid gzip file: {d}", gz.display()),
                    )
                })?;
            Ok(out)
        }
        r => r,
    }
}

/// Whether `path` is a file, or is committed compressed beside it as `path.gz` or `path.xz`
/// (how the corpus stores large PTX and arrays; a spec names the plain file).
pub fn committed_file_exists(path: &Path) -> bool {
    let beside = |ext: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(ext);
        Path::new(&p).is_file()
    };
    path.is_file() || beside(".gz") || beside(".xz")
}

/// The initial bytes of a buffer: generated, or read from its `.npy` (dtype and shape checked).
pub fn materialize(file: &str, b: &BufferSpec) -> Result<Vec<u8>, SpecError> {
    materialize_threads(file, b, 1)
}

/// As [`materialize`], a generated fill on up to `threads` threads (the same bytes for any
/// number: [`crate::Fill::generate_threads`]).
pub fn materialize_threads(
    file: &str,
    b: &BufferSpec,
    threads: usize,
) -> Result<Vec<u8>, SpecError> {
    match &b.init {
        BufferInit::Fill(fill) => Ok(fill.generate_threads(b.dtype, b.elements(), threads)),
        BufferInit::Bytes(bytes) => {
            if bytes.len() != b.byte_len() {
                return Err(SpecError::new(
                    file,
                    b.init_site.clone(),
                    format!(
                        "expected {} bytes for buffer '{}' (shape {:?} of {}), found {}",
                        b.byte_len(),
                        b.name,
                        b.shape,
                        b.dtype,
                        bytes.len()
                    ),
                ));
            }
            Ok(bytes.clone())
        }
        BufferInit::Npy(path) => {
            let a = read_npy(file, path, &b.init_site)?;
            let err = |m: String| SpecError::new(file, b.init_site.clone(), m);
            if !a.elem.fits(b.dtype) {
                let also = match b.dtype {
                    DType::BF16 => " (or u16 / raw void V2 bit patterns, or ml_dtypes bfloat16)",
                    DType::Fp8E4M3 | DType::Fp8E5M2 => {
                        " (or u8 / raw void V1 bit patterns, or the ml_dtypes type)"
                    }
                    _ => "",
                };
                return Err(err(format!(
                    "expected '{}' to hold {}{also}, found {}",
                    path.display(),
                    b.dtype,
                    a.elem.describe()
                )));
            }
            if a.shape != b.shape {
                return Err(err(format!(
                    "expected '{}' to have shape {:?} (the buffer's shape), found {:?}",
                    path.display(),
                    b.shape,
                    a.shape
                )));
            }
            Ok(a.data)
        }
    }
}

/// Binds the spec to the entry's parameters.
pub fn resolve(spec: &Spec, params: &[ParamInfo]) -> Result<ResolvedLaunch, SpecError> {
    resolve_threads(spec, params, 1)
}

/// As [`resolve`], generating fills on up to `threads` threads (the same bytes for any
/// number).
pub fn resolve_threads(
    spec: &Spec,
    params: &[ParamInfo],
    threads: usize,
) -> Result<ResolvedLaunch, SpecError> {
    resolve_with(spec, params, threads, None)
}

/// The initial bytes of every `[buffers.NAME]` of `spec`, in order, each as [`materialize`]
/// makes it (fills on up to `threads` threads). They depend on the spec alone, not on the
/// kernel, so a front end can make them while the PTX loads and hand them to
/// [`resolve_prefilled`]; a buffer's error is reported there, where `resolve` would report it.
pub fn materialize_buffers(spec: &Spec, threads: usize) -> Vec<Result<Vec<u8>, SpecError>> {
    spec.buffers
        .iter()
        .map(|b| materialize_threads(&spec.file, b, threads))
        .collect()
}

/// [`resolve_threads`] with the spec's buffers already made by [`materialize_buffers`] (of
/// this spec; `--set` overrides change scalar arguments only, so they may be applied after):
/// the same launch, or the same first error.
pub fn resolve_prefilled(
    spec: &Spec,
    params: &[ParamInfo],
    threads: usize,
    prefilled: Vec<Result<Vec<u8>, SpecError>>,
) -> Result<ResolvedLaunch, SpecError> {
    assert_eq!(
        prefilled.len(),
        spec.buffers.len(),
        "materialize_buffers of another spec"
    );
    resolve_with(spec, params, threads, Some(prefilled))
}

fn resolve_with(
    spec: &Spec,
    params: &[ParamInfo],
    threads: usize,
    prefilled: Option<Vec<Result<Vec<u8>, SpecError>>>,
) -> Result<ResolvedLaunch, SpecError> {
    let file = spec.file.as_str();
    let err = |site: &Site, m: String| SpecError::new(file, site.clone(), m);

    if spec.args.len() != params.len() {
        let list: Vec<String> = params
            .iter()
            .enumerate()
            .map(|(i, p)| p.describe(i))
            .collect();
        let site = match spec.args.get(params.len()) {
            Some(extra) => extra.site.clone(),
            None => spec
                .args
                .last()
                .map_or_else(|| Site::new(1, 1, "arg"), |a| a.site.clone()),
        };
        return Err(err(
            &site,
            format!(
                "expected {} [[arg]] tables, one per parameter of the entry ({}), found {}",
                params.len(),
                if list.is_empty() {
                    "it has none".to_string()
                } else {
                    list.join(", ")
                },
                spec.args.len()
            ),
        ));
    }

    let mut buffers = Vec::new();
    let mut prefilled = prefilled.map(Vec::into_iter);
    for b in &spec.buffers {
        let bytes = match prefilled.as_mut().and_then(Iterator::next) {
            Some(made) => made?,
            None => materialize_threads(file, b, threads)?,
        };
        buffers.push(GlobalBuffer {
            name: b.name.clone(),
            dtype: b.dtype,
            shape: b.shape.clone(),
            bytes,
            save: b.save.clone(),
        });
    }
    let named = |name: &str| {
        spec.buffers
            .iter()
            .position(|b| b.name == name)
            .expect("names were checked when parsing")
    };

    let mut param_offsets = Vec::with_capacity(params.len());
    let mut offset = 0usize;
    for p in params {
        offset = offset.next_multiple_of(p.kind.align());
        param_offsets.push(offset);
        offset += p.kind.size();
    }
    let mut param_bytes = vec![0u8; offset];
    let mut relocations = Vec::new();
    let mut tensor_maps = Vec::new();
    let mut arg_buffer = vec![None; spec.args.len()];

    for (i, (arg, p)) in spec.args.iter().zip(params).enumerate() {
        let at = param_offsets[i];
        let slot = &mut param_bytes[at..at + p.kind.size()];
        let mismatch = |what: &str| {
            err(
                &arg.site,
                format!(
                    "expected an argument that fits parameter {}, found {what}",
                    p.describe(i)
                ),
            )
        };
        let takes_address = matches!(
            p.kind,
            ParamKind::Pointer
                | ParamKind::Scalar {
                    bits: 64,
                    is_float: false
                }
        );
        match &arg.kind {
            ArgKind::Scalar(s) => write_scalar(*s, p.kind)
                .map_err(|m| mismatch(&m))?
                .write(slot),
            ArgKind::Buffer { name, offset_bytes } => {
                if !takes_address {
                    return Err(mismatch(&format!("the address of buffer '{name}'")));
                }
                let b = named(name);
                arg_buffer[i] = Some(b);
                relocations.push(Relocation {
                    param_offset: at,
                    buffer: b,
                    addend: *offset_bytes,
                });
            }
            ArgKind::Inline(b) => {
                if !takes_address {
                    return Err(mismatch("an inline buffer (a device address)"));
                }
                buffers.push(GlobalBuffer {
                    name: b.name.clone(),
                    dtype: b.dtype,
                    shape: b.shape.clone(),
                    bytes: materialize_threads(file, b, threads)?,
                    save: b.save.clone(),
                });
                arg_buffer[i] = Some(buffers.len() - 1);
                relocations.push(Relocation {
                    param_offset: at,
                    buffer: buffers.len() - 1,
                    addend: 0,
                });
            }
            ArgKind::Packed(fields) => {
                let ParamKind::ByteArray { len, .. } = p.kind else {
                    return Err(mismatch("a packed field list (it needs a .b8 array)"));
                };
                let mut pos = 0usize;
                for f in fields {
                    let size = f.value.size();
                    pos = pos.next_multiple_of(f.value.align());
                    if pos + size > len {
                        return Err(err(
                            &f.site,
                            format!(
                                "expected the packed fields to fit parameter {} of {len} bytes, but this {size}-byte field would end at byte {}",
                                p.describe(i),
                                pos + size
                            ),
                        ));
                    }
                    match &f.value {
                        FieldValue::Number { dtype, value } => {
                            let out = &mut slot[pos..pos + size];
                            match value {
                                Scalar::Int(v) => dtype.encode_int(*v, out),
                                Scalar::Float(v) => dtype.encode_f64(*v, out),
                            }
                        }
                        FieldValue::Buffer { name, offset_bytes } => relocations.push(Relocation {
                            param_offset: at + pos,
                            buffer: named(name),
                            addend: *offset_bytes,
                        }),
                        FieldValue::TensorMap(tm) => {
                            // as a tensormap argument, at its offset inside the struct
                            let b = named(&tm.buffer);
                            let desc = tensor_map_desc(tm, &spec.buffers[b], 0)
                                .map_err(|m| err(&tm.site, m))?;
                            slot[pos..pos + size].copy_from_slice(&desc.encode());
                            relocations.push(Relocation {
                                param_offset: at + pos + GLOBAL_ADDRESS_OFFSET,
                                buffer: b,
                                addend: 0,
                            });
                            tensor_maps.push(TensorMapBinding {
                                param_index: i,
                                param_offset: at + pos,
                                buffer: b,
                                desc,
                            });
                        }
                    }
                    pos += size;
                }
            }
            ArgKind::TensorMap(tm) => {
                if !matches!(
                    p.kind,
                    ParamKind::ByteArray {
                        len: TENSOR_MAP_BYTES,
                        ..
                    }
                ) {
                    return Err(mismatch(
                        "a tensor map (it needs a 128-byte .b8 array, e.g. .param .align 64 .b8 map[128])",
                    ));
                }
                let b = named(&tm.buffer);
                let desc =
                    tensor_map_desc(tm, &spec.buffers[b], 0).map_err(|m| err(&tm.site, m))?;
                slot.copy_from_slice(&desc.encode());
                relocations.push(Relocation {
                    param_offset: at + GLOBAL_ADDRESS_OFFSET,
                    buffer: b,
                    addend: 0,
                });
                tensor_maps.push(TensorMapBinding {
                    param_index: i,
                    param_offset: at,
                    buffer: b,
                    desc,
                });
            }
        }
    }

    let mut expects = Vec::new();
    for e in &spec.expects {
        let b = match &e.target {
            ExpectTarget::Buffer(name) => named(name),
            ExpectTarget::Arg(a) => {
                arg_buffer[*a].expect("checked to be a buffer arg when parsing")
            }
        };
        let buf = &buffers[b];
        let mut reference = read_npy(file, &e.npy.value, &e.npy.site)?;
        let label = e.npy.value.display().to_string();
        if reference.elem.fits(buf.dtype) {
            reference.elem = NpyElem::Typed(buf.dtype);
        } else if let NpyElem::Void(w) = reference.elem {
            return Err(err(
                &e.npy.site,
                format!(
                    "expected a numeric reference for buffer '{}' ({}), found raw void of {w} byte(s)",
                    buf.name, buf.dtype
                ),
            ));
        }
        if reference.shape != buf.shape {
            return Err(err(
                &e.npy.site,
                format!(
                    "expected '{label}' to have shape {:?} (buffer '{}'), found {:?}",
                    buf.shape, buf.name, reference.shape
                ),
            ));
        }
        expects.push(Expectation {
            buffer: b,
            reference,
            rtol: e.rtol,
            atol: e.atol,
            label,
        });
    }

    Ok(ResolvedLaunch {
        grid: spec.grid.value,
        block: spec.block.value,
        cluster: spec.cluster.value,
        cluster_given: spec.cluster_given,
        shared_bytes: spec.shared_bytes.value,
        buffers,
        param_bytes,
        param_offsets,
        relocations,
        tensor_maps,
        expects,
    })
}

/// Bytes of a scalar argument for a parameter.
struct ScalarBytes([u8; 8], usize);

impl ScalarBytes {
    fn write(self, slot: &mut [u8]) {
        slot[..self.1].copy_from_slice(&self.0[..self.1]);
    }
}

fn write_scalar(s: Scalar, kind: ParamKind) -> Result<ScalarBytes, String> {
    let mut out = [0u8; 8];
    match (kind, s) {
        (ParamKind::Pointer, Scalar::Int(0)) => Ok(ScalarBytes(out, 8)),
        (ParamKind::Pointer, s) => Err(format!(
            "{} (a pointer parameter takes a buffer, or value = 0 for null)",
            show(s)
        )),
        (ParamKind::ByteArray { .. }, s) => Err(format!(
            "the scalar {} (a .b8 array takes packed = [...] or tensormap = {{...}})",
            show(s)
        )),
        (
            ParamKind::Scalar {
                bits,
                is_float: true,
            },
            s,
        ) => {
            let v = match s {
                Scalar::Int(i) => i as f64,
                Scalar::Float(f) => f,
            };
            let dtype = match bits {
                16 => DType::F16,
                32 => DType::F32,
                64 => DType::F64,
                _ => return Err(format!("{} for a {bits}-bit float", show(s))),
            };
            dtype.encode_f64(v, &mut out[..dtype.size()]);
            Ok(ScalarBytes(out, dtype.size()))
        }
        (
            ParamKind::Scalar {
                is_float: false, ..
            },
            Scalar::Float(_),
        ) => Err(format!(
            "the float {} (an integer parameter takes an integer)",
            show(s)
        )),
        (
            ParamKind::Scalar {
                bits,
                is_float: false,
            },
            Scalar::Int(v),
        ) => {
            if !matches!(bits, 8 | 16 | 32 | 64) {
                return Err(format!("{v} for a {bits}-bit integer"));
            }
            // The parameter's signedness is not known here (.b32 is both), so accept either
            // reading of the bits: -2^(n-1) ..= 2^n - 1.
            let lo = -(1i128 << (bits - 1));
            let hi = (1i128 << bits) - 1;
            if v < lo || v > hi {
                return Err(format!(
                    "{v}, which does not fit in {bits} bits ({lo}..={hi})"
                ));
            }
            let n = bits as usize / 8;
            out[..n].copy_from_slice(&v.to_le_bytes()[..n]);
            Ok(ScalarBytes(out, n))
        }
    }
}

fn show(s: Scalar) -> String {
    match s {
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => format!("{f:?}"),
    }
}

/// `--set NAME=VALUE`: overrides a scalar argument, by 0-based position or parameter name.
#[derive(Clone, Debug, PartialEq)]
pub struct SetOverride {
    pub target: String,
    pub value: Scalar,
}

impl SetOverride {
    /// Parses `NAME=VALUE`; VALUE is a decimal / 0x hex / 0b / 0o integer or a float.
    pub fn parse(text: &str) -> Result<SetOverride, SpecError> {
        let err = |key: &str, m: String| SpecError::new("--set", Site::unplaced(key), m);
        let Some((name, value)) = text.split_once('=') else {
            return Err(err(text, format!("expected NAME=VALUE, found \"{text}\"")));
        };
        let (name, value) = (name.trim(), value.trim());
        if name.is_empty() {
            return Err(err(
                text,
                "expected a parameter name or index before '='".into(),
            ));
        }
        let parsed = parse_number(value).ok_or_else(|| {
            err(
                name,
                format!("expected an integer or a float, found \"{value}\""),
            )
        })?;
        Ok(SetOverride {
            target: name.to_string(),
            value: parsed,
        })
    }
}

fn parse_number(text: &str) -> Option<Scalar> {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    let (neg, body) = match clean.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, clean.strip_prefix('+').unwrap_or(&clean)),
    };
    let radix = [("0x", 16), ("0X", 16), ("0b", 2), ("0o", 8)]
        .iter()
        .find_map(|&(p, r)| body.strip_prefix(p).map(|d| (d, r)));
    let int = match radix {
        Some((digits, r)) => u128::from_str_radix(digits, r).ok(),
        None => body.parse::<u128>().ok(),
    };
    if let Some(m) = int.filter(|&m| m <= u64::MAX as u128 + 1) {
        return Some(Scalar::Int(if neg { -(m as i128) } else { m as i128 }));
    }
    let f: f64 = clean.parse().ok()?;
    Some(Scalar::Float(f))
}

/// The kernel `--set` overrides apply to, for messages: its name and, where known, where it is
/// declared (`file:line` of its `.entry`).
#[derive(Clone, Debug, Default)]
pub struct KernelRef<'a> {
    pub name: &'a str,
    pub place: Option<String>,
}

impl std::fmt::Display for KernelRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.place, self.name.is_empty()) {
            (_, true) => f.write_str("the kernel"),
            (Some(p), false) => write!(f, "kernel '{}' ({p})", self.name),
            (None, false) => write!(f, "kernel '{}'", self.name),
        }
    }
}

/// `0 'n' (u32)`: a parameter as `--set` messages list them.
fn describe_param(i: usize, p: &ParamInfo) -> String {
    let ty = match p.kind {
        ParamKind::Scalar { bits, is_float } => {
            format!("{}{bits}", if is_float { "f" } else { "b" })
        }
        ParamKind::Pointer => "pointer".to_string(),
        ParamKind::ByteArray { len, .. } => format!("{len} bytes"),
    };
    format!("{i} '{}' ({ty})", p.name)
}

impl Spec {
    /// Applies `--set` overrides to scalar arguments. A target is a 0-based argument index or
    /// the name of an entry parameter. Messages name the kernel as the spec's `kernel` key
    /// does; [`Spec::apply_overrides_to`] also says where it is declared.
    pub fn apply_overrides(
        &mut self,
        sets: &[SetOverride],
        params: &[ParamInfo],
    ) -> Result<(), SpecError> {
        let name = self
            .kernel
            .as_ref()
            .map(|k| k.value.clone())
            .unwrap_or_default();
        let kernel = KernelRef {
            name: &name,
            place: None,
        };
        self.apply_overrides_to(sets, params, &kernel)
    }

    /// [`Spec::apply_overrides`] for `kernel`: a bad target names the kernel, where it is
    /// declared and the parameters it has; a non-scalar argument names its place in the spec.
    pub fn apply_overrides_to(
        &mut self,
        sets: &[SetOverride],
        params: &[ParamInfo],
        kernel: &KernelRef<'_>,
    ) -> Result<(), SpecError> {
        let listing = || {
            params
                .iter()
                .enumerate()
                .map(|(i, p)| describe_param(i, p))
                .collect::<Vec<_>>()
                .join(", ")
        };
        for s in sets {
            let err = |m: String| SpecError::new("--set", Site::unplaced(s.target.clone()), m);
            let index = match s.target.parse::<usize>() {
                Ok(i) => i,
                Err(_) => match params.iter().position(|p| p.name == s.target) {
                    Some(i) => i,
                    None if params.is_empty() => {
                        return Err(err(format!(
                            "{kernel} has no parameters, so there is nothing to override (found \"{}\")",
                            s.target
                        )))
                    }
                    None => {
                        return Err(err(format!(
                            "{kernel} has no parameter named \"{}\"; its parameters are {}: give one of these names or an index below {}",
                            s.target,
                            listing(),
                            params.len()
                        )))
                    }
                },
            };
            let Some(arg) = self.args.get_mut(index) else {
                return Err(err(if params.is_empty() {
                    format!("{kernel} has no parameters, so there is nothing to override (found index {index})")
                } else {
                    format!(
                        "expected an argument index below {}, found {index} ({kernel} has {} parameters: {})",
                        self.args.len().max(params.len()),
                        params.len(),
                        listing()
                    )
                }));
            };
            match &mut arg.kind {
                ArgKind::Scalar(v) => *v = s.value,
                _ => {
                    let what = params
                        .get(index)
                        .map(|p| format!(" ('{}')", p.name))
                        .unwrap_or_default();
                    let mut e = err(format!(
                        "argument {index}{what} of {kernel} is not a scalar (value = ...) in the spec; --set overrides scalars only"
                    ));
                    // Point at the argument in the spec, which is what would have to change.
                    if arg.site.line != 0 {
                        e = SpecError::new(
                            self.file.clone(),
                            arg.site.with_key(format!("--set {}", s.target)),
                            e.message,
                        );
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}
