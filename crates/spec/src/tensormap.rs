//! tmemu's own 128-byte tensor-map encoding.
//!
//! NVIDIA does not publish the layout of `CUtensorMap` (bulk-copies.md §2.1, UNCONFIRMED), so
//! tmemu never decodes real maps: the launch spec gives the `cuTensorMapEncodeTiled` arguments
//! and we store them in this layout. `cp.async.bulk.tensor`, `prefetch.tensormap` and
//! `tensormap.replace` (in the engine) read and write maps through `decode` / `encode`.
//!
//! Layout (little-endian; offsets in bytes):
//!
//! | bytes   | field |
//! |---------|-------|
//! | 0..4    | magic `b"tmTM"` |
//! | 4..6    | version (u16) = 1 |
//! | 6       | element type, PTX `tensormap.replace` `.elemtype` code (0 u8 .. 15 b6x16_p32) |
//! | 7       | rank, 1..=5 (the real rank, not rank−1) |
//! | 8       | interleave code (0 none, 1 16B, 2 32B) |
//! | 9       | swizzle mode code (0 none, 1 32B, 2 64B, 3 128B, 4 96B) |
//! | 10      | swizzle atomicity code (0 16B, 1 32B, 2 32B + 8B flip, 3 64B) |
//! | 11      | fill mode (0 zero, 1 OOB-NaN) |
//! | 12      | L2 promotion (0 none, 1 64B, 2 128B, 3 256B) |
//! | 13      | mode: 0 tile, 1 im2col (an extension of version 1: tile maps are unchanged) |
//! | 14..16  | im2col: pixels per column (u16); tile: zero |
//! | 16..24  | global address (u64) — written by the launch's relocation |
//! | 24..64  | global dims, 5 × u64, innermost first; unused dims zero |
//! | 64..96  | global strides in bytes of dims 1..=4, 4 × u64; unused zero |
//! | 96..106 | box dims, 5 × u16; unused zero |
//! | 106..111| element strides, 5 × u8; unused zero |
//! | 111..117| im2col: pixel-box lower corner, 3 × i16, W first; tile: zero |
//! | 117..123| im2col: pixel-box upper corner, 3 × i16, W first; tile: zero |
//! | 123     | im2col: channels per pixel − 1; tile: zero |
//! | 124..128| FNV-1a 32 of bytes 0..124 with the global address bytes (16..24) taken as zero |
//!
//! The codes are those of `tensormap.replace` (PTX 9.1 §9.7.9.28 Table 33), not the driver's
//! enum values, so `tensormap.replace` stores its operand unchanged. The checksum leaves out the
//! address so that relocating a map (writing a buffer's device address) keeps it valid, while
//! any other stray write makes `decode` fail instead of silently copying garbage.

use std::fmt;

pub const TENSOR_MAP_BYTES: usize = 128;
/// Offset of the global address inside the encoding, for relocations.
pub const GLOBAL_ADDRESS_OFFSET: usize = 16;
const MAGIC: [u8; 4] = *b"tmTM";
const VERSION: u16 = 1;
pub const MAX_RANK: usize = 5;

/// Element type, numbered as PTX `tensormap.replace.tile.elemtype` numbers them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum TmElemType {
    U8 = 0,
    U16 = 1,
    U32 = 2,
    S32 = 3,
    U64 = 4,
    S64 = 5,
    F16 = 6,
    F32 = 7,
    F32Ftz = 8,
    F64 = 9,
    BF16 = 10,
    TF32 = 11,
    TF32Ftz = 12,
    /// 16 × 4-bit packed, 8-byte aligned (CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B).
    B4x16 = 13,
    /// 16 × 4-bit padded to 16 bytes (…_16U4_ALIGN16B).
    B4x16P64 = 14,
    /// 16 × 6-bit padded to 16 bytes (…_16U6_ALIGN16B).
    B6x16P32 = 15,
}

impl TmElemType {
    pub const ALL: [TmElemType; 16] = [
        TmElemType::U8,
        TmElemType::U16,
        TmElemType::U32,
        TmElemType::S32,
        TmElemType::U64,
        TmElemType::S64,
        TmElemType::F16,
        TmElemType::F32,
        TmElemType::F32Ftz,
        TmElemType::F64,
        TmElemType::BF16,
        TmElemType::TF32,
        TmElemType::TF32Ftz,
        TmElemType::B4x16,
        TmElemType::B4x16P64,
        TmElemType::B6x16P32,
    ];

