//! tmemu-tmem: Tensor Memory as a device — geometry, the per-SM column allocator,
//! CTA-pair rendezvous, data-movement maps, descriptors, mma, and the rule catalogue.
//!
//! This crate knows no PTX text and no scheduler: callers (engine, checker, schedule
//! explorer) feed it typed events and get typed outcomes or violations back.

pub mod alloc;
pub mod geometry;
pub mod rules;

pub mod desc;
pub mod layout;
pub mod mma;
