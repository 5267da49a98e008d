//! The warp-wide `cp.async` (crates/sim/src/exec/cp_async.rs) against the per-lane path it
//! short-cuts and against a model of the PTX semantics written here: the same kernel run with
//! no observer (fast path), an observer that takes batched accesses (fast path still on) and
//! one that wants per-lane events (fast path off) must leave the same bytes, diagnostics and
//! accesses; where no lane faults the bytes must be the model's.

use tmemu_sim::observer::{AccessKind, AsyncId, At, MemOrder, MemSpace, Observer, OpKind, Place};
use tmemu_sim::{install_globals, run, run_observed, GlobalMemory, RunOptions};

use crate::support::{load_src, param_block, plain_launch};

/// Each lane fills its 32-byte staging slot `buf[32 tid ..]` with 0xa5, then copies from
/// `in[32 tid ..]` with cp.async of 16 (src-size (5 tid) % 21), 8 (src-size tid % 10),
/// 4 (src-size tid % 6) and 4 bytes (no src-size) to slot offsets 0, 16, 24 and 28: every
/// size, src-size 0, partial, full and above the copy size. A lane whose 16-byte copy reads no
/// byte points its source 1 MiB past the buffer. Lanes 7 and 20 copy nothing. Lane `bad` adds
/// `skew` to its source and `dskew` to its destination (out of bounds, misaligned, another
/// CTA's window). After the wait, each lane writes its own slot to `out[32 tid ..]`.
const PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry cpa(.param .u64 out_ptr, .param .u64 in_ptr, .param .u32 bad, .param .u64 skew, .param .u32 dskew)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 buf[1024];
    ld.param.u64 %rd1, [out_ptr];
    ld.param.u64 %rd2, [in_ptr];
    ld.param.u32 %r30, [bad];
    ld.param.u64 %rd15, [skew];
    ld.param.u32 %r31, [dskew];
    mov.u32 %r1, %tid.x;
    mov.u32 %r7, buf;
    shl.b32 %r8, %r1, 5;
    add.u32 %r9, %r7, %r8;
    mov.u32 %r2, 0xa5a5a5a5;
    st.shared.v4.u32 [%r9], {%r2, %r2, %r2, %r2};
    st.shared.v4.u32 [%r9+16], {%r2, %r2, %r2, %r2};
    bar.sync 0;
    mul.wide.u32 %rd3, %r1, 32;
    add.s64 %rd4, %rd2, %rd3;
    setp.eq.u32 %p1, %r1, %r30;
    @%p1 add.s64 %rd4, %rd4, %rd15;
    @%p1 add.u32 %r9, %r9, %r31;
    mul.lo.u32 %r10, %r1, 5;
    rem.u32 %r11, %r10, 21;
    rem.u32 %r12, %r1, 10;
    rem.u32 %r13, %r1, 6;
    setp.eq.u32 %p2, %r11, 0;
    add.s64 %rd5, %rd4, 1048576;
    selp.b64 %rd6, %rd5, %rd4, %p2;
    setp.ne.u32 %p3, %r1, 7;
    setp.ne.and.u32 %p3, %r1, 20, %p3;
    @%p3 cp.async.cg.shared.global [%r9], [%rd6], 16, %r11;
    @%p3 cp.async.ca.shared.global [%r9+16], [%rd4+16], 8, %r12;
    @%p3 cp.async.ca.shared.global [%r9+24], [%rd4+24], 4, %r13;
    @%p3 cp.async.ca.shared.global [%r9+28], [%rd4+28], 4;
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    add.u32 %r14, %r7, %r8;
    ld.shared.v4.u32 {%r15, %r16, %r17, %r18}, [%r14];
    ld.shared.v4.u32 {%r19, %r20, %r21, %r22}, [%r14+16];
    add.s64 %rd7, %rd1, %rd3;
    st.global.v4.u32 [%rd7], {%r15, %r16, %r17, %r18};
    st.global.v4.u32 [%rd7+16], {%r19, %r20, %r21, %r22};
    ret;
}
"#;

/// One cp.async of the kernel: slot offset, cp-size, src-size of lane l.
type CopyForm = (usize, usize, fn(usize) -> usize);

