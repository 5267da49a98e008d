// Reproduces the mechanism of flashinfer-ai/flashinfer PR #4533 (fix 2, "a named-barrier id
// collision in the correction warpgroup wedges a single CTA"; the review of tile-ai/tilelang PR
// #2360 names the same defect: "When two WGs in the same CTA do concurrent inter-thread
// reductions, they must use DIFFERENT barrier IDs or the bar.sync waits on the wrong cohort"):
// two warpgroups each reduce through shared memory with `bar.sync 1, 128`, the same id. A named
// barrier instance completes when any 128 threads have arrived (PTX ISA §9.7.13.1), so the
// instance can be completed by warps of both groups: here warps 0, 1, 4 and 5 arrive first,
// pass, and warp 1 reads the partial sum of warp 2, which has not written it yet. tmemu reports
// TM0211 at the read, related to warp 2's store (or at the store, related to the read, by
// schedule). Fixed: one barrier id per warpgroup (1 + wg).
// Launch: grid 1, 256 threads: two warpgroups; warps 2, 3, 6 and 7 start late.
#include "bugs.cuh"

extern "C" __global__ void named_barrier_id_collision(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t partial[2][128];
  const uint32_t t = threadIdx.x, wg = t / 128, i = t % 128, w = warp_id();
  uint32_t v = in[t];
  if (w % 4 >= 2) {  // the late half of each warpgroup: a longer dependent chain first
#pragma unroll 1
    for (int k = 0; k < 64; ++k) v = v * 1664525u + in[(t + k) % 256];
  }
  asm volatile("st.shared.u32 [%0], %1;" SITE("store")::"r"(smem_u32(&partial[wg][i])), "r"(v)
               : "memory");
#if TMEM_FIXED
  asm volatile("bar.sync %0, 128;" ::"r"(1 + wg) : "memory");
#else
  asm volatile("bar.sync 1, 128;" ::: "memory");
#endif
  uint32_t other;
  asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
               : "=r"(other)
               : "r"(smem_u32(&partial[wg][(i + 32) % 128]))
               : "memory");
  out[t] = v + other;
}
