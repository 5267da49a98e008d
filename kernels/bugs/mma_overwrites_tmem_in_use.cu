// Reproduces the mechanism of facebookexperimental/triton#1996 (PR #2024; the same hazard is what
// upstream triton-lang/triton#10263's TMEM barrier pass now guards): in the warp-specialised
// FA backward, the dq MMA ("Dot 5") writes TMEM columns that alias the qk tile the compute warps
// may still be reading with tcgen05.ld. The MMA warp waited only on a barrier that proves the
// compute warps consumed the *previous* tile (ds_fulls of iteration j-1, "one iteration stale"
// on a single-buffered TMEM ring), so the MMA write is ordered against the qk read only by MMA
// pipe timing. Here: warp 4 issues S = A·B into columns 0..31 and commits to s_full; warps 0-3
// (compute) arrive on `prev_consumed` (the stale proof), wait s_full and read S; warp 4 waits
// prev_consumed and issues the second MMA (dq) into the same columns after its other work (a
// delay longer than any scheduling quantum: the dK/dV MMAs of the real kernel), so the reads
// come first and the dq write is unordered after them: TM0205 at the dq MMA. Fixed: the
// compute warps arrive on qk_empty after tcgen05.wait::ld, and warp 4 waits qk_empty before
// the dq MMA.
// Launch: grid 1, 160 threads.
#include "bugs.cuh"

extern "C" __global__ void mma_overwrites_tmem_in_use(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(1024) uint8_t sA[128 * 16 * 2];
  __shared__ __align__(1024) uint8_t sB[2][32 * 16 * 2];
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t s_full, prev_consumed, qk_empty, dq_done;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 4) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&s_full), 1);
    mbar_init(smem_u32(&prev_consumed), 128);
    mbar_init(smem_u32(&qk_empty), 128);
    mbar_init(smem_u32(&dq_done), 1);
  }
  for (int i = threadIdx.x; i < 128 * 16; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sA + k32_offset(i / 16, i % 16)) = (uint16_t)in[i];
  for (int v = 0; v < 2; ++v)
    for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
      *reinterpret_cast<uint16_t*>(sB[v] + k32_offset(i / 16, i % 16)) =
          (uint16_t)in[2048 + 512 * v + i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  tc_sync_cta();
  const uint32_t tmem = slot;
  uint32_t result = 0;
  if (w == 4) {
    if (lane == 0) {
      mma_f16(tmem, k32_desc(smem_u32(sA)), k32_desc(smem_u32(sB[0])));  // S (the qk tile)
      commit(smem_u32(&s_full));
    }
    __syncwarp();
    mbar_wait(smem_u32(&s_full), 0);  // S done: its operand stage may be refilled
    // the dK / dV MMAs of the real kernel come here
#pragma unroll 1
    for (int i = 0; i < 1024; ++i) asm volatile("nanosleep.u32 100;" ::: "memory");
    mbar_wait(smem_u32(&prev_consumed), 0);  // stale: the previous tile, not this S
#if TMEM_FIXED
    mbar_wait(smem_u32(&qk_empty), 0);  // every compute warp finished reading S
#endif
    tc_fence_after();
    if (lane == 0) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;" SITE("dq") "\n}" ::"r"(tmem),
          "l"(k32_desc(smem_u32(sA))), "l"(k32_desc(smem_u32(sB[1]))),
          "r"((1u << 4) | ((32u >> 3) << 17) | ((128u >> 4) << 24))
          : "memory");
      commit(smem_u32(&dq_done));
    }
    __syncwarp();
  } else {  // compute warps 0-3: one lane quarter each
    mbar_arrive(smem_u32(&prev_consumed));
    mbar_wait(smem_u32(&s_full), 0);
    tc_fence_after();
    uint32_t s[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];" SITE(
                     "load")
                 : "=r"(s[0]), "=r"(s[1]), "=r"(s[2]), "=r"(s[3]), "=r"(s[4]), "=r"(s[5]),
                   "=r"(s[6]), "=r"(s[7])
                 : "r"(lane_quarter(tmem))
                 : "memory");
    tc_wait_ld();
    tc_fence_before();
    mbar_arrive(smem_u32(&qk_empty));
    for (int c = 0; c < 8; ++c) result += s[c];
    mbar_wait(smem_u32(&dq_done), 0);
    tc_fence_after();
    uint32_t d;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
                 : "=r"(d)
                 : "r"(lane_quarter(tmem))
                 : "memory");
    tc_wait_ld();
    result ^= d;
  }
  tc_sync_cta();
  if (w == 4) tc_dealloc1(tmem, 32);
  out[threadIdx.x] = result;
}
