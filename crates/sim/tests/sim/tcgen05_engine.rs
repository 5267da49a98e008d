//! tcgen05 on the engine: async policies (when queued ops execute), issue granularity of
//! single-thread ops, allocation blocking on a shared SM, and hang explanations.
//! Programs: tests/corpus/engine/tcgen05-*.ptx (hand-written; expected values derived in
//! their header comments, independent of the engine).

use tmemu_sim::observer::{
    AccessKind, AsyncId, At, CommitId, Fence, MemOrder, MemSpace, Observer, OpKind, Place, Sem,
    SyncKey, TcWait, TmemEvent,
};
use tmemu_sim::{
    install_globals, run, run_observed, AsyncPolicy, GlobalMemory, Launch, RunOptions, RunResult,
};

use crate::support::{corpus_file, load_corpus, load_src, param_block, plain_launch, u32_words};

struct Prepared {
    k: tmemu_sim::Kernel,
    g: GlobalMemory,
    out: u64,
    launch: Launch,
}

fn prepare(
    dir: &str,
    file: &str,
    grid: [u32; 3],
    block: [u32; 3],
    out_words: usize,
    extra: &[u32],
) -> Prepared {
    let k = load_corpus(dir, file);
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &vec![0u8; out_words * 4]);
    let vals = std::iter::once(out).chain(extra.iter().map(|&x| x as u64));
    let launch = plain_launch(grid, block, param_block(&k, vals));
    Prepared { k, g, out, launch }
}

fn words(p: &Prepared) -> Vec<u32> {
    u32_words(&p.g.read_buffer(p.out).unwrap())
}

fn opts(policy: AsyncPolicy) -> RunOptions {
    RunOptions {
        async_policy: policy,
        max_steps: 5_000_000,
        ..Default::default()
    }
}

fn clean(r: &RunResult) {
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(r.hangs.is_empty(), "{:?}", r.hangs);
    assert!(r.budget_exhausted.is_empty());
}

/// Row t of the copy holds t in all four columns; the overwrite changes word 0 of row 0.
fn cp_expected(word0: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (0..128u32).flat_map(|t| [t; 4]).collect();
    v[0] = word0;
    v
}

#[test]
fn immediate_cp_reads_shared_memory_at_issue() {
    let p = prepare(
        "engine",
        "tcgen05-cp-policy.ptx",
        [1, 1, 1],
        [128, 1, 1],
        512,
        &[],
    );
    let r = run(&p.k, &p.launch, &p.g, &opts(AsyncPolicy::Immediate)).unwrap();
    clean(&r);
    assert_eq!(words(&p), cp_expected(0));
}

#[test]
fn delayed_and_adversarial_cp_read_shared_memory_at_completion() {
    for policy in [
        AsyncPolicy::Delayed(0),
        AsyncPolicy::Delayed(3),
        AsyncPolicy::Adversarial,
    ] {
        let p = prepare(
            "engine",
            "tcgen05-cp-policy.ptx",
            [1, 1, 1],
            [128, 1, 1],
            512,
            &[],
        );
        let r = run(&p.k, &p.launch, &p.g, &opts(policy)).unwrap();
        clean(&r);
        assert_eq!(words(&p), cp_expected(0xdead), "{policy:?}");
    }
}

#[test]
fn every_thread_executing_commit_arrives_once() {
    for policy in [AsyncPolicy::Immediate, AsyncPolicy::Adversarial] {
        // one lane, count 1: one phase; a whole warp, count 32: one phase
        for (lanes, count) in [(1, 1), (32, 32)] {
            let p = prepare(
                "engine",
                "tcgen05-commit-lanes.ptx",
                [1, 1, 1],
                [32, 1, 1],
                1,
                &[lanes, count],
            );
            let r = run(&p.k, &p.launch, &p.g, &opts(policy)).unwrap();
            clean(&r);
            assert_eq!(words(&p), vec![1], "lanes {lanes} count {count} {policy:?}");
        }
    }
    // a whole warp on a count-1 mbarrier: 32 arrivals complete 32 phases at issue, so the
    // wait for parity 0 never succeeds (with one arrival per warp it would)
    let p = prepare(
        "engine",
        "tcgen05-commit-lanes.ptx",
        [1, 1, 1],
        [32, 1, 1],
        1,
        &[32, 1],
    );
    let r = run(&p.k, &p.launch, &p.g, &opts(AsyncPolicy::Immediate)).unwrap();
    assert_eq!(r.hangs.len(), 1, "{:?}", r.diagnostics);
    assert_eq!(r.hangs[0].rule.id, "TM0225");
}

/// Counts the allocator events the engine reports.
#[derive(Default)]
struct TmemLog {
    events: Vec<(u32, TmemEvent)>,
}

impl Observer for TmemLog {
    fn tmem_event(&mut self, at: At, ev: TmemEvent) {
        self.events.push((at.ctaid[0], ev));
    }
}

