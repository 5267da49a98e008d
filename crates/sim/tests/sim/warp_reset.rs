//! `Warp::reset` zeroes only the registers some thread may read before writing
//! (crates/sim/src/loader/reset.rs). A register read before it is written must still read 0
//! in every CTA, never the value a previous CTA left in the reused warp.

use tmemu_sim::{install_globals, load_with, run, GlobalMemory, Kernel, LoadOptions, RunOptions};

use crate::support::{corpus_file, param_block, plain_launch, u32_words};

/// `src` loaded with register compaction on or off (off keeps the declared numbering, which
/// the assertions on indices name).
fn load_as(src: &str, compact: bool) -> Kernel {
    let m = tmemu_ptx::parse(src).expect("parse");
    let opts = LoadOptions {
        compact_registers: compact,
    };
    load_with(&m, src, "k.ptx", None, &opts).expect("load")
}

/// One warp per CTA. Per thread, out[4 * (32 * ctaid + tid) + k]:
/// k = 0: %r3, written only by CTA 0 (guarded), so 77 in CTA 0 and 0 everywhere else;
/// k = 1: %r4 += ctaid + 1 three times in a loop, never initialised: 3 * (ctaid + 1);
/// k = 2: %r7, written only on a branch CTA 0 takes: 5 in CTA 0, else 0;
/// k = 3: lane 0's %r5 (tid + 1000) through shfl: 1000.
const KERNEL: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.visible .entry reset_probe(.param .u64 out)
{
    .reg .b32 %r<11>;
    .reg .b64 %rd<4>;
    .reg .pred %p<3>;

    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 mov.u32 %r3, 77;
    add.u32 %r6, %r2, 1;
    mov.u32 %r8, 0;
LOOP:
    add.u32 %r4, %r4, %r6;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, 3;
    @%p2 bra LOOP;
    @!%p1 bra SKIP;
    mov.u32 %r7, 5;
SKIP:
    add.u32 %r5, %r1, 1000;
    shfl.sync.idx.b32 %r5, %r5, 0, 31, -1;
    ld.param.u64 %rd1, [out];
    add.u32 %r9, %r2, 0;
    mul.lo.u32 %r10, %r9, 32;
    add.u32 %r6, %r10, %r1;
    mul.wide.u32 %rd2, %r6, 16;
    add.s64 %rd3, %rd1, %rd2;
    st.global.v4.u32 [%rd3], {%r3, %r4, %r7, %r5};
    ret;
}
"#;

#[test]
fn registers_read_before_written_are_zero_in_every_cta() {
    let k = load_as(KERNEL, false);
    // %r1, %r2, %r6 and %r8 are written before every read; %r3 and %r7 only on some paths,
    // %r4 is read before its first write, %r5 is read by shfl (another lane's value)
    assert_eq!(k.reset_r32, vec![3, 4, 5, 7], "r32 registers to zero");
    assert!(k.reset_r64.is_empty(), "{:?}", k.reset_r64);
    // compacted, the four keep slots of their own (their zeros must show) and the others
    // share: %r9 takes the slot of the loop counter %r8, dead after the loop
    let c = load_as(KERNEL, true);
    assert_eq!(
        c.reset_r32,
        vec![0, 1, 2, 3],
        "the kept registers come first"
    );
    assert!(c.n_r32 < k.n_r32, "{} of {} r32 slots", c.n_r32, k.n_r32);
    probe(&k);
    probe(&c);
}

fn probe(k: &Kernel) {
    let ctas = 300u32;
    let mut g = GlobalMemory::new();
    install_globals(k, &mut g).unwrap();
    let out = g.alloc("out", &vec![0u8; ctas as usize * 32 * 16]);
    let launch = plain_launch([ctas, 1, 1], [32, 1, 1], param_block(k, [out]));
    // one SM: its warps are reused for CTA after CTA
    let opts = RunOptions {
        nsms: 1,
        ..Default::default()
    };
    let r = run(k, &launch, &g, &opts).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let words = u32_words(&g.read_buffer(out).unwrap());
    for c in 0..ctas {
        for t in 0..32 {
            let at = 4 * (32 * c + t) as usize;
            let want = [
                if c == 0 { 77 } else { 0 },
                3 * (c + 1),
                if c == 0 { 5 } else { 0 },
                1000,
            ];
            assert_eq!(&words[at..at + 4], &want, "CTA {c} thread {t}");
        }
    }
}

#[test]
fn a_triton_matmul_zeroes_a_fraction_of_its_registers() {
    // precision, not correctness: Triton's straight-line staging code writes each register
    // before reading it, so most need no zeroing (the correctness side is the test above and
    // every corpus kernel matching its reference)
    let (_, src) = corpus_file("kernels/triton", "matmul_fp16.ptx");
    let k = load_as(&src, false);
    let zeroed = k.reset_r32.len() + k.reset_r64.len();
    let total = k.n_r32 as usize + k.n_r64 as usize;
    assert!(zeroed * 4 < total, "{zeroed} of {total} registers zeroed");
    // and compaction keeps those, in slots of their own
    let c = load_as(&src, true);
    assert_eq!(c.reset_r32.len() + c.reset_r64.len(), zeroed);
    assert!(c.n_r32 < k.n_r32, "{} of {} r32", c.n_r32, k.n_r32);
}
