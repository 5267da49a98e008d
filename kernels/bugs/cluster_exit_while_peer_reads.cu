// Reproduces the mechanism of triton-lang/triton#11730 (PR #11731, from #10656): a multi-CTA
// kernel where CTA 0 performs a scalar atomic and the other CTAs read its result from CTA 0's
// shared memory (mapa + ld.shared::cluster). Triton 3.8.0 emits no cluster barrier before
// `ret`, so CTA 0 may exit while a peer still reads its shared memory; a CTA's shared memory
// ends with the CTA, and the remote read then targets a CTA that is gone ("unspecified launch
// failure" on sm_120). Fixed: a cluster barrier before every return of a multi-CTA kernel.
// Launch: grid 2, cluster 2, 32 threads.
#include "bugs.cuh"

extern "C" __global__ void cluster_exit_while_peer_reads(uint32_t* lock, uint32_t* out) {
  __shared__ uint32_t old;
  const uint32_t rank = cluster_rank();
  if (rank == 0 && threadIdx.x == 0) old = atomicCAS(lock, 0u, 1u);
  cluster_sync();  // publishes `old` to the cluster
  uint32_t remote, v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(smem_u32(&old)));
  if (rank == 1) {
    // the peer is slow to get here (in the report: the rest of its 4 warps)
#pragma unroll 1
    for (int i = 0; i < 256; ++i) asm volatile("nanosleep.u32 100;" ::: "memory");
  }
  asm volatile("ld.shared::cluster.u32 %0, [%1];" SITE("load") : "=r"(v) : "r"(remote) : "memory");
  out[blockIdx.x * 32 + threadIdx.x] = v;
#if TMEM_FIXED
  cluster_sync();  // CTA 0 stays until every peer has read its shared memory
#endif
}
