//! The tensor memory accelerator in the engine: `cp.async.bulk.tensor` (loads with
//! `.mbarrier::complete_tx::bytes`, `.multicast::cluster`, `.cta_group::2`; stores),
//! `cp.reduce.async.bulk.tensor`, `cp.async.bulk.prefetch.tensor`, `tensormap.replace` and
//! `tensormap.cp_fenceproxy`.
//!
//! The copy model (which bytes go where, swizzles, out-of-bounds fill, the rules TM0120–TM0128)
//! is `tmemu_tma`; this module reads the tensor map where the instruction says it is, resolves
//! shared-memory and mbarrier addresses, and applies the copy. Copies complete at issue (the
//! `immediate` policy, as for the non-tensor `cp.async.bulk` in `memory.rs`): the bytes land and
//! the complete-tx reaches the mbarrier before the next instruction, so `bulk_group`
//! commit/wait are markers.

use tmemu_spec::tensormap::{TensorMapDesc, TENSOR_MAP_BYTES};
use tmemu_tma::{
    check_mbarrier, multicast_targets, CtaGroup, GlobalFault, ReduceOp, ReplaceField, TileBox,
    TmaError,
};

use super::memory::{fault, lane_addr, resolve, Loc};
use super::{sync, Ctx, Flow, Warp};
use crate::error::Rule;
use crate::mem::{GlobalMemory, MemFault};
use crate::observer::{AccessKind, AsyncId, MemSpace, Observer, OpKind, Place, SyncKey};
use crate::program::{Addr, Any, Space, S32};

/// One decoded tensor copy.
#[derive(Clone, Debug)]
pub struct TmaInst {
    pub op: TmaOp,
    /// Where the 128-byte tensor map is: `map_space` is `Param`/`Const`/`Global` for a variable
    /// named directly, `Generic` for an address in a register.
    pub map: Addr,
    pub map_space: Space,
    /// One coordinate per dimension, innermost first.
    pub coords: Vec<S32>,
    pub group: CtaGroup,
    /// `.im2col` (loads, prefetch): one 16-bit offset per spatial dimension;
    /// `.im2col_no_offs` (stores, reductions): empty, read as zeros; `None` for `.tile`.
    pub im2col: Option<Vec<S32>>,
    /// `.tile::gather4` / `.tile::scatter4`: `coords` is `{col, row0, row1, row2, row3}`.
    pub rows4: bool,
}

#[derive(Clone, Debug)]
pub enum TmaOp {
    /// global → shared (`.shared::cta` or `.shared::cluster` destination).
    Load {
        dst: Addr,
        dst_space: Space,
        mbar: Addr,
        /// `.multicast::cluster` ctaMask operand.
        multicast: Option<S32>,
    },
    /// shared::cta → global (`.bulk_group`).
    Store { src: Addr },
    /// `cp.reduce.async.bulk.tensor`: global = global op shared.
    Reduce { op: ReduceOp, src: Addr },
    /// `cp.async.bulk.prefetch.tensor`: checks the map and box, moves nothing.
    Prefetch,
}

#[derive(Clone, Debug)]
pub enum TensormapInst {
    /// `tensormap.replace`: one field of the map at `addr` (in `space`).
    Replace {
        field: ReplaceField,
        addr: Addr,
        space: Space,
        value: Any,
    },
    /// `tensormap.cp_fenceproxy`: copy `size` bytes of a map from shared to global memory (the
    /// proxy fence orders nothing further in a sequential interpreter).
    CpFence { dst: Addr, src: Addr, size: u32 },
}

/// Why one lane's copy failed.
enum Fail {
    Mem(MemFault, Space),
    Tma(TmaError),
}

impl From<MemFault> for Fail {
    fn from(f: MemFault) -> Self {
        Fail::Mem(f, Space::Generic)
    }
}

impl From<TmaError> for Fail {
    fn from(e: TmaError) -> Self {
        Fail::Tma(e)
    }
}

/// The engine's global memory as `tmemu_tma` sees it: byte ranges, read in naturally aligned
/// 8-byte words where possible.
pub(crate) struct Global<'a>(pub &'a GlobalMemory);

