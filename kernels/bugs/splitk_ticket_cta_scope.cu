// Reproduces the mechanism of NVIDIA/cudf PR #16051 ("Fix atomic_ref scope when multiple
// blocks are updating the same output": thread_scope_block atomics where threads of several
// blocks update one location) in the last-block reduction of CUDA's threadFenceReduction
// sample: the fences are there (membar.gl before and after the ticket), but the ticket is a
// .cta-scoped atomic (atomicInc_block). A .cta atomic is not morally strong with another CTA's
// (PTX ISA §8 "Morally strong operations"): the fence-ticket-fence chain is no release/acquire
// pattern between CTAs of different clusters, so the last CTA's sum races the other CTAs'
// partial stores: TM0212 at the last CTA's ld.global, related to another CTA's partial store.
// Fixed: the ticket at .gpu scope (atomicInc).
// Launch: grid 4 (one CTA per cluster), 64 threads.
#include "bugs.cuh"

extern "C" __global__ void splitk_ticket_cta_scope(const uint32_t* in, uint32_t* ws,
                                                             uint32_t* count, uint32_t* out) {
  __shared__ uint32_t am_last;
  const uint32_t t = threadIdx.x, n = blockDim.x;
  const uint32_t v = in[blockIdx.x * n + t] * 3u;  // this CTA's partial (its slice of K)
  asm volatile("st.global.u32 [%0], %1;" SITE("partial")::"l"(ws + blockIdx.x * n + t), "r"(v)
               : "memory");
  asm volatile("membar.gl;" ::: "memory");  // the fence of the release pattern
  __syncthreads();
  if (t == 0) {
    uint32_t ticket;
#if TMEM_FIXED
    asm volatile("atom.relaxed.gpu.global.inc.u32 %0, [%1], %2;" SITE("ticket")
                 : "=r"(ticket)
                 : "l"(count), "r"(gridDim.x - 1)
                 : "memory");
#else
    // atomicInc_block: not morally strong with the other CTAs' tickets
    asm volatile("atom.relaxed.cta.global.inc.u32 %0, [%1], %2;" SITE("ticket")
                 : "=r"(ticket)
                 : "l"(count), "r"(gridDim.x - 1)
                 : "memory");
#endif
    asm volatile("membar.gl;" ::: "memory");  // the fence of the acquire pattern
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
