//! One `cp.async` op per warp and cp.async-group (`RaceDetector::cp_async_issue`, what the
//! race observer uses) against one op per copy instruction (`issue` + `cp_async_add_lanes`,
//! the model it replaced): random streams of copies by any lanes (contiguous, swizzled or
//! strided chunks of 4, 8 or 16 bytes, zero-size sources), commits, `wait_group n`,
//! `wait_all` and `cp.async.mbarrier.arrive` by any lanes, `bar.sync`, mbarrier waits
//! (acquire and relaxed), every fence, async-proxy writes, and thread reads and writes of the staged shared memory and
//! of the global sources, must give the same findings, message for message, in the same order.
//!
//! Copy instructions come from a small set of spans, so one instruction repeats within a
//! group (a loop that copies twice before committing) and two copies of one group overlap.

use proptest::prelude::*;
use tmemu_race::*;

const WARPS: u32 = 3;
const GLOBAL: u64 = 0x7f00_0000_0000;
/// Span tokens of the copy instructions (thread accesses use others).
const COPY_SPAN: u32 = 100;

#[derive(Clone, Debug)]
enum Ev {
    Copy {
        w: u32,
        lanes: u32,
        span: u32,
        /// Shared destination and global source bases.
        dst: u64,
        src: u64,
        size: u64,
        /// 0: lanes contiguous; 1: 16-byte chunks swizzled within 128-byte rows (Triton);
        /// 2: a stride of 2 chunks.
        layout: u8,
        /// Lanes whose source size is 0 (zero fill, nothing read).
        masked: u32,
    },
    Commit {
        w: u32,
        lanes: u32,
    },
    Wait {
        w: u32,
        lanes: u32,
        n: u32,
    },
    WaitAll {
        w: u32,
        lanes: u32,
    },
    MbarArrive {
        w: u32,
        lanes: u32,
        key: u32,
    },
    Await {
        w: u32,
        key: u32,
        relaxed: bool,
    },
    Bar,
    Fence {
        w: u32,
        kind: u8,
    },
    /// An async-proxy write (a bulk copy), observed by its warp at once: a copy reading what
    /// it wrote needs `fence.proxy.async` (the op's proxy-fenced view).
    BulkWrite {
        w: u32,
        global: bool,
        addr: u64,
        len: u64,
    },
    Access {
        w: u32,
        global: bool,
        addr: u64,
        len: u64,
        write: bool,
        strong: bool,
    },
}

fn lanes() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => Just(u32::MAX),
        1 => Just(0xffff),
        1 => Just(0xffff_0000),
        1 => Just(1u32),
        1 => any::<u32>().prop_map(|m| m | 1),
    ]
}

fn ev() -> impl Strategy<Value = Ev> {
    let w = 0..WARPS;
    prop_oneof![
        8 => (w.clone(), lanes(), 0..5u32, 0..4u64, 0..4u64, prop_oneof![Just(16u64), Just(8), Just(4)], 0..3u8, prop_oneof![3 => Just(0u32), 1 => any::<u32>()])
            .prop_map(|(w, lanes, span, dst, src, size, layout, masked)| Ev::Copy {
                w, lanes, span, dst: dst * 256, src: src * 384, size, layout, masked
            }),
        3 => (w.clone(), lanes()).prop_map(|(w, lanes)| Ev::Commit { w, lanes }),
        3 => (w.clone(), lanes(), 0..3u32).prop_map(|(w, lanes, n)| Ev::Wait { w, lanes, n }),
        1 => (w.clone(), lanes()).prop_map(|(w, lanes)| Ev::WaitAll { w, lanes }),
        1 => (w.clone(), lanes(), 0..2u32).prop_map(|(w, lanes, key)| Ev::MbarArrive { w, lanes, key }),
        1 => (w.clone(), 0..2u32, any::<bool>()).prop_map(|(w, key, relaxed)| Ev::Await { w, key, relaxed }),
        2 => Just(Ev::Bar),
        2 => (w.clone(), 0..4u8).prop_map(|(w, kind)| Ev::Fence { w, kind }),
        1 => (w.clone(), any::<bool>(), 0..1600u64, 1..600u64).prop_map(|(w, global, addr, len)| Ev::BulkWrite { w, global, addr, len }),
        6 => (w.clone(), any::<bool>(), 0..1600u64, prop_oneof![Just(4u64), Just(16), Just(128), 1..600u64], any::<bool>(), prop_oneof![5 => Just(false), 1 => Just(true)])
            .prop_map(|(w, global, addr, len, write, strong)| Ev::Access { w, global, addr, len, write, strong }),
    ]
}

/// The copy's (lane, shared offset, global address, bytes read) for each lane of `lanes`.
fn chunks(e: &Ev) -> Vec<(u64, u64, u64)> {
    let Ev::Copy {
        lanes,
        dst,
        src,
        size,
        layout,
        masked,
        ..
    } = *e
    else {
        return Vec::new();
    };
    (0..32u64)
        .filter(|l| lanes >> l & 1 != 0)
        .map(|l| {
            let chunk = match layout {
                0 => l,
                // 8 chunks per 128-byte row, the chunk index xor the row
                1 => (l & !7) | ((l ^ (l >> 3)) & 7),
                _ => 2 * l,
            };
            let n = if masked >> l & 1 != 0 { 0 } else { size };
            (dst + chunk * size, src + l * size, n)
        })
        .collect()
}

