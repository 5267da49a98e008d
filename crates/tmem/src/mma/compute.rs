//! D = ±A·Bᵀ (+ D) into TMEM. See the module docs for the rounding model.

use super::{DLayout, GatherOrder, MmaError};
use crate::desc::{AccumType, InstrDescriptor};

const COLS: usize = 512;

/// Reusable buffers so repeated MMAs do not allocate.
#[derive(Default, Debug)]
pub struct MmaScratch {
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    p: Vec<f32>,
}

/// One MMA on gathered operands.
#[derive(Clone, Copy, Debug)]
pub struct MmaRequest<'a> {
    pub idesc: &'a InstrDescriptor,
    pub layout: DLayout,
    /// A, `M × K` (M = the instruction's M: both CTAs' rows for cta_group::2); for a sparse
    /// MMA the dense A after [`super::expand_sparse_a`], K = the sparse K.
    pub a: &'a [f32],
    pub a_order: GatherOrder,
    /// B, `N × K` (all N; for cta_group::2 both CTAs' halves concatenated).
    pub b: &'a [f32],
    pub b_order: GatherOrder,
    /// `enable-input-d`: false ⇒ D = A·B.
    pub enable_input_d: bool,
    /// `scale-input-d` (0..15): D = A·B + D·2^-sid.
    pub scale_input_d: u32,
    /// `disable-output-lane` words of this CTA (bit i = TMEM lane i not written). With
    /// cta_group::2 the instruction's 8 words split 0..3 → even CTA, 4..7 → odd CTA
    /// (UNCONFIRMED, mma.md §3); the caller passes the CTA's half.
    pub disable_output_lane: [u32; 4],
}

/// Executes the MMA for CTA `cta` of the group (0 for cta_group::1; 0 = even, 1 = odd CTA
/// of a pair, which holds rows M/2.. — UNCONFIRMED which CTA is which, mma.md §9) into that
/// CTA's TMEM `tmem` (128 × 512 cells, lane-major), D at `d_taddr`.
pub fn execute(
    req: &MmaRequest<'_>,
    cta: u32,
    d_taddr: u32,
    tmem: &mut [u32],
    scratch: &mut MmaScratch,
) -> Result<(), MmaError> {
    let idesc = req.idesc;
    let (n, k) = (idesc.n as usize, idesc.k() as usize);
    let layout = req.layout;
    let rows = layout.rows_per_cta() as usize;
    let (l0, c0) = ((d_taddr >> 16) as usize, (d_taddr & 0xFFFF) as usize);
    layout.check_lane(l0 as u32)?;
    let ncols = layout.columns(n as u32) as usize;
    if c0 + ncols > COLS {
        return Err(MmaError::TmemOutOfRange {
            lane: l0 as u32,
            column: (c0 + ncols - 1) as u32,
        });
    }
    assert!(
        tmem.len() >= 128 * COLS,
        "TMEM grid must be 128 x 512 cells"
    );
    let m_total = rows * layout_ctas(layout);
    assert!(
        cta < layout_ctas(layout) as u32,
        "CTA index outside the group"
    );
    assert!(
        req.a.len() >= m_total * k,
        "A has fewer than M x K elements"
    );
    assert!(req.b.len() >= n * k, "B has fewer than N x K elements");
    // Element (i, kk) of A at a[a0 + i*rsa + kk*csa]; element (kk, j) of Bᵀ at b[j*csb' ...].
    let (a0, rsa, csa) = match req.a_order {
        GatherOrder::RowsByK => (cta as usize * rows * k, k, 1),
        GatherOrder::KByRows => (cta as usize * rows, 1, m_total),
    };
    let (rsb, csb) = match req.b_order {
        GatherOrder::RowsByK => (1, k),
        GatherOrder::KByRows => (n, 1),
    };
    let sign = if idesc.negate_a != idesc.negate_b {
        -1.0
    } else {
        1.0
    };
    let d_scale = f32::from_bits((127 - req.scale_input_d.min(15)) << 23);
    let masked = req.disable_output_lane.iter().any(|&w| w != 0);
    let (blocks, count) = layout.blocks(n as u32);

    if idesc.d_type == AccumType::F32 && !masked {
        // Fast path: the GEMM writes straight into the cells (f32 bit patterns).
        let ld = |o: GatherOrder, rows: usize| match o {
            GatherOrder::RowsByK => k,
            GatherOrder::KByRows => rows,
        };
        accumulate_f32(
            &F32Gemm {
                layout,
                n,
                k,
                a: Strided {
                    data: req.a,
                    order: req.a_order,
                    ld: ld(req.a_order, m_total),
                },
                b: Strided {
                    data: req.b,
                    order: req.b_order,
                    ld: ld(req.b_order, n),
                },
                negate: sign < 0.0,
                input_d: req.enable_input_d.then_some(req.scale_input_d),
            },
            cta,
            d_taddr,
            tmem,
        )?;
        return Ok(());
    }

    // General path: P = ±A·Bᵀ into scratch, then combine cell by cell.
    scratch.p.clear();
    scratch.p.resize(rows * n, 0.0);
    // SAFETY: this CTA's rows of A and all of B are in bounds (asserted); P is rows×n.
    unsafe {
        super::gemm::sgemm(
            rows,
            k,
            n,
            sign,
            req.a.as_ptr().add(a0),
            rsa,
            csa,
            req.b.as_ptr(),
            rsb,
            csb,
            0.0,
            scratch.p.as_mut_ptr(),
            n,
        );
    }
    for blk in &blocks[..count] {
        for r in 0..blk.rows as usize {
            let lane = l0 + blk.lane as usize + r;
            if (req.disable_output_lane[lane / 32] >> (lane % 32)) & 1 == 1 {
                continue;
            }
            let i = blk.row0 as usize + r;
            for c in 0..blk.cols as usize {
                let j = blk.col0 as usize + c;
                let p = scratch.p[i * n + j];
                let cell = &mut tmem[lane * COLS + c0 + blk.column as usize + c];
                *cell = combine(idesc, *cell, p, req.enable_input_d, d_scale);
            }
        }
    }
    Ok(())
}

