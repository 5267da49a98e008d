// Holdout nvcc kernel (our own): tcgen05.mma features no compiler in the corpus emits. One CTA
// per variant (blockIdx.x); each computes with M=128, N=64, K=16 fp16 (K-major, 32B-swizzled
// operands: one 32-byte row per M/N index, 8-row atoms 256 bytes apart) on top of a D that the
// kernel first stores into TMEM (tcgen05.st) from `c`:
//   0: idesc negate-A bit           D = -A.B1 + C
//   1: negate-A and negate-B bits   D =  A.B1 + C
//   2: scale-input-d = 3            D =  A.B1 + C * 2^-3
//   3: disable-output-lane mask     D =  A.B1 + C on lanes whose mask bit is 0, C elsewhere
//   4: collector::a::fill then collector::a::lastuse with the same A and a second B
//                                   D =  A.B1 + A.B2 + C
// PTX ISA §9.7.16.10.9.1 (operands), §9.7.16.4.2 (idesc negate bits); semantics as in
// /work/shared/spec/mma.md §3, §7, §10 (collectors do not change numbers).
#include <stdint.h>

constexpr int M = 128, N = 64, K = 16;

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

// K-major, 32B swizzle: element (r, c) at (r % 8) * 32 + (r / 8) * 256 + c * 2, then
// Swizzle<1,4,3> (bit 7 into bit 4); SBO = 256, LBO unused (1), layout type 6.
static __device__ uint32_t k32_offset(int r, int c) {
  const uint32_t off = (r % 8) * 32 + (r / 8) * 256 + c * 2;
  return off ^ (((off >> 7) & 1) << 4);
}
static __device__ uint64_t k32_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(256 >> 4) << 32) |
         (1ull << 46) | (6ull << 61);
}

extern "C" __global__ void __launch_bounds__(128, 1)
mma_features(const uint16_t* __restrict__ a,   // [5][128][16] fp16 bits
             const uint16_t* __restrict__ b1,  // [5][16][64]  (K x N)
             const uint16_t* __restrict__ b2,  // [5][16][64]
             const float* __restrict__ c,      // [5][128][64]
             float* __restrict__ d) {          // [5][128][64]
  __shared__ __align__(1024) uint8_t sA[M * K * 2];
  __shared__ __align__(1024) uint8_t sB1[N * K * 2];
  __shared__ __align__(1024) uint8_t sB2[N * K * 2];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  const int v = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = warp * 32 + lane;

  if (warp == 1) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&done)) : "memory");
  }
  for (int i = threadIdx.x; i < M * K; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sA + k32_offset(i / K, i % K)) = a[v * M * K + i];
  for (int i = threadIdx.x; i < K * N; i += blockDim.x) {
    const int k = i / N, n = i % N;
    *reinterpret_cast<uint16_t*>(sB1 + k32_offset(n, k)) = b1[v * K * N + i];
    *reinterpret_cast<uint16_t*>(sB2 + k32_offset(n, k)) = b2[v * K * N + i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const uint32_t quarter = tmem + ((warp * 32) << 16);

  // D <- C: row = lane, columns 0..63, in two .32x32b.x32 stores.
  for (int half = 0; half < 2; ++half) {
    const float* src = c + (v * M + row) * N + half * 32;
    uint32_t r[32];
    for (int i = 0; i < 32; ++i) r[i] = __float_as_uint(src[i]);
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
        "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
        "%28, %29, %30, %31, %32};"
        :: "r"(quarter + half * 32), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]),
           "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]),
           "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]), "r"(r[16]), "r"(r[17]), "r"(r[18]),
           "r"(r[19]), "r"(r[20]), "r"(r[21]), "r"(r[22]), "r"(r[23]), "r"(r[24]), "r"(r[25]),
           "r"(r[26]), "r"(r[27]), "r"(r[28]), "r"(r[29]), "r"(r[30]), "r"(r[31])
        : "memory");
  }
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  if (threadIdx.x == 0) {
    // D f32, A/B f16, both K-major, N>>3 at bit 17, M>>4 at bit 24.
    const uint32_t base = (1u << 4) | ((N >> 3) << 17) | ((M >> 4) << 24);
    const uint64_t da = k32_desc(smem_u32(sA)), db1 = k32_desc(smem_u32(sB1)),
                   db2 = k32_desc(smem_u32(sB2));
    switch (v) {
      case 0:
        asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1;"
                     :: "r"(tmem), "l"(da), "l"(db1), "r"(base | (1u << 13)) : "memory");
        break;
      case 1:
        asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1;"
                     :: "r"(tmem), "l"(da), "l"(db1), "r"(base | (1u << 13) | (1u << 14))
                     : "memory");
        break;
      case 2:
        asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, 1, 3;"
                     :: "r"(tmem), "l"(da), "l"(db1), "r"(base) : "memory");
        break;
      case 3:
        asm volatile("tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, {%4, %5, %6, %7}, 1;"
                     :: "r"(tmem), "l"(da), "l"(db1), "r"(base), "r"(0xAAAAAAAAu), "r"(0u),
                        "r"(0xFFFF0000u), "r"(0x00000001u)
                     : "memory");
        break;
      default:
        asm volatile("tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%0], %1, %2, %3, 1;"
                     :: "r"(tmem), "l"(da), "l"(db1), "r"(base) : "memory");
        asm volatile(
            "tcgen05.mma.cta_group::1.kind::f16.collector::a::lastuse [%0], %1, %2, %3, 1;"
            :: "r"(tmem), "l"(da), "l"(db2), "r"(base) : "memory");
        break;
    }
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&done)) : "memory");
  }
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
      :: "r"(smem_u32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

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
        : "r"(quarter + half * 32) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int i = 0; i < 32; ++i) d[(v * M + row) * N + half * 32 + i] = __uint_as_float(r[i]);
  }

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 1) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" :: "r"(tmem) : "memory");
  }
}
