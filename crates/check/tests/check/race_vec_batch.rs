//! The race observer's vector batch (`Observer::memory_lanes_vec`: one event per vector
//! `ld`/`st` warp-instruction, each lane's `elems` elements as one range) against the per-lane
//! path it replaces (the trait's default: one `Observer::memory` event per lane and element,
//! gathered by the observer). On random streams of vector and scalar accesses by four warps
//! (shared and global, every memory order, barriers between them) both must give the same
//! findings, message for message. `vec_streams_find_races` shows the streams do race.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use tmemu_check::dynamic::{launch_findings, RaceObserver};
use tmemu_sim::observer::{AccessKind, At, MemOrder, MemSpace, Observer, Sem, SyncKey};
use tmemu_sim::Kernel;

/// A kernel with a few instructions, so that the pcs of the stream have source lines.
fn kernel() -> Kernel {
    let mut body = String::new();
    for i in 0..PCS {
        body.push_str(&format!("    add.u32 %r1, %r1, {i};\n"));
    }
    let src = format!(
        ".version 8.8\n.target sm_100a\n.address_size 64\n\
         .visible .entry k()\n{{\n    .reg .b32 %r<4>;\n{body}    ret;\n}}\n"
    );
    tmemu_host::load_ptx_source(&src, "k.ptx", None).expect("kernel")
}

const PCS: u32 = 12;
const WARPS: u32 = 4;

#[derive(Clone, Debug)]
enum Ev {
    /// A vector (`elems` > 1) or scalar access of lanes `lanes`; lane `l` at
    /// `base + offs[l] * size * elems`.
    Access {
        warp: u32,
        pc: u32,
        global: bool,
        lanes: u32,
        offs: Vec<u8>,
        size: u32,
        elems: u32,
        write: bool,
        order: u8,
    },
    /// `bar.sync` of every warp.
    Barrier,
}

fn order(o: u8) -> MemOrder {
    match o % 6 {
        0..=2 => MemOrder::Weak,
        3 => MemOrder::Relaxed,
        4 => MemOrder::Release,
        _ => MemOrder::Acquire,
    }
}

fn ev() -> impl Strategy<Value = Ev> {
    prop_oneof![
        8 => (
            0..WARPS,
            0..PCS,
            any::<bool>(),
            prop_oneof![Just(u32::MAX), Just(0xffff), Just(1u32), any::<u32>()],
            proptest::collection::vec(0u8..12, 32),
            prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
            prop_oneof![Just(1u32), Just(2), Just(4)],
            any::<bool>(),
            any::<u8>(),
        )
            .prop_map(|(warp, pc, global, lanes, offs, size, elems, write, order)| {
                Ev::Access {
                    warp,
                    pc,
                    global,
                    lanes,
                    offs,
                    size,
                    elems,
                    write,
                    order,
                }
            }),
        1 => Just(Ev::Barrier),
    ]
}

/// Coalesced lanes (`offs[l] = l`) are the common shape: one stream in four uses them.
fn stream() -> impl Strategy<Value = Vec<Ev>> {
    (proptest::collection::vec(ev(), 1..60), any::<u8>()).prop_map(|(mut v, k)| {
        if k % 4 == 0 {
            for e in &mut v {
                if let Ev::Access { offs, .. } = e {
                    for (l, o) in offs.iter_mut().enumerate() {
                        *o = l as u8;
                    }
                }
            }
        }
        v
    })
}

/// Forwards to the race observer but keeps the trait's default `memory_lanes_vec`: the
/// per-lane, per-element events the engine's general path reports.
struct PerLane<'k>(RaceObserver<'k>);

impl Observer for PerLane<'_> {
    fn wants_memory(&self) -> bool {
        true
    }
    fn cta_begin(&mut self, at: At, warps: u32) {
        self.0.cta_begin(at, warps)
    }
    fn instruction(&mut self, at: At) {
        self.0.instruction(at)
    }
    fn memory(
        &mut self,
        at: At,
        lane: u32,
        space: MemSpace,
        addr: u64,
        size: u32,
        kind: AccessKind,
        order: MemOrder,
    ) {
        self.0.memory(at, lane, space, addr, size, kind, order)
    }
    fn sync_arrive(&mut self, at: At, key: SyncKey, sem: Sem) {
        self.0.sync_arrive(at, key, sem)
    }
    fn sync_complete(&mut self, at: At, key: SyncKey) {
        self.0.sync_complete(at, key)
    }
    fn sync_wait(&mut self, at: At, key: SyncKey, sem: Sem) {
        self.0.sync_wait(at, key, sem)
    }
    fn mbar_init(&mut self, at: At, key: SyncKey) {
        self.0.mbar_init(at, key)
    }
    fn mbar_use(&mut self, at: At, key: SyncKey) {
        self.0.mbar_use(at, key)
    }
}

