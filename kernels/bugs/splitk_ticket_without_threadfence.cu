// Reproduces the mechanism of pytorch/pytorch PR #128455 ("Add threadfence to 2-stage reduction
// for correct writes visibility": the final block must complete the acquire pattern after its
// atomic) and NVIDIA/Fuser PR #2391 (the split-K serialisation missed the release-side
// __threadfence()): the last-block reduction of CUDA's threadFenceReduction sample and the CUDA
// Programming Guide's __threadfence() example, with both fences left out. Each CTA stores its
// partial with plain stores, meets its threads at bar.sync, and thread 0 takes a ticket with a
// relaxed .gpu atomic; the CTA that draws the last ticket sums every CTA's partial. Nothing is a
// release pattern after the partial stores nor an acquire pattern before the sum (bar.sync is
// CTA-scoped and cannot synchronise two CTAs of different clusters, PTX ISA §8 "Morally strong
// operations"): a data race on the workspace, TM0212 at the last CTA's ld.global, related to
// another CTA's partial store. Fixed: membar.gl (__threadfence) before the ticket and after it.
// Launch: grid 4 (one CTA per cluster), 64 threads.
#include "bugs.cuh"

extern "C" __global__ void splitk_ticket_without_threadfence(const uint32_t* in, uint32_t* ws,
                                                             uint32_t* count, uint32_t* out) {
  __shared__ uint32_t am_last;
  const uint32_t t = threadIdx.x, n = blockDim.x;
  const uint32_t v = in[blockIdx.x * n + t] * 3u;  // this CTA's partial (its slice of K)
  asm volatile("st.global.u32 [%0], %1;" SITE("partial")::"l"(ws + blockIdx.x * n + t), "r"(v)
               : "memory");
#if TMEM_FIXED
  asm volatile("membar.gl;" ::: "memory");  // release pattern: the fence, then the ticket
#endif
  __syncthreads();
  if (t == 0) {
    uint32_t ticket;
    asm volatile("atom.relaxed.gpu.global.inc.u32 %0, [%1], %2;" SITE("ticket")
                 : "=r"(ticket)
                 : "l"(count), "r"(gridDim.x - 1)
                 : "memory");
#if TMEM_FIXED
    asm volatile("membar.gl;" ::: "memory");  // acquire pattern: the ticket, then the fence
#endif
    am_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (am_last) {
    uint32_t sum = 0;
#pragma unroll 1
    for (uint32_t s = 0; s < gridDim.x; ++s) {
      uint32_t p;
      asm volatile("ld.global.u32 %0, [%1];" SITE("sum") : "=r"(p) : "l"(ws + s * n + t) : "memory");
      sum += p;
    }
    out[t] = sum;
  }
}