/// Bad lane, source skew, destination skew, faults expected (rule and count).
type Case = (u32, u64, u32, Option<(&'static str, usize)>);

fn input() -> Vec<u8> {
    (0..1024u32).map(|i| (i * 37 + 11) as u8).collect()
}

/// What the kernel writes by the PTX ISA (cp.async: `src-size` bytes copied, the rest of
/// `cp-size` zero-filled), for a launch where no lane faults: lane `bad`'s source is
/// `skew` bytes and its destination `dskew` bytes further on.
fn model(bad: usize, skew: usize, dskew: usize) -> Vec<u8> {
    let inp = input();
    let mut sh = vec![0xa5u8; 1024];
    let copies: [CopyForm; 4] = [
        (0, 16, |l| (5 * l) % 21),
        (16, 8, |l| l % 10),
        (24, 4, |l| l % 6),
        (28, 4, |_| 4),
    ];
    for (at, size, n) in copies {
        for l in (0..32).filter(|&l| l != 7 && l != 20) {
            let (s, d) = if l == bad { (skew, dskew) } else { (0, 0) };
            let (src, dst) = (32 * l + at + s, 32 * l + at + d);
            let n = n(l).min(size);
            sh[dst..dst + n].copy_from_slice(&inp[src..src + n]);
            sh[dst + n..dst + size].fill(0);
        }
    }
    sh
}

#[derive(Default)]
struct Rec {
    batched: bool,
    events: Vec<String>,
}

impl Observer for Rec {
    fn wants_memory(&self) -> bool {
        true
    }
    fn wants_memory_lanes(&self) -> bool {
        self.batched
    }
    fn memory(
        &mut self,
        at: At,
        lane: u32,
        space: MemSpace,
        addr: u64,
        size: u32,
        kind: AccessKind,
        _order: MemOrder,
    ) {
        self.events.push(format!(
            "pc {} lane {lane} {space:?} {addr:#x} {size} {kind:?}",
            at.pc
        ));
    }
}

/// (out bytes, diagnostics as text, sorted access events; none without an observer)
fn run_with(
    bad: u32,
    skew: u64,
    dskew: u32,
    obs: Option<bool>,
) -> (Vec<u8>, Vec<String>, Vec<String>) {
    let k = load_src(PTX, "cpa.ptx");
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0xeeu8; 1024]);
    let inp = g.alloc("in", &input());
    let params = param_block(&k, [out, inp, bad as u64, skew, dskew as u64]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], params);
    let opts = RunOptions::default();
    let (r, events) = match obs {
        None => (run(&k, &launch, &g, &opts).expect("launch"), vec![]),
        Some(batched) => {
            let (r, mut o) = run_observed(&k, &launch, &g, &opts, |_| Rec {
                batched,
                events: vec![],
            })
            .expect("launch");
            let mut ev = std::mem::take(&mut o[0].events);
            ev.sort();
            (r, ev)
        }
    };
    let diags = r
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {:#x} {}",
                d.rule.id, d.ctx.pc, d.ctx.lanes, d.message
            )
        })
        .collect();
    (g.read_buffer(out).unwrap(), diags, events)
}

