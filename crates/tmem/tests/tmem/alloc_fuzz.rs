//! Arbitrary event streams — including ones that break the API contract — never panic the
//! allocator, and its state stays consistent (no overlap, alignment, free + owned = 512).

use proptest::prelude::*;
use tmemu_tmem::alloc::{
    Config, CtaGroup, CtaId, Event, Issue, LaneValues, Origin, PairCollective, Placement, SmId,
    StepError, TmemAllocator, WarpId, WarpLanes,
};

fn lanes() -> impl Strategy<Value = WarpLanes> {
    prop_oneof![
        4 => Just(WarpLanes::FULL),
        1 => (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(population, exited, present)| {
            WarpLanes { population, exited, present }
        }),
    ]
}

fn values() -> impl Strategy<Value = LaneValues> {
    prop_oneof![
        4 => prop_oneof![Just(32u32), Just(64), Just(128), Just(256), Just(512), any::<u32>()]
            .prop_map(LaneValues::Uniform),
        1 => prop::array::uniform32(prop_oneof![Just(0u32), Just(32), Just(64), any::<u32>()])
            .prop_map(LaneValues::PerLane),
    ]
}

fn issue() -> impl Strategy<Value = Issue> {
    (0..8u32, 0..3u32, any::<bool>(), lanes(), any::<u64>()).prop_map(
        |(cta, warp, pair, lanes, origin)| Issue {
            cta: CtaId(cta),
            warp: WarpId(warp),
            lanes,
            group: if pair { CtaGroup::Two } else { CtaGroup::One },
            origin: Origin(origin),
        },
    )
}

fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        1 => (0..8u32, 0..4u32, prop::option::of(0..8u32)).prop_map(|(c, sm, p)| Event::Launch {
            cta: CtaId(c),
            sm: SmId(sm),
            peer: p.map(CtaId),
        }),
        4 => (issue(), values()).prop_map(|(issue, ncols)| Event::Alloc { issue, ncols }),
        4 => (issue(), values(), values())
            .prop_map(|(issue, taddr, ncols)| Event::Dealloc { issue, taddr, ncols }),
        1 => issue().prop_map(|issue| Event::Relinquish { issue }),
        1 => (0..8u32, any::<u64>()).prop_map(|(c, o)| Event::CtaExit { cta: CtaId(c), origin: Origin(o) }),
    ]
}

fn consistent(a: &TmemAllocator, sms: u32) {
    for sm in 0..sms {
        let held: Vec<_> = a.holders(SmId(sm)).map(|h| h.range).collect();
        let owned: u32 = held.iter().map(|r| r.ncols).sum();
        assert_eq!(owned + a.columns(SmId(sm)).unwrap().free_columns(), 512);
        for (i, r) in held.iter().enumerate() {
            assert_eq!(r.first % r.ncols, 0);
            assert!(held[i + 1..].iter().all(|s| !s.overlaps(*r)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_events_never_panic(
        events in prop::collection::vec(event(), 1..200),
        eager in any::<bool>(),
        seed in prop::option::of(any::<u64>()),
    ) {
        let config = Config {
            sms: 3,
            placement: seed.map_or(Placement::Lowest, |seed| Placement::Random { seed }),
            pair_collective: if eager { PairCollective::Eager } else { PairCollective::Blocking },
        };
        let mut a = TmemAllocator::new(config);
        // A plausible launch first, so that most events reach the protocol; CTA 7 is left
        // for the generated launches.
        let topology = [(0, 0, None), (1, 0, None), (2, 1, None), (3, 0, Some(4)), (4, 1, Some(3)), (5, 1, Some(6)), (6, 2, Some(5))];
        for (cta, sm, peer) in topology {
            a.step(Event::Launch { cta: CtaId(cta), sm: SmId(sm), peer: peer.map(CtaId) }).unwrap();
        }
        for e in events {
            let before = a.clone();
            match a.step(e) {
                Ok(_) => {}
                // A rejected event leaves the state as it was.
                Err(StepError::Violation(_)) | Err(StepError::Misuse(_)) => {
                    prop_assert_eq!(format!("{before:?}"), format!("{a:?}"));
                }
            }
            consistent(&a, 3);
            let _ = a.blocked();
        }
    }
}
