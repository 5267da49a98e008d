//! Per-CTA allocation state, kept only for CTAs that can still be referred to.

use std::collections::{BTreeMap, VecDeque};
use std::ops::{Index, IndexMut};

use crate::alloc::pair::Half;
use crate::alloc::{CtaId, Origin, SmId, WarpId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Life {
    Resident,
    Exited(Origin),
}

#[derive(Clone, Debug)]
pub(super) struct CtaRecord {
    pub(super) life: Life,
    pub(super) sm: SmId,
    pub(super) peer: Option<CtaId>,
    /// Origin of the first relinquish_alloc_permit.
    pub(super) relinquished: Option<Origin>,
    /// nCols and origin of the latest alloc in execution order.
    pub(super) last_alloc: Option<(u32, Origin)>,
    /// The first warp that allocated.
    pub(super) alloc_warp: Option<(WarpId, Origin)>,
    /// A warp whose alloc is in flight (waiting for columns or for its peer).
    pub(super) alloc_in_flight: Option<(WarpId, Origin)>,
    /// Unmatched halves of `.cta_group::2` collectives, oldest first. At most one CTA of a
    /// pair has unmatched halves at a time: an arrival first matches the peer's.
    pub(super) halves: VecDeque<Half>,
}

/// Records of launched CTAs, by id. A map, not a vector, so an allocator only pays for the
/// CTAs it has seen, whatever their global numbering; ordered so queries are deterministic.
/// Records are dropped once nothing can refer to them any more (see `TmemAllocator::exit`).
#[derive(Clone, Debug, Default)]
pub(super) struct CtaTable(pub(super) BTreeMap<CtaId, CtaRecord>);

impl CtaTable {
    pub(super) fn get(&self, cta: &CtaId) -> Option<&CtaRecord> {
        self.0.get(cta)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (&CtaId, &CtaRecord)> {
        self.0.iter()
    }
}

/// Indexing is for CTAs whose record the caller has just checked exists (the issuer after
/// `check_issuer`, its peer after `pair_arrival`, members of queued requests, which are
/// blocked and so cannot have exited). A missing record there is a tmemu bug.
impl Index<CtaId> for CtaTable {
    type Output = CtaRecord;
    fn index(&self, cta: CtaId) -> &CtaRecord {
        self.0
            .get(&cta)
            .expect("tmemu bug: allocator lost a CTA record")
    }
}

impl IndexMut<CtaId> for CtaTable {
    fn index_mut(&mut self, cta: CtaId) -> &mut CtaRecord {
        self.0
            .get_mut(&cta)
            .expect("tmemu bug: allocator lost a CTA record")
    }
}
