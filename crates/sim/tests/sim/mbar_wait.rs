//! The warp-uniform `mbarrier.test_wait` / `try_wait` (crates/sim/src/exec/mbar_wait.rs)
//! against the per-lane path it short-cuts (`RunOptions::reference_paths`): a producer warp
//! arrives on two mbarriers, three times (a third mbarrier is never arrived on), while a consumer warp waits on them in every shape (a uniform
//! try_wait loop that parks, a test_wait spin, a phase operand that differs per lane,
//! addresses that differ per lane, a guarded subset of lanes, an uninitialised mbarrier, a
//! bounded retry loop ended by try_wait's time limit, a loop that hangs). Both paths must give
//! the same bytes, diagnostics, hang reports, counts and synchronisation events; where the
//! result is fixed by the PTX ISA, the bytes are also checked against it.

use tmemu_sim::observer::{At, Observer, Sem, SyncKey};
use tmemu_sim::{run_observed, GlobalMemory, RunOptions};

use crate::support::{load_src, param_block, plain_launch, u32_words};

const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry mb(.param .u64 out_ptr, .param .u32 mode)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .pred %p<12>;
    .shared .align 8 .b64 bars[4];
    ld.param.u64 %rd1, [out_ptr];
    ld.param.u32 %r30, [mode];
    mov.u32 %r1, %tid.x;
    shr.u32 %r2, %r1, 5;
    and.b32 %r3, %r1, 31;
    mov.u32 %r4, bars;
    add.u32 %r5, %r4, 8;
    add.u32 %r6, %r4, 16;
    add.u32 %r8, %r4, 24;
    mul.wide.u32 %rd2, %r1, 32;
    add.s64 %rd3, %rd1, %rd2;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra INITED;
    mbarrier.init.shared::cta.b64 [%r4], 1;
    mbarrier.init.shared::cta.b64 [%r5], 32;
    mbarrier.init.shared::cta.b64 [%r8], 1;
INITED:
    bar.sync 0;
    setp.eq.u32 %p2, %r2, 0;
    @%p2 bra PRODUCER;
    setp.ne.u32 %p3, %r30, 0;
    @%p3 bra HANGMODES;
    mov.u32 %r7, 0;
W0:
    mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r4], %r7;
    @!%p4 bra W0;
    selp.u32 %r10, 1, 0, %p4;
    st.global.u32 [%rd3], %r10;
W1:
    mbarrier.test_wait.parity.shared::cta.b64 %p5, [%r4], 1;
    @!%p5 bra W1;
    and.b32 %r11, %r3, 1;
    mbarrier.test_wait.parity.shared::cta.b64 %p6, [%r4], %r11;
    selp.u32 %r12, 1, 0, %p6;
    st.global.u32 [%rd3+4], %r12;
    setp.lt.u32 %p7, %r3, 16;
    selp.b32 %r13, %r4, %r5, %p7;
    mbarrier.test_wait.parity.shared::cta.b64 %p6, [%r13], %r7;
    selp.u32 %r12, 1, 0, %p6;
    st.global.u32 [%rd3+8], %r12;
    setp.ge.u32 %p8, %r3, 16;
W2:
    @%p7 mbarrier.try_wait.parity.shared::cta.b64 %p8, [%r5], 1;
    @!%p8 bra W2;
    selp.u32 %r12, 1, 0, %p8;
    st.global.u32 [%rd3+12], %r12;
    setp.eq.u32 %p6, %r3, 99;
    mbarrier.test_wait.parity.shared::cta.b64 %p6, [%r6], 0;
    selp.u32 %r12, 1, 0, %p6;
    st.global.u32 [%rd3+20], %r12;
    ret;
HANGMODES:
    mov.u32 %r20, 0;
    setp.eq.u32 %p9, %r30, 1;
W3:
    mbarrier.try_wait.parity.shared::cta.b64 %p4, [%r8], 0;
    add.u32 %r20, %r20, 1;
    @%p4 bra AFTER3;
    @!%p9 bra W3;
    setp.lt.u32 %p5, %r20, 3;
    @%p5 bra W3;
AFTER3:
    st.global.u32 [%rd3+16], %r20;
    ret;
PRODUCER:
    mov.u32 %r21, 0;
