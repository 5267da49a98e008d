//! K fusion of `tcgen05.mma`: consecutive MMAs into the same accumulator are one GEMM with a
//! long K.
//!
//! A K loop issues, per stage, a few MMAs of K = 16 (f16) into one D. Executed one by one,
//! each is a 128×N×16 GEMM whose packing and decode dominate; fused, every 256 of the loop's K
//! are one 128×N×256 GEMM at native speed. Each MMA still *gathers* its operands (decodes A and B from
//! shared memory, applies block scales and the `.ws` zero-column mask) at its completion, as
//! the unfused path does, so a program that overwrites a stage after the MMA completed sees
//! exactly what it sees unfused; only the multiply-add into D is deferred: the decoded
//! operands are appended to a per-accumulator *panel* (A: M × K so far, B: N × K so far), and
//! the panel's one GEMM runs when D is next observed or changed in any other way
//! ([`Panels::flush_overlapping`], called from every TMEM access of the engine:
//! `tcgen05.ld/st/cp/shift`, an MMA reading TMEM columns or writing D differently, `dealloc`;
//! `TcState::tmem_mut` flushes everything of its SM, so a new TMEM reader cannot miss one),
//! when its K capacity of one [`BLOCK_K`] block is reached, or never when nothing reads D again (the cells are then
//! unobservable).
//!
//! ## What fuses
//! An MMA with an f32 accumulator and no disabled output lanes whose key (the group's SMs, the
//! D address, the raw instruction descriptor — so kind, types, negation, M, N, K, majorness —
//! `.cta_group`, `.ws`, the gather orders) equals the open panel's, with `enable-input-d` set
//! and `scale-input-d` = 0. `enable-input-d` = 0 with the same key restarts the panel (D is
//! wholly overwritten, so the old panel's product is dead); `scale-input-d` ≠ 0 flushes and
//! opens a new panel that applies the scale once, to the old D, as the first MMA of the
//! panel would. f16 accumulators round each instruction's sum to f16 and `.kind::i8`
//! saturates per instruction: those (and masked lanes) always execute one by one.
//!
//! ## Tolerance (why a fused result may differ from the unfused one in the last bits)
//! Unfused, each instruction's K partial sum (K = 8..64 products, each exact in f32: see
//! `tmemu_tmem::mma`) is rounded to f32 and then added to D with one more rounding. Fused,
//! the GEMM kernel sums a longer run of products in its own blocking before adding to D. Both
//! are f32 summations of the same exact products in different orders; each result is within
//! `(K_total + 1) · 2^-24 · Σ|products|` of the exact sum (the usual recursive-summation
//! bound), so the two differ by at most about twice that, a few ulps of Σ|products| per 16
//! terms. The ISA does not fix the tensor core's order or its intermediate precision (mma.md
//! §10), so neither order is more correct; sums of small integers are exact in both, which
//! the tests use to compare bit for bit.

use std::ops::Range;

use tmemu_tmem::desc::{AccumType, MmaKind};
use tmemu_tmem::mma::{accumulate_f32, DLayout, F32Gemm, GatherOrder, Strided};

use super::{Checked, MmaOp};

/// K of one panel block. Rows of a `RowsByK` panel as long as the whole K put every row of an
/// instruction's 16-element append on its own page (4 KiB apart for K = 1024): measured
/// (`mma_kinds`, f16, M = 128, N = 256, K = 1024) 265 µs of gathers against 172 µs with
/// 256-wide blocks, for the same GEMM time (one GEMM per block: 526 µs against 529 µs; the
/// GEMM kernel splits K in blocks of this size itself). 128 gathers as fast and 64 or 16
/// slow the GEMMs (597 and 859 µs).
const BLOCK_K: usize = 256;
/// Floats all open panels of an SM group may hold; above it every panel flushes.
const TOTAL_FLOATS: usize = 1 << 23;

/// What must be equal for an MMA to extend a panel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Key {
    /// Cluster ranks (= SMs of the group) of pair members 0 and 1 (both the issuer's for
    /// cta_group::1).
    ranks: [usize; 2],
    cta_group: u8,
    ws: bool,
    kind: MmaKind,
    idesc: u32,
    d_taddr: u32,
    a_order: GatherOrder,
    b_order: GatherOrder,
}

