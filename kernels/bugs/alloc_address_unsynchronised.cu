// Reproduces the mechanism of NVIDIA/cutlass PR #2835 (example 77): the MMA warp allocates TMEM
// (tcgen05.alloc writes the address to shared memory with a weak store) and the epilogue warp
// later reads that address and deallocates. With work, the per-tile mbarrier handoffs happen to
// order the write before the read; with zero tiles nothing does. Here the zero-tile path: the
// epilogue warp waits on a relaxed flag, which stands for "it happened to run later" (it fixes
// the execution order so the report is deterministic, but synchronises nothing). Fixed:
// tcgen05.fence::before_thread_sync, a named barrier between the two warps, fence::after.
// Launch: grid 1, 64 threads (warp 0 = MMA warp, warp 1 = epilogue warp).
#include "bugs.cuh"

extern "C" __global__ void alloc_address_unsynchronised(uint32_t* out, uint32_t num_tiles) {
  __shared__ uint32_t slot;
#if !TMEM_FIXED
  __shared__ uint32_t progress;
  if (threadIdx.x == 0) progress = 0;
  __syncthreads();
#endif
  if (warp_id() == 0) {  // MMA warp
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
    // (per-tile MMAs and their mbarrier handoffs would go here; num_tiles == 0 skips them)
#if TMEM_FIXED
    tc_fence_before();
    asm volatile("bar.arrive 1, 64;" ::: "memory");
#else
    asm volatile("st.relaxed.cta.shared.u32 [%0], 1;" ::"r"(smem_u32(&progress)) : "memory");
#endif
  } else {  // epilogue warp
#if TMEM_FIXED
    asm volatile("bar.sync 1, 64;" ::: "memory");
    tc_fence_after();
#else
    uint32_t seen = 0;
    while (seen == 0) {
      asm volatile("ld.relaxed.cta.shared.u32 %0, [%1];"
                   : "=r"(seen)
                   : "r"(smem_u32(&progress))
                   : "memory");
    }
#endif
    uint32_t tmem;
    asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
                 : "=r"(tmem)
                 : "r"(smem_u32(&slot))
                 : "memory");
    tc_dealloc1(tmem, 32);
    out[threadIdx.x - 32] = tmem + num_tiles;
  }
}
