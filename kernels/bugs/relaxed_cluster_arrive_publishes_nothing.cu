// Reproduces the mechanism of the review of sgl-project/sglang PR #38829 (DSA top-k, cluster
// rework): rank 0 writes a threshold to its own shared memory, the cluster meets at
// `barrier.cluster.arrive.relaxed` + `barrier.cluster.wait`, and the other ranks read the
// threshold from rank 0's shared memory (mapa + ld.shared::cluster). A relaxed arrive orders
// execution only: it is not a release, so the wait's acquire synchronises with nothing and
// rank 0's st.shared and the peers' remote loads are a data race (PTX ISA §9.7.13.3: `.relaxed`
// "does not provide any memory ordering"; §8 for the race): TM0211 at the remote load, related
// to the store. Fixed: barrier.cluster.arrive.release (the default).
// Launch: grid 2, cluster 2, 32 threads.
#include "bugs.cuh"

extern "C" __global__ void relaxed_cluster_arrive_publishes_nothing(const uint32_t* in,
                                                                     uint32_t* out) {
  __shared__ uint32_t threshold;
  const uint32_t rank = cluster_rank();
  if (rank == 0 && threadIdx.x == 0)
    asm volatile("st.shared.u32 [%0], %1;" SITE("store")::"r"(smem_u32(&threshold)), "r"(in[0])
                 : "memory");
#if TMEM_FIXED
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#else
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  uint32_t v = 0;
  if (rank == 1) {
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(smem_u32(&threshold)));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" SITE("load") : "=r"(v) : "r"(remote) : "memory");
  }
  out[blockIdx.x * 32 + threadIdx.x] = v;
  cluster_sync();  // rank 0 stays until rank 1 has read its shared memory
}
