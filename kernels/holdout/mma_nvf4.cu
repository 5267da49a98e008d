// Holdout nvcc kernel (our own): block-scaled fp4 with 16-element blocks and ue4m3 scales,
// tcgen05.mma.kind::mxf4nvf4.block_scale.block16 (NVFP4) -- a kind no compiler in the corpus
// emits. One CTA: D[128x64] = (A . sA)[128x64] @ (B . sB)[64x64], A and B e2m1 packed two per
// byte (element 2i in the low nibble), K-major with 32B swizzle (one 32-byte row = K 64), the
// scales stored into TMEM with tcgen05.st in the layout of /work/shared/spec/mma.md §6 (DERIVED
// from CUTLASS tmem_sf_frg): row r = r0 + 32*r1 of scale_A at lane r0 + 32*q for every warp
// quarter q, column SFA + r1, byte j = scale of K block j; scale_B likewise with n for r.
#include <stdint.h>

constexpr int M = 128, N = 64, K = 64;
constexpr uint32_t COL_D = 0, COL_SFA = 64, COL_SFB = 72;

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

// Byte of row r, K byte kb (two fp4 per byte) in a K-major 32B-swizzled operand.
static __device__ uint32_t k32_byte(int r, int kb) {
  const uint32_t off = (r % 8) * 32 + (r / 8) * 256 + kb;
  return off ^ (((off >> 7) & 1) << 4);
}
static __device__ uint64_t k32_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(256 >> 4) << 32) |
         (1ull << 46) | (6ull << 61);
}

extern "C" __global__ void __launch_bounds__(128, 1)
mma_nvf4(const uint8_t* __restrict__ a,    // [128][32]  packed e2m1, row-major (K fastest)
         const uint8_t* __restrict__ bt,   // [64][32]   B^T: row n holds B[0..63][n] packed
         const uint8_t* __restrict__ sfa,  // [128][4]   ue4m3, scale of A[r][16j..16j+15]
         const uint8_t* __restrict__ sfb,  // [64][4]    ue4m3, scale of B[16j..16j+15][n]
         float* __restrict__ d) {          // [128][64]
  __shared__ __align__(1024) uint8_t sA[M * K / 2];
  __shared__ __align__(1024) uint8_t sB[N * K / 2];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&done)) : "memory");
  }
  for (int i = threadIdx.x; i < M * K / 2; i += blockDim.x) sA[k32_byte(i / 32, i % 32)] = a[i];
  for (int i = threadIdx.x; i < N * K / 2; i += blockDim.x) sB[k32_byte(i / 32, i % 32)] = bt[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const uint32_t quarter = tmem + ((warp * 32) << 16);

  // Scales, replicated into every warp quarter: 4 columns for A (rows lane + 32*r1), 2 for B.
  {
    uint32_t ra[4], rb[2];
    for (int r1 = 0; r1 < 4; ++r1)
      ra[r1] = *reinterpret_cast<const uint32_t*>(sfa + (lane + 32 * r1) * 4);
    for (int n1 = 0; n1 < 2; ++n1)
      rb[n1] = *reinterpret_cast<const uint32_t*>(sfb + (lane + 32 * n1) * 4);
    asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(quarter + COL_SFA), "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3])
                 : "memory");
    asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {%1, %2};"
                 :: "r"(quarter + COL_SFB), "r"(rb[0]), "r"(rb[1]) : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  if (threadIdx.x == 0) {
    // A, B = E2M1 (1) at bits 7 and 10; scale type UE4M3 (bit 23 = 0); N>>3 at 17; M>>4 at 24;
    // SF ids 0 (required for 4X / block16); K = 64 (bit 31 = 0).
    const uint32_t idesc = (1u << 7) | (1u << 10) | ((N >> 3) << 17) | ((M >> 4) << 24);
    asm volatile(
        "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16 [%0], %1, %2, %3, [%4], "
        "[%5], 0;"
        :: "r"(tmem + COL_D), "l"(k32_desc(smem_u32(sA))), "l"(k32_desc(smem_u32(sB))),
           "r"(idesc), "r"(tmem + COL_SFA), "r"(tmem + COL_SFB)
        : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&done)) : "memory");
  }
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
      :: "r"(smem_u32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  const int row = warp * 32 + lane;
  for (int half = 0; half < 2; ++half) {
    uint32_t r[32];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
        "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
        "%28, %29, %30, %31}, [%32];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
          "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]),
          "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]),
          "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
          "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]),
          "=r"(r[31])
        : "r"(quarter + COL_D + half * 32) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int i = 0; i < 32; ++i) d[row * N + half * 32 + i] = __uint_as_float(r[i]);
  }

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" :: "r"(tmem) : "memory");
  }
}
