// Reproduces the mechanism of facebookexperimental/triton#1694 (fixed by PR #1707): in the
// warp-specialised paired-MMA (.cta_group::2) path, the cleanup phase freed TMEM after a
// CTA-local barrier only; the barrier.cluster arrive/wait pair around the .cta_group::2
// dealloc was missing. A .cta_group::2 dealloc requires both CTAs of the pair to have finished
// (and synchronised) their TMEM accesses (PTX ISA §9.7.16.7.1; tmemu TM0201), but the peer's
// epilogue may still be reading its TMEM when this CTA's warp deallocates.
// Here: both CTAs allocate with .cta_group::2 (a cluster barrier publishes the allocation),
// each CTA's 4 warps store and read back their own TMEM, then warp 0 deallocates after
// __syncthreads alone; the peer (rank 1) reaches its epilogue late. Fixed: tcgen05 fences around
// barrier.cluster.arrive.release / wait.acquire before the dealloc.
// Launch: grid 2, cluster 2, 128 threads per CTA.
#include "bugs.cuh"

extern "C" __global__ void pair_dealloc_without_cluster_sync(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t slot;
  const uint32_t w = warp_id();
  if (w == 0) {
    tc_alloc2(smem_u32(&slot), 32);
    tc_relinquish2();
  }
  tc_fence_before();
  cluster_sync();  // both halves of the collective alloc are done; the address is published
  tc_fence_after();
  const uint32_t taddr = lane_quarter(slot);
  if (cluster_rank() == 1) {
    // the peer's epilogue runs late (its last tile's MMA finishes later)
    for (int i = 0; i < 64; ++i) asm volatile("nanosleep.u32 100;" ::: "memory");
  }
  const uint32_t v = in[blockIdx.x * blockDim.x + threadIdx.x];
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(taddr), "r"(v)
               : "memory");
  tc_wait_st();
  uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" SITE("peer_read")
               : "=r"(r)
               : "r"(taddr)
               : "memory");
  tc_wait_ld();
  tc_fence_before();
  __syncthreads();
#if TMEM_FIXED
  cluster_sync();  // the peer's TMEM accesses are finished too
#endif
  tc_fence_after();
  if (w == 0) {
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" SITE("dealloc")::"r"(
                     slot)
                 : "memory");
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = r + 1;
}
