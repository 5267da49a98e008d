// Reproduces the mechanism of NVIDIA/TransformerEngine PR #3417 ("Fix TMA synchronization in
// quantization kernels"; issue #3474 the same gap in group_quantize_mxfp8.cuh): every thread
// writes its part of an output tile into a shared staging buffer, fences, and meets the CTA at
// a barrier; one leading thread issues the bulk store of the buffer to global memory and
// commits it as a bulk async-group. Bulk async-groups belong to the issuing thread (PTX ISA
// §9.7.9.25.4.3-4: wait_group waits for "the bulk async-groups of the executing thread"), so
// the `cp.async.bulk.wait_group.read 0` every thread executes waits only in the leader; the
// others' returns at once. With no CTA barrier after the leader's wait (the PR: "a CTA-wide
// synchronization point between the leader's completion wait and cooperative buffer reuse"),
// warp 1 writes the next tile into the buffer while the previous store may still read it:
// TM0209 at the st.shared, related to the bulk store. Fixed (the PR): a bar.sync after the
// wait hands the leader's completion to the CTA before any thread rewrites the buffer.
// Launch: grid 1, 64 threads (two warps); three tiles of 64 words.
#include "bugs.cuh"

extern "C" __global__ void bulk_store_wait_not_handed_off(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t stage[64];
  const uint32_t t = threadIdx.x;
#pragma unroll 1
  for (uint32_t i = 0; i < 3; ++i) {
    asm volatile("st.shared.u32 [%0], %1;" SITE("write")::"r"(smem_u32(&stage[t])),
                 "r"(in[64 * i + t] + 7u)
                 : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 0;" ::: "memory");
    if (t == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" SITE(
                       "store")::"l"(out + 64 * i),
                   "r"(smem_u32(stage))
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
    // Every thread waits, but only the leader has a bulk async-group to wait for.
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#if TMEM_FIXED
    asm volatile("bar.sync 0;" ::: "memory");  // the leader's completion, handed to the CTA
#endif
  }
  if (t == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
