//! `.multicast::cluster` and the mbarrier a load signals (PTX ISA 9.1 §9.7.9.27.1.2;
//! bulk-copies.md §1.2–§1.3), as data: the list of (destination CTA, mbarrier CTA) pairs.
//!
//! The data lands at the same CTA-relative shared-memory offset in every destination, and
//! each destination's complete-tx of the box bytes goes to the mbarrier at the same offset as
//! `mbar` in the CTA this module names. Bit i of `ctaMask` is taken to select
//! `%cluster_ctarank` = i (bulk-copies.md §1.2, DERIVED: a 16-bit mask can only index the CTAs
//! of one cluster, and `tcgen05.commit`'s mask is defined that way).

use crate::TmaError;

/// The `.cta_group` qualifier (absent = `::1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum CtaGroup {
    #[default]
    One,
    Two,
}

/// One destination of a (multicast) load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyTarget {
    /// `%cluster_ctarank` of the CTA whose shared memory receives the box.
    pub cta_rank: u32,
    /// `%cluster_ctarank` of the CTA whose mbarrier (at `mbar`'s offset) receives the bytes.
    pub mbar_rank: u32,
}

/// The CTA that gets the signal for data written into `cta_rank`: with `.cta_group::2`, the
/// destination or its peer, whichever has the same rank parity as the CTA holding `mbar`;
/// otherwise the destination itself.
pub fn mbar_target(cta_rank: u32, mbar_rank: u32, group: CtaGroup) -> u32 {
    match group {
        CtaGroup::One => cta_rank,
        CtaGroup::Two if (cta_rank ^ mbar_rank) & 1 == 0 => cta_rank,
        CtaGroup::Two => cta_rank ^ 1,
    }
}

/// Destinations of `.multicast::cluster` with `cta_mask` in a cluster of `cluster_size` CTAs,
/// in rank order. `mbar_rank` is the rank of the CTA whose `mbar` address the instruction
/// names (the issuer's, unless it passed a `.shared::cluster` address of another CTA).
/// A bit at or beyond the cluster size is TM0128.
pub fn multicast_targets(
    cta_mask: u16,
    cluster_size: u32,
    mbar_rank: u32,
    group: CtaGroup,
) -> Result<impl Iterator<Item = CopyTarget>, TmaError> {
    if cluster_size < 16 && u32::from(cta_mask) >> cluster_size != 0 {
        return Err(TmaError::MulticastMask {
            mask: cta_mask,
            cluster_size,
        });
    }
    Ok((0..16u32)
        .filter(move |r| cta_mask >> r & 1 == 1)
        .map(move |r| CopyTarget {
            cta_rank: r,
            mbar_rank: mbar_target(r, mbar_rank, group),
        }))
}

/// An mbarrier object is 64 bits and must be 8-byte aligned (PTX ISA 9.1 §9.7.13.15.1);
/// TM0124 otherwise.
pub fn check_mbarrier(addr: u32) -> Result<(), TmaError> {
    if !addr.is_multiple_of(8) {
        return Err(TmaError::MbarMisaligned { addr });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multicast_lists_selected_ranks() {
        let t: Vec<_> = multicast_targets(0b1011, 4, 0, CtaGroup::One)
            .unwrap()
            .collect();
        assert_eq!(
            t.iter()
                .map(|t| (t.cta_rank, t.mbar_rank))
                .collect::<Vec<_>>(),
            [(0, 0), (1, 1), (3, 3)]
        );
        // cta_group::2 with mbar in rank 2 (even): odd destinations signal their even peer.
        let t: Vec<_> = multicast_targets(0b1011, 4, 2, CtaGroup::Two)
            .unwrap()
            .collect();
        assert_eq!(
            t.iter()
                .map(|t| (t.cta_rank, t.mbar_rank))
                .collect::<Vec<_>>(),
            [(0, 0), (1, 0), (3, 2)]
        );
        let e = multicast_targets(0b1_0000, 4, 0, CtaGroup::One)
            .err()
            .unwrap();
        assert_eq!(e.rule_id(), Some("TM0128"));
        assert_eq!(
            multicast_targets(0xFFFF, 16, 0, CtaGroup::One)
                .unwrap()
                .count(),
            16
        );
    }

    #[test]
    fn mbarrier_alignment() {
        assert!(check_mbarrier(0x408).is_ok());
        assert_eq!(check_mbarrier(0x404).unwrap_err().rule_id(), Some("TM0124"));
    }
}