impl tmemu_tma::GlobalMemory for Global<'_> {
    fn read(&self, addr: u64, out: &mut [u8]) -> Result<(), GlobalFault> {
        let fault = GlobalFault {
            addr,
            len: out.len() as u64,
        };
        let mut i = 0;
        while i < out.len() {
            let a = addr + i as u64;
            if a.is_multiple_of(8) && out.len() - i >= 8 {
                let v = self.0.load(a, 8).map_err(|_| fault)?;
                out[i..i + 8].copy_from_slice(&v.to_le_bytes());
                i += 8;
            } else {
                out[i] = self.0.load(a, 1).map_err(|_| fault)? as u8;
                i += 1;
            }
        }
        Ok(())
    }

    fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), GlobalFault> {
        let fault = GlobalFault {
            addr,
            len: data.len() as u64,
        };
        let mut i = 0;
        while i < data.len() {
            let a = addr + i as u64;
            if a.is_multiple_of(8) && data.len() - i >= 8 {
                let v = u64::from_le_bytes(data[i..i + 8].try_into().unwrap());
                self.0.store(a, 8, v).map_err(|_| fault)?;
                i += 8;
            } else {
                self.0.store(a, 1, u64::from(data[i])).map_err(|_| fault)?;
                i += 1;
            }
        }
        Ok(())
    }

    /// One atomic read-modify-write per element: CTAs on other worker threads may reduce
    /// into the same elements at the same time (split-K partial tiles meeting through a TMA
    /// reduce-add lost updates before this).
    fn reduce(
        &mut self,
        addr: u64,
        elem: usize,
        add: &[u8],
        apply: &dyn Fn(&mut [u8], &[u8]),
    ) -> Result<(), GlobalFault> {
        let fault = GlobalFault {
            addr,
            len: add.len() as u64,
        };
        for (i, src) in add.chunks(elem).enumerate() {
            let a = addr + (i * elem) as u64;
            self.0
                .rmw(a, elem as u32, |old| {
                    let mut cur = old.to_le_bytes();
                    apply(&mut cur[..elem], src);
                    u64::from_le_bytes(cur)
                })
                .map_err(|_| fault)?;
        }
        Ok(())
    }
}

/// The 128 bytes at a resolved location (tensor maps live in param, const or global memory;
/// `tensormap.replace` also edits them in shared memory).
fn read_bytes<O: Observer>(cx: &Ctx<'_, '_, O>, loc: Loc, out: &mut [u8]) -> Result<(), MemFault> {
    let n = out.len() as u64;
    let mut slice = |mem: &[u8], space: &'static str, off: u64| -> Result<(), MemFault> {
        let end = off.checked_add(n).filter(|&e| e <= mem.len() as u64);
        match end {
            Some(e) => {
                out.copy_from_slice(&mem[off as usize..e as usize]);
                Ok(())
            }
            None => Err(MemFault::OutOfBounds {
                space,
                addr: off,
                size: n as u32,
                nearest: crate::mem::Nearest::None,
            }),
        }
    };
    match loc {
        Loc::Param(off) => slice(cx.env.params, "param", off),
        Loc::Const(off) => slice(&cx.env.k.const_image, "const", off),
        Loc::Shared(c, off) => slice(&cx.ctas[c].shared, "shared", u64::from(off)),
        Loc::Global(a) => {
            tmemu_tma::GlobalMemory::read(&Global(cx.env.global), a, out).map_err(|g| {
                MemFault::OutOfBounds {
                    space: "global",
                    addr: g.addr,
                    size: g.len as u32,
                    nearest: crate::mem::Nearest::None,
                }
            })
        }
        Loc::Local(a) => Err(MemFault::ReadOnly {
            space: "local (a tensor map must be in param, const or global memory)",
            addr: a,
        }),
    }
}

fn read_map<O: Observer>(
    w: &Warp,
    cx: &Ctx<'_, '_, O>,
    l: usize,
    i: &TmaInst,
) -> Result<TensorMapDesc, Fail> {
    let loc = resolve(cx, i.map_space, lane_addr(w, i.map, l))?;
    if let Loc::Shared(..) = loc {
        return Err(Fail::Mem(
            MemFault::ReadOnly {
                space: "shared (a tensor map must be in param, const or global memory)",
                addr: lane_addr(w, i.map, l),
            },
            i.map_space,
        ));
    }
    let mut b = [0u8; TENSOR_MAP_BYTES];
    read_bytes(cx, loc, &mut b).map_err(|f| Fail::Mem(f, i.map_space))?;
    // The encoder rules are checked by the copy's decode (`TileBox::new*`), which reports the
    // specific rule (TM0122 for a box wider than the swizzle span) before the generic TM0123.
    Ok(TensorMapDesc::decode_unvalidated(&b).map_err(TmaError::Map)?)
}