    pub fn from_code(code: u8) -> Option<TmElemType> {
        Self::ALL.get(code as usize).copied()
    }

    /// Bits of global memory per element.
    pub fn bits(self) -> u64 {
        match self {
            TmElemType::U8 => 8,
            TmElemType::U16 | TmElemType::F16 | TmElemType::BF16 => 16,
            TmElemType::U32
            | TmElemType::S32
            | TmElemType::F32
            | TmElemType::F32Ftz
            | TmElemType::TF32
            | TmElemType::TF32Ftz => 32,
            TmElemType::U64 | TmElemType::S64 | TmElemType::F64 => 64,
            TmElemType::B4x16 | TmElemType::B4x16P64 => 4,
            TmElemType::B6x16P32 => 6,
        }
    }

    /// The PTX spelling (`tensormap.replace` `.elemtype` names).
    pub fn name(self) -> &'static str {
        match self {
            TmElemType::U8 => "u8",
            TmElemType::U16 => "u16",
            TmElemType::U32 => "u32",
            TmElemType::S32 => "s32",
            TmElemType::U64 => "u64",
            TmElemType::S64 => "s64",
            TmElemType::F16 => "f16",
            TmElemType::F32 => "f32",
            TmElemType::F32Ftz => "f32.ftz",
            TmElemType::F64 => "f64",
            TmElemType::BF16 => "bf16",
            TmElemType::TF32 => "tf32",
            TmElemType::TF32Ftz => "tf32.ftz",
            TmElemType::B4x16 => "b4x16",
            TmElemType::B4x16P64 => "b4x16_p64",
            TmElemType::B6x16P32 => "b6x16_p32",
        }
    }

    pub fn from_name(name: &str) -> Option<TmElemType> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            TmElemType::F16
                | TmElemType::F32
                | TmElemType::F32Ftz
                | TmElemType::F64
                | TmElemType::BF16
                | TmElemType::TF32
                | TmElemType::TF32Ftz
        )
    }

    pub fn is_sub_byte(self) -> bool {
        matches!(
            self,
            TmElemType::B4x16 | TmElemType::B4x16P64 | TmElemType::B6x16P32
        )
    }

    /// The types the driver wants 32-byte aligned (…_ALIGN16B).
    fn is_align16b(self) -> bool {
        matches!(self, TmElemType::B4x16P64 | TmElemType::B6x16P32)
    }
}

macro_rules! code_enum {
    ($(#[$m:meta])* $name:ident { $($variant:ident = $code:literal => $text:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
        #[repr(u8)]
        pub enum $name {
            #[default]
            $($variant = $code),*
        }
        impl $name {
            pub fn from_code(code: u8) -> Option<$name> {
                match code { $($code => Some($name::$variant),)* _ => None }
            }
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            pub fn from_name(text: &str) -> Option<$name> {
                match text { $($text => Some($name::$variant),)* _ => None }
            }
            pub const NAMES: &'static [&'static str] = &[$($text),*];
        }
    };
}

// The first variant of each is the default.
code_enum!(Interleave { None = 0 => "none", B16 = 1 => "16B", B32 = 2 => "32B" });
code_enum!(SwizzleMode { None = 0 => "none", B32 = 1 => "32B", B64 = 2 => "64B", B128 = 3 => "128B", B96 = 4 => "96B" });
code_enum!(
    /// Granule that a 128B swizzle permutes (PTX `.swizzle_atomicity`).
    SwizzleAtomicity { B16 = 0 => "16B", B32 = 1 => "32B", B32Flip8B = 2 => "32B_flip_8B", B64 = 3 => "64B" }
);
code_enum!(OobFill { Zero = 0 => "zero", Nan = 1 => "nan" });
code_enum!(L2Promotion { None = 0 => "none", B64 = 1 => "64B", B128 = 2 => "128B", B256 = 3 => "256B" });