#[inline]
fn combine(idesc: &InstrDescriptor, old: u32, p: f32, enable: bool, d_scale: f32) -> u32 {
    match idesc.d_type {
        AccumType::F32 => {
            if enable {
                (f32::from_bits(old) * d_scale + p).to_bits()
            } else {
                p.to_bits()
            }
        }
        AccumType::F16 => {
            let v = if enable {
                half::f16::from_bits(old as u16).to_f32() * d_scale + p
            } else {
                p
            };
            u32::from(half::f16::from_f32(v).to_bits())
        }
        AccumType::S32 => {
            let p = p as i32; // exact: see the module docs
            let old = if enable { old as i32 } else { 0 };
            (if idesc.saturate {
                old.saturating_add(p)
            } else {
                old.wrapping_add(p)
            }) as u32
        }
    }
}

/// A gathered operand with a leading dimension: `RowsByK` element (row, kk) at
/// `data[row * ld + kk]` (`ld` ≥ K), `KByRows` at `data[kk * ld + row]` (`ld` ≥ all rows,
/// both CTAs' for a pair). A K-fused panel is such an operand with `ld` = its K capacity
/// (`RowsByK`) or a plain concatenation along K (`KByRows`).
#[derive(Clone, Copy, Debug)]
pub struct Strided<'a> {
    pub data: &'a [f32],
    pub order: GatherOrder,
    pub ld: usize,
}

impl Strided<'_> {
    /// (offset of element (row0, 0), row stride, K stride).
    fn strides(&self, row0: usize) -> (usize, usize, usize) {
        match self.order {
            GatherOrder::RowsByK => (row0 * self.ld, self.ld, 1),
            GatherOrder::KByRows => (row0, 1, self.ld),
        }
    }

    /// Whether `rows × k` elements from `row0` lie inside `data`.
    fn covers(&self, row0: usize, rows: usize, k: usize) -> bool {
        if rows == 0 || k == 0 {
            return true;
        }
        let (o, rs, ks) = self.strides(row0);
        let extent_ok = match self.order {
            GatherOrder::RowsByK => k <= self.ld,
            GatherOrder::KByRows => row0 + rows <= self.ld,
        };
        extent_ok && o + (rows - 1) * rs + (k - 1) * ks < self.data.len()
    }
}

