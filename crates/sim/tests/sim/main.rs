//! The integration tests of tmemu-sim as one test binary: each module is one former
//! `tests/<module>.rs`. One binary per crate instead of one per file: linking a test binary
//! against the whole dependency graph was most of CI's time (docs/arch/ci.md). A new test
//! file may go here as a module (`mod <name>;`) or stay a separate `tests/<name>.rs`.

mod support;

mod assertfail;
mod atom_h100;
mod atom_half;
mod atom_vec;
mod bar_rearrive;
mod bar_split_sites;
mod clc;
mod cluster_rank_bits;
mod cp_async_warp;
mod engine;
mod forms_s7;
mod forms_s8;
mod forms_sm100;
mod h100_diff;
mod mad_wide16;
mod mbar_reuse;
mod mbar_wait;
mod mma_forms;
mod mma_fusion;
mod mma_ldmatrix;
mod mma_scale_b_pair;
mod mma_sparse_tf32;
mod mma_sync_forms;
mod mma_sync_h100;
mod rcp_approx_f64;
mod redux_abs_nan;
mod setmaxnreg;
mod st_async;
mod tcgen05_engine;
mod tcgen05_rules;
mod tma_reduce_threads;
mod tmem_lazy_zero;
mod vprintf;
mod warp_reset;
mod wmma_h100;
