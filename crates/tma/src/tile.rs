//! Tile mode: which bytes of a tensor a box covers and where each lands in shared memory
//! (PTX ISA 9.1 §5.5.1–§5.5.3, §5.5.7; bulk-copies.md §1.5).
//!
//! A [`TileBox`] is decoded once per copy; the copy itself walks the box as contiguous *runs*
//! (one inner-dimension row, split where it crosses the tensor's edge) and each run as
//! *pieces* (the parts of a run that stay contiguous after the swizzle), so a copy is a handful
//! of `memcpy`s per row and allocates nothing.
//!
//! Im2col mode (PTX ISA 9.1 §5.5.4) uses the same machinery: a row is one pixel's channels
//! and the rows are the pixels the traversal visits (`Im2colWalk`).
//!
//! Decisions on facts the ISA leaves open (each also in docs/arch/tma.md):
//! - Shared memory holds the box dimension 0 fastest, `n_i = ceil(box_i / stride_i)` elements
//!   per dimension. With a swizzle, each inner row occupies a whole swizzle span (32, 64 or
//!   128 bytes) even when it is shorter: rows are `span` bytes apart and the bytes between
//!   are left untouched. Recorded on an H100 (tests/corpus/tma_h100: a 64-byte row under the
//!   128B swizzle, 32-byte im2col pixels under the 64B swizzle); without a swizzle the box is
//!   dense. The complete-tx count is the data bytes only (same recording, `tx_ok=1`).
//! - Element stride 0 is ignored unless the map is interleaved (the driver ignores it,
//!   bulk-copies.md §1.5), so an inner row is always contiguous in global memory then.
//! - complete_tx counts the whole box, out-of-bounds elements included (bulk-copies.md §1.3,
//!   DERIVED from CUTLASS/Triton expect-tx values).
//! - An out-of-bounds element is zero, or with OOB-NaN fill the 16-bit pattern `0x7FF7`
//!   repeated over the element (f16/bf16 `0x7FF7`, f32 `0x7FF77FF7`): recorded on an H100 for
//!   f16, bf16 and f32 (tests/corpus/tma_h100); f64 (`0x7FF77FF77FF77FF7`, also a NaN) is
//!   DERIVED from that repetition. OOB-NaN is only legal for floating-point types, so integers
//!   are always zero.

// Odometer loops index several per-dimension arrays by the same `i`.
#![allow(clippy::needless_range_loop)]

use tmemu_spec::tensormap::{
    Im2colParams, Interleave, OobFill, TensorMapDesc, TensorMapMode, TmElemType, MAX_RANK,
};

use crate::{TmaError, TmaSwizzle};

/// Alignment of a tensor copy's shared-memory address. PTX §5.5.7 computes the swizzle phase
/// from `dstMem / 128`, and the CUDA programming guide's TMA section asks for 128-byte aligned
/// shared memory in every swizzle mode; a 1024-byte alignment is *not* required (the phase
/// follows the address bits, `swizzle.rs`).
pub const SMEM_ALIGN: u32 = 128;

/// A maximal stretch of the dense box that is contiguous in global memory (or entirely out of
/// the tensor's bounds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// Byte offset in the dense (unswizzled) box.
    pub box_offset: u32,
    pub len: u32,
    /// First global byte, or `None` when every element of the run is out of bounds.
    pub global: Option<u64>,
}

/// A stretch that is contiguous both in global memory and in (swizzled) shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// Absolute shared-memory address of the first byte (after the swizzle).
    pub smem: u32,
    pub box_offset: u32,
    pub len: u32,
    pub global: Option<u64>,
}

/// One element of the box, for checkers that want per-element detail. For `b4x16` maps an
/// "element" here is one byte (two 4-bit values) and dimension 0 counts bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// Box index per dimension (`k_i`, innermost first).
    pub index: [u32; MAX_RANK],
    /// Tensor coordinate per dimension (`c_i + k_i · stride_i`).
    pub coord: [i64; MAX_RANK],
    /// Absolute shared-memory address after the swizzle.
    pub smem: u32,
    /// Global address, `None` when out of bounds.
    pub global: Option<u64>,
}

