//! Grouping: one finding per (rule, place, message), however many warps or CTAs hit it.
//!
//! A kernel bug usually fires in every CTA of the grid; printing it 96 times hides the second
//! bug. Findings are the same when rule, severity, message, primary and related locations,
//! `.loc` source line and notes agree; only the execution context may differ. A group keeps the
//! smallest context (by CTA, then warp) as its representative, so the output does not depend
//! on the order in which the schedule met the CTAs, and counts distinct CTAs and warps.

use std::collections::{HashMap, HashSet};

use crate::model::{ExecContext, Finding, Occurrences};

/// What makes two findings the same (everything but the context and the occurrence count).
#[derive(PartialEq, Eq, Hash)]
struct Key<'a> {
    rule: &'a str,
    severity: crate::Severity,
    message: &'a str,
    primary: &'a crate::Location,
    related: &'a [crate::Location],
    source: Option<&'a crate::SourceLine>,
    notes: &'a [String],
    seed: Option<u64>,
}

impl<'a> Key<'a> {
    fn of(f: &'a Finding) -> Key<'a> {
        Key {
            rule: f.rule,
            severity: f.severity,
            message: &f.message,
            primary: &f.primary,
            related: &f.related,
            source: f.source.as_ref(),
            notes: &f.notes,
            seed: f.seed,
        }
    }
}

struct Tally {
    ctas: HashSet<([u32; 3], [u32; 3])>,
    warps: HashSet<([u32; 3], [u32; 3], u32)>,
    count: u32,
}

/// Merges identical findings, in order of first appearance. Findings that were grouped
/// already (occurrences.count > 1) add their counts; their distinct CTAs are not known, so
/// their `ctas`/`warps` are added as they are (an upper bound).
pub fn group(findings: Vec<Finding>) -> Vec<Finding> {
    let mut index: HashMap<Key<'_>, usize> = HashMap::new();
    let mut slots: Vec<(usize, Tally)> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let slot = *index.entry(Key::of(f)).or_insert_with(|| {
            slots.push((
                i,
                Tally {
                    ctas: HashSet::new(),
                    warps: HashSet::new(),
                    count: 0,
                },
            ));
            slots.len() - 1
        });
        let (rep, tally) = &mut slots[slot];
        tally.count = tally.count.saturating_add(f.occurrences.count.max(1));
        if let Some(c) = &f.context {
            tally.ctas.insert((c.cluster, c.cta));
            if let Some(w) = c.warp {
                tally.warps.insert((c.cluster, c.cta, w));
            }
            if better(c, findings[*rep].context.as_ref()) {
                *rep = i;
            }
        }
    }
    let reps: Vec<(usize, Occurrences)> = slots
        .into_iter()
        .map(|(rep, t)| {
            (
                rep,
                Occurrences {
                    count: t.count,
                    ctas: t.ctas.len() as u32,
                    warps: t.warps.len() as u32,
                },
            )
        })
        .collect();
    drop(index);
    let mut findings: Vec<Option<Finding>> = findings.into_iter().map(Some).collect();
    reps.into_iter()
        .filter_map(|(rep, occ)| {
            let mut f = findings[rep].take()?;
            // A single pre-grouped finding keeps its own tally.
            if occ.count > f.occurrences.count {
                f.occurrences = occ;
            }
            Some(f)
        })
        .collect()
}

fn better(candidate: &ExecContext, current: Option<&ExecContext>) -> bool {
    match current {
        None => true,
        Some(cur) => candidate.order_key() < cur.order_key(),
    }
}
