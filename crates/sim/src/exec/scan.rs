//! The bounds and alignment scans of the warp-wide `ld`/`st` paths, four lanes at a time.
//!
//! Baseline x86-64 has no 64-bit or unsigned vector compares, and LLVM leaves the scalar
//! per-lane loops of these scans unvectorised (about ten instructions per lane). SSE2 (part of
//! every x86-64 CPU) does them on 32-bit halves: unsigned `x <= y` is signed `x ^ 2^31 <= y ^
//! 2^31`, and a movemask turns four lane verdicts into four bits. Other targets run the scalar
//! loop. Both give the same bits; `tests` compares them on random and edge inputs.

/// Bit `l` set when lane `l`'s shared address `addrs[l]` (low 32 bits: rank in bits 24..,
/// `SHARED_BASE + offset` below) is *not* an access of the executing CTA (rank bits 0 or
/// `me`) at an offset that is a multiple of `amask + 1` and at most `limit`; `offs` receives
/// every lane's offset.
#[inline(always)]
pub(crate) fn shared_bad_lanes(
    addrs: &[u64; 32],
    me: u32,
    amask: u32,
    limit: u32,
    base: u32,
    offs: &mut [u32; 32],
) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline; loads and stores are unaligned ones
        // within the arrays.
        unsafe { sse2::shared_bad_lanes(addrs, me, amask, limit, base, offs) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        shared_bad_lanes_scalar(addrs, me, amask, limit, base, offs)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn shared_bad_lanes_scalar(
    addrs: &[u64; 32],
    me: u32,
    amask: u32,
    limit: u32,
    base: u32,
    offs: &mut [u32; 32],
) -> u32 {
    let mut bad = 0u32;
    for l in 0..32 {
        let a = addrs[l] as u32;
        let off = (a & 0x00ff_ffff).wrapping_sub(base);
        offs[l] = off;
        let hi = a >> 24;
        let good = ((hi == 0) | (hi == me)) & (off & amask == 0) & (off <= limit);
        bad |= (!good as u32) << l;
    }
    bad
}

/// Bit `l` set when lane `l`'s global access at `addrs[l]` does *not* lie at an offset of at
/// most `room` from `start` (`addrs[l] - start`, wrapping) or is not a multiple of
/// `amask + 1`.
#[inline(always)]
pub(crate) fn global_bad_lanes(addrs: &[u64; 32], start: u64, room: u64, amask: u64) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Ok(room) = u32::try_from(room) {
        // SAFETY: as in `shared_bad_lanes`
        return unsafe { sse2::global_bad_lanes(addrs, start, room, amask as u32) };
    }
    global_bad_lanes_scalar(addrs, start, room, amask)
}

#[inline(always)]
fn global_bad_lanes_scalar(addrs: &[u64; 32], start: u64, room: u64, amask: u64) -> u32 {
    let mut bad = 0u32;
    for (l, &a) in addrs.iter().enumerate() {
        let out = (a.wrapping_sub(start) > room) | (a & amask != 0);
        bad |= (out as u32) << l;
    }
    bad
}

