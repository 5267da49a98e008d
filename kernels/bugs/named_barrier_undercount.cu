// Reproduces the mechanism of Dao-AILab/quack PR #146 (SM100 GEMM, gather_A): the EpilogueLoad
// named barrier orders the epilogue-load warp after the A/B TMA-load warps' first loads; every
// A/B load warp executes bar.arrive and the epilogue-load warp bar.sync, but the participant
// count was hard-coded to 2 warps (64 threads) for the one-load-warp case. With 4 load warps
// (gather_A), once they have all arrived (two complete barrier instances of 64 with nobody
// waiting), the epilogue warp's bar.sync is alone in a fresh instance and waits forever.
// Here: warps 0-3 load (one bulk copy each) and arrive; warp 4, the epilogue-load warp, first
// prepares its own work (a delay of ~100 us, longer than any scheduling quantum, so that it
// reaches the barrier last, the order that hangs) and then syncs. Fixed: the count is
// (number of load warps + 1) * 32.
// Launch: grid 1, 160 threads.
#include "bugs.cuh"

#if TMEM_FIXED
#define EPI_LOAD_THREADS "160"
#else
#define EPI_LOAD_THREADS "64"  // 2 * WARP_SIZE: right only with a single load warp
#endif

extern "C" __global__ void named_barrier_undercount(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t tile[4][32];
  __shared__ __align__(8) uint64_t loaded[4];
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (threadIdx.x < 4) mbar_init(smem_u32(&loaded[threadIdx.x]), 1);
  __syncthreads();
  if (w < 4) {  // A/B load warps: issue the first tile's load, then tell the epilogue warp
    if (lane == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 128;" ::"r"(
                       smem_u32(&loaded[w]))
                   : "memory");
      asm volatile(
          "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], 128, "
          "[%2];" ::"r"(smem_u32(tile[w])),
          "l"(in + 32 * w), "r"(smem_u32(&loaded[w]))
          : "memory");
    }
    __syncwarp();
    asm volatile("bar.arrive 1, " EPI_LOAD_THREADS ";" ::: "memory");
    mbar_wait(smem_u32(&loaded[w]), 0);
    out[threadIdx.x] = tile[w][lane];
  } else {  // epilogue-load warp
#pragma unroll 1
    for (int i = 0; i < 1024; ++i) asm volatile("nanosleep.u32 100;" ::: "memory");
    asm volatile("bar.sync 1, " EPI_LOAD_THREADS ";" SITE("sync")::: "memory");
    out[threadIdx.x] = in[threadIdx.x] + 1;
  }
}
