// Reproduces the mechanism of NVIDIA/Fuser PR #5448 ("Fix bug in insertWarAsyncWait"): in a
// non-matmul kernel the consumer loop writes its results to a shared tile and stores the tile
// to global memory with a TMA store every iteration, but the bulk async-group commit and wait
// were emitted only once, after the loop. A bulk store reads its shared source asynchronously
// until its group's cp.async.bulk.wait_group.read (§9.7.9.25.4.4, §9.7.9.27.2.2), so the next
// iteration's stores into the tile race the previous TMA store still reading it. Fixed (the
// PR's "after"): commit_group + wait_group.read 0 inside the loop, then __syncthreads() before
// the tile is written again.
// Launch: grid 1, 64 threads; two iterations through one 256-byte tile.
#include "bugs.cuh"

extern "C" __global__ void bulk_store_source_rewritten_next_iteration(const uint32_t* in,
                                                                      uint32_t* out) {
  __shared__ __align__(128) uint32_t tile[64];
  const uint32_t t = threadIdx.x;
#pragma unroll 1
  for (uint32_t i = 0; i < 2; ++i) {
    const uint32_t v = in[64 * i + t] * 2u + i;
    asm volatile("st.shared.u32 [%0], %1;" SITE("write")::"r"(smem_u32(&tile[t])), "r"(v)
                 : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes -> TMA read
    __syncthreads();
    if (t == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;" SITE("store")::"l"(
                       out + 64 * i),
                   "r"(smem_u32(tile))
                   : "memory");
#if TMEM_FIXED
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
    }
#if TMEM_FIXED
    __syncthreads();  // the tile's reads are complete before any thread writes it again
#endif
  }
  if (t == 0) {
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
