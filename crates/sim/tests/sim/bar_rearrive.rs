//! TM0512 for threads of a warp that execute `bar.arrive` on a named barrier and then another
//! barrier instruction on the same barrier before that instance completed (PTX ISA §9.7.13.1:
//! "barrier{.cta}.arrive followed by any other barrier{.cta} instruction to the same barrier
//! prior to the reset of the barrier"; flashinfer-ai/flashinfer PR #4732). One warp, barrier 1
//! counting 96 threads (never completed by it alone); the second instruction is chosen by
//! `mode`.

use crate::support::mode_diagnostics;

const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry ra(.param .u32 mode)
{
    .reg .b32 %r<40>;
    .reg .pred %p<8>;
    ld.param.u32 %r30, [mode];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 31;
    setp.eq.u32 %p2, %r30, 1;
    @%p2 bra OTHER_ID;
    setp.eq.u32 %p2, %r30, 2;
    @%p2 bra HALVES;
    bar.arrive 1, 96;
    bar.arrive 1, 96;
    ret;
OTHER_ID:
    bar.arrive 1, 96;
    bar.arrive 2, 96;
    ret;
HALVES:
    setp.lt.u32 %p3, %r2, 16;
    @%p3 bra LOW;
    barrier.arrive 1, 96;
    ret;
LOW:
    barrier.arrive 1, 96;
    ret;
}
"#;

/// The rules and pcs reported for one mode, with the lines of their related spans.
fn reports(mode: u32) -> Vec<(String, u32, Vec<u32>)> {
    mode_diagnostics(PTX, "ra.ptx", 32, mode)
}

#[test]
fn second_arrive_of_a_warp_in_one_instance_is_tm0512() {
    let r = reports(0);
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].0, "TM0512");
    // related: the first bar.arrive, the line before the reported one
    assert_eq!(r[0].2.len(), 1, "{r:?}");
}

#[test]
fn arrives_on_two_ids_and_disjoint_lanes_are_silent() {
    assert!(reports(1).is_empty(), "{:?}", reports(1));
    // lanes 0-15 and 16-31 arrive from two branches of an unaligned barrier.arrive
    assert!(reports(2).is_empty(), "{:?}", reports(2));
}