/// Sorted, touching intervals merged (what the engine hands the observer).
fn ranges(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::new();
    for (s, e) in v {
        match out.last_mut() {
            Some(r) if s <= r.1 => r.1 = r.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Runs the stream with one op per copy instruction, or merged ops; returns every finding.
/// `per_lane`: cp.async-groups in per-lane queues from the start (the reference of the
/// warp-wide queue the detector keeps while a warp's lanes commit and wait together).
fn run(evs: &[Ev], merged: bool, per_lane: bool) -> (Vec<Race>, Stats) {
    let mut d = if per_lane {
        RaceDetector::with_per_lane_cp_groups()
    } else {
        RaceDetector::new()
    };
    let warps: Vec<WarpId> = (0..WARPS).map(WarpId).collect();
    for &w in &warps {
        d.add_warp(w);
    }
    let shared = MemSpace::Shared { cta: 0 };
    let mbar = |key: u32| SyncKey::Mbarrier {
        cta: 0,
        offset: 4096 + key * 8,
    };
    let mut findings = Vec::new();
    for (i, e) in evs.iter().enumerate() {
        let s = SpanToken(i as u32 % 37);
        match *e {
            Ev::Copy { w, lanes, span, .. } => {
                let (w, span) = (warps[w as usize], SpanToken(COPY_SPAN + span));
                let op = if merged {
                    d.cp_async_issue(w, lanes, span)
                } else {
                    d.issue(w, OpKind::CpAsync, span)
                };
                let c = chunks(e);
                let size = match *e {
                    Ev::Copy { size, .. } => size,
                    _ => unreachable!(),
                };
                let writes = ranges(c.iter().map(|&(d, _, _)| (d, d + size)).collect());
                let reads = c
                    .iter()
                    .filter(|x| x.2 != 0)
                    .map(|&(_, g, n)| (GLOBAL + g, GLOBAL + g + n));
                let reads = ranges(reads.collect());
                if merged {
                    // as the race observer: the ranges of a side in one batch, and (half of
                    // the time) no completion until a thread observes the op
                    d.op_access_ranges(op, shared, &writes, AccessKind::Write);
                    d.op_access_ranges(op, MemSpace::Global, &reads, AccessKind::Read);
                    if i % 2 == 0 {
                        d.complete(op);
                    }
                } else {
                    for (space, kind, v) in [
                        (shared, AccessKind::Write, &writes),
                        (MemSpace::Global, AccessKind::Read, &reads),
                    ] {
                        for &(a, b) in v {
                            let place = Place::Mem {
                                space,
                                addr: a,
                                len: b - a,
                            };
                            d.op_access(op, place, kind);
                        }
                    }
                    d.complete(op);
                    d.cp_async_add_lanes(w, lanes, op);
                }
            }
            Ev::Commit { w, lanes } => d.cp_async_commit_lanes(warps[w as usize], lanes),
            Ev::Wait { w, lanes, n } => d.cp_async_wait_lanes(warps[w as usize], lanes, n),
            Ev::WaitAll { w, lanes } => {
                d.cp_async_commit_lanes(warps[w as usize], lanes);
                d.cp_async_wait_lanes(warps[w as usize], lanes, 0);
            }
            Ev::MbarArrive { w, lanes, key } => {
                // `.noinc`: the thread observes its copies, then the real arrive
                d.cp_async_arrive_lanes(warps[w as usize], lanes);
                d.arrive(warps[w as usize], mbar(key), Sem::Ordering);
                d.sync_complete(mbar(key));
            }
            Ev::Await { w, key, relaxed } => {
                let sem = if relaxed { Sem::Relaxed } else { Sem::Ordering };
                d.wait(warps[w as usize], mbar(key), sem);
            }
            Ev::Bar => {
                let key = SyncKey::CtaBarrier { cta: 0, id: 0 };
                for &w in &warps {
                    d.arrive(w, key, Sem::Ordering);
                }
                d.sync_complete(key);
                for &w in &warps {
                    d.wait(w, key, Sem::Ordering);
                }
            }
            Ev::Fence { w, kind } => {
                let f = match kind {
                    0 => Fence::ProxyAsync,
                    1 => Fence::AcqRel,
                    2 => Fence::TcBeforeThreadSync,
                    _ => Fence::TcAfterThreadSync,
                };
                d.fence(warps[w as usize], f);
            }
            Ev::BulkWrite {
                w,
                global,
                addr,
                len,
            } => {
                let w = warps[w as usize];
                let op = d.issue(w, OpKind::Bulk, s);
                let (space, addr) = if global {
                    (MemSpace::Global, GLOBAL + addr)
                } else {
                    (shared, addr)
                };
                d.op_access(op, Place::Mem { space, addr, len }, AccessKind::Write);
                d.complete(op);
                d.observe(w, op);
            }
            Ev::Access {
                w,
                global,
                addr,
                len,
                write,
                strong,
            } => {
                let (space, addr) = if global {
                    (MemSpace::Global, GLOBAL + addr)
                } else {
                    (shared, addr)
                };
                let kind = if write {
                    AccessKind::Write
                } else {
                    AccessKind::Read
                };
                let order = if strong {
                    MemOrder::Relaxed
                } else {
                    MemOrder::Weak
                };
                d.access(warps[w as usize], space, addr, len, kind, order, s);
            }
        }
        findings.extend(d.take_findings());
    }
    (findings, d.stats())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn merged_cp_async_ops_give_the_per_instruction_findings(
        evs in proptest::collection::vec(ev(), 1..100)
    ) {
        let (per_instruction, _) = run(&evs, false, false);
        let (merged, stats) = run(&evs, true, false);
        prop_assert_eq!(&merged, &per_instruction);
        let (per_lane, per_lane_stats) = run(&evs, true, true);
        prop_assert_eq!(merged, per_lane);
        prop_assert_eq!(stats, per_lane_stats);
    }
}

/// A Triton-like stage: each of 3 warps copies a 2 KiB tile with 4 instructions, commits, and
/// waits; warp 1 then reads warp 0's tile after `bar.sync`.
fn stage(wait: bool) -> Vec<Ev> {
    let mut evs = Vec::new();
    for w in 0..WARPS {
        for k in 0..4u32 {
            evs.push(Ev::Copy {
                w,
                lanes: u32::MAX,
                span: k,
                dst: u64::from(w) * 2048 + u64::from(k) * 512,
                src: u64::from(w) * 2048 + u64::from(k) * 512,
                size: 16,
                layout: 1,
                masked: 0,
            });
        }
        evs.push(Ev::Commit { w, lanes: u32::MAX });
        if wait {
            evs.push(Ev::Wait {
                w,
                lanes: u32::MAX,
                n: 0,
            });
        }
    }
    evs.push(Ev::Bar);
    evs.push(Ev::Access {
        w: 1,
        global: false,
        addr: 0,
        len: 2048,
        write: false,
        strong: false,
    });
    evs
}

/// The property is not vacuous: the streams merge (one op per warp and group), and the merged
/// ops still find what one op per instruction finds.
#[test]
fn a_stage_is_one_op_per_warp_and_still_races_without_its_wait() {
    let (found, stats) = run(&stage(false), true, false);
    assert_eq!(stats.ops_issued, u64::from(WARPS));
    assert_eq!(stats.ops_merged, 3 * u64::from(WARPS));
    // the read of warp 0's tile races each of its 4 copy instructions
    let rules: Vec<&str> = found.iter().map(|r| r.rule.id).collect();
    assert_eq!(rules, ["TM0213"; 4], "{found:#?}");
    assert_eq!(found, run(&stage(false), false, false).0);
    assert!(run(&stage(true), true, false).0.is_empty());
}

/// Two copies of one group are unordered with each other: a second copy to the same shared
/// bytes, by another instruction or by the same one again, races the first (merged or not).
#[test]
fn copies_of_one_group_race_each_other() {
    for span in [0, 1] {
        let copy = |span| Ev::Copy {
            w: 0,
            lanes: u32::MAX,
            span,
            dst: 0,
            src: 0,
            size: 16,
            layout: 0,
            masked: 0,
        };
        let evs = [copy(0), copy(span)];
        let (merged, stats) = run(&evs, true, false);
        assert_eq!(merged.len(), 1, "{merged:#?}");
        assert_eq!(merged, run(&evs, false, false).0);
        // a repeated instruction starts a new op
        assert_eq!(stats.ops_issued, if span == 0 { 2 } else { 1 });
    }
}

/// A copy merged into an open op is checked under its own instruction's view: here the view
/// that a relaxed mbarrier handoff with the tcgen05 fences around it (generic view unchanged,
/// tcgen05 view joined) gave the warp after the op's first copy. Too long a chain for the
/// random streams to build.
#[test]
fn a_merged_copy_is_checked_under_its_own_view() {
    let copy = |span, dst| Ev::Copy {
        w: 0,
        lanes: u32::MAX,
        span,
        dst,
        src: 0,
        size: 16,
        layout: 0,
        masked: 0,
    };
    let evs = [
        copy(0, 0),
        Ev::Access {
            w: 1,
            global: false,
            addr: 1024,
            len: 512,
            write: true,
            strong: false,
        },
        Ev::Fence { w: 1, kind: 3 },
        Ev::Fence { w: 1, kind: 2 },
        Ev::MbarArrive {
            w: 1,
            lanes: u32::MAX,
            key: 0,
        },
        Ev::Await {
            w: 0,
            key: 0,
            relaxed: true,
        },
        Ev::Fence { w: 0, kind: 3 },
        copy(1, 1024),
    ];
    let (merged, stats) = run(&evs, true, false);
    assert_eq!(stats.ops_merged, 1);
    assert_eq!(merged, run(&evs, false, false).0);
    assert!(merged.is_empty(), "{merged:#?}");
}
