//! Chrome Trace Event Format writer (loads in Perfetto and chrome://tracing).
//!
//! Track layout: one process per SM (`pid = sm + 1`; pid 0 holds only global markers), and in
//! it one thread per CTA (`tid = 2^16 + cta * 64`), one per warp of that CTA (`tid + 1 + warp`)
//! and the SM's "TMEM allocator" (`tid = u32::MAX - sm`); tids are unique across the whole
//! trace. Emulated steps map 1:1 to microseconds.
//!
//! - CTA residency and warp lifetimes: `B`/`E` on their thread.
//! - Blocking waits: `X` on the warp's thread, nested inside the warp's `B`/`E`.
//! - Asynchronous operations: `b`/`e` (nestable async) with a per-category id, `cat`
//!   `tensor_pipe` or `tma`. Perfetto's JSON importer gives each (process, cat, id) its own
//!   async track named after the event and the UI groups same-named tracks of a process, so
//!   the name carries the CTA (`tcgen05.mma (CTA 3)`): each CTA gets its own tensor-pipe and
//!   TMA track group while the slice still says which instruction it is.
//! - mbarrier phase changes: an `i` instant on the CTA's thread plus a `C` counter per barrier.
//! - TMEM allocations: `b`/`e`, `cat` `tmem`, name `TMEM alloc` (allocations of different CTAs
//!   overlap in time, which thread slices may not).
//! - Truncation: a global `i` event `trace truncated` at the first dropped record.
//!
//! Output order is deterministic: metadata, then events sorted by (step, phase rank, record
//! order); the rank puts a begin before a complete event before an end at the same step, so
//! every track's `B`/`E` stay balanced and its timestamps never decrease.

use std::collections::BTreeMap;
use std::io::{self, BufWriter, Write};

use crate::json::{write_args, write_str, Arg};
use crate::record::{Blocked, Cta, Pipe, Recorder, Step, Warp};

/// Threads per CTA in the tid space: the CTA's own track plus up to 63 warps.
const TIDS_PER_CTA: u64 = 64;

