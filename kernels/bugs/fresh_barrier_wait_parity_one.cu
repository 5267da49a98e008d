// Reproduces the mechanism of tile-ai/tilelang#2927 ("`T.copy_cluster` mbarrier wait parity is
// derived from the loop iteration"): a cluster copy inside `for s in range(N)` signals a
// different mbarrier `bar[s]` each iteration, but the lowered wait is `bar[s].wait(s & 1)`, the
// parity of a single barrier reused every iteration. Each `bar[s]` completes only one phase
// here, so its first wait must ask for parity 0. For s = 1 the wait asks for parity 1 on a
// barrier still in phase 0: parity 1 names the phase before it, which counts as complete
// (PTX ISA §9.7.13.15.16; sync.md §7.4: test_wait.parity(P) is (phase & 1) != P), so the wait
// returns at once and every thread of both CTAs reads the multicast buffer while the copy may
// still be writing it (the report's silent corruption); if the copy has landed first, phase 0
// is complete, parity 1 names the current phase, which nothing will complete, and the wait
// spins forever. tmemu completes bulk copies at issue (the immediate policy of memory.rs), so
// it always sees the second branch: hang (TM0225) at the try_wait, in both CTAs.
// Fixed: wait on parity 0, the first phase of each barrier.
// Launch: grid 2, cluster 2, 32 threads a CTA: rank 0 multicasts both copies to both CTAs.
#include "bugs.cuh"

constexpr int kStages = 2;
constexpr uint32_t kWords = 32;

__device__ __forceinline__ void multicast_copy(uint32_t dst, const uint32_t* src, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1], %2, [%3], %4;" ::"r"(dst),
      "l"(src), "r"(kWords * 4u), "r"(bar), "h"((uint16_t)0x3)
      : "memory");
}

extern "C" __global__ void fresh_barrier_wait_parity_one(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t buf[kStages][kWords];
  __shared__ __align__(8) uint64_t bar[kStages];
  const uint32_t rank = cluster_rank(), lane = threadIdx.x % 32;
  if (lane == 0) {
    for (int s = 0; s < kStages; ++s) mbar_init(smem_u32(&bar[s]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
  uint32_t acc = 0;
#pragma unroll 1
  for (int s = 0; s < kStages; ++s) {
    const uint32_t b = smem_u32(&bar[s]);
    if (lane == 0) {
      mbar_arrive_expect_tx(b, kWords * 4u);
      if (rank == 0) multicast_copy(smem_u32(buf[s]), in + s * kWords, b);
    }
#if TMEM_FIXED
    const uint32_t parity = 0;  // every bar[s] is in its first phase
#else
    const uint32_t parity = s & 1;  // the loop's parity, right only for one reused barrier
#endif
    mbar_wait_site_hang(b, parity);
    acc += buf[s][lane];
  }
  out[rank * 32 + lane] = acc;
  cluster_sync();
}
