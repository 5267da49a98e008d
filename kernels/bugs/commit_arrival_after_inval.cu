// Reproduces the mechanism of the race in triton-lang/triton PR #10409 (the 2-CTA ConSan test
// whose expected failure it fixes): CTA 0 issues a tcgen05 op and commits it with
// .multicast::cluster, so the commit's arrive lands on the mbarrier in *both* CTAs when the op
// completes; CTA 1, which issues no tcgen05 op itself, races ahead, never waits on its copy of
// the barrier, invalidates it and reuses its shared memory, before the commit's arrive has
// landed there. The arrive then hits an invalidated barrier (memory that now holds data).
// Here CTA 0's issuing thread first does other work (a delay longer than any scheduling
// quantum), so CTA 1 always invalidates first. Fixed: CTA 1 waits for the barrier's phase
// before invalidating it.
// Launch: grid 2, cluster 2, 128 threads per CTA.
#include "bugs.cuh"

static __device__ uint64_t none_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
         ((uint64_t)(128 >> 4) << 32) | (1ull << 46);
}

extern "C" __global__ void commit_arrival_after_inval(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(1024) uint32_t src[128 * 4];
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t done;
  const uint32_t w = warp_id(), rank = cluster_rank();
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  for (int i = threadIdx.x; i < 128 * 4; i += blockDim.x) src[i] = in[i];
  if (threadIdx.x == 0) mbar_init(smem_u32(&done), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  tc_fence_before();
  cluster_sync();  // both barriers are initialised before any arrive can reach them
  tc_fence_after();
  const uint32_t tmem = slot;
  uint32_t result = 0;
  if (rank == 0) {
    if (threadIdx.x == 0) {
#pragma unroll 1
      for (int i = 0; i < 1024; ++i) asm volatile("nanosleep.u32 100;" ::: "memory");
      asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" ::"r"(tmem),
                   "l"(none_desc(smem_u32(src)))
                   : "memory");
      asm volatile(
          "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster."
          "b64 [%0], %1;" SITE("commit")::"r"(smem_u32(&done)),
          "h"((uint16_t)3)
          : "memory");
    }
    mbar_wait(smem_u32(&done), 0);
    tc_fence_after();
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
                 : "=r"(result)
                 : "r"(lane_quarter(tmem))
                 : "memory");
    tc_wait_ld();
  } else {
#if TMEM_FIXED
    mbar_wait(smem_u32(&done), 0);  // the peer's commit has arrived here
#endif
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.inval.shared::cta.b64 [%0];" SITE("inval")::"r"(smem_u32(&done))
                   : "memory");
      // the barrier's bytes are reused for data
      asm volatile("st.shared.u64 [%0], %1;" ::"r"(smem_u32(&done)), "l"(0x1234ull) : "memory");
    }
    __syncthreads();
    result = (uint32_t)done + threadIdx.x;
  }
  tc_fence_before();
  cluster_sync();
  tc_fence_after();
  if (w == 0) tc_dealloc1(tmem, 32);
  out[blockIdx.x * blockDim.x + threadIdx.x] = result;
}
