// Reproduces the mechanism of flashinfer-ai/flashinfer PR #4576 (review of the cake_mamba
// SSD-combined kernel: "Move the bulk-store wait before the smem_y writes"): the output tile
// is double buffered in shared memory; each iteration the role's threads write the current
// stage with st.shared, fence.proxy.async, synchronise on a named barrier, and one thread
// issues the bulk store of the stage to global memory (a bulk async-group). The thread's
// `cp.async.bulk.wait_group.read 1` comes *after* the stage's writes, just before the next
// store: from the third iteration on, the threads rewrite the stage whose store from two
// iterations back has not been observed to finish reading it (the wait one iteration earlier
// returned at once with that store the only pending group). A write to the source of a bulk
// copy before wait_group.read observes its group (PTX ISA §9.7.9.25.2): TM0209 at the
// st.shared, related to the bulk store. Fixed (the review): the issuing thread waits with
// wait_group.read 1 at the top of the iteration and a named barrier publishes that before
// any thread writes the stage.
// Launch: grid 1, 64 threads (two warps, named barrier 1); four iterations of 64 words.
#include "bugs.cuh"

extern "C" __global__ void bulk_store_wait_after_stage_rewrite(const uint32_t* in,
                                                               uint32_t* out) {
  __shared__ __align__(128) uint32_t y[2][64];
  const uint32_t t = threadIdx.x;
#pragma unroll 1
  for (uint32_t i = 0; i < 4; ++i) {
    const uint32_t s = i & 1;
#if TMEM_FIXED
    if (t == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    asm volatile("bar.sync 1, 64;" ::: "memory");  // the stage's old store finished reading
#endif
    asm volatile("st.shared.u32 [%0], %1;" SITE("write")::"r"(smem_u32(&y[s][t])),
                 "r"(in[64 * i + t] * 3u)
                 : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 1, 64;" ::: "memory");
    if (t == 0) {
#if !TMEM_FIXED
      asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");  // after the writes
#endif
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" SITE(
                       "store")::"l"(out + 64 * i),
                   "r"(smem_u32(y[s]))
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
  }
  if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