#[test]
fn fast_and_per_lane_cp_async_agree() {
    let cases: [Case; 8] = [
        // no fault
        (99, 0, 0, None),
        // misaligned source: cp.async's addresses must be aligned to cp-size (PTX ISA
        // §9.7.9.25.3.1), so each of lane 3's misaligned copies is TM0502; the fast path
        // falls back to the per-lane one and reports the same
        (3, 4, 0, Some(("TM0502", 2))),
        // misaligned destination: the 16- and 8-byte copies
        (2, 0, 4, Some(("TM0502", 2))),
        // source one byte off: all four copies
        (11, 1, 0, Some(("TM0502", 4))),
        // lane 5's source 1 MiB past `in`: each of its four copies reads, each faults
        (5, 1 << 20, 0, Some(("TM0501", 4))),
        // lane 0 reads no source byte but in its last copy (no src-size): that one faults
        (0, 1 << 20, 0, Some(("TM0501", 1))),
        // lane 9's destination 4 KiB past the CTA's 1 KiB of shared memory
        (9, 0, 4096, Some(("TM0501", 4))),
        // lane 12's destination names cluster rank 1 (no cluster): another CTA's window
        (12, 0, 1 << 24, Some(("TM0503", 4))),
    ];
    for (bad, skew, dskew, faults) in cases {
        let what = format!("bad {bad} skew {skew} dskew {dskew}");
        let fast = run_with(bad, skew, dskew, None);
        let batched = run_with(bad, skew, dskew, Some(true));
        let per_lane = run_with(bad, skew, dskew, Some(false));
        assert_eq!(fast.0, per_lane.0, "bytes, {what}");
        assert_eq!(batched.0, per_lane.0, "bytes, {what}");
        assert_eq!(fast.1, per_lane.1, "diagnostics, {what}");
        assert_eq!(batched.1, per_lane.1, "diagnostics, {what}");
        assert_eq!(batched.2, per_lane.2, "accesses, {what}");
        match faults {
            None => {
                assert!(per_lane.1.is_empty(), "{what}: {:?}", per_lane.1);
                let want = model(bad as usize, skew as usize, dskew as usize);
                // a lane writes back its own slot; lane `bad`'s skewed destination wrote
                // into its slot and the next, both read back
                assert_eq!(fast.0, want, "bytes against the model, {what}");
            }
            Some((rule, count)) => {
                assert_eq!(per_lane.1.len(), count, "{what}: {:?}", per_lane.1);
                for d in &per_lane.1 {
                    assert!(d.starts_with(rule), "{what}: {d}");
                    assert!(d.contains(&format!("(lane {bad})")), "{what}: {d}");
                }
                // every other lane copied as the model says: their slots match it (but for
                // the next lane's when lane `bad`'s destination is skewed: its aligned copies
                // still run and reach into that slot)
                let want = model(99, 0, 0);
                let hit = if dskew > 0 {
                    bad as usize + 1
                } else {
                    bad as usize
                };
                for l in (0..32).filter(|&l| l != bad as usize && l != hit) {
                    let s = 32 * l..32 * l + 32;
                    assert_eq!(fast.0[s.clone()], want[s], "lane {l}, {what}");
                }
            }
        }
    }
}

/// A full warp copying every chunk whole (the warp-wide path's full-warp loop,
/// `copy_full_warp`): 16-byte copies from chunk `31 - l` with src-size `n` (from the
/// parameter), 8-byte copies without a src-size, 4-byte copies from chunk `l` with src-size
/// `n`; lane `l` writes destination chunk `l ^ 5` of each region, lane `dup` chunk 5 instead
/// (lane 0's: two lanes, one destination). Then each lane copies its 32 bytes of the 1 KiB
/// shared buffer to `out`.
const FULL_PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry cpa_full(.param .u64 out_ptr, .param .u64 in_ptr, .param .u32 n, .param .u32 dup)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 buf[1024];
    ld.param.u64 %rd1, [out_ptr];
    ld.param.u64 %rd2, [in_ptr];
    ld.param.u32 %r30, [n];
    ld.param.u32 %r31, [dup];
    mov.u32 %r1, %tid.x;
    mov.u32 %r7, buf;
    shl.b32 %r8, %r1, 5;
    add.u32 %r9, %r7, %r8;
    mov.u32 %r2, 0xa5a5a5a5;
    st.shared.v4.u32 [%r9], {%r2, %r2, %r2, %r2};
    st.shared.v4.u32 [%r9+16], {%r2, %r2, %r2, %r2};
    bar.sync 0;
    xor.b32 %r3, %r1, 5;
    setp.eq.u32 %p1, %r1, %r31;
    @%p1 mov.u32 %r3, 5;
    sub.u32 %r4, 31, %r1;
    shl.b32 %r10, %r3, 4;
    add.u32 %r10, %r7, %r10;
    mul.wide.u32 %rd3, %r4, 16;
    add.s64 %rd3, %rd2, %rd3;
    cp.async.cg.shared.global [%r10], [%rd3], 16, %r30;
    shl.b32 %r11, %r3, 3;
    add.u32 %r11, %r7, %r11;
    mul.wide.u32 %rd4, %r4, 8;
    add.s64 %rd4, %rd2, %rd4;
    cp.async.ca.shared.global [%r11+512], [%rd4+512], 8;
    shl.b32 %r12, %r3, 2;
    add.u32 %r12, %r7, %r12;
    mul.wide.u32 %rd5, %r1, 4;
    add.s64 %rd5, %rd2, %rd5;
    cp.async.ca.shared.global [%r12+768], [%rd5+768], 4, %r30;
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    ld.shared.v4.u32 {%r15, %r16, %r17, %r18}, [%r9];
    ld.shared.v4.u32 {%r19, %r20, %r21, %r22}, [%r9+16];
    mul.wide.u32 %rd6, %r1, 32;
    add.s64 %rd7, %rd1, %rd6;
    st.global.v4.u32 [%rd7], {%r15, %r16, %r17, %r18};
    st.global.v4.u32 [%rd7+16], {%r19, %r20, %r21, %r22};
    ret;
}
"#;

