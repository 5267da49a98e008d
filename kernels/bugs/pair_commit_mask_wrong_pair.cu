// Reproduces the mechanism of facebookexperimental/triton PR #783 ("[TLX-2cta] Support cluster
// sizes larger than 2"): in a cluster of 4 CTAs that form two CTA pairs, each pair's leader
// (even %cluster_ctarank) commits with .cta_group::2 and .multicast::cluster to signal MMA
// completion to both CTAs of its pair, but the ctaMask was the constant 0b0011 (ranks 0 and
// 1). The leader of pair (2, 3) therefore arrives on the barriers of CTAs 0 and 1, which get
// two arrivals for a count of 1 (phase 0 and phase 1 complete, so a waiter on parity 0 that
// looks late sees an incomplete phase 2), and CTAs 2 and 3 get none: their waits can never
// complete ("both CTA0 and CTA2 signalling CTA0 and CTA1's bar would cause all four CTAs to
// hang"). tmemu reports the hang (TM0225) at the mbarrier.try_wait. Fixed: the mask names the
// issuing pair, 0b11 << (rank & ~1).
// Launch: grid 4, cluster 4, 32 threads per CTA.
#include "bugs.cuh"

extern "C" __global__ void pair_commit_mask_wrong_pair(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(8) uint64_t mma_done;
  const uint32_t rank = cluster_rank();
  if (threadIdx.x == 0) mbar_init(smem_u32(&mma_done), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  cluster_sync();  // every barrier is initialised before a remote arrive can reach it
  if (rank % 2 == 0 && threadIdx.x == 0) {  // the pair's leader (its MMAs come before this)
#if TMEM_FIXED
    const uint16_t mask = (uint16_t)(0x3u << (rank & ~1u));
#else
    const uint16_t mask = 0x3;  // always ranks 0 and 1
#endif
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster."
        "b64 [%0], %1;" ::"r"(smem_u32(&mma_done)),
        "h"(mask)
        : "memory");
  }
  mbar_wait_site_hang(smem_u32(&mma_done), 0);
  out[blockIdx.x * blockDim.x + threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x] + rank;
}
