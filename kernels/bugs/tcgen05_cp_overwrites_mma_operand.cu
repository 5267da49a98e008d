// Reproduces the mechanism of the race triton-lang/triton PR #8236 worked around ("[WS]
// work-around race by asserting mma sync if scales are tmem_alloc'ed before"): the
// load-mma pipeline made the MMA asynchronous while its TMEM operand (the scales, copied into
// TMEM once per iteration) lives in a single TMEM buffer, so the next iteration's copy into
// TMEM overwrites cells the previous, still running MMA reads. tcgen05.cp -> tcgen05.mma is a
// pipelined pair (issue order is enough), but tcgen05.mma -> tcgen05.cp is not: the copy must
// wait for the MMA's completion (tcgen05.commit + mbarrier wait) (PTX ISA §9.7.16.6.2). Here
// the TMEM operand is A of a kind::f16 MMA (the mechanism does not depend on which operand
// lives in TMEM). tmemu reports TM0204 at the second iteration's tcgen05.cp, related to the
// first MMA. Fixed: wait for the MMA's commit before reusing the TMEM buffer.
// Launch: grid 1, 128 threads; warp 0 lane 0 issues copies and MMAs.
#include "bugs.cuh"

extern "C" __global__ void tcgen05_cp_overwrites_mma_operand(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(1024) uint8_t sA[2][128 * 16 * 2];
  __shared__ __align__(1024) uint8_t sB[32 * 16 * 2];
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t mma_done[2];  // one per iteration, each used once
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 64);
    tc_relinquish1();
  }
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&mma_done[0]), 1);
    mbar_init(smem_u32(&mma_done[1]), 1);
  }
  for (int i = threadIdx.x; i < 2 * 128 * 16; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sA[i / 2048] + k32_offset((i % 2048) / 16, i % 16)) =
        (uint16_t)(in[i] & 0x3ff);
  for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sB + k32_offset(i / 16, i % 16)) = (uint16_t)(in[4096 + i] & 0x3ff);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  tc_sync_cta();
  const uint32_t tmem = slot, a_tmem = slot + 32;  // D: columns 0..31, A: 32..39
  const uint32_t idesc = (1u << 4) | ((32u >> 3) << 17) | ((128u >> 4) << 24);
  if (w == 0 && lane == 0) {
    for (uint32_t k = 0; k < 2; ++k) {
#if TMEM_FIXED
      if (k > 0) mbar_wait(smem_u32(&mma_done[0]), 0);  // the MMA that read A is done
#endif
      if (k == 0)
        asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" ::"r"(a_tmem),
                     "l"(k32_desc(smem_u32(sA[0])))
                     : "memory");
      else
        asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;" SITE("cp")::"r"(a_tmem),
                     "l"(k32_desc(smem_u32(sA[1])))
                     : "memory");
      if (k == 0)
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
            "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;" SITE("mma") "\n}" ::"r"(
                tmem),
            "r"(a_tmem), "l"(k32_desc(smem_u32(sB))), "r"(idesc)
            : "memory");
      else
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
            "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n}" ::"r"(tmem),
            "r"(a_tmem), "l"(k32_desc(smem_u32(sB))), "r"(idesc)
            : "memory");
      commit(smem_u32(&mma_done[k]));
    }
  }
  __syncwarp();
  // the second commit tracks both MMAs of the issuing thread
  mbar_wait(smem_u32(&mma_done[1]), 0);
  tc_fence_after();
  uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
               : "=r"(r)
               : "r"(lane_quarter(tmem))
               : "memory");
  tc_wait_ld();
  tc_sync_cta();
  if (w == 0) tc_dealloc1(tmem, 64);
  out[threadIdx.x] = r;
}
