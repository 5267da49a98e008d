//! Probabilistic concurrency testing (PCT: Burckhardt, Kothari, Musuvathi, Nagarakatte,
//! ASPLOS 2010) on the round-based scheduler of `sched.rs`.
//!
//! With `RunOptions::pct_depth = d > 0` and a seed, every warp gets a random priority (a
//! hash of the seed and the warp's cluster index, CTA rank and warp number, so the same seed
//! gives the same priorities), and `d - 1` change points are drawn among the first rounds
//! (the horizon itself is random, 64 to 2048 rounds, since the length of a run is not known
//! in advance). Each round visits the warps by decreasing priority; the first warp that runs
//! gets the full quantum and the others one instruction each, so the highest-priority warp
//! runs far ahead of the rest, as in PCT, while every warp still moves (spin loops on a flag
//! another warp sets terminate, and the hang detector's "no warp could run" stays exact). At
//! a change point the highest-priority live warp drops below every other.
//!
//! A bug of depth `d` (d ordering constraints) is found by one run with probability at least
//! 1/(n·k^(d-1)) for n warps and k steps in the original algorithm; our rounds make k the
//! number of rounds rather than instructions. Same seed, same schedule.

use std::cmp::Reverse;
use std::collections::HashMap;

use crate::launch::RunOptions;

/// Warp identity across the run: (cluster index in the launch, CTA rank, warp).
type WarpKey = (u32, u32, u32);

pub(crate) struct Pct {
    seed: u64,
    /// Rounds at which the leader is demoted, ascending.
    change_rounds: Vec<u64>,
    demoted: HashMap<WarpKey, i64>,
    next_low: i64,
    round: u64,
    leader_ran: bool,
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Pct {
    /// None unless the options ask for PCT (a seed and a depth).
    pub(crate) fn new(opts: &RunOptions, group: u32) -> Option<Pct> {
        let seed = opts.seed?;
        if opts.pct_depth == 0 {
            return None;
        }
        let seed =
            mix(seed ^ 0x5043_5400_0000_0000 ^ (group as u64).wrapping_mul(0xa076_1d64_78bd_642f));
        let horizon = 64u64 << (mix(seed) % 6);
        let mut change_rounds: Vec<u64> = (1..opts.pct_depth as u64)
            .map(|i| mix(seed.wrapping_add(i)) % horizon)
            .collect();
        change_rounds.sort_unstable();
        Some(Pct {
            seed,
            change_rounds,
            demoted: HashMap::new(),
            next_low: -1,
            round: 0,
            leader_ran: false,
        })
    }

    fn priority(&self, key: WarpKey) -> i64 {
        match self.demoted.get(&key) {
            Some(&p) => p,
            None => {
                let h =
                    mix(self.seed ^ ((key.0 as u64) << 32 | (key.1 as u64) << 16 | key.2 as u64));
                (h >> 2) as i64
            }
        }
    }

    /// Orders one round's warps `(cluster slot in resident, cta, warp)` by priority and
    /// applies the change points of this round; `cluster_index` maps the first field to the
    /// cluster's launch index.
    pub(crate) fn order(
        &mut self,
        order: &mut [(usize, usize, usize)],
        cluster_index: impl Fn(usize) -> u32,
    ) {
        let key = |&(ci, ti, wi): &(usize, usize, usize)| (cluster_index(ci), ti as u32, wi as u32);
        order.sort_by_key(|w| Reverse(self.priority(key(w))));
        while self.change_rounds.first() == Some(&self.round) {
            self.change_rounds.remove(0);
            if let Some(first) = order.first() {
                self.demoted.insert(key(first), self.next_low);
                self.next_low -= 1;
                order.rotate_left(1);
            }
        }
        self.round += 1;
        self.leader_ran = false;
    }

    /// The quantum of the next warp to run this round: the first gets `full`, the rest 1.
    pub(crate) fn quantum(&mut self, full: u64) -> u64 {
        if self.leader_ran {
            1
        } else {
            self.leader_ran = true;
            full
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(seed: u64, depth: u32) -> RunOptions {
        RunOptions {
            seed: Some(seed),
            pct_depth: depth,
            ..Default::default()
        }
    }

    #[test]
    fn off_without_seed_or_depth() {
        assert!(Pct::new(&RunOptions::default(), 0).is_none());
        assert!(Pct::new(&opts(1, 0), 0).is_none());
        assert!(Pct::new(
            &RunOptions {
                pct_depth: 3,
                ..Default::default()
            },
            0
        )
        .is_none());
    }

    #[test]
    fn same_seed_same_order_and_leader_gets_the_quantum() {
        let warps: Vec<(usize, usize, usize)> = (0..2)
            .flat_map(|t| (0..4).map(move |w| (0, t, w)))
            .collect();
        let run = |seed| {
            let mut p = Pct::new(&opts(seed, 3), 0).unwrap();
            let mut rounds = Vec::new();
            for _ in 0..300 {
                let mut o = warps.clone();
                p.order(&mut o, |_| 7);
                assert_eq!(p.quantum(512), 512);
                assert_eq!(p.quantum(512), 1);
                rounds.push(o);
            }
            rounds
        };
        let a = run(11);
        assert_eq!(a, run(11));
        // a permutation of the warps every round
        for o in &a {
            let mut s = o.clone();
            s.sort();
            assert_eq!(s, warps);
        }
        // different seeds give different priorities
        assert!((1..20).any(|s| run(s)[0] != a[0]));
    }

    #[test]
    fn change_points_demote_the_leader() {
        // depth 3: two change points within the horizon; each moves the leader to the back
        let warps: Vec<(usize, usize, usize)> = (0..4).map(|w| (0, 0, w)).collect();
        for seed in 0..50 {
            let mut p = Pct::new(&opts(seed, 3), 0).unwrap();
            let mut leaders = std::collections::BTreeSet::new();
            for _ in 0..4096 {
                let mut o = warps.clone();
                p.order(&mut o, |_| 0);
                leaders.insert(o[0]);
            }
            assert!(
                p.change_rounds.is_empty(),
                "seed {seed}: change points left"
            );
            assert!(leaders.len() >= 2, "seed {seed}: the leader never changed");
        }
    }
}
