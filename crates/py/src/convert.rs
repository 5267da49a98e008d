//! Plain Python values → a [`Spec`]: the Python package's front end to tmemu-spec.
//!
//! Every array is a named buffer (`[buffers.NAME]` in TOML terms) holding its bytes
//! ([`BufferInit::Bytes`]); pointer arguments refer to it by name and tensor maps describe it,
//! so one array passed twice is one device allocation.

use std::path::PathBuf;

use tmemu_spec::tensormap::{
    Interleave, L2Promotion, OobFill, SwizzleAtomicity, SwizzleMode, TmElemType, SWIZZLE_NAMES,
};
use tmemu_spec::{
    ArgKind, ArgSpec, BufferInit, BufferSpec, DType, FieldValue, Located, PackedField, Scalar,
    Site, Spec, TensorMapArg,
};

/// The "file" that launch errors name: the caller's arguments, not a spec file.
pub const ORIGIN: &str = "tmemu.launch";

/// One array, as the Python side hands it over.
pub struct ArrayIn {
    pub name: String,
    pub dtype: String,
    pub shape: Vec<usize>,
    pub bytes: Vec<u8>,
}

/// One argument, as the Python side hands it over (a tagged tuple there).
pub enum ArgIn {
    Int(i128),
    Float(f64),
    Null,
    /// Index into the arrays.
    Buffer(usize),
    TensorMap(TensorMapIn),
    /// Fields of a `.b8` array parameter (CuTe DSL passes layouts and tensors this way).
    Packed(Vec<FieldIn>),
}

/// One packed field: a typed number, or the address of an array (index) plus an offset.
pub enum FieldIn {
    Int { dtype: String, value: i128 },
    Float { dtype: String, value: f64 },
    Buffer { array: usize, offset_bytes: u64 },
}

/// The field types a launch spec's `packed` accepts (fp8 has no field form there either).
const FIELD_TYPES: [&str; 12] = [
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
];

pub struct TensorMapIn {
    pub array: usize,
    /// Innermost first, as `cuTensorMapEncodeTiled` counts.
    pub box_dims: Vec<u32>,
    pub swizzle: String,
    pub elem_strides: Vec<u32>,
    pub interleave: Option<String>,
    pub oob_fill: Option<String>,
    pub l2_promotion: Option<String>,
    pub elem_type: Option<String>,
}

/// Launch geometry, as given.
pub struct Geometry {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub cluster: [u32; 3],
    pub shared_bytes: u32,
}

fn err(key: &str, message: String) -> String {
    tmemu_spec::SpecError::new(ORIGIN, Site::unplaced(key), message).to_string()
}

fn named<T: Copy>(
    key: &str,
    what: &str,
    text: Option<&str>,
    names: &[&str],
    parse: fn(&str) -> Option<T>,
    default: T,
) -> Result<T, String> {
    match text {
        None => Ok(default),
        Some(s) => parse(s).ok_or_else(|| {
            err(
                key,
                format!("expected {what} ({}), found \"{s}\"", names.join(", ")),
            )
        }),
    }
}

/// A packed field, range-checked like the launch spec's `typed_number`: integers must fit an
/// integer type (`u32 = -1` is an error, `i32 = -1` is not); a float for an integer type is an
/// error; an integer for a float type is converted (rounded to nearest even).
fn packed_field(key: &str, f: &FieldIn, arrays: &[ArrayIn]) -> Result<PackedField, String> {
    let dtype_of = |name: &str| {
        FIELD_TYPES
            .contains(&name)
            .then(|| DType::from_name(name))
            .flatten()
            .ok_or_else(|| {
                err(
                    key,
                    format!(
                        "expected a field type ({}), found '{name}'",
                        FIELD_TYPES.join(", ")
                    ),
                )
            })
    };
    let value = match f {
        FieldIn::Int { dtype, value } => {
            let d = dtype_of(dtype)?;
            match d.int_range() {
                Some((lo, hi)) if !(lo..=hi).contains(value) => {
                    return Err(err(
                        key,
                        format!("expected an integer from {lo} to {hi} ({d}), found {value}"),
                    ))
                }
                Some(_) => FieldValue::Number {
                    dtype: d,
                    value: Scalar::Int(*value),
                },
                None => FieldValue::Number {
                    dtype: d,
                    value: Scalar::Float(*value as f64),
                },
            }
        }
        FieldIn::Float { dtype, value } => {
            let d = dtype_of(dtype)?;
            if !d.is_float() {
                return Err(err(
                    key,
                    format!("expected an integer for a {d} field, found the float {value}"),
                ));
            }
            FieldValue::Number {
                dtype: d,
                value: Scalar::Float(*value),
            }
        }
        FieldIn::Buffer {
            array,
            offset_bytes,
        } => FieldValue::Buffer {
            name: arrays
                .get(*array)
                .ok_or_else(|| err(key, format!("no array {array}")))?
                .name
                .clone(),
            offset_bytes: *offset_bytes,
        },
    };
    Ok(PackedField {
        site: Site::unplaced(key),
        value,
    })
}

