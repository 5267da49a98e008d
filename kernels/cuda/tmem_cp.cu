// Shared memory -> TMEM copies (tcgen05.cp: all five shapes, both multicast forms of
// .64x128b, .32x128b.warpx4, both decompression formats), tcgen05.shift, and
// tcgen05.commit (generic address and .shared::cluster) with mbarrier completion.
// The source matrices come from global memory already arranged as the shared-memory image
// the descriptors describe (K-major, no swizzle: 8-row x 16-byte core matrices).
#include "tc05.cuh"

namespace {
constexpr uint32_t kThreads = 128;
__device__ __forceinline__ uint32_t lane_base(uint32_t warp) { return (32u * warp) << 16; }

// All threads copy `bytes` (multiple of 16 * kThreads) from global to shared, then make the
// generic-proxy writes visible to the async proxy (tcgen05.cp reads shared memory there).
__device__ __forceinline__ void load_image(uint4* dst, const uint4* src, uint32_t bytes) {
  for (uint32_t i = threadIdx.x; i < bytes / 16; i += kThreads) dst[i] = src[i];
  fence_proxy_async_smem();
}
}  // namespace

// One cp of each plain shape and each multicast form, into columns
//   0..7 (.128x256b), 8..11 (.128x128b), 12..15 (.64x128b.warpx2::02_13),
//   16..19 (.64x128b.warpx2::01_23), 20..23 (.32x128b.warpx4);
// committed with the generic-address form of tcgen05.commit; out = TMEM[128][24].
extern "C" __global__ void __launch_bounds__(kThreads)
cp_shapes(const uint4* __restrict__ image, uint32_t* __restrict__ out) {
  __shared__ __align__(128) uint4 smem[8704 / 16];
  __shared__ __align__(8) uint64_t done;
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32;
  if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 32);
  if (threadIdx.x == 0) mbar_init(smem_u32(&done), 1);
  load_image(smem, image, 8704);
  tc_sync_cta();
  const uint32_t tmem = tmem_slot;
  const uint32_t s = smem_u32(smem);
  if (warp == 0 && elect_one()) {
    const uint64_t d0 = smem_desc(s + 0, 128, 256);
    const uint64_t d1 = smem_desc(s + 4096, 128, 128);
    const uint64_t d2 = smem_desc(s + 6144, 128, 128);
    const uint64_t d3 = smem_desc(s + 7168, 128, 128);
    const uint64_t d4 = smem_desc(s + 8192, 128, 128);
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" :: "r"(tmem + 0), "l"(d0) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" :: "r"(tmem + 8), "l"(d1) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%0], %1;"
                 :: "r"(tmem + 12), "l"(d2) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%0], %1;"
                 :: "r"(tmem + 16), "l"(d3) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;"
                 :: "r"(tmem + 20), "l"(d4) : "memory");
    tc_commit1_generic(&done);
  }
  mbar_wait(smem_u32(&done), 0);
  tc_fence_after();
  const uint32_t t = tmem + lane_base(warp);
  uint32_t v[16], w[8];
  tc_ld_32x32b_x16(t, v);
  tc_ld_32x32b_x8(t + 16, w);
  tc_wait_ld();
  for (int c = 0; c < 16; ++c) out[threadIdx.x * 24 + c] = v[c];
  for (int c = 0; c < 8; ++c) out[threadIdx.x * 24 + 16 + c] = w[c];
  tc_sync_cta();
  if (warp == 0) { tc_dealloc1(tmem, 32); tc_relinquish1(); }
}

// .4x256b: 4 rows x 32 bytes into zeroed columns 0..7; commit through .shared::cluster.
// Which lanes receive rows 1..3 is UNCONFIRMED (data-movement.md §5.3: lanes 1..3 by the
// shape's name, lanes 32/64/96 by CUTLASS's model); row 0 lands in lane 0 under both. So the
// kernel reports what both readings agree on: out[0][c] = lane 0, out[1][c] = XOR of column c
// over all 128 lanes (= XOR of the 4 rows), out[2][c] = number of lanes whose cell is nonzero.
extern "C" __global__ void __launch_bounds__(kThreads)
cp_4x256b(const uint4* __restrict__ image, uint32_t* __restrict__ out) {
  __shared__ __align__(128) uint4 smem[256 / 16];
  __shared__ __align__(8) uint64_t done;
  __shared__ uint32_t tmem_slot;
  __shared__ uint32_t col_xor[8], col_nonzero[8];
  const uint32_t warp = threadIdx.x / 32;
  if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 32);
  if (threadIdx.x == 0) mbar_init(smem_u32(&done), 1);
  if (threadIdx.x < 8) {
    col_xor[threadIdx.x] = 0;
    col_nonzero[threadIdx.x] = 0;
  }
  load_image(smem, image, 256);
  tc_sync_cta();
  const uint32_t t = tmem_slot + lane_base(warp);
  uint32_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  tc_st_32x32b_x8(t, v);
  tc_wait_st();
  tc_sync_cta();
  if (warp == 0 && elect_one()) {
    asm volatile("tcgen05.cp.cta_group::1.4x256b [%0], %1;"
                 :: "r"(tmem_slot), "l"(smem_desc(smem_u32(smem), 128, 256)) : "memory");
    tc_commit1_cluster(smem_u32(&done));
  }
  mbar_wait(smem_u32(&done), 0);
  tc_fence_after();
  tc_ld_32x32b_x8(t, v);
  tc_wait_ld();
  for (int c = 0; c < 8; ++c) {
    atomicXor(&col_xor[c], v[c]);
    if (v[c] != 0) atomicAdd(&col_nonzero[c], 1u);
    if (threadIdx.x == 0) out[c] = v[c];
  }
  tc_sync_cta();
  if (threadIdx.x < 8) {
    out[8 + threadIdx.x] = col_xor[threadIdx.x];
    out[16 + threadIdx.x] = col_nonzero[threadIdx.x];
  }
  if (warp == 0) { tc_dealloc1(tmem_slot, 32); tc_relinquish1(); }
}

