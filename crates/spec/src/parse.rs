//! TOML text → `Spec`.
//!
//! We walk toml's spanned parse tree (`toml::de::DeTable`) by hand instead of deriving serde
//! structs: every key and value carries its byte span, so each error can name the line, the
//! column, the full key path and what was expected, in our own words (serde's messages would
//! name neither the key path nor, for unknown keys, our list of allowed keys).

use crate::dtype::{dtype_names, DType};
use crate::error::{LineIndex, Site, SpecError};
use crate::fill::Fill;
use crate::spec::*;
use crate::tensormap::{
    Interleave, L2Promotion, OobFill, SwizzleAtomicity, SwizzleMode, TensorMapDesc, TensorMapMode,
    TmElemType, MAX_RANK, SWIZZLE_NAMES,
};
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

type Value<'i> = Spanned<DeValue<'i>>;

/// Largest buffer a spec may declare (4 GiB): a bigger one is a typo, and allocating it
/// would abort the process instead of reporting an error. (It was 16 GiB: fuzz/mutate_run.py
/// found that `shape = [4294967295]` of u32 then spends minutes filling 16 GiB of host memory
/// before the engine, and its step budget, ever start.)
pub const MAX_BUFFER_BYTES: usize = 1 << 32;

/// Parses spec text. `file` names the spec in messages; relative paths are joined with `dir`.
/// Does no IO.
pub fn parse_spec(text: &str, file: &str, dir: &Path) -> Result<Spec, SpecError> {
    let cx = Cx {
        file,
        lines: LineIndex::new(text),
    };
    let root = DeTable::parse(text).map_err(|e| {
        let site = match e.span() {
            Some(span) => cx.site(span, ""),
            None => Site::new(1, 1, ""),
        };
        SpecError::new(
            file,
            site,
            format!("invalid TOML: {}", e.message().trim_end()),
        )
    })?;
    let mut top = cx.table(root.get_ref(), "", root.span(), TOP_KEYS)?;
    let ptx_v = top.require("ptx")?;
    let ptx = Located {
        value: dir.join(cx.string(ptx_v, "ptx")?),
        site: cx.site(ptx_v.span(), "ptx"),
    };
    let kernel = match top.take("kernel") {
        Some(v) => Some(Located {
            value: cx.string(v, "kernel")?.to_string(),
            site: cx.site(v.span(), "kernel"),
        }),
        None => None,
    };
    let grid = cx.dim3(top.require("grid")?, "grid")?;
    let block = cx.dim3(top.require("block")?, "block")?;
    let cluster_value = top.take("cluster");
    let cluster_given = cluster_value.is_some();
    let cluster = match cluster_value {
        Some(v) => cx.dim3(v, "cluster")?,
        None => Located {
            value: [1, 1, 1],
            site: grid.site.with_key("cluster"),
        },
    };
    check_launch_limits(&cx, &grid, &block, &cluster)?;
    for axis in 0..3 {
        if grid.value[axis] % cluster.value[axis] != 0 {
            return Err(cx.error(
                &cluster.site,
                format!(
                    "expected a cluster shape that divides the grid {:?}, found {:?} ({} does not divide {} in {})",
                    grid.value, cluster.value, cluster.value[axis], grid.value[axis], ["x", "y", "z"][axis]
                ),
            ));
        }
    }
    let shared_bytes = match top.take("shared_bytes") {
        Some(v) => Located {
            value: cx.int_in(v, "shared_bytes", 0, u32::MAX as i128, "a byte count")? as u32,
            site: cx.site(v.span(), "shared_bytes"),
        },
        None => Located {
            value: 0,
            site: Site::new(1, 1, "shared_bytes"),
        },
    };

    let mut buffers = Vec::new();
    if let Some(v) = top.take("buffers") {
        let table = cx.as_table(v, "buffers")?;
        for (name, bv) in table.iter() {
            let key = format!("buffers.{}", name.get_ref());
            let mut t = cx.table(cx.as_table(bv, &key)?, &key, bv.span(), BUFFER_KEYS)?;
            buffers.push(cx.buffer(&mut t, name.get_ref(), dir)?);
            t.finish()?;
        }
    }

    let mut args = Vec::new();
    if let Some(v) = top.take("arg") {
        for (index, av) in cx.tables_array(v, "arg")?.iter().enumerate() {
            let key = format!("arg[{index}]");
            let t = cx.table(cx.as_table(av, &key)?, &key, av.span(), ARG_KEYS)?;
            args.push(cx.arg(t, index, dir)?);
        }
    }

    let mut expects = Vec::new();
    if let Some(v) = top.take("expect") {
        for (index, ev) in cx.tables_array(v, "expect")?.iter().enumerate() {
            let key = format!("expect[{index}]");
            let t = cx.table(cx.as_table(ev, &key)?, &key, ev.span(), EXPECT_KEYS)?;
            expects.push(cx.expect(t, dir)?);
        }
    }
    top.finish()?;

    let spec = Spec {
        file: file.to_string(),
        dir: dir.to_path_buf(),
        ptx,
        kernel,
        grid,
        block,
        cluster,
        cluster_given,
        shared_bytes,
        buffers,
        args,
        expects,
    };
    check_references(&spec)?;
    Ok(spec)
}

