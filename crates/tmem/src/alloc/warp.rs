//! Warp-level preconditions of `.sync.aligned` alloc/dealloc/relinquish (PTX ISA
//! §9.7.16.7.1): every thread of the warp takes part, none has exited, operands are uniform.

use super::violation::Violation;
use super::Issue;
use crate::rules::{self, Rule};

/// Which threads of the warp exist, have exited, and execute this instruction now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpLanes {
    /// Threads the warp has (a CTA whose size is not a multiple of 32 has a partial warp).
    pub population: u32,
    /// Threads that have exited.
    pub exited: u32,
    /// Threads executing this instruction instance together.
    pub present: u32,
}

impl WarpLanes {
    /// A whole 32-thread warp, converged, nobody exited.
    pub const FULL: WarpLanes = WarpLanes {
        population: u32::MAX,
        exited: 0,
        present: u32::MAX,
    };
}

/// An operand as each thread of the warp sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneValues {
    /// The same value in every thread (an immediate, or a value known uniform).
    Uniform(u32),
    /// Value per lane; only lanes in `WarpLanes::present` are read.
    PerLane([u32; 32]),
}

/// TM0006 then TM0005: exited threads, then threads of the warp that are not here.
pub(crate) fn check_lanes(issue: &Issue, what: &str) -> Result<(), Violation> {
    let l = issue.lanes;
    let exited = l.exited & l.population;
    if exited != 0 {
        return Err(Violation::new(
            &rules::ALLOC_WARP_LANE_EXITED,
            issue,
            format!(
                "{what} executed by warp {} while {} of its threads have exited (lanes {exited:#010x})",
                issue.warp.0,
                exited.count_ones()
            ),
        )
        .with_lanes(exited));
    }
    let missing = l.population & !l.present;
    if missing != 0 {
        return Err(Violation::new(
            &rules::ALLOC_WARP_NOT_CONVERGED,
            issue,
            format!(
                "{what} is .sync.aligned but {} threads of warp {} do not execute it together with the others (lanes {missing:#010x})",
                missing.count_ones(),
                issue.warp.0
            ),
        )
        .with_lanes(missing));
    }
    Ok(())
}

/// The warp-uniform value of `values`, or `rule` naming the lanes that differ from the
/// lowest present lane.
pub(crate) fn uniform(
    issue: &Issue,
    values: &LaneValues,
    rule: &'static Rule,
    operand: &str,
) -> Result<u32, Violation> {
    let present = issue.lanes.present & issue.lanes.population;
    match values {
        LaneValues::Uniform(v) => Ok(*v),
        LaneValues::PerLane(v) => {
            let first = present.trailing_zeros().min(31) as usize;
            let expect = v[first];
            let differ = (0..32)
                .filter(|&i| present >> i & 1 == 1 && v[i] != expect)
                .fold(0u32, |m, i| m | 1 << i);
            if differ == 0 {
                Ok(expect)
            } else {
                let lane = differ.trailing_zeros();
                Err(Violation::new(
                    rule,
                    issue,
                    format!(
                        "{operand} differs across warp {}: lane {first} has {expect}, lane {lane} has {} ({} lanes differ)",
                        issue.warp.0,
                        v[lane as usize],
                        differ.count_ones()
                    ),
                )
                .with_lanes(differ))
            }
        }
    }
}
