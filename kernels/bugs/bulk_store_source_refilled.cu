// Reproduces the mechanism of deepseek-ai/DeepEP#657 (PR #660): a two-stage shared-memory ring
// copies global -> shared (cp.async.bulk with mbarrier complete_tx) -> global (cp.async.bulk
// store, a bulk async-group). Before refilling a stage for the iteration two ahead, the thread
// waits with `cp.async.bulk.wait_group.read 1` (kNumStages - 1): the store just issued from
// that very stage is the only pending group, so the wait returns at once and the refill's
// async write lands in the bytes the store may still be reading (PTX ISA §9.7.9.25.2: the
// source of a bulk copy may be reused only after wait_group.read observes its group): TM0209
// at the refilling copy. Fixed: `cp.async.bulk.wait_group.read 0` before the refill.
// Launch: grid 1, 32 threads; `in` and `out` are 3 chunks of 32 words.
#include "bugs.cuh"

__device__ __forceinline__ void bulk_load(uint32_t dst, const uint32_t* src, uint32_t bar) {
  asm volatile(
      "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], 128, [%2];" ::"r"(
          dst),
      "l"(src), "r"(bar)
      : "memory");
}
__device__ __forceinline__ void bulk_store(uint32_t* dst, uint32_t src) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 128;" ::"l"(dst), "r"(src)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

extern "C" __global__ void bulk_store_source_refilled(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t stage[2][32];
  __shared__ __align__(8) uint64_t full[2];
  if (threadIdx.x != 0) return;
  mbar_init(smem_u32(&full[0]), 1);
  mbar_init(smem_u32(&full[1]), 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  for (int s = 0; s < 2; ++s) {  // prologue: fill both stages
    mbar_arrive_expect_tx(smem_u32(&full[s]), 128);
    bulk_load(smem_u32(stage[s]), in + 32 * s, smem_u32(&full[s]));
  }
  // iteration 0: stage 0 out, then refill it with chunk 2
  mbar_wait(smem_u32(&full[0]), 0);
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 128;" SITE(
                   "store")::"l"(out),
               "r"(smem_u32(stage[0]))
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#if TMEM_FIXED
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#else
  asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");  // kNumStages - 1
#endif
  mbar_arrive_expect_tx(smem_u32(&full[0]), 128);
  asm volatile(
      "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], 128, [%2];" SITE(
          "refill")::"r"(smem_u32(stage[0])),
      "l"(in + 64), "r"(smem_u32(&full[0]))
      : "memory");
  // iteration 1: stage 1 out
  mbar_wait(smem_u32(&full[1]), 0);
  bulk_store(out + 32, smem_u32(stage[1]));
  // iteration 2: stage 0 (chunk 2) out
  mbar_wait(smem_u32(&full[0]), 1);
  bulk_store(out + 64, smem_u32(stage[0]));
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
