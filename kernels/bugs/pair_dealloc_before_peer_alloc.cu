// Reproduces the mechanism of NVIDIA/cutlass#3435: with .cta_group::2, one CTA of the pair runs
// tcgen05.dealloc before its peer's tcgen05.alloc has completed; nothing synchronises the pair
// between the collective alloc and the collective dealloc. Reported as a deterministic
// "unspecified launch failure" on sm_103a when the follower CTA (rank 1) reaches its alloc late;
// a barrier.cluster anywhere between alloc and dealloc removes it (the fix here).
// Launch: grid 2, cluster 2, one warp per CTA.
#include "bugs.cuh"

extern "C" __global__ void pair_dealloc_before_peer_alloc(uint32_t* out) {
  __shared__ uint32_t slot;
  if (cluster_rank() == 1) {
    // The follower arrives late at the collective alloc (the report's delay before alloc).
    for (int i = 0; i < 64; ++i) asm volatile("nanosleep.u32 100;" ::: "memory");
  }
  tc_alloc2(smem_u32(&slot), 32);
  tc_relinquish2();
  const uint32_t tmem = slot;  // written by this warp's own alloc
#if TMEM_FIXED
  cluster_sync();  // both CTAs' allocs have completed before either deallocates
#endif
  asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" SITE("dealloc")::"r"(tmem)
               : "memory");
  out[blockIdx.x * blockDim.x + threadIdx.x] = cluster_rank();
}
