// Reproduces the first root cause of NVIDIA/cutlass#3643 (fixed by PR #3647, the CuTe DSL
// example 2cta_mma_blockscale_m128): each CTA of the pair loads its own half of the scale
// factors into its own shared memory with a bulk copy tracked by its local mbarrier, but only
// the leader's MMA warp waits, and only on the leader's barrier, before issuing the
// .cta_group::2 tcgen05.cp that reads the same shared-memory offset in both CTAs ("There is no
// path from the peer's sfb_smem_full to the leader"). The peer's bulk copy may still be
// writing the bytes the copy reads (PTX ISA §9.7.9.25.2: a bulk copy's writes are visible only
// once its mbarrier phase is observed): tmemu reports TM0213 at the tcgen05.cp. Fixed: the
// peer waits for its copy and arrives on a leader barrier (release at cluster scope), which
// the leader waits on too.
// Launch: grid 2, cluster 2, 128 threads per CTA.
#include "bugs.cuh"

extern "C" __global__ void pair_cp_reads_unwaited_peer_stage(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(1024) uint8_t sf[128 * 32];  // this CTA's half: 128 rows of 32 bytes
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t sf_full, peer_sf_full, cp_done;
  const uint32_t rank = cluster_rank(), w = warp_id(), t = threadIdx.x;
  if (w == 0) {
    tc_alloc2(smem_u32(&slot), 32);
    tc_relinquish2();
  }
  if (t == 0) {
    mbar_init(smem_u32(&sf_full), 1);
    mbar_init(smem_u32(&peer_sf_full), 1);
    mbar_init(smem_u32(&cp_done), 1);
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  tc_fence_before();
  cluster_sync();
  tc_fence_after();
  const uint32_t tmem = slot;
  if (t == 0) {  // each CTA loads its half of the scale factors
    mbar_arrive_expect_tx(smem_u32(&sf_full), sizeof(sf));
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" SITE("load")::"r"(smem_u32(sf)),
        "l"(in + rank * (sizeof(sf) / 4)), "r"((uint32_t)sizeof(sf)), "r"(smem_u32(&sf_full))
        : "memory");
  }
  if (rank == 1 && t == 0) {
#if TMEM_FIXED
    mbar_wait(smem_u32(&sf_full), 0);  // this half is in shared memory: tell the leader
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote)
                 : "r"(smem_u32(&peer_sf_full)));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
#endif
  }
  if (rank == 0 && t == 0) {  // the leader's MMA warp
    mbar_wait(smem_u32(&sf_full), 0);
#if TMEM_FIXED
    mbar_wait(smem_u32(&peer_sf_full), 0);
#endif
    tc_fence_after();
    asm volatile("tcgen05.cp.cta_group::2.128x256b [%0], %1;" SITE("cp")::"r"(tmem),
                 "l"(k32_desc(smem_u32(sf)))
                 : "memory");
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster."
        "b64 [%0], %1;" ::"r"(smem_u32(&cp_done)),
        "h"((uint16_t)0x3)
        : "memory");
  }
  mbar_wait(smem_u32(&cp_done), 0);
  tc_fence_after();
  uint32_t r[8];
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
        "=r"(r[7])
      : "r"(lane_quarter(tmem))
      : "memory");
  tc_wait_ld();
  uint32_t s = 0;
  for (int i = 0; i < 8; ++i) s += r[i];
  out[blockIdx.x * 128 + t] = s;
  tc_fence_before();
  cluster_sync();  // both CTAs' TMEM reads are done before the collective dealloc
  tc_fence_after();
  if (w == 0) {
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, 32;" ::"r"(tmem)
                 : "memory");
  }
}
