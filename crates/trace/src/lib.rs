//! Execution traces and TMEM occupancy pictures for tmemu runs.
//!
//! The engine records what happened into a [`Recorder`] (cheap appends, capped), then the
//! CLI writes it out as a Chrome/Perfetto trace ([`write_chrome_trace`], `--trace out.json`)
//! and/or an SVG map of Tensor Memory use per SM ([`write_tmem_map`], `--tmem-map out.svg`).
//!
//! All times are emulated steps (the engine's global step counter), never wall time; the
//! trace maps one step to one microsecond so viewers show step numbers directly.
//!
//! This crate knows no PTX text and no scheduler: it only sees the records it is given.

mod chrome;
mod json;
mod record;
mod svg;

pub use chrome::write_chrome_trace;
pub use record::{
    AllocRecord, AsyncOp, Blocked, Cta, CtaHandle, CtaRecord, OpHandle, OpRecord, OpShape,
    PhaseRecord, Pipe, Recorder, SpanHandle, SpanRecord, Step, Warp, WarpHandle, WarpRecord,
    TMEM_COLUMNS,
};
pub use svg::{
    cta_colour, render as render_tmem_map, write_tmem_map, TmemMapOptions, COL_PX, PLOT_LEFT,
};