fn coords(w: &Warp, l: usize, i: &TmaInst) -> ([i32; 5], usize) {
    let mut c = [0i32; 5];
    for (k, s) in i.coords.iter().enumerate().take(5) {
        c[k] = w.get(*s)[l] as i32;
    }
    (c, i.coords.len())
}

/// The copy decoded for lane `l`: a tile box, or an im2col box with the lane's offsets
/// (`.im2col_no_offs`: zeros), checked against TM0129 and (stores, reductions) TM0130.
fn decode_box(
    w: &Warp,
    l: usize,
    i: &TmaInst,
    desc: &TensorMapDesc,
    coords: &[i32],
    smem: u32,
) -> Result<TileBox, TmaError> {
    let b = match &i.im2col {
        None if i.rows4 => TileBox::new_gather4(desc, coords, smem),
        None => TileBox::new(desc, coords, smem),
        Some(offs) => {
            let spatial = usize::from(desc.rank).saturating_sub(2).min(3);
            let mut o = [0i16; 3];
            for (k, s) in offs.iter().enumerate().take(3) {
                o[k] = w.get(*s)[l] as u16 as i16;
            }
            // `.im2col_no_offs` has no operand: as many zero offsets as the map needs.
            let n = if offs.is_empty() { spatial } else { offs.len() };
            TileBox::new_im2col(desc, coords, &o[..n], smem)
        }
    }?;
    // The rules the hardware enforces on the copy as a whole (recorded on an H100).
    b.check_start_alignment()?;
    if matches!(i.op, TmaOp::Store { .. } | TmaOp::Reduce { .. }) {
        b.check_store()?;
    }
    Ok(b)
}

fn shared_of(loc: Loc) -> (usize, u32) {
    match loc {
        Loc::Shared(c, off) => (c, off),
        _ => unreachable!("shared-space resolution gives a shared location"),
    }
}

/// Tells the observer about a bulk tensor op: its shared-memory extent in CTA `cta` and, when
/// the observer wants memory events, every global run of the box.
fn observe_box<O: Observer>(
    cx: &mut Ctx<'_, '_, O>,
    id: AsyncId,
    b: &TileBox,
    cta: usize,
    smem_kind: AccessKind,
    global_kind: AccessKind,
) {
    let (start, end) = b.smem_extent();
    let place = Place::Mem {
        space: MemSpace::Shared { cta: cta as u32 },
        addr: start,
        len: end - start,
    };
    cx.obs.async_access(id, place, smem_kind);
    if cx.obs.wants_memory() {
        let obs = &mut *cx.obs;
        b.for_each_run(|r| {
            if let Some(g) = r.global {
                let place = Place::Mem {
                    space: MemSpace::Global,
                    addr: g,
                    len: u64::from(r.len),
                };
                obs.async_access(id, place, global_kind);
            }
        });
    }
}

/// TM0233: a tensor copy's shared bytes in CTA `cta` written over a still-valid mbarrier.
/// One compare when the box's extent misses the span of the valid mbarriers;
/// otherwise the pieces the copy wrote are looked at (a swizzled box with rows narrower than
/// the swizzle span leaves gaps, which may hold a barrier).
#[inline(always)]
fn guard_box<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, l: usize, b: &TileBox, cta: usize) {
    let (start, end) = b.smem_extent();
    if sync::mbar_span_meets(cx, cta, start as u32, (end - start) as u32) {
        box_over_mbar(w, cx, l, b, cta);
    }
}

#[cold]
#[inline(never)]
fn box_over_mbar<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    l: usize,
    b: &TileBox,
    cta: usize,
) {
    let mut hit = None;
    b.for_each_piece(|p| {
        if hit.is_none() {
            hit = sync::valid_mbar_in(cx, cta, p.smem, p.len).map(|o| (p.smem, p.len, o));
        }
    });
    if let Some((off, len, o)) = hit {
        sync::report_overwrite(w, cx, "tensor-copy write", 1 << l, cta, off, len, o);
    }
}