#[test]
fn co_resident_ctas_share_the_sm_columns_and_a_blocked_alloc_resumes() {
    for policy in [
        AsyncPolicy::Immediate,
        AsyncPolicy::Delayed(2),
        AsyncPolicy::Adversarial,
    ] {
        let p = prepare(
            "engine",
            "tcgen05-alloc-shared-sm.ptx",
            [2, 1, 1],
            [32, 1, 1],
            64,
            &[],
        );
        // a short quantum interleaves the CTAs, so CTA 1 allocates while CTA 0 holds
        let o = RunOptions {
            nsms: 1,
            quantum: 2,
            ..opts(policy)
        };
        let (r, logs) = run_observed(&p.k, &p.launch, &p.g, &o, |_| TmemLog::default()).unwrap();
        clean(&r);
        assert!(r.ctas_per_sm >= 2);
        let want: Vec<u32> = (0..64u32).map(|i| i / 32 + 1).collect();
        assert_eq!(words(&p), want, "{policy:?}");
        let ev: Vec<(u32, TmemEvent)> = logs.into_iter().flat_map(|l| l.events).collect();
        // CTA 0 allocates all 512 columns; CTA 1 blocks, is woken by CTA 0's dealloc, and
        // gets the same columns
        let pos = |e: (u32, TmemEvent)| {
            ev.iter()
                .position(|x| *x == e)
                .unwrap_or_else(|| panic!("{e:?} missing from {ev:?}"))
        };
        let a0 = pos((0, TmemEvent::Alloc { col: 0, ncols: 512 }));
        let b1 = pos((1, TmemEvent::Blocked { ncols: 512 }));
        let d0 = pos((0, TmemEvent::Dealloc { col: 0, ncols: 512 }));
        let u1 = pos((1, TmemEvent::Unblocked));
        let a1 = pos((1, TmemEvent::Alloc { col: 0, ncols: 512 }));
        assert!(a0 < b1 && b1 < d0 && d0 < u1 && u1 < a1, "{ev:?}");
    }
}

#[test]
fn an_alloc_that_can_never_be_satisfied_names_the_holder() {
    let (path, src) = corpus_file("rules", "TM0020-tmem-alloc-hang/break.ptx");
    let k = load_src(&src, &path.display().to_string());
    let mut g = GlobalMemory::new();
    install_globals(&k, &mut g).unwrap();
    let out = g.alloc("out", &[0u8; 128]);
    let launch = plain_launch([1, 1, 1], [32, 1, 1], param_block(&k, [out]));
    let r = run(&k, &launch, &g, &opts(AsyncPolicy::Adversarial)).unwrap();
    assert_eq!(r.hangs.len(), 1);
    assert_eq!(
        r.hangs[0].rule.id, "TM0020",
        "a hang in the allocator has its own rule"
    );
    let w = &r.hangs[0].warps;
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].span.line, 37);
    // the earlier allocation of the same CTA holds the columns; the report says where
    let first_alloc = src
        .lines()
        .position(|l| l.contains("tcgen05.alloc"))
        .unwrap()
        + 1;
    assert!(
        w[0].waiting_for.contains("holds columns")
            && w[0].waiting_for.contains(&format!("{first_alloc}:")),
        "{}",
        w[0].waiting_for
    );
}

#[test]
fn async_policy_names_parse() {
    assert_eq!(
        AsyncPolicy::parse("immediate"),
        Some(AsyncPolicy::Immediate)
    );
    assert_eq!(
        AsyncPolicy::parse("adversarial"),
        Some(AsyncPolicy::Adversarial)
    );
    assert_eq!(AsyncPolicy::parse("delayed"), Some(AsyncPolicy::Delayed(2)));
    assert_eq!(
        AsyncPolicy::parse("delayed:7"),
        Some(AsyncPolicy::Delayed(7))
    );
    assert_eq!(AsyncPolicy::parse("late"), None);
}

/// Everything the observer protocol reports, in order.
#[derive(Default)]
struct Recorder {
    times: Vec<u64>,
    ev: Vec<String>,
    shared_weak_writes: u32,
    issued: Vec<(AsyncId, OpKind)>,
    completed: Vec<AsyncId>,
}