/// What `FULL_PTX` leaves in `out` by the PTX ISA (src-size bytes copied, the rest of
/// cp-size zero-filled; lanes in order, so the higher of two lanes sharing a destination
/// wins, as both engine paths copy).
fn full_model(n: usize, dup: usize) -> Vec<u8> {
    let inp = input();
    let mut sh = vec![0xa5u8; 1024];
    // (region, cp-size, source chunk of lane l, bytes read)
    type Copy = (usize, usize, fn(usize) -> usize, usize);
    let copies: [Copy; 3] = [
        (0, 16, |l| 31 - l, n.min(16)),
        (512, 8, |l| 31 - l, 8),
        (768, 4, |l| l, n.min(4)),
    ];
    for (at, size, chunk, k) in copies {
        for l in 0..32 {
            let d = if l == dup { 5 } else { l ^ 5 };
            let (src, dst) = (at + size * chunk(l), at + size * d);
            sh[dst..dst + k].copy_from_slice(&inp[src..src + k]);
            sh[dst + k..dst + size].fill(0);
        }
    }
    sh
}

#[test]
fn full_warp_cp_async_equals_the_per_lane_path() {
    let k = load_src(FULL_PTX, "cpa_full.ptx");
    let run_one = |n: u32, dup: u32, reference_paths: bool| {
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let out = g.alloc("out", &[0xeeu8; 1024]);
        let inp = g.alloc("in", &input());
        let params = param_block(&k, [out, inp, n as u64, dup as u64]);
        let launch = plain_launch([1, 1, 1], [32, 1, 1], params);
        let opts = RunOptions {
            reference_paths,
            ..RunOptions::default()
        };
        let r = run(&k, &launch, &g, &opts).expect("launch");
        assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
        g.read_buffer(out).unwrap()
    };
    // n 16 and 40: every lane full (above the copy size reads cp-size bytes); 15 and 0: the
    // 16-byte copy partial or empty (the general warp-wide loop), the 8-byte one still full
    for n in [16, 40, 15, 0] {
        for dup in [99, 1, 7, 31] {
            let fast = run_one(n, dup, false);
            let per_lane = run_one(n, dup, true);
            assert_eq!(fast, per_lane, "n {n} dup {dup}");
            assert_eq!(
                fast,
                full_model(n as usize, dup as usize),
                "n {n} dup {dup}"
            );
        }
    }
}

/// Every lane active, the destination in a 32-bit register and the source in a 64-bit one,
/// with non-zero offsets (the full-warp path, `cp_async::full_warp`): lane `l` copies from
/// the input's 32-byte row `31 - l` into shared slot `l ^ 3`, 16 bytes at +16 (src-size `n`),
/// 8 at +8 (none), 4 at +4 (src-size `n`). Lane `bad` adds `skew` to its source and `dskew`
/// to its destination. Then each lane writes its own slot to `out`.
const WARP_PTX: &str = r#".version 8.7
.target sm_100a
.address_size 64

