//! The pipelined pairs of PTX ISA §9.7.16.6.2 beyond the canonical patterns, and commit's
//! cta_group tracking (§9.7.16.12.1).

use crate::dsl;
use dsl::*;
use tmemu_race::{AccessKind, OpId, OpKind, Place, Sem, SpanToken, TmemRect, WarpId};

fn op(
    s: &mut Script,
    w: u32,
    kind: OpKind,
    reads: &[TmemRect],
    writes: &[TmemRect],
    sp: u32,
) -> (OpId, SpanToken) {
    let span = SpanToken(1000 + sp);
    let id = s.d.issue(WarpId(w), kind, span);
    for &r in reads {
        s.d.op_access(id, Place::Tmem(r), AccessKind::Read);
    }
    for &r in writes {
        s.d.op_access(id, Place::Tmem(r), AccessKind::Write);
    }
    (id, span)
}

const MMA1: OpKind = OpKind::Mma {
    cta_group: 1,
    accum: 7,
};
const SHIFT1: OpKind = OpKind::Shift { cta_group: 1 };

#[test]
fn mma_mma_same_accumulator_across_threads_needs_only_fences_and_sync() {
    for fenced in [true, false] {
        let mut s = Script::new(2);
        let d = acc(0, 128);
        let (_, first) = op(&mut s, 0, MMA1, &[d], &[d], 1);
        if fenced {
            s.fence_before(0);
        }
        s.arrive(0, mbar(0), Sem::Relaxed);
        s.try_wait(1, mbar(0), Sem::Relaxed);
        if fenced {
            s.fence_after(1);
        }
        let (_, second) = op(&mut s, 1, MMA1, &[d], &[d], 2);
        if fenced {
            s.assert_silent();
        } else {
            s.assert_one("TM0206", first, second);
        }
    }
}

#[test]
fn mma_then_shift_is_pipelined_and_shift_then_mma_too() {
    let mut s = Script::new(1);
    let d = acc(0, 64);
    op(&mut s, 0, MMA1, &[d], &[d], 1);
    op(&mut s, 0, SHIFT1, &[d], &[d], 2);
    op(&mut s, 0, MMA1, &[d], &[d], 3);
    s.assert_silent();
}

#[test]
fn shift_then_cp_is_pipelined_only_for_4x256b() {
    let d = acc(0, 64);
    for (shape_4x256b, racy) in [(true, false), (false, true)] {
        let mut s = Script::new(1);
        let (_, shift) = op(&mut s, 0, SHIFT1, &[d], &[d], 1);
        let cp = OpKind::Cp {
            cta_group: 1,
            shape_4x256b,
        };
        let (_, copy) = op(&mut s, 0, cp, &[], &[d], 2);
        if racy {
            s.assert_one("TM0206", shift, copy);
        } else {
            s.assert_silent();
        }
    }
}

#[test]
fn pipelining_needs_the_same_cta_group() {
    let mut s = Script::new(1);
    let d = acc(0, 64);
    let (_, a) = op(&mut s, 0, SHIFT1, &[d], &[d], 1);
    let mma2 = OpKind::Mma {
        cta_group: 2,
        accum: 7,
    };
    let (_, b) = op(&mut s, 0, mma2, &[d], &[d], 2);
    s.assert_one("TM0206", a, b);
}

#[test]
fn commit_tracks_only_its_cta_group() {
    for group in [1u8, 2] {
        let mut s = Script::new(1);
        let d = acc(0, 128);
        let (m, mma) = op(&mut s, 0, MMA1, &[], &[d], 1);
        let c = s.d.commit(WarpId(0), group);
        s.d.complete(m);
        s.fire(c, mbar(0));
        s.try_wait(0, mbar(0), Sem::Ordering);
        s.fence_after(0);
        let (_, ld) = s.tc_ld(0, quarter(0, 0, 128));
        if group == 1 {
            s.assert_silent();
        } else {
            // A cta_group::2 commit does not track a cta_group::1 mma.
            s.assert_one("TM0206", mma, ld);
        }
    }
}

#[test]
fn commit_captures_ops_completed_before_it() {
    let mut s = Script::new(2);
    let d = acc(0, 128);
    let (m, _) = op(&mut s, 0, MMA1, &[], &[d], 1);
    s.complete(m); // finished before the commit executes
    let c = s.commit(0);
    s.fire(c, mbar(8));
    s.try_wait(1, mbar(8), Sem::Relaxed);
    s.fence_after(1);
    s.tc_ld(1, quarter(1, 0, 128));
    s.assert_silent();
}

#[test]
fn multicast_commit_arrives_on_every_barrier() {
    let mut s = Script::new(3);
    let d = acc(0, 128);
    let (m, _) = op(&mut s, 0, MMA1, &[], &[d], 1);
    let c = s.commit(0);
    s.complete(m);
    s.d.commit_fire(c, &[mbar(16), mbar(24)]);
    s.d.sync_complete(mbar(16));
    s.d.sync_complete(mbar(24));
    for (w, mb) in [(1, mbar(16)), (2, mbar(24))] {
        s.try_wait(w, mb, Sem::Ordering);
        s.fence_after(w);
        s.tc_ld(w, quarter(w, 0, 128));
    }
    s.assert_silent();
}

