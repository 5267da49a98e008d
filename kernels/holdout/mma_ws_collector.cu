// Holdout nvcc kernel (our own): weight-stationary MMAs with the B collector buffers and a
// zero-column mask, forms no compiler here emits (batch 10).
//  - tcgen05.mma.ws kind::tf32, M = 32, N = 128, K = 8: three MMAs into columns 0..31 with the
//    same B, `collector::b1::fill`, `::use`, `::lastuse` (the second and third accumulate), so
//    D = (A1 + A2 + A3) B in layout G (lane i + 32 (j / 32), column j % 32).
//  - tcgen05.mma.ws kind::i8, M = 64, N = 128, K = 32: two MMAs into columns 32..95,
//    `collector::b3::fill` then `::lastuse`, both with a zero-column-mask descriptor (non-zero
//    flag, span fields 2 and 3: the PTX ISA's example 2, runs of 4 used and 3 zeroed B columns,
//    one run pattern per 64-column sub-mask), so D = (A4 + A5) (B with columns zeroed) in
//    layout E (lane i + 64 (j / 64), column 32 + j % 64).
// Operands are K-major, one 32-byte row per M/N index, 32-byte swizzle, descriptors built by
// hand (shared/spec/descriptors.md §2). The raw TMEM block is written out.
#include <stdint.h>

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
// byte offset of (row r, byte c) in a K-major tile with 32-byte rows, 32B swizzle
static __device__ uint32_t k32_offset(int r, int c) {
  const uint32_t off = (r % 8) * 32 + (r / 8) * 256 + c;
  return off ^ (((off >> 7) & 1) << 4);
}
static __device__ uint64_t k32_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(256 >> 4) << 32) |
         (1ull << 46) | (6ull << 61);
}

#define LD32(dst, taddr)                                                                        \
  asm volatile(                                                                                 \
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "  \
      "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "  \
      "%28, %29, %30, %31}, [%32];"                                                            \
      : "=r"(dst[0]), "=r"(dst[1]), "=r"(dst[2]), "=r"(dst[3]), "=r"(dst[4]), "=r"(dst[5]),   \
        "=r"(dst[6]), "=r"(dst[7]), "=r"(dst[8]), "=r"(dst[9]), "=r"(dst[10]), "=r"(dst[11]), \
        "=r"(dst[12]), "=r"(dst[13]), "=r"(dst[14]), "=r"(dst[15]), "=r"(dst[16]),             \
        "=r"(dst[17]), "=r"(dst[18]), "=r"(dst[19]), "=r"(dst[20]), "=r"(dst[21]),             \
        "=r"(dst[22]), "=r"(dst[23]), "=r"(dst[24]), "=r"(dst[25]), "=r"(dst[26]),             \
        "=r"(dst[27]), "=r"(dst[28]), "=r"(dst[29]), "=r"(dst[30]), "=r"(dst[31])              \
      : "r"(taddr)                                                                              \
      : "memory")