fn tensor_map(index: usize, tm: &TensorMapIn, arrays: &[ArrayIn]) -> Result<TensorMapArg, String> {
    let key = format!("arg[{index}].tensormap");
    let (swizzle, swizzle_atomicity): (SwizzleMode, SwizzleAtomicity) = SWIZZLE_NAMES
        .iter()
        .find(|(n, _, _)| *n == tm.swizzle)
        .map(|&(_, m, a)| (m, a))
        .ok_or_else(|| {
            let names: Vec<&str> = SWIZZLE_NAMES.iter().map(|s| s.0).collect();
            err(
                &format!("{key}.swizzle"),
                format!(
                    "expected a swizzle ({}), found \"{}\"",
                    names.join(", "),
                    tm.swizzle
                ),
            )
        })?;
    if let Some(b) = tm.box_dims.iter().find(|&&b| !(1..=256).contains(&b)) {
        return Err(err(
            &format!("{key}.box"),
            format!("expected box sizes from 1 to 256, found {b}"),
        ));
    }
    if let Some(s) = tm.elem_strides.iter().find(|&&s| !(1..=8).contains(&s)) {
        return Err(err(
            &format!("{key}.elem_strides"),
            format!("expected element strides from 1 to 8, found {s}"),
        ));
    }
    let elem_type = match &tm.elem_type {
        None => None,
        Some(s) => Some(
            TmElemType::from_name(s)
                .filter(|t| !t.is_sub_byte())
                .ok_or_else(|| {
                    let names: Vec<&str> = TmElemType::ALL
                        .iter()
                        .filter(|t| !t.is_sub_byte())
                        .map(|t| t.name())
                        .collect();
                    err(
                        &format!("{key}.elem_type"),
                        format!(
                            "expected a tensor map element type ({}), found \"{s}\"",
                            names.join(", ")
                        ),
                    )
                })?,
        ),
    };
    Ok(TensorMapArg {
        buffer: arrays[tm.array].name.clone(),
        im2col: None,
        view: None,
        elem_type,
        box_dims: tm.box_dims.clone(),
        elem_strides: tm.elem_strides.clone(),
        swizzle,
        swizzle_atomicity,
        interleave: named(
            &format!("{key}.interleave"),
            "an interleave",
            tm.interleave.as_deref(),
            Interleave::NAMES,
            Interleave::from_name,
            Interleave::default(),
        )?,
        oob_fill: named(
            &format!("{key}.oob_fill"),
            "an out-of-bounds fill",
            tm.oob_fill.as_deref(),
            OobFill::NAMES,
            OobFill::from_name,
            OobFill::default(),
        )?,
        l2_promotion: named(
            &format!("{key}.l2_promotion"),
            "an L2 promotion",
            tm.l2_promotion.as_deref(),
            L2Promotion::NAMES,
            L2Promotion::from_name,
            L2Promotion::default(),
        )?,
        site: Site::unplaced(key),
    })
}

/// Builds the spec; `Err` is a finished `tmemu.launch: error: key '...': ...` message.
pub fn build_spec(
    geometry: &Geometry,
    kernel: Option<&str>,
    arrays: Vec<ArrayIn>,
    args: &[ArgIn],
) -> Result<Spec, String> {
    let mut buffers = Vec::with_capacity(arrays.len());
    let mut spec_args = Vec::with_capacity(args.len());
    for (index, a) in args.iter().enumerate() {
        let key = format!("arg[{index}]");
        let kind = match a {
            ArgIn::Int(v) => ArgKind::Scalar(Scalar::Int(*v)),
            ArgIn::Float(v) => ArgKind::Scalar(Scalar::Float(*v)),
            ArgIn::Null => ArgKind::Scalar(Scalar::Int(0)),
            ArgIn::Buffer(i) => {
                let a = arrays
                    .get(*i)
                    .ok_or_else(|| err(&key, format!("no array {i}")))?;
                ArgKind::Buffer {
                    name: a.name.clone(),
                    offset_bytes: 0,
                }
            }
            ArgIn::TensorMap(tm) => {
                if tm.array >= arrays.len() {
                    return Err(err(&key, format!("no array {}", tm.array)));
                }
                ArgKind::TensorMap(tensor_map(index, tm, &arrays)?)
            }
            ArgIn::Packed(fields) => ArgKind::Packed(
                fields
                    .iter()
                    .enumerate()
                    .map(|(j, f)| packed_field(&format!("{key}.packed[{j}]"), f, &arrays))
                    .collect::<Result<_, _>>()?,
            ),
        };
        spec_args.push(ArgSpec {
            index,
            site: Site::unplaced(key),
            kind,
        });
    }
    for a in arrays {
        let key = format!("buffers.{}", a.name);
        let dtype = DType::from_name(&a.dtype).ok_or_else(|| {
            err(
                &key,
                format!(
                    "expected a dtype tmemu knows ({}), found '{}'",
                    DType::ALL.map(|d| d.name()).join(", "),
                    a.dtype
                ),
            )
        })?;
        buffers.push(BufferSpec {
            name: a.name,
            dtype,
            shape: a.shape,
            init: BufferInit::Bytes(a.bytes),
            init_site: Site::unplaced(key.clone()),
            save: None,
            site: Site::unplaced(key),
        });
    }
    let at = |key: &str| Site::unplaced(key);
    Ok(Spec {
        file: ORIGIN.to_string(),
        dir: PathBuf::new(),
        // Never read: the PTX text is handed over directly.
        ptx: Located {
            value: PathBuf::new(),
            site: at("ptx"),
        },
        kernel: kernel.map(|k| Located {
            value: k.to_string(),
            site: at("kernel"),
        }),
        grid: Located {
            value: geometry.grid,
            site: at("grid"),
        },
        block: Located {
            value: geometry.block,
            site: at("block"),
        },
        cluster: Located {
            value: geometry.cluster,
            site: at("cluster"),
        },
        cluster_given: geometry.cluster != [1, 1, 1],
        shared_bytes: Located {
            value: geometry.shared_bytes,
            site: at("shared_bytes"),
        },
        buffers,
        args: spec_args,
        expects: Vec::new(),
    })
}
