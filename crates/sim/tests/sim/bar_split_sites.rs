//! TM0507 for one instance of a named barrier completed from two aligned instructions
//! (mlc-ai/TIRx-kernels PR #21): `bar.sync`/`barrier.sync.aligned` promise that every
//! participating thread executes the same barrier instruction (PTX ISA §9.7.13.1). Warp 0 and
//! warp 1 meet at barrier 1 (64 threads) from two branches; the form at each site is chosen by
//! `mode`. Only the aligned blocking forms at two sites are reported.

use crate::support::mode_diagnostics;

const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry bs(.param .u32 mode)
{
    .reg .b32 %r<40>;
    .reg .pred %p<8>;
    ld.param.u32 %r30, [mode];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    setp.ne.u32 %p1, %r2, 0;
    @%p1 bra WARP1;
    setp.eq.u32 %p2, %r30, 2;
    @%p2 bra SAME;
    setp.eq.u32 %p2, %r30, 3;
    @%p2 bra ARRIVE;
    setp.eq.u32 %p2, %r30, 1;
    @%p2 bra UNALIGNED0;
    bar.sync 1, 64;
    ret;
UNALIGNED0:
    barrier.sync 1, 64;
    ret;
ARRIVE:
    bar.arrive 1, 64;
    ret;
WARP1:
    setp.eq.u32 %p2, %r30, 2;
    @%p2 bra SAME;
    setp.eq.u32 %p2, %r30, 1;
    @%p2 bra UNALIGNED1;
    bar.sync 1, 64;
    ret;
UNALIGNED1:
    barrier.sync 1, 64;
    ret;
SAME:
    bar.sync 1, 64;
    ret;
}
"#;

/// The pcs TM0507 names for one mode, with the line of its related span.
fn reports(mode: u32) -> Vec<(u32, Vec<u32>)> {
    let all = mode_diagnostics(PTX, "bs.ptx", 64, mode);
    let others: Vec<_> = all.iter().filter(|d| d.0 != "TM0507").collect();
    assert!(others.is_empty(), "mode {mode}: {others:?}");
    all.into_iter().map(|(_, pc, rel)| (pc, rel)).collect()
}

#[test]
fn one_barrier_instance_from_two_aligned_sites_is_tm0507() {
    let two = reports(0);
    assert_eq!(two.len(), 1, "{two:?}");
    assert_eq!(
        two[0].1.len(),
        1,
        "the related span names the first site: {two:?}"
    );
    for mode in [1, 2, 3] {
        // barrier.sync at both sites; one shared bar.sync; bar.arrive + bar.sync
        assert!(reports(mode).is_empty(), "mode {mode}: {:?}", reports(mode));
    }
}
