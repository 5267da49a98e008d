// Reproduces the mechanism of NVlabs/cuda-oxide PR #1066 ("fix: gemm sol phase4b"): the
// scheduler warp publishes each tile's coordinates in a shared-memory mailbox (TILE_INFO) and
// signals a "ready" mbarrier, and the consumer warps read the mailbox after waiting on it; the
// mailbox has no "free" barrier (the review: "publish and read TILE_INFO with no ack barrier"),
// so the scheduler is paced only by the pipeline it shares with one consumer (here the MMA
// warp's stage-empty barrier) and overwrites the mailbox for tile t+1 while the epilogue warp
// may still be reading tile t. The fix is a TILE_INFO_FREE barrier that every consumer warp
// arrives on (count = the consumers; there 5, here 2) and the scheduler waits on before the
// next publish, the full/empty pair of CUTLASS's pipelines. tmemu reports TM0211 at the
// scheduler's st.shared of the next tile, related: the epilogue warp's ld.shared, or the read
// related to the store (by schedule).
// Launch: grid 1, 96 threads: warp 0 schedules, warp 1 is the MMA warp, warp 2 the epilogue.
#include "bugs.cuh"

constexpr uint32_t kTiles = 2;

extern "C" __global__ void tile_info_mailbox_without_ack(uint32_t* out) {
  __shared__ __align__(16) uint32_t tile_info;
  __shared__ __align__(8) uint64_t ready, empty;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  const uint32_t rdy = smem_u32(&ready), emp = smem_u32(&empty);
  if (threadIdx.x == 0) {
    mbar_init(rdy, 1);
#if TMEM_FIXED
    mbar_init(emp, 2);  // TILE_INFO_FREE: both consumer warps release the mailbox
#else
    mbar_init(emp, 1);  // the MMA warp's stage-empty barrier: the only pacing
#endif
  }
  __syncthreads();
#pragma unroll 1
  for (uint32_t t = 0; t < kTiles; ++t) {
    if (w == 0) {
      if (lane == 0) {
        if (t > 0) mbar_wait(emp, (t - 1) & 1);
        asm volatile("st.shared.u32 [%0], %1;" SITE("publish")::"r"(smem_u32(&tile_info)),
                     "r"(t * 7u + 1u)
                     : "memory");
        mbar_arrive(rdy);
      }
    } else {
      mbar_wait(rdy, t & 1);
      uint32_t info;
      if (w == 1) {
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(info) : "r"(smem_u32(&tile_info)) : "memory");
      } else {
        asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
                     : "=r"(info)
                     : "r"(smem_u32(&tile_info))
                     : "memory");
      }
      out[(w - 1) * 64 + t * 32 + lane] = info;
      __syncwarp();
#if TMEM_FIXED
      if (lane == 0) mbar_arrive(emp);
#else
      if (w == 1 && lane == 0) mbar_arrive(emp);
#endif
    }
  }
}
