//! PTX scalar instruction semantics: pure, allocation-free functions over bit patterns that
//! the engine calls from its per-lane loops. Each family has a decoded form (`FloatOp`,
//! `HalfOp`, `PrmtMode`, `CmpOp`, `Rounding`, ...) so the engine decodes an instruction once.
//!
//! - `types`: `ScalarType`, `Rounding`, `CmpOp`, `BoolOp`, `OpError`.
//! - `int`: integer and bit manipulation (§9.7.1, §9.7.2), integer setp/slct.
//! - `float`: f32/f64 with rounding modes, ftz, sat; min/max; testp; setp (§9.7.3).
//! - `approx`: the `.approx` transcendental and reciprocal instructions.
//! - `half`: f16/bf16 and packed x2 arithmetic (§9.7.4).
//! - `cvt`: conversions and cvt.pack (§9.7.9.21-22).
//! - `warp`: shfl.sync lane selection and atomic read-modify-write values.
//! - `round`: exact rounding of f64-represented values to narrower formats.

pub mod approx;
pub mod cvt;
pub mod float;
pub mod half;
pub mod int;
pub mod round;
pub mod types;
pub mod warp;

pub use cvt::{cvt, CvtMods};
pub use float::{FloatMods, FloatOp, MinMaxMods, TestP};
pub use half::{HalfKind, HalfMods, HalfOp};
pub use int::{IntOp, IntTy, PrmtMode};
pub use types::{BoolOp, CmpOp, OpError, Rounding, ScalarType, TypeKind};
pub use warp::{AtomOp, ShflMode};
