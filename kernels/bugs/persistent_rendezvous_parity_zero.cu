// Reproduces the mechanism of facebookexperimental/triton PR #3420 ("[AutoWS] Rotate 2-CTA
// rendezvous across CLC iterations"): in a persistent 2-CTA kernel the leader waits on the
// cross-CTA rendezvous barrier with a phase that is not carried across persistent tiles (there:
// a standalone copy "always waits on phase zero"), so from the second tile on the wait names a
// phase that is already complete. Here the peer CTA writes each tile's half into its shared
// memory and arrives (.release.cluster) on the leader's `full` barrier; the leader waits on it
// with parity 0 every tile, reads the half through distributed shared memory and releases it
// on the peer's `empty` barrier. On tile 1 the leader's wait returns at once (parity 0 names
// phase 0, complete), so the leader runs a tile ahead: its release of tile 1 lands in phase 1
// of the peer's `empty` barrier before the peer's wait observed phase 0 (TM0232 at that
// mbarrier.arrive; synccheck's "Missing wait" in the PR), and the peer then waits on parity 0
// for phase 2, which nothing completes: a hang at its try_wait and at the leader's final
// barrier.cluster.wait (the PR: "CLC 2-CTA FA can therefore hang intermittently"). In a
// schedule where the peer refills first, the leader's early read races the peer's write
// instead (TM0211); tmemu's schedules take the first branch. Fixed: the leader waits on the
// parity of the tile, t & 1.
// Launch: grid 2, cluster 2, 32 threads a CTA.
#include "bugs.cuh"

constexpr uint32_t kTiles = 2;

extern "C" __global__ void persistent_rendezvous_parity_zero(uint32_t* out) {
  __shared__ __align__(16) uint32_t half[32];
  __shared__ __align__(8) uint64_t full, empty;
  const uint32_t rank = cluster_rank(), lane = threadIdx.x % 32;
  const uint32_t fb = smem_u32(&full), eb = smem_u32(&empty);
  if (lane == 0) {
    mbar_init(fb, 1);
    mbar_init(eb, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();
#pragma unroll 1
  for (uint32_t t = 0; t < kTiles; ++t) {
    if (rank == 1) {
      if (t > 0) mbar_wait_site_hang(eb, (t - 1) & 1);
      asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_u32(&half[lane])), "r"(t * 100u + lane)
                   : "memory");
      __syncwarp();
      if (lane == 0) {
        uint32_t remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(fb));
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                     : "memory");
      }
    } else {
#if TMEM_FIXED
      const uint32_t parity = t & 1;
#else
      const uint32_t parity = 0;  // not carried across persistent tiles
#endif
      mbar_wait(fb, parity);
      uint32_t peer, v;
      asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(peer) : "r"(smem_u32(&half[lane])));
      asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(peer) : "memory");
      out[t * 32 + lane] = v;
      __syncwarp();
      if (lane == 0) {
        uint32_t remote;
        asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(remote) : "r"(eb));
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" SITE(
                         "release")::"r"(remote)
                     : "memory");
      }
    }
  }
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" SITE("cluster_wait")::: "memory");
}
