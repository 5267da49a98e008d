// Reproduces the mechanism of NVIDIA/cutlass#2230: the Blackwell CuTe tutorial kernels used a
// TMEM-backed accumulator at a fixed TMEM address without ever executing tcgen05.alloc, so two
// CTAs resident on one SM could write the same columns. Here every warp stores to and loads from
// its lane quarter at TMEM address 0 with no allocation (buggy), or inside a 32-column
// allocation made by warp 0 and published with fence + bar.sync + fence (fixed).
// Launch: grid 1, 128 threads.
#include "bugs.cuh"

extern "C" __global__ void tmem_without_alloc(const uint32_t* in, uint32_t* out) {
#if TMEM_FIXED
  __shared__ uint32_t slot;
  if (warp_id() == 0) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  tc_sync_cta();
  const uint32_t tmem = slot;
#else
  const uint32_t tmem = 0;  // the tutorial's assumption: the accumulator lives at address 0
#endif
  const uint32_t t = lane_quarter(tmem);
  const uint32_t v = in[threadIdx.x];
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" SITE("st")::"r"(t), "r"(v)
               : "memory");
  tc_wait_st();
  uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" SITE("ld")
               : "=r"(r)
               : "r"(t)
               : "memory");
  tc_wait_ld();
  out[threadIdx.x] = r;
#if TMEM_FIXED
  tc_sync_cta();
  if (warp_id() == 0) tc_dealloc1(tmem, 32);
#endif
}
