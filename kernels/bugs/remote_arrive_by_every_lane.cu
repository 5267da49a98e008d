// Reproduces the mechanism named in the review of triton-lang/triton PR #9498 ("[BACKEND] Emit
// a 2CTA barrier before the 2CTA deallocation"): before the collective dealloc each CTA of the
// pair arrives on its peer's handshake mbarrier (`@p mbarrier.arrive.shared::cluster`) and
// waits on its own, but the predicate is `tid < 32`, so all 32 lanes of warp 0 arrive on a
// barrier initialised with count 1. The first arrival completes phase 0 and the next 31
// complete phases 1..31 with no wait in between (PTX ISA §9.7.13.15.4: a wait must observe each
// phase before an arrive-on in the next): TM0232 at the arrive; after 32 completions the
// parity the waiter asks for (0) names the current, incomplete phase 32, so the wait never
// succeeds: a hang (TM0225) at the try_wait, and at the bar.sync where warp 1 waits for warp 0.
// Fixed: one elected lane arrives.
// Launch: grid 2, cluster 2, 64 threads.
#include "bugs.cuh"

extern "C" __global__ void remote_arrive_by_every_lane(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(8) uint64_t peer_done;
  const uint32_t rank = cluster_rank(), t = threadIdx.x;
  if (t == 0) mbar_init(smem_u32(&peer_done), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cluster_sync();
  out[blockIdx.x * 64 + t] = in[blockIdx.x * 64 + t] + rank;  // the CTA's work
#if TMEM_FIXED
  const bool arrives = t == 0;
#else
  const bool arrives = t < 32;
#endif
  if (arrives) {
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
          "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;" SITE("hang") "\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(done)
          : "r"(smem_u32(&peer_done))
          : "memory");
    } while (!done);
  }
  asm volatile("bar.sync 0;" SITE("sync")::: "memory");  // warp 1 waits here for warp 0
}
