// Reproduces the mechanism of inclusionAI/cuLA PR #114 ("fix(kda): add the missing
// cross-proxy fence before TMA stores"; the same class as triton-lang/triton PR #9610, which
// made the fence pass treat a TMA store's shared source as an async-proxy read): the threads
// write an output tile to shared memory with ordinary stores (generic proxy), synchronise with
// bar.sync, and one thread writes the tile to global memory with a TMA tensor store
// (cp.async.bulk.tensor ... .global.shared::cta), which reads shared memory through the async
// proxy. bar.sync orders the threads but does not make generic writes visible to the async
// proxy (PTX ISA §9.7.9.25.2 / proxies): the store may read stale shared memory. tmemu reports
// TM0208 at the tensor store. Fixed: fence.proxy.async.shared::cta by every writing thread
// before the barrier.
// Launch: grid 1, 128 threads; `c` is f32 [8, 32] and the tensor map covers it with one
// 32 x 8 box.
#include "bugs.cuh"

struct alignas(64) TensorMap {
  uint8_t bytes[128];
};

extern "C" __global__ void tma_store_without_proxy_fence(const float* in, float* c,
                                                         const __grid_constant__ TensorMap tmap) {
  __shared__ __align__(128) float tile[8 * 32];
  for (int i = threadIdx.x; i < 8 * 32; i += blockDim.x) tile[i] = 2.0f * in[i];  // epilogue
#if TMEM_FIXED
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" SITE(
            "store")::"l"(reinterpret_cast<uint64_t>(&tmap)),
        "r"(0), "r"(0), "r"(smem_u32(tile))
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
  __syncthreads();
}