fn pid(sm: u32) -> u64 {
    sm as u64 + 1
}
/// Tids below this are the SM processes' own threads (`tid = pid`, used by process
/// metadata), so SM ids stay below 2^16 - 1 and CTA tracks start above.
const CTA_TID_BASE: u64 = 1 << 16;
fn cta_tid(cta: u32) -> u64 {
    CTA_TID_BASE + cta as u64 * TIDS_PER_CTA
}
fn warp_tid(w: Warp) -> u64 {
    // Warps beyond 62 cannot exist (1024 threads per CTA); clamp rather than collide with the
    // next CTA's track.
    cta_tid(w.cta) + 1 + (w.warp as u64).min(TIDS_PER_CTA - 2)
}
/// The SM's "TMEM allocator" thread. Perfetto identifies threads by tid alone (a tid seen
/// under a second pid is taken as a new thread), so every tid is unique across the trace:
/// CTA blocks count up from 2^16, allocator tracks count down from `u32::MAX` (Perfetto reads
/// pid and tid as u32; CTA tids stay below that for grids of fewer than 2^26 CTAs).
fn alloc_tid(sm: u32) -> u64 {
    u32::MAX as u64 - sm as u64
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum TrackName {
    Allocator,
    Cta(u32),
    Warp(u32, u32),
}

/// What one output event refers to; sorted before writing.
#[derive(Clone, Copy)]
enum Ev {
    CtaBegin(u32),
    CtaEnd(u32),
    WarpBegin(u32),
    WarpEnd(u32),
    Span(u32),
    OpBegin(u32),
    OpEnd(u32),
    Phase(u32),
    AllocBegin(u32),
    AllocEnd(u32),
    Truncated,
}

impl Ev {
    /// Order of events at the same step: begins, completes, instants, ends.
    fn rank(self) -> u8 {
        match self {
            Ev::CtaBegin(_) => 0,
            Ev::WarpBegin(_) => 1,
            Ev::Span(_) => 2,
            Ev::AllocBegin(_) | Ev::OpBegin(_) => 3,
            Ev::Phase(_) | Ev::Truncated => 4,
            Ev::AllocEnd(_) | Ev::OpEnd(_) => 5,
            Ev::WarpEnd(_) => 6,
            Ev::CtaEnd(_) => 7,
        }
    }
}

/// Writes `rec` as a Chrome trace JSON object to `out`.
pub fn write_chrome_trace<W: Write>(rec: &Recorder, out: W) -> io::Result<()> {
    let mut w = BufWriter::new(out);
    let end = rec.end_step();
    let trunc = rec.truncated();

    w.write_all(b"{\"otherData\":")?;
    write_args(
        &mut w,
        &[
            ("generator", Arg::S("tmemu")),
            (
                "time_unit",
                Arg::S("emulated step (1 step = 1 us in ts/dur)"),
            ),
            ("end_step", Arg::U(end)),
            ("truncated", Arg::B(trunc.is_some())),
            ("dropped_records", Arg::U(trunc.map_or(0, |t| t.1))),
        ],
    )?;
    w.write_all(b",\"traceEvents\":[\n")?;
    let mut out = EventOut { w, first: true };

    write_metadata(rec, &mut out)?;

    let mut evs: Vec<(Step, u8, Ev)> = Vec::with_capacity(
        2 * (rec.ctas.len() + rec.warps.len() + rec.ops.len() + rec.allocs.len())
            + rec.spans.len()
            + rec.phases.len()
            + 1,
    );
    let mut push = |step: Step, ev: Ev| evs.push((step, ev.rank(), ev));
    for (i, r) in rec.ctas.iter().enumerate() {
        push(r.begin, Ev::CtaBegin(i as u32));
        push(r.end.unwrap_or(end).max(r.begin), Ev::CtaEnd(i as u32));
    }
    for (i, r) in rec.warps.iter().enumerate() {
        push(r.begin, Ev::WarpBegin(i as u32));
        push(r.end.unwrap_or(end).max(r.begin), Ev::WarpEnd(i as u32));
    }
    for (i, r) in rec.spans.iter().enumerate() {
        push(r.begin, Ev::Span(i as u32));
    }
    for (i, r) in rec.ops.iter().enumerate() {
        push(r.issue, Ev::OpBegin(i as u32));
        push(r.complete.unwrap_or(end).max(r.issue), Ev::OpEnd(i as u32));
    }
    for (i, r) in rec.phases.iter().enumerate() {
        push(r.step, Ev::Phase(i as u32));
    }
    for (i, r) in rec.allocs.iter().enumerate() {
        push(r.begin, Ev::AllocBegin(i as u32));
        push(r.end.unwrap_or(end).max(r.begin), Ev::AllocEnd(i as u32));
    }
    if let Some((step, _)) = trunc {
        push(step, Ev::Truncated);
    }
    // Stable: equal (step, rank) keep record order, so the output is deterministic.
    evs.sort_by_key(|&(s, r, _)| (s, r));

    for &(ts, _, ev) in &evs {
        write_event(rec, &mut out, ts, ev, end)?;
    }
    out.w.write_all(b"\n]}\n")?;
    out.w.flush()
}

fn write_metadata<W: Write>(rec: &Recorder, out: &mut EventOut<W>) -> io::Result<()> {
    // Every (pid, tid) any record lands on, with its name; BTreeMap keeps the order stable.
    let mut tracks: BTreeMap<(u64, u64), TrackName> = BTreeMap::new();
    let mut ctaids: BTreeMap<u32, [u32; 3]> = BTreeMap::new();
    let cta = |t: &mut BTreeMap<_, _>, c: Cta| {
        t.insert((pid(c.sm), cta_tid(c.cta)), TrackName::Cta(c.cta));
    };
    for r in &rec.ctas {
        cta(&mut tracks, r.cta);
        ctaids.insert(r.cta.cta, r.ctaid);
    }
    for w in rec
        .warps
        .iter()
        .map(|r| r.warp)
        .chain(rec.spans.iter().map(|r| r.warp))
    {
        cta(&mut tracks, w.cta());
        tracks.insert((pid(w.sm), warp_tid(w)), TrackName::Warp(w.cta, w.warp));
    }
    for r in &rec.ops {
        cta(&mut tracks, r.cta);
    }
    for r in &rec.phases {
        cta(&mut tracks, r.cta);
    }
    for r in &rec.allocs {
        tracks.insert((pid(r.sm), alloc_tid(r.sm)), TrackName::Allocator);
    }

    let mut last_pid = None;
    for (&(p, tid), &name) in &tracks {
        if last_pid != Some(p) {
            last_pid = Some(p);
            let sm = p - 1;
            out.meta(p, p, "process_name", |w| {
                write_str(w, format_args!("SM {sm}"))
            })?;
            out.meta(p, p, "process_sort_index", |w| write!(w, "{p}"))?;
        }
        out.meta(p, tid, "thread_name", |w| match name {
            TrackName::Allocator => write_str(w, "TMEM allocator"),
            TrackName::Cta(c) => match ctaids.get(&c) {
                Some([x, y, z]) => write_str(w, format_args!("CTA {c} ({x},{y},{z})")),
                None => write_str(w, format_args!("CTA {c}")),
            },
            TrackName::Warp(c, wi) => write_str(w, format_args!("CTA {c} warp {wi}")),
        })?;
        out.meta(p, tid, "thread_sort_index", |w| write!(w, "{tid}"))?;
    }
    if rec.truncated().is_some() {
        out.meta(0, 0, "process_name", |w| write_str(w, "tmemu"))?;
    }
    Ok(())
}

fn blocked_name(b: Blocked) -> &'static str {
    match b {
        Blocked::Barrier { .. } => "bar.sync",
        Blocked::ClusterBarrier => "barrier.cluster.wait",
        Blocked::Mbarrier { .. } => "mbarrier.try_wait",
        Blocked::TmemAlloc { .. } => "tcgen05.alloc (blocked)",
    }
}

