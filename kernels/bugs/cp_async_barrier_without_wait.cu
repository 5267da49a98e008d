// Reproduces the mechanism of NVIDIA/Fuser#3428 (fixed by PR #3438, "fix race in async
// copy"): some threads fill a shared buffer with non-bulk cp.async, and the kernel relies on
// __syncthreads() to make it visible before every thread reads it. A barrier orders the
// threads but does not complete a cp.async: only the issuing thread's
// cp.async.wait_group/wait_all (or cp.async.mbarrier.arrive) does (PTX ISA §9.7.9.25.3), and
// the wait comes after the barrier (inside the later loop) or not at all. tmemu reports
// TM0213 at the read of the copied data. Fixed: cp.async.wait_all before the barrier.
// Launch: grid 1, 64 threads: warp 0 copies T3, both warps read it.
#include "bugs.cuh"

extern "C" __global__ void cp_async_barrier_without_wait(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(16) uint32_t t3[32];
  __shared__ __align__(16) uint32_t t2[64];
  if (threadIdx.x < 32)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_u32(&t3[threadIdx.x])),
                 "l"(in + threadIdx.x)
                 : "memory");
#if TMEM_FIXED
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
  __syncthreads();  // meant to publish t3
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
               : "=r"(v)
               : "r"(smem_u32(&t3[threadIdx.x % 32]))
               : "memory");
  // the per-iteration copy of the loop that follows, waited for as in the original kernel
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(smem_u32(&t2[threadIdx.x])),
               "l"(in + 32 + threadIdx.x)
               : "memory");
  asm volatile("cp.async.wait_all;" ::: "memory");
  __syncthreads();
  out[threadIdx.x] = v + t2[threadIdx.x];
}