/// The pixel traversal of an im2col copy (PTX ISA 9.1 §5.5.4.1–§5.5.4.2): spatial dimensions
/// 1..=rank−2 (W, H, D), batch = dimension rank−1.
///
/// The bounding box of spatial dimension j is `[lower_j + off_j, dims_j + upper_j + off_j)`
/// (the lower corner is relative to the tensor's origin, the upper one to its far corner, both
/// moved by the instruction's im2col offsets); the first pixel is `coords_j + off_j` in image
/// `coords[N]`. Each next pixel adds the traversal stride (elementStrides) to W; past the box's
/// end W returns to the box's lower bound and H advances, and so on up to N, which is not
/// bounded by the box (an image index past the tensor is out of bounds and filled). Checked
/// against an H100 (tests/corpus/tma_h100: padding corners, offsets, strides 2 and 3, runs
/// across images and past the last one); the return to the *lower bound* (not lower bound +
/// overshoot) is what the stride cases recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Im2colWalk {
    spatial: usize,
    lo: [i64; 3],
    hi: [i64; 3],
    start: [i64; 3],
    pixels: u32,
}

/// A decoded tile-mode (or im2col-mode) copy: the tensor map, the coordinates and the
/// shared-memory address.
#[derive(Clone, Debug)]
pub struct TileBox {
    rank: usize,
    esize: u32,
    global_address: u64,
    dims: [u64; MAX_RANK],
    /// Byte stride of each dimension (`[0]` = element size).
    strides: [u64; MAX_RANK],
    coords: [i64; MAX_RANK],
    /// Traversal (element) stride per dimension, effective values.
    steps: [u32; MAX_RANK],
    /// Elements per dimension in the box.
    counts: [u32; MAX_RANK],
    row_bytes: u32,
    /// Shared-memory bytes from one row to the next: the swizzle span for a swizzled map whose
    /// rows are shorter (see the module docs), else `row_bytes`.
    pitch: u32,
    swizzle: TmaSwizzle,
    smem: u32,
    fill: [u8; 8],
    im2col: Option<Im2colWalk>,
    /// `.tile::gather4` / `.tile::scatter4`: the four row coordinates (dimension 1).
    rows4: Option<[i64; 4]>,
}

impl TileBox {
    /// Decodes a tile-mode copy of `desc` at `coords` (innermost first) to or from shared
    /// memory at `smem`. Checks, in order: coordinate count (TM0120), the box against the
    /// swizzle span (TM0122), the rest of the map (TM0123), the shared-memory alignment (TM0121).
    pub fn new(desc: &TensorMapDesc, coords: &[i32], smem: u32) -> Result<TileBox, TmaError> {
        if let TensorMapMode::Im2col(_) = desc.mode {
            // PTX 9.1 §9.7.9.27.1.2: a map's mode must match the instruction's load mode.
            return Err(TmaError::ModeMismatch {
                map: "im2col",
                inst: "tile",
            });
        }
        Self::decode(desc, coords, smem, None)
    }

    /// Decodes an `.im2col` load of `desc` (an im2col map): `coords` are the rank's tensor
    /// coordinates (C, W, H, D, N innermost first), `offsets` the instruction's im2colInfo
    /// (one 16-bit offset per spatial dimension, W first). PTX ISA 9.1 §5.5.4,
    /// §9.7.9.27.1.2.
    pub fn new_im2col(
        desc: &TensorMapDesc,
        coords: &[i32],
        offsets: &[i16],
        smem: u32,
    ) -> Result<TileBox, TmaError> {
        let TensorMapMode::Im2col(p) = desc.mode else {
            return Err(TmaError::ModeMismatch {
                map: "tile",
                inst: "im2col",
            });
        };
        let rank = desc.rank as usize;
        if !(3..=MAX_RANK).contains(&rank) {
            desc.validate()?;
        }
        let spatial = rank.saturating_sub(2);
        if offsets.len() != spatial {
            return Err(TmaError::Im2colOffsets {
                given: offsets.len(),
                rank: desc.rank,
            });
        }
        let walk = Im2colWalk::new(desc, &p, coords, offsets);
        Self::decode(desc, coords, smem, Some((p, walk)))
    }