/// D (f32 accumulator, no disabled lanes) += or = ±A·Bᵀ over `k` for one CTA of the group,
/// straight into its TMEM cells: the one GEMM both a single MMA and a K-fused run of MMAs
/// (`tmemu-sim`'s panels) execute.
#[derive(Clone, Copy, Debug)]
pub struct F32Gemm<'a> {
    pub layout: DLayout,
    pub n: usize,
    pub k: usize,
    /// A: all M rows (both CTAs' for a pair).
    pub a: Strided<'a>,
    /// B: all N rows.
    pub b: Strided<'a>,
    /// `negate_a != negate_b`.
    pub negate: bool,
    /// None: D = A·Bᵀ; Some(sid): D = A·Bᵀ + D·2^-sid.
    pub input_d: Option<u32>,
}

/// Executes [`F32Gemm`] for CTA `cta` of the group into its TMEM (128 × 512 cells) with D at
/// `d_taddr`. Checks the lane field and the column range like [`execute`].
pub fn accumulate_f32(
    g: &F32Gemm<'_>,
    cta: u32,
    d_taddr: u32,
    tmem: &mut [u32],
) -> Result<(), MmaError> {
    let (n, k, layout) = (g.n, g.k, g.layout);
    let rows = layout.rows_per_cta() as usize;
    let (l0, c0) = ((d_taddr >> 16) as usize, (d_taddr & 0xFFFF) as usize);
    layout.check_lane(l0 as u32)?;
    let ncols = layout.columns(n as u32) as usize;
    if c0 + ncols > COLS {
        return Err(MmaError::TmemOutOfRange {
            lane: l0 as u32,
            column: (c0 + ncols - 1) as u32,
        });
    }
    assert!(
        tmem.len() >= 128 * COLS,
        "TMEM grid must be 128 x 512 cells"
    );
    let row0 = cta as usize * rows;
    assert!(
        g.a.covers(row0, rows, k) && g.b.covers(0, n, k),
        "operands smaller than their extents"
    );
    let (a0, rsa, csa) = g.a.strides(row0);
    // Bᵀ element (kk, j) = B element (j, kk)
    let (_, bj, bk) = g.b.strides(0);
    let sign = if g.negate { -1.0 } else { 1.0 };
    let (blocks, count) = layout.blocks(n as u32);
    for blk in &blocks[..count] {
        if blk.rows == 0 || blk.cols == 0 {
            continue;
        }
        let base = (l0 + blk.lane as usize) * COLS + c0 + blk.column as usize;
        let last = base + (blk.rows as usize - 1) * COLS + blk.cols as usize;
        let cells = &mut tmem[base..last];
        if let Some(sid) = g.input_d.filter(|&s| s != 0) {
            let d_scale = f32::from_bits((127 - sid.min(15)) << 23);
            for r in 0..blk.rows as usize {
                for x in &mut cells[r * COLS..r * COLS + blk.cols as usize] {
                    *x = (f32::from_bits(*x) * d_scale).to_bits();
                }
            }
        }
        // SAFETY: `covers` showed that rows row0.. (this CTA's, of which the block's are a
        // part) × k of A and n × k of B lie in their slices at these strides; C covers
        // rows × cols cells with row stride COLS inside `cells`, whose length was computed
        // from exactly that extent. u32 and f32 have the same size and alignment.
        unsafe {
            super::gemm::sgemm(
                blk.rows as usize,
                k,
                blk.cols as usize,
                sign,
                g.a.data.as_ptr().add(a0 + blk.row0 as usize * rsa),
                rsa,
                csa,
                g.b.data.as_ptr().add(blk.col0 as usize * bj),
                bk,
                bj,
                if g.input_d.is_some() { 1.0 } else { 0.0 },
                cells.as_mut_ptr() as *mut f32,
                COLS,
            );
        }
    }
    Ok(())
}

/// CTAs sharing one D layout's rows (2 for the cta_group::2 layouts).
fn layout_ctas(layout: DLayout) -> usize {
    match layout {
        DLayout::A | DLayout::B | DLayout::C => 2,
        _ => 1,
    }
}
