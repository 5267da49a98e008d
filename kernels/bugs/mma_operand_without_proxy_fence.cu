// Reproduces the mechanism of tile-ai/tilelang#2634 (fixed by PR #3139, "Add async-proxy
// fences for sparse MMA intrinsics"): the operand tiles of a tcgen05.mma are written to shared
// memory with ordinary stores (generic proxy), and the MMA reads them through the async proxy.
// The compiler's fence-insertion pass did not classify the (block-scaled) tcgen05 MMA as an
// async-proxy reader, so no fence.proxy.async was emitted between the stores and the MMA: a
// bar.sync orders the threads but does not make generic writes visible to the async proxy
// (§9.7.16.6.5), so the MMA may read stale operands. tmemu reports TM0208 at the
// tcgen05.mma. (The kernel uses kind::f16; the mechanism does not depend on the kind.)
// Fixed: fence.proxy.async.shared::cta after the stores, before the barrier.
// Launch: grid 1, 128 threads.
#include "bugs.cuh"

extern "C" __global__ void mma_operand_without_proxy_fence(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(1024) uint8_t sA[128 * 16 * 2];
  __shared__ __align__(1024) uint8_t sB[32 * 16 * 2];
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t mma_done;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  if (threadIdx.x == 0) mbar_init(smem_u32(&mma_done), 1);
  // the operands, converted by the threads and stored with st.shared
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sA + k32_offset(i / 16, i % 16)) = (uint16_t)(in[i] & 0x3ff);
  for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sB + k32_offset(i / 16, i % 16)) =
        (uint16_t)(in[2048 + i] & 0x3ff);
#if TMEM_FIXED
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
  tc_sync_cta();
  const uint32_t tmem = slot;
  if (w == 0) {
    if (lane == 0) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;" SITE("mma") "\n}" ::"r"(tmem),
          "l"(k32_desc(smem_u32(sA))), "l"(k32_desc(smem_u32(sB))),
          "r"((1u << 4) | ((32u >> 3) << 17) | ((128u >> 4) << 24))
          : "memory");
      commit(smem_u32(&mma_done));
    }
    __syncwarp();
  }
  mbar_wait(smem_u32(&mma_done), 0);
  tc_fence_after();
  uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
               : "=r"(r)
               : "r"(lane_quarter(tmem))
               : "memory");
  tc_wait_ld();
  tc_sync_cta();
  if (w == 0) tc_dealloc1(tmem, 32);
  out[threadIdx.x] = r;
}
