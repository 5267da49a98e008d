//! The integration tests of tmemu-race as one test binary: each module is one former
//! `tests/<module>.rs`. One binary per crate instead of one per file: linking a test binary
//! against the whole dependency graph was most of CI's time (docs/arch/ci.md). A new test
//! file may go here as a module (`mod <name>;`) or stay a separate `tests/<name>.rs`.

mod dsl;

mod canonical;
mod compilers;
mod cp_async_merge;
mod exit_watch;
mod gemm;
mod mbar_init;
mod memory;
mod pipelining;
mod reference;
