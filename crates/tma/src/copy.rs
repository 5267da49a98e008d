//! Executing a tile-mode copy on byte memories: loads (`cp.async.bulk.tensor` global →
//! shared), stores (shared → global) and reductions (`cp.reduce.async.bulk.tensor`).
//!
//! Each run (a stretch of one inner row that is contiguous in global memory) is one
//! [`GlobalMemory`] call through a fixed stack buffer, scattered to or gathered from shared
//! memory per swizzle granule: no allocation, one global access per row segment.
//!
//! `smem` is the whole `.shared::cta` window of the CTA the bytes go to or come from, indexed
//! by shared-memory address; the box must fit it (TM0126) before anything is written. A
//! [`crate::GlobalFault`] part-way leaves the bytes copied before it in place: the engine
//! reports the fault and stops, so a partial result is never observed as a clean one.

use tmemu_spec::tensormap::{TensorMapDesc, TmElemType};

use crate::{GlobalMemory, ReduceOp, TileBox, TmaError};

/// What a copy moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyStats {
    /// Bytes the copy counts on its mbarrier (`complete_tx`): the whole box for a load.
    /// For stores and reductions, the box bytes read from shared memory.
    pub tx_bytes: u64,
    /// Bytes read from (load) or written to (store, reduction) global memory.
    pub global_bytes: u64,
    /// Bytes of out-of-bounds elements: filled (load) or skipped (store, reduction).
    pub oob_bytes: u64,
}

type RunBuf = [u8; TileBox::MAX_RUN_BYTES];

/// Loads the box of `desc` at `coords` into shared memory at `dst`.
pub fn copy_box(
    desc: &TensorMapDesc,
    coords: &[i32],
    dst: u32,
    global: &impl GlobalMemory,
    smem: &mut [u8],
) -> Result<CopyStats, TmaError> {
    let b = TileBox::new(desc, coords, dst)?;
    load(&b, global, smem)
}

/// Loads a decoded box (see [`copy_box`]).
pub fn load(
    b: &TileBox,
    global: &impl GlobalMemory,
    smem: &mut [u8],
) -> Result<CopyStats, TmaError> {
    b.check_smem(smem.len())?;
    let mut stats = CopyStats {
        tx_bytes: b.box_bytes(),
        ..CopyStats::default()
    };
    let pat = b.fill_pattern();
    let zero_fill = pat.iter().all(|&x| x == 0);
    let mut buf: RunBuf = [0; TileBox::MAX_RUN_BYTES];
    let mut result = Ok(());
    b.for_each_run(|r| {
        if result.is_err() {
            return;
        }
        let data = &mut buf[..r.len as usize];
        match r.global {
            Some(g) => {
                stats.global_bytes += u64::from(r.len);
                if let Err(e) = global.read(g, data) {
                    result = Err(e);
                    return;
                }
            }
            None => {
                stats.oob_bytes += u64::from(r.len);
                // Runs are whole elements, so the pattern tiles them exactly.
                if zero_fill {
                    data.fill(0);
                } else {
                    for e in data.chunks_exact_mut(pat.len()) {
                        e.copy_from_slice(pat);
                    }
                }
            }
        }
        b.scatter_run(&r, |at, off, len| {
            let (at, off, len) = (at as usize, off as usize, len as usize);
            smem[at..at + len].copy_from_slice(&data[off..off + len]);
        });
    });
    result?;
    Ok(stats)
}

/// Stores the box in shared memory at `src` to the tensor of `desc` at `coords`; elements
/// outside the tensor are not written (bulk-copies.md §1.5, DERIVED).
pub fn store_box(
    desc: &TensorMapDesc,
    coords: &[i32],
    src: u32,
    smem: &[u8],
    global: &mut impl GlobalMemory,
) -> Result<CopyStats, TmaError> {
    let b = TileBox::new(desc, coords, src)?;
    store(&b, smem, global)
}

/// Copies run `r` of the box out of shared memory into `out`.
fn gather(b: &TileBox, r: &crate::Run, smem: &[u8], out: &mut [u8]) {
    b.scatter_run(r, |at, off, len| {
        let (at, off, len) = (at as usize, off as usize, len as usize);
        out[off..off + len].copy_from_slice(&smem[at..at + len]);
    });
}

/// Stores a decoded box (see [`store_box`]).
pub fn store(
    b: &TileBox,
    smem: &[u8],
    global: &mut impl GlobalMemory,
) -> Result<CopyStats, TmaError> {
    b.check_smem(smem.len())?;
    let mut stats = CopyStats {
        tx_bytes: b.box_bytes(),
        ..CopyStats::default()
    };
    let mut buf: RunBuf = [0; TileBox::MAX_RUN_BYTES];
    let mut result = Ok(());
    b.for_each_run(|r| {
        if result.is_err() {
            return;
        }
        let Some(g) = r.global else {
            stats.oob_bytes += u64::from(r.len);
            return;
        };
        stats.global_bytes += u64::from(r.len);
        let data = &mut buf[..r.len as usize];
        gather(b, &r, smem, data);
        result = global.write(g, data);
    });
    result?;
    Ok(stats)
}

/// Reduces the box in shared memory at `src` into the tensor: `global = global op smem` per
/// in-bounds element, with the map's element type (TM0125 when the ISA does not define it).
pub fn reduce_box(
    desc: &TensorMapDesc,
    coords: &[i32],
    op: ReduceOp,
    src: u32,
    smem: &[u8],
    global: &mut impl GlobalMemory,
) -> Result<CopyStats, TmaError> {
    op.check(desc.elem_type)?;
    let b = TileBox::new(desc, coords, src)?;
    reduce(&b, op, desc.elem_type, smem, global)
}

/// Reduces a decoded box (see [`reduce_box`]); `elem` is the map's element type, which the
/// caller has checked against `op`.
pub fn reduce(
    b: &TileBox,
    op: ReduceOp,
    elem: TmElemType,
    smem: &[u8],
    global: &mut impl GlobalMemory,
) -> Result<CopyStats, TmaError> {
    op.check(elem)?;
    b.check_smem(smem.len())?;
    let mut stats = CopyStats {
        tx_bytes: b.box_bytes(),
        ..CopyStats::default()
    };
    let mut add: RunBuf = [0; TileBox::MAX_RUN_BYTES];
    let esize = b.elem_bytes() as usize;
    let apply = |cur: &mut [u8], add: &[u8]| op.apply(elem, cur, add);
    let mut result = Ok(());
    b.for_each_run(|r| {
        if result.is_err() {
            return;
        }
        let Some(g) = r.global else {
            stats.oob_bytes += u64::from(r.len);
            return;
        };
        stats.global_bytes += u64::from(r.len);
        let n = r.len as usize;
        gather(b, &r, smem, &mut add[..n]);
        result = global.reduce(g, esize, &add[..n], &apply);
    });
    result?;
    Ok(stats)
}
