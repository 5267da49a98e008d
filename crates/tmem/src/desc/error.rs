//! Descriptor errors, each tied to a catalogued rule.

use crate::rules::{self, Rule};

/// Why a descriptor (or a descriptor/instruction combination) is illegal or unmodelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescError {
    /// Shared-memory descriptor bits 46–48 are not the fixed 0b001.
    SmemVersion { found: u8 },
    /// A shared-memory descriptor bit that must be zero is set (mask of offending bits).
    SmemReservedBits { bits: u64 },
    /// Layout (swizzle) field 3, 5 or 7.
    SmemLayoutInvalid { code: u8 },
    /// Absolute leading-dimension mode (bit 52) is sm_103a-only.
    SmemLboAbsolute,
    /// A non-zero matrix base offset: the ISA's use of it is not modelled (UNCONFIRMED).
    SmemBaseOffsetUnmodelled { base: u8 },
    /// A reserved instruction-descriptor bit is set (mask of offending bits).
    IdescReservedBits { bits: u32 },
    /// Bits 24-26 of a block-scaled instruction descriptor are set: the ISA calls them
    /// reserved, compilers set them with meanings the ISA does not give (UNCONFIRMED).
    IdescUnmodelledBits { bits: u32 },
    /// An A/B/D type code that the `.kind` does not accept.
    IdescType { operand: char, code: u8 },
    /// M or N not legal for the kind, cta_group and variant.
    IdescShape { m: u32, n: u32 },
    /// Negate bit set with `.kind::i8`.
    IdescNegateI8,
    /// Transpose (MN-major) not allowed: mxf4/mxf4nvf4 or 4/6-bit types.
    IdescTranspose { operand: char },
    /// Sparsity selector non-zero while the sparsity flag is clear.
    IdescSparseSelector,
    /// The sparsity flag (bit 2) disagrees with the instruction (`tcgen05.mma.sp` or not).
    IdescSparsity { instruction_sparse: bool },
    /// Saturate bit set with a floating-point kind.
    IdescSaturate,
    /// Max-shift non-zero outside `.ws`.
    IdescMaxShift,
    /// Scale-factor ID not allowed for the kind / scale vector size.
    IdescScaleFactorId { operand: char, id: u8 },
    /// Scale type not allowed for the kind.
    IdescScaleType,
    /// K = 96 (bit 31) requested where it does not exist.
    IdescK96,
    /// f16 kind with D = f16 needs A = B = f16.
    IdescF16Accumulator,
    /// The operand's major-ness and swizzle mode do not go together (Table 54).
    MajorSwizzle { operand: char },
}

impl DescError {
    /// The catalogued rule this error reports.
    pub fn rule(&self) -> &'static Rule {
        use DescError::*;
        match self {
            SmemVersion { .. } => &rules::SMEM_DESC_VERSION,
            SmemReservedBits { .. } => &rules::SMEM_DESC_RESERVED_BITS,
            SmemLayoutInvalid { .. } => &rules::SMEM_DESC_LAYOUT,
            SmemLboAbsolute => &rules::SMEM_DESC_LBO_MODE,
            SmemBaseOffsetUnmodelled { .. } => &rules::SMEM_DESC_BASE_OFFSET,
            IdescReservedBits { .. } => &rules::IDESC_RESERVED_BITS,
            IdescUnmodelledBits { .. } => &rules::UNMODELLED_FORM,
            IdescType { .. } | IdescF16Accumulator => &rules::IDESC_TYPE,
            IdescShape { .. } => &rules::MMA_SHAPE,
            IdescNegateI8 => &rules::IDESC_NEGATE_I8,
            IdescTranspose { .. } | MajorSwizzle { .. } => &rules::MMA_TRANSPOSE,
            IdescSparseSelector
            | IdescSparsity { .. }
            | IdescSaturate
            | IdescMaxShift
            | IdescK96 => &rules::IDESC_FIELD,
            IdescScaleFactorId { .. } | IdescScaleType => &rules::IDESC_SCALE,
        }
    }
}

impl core::fmt::Display for DescError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use DescError::*;
        match self {
            SmemVersion { found } => write!(
                f,
                "shared memory descriptor version bits 46-48 are {found:#05b}, must be 0b001"
            ),
            SmemReservedBits { bits } => write!(
                f,
                "shared memory descriptor has reserved bits set ({bits:#018x})"
            ),
            SmemLayoutInvalid { code } => write!(
                f,
                "shared memory descriptor layout type {code} is invalid (0, 1, 2, 4, 6 exist)"
            ),
            SmemLboAbsolute => write!(
                f,
                "absolute leading-dimension byte offset mode (bit 52) exists only on sm_103a"
            ),
            SmemBaseOffsetUnmodelled { base } => write!(
                f,
                "matrix base offset {base} is not modelled; addresses use base offset 0"
            ),
            IdescUnmodelledBits { bits } => write!(
                f,
                "block-scaled instruction descriptor sets bits {bits:#010x} (bits 24-26, reserved \
                 in the PTX ISA; their meaning on hardware is not modelled)"
            ),
            IdescReservedBits { bits } => {
                write!(
                    f,
                    "instruction descriptor has reserved bits set ({bits:#010x})"
                )
            }
            IdescType { operand, code } => write!(
                f,
                "instruction descriptor {operand} type code {code} is not allowed for this .kind"
            ),
            IdescShape { m, n } => write!(
                f,
                "M={m}, N={n} is not a legal shape for this .kind, .cta_group and variant"
            ),
            IdescNegateI8 => write!(f, "negate bits must be 0 with .kind::i8"),
            IdescTranspose { operand } => {
                write!(f, "operand {operand} may not be MN-major (transposed) here")
            }
            IdescSparseSelector => {
                write!(
                    f,
                    "sparsity selector is non-zero but the sparsity flag is clear"
                )
            }
            IdescSparsity { instruction_sparse } => {
                if *instruction_sparse {
                    write!(
                        f,
                        "tcgen05.mma.sp with a dense instruction descriptor (bit 2 clear)"
                    )
                } else {
                    write!(
                        f,
                        "dense tcgen05.mma with a sparse instruction descriptor (bit 2 set)"
                    )
                }
            }
            IdescSaturate => write!(f, "saturate bit is only meaningful with .kind::i8"),
            IdescMaxShift => write!(f, "max-shift is only allowed with tcgen05.mma.ws"),
            IdescScaleFactorId { operand, id } => write!(
                f,
                "scale factor ID {id} for {operand} is not allowed with this kind / vector size"
            ),
            IdescScaleType => write!(f, "scale factor type not allowed with this .kind"),
            IdescK96 => write!(
                f,
                "K=96 (idesc bit 31) exists only for mxf4/mxf4nvf4 with M=256 on sm_103a"
            ),
            IdescF16Accumulator => {
                write!(f, ".kind::f16 with an f16 accumulator needs f16 A and B")
            }
            MajorSwizzle { operand } => write!(
                f,
                "operand {operand}: this major-ness / element size does not allow this swizzle mode"
            ),
        }
    }
}

impl std::error::Error for DescError {}
