//! `brx.idx`: each lane jumps to `targets[index]` of its own index, so a warp may split into
//! as many groups as distinct targets; the lowest-PC rule then runs and reconverges them like
//! any divergent branch. An index outside the list is undefined behaviour in PTX: reported
//! (TM0501, the list is the accessed object) and those lanes fall through.

use super::{Ctx, Flow, Warp};
use crate::error::rules;
use crate::observer::Observer;
use crate::program::S32;

#[derive(Clone, Debug)]
pub struct BrxInst {
    pub index: S32,
    pub targets: Vec<u32>,
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &BrxInst,
) -> Flow {
    let pc = w.cur_pc;
    let idx = w.get(i.index);
    let mut bad = 0u32;
    for l in 0..32 {
        if w.cur_mask >> l & 1 == 0 {
            continue;
        }
        w.pc[l] = if mask >> l & 1 == 0 {
            pc + 1
        } else {
            match i.targets.get(idx[l] as usize) {
                Some(&t) => t,
                None => {
                    bad |= 1 << l;
                    pc + 1
                }
            }
        };
    }
    if bad != 0 {
        let l = bad.trailing_zeros() as usize;
        cx.diag(
            w,
            pc,
            bad,
            rules::OUT_OF_BOUNDS,
            format!(
                "brx.idx index {} (lane {l}) is outside its {}-entry .branchtargets list",
                idx[l],
                i.targets.len()
            ),
        );
    }
    w.regroup_from_pcs();
    Flow::Moved
}
