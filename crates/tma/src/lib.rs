//! The tensor memory accelerator (TMA) copy model: `cp.async.bulk.tensor`,
//! `cp.reduce.async.bulk.tensor` and `tensormap.replace` as pure functions.
//!
//! Given a decoded tensor map (`tmemu_spec::tensormap::TensorMapDesc`), coordinates and byte
//! memories, this crate says which bytes go where: the box's elements in shared-memory order,
//! each element's global address or out-of-bounds fill, the destination swizzle, the
//! complete-tx byte count, the multicast destinations. It knows no PTX text and no scheduler:
//! the engine parses the instruction, decides when the copy happens, and calls in here.
//!
//! Entry points: [`TileBox::new`] (decode a copy once; iterate runs, pieces or elements),
//! [`copy_box`] / [`store_box`] / [`reduce_box`] (do it on a [`GlobalMemory`] and a shared
//! window), [`multicast_targets`], [`tensormap_replace`]. Facts: `shared/spec/bulk-copies.md`.
//!
//! ```
//! use tmemu_spec::tensormap::*;
//! use tmemu_tma::{copy_box, FlatGlobal};
//!
//! // A 256 × 256 f16 matrix; a 64 × 32 box with the 128-byte swizzle, as GEMM kernels load it.
//! let map = TensorMapDesc {
//!     elem_type: TmElemType::F16,
//!     rank: 2,
//!     global_address: 0x10000,
//!     global_dims: [256, 256, 0, 0, 0],
//!     global_strides: [512, 0, 0, 0],
//!     box_dims: [64, 32, 0, 0, 0],
//!     elem_strides: [1, 1, 0, 0, 0],
//!     interleave: Interleave::None,
//!     swizzle: SwizzleMode::B128,
//!     swizzle_atomicity: SwizzleAtomicity::B16,
//!     oob_fill: OobFill::Zero,
//!     l2_promotion: L2Promotion::None,
//!     mode: TensorMapMode::Tile,
//! };
//! let global = FlatGlobal::new(0x10000, vec![1; 256 * 512]);
//! let mut smem = vec![0u8; 48 * 1024];
//! // The box at column 224, row -8 hangs over two edges: its OOB elements are zero-filled.
//! let stats = copy_box(&map, &[224, -8], 0x1000, &global, &mut smem).unwrap();
//! assert_eq!(stats.tx_bytes, 64 * 32 * 2); // complete_tx counts the whole box
//! assert_eq!(stats.global_bytes, 32 * 24 * 2); // 32 columns × 24 rows are inside
//! ```

mod copy;
mod error;
mod memory;
mod multicast;
mod reduce;
mod replace;
mod swizzle;
mod tile;

pub use copy::{copy_box, load, reduce, reduce_box, store, store_box, CopyStats};
pub use error::{rule, GlobalFault, TmaError};
pub use memory::{FlatGlobal, GlobalMemory};
pub use multicast::{check_mbarrier, mbar_target, multicast_targets, CopyTarget, CtaGroup};
pub use reduce::ReduceOp;
pub use replace::{
    decode_for_replace, replace_field, tensormap_replace, ReplaceError, ReplaceField,
};
pub use swizzle::TmaSwizzle;
pub use tile::{Element, Piece, Run, TileBox, SMEM_ALIGN};

/// The error for tensor-copy modes this crate does not model (`.im2col::w`,
/// `.im2col::w::128`): the engine
/// reports it, and the run as incomplete. `mode` names the qualifier, e.g. `"im2col"`.
pub fn unsupported_mode(mode: &'static str) -> TmaError {
    TmaError::Unsupported(mode)
}
