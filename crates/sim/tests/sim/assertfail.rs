//! `call __assertfail` (CUDA's device-side assert: the system call of NVIDIA's "PTX
//! Interoperability", arguments message, file, line, function, charSize). Triton 3.9 emits it
//! for `tl.device_assert` and its integer-overflow checks when compiled with `debug=True`
//! (holdout ho7_debug_assert), as nvcc does for `assert`; tmemu refused every such module at
//! load ("call of an external function"). A call that is never executed costs nothing; one that
//! is executed aborts the launch like `trap` (TM0505), reported at the call with the failing
//! lanes. The kernel below is the shape Triton emits: the message strings as `.global` byte
//! arrays, a `callseq` block of `.param` variables, the call under a branch.

use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions};

use super::support::{load_src, param_block, plain_launch, u32_words};

const SRC: &str = r#"
.version 8.7
.target sm_100a
.address_size 64

.extern .func __assertfail
(
	.param .b64 __assertfail_param_0,
	.param .b64 __assertfail_param_1,
	.param .b32 __assertfail_param_2,
	.param .b64 __assertfail_param_3,
	.param .b64 __assertfail_param_4
)
;
.global .align 1 .b8 msg[5] = {111, 111, 112, 115, 0};
.global .align 1 .b8 file[2] = {102, 0};
.global .align 1 .b8 func[2] = {107, 0};

.visible .entry k(.param .u64 out, .param .u32 limit)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [limit];
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, %r2;
    @%p1 bra $L_ok;
    mov.u64 %rd2, msg;
    cvta.global.u64 %rd3, %rd2;
    mov.u64 %rd4, file;
    cvta.global.u64 %rd5, %rd4;
    mov.u64 %rd6, func;
    cvta.global.u64 %rd7, %rd6;
    { // callseq 0, 0
    .param .b64 param0;
    st.param.b64 [param0], %rd3;
    .param .b64 param1;
    st.param.b64 [param1], %rd5;
    .param .b32 param2;
    st.param.b32 [param2], 7;
    .param .b64 param3;
    st.param.b64 [param3], %rd7;
    .param .b64 param4;
    st.param.b64 [param4], 1;
    call.uni __assertfail, (param0, param1, param2, param3, param4);
    } // callseq 0
$L_ok:
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    add.u32 %r3, %r1, 1000;
    st.global.u32 [%rd3], %r3;
    ret;
}
"#;

fn launch(limit: u32) -> (tmemu_sim::RunResult, Vec<u32>) {
    let k = load_src(SRC, "assertfail.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 64 * 4]);
    let l = plain_launch(
        [1, 1, 1],
        [64, 1, 1],
        param_block(&k, [out, u64::from(limit)]),
    );
    let r = run(&k, &l, &g, &RunOptions::default()).expect("launch");
    let w = u32_words(&g.read_buffer(out).unwrap());
    (r, w)
}

#[test]
fn assertion_that_holds_runs_clean() {
    let (r, w) = launch(64);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(!r.trapped);
    assert_eq!(w, (0..64).map(|t| t + 1000).collect::<Vec<u32>>());
}

#[test]
fn failed_assertion_aborts_the_launch_at_the_call() {
    let (r, _) = launch(40);
    assert!(r.trapped, "a failed device assertion must abort the launch");
    let d: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.rule.id == "TM0505")
        .collect();
    assert!(!d.is_empty(), "{:?}", r.diagnostics);
    assert!(d[0].message.contains("__assertfail"), "{}", d[0].message);
    // the call is line 46 of SRC; lanes 8..31 of warp 1 (threads 40..63) failed
    assert_eq!(d[0].span.line, 46, "{}", d[0]);
}
