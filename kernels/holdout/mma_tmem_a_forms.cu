// Holdout batch 11 nvcc kernel (our own): MMAs whose A operand is in TMEM, in forms no kernel of
// the corpus issues (compilers put A in TMEM only for plain kind::f16/tf32/i8/f8f6f4 MMAs):
//
//  * tcgen05.mma.ws.cta_group::1.kind::f16 [d], [a_tmem], b_desc, idesc: a **.ws** MMA with
//    A from TMEM, M = 128, N = 64 (f16 A stored with tcgen05.st, two elements per column);
//  * tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 [d], [a_tmem], b_desc, idesc,
//    [sfa], [sfb]: a **block-scaled** MMA with an e4m3 A from TMEM (four elements per column),
//    e5m2 B, ue8m0 scales, M = 128, N = 64, K = 32.
// B is K-major with 32B swizzle in shared memory (32-byte K rows); the scales are stored into
// TMEM in the layout of shared/spec/mma.md §6 (DERIVED from CUTLASS tmem_sf_frg). One commit.
#include <stdint.h>

constexpr int M = 128, N = 64;
constexpr uint32_t COL_A16 = 0, COL_A8 = 8, COL_D0 = 64, COL_D1 = 128, COL_SFA = 192,
                   COL_SFB = 196;

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
static __device__ uint32_t k32_byte(int r, int kb) {
  const uint32_t off = (r % 8) * 32 + (r / 8) * 256 + kb;
  return off ^ (((off >> 7) & 1) << 4);
}
static __device__ uint64_t k32_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(256 >> 4) << 32) |
         (1ull << 46) | (6ull << 61);
}

extern "C" __global__ void __launch_bounds__(128, 1)
mma_tmem_a_forms(const uint32_t* __restrict__ a16,  // [128][8]  two f16 of A per word (K 16)
                 const uint32_t* __restrict__ a8,   // [128][8]  four e4m3 of A8 per word (K 32)
                 const uint8_t* __restrict__ b16t,  // [64][32]  B^T f16 bytes: row n = B[:, n]
                 const uint8_t* __restrict__ b8t,   // [64][32]  B8^T e5m2
                 const uint32_t* __restrict__ sfa,  // [128]     ue8m0 in byte 0
                 const uint32_t* __restrict__ sfb,  // [64]      ue8m0 in byte 0
                 float* __restrict__ d0,            // [128][64]
                 float* __restrict__ d1) {          // [128][64]
  __shared__ __align__(1024) uint8_t sB16[N * 32];
  __shared__ __align__(1024) uint8_t sB8[N * 32];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = warp * 32 + lane;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&done)) : "memory");
  for (int i = threadIdx.x; i < N * 32; i += blockDim.x) {
    sB16[k32_byte(i / 32, i % 32)] = b16t[i];
    sB8[k32_byte(i / 32, i % 32)] = b8t[i];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const uint32_t quarter = tmem + ((uint32_t)(warp * 32) << 16);

  {
    const uint32_t* x = a16 + row * 8;
    const uint32_t* y = a8 + row * 8;
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
        :: "r"(quarter + COL_A16), "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(x[4]),
           "r"(x[5]), "r"(x[6]), "r"(x[7]) : "memory");
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
        :: "r"(quarter + COL_A8), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]), "r"(y[4]),
           "r"(y[5]), "r"(y[6]), "r"(y[7]) : "memory");
    // scales replicated into every warp quarter: row r = lane + 32 r1 at column SFA + r1
    asm volatile("tcgen05.st.sync.aligned.32x32b.x4.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(quarter + COL_SFA), "r"(sfa[lane]), "r"(sfa[lane + 32]),
                    "r"(sfa[lane + 64]), "r"(sfa[lane + 96]) : "memory");
    asm volatile("tcgen05.st.sync.aligned.32x32b.x2.b32 [%0], {%1, %2};"
                 :: "r"(quarter + COL_SFB), "r"(sfb[lane]), "r"(sfb[lane + 32]) : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  if (threadIdx.x == 0) {
    // kind::f16: D F32 (bit 4), A = B = F16 (0), N >> 3 at 17, M >> 4 at 24
    const uint32_t id16 = (1u << 4) | ((uint32_t)(N >> 3) << 17) | ((uint32_t)(M >> 4) << 24);
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
        "tcgen05.mma.ws.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n}"
        :: "r"(tmem + COL_D0), "r"(tmem + COL_A16), "l"(k32_desc(smem_u32(sB16))), "r"(id16),
           "r"(0) : "memory");
    // kind::mxf8f6f4: A E4M3 (0), B E5M2 (1) at bit 10, UE8M0 (bit 23), M >> 7 at 27, IDs 0
    const uint32_t id8 = (1u << 10) | ((uint32_t)(N >> 3) << 17) | (1u << 23) |
                         ((uint32_t)(M >> 7) << 27);
    asm volatile(
        "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 [%0], [%1], %2, %3, [%4], "
        "[%5], 0;"
        :: "r"(tmem + COL_D1), "r"(tmem + COL_A8), "l"(k32_desc(smem_u32(sB8))), "r"(id8),
           "r"(tmem + COL_SFA), "r"(tmem + COL_SFB) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&done)) : "memory");
  }
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
      :: "r"(smem_u32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  for (int c = 0; c < 2 * N; c += 32) {
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
        : "r"(quarter + COL_D0 + c) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    float* d = c < N ? d0 : d1;
    for (int i = 0; i < 32; ++i) d[row * N + c % N + i] = __uint_as_float(r[i]);
  }

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" :: "r"(tmem) : "memory");
}