.visible .entry cpa_warp(.param .u64 out_ptr, .param .u64 in_ptr, .param .u32 bad, .param .u64 skew, .param .u32 dskew, .param .u32 n)
{
    .reg .b32 %r<40>;
    .reg .b64 %rd<20>;
    .reg .pred %p<4>;
    .shared .align 16 .b8 buf[1024];
    ld.param.u64 %rd1, [out_ptr];
    ld.param.u64 %rd2, [in_ptr];
    ld.param.u32 %r30, [bad];
    ld.param.u64 %rd15, [skew];
    ld.param.u32 %r31, [dskew];
    ld.param.u32 %r32, [n];
    mov.u32 %r1, %tid.x;
    mov.u32 %r7, buf;
    shl.b32 %r8, %r1, 5;
    add.u32 %r9, %r7, %r8;
    mov.u32 %r2, 0xa5a5a5a5;
    st.shared.v4.u32 [%r9], {%r2, %r2, %r2, %r2};
    st.shared.v4.u32 [%r9+16], {%r2, %r2, %r2, %r2};
    bar.sync 0;
    xor.b32 %r3, %r1, 3;
    shl.b32 %r4, %r3, 5;
    add.u32 %r10, %r7, %r4;
    sub.u32 %r5, 31, %r1;
    mul.wide.u32 %rd3, %r5, 32;
    add.s64 %rd4, %rd2, %rd3;
    setp.eq.u32 %p1, %r1, %r30;
    @%p1 add.s64 %rd4, %rd4, %rd15;
    @%p1 add.u32 %r10, %r10, %r31;
    cp.async.cg.shared.global [%r10+16], [%rd4+16], 16, %r32;
    cp.async.ca.shared.global [%r10+8], [%rd4+8], 8;
    cp.async.ca.shared.global [%r10+4], [%rd4+4], 4, %r32;
    cp.async.commit_group;
    cp.async.wait_group 0;
    bar.sync 0;
    ld.shared.v4.u32 {%r15, %r16, %r17, %r18}, [%r9];
    ld.shared.v4.u32 {%r19, %r20, %r21, %r22}, [%r9+16];
    mul.wide.u32 %rd6, %r1, 32;
    add.s64 %rd7, %rd1, %rd6;
    st.global.v4.u32 [%rd7], {%r15, %r16, %r17, %r18};
    st.global.v4.u32 [%rd7+16], {%r19, %r20, %r21, %r22};
    ret;
}
"#;

/// The bytes of the `other` buffer `WARP_PTX`'s runs allocate after `in` (a source in a
/// second buffer).
fn other_input() -> Vec<u8> {
    (0..1024u32).map(|i| (i * 11 + 101) as u8).collect()
}

/// What `WARP_PTX` leaves in `out` by the PTX ISA when no lane faults; lane `bad` reads
/// `src(bad)` (its skewed source, from `in` or `other`) and writes `dskew` further on. Lanes
/// copy in lane order, so where two destinations overlap the higher lane's bytes stay.
fn warp_model(bad: usize, src: impl Fn(usize, usize) -> u8, dskew: usize, n: usize) -> Vec<u8> {
    let inp = input();
    let mut sh = vec![0xa5u8; 1024];
    for (at, size, k) in [(16, 16, n.min(16)), (8, 8, 8), (4, 4, n.min(4))] {
        for l in 0..32 {
            let (s, d) = (32 * (31 - l) + at, 32 * (l ^ 3) + at);
            let d = if l == bad { d + dskew } else { d };
            for i in 0..size {
                sh[d + i] = match (i < k, l == bad) {
                    (false, _) => 0,
                    (true, true) => src(s, i),
                    (true, false) => inp[s + i],
                };
            }
        }
    }
    sh
}

