//! Grouping: one finding per (rule, place), however many lanes, warps or CTAs hit it.
//!
//! A kernel bug usually fires in every warp of every CTA of the grid, and its message often
//! names the lane's own address (`taddr 0x200000`, `address 0x7000...80 (lane 3)`); printing
//! it 128 times hides the second bug. Findings are the same when rule, severity, primary and
//! related locations, operand, `.loc` source line, notes and seed agree; the message and the
//! execution context may differ. A group keeps the smallest context (by CTA, then warp) and
//! its message as the representative, so the output does not depend on the order in which
//! the schedule met the CTAs; it counts distinct CTAs and warps, the union of lanes and the
//! box of CTA coordinates, and keeps every occurrence (context and message) in
//! `Finding::instances`, sorted the same way.

use std::collections::{HashMap, HashSet};

use crate::model::{ExecContext, Finding, Instance, Occurrences};

/// What makes two findings the same (everything but the message, the context and the
/// occurrence count).
#[derive(PartialEq, Eq, Hash)]
struct Key<'a> {
    rule: &'a str,
    severity: crate::Severity,
    primary: &'a crate::Location,
    operand: Option<&'a crate::Location>,
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
            primary: &f.primary,
            operand: f.operand.as_ref(),
            related: &f.related,
            source: f.source.as_ref(),
            notes: &f.notes,
            seed: f.seed,
        }
    }
}

#[derive(Default)]
struct Tally {
    ctas: HashSet<([u32; 3], [u32; 3])>,
    warps: HashSet<([u32; 3], [u32; 3], u32)>,
    count: u32,
    /// Raw findings of the group, by index (their instances are moved out at the end).
    members: Vec<usize>,
}

/// Merges findings of the same rule at the same place, in order of first appearance.
/// Findings that were grouped already (occurrences.count > 1) add their counts, and their
/// `instances` (when given) add their contexts and messages.
pub fn group(findings: Vec<Finding>) -> Vec<Finding> {
    let mut index: HashMap<Key<'_>, usize> = HashMap::new();
    let mut slots: Vec<(usize, Tally)> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let slot = *index.entry(Key::of(f)).or_insert_with(|| {
            slots.push((i, Tally::default()));
            slots.len() - 1
        });
        let (rep, tally) = &mut slots[slot];
        tally.count = tally.count.saturating_add(f.occurrences.count.max(1));
        tally.members.push(i);
        let contexts: Vec<&ExecContext> = if f.instances.is_empty() {
            f.context.iter().collect()
        } else {
            f.instances
                .iter()
                .filter_map(|x| x.context.as_ref())
                .collect()
        };
        for c in contexts {
            tally.ctas.insert((c.cluster, c.cta));
            if let Some(w) = c.warp {
                tally.warps.insert((c.cluster, c.cta, w));
            }
        }
        if let Some(c) = &f.context {
            if better(c, findings[*rep].context.as_ref()) {
                *rep = i;
            }
        }
    }
    drop(index);
    let mut findings: Vec<Option<Finding>> = findings.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len());
    for (rep, tally) in slots {
        let mut instances: Vec<Instance> = Vec::new();
        let mut pre_grouped = None;
        for &m in &tally.members {
            let Some(f) = findings[m].as_mut() else {
                continue;
            };
            if f.occurrences.count > 1 && f.instances.is_empty() {
                // grouped elsewhere without its instances: keep its own tally
                pre_grouped = Some(f.occurrences);
            }
            if f.instances.is_empty() {
                // the representative keeps its message; the others give theirs up
                let message = if m == rep {
                    f.message.clone()
                } else {
                    std::mem::take(&mut f.message)
                };
                instances.push(Instance {
                    context: f.context,
                    message,
                });
            } else {
                instances.append(&mut f.instances);
            }
        }
        let Some(mut f) = findings[rep].take() else {
            continue;
        };
        instances.sort_by(|a, b| {
            let key = |x: &Instance| x.context.map(|c| (c.order_key(), c.cluster, c.lanes));
            key(a).cmp(&key(b)).then_with(|| a.message.cmp(&b.message))
        });
        let mut occ = Occurrences::EMPTY;
        occ.count = tally.count;
        occ.ctas = tally.ctas.len() as u32;
        occ.warps = tally.warps.len() as u32;
        for c in instances.iter().filter_map(|x| x.context.as_ref()) {
            occ.add_context(c);
        }
        if !occ.has_ctas() {
            occ.cta_min = [0; 3];
        }
        let mut messages: Vec<&str> = instances.iter().map(|x| x.message.as_str()).collect();
        messages.sort_unstable();
        messages.dedup();
        occ.messages = messages.len().max(1) as u32;
        match pre_grouped {
            // A single pre-grouped finding without instances keeps its own tally.
            Some(p) if tally.members.len() == 1 => f.occurrences = p,
            _ => f.occurrences = occ,
        }
        if instances.len() > 1 {
            f.instances = instances;
        } else {
            f.instances.clear();
        }
        out.push(f);
    }
    out
}

fn better(candidate: &ExecContext, current: Option<&ExecContext>) -> bool {
    match current {
        None => true,
        Some(cur) => candidate.order_key() < cur.order_key(),
    }
}
