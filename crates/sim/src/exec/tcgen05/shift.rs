//! tcgen05.shift.down, queued (PTX ISA §9.7.16.9.3; data-movement.md §6): rows L0..L0+30 of
//! 8 columns move one lane down at completion (`tmemu_tmem::layout::shift_down_moves`).

use tmemu_tmem::geometry::COLUMNS;
use tmemu_tmem::layout::{shift_down_moves, LayoutError, SHIFT_COLUMNS};

use super::queue::Work;
use super::{columns_owned, enqueue, layout_rule, rule_of, target_ranks};
use crate::exec::memory::lane_addr;
use crate::exec::{Ctx, Flow, Warp};
use crate::observer::{AccessKind, Observer, OpKind, Place, TmemRect};
use crate::program::Addr;
use tmemu_tmem::rules as cat;

/// Applies the shift to one CTA's TMEM.
pub(crate) fn execute(tmem: &mut [u32], taddr: u32) -> Result<(), LayoutError> {
    let c0 = taddr & 0xffff;
    if c0 + SHIFT_COLUMNS > COLUMNS {
        return Err(LayoutError::OutOfRange {
            lane: taddr >> 16,
            column: c0 + SHIFT_COLUMNS - 1,
        });
    }
    for (from, to) in shift_down_moves(taddr)? {
        let (f, t) = ((from * COLUMNS + c0) as usize, (to * COLUMNS + c0) as usize);
        tmem.copy_within(f..f + SHIFT_COLUMNS as usize, t);
    }
    Ok(())
}

pub(super) fn shift<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    group: u8,
    taddr: Addr,
) -> Flow {
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let lane = 1u32 << l;
        let pc = w.cur_pc;
        let t = lane_addr(w, taddr, l) as u32;
        if let Err(e) = shift_down_moves(t) {
            let (rule, msg) = layout_rule(&e, "tcgen05.shift");
            cx.diag(w, pc, lane, rule, msg);
            continue;
        }
        let Some(ranks) = target_ranks(w, cx, lane, group, "tcgen05.shift") else {
            continue;
        };
        let c0 = t & 0xffff;
        let mut ok = true;
        for &r in &ranks {
            if let Err(msg) = columns_owned(cx, r, c0..c0 + SHIFT_COLUMNS) {
                cx.diag(
                    w,
                    pc,
                    lane,
                    rule_of(&cat::ACCESS_UNALLOCATED_COLUMNS),
                    format!("tcgen05.shift at taddr {t:#x} in CTA rank {r}: {msg}"),
                );
                ok = false;
                break;
            }
        }
        if !ok {
            continue;
        }
        let mut places = Vec::with_capacity(4);
        for &r in &ranks {
            let rect = TmemRect {
                cta: r as u32,
                lane: t >> 16,
                lanes: 32,
                col: c0,
                cols: SHIFT_COLUMNS,
            };
            places.push((Place::Tmem(rect), AccessKind::Read));
            places.push((Place::Tmem(rect), AccessKind::Write));
        }
        enqueue(
            w,
            cx,
            lane,
            Some((OpKind::Shift { cta_group: group }, &places)),
            Work::Shift { taddr: t, ranks },
        );
    }
    Flow::Next
}
