// Reproduces the mechanism of tile-ai/tilelang#2827 (fixed by PR #2831, "Pack logical TMEM
// buffers into shared tcgen05.alloc arenas"): every logical TMEM buffer got its own
// tcgen05.alloc, rounded up to a power of two: a 384-column accumulator (three 128-column
// stages) becomes 512 columns, and the three 4-column block-scale buffers 32 each, 608 columns
// of the 512 an SM has. The first allocation takes all 512; the second can never be granted
// (only a dealloc of the CTA's own columns could free them, and the allocating warp is the one
// waiting): the warp blocks in tcgen05.alloc for ever, the other warps at the barrier that
// publishes the addresses. tmemu reports the hang with TM0020, naming the CTA that holds the
// columns and its alloc. Fixed: one 512-column arena, the scale buffers at column offsets
// 384, 388 and 392 of it.
// Launch: grid 1, 128 threads.
#include "bugs.cuh"

extern "C" __global__ void tmem_buffers_exceed_512_columns(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t slot[4];  // accumulator, scale A, scale B, scale C
  const uint32_t w = warp_id();
  if (w == 0) {
    tc_alloc1(smem_u32(&slot[0]), 512);  // 384 columns rounded up
#if !TMEM_FIXED
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" SITE(
                     "alloc2")::"r"(smem_u32(&slot[1]))
                 : "memory");
    tc_alloc1(smem_u32(&slot[2]), 32);
    tc_alloc1(smem_u32(&slot[3]), 32);
#endif
    tc_relinquish1();
  }
  tc_fence_before();
  asm volatile("bar.sync 0;" SITE("publish")::: "memory");
  tc_fence_after();
  const uint32_t acc = slot[0];
#if TMEM_FIXED
  const uint32_t sf[3] = {acc + 384, acc + 388, acc + 392};  // packed into the arena
#else
  const uint32_t sf[3] = {slot[1], slot[2], slot[3]};
#endif
  const uint32_t v = in[threadIdx.x];
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(lane_quarter(acc)),
               "r"(v)
               : "memory");
  for (int i = 0; i < 3; ++i)
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(lane_quarter(sf[i])),
                 "r"(v + i + 1)
                 : "memory");
  tc_wait_st();
  uint32_t r, s;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
               : "=r"(r)
               : "r"(lane_quarter(acc))
               : "memory");
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];"
               : "=r"(s)
               : "r"(lane_quarter(sf[2]))
               : "memory");
  tc_wait_ld();
  tc_sync_cta();
  if (w == 0) {
#if !TMEM_FIXED
    for (int i = 3; i >= 1; --i) tc_dealloc1(slot[i], 32);
#endif
    tc_dealloc1(acc, 512);
  }
  out[threadIdx.x] = r + s;
}
