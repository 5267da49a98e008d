//! Data-movement maps of Tensor Memory: which TMEM cells each register of `tcgen05.ld/st`
//! holds, where `tcgen05.cp` puts shared-memory bytes (with optional decompression and
//! multicast), and how `tcgen05.shift` moves rows.
//!
//! Facts: `shared/spec/data-movement.md` (PTX ISA 9.1 §9.7.16.2.3, §9.7.16.8, §9.7.16.9).
//! The ld/st fragment maps are DERIVED there from CUTLASS's copy traits (the ISA gives them
//! only as figures); they are closed-form here, so the engine pays a few integer operations
//! per register, and [`LdStForm::table`] precomputes them when a loop wants a lookup.

mod cp;
mod error;
mod ldst;
mod shift;

pub use cp::{CpChunk, CpForm, CpMulticast, CpShape, CpSrcFormat};
pub use error::LayoutError;
pub use ldst::{CellRef, LdStForm, LdStShape, RegCells};
pub use shift::{shift_down_moves, SHIFT_COLUMNS, SHIFT_ROWS};

/// A CTA whose Tensor Memory a `.cta_group` operation writes, relative to the issuer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CtaTarget {
    /// The issuing CTA.
    This,
    /// The other CTA of the pair (`%cluster_ctarank` differing in bit 0).
    Peer,
}

/// The CTAs `tcgen05.cp` / `tcgen05.shift` (and `mma`'s D) write for `.cta_group::N`:
/// `::1` only this CTA; `::2` this CTA and its peer, the same cells (same `taddr`) in each
/// (data-movement.md §5.1, §6). `None` for any other N.
pub fn cta_targets(cta_group: u8) -> Option<&'static [CtaTarget]> {
    match cta_group {
        1 => Some(&[CtaTarget::This]),
        2 => Some(&[CtaTarget::This, CtaTarget::Peer]),
        _ => None,
    }
}