fn feed(o: &mut impl Observer, evs: &[Ev]) {
    let at0 = At::default();
    o.cta_begin(at0, WARPS);
    let mut time = 0u64;
    for e in evs {
        match e {
            Ev::Access {
                warp,
                pc,
                global,
                lanes,
                offs,
                size,
                elems,
                write,
                order: ord,
            } => {
                // the engine reports no access of no lane
                let lanes = if *lanes == 0 { 1 } else { *lanes };
                let at = At {
                    warp: *warp,
                    pc: *pc,
                    lanes,
                    time,
                    ..at0
                };
                time += 1;
                o.instruction(at);
                let (space, base) = if *global {
                    (MemSpace::Global, 0x1000_0000u64)
                } else {
                    (MemSpace::Shared { cta: 0 }, 0)
                };
                let step = u64::from(size * elems);
                let addrs: [u64; 32] = std::array::from_fn(|l| base + u64::from(offs[l]) * step);
                let kind = if *write {
                    AccessKind::Write
                } else {
                    AccessKind::Read
                };
                o.memory_lanes_vec(at, lanes, space, &addrs, *size, *elems, kind, order(*ord));
            }
            Ev::Barrier => {
                let key = SyncKey::CtaBarrier { cta: 0, id: 0 };
                for w in 0..WARPS {
                    let at = At {
                        warp: w,
                        time,
                        ..at0
                    };
                    time += 1;
                    o.instruction(at);
                    o.sync_arrive(at, key, Sem::Ordering);
                }
                o.sync_complete(At { time, ..at0 }, key);
                for w in 0..WARPS {
                    o.sync_wait(
                        At {
                            warp: w,
                            time,
                            ..at0
                        },
                        key,
                        Sem::Ordering,
                    );
                }
            }
        }
    }
}

/// (rule, message, related line) of every finding, in the order found.
fn findings(k: &Kernel, evs: &[Ev], batched: bool) -> Vec<(String, String, u32)> {
    let obs = if batched {
        let mut o = RaceObserver::new(k);
        assert!(o.wants_memory_lanes_vec());
        feed(&mut o, evs);
        o
    } else {
        let mut o = PerLane(RaceObserver::new(k));
        feed(&mut o, evs);
        o.0
    };
    launch_findings(vec![obs])
        .into_iter()
        .map(|f| (f.rule.id.to_string(), f.message, f.related.line))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn vector_batch_gives_the_per_lane_findings(evs in stream()) {
        let k = kernel();
        prop_assert_eq!(findings(&k, &evs, true), findings(&k, &evs, false));
    }
}

/// The streams do race (so the comparison above compares findings, not two empty lists), and
/// the races are on vector elements past the first too.
#[test]
fn vec_streams_find_races() {
    let k = kernel();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut racy, mut total) = (0, 0);
    for _ in 0..100 {
        let evs = stream().new_tree(&mut runner).unwrap().current();
        total += 1;
        if !findings(&k, &evs, true).is_empty() {
            racy += 1;
        }
    }
    assert!(racy * 2 > total, "{racy} of {total} streams race");
    // Warp 1 writes element 1 of lane 0's v2.b32 (bytes 4..8) after warp 0 wrote them with
    // a vector store: a race only the second element shows.
    let evs = [
        Ev::Access {
            warp: 0,
            pc: 1,
            global: false,
            lanes: 1,
            offs: vec![0; 32],
            size: 4,
            elems: 2,
            write: true,
            order: 0,
        },
        Ev::Access {
            warp: 1,
            pc: 2,
            global: false,
            lanes: 1,
            offs: vec![1; 32],
            size: 4,
            elems: 1,
            write: true,
            order: 0,
        },
    ];
    let batched = findings(&k, &evs, true);
    assert_eq!(batched.len(), 1, "{batched:?}");
    assert!(
        batched[0].1.contains("shared bytes 0x4..0x8"),
        "{}",
        batched[0].1
    );
    assert_eq!(batched, findings(&k, &evs, false));
}