/// The TMEM cells (128 × 512, lane-major) of SM `rank` of the group, without flushing, for
/// an access to columns `cols` only (TMEM is zeroed lazily, column by column: `tmem_sm`).
pub trait RankCells {
    fn cells(&mut self, rank: usize, cols: Range<u32>) -> &mut [u32];
}

/// Decoded operands of a run of MMAs into one D, and how to apply them.
#[derive(Debug)]
struct Panel {
    key: Key,
    layout: DLayout,
    /// M of the instruction (both CTAs' rows for a pair), N, K per instruction.
    m: usize,
    n: usize,
    k_step: usize,
    /// D's TMEM columns on each member.
    cols: Range<u32>,
    negate: bool,
    /// What the panel's first MMA did with the old D: None = overwrote it
    /// (`enable-input-d` = 0), Some(sid) = added it scaled by 2^-sid.
    input_d: Option<u32>,
    /// K appended so far, and the capacity.
    kt: usize,
    kcap: usize,
    /// K per block (a multiple of `k_step`, at most [`BLOCK_K`]).
    kb: usize,
    /// A: `kcap / kb` blocks of m × kb (`RowsByK`, row stride kb) or kb × m (`KByRows`),
    /// block b at `b · m · kb`; B likewise with n.
    a: Vec<f32>,
    b: Vec<f32>,
    /// Where each operand starts in its buffer: the first 64-byte boundary, so that the GEMM's
    /// 16-float vector loads never straddle two cache lines (a split load costs two on Intel
    /// cores; the leading dimensions are multiples of 16 floats in the common shapes).
    a_off: usize,
    b_off: usize,
}

impl Panel {
    /// The panel's capacity in floats (what [`TOTAL_FLOATS`] bounds), whether or not its
    /// blocks have been reached yet.
    fn floats(&self) -> usize {
        (self.m + self.n) * self.kcap
    }

    /// Makes the block that K position `kt` falls in exist in both buffers, zero-filled the
    /// first time (a buffer's first fill is its pages' first touch: page faults on every
    /// worker thread, perf.md session 9). The capacity is reserved at open, so growing never
    /// moves the buffers. (A panel is one block since session 12; blocks are kept general so
    /// a capacity of several blocks stays a one-line change.)
    fn reach(&mut self, kt: usize) {
        let blocks = kt / self.kb + 1;
        for (buf, rows, off) in [
            (&mut self.a, self.m, self.a_off),
            (&mut self.b, self.n, self.b_off),
        ] {
            let len = off + blocks * rows * self.kb;
            if buf.len() < len {
                // a new block is written whole by the gathers: its pages are faulted in with one
                // call (~64 pages for a 128 x 128 f16 tile, each thread's first panels)
                let more = len - buf.len();
                buf.reserve(more);
                tmemu_pages::prefault_for_write(&mut buf.spare_capacity_mut()[..more]);
                buf.resize(len, 0.0);
            }
        }
    }

    /// (offset of element (0, kt) in its buffer, leading dimension) of operand A (`b` false)
    /// or B.
    fn place(&self, b: bool, kt: usize) -> (usize, usize) {
        let (order, rows, off) = match b {
            false => (self.key.a_order, self.m, self.a_off),
            true => (self.key.b_order, self.n, self.b_off),
        };
        let (at, ld) = p_place(self.kb, order, rows, kt);
        (off + at, ld)
    }

    fn touches(&self, rank: usize, cols: &Range<u32>) -> bool {
        let ranks = &self.key.ranks[..self.key.cta_group as usize];
        ranks.contains(&rank) && self.cols.start < cols.end && cols.start < self.cols.end
    }