fn issue<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, l: usize) -> AsyncId {
    let id = cx.tc.async_id();
    let at = cx.at(w, 1 << l);
    cx.obs.async_issue(at, id, OpKind::Bulk);
    id
}

fn one<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, l: usize, i: &TmaInst) -> Result<(), Fail> {
    let desc = read_map(w, cx, l, i)?;
    let (c, n) = coords(w, l, i);
    let global = cx.env.global;
    match i.op {
        TmaOp::Load {
            dst,
            dst_space,
            mbar,
            multicast,
        } => {
            let (dcta, doff) = shared_of(
                resolve(cx, dst_space, lane_addr(w, dst, l))
                    .map_err(|f| Fail::Mem(f, dst_space))?,
            );
            let (mcta, moff) = shared_of(
                resolve(cx, Space::SharedCluster, lane_addr(w, mbar, l))
                    .map_err(|f| Fail::Mem(f, Space::SharedCluster))?,
            );
            check_mbarrier(moff)?;
            let b = decode_box(w, l, i, &desc, &c[..n], doff)?;
            let tx = b.box_bytes() as i64;
            match multicast {
                None => {
                    b.check_smem(cx.ctas[dcta].shared.len())?;
                    // A copy that faults (TM0127) is reported, never observed as issued: its
                    // completion never comes, and a race on its bytes would only echo the fault.
                    tmemu_tma::load(&b, &Global(global), &mut cx.ctas[dcta].shared)?;
                    guard_box(w, cx, l, &b, dcta);
                    let id = issue(w, cx, l);
                    observe_box(cx, id, &b, dcta, AccessKind::Write, AccessKind::Read);
                    cx.obs.async_complete(id, cx.out.warp_instructions);
                    let key = SyncKey::Mbarrier {
                        cta: mcta as u32,
                        offset: moff,
                    };
                    cx.obs.async_arrive(id, key);
                    sync::complete_tx(w, cx, mcta, moff, tx);
                }
                Some(m) => {
                    let mask = w.get(m)[l] as u16;
                    let nctas = cx.ctas.len() as u32;
                    let mut targets = [(0u32, 0u32); 16];
                    let mut count = 0;
                    for t in multicast_targets(mask, nctas, mcta as u32, i.group)? {
                        targets[count] = (t.cta_rank, t.mbar_rank);
                        count += 1;
                    }
                    let targets = &targets[..count];
                    // Every destination is checked before any byte moves.
                    for &(cta_rank, mbar_rank) in targets {
                        if cta_rank >= nctas || mbar_rank >= nctas {
                            return Err(TmaError::MulticastMask {
                                mask,
                                cluster_size: nctas,
                            }
                            .into());
                        }
                        b.check_smem(cx.ctas[cta_rank as usize].shared.len())?;
                    }
                    for &(cta_rank, _) in targets {
                        tmemu_tma::load(
                            &b,
                            &Global(global),
                            &mut cx.ctas[cta_rank as usize].shared,
                        )?;
                        guard_box(w, cx, l, &b, cta_rank as usize);
                    }
                    let id = issue(w, cx, l);
                    for &(cta_rank, _) in targets {
                        let at = cta_rank as usize;
                        observe_box(cx, id, &b, at, AccessKind::Write, AccessKind::Read);
                    }
                    cx.obs.async_complete(id, cx.out.warp_instructions);
                    for &(_, mbar_rank) in targets {
                        let key = SyncKey::Mbarrier {
                            cta: mbar_rank,
                            offset: moff,
                        };
                        cx.obs.async_arrive(id, key);
                        sync::complete_tx(w, cx, mbar_rank as usize, moff, tx);
                    }
                }
            }
        }
        TmaOp::Store { src } => {
            let (scta, soff) = shared_of(
                resolve(cx, Space::Shared, lane_addr(w, src, l))
                    .map_err(|f| Fail::Mem(f, Space::Shared))?,
            );
            let b = decode_box(w, l, i, &desc, &c[..n], soff)?;
            b.check_smem(cx.ctas[scta].shared.len())?;
            tmemu_tma::store(&b, &cx.ctas[scta].shared, &mut Global(global))?;
            let id = issue(w, cx, l);
            observe_box(cx, id, &b, scta, AccessKind::Read, AccessKind::Write);
            complete_observed(w, cx, l, id);
        }
        TmaOp::Reduce { op, src } => {
            let (scta, soff) = shared_of(
                resolve(cx, Space::Shared, lane_addr(w, src, l))
                    .map_err(|f| Fail::Mem(f, Space::Shared))?,
            );
            op.check(desc.elem_type)?;
            let b = decode_box(w, l, i, &desc, &c[..n], soff)?;
            b.check_smem(cx.ctas[scta].shared.len())?;
            tmemu_tma::reduce(
                &b,
                op,
                desc.elem_type,
                &cx.ctas[scta].shared,
                &mut Global(global),
            )?;
            let id = issue(w, cx, l);
            observe_box(cx, id, &b, scta, AccessKind::Read, AccessKind::Write);
            complete_observed(w, cx, l, id);
        }
        TmaOp::Prefetch => {
            // A prefetch has no visible effect, but its operands must still be legal. A box
            // needs a shared address only for the alignment rule; 0 is aligned.
            decode_box(w, l, i, &desc, &c[..n], 0)?;
        }
    }
    Ok(())
}

