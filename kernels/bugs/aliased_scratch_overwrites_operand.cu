// Reproduces the mechanism of sgl-project/sglang PR #37287 ("Fix shared-memory reuse race in
// CuTe DSL DSV3 fused-A GEMM"): the kernel reuses its pipeline's A stage for the split-K
// partial sums (sC aliases sA stage 0). A barrier after the sC stores protects the reduction,
// but none before them: a fast warp overwrites sA with its partials while a slower warp is
// still reading its operands from it. Plain shared accesses of two warps with no barrier
// between them are a data race (PTX ISA §8): TM0211 at the partial-sum store or at the operand
// read (by schedule), each related to the other. Fixed (the PR): a barrier over the compute
// warps before the first sC store.
// Launch: grid 1, 128 threads (four compute warps); the tile arrives by bulk copy.
#include "bugs.cuh"

extern "C" __global__ void aliased_scratch_overwrites_operand(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t sA[128];  // stage 0 of A; later the partials sC
  __shared__ __align__(8) uint64_t mbar;
  const uint32_t t = threadIdx.x;
  const uint32_t bar = smem_u32(&mbar);
  if (t == 0) mbar_init(bar, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    mbar_arrive_expect_tx(bar, 512);
    asm volatile(
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], 512, "
        "[%2];" ::"r"(smem_u32(sA)),
        "l"(in), "r"(bar)
        : "memory");
  }
  mbar_wait(bar, 0);
  // each thread's dot product reads operands owned (as partial slots) by the next warp
  uint32_t a;
  asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
               : "=r"(a)
               : "r"(smem_u32(&sA[(t + 32) % 128]))
               : "memory");
  const uint32_t partial = a * 3u + t;
#if TMEM_FIXED
  asm volatile("bar.sync 1, 128;" ::: "memory");
#endif
  asm volatile("st.shared.u32 [%0], %1;" SITE("partial")::"r"(smem_u32(&sA[t])), "r"(partial)
               : "memory");
  __syncthreads();  // the barrier the kernel had: protects the reduction
  out[t] = sA[t] + sA[(t + 64) % 128];
}