SPIN:
    add.u32 %r21, %r21, 1;
    setp.lt.u32 %p4, %r21, 200;
    @%p4 bra SPIN;
    setp.eq.u32 %p4, %r3, 0;
    @%p4 mbarrier.arrive.shared::cta.b64 %rd10, [%r4];
    mbarrier.arrive.shared::cta.b64 %rd11, [%r5];
    mov.u32 %r21, 0;
SPIN2:
    add.u32 %r21, %r21, 1;
    setp.lt.u32 %p4, %r21, 300;
    @%p4 bra SPIN2;
    setp.eq.u32 %p4, %r3, 0;
    @%p4 mbarrier.arrive.shared::cta.b64 %rd10, [%r4];
    mov.u32 %r21, 0;
SPIN3:
    add.u32 %r21, %r21, 1;
    setp.lt.u32 %p4, %r21, 300;
    @%p4 bra SPIN3;
    mbarrier.arrive.shared::cta.b64 %rd11, [%r5];
    ret;
}
"#;

/// Every synchronisation event, in order, with where and when.
#[derive(Default)]
struct SyncRec(Vec<String>);

impl Observer for SyncRec {
    fn sync_arrive(&mut self, at: At, key: SyncKey, sem: Sem) {
        self.0.push(format!("arrive {at:?} {key:?} {sem:?}"));
    }
    fn sync_complete(&mut self, at: At, key: SyncKey) {
        self.0.push(format!("complete {at:?} {key:?}"));
    }
    fn sync_wait(&mut self, at: At, key: SyncKey, sem: Sem) {
        self.0.push(format!("wait {at:?} {key:?} {sem:?}"));
    }
}

struct Outcome {
    words: Vec<u32>,
    /// diagnostics, hangs, budget reports and counts as text
    report: String,
    events: Vec<String>,
}

fn run_mode(mode: u32, reference_paths: bool) -> Outcome {
    let k = load_src(PTX, "mb.ptx");
    let mut g = GlobalMemory::new();
    let out = g.alloc("out", &[0xeeu8; 64 * 32]);
    let params = param_block(&k, [out, mode as u64]);
    let launch = plain_launch([1, 1, 1], [64, 1, 1], params);
    let opts = RunOptions {
        reference_paths,
        max_steps: 200_000,
        ..Default::default()
    };
    let (r, mut o) = run_observed(&k, &launch, &g, &opts, |_| SyncRec::default()).expect("launch");
    let mut report = format!(
        "{} warp-instr, {} thread-instr\n",
        r.warp_instructions, r.thread_instructions
    );
    for d in &r.diagnostics {
        report += &format!(
            "{} pc {} {:#x} {}\n",
            d.rule.id, d.ctx.pc, d.ctx.lanes, d.message
        );
    }
    for h in r.hangs.iter().chain(&r.budget_exhausted) {
        report += &format!("{h}\n");
    }
    Outcome {
        words: u32_words(&g.read_buffer(out).unwrap()),
        report,
        events: std::mem::take(&mut o[0].0),
    }
}

#[test]
fn uniform_waits_equal_the_per_lane_path() {
    for mode in 0..3 {
        let fast = run_mode(mode, false);
        let slow = run_mode(mode, true);
        assert_eq!(fast.words, slow.words, "mode {mode}: bytes");
        assert_eq!(fast.report, slow.report, "mode {mode}: report");
        assert_eq!(fast.events, slow.events, "mode {mode}: events");
        // what the PTX ISA fixes, per consumer lane l (threads 32..64): word 8 l + k
        let lane = |l: usize, k: usize| fast.words[8 * (32 + l) + k];
        match mode {
            0 => {
                for l in 0..32 {
                    // the try_wait loop ends with true
                    assert_eq!(lane(l, 0), 1, "lane {l}");
                    // the test_wait spin saw bar0 complete phase 1 (the producer's second
                    // arrive): bar0 is in phase 2, so phase parity 1 is complete and 0 not
                    assert_eq!(lane(l, 1), u32::from(l % 2 == 1), "lane {l}");
                    // lanes < 16 ask bar0 (phase 2: parity 0 not complete), the others bar1
                    // (phase 1, before the producer's last arrive: parity 0 complete)
                    assert_eq!(lane(l, 2), u32::from(l >= 16), "lane {l}");
                    // the guarded try_wait loop on bar1's phase 1 ends with true once the
                    // producer's last arrive completes it; lanes >= 16 skip it
                    assert_eq!(lane(l, 3), 1, "lane {l}");
                    // an uninitialised mbarrier: the predicate is left as it was (false)
                    assert_eq!(lane(l, 5), 0, "lane {l}");
                }
                let uninit = fast.report.matches("no initialised mbarrier").count();
                assert_eq!(uninit, 32, "{}", fast.report);
                assert!(fast.events.iter().any(|e| e.starts_with("wait ")));
            }
            1 => {
                // bar3 is never arrived on, so it never leaves phase 0: try_wait's time limit
                // ends each try, three tries
                for l in 0..32 {
                    assert_eq!(lane(l, 4), 3, "lane {l}");
                }
            }
            _ => assert!(
                fast.report.contains("mbarrier at shared offset"),
                "a wait that can never end is a hang: {}",
                fast.report
            ),
        }
    }
}