/// A store or reduction completes at issue in the engine; it joins the warp's open bulk
/// async-group, whose `cp.async.bulk.wait_group{.read}` is where the program observes it.
fn complete_observed<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, l: usize, id: AsyncId) {
    cx.obs.async_complete(id, cx.out.warp_instructions);
    let at = cx.at(w, 1 << l);
    cx.obs.bulk_group_add(at, id);
}

/// The rule handle of a catalogued ID.
fn rule(id: &str) -> Rule {
    let r = tmemu_tmem::rules::lookup(id).expect("TMA rule IDs are catalogued");
    Rule {
        id: r.id,
        name: r.name,
    }
}

#[cold]
fn report<O: Observer>(w: &Warp, cx: &mut Ctx<'_, '_, O>, l: usize, f: Fail, what: &str) {
    match f {
        Fail::Mem(m, space) => fault(w, cx, 1 << l, l, m, space),
        Fail::Tma(e) => {
            // A form tmemu does not model is a tmemu limit (TM0511): the run ends incomplete.
            let id = e.rule_id().unwrap_or(tmemu_tmem::rules::UNMODELLED_FORM.id);
            let msg = match e.rule_id() {
                Some(_) => format!("{what} (lane {l}): {e}"),
                // A form tmemu does not model: never a clean run.
                None => format!("{what} (lane {l}): {e}; tmemu cannot run it"),
            };
            cx.diag(w, w.cur_pc, 1 << l, rule(id), msg);
        }
    }
}

pub(super) fn exec<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &TmaInst,
) -> Flow {
    let what = match i.op {
        TmaOp::Load { .. } => "tensor load",
        TmaOp::Store { .. } => "tensor store",
        TmaOp::Reduce { .. } => "tensor reduction",
        TmaOp::Prefetch => "tensor prefetch",
    };
    for l in 0..32 {
        if mask >> l & 1 != 0 {
            if let Err(f) = one(w, cx, l, i) {
                report(w, cx, l, f, what);
            }
        }
    }
    Flow::Next
}

fn write_bytes<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    l: usize,
    loc: Loc,
    data: &[u8],
) -> Result<(), MemFault> {
    match loc {
        Loc::Shared(c, off) => {
            let mem = &mut cx.ctas[c].shared;
            let end = (off as usize)
                .checked_add(data.len())
                .filter(|&e| e <= mem.len());
            match end {
                Some(e) => {
                    mem[off as usize..e].copy_from_slice(data);
                    Ok(())
                }
                None => Err(MemFault::OutOfBounds {
                    space: "shared",
                    addr: u64::from(off),
                    size: data.len() as u32,
                    nearest: crate::mem::Nearest::None,
                }),
            }
        }
        Loc::Global(a) => tmemu_tma::GlobalMemory::write(&mut Global(cx.env.global), a, data)
            .map_err(|g| MemFault::OutOfBounds {
                space: "global",
                addr: g.addr,
                size: g.len as u32,
                nearest: crate::mem::Nearest::None,
            }),
        other => {
            let _ = (w, l);
            Err(MemFault::ReadOnly {
                space: "param/const/local",
                addr: match other {
                    Loc::Param(a) | Loc::Const(a) | Loc::Local(a) => a,
                    _ => 0,
                },
            })
        }
    }
}