impl Observer for Recorder {
    fn wants_memory(&self) -> bool {
        true
    }
    fn instruction(&mut self, at: At) {
        self.times.push(at.time);
    }
    fn memory(
        &mut self,
        _at: At,
        _lane: u32,
        space: MemSpace,
        _addr: u64,
        _size: u32,
        kind: AccessKind,
        order: MemOrder,
    ) {
        if space == (MemSpace::Shared { cta: 0 })
            && kind == AccessKind::Write
            && order == MemOrder::Weak
        {
            self.shared_weak_writes += 1;
        }
    }
    fn fence(&mut self, _at: At, f: Fence) {
        self.ev.push(format!("fence {f:?}"));
    }
    fn sync_arrive(&mut self, _at: At, key: SyncKey, sem: Sem) {
        self.ev.push(format!("arrive {key:?} {sem:?}"));
    }
    fn sync_complete(&mut self, _at: At, key: SyncKey) {
        self.ev.push(format!("complete {key:?}"));
    }
    fn sync_wait(&mut self, _at: At, key: SyncKey, sem: Sem) {
        self.ev.push(format!("wait {key:?} {sem:?}"));
    }
    fn async_issue(&mut self, _at: At, id: AsyncId, kind: OpKind) {
        self.issued.push((id, kind));
        self.ev.push(format!("issue {kind:?}"));
    }
    fn async_access(&mut self, _id: AsyncId, place: Place, kind: AccessKind) {
        match place {
            Place::Tmem(r) => self
                .ev
                .push(format!("access tmem {}x{} {kind:?}", r.lanes, r.cols)),
            Place::Mem { space, len, .. } => {
                self.ev.push(format!("access mem {space:?} {len} {kind:?}"))
            }
        }
    }
    fn async_complete(&mut self, id: AsyncId, _time: u64) {
        self.completed.push(id);
        let kind = self.issued.iter().find(|x| x.0 == id).map(|x| x.1);
        self.ev.push(format!("done {kind:?}"));
    }
    fn commit(&mut self, _at: At, _id: CommitId, cta_group: u8) {
        self.ev.push(format!("commit {cta_group}"));
    }
    fn commit_fire(&mut self, _id: CommitId, keys: &[SyncKey], _time: u64) {
        self.ev.push(format!("fire {keys:?}"));
    }
    fn tc_wait(&mut self, _at: At, which: TcWait) {
        self.ev.push(format!("tcwait {which:?}"));
    }
    fn alloc_address_store(&mut self, _at: At, space: MemSpace, _addr: u64) {
        self.ev.push(format!("alloc store {space:?}"));
    }
}

#[test]
fn observers_see_the_tcgen05_protocol_in_order() {
    for policy in [AsyncPolicy::Immediate, AsyncPolicy::Adversarial] {
        let p = prepare(
            "engine",
            "tcgen05-cp-policy.ptx",
            [1, 1, 1],
            [128, 1, 1],
            512,
            &[],
        );
        let (r, recs) = run_observed(&p.k, &p.launch, &p.g, &opts(policy), |_| {
            Recorder::default()
        })
        .unwrap();
        clean(&r);
        let rec = &recs[0];
        // time counts warp-instructions: monotone, and one per instruction event
        assert!(rec.times.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(rec.times.len() as u64, r.warp_instructions);
        // 128 threads x st.shared.v4 (4 elements): weak writes to CTA 0's shared memory
        assert!(rec.shared_weak_writes >= 512, "{}", rec.shared_weak_writes);
        // every async op completes exactly once
        let mut ids: Vec<AsyncId> = rec.issued.iter().map(|x| x.0).collect();
        let mut done = rec.completed.clone();
        ids.sort();
        done.sort();
        assert_eq!(ids, done, "{policy:?}");
        let e = &rec.ev;
        let at = |s: &str| {
            e.iter()
                .position(|x| x == s)
                .unwrap_or_else(|| panic!("{s} missing: {e:#?}"))
        };
        let mbar = e
            .iter()
            .find(|x| x.starts_with("fire "))
            .expect("commit fired")
            .clone();
        let key = mbar
            .trim_start_matches("fire [")
            .trim_end_matches(']')
            .to_string();
        assert!(key.starts_with("Mbarrier { cta: 0"), "{key}");
        at("alloc store Shared { cta: 0 }");
        at("fence ProxyAsync");
        at("fence TcBeforeThreadSync");
        at("fence TcAfterThreadSync");
        let cp = at("issue Cp { cta_group: 1, shape_4x256b: false }");
        assert_eq!(e[cp + 1], "access tmem 128x4 Write");
        // the source: 128 rows of 16 bytes, dense (SBO 128), read from CTA 0's shared memory
        assert_eq!(e[cp + 2], "access mem Shared { cta: 0 } 2048 Read");
        let commit = at("commit 1");
        let cp_done = at("done Some(Cp { cta_group: 1, shape_4x256b: false })");
        let fire = at(&mbar);
        let complete = at(&format!("complete {key}"));
        let wait = at(&format!("wait {key} Ordering"));
        assert!(
            cp < commit && cp_done < fire && fire < complete && complete < wait,
            "{policy:?}: {e:#?}"
        );
        if policy == AsyncPolicy::Adversarial {
            // the copy completes only once every warp waits for it
            assert!(commit < cp_done);
        }
        // each warp's tcgen05.ld completes at its wait::ld
        let lds = e.iter().filter(|x| x.as_str() == "issue Ld").count();
        assert_eq!(lds, 4);
        assert_eq!(e.iter().filter(|x| x.as_str() == "tcwait Ld").count(), 4);
        at("complete CtaBarrier { cta: 0, id: 0 }");
    }
}

#[test]
fn a_warp_polling_tmem_sees_the_copy_under_every_policy() {
    for policy in [
        AsyncPolicy::Immediate,
        AsyncPolicy::Delayed(5),
        AsyncPolicy::Adversarial,
    ] {
        let p = prepare(
            "engine",
            "tcgen05-poll-tmem.ptx",
            [1, 1, 1],
            [32, 1, 1],
            32,
            &[],
        );
        let r = run(&p.k, &p.launch, &p.g, &opts(policy)).unwrap();
        clean(&r);
        assert_eq!(words(&p), vec![7; 32], "{policy:?}");
    }
}
