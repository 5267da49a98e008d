// Reproduces the mechanism of apache/tvm PR #20074 ([TIRx] remote mbarrier views): an arrive on
// a peer CTA's mbarrier takes the address mapped with mapa.shared::cluster but is emitted in the
// local form `mbarrier.arrive.shared::cta.b64`. A .shared::cta operand must lie in the
// executing CTA's shared-memory window; the mapped address is in the peer's window of
// .shared::cluster, so the arrive is undefined (PTX ISA §9.7.13.15.13, §5.1) and the peer,
// waiting for that arrival, may hang. Fixed: mbarrier.arrive.release.cluster.shared::cluster.b64.
// Launch: grid 2, cluster 2, 32 threads.
#include "bugs.cuh"

extern "C" __global__ void local_arrive_on_remote_mbarrier(uint32_t* out) {
  __shared__ __align__(8) uint64_t ready;
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) mbar_init(smem_u32(&ready), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cluster_sync();
  if (rank == 0 && threadIdx.x == 0) {
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote) : "r"(smem_u32(&ready)));
#if TMEM_FIXED
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
#else
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" SITE("arrive")::"r"(remote)
                 : "memory");
#endif
  }
  if (rank == 1) {
    uint32_t done;
    do {
      asm volatile(
          "{\n\t.reg .pred p;\n\t"
          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;" SITE("wait") "\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(done)
          : "r"(smem_u32(&ready))
          : "memory");
    } while (!done);
  }
  out[blockIdx.x * 32 + threadIdx.x] = rank;
  // rank 0 waits here for rank 1, which waits for the arrival that never reached it
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" SITE("hang")::
                   : "memory");
}