    /// Runs the panel's GEMM into D on every member and empties it (D now holds the old D
    /// combined with the product; further MMAs accumulate).
    fn flush(&mut self, grid: &mut dyn RankCells) {
        if self.kt == 0 {
            return;
        }
        let ld = |o: GatherOrder, rows: usize| match o {
            GatherOrder::RowsByK => self.kb,
            GatherOrder::KByRows => rows,
        };
        let mut input_d = self.input_d;
        for blk in 0..self.kt.div_ceil(self.kb) {
            let k = self.kb.min(self.kt - blk * self.kb);
            let g = F32Gemm {
                layout: self.layout,
                n: self.n,
                k,
                a: Strided {
                    data: &self.a[self.a_off + blk * self.m * self.kb..],
                    order: self.key.a_order,
                    ld: ld(self.key.a_order, self.m),
                },
                b: Strided {
                    data: &self.b[self.b_off + blk * self.n * self.kb..],
                    order: self.key.b_order,
                    ld: ld(self.key.b_order, self.n),
                },
                negate: self.negate,
                input_d,
            };
            for v in 0..self.key.cta_group as usize {
                let cells = grid.cells(self.key.ranks[v], self.cols.clone());
                // Lane field and columns were checked when the panel opened
                // (`Panels::reserve`).
                accumulate_f32(&g, v as u32, self.key.d_taddr, cells)
                    .expect("panel extent checked at open");
            }
            input_d = Some(0);
        }
        self.kt = 0;
        self.input_d = Some(0);
    }
}

/// [`Panel::place`] for block width `kb`.
fn p_place(kb: usize, order: GatherOrder, rows: usize, kt: usize) -> (usize, usize) {
    let block = kt / kb * rows * kb;
    match order {
        GatherOrder::RowsByK => (block + kt % kb, kb),
        GatherOrder::KByRows => (block + kt % kb * rows, rows),
    }
}

/// Copies an unstrided `rows × k` operand in `order` into `dst` with leading dimension `ld`.
fn copy_strided(
    dst: &mut [f32],
    ld: usize,
    src: &[f32],
    order: GatherOrder,
    rows: usize,
    k: usize,
) {
    match order {
        GatherOrder::RowsByK => {
            for (r, s) in src[..rows * k].chunks_exact(k).enumerate() {
                dst[r * ld..r * ld + k].copy_from_slice(s);
            }
        }
        GatherOrder::KByRows => {
            for (kk, s) in src[..k * rows].chunks_exact(rows).enumerate() {
                dst[kk * ld..kk * ld + rows].copy_from_slice(s);
            }
        }
    }
}

/// The open panels of one SM group (a field of `TcState`).
#[derive(Debug)]
pub struct Panels {
    /// Off: every MMA executes alone (`RunOptions::mma_fusion`).
    pub enabled: bool,
    open: Vec<Panel>,
    /// Emptied panels kept for their buffers.
    spare: Vec<Panel>,
    floats: usize,
    /// MMAs appended to a panel, and GEMMs run by flushes (for tests and `--stats`-style
    /// figures).
    pub fused: u64,
    pub flushes: u64,
}

impl Default for Panels {
    fn default() -> Self {
        Panels {
            enabled: true,
            open: Vec::new(),
            spare: Vec::new(),
            floats: 0,
            fused: 0,
            flushes: 0,
        }
    }
}

/// Panel buffers at most kept per thread between SM groups.
const SPARE_KEPT: usize = 8;

