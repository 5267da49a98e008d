// Holdout batch 11 nvcc kernel (our own): 4- and 6-bit A operands decompressed into TMEM by
// tcgen05.cp and multiplied from there by kind::f8f6f4 MMAs (no compiler in the corpus emits
// the decompressing copies, nor a sub-byte f8f6f4 operand).
//
//  * tcgen05.cp.128x256b.b8x16.b4x16_p64: A1 (e2m1, 128 x 32) -> columns 0..7, each source
//    unit 8 bytes of 16 packed nibbles + 8 bytes of padding (filled with garbage);
//  * tcgen05.cp.128x256b.b8x16.b6x16_p32: A2 (e3m2) -> columns 8..15 and A3 (e2m3) -> columns
//    16..23, each unit 12 bytes of 16 packed 6-bit fields + 4 bytes of garbage;
//    the sources are no-swizzle K-major images built by the host (SBO 128, LBO 2048);
//  * each copy is followed at once (cp -> mma is a pipelined pair) by an MMA reading A from
//    TMEM: D1 = A1 (e2m1) x B1 (e4m3), D2 = A2 (e3m2) x B2 (e5m2), then D2 += A3 (e2m3) x B1;
//    M = 128, N = 64, K = 32, B K-major 32B-swizzled in shared memory; one commit.
// Expected values in nvcc_cases.py: exact products of the decoded values (each f8f6f4 A element
// in its own byte in TMEM, PTX ISA §9.7.16.10.4.3; element order of the packed units the
// natural one, element 0 in the least significant bits: shared/spec/data-movement.md §5.4).
#include <stdint.h>

constexpr int M = 128, N = 64, K = 32;
constexpr uint32_t COL_A1 = 0, COL_A2 = 8, COL_A3 = 16, COL_D1 = 64, COL_D2 = 128;
constexpr int SRC_BYTES = 4096;   // 128 rows x 2 units of 16 bytes

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

static __device__ uint64_t none_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
         ((uint64_t)((sbo >> 4) & 0x3FFF) << 32) | (1ull << 46);
}
// Byte kb of row r in a K-major 32B-swizzled operand with 32-byte rows.
static __device__ uint32_t k32_byte(int r, int kb) {
  const uint32_t off = (r % 8) * 32 + (r / 8) * 256 + kb;
  return off ^ (((off >> 7) & 1) << 4);
}
static __device__ uint64_t k32_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(256 >> 4) << 32) |
         (1ull << 46) | (6ull << 61);
}
// kind::f8f6f4 idesc: D = F32 (bit 4), A type bits 7-9, B type bits 10-12, N >> 3 at 17,
// M >> 4 at 24. Types: E4M3 0, E5M2 1, E2M3 3, E3M2 4, E2M1 5.
static __device__ uint32_t idesc(uint32_t a, uint32_t b) {
  return (1u << 4) | (a << 7) | (b << 10) | ((uint32_t)(N >> 3) << 17) | ((uint32_t)(M >> 4) << 24);
}
static __device__ void mma_tmem_a(uint32_t d, uint32_t a, uint64_t b, uint32_t id, int acc) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
      "tcgen05.mma.cta_group::1.kind::f8f6f4 [%0], [%1], %2, %3, p;\n}"
      :: "r"(d), "r"(a), "l"(b), "r"(id), "r"(acc) : "memory");
}

extern "C" __global__ void __launch_bounds__(128, 1)
cp_decomp_mma(const uint8_t* __restrict__ a1img,  // [4096] shared-memory image of A1's source
              const uint8_t* __restrict__ a2img,  // [4096] A2
              const uint8_t* __restrict__ a3img,  // [4096] A3
              const uint8_t* __restrict__ b1t,    // [64][32] e4m3, row n = B1[:, n]
              const uint8_t* __restrict__ b2t,    // [64][32] e5m2
              float* __restrict__ d1,             // [128][64]
              float* __restrict__ d2) {           // [128][64]
  __shared__ __align__(1024) uint8_t sA[3][SRC_BYTES];
  __shared__ __align__(1024) uint8_t sB[2][N * K];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&done)) : "memory");
  for (int i = threadIdx.x; i < SRC_BYTES; i += blockDim.x) {
    sA[0][i] = a1img[i];
    sA[1][i] = a2img[i];
    sA[2][i] = a3img[i];
  }
  for (int i = threadIdx.x; i < N * K; i += blockDim.x) {
    sB[0][k32_byte(i / K, i % K)] = b1t[i];
    sB[1][k32_byte(i / K, i % K)] = b2t[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const uint32_t quarter = tmem + ((uint32_t)(warp * 32) << 16);

  if (threadIdx.x == 0) {
    const uint64_t b1 = k32_desc(smem_u32(sB[0])), b2 = k32_desc(smem_u32(sB[1]));
    asm volatile("tcgen05.cp.cta_group::1.128x256b.b8x16.b4x16_p64 [%0], %1;"
                 :: "r"(tmem + COL_A1), "l"(none_desc(smem_u32(sA[0]), 2048, 128)) : "memory");
    mma_tmem_a(tmem + COL_D1, tmem + COL_A1, b1, idesc(5, 0), 0);
    asm volatile("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%0], %1;"
                 :: "r"(tmem + COL_A2), "l"(none_desc(smem_u32(sA[1]), 2048, 128)) : "memory");
    mma_tmem_a(tmem + COL_D2, tmem + COL_A2, b2, idesc(4, 1), 0);
    asm volatile("tcgen05.cp.cta_group::1.128x256b.b8x16.b6x16_p32 [%0], %1;"
                 :: "r"(tmem + COL_A3), "l"(none_desc(smem_u32(sA[2]), 2048, 128)) : "memory");
    mma_tmem_a(tmem + COL_D2, tmem + COL_A3, b1, idesc(3, 0), 1);
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&done)) : "memory");
  }
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
      :: "r"(smem_u32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  const int row = warp * 32 + lane;
  for (int which = 0; which < 2; ++which) {
    float* d = which ? d2 : d1;
    const uint32_t col = which ? COL_D2 : COL_D1;
    for (int half = 0; half < 2; ++half) {
      uint32_t r[32];
      asm volatile(
          "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, "
          "%10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, "
          "%26, %27, %28, %29, %30, %31}, [%32];"
          : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
            "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]),
            "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]),
            "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
            "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]),
            "=r"(r[31])
          : "r"(quarter + col + half * 32) : "memory");
      asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
      for (int i = 0; i < 32; ++i) d[row * N + half * 32 + i] = __uint_as_float(r[i]);
    }
  }

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" :: "r"(tmem) : "memory");
}
