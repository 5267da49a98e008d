// Reproduces the mechanism of facebookexperimental/triton PR #652 ("[TLX-2cta] Insert cluster
// sync properly": "one CTA could arrive an uninitialized barrier in the other CTA and it will
// break"), the race CUTLASS's cluster_sync after the pipeline init exists for: each CTA of a
// 2-CTA cluster initialises its mbarrier and synchronises only its own threads (bar.sync), then
// arrives on its peer's barrier (mapa + mbarrier.arrive.shared::cluster) and waits on its own.
// Nothing orders the peer's mbarrier.init before the remote arrive (PTX ISA §9.7.13.15.9,
// §9.7.13.4): in a schedule where the arrive lands first it acts on uninitialised bytes and the
// init erases it, and the waiter hangs. TM0214 at the remote arrive, related: the peer's init,
// in every schedule. Fixed: fence.mbarrier_init.release.cluster and a relaxed cluster barrier
// between the init and the remote arrive (Gluon's fence_init_release_cluster +
// cluster.barrier(relaxed=True), CUTLASS's fence_barrier_init + cluster_arrive_relaxed).
// Launch: grid 2, cluster 2, 64 threads.
#include "bugs.cuh"

extern "C" __global__ void mbarrier_init_not_cluster_synced(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(8) uint64_t peer_done;
  const uint32_t rank = cluster_rank(), t = threadIdx.x;
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" SITE("init")::"r"(smem_u32(&peer_done))
                 : "memory");
  }
#if TMEM_FIXED
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" :::
                   "memory");
#else
  __syncthreads();  // orders the init for this CTA's threads only
#endif
  out[blockIdx.x * 64 + t] = in[blockIdx.x * 64 + t] + rank;  // the CTA's work
  if (t == 0) {
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(remote)
                 : "r"(smem_u32(&peer_done)), "r"(rank ^ 1));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" SITE(
                     "arrive")::"r"(remote)
                 : "memory");
  }
  if (t < 32) {
    uint32_t done;
    do {
      asm volatile(
          "{\n\t.reg .pred p;\n\t"
          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(done)
          : "r"(smem_u32(&peer_done))
          : "memory");
    } while (!done);
  }
  cluster_sync();  // neither CTA exits while its peer may still arrive on its barrier
}
