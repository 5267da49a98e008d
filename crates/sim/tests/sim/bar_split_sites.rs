//! TM0507 for one instance of a named barrier completed from two aligned instructions
//! (mlc-ai/TIRx-kernels PR #21): `bar.sync`/`barrier.sync.aligned` promise that every
//! participating thread executes the same barrier instruction (PTX ISA §9.7.13.1). Warp 0 and
//! warp 1 meet at barrier 1 (64 threads) from two branches; the form at each site is chosen by
//! `mode`. Only the aligned blocking forms at two sites are reported.

use tmemu_sim::{run, GlobalMemory, RunOptions};

use crate::support::{load_src, param_block, plain_launch};

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
    let k = load_src(PTX, "bs.ptx");
    let g = GlobalMemory::new();
    let launch = plain_launch([1, 1, 1], [64, 1, 1], param_block(&k, [mode as u64]));
    let opts = RunOptions {
        max_steps: 100_000,
        ..Default::default()
    };
    let r = run(&k, &launch, &g, &opts).expect("launch");
    let others: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule.id != "TM0507")
        .collect();
    assert!(others.is_empty(), "mode {mode}: {others:?}");
    r.diagnostics
        .iter()
        .map(|d| (d.ctx.pc, d.related.iter().map(|x| x.0.line).collect()))
        .collect()
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
