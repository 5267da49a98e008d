// Reproduces the mechanism of pytorch/helion PR #2975 ("[cute] Fix SMEM write-after-read race
// in universal-MMA K-loop"): each K step every thread stores its element of the A tile to
// shared memory, the CTA synchronises (bar.sync 0), and every thread reads a row of the tile
// written by other warps into registers for the multiply-accumulate. Nothing at the end of the
// step keeps a thread that finished its multiply from storing the next K step's tile while a
// sibling warp still copies this step's tile (the PR: "nothing stops a thread that finishes
// its cute.gemm early from racing ahead and clobbering the SMEM tile while a sibling thread is
// still copying it into registers"). Plain shared accesses of two warps unordered by any
// barrier are a data race (PTX ISA §8): TM0211 at the next step's st.shared, related to the
// lagging ld.shared, or at the read, related to the store (by schedule). Fixed (the PR): a
// trailing bar.sync 0 after the multiply of every K step.
// Launch: grid 1, 64 threads (two warps), three K steps of 64 words.
#include "bugs.cuh"

extern "C" __global__ void operand_tile_overwritten_next_k_step(const uint32_t* a,
                                                                uint32_t* out) {
  __shared__ __align__(16) uint32_t s_a[64];
  const uint32_t t = threadIdx.x;
  uint32_t acc = 0;
#pragma unroll 1
  for (uint32_t k = 0; k < 3; ++k) {
    asm volatile("st.shared.u32 [%0], %1;" SITE("store")::"r"(smem_u32(&s_a[t])),
                 "r"(a[64 * k + t])
                 : "memory");
    asm volatile("bar.sync 0;" ::: "memory");
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
                 : "=r"(v)
                 : "r"(smem_u32(&s_a[63 - t]))
                 : "memory");
    acc += v * (k + 1);  // the "gemm" on the register copy
#if TMEM_FIXED
    asm volatile("bar.sync 0;" ::: "memory");  // every copy of this step's tile is done
#endif
  }
  out[t] = acc;
}
