// Reproduces the mechanism of mlc-ai/TIRx-kernels PR #21 ("use unaligned barriers across split
// roles"; PR #66 the same for more kernels): a named barrier (id 1, 64 threads) joins a producer
// warp and a consumer warp that reach it from different role branches, each through its own
// `bar.sync 1, 64`. `bar.sync` is `barrier.sync.aligned`, whose contract is that all threads
// taking part execute the same barrier instruction (PTX ISA §9.7.13.1: .aligned "indicates that
// all threads in CTA will execute the same barrier instruction"); two static sites completing
// one barrier generation is undefined (compute-sanitizer synccheck: divergent barrier).
// tmemu reports TM0507 at the second site's bar.sync, related to the first. Fixed: the
// unaligned `barrier.sync 1, 64` at both sites.
// Launch: grid 1, 64 threads: warp 0 produces, warp 1 consumes.
#include "bugs.cuh"

extern "C" __global__ void aligned_barrier_split_roles(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t buf[32];
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 0) {  // producer role
    buf[lane] = in[lane] * 2u;
#if TMEM_FIXED
    asm volatile("barrier.sync 1, 64;" ::: "memory");
#else
    asm volatile("bar.sync 1, 64;" SITE("producer") ::: "memory");
#endif
  } else {  // consumer role
    const uint32_t bias = in[32 + lane];
#if TMEM_FIXED
    asm volatile("barrier.sync 1, 64;" ::: "memory");
#else
    asm volatile("bar.sync 1, 64;" SITE("consumer") ::: "memory");
#endif
    out[lane] = buf[31 - lane] + bias;
  }
}