pub(super) fn exec_tensormap<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &TensormapInst,
) -> Flow {
    for l in 0..32 {
        if mask >> l & 1 == 0 {
            continue;
        }
        let r: Result<(), Fail> = (|| {
            match *i {
                TensormapInst::Replace {
                    field,
                    addr,
                    space,
                    value,
                } => {
                    let loc = resolve(cx, space, lane_addr(w, addr, l))
                        .map_err(|f| Fail::Mem(f, space))?;
                    let mut b = [0u8; TENSOR_MAP_BYTES];
                    read_bytes(cx, loc, &mut b).map_err(|f| Fail::Mem(f, space))?;
                    let v = w.read_any(value, l);
                    let v = if field.value_bits() == 32 {
                        v & 0xFFFF_FFFF
                    } else {
                        v
                    };
                    if let Err(e) = tmemu_tma::tensormap_replace(&mut b, field, v) {
                        cx.diag(
                            w,
                            w.cur_pc,
                            1 << l,
                            rule(tmemu_tma::rule::MAP_INVALID),
                            format!("tensormap.replace (lane {l}): {e}"),
                        );
                        return Ok(());
                    }
                    write_bytes(w, cx, l, loc, &b).map_err(|f| Fail::Mem(f, space))?;
                }
                TensormapInst::CpFence { dst, src, size } => {
                    let s = resolve(cx, Space::Shared, lane_addr(w, src, l))
                        .map_err(|f| Fail::Mem(f, Space::Shared))?;
                    let d = resolve(cx, Space::Global, lane_addr(w, dst, l))
                        .map_err(|f| Fail::Mem(f, Space::Global))?;
                    let mut b = [0u8; TENSOR_MAP_BYTES];
                    let b = &mut b[..size as usize];
                    read_bytes(cx, s, b).map_err(|f| Fail::Mem(f, Space::Shared))?;
                    write_bytes(w, cx, l, d, b).map_err(|f| Fail::Mem(f, Space::Global))?;
                }
            }
            Ok(())
        })();
        if let Err(f) = r {
            report(w, cx, l, f, "tensormap");
        }
    }
    Flow::Next
}

/// `cp.reduce.async.bulk` (non-tensor, PTX ISA 9.1 §9.7.9.25.4.2): `size` bytes of the CTA's
/// shared memory reduced element-wise into global memory (`.bulk_group`) or into shared
/// memory of a CTA of the cluster (`.mbarrier::complete_tx::bytes`, `mbar` set). The element
/// arithmetic is `tmemu_tma::ReduceOp::apply`, the one the tensor form uses (recorded on an
/// H100 for the `.global` form: tests/corpus/tma_h100, `red_bulk` cases).
#[derive(Clone, Debug)]
pub struct BulkReduceInst {
    pub op: ReduceOp,
    /// The instruction's type (`.b32`/`.b64` as u32/u64).
    pub elem: tmemu_spec::tensormap::TmElemType,
    pub dst: Addr,
    /// `Space::Global` or `Space::SharedCluster`.
    pub dst_space: Space,
    pub src: Addr,
    pub size: Any,
    pub mbar: Option<Addr>,
}

/// Bytes reduced per step: the shared-memory source and the destination are read in chunks of
/// this size, so a reduction allocates nothing.
const BULK_CHUNK: usize = 256;

