//! The `.cta_group::2` rendezvous: matching a warp's arrival with its peer CTA's half.

use super::{Life, TmemAllocator};
use crate::alloc::pair::{Half, PairOp};
use crate::alloc::violation::{StepError, Violation};
use crate::alloc::{CtaId, Issue};
use crate::rules;

/// Result of a pair arrival.
#[derive(Clone, Copy, Debug)]
pub(super) enum Arrival {
    /// The peer has not performed this collective yet.
    First { peer: CtaId },
    /// The peer's warp performed it earlier (`half`, now removed from its queue).
    Second { peer: CtaId, half: Half },
}

impl TmemAllocator {
    /// Rendezvous of a `.cta_group::2` collective: the peer must exist (TM0015), be live or
    /// have left a matching half (TM0016), and its oldest unmatched half must be the same
    /// operation (TM0017). Pops the peer's half when this arrival completes it.
    pub(super) fn pair_arrival(&mut self, issue: &Issue, op: PairOp) -> Result<Arrival, StepError> {
        let rec = &self.ctas[issue.cta];
        let Some(peer) = rec.peer else {
            return Err(Violation::new(
                &rules::PAIR_NO_PEER,
                issue,
                format!(
                    ".cta_group::2 {} by CTA {}, which has no peer CTA (%cluster_ctarank ^ 1 is not in its cluster)",
                    op.name(),
                    issue.cta.0
                ),
            )
            .into());
        };
        let Some(pr) = self.ctas.get(&peer) else {
            return Err(Violation::new(
                &rules::PAIR_NO_PEER,
                issue,
                format!(
                    ".cta_group::2 {} by CTA {}, whose peer CTA {} was never launched",
                    op.name(),
                    issue.cta.0,
                    peer.0
                ),
            )
            .into());
        };
        match pr.halves.front() {
            Some(h) if h.op == op => {
                let half = *h;
                self.ctas[peer].halves.pop_front();
                Ok(Arrival::Second { peer, half })
            }
            Some(h) => Err(Violation::new(
                &rules::PAIR_COLLECTIVE_MISMATCH,
                issue,
                format!(
                    ".cta_group::2 {} by warp {} of CTA {}, but its peer CTA {} (warp {}) performed {}",
                    op.describe(),
                    issue.warp.0,
                    issue.cta.0,
                    peer.0,
                    h.warp.0,
                    h.op.describe()
                ),
            )
            .related(h.origin, peer, "peer's collective")
            .into()),
            None => match pr.life {
                Life::Exited(at) => Err(Violation::new(
                    &rules::PAIR_PEER_EXITED,
                    issue,
                    format!(
                        ".cta_group::2 {} by CTA {}, whose peer CTA {} has exited without performing it; this warp would wait forever",
                        op.name(),
                        issue.cta.0,
                        peer.0
                    ),
                )
                .related(at, peer, "peer CTA exited here")
                .into()),
                _ => Ok(Arrival::First { peer }),
            },
        }
    }
}
