// Reproduces the mechanism of triton-lang/triton#11404 (fixed by PR #11462): a distributed
// layout conversion reads the peer CTA's scratch shared memory (mapa + ld.shared::cluster),
// the CTAs meet at a *relaxed* cluster barrier, and each CTA then reuses its scratch buffer
// for the next value (st.shared). A relaxed arrive gives no memory ordering for the accesses
// before it (PTX ISA §9.7.13.3), so the peer's remote read and the owner's overwrite are not
// ordered: a data race (§8), and the read may see the new value. TM0211 at the overwriting
// st.shared, related to the remote load. Fixed: a release arrive (the strong barrier the PR
// makes the pass insert).
// Launch: grid 2, cluster 2, 32 threads.
#include "bugs.cuh"

extern "C" __global__ void relaxed_cluster_barrier_before_reuse(const uint32_t* in,
                                                                 uint32_t* out) {
  __shared__ uint32_t scratch[32];
  const uint32_t rank = cluster_rank();
  scratch[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
  cluster_sync();  // the scratch tiles are published
  uint32_t remote, v;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(smem_u32(&scratch[threadIdx.x ^ 1])), "r"(rank ^ 1));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" SITE("load") : "=r"(v) : "r"(remote) : "memory");
#if TMEM_FIXED
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#else
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
#endif
  asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
  // the scratch buffer is reused for the next conversion
  asm volatile("st.shared.u32 [%0], %1;" SITE("reuse")::"r"(smem_u32(&scratch[threadIdx.x])),
               "r"(v + 1)
               : "memory");
  out[blockIdx.x * 32 + threadIdx.x] = v;
  cluster_sync();
}
