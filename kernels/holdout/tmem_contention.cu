// Holdout nvcc kernel (our own): every CTA allocates all 512 TMEM columns. On a GPU with fewer
// SMs than CTAs (the holdout test's one-SM run) co-resident CTAs contend: each tcgen05.alloc
// blocks until the CTA holding the columns deallocates (PTX ISA §9.7.16.7.1: alloc is
// potentially blocking). Each CTA writes a CTA-specific pattern into its highest 32 columns
// (.32x32b.x32), reads it back (.16x128b.x16, a different shape) and writes it out; its TMEM
// must hold its own values, never another CTA's.
#include <stdint.h>

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(128, 1)
tmem_contention(uint32_t* __restrict__ out) {   // [4 CTAs][4 warps][2 halves][32 lanes][16]
  __shared__ uint32_t tmem_base;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, cta = blockIdx.x;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 512;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const uint32_t quarter = tmem + ((warp * 32) << 16) + 480;

  uint32_t v[32];
  for (int i = 0; i < 32; ++i) v[i] = (cta << 24) | ((warp * 32 + lane) << 8) | (uint32_t)i;
  asm volatile(
      "tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
      "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
      "%28, %29, %30, %31, %32};"
      :: "r"(quarter), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]),
         "r"(v[6]), "r"(v[7]), "r"(v[8]), "r"(v[9]), "r"(v[10]), "r"(v[11]), "r"(v[12]),
         "r"(v[13]), "r"(v[14]), "r"(v[15]), "r"(v[16]), "r"(v[17]), "r"(v[18]), "r"(v[19]),
         "r"(v[20]), "r"(v[21]), "r"(v[22]), "r"(v[23]), "r"(v[24]), "r"(v[25]), "r"(v[26]),
         "r"(v[27]), "r"(v[28]), "r"(v[29]), "r"(v[30]), "r"(v[31])
      : "memory");
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  for (uint32_t half = 0; half < 2; ++half) {
    uint32_t r[16];
    asm volatile(
        "tcgen05.ld.sync.aligned.16x128b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
        "%11, %12, %13, %14, %15}, [%16];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
          "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]),
          "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
        : "r"(quarter + ((half * 16) << 16)) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    uint32_t* o = out + (((cta * 4 + warp) * 2 + half) * 32 + lane) * 16;
    for (int i = 0; i < 16; ++i) o[i] = r[i];
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 512;" :: "r"(tmem) : "memory");
  }
}
