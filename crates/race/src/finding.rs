//! Findings: a race names both accesses (the earlier one first), the rule, and why.

use std::fmt;
use std::ops::Range;

use tmemu_tmem::rules::{self, Rule};

use crate::event::{AccessKind, Agent, MemSpace, SpanToken, WarpId};
use crate::shadow::Rec;

/// Where the two accesses overlap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Region {
    Mem {
        space: MemSpace,
        bytes: Range<u64>,
    },
    /// Bounding box of the conflicting TMEM cells.
    Tmem {
        cta: u32,
        lanes: Range<u32>,
        cols: Range<u32>,
    },
}

/// One side of a race.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    /// The warp that accessed, or that issued the asynchronous op.
    pub warp: WarpId,
    pub agent: Agent,
    pub kind: AccessKind,
    pub span: SpanToken,
    pub region: Region,
}

impl Access {
    pub(crate) fn from_rec(r: &Rec, kind: AccessKind, region: Region) -> Self {
        Access {
            warp: r.warp,
            agent: r.agent,
            kind,
            span: r.span,
            region,
        }
    }
}

/// A pair of accesses the happens-before model does not order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    pub rule: &'static Rule,
    /// The access recorded earlier (in the emulated execution).
    pub first: Access,
    /// The access being checked when the race was found.
    pub second: Access,
    pub message: String,
    /// The reason alone (what `message` ends with), for front ends that name the accesses
    /// in their own words.
    pub why: &'static str,
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.rule.id, self.rule.name, self.message)
    }
}

/// Why two accesses conflict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cause {
    /// Not ordered by happens-before (in the view that governs the second access).
    Unordered {
        /// TMEM only: the generic view (thread synchronisation) would order them, so the
        /// missing piece is a tcgen05 fence.
        ordered_without_tc_fence: bool,
    },
    /// Ordered, but across proxies without `fence.proxy.async`.
    ProxyFence,
}

fn kind_word(k: AccessKind) -> &'static str {
    match k {
        AccessKind::Read => "read",
        AccessKind::Write => "write",
    }
}