extern "C" __global__ void __launch_bounds__(128, 1)
mma_ws_collector(const float* __restrict__ a_tf,   // [3][32][8]
                 const float* __restrict__ b_tf,   // [128][8]  (N x K)
                 const int8_t* __restrict__ a_i8,  // [2][64][32]
                 const int8_t* __restrict__ b_i8,  // [128][32] (N x K)
                 unsigned long long zcm,           // zero-column mask descriptor of the i8 MMAs
                 float* __restrict__ raw_tf,       // [128][32]: TMEM columns 0..31
                 int* __restrict__ raw_i8) {       // [128][64]: TMEM columns 32..95
  __shared__ __align__(1024) uint8_t sAt[3][32 * 32];
  __shared__ __align__(1024) uint8_t sBt[128 * 32];
  __shared__ __align__(1024) uint8_t sAi[2][64 * 32];
  __shared__ __align__(1024) uint8_t sBi[128 * 32];
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
  for (int i = threadIdx.x; i < 3 * 32 * 8; i += blockDim.x) {
    const int s = i / 256, r = (i / 8) % 32, k = i % 8;
    *reinterpret_cast<float*>(sAt[s] + k32_offset(r, 4 * k)) = a_tf[i];
  }
  for (int i = threadIdx.x; i < 128 * 8; i += blockDim.x)
    *reinterpret_cast<float*>(sBt + k32_offset(i / 8, 4 * (i % 8))) = b_tf[i];
  for (int i = threadIdx.x; i < 2 * 64 * 32; i += blockDim.x) {
    const int s = i / 2048, r = (i / 32) % 64, k = i % 32;
    sAi[s][k32_offset(r, k)] = (uint8_t)a_i8[i];
  }
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x)
    sBi[k32_offset(i / 32, i % 32)] = (uint8_t)b_i8[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;

  if (threadIdx.x == 0) {
    // tf32: D f32 (bits 4-5 = 1), A and B TF32 (2), N >> 3 = 16, M >> 4 = 2
    const uint32_t id_tf = (1u << 4) | (2u << 7) | (2u << 10) | (16u << 17) | (2u << 24);
    // i8: D s32 (2), A and B S8 (1), N >> 3 = 16, M >> 4 = 4
    const uint32_t id_i8 = (2u << 4) | (1u << 7) | (1u << 10) | (16u << 17) | (4u << 24);
    const uint64_t bt = k32_desc(smem_u32(sBt)), bi = k32_desc(smem_u32(sBi));
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                 "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b1::fill [%0], %1, %2, %3, p;\n}"
                 :: "r"(tmem), "l"(k32_desc(smem_u32(sAt[0]))), "l"(bt), "r"(id_tf) : "memory");
    asm volatile("{\n.reg .pred p;\nsetp.eq.b32 p, 0, 0;\n"
                 "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b1::use [%0], %1, %2, %3, p;\n}"
                 :: "r"(tmem), "l"(k32_desc(smem_u32(sAt[1]))), "l"(bt), "r"(id_tf) : "memory");
    asm volatile("{\n.reg .pred p;\nsetp.eq.b32 p, 0, 0;\n"
                 "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b1::lastuse [%0], %1, %2, %3, p;\n}"
                 :: "r"(tmem), "l"(k32_desc(smem_u32(sAt[2]))), "l"(bt), "r"(id_tf) : "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
                 "tcgen05.mma.ws.cta_group::1.kind::i8.collector::b3::fill [%0], %1, %2, %3, p, %4;\n}"
                 :: "r"(tmem + 32), "l"(k32_desc(smem_u32(sAi[0]))), "l"(bi), "r"(id_i8), "l"(zcm)
                 : "memory");
    asm volatile("{\n.reg .pred p;\nsetp.eq.b32 p, 0, 0;\n"
                 "tcgen05.mma.ws.cta_group::1.kind::i8.collector::b3::lastuse [%0], %1, %2, %3, p, %4;\n}"
                 :: "r"(tmem + 32), "l"(k32_desc(smem_u32(sAi[1]))), "l"(bi), "r"(id_i8), "l"(zcm)
                 : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&done)) : "memory");
  }
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
      :: "r"(smem_u32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  const uint32_t quarter = tmem + ((warp * 32) << 16);
  const int row = warp * 32 + lane;
  uint32_t r[32];
  LD32(r, quarter);
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  for (int i = 0; i < 32; ++i) raw_tf[row * 32 + i] = __uint_as_float(r[i]);
  LD32(r, quarter + 32);
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  for (int i = 0; i < 32; ++i) raw_i8[row * 64 + i] = (int)r[i];
  LD32(r, quarter + 64);
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  for (int i = 0; i < 32; ++i) raw_i8[row * 64 + 32 + i] = (int)r[i];

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" :: "r"(tmem) : "memory");
  }
}
