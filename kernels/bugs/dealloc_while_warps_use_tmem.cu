// Reproduces the mechanism of triton-lang/triton PR #7994 ("Add bar.sync before deallocating
// tmem"; the same use-after-free was fixed in Dao-AILab/flash-attention PR #2312 and
// mlc-ai/TIRx-kernels PR #19): every warp of the CTA reads its lane quarter of a TMEM tile, and
// the allocating warp deallocates as soon as its *own* accesses are done. tcgen05.dealloc
// synchronises only the issuing warp; nothing orders the other warps' tcgen05.st/ld before it,
// so the columns may be freed (and handed to another CTA) while they still use them
// (§9.7.16.7.1, §9.7.16.6: the accesses and the dealloc must be ordered). Fixed:
// fence::before_thread_sync, bar.sync, fence::after_thread_sync before the dealloc.
// Launch: grid 1, 128 threads (four warps, one per lane quarter).
#include "bugs.cuh"

extern "C" __global__ void dealloc_while_warps_use_tmem(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t slot;
  const uint32_t w = warp_id();
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  tc_sync_cta();
  const uint32_t taddr = lane_quarter(slot);
  const uint32_t v = in[threadIdx.x] * 3u;
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" SITE("store")::"r"(taddr),
               "r"(v)
               : "memory");
  tc_wait_st();
  uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" SITE("load")
               : "=r"(r)
               : "r"(taddr)
               : "memory");
  tc_wait_ld();
  out[threadIdx.x] = r + 1u;
#if TMEM_FIXED
  tc_sync_cta();  // every warp's TMEM accesses happen before the dealloc
#endif
  if (w == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" SITE("dealloc")::"r"(slot)
                 : "memory");
  }
}
