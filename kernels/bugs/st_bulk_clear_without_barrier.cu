// Reproduces the mechanism of tile-ai/tilelang PR #2700 (issues #2699 and #2703): on
// Blackwell `T.clear` of a shared buffer lowers to st.bulk, which the thread-sync pass did not
// count as a shared write, so no barrier separated the clear from the other threads' reads and
// writes of the buffer. st.bulk is an ordinary weak store of the whole region (PTX ISA
// §9.7.9.x, st.bulk), so another warp's access to the cleared bytes without a barrier is a
// data race (§8): TM0211, at the read-modify-write of warp 1 or at the clear (by schedule),
// each related to the other. Fixed: __syncthreads() after the clear.
// Launch: grid 1, 64 threads; thread 0 clears the 256-byte accumulator.
#include "bugs.cuh"

extern "C" __global__ void st_bulk_clear_without_barrier(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t acc[64];
  const uint32_t t = threadIdx.x;
  if (t == 0)
    asm volatile("st.bulk.weak.shared::cta [%0], 256, 0;" SITE("clear")::"r"(smem_u32(acc))
                 : "memory");
#if TMEM_FIXED
  __syncthreads();
#endif
  uint32_t a;
  asm volatile("ld.shared.u32 %0, [%1];" SITE("read") : "=r"(a) : "r"(smem_u32(&acc[t])) : "memory");
  asm volatile("st.shared.u32 [%0], %1;" SITE("rmw")::"r"(smem_u32(&acc[t])), "r"(a + in[t])
               : "memory");
  __syncthreads();
  out[t] = acc[63 - t];
}
