// Reproduces the mechanism of MoonshotAI/FlashKDA#24 ("Missing proxy fences around TMA
// accesses"): the kernel zero-initialises a state tile in shared memory with ordinary
// (generic-proxy) stores and later writes it to global memory with a bulk copy, which reads
// shared memory through the async proxy. The only fence.proxy.async.shared::cta sits inside
// the main loop, so when the sequence is empty (0 tiles) the loop never runs and only
// __syncthreads separates the generic writes from the bulk store: the copy may read stale
// shared memory (§9.7.9.25.2, the async proxy). tmemu reports TM0208 at the
// cp.async.bulk.global.shared::cta. Fixed: fence after the last generic write on every path.
// Launch: grid 1, 128 threads; the third argument is the number of tiles (0).
#include "bugs.cuh"

extern "C" __global__ void bulk_store_without_proxy_fence(const uint32_t* in, uint32_t* out,
                                                          uint32_t tiles) {
  __shared__ __align__(128) uint32_t state[128];
  state[threadIdx.x] = 0;  // zero-initialised state (generic proxy)
  for (uint32_t t = 0; t < tiles; ++t) {
    state[threadIdx.x] += in[t * 128 + threadIdx.x];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // per-iteration fence
  }
#if TMEM_FIXED
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // on every path
#endif
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" SITE(
                     "store")::"l"(out),
                 "r"(smem_u32(state)), "r"((uint32_t)sizeof(state))
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}
