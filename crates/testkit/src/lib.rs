//! Test helpers that more than one crate's tests need, so that each lives in one place.
//!
//! A dev-dependency only: no library crate depends on it, and it depends on no tmemu crate
//! (it works on raw bit patterns), so any crate can use it without a dependency cycle.
//!
//! - [`h100`]: the recording made on a real H100 (tests/corpus/diff/h100) and how a result
//!   is compared with it; read by crates/num/tests/num/ops_vs_h100.rs (the `ops` functions) and
//!   crates/sim/tests/sim/h100_diff.rs (the whole engine).
//! - [`tma_h100`]: the TMA recording (tests/corpus/tma_h100): copies, stores and reductions.
//! - [`recording`]: reads a recording committed xz-compressed (`name.bin.xz`), or corpus PTX
//!   committed gzip-compressed (`name.ptx.gz`).

pub mod h100;
pub mod recording;
pub mod tma_h100;