// Decompressing copies: .128x256b.b8x16.b6x16_p32 into columns 0..7 and
// .128x128b.b8x16.b4x16_p64 into columns 8..11; out = TMEM[128][12].
extern "C" __global__ void __launch_bounds__(kThreads)
cp_decompress(const uint4* __restrict__ image, uint32_t* __restrict__ out) {
  __shared__ __align__(128) uint4 smem[6144 / 16];
  __shared__ __align__(8) uint64_t done;
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32;
  if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 32);
  if (threadIdx.x == 0) mbar_init(smem_u32(&done), 1);
  load_image(smem, image, 6144);
  tc_sync_cta();
  const uint32_t s = smem_u32(smem);
  if (warp == 0 && elect_one()) {
    asm volatile("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%0], %1;"
                 :: "r"(tmem_slot), "l"(smem_desc(s, 128, 256)) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64 [%0], %1;"
                 :: "r"(tmem_slot + 8), "l"(smem_desc(s + 4096, 128, 128)) : "memory");
    tc_commit1_cluster(smem_u32(&done));
  }
  mbar_wait(smem_u32(&done), 0);
  tc_fence_after();
  const uint32_t t = tmem_slot + lane_base(warp);
  uint32_t v[8], w[4];
  tc_ld_32x32b_x8(t, v);
  tc_ld_32x32b_x4(t + 8, w);
  tc_wait_ld();
  for (int c = 0; c < 8; ++c) out[threadIdx.x * 12 + c] = v[c];
  for (int c = 0; c < 4; ++c) out[threadIdx.x * 12 + 8 + c] = w[c];
  tc_sync_cta();
  if (warp == 0) { tc_dealloc1(tmem_slot, 32); tc_relinquish1(); }
}

// tcgen05.shift.cta_group::1.down at lane 0 and at lane 64 of columns 0..7 (columns 8..15
// are a witness that must not move). Row 0 of each shifted 32-row block has no defined
// content afterwards (UNCONFIRMED), so the kernel reports 0 there.
extern "C" __global__ void __launch_bounds__(kThreads)
shift_down(const uint32_t* __restrict__ image, uint32_t* __restrict__ out) {
  __shared__ __align__(8) uint64_t done, stored;
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 32);
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&done), 1);
    mbar_init(smem_u32(&stored), kThreads);
  }
  tc_sync_cta();
  const uint32_t t = tmem_slot + lane_base(warp);
  uint32_t v[16];
  for (int c = 0; c < 16; ++c) v[c] = image[threadIdx.x * 16 + c];
  tc_st_32x32b_x16(t, v);
  // Hand-off through an mbarrier instead of bar.sync (sync.md §4 pattern 4): every thread
  // completes its store, fences, and arrives; the issuing thread waits and fences.
  tc_wait_st();
  tc_fence_before();
  (void)mbar_arrive(smem_u32(&stored));
  if (warp == 0 && elect_one()) {
    mbar_wait(smem_u32(&stored), 0);
    tc_fence_after();
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" :: "r"(tmem_slot) : "memory");
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" :: "r"(tmem_slot + (64u << 16)) : "memory");
    tc_commit1_cluster(smem_u32(&done));
  }
  mbar_wait(smem_u32(&done), 0);
  tc_fence_after();
  tc_ld_32x32b_x16(t, v);
  tc_wait_ld();
  const bool undefined_row = (warp == 0 || warp == 2) && lane == 0;
  for (int c = 0; c < 16; ++c) out[threadIdx.x * 16 + c] = (undefined_row && c < 8) ? 0u : v[c];
  tc_sync_cta();
  if (warp == 0) { tc_dealloc1(tmem_slot, 32); tc_relinquish1(); }
}
