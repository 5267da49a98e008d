//! `call (ret), vprintf, (format, args)` (CUDA's printf system call, NVIDIA's "PTX
//! Interoperability"): Triton's `tl.device_print` and nvcc's `printf` emit it, and tmemu
//! refused every such module at load ("call of an external function"; holdout
//! ho7_debug_assert). tmemu does not produce the text; it returns what CUDA documents printf
//! to return, the number of arguments parsed: one per conversion, one more per `*`, none for
//! `%%`, and -1 for a null format.

use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions};

use super::support::{load_src, param_block, plain_launch, u32_words};

fn src(format: &str) -> String {
    let bytes: Vec<String> = format.bytes().chain([0]).map(|b| b.to_string()).collect();
    format!(
        r#"
.version 8.7
.target sm_100a
.address_size 64

.extern .func (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 fmt[{n}] = {{{list}}};

.visible .entry k(.param .u64 out)
{{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, fmt;
    cvta.global.u64 %rd3, %rd2;
    // odd lanes pass a null format
    and.b32 %r2, %r1, 1;
    setp.ne.u32 %p1, %r2, 0;
    selp.b64 %rd4, 0, %rd3, %p1;
    {{ // callseq 0, 0
    .param .b64 param0;
    st.param.b64 [param0], %rd4;
    .param .b64 param1;
    st.param.b64 [param1], 0;
    .param .b32 retval0;
    call.uni (retval0), vprintf, (param0, param1);
    ld.param.b32 %r3, [retval0];
    }} // callseq 0
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd6, %rd1, %rd5;
    st.global.u32 [%rd6], %r3;
    ret;
}}
"#,
        n = format.len() + 1,
        list = bytes.join(", ")
    )
}

fn returns(format: &str) -> Vec<u32> {
    let k = load_src(&src(format), "vprintf.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 32 * 4]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    u32_words(&g.read_buffer(out).unwrap())
}

#[test]
fn vprintf_returns_the_number_of_arguments_parsed() {
    // Triton's device_print format, then one with every kind of conversion
    let cases = [
        ("pid (%u, %u, %u) idx (%3u) y: %d\n", 5),
        ("a %d b %5.2f %% %s %*d %-08lld %c\n", 7),
        ("no conversions %%\n", 0),
        ("", 0),
    ];
    for (format, n) in cases {
        let w = returns(format);
        for (lane, &v) in w.iter().enumerate() {
            let want = if lane % 2 == 1 { -1 } else { n };
            assert_eq!(v as i32, want, "{format:?}, lane {lane}");
        }
    }
}
