// Reproduces the mechanism of vllm-project/flash-attention PR #182 (SM100 hd256 2-CTA FMHA
// forward): the correction warps read the O accumulator from TMEM with tcgen05.ld and release
// the O slot (fence::before_thread_sync + mbarrier.arrive) without tcgen05.wait::ld first.
// tcgen05.ld is asynchronous: consuming its registers later is ordered by the scoreboard, but
// the load's TMEM read is ordered against a later writer only by tcgen05.wait::ld (PTX ISA
// §9.7.16.6.4.4, §9.7.16.8.5). The MMA warp waits the release and issues the next tile's MMA
// into the same columns, which may overwrite O while the load still reads it: TM0205 at the
// MMA, related to the load. Fixed: tcgen05.wait::ld before the release.
// Launch: grid 1, 160 threads: warps 0-3 correction (one lane quarter each), warp 4 MMA.
#include "bugs.cuh"

extern "C" __global__ void o_release_before_wait_ld(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(1024) uint8_t sA[128 * 16 * 2];
  __shared__ __align__(1024) uint8_t sB[2][32 * 16 * 2];
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t o_full, o_empty, o_next;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 4) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&o_full), 1);
    mbar_init(smem_u32(&o_empty), 128);
    mbar_init(smem_u32(&o_next), 1);
  }
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sA + k32_offset(i / 16, i % 16)) = (uint16_t)in[i];
  for (int v = 0; v < 2; ++v)
    for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
      *reinterpret_cast<uint16_t*>(sB[v] + k32_offset(i / 16, i % 16)) =
          (uint16_t)in[2048 + 512 * v + i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  tc_sync_cta();
  const uint32_t o = slot;
  uint32_t result = 0;
  if (w == 4) {  // MMA warp
    if (lane == 0) {
      mma_f16(o, k32_desc(smem_u32(sA)), k32_desc(smem_u32(sB[0])));  // O of tile 0
      commit(smem_u32(&o_full));
    }
    __syncwarp();
    mbar_wait(smem_u32(&o_empty), 0);  // the correction warps released O
    tc_fence_after();
    if (lane == 0) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;" SITE("mma") "\n}" ::"r"(o),
          "l"(k32_desc(smem_u32(sA))), "l"(k32_desc(smem_u32(sB[1]))),
          "r"((1u << 4) | ((32u >> 3) << 17) | ((128u >> 4) << 24))
          : "memory");
      commit(smem_u32(&o_next));
    }
    __syncwarp();
  } else {  // correction warps 0-3
    mbar_wait(smem_u32(&o_full), 0);
    tc_fence_after();
    uint32_t r[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];" SITE(
                     "load")
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]),
                   "=r"(r[6]), "=r"(r[7])
                 : "r"(lane_quarter(o))
                 : "memory");
#if TMEM_FIXED
    tc_wait_ld();
#endif
    tc_fence_before();
    mbar_arrive(smem_u32(&o_empty));  // releases O to the MMA warp
#if !TMEM_FIXED
    tc_wait_ld();  // too late: only the registers are ordered now
#endif
    for (int c = 0; c < 8; ++c) result += r[c];
    mbar_wait(smem_u32(&o_next), 0);
    tc_fence_after();
    uint32_t d;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
                 : "=r"(d)
                 : "r"(lane_quarter(o))
                 : "memory");
    tc_wait_ld();
    result ^= d;
  }
  tc_sync_cta();
  if (w == 4) tc_dealloc1(o, 32);
  out[threadIdx.x] = result;
}
