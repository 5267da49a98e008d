// Reproduces the mechanism of NVIDIA/Fuser PR #3795: the generated kernel allocated TMEM but
// never executed tcgen05.relinquish_alloc_permit. That is legal (the ISA does not require it),
// but the hardware cannot know the CTA will not allocate again; nvFuser observed CTAs being
// serialised. tmemu reports at most a note (TM0019) at the CTA's exit. Fixed: relinquish right
// after the (only) allocation.
// Launch: grid 2, 128 threads.
#include "bugs.cuh"

extern "C" __global__ void missing_relinquish(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t slot;
  if (warp_id() == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" SITE(
                     "alloc")::"r"(smem_u32(&slot))
                 : "memory");
#if TMEM_FIXED
    tc_relinquish1();
#endif
  }
  tc_sync_cta();
  const uint32_t t = lane_quarter(slot);
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t v = in[i];
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(t), "r"(v) : "memory");
  tc_wait_st();
  uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(r) : "r"(t) : "memory");
  tc_wait_ld();
  out[i] = r;
  tc_sync_cta();
  if (warp_id() == 0) tc_dealloc1(slot, 32);
}
