//! Bit-exact number formats and PTX arithmetic semantics. Pure functions over bit patterns;
//! no state, no PTX text.
//!
//! - `narrow`: the sub-byte and 8-bit formats of Blackwell's tensor cores (e4m3, e5m2, e2m3,
//!   e3m2, e2m1, ue8m0, ue4m3): decode and encode with rounding and saturation.
//! - `ops`: PTX scalar instruction semantics (integer, float with rounding modes, cvt).
pub mod narrow;
pub mod ops;
