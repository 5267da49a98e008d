// Reproduces the mechanism of the race facebookexperimental/triton PR #1553 fixed in its test
// ("cross CTA sync should be after TMEM store and before mma"): the warps write the MMA's A
// operand into TMEM with tcgen05.st and the MMA warp then issues a tcgen05.mma that reads A
// from TMEM, but the thread synchronisation sits *before* the stores instead of between the
// stores and the MMA. Nothing orders the other warps' tcgen05.st (asynchronous until
// tcgen05.wait::st) before the MMA's read of the same cells: the MMA may read old data. tmemu
// reports the read of the unfinished writes at the tcgen05.mma. Fixed: tcgen05.wait::st,
// fence::before_thread_sync, bar.sync, fence::after_thread_sync, then the MMA.
// Launch: grid 1, 128 threads (warp w writes A's rows 32w..32w+31).
#include "bugs.cuh"

extern "C" __global__ void mma_reads_tmem_before_store_sync(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(1024) uint8_t sB[32 * 16 * 2];
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t mma_done;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 64);
    tc_relinquish1();
  }
  if (threadIdx.x == 0) mbar_init(smem_u32(&mma_done), 1);
  for (int i = threadIdx.x; i < 32 * 16; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sB + k32_offset(i / 16, i % 16)) = (uint16_t)(in[i] & 0x3ff);
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  tc_sync_cta();
  const uint32_t tmem = slot, a_tmem = slot + 32;  // D: columns 0..31, A: 32..39
#if !TMEM_FIXED
  tc_sync_cta();  // the misplaced synchronisation: before the stores
#endif
  // A (128 x 16 fp16): row 32w + lane in this warp's lane quarter, 8 columns of fp16 pairs
  uint32_t a[8];
  for (int c = 0; c < 8; ++c) a[c] = (in[512 + threadIdx.x * 8 + c] & 0x03ff03ffu);
  asm volatile(
      "tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" SITE(
          "st")::"r"(lane_quarter(a_tmem)),
      "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[4]), "r"(a[5]), "r"(a[6]), "r"(a[7])
      : "memory");
#if TMEM_FIXED
  tc_wait_st();
  tc_sync_cta();  // every warp's A rows are in TMEM before the MMA reads them
#endif
  if (w == 0) {
    if (lane == 0) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;" SITE("mma") "\n}" ::"r"(
              tmem),
          "r"(a_tmem), "l"(k32_desc(smem_u32(sB))),
          "r"((1u << 4) | ((32u >> 3) << 17) | ((128u >> 4) << 24))
          : "memory");
      commit(smem_u32(&mma_done));
    }
    __syncwarp();
  }
#if !TMEM_FIXED
  tc_wait_st();
#endif
  mbar_wait(smem_u32(&mma_done), 0);
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