/// Picks the rule for a conflict (first = earlier access).
pub(crate) fn classify(
    tmem: bool,
    space: Option<MemSpace>,
    first: (&Rec, AccessKind),
    second: (&Rec, AccessKind),
    cause: Cause,
) -> (&'static Rule, &'static str) {
    let (a, ak) = first;
    let (b, bk) = second;
    if tmem {
        // The allocation's lifetime: a dealloc on one side (tmem.md rule 16 for the pair).
        let dealloc = [a, b].into_iter().find(|r| r.agent == Agent::Dealloc);
        if let Some(d) = dealloc {
            return if a.agent == Agent::Alloc {
                (
                    &rules::PAIR_DEALLOC_UNSYNCHRONISED,
                    "the collective dealloc does not happen after both CTAs' collective alloc (the rendezvous orders nothing: alloc and dealloc \"may block\", they need not); synchronise the pair between them, e.g. barrier.cluster.arrive + wait",
                )
            } else if d.cta_group == 2 {
                (
                    &rules::PAIR_DEALLOC_UNSYNCHRONISED,
                    "the TMEM access is not ordered before the collective dealloc: both CTAs of the pair must complete their TMEM accesses and synchronise (e.g. barrier.cluster) before tcgen05.dealloc.cta_group::2",
                )
            } else {
                (
                    &rules::TMEM_ACCESS_RACE,
                    "the TMEM access is not ordered before the dealloc that frees its columns: observe its completion (tcgen05.wait::ld/st, or commit + mbarrier wait) and synchronise with the deallocating warp first",
                )
            };
        }
        if a.agent == Agent::TcLd && bk == AccessKind::Write {
            return (
                &rules::TMEM_OVERWRITE_BEFORE_WAIT_LD,
                "the load was not waited for (tcgen05.wait::ld, and across threads fence::before_thread_sync + sync + fence::after_thread_sync) before the cells were overwritten",
            );
        }
        if let Cause::Unordered {
            ordered_without_tc_fence: true,
        } = cause
        {
            return (
                &rules::TMEM_TCGEN05_FENCE_MISSING,
                "the pipelined pair is split across threads by a synchronisation without tcgen05.fence::before_thread_sync before it and ::after_thread_sync after it, so the second op is not ordered after the first",
            );
        }
        if ak == AccessKind::Write {
            return (
                &rules::TMEM_UNFINISHED_WRITE,
                "the writer's completion was not observed (tcgen05.commit + mbarrier wait + fence::after_thread_sync, or tcgen05.wait::st) and the pair is not pipelined",
            );
        }
        return (
            &rules::TMEM_ACCESS_RACE,
            "the accesses are not ordered by the tcgen05 memory consistency model",
        );
    }
    if cause == Cause::ProxyFence {
        return (
            &rules::PROXY_FENCE_MISSING,
            "the data was written through the other proxy; fence.proxy.async is needed between the write and the synchronisation",
        );
    }
    if a.agent == Agent::AllocAddr || b.agent == Agent::AllocAddr {
        return (
            &rules::ALLOC_ADDRESS_UNSYNCHRONISED,
            "the tcgen05.alloc address store is weak: synchronise (e.g. bar.sync) before other warps read it",
        );
    }
    if a.agent == Agent::Bulk && ak == AccessKind::Write {
        return (
            &rules::ASYNC_WRITE_IN_FLIGHT,
            "the copy's completion was not observed (mbarrier wait, or cp.async.bulk.wait_group after commit_group; wait_group.read only completes the copy's reads)",
        );
    }
    if a.agent == Agent::CpAsync && ak == AccessKind::Write {
        return (
            &rules::ASYNC_WRITE_IN_FLIGHT,
            "the cp.async's completion was not observed by its thread (cp.async.commit_group + cp.async.wait_group covering its group, cp.async.wait_all, or cp.async.mbarrier.arrive + mbarrier wait) before the synchronisation",
        );
    }
    if a.agent == Agent::CpAsync && ak == AccessKind::Read && bk == AccessKind::Write {
        return (
            &rules::ASYNC_READ_OVERWRITTEN,
            "the cp.async may still read its source: wait for it first (cp.async.wait_group covering its group, or cp.async.wait_all)",
        );
    }
    if a.agent == Agent::Bulk && ak == AccessKind::Read && bk == AccessKind::Write {
        return (
            &rules::ASYNC_READ_OVERWRITTEN,
            "the bulk copy may still read its source: wait for it first (cp.async.bulk.commit_group, then cp.async.bulk.wait_group.read covering its group, or its mbarrier)",
        );
    }
    if a.agent.is_async_proxy() && ak == AccessKind::Read && bk == AccessKind::Write {
        return (
            &rules::ASYNC_READ_OVERWRITTEN,
            "the asynchronous reader had not completed (stage released before commit + mbarrier wait)",
        );
    }
    let why = if a.strong && b.strong {
        NOT_MORALLY_STRONG
    } else {
        "no happens-before between the accesses"
    };
    match space {
        Some(MemSpace::Global) => (&rules::GLOBAL_DATA_RACE, why),
        _ => (&rules::SHARED_DATA_RACE, why),
    }
}

/// The reason of a race between two strong accesses ([`Race::why`]): front ends that know the
/// instructions' scopes name them instead.
pub const NOT_MORALLY_STRONG: &str = "no happens-before between the accesses, and the two \
     strong accesses are not morally strong: the .cta or .cluster scope of one does not \
     include the other's thread (PTX ISA §8, \"Morally strong operations\")";

pub(crate) fn message(first: &Access, second: &Access, why: &str) -> String {
    format!(
        "{} {} by warp {} (span {}) races earlier {} {} by warp {} (span {}) on {:?}: {}",
        second.agent.name(),
        kind_word(second.kind),
        second.warp.0,
        second.span.0,
        first.agent.name(),
        kind_word(first.kind),
        first.warp.0,
        first.span.0,
        second.region,
        why
    )
}
