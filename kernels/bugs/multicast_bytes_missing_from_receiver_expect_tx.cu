// Reproduces the mechanism of flashinfer-ai/flashinfer-bench PR #183 (review of the
// cuda-matmul-cluster skill): in a cluster of two CTAs each CTA loads its own A tile with a
// bulk copy on its local `full` mbarrier, and rank 0 multicasts the shared B tile into both
// CTAs (cp.async.bulk ... .multicast::cluster). The multicast signals complete_tx on the
// mbarrier at the same offset in every destination CTA (PTX ISA §9.7.9.25.4.1), but each CTA
// arms its barrier with `bytes_a + (rank == 0 ? bytes_b : 0)`: rank 1's expect_tx leaves out
// the B bytes it receives, so its phase completes on whichever 128 bytes land first. When A
// lands first, rank 1's wait returns before the multicast and its read of B races the
// multicast's write (§8): TM0211 at the multicast, related to rank 1's ld.shared of B; when
// B's complete_tx lands first (the tx-count may go negative before the expect_tx), the phase
// completes on B's bytes and rank 1 reads A while its own copy is still in flight: TM0213 at
// the ld.shared of A, related to the A copy (by schedule). Fixed (the review): every
// destination CTA expects bytes_a + bytes_b.
// Launch: grid 2, cluster 2, 32 threads; `a` holds two A tiles of 32 words, `b` one B tile.
#include "bugs.cuh"

extern "C" __global__ void multicast_bytes_missing_from_receiver_expect_tx(const uint32_t* a,
                                                                           const uint32_t* b,
                                                                           uint32_t* out) {
  __shared__ __align__(128) uint32_t s_a[32];
  __shared__ __align__(128) uint32_t s_b[32];
  __shared__ __align__(8) uint64_t full;
  const uint32_t rank = cluster_rank();
  const uint32_t lane = threadIdx.x;
  if (lane == 0) {
    mbar_init(smem_u32(&full), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();  // both barriers are initialised before the multicast signals them
  if (lane == 0) {
    const uint32_t bytes_a = sizeof(s_a), bytes_b = sizeof(s_b);
#if TMEM_FIXED
    const uint32_t load_bytes = bytes_a + bytes_b;  // B lands in every CTA
#else
    const uint32_t load_bytes = bytes_a + (rank == 0 ? bytes_b : 0);  // only rank 0 issues B
#endif
    mbar_arrive_expect_tx(smem_u32(&full), load_bytes);
    asm volatile(
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], 128, "
        "[%2];" SITE("copy_a")::"r"(smem_u32(s_a)),
        "l"(a + 32 * rank), "r"(smem_u32(&full))
        : "memory");
    if (rank == 0) {
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
          "[%0], [%1], 128, [%2], %3;" SITE("multicast")::"r"(smem_u32(s_b)),
          "l"(b), "r"(smem_u32(&full)), "h"((uint16_t)0b11)
          : "memory");
    }
  }
  mbar_wait(smem_u32(&full), 0);
  uint32_t va, vb;
  asm volatile("ld.shared.u32 %0, [%1];" SITE("read_a")
               : "=r"(va)
               : "r"(smem_u32(&s_a[lane]))
               : "memory");
  asm volatile("ld.shared.u32 %0, [%1];" SITE("read_b")
               : "=r"(vb)
               : "r"(smem_u32(&s_b[lane]))
               : "memory");
  out[32 * rank + lane] = va * vb;
  // No CTA exits while a multicast may still write into it.
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" SITE("exit_sync")::
                   : "memory");
}