/// The swizzle spellings of launch specs: the driver's CU_TENSOR_MAP_SWIZZLE_* names without
/// the prefix, as (mode, atomicity).
pub const SWIZZLE_NAMES: &[(&str, SwizzleMode, SwizzleAtomicity)] = &[
    ("none", SwizzleMode::None, SwizzleAtomicity::B16),
    ("32B", SwizzleMode::B32, SwizzleAtomicity::B16),
    ("64B", SwizzleMode::B64, SwizzleAtomicity::B16),
    ("128B", SwizzleMode::B128, SwizzleAtomicity::B16),
    ("96B", SwizzleMode::B96, SwizzleAtomicity::B16),
    ("128B_atom_32B", SwizzleMode::B128, SwizzleAtomicity::B32),
    (
        "128B_atom_32B_flip_8B",
        SwizzleMode::B128,
        SwizzleAtomicity::B32Flip8B,
    ),
    ("128B_atom_64B", SwizzleMode::B128, SwizzleAtomicity::B64),
];

/// The fields `cuTensorMapEncodeIm2col` adds to a map (PTX 9.1 §5.5.4 "im2col mode"; CUDA
/// Driver API 13.1 §6.30). Spatial dimensions are W, H, D = tensor dimensions 1, 2, 3; the
/// outermost dimension is N and dimension 0 is C.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Im2colParams {
    /// Pixel-box lower corner per spatial dimension, W first; entries beyond rank − 2 zero.
    /// Relative to the tensor's origin (PTX §5.5.4.1).
    pub lower: [i16; 3],
    /// Pixel-box upper corner, relative to the tensor's far corner (dims − 1).
    pub upper: [i16; 3],
    /// Channels per pixel (elements of dimension 0 per row), 1..=256.
    pub channels: u16,
    /// Pixels per column (rows of a copy), 1..=1024.
    pub pixels: u16,
}

/// How a copy through the map walks the tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TensorMapMode {
    /// `cuTensorMapEncodeTiled`: a box of `box_dims`.
    #[default]
    Tile,
    /// `cuTensorMapEncodeIm2col`: `pixels` rows of `channels` elements; `box_dims` unused (zero).
    Im2col(Im2colParams),
}

