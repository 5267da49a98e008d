// Reproduces the mechanism of facebookexperimental/triton PR #2292 (test_remote_shmem_store):
// each CTA of a 2-CTA cluster initialises its own shared buffer, then stores into its peer's
// buffer (mapa + st.shared::cluster), then the cluster meets and each CTA reads its own buffer.
// Nothing orders the peer's initialisation before the remote store: two weak writes of
// different CTAs to the same shared word, a data race (PTX ISA §8), and when the peer's
// initialisation lands last the exchanged value is lost: TM0211 at the remote store, related
// to the peer's initialising store. Fixed: a cluster barrier between the initialisation and the
// remote store (the entry barrier the PR adds).
// Launch: grid 2, cluster 2, 32 threads.
#include "bugs.cuh"

extern "C" __global__ void remote_store_before_peer_init(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t buf[32];
  const uint32_t rank = cluster_rank();
  asm volatile("st.shared.u32 [%0], %1;" SITE("init")::"r"(smem_u32(&buf[threadIdx.x])), "r"(~0u)
               : "memory");
#if TMEM_FIXED
  cluster_sync();  // every CTA has initialised its buffer
#endif
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote)
               : "r"(smem_u32(&buf[threadIdx.x])), "r"(rank ^ 1));
  asm volatile("st.shared::cluster.u32 [%0], %1;" SITE("remote")::"r"(remote),
               "r"(in[blockIdx.x * 32 + threadIdx.x] + 100)
               : "memory");
  cluster_sync();  // the stores are visible
  out[blockIdx.x * 32 + threadIdx.x] = buf[threadIdx.x];
  cluster_sync();
}
