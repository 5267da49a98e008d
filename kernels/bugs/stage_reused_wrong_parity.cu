// Reproduces the mechanism of tile-ai/tilelang PR #3087 ("Fix wait parity for explicit
// mbarriers in pipelined loops"): a software-pipelined loop refills one shared-memory operand
// stage every iteration and waits for the MMA that reads it through an explicit mbarrier
// (tcgen05.commit), a single slot whose phase flips once per iteration. The wait was given the
// ring parity of a num_stages-deep pipeline, (k / num_stages) % 2, instead of k % 2: at k = 1
// it asks for parity 0, a phase that has already completed, so mbarrier.try_wait returns at
// once and the next iteration's bulk copy overwrites the stage while the MMA of iteration 1 may
// still read it (wrong results at num_stages >= 3). tmemu reports TM0209 at the refilling
// cp.async.bulk, related to the MMA; the same stale parity lets the epilogue read the
// accumulator (TM0206) and free it (TM0204) before the last MMA completed. When the MMAs
// complete at once (tmemu's immediate policy; a fast MMA on hardware) the wrong parity names
// the *next*, never-completing phase instead: the MMA warp hangs in its wait (TM0225) and the
// other warps at the barrier after the loop. Under the delayed policies the commit of
// iteration 2 also arrives in phase 2 while no wait has observed phase 1 complete (the stale
// wait of iteration 1 observed phase 0 again): TM0232, the phase discipline of §9.7.13.15.4
// that the stale parity breaks. Fixed: wait with parity k % 2.
// Launch: grid 1, 128 threads; warp 0 issues the copies and the MMAs.
#include "bugs.cuh"

extern "C" __global__ void stage_reused_wrong_parity(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(1024) uint8_t sA[128 * 16 * 2];
  __shared__ __align__(1024) uint8_t sB[32 * 16 * 2];  // the one operand stage
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t loaded, mma_done;
  constexpr int kIters = 3, kStages = 3;
  constexpr uint32_t kStageBytes = sizeof(sB);
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&loaded), 1);
    mbar_init(smem_u32(&mma_done), 1);
  }
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sA + k32_offset(i / 16, i % 16)) = (uint16_t)(i % 7);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  tc_sync_cta();
  const uint32_t tmem = slot;
  if (w == 0) {
#pragma unroll 1
    for (int k = 0; k < kIters; ++k) {
      if (lane == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                         smem_u32(&loaded)),
                     "r"(kStageBytes)
                     : "memory");
        asm volatile(
            "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
            "[%3];" SITE("refill")::"r"(smem_u32(sB)),
            "l"(in + k * (kStageBytes / 4)), "r"(kStageBytes), "r"(smem_u32(&loaded))
            : "memory");
      }
      mbar_wait(smem_u32(&loaded), k & 1);
      tc_fence_after();
      if (lane == 0) {
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
            "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;" SITE("mma") "\n}" ::"r"(
                tmem),
            "l"(k32_desc(smem_u32(sA))), "l"(k32_desc(smem_u32(sB))),
            "r"((1u << 4) | ((32u >> 3) << 17) | ((128u >> 4) << 24)), "r"(k)
            : "memory");
        asm volatile(
            "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" SITE(
                "commit")::"r"(smem_u32(&mma_done))
            : "memory");
      }
      __syncwarp();
#if TMEM_FIXED
      const uint32_t parity = k % 2;  // the slot flips once per iteration
#else
      const uint32_t parity = (k / kStages) % 2;  // the ring's law: 0 again at k = 1
#endif
      uint32_t done;
      do {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;" SITE("wait") "\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(done)
            : "r"(smem_u32(&mma_done)), "r"(parity)
            : "memory");
      } while (!done);
    }
  }
  // the accumulator: the last wait (k = 2, parity 0) is meant to cover every MMA
  tc_fence_before();
  asm volatile("bar.sync 0;" SITE("drain")::: "memory");
  tc_fence_after();
  uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" SITE("epilogue")
               : "=r"(r)
               : "r"(lane_quarter(tmem))
               : "memory");
  tc_wait_ld();
  tc_sync_cta();
  if (w == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" SITE("free")::"r"(tmem)
                 : "memory");
  out[threadIdx.x] = r;
}
