//! ldmatrix / stmatrix `.m8n8.x4.b16` (PTX ISA §9.7.14.5.15–16) on hand PTX: lane t supplies
//! the address of row t%8 of matrix t/8 (rows given in reverse order, matrices 256 bytes
//! apart), and receives for matrix i the pair (row t/4, columns 2(t%4), 2(t%4)+1), or with
//! `.trans` (rows 2(t%4), 2(t%4)+1 of column t/4). Then stmatrix writes the registers back to
//! a second area, which must equal the first. Expected values from that definition.

use tmemu_sim::{install_globals, run, GlobalMemory, RunOptions};

use crate::support::{load_src, param_block, plain_launch};

const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry ldm(.param .u64 out_ptr, .param .u64 back_ptr)
{
    .shared .align 16 .b8 src[1024];
    .shared .align 16 .b8 dst[1024];
    .reg .pred %p<2>;
    .reg .b32 %r<40>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out_ptr];
    ld.param.u64 %rd2, [back_ptr];
    mov.u32 %r1, %tid.x;
    // src[j] = j for the 512 u16 elements
    shl.b32 %r2, %r1, 1;
    mov.u32 %r3, 0;
FILL:
    add.u32 %r4, %r2, %r3;
    shl.b32 %r5, %r4, 1;
    mov.u32 %r6, src;
    add.u32 %r6, %r6, %r5;
    cvt.u16.u32 %rs1, %r4;
    st.shared.u16 [%r6], %rs1;
    add.u32 %r3, %r3, 64;
    setp.lt.u32 %p1, %r3, 512;
    @%p1 bra FILL;
    bar.sync 0;
    // row address: matrix t/8 at 256·(t/8), row 7 - t%8 at 16 bytes per row... reversed:
    // lane t names row r = t%8 at offset 16·(7 - r) so that row r of matrix m is the memory
    // row 7 - r.
    shr.u32 %r7, %r1, 3;
    and.b32 %r8, %r1, 7;
    sub.u32 %r9, 7, %r8;
    shl.b32 %r10, %r7, 8;
    shl.b32 %r11, %r9, 4;
    add.u32 %r12, %r10, %r11;
    mov.u32 %r13, src;
    add.u32 %r14, %r13, %r12;
    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r20, %r21, %r22, %r23}, [%r14];
    ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r24, %r25, %r26, %r27}, [%r14];
    mul.wide.u32 %rd3, %r1, 32;
    add.s64 %rd4, %rd1, %rd3;
    st.global.v4.u32 [%rd4], {%r20, %r21, %r22, %r23};
    st.global.v4.u32 [%rd4+16], {%r24, %r25, %r26, %r27};
    mov.u32 %r15, dst;
    add.u32 %r16, %r15, %r12;
    stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r16], {%r20, %r21, %r22, %r23};
    bar.sync 0;
    // back[j] = dst[j]
    mov.u32 %r3, 0;
COPY:
    add.u32 %r4, %r2, %r3;
    shl.b32 %r5, %r4, 1;
    mov.u32 %r6, dst;
    add.u32 %r6, %r6, %r5;
    ld.shared.u16 %rs1, [%r6];
    cvt.u64.u32 %rd5, %r5;
    add.s64 %rd6, %rd2, %rd5;
    st.global.u16 [%rd6], %rs1;
    add.u32 %r3, %r3, 64;
    setp.lt.u32 %p1, %r3, 512;
    @%p1 bra COPY;
    ret;
}
"#;

