// Reproduces the mechanism of inclusionAI/humming PR #56 (after PR #53/#54: SM90 two-CTA TMA
// multicast; rank 1's results were corrupted on H100/H200): the leader CTA multicasts each
// stage into the shared memory of both CTAs of the cluster, and before refilling the stage it
// waited only for its *own* consumers to release it, while the peer CTA was still reading the
// previous contents of its copy. The multicast write into the peer's buffer is ordered after
// nothing the peer did: a data race between the peer's ld.shared and the asynchronous bulk
// write (§9.7.9.25, §8). Fixed: the peer's consumers release the leader's "empty" barrier too
// (mapa + mbarrier.arrive.release.cluster.shared::cluster), and its count covers both CTAs.
// When the refill's complete-tx reaches the peer's "full" barrier before the peer armed the
// phase it belongs to, the bytes of two tiles land on one phase and the peer waits forever.
// Launch: grid 2, cluster 2, 32 threads; two tiles through one stage.
#include "bugs.cuh"

extern "C" __global__ void multicast_stage_reused_before_peer_release(const uint32_t* in,
                                                                      uint32_t* out) {
  __shared__ __align__(128) uint32_t stage[32];
  __shared__ __align__(8) uint64_t full, empty;
  const uint32_t rank = cluster_rank();
  const uint32_t lane = threadIdx.x;
  if (lane == 0) {
    mbar_init(smem_u32(&full), 1);
    mbar_init(smem_u32(&empty), TMEM_FIXED ? 64 : 32);  // releases of one CTA, or of both
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cluster_sync();
  uint32_t acc = 0;
#pragma unroll 1
  for (uint32_t t = 0; t < 2; ++t) {
    if (lane == 0) mbar_arrive_expect_tx(smem_u32(&full), sizeof(stage));
    if (rank == 0 && lane == 0) {
      if (t > 0) mbar_wait(smem_u32(&empty), (t - 1) & 1);  // the stage was released
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
          "[%0], [%1], 128, [%2], %3;" SITE("refill")::"r"(smem_u32(stage)),
          "l"(in + 32 * t), "r"(smem_u32(&full)), "h"((uint16_t)0b11)
          : "memory");
    }
    uint32_t landed;
    do {
      asm volatile(
          "{\n\t.reg .pred p;\n\t"
          "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;" SITE("wait_full") "\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(landed)
          : "r"(smem_u32(&full)), "r"(t & 1)
          : "memory");
    } while (!landed);
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
                 : "=r"(v)
                 : "r"(smem_u32(&stage[lane]))
                 : "memory");
    acc += v * (t + 1);
    if (rank == 0) {
      mbar_arrive(smem_u32(&empty));
    } else {
#if TMEM_FIXED
      uint32_t remote;
      asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(smem_u32(&empty)));
      asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                   : "memory");
#endif
    }
  }
  out[rank * 32 + lane] = acc;
  // No CTA exits while a multicast may still write into it.
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" SITE("exit_sync")::
                   : "memory");
}
