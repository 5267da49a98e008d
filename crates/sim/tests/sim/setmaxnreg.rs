//! setmaxnreg's per-CTA register pool (PTX ISA §9.7.19.5; TM0513): the pool starts empty,
//! `.dec` releases a warp's registers above the new count into it, `.inc` blocks until it
//! holds the registers the increase needs (pytorch/helion PR #3620). 512 threads, so a thread
//! has at most 128 registers at launch; the mode picks what the four warpgroups do. ptxas
//! honours setmaxnreg only with a known entry register count (here `.maxntid` with
//! `.minnctapersm`); the same program without one runs as if it had none.

use crate::support::{load_src, param_block, plain_launch};

const BODY: &str = r#"
{
    .reg .b32 %r<40>;
    .reg .pred %p<8>;
    ld.param.u32 %r30, [mode];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 7;
    setp.eq.u32 %p1, %r2, 0;
    setp.eq.u32 %p2, %r30, 1;
    @%p2 bra BALANCED;
    setp.eq.u32 %p2, %r30, 2;
    @%p2 bra EXITS;
    setmaxnreg.inc.sync.aligned.u32 136;
    ret;
BALANCED:
    @!%p1 bra INC;
    setmaxnreg.dec.sync.aligned.u32 96;
    ret;
INC:
    setmaxnreg.inc.sync.aligned.u32 136;
    ret;
EXITS:
    @%p1 bra DONE;
    setmaxnreg.inc.sync.aligned.u32 136;
DONE:
    ret;
}
"#;

fn ptx(directives: &str) -> String {
    format!(
        ".version 8.7\n.target sm_100a\n.address_size 64\n\n.visible .entry r(.param .u32 mode)\n{directives}\n{BODY}"
    )
}

/// The rule of the run's hang (None: it completed) and its diagnostics' rules.
fn run(directives: &str, mode: u32) -> (Option<String>, Vec<String>) {
    let k = load_src(&ptx(directives), "regs.ptx");
    let g = tmemu_sim::GlobalMemory::new();
    let launch = plain_launch([1, 1, 1], [512, 1, 1], param_block(&k, [mode as u64]));
    let opts = tmemu_sim::RunOptions {
        max_steps: 100_000,
        ..Default::default()
    };
    let r = tmemu_sim::run(&k, &launch, &g, &opts).expect("launch");
    assert!(r.budget_exhausted.is_empty());
    (
        r.hangs.first().map(|h| h.rule.id.to_string()),
        r.diagnostics
            .iter()
            .map(|d| d.rule.id.to_string())
            .collect(),
    )
}

const ENTRY: &str = ".maxntid 512\n.minnctapersm 1";

#[test]
fn increase_without_release_hangs_with_tm0513() {
    assert_eq!(run(ENTRY, 0), (Some("TM0513".into()), vec![]));
    // .maxnreg gives the entry count too
    assert_eq!(run(".maxnreg 128", 0), (Some("TM0513".into()), vec![]));
}

#[test]
fn increase_covered_by_a_decrease_completes() {
    // 4 warps release 32 a thread (4096), 12 warps take 8 a thread (3072), in any order
    assert_eq!(run(ENTRY, 1), (None, vec![]));
}

#[test]
fn exited_warps_return_their_registers() {
    // warpgroup 0 exits without a setmaxnreg: DERIVED, its 16384 registers go to the pool
    assert_eq!(run(ENTRY, 2), (None, vec![]));
}

#[test]
fn setmaxnreg_without_entry_count_is_ignored() {
    // ptxas 13.5: "'setmaxnreg' ignored; unable to determine register count at entry" (C7508)
    assert_eq!(run("", 0), (None, vec![]));
    assert_eq!(run(".maxntid 512", 0), (None, vec![]));
}
