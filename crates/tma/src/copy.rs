//! Executing a tile-mode copy on byte memories: loads (`cp.async.bulk.tensor` global →
//! shared), stores (shared → global) and reductions (`cp.reduce.async.bulk.tensor`).
//!
//! `smem` is the whole `.shared::cta` window of the CTA the bytes go to or come from, indexed
//! by shared-memory address; the box must fit it (TM0126) before anything is written. A
//! [`crate::GlobalFault`] part-way leaves the bytes copied before it in place: the engine
//! reports the fault and stops, so a partial result is never observed as a clean one.

use tmemu_spec::tensormap::TensorMapDesc;

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
    let mut result = Ok(());
    b.for_each_piece(|p| {
        if result.is_err() {
            return;
        }
        let out = &mut smem[p.smem as usize..(p.smem + p.len) as usize];
        match p.global {
            Some(g) => {
                stats.global_bytes += u64::from(p.len);
                result = global.read(g, out);
            }
            None => {
                stats.oob_bytes += u64::from(p.len);
                // Pieces start on element boundaries, so the pattern starts in phase.
                for (o, &v) in out.iter_mut().zip(pat.iter().cycle()) {
                    *o = v;
                }
            }
        }
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
    let mut result = Ok(());
    b.for_each_piece(|p| {
        if result.is_err() {
            return;
        }
        match p.global {
            Some(g) => {
                stats.global_bytes += u64::from(p.len);
                result = global.write(g, &smem[p.smem as usize..(p.smem + p.len) as usize]);
            }
            None => stats.oob_bytes += u64::from(p.len),
        }
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
    reduce(&b, desc, op, smem, global)
}

fn reduce(
    b: &TileBox,
    desc: &TensorMapDesc,
    op: ReduceOp,
    smem: &[u8],
    global: &mut impl GlobalMemory,
) -> Result<CopyStats, TmaError> {
    b.check_smem(smem.len())?;
    let mut stats = CopyStats {
        tx_bytes: b.box_bytes(),
        ..CopyStats::default()
    };
    let mut result = Ok(());
    let mut buf = [0u8; 256];
    b.for_each_piece(|p| {
        if result.is_err() {
            return;
        }
        let Some(g) = p.global else {
            stats.oob_bytes += u64::from(p.len);
            return;
        };
        stats.global_bytes += u64::from(p.len);
        // 256 is a multiple of every element size, so each slice holds whole elements.
        let mut off = 0;
        while off < p.len {
            let n = (p.len - off).min(buf.len() as u32);
            let src = &smem[(p.smem + off) as usize..(p.smem + off + n) as usize];
            let tmp = &mut buf[..n as usize];
            let addr = g.wrapping_add(u64::from(off));
            result = global.read(addr, tmp).and_then(|()| {
                op.apply(desc.elem_type, tmp, src);
                global.write(addr, tmp)
            });
            if result.is_err() {
                return;
            }
            off += n;
        }
    });
    result?;
    Ok(stats)
}