#[test]
fn ldmatrix_fragments_and_stmatrix_round_trip() {
    let ptx = PTX.replace(
        ".reg .b64 %rd<8>;",
        ".reg .b64 %rd<8>;\n    .reg .b16 %rs<2>;",
    );
    // the FILL loop covers 32 lanes × 2 elements × 8 steps = 512 elements
    let ptx = ptx.replace("shl.b32 %r2, %r1, 1;", "mov.u32 %r2, %r1;");
    let ptx = ptx.replace("add.u32 %r3, %r3, 64;", "add.u32 %r3, %r3, 32;");
    let k = load_src(&ptx, "ldm.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 32 * 32]);
    let back = g.alloc("back", &[0u8; 1024]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out, back]));
    let r = run(&k, &launch, &g, &RunOptions::default()).expect("launch");
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    let o = g.read_buffer(out).unwrap();
    let word = |t: usize, i: usize| {
        u32::from_le_bytes(o[32 * t + 4 * i..32 * t + 4 * i + 4].try_into().unwrap())
    };
    // element (row r, column c) of matrix m is the u16 at memory row 7 - r of matrix m
    let elem = |m: usize, r: usize, c: usize| (m * 128 + (7 - r) * 8 + c) as u32;
    for t in 0..32 {
        for m in 0..4 {
            let (a, b) = (t / 4, 2 * (t % 4));
            let plain = elem(m, a, b) | elem(m, a, b + 1) << 16;
            let trans = elem(m, b, a) | elem(m, b + 1, a) << 16;
            assert_eq!(word(t, m), plain, "lane {t} matrix {m}");
            assert_eq!(word(t, 4 + m), trans, "lane {t} matrix {m} .trans");
        }
    }
    let b = g.read_buffer(back).unwrap();
    // the matrices are the first 128 bytes of each 256-byte block; the rest is never touched
    for j in 0..512usize {
        let v = u16::from_le_bytes([b[2 * j], b[2 * j + 1]]);
        let want = if (2 * j) % 256 < 128 { j as u16 } else { 0 };
        assert_eq!(
            v, want,
            "stmatrix writes back what ldmatrix read (element {j})"
        );
    }
}

/// The warp-wide row check of `ldmatrix` (every row address in the CTA's own window, 16-byte
/// aligned and in bounds) against the per-lane path (`RunOptions::reference_paths`): the same
/// registers and stores, and when one lane's address is misaligned, past the shared memory or
/// in another CTA's window, the same findings (the warp-wide check hands that warp-instruction
/// to the per-lane path, which reports them).
#[test]
fn ldmatrix_row_check_equals_the_per_lane_path() {
    let base = PTX.replace(
        ".reg .b64 %rd<8>;",
        ".reg .b64 %rd<8>;\n    .reg .b16 %rs<2>;",
    );
    let base = base.replace("shl.b32 %r2, %r1, 1;", "mov.u32 %r2, %r1;");
    let base = base.replace("add.u32 %r3, %r3, 64;", "add.u32 %r3, %r3, 32;");
    let run_one = |lane: u32, delta: u32, reference_paths: bool| {
        let skew = format!(
            "add.u32 %r14, %r13, %r12;\n    setp.eq.u32 %p1, %r1, {lane};\n    @%p1 add.u32 %r14, %r14, {delta};"
        );
        let ptx = base.replace("add.u32 %r14, %r13, %r12;", &skew);
        let k = load_src(&ptx, "ldm_skew.ptx");
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let out = g.alloc("out", &[0u8; 32 * 32]);
        let back = g.alloc("back", &[0u8; 1024]);
        let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out, back]));
        let opts = RunOptions {
            reference_paths,
            ..RunOptions::default()
        };
        let r = run(&k, &launch, &g, &opts).expect("launch");
        let diags: Vec<String> = r.diagnostics.iter().map(|d| format!("{d:?}")).collect();
        (g.read_buffer(out).unwrap(), diags)
    };
    // no skew; 8 bytes (misaligned); past the 2 KiB of shared memory; rank bits of CTA 2
    for (lane, delta) in [(0, 0), (5, 8), (31, 0x1_0000), (17, 0x0200_0000), (0, 16)] {
        let fast = run_one(lane, delta, false);
        let per_lane = run_one(lane, delta, true);
        assert_eq!(fast, per_lane, "lane {lane} delta {delta:#x}");
        let faults = !matches!(delta, 0 | 16);
        assert_eq!(
            !fast.1.is_empty(),
            faults,
            "lane {lane} delta {delta:#x}: {:?}",
            fast.1
        );
    }
}