#[test]
fn tc_st_then_mma_reading_it_needs_wait_st() {
    // tcgen05.st writes the A operand into TMEM; st → mma is not a pipelined pair.
    for wait in [true, false] {
        let mut s = Script::new(1);
        let a = quarter(0, 256, 32);
        let (st_op, st) = s.tc_st(0, a);
        if wait {
            s.complete(st_op);
            s.wait_st(0);
        }
        let (_, mma) = op(&mut s, 0, MMA1, &[a], &[acc(0, 64)], 2);
        if wait {
            s.assert_silent();
        } else {
            s.assert_one("TM0206", st, mma);
        }
    }
}

const CP1: OpKind = OpKind::Cp {
    cta_group: 1,
    shape_4x256b: false,
};

/// The A block a `cp.128x256b` writes and an mma reads from TMEM (`tcgen05.mma [d], [a]`).
fn a_block() -> TmemRect {
    acc(128, 8)
}

#[test]
fn cp_then_mma_then_shift_is_ordered_through_the_mma() {
    // cp → mma (pair 2) and mma → shift (pair 5), one thread, no wait: the shift overwriting
    // the cp's columns executes after the mma, which executes after the cp (§9.7.16.6.2), so
    // the (cp, shift) pair, not listed itself, is ordered. The second mma reads the shifted A
    // (shift → mma, pair 3). Holdout kernel cp_shift_mma_transitive.
    let mut s = Script::new(1);
    let a = a_block();
    op(&mut s, 0, CP1, &[], &[a], 1);
    op(&mut s, 0, MMA1, &[a], &[acc(0, 64)], 2);
    for q in 0..4 {
        op(
            &mut s,
            0,
            SHIFT1,
            &[quarter(q, 128, 8)],
            &[quarter(q, 128, 8)],
            3 + q,
        );
    }
    let mma2 = OpKind::Mma {
        cta_group: 1,
        accum: 8,
    };
    op(&mut s, 0, mma2, &[a], &[acc(64, 64)], 7);
    s.assert_silent();
}

#[test]
fn cp_then_shift_without_an_mma_between_is_unordered() {
    let mut s = Script::new(1);
    let a = a_block();
    let (_, cp) = op(&mut s, 0, CP1, &[], &[a], 1);
    let (_, shift) = op(&mut s, 0, SHIFT1, &[a], &[a], 2);
    s.assert_one("TM0206", cp, shift);
}

#[test]
fn a_chain_needs_every_link_pipelined() {
    // cp → ld → shift: ld is no pipelined successor of cp (nor shift of ld), so nothing chains;
    // cp → mma of the other cta_group → shift: neither link is a pair.
    let a = a_block();
    let mma2 = OpKind::Mma {
        cta_group: 2,
        accum: 7,
    };
    for middle in [OpKind::Ld, mma2] {
        let mut s = Script::new(1);
        let (_, cp) = op(&mut s, 0, CP1, &[], &[a], 1);
        op(&mut s, 0, middle, &[], &[acc(0, 64)], 2);
        let (_, shift) = op(&mut s, 0, SHIFT1, &[a], &[a], 3);
        s.assert_one("TM0206", cp, shift);
    }
}

#[test]
fn a_chain_across_threads_needs_the_fences() {
    // Warp 0 copies A; warp 1, after a relaxed mbarrier handshake, runs mma (reads A) then
    // shift (writes A). With both tcgen05 fences the cp → mma pair is pipelined across the
    // threads (sync.md §3) and the shift is ordered after the cp through the mma. Without
    // them nothing orders the cp before either op of warp 1.
    for fenced in [true, false] {
        let mut s = Script::new(2);
        let a = a_block();
        let (_, cp) = op(&mut s, 0, CP1, &[], &[a], 1);
        if fenced {
            s.fence_before(0);
        }
        s.arrive(0, mbar(0), Sem::Relaxed);
        s.try_wait(1, mbar(0), Sem::Relaxed);
        if fenced {
            s.fence_after(1);
        }
        let (_, mma) = op(&mut s, 1, MMA1, &[a], &[acc(0, 64)], 2);
        let (_, shift) = op(&mut s, 1, SHIFT1, &[a], &[a], 3);
        if fenced {
            s.assert_silent();
        } else {
            let pairs: Vec<_> =
                s.d.findings()
                    .iter()
                    .map(|r| (r.rule.id, r.first.span, r.second.span))
                    .collect();
            assert!(pairs.contains(&("TM0206", cp, mma)), "{pairs:?}");
            assert!(pairs.iter().any(|p| p.1 == cp && p.2 == shift), "{pairs:?}");
        }
    }
}

#[test]
fn a_chain_orders_a_long_pipeline() {
    // cp → mma → shift → mma → shift ... : the last shift is still ordered after the cp.
    let mut s = Script::new(1);
    let a = a_block();
    op(&mut s, 0, CP1, &[], &[a], 1);
    for i in 0..6 {
        op(&mut s, 0, MMA1, &[], &[acc(0, 64)], 2 + 2 * i);
        op(&mut s, 0, SHIFT1, &[], &[acc(64, 8)], 3 + 2 * i);
    }
    op(&mut s, 0, SHIFT1, &[a], &[a], 99);
    s.assert_silent();
}