thread_local! {
    /// Panel buffers (A, B) of finished SM groups of this thread: a group (one CTA of a
    /// grid-sized launch) opening its panel reuses them instead of zero-filling 2 MiB anew
    /// (≈ 200 000 host instructions per CTA, perf.md session 6).
    static SPARE_BUFFERS: std::cell::RefCell<Vec<(Vec<f32>, Vec<f32>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Panels {
    fn drop(&mut self) {
        // A panel still open here was never observed (its cells died with the group).
        let bufs = self.open.drain(..).chain(self.spare.drain(..));
        let bufs: Vec<_> = bufs.map(|p| (p.a, p.b)).collect();
        // (try_with: a thread being torn down keeps nothing)
        let _ = SPARE_BUFFERS.try_with(|s| {
            let mut s = s.borrow_mut();
            for b in bufs {
                if s.len() < SPARE_KEPT {
                    s.push(b);
                }
            }
        });
    }
}

/// Why an MMA cannot join a panel: it executes alone (after the panels it touches flush).
pub(super) fn fusable(op: &MmaOp, c: &Checked) -> bool {
    c.idesc.d_type == AccumType::F32 && op.dol.iter().all(|&w| w == 0)
}

impl Panels {
    /// Whether any panel is open (the cheap test every TMEM access makes first).
    #[inline]
    pub fn any(&self) -> bool {
        !self.open.is_empty()
    }

    /// Flushes every open panel whose D lies on SM `rank` and overlaps `cols`.
    /// `grid(rank)` gives that SM's cells.
    pub fn flush_overlapping(&mut self, rank: usize, cols: Range<u32>, grid: &mut dyn RankCells) {
        let mut i = 0;
        while i < self.open.len() {
            if self.open[i].touches(rank, &cols) {
                self.close(i, grid);
            } else {
                i += 1;
            }
        }
    }

    /// Flushes every open panel.
    pub fn flush_all(&mut self, grid: &mut dyn RankCells) {
        while !self.open.is_empty() {
            self.close(self.open.len() - 1, grid);
        }
    }

    fn close(&mut self, i: usize, grid: &mut dyn RankCells) {
        let mut p = self.open.swap_remove(i);
        if p.kt > 0 {
            self.flushes += 1;
        }
        p.flush(grid);
        self.floats -= p.floats();
        self.spare.push(p);
    }

    /// Makes room for a fusable MMA in its panel and returns the panel's index: flushes
    /// the panels its D overlaps under another key, and its own when it scales D or is
    /// full. The MMA's operands then go to [`Panels::slot`] and [`Panels::commit`] accounts
    /// for them; until then nothing observable has changed but flushes (always exact), so
    /// an MMA whose gather fails has no effect. None (after those flushes) when D's extent
    /// is out of range: the caller executes it alone, which reports the error.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reserve(
        &mut self,
        op: &MmaOp,
        c: &Checked,
        ranks: [usize; 2],
        a_order: GatherOrder,
        b_order: GatherOrder,
        grid: &mut dyn RankCells,
    ) -> Option<usize> {
        let key = Key {
            ranks,
            cta_group: op.cta_group,
            ws: op.ws,
            kind: op.kind,
            idesc: op.idesc,
            d_taddr: op.d_taddr,
            a_order,
            b_order,
        };
        let c0 = op.d_taddr & 0xFFFF;
        let cols = c0..c0 + c.d_cols;
        let nctas = op.cta_group as usize;
        // Other accumulators overlapping this D flush; ours (same key) stays.
        let mut i = 0;
        while i < self.open.len() {
            let p = &self.open[i];
            let overlaps = ranks[..nctas].iter().any(|&r| p.touches(r, &cols));
            if overlaps && p.key != key {
                self.close(i, grid);
            } else {
                i += 1;
            }
        }
        if cols.end > 512 || c.layout.check_lane(op.d_taddr >> 16).is_err() {
            return None;
        }
        let k = c.idesc.k() as usize;
        Some(match self.open.iter().position(|p| p.key == key) {
            Some(i) if op.enable_d && op.sid != 0 => {
                // D·2^-sid applies to the D the panel has built: materialise it first.
                self.close(i, grid);
                self.open(key, c, op, k)
            }
            Some(i) => {
                // (an MMA with enable-input-d = 0 is written after the panel's K and moved
                // to its start at commit, so a failed gather leaves the panel intact)
                if self.open[i].kt + k > self.open[i].kcap {
                    self.flushes += 1;
                    self.open[i].flush(grid);
                }
                i
            }
            None => self.open(key, c, op, k),
        })
    }

    /// Where panel `idx`'s next instruction goes: (A, its leading dimension, B, its leading
    /// dimension), each starting at the instruction's element (0, 0); rows of A are the
    /// instruction's M (both CTAs' for a pair), of B its N.
    pub(super) fn slot(&mut self, idx: usize) -> (&mut [f32], usize, &mut [f32], usize) {
        let p = &mut self.open[idx];
        p.reach(p.kt);
        let (a0, lda) = p.place(false, p.kt);
        let (b0, ldb) = p.place(true, p.kt);
        (&mut p.a[a0..], lda, &mut p.b[b0..], ldb)
    }

    /// Accounts for the instruction written to [`Panels::slot`]: K grows, or with
    /// `enable-input-d` = 0 the instruction becomes the panel's first (D = A·B overwrites
    /// every cell the panel would write, so the earlier product is dead).
    pub(super) fn commit(&mut self, idx: usize, op: &MmaOp, grid: &mut dyn RankCells) {
        let p = &mut self.open[idx];
        let k = p.k_step;
        if !op.enable_d && p.kt > 0 {
            // the instruction was written at K = kt: move it to K = 0
            let kt = p.kt;
            for (buf, order, rows, off) in [
                (&mut p.a, p.key.a_order, p.m, p.a_off),
                (&mut p.b, p.key.b_order, p.n, p.b_off),
            ] {
                let (from, ld) = p_place(p.kb, order, rows, kt);
                let from = off + from;
                match order {
                    GatherOrder::RowsByK => {
                        for r in 0..rows {
                            buf.copy_within(from + r * ld..from + r * ld + k, off + r * ld);
                        }
                    }
                    GatherOrder::KByRows => buf.copy_within(from..from + k * rows, off),
                }
            }
            p.kt = 0;
        }
        if !op.enable_d {
            p.input_d = None;
        }
        p.kt += k;
        self.fused += 1;
        if self.floats > TOTAL_FLOATS {
            self.flush_all(grid);
        }
    }

    /// Adds a fusable MMA whose operands are already gathered into `a` and `b` (unstrided,
    /// in the orders `a_order`, `b_order`): [`Panels::reserve`], a copy, [`Panels::commit`].
    /// False when it must execute alone (see `reserve`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn append(
        &mut self,
        op: &MmaOp,
        c: &Checked,
        ranks: [usize; 2],
        a_order: GatherOrder,
        b_order: GatherOrder,
        a: &[f32],
        b: &[f32],
        grid: &mut dyn RankCells,
    ) -> bool {
        let Some(idx) = self.reserve(op, c, ranks, a_order, b_order, grid) else {
            return false;
        };
        let (m, n, k) = {
            let p = &self.open[idx];
            (p.m, p.n, p.k_step)
        };
        let (da, lda, db, ldb) = self.slot(idx);
        copy_strided(da, lda, a, a_order, m, k);
        copy_strided(db, ldb, b, b_order, n, k);
        self.commit(idx, op, grid);
        true
    }

    /// Opens an empty panel for `key` (the MMA `op` will be its first).
    fn open(&mut self, key: Key, c: &Checked, op: &MmaOp, k: usize) -> usize {
        let (m, n) = (c.idesc.m as usize, c.idesc.n as usize);
        let kb = (BLOCK_K / k).max(1) * k;
        // One block: a full block is multiplied into D at once (`reserve`) and the block's
        // buffers take the next K. The GEMMs are the ones a longer panel would run block by
        // block at its flush, in the same order on the same operands, so D gets the same
        // bits; but each block is multiplied while its gathers are still in cache, and a
        // thread's panels stay at (M + N) · 256 floats instead of growing with the loop's K
        // (1 MiB per CTA for 128×128×1024, perf.md session 12: with a 2 MiB last-level cache
        // a third of the misses).
        let kcap = kb;
        let c0 = op.d_taddr & 0xFFFF;
        let mut p = self.spare.pop().unwrap_or_else(|| {
            // buffers of an earlier SM group's panels (their stale values are never read)
            let (a, b) = SPARE_BUFFERS
                .with(|s| s.borrow_mut().pop())
                .unwrap_or_default();
            Panel {
                key,
                layout: c.layout,
                m: 0,
                n: 0,
                k_step: 0,
                cols: 0..0,
                negate: false,
                input_d: None,
                kt: 0,
                kcap: 0,
                kb: 0,
                a,
                b,
                a_off: 0,
                b_off: 0,
            }
        });
        p.key = key;
        p.layout = c.layout;
        (p.m, p.n, p.k_step, p.kb, p.kcap, p.kt) = (m, n, k, kb, kcap, 0);
        p.cols = c0..c0 + c.d_cols;
        p.negate = c.idesc.negate_a != c.idesc.negate_b;
        p.input_d = op.enable_d.then_some(op.sid);
        // Stale values beyond kt are never read; blocks are added as K reaches them
        // (`Panel::reach`), within this reserved capacity.
        // (16 floats more: room to start at a 64-byte boundary)
        p.a.truncate(m * kcap + 16);
        p.b.truncate(n * kcap + 16);
        p.a.reserve(m * kcap + 16 - p.a.len());
        p.b.reserve(n * kcap + 16 - p.b.len());
        p.a_off = p.a.as_ptr().align_offset(64);
        p.b_off = p.b.as_ptr().align_offset(64);
        self.floats += p.floats();
        self.open.push(p);
        self.open.len() - 1
    }
}