/// Triton's JIT-compiled fp16 matmul (cp.async staging with masked partial tiles, mbarrier
/// try_wait loops, tcgen05.mma) at 336×208×176 run through the fast paths and through the
/// per-lane reference paths: the same C bytes and warp-instruction count, and C equal to the
/// exact product (small integer operands: every product and sum is exact in f32 and f16).
#[test]
fn jit_matmul_equals_reference_paths() {
    let k = crate::support::load_corpus("kernels/triton", "matmul_fp16_div16.ptx");
    let (m, n, kk) = (336usize, 208usize, 176usize);
    let av = |i: usize| (i * 7 % 11) as i32 - 5;
    let bv = |i: usize| (i * 5 % 7) as i32 - 3;
    // f16 codes of small integers (|v| <= 5)
    let f16 = |v: i32| -> u16 {
        let code = [0x0000u16, 0x3c00, 0x4000, 0x4200, 0x4400, 0x4500][v.unsigned_abs() as usize];
        code | if v < 0 { 0x8000 } else { 0 }
    };
    let bytes = |len: usize, f: &dyn Fn(usize) -> i32| -> Vec<u8> {
        (0..len).flat_map(|i| f16(f(i)).to_le_bytes()).collect()
    };
    let (a, b) = (bytes(m * kk, &av), bytes(kk * n, &bv));
    let run_paths = |reference_paths: bool| {
        let mut g = GlobalMemory::new();
        let pa = g.alloc("a", &a);
        let pb = g.alloc("b", &b);
        let pc = g.alloc("c", &vec![0u8; m * n * 2]);
        let dims = [m, n, kk, kk, n, n].map(|x| x as u64);
        let params = param_block(&k, [pa, pb, pc].into_iter().chain(dims).chain([0, 0]));
        let mut launch = plain_launch([3, 2, 1], [128, 1, 1], params);
        launch.dyn_shared = 98320;
        let opts = RunOptions {
            reference_paths,
            ..Default::default()
        };
        let r = tmemu_sim::run(&k, &launch, &g, &opts).expect("launch");
        assert!(
            r.diagnostics.is_empty() && r.hangs.is_empty(),
            "{:?}",
            r.diagnostics
        );
        (g.read_buffer(pc).unwrap(), r.warp_instructions)
    };
    let (fast, fast_n) = run_paths(false);
    let (slow, slow_n) = run_paths(true);
    assert_eq!(fast_n, slow_n);
    assert!(
        fast == slow,
        "C differs between the fast and the reference paths"
    );
    // exact integers up to 2048 are f16 values: decode the normal codes
    let decode = |c: u16| -> f64 {
        let (e, f) = (i32::from(c >> 10 & 31), f64::from(c & 0x3ff));
        let mag = if e == 0 {
            f * 2f64.powi(-24)
        } else {
            (1.0 + f / 1024.0) * 2f64.powi(e - 15)
        };
        if c & 0x8000 != 0 {
            -mag
        } else {
            mag
        }
    };
    for i in 0..m {
        for j in 0..n {
            let want: i32 = (0..kk).map(|p| av(i * kk + p) * bv(p * n + j)).sum();
            let at = 2 * (i * n + j);
            let got = decode(u16::from_le_bytes([fast[at], fast[at + 1]]));
            assert_eq!(got, f64::from(want), "C[{i}][{j}]");
        }
    }
}
