// Holdout batch 15 nvcc kernel (our own): split-K GEMM whose partial tiles are reduced by the
// **last CTA to finish**, synchronised the way CUDA's threadFenceReduction sample does it:
// `__threadfence()` after the partial stores, `__syncthreads()`, one thread takes a ticket with
// `atomicInc` (which wraps the counter back to 0 for the next launch), and the CTA that draws the
// last ticket fences again and reads every other CTA's partial.
//
// Grid (M / 128 tiles, SPLITS slices), 128 threads. Each CTA multiplies its 128 x 64 slice of
// A (fp16, K-major) with the matching 64 x 64 slice of B^T through four kind::f16 MMAs of K 16
// (M = 128, N = 64; operands 32-byte K rows, 32B swizzle, built by the threads), reads the f32
// D back with `tcgen05.ld.32x32b.x32` and writes it to the workspace with plain stores. No
// compiler in the corpus emitted `__threadfence()` (fence.sc.gpu / membar.gl) or `atomicInc`
// around tensor-core work before.
#include <stdint.h>

constexpr int SPLITS = 3, KS = 64, N = 64, KSTEPS = KS / 16;

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
// byte kb of K row r: 32-byte rows with 32B swizzle (8-row atoms of 256 bytes)
static __device__ uint32_t k32_byte(int r, int kb) {
  const uint32_t off = (r % 8) * 32 + (r / 8) * 256 + kb;
  return off ^ (((off >> 7) & 1) << 4);
}
static __device__ uint64_t k32_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(256 >> 4) << 32) |
         (1ull << 46) | (6ull << 61);
}

extern "C" __global__ void __launch_bounds__(128, 1)
splitk_threadfence(const uint16_t* __restrict__ a,   // [M][K] fp16 bits
                   const uint16_t* __restrict__ bt,  // [N][K] fp16 bits (B^T)
                   float* ws,                        // [tiles][SPLITS][128][N] partials
                   unsigned int* count,              // [tiles] tickets, 0 before and after
                   float* __restrict__ c,            // [M][N]
                   int K) {
  __shared__ __align__(1024) uint8_t sA[KSTEPS][128 * 32];
  __shared__ __align__(1024) uint8_t sB[KSTEPS][N * 32];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  __shared__ bool am_last;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = warp * 32 + lane;
  const int tile = blockIdx.x, split = blockIdx.y;
  const int k0 = split * KS;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&done)) : "memory");
  // K step s holds K columns k0 + 16 s .. + 16 (32 bytes per row)
  for (int i = threadIdx.x; i < 128 * KS; i += blockDim.x) {
    const int r = i / KS, k = i % KS;
    const uint16_t v = a[(size_t)(tile * 128 + r) * K + k0 + k];
    uint8_t* dst = sA[k / 16];
    const uint32_t o = k32_byte(r, (k % 16) * 2);
    dst[o] = v & 0xFF;
    dst[o + 1] = v >> 8;
  }
  for (int i = threadIdx.x; i < N * KS; i += blockDim.x) {
    const int r = i / KS, k = i % KS;
    const uint16_t v = bt[(size_t)r * K + k0 + k];
    uint8_t* dst = sB[k / 16];
    const uint32_t o = k32_byte(r, (k % 16) * 2);
    dst[o] = v & 0xFF;
    dst[o + 1] = v >> 8;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;

  if (threadIdx.x == 0) {
    // D F32 (bit 4), A = B = F16, K-major both, N >> 3 = 8 at 17, M >> 4 = 8 at 24
    const uint32_t idesc = (1u << 4) | ((uint32_t)(N >> 3) << 17) | (8u << 24);
    for (int s = 0; s < KSTEPS; ++s) {
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n}"
          :: "r"(tmem), "l"(k32_desc(smem_u32(sA[s]))), "l"(k32_desc(smem_u32(sB[s]))),
             "r"(idesc), "r"(s) : "memory");
    }
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&done)) : "memory");
  }
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
      :: "r"(smem_u32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  float* part = ws + ((size_t)(tile * SPLITS + split) * 128 + row) * N;
  for (int col = 0; col < N; col += 32) {
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
        : "r"(tmem + ((uint32_t)(warp * 32) << 16) + col) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int i = 0; i < 32; ++i) part[col + i] = __uint_as_float(r[i]);
  }

  // the partial is visible device-wide before this CTA's ticket is taken
  __threadfence();
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned int ticket = atomicInc(&count[tile], SPLITS - 1);
    __threadfence();
    am_last = ticket == SPLITS - 1;
  }
  __syncthreads();
  if (am_last) {
    // every slice's partial, in slice order (this CTA's own included)
    const float* p0 = ws + ((size_t)tile * SPLITS * 128 + row) * N;
    for (int col = 0; col < N; ++col) {
      float sum = 0.0f;
      for (int s = 0; s < SPLITS; ++s) sum += p0[(size_t)s * 128 * N + col];
      c[(size_t)(tile * 128 + row) * N + col] = sum;
    }
  }
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" :: "r"(tmem) : "memory");
}
