// Reproduces the mechanism of NVIDIA/Fuser#1552 ("MbarrierTest.Simple hangs on H100", fixed by
// PR #1769 "Sync after mbarrier init"): the generated kernel executed mbarrier.init in *every*
// thread and then arrived and waited on the barrier with no barrier between the init and the
// first arrive. mbarrier.init on a valid mbarrier is undefined (§9.7.13.15.9), and a slow warp's
// init resets the phase and the pending count after a fast warp already arrived: the arrival is
// lost and the waiters hang. Fixed: one thread initialises, __syncthreads() before any arrive
// (the PR added the sync; the ISA also forbids the repeated init, so the fix initialises once).
// Launch: grid 1, 64 threads (two warps); every thread arrives, so the count is 64.
#include "bugs.cuh"

extern "C" __global__ void mbarrier_init_by_every_thread(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t tile[64];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t t = threadIdx.x;
#if TMEM_FIXED
  if (t == 0) mbar_init(smem_u32(&bar), 64);
  __syncthreads();
#else
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" SITE("init")::"r"(smem_u32(&bar))
               : "memory");
#endif
  tile[t] = in[t];
  uint64_t token;
  asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];"
               : "=l"(token)
               : "r"(smem_u32(&bar))
               : "memory");
  uint32_t done;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.shared::cta.b64 p, [%1], %2;" SITE("wait") "\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(smem_u32(&bar)), "l"(token)
        : "memory");
  } while (!done);
  out[t] = tile[63 - t];
  __syncthreads();
  if (t == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(smem_u32(&bar)) : "memory");
}
