// Reproduces the mechanism of triton-lang/triton PR #10415 ("[TMA] Update TMAStoreWaitOp to wait
// for the memory write to complete": `desc.store(...)` followed by `tl.atomic_xchg(flag, 1,
// sem="release")` "does not release the store"; HazyResearch/ThunderKittens#194 asks the same of
// `store_async_read_wait()` before a cross-GPU signal): the producer warp writes a tile to global
// memory with a bulk store, waits with `cp.async.bulk.wait_group.read 0`, which only waits until
// the copy has finished *reading* shared memory (PTX ISA §9.7.9.25.4.4), and publishes a flag
// with a release. The consumer warp acquires the flag and reads the tile, but the bulk store's
// global writes may still be in flight. tmemu reports TM0213 at the consumer's ld.global,
// related to the bulk store. Fixed: `cp.async.bulk.wait_group 0` (the writes are complete)
// before the release.
// Launch: grid 1, 64 threads: warp 0 produces, warp 1 consumes.
#include "bugs.cuh"

extern "C" __global__ void bulk_store_released_after_read_wait(const uint32_t* in, uint32_t* tile,
                                                               uint32_t* flag, uint32_t* out) {
  __shared__ __align__(128) uint32_t stage[32];
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 0) {
    stage[lane] = in[lane] + 1u;
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncwarp();
    if (lane == 0) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" SITE(
                       "store")::"l"(tile),
                   "r"(smem_u32(stage)), "r"((uint32_t)sizeof(stage))
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#if TMEM_FIXED
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
#endif
      asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(flag), "r"(1u) : "memory");
    }
  } else {
    uint32_t f = 0;
    while (f == 0) {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(f) : "l"(flag) : "memory");
    }
    uint32_t v;
    asm volatile("ld.global.u32 %0, [%1];" SITE("read")
                 : "=r"(v)
                 : "l"(tile + (31 - lane))
                 : "memory");
    out[lane] = v;
  }
}
