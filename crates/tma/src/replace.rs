//! `tensormap.replace.tile.FIELD.{space}.b1024.{b32|b64} [map], {ord,} new_val`
//! (PTX ISA 9.1 §9.7.9.28; bulk-copies.md §2.4) as a pure function on tmemu's 128-byte map
//! encoding (`tmemu_spec::tensormap`).
//!
//! Values are stored as the instruction gives them, which is also how `cuTensorMapEncodeTiled`
//! takes them, except `.rank`, whose operand is rank − 1. The enumerated fields take the PTX
//! codes of Table 33, which is what the encoding stores. Compilers build maps on the device by
//! zero-filling 128 bytes and replacing every field (Triton's device-side descriptor creation),
//! so an all-zero object is accepted as the map whose every field is zero.
//!
//! No rule of `cuTensorMapEncodeTiled` is checked here: a map may be invalid between two
//! replaces, and is validated when a copy uses it. What is refused is what cannot be stored:
//! an ordinal outside the map, a code outside its table, a value wider than the field.

use tmemu_spec::tensormap::{
    Interleave, OobFill, SwizzleAtomicity, SwizzleMode, TensorMapDesc, TensorMapError,
    TensorMapMode, TmElemType, MAX_RANK, TENSOR_MAP_BYTES,
};

