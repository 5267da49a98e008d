// Reproduces the mechanism of flashinfer-ai/flashinfer#5334: a consumer warp loads a TMEM stage
// with tcgen05.ld and releases the stage to the producer (fence::before_thread_sync +
// mbarrier.arrive on the "empty" barrier) before tcgen05.wait::ld, so the producer's next write
// of the stage (an MMA there; a tcgen05.st here) can overwrite the cells the load is still
// reading. The register use after a later wait::ld is legal; the TMEM cells are not ordered.
// Fixed: tcgen05.wait::ld before the release.
// Launch: grid 1, 160 threads: warp 0 = producer, warp 4 = consumer (both in lane quarter 0).
#include "bugs.cuh"

extern "C" __global__ void ld_stage_released_before_wait(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t full, empty;
  const uint32_t w = warp_id();
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&full), 32);
    mbar_init(smem_u32(&empty), 32);
  }
  tc_sync_cta();
  const uint32_t stage = lane_quarter(slot);
  uint32_t result = 0;
  if (w == 0) {  // producer: fills the stage twice
    const uint32_t v = in[threadIdx.x];
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(stage), "r"(v)
                 : "memory");
    tc_wait_st();
    tc_fence_before();
    mbar_arrive(smem_u32(&full));
    mbar_wait(smem_u32(&empty), 0);  // the consumer released the stage
    tc_fence_after();
    const uint32_t next = v + 1000;
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" SITE("overwrite")::"r"(stage),
                 "r"(next)
                 : "memory");
    tc_wait_st();
    result = v;
  } else if (w == 4) {  // consumer
    mbar_wait(smem_u32(&full), 0);
    tc_fence_after();
    uint32_t r;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" SITE("load")
                 : "=r"(r)
                 : "r"(stage)
                 : "memory");
#if TMEM_FIXED
    tc_wait_ld();
#endif
    tc_fence_before();
    mbar_arrive(smem_u32(&empty));  // releases the stage to the producer
#if !TMEM_FIXED
    tc_wait_ld();  // too late: the producer may already be writing the stage
#endif
    result = r;
  }
  tc_sync_cta();
  if (w == 0) tc_dealloc1(slot, 32);
  out[threadIdx.x] = result;
}