/// A tensor map: the arguments of `cuTensorMapEncodeTiled` (or, with `mode` im2col, of
/// `cuTensorMapEncodeIm2col`), innermost dimension first. Entries at and beyond `rank` are zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorMapDesc {
    pub elem_type: TmElemType,
    pub rank: u8,
    pub global_address: u64,
    pub global_dims: [u64; MAX_RANK],
    /// Byte strides of dimensions 1..rank (`global_strides[i]` is the stride of dim i+1).
    pub global_strides: [u64; MAX_RANK - 1],
    pub box_dims: [u32; MAX_RANK],
    pub elem_strides: [u32; MAX_RANK],
    pub interleave: Interleave,
    pub swizzle: SwizzleMode,
    pub swizzle_atomicity: SwizzleAtomicity,
    pub oob_fill: OobFill,
    pub l2_promotion: L2Promotion,
    pub mode: TensorMapMode,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TensorMapError {
    #[error("not a tmemu tensor map (bad magic {0:02x?})")]
    Magic([u8; 4]),
    #[error("unsupported tensor map version {0}")]
    Version(u16),
    #[error("tensor map checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the map was overwritten")]
    Checksum { stored: u32, computed: u32 },
    #[error("tensor map field '{field}' has invalid code {code}")]
    Code { field: &'static str, code: u64 },
    #[error("tensor map is invalid: {0}")]
    Invalid(String),
}

fn invalid(msg: String) -> TensorMapError {
    TensorMapError::Invalid(msg)
}

fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811C_9DC5;
    for (i, &b) in bytes.iter().enumerate() {
        let b = if (GLOBAL_ADDRESS_OFFSET..GLOBAL_ADDRESS_OFFSET + 8).contains(&i) {
            0
        } else {
            b
        };
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

impl TensorMapDesc {
    fn rank_usize(&self) -> usize {
        self.rank as usize
    }

    /// Writes the 128-byte encoding. Does not validate (call `validate`): `tensormap.replace`
    /// may legitimately pass through invalid intermediate states.
    pub fn encode(&self) -> [u8; TENSOR_MAP_BYTES] {
        let mut b = [0u8; TENSOR_MAP_BYTES];
        b[0..4].copy_from_slice(&MAGIC);
        b[4..6].copy_from_slice(&VERSION.to_le_bytes());
        b[6] = self.elem_type as u8;
        b[7] = self.rank;
        b[8] = self.interleave as u8;
        b[9] = self.swizzle as u8;
        b[10] = self.swizzle_atomicity as u8;
        b[11] = self.oob_fill as u8;
        b[12] = self.l2_promotion as u8;
        if let TensorMapMode::Im2col(p) = self.mode {
            b[13] = 1;
            b[14..16].copy_from_slice(&p.pixels.to_le_bytes());
            for j in 0..3 {
                b[111 + 2 * j..113 + 2 * j].copy_from_slice(&p.lower[j].to_le_bytes());
                b[117 + 2 * j..119 + 2 * j].copy_from_slice(&p.upper[j].to_le_bytes());
            }
            // 1..=256 stored as 0..=255 (validate rejects other values).
            b[123] = p.channels.wrapping_sub(1) as u8;
        }
        b[16..24].copy_from_slice(&self.global_address.to_le_bytes());
        for i in 0..MAX_RANK {
            b[24 + 8 * i..32 + 8 * i].copy_from_slice(&self.global_dims[i].to_le_bytes());
            b[96 + 2 * i..98 + 2 * i].copy_from_slice(&(self.box_dims[i] as u16).to_le_bytes());
            b[106 + i] = self.elem_strides[i] as u8;
        }
        for i in 0..MAX_RANK - 1 {
            b[64 + 8 * i..72 + 8 * i].copy_from_slice(&self.global_strides[i].to_le_bytes());
        }
        let sum = fnv1a(&b[..124]);
        b[124..128].copy_from_slice(&sum.to_le_bytes());
        b
    }

    /// Reads and validates a 128-byte encoding.
    pub fn decode(b: &[u8; TENSOR_MAP_BYTES]) -> Result<TensorMapDesc, TensorMapError> {
        let d = Self::decode_unvalidated(b)?;
        d.validate()?;
        Ok(d)
    }

    /// Reads a 128-byte encoding (magic, version, checksum, field codes, reserved bytes) without
    /// the `cuTensorMapEncodeTiled` rules: `tensormap.replace` edits maps field by field and may
    /// pass through invalid states.
    pub fn decode_unvalidated(b: &[u8; TENSOR_MAP_BYTES]) -> Result<TensorMapDesc, TensorMapError> {
        let magic: [u8; 4] = b[0..4].try_into().expect("4 bytes");
        if magic != MAGIC {
            return Err(TensorMapError::Magic(magic));
        }
        let version = u16::from_le_bytes([b[4], b[5]]);
        if version != VERSION {
            return Err(TensorMapError::Version(version));
        }
        let stored = u32::from_le_bytes(b[124..128].try_into().expect("4 bytes"));
        let computed = fnv1a(&b[..124]);
        if stored != computed {
            return Err(TensorMapError::Checksum { stored, computed });
        }
        let code = |field, v: u8| TensorMapError::Code {
            field,
            code: v as u64,
        };
        let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
        let mut d = TensorMapDesc {
            elem_type: TmElemType::from_code(b[6]).ok_or(code("elemtype", b[6]))?,
            rank: b[7],
            global_address: u64_at(16),
            global_dims: [0; MAX_RANK],
            global_strides: [0; MAX_RANK - 1],
            box_dims: [0; MAX_RANK],
            elem_strides: [0; MAX_RANK],
            interleave: Interleave::from_code(b[8]).ok_or(code("interleave_layout", b[8]))?,
            swizzle: SwizzleMode::from_code(b[9]).ok_or(code("swizzle_mode", b[9]))?,
            swizzle_atomicity: SwizzleAtomicity::from_code(b[10])
                .ok_or(code("swizzle_atomicity", b[10]))?,
            oob_fill: OobFill::from_code(b[11]).ok_or(code("fill_mode", b[11]))?,
            l2_promotion: L2Promotion::from_code(b[12]).ok_or(code("l2_promotion", b[12]))?,
            mode: TensorMapMode::Tile,
        };
        match b[13] {
            0 => {
                if b[14..16].iter().chain(&b[111..124]).any(|&x| x != 0) {
                    return Err(invalid("reserved bytes are not zero".into()));
                }
            }
            1 => {
                let i16_at = |o: usize| i16::from_le_bytes([b[o], b[o + 1]]);
                let mut p = Im2colParams {
                    pixels: u16::from_le_bytes([b[14], b[15]]),
                    channels: u16::from(b[123]) + 1,
                    ..Im2colParams::default()
                };
                for j in 0..3 {
                    p.lower[j] = i16_at(111 + 2 * j);
                    p.upper[j] = i16_at(117 + 2 * j);
                }
                d.mode = TensorMapMode::Im2col(p);
            }
            m => return Err(code("mode", m)),
        }
        for i in 0..MAX_RANK {
            d.global_dims[i] = u64_at(24 + 8 * i);
            d.box_dims[i] = u16::from_le_bytes([b[96 + 2 * i], b[97 + 2 * i]]) as u32;
            d.elem_strides[i] = b[106 + i] as u32;
        }
        for i in 0..MAX_RANK - 1 {
            d.global_strides[i] = u64_at(64 + 8 * i);
        }
        Ok(d)
    }

    /// Bytes of `n` elements, rounded up (sub-byte types).
    fn bytes_of(&self, n: u64) -> u64 {
        (n * self.elem_type.bits()).div_ceil(8)
    }

    /// Elements a tile-mode copy moves along dimension `i`: ceil(box / element stride)
    /// (PTX 9.1 §5.5.1–§5.5.3).
    pub fn box_elements(&self, i: usize) -> u64 {
        (self.box_dims[i] as u64).div_ceil(self.elem_strides[i].max(1) as u64)
    }

    /// Bytes one tile-mode copy writes to shared memory: the whole box, including elements
    /// filled for being out of bounds (bulk-copies.md §1.3, DERIVED / UNCONFIRMED: CUTLASS and
    /// Triton expect-tx the full tile bytes at edges too).
    pub fn box_bytes(&self) -> u64 {
        if let TensorMapMode::Im2col(p) = self.mode {
            // PTX 9.1 §5.5.4: Pixels-per-Column rows of Channels-per-Pixel elements; the
            // traversal strides change which pixels, never how many.
            return self.bytes_of(u64::from(p.channels) * u64::from(p.pixels));
        }
        let n: u64 = (0..self.rank_usize().min(MAX_RANK))
            .map(|i| self.box_elements(i))
            .product();
        self.bytes_of(n)
    }

    /// The rules of `cuTensorMapEncodeTiled` (CUDA Driver API 13.1 §6.30, summarised in
    /// bulk-copies.md §2.2) and of PTX 9.1 §9.7.9.27.1.1 / §5.5.
    pub fn validate(&self) -> Result<(), TensorMapError> {
        let rank = self.rank_usize();
        if !(1..=MAX_RANK).contains(&rank) {
            return Err(invalid(format!("rank {rank} is not in 1..=5")));
        }
        let interleaved = self.interleave != Interleave::None;
        if interleaved && rank < 3 {
            return Err(invalid(format!(
                "an interleaved map needs rank >= 3, found rank {rank}"
            )));
        }
        for i in rank..MAX_RANK {
            let unused_zero = self.global_dims[i] == 0
                && self.box_dims[i] == 0
                && self.elem_strides[i] == 0
                && (i == 0 || self.global_strides[i - 1] == 0);
            if !unused_zero {
                return Err(invalid(format!(
                    "dimension {i} is beyond rank {rank} but not zero"
                )));
            }
        }
        let ty = self.elem_type;
        let wide_align = self.interleave == Interleave::B32 || ty.is_align16b();
        let align = if wide_align { 32 } else { 16 };
        if !self.global_address.is_multiple_of(align) {
            return Err(invalid(format!(
                "global address {:#x} is not {align}-byte aligned",
                self.global_address
            )));
        }
        for i in 0..rank {
            let d = self.global_dims[i];
            if !(1..=1u64 << 32).contains(&d) {
                return Err(invalid(format!("global dim {i} = {d} is not in 1..=2^32")));
            }
        }
        let dim0 = self.global_dims[0];
        if ty.is_align16b() && !dim0.is_multiple_of(128) {
            return Err(invalid(format!(
                "global dim 0 = {dim0} must be a multiple of 128 for this element type"
            )));
        }
        if ty == TmElemType::B4x16 && !dim0.is_multiple_of(2) {
            return Err(invalid(format!(
                "global dim 0 = {dim0} must be even for b4x16"
            )));
        }
        for i in 1..rank {
            let s = self.global_strides[i - 1];
            if !s.is_multiple_of(align) || s >= 1 << 40 {
                return Err(invalid(format!(
                    "global stride of dim {i} = {s} bytes must be a multiple of {align} and below 2^40"
                )));
            }
            // Only a row (dim 0) must fit in every stride. The driver does not demand the
            // chain stride[i] >= stride[i-1] * dim[i] (DERIVED: CUTLASS 4.2's block-scaled GEMMs
            // encode their scale-factor maps as dims (256 x u16, N atoms, K atoms, L) with
            // strides (1024, 512, 2048) bytes, and those kernels run on Blackwell; holdout
            // ho6_cutlass_mxf8). Dims may come in any order of stride, as in a CuTe layout.
            let min = self.bytes_of(dim0);
            if s < min {
                return Err(invalid(format!(
                    "global stride of dim {i} = {s} bytes is smaller than the {min} bytes that dim 0 spans"
                )));
            }
        }
        let im2col = match self.mode {
            TensorMapMode::Tile => None,
            TensorMapMode::Im2col(p) => Some(p),
        };
        if let Some(p) = im2col {
            self.validate_im2col(&p)?;
        }
        for i in 0..rank {
            let bx = self.box_dims[i];
            if im2col.is_none() && !(1..=256).contains(&bx) {
                return Err(invalid(format!("box dim {i} = {bx} is not in 1..=256")));
            }
            let es = self.elem_strides[i];
            if !(1..=8).contains(&es) {
                return Err(invalid(format!(
                    "element stride {i} = {es} is not in 1..=8"
                )));
            }
        }
        // The inner row: box[0] elements, or an im2col pixel's channels.
        let inner = match im2col {
            Some(p) => u64::from(p.channels),
            None => u64::from(self.box_dims[0]),
        };
        let inner_box_bytes = self.bytes_of(inner);
        if !interleaved && !inner_box_bytes.is_multiple_of(16) {
            return Err(invalid(format!(
                "inner box dim {inner} spans {inner_box_bytes} bytes, which is not a multiple of 16"
            )));
        }
        if ty.is_align16b() && inner != 128 {
            return Err(invalid(format!(
                "inner box dim must be 128 for this element type, found {}",
                self.box_dims[0]
            )));
        }
        if self.swizzle_atomicity != SwizzleAtomicity::B16 && self.swizzle != SwizzleMode::B128 {
            return Err(invalid(format!(
                "swizzle atomicity {} needs the 128B swizzle mode",
                self.swizzle_atomicity.name()
            )));
        }
        if self.interleave == Interleave::B32 && self.swizzle != SwizzleMode::B32 {
            return Err(invalid(format!(
                "interleave 32B requires swizzle 32B, found {}",
                self.swizzle.name()
            )));
        }
        let span = match self.swizzle {
            SwizzleMode::None => None,
            SwizzleMode::B32 => Some(32),
            SwizzleMode::B64 => Some(64),
            SwizzleMode::B128 => Some(128),
            SwizzleMode::B96 => Some(96),
        };
        if let (false, Some(span)) = (interleaved, span) {
            if inner_box_bytes > span {
                return Err(invalid(format!(
                    "inner box dim {inner} spans {inner_box_bytes} bytes, more than the {span}-byte swizzle span"
                )));
            }
        }
        if self.swizzle == SwizzleMode::B96 && (interleaved || ty.is_sub_byte()) {
            return Err(invalid(
                "the 96B swizzle allows neither interleave nor sub-byte types".into(),
            ));
        }
        if self.oob_fill == OobFill::Nan && !ty.is_float() {
            return Err(invalid(
                "OOB-NaN fill needs a floating-point element type".into(),
            ));
        }
        // cuda.h (CUDA 13, cuTensorMapEncodeTiled): only the padded types restrict the swizzle.
        // 16U4_ALIGN16B: none, 128B, 128B_ATOM_32B; 16U6_ALIGN16B: the same and 128B_ATOM_64B
        // (stores only, which a map cannot tell). 16U4_ALIGN8B (b4x16, packed without gaps)
        // takes every mode: CuTe DSL's NVFP4 GEMM with 128-deep K tiles loads its 64-byte
        // rows with the 64B swizzle (holdout ho16_cute_nvfp4).
        if ty.is_align16b() {
            let ok = match self.swizzle {
                SwizzleMode::None => true,
                SwizzleMode::B128 => match self.swizzle_atomicity {
                    SwizzleAtomicity::B16 | SwizzleAtomicity::B32 => true,
                    SwizzleAtomicity::B64 => ty == TmElemType::B6x16P32,
                    SwizzleAtomicity::B32Flip8B => false,
                },
                _ => false,
            };
            if !ok {
                return Err(invalid(format!(
                    "{} allows only no swizzle, 128B or 128B_atom_32B{}",
                    ty.name(),
                    if ty == TmElemType::B6x16P32 {
                        " (or 128B_atom_64B, for stores)"
                    } else {
                        ""
                    }
                )));
            }
        }
        Ok(())
    }
}

impl TensorMapDesc {
    /// The `cuTensorMapEncodeIm2col` rules (CUDA Driver API 13.1 §6.30): rank 3..=5, the
    /// corner ranges per rank, channels and pixels per column; box dims must be zero (an
    /// im2col map has none).
    fn validate_im2col(&self, p: &Im2colParams) -> Result<(), TensorMapError> {
        let rank = self.rank_usize();
        if !(3..=MAX_RANK).contains(&rank) {
            return Err(invalid(format!(
                "an im2col map needs rank 3..=5, found rank {rank}"
            )));
        }
        let spatial = rank - 2;
        // The driver's ranges: 16 bits for one spatial dim, 8 for two, 5 for three.
        let (lo, hi) = match spatial {
            1 => (i16::MIN, i16::MAX),
            2 => (-128, 127),
            _ => (-16, 15),
        };
        for (what, c) in [("lower", &p.lower), ("upper", &p.upper)] {
            for (j, &v) in c.iter().enumerate() {
                if j >= spatial && v != 0 {
                    return Err(invalid(format!(
                        "im2col {what} corner {j} is beyond the {spatial} spatial dimensions but not zero"
                    )));
                }
                if !(lo..=hi).contains(&v) {
                    return Err(invalid(format!(
                        "im2col {what} corner {j} = {v} is not in {lo}..={hi} for rank {rank}"
                    )));
                }
            }
        }
        if !(1..=256).contains(&p.channels) {
            return Err(invalid(format!(
                "im2col channels per pixel {} is not in 1..=256",
                p.channels
            )));
        }
        if !(1..=1024).contains(&p.pixels) {
            return Err(invalid(format!(
                "im2col pixels per column {} is not in 1..=1024",
                p.pixels
            )));
        }
        if self.box_dims.iter().any(|&b| b != 0) {
            return Err(invalid(
                "an im2col map has no box dims (they must be zero)".into(),
            ));
        }
        Ok(())
    }
}

impl fmt::Display for TensorMapDesc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.rank_usize().min(MAX_RANK);
        write!(
            f,
            "tensormap {:?} rank {} dims {:?} strides {:?} box {:?} swizzle {}",
            self.elem_type,
            self.rank,
            &self.global_dims[..r],
            &self.global_strides[..r.saturating_sub(1)],
            &self.box_dims[..r],
            self.swizzle.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_bytes_count_strided_elements() {
        let mut d = TensorMapDesc {
            elem_type: TmElemType::BF16,
            rank: 3,
            global_address: 0,
            global_dims: [128, 256, 4, 0, 0],
            global_strides: [256, 65536, 0, 0],
            box_dims: [64, 32, 2, 0, 0],
            elem_strides: [1, 1, 1, 0, 0],
            interleave: Interleave::None,
            swizzle: SwizzleMode::B128,
            swizzle_atomicity: SwizzleAtomicity::B16,
            oob_fill: OobFill::Zero,
            l2_promotion: L2Promotion::None,
            mode: TensorMapMode::Tile,
        };
        assert_eq!(d.box_bytes(), 64 * 32 * 2 * 2);
        d.elem_strides = [1, 3, 2, 0, 0];
        // ceil(32 / 3) = 11 rows, ceil(2 / 2) = 1 plane
        assert_eq!(d.box_bytes(), 64 * 11 * 2);
    }

    #[test]
    fn out_of_range_codes_are_named() {
        let d = TensorMapDesc {
            elem_type: TmElemType::F32,
            rank: 1,
            global_address: 0,
            global_dims: [64, 0, 0, 0, 0],
            global_strides: [0; 4],
            box_dims: [32, 0, 0, 0, 0],
            elem_strides: [1, 0, 0, 0, 0],
            interleave: Interleave::None,
            swizzle: SwizzleMode::None,
            swizzle_atomicity: SwizzleAtomicity::B16,
            oob_fill: OobFill::Zero,
            l2_promotion: L2Promotion::None,
            mode: TensorMapMode::Tile,
        };
        for (offset, field, code) in [
            (6, "elemtype", 16u8),
            (8, "interleave_layout", 3),
            (9, "swizzle_mode", 5),
            (10, "swizzle_atomicity", 4),
            (11, "fill_mode", 2),
            (12, "l2_promotion", 4),
        ] {
            let mut b = d.encode();
            b[offset] = code;
            let sum = fnv1a(&b[..124]);
            b[124..128].copy_from_slice(&sum.to_le_bytes());
            assert_eq!(
                TensorMapDesc::decode(&b),
                Err(TensorMapError::Code {
                    field,
                    code: code as u64
                })
            );
        }
        let mut b = d.encode();
        b[120] = 1;
        let sum = fnv1a(&b[..124]);
        b[124..128].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(
            TensorMapDesc::decode(&b),
            Err(TensorMapError::Invalid(
                "reserved bytes are not zero".into()
            ))
        );
    }

    /// cuda.h restricts the swizzle of the padded sub-byte types only: a packed b4x16 map
    /// (16U4_ALIGN8B) may use the 64B swizzle (CuTe DSL's NVFP4 operands with 64-byte K rows,
    /// holdout ho16_cute_nvfp4), b4x16_p64 may not but takes 128B_atom_32B.
    #[test]
    fn sub_byte_swizzle_rules_follow_cuda_h() {
        let packed = |ty, swizzle, swizzle_atomicity, box0| TensorMapDesc {
            elem_type: ty,
            rank: 2,
            global_address: 0,
            global_dims: [256, 128, 0, 0, 0],
            global_strides: [256, 0, 0, 0],
            box_dims: [box0, 128, 0, 0, 0],
            elem_strides: [1, 1, 0, 0, 0],
            interleave: Interleave::None,
            swizzle,
            swizzle_atomicity,
            oob_fill: OobFill::Zero,
            l2_promotion: L2Promotion::None,
            mode: TensorMapMode::Tile,
        };
        use SwizzleAtomicity as A;
        use SwizzleMode as S;
        for (sw, at, box0) in [
            (S::None, A::B16, 128),
            (S::B32, A::B16, 64),
            (S::B64, A::B16, 128),
            (S::B128, A::B16, 256),
            (S::B128, A::B32, 256),
            (S::B128, A::B32Flip8B, 256),
        ] {
            assert_eq!(
                packed(TmElemType::B4x16, sw, at, box0).validate(),
                Ok(()),
                "{sw:?} {at:?}"
            );
        }
        assert_eq!(
            packed(TmElemType::B4x16P64, S::B128, A::B32, 128).validate(),
            Ok(())
        );
        for (sw, at) in [(S::B64, A::B16), (S::B128, A::B64), (S::B128, A::B32Flip8B)] {
            assert!(
                packed(TmElemType::B4x16P64, sw, at, 128)
                    .validate()
                    .is_err(),
                "{sw:?} {at:?}"
            );
        }
        assert_eq!(
            packed(TmElemType::B6x16P32, S::B128, A::B64, 128).validate(),
            Ok(())
        );
    }
}
