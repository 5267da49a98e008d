// Reproduces the mechanism of NVIDIA/TransformerEngine PR #3483 (issue #3474, item 3: "the
// direct mapper stored per-expert metadata in dynamic shared memory that was also used as the
// destination of asynchronous TMA loads. A TMA load could therefore overwrite the metadata
// before every warp had consumed it"): thread 0 writes each expert's row offset into the
// first words of the dynamic shared buffer and the CTA meets at a barrier; every warp reads
// its expert's offset from there, and warp 0, once it has read its own, issues the bulk copy
// of the input tile into the same buffer. Nothing orders the other warps' reads of the
// metadata before the copy's writes: TM0211 at the cp.async.bulk, related to a late warp's
// ld.shared of the metadata, or, when the copy lands first, TM0213 at that ld.shared,
// related to the copy (it reads bytes an unwaited bulk copy writes), by schedule. Fixed (the
// PR): the metadata lives in its own static shared array, apart from the copy's destination.
// Launch: grid 1, 128 threads (four warps, one expert each); a 64-word tile.
#include "bugs.cuh"

extern "C" __global__ void tma_load_overwrites_tile_metadata(const uint32_t* offsets,
                                                             const uint32_t* tile,
                                                             uint32_t* out) {
  __shared__ __align__(128) uint32_t buf[64];  // the dynamic buffer: TMA destination
  __shared__ __align__(8) uint64_t full;
#if TMEM_FIXED
  __shared__ __align__(16) uint32_t meta_static[4];  // the fix: metadata apart
  uint32_t* meta = meta_static;
#else
  uint32_t* meta = buf;  // the bug: metadata in the first words of the TMA destination
#endif
  const uint32_t t = threadIdx.x, w = warp_id();
  const uint32_t bar = smem_u32(&full);
  if (t == 0) {
    mbar_init(bar, 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if (t < 4) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_u32(&meta[t])), "r"(offsets[t])
                 : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  uint32_t row;
  asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
               : "=r"(row)
               : "r"(smem_u32(&meta[w]))
               : "memory");
  if (t == 0) {
    mbar_arrive_expect_tx(bar, 256);
    asm volatile(
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], 256, [%2];" SITE(
            "load")::"r"(smem_u32(buf)),
        "l"(tile), "r"(bar)
        : "memory");
  }
  mbar_wait(bar, 0);
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(smem_u32(&buf[(t % 32) * 2])) : "memory");
  out[t] = v + row;
}