fn pipe_cat(p: Pipe) -> &'static str {
    match p {
        Pipe::TensorCore => "tensor_pipe",
        Pipe::Tma => "tma",
        Pipe::CpAsync => "cp_async",
    }
}

fn write_event<W: Write>(
    rec: &Recorder,
    out: &mut EventOut<W>,
    ts: Step,
    ev: Ev,
    end: Step,
) -> io::Result<()> {
    match ev {
        Ev::CtaBegin(i) | Ev::CtaEnd(i) => {
            let r = &rec.ctas[i as usize];
            let (p, t, c) = (pid(r.cta.sm), cta_tid(r.cta.cta), r.cta.cta);
            if let Ev::CtaBegin(_) = ev {
                out.head("B", format_args!("CTA {c}"), "cta", p, t, ts)?;
                out.args(&[("cta", Arg::U(c as u64)), ("ctaid", Arg::Dims(r.ctaid))])?;
            } else {
                out.head("E", format_args!("CTA {c}"), "cta", p, t, ts)?;
                out.args(&[("unfinished", Arg::B(r.end.is_none()))])?;
            }
        }
        Ev::WarpBegin(i) | Ev::WarpEnd(i) => {
            let r = &rec.warps[i as usize];
            let (p, t) = (pid(r.warp.sm), warp_tid(r.warp));
            let begin = matches!(ev, Ev::WarpBegin(_));
            let ph = if begin { "B" } else { "E" };
            out.head(ph, format_args!("warp {}", r.warp.warp), "warp", p, t, ts)?;
            if begin {
                out.args(&[
                    ("cta", Arg::U(r.warp.cta as u64)),
                    ("warp", Arg::U(r.warp.warp as u64)),
                ])?;
            } else {
                out.args(&[("unfinished", Arg::B(r.end.is_none()))])?;
            }
        }
        Ev::Span(i) => {
            let r = &rec.spans[i as usize];
            let (p, t) = (pid(r.warp.sm), warp_tid(r.warp));
            out.head("X", blocked_name(r.what), "wait", p, t, ts)?;
            write!(
                out.w,
                ",\"dur\":{}",
                r.end.unwrap_or(end).max(r.begin) - r.begin
            )?;
            let open = ("unfinished", Arg::B(r.end.is_none()));
            match r.what {
                Blocked::Barrier { id } => out.args(&[("barrier", Arg::U(id as u64)), open])?,
                Blocked::ClusterBarrier => out.args(&[open])?,
                Blocked::Mbarrier { addr, parity } => out.args(&[
                    ("mbarrier", Arg::Hex(addr as u64)),
                    ("parity", Arg::U(parity as u64)),
                    open,
                ])?,
                Blocked::TmemAlloc { cols } => out.args(&[("cols", Arg::U(cols as u64)), open])?,
            }
        }
        Ev::OpBegin(i) | Ev::OpEnd(i) => {
            let r = &rec.ops[i as usize];
            let (p, t) = (pid(r.cta.sm), cta_tid(r.cta.cta));
            let name = format_args!("{} (CTA {})", r.op.name, r.cta.cta);
            if let Ev::OpEnd(_) = ev {
                out.head("e", name, pipe_cat(r.pipe), p, t, ts)?;
                write!(out.w, ",\"id\":\"{i:#x}\"")?;
                out.args(&[("unfinished", Arg::B(r.complete.is_none()))])?;
            } else {
                out.head("b", name, pipe_cat(r.pipe), p, t, ts)?;
                write!(out.w, ",\"id\":\"{i:#x}\"")?;
                write_op_args(out, r.cta.cta, r.pipe, &r.op)?;
            }
        }
        Ev::Phase(i) => {
            let r = &rec.phases[i as usize];
            let (p, t) = (pid(r.cta.sm), cta_tid(r.cta.cta));
            let (addr, phase) = (r.addr, r.phase);
            out.head(
                "i",
                format_args!("mbarrier {addr:#x} phase {phase}"),
                "mbarrier",
                p,
                t,
                ts,
            )?;
            out.w.write_all(b",\"s\":\"t\"")?;
            out.args(&[
                ("mbarrier", Arg::Hex(addr as u64)),
                ("phase", Arg::U(phase as u64)),
            ])?;
            let c = r.cta.cta;
            out.head(
                "C",
                format_args!("mbarrier {addr:#x} (CTA {c})"),
                "mbarrier",
                p,
                t,
                ts,
            )?;
            out.args(&[("phase", Arg::U(phase as u64))])?;
        }
        Ev::AllocBegin(i) | Ev::AllocEnd(i) => {
            let r = &rec.allocs[i as usize];
            let p = pid(r.sm);
            if let Ev::AllocEnd(_) = ev {
                out.head("e", "TMEM alloc", "tmem", p, alloc_tid(r.sm), ts)?;
                write!(out.w, ",\"id\":\"{i:#x}\"")?;
                out.args(&[("leaked", Arg::B(r.end.is_none()))])?;
            } else {
                out.head("b", "TMEM alloc", "tmem", p, alloc_tid(r.sm), ts)?;
                write!(out.w, ",\"id\":\"{i:#x}\"")?;
                let cols = format!("{}..{}", r.col, r.col as u64 + r.cols as u64);
                let mut a = vec![
                    ("cta", Arg::U(r.cta as u64)),
                    ("col", Arg::U(r.col as u64)),
                    ("ncols", Arg::U(r.cols as u64)),
                    ("columns", Arg::S(&cols)),
                ];
                if let Some(o) = &r.origin {
                    a.push(("origin", Arg::S(o)));
                }
                out.args(&a)?;
            }
        }
        Ev::Truncated => {
            out.head("i", "trace truncated", "tmemu", 0, 0, ts)?;
            out.w.write_all(b",\"s\":\"g\"")?;
            let dropped = rec.truncated().map_or(0, |t| t.1);
            out.args(&[("dropped_records", Arg::U(dropped))])?;
        }
    }
    Ok(())
}

