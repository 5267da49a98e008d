//! TMEM starts zeroed in every SM group (docs/arch/sim-tcgen05.md), though the engine hands
//! a group the cells an earlier group on the same thread left behind and zeroes them column
//! by column at first access (`tmem_sm::Tmem`). Each CTA here first reads columns it never
//! wrote (a different window per CTA, some straddling 64-column words), then fills all 512
//! columns with garbage and deallocates, so the next CTA on the thread gets dirty cells.

use tmemu_sim::{install_globals, load, run, GlobalMemory, Launch, RunOptions};

const CTAS: usize = 6;
/// Columns each CTA reads before writing: 32x32b.x16.
const READ: usize = 16;

fn ptx() -> String {
    let regs: Vec<String> = (0..READ).map(|i| format!("%r{}", 100 + i)).collect();
    let junk: Vec<String> = (0..128).map(|_| "%r9".to_string()).collect();
    let mut body = String::new();
    // read window: column (ctaid * 83 + 29) % 480
    body += "    mov.u32 %r20, %ctaid.x;\n    mul.lo.u32 %r21, %r20, 83;\n    add.u32 %r21, %r21, 29;\n    rem.u32 %r21, %r21, 480;\n";
    body += "    add.u32 %r22, %r30, %r21;\n";
    body += &format!(
        "    tcgen05.ld.sync.aligned.32x32b.x16.b32 {{{}}}, [%r22];\n    tcgen05.wait::ld.sync.aligned;\n",
        regs.join(", ")
    );
    // out[ctaid][lane][i]
    body += "    mul.lo.u32 %r23, %r20, 32;\n    add.u32 %r23, %r23, %r1;\n    mul.wide.u32 %rd3, %r23, 64;\n    add.s64 %rd4, %rd1, %rd3;\n";
    for (i, r) in regs.iter().enumerate() {
        body += &format!("    st.global.u32 [%rd4+{}], {r};\n", 4 * i);
    }
    // garbage over every column
    body += "    mov.u32 %r9, 0xDEADBEEF;\n";
    for c in 0..4 {
        body += &format!(
            "    add.u32 %r24, %r30, {};\n    tcgen05.st.sync.aligned.32x32b.x128.b32 [%r24], {{{}}};\n",
            128 * c,
            junk.join(", ")
        );
    }
    body += "    tcgen05.wait::st.sync.aligned;\n";
    format!(
        r#"
.version 8.8
.target sm_100a
.address_size 64

.visible .entry lazy(.param .u64 p_out)
{{
    .reg .pred %p<4>;
    .reg .b32 %r<300>;
    .reg .b64 %rd<16>;
    .shared .align 4 .b32 slot;

    ld.param.u64 %rd1, [p_out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r4, slot;
    tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r4], 512;
    tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
    tcgen05.fence::before_thread_sync;
    bar.sync 0;
    tcgen05.fence::after_thread_sync;
    ld.shared.u32 %r30, [%r4];
{body}    tcgen05.fence::before_thread_sync;
    bar.sync 0;
    tcgen05.fence::after_thread_sync;
    tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r30, 512;
    ret;
}}
"#
    )
}

#[test]
fn unwritten_columns_read_zero_after_a_dirty_group() {
    let src = ptx();
    let m = tmemu_ptx::parse(&src).expect("parse");
    let k = load(&m, &src, "lazy.ptx", None).expect("load");
    for threads in [1, 2] {
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let out = g.alloc("out", &vec![0xFFu8; CTAS * 32 * READ * 4]);
        let mut params = vec![0u8; k.param_bytes as usize];
        params[..8].copy_from_slice(&out.to_le_bytes());
        let launch = Launch {
            grid: [CTAS as u32, 1, 1],
            block: [32, 1, 1],
            cluster: None,
            dyn_shared: 0,
            params,
        };
        let opts = RunOptions {
            threads,
            max_steps: 1_000_000,
            ..Default::default()
        };
        let r = run(&k, &launch, &g, &opts).expect("launch");
        assert!(r.hangs.is_empty(), "{:?}", r.hangs);
        let words = g.read_buffer(out).unwrap();
        for (i, w) in words.chunks(4).enumerate() {
            let v = u32::from_le_bytes(w.try_into().unwrap());
            assert_eq!(
                v,
                0,
                "threads {threads}: CTA {}, lane {}, register {}",
                i / (32 * READ),
                i / READ % 32,
                i % READ
            );
        }
    }
}
