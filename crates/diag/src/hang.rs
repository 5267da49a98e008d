//! Hang reports: the warps that can no longer make progress, and what each waits for.

use std::collections::HashMap;

use crate::model::{ExecContext, Location, Occurrences};

/// One blocked warp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedWarp {
    pub context: ExecContext,
    /// The instruction it waits in.
    pub location: Location,
    /// The opcode as written, e.g. `mbarrier.try_wait.parity.shared::cta.b64`.
    pub instruction: String,
    /// What it waits for, e.g. `mbarrier at smem+0x10 to finish phase 0 (1 arrival pending)`.
    pub waiting_for: String,
}

/// No warp can progress and nothing asynchronous is pending (or a spin can never end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HangReport {
    /// The rule that names the hang (e.g. `TM0504 barrier-deadlock`).
    pub rule: &'static str,
    pub name: &'static str,
    /// One sentence: why the run cannot go on.
    pub summary: String,
    pub warps: Vec<BlockedWarp>,
}

/// (cluster, CTA) of a blocked warp.
type CtaKey = ([u32; 3], [u32; 3]);

/// Rows of the blocked-warp table after grouping: warps blocked at the same instruction for
/// the same reason become one row, represented by the smallest (CTA, warp).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedRow<'a> {
    pub first: &'a BlockedWarp,
    pub occurrences: Occurrences,
}

impl HangReport {
    /// The table rows, in order of first appearance.
    pub fn rows(&self) -> Vec<BlockedRow<'_>> {
        let mut index: HashMap<(&Location, &str, &str), usize> = HashMap::new();
        // Each row with the (cluster, CTA) pairs it has seen.
        let mut rows: Vec<(BlockedRow<'_>, Vec<CtaKey>)> = Vec::new();
        for w in &self.warps {
            let key = (&w.location, w.instruction.as_str(), w.waiting_for.as_str());
            let slot = *index.entry(key).or_insert_with(|| {
                rows.push((
                    BlockedRow {
                        first: w,
                        occurrences: Occurrences::EMPTY,
                    },
                    Vec::new(),
                ));
                rows.len() - 1
            });
            let (row, ctas) = &mut rows[slot];
            row.occurrences.count += 1;
            row.occurrences.warps += 1;
            row.occurrences.messages = 1;
            row.occurrences.add_context(&w.context);
            let cta = (w.context.cluster, w.context.cta);
            if !ctas.contains(&cta) {
                ctas.push(cta);
            }
            if w.context.order_key() < row.first.context.order_key() {
                row.first = w;
            }
        }
        rows.into_iter()
            .map(|(mut row, ctas)| {
                row.occurrences.ctas = ctas.len() as u32;
                row
            })
            .collect()
    }
}