/// CUDA's launch-configuration limits for compute capability 10.0 (CUDA C++ Programming
/// Guide, "Technical Specifications per Compute Capability"): a launch outside them fails on
/// the device with "invalid configuration", so we report it as bad input. Cluster size: 8 is
/// the portable limit, 16 is allowed with the non-portable-cluster-size attribute; we accept 16.
fn check_launch_limits(
    cx: &Cx<'_>,
    grid: &Located<[u32; 3]>,
    block: &Located<[u32; 3]>,
    cluster: &Located<[u32; 3]>,
) -> Result<(), SpecError> {
    let axis_limit = |v: &Located<[u32; 3]>, max: [u32; 3], what: &str| {
        for axis in 0..3 {
            if v.value[axis] > max[axis] {
                return Err(cx.error(
                    &v.site,
                    format!(
                        "expected {what} of at most {:?} (x, y, z), found {:?}",
                        max, v.value
                    ),
                ));
            }
        }
        Ok(())
    };
    axis_limit(grid, [i32::MAX as u32, 65535, 65535], "a grid")?;
    axis_limit(block, [1024, 1024, 64], "a block")?;
    let product = |v: &[u32; 3]| v.iter().map(|&x| x as u64).product::<u64>();
    if product(&block.value) > 1024 {
        return Err(cx.error(
            &block.site,
            format!(
                "expected at most 1024 threads per CTA, found {:?} = {}",
                block.value,
                product(&block.value)
            ),
        ));
    }
    if product(&cluster.value) > 16 {
        return Err(cx.error(
            &cluster.site,
            format!(
                "expected at most 16 CTAs per cluster, found {:?} = {}",
                cluster.value,
                product(&cluster.value)
            ),
        ));
    }
    Ok(())
}