fn bulk_reduce_one<O: Observer>(
    w: &Warp,
    cx: &mut Ctx<'_, '_, O>,
    l: usize,
    i: &BulkReduceInst,
) -> Result<(), Fail> {
    if i.mbar.is_some() && !cx.env.explicit_cluster {
        // Recorded on an H100 (TM0131): the shared::cluster form faults in a launch without
        // a cluster, although the ISA calls that CTA an implicit cluster of one.
        return Err(TmaError::SharedClusterWithoutCluster {
            what: "cp.reduce.async.bulk",
        }
        .into());
    }
    let n = w.read_any(i.size, l);
    let (dst_raw, src_raw) = (lane_addr(w, i.dst, l), lane_addr(w, i.src, l));
    // The ISA requires 16-byte aligned addresses and a size that is a multiple of 16.
    for (raw, space) in [(dst_raw, i.dst_space), (src_raw, Space::Shared)] {
        if !raw.is_multiple_of(16) {
            return Err(Fail::Mem(
                MemFault::Misaligned {
                    space: "bulk reduction (16-byte aligned addresses)",
                    addr: raw,
                    size: 16,
                },
                space,
            ));
        }
    }
    if !n.is_multiple_of(16) || n > u64::from(u32::MAX) {
        return Err(Fail::Mem(
            MemFault::Misaligned {
                space: "bulk reduction (size a multiple of 16)",
                addr: n,
                size: 16,
            },
            Space::Shared,
        ));
    }
    let n = n as u32;
    let (scta, soff) =
        shared_of(resolve(cx, Space::Shared, src_raw).map_err(|f| Fail::Mem(f, Space::Shared))?);
    let dst = resolve(cx, i.dst_space, dst_raw).map_err(|f| Fail::Mem(f, i.dst_space))?;
    let oob = |space: &'static str, addr: u64| MemFault::OutOfBounds {
        space,
        addr,
        size: n,
        nearest: crate::mem::Nearest::None,
    };
    if (soff as usize).saturating_add(n as usize) > cx.ctas[scta].shared.len() {
        return Err(Fail::Mem(oob("shared", u64::from(soff)), Space::Shared));
    }
    if let Loc::Shared(c, off) = dst {
        if (off as usize).saturating_add(n as usize) > cx.ctas[c].shared.len() {
            return Err(Fail::Mem(oob("shared", u64::from(off)), i.dst_space));
        }
    }
    let mbar = match i.mbar {
        Some(m) => Some(shared_of(
            resolve(cx, Space::SharedCluster, lane_addr(w, m, l))
                .map_err(|f| Fail::Mem(f, Space::SharedCluster))?,
        )),
        None => None,
    };
    let mut s = [0u8; BULK_CHUNK];
    let mut at = 0u32;
    while at < n {
        let k = (n - at).min(BULK_CHUNK as u32) as usize;
        let so = (soff + at) as usize;
        s[..k].copy_from_slice(&cx.ctas[scta].shared[so..so + k]);
        match dst {
            Loc::Global(a) => {
                let mut g = Global(cx.env.global);
                let a = a + u64::from(at);
                let esize = (i.elem.bits() / 8).max(1) as usize;
                let apply = |d: &mut [u8], s: &[u8]| i.op.apply(i.elem, d, s);
                tmemu_tma::GlobalMemory::reduce(&mut g, a, esize, &s[..k], &apply)
                    .map_err(|f| Fail::Mem(oob("global", f.addr), Space::Global))?;
            }
            Loc::Shared(c, off) => {
                let o = (off + at) as usize;
                i.op.apply(i.elem, &mut cx.ctas[c].shared[o..o + k], &s[..k]);
            }
            _ => {
                return Err(Fail::Mem(
                    MemFault::ReadOnly {
                        space: "bulk reduction destination (global or shared::cluster)",
                        addr: dst_raw,
                    },
                    i.dst_space,
                ))
            }
        }
        at += k as u32;
    }
    let id = issue(w, cx, l);
    let src_place = Place::Mem {
        space: MemSpace::Shared { cta: scta as u32 },
        addr: u64::from(soff),
        len: u64::from(n),
    };
    cx.obs.async_access(id, src_place, AccessKind::Read);
    let (space, addr) = match dst {
        Loc::Shared(c, off) => (MemSpace::Shared { cta: c as u32 }, u64::from(off)),
        Loc::Global(a) => (MemSpace::Global, a),
        _ => unreachable!("checked above"),
    };
    let dst_place = Place::Mem {
        space,
        addr,
        len: u64::from(n),
    };
    cx.obs.async_access(id, dst_place, AccessKind::Write);
    match mbar {
        None => complete_observed(w, cx, l, id),
        Some((mcta, moff)) => {
            cx.obs.async_complete(id, cx.out.warp_instructions);
            let key = SyncKey::Mbarrier {
                cta: mcta as u32,
                offset: moff,
            };
            cx.obs.async_arrive(id, key);
            sync::complete_tx(w, cx, mcta, moff, i64::from(n));
        }
    }
    Ok(())
}

pub(super) fn exec_bulk_reduce<O: Observer>(
    w: &mut Warp,
    cx: &mut Ctx<'_, '_, O>,
    mask: u32,
    i: &BulkReduceInst,
) -> Flow {
    for l in 0..32 {
        if mask >> l & 1 != 0 {
            if let Err(f) = bulk_reduce_one(w, cx, l, i) {
                report(w, cx, l, f, "bulk reduction");
            }
        }
    }
    Flow::Next
}
