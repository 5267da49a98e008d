// Reproduces the mechanism of NVIDIA/Fuser PR #4152 ("Fix TMem allocation nCols"): the number of
// TMEM columns is computed at run time from the tile shape (here: 3 tiles of 32 fp32 columns =
// 96) and passed to tcgen05.alloc/dealloc in a register. ptxas rejects a non-power-of-two
// immediate, but a register value reaches the hardware: undefined behaviour (§9.7.16.7.1:
// "nCols must be a power of 2"). tmemu reports TM0001 at the alloc and at the dealloc; it
// grants no allocation for such a request, so the kernel's tcgen05.st/ld then touch columns
// the CTA does not own (TM0105 at each, a consequence).
// Fixed: round the column count up to the next power of two (minimum 32) before allocating.
// Launch: grid 1, 128 threads; the third argument is the number of 32-column tiles (3).
#include "bugs.cuh"

extern "C" __global__ void ncols_not_power_of_two_register(const uint32_t* in, uint32_t* out,
                                                           uint32_t tiles) {
  __shared__ uint32_t slot;
  const uint32_t w = warp_id();
  uint32_t ncols = tiles * 32;  // 96 for 3 tiles
#if TMEM_FIXED
  ncols = ncols <= 32 ? 32 : 1u << (32 - __clz(ncols - 1));  // next power of two: 128
#endif
  if (w == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" SITE(
                     "alloc")::"r"(smem_u32(&slot)),
                 "r"(ncols)
                 : "memory");
    tc_relinquish1();
  }
  tc_sync_cta();
  const uint32_t tmem = slot;
  // the first tile's column, each warp in its own lane quarter
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" SITE("st")::"r"(
                   lane_quarter(tmem)),
               "r"(in[threadIdx.x])
               : "memory");
  tc_wait_st();
  uint32_t sum;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" SITE("ld")
               : "=r"(sum)
               : "r"(lane_quarter(tmem))
               : "memory");
  tc_wait_ld();
  tc_sync_cta();
  if (w == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" SITE(
                     "dealloc")::"r"(tmem),
                 "r"(ncols)
                 : "memory");
  out[threadIdx.x] = sum;
}
