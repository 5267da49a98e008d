// Reproduces the mechanism of facebookexperimental/triton PR #1538 (second fix): the lowering of
// a DSMEM bulk copy (cp.async.bulk.shared::cluster.shared::cta with mbarrier complete_tx)
// elected one thread per *warp*, so with 4 compute warps the copy was issued 4 times, each
// completing its bytes on the peer's barrier. The peer expects the bytes of one copy: the
// first copy to land completes the phase, and the peer reads the buffer while the other three
// copies of the same bytes are still writing it (PTX ISA §9.7.9.25.2, §9.7.13.15.16: the
// mbarrier phase covers only the transactions it counted); their complete_tx then lands on
// the next phase ("corrupting the TX byte count"). TM0213 at the peer's ld.shared, related to
// the bulk copy. When the four copies land before the peer's expect_tx (tmemu's immediate
// completion), the tx-count ends at -384 and the phase never completes: a hang (TM0225) at
// the peer's try_wait and at rank 0's final cluster barrier. Fixed: one elected thread of
// warp 0 issues the copy.
// Launch: grid 2, cluster 2, 128 threads.
#include "bugs.cuh"

extern "C" __global__ void dsmem_copy_issued_per_warp(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t src[32];
  __shared__ __align__(128) uint32_t dst[32];
  __shared__ __align__(8) uint64_t full;
  const uint32_t rank = cluster_rank(), w = warp_id(), lane = threadIdx.x % 32;
  if (threadIdx.x < 32) src[threadIdx.x] = in[blockIdx.x * 32 + threadIdx.x];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&full), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  cluster_sync();  // the barriers are initialised, src is written
  uint32_t v = 0;
  if (rank == 0) {
#if TMEM_FIXED
    const bool issue = w == 0 && lane == 0;  // one thread of the CTA
#else
    const bool issue = lane == 0;  // one thread per warp
#endif
    if (issue) {
      uint32_t rdst, rbar;
      asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(rdst) : "r"(smem_u32(dst)));
      asm volatile("mapa.shared::cluster.u32 %0, %1, 1;" : "=r"(rbar) : "r"(smem_u32(&full)));
      asm volatile(
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], "
          "128, [%2];" SITE("copy")::"r"(rdst),
          "r"(smem_u32(src)), "r"(rbar)
          : "memory");
    }
  } else {
    if (threadIdx.x == 0) mbar_arrive_expect_tx(smem_u32(&full), 128);  // one copy's bytes
    mbar_wait_site_hang(smem_u32(&full), 0);
    if (threadIdx.x < 32)
      asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
                   : "=r"(v)
                   : "r"(smem_u32(&dst[threadIdx.x]))
                   : "memory");
  }
  if (threadIdx.x < 32) out[blockIdx.x * 32 + threadIdx.x] = v;
  // rank 0's source stays alive until the peer has its data
  asm volatile("barrier.cluster.arrive.release.aligned;\n\t"
               "barrier.cluster.wait.acquire.aligned;" SITE("exit_sync")::
                   : "memory");
}
