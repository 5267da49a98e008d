//! The typed launch spec, as written (before it meets the kernel's parameters).
//!
//! Every item keeps the `Site` it came from, so that later checks (argument binding, `.npy`
//! contents) still report file, line and key.

use crate::dtype::DType;
use crate::error::Site;
use crate::fill::Fill;
use crate::tensormap::{
    Interleave, L2Promotion, OobFill, SwizzleAtomicity, SwizzleMode, TmElemType,
};
use std::path::PathBuf;

/// A value together with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Located<T> {
    pub value: T,
    pub site: Site,
}

/// A parsed launch spec.
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    /// The spec file as named by the user, for messages.
    pub file: String,
    /// Directory that relative paths (ptx, from, save, npy) are resolved against.
    pub dir: PathBuf,
    /// The PTX file, already joined with `dir`.
    pub ptx: Located<PathBuf>,
    /// The `.entry` name; `None` when the module must have exactly one entry.
    pub kernel: Option<Located<String>>,
    pub grid: Located<[u32; 3]>,
    pub block: Located<[u32; 3]>,
    /// CTAs per cluster; `[1, 1, 1]` when not given.
    pub cluster: Located<[u32; 3]>,
    /// Whether the spec gave `cluster`: an explicit `[1, 1, 1]` is a cluster launch of one CTA
    /// (as `cudaLaunchKernelEx` with a cluster attribute is), which forms that need a cluster
    /// launch accept; no key is a plain launch.
    pub cluster_given: bool,
    /// Dynamic shared memory per CTA in bytes (0 when not given).
    pub shared_bytes: Located<u32>,
    /// `[buffers.NAME]` in declaration order.
    pub buffers: Vec<BufferSpec>,
    /// `[[arg]]` in declaration order (= parameter order).
    pub args: Vec<ArgSpec>,
    /// `[[expect]]` reference checks.
    pub expects: Vec<ExpectSpec>,
}

/// Where a buffer's initial contents come from.
#[derive(Clone, Debug, PartialEq)]
pub enum BufferInit {
    /// An `.npy` file (path joined with the spec's directory).
    Npy(PathBuf),
    Fill(Fill),
    /// Contents given directly (little-endian elements, C order): for front ends that build a
    /// `Spec` from in-memory arrays, such as the Python package. Never produced from TOML.
    Bytes(Vec<u8>),
}

/// A global-memory buffer: a `[buffers.NAME]` table or an inline `[[arg]]` buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct BufferSpec {
    pub name: String,
    pub dtype: DType,
    /// numpy order (outermost first). Empty = one element.
    pub shape: Vec<usize>,
    pub init: BufferInit,
    /// Site of the key that set `init` (`from`, `fill`, `random`), or of the table.
    pub init_site: Site,
    /// Written after the run (joined with the spec's directory).
    pub save: Option<PathBuf>,
    pub site: Site,
}

impl BufferSpec {
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn byte_len(&self) -> usize {
        self.elements() * self.dtype.size()
    }
}

/// A scalar literal from the spec or from `--set`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    Int(i128),
    Float(f64),
}

/// One `[[arg]]` table.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgSpec {
    /// Position among the entry's parameters (0-based).
    pub index: usize,
    pub site: Site,
    pub kind: ArgKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArgKind {
    /// `value = N`: an integer or float scalar, or 0 for a null pointer.
    Scalar(Scalar),
    /// `buffer = "name"` with optional `offset_bytes`.
    Buffer { name: String, offset_bytes: u64 },
    /// An inline buffer (dtype/shape/...); its name is `arg<index>`.
    Inline(BufferSpec),
    /// `packed = [...]`: fields laid out at natural alignment in a `.b8` array.
    Packed(Vec<PackedField>),
    /// `tensormap = {...}`: a 128-byte tensor map over a named buffer.
    TensorMap(TensorMapArg),
}

#[derive(Clone, Debug, PartialEq)]
pub struct PackedField {
    pub site: Site,
    pub value: FieldValue,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    /// A typed number (`u32 = 256`, `f32 = 1.5`, ...), already range-checked for its type.
    Number { dtype: DType, value: Scalar },
    /// `buffer = "name"` (optional `offset_bytes`): a device address (8 bytes).
    Buffer { name: String, offset_bytes: u64 },
    /// `tensormap = {...}`: a 128-byte tensor map, 64-byte aligned (CUtensorMap), inside a
    /// struct passed by value (CUTLASS's kernel `Params`).
    TensorMap(Box<TensorMapArg>),
}

impl FieldValue {
    /// Size and natural alignment in bytes.
    pub fn size(&self) -> usize {
        match self {
            FieldValue::Number { dtype, .. } => dtype.size(),
            FieldValue::Buffer { .. } => 8,
            FieldValue::TensorMap(_) => 128,
        }
    }

    /// Alignment in bytes: the size, except 64 for a tensor map (`alignas(64) CUtensorMap`).
    pub fn align(&self) -> usize {
        match self {
            FieldValue::TensorMap(_) => 64,
            v => v.size(),
        }
    }
}

/// `tensormap = { buffer, box, swizzle, ... }`. `box_dims` and `elem_strides` are innermost
/// first, as `cuTensorMapEncodeTiled` counts (the reverse of the buffer's numpy shape).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapArg {
    pub buffer: String,
    /// `elem_type = "tf32"` etc.: overrides the element type that follows from the buffer's
    /// dtype; must have the dtype's width.
    pub elem_type: Option<TmElemType>,
    pub box_dims: Vec<u32>,
    pub elem_strides: Vec<u32>,
    pub swizzle: SwizzleMode,
    pub swizzle_atomicity: SwizzleAtomicity,
    pub interleave: Interleave,
    pub oob_fill: OobFill,
    pub l2_promotion: L2Promotion,
    /// `mode = "im2col"` with `lower`, `upper`, `channels`, `pixels` (a tmemu extension of the
    /// launch spec, docs/launch-spec.md): a `cuTensorMapEncodeIm2col` map; `box_dims` is then
    /// empty. `None` is the tile mode.
    pub im2col: Option<crate::tensormap::Im2colParams>,
    /// `dims = [...]` and `strides = [...]` (a tmemu extension, tile mode): the map's global
    /// dims (innermost first) and the byte strides of dims 1.., given instead of following from
    /// the buffer's shape, for maps that view a buffer in another order (CUTLASS's
    /// block-scale-factor maps). `None`: from the buffer's shape.
    pub view: Option<TensorMapView>,
    pub site: Site,
}

/// Explicit global dims and byte strides of a tensor map (`TensorMapArg::view`).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapView {
    pub dims: Vec<u64>,
    pub strides: Vec<u64>,
}

/// What an `[[expect]]` compares.
#[derive(Clone, Debug, PartialEq)]
pub enum ExpectTarget {
    /// The buffer that argument N points to (an inline buffer or `buffer = name`).
    Arg(usize),
    /// A named buffer.
    Buffer(String),
}

/// `[[expect]]`: after the run, compare a buffer with a reference `.npy`
/// (numpy `isclose`: |actual − expected| <= atol + rtol·|expected|).
#[derive(Clone, Debug, PartialEq)]
pub struct ExpectSpec {
    pub target: ExpectTarget,
    pub npy: Located<PathBuf>,
    pub rtol: f64,
    pub atol: f64,
    pub site: Site,
}

/// Default tolerances: numpy's `isclose` defaults.
pub const DEFAULT_RTOL: f64 = 1e-5;
pub const DEFAULT_ATOL: f64 = 1e-8;