    /// Decodes a `.tile::gather4` load or `.tile::scatter4` store (sm_100a; PTX ISA 9.1
    /// §5.5.6 and §9.7.9.27.1.2): a 2-D tile map, `coords` = `{col, row0, row1, row2, row3}`.
    /// Each of the four rows is `box[0]` elements from column `col` of tensor row `row_k`,
    /// and the rows land one after another in shared memory as the rows of a 4-row tile box
    /// would (same pitch and swizzle). The map's box must be one row high (`box[1] = 1`):
    /// the ISA describes the four rows as the box, and Triton and Mojo build gather maps
    /// with a one-row box (DERIVED; UNCONFIRMED what hardware does with a taller box, so it
    /// is refused as TM0123). Rows outside the tensor are filled (loads) or skipped
    /// (stores), as tile-mode elements are.
    pub fn new_gather4(
        desc: &TensorMapDesc,
        coords: &[i32],
        smem: u32,
    ) -> Result<TileBox, TmaError> {
        if let TensorMapMode::Im2col(_) = desc.mode {
            return Err(TmaError::ModeMismatch {
                map: "im2col",
                inst: "tile::gather4/scatter4",
            });
        }
        if desc.rank != 2 || coords.len() != 5 {
            return Err(TmaError::Gather4Shape {
                rank: desc.rank,
                given: coords.len(),
            });
        }
        if desc.box_dims[1] != 1 {
            return Err(TmaError::Gather4Box {
                rows: desc.box_dims[1],
            });
        }
        let mut b = Self::decode(desc, &coords[..2], smem, None)?;
        let mut rows = [0i64; 4];
        for (r, &c) in rows.iter_mut().zip(&coords[1..]) {
            *r = i64::from(c);
        }
        b.rows4 = Some(rows);
        b.counts[1] = 4;
        let end = u64::from(smem) + b.rows() * u64::from(b.pitch);
        if end > 1 << 32 {
            return Err(TmaError::SmemOutOfBounds {
                start: u64::from(smem),
                end,
                size: 1 << 32,
            });
        }
        Ok(b)
    }

