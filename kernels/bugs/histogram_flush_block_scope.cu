// Reproduces the mechanism of ComputationalRadiationPhysics/picongpu PR #2231 ("fix wrong used
// hierarchy for atomic operation": "The shared memory histogram is reduced with the hierarchy
// `Threads` to the global memory. This will produce raceconditions between blocks of a grid";
// alpaka's `Threads` hierarchy is CUDA's atomicAdd_block, `Blocks` its atomicAdd). Each CTA
// builds a histogram of its slice in shared memory with atomicAdd_block (correct: every thread
// that touches those bins is of the CTA), then flushes its bins into the one global histogram
// with atomicAdd_block as well. A .cta atomic includes only the threads of its own CTA, so two
// CTAs' flushes of one bin are not morally strong with each other (PTX ISA §8, "Morally strong
// operations") and nothing orders them: a data race ("Conflict and Data-races"), TM0212 at the
// flush, related to another CTA's flush (the same instruction). Fixed: the flush at .gpu
// scope (atomicAdd: red.relaxed.gpu); the shared-memory bins keep atomicAdd_block.
// Launch: grid 4 (one CTA per cluster), 64 threads, 16 bins.
#include "bugs.cuh"

constexpr uint32_t BINS = 16;

extern "C" __global__ void histogram_flush_block_scope(const uint32_t* in, uint32_t* hist) {
  __shared__ uint32_t bins[BINS];
  const uint32_t t = threadIdx.x;
  if (t < BINS) bins[t] = 0;
  __syncthreads();
  const uint32_t v = in[blockIdx.x * blockDim.x + t];
  // atomicAdd_block on the CTA's own shared memory: morally strong, no race
  asm volatile("red.relaxed.cta.shared::cta.add.u32 [%0], %1;" SITE("bin")::"r"(
                   smem_u32(&bins[v % BINS])),
               "r"(1u)
               : "memory");
  __syncthreads();
  if (t < BINS) {
    const uint32_t n = bins[t];
#if TMEM_FIXED
    // atomicAdd: .gpu scope includes the other CTAs' flushes
    asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" SITE("flush")::"l"(hist + t), "r"(n)
                 : "memory");
#else
    // atomicAdd_block into the histogram every CTA flushes into
    asm volatile("red.relaxed.cta.global.add.u32 [%0], %1;" SITE("flush")::"l"(hist + t), "r"(n)
                 : "memory");
#endif
  }
}