/// A field `tensormap.replace` can write. Ordinals are dimension indices, innermost first;
/// `GlobalStride(i)` is the byte stride of dimension `i + 1` (the driver's `globalStrides[i]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReplaceField {
    GlobalAddress,
    Rank,
    BoxDim(u8),
    GlobalDim(u8),
    GlobalStride(u8),
    ElementStride(u8),
    ElemType,
    InterleaveLayout,
    SwizzleMode,
    SwizzleAtomicity,
    FillMode,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplaceError {
    #[error("unknown tensormap.replace field '.{0}'")]
    UnknownField(String),
    #[error("tensormap.replace .{field} needs an ordinal")]
    MissingOrdinal { field: &'static str },
    #[error("tensormap.replace .{field} takes no ordinal")]
    UnexpectedOrdinal { field: &'static str },
    #[error("ordinal {ord} is out of range for .{field} (at most {max})")]
    Ordinal {
        field: &'static str,
        ord: u32,
        max: u32,
    },
    #[error("value {value:#x} does not fit .{field}")]
    Value { field: &'static str, value: u64 },
    #[error("the object is not a tensor map: {0}")]
    NotAMap(#[from] TensorMapError),
}

impl ReplaceField {
    /// The field for PTX spelling `name` (without the dot) and its ordinal operand.
    pub fn parse(name: &str, ord: Option<u32>) -> Result<ReplaceField, ReplaceError> {
        let with_ord = |field: &'static str, max: u32, make: fn(u8) -> ReplaceField| {
            let ord = ord.ok_or(ReplaceError::MissingOrdinal { field })?;
            if ord > max {
                return Err(ReplaceError::Ordinal { field, ord, max });
            }
            Ok(make(ord as u8))
        };
        let plain = |f: ReplaceField| match ord {
            Some(_) => Err(ReplaceError::UnexpectedOrdinal { field: f.name() }),
            None => Ok(f),
        };
        let last = MAX_RANK as u32 - 1;
        match name {
            "box_dim" => with_ord("box_dim", last, ReplaceField::BoxDim),
            "global_dim" => with_ord("global_dim", last, ReplaceField::GlobalDim),
            "global_stride" => with_ord("global_stride", last - 1, ReplaceField::GlobalStride),
            "element_stride" => with_ord("element_stride", last, ReplaceField::ElementStride),
            "global_address" => plain(ReplaceField::GlobalAddress),
            "rank" => plain(ReplaceField::Rank),
            "elemtype" => plain(ReplaceField::ElemType),
            "interleave_layout" => plain(ReplaceField::InterleaveLayout),
            "swizzle_mode" => plain(ReplaceField::SwizzleMode),
            "swizzle_atomicity" => plain(ReplaceField::SwizzleAtomicity),
            "fill_mode" => plain(ReplaceField::FillMode),
            _ => Err(ReplaceError::UnknownField(name.to_string())),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ReplaceField::GlobalAddress => "global_address",
            ReplaceField::Rank => "rank",
            ReplaceField::BoxDim(_) => "box_dim",
            ReplaceField::GlobalDim(_) => "global_dim",
            ReplaceField::GlobalStride(_) => "global_stride",
            ReplaceField::ElementStride(_) => "element_stride",
            ReplaceField::ElemType => "elemtype",
            ReplaceField::InterleaveLayout => "interleave_layout",
            ReplaceField::SwizzleMode => "swizzle_mode",
            ReplaceField::SwizzleAtomicity => "swizzle_atomicity",
            ReplaceField::FillMode => "fill_mode",
        }
    }

    /// Width of the `new_val` operand: `.b64` for the address and strides, `.b32` otherwise.
    pub fn value_bits(self) -> u32 {
        match self {
            ReplaceField::GlobalAddress | ReplaceField::GlobalStride(_) => 64,
            _ => 32,
        }
    }
}

/// The map stored in `bytes` for editing: a tmemu map (valid or not), or the all-zero map.
pub fn decode_for_replace(bytes: &[u8; TENSOR_MAP_BYTES]) -> Result<TensorMapDesc, ReplaceError> {
    if bytes.iter().all(|&b| b == 0) {
        return Ok(TensorMapDesc {
            elem_type: TmElemType::U8,
            rank: 0,
            global_address: 0,
            global_dims: [0; MAX_RANK],
            global_strides: [0; MAX_RANK - 1],
            box_dims: [0; MAX_RANK],
            elem_strides: [0; MAX_RANK],
            interleave: Interleave::None,
            swizzle: SwizzleMode::None,
            swizzle_atomicity: SwizzleAtomicity::B16,
            oob_fill: OobFill::Zero,
            l2_promotion: Default::default(),
            mode: TensorMapMode::Tile,
        });
    }
    Ok(TensorMapDesc::decode_unvalidated(bytes)?)
}

/// Applies one field replacement to a decoded map.
pub fn replace_field(
    d: &mut TensorMapDesc,
    field: ReplaceField,
    value: u64,
) -> Result<(), ReplaceError> {
    let name = field.name();
    let bad = || ReplaceError::Value { field: name, value };
    let code = || u8::try_from(value).map_err(|_| bad());
    let value32 = || u32::try_from(value).map_err(|_| bad());
    match field {
        ReplaceField::GlobalAddress => d.global_address = value,
        ReplaceField::Rank => {
            // The operand is rank - 1.
            if value >= MAX_RANK as u64 {
                return Err(bad());
            }
            d.rank = value as u8 + 1;
        }
        ReplaceField::BoxDim(i) => {
            // The encoding keeps 16 bits; legal boxes are at most 256.
            let v = value32()?;
            if v > u32::from(u16::MAX) {
                return Err(bad());
            }
            d.box_dims[i as usize] = v;
        }
        ReplaceField::GlobalDim(i) => d.global_dims[i as usize] = u64::from(value32()?),
        ReplaceField::GlobalStride(i) => d.global_strides[i as usize] = value,
        ReplaceField::ElementStride(i) => d.elem_strides[i as usize] = u32::from(code()?),
        ReplaceField::ElemType => d.elem_type = TmElemType::from_code(code()?).ok_or_else(bad)?,
        ReplaceField::InterleaveLayout => {
            d.interleave = Interleave::from_code(code()?).ok_or_else(bad)?
        }
        ReplaceField::SwizzleMode => d.swizzle = SwizzleMode::from_code(code()?).ok_or_else(bad)?,
        ReplaceField::SwizzleAtomicity => {
            d.swizzle_atomicity = SwizzleAtomicity::from_code(code()?).ok_or_else(bad)?
        }
        ReplaceField::FillMode => d.oob_fill = OobFill::from_code(code()?).ok_or_else(bad)?,
    }
    Ok(())
}

/// `tensormap.replace` on the 128 bytes of a map in memory: decode, replace, re-encode.
/// On error the bytes are left unchanged.
pub fn tensormap_replace(
    bytes: &mut [u8; TENSOR_MAP_BYTES],
    field: ReplaceField,
    value: u64,
) -> Result<(), ReplaceError> {
    let mut d = decode_for_replace(bytes)?;
    replace_field(&mut d, field, value)?;
    *bytes = d.encode();
    Ok(())
}