/// Bit `l` set when `v[l] != 0` (the `cp.async` lanes that read at least one source byte).
#[inline(always)]
pub(crate) fn nonzero_lanes(v: &[u32; 32]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline; unaligned loads within the array.
        unsafe { sse2::nonzero_lanes(v) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        nonzero_lanes_scalar(v)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn nonzero_lanes_scalar(v: &[u32; 32]) -> u32 {
    let mut bits = 0u32;
    for (l, &x) in v.iter().enumerate() {
        bits |= u32::from(x != 0) << l;
    }
    bits
}

/// The full-warp `cp.async` scans (exec/cp_async.rs), which keep the offsets they check: every
/// lane is active, so there is no mask, and the verdict is one bool for the warp, accumulated
/// across lanes instead of a bit per lane.
///
/// Global: `offs[l]` receives the low half of `x = regs[l] + add` (wrapping; `add` is the
/// instruction's offset minus the buffer's start, so `x` is the lane's offset in the buffer);
/// true when every `x` is at most `room` and a multiple of `amask + 1`. `room` must be at
/// most `i32::MAX`: then `x <= room` is "high half 0, low half non-negative as i32 and not
/// above `room`", which SSE2's signed 32-bit compare can decide.
#[inline(always)]
pub(crate) fn global_offsets(
    regs: &[u64; 32],
    add: u64,
    room: u32,
    amask: u32,
    offs: &mut [u32; 32],
) -> bool {
    debug_assert!(room <= i32::MAX as u32);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: as in `shared_bad_lanes`
        unsafe { sse2::global_offsets(regs, add, room, amask, offs) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        global_offsets_scalar(regs, add, room, amask, offs)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn global_offsets_scalar(
    regs: &[u64; 32],
    add: u64,
    room: u32,
    amask: u32,
    offs: &mut [u32; 32],
) -> bool {
    let mut ok = true;
    for l in 0..32 {
        let x = regs[l].wrapping_add(add);
        offs[l] = x as u32;
        ok &= (x <= u64::from(room)) & (x as u32 & amask == 0);
    }
    ok
}

/// Shared, for the executing CTA's own window without a rank (rank bits 0): `offs[l]`
/// receives `off = regs[l] + add` (wrapping; `add` is the instruction's offset minus
/// `SHARED_BASE`); true when every `off` is at most `limit` and a multiple of `amask + 1`.
/// With `limit + SHARED_BASE < 2^24` (the caller's condition) that is exactly
/// [`shared_bad_lanes`] finding no lane bad with every lane's rank bits 0: `off <= limit`
/// puts the address `off + SHARED_BASE` below 2^24, so its rank bits are 0 and its offset is
/// `off`. A lane that names its rank explicitly fails here (the general scan takes it).
#[inline(always)]
pub(crate) fn shared_offsets_own(
    regs: &[u32; 32],
    add: u32,
    amask: u32,
    limit: u32,
    offs: &mut [u32; 32],
) -> bool {
    debug_assert!(limit <= i32::MAX as u32);
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: as in `shared_bad_lanes`
        unsafe { sse2::shared_offsets_own(regs, add, amask, limit, offs) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        shared_offsets_own_scalar(regs, add, amask, limit, offs)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn shared_offsets_own_scalar(
    regs: &[u32; 32],
    add: u32,
    amask: u32,
    limit: u32,
    offs: &mut [u32; 32],
) -> bool {
    let mut ok = true;
    for l in 0..32 {
        let off = regs[l].wrapping_add(add);
        offs[l] = off;
        ok &= (off <= limit) & (off & amask == 0);
    }
    ok
}

/// Whether every lane of a `cp.async` source-size register reads its whole chunk
/// (`Some(true)`: each `v[l] >= size`) or none of it (`Some(false)`: each `v[l] == 0`);
/// `None` for a mix. `size` is a power of two.
#[inline(always)]
pub(crate) fn all_or_none(v: &[u32; 32], size: u32) -> Option<bool> {
    debug_assert!(size.is_power_of_two());
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: as in `nonzero_lanes`
        unsafe { sse2::all_or_none(v, size) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        all_or_none_scalar(v, size)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn all_or_none_scalar(v: &[u32; 32], size: u32) -> Option<bool> {
    if v.iter().all(|&x| x >= size) {
        Some(true)
    } else if v.iter().all(|&x| x == 0) {
        Some(false)
    } else {
        None
    }
}

/// The full-warp `cp.async` scans with AVX2 (eight 32-bit lanes per instruction, `vptest`
/// for the verdict), for CPUs that have it (`cp_async::full_warp` checks at run time): the
/// same results as the SSE2 functions above, which the tests hold them to.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use std::arch::x86_64::*;

    #[inline(always)]
    unsafe fn all_zero(acc: __m256i) -> bool {
        _mm256_testz_si256(acc, acc) != 0
    }

    /// [`super::global_offsets`].
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn global_offsets(
        regs: &[u64; 32],
        add: u64,
        room: u32,
        amask: u32,
        offs: &mut [u32; 32],
    ) -> bool {
        debug_assert!(room <= i32::MAX as u32);
        let add = _mm256_set1_epi64x(add as i64);
        let room = _mm256_set1_epi32(room as i32);
        let (mut or, mut above) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        for q in 0..4 {
            let p = regs.as_ptr().add(8 * q) as *const __m256i;
            let x0 = _mm256_add_epi64(_mm256_loadu_si256(p), add);
            let x1 = _mm256_add_epi64(_mm256_loadu_si256(p.add(1)), add);
            or = _mm256_or_si256(or, _mm256_or_si256(x0, x1));
            // low halves per 128-bit lane: (x0 0 1, x1 0 1 | x0 2 3, x1 2 3); the compare
            // does not care about the order, the store puts them in lane order
            let lo = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(
                _mm256_castsi256_ps(x0),
                _mm256_castsi256_ps(x1),
            ));
            above = _mm256_or_si256(above, _mm256_cmpgt_epi32(lo, room));
            let lo = _mm256_permute4x64_epi64::<0b11_01_10_00>(lo);
            _mm256_storeu_si256(offs.as_mut_ptr().add(8 * q) as *mut __m256i, lo);
        }
        let lo_bits = (0x8000_0000 | amask) as i32;
        let keep = _mm256_set_epi32(-1, lo_bits, -1, lo_bits, -1, lo_bits, -1, lo_bits);
        all_zero(_mm256_or_si256(_mm256_and_si256(or, keep), above))
    }

    /// [`super::shared_offsets_own`].
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn shared_offsets_own(
        regs: &[u32; 32],
        add: u32,
        amask: u32,
        limit: u32,
        offs: &mut [u32; 32],
    ) -> bool {
        debug_assert!(limit <= i32::MAX as u32);
        let add = _mm256_set1_epi32(add as i32);
        let limit = _mm256_set1_epi32(limit as i32);
        let (mut or, mut above) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        for q in 0..4 {
            let r = _mm256_loadu_si256(regs.as_ptr().add(8 * q) as *const __m256i);
            let off = _mm256_add_epi32(r, add);
            _mm256_storeu_si256(offs.as_mut_ptr().add(8 * q) as *mut __m256i, off);
            or = _mm256_or_si256(or, off);
            above = _mm256_or_si256(above, _mm256_cmpgt_epi32(off, limit));
        }
        let keep = _mm256_set1_epi32((0x8000_0000 | amask) as i32);
        all_zero(_mm256_or_si256(_mm256_and_si256(or, keep), above))
    }

    /// [`super::all_or_none`].
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn all_or_none(v: &[u32; 32], size: u32) -> Option<bool> {
        debug_assert!(size.is_power_of_two());
        let zero = _mm256_setzero_si256();
        let high = _mm256_set1_epi32(!(size - 1) as i32);
        let (mut short, mut or) = (zero, zero);
        for q in 0..4 {
            let x = _mm256_loadu_si256(v.as_ptr().add(8 * q) as *const __m256i);
            short = _mm256_or_si256(short, _mm256_cmpeq_epi32(_mm256_and_si256(x, high), zero));
            or = _mm256_or_si256(or, x);
        }
        if all_zero(short) {
            Some(true)
        } else if all_zero(or) {
            Some(false)
        } else {
            None
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// The low 32 bits of four u64 lanes at `p` (lanes 0..4 in order).
    #[inline(always)]
    unsafe fn low_halves(p: *const u64) -> __m128i {
        let v0 = _mm_loadu_si128(p as *const __m128i);
        let v1 = _mm_loadu_si128(p.add(2) as *const __m128i);
        // [lo0, lo1, ..] of each, then the two pairs side by side
        let s0 = _mm_shuffle_epi32::<0b10_00_10_00>(v0);
        let s1 = _mm_shuffle_epi32::<0b10_00_10_00>(v1);
        _mm_unpacklo_epi64(s0, s1)
    }

    /// Unsigned `x > y` per 32-bit lane.
    #[inline(always)]
    unsafe fn gt_u32(x: __m128i, y: __m128i) -> __m128i {
        let sign = _mm_set1_epi32(i32::MIN);
        _mm_cmpgt_epi32(_mm_xor_si128(x, sign), _mm_xor_si128(y, sign))
    }

    #[inline(always)]
    unsafe fn bits(good: __m128i) -> u32 {
        _mm_movemask_ps(_mm_castsi128_ps(good)) as u32
    }

    #[inline(always)]
    pub(super) unsafe fn nonzero_lanes(v: &[u32; 32]) -> u32 {
        let zero = _mm_setzero_si128();
        let mut is_zero = 0u32;
        for q in 0..8 {
            let x = _mm_loadu_si128(v.as_ptr().add(4 * q) as *const __m128i);
            is_zero |= bits(_mm_cmpeq_epi32(x, zero)) << (4 * q);
        }
        !is_zero
    }

    /// All lanes' bits of `acc` (four 32-bit lanes) zero.
    #[inline(always)]
    unsafe fn all_zero(acc: __m128i) -> bool {
        _mm_movemask_epi8(_mm_cmpeq_epi32(acc, _mm_setzero_si128())) == 0xffff
    }

    #[inline(always)]
    pub(super) unsafe fn global_offsets(
        regs: &[u64; 32],
        add: u64,
        room: u32,
        amask: u32,
        offs: &mut [u32; 32],
    ) -> bool {
        let add = _mm_set1_epi64x(add as i64);
        let room = _mm_set1_epi32(room as i32);
        // `or`: every offset's bits (high halves must be 0; low halves non-negative and
        // aligned); `above`: a low half above `room`
        let (mut or, mut above) = (_mm_setzero_si128(), _mm_setzero_si128());
        for q in 0..8 {
            let p = regs.as_ptr().add(4 * q);
            let x0 = _mm_add_epi64(_mm_loadu_si128(p as *const __m128i), add);
            let x1 = _mm_add_epi64(_mm_loadu_si128(p.add(2) as *const __m128i), add);
            or = _mm_or_si128(or, _mm_or_si128(x0, x1));
            // the four low halves in lane order, one shuffle
            let lo = _mm_castps_si128(_mm_shuffle_ps::<0b10_00_10_00>(
                _mm_castsi128_ps(x0),
                _mm_castsi128_ps(x1),
            ));
            _mm_storeu_si128(offs.as_mut_ptr().add(4 * q) as *mut __m128i, lo);
            above = _mm_or_si128(above, _mm_cmpgt_epi32(lo, room));
        }
        // (low, high) halves: the sign and alignment bits of the low, all of the high
        let lo_bits = (0x8000_0000 | amask) as i32;
        let keep = _mm_set_epi32(-1, lo_bits, -1, lo_bits);
        all_zero(_mm_or_si128(_mm_and_si128(or, keep), above))
    }

    #[inline(always)]
    pub(super) unsafe fn shared_offsets_own(
        regs: &[u32; 32],
        add: u32,
        amask: u32,
        limit: u32,
        offs: &mut [u32; 32],
    ) -> bool {
        let add = _mm_set1_epi32(add as i32);
        let limit = _mm_set1_epi32(limit as i32);
        let (mut or, mut above) = (_mm_setzero_si128(), _mm_setzero_si128());
        for q in 0..8 {
            let off = _mm_add_epi32(
                _mm_loadu_si128(regs.as_ptr().add(4 * q) as *const __m128i),
                add,
            );
            _mm_storeu_si128(offs.as_mut_ptr().add(4 * q) as *mut __m128i, off);
            or = _mm_or_si128(or, off);
            above = _mm_or_si128(above, _mm_cmpgt_epi32(off, limit));
        }
        let keep = _mm_set1_epi32((0x8000_0000 | amask) as i32);
        all_zero(_mm_or_si128(_mm_and_si128(or, keep), above))
    }

    #[inline(always)]
    pub(super) unsafe fn all_or_none(v: &[u32; 32], size: u32) -> Option<bool> {
        let zero = _mm_setzero_si128();
        // below `size` (a power of two) when no bit at or above its bit is set
        let high = _mm_set1_epi32(!(size - 1) as i32);
        let (mut short, mut or) = (zero, zero);
        for q in 0..8 {
            let x = _mm_loadu_si128(v.as_ptr().add(4 * q) as *const __m128i);
            short = _mm_or_si128(short, _mm_cmpeq_epi32(_mm_and_si128(x, high), zero));
            or = _mm_or_si128(or, x);
        }
        if all_zero(short) {
            Some(true)
        } else if all_zero(or) {
            Some(false)
        } else {
            None
        }
    }

    #[inline(always)]
    pub(super) unsafe fn shared_bad_lanes(
        addrs: &[u64; 32],
        me: u32,
        amask: u32,
        limit: u32,
        base: u32,
        offs: &mut [u32; 32],
    ) -> u32 {
        let (zero, low24) = (_mm_setzero_si128(), _mm_set1_epi32(0x00ff_ffff));
        let (me, amask) = (_mm_set1_epi32(me as i32), _mm_set1_epi32(amask as i32));
        let (limit, base) = (_mm_set1_epi32(limit as i32), _mm_set1_epi32(base as i32));
        let mut good = 0u32;
        for q in 0..8 {
            let a = low_halves(addrs.as_ptr().add(4 * q));
            let off = _mm_sub_epi32(_mm_and_si128(a, low24), base);
            _mm_storeu_si128(offs.as_mut_ptr().add(4 * q) as *mut __m128i, off);
            let hi = _mm_srli_epi32::<24>(a);
            let rank = _mm_or_si128(_mm_cmpeq_epi32(hi, zero), _mm_cmpeq_epi32(hi, me));
            let aligned = _mm_cmpeq_epi32(_mm_and_si128(off, amask), zero);
            let ok = _mm_andnot_si128(gt_u32(off, limit), _mm_and_si128(rank, aligned));
            good |= bits(ok) << (4 * q);
        }
        !good
    }

    #[inline(always)]
    pub(super) unsafe fn global_bad_lanes(
        addrs: &[u64; 32],
        start: u64,
        room: u32,
        amask: u32,
    ) -> u32 {
        let zero = _mm_setzero_si128();
        let start = _mm_set1_epi64x(start as i64);
        let (room, amask) = (_mm_set1_epi32(room as i32), _mm_set1_epi32(amask as i32));
        let mut good = 0u32;
        for q in 0..8 {
            let p = addrs.as_ptr().add(4 * q);
            let (a0, a1) = (
                _mm_loadu_si128(p as *const __m128i),
                _mm_loadu_si128(p.add(2) as *const __m128i),
            );
            // offsets from the buffer start, split into 32-bit halves: in range when the high
            // half is 0 and the low half at most `room`
            let (x0, x1) = (_mm_sub_epi64(a0, start), _mm_sub_epi64(a1, start));
            let lo = _mm_unpacklo_epi64(
                _mm_shuffle_epi32::<0b10_00_10_00>(x0),
                _mm_shuffle_epi32::<0b10_00_10_00>(x1),
            );
            let hi = _mm_unpacklo_epi64(
                _mm_shuffle_epi32::<0b11_01_11_01>(x0),
                _mm_shuffle_epi32::<0b11_01_11_01>(x1),
            );
            let a_lo = low_halves(p);
            let aligned = _mm_cmpeq_epi32(_mm_and_si128(a_lo, amask), zero);
            let near = _mm_and_si128(_mm_cmpeq_epi32(hi, zero), aligned);
            let ok = _mm_andnot_si128(gt_u32(lo, room), near);
            good |= bits(ok) << (4 * q);
        }
        !good
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SplitMix64: a deterministic stream without a dependency.
    fn rng(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    #[test]
    fn nonzero_lanes_equals_the_scalar_loop() {
        let mut next = rng(7);
        for case in 0..20_000u32 {
            let v: [u32; 32] = std::array::from_fn(|_| match next() % 4 {
                0 => 0,
                1 => 1 << (next() % 32),
                2 => u32::MAX,
                _ => next() as u32,
            });
            let v = if case == 0 { [0; 32] } else { v };
            let want = (0..32).fold(0u32, |b, l| b | u32::from(v[l] != 0) << l);
            assert_eq!(nonzero_lanes(&v), want, "{v:?}");
            assert_eq!(nonzero_lanes_scalar(&v), want, "{v:?}");
        }
    }

    #[test]
    fn shared_scan_equals_the_scalar_loop() {
        let mut r = rng(7);
        for case in 0..20_000 {
            let me = (r() % 4) as u32;
            let amask = [0u32, 1, 3, 7, 15][(r() % 5) as usize];
            let limit = [0u32, 1, 100, 0xfff0, u32::MAX, 0x7fff_ffff, 0x8000_0000][case % 7];
            let base = 0x400;
            let mut addrs = [0u64; 32];
            for a in addrs.iter_mut() {
                // ranks 0..5 (own, other, none), offsets near 0, near the limit, wrapping
                let rank = (r() % 6) << 24;
                let off = match r() % 4 {
                    0 => r() % 64,
                    1 => (limit as u64).wrapping_add(r() % 8).wrapping_sub(4),
                    2 => r(),
                    _ => 0x400 + r() % 0x1_0000,
                };
                *a = (r() << 32) | ((rank | (off & 0x00ff_ffff)) & 0xffff_ffff);
            }
            let (mut o1, mut o2) = ([0u32; 32], [0u32; 32]);
            let b1 = shared_bad_lanes(&addrs, me, amask, limit, base, &mut o1);
            let b2 = shared_bad_lanes_scalar(&addrs, me, amask, limit, base, &mut o2);
            assert_eq!(b1, b2, "case {case}: {addrs:x?}");
            assert_eq!(o1, o2, "case {case}");
        }
    }

    #[test]
    fn global_scan_equals_the_scalar_loop() {
        let mut r = rng(11);
        for case in 0..20_000 {
            let start = 0x7f00_0000_0000u64 + (r() % 4096) * 16 + [0, 1, 8][case % 3];
            let room = [0u64, 1, 2046, 0xffff_ffff, 1 << 32, 1 << 40][case % 6];
            let amask = [0u64, 1, 3, 7, 15][(r() % 5) as usize];
            let mut addrs = [0u64; 32];
            for a in addrs.iter_mut() {
                *a = match r() % 5 {
                    0 => start + r() % (room + 1).min(1 << 20),
                    1 => start
                        .wrapping_add(room)
                        .wrapping_add(r() % 8)
                        .wrapping_sub(4),
                    2 => start.wrapping_sub(r() % 64),
                    3 => start + (r() % 4) * (1 << 32) + r() % 16,
                    _ => r(),
                };
            }
            assert_eq!(
                global_bad_lanes(&addrs, start, room, amask),
                global_bad_lanes_scalar(&addrs, start, room, amask),
                "case {case}: start {start:x} room {room:x} {addrs:x?}"
            );
        }
    }

    /// The full-warp global scan against the scalar loop and against the definition it
    /// stands for: `global_bad_lanes_scalar` finding no lane bad, for the addresses
    /// `regs[l] + add + start` of a buffer at an aligned `start`; offsets equal where it
    /// accepts.
    #[test]
    fn global_offsets_equal_the_lane_scan() {
        // AVX2 compared too where the CPU has it (every x86-64 CPU of the last decade)
        let mut avx2_cases = 0;
        let mut r = rng(13);
        let mut accepted = 0;
        for case in 0..20_000 {
            let start = 0x7f00_0000_0000u64 + (r() % 4096) * 256;
            let room = [0u32, 16, 1008, 0x7fff_fff0, i32::MAX as u32][case % 5];
            let amask = [3u32, 7, 15][(r() % 3) as usize];
            let off = [0u64, 16, 4096, (-16i64) as u64][(r() % 4) as usize];
            // mostly in range (so whole warps pass), one lane bent at random in others
            let mut regs: [u64; 32] = std::array::from_fn(|_| {
                let x = r() % (u64::from(room) + 1);
                (start + (x & !u64::from(amask))).wrapping_sub(off)
            });
            if case % 3 != 0 {
                let l = (r() % 32) as usize;
                regs[l] = match r() % 6 {
                    0 => start.wrapping_sub(off) + u64::from(room) + 1 + r() % 64,
                    1 => start.wrapping_sub(off).wrapping_sub(1 + r() % 64),
                    2 => regs[l] + 1 + r() % u64::from(amask),
                    3 => regs[l].wrapping_add(1 << 32),
                    4 => regs[l].wrapping_add(1 << 31),
                    _ => r(),
                };
            }
            let add = off.wrapping_sub(start);
            let (mut o1, mut o2) = ([0u32; 32], [0u32; 32]);
            let got = global_offsets(&regs, add, room, amask, &mut o1);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                let mut o = [0u32; 32];
                // SAFETY: AVX2 detected
                let a = unsafe { avx2::global_offsets(&regs, add, room, amask, &mut o) };
                assert_eq!(a, got, "avx2, case {case}");
                if a {
                    assert_eq!(o, o1, "avx2, case {case}");
                }
                avx2_cases += 1;
            }
            let scalar = global_offsets_scalar(&regs, add, room, amask, &mut o2);
            let addrs: [u64; 32] = std::array::from_fn(|l| regs[l].wrapping_add(off));
            let want =
                global_bad_lanes_scalar(&addrs, start, u64::from(room), u64::from(amask)) == 0;
            assert_eq!(got, want, "case {case}: {regs:x?}");
            assert_eq!(scalar, want, "case {case}");
            if want {
                let offs: [u32; 32] = std::array::from_fn(|l| (addrs[l] - start) as u32);
                assert_eq!(o1, offs, "case {case}");
                assert_eq!(o2, offs, "case {case}");
                accepted += 1;
            }
        }
        assert!((5_000..15_000).contains(&accepted), "{accepted}");
        eprintln!("{avx2_cases} cases compared with AVX2");
    }

    /// The full-warp shared scan against the scalar loop and against `shared_bad_lanes`
    /// with every lane active, for the executing CTA 0 (own window: rank bits 0) and any
    /// window limit below 2^24 - SHARED_BASE.
    #[test]
    fn shared_offsets_own_equal_the_lane_scan() {
        // AVX2 compared too where the CPU has it (every x86-64 CPU of the last decade)
        let mut avx2_cases = 0;
        let mut r = rng(17);
        let base = crate::mem::SHARED_BASE;
        let mut accepted = 0;
        for case in 0..20_000 {
            let limit = [0u32, 16, 1008, 232_432, (1 << 24) - base - 1][case % 5];
            let amask = [3u32, 7, 15][(r() % 3) as usize];
            let off = [0u32, 16, 1024, (-16i32) as u32][(r() % 4) as usize];
            let mut regs: [u32; 32] = std::array::from_fn(|_| {
                let x = (r() % (u64::from(limit) + 1)) as u32;
                (base + (x & !amask)).wrapping_sub(off)
            });
            if case % 3 != 0 {
                let l = (r() % 32) as usize;
                regs[l] = match r() % 6 {
                    0 => (base + limit + 1 + (r() % 64) as u32).wrapping_sub(off),
                    1 => (base - 1 - (r() % 64) as u32).wrapping_sub(off),
                    2 => regs[l] + 1 + (r() as u32) % amask,
                    // the rank bits of CTA 1 or any other
                    3 => regs[l].wrapping_add(1 << 24),
                    4 => regs[l].wrapping_add((r() as u32) << 24),
                    _ => r() as u32,
                };
            }
            let add = off.wrapping_sub(base);
            let (mut o1, mut o2, mut o3) = ([0u32; 32], [0u32; 32], [0u32; 32]);
            let got = shared_offsets_own(&regs, add, amask, limit, &mut o1);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                let mut o = [0u32; 32];
                // SAFETY: AVX2 detected
                let a = unsafe { avx2::shared_offsets_own(&regs, add, amask, limit, &mut o) };
                assert_eq!(a, got, "avx2, case {case}");
                if a {
                    assert_eq!(o, o1, "avx2, case {case}");
                }
                avx2_cases += 1;
            }
            let scalar = shared_offsets_own_scalar(&regs, add, amask, limit, &mut o2);
            let addrs: [u64; 32] = std::array::from_fn(|l| u64::from(regs[l].wrapping_add(off)));
            let want = shared_bad_lanes_scalar(&addrs, 0, amask, limit, base, &mut o3) == 0;
            assert_eq!(got, want, "case {case}: {regs:x?}");
            assert_eq!(scalar, want, "case {case}");
            if want {
                assert_eq!(o1, o3, "case {case}");
                assert_eq!(o2, o3, "case {case}");
                accepted += 1;
            }
        }
        assert!((5_000..15_000).contains(&accepted), "{accepted}");
        eprintln!("{avx2_cases} cases compared with AVX2");
    }

    #[test]
    fn all_or_none_equals_the_scalar_loop() {
        // AVX2 compared too where the CPU has it (every x86-64 CPU of the last decade)
        let mut avx2_cases = 0;
        let mut r = rng(19);
        let mut seen = [0; 3];
        for case in 0..20_000 {
            let size = [4u32, 8, 16][case % 3];
            let kind = r() % 3;
            let v: [u32; 32] = std::array::from_fn(|_| match (kind, r() % 8) {
                (0, _) | (2, 1..) => {
                    [size, size + 1, size + 7, 1 << 31, u32::MAX][(r() % 5) as usize]
                }
                (1, _) | (2, 0) => 0,
                _ => unreachable!(),
            });
            let mut v = v;
            if case % 5 == 0 {
                // one lane partial or just below the size
                v[(r() % 32) as usize] = [1, size - 1, size / 2][(r() % 3) as usize];
            }
            let want = all_or_none_scalar(&v, size);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: AVX2 detected
                let a = unsafe { avx2::all_or_none(&v, size) };
                assert_eq!(a, want, "avx2, case {case}: size {size} {v:?}");
                avx2_cases += 1;
            }
            assert_eq!(
                all_or_none(&v, size),
                want,
                "case {case}: size {size} {v:?}"
            );
            seen[match want {
                Some(true) => 0,
                Some(false) => 1,
                None => 2,
            }] += 1;
            // the definition: clamped source sizes all `size`, or all 0
            let n: Vec<u32> = v.iter().map(|&x| x.min(size)).collect();
            let def = if n.iter().all(|&x| x == size) {
                Some(true)
            } else if n.iter().all(|&x| x == 0) {
                Some(false)
            } else {
                None
            };
            assert_eq!(want, def, "case {case}");
        }
        assert!(seen.iter().all(|&s| s > 2_000), "{seen:?}");
        eprintln!("{avx2_cases} cases compared with AVX2");
    }
}