#[test]
fn full_warp_faults_and_edges_equal_the_per_lane_path() {
    let k = load_src(WARP_PTX, "cpa_warp.ptx");
    // (bad lane, source skew (None: into `other`), destination skew, n, faults expected)
    type WarpCase = (u32, Option<u64>, u32, u32, Option<(&'static str, usize)>);
    let cases: [WarpCase; 16] = [
        (99, Some(0), 0, 16, None),
        // src-size above the copy size reads cp-size bytes; 0 reads none (zero-fill only)
        (99, Some(0), 0, 40, None),
        (99, Some(0), 0, 0, None),
        // partial 16-byte copies (the general warp-wide loop), whole 4-byte ones
        (99, Some(0), 0, 5, None),
        // lane 4 reads from a second buffer: one span cannot hold the warp (per-lane path)
        (4, None, 0, 16, None),
        // lane 3 (slot 0) writes the last 16 bytes of shared memory, over lane 28's slot 31
        (3, Some(0), 992, 16, None),
        // lane 3's 16-byte copy one chunk past the end of shared memory
        (3, Some(0), 1008, 16, Some(("TM0501", 1))),
        // lane 0 (row 31) reads 16 bytes past the end of `in` in its 16-byte copy
        (0, Some(16), 0, 16, Some(("TM0501", 1))),
        // lane 5's source 1 MiB past `in`: every copy faults ...
        (5, Some(1 << 20), 0, 16, Some(("TM0501", 3))),
        // ... but those that read no byte (src-size 0): only the 8-byte one (no src-size)
        (5, Some(1 << 20), 0, 0, Some(("TM0501", 1))),
        // misaligned source by 4: the 16- and 8-byte copies
        (6, Some(4), 0, 16, Some(("TM0502", 2))),
        // misaligned destination by 8: the 16-byte copy
        (7, Some(0), 8, 16, Some(("TM0502", 1))),
        (7, Some(0), 8, 0, Some(("TM0502", 1))),
        // destination 4 KiB past the CTA's 1 KiB
        (9, Some(0), 4096, 16, Some(("TM0501", 3))),
        // destination naming cluster rank 1 (no cluster): another CTA's window
        (12, Some(0), 1 << 24, 16, Some(("TM0503", 3))),
        (12, Some(0), 1 << 24, 0, Some(("TM0503", 3))),
    ];
    // (out bytes, diagnostics as text), through the fast paths or the per-lane reference
    let run_one = |bad: u32, skew: Option<u64>, dskew: u32, n: u32, reference_paths: bool| {
        let mut g = GlobalMemory::new();
        install_globals(&k, &mut g).unwrap();
        let out = g.alloc("out", &[0xeeu8; 1024]);
        let inp = g.alloc("in", &input());
        let other = g.alloc("other", &other_input());
        let skew = skew.unwrap_or(other.wrapping_sub(inp));
        let params = param_block(&k, [out, inp, bad as u64, skew, dskew as u64, n as u64]);
        let launch = plain_launch([1, 1, 1], [32, 1, 1], params);
        let opts = RunOptions {
            reference_paths,
            ..RunOptions::default()
        };
        let r = run(&k, &launch, &g, &opts).expect("launch");
        let diags: Vec<String> = r
            .diagnostics
            .iter()
            .map(|d| {
                format!(
                    "{} {} {:#x} {}",
                    d.rule.id, d.ctx.pc, d.ctx.lanes, d.message
                )
            })
            .collect();
        (g.read_buffer(out).unwrap(), diags)
    };
    let mut full_runs = 0;
    for (bad, skew, dskew, n, faults) in cases {
        let what = format!("bad {bad} skew {skew:?} dskew {dskew} n {n}");
        let fast = run_one(bad, skew, dskew, n, false);
        let per_lane = run_one(bad, skew, dskew, n, true);
        assert_eq!(fast, per_lane, "{what}");
        match faults {
            None => {
                assert!(fast.1.is_empty(), "{what}: {:?}", fast.1);
                let (inp, oth) = (input(), other_input());
                let want = match skew {
                    Some(s) => {
                        warp_model(bad as usize, |o, i| inp[o + s as usize + i], 0, n as usize)
                    }
                    None => warp_model(bad as usize, |o, i| oth[o + i], 0, n as usize),
                };
                let want = if dskew == 0 {
                    want
                } else {
                    warp_model(bad as usize, |o, i| inp[o + i], dskew as usize, n as usize)
                };
                assert_eq!(fast.0, want, "bytes against the model, {what}");
                full_runs += 1;
            }
            Some((rule, count)) => {
                assert_eq!(fast.1.len(), count, "{what}: {:?}", fast.1);
                for d in &fast.1 {
                    assert!(d.starts_with(rule), "{what}: {d}");
                    assert!(d.contains(&format!("(lane {bad})")), "{what}: {d}");
                }
            }
        }
    }
    assert_eq!(full_runs, 6);
}

/// Records the async-op events of the copies in order; `ignore` answers
/// `ignores_global_read`: 0 never, 1 always, 2 for extents under 600 bytes.
struct Asyncs {
    ignore: u8,
    events: Vec<String>,
}

impl Observer for Asyncs {
    fn wants_memory(&self) -> bool {
        true
    }
    fn wants_memory_lanes(&self) -> bool {
        true
    }
    fn ignores_global_read(&self, lo: u64, hi: u64) -> bool {
        match self.ignore {
            0 => false,
            1 => true,
            _ => hi - lo < 600,
        }
    }
    fn async_issue(&mut self, at: At, id: AsyncId, kind: OpKind) {
        let e = format!("issue {id:?} pc {} lanes {:#x} {kind:?}", at.pc, at.lanes);
        self.events.push(e);
    }
    fn async_access(&mut self, id: AsyncId, place: Place, kind: AccessKind) {
        self.events
            .push(format!("access {id:?} {place:?} {kind:?}"));
    }
    fn async_complete(&mut self, id: AsyncId, time: u64) {
        self.events.push(format!("complete {id:?} {time}"));
    }
    fn cp_async_add(&mut self, at: At, id: AsyncId) {
        let e = format!("add {id:?} pc {} lanes {:#x}", at.pc, at.lanes);
        self.events.push(e);
    }
}

/// The warp-wide path reports its copies from its scans' offsets (`cp_async::observe_offsets`),
/// the per-lane path's caller from the registers (`cp_async::observe`): the same events in the
/// same order, on the three kernels above (full warps, swizzled and duplicate destinations,
/// partial and empty sources, lanes that fault, predicated-off lanes), with the observer
/// ignoring no source, every source, or the narrow ones.
#[test]
fn cp_async_events_equal_the_per_lane_path() {
    let kernels = [
        (load_src(PTX, "cpa.ptx"), 0),
        (load_src(FULL_PTX, "cpa_full.ptx"), 1),
        (load_src(WARP_PTX, "cpa_warp.ptx"), 2),
    ];
    // (bad lane, source skew, destination skew, n or dup)
    let cases: [(u32, u64, u32, u32); 9] = [
        (99, 0, 0, 16),
        (99, 0, 0, 0),
        (99, 0, 0, 5),
        (3, 0, 992, 16),
        (5, 1 << 20, 0, 0),
        (6, 4, 0, 16),
        (7, 0, 8, 16),
        (12, 0, 1 << 24, 16),
        (2, 0, 4, 40),
    ];
    let mut events = 0;
    for (k, form) in &kernels {
        for (bad, skew, dskew, n) in cases {
            for ignore in 0..3u8 {
                let run_one = |reference_paths: bool| {
                    let mut g = GlobalMemory::new();
                    install_globals(k, &mut g).unwrap();
                    let out = g.alloc("out", &[0xeeu8; 1024]);
                    let inp = g.alloc("in", &input());
                    let params = match form {
                        0 => param_block(k, [out, inp, bad as u64, skew, dskew as u64]),
                        // lane `bad` (or none) doubles up on lane 0's destination
                        1 => param_block(k, [out, inp, n as u64, bad as u64]),
                        _ => param_block(k, [out, inp, bad as u64, skew, dskew as u64, n as u64]),
                    };
                    let launch = plain_launch([1, 1, 1], [32, 1, 1], params);
                    let opts = RunOptions {
                        reference_paths,
                        ..RunOptions::default()
                    };
                    let (r, mut o) = run_observed(k, &launch, &g, &opts, |_| Asyncs {
                        ignore,
                        events: vec![],
                    })
                    .expect("launch");
                    let diags = r.diagnostics.len();
                    (std::mem::take(&mut o[0].events), diags)
                };
                let what = format!("kernel {form} case {bad} {skew} {dskew} {n} ignore {ignore}");
                let (fast, per_lane) = (run_one(false), run_one(true));
                assert_eq!(fast, per_lane, "{what}");
                events += fast.0.len();
            }
        }
    }
    assert!(events > 1000, "{events}");
}