    fn decode(
        desc: &TensorMapDesc,
        coords: &[i32],
        smem: u32,
        im2col: Option<(Im2colParams, Im2colWalk)>,
    ) -> Result<TileBox, TmaError> {
        let rank = desc.rank as usize;
        if !(1..=MAX_RANK).contains(&rank) {
            // A rank field outside 1..=5 is a broken map (TM0123), not a coordinate count.
            desc.validate()?;
        }
        if coords.len() != rank {
            return Err(TmaError::CoordsRank {
                given: coords.len(),
                rank: desc.rank,
            });
        }
        let ty = desc.elem_type;
        // b4x16 (16U4_ALIGN8B) is packed without gaps in both memories, so a copy that starts
        // on a whole byte moves bytes: model it as a byte tensor of element pairs (dim 0 is
        // even, validate checks). The padded types change layout between the memories
        // (8- and 4-byte gaps in shared memory) and are not modelled.
        let packed_nibbles = ty == TmElemType::B4x16;
        if ty.is_sub_byte() && !packed_nibbles {
            return Err(TmaError::Unsupported(
                "tensor copies of padded sub-byte element types (b4x16_p64, b6x16_p32)",
            ));
        }
        if packed_nibbles
            && (desc.interleave != Interleave::None
                || coords.first().is_some_and(|c| c % 2 != 0)
                || !desc.box_dims[0].is_multiple_of(2))
        {
            return Err(TmaError::Unsupported(
                "b4x16 copies that start or end inside a byte, or interleaved",
            ));
        }
        let swizzle = TmaSwizzle::of(desc)?;
        let esize = (ty.bits() / 8).max(1) as u32;
        // Dimension 0 in storage units (bytes for b4x16, elements otherwise).
        let unit = |x: u64| if packed_nibbles { x / 2 } else { x };
        let interleaved = desc.interleave != Interleave::None;
        let inner_elems = match im2col {
            Some((p, _)) => u64::from(p.channels),
            None => u64::from(desc.box_dims[0]),
        };
        let inner_bytes = unit(inner_elems) * u64::from(esize);
        if let (false, Some(span)) = (interleaved, swizzle.span()) {
            if inner_bytes > span {
                return Err(TmaError::BoxExceedsSwizzle {
                    bytes: inner_bytes,
                    span,
                });
            }
        }
        desc.validate()?;
        if !smem.is_multiple_of(SMEM_ALIGN) {
            return Err(TmaError::SmemMisaligned {
                what: "tensor copy",
                addr: smem,
                align: SMEM_ALIGN,
            });
        }
        let mut b = TileBox {
            rank,
            esize,
            global_address: desc.global_address,
            dims: [1; MAX_RANK],
            strides: [0; MAX_RANK],
            coords: [0; MAX_RANK],
            steps: [1; MAX_RANK],
            counts: [1; MAX_RANK],
            row_bytes: 0,
            pitch: 0,
            swizzle,
            smem,
            fill: fill_pattern(ty, desc.oob_fill),
            im2col: im2col.map(|(_, w)| w),
            rows4: None,
        };
        for i in 0..rank {
            b.dims[i] = if i == 0 {
                unit(desc.global_dims[0])
            } else {
                desc.global_dims[i]
            };
            b.strides[i] = if i == 0 {
                u64::from(esize)
            } else {
                desc.global_strides[i - 1]
            };
            b.coords[i] = if i == 0 {
                i64::from(coords[0]).div_euclid(if packed_nibbles { 2 } else { 1 })
            } else {
                i64::from(coords[i])
            };
            b.steps[i] = if i == 0 && !interleaved {
                1
            } else {
                desc.elem_strides[i]
            };
            let box_units = if i == 0 {
                unit(inner_elems) as u32
            } else {
                desc.box_dims[i]
            };
            b.counts[i] = box_units.div_ceil(b.steps[i]);
        }
        if let Some((p, _)) = im2col {
            // Rows are pixels: counts[1] carries the pixel count, the other dims one each.
            for i in 1..rank {
                b.counts[i] = 1;
            }
            b.counts[1] = u32::from(p.pixels);
        }
        b.row_bytes = b.counts[0] * esize;
        b.pitch = match (interleaved, swizzle.span()) {
            (false, Some(span)) => b.row_bytes.max(span as u32),
            _ => b.row_bytes,
        };
        // Offsets inside the box are 32-bit shared addresses: a box that cannot fit the
        // shared address space is out of bounds of every shared window.
        let end = u64::from(smem) + b.rows() * u64::from(b.pitch);
        if end > 1 << 32 {
            return Err(TmaError::SmemOutOfBounds {
                start: u64::from(smem),
                end,
                size: 1 << 32,
            });
        }
        if !b.row_bytes.is_multiple_of(16) {
            // Only reachable with interleave (validate makes non-interleaved rows whole 16-byte
            // chunks); how such a row is padded in shared memory is not written down.
            return Err(TmaError::Unsupported(
                "an interleaved box whose inner row is not a multiple of 16 bytes",
            ));
        }
        Ok(b)
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn elem_bytes(&self) -> u32 {
        self.esize
    }

    pub fn swizzle(&self) -> TmaSwizzle {
        self.swizzle
    }

    /// Elements per dimension (`ceil(box_i / elementStride_i)`), innermost first.
    pub fn counts(&self) -> &[u32] {
        &self.counts[..self.rank]
    }

    /// Bytes of one inner-dimension row in shared memory.
    pub fn row_bytes(&self) -> u32 {
        self.row_bytes
    }

    /// Number of inner-dimension rows.
    pub fn rows(&self) -> u64 {
        self.counts[1..self.rank]
            .iter()
            .map(|&n| u64::from(n))
            .product()
    }

    /// Bytes of the box's data, which is the complete-tx count of a load (out-of-bounds
    /// elements included; the gaps of rows narrower than the swizzle span are not counted).
    pub fn box_bytes(&self) -> u64 {
        u64::from(self.row_bytes) * self.rows()
    }

    /// Shared-memory bytes from one row to the next (see the module docs).
    pub fn row_pitch(&self) -> u32 {
        self.pitch
    }

    /// Whether the copy is an im2col one.
    pub fn is_im2col(&self) -> bool {
        self.im2col.is_some()
    }

    /// The bytes an out-of-bounds element is filled with (the first `elem_bytes()`).
    pub fn fill_pattern(&self) -> &[u8] {
        &self.fill[..self.esize as usize]
    }

    /// TM0129: the box's first element in dimension 0 must start on a 16-byte boundary of the
    /// row (`coordinate × element size`, a multiple of 16; PTX 9.1 §5.5.3.1 asks for a
    /// 16-byte aligned bounding box, bulk-copies.md §1.5). Recorded on an H100: f16 loads at
    /// inner coordinate 90 (byte 180) raise an illegal-instruction error under every swizzle
    /// and destination alignment tried, the same maps at coordinate 8 run
    /// (tests/corpus/tma_h100, `tile_f16_row32_*`). Interleaved maps are exempt (their
    /// dimension 0 is not the contiguous row), as are packed b4x16 copies (their own
    /// restriction is unmodelled).
    pub fn check_start_alignment(&self) -> Result<(), TmaError> {
        if self.steps[0] != 1 || self.esize == 0 {
            return Ok(());
        }
        let bytes = self.coords[0] * i64::from(self.esize);
        if bytes.rem_euclid(16) != 0 {
            return Err(TmaError::BoxStartMisaligned {
                coord: self.coords[0],
                bytes,
            });
        }
        Ok(())
    }

    /// TM0130: the `.global.shared::cta` direction (stores, reductions) needs non-negative
    /// tensor coordinates, and an `.im2col_no_offs` pixel box inside the tensor (lower corners
    /// ≥ 0, upper corners ≤ 0) (PTX 9.1 §9.7.9.27.1.1). Recorded on an H100: a tile store at
    /// row −3 and an im2col_no_offs store with lower corners −1 raise an illegal-instruction
    /// error, a store over the tensor's far edges with non-negative coordinates runs and skips
    /// the outside elements (tests/corpus/tma_h100, `store_*`). Applied to reductions too
    /// (same direction, DERIVED).
    pub fn check_store(&self) -> Result<(), TmaError> {
        let outside = |what: String| Err(TmaError::StoreOutsideTensor { what });
        if let Some(rows) = self.rows4 {
            if self.coords[0] < 0 || rows.iter().any(|&r| r < 0) {
                return outside(format!(
                    "negative coordinate in {{{}, {}, {}, {}, {}}}",
                    self.coords[0], rows[0], rows[1], rows[2], rows[3]
                ));
            }
            return Ok(());
        }
        if let Some(c) = self.coords[..self.rank].iter().find(|&&c| c < 0) {
            return outside(format!(
                "coordinate {c} is negative (coordinates {:?})",
                &self.coords[..self.rank]
            ));
        }
        if let Some(w) = self.im2col {
            for j in 0..w.spatial {
                let dim = self.dims[j + 1] as i64;
                if w.lo[j] < 0 || w.hi[j] > dim {
                    return outside(format!(
                        "the pixel box of spatial dimension {j} is [{}, {}), outside [0, {dim})",
                        w.lo[j], w.hi[j]
                    ));
                }
            }
        }
        Ok(())
    }

    /// Exact range `[start, end)` of absolute shared-memory addresses the copy touches.
    /// Every swizzle keeps bytes inside their 128-byte line, and the box starts on a line, so
    /// only a partial last line can reach past the dense end.
    pub fn smem_extent(&self) -> (u64, u64) {
        let start = u64::from(self.smem);
        if self.pitch != self.row_bytes {
            // Rows narrower than the span: the last row's granules decide the end.
            let last = start + (self.rows().saturating_sub(1)) * u64::from(self.pitch);
            let g = self.swizzle.granule();
            let end = (0..self.row_bytes / g)
                .map(|j| u64::from(self.swizzle.apply(last as u32 + j * g)) + u64::from(g))
                .max()
                .unwrap_or(last);
            return (start, end);
        }
        let bytes = self.box_bytes();
        let full = bytes / 128 * 128;
        let rem = (bytes - full) as u32;
        let mut end = start + bytes;
        if rem != 0 && self.swizzle != TmaSwizzle::None {
            let line = start + full;
            let g = self.swizzle.granule();
            end = (0..rem / g)
                .map(|j| u64::from(self.swizzle.apply((line as u32) + j * g)) + u64::from(g))
                .max()
                .unwrap_or(end);
        }
        (start, end)
    }

    /// Checks the box fits a shared window of `size` bytes (TM0126).
    pub fn check_smem(&self, size: usize) -> Result<(), TmaError> {
        let (start, end) = self.smem_extent();
        if end > size as u64 {
            return Err(TmaError::SmemOutOfBounds {
                start,
                end,
                size: size as u64,
            });
        }
        Ok(())
    }

    /// Calls `f(row, coords, base)` for each inner row in shared-memory order: `coords` holds
    /// the row's tensor coordinates in dimensions 1.. (dimension 0 is the row's own), `base` the
    /// global address of element 0 of dimension 0, `None` when the row is outside the tensor.
    fn for_each_row(&self, mut f: impl FnMut(u64, &[i64; MAX_RANK], Option<u64>)) {
        let base_of = |x: &[i64; MAX_RANK]| {
            let mut a = Some(self.global_address);
            for i in 1..self.rank {
                a = match a {
                    Some(a) if x[i] >= 0 && (x[i] as u64) < self.dims[i] => {
                        Some(a.wrapping_add((x[i] as u64).wrapping_mul(self.strides[i])))
                    }
                    _ => None,
                };
            }
            a
        };
        if let Some(w) = self.im2col {
            let n = self.rank - 1;
            let mut x = [0i64; MAX_RANK];
            x[1..=w.spatial].copy_from_slice(&w.start[..w.spatial]);
            x[n] = self.coords[n];
            for row in 0..u64::from(w.pixels) {
                f(row, &x, base_of(&x));
                // Advance W; on leaving the box return to its lower bound and carry.
                let mut j = 0;
                loop {
                    if j == w.spatial {
                        x[n] += i64::from(self.steps[n]);
                        break;
                    }
                    x[j + 1] += i64::from(self.steps[j + 1]);
                    if x[j + 1] < w.hi[j] {
                        break;
                    }
                    x[j + 1] = w.lo[j];
                    j += 1;
                }
            }
            return;
        }
        if let Some(rows) = self.rows4 {
            let mut x = [0i64; MAX_RANK];
            for (row, &r) in rows.iter().enumerate() {
                x[1] = r;
                f(row as u64, &x, base_of(&x));
            }
            return;
        }
        let mut k = [0u32; MAX_RANK];
        let mut x = [0i64; MAX_RANK];
        for row in 0..self.rows() {
            for i in 1..self.rank {
                x[i] = self.coords[i] + i64::from(k[i]) * i64::from(self.steps[i]);
            }
            f(row, &x, base_of(&x));
            for i in 1..self.rank {
                k[i] += 1;
                if k[i] < self.counts[i] {
                    break;
                }
                k[i] = 0;
            }
        }
    }

    /// Calls `f` for each run, in shared-memory order.
    pub fn for_each_run(&self, mut f: impl FnMut(Run)) {
        let n0 = i64::from(self.counts[0]);
        let es = i64::from(self.esize);
        let c0 = self.coords[0];
        self.for_each_row(|row, _, row_base| {
            let box_offset = row as u32 * self.pitch;
            match row_base {
                None => f(Run {
                    box_offset,
                    len: self.row_bytes,
                    global: None,
                }),
                Some(base) if self.steps[0] == 1 => {
                    // In-bounds elements of the row: k0 in [lo, hi).
                    let lo = (-c0).clamp(0, n0);
                    let hi = (self.dims[0] as i64 - c0).clamp(lo, n0);
                    let at = |k0: i64| box_offset + (k0 * es) as u32;
                    if lo > 0 {
                        f(Run {
                            box_offset,
                            len: (lo * es) as u32,
                            global: None,
                        });
                    }
                    if hi > lo {
                        let x0 = (c0 + lo) as u64;
                        f(Run {
                            box_offset: at(lo),
                            len: ((hi - lo) * es) as u32,
                            global: Some(base.wrapping_add(x0 * self.esize as u64)),
                        });
                    }
                    if hi < n0 {
                        f(Run {
                            box_offset: at(hi),
                            len: ((n0 - hi) * es) as u32,
                            global: None,
                        });
                    }
                }
                Some(base) => {
                    // Strided inner dimension (interleaved maps only): one run per element.
                    for k0 in 0..n0 {
                        let x0 = c0 + k0 * i64::from(self.steps[0]);
                        let inb = x0 >= 0 && (x0 as u64) < self.dims[0];
                        f(Run {
                            box_offset: box_offset + (k0 * es) as u32,
                            len: self.esize,
                            global: inb.then(|| base.wrapping_add(x0 as u64 * self.esize as u64)),
                        });
                    }
                }
            }
        });
    }

    /// Absolute shared-memory address of the box (before the swizzle).
    pub fn smem_base(&self) -> u32 {
        self.smem
    }

    /// Longest run [`Self::for_each_run`] yields: one inner row (at most 256 elements of at
    /// most 8 bytes), so copies can stage a run in a fixed buffer.
    pub const MAX_RUN_BYTES: usize = 256 * 8;

    /// Splits `run` where the swizzle breaks shared-memory contiguity: calls
    /// `f(smem_address, offset_in_run, len)` per stretch (a single call without a swizzle).
    #[inline]
    pub fn scatter_run(&self, run: &Run, mut f: impl FnMut(u32, u32, u32)) {
        let start = self.smem + run.box_offset;
        if self.swizzle == TmaSwizzle::None {
            f(start, 0, run.len);
            return;
        }
        // Every swizzle is `a ^ x(a / 128)`: one XOR mask per 128-byte line, and granules
        // whose images continue each other are handed out as one stretch.
        let g = self.swizzle.granule();
        let end = start + run.len;
        let mut a = start;
        let mut pending: Option<(u32, u32, u32)> = None; // (phys, offset in run, len)
        while a < end {
            let line = a & !127;
            let x = self.swizzle.apply(line) ^ line;
            let line_end = (line + 128).min(end);
            while a < line_end {
                let len = (g - a % g).min(line_end - a);
                let phys = a ^ x;
                match pending.as_mut() {
                    Some((p, _, l)) if *p + *l == phys => *l += len,
                    _ => {
                        if let Some((p, o, l)) = pending {
                            f(p, o, l);
                        }
                        pending = Some((phys, a - start, len));
                    }
                }
                a += len;
            }
        }
        if let Some((p, o, l)) = pending {
            f(p, o, l);
        }
    }

    /// Calls `f` for each piece: runs cut at swizzle granules, then re-joined where the
    /// swizzled addresses happen to continue (always, without a swizzle).
    pub fn for_each_piece(&self, mut f: impl FnMut(Piece)) {
        let g = self.swizzle.granule();
        let mut pending: Option<Piece> = None;
        let mut emit = |p: Piece| {
            if let Some(q) = pending.as_mut() {
                let smem_continues = q.smem + q.len == p.smem;
                let global_continues = match (q.global, p.global) {
                    (None, None) => true,
                    (Some(a), Some(b)) => a.wrapping_add(u64::from(q.len)) == b,
                    _ => false,
                };
                if smem_continues && global_continues && q.box_offset + q.len == p.box_offset {
                    q.len += p.len;
                    return;
                }
                f(*q);
            }
            pending = Some(p);
        };
        self.for_each_run(|r| {
            let mut off = 0;
            while off < r.len {
                let a = self.smem + r.box_offset + off;
                let len = (g - a % g).min(r.len - off);
                emit(Piece {
                    smem: self.swizzle.apply(a),
                    box_offset: r.box_offset + off,
                    len,
                    global: r.global.map(|x| x.wrapping_add(u64::from(off))),
                });
                off += len;
            }
        });
        if let Some(q) = pending {
            f(q);
        }
    }

    /// Calls `f` for every element in shared-memory order (slow path for checkers and tests;
    /// copies use runs). For an im2col copy `index` is (channel, pixel) and `coord` the
    /// element's tensor coordinates.
    pub fn for_each_element(&self, mut f: impl FnMut(Element)) {
        let rows_k = |row: u64| {
            let mut k = [0u32; MAX_RANK];
            if self.im2col.is_some() || self.rows4.is_some() {
                k[1] = row as u32;
            } else {
                let mut rest = row;
                for i in 1..self.rank {
                    k[i] = (rest % u64::from(self.counts[i])) as u32;
                    rest /= u64::from(self.counts[i]);
                }
            }
            k
        };
        self.for_each_row(|row, x, base| {
            let mut index = rows_k(row);
            for k0 in 0..self.counts[0] {
                index[0] = k0;
                let mut coord = *x;
                coord[0] = self.coords[0] + i64::from(k0) * i64::from(self.steps[0]);
                for c in coord.iter_mut().skip(self.rank) {
                    *c = 0;
                }
                let x0 = coord[0];
                let global = base
                    .filter(|_| x0 >= 0 && (x0 as u64) < self.dims[0])
                    .map(|a| a.wrapping_add((x0 as u64).wrapping_mul(self.strides[0])));
                let dense = self.smem + row as u32 * self.pitch + k0 * self.esize;
                f(Element {
                    index,
                    coord,
                    smem: self.swizzle.apply(dense),
                    global,
                });
            }
        });
    }
}

impl Im2colWalk {
    fn new(desc: &TensorMapDesc, p: &Im2colParams, coords: &[i32], offsets: &[i16]) -> Self {
        let spatial = (desc.rank as usize).saturating_sub(2).min(3);
        let mut w = Im2colWalk {
            spatial,
            lo: [0; 3],
            hi: [0; 3],
            start: [0; 3],
            pixels: u32::from(p.pixels),
        };
        for j in 0..spatial {
            let off = i64::from(offsets.get(j).copied().unwrap_or(0));
            w.lo[j] = i64::from(p.lower[j]) + off;
            // Runs before the map is validated (dims ≤ 2^32 then): clamp so a broken map
            // cannot overflow.
            let dim = desc.global_dims[j + 1].min(1 << 40) as i64;
            w.hi[j] = dim + i64::from(p.upper[j]) + off;
            w.start[j] = i64::from(coords.get(j + 1).copied().unwrap_or(0)) + off;
        }
        w
    }
}

/// What an out-of-bounds element reads as (little-endian bytes; first `esize` used).
fn fill_pattern(ty: TmElemType, fill: OobFill) -> [u8; 8] {
    if fill == OobFill::Zero {
        return [0; 8];
    }
    // The H100 writes the 16-bit pattern 0x7FF7 over every element (module docs).
    let nan: u64 = match ty {
        TmElemType::F16 | TmElemType::BF16 => 0x7FF7,
        TmElemType::F32 | TmElemType::F32Ftz | TmElemType::TF32 | TmElemType::TF32Ftz => {
            0x7FF7_7FF7
        }
        TmElemType::F64 => 0x7FF7_7FF7_7FF7_7FF7,
        // validate() rejects OOB-NaN for non-float types.
        _ => 0,
    };
    nan.to_le_bytes()
}