fn write_op_args<W: Write>(
    out: &mut EventOut<W>,
    cta: u32,
    pipe: Pipe,
    op: &crate::record::AsyncOp,
) -> io::Result<()> {
    let mut a: Vec<(&str, Arg<'_>)> = Vec::with_capacity(8);
    a.push(("op", Arg::S(op.name)));
    a.push(("cta", Arg::U(cta as u64)));
    a.push(("pipe", Arg::S(pipe.label())));
    if !op.kind.is_empty() {
        a.push(("kind", Arg::S(op.kind)));
    }
    match op.shape {
        crate::record::OpShape::None => {}
        crate::record::OpShape::Mnk(d) => a.push(("mnk", Arg::Dims(d))),
        crate::record::OpShape::Named(s) => a.push(("shape", Arg::S(s))),
    }
    if op.cta_group != 0 {
        a.push(("cta_group", Arg::U(op.cta_group as u64)));
    }
    if let Some(b) = op.bytes {
        a.push(("bytes", Arg::U(b)));
    }
    if let Some(s) = op.src {
        a.push(("src", Arg::Hex(s)));
    }
    if let Some(d) = op.dst {
        a.push(("dst", Arg::Hex(d)));
    }
    out.args(&a)
}

/// Writes one event object at a time: `head` opens it, `args` closes it.
struct EventOut<W: Write> {
    w: BufWriter<W>,
    first: bool,
}

impl<W: Write> EventOut<W> {
    fn head(
        &mut self,
        ph: &str,
        name: impl std::fmt::Display,
        cat: &str,
        pid: u64,
        tid: u64,
        ts: Step,
    ) -> io::Result<()> {
        self.sep()?;
        write!(self.w, "{{\"ph\":\"{ph}\",\"name\":")?;
        write_str(&mut self.w, name)?;
        self.w.write_all(b",\"cat\":")?;
        write_str(&mut self.w, cat)?;
        write!(self.w, ",\"pid\":{pid},\"tid\":{tid},\"ts\":{ts}")
    }

    fn args(&mut self, args: &[(&str, Arg<'_>)]) -> io::Result<()> {
        self.w.write_all(b",\"args\":")?;
        write_args(&mut self.w, args)?;
        self.w.write_all(b"}")
    }

    fn meta(
        &mut self,
        pid: u64,
        tid: u64,
        name: &str,
        value: impl FnOnce(&mut BufWriter<W>) -> io::Result<()>,
    ) -> io::Result<()> {
        self.sep()?;
        write!(
            self.w,
            "{{\"ph\":\"M\",\"name\":\"{name}\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\""
        )?;
        self.w.write_all(if name.ends_with("sort_index") {
            b"sort_index\":"
        } else {
            b"name\":"
        })?;
        value(&mut self.w)?;
        self.w.write_all(b"}}")
    }

    fn sep(&mut self) -> io::Result<()> {
        if self.first {
            self.first = false;
            Ok(())
        } else {
            self.w.write_all(b",\n")
        }
    }
}
