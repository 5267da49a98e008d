// Reproduces the mechanism of the review of flashinfer-ai/flashinfer PR #4742 (SM100 split-K
// GEMM: "Add the missing __threadfence() before the in-loop counter increment ... a reducer in
// another CTA can read stale partials"), in the form Triton emits for a last-block split-K
// (tl.atomic_add on the tile counter, sem="acq_rel" by default): each CTA stores its partial,
// meets its threads at bar.sync, and thread 0 takes a ticket with atom.add; the CTA that draws
// the last ticket sums the partials and resets the counter with a plain store. With the ticket
// .relaxed (sem="relaxed") and no fence there is no release pattern after the partial stores
// and no acquire pattern before the sum (bar.sync is CTA-scoped, PTX ISA §8): TM0212 at the last
// CTA's ld.global, related to another CTA's partial store, and at the counter's reset, related
// to another CTA's ticket. Fixed: the ticket atom.acq_rel.gpu.
// Launch: grid 4 (one CTA per cluster), 64 threads.
#include "bugs.cuh"

extern "C" __global__ void splitk_ticket_relaxed(const uint32_t* in, uint32_t* ws, uint32_t* count,
                                                 uint32_t* out) {
  __shared__ uint32_t am_last;
  const uint32_t t = threadIdx.x, n = blockDim.x;
  const uint32_t v = in[blockIdx.x * n + t] * 3u;  // this CTA's partial (its slice of K)
  asm volatile("st.global.u32 [%0], %1;" SITE("partial")::"l"(ws + blockIdx.x * n + t), "r"(v)
               : "memory");
  __syncthreads();
  if (t == 0) {
    uint32_t ticket;
#if TMEM_FIXED
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" SITE("ticket")
                 : "=r"(ticket)
                 : "l"(count)
                 : "memory");
#else
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], 1;" SITE("ticket")
                 : "=r"(ticket)
                 : "l"(count)
                 : "memory");
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
    if (t == 0)  // ready for the next launch
      asm volatile("st.global.u32 [%0], 0;" SITE("reset")::"l"(count) : "memory");
  }
}
