//! The integration tests of tmemu-check as one test binary: each module is one former
//! `tests/<module>.rs`. One binary per crate instead of one per file: linking a test binary
//! against the whole dependency graph was most of CI's time (docs/arch/ci.md). A new test
//! file may go here as a module (`mod <name>;`) or stay a separate `tests/<name>.rs`.

// Shared with the separate ui_engine binary, hence outside this directory.
#[path = "../common/mod.rs"]
mod common;

mod forms;
mod ptxas_agreement;
mod race_compilers;
mod race_corpus;
mod race_cross_group;
mod race_observer;
mod race_vec_batch;
mod ui;
