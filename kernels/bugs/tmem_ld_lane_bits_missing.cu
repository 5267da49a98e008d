// Reproduces the mechanism of deepseek-ai/DeepGEMM PR #341 ("Fix TMEM lane address for debug
// mode"): the epilogue warps of a warpgroup read the accumulator with tcgen05.ld using the
// allocation's base address as is, lane field 0, for every warp. A warp may access only the
// 32 TMEM lanes of its lane quarter, 32 * (%warpid % 4) .. +31 (§9.7.16.8.1), so warps 1-3
// address lanes they do not own: the hardware's TMEM access check (-G) traps, and without it
// the result depends on an undocumented re-routing. tmemu reports TM0103 at the load.
// Fixed: add the warp's lane offset ((warp % 4) * 32) << 16 to the address.
// Launch: grid 1, 128 threads (one warpgroup).
#include "bugs.cuh"

extern "C" __global__ void tmem_ld_lane_bits_missing(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t slot;
  const uint32_t w = warp_id();
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  tc_sync_cta();
  const uint32_t tmem = slot;
  // the accumulator, written in the layout an M = 128 MMA leaves it in (one row per thread)
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(lane_quarter(tmem)),
               "r"(in[threadIdx.x])
               : "memory");
  tc_wait_st();
  tc_sync_cta();
#if TMEM_FIXED
  const uint32_t taddr = lane_quarter(tmem);
#else
  const uint32_t taddr = tmem;  // lane bits 22:16 left 0 in every warp
#endif
  uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" SITE("load")
               : "=r"(r)
               : "r"(taddr)
               : "memory");
  tc_wait_ld();
  tc_sync_cta();
  if (w == 0) tc_dealloc1(tmem, 32);
  out[threadIdx.x] = r;
}
