//! What can go wrong in a tensor copy, and whose fault it is.
//!
//! Three kinds, kept apart as Miri keeps UB apart from Unsupported:
//! - a broken PTX rule (a misaligned shared-memory address, a coordinate vector of the wrong
//!   length, an invalid tensor map, ...): [`TmaError::rule_id`] names the catalogued rule
//!   (TM012x, `crates/tmem/src/rules.rs`);
//! - a buffer fault: the engine's memory said the bytes do not exist ([`GlobalFault`]); this is
//!   an engine-level out-of-bounds access, distinct from the tensor's own out-of-bounds
//!   elements, which are legal and filled;
//! - something tmemu does not model yet ([`TmaError::Unsupported`]): the engine reports the run
//!   as incomplete instead of guessing.

use tmemu_spec::tensormap::TensorMapError;

/// Rule IDs this crate reports (catalogued in `tmemu_tmem::rules`).
pub mod rule {
    pub const COORDS_RANK: &str = "TM0120";
    pub const SMEM_MISALIGNED: &str = "TM0121";
    pub const BOX_EXCEEDS_SWIZZLE: &str = "TM0122";
    pub const MAP_INVALID: &str = "TM0123";
    pub const MBAR_MISALIGNED: &str = "TM0124";
    pub const REDUCE_TYPE: &str = "TM0125";
    pub const SMEM_OUT_OF_BOUNDS: &str = "TM0126";
    pub const GLOBAL_FAULT: &str = "TM0127";
    pub const MULTICAST_MASK: &str = "TM0128";
    pub const BOX_START_MISALIGNED: &str = "TM0129";
    pub const STORE_OUTSIDE_TENSOR: &str = "TM0130";
    pub const SHARED_CLUSTER_WITHOUT_CLUSTER: &str = "TM0131";
}

/// The engine's global memory refused an access: `len` bytes at `addr` are not all inside an
/// allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("global access of {len} bytes at {addr:#x} is outside every buffer")]
pub struct GlobalFault {
    pub addr: u64,
    pub len: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TmaError {
    #[error("{given} tensor coordinates for a rank-{rank} tensor map")]
    CoordsRank { given: usize, rank: u8 },
    #[error("shared-memory {what} address {addr:#x} is not {align}-byte aligned")]
    SmemMisaligned {
        what: &'static str,
        addr: u32,
        align: u32,
    },
    #[error(
        "the box's inner dimension spans {bytes} bytes, more than the {span}-byte swizzle span"
    )]
    BoxExceedsSwizzle { bytes: u64, span: u64 },
    #[error("invalid tensor map: {0}")]
    Map(#[from] TensorMapError),
    #[error("mbarrier address {addr:#x} is not 8-byte aligned")]
    MbarMisaligned { addr: u32 },
    #[error("reduction .{op} is not defined for element type {elem}")]
    ReduceType {
        op: &'static str,
        elem: &'static str,
    },
    #[error("shared-memory bytes {start:#x}..{end:#x} are outside the {size}-byte shared window")]
    SmemOutOfBounds { start: u64, end: u64, size: u64 },
    #[error(transparent)]
    Global(#[from] GlobalFault),
    #[error("multicast mask {mask:#06x} selects a CTA outside the {cluster_size}-CTA cluster")]
    MulticastMask { mask: u16, cluster_size: u32 },
    #[error("a {map}-mode tensor map used by a .{inst} copy (the map's mode must match the instruction's)")]
    ModeMismatch {
        map: &'static str,
        inst: &'static str,
    },
    #[error("{given} im2col offsets for a rank-{rank} tensor map (one per spatial dimension)")]
    Im2colOffsets { given: usize, rank: u8 },
    #[error("a .tile::gather4/scatter4 copy needs a 2-D map and 5 coordinates {{col, row0..row3}}, found rank {rank} and {given} coordinates")]
    Gather4Shape { rank: u8, given: usize },
    #[error("a .tile::gather4/scatter4 map's box must be one row high (box[1] = 1), found {rows}")]
    Gather4Box { rows: u32 },
    #[error("the box starts at inner coordinate {coord}, byte {bytes} of its row, which is not 16-byte aligned")]
    BoxStartMisaligned { coord: i64, bytes: i64 },
    #[error("a tensor store or reduction must stay inside the tensor: {what}")]
    StoreOutsideTensor { what: String },
    #[error("a {what} into .shared::cluster needs a launch with a cluster (cluster dimensions, .explicitcluster or .reqnctapercluster; a cluster of one CTA will do): an H100 faults without one")]
    SharedClusterWithoutCluster { what: &'static str },
    #[error("not modelled: {0}")]
    Unsupported(&'static str),
}

impl TmaError {
    /// The catalogued rule this error reports; `None` for what tmemu does not model.
    pub fn rule_id(&self) -> Option<&'static str> {
        Some(match self {
            TmaError::CoordsRank { .. } => rule::COORDS_RANK,
            TmaError::SmemMisaligned { .. } => rule::SMEM_MISALIGNED,
            TmaError::BoxExceedsSwizzle { .. } => rule::BOX_EXCEEDS_SWIZZLE,
            TmaError::Map(_) => rule::MAP_INVALID,
            TmaError::MbarMisaligned { .. } => rule::MBAR_MISALIGNED,
            TmaError::ReduceType { .. } => rule::REDUCE_TYPE,
            TmaError::SmemOutOfBounds { .. } => rule::SMEM_OUT_OF_BOUNDS,
            TmaError::Global(_) => rule::GLOBAL_FAULT,
            TmaError::MulticastMask { .. } => rule::MULTICAST_MASK,
            TmaError::ModeMismatch { .. } => rule::MAP_INVALID,
            TmaError::Im2colOffsets { .. } => rule::COORDS_RANK,
            TmaError::Gather4Shape { .. } => rule::COORDS_RANK,
            TmaError::Gather4Box { .. } => rule::MAP_INVALID,
            TmaError::BoxStartMisaligned { .. } => rule::BOX_START_MISALIGNED,
            TmaError::StoreOutsideTensor { .. } => rule::STORE_OUTSIDE_TENSOR,
            TmaError::SharedClusterWithoutCluster { .. } => rule::SHARED_CLUSTER_WITHOUT_CLUSTER,
            TmaError::Unsupported(_) => return None,
        })
    }
}
