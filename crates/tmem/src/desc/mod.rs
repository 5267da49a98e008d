//! Descriptors of `tcgen05.mma` / `tcgen05.cp`: the 64-bit shared-memory matrix descriptor,
//! the 32-bit instruction descriptor, and the address functions of the canonical
//! shared-memory layouts with their swizzles.
//!
//! Pure functions over decoded values: no PTX text, no memory. Facts come from
//! `shared/spec/descriptors.md` (PTX ISA 9.1 §9.7.16.3, §9.7.16.4, §9.7.16.10.6).
//!
//! Illegal encodings are typed errors ([`DescError`]) that name their rule (TM03xx).

mod error;
mod instr;
mod smem;
mod swizzle;
mod zcm;

pub use error::DescError;
pub use instr::{AccumType, ElemType, InstrDescriptor, MmaKind, MmaShapeContext, ScaleType};
pub use smem::SmemDescriptor;
pub use swizzle::{Major, OperandLayout, Swizzle};
pub use zcm::{ZcmError, ZeroColumnMask};
