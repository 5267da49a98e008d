//! tcgen05.cp: shared memory → TMEM, queued (PTX ISA §9.7.16.9.2; data-movement.md §5).
//! The copy reads shared memory when it completes, through `CpForm::execute` (shapes,
//! multicast, decompression), into this CTA and, for `.cta_group::2`, its peer.

use tmemu_tmem::desc::{Major, OperandLayout, SmemDescriptor};
use tmemu_tmem::layout::{CpForm, CpShape};

use super::queue::Work;
use super::{columns_owned, enqueue, rule_of, target_ranks};
use crate::exec::memory::lane_addr;
use crate::exec::{Ctx, Flow, Warp};
use crate::mem::SHARED_BASE;
use crate::observer::{AccessKind, MemSpace, Observer, OpKind, Place, TmemRect};
use crate::program::{Addr, Any};
use tmemu_tmem::rules as cat;

pub(super) fn cp<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    group: u8,
    form: &CpForm,
    taddr: Addr,
    desc: Any,
) -> Flow {
    // one copy per executing thread (see the module docs of `tcgen05`)
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let lane = 1u32 << l;
        let Some(ranks) = target_ranks(w, cx, lane, group, "tcgen05.cp") else {
            continue;
        };
        let t = lane_addr(w, taddr, l) as u32;
        let d = w.read_any(desc, l);
        let (l0, c0) = (t >> 16, t & 0xffff);
        let cols = c0..c0 + form.columns();
        let mut ok = true;
        for &r in &ranks {
            if let Err(msg) = columns_owned(cx, r, cols.clone()) {
                let pc = w.cur_pc;
                cx.diag(
                    w,
                    pc,
                    lane,
                    rule_of(&cat::ACCESS_UNALLOCATED_COLUMNS),
                    format!("tcgen05.cp at taddr {t:#x} in CTA rank {r}: {msg}"),
                );
                ok = false;
                break;
            }
        }
        if !ok {
            continue;
        }
        let max_lane = (0..form.rows())
            .flat_map(|i| {
                let (ls, n) = form.dest_lanes(i);
                ls.into_iter().take(n as usize)
            })
            .max()
            .unwrap_or(0);
        let mut places: Vec<(Place, AccessKind)> = ranks
            .iter()
            .map(|&r| {
                (
                    Place::Tmem(TmemRect {
                        cta: r as u32,
                        lane: l0,
                        lanes: max_lane + 1,
                        col: c0,
                        cols: form.columns(),
                    }),
                    AccessKind::Write,
                )
            })
            .collect();
        if cx.obs.wants_memory() {
            for &r in &ranks {
                source_ranges(form, d, r as u32, &mut places);
            }
        }
        let kind = OpKind::Cp {
            cta_group: group,
            shape_4x256b: form.shape == CpShape::S4x256b,
        };
        enqueue(
            w,
            cx,
            lane,
            Some((kind, &places)),
            Work::Cp {
                form: *form,
                desc: d,
                taddr: t,
                ranks,
            },
        );
    }
    Flow::Next
}

/// The shared-memory bytes the copy reads (each CTA of the group reads its own shared memory
/// at the descriptor), merged into ranges, as observer places. A malformed descriptor reads
/// nothing (the copy reports it at completion).
fn source_ranges(form: &CpForm, desc: u64, cta: u32, out: &mut Vec<(Place, AccessKind)>) {
    let Ok(d) = SmemDescriptor::decode(desc) else {
        return;
    };
    let layout = OperandLayout::new(d, Major::K);
    let mut starts: Vec<u32> = form
        .chunks()
        .map(|ch| layout.chunk_address(ch.row, ch.chunk))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let mut i = 0;
    while i < starts.len() {
        let lo = starts[i];
        let mut hi = lo + 16;
        i += 1;
        while i < starts.len() && starts[i] <= hi {
            hi = hi.max(starts[i] + 16);
            i += 1;
        }
        out.push((
            Place::Mem {
                space: MemSpace::Shared { cta },
                // descriptor addresses are shared addresses; the observer's are offsets
                addr: lo.wrapping_sub(SHARED_BASE) as u64,
                len: (hi - lo) as u64,
            },
            AccessKind::Read,
        ));
    }
}