/// Names used by args, packed fields, tensor maps and expects must exist; a tensor map must
/// describe a valid `cuTensorMapEncodeTiled` call over its buffer.
fn check_references(spec: &Spec) -> Result<(), SpecError> {
    let err = |site: &Site, msg: String| SpecError::new(&spec.file, site.clone(), msg);
    let find = |name: &str, site: &Site| {
        spec.buffers.iter().find(|b| b.name == name).ok_or_else(|| {
            let known: Vec<&str> = spec.buffers.iter().map(|b| b.name.as_str()).collect();
            err(
                site,
                format!(
                    "expected the name of a [buffers.NAME] table ({}), found \"{name}\"",
                    if known.is_empty() {
                        "none are declared".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            )
        })
    };
    // An address one past the end is legal to form (as in C); using it is the engine's
    // out-of-bounds check.
    let check_offset = |b: &BufferSpec, offset: u64, site: &Site| {
        if offset > b.byte_len() as u64 {
            return Err(err(
                &site.with_key(format!("{}.offset_bytes", site.key)),
                format!(
                    "expected an offset within buffer '{}' (0..={} bytes), found {offset}",
                    b.name,
                    b.byte_len()
                ),
            ));
        }
        Ok(())
    };
    let mut seen = std::collections::HashSet::new();
    for b in &spec.buffers {
        seen.insert(b.name.as_str());
    }
    for arg in &spec.args {
        match &arg.kind {
            ArgKind::Buffer { name, offset_bytes } => {
                let b = find(name, &arg.site)?;
                check_offset(b, *offset_bytes, &arg.site)?;
            }
            ArgKind::Packed(fields) => {
                for f in fields {
                    if let FieldValue::Buffer { name, offset_bytes } = &f.value {
                        let b = find(name, &f.site)?;
                        check_offset(b, *offset_bytes, &f.site)?;
                    }
                    if let FieldValue::TensorMap(tm) = &f.value {
                        let buf = find(&tm.buffer, &tm.site)?;
                        tensor_map_desc(tm, buf, 0).map_err(|m| err(&tm.site, m))?;
                    }
                }
            }
            ArgKind::TensorMap(tm) => {
                let buf = find(&tm.buffer, &tm.site)?;
                tensor_map_desc(tm, buf, 0).map_err(|m| err(&tm.site, m))?;
            }
            ArgKind::Inline(b) => {
                if seen.contains(b.name.as_str()) {
                    return Err(err(
                        &arg.site,
                        format!(
                            "inline buffers are named arg<N>; a [buffers.{}] table already uses that name",
                            b.name
                        ),
                    ));
                }
            }
            ArgKind::Scalar(_) => {}
        }
    }
    for e in &spec.expects {
        match &e.target {
            ExpectTarget::Buffer(name) => {
                find(name, &e.site.with_key(format!("{}.buffer", e.site.key)))?;
            }
            ExpectTarget::Arg(i) => {
                let ok = spec
                    .args
                    .get(*i)
                    .is_some_and(|a| matches!(a.kind, ArgKind::Buffer { .. } | ArgKind::Inline(_)));
                if !ok {
                    return Err(err(
                        &e.site.with_key(format!("{}.arg", e.site.key)),
                        format!(
                            "expected the index of an [[arg]] that is a buffer (0-based; the spec has {} args), found {i}",
                            spec.args.len()
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The tensor map that `tm` describes over `buf` at `global_address`, validated.
/// Dims and strides come from the buffer's numpy shape (row-major), reversed so that
/// dimension 0 is the innermost, as CUDA counts.
pub fn tensor_map_desc(
    tm: &TensorMapArg,
    buf: &BufferSpec,
    global_address: u64,
) -> Result<TensorMapDesc, String> {
    if let Some(view) = &tm.view {
        return view_map_desc(tm, view, buf, global_address);
    }
    let rank = buf.shape.len();
    if !(1..=MAX_RANK).contains(&rank) {
        return Err(format!(
            "expected a buffer of rank 1 to 5 for a tensor map, buffer '{}' has shape {:?}",
            buf.name, buf.shape
        ));
    }
    if let Some(p) = tm.im2col {
        if !(3..=MAX_RANK).contains(&rank) {
            return Err(format!(
                "expected a buffer of rank 3 to 5 for an im2col tensor map (N, spatial dims, C), buffer '{}' has shape {:?}",
                buf.name, buf.shape
            ));
        }
        let _ = p;
    } else if tm.box_dims.len() != rank {
        return Err(format!(
            "expected 'box' to have {rank} elements (the rank of buffer '{}', shape {:?}; innermost first), found {}",
            buf.name,
            buf.shape,
            tm.box_dims.len()
        ));
    }
    if !tm.elem_strides.is_empty() && tm.elem_strides.len() != rank {
        return Err(format!(
            "expected 'elem_strides' to have {rank} elements (innermost first), found {}",
            tm.elem_strides.len()
        ));
    }
    let elem_type = match tm.elem_type {
        Some(t) if t.bits() != buf.dtype.size() as u64 * 8 => {
            return Err(format!(
            "expected an elem_type of the width of buffer '{}' ({}, {} bits), found {} ({} bits)",
            buf.name,
            buf.dtype,
            buf.dtype.size() * 8,
            t.name(),
            t.bits()
        ))
        }
        Some(t) => t,
        None => tm_elem_type(buf.dtype),
    };
    let esize = buf.dtype.size() as u64;
    let mut d = TensorMapDesc {
        elem_type,
        rank: rank as u8,
        global_address,
        global_dims: [0; MAX_RANK],
        global_strides: [0; MAX_RANK - 1],
        box_dims: [0; MAX_RANK],
        elem_strides: [0; MAX_RANK],
        interleave: tm.interleave,
        swizzle: tm.swizzle,
        swizzle_atomicity: tm.swizzle_atomicity,
        oob_fill: tm.oob_fill,
        l2_promotion: tm.l2_promotion,
        mode: match tm.im2col {
            Some(p) => TensorMapMode::Im2col(p),
            None => TensorMapMode::Tile,
        },
    };
    let mut stride = esize;
    for i in 0..rank {
        let dim = buf.shape[rank - 1 - i] as u64;
        d.global_dims[i] = dim;
        if i > 0 {
            d.global_strides[i - 1] = stride;
        }
        stride = stride.saturating_mul(dim);
        d.box_dims[i] = tm.box_dims.get(i).copied().unwrap_or(0);
        d.elem_strides[i] = tm.elem_strides.get(i).copied().unwrap_or(1);
    }
    d.validate().map_err(|e| match e {
        crate::tensormap::TensorMapError::Invalid(m) => m,
        other => other.to_string(),
    })?;
    Ok(d)
}

/// A tile-mode map with explicit dims and strides over `buf`: the farthest byte it can address
/// must lie inside the buffer.
fn view_map_desc(
    tm: &TensorMapArg,
    view: &crate::spec::TensorMapView,
    buf: &BufferSpec,
    global_address: u64,
) -> Result<TensorMapDesc, String> {
    let rank = view.dims.len();
    if !tm.elem_strides.is_empty() && tm.elem_strides.len() != rank {
        return Err(format!(
            "expected 'elem_strides' to have {rank} elements (innermost first), found {}",
            tm.elem_strides.len()
        ));
    }
    // The dims count elements of the map's type, which need not be the buffer's (CUTLASS moves
    // its u8 scale factors as u16): only the bytes spanned must fit.
    let elem_type = tm.elem_type.unwrap_or_else(|| tm_elem_type(buf.dtype));
    let mut d = TensorMapDesc {
        elem_type,
        rank: rank as u8,
        global_address,
        global_dims: [0; MAX_RANK],
        global_strides: [0; MAX_RANK - 1],
        box_dims: [0; MAX_RANK],
        elem_strides: [0; MAX_RANK],
        interleave: tm.interleave,
        swizzle: tm.swizzle,
        swizzle_atomicity: tm.swizzle_atomicity,
        oob_fill: tm.oob_fill,
        l2_promotion: tm.l2_promotion,
        mode: TensorMapMode::Tile,
    };
    let mut last = (view.dims[0] * elem_type.bits()).div_ceil(8);
    for i in 0..rank {
        d.global_dims[i] = view.dims[i];
        if i > 0 {
            d.global_strides[i - 1] = view.strides[i - 1];
            last = last.saturating_add((view.dims[i] - 1).saturating_mul(view.strides[i - 1]));
        }
        d.box_dims[i] = tm.box_dims.get(i).copied().unwrap_or(0);
        d.elem_strides[i] = tm.elem_strides.get(i).copied().unwrap_or(1);
    }
    let bytes = buf.byte_len() as u64;
    if last > bytes {
        return Err(format!(
            "a tensor map with dims {:?} and strides {:?} spans {last} bytes, more than the {bytes} bytes of buffer '{}'",
            view.dims, view.strides, buf.name
        ));
    }
    d.validate().map_err(|e| match e {
        crate::tensormap::TensorMapError::Invalid(m) => m,
        other => other.to_string(),
    })?;
    Ok(d)
}

/// The tensor-map element type a buffer dtype is copied as. TMA moves bytes, so types without
/// a tensor-map code travel as the unsigned type of their width (fp8 and i8 as u8, i16 as u16).
pub fn tm_elem_type(d: DType) -> TmElemType {
    match d {
        DType::F64 => TmElemType::F64,
        DType::F32 => TmElemType::F32,
        DType::F16 => TmElemType::F16,
        DType::BF16 => TmElemType::BF16,
        DType::Fp8E4M3 | DType::Fp8E5M2 | DType::I8 | DType::U8 => TmElemType::U8,
        DType::I16 | DType::U16 => TmElemType::U16,
        DType::I32 => TmElemType::S32,
        DType::U32 => TmElemType::U32,
        DType::I64 => TmElemType::S64,
        DType::U64 => TmElemType::U64,
    }
}

const TOP_KEYS: &[&str] = &[
    "ptx",
    "kernel",
    "grid",
    "block",
    "cluster",
    "shared_bytes",
    "buffers",
    "arg",
    "expect",
];
const BUFFER_KEYS: &[&str] = &["dtype", "shape", "from", "fill", "random", "save"];
const ARG_KEYS: &[&str] = &[
    "value",
    "buffer",
    "offset_bytes",
    "dtype",
    "shape",
    "from",
    "fill",
    "random",
    "save",
    "packed",
    "tensormap",
];
const EXPECT_KEYS: &[&str] = &["arg", "buffer", "npy", "rtol", "atol"];
const RANDOM_KEYS: &[&str] = &["seed", "low", "high"];
const FIELD_KEYS: &[&str] = &[
    "u8",
    "u16",
    "u32",
    "u64",
    "i8",
    "i16",
    "i32",
    "i64",
    "f16",
    "bf16",
    "f32",
    "f64",
    "buffer",
    "offset_bytes",
    "tensormap",
];
const TENSORMAP_KEYS: &[&str] = &[
    "buffer",
    "elem_type",
    "box",
    "swizzle",
    "elem_strides",
    "interleave",
    "oob_fill",
    "l2_promotion",
    "mode",
    "lower",
    "upper",
    "channels",
    "pixels",
    "dims",
    "strides",
];

struct Cx<'a> {
    file: &'a str,
    lines: LineIndex<'a>,
}

/// A table being read: keys are taken one by one; `finish` rejects whatever is left.
struct TableReader<'c, 'a, 't, 'i> {
    cx: &'c Cx<'a>,
    table: &'t DeTable<'i>,
    path: String,
    span: Range<usize>,
    taken: Vec<&'t str>,
    allowed: Vec<&'static str>,
}

impl<'t, 'i> TableReader<'_, '_, 't, 'i> {
    fn key(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    fn take(&mut self, name: &'static str) -> Option<&'t Value<'i>> {
        self.allowed.push(name);
        let (k, v) = self.table.get_key_value(name)?;
        self.taken.push(k.get_ref().as_ref());
        Some(v)
    }

    fn require(&mut self, name: &'static str) -> Result<&'t Value<'i>, SpecError> {
        self.take(name).ok_or_else(|| {
            let what = if self.path.is_empty() {
                "the spec".to_string()
            } else {
                format!("[{}]", self.path)
            };
            self.cx.error(
                &self.cx.site(self.span.clone(), &self.key(name)),
                format!("missing key: {what} must set '{name}'"),
            )
        })
    }

    fn has(&self, name: &str) -> bool {
        self.table.contains_key(name)
    }

    /// Rejects keys that are known to this kind of table but do not go with the form that was
    /// read (e.g. `offset_bytes` next to `value`), naming the first one and its line.
    fn finish(&self) -> Result<(), SpecError> {
        for (k, _) in self.table.iter() {
            let name: &str = k.get_ref().as_ref();
            if !self.taken.contains(&name) {
                let mut allowed = self.allowed.clone();
                allowed.dedup();
                return Err(self.cx.error(
                    &self.cx.site(k.span(), &self.key(name)),
                    format!(
                        "key not allowed in this form of the table; expected only: {}",
                        allowed.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl<'a> Cx<'a> {
    fn site(&self, span: Range<usize>, key: &str) -> Site {
        let (line, col) = self.lines.position(span.start);
        Site::new(line, col, key)
    }

    fn error(&self, site: &Site, message: impl Into<String>) -> SpecError {
        SpecError::new(self.file, site.clone(), message)
    }

    fn wrong<T>(&self, v: &Value<'_>, key: &str, expected: &str) -> Result<T, SpecError> {
        Err(self.error(
            &self.site(v.span(), key),
            format!("expected {expected}, found {}", describe(v.get_ref())),
        ))
    }

    fn table<'c, 't, 'i>(
        &'c self,
        table: &'t DeTable<'i>,
        path: &str,
        span: Range<usize>,
        known: &'static [&'static str],
    ) -> Result<TableReader<'c, 'a, 't, 'i>, SpecError> {
        for (k, _) in table.iter() {
            let name: &str = k.get_ref().as_ref();
            if !known.contains(&name) {
                let key = if path.is_empty() {
                    name.to_string()
                } else {
                    format!("{path}.{name}")
                };
                return Err(self.error(
                    &self.site(k.span(), &key),
                    format!("unknown key; expected one of: {}", known.join(", ")),
                ));
            }
        }
        Ok(TableReader {
            cx: self,
            table,
            path: path.to_string(),
            span,
            taken: Vec::new(),
            allowed: Vec::new(),
        })
    }

    fn as_table<'t, 'i>(&self, v: &'t Value<'i>, key: &str) -> Result<&'t DeTable<'i>, SpecError> {
        match v.get_ref() {
            DeValue::Table(t) => Ok(t),
            _ => self.wrong(v, key, "a table"),
        }
    }

    fn as_array<'t, 'i>(&self, v: &'t Value<'i>, key: &str) -> Result<&'t DeArray<'i>, SpecError> {
        match v.get_ref() {
            DeValue::Array(a) => Ok(a),
            _ => self.wrong(v, key, "an array"),
        }
    }

    fn tables_array<'t, 'i>(
        &self,
        v: &'t Value<'i>,
        key: &str,
    ) -> Result<&'t DeArray<'i>, SpecError> {
        match v.get_ref() {
            DeValue::Array(a) => Ok(a),
            _ => self.wrong(v, key, &format!("[[{key}]] tables")),
        }
    }

    fn string<'t>(&self, v: &'t Value<'_>, key: &str) -> Result<&'t str, SpecError> {
        match v.get_ref() {
            DeValue::String(s) => Ok(s.as_ref()),
            _ => self.wrong(v, key, "a string"),
        }
    }

    /// An integer literal (any TOML radix) as i128; floats are rejected.
    fn int(&self, v: &Value<'_>, key: &str, expected: &str) -> Result<i128, SpecError> {
        match v.get_ref() {
            DeValue::Integer(i) => {
                let text = i.as_str();
                let (neg, digits) = match text.strip_prefix('-') {
                    Some(d) => (true, d),
                    None => (false, text.strip_prefix('+').unwrap_or(text)),
                };
                let mag = u128::from_str_radix(digits, i.radix())
                    .ok()
                    .filter(|&m| m <= u64::MAX as u128 + 1);
                match mag {
                    Some(m) => Ok(if neg { -(m as i128) } else { m as i128 }),
                    None => self.wrong(v, key, expected),
                }
            }
            _ => self.wrong(v, key, expected),
        }
    }

    fn int_in(
        &self,
        v: &Value<'_>,
        key: &str,
        lo: i128,
        hi: i128,
        what: &str,
    ) -> Result<i128, SpecError> {
        let expected = format!("{what} in {lo}..={hi}");
        let n = self.int(v, key, &expected)?;
        if n < lo || n > hi {
            return Err(self.error(
                &self.site(v.span(), key),
                format!("expected {expected}, found {n}"),
            ));
        }
        Ok(n)
    }

    /// A number: integer or float (`inf` / `nan` allowed).
    fn number(&self, v: &Value<'_>, key: &str) -> Result<Scalar, SpecError> {
        match v.get_ref() {
            DeValue::Integer(_) => Ok(Scalar::Int(self.int(v, key, "a number")?)),
            DeValue::Float(f) => match parse_float(f.as_str()) {
                Some(x) => Ok(Scalar::Float(x)),
                None => self.wrong(v, key, "a number"),
            },
            _ => self.wrong(v, key, "a number"),
        }
    }

    fn float(&self, v: &Value<'_>, key: &str) -> Result<f64, SpecError> {
        match self.number(v, key)? {
            Scalar::Int(i) => Ok(i as f64),
            Scalar::Float(f) => Ok(f),
        }
    }

    /// `[x]`, `[x, y]` or `[x, y, z]` of positive integers; missing ones are 1.
    fn dim3(&self, v: &Value<'_>, key: &str) -> Result<Located<[u32; 3]>, SpecError> {
        let expected = "1 to 3 positive integers";
        let DeValue::Array(items) = v.get_ref() else {
            return self.wrong(v, key, expected);
        };
        if items.is_empty() || items.len() > 3 {
            return Err(self.error(
                &self.site(v.span(), key),
                format!("expected {expected}, found {} elements", items.len()),
            ));
        }
        let mut out = [1u32; 3];
        for (slot, item) in out.iter_mut().zip(items.iter()) {
            *slot = self.int_in(item, key, 1, u32::MAX as i128, "a positive integer")? as u32;
        }
        Ok(Located {
            value: out,
            site: self.site(v.span(), key),
        })
    }

    /// An array of integers in lo..=hi (shape, box, elem_strides).
    fn int_list(
        &self,
        v: &Value<'_>,
        key: &str,
        lo: i128,
        hi: i128,
        what: &str,
    ) -> Result<Vec<i128>, SpecError> {
        let items = match v.get_ref() {
            DeValue::Array(a) => a,
            _ => return self.wrong(v, key, &format!("an array of {what}")),
        };
        items
            .iter()
            .map(|item| self.int_in(item, key, lo, hi, what))
            .collect()
    }

    fn dtype(&self, v: &Value<'_>, key: &str) -> Result<DType, SpecError> {
        let expected = format!("a dtype name ({})", dtype_names());
        let DeValue::String(s) = v.get_ref() else {
            return self.wrong(v, key, &expected);
        };
        DType::from_name(s).ok_or_else(|| {
            self.error(
                &self.site(v.span(), key),
                format!("expected {expected}, found \"{s}\""),
            )
        })
    }

    fn path(&self, v: &Value<'_>, key: &str, dir: &Path) -> Result<PathBuf, SpecError> {
        Ok(dir.join(self.string(v, key)?))
    }

    fn buffer(
        &self,
        t: &mut TableReader<'_, '_, '_, '_>,
        name: &str,
        dir: &Path,
    ) -> Result<BufferSpec, SpecError> {
        let table_site = self.site(t.span.clone(), &t.path);
        let dtype_key = t.key("dtype");
        let dtype = self.dtype(t.require("dtype")?, &dtype_key)?;
        let shape_key = t.key("shape");
        let shape_v = t.require("shape")?;
        let shape: Vec<usize> = self
            .int_list(
                shape_v,
                &shape_key,
                1,
                u32::MAX as i128,
                "positive integers",
            )?
            .into_iter()
            .map(|d| d as usize)
            .collect();
        let bytes = shape
            .iter()
            .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
            .filter(|&b| b <= MAX_BUFFER_BYTES);
        if bytes.is_none() {
            return Err(self.error(
                &self.site(shape_v.span(), &shape_key),
                format!(
                    "expected a buffer of at most {} bytes, found shape {shape:?} of {dtype}",
                    MAX_BUFFER_BYTES
                ),
            ));
        }
        let mut inits = Vec::new();
        if let Some(v) = t.take("from") {
            let key = t.key("from");
            inits.push((
                BufferInit::Npy(self.path(v, &key, dir)?),
                self.site(v.span(), &key),
            ));
        }
        if let Some(v) = t.take("fill") {
            let key = t.key("fill");
            let fill = match self.string(v, &key)? {
                "zeros" => Fill::Zeros,
                "ones" => Fill::Ones,
                "iota" => Fill::Iota,
                other => {
                    return Err(self.error(
                        &self.site(v.span(), &key),
                        format!("expected \"zeros\", \"ones\" or \"iota\", found \"{other}\""),
                    ))
                }
            };
            inits.push((BufferInit::Fill(fill), self.site(v.span(), &key)));
        }
        if let Some(v) = t.take("random") {
            let key = t.key("random");
            inits.push((
                BufferInit::Fill(self.random(v, &key, dtype)?),
                self.site(v.span(), &key),
            ));
        }
        if inits.len() > 1 {
            return Err(self.error(
                &inits[1].1,
                "expected only one of 'from', 'fill' and 'random'",
            ));
        }
        // Without an initialiser a buffer starts as zeros (documented in docs/launch-spec.md).
        let (init, init_site) = inits
            .pop()
            .unwrap_or((BufferInit::Fill(Fill::Zeros), table_site.clone()));
        let save = match t.take("save") {
            Some(v) => Some(self.path(v, &t.key("save"), dir)?),
            None => None,
        };
        Ok(BufferSpec {
            name: name.to_string(),
            dtype,
            shape,
            init,
            init_site,
            save,
            site: table_site,
        })
    }

    fn random(&self, v: &Value<'_>, key: &str, dtype: DType) -> Result<Fill, SpecError> {
        let table = self.as_table(v, key)?;
        let mut t = self.table(table, key, v.span(), RANDOM_KEYS)?;
        let seed_key = t.key("seed");
        let seed = self.int_in(
            t.require("seed")?,
            &seed_key,
            0,
            u64::MAX as i128,
            "an integer",
        )? as u64;
        let (lo_key, hi_key) = (t.key("low"), t.key("high"));
        let (lo_v, hi_v) = (t.require("low")?, t.require("high")?);
        t.finish()?;
        if let Some((min, max)) = dtype.int_range() {
            let what = format!("an integer ({dtype})");
            let low = self.int_in(lo_v, &lo_key, min, max, &what)?;
            // high is exclusive, so it may be one past the type's maximum.
            let high = self.int_in(hi_v, &hi_key, min, max + 1, &what)?;
            if low >= high {
                return Err(self.error(
                    &self.site(hi_v.span(), &hi_key),
                    format!("expected low < high, found low = {low}, high = {high}"),
                ));
            }
            return Ok(Fill::RandomInt { seed, low, high });
        }
        let (low, high) = (self.float(lo_v, &lo_key)?, self.float(hi_v, &hi_key)?);
        if !(low < high && low.is_finite() && high.is_finite()) {
            return Err(self.error(
                &self.site(hi_v.span(), &hi_key),
                format!("expected finite bounds with low < high, found low = {low}, high = {high}"),
            ));
        }
        Ok(Fill::Random { seed, low, high })
    }

    fn arg(
        &self,
        mut t: TableReader<'_, '_, '_, '_>,
        index: usize,
        dir: &Path,
    ) -> Result<ArgSpec, SpecError> {
        let site = self.site(t.span.clone(), &t.path);
        let forms = ["value", "buffer", "dtype", "packed", "tensormap"];
        let present: Vec<&str> = forms.iter().copied().filter(|k| t.has(k)).collect();
        if present.len() != 1 {
            return Err(self.error(
                &site,
                format!(
                    "expected exactly one of 'value', 'buffer', 'dtype' (an inline buffer), 'packed' or 'tensormap' in [[arg]] {index}, found {}",
                    if present.is_empty() { "none".to_string() } else { present.join(", ") }
                ),
            ));
        }
        let kind = match present[0] {
            "value" => {
                let key = t.key("value");
                ArgKind::Scalar(self.number(t.require("value")?, &key)?)
            }
            "buffer" => {
                let key = t.key("buffer");
                let name = self.string(t.require("buffer")?, &key)?.to_string();
                let offset_bytes = self.offset(&mut t)?;
                ArgKind::Buffer { name, offset_bytes }
            }
            "dtype" => {
                // An inline buffer: the same keys as a [buffers.NAME] table.
                ArgKind::Inline(self.buffer(&mut t, &format!("arg{index}"), dir)?)
            }
            "packed" => {
                let key = t.key("packed");
                let v = t.require("packed")?;
                let items = self.as_array(v, &key)?;
                let mut fields = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    fields.push(self.packed_field(item, &format!("{key}[{i}]"))?);
                }
                ArgKind::Packed(fields)
            }
            _ => {
                let key = t.key("tensormap");
                let v = t.require("tensormap")?;
                ArgKind::TensorMap(self.tensormap(v, &key)?)
            }
        };
        t.finish()?;
        Ok(ArgSpec { index, site, kind })
    }

    fn offset(&self, t: &mut TableReader<'_, '_, '_, '_>) -> Result<u64, SpecError> {
        let key = t.key("offset_bytes");
        Ok(match t.take("offset_bytes") {
            Some(v) => self.int_in(v, &key, 0, u64::MAX as i128 / 2, "a byte offset")? as u64,
            None => 0,
        })
    }

    fn packed_field(&self, v: &Value<'_>, key: &str) -> Result<PackedField, SpecError> {
        let site = self.site(v.span(), key);
        let table = match v.get_ref() {
            DeValue::Table(t) => t,
            _ => {
                return self.wrong(
                    v,
                    key,
                    "an inline table with one typed value ({ u32 = 256 }, { f32 = 1.5 }, { buffer = \"a\" })",
                )
            }
        };
        let mut t = self.table(table, key, v.span(), FIELD_KEYS)?;
        const TYPES: [&str; 12] = [
            "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
        ];
        let present: Vec<&str> = TYPES
            .iter()
            .copied()
            .chain(["buffer", "tensormap"])
            .filter(|k| t.has(k))
            .collect();
        if present.len() != 1 {
            return Err(self.error(
                &site,
                format!(
                    "expected exactly one typed value (u8..u64, i8..i64, f16, bf16, f32, f64, buffer or tensormap) in a packed field, found {}",
                    if present.is_empty() { "none".to_string() } else { present.join(", ") }
                ),
            ));
        }
        let value = if present[0] == "tensormap" {
            let tkey = t.key("tensormap");
            let tv = t.take("tensormap").expect("present");
            FieldValue::TensorMap(Box::new(self.tensormap(tv, &tkey)?))
        } else if present[0] == "buffer" {
            let bkey = t.key("buffer");
            let name = self.string(t.require("buffer")?, &bkey)?.to_string();
            let offset_bytes = self.offset(&mut t)?;
            FieldValue::Buffer { name, offset_bytes }
        } else {
            let ty_name = TYPES
                .iter()
                .copied()
                .find(|k| *k == present[0])
                .expect("listed");
            let dtype = DType::from_name(ty_name).expect("a dtype name");
            let vkey = t.key(ty_name);
            let vv = t.take(ty_name).expect("present");
            let value = self.typed_number(vv, &vkey, dtype)?;
            FieldValue::Number { dtype, value }
        };
        t.finish()?;
        Ok(PackedField { site, value })
    }

    /// A number that must fit `dtype`: integers in range for integer types (either the signed
    /// or the unsigned reading of the bits for the unsigned types, so `u32 = -1` is rejected
    /// but `i32 = -1` is fine); any number for float types.
    fn typed_number(&self, v: &Value<'_>, key: &str, dtype: DType) -> Result<Scalar, SpecError> {
        match dtype.int_range() {
            Some((lo, hi)) => Ok(Scalar::Int(self.int_in(
                v,
                key,
                lo,
                hi,
                &format!("an integer ({dtype})"),
            )?)),
            None => Ok(Scalar::Float(self.float(v, key)?)),
        }
    }

    /// `dims` and `strides` of a tile-mode map (both or neither): one dim per box entry, one
    /// stride per dim after the first.
    fn tensormap_view(
        &self,
        t: &mut TableReader<'_, '_, '_, '_>,
        im2col: bool,
        rank: usize,
    ) -> Result<Option<crate::spec::TensorMapView>, SpecError> {
        let (dv, sv) = (t.take("dims"), t.take("strides"));
        let (dv, sv) = match (dv, sv) {
            (None, None) => return Ok(None),
            (Some(d), Some(s)) => (d, s),
            (Some(v), None) | (None, Some(v)) => {
                return Err(self.error(
                    &self.site(v.span(), &t.key("dims")),
                    "expected both 'dims' and 'strides' in a tensor map, or neither".to_string(),
                ))
            }
        };
        let (dkey, skey) = (t.key("dims"), t.key("strides"));
        if im2col {
            return Err(self.error(
                &self.site(dv.span(), &dkey),
                "expected no 'dims' in an im2col tensor map (it follows the buffer's shape)"
                    .to_string(),
            ));
        }
        let dims: Vec<u64> = self
            .int_list(dv, &dkey, 1, 1 << 32, "global dims")?
            .into_iter()
            .map(|x| x as u64)
            .collect();
        let strides: Vec<u64> = self
            .int_list(sv, &skey, 1, (1 << 40) - 1, "global strides in bytes")?
            .into_iter()
            .map(|x| x as u64)
            .collect();
        if dims.len() != rank {
            return Err(self.error(
                &self.site(dv.span(), &dkey),
                format!(
                    "expected 'dims' to have one entry per 'box' entry ({rank}), found {}",
                    dims.len()
                ),
            ));
        }
        if strides.len() + 1 != rank {
            return Err(self.error(
                &self.site(sv.span(), &skey),
                format!(
                    "expected 'strides' to have {} entries (dims 1.., in bytes), found {}",
                    rank.saturating_sub(1),
                    strides.len()
                ),
            ));
        }
        Ok(Some(crate::spec::TensorMapView { dims, strides }))
    }

    fn tensormap(&self, v: &Value<'_>, key: &str) -> Result<TensorMapArg, SpecError> {
        let table = self.as_table(v, key)?;
        let mut t = self.table(table, key, v.span(), TENSORMAP_KEYS)?;
        let bkey = t.key("buffer");
        let buffer = self.string(t.require("buffer")?, &bkey)?.to_string();
        let im2col = match t.take("mode") {
            None => false,
            Some(mv) => {
                let mkey = t.key("mode");
                match mv.get_ref() {
                    DeValue::String(s) if s.as_ref() == "tile" => false,
                    DeValue::String(s) if s.as_ref() == "im2col" => true,
                    _ => {
                        return self.wrong(mv, &mkey, "a tensor map mode (\"tile\" or \"im2col\")")
                    }
                }
            }
        };
        let (box_dims, im2col) = if im2col {
            // tmemu extension (docs/launch-spec.md): the cuTensorMapEncodeIm2col fields.
            let corner = |t: &mut TableReader<'_, '_, '_, '_>, name: &'static str| {
                let key = t.key(name);
                let v = t.require(name)?;
                let list = self.int_list(v, &key, -32768, 32767, "pixel-box corner offsets")?;
                if list.len() > 3 {
                    return Err(self.error(
                        &self.site(v.span(), &key),
                        format!(
                            "expected one corner offset per spatial dimension (1 to 3, W first), found {}",
                            list.len()
                        ),
                    ));
                }
                let mut c = [0i16; 3];
                for (j, x) in list.into_iter().enumerate() {
                    c[j] = x as i16;
                }
                Ok(c)
            };
            let lower = corner(&mut t, "lower")?;
            let upper = corner(&mut t, "upper")?;
            let ckey = t.key("channels");
            let channels =
                self.int_in(t.require("channels")?, &ckey, 1, 256, "channels per pixel")? as u16;
            let pkey = t.key("pixels");
            let pixels =
                self.int_in(t.require("pixels")?, &pkey, 1, 1024, "pixels per column")? as u16;
            if let Some(bv) = t.take("box") {
                return Err(self.error(
                    &self.site(bv.span(), &t.key("box")),
                    "expected no 'box' in an im2col tensor map (channels and pixels give its shape)".to_string(),
                ));
            }
            (
                Vec::new(),
                Some(crate::tensormap::Im2colParams {
                    lower,
                    upper,
                    channels,
                    pixels,
                }),
            )
        } else {
            let box_key = t.key("box");
            let box_dims = self
                .int_list(t.require("box")?, &box_key, 1, 256, "box sizes")?
                .into_iter()
                .map(|x| x as u32)
                .collect();
            (box_dims, None)
        };
        let (swizzle, swizzle_atomicity) = match t.take("swizzle") {
            Some(sv) => {
                let skey = t.key("swizzle");
                let names: Vec<&str> = SWIZZLE_NAMES.iter().map(|s| s.0).collect();
                let expected = format!("a swizzle ({})", names.join(", "));
                let DeValue::String(s) = sv.get_ref() else {
                    return self.wrong(sv, &skey, &expected);
                };
                let found = SWIZZLE_NAMES.iter().find(|(n, _, _)| *n == s.as_ref());
                match found {
                    Some(&(_, mode, atom)) => (mode, atom),
                    None => {
                        return Err(self.error(
                            &self.site(sv.span(), &skey),
                            format!("expected {expected}, found \"{s}\""),
                        ))
                    }
                }
            }
            None => (SwizzleMode::None, SwizzleAtomicity::B16),
        };
        let elem_strides = match t.take("elem_strides") {
            Some(ev) => self
                .int_list(ev, &t.key("elem_strides"), 1, 8, "element strides")?
                .into_iter()
                .map(|x| x as u32)
                .collect(),
            None => Vec::new(),
        };
        // Sub-byte types (b4x16, b4x16_p64, b6x16_p32) count dims in elements of fewer than 8
        // bits, which a buffer's shape cannot give: they are allowed only with explicit `dims`
        // and `strides` (checked below, once the view is read).
        let mut sub_byte_site = None;
        let elem_type = match t.take("elem_type") {
            Some(ev) => {
                let ekey = t.key("elem_type");
                let names: Vec<&str> = TmElemType::ALL
                    .iter()
                    .filter(|t| !t.is_sub_byte())
                    .map(|t| t.name())
                    .collect();
                let expected = format!(
                    "a tensor map element type ({}; with explicit dims and strides also b4x16, \
                     b4x16_p64, b6x16_p32)",
                    names.join(", ")
                );
                let DeValue::String(s) = ev.get_ref() else {
                    return self.wrong(ev, &ekey, &expected);
                };
                match TmElemType::from_name(s) {
                    Some(t) => {
                        if t.is_sub_byte() {
                            sub_byte_site =
                                Some((self.site(ev.span(), &ekey), expected, s.to_string()));
                        }
                        Some(t)
                    }
                    None => {
                        return Err(self.error(
                            &self.site(ev.span(), &ekey),
                            format!("expected {expected}, found \"{s}\""),
                        ))
                    }
                }
            }
            None => None,
        };
        let interleave = self.named_code(
            &mut t,
            "interleave",
            Interleave::NAMES,
            Interleave::from_name,
        )?;
        let oob_fill = self.named_code(&mut t, "oob_fill", OobFill::NAMES, OobFill::from_name)?;
        let l2_promotion = self.named_code(
            &mut t,
            "l2_promotion",
            L2Promotion::NAMES,
            L2Promotion::from_name,
        )?;
        let view = self.tensormap_view(&mut t, im2col.is_some(), box_dims.len())?;
        if let (Some((site, expected, name)), None) = (sub_byte_site, &view) {
            return Err(self.error(
                &site,
                format!("expected {expected}, found \"{name}\" without 'dims' and 'strides'"),
            ));
        }
        t.finish()?;
        Ok(TensorMapArg {
            view,
            buffer,
            elem_type,
            box_dims,
            elem_strides,
            swizzle,
            swizzle_atomicity,
            interleave,
            oob_fill,
            l2_promotion,
            im2col,
            site: self.site(v.span(), key),
        })
    }

    fn named_code<T: Default>(
        &self,
        t: &mut TableReader<'_, '_, '_, '_>,
        name: &'static str,
        names: &[&str],
        parse: fn(&str) -> Option<T>,
    ) -> Result<T, SpecError> {
        let key = t.key(name);
        let Some(v) = t.take(name) else {
            return Ok(T::default());
        };
        let expected = format!("one of {}", names.join(", "));
        let DeValue::String(s) = v.get_ref() else {
            return self.wrong(v, &key, &expected);
        };
        parse(s).ok_or_else(|| {
            self.error(
                &self.site(v.span(), &key),
                format!("expected {expected}, found \"{s}\""),
            )
        })
    }

    fn expect(
        &self,
        mut t: TableReader<'_, '_, '_, '_>,
        dir: &Path,
    ) -> Result<ExpectSpec, SpecError> {
        let site = self.site(t.span.clone(), &t.path);
        let target = match (t.has("arg"), t.has("buffer")) {
            (true, false) => {
                let key = t.key("arg");
                let v = t.require("arg")?;
                ExpectTarget::Arg(
                    self.int_in(v, &key, 0, u32::MAX as i128, "an argument index")? as usize,
                )
            }
            (false, true) => {
                let key = t.key("buffer");
                ExpectTarget::Buffer(self.string(t.require("buffer")?, &key)?.to_string())
            }
            _ => return Err(self.error(
                &site,
                "expected exactly one of 'arg' (an argument index) and 'buffer' (a buffer name)",
            )),
        };
        let npy_key = t.key("npy");
        let npy_v = t.require("npy")?;
        let npy = Located {
            value: self.path(npy_v, &npy_key, dir)?,
            site: self.site(npy_v.span(), &npy_key),
        };
        let tol = |t: &mut TableReader<'_, '_, '_, '_>, name: &'static str, default: f64| {
            let key = t.key(name);
            match t.take(name) {
                Some(v) => {
                    let x = self.float(v, &key)?;
                    if !(x >= 0.0 && x.is_finite()) {
                        return Err(self.error(
                            &self.site(v.span(), &key),
                            format!("expected a finite tolerance >= 0, found {x}"),
                        ));
                    }
                    Ok(x)
                }
                None => Ok(default),
            }
        };
        let rtol = tol(&mut t, "rtol", DEFAULT_RTOL)?;
        let atol = tol(&mut t, "atol", DEFAULT_ATOL)?;
        t.finish()?;
        Ok(ExpectSpec {
            target,
            npy,
            rtol,
            atol,
            site,
        })
    }
}

/// TOML float text → f64 (`inf`, `nan`, `_` separators allowed).
fn parse_float(text: &str) -> Option<f64> {
    let clean: String = text.chars().filter(|&c| c != '_').collect();
    match clean.as_str() {
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        s => s.parse().ok(),
    }
}

fn describe(v: &DeValue<'_>) -> String {
    match v {
        DeValue::String(s) => format!("string \"{s}\""),
        DeValue::Integer(i) => format!("integer {i}"),
        DeValue::Float(f) => format!("float {f}"),
        DeValue::Boolean(b) => format!("boolean {b}"),
        DeValue::Datetime(d) => format!("datetime {d}"),
        DeValue::Array(a) => format!("an array of {} elements", a.len()),
        DeValue::Table(_) => "a table".to_string(),
    }
}
