// Holdout batch 4 nvcc kernel (our own): tcgen05 data-movement forms no compiler in the corpus
// emits, checked cell by cell.
//
//  * tcgen05.cp.128x128b (128 rows of 16 bytes -> lanes 0..127, columns 0..3) and
//    tcgen05.cp.32x128b.warpx4 (32 rows -> every warp quarter, columns 4..7) from a no-swizzle
//    K-major source (rows 16 bytes apart: 8-row core matrices, SBO 128), one commit;
//  * tcgen05.st.16x32bx2.x4 with immHalfSplitoff 16 (an immediate that is not the footprint
//    width: second half at columns 24..27, not 12..15);
//  * tcgen05.st.32x32b.x4.unpack::16b (columns 32..39, low halves only);
//  * loads: .32x32b.x32 (the raw 128 x 32 block), .16x64b.x2.pack::16b, .16x32bx2.x2 with
//    immHalfSplitoff 20 starting at column 4, .16x128b.x1.
// Everything is first zero-filled, so cells no form writes read as 0. Expected values from the
// fragment maps of shared/spec/data-movement.md §2.4/§2.5/§5.3 (DERIVED), in nvcc_cases.py.
#include <stdint.h>

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
// No swizzle, K-major: 8-row core matrices of 16-byte rows, contiguous (SBO = 128, LBO = 128).
static __device__ uint64_t none_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
         ((uint64_t)(128 >> 4) << 32) | (1ull << 46);
}

extern "C" __global__ void __launch_bounds__(128, 1)
ldst_cp_forms(const uint32_t* __restrict__ src128,  // [128][4]
              const uint32_t* __restrict__ src32,   // [32][4]
              const uint32_t* __restrict__ frag,    // [4 warps][2 halves][32][4]
              const uint32_t* __restrict__ h16,     // [4 warps][32][4]: two fp16 halves each
              uint32_t* __restrict__ raw,           // [128][32]
              uint32_t* __restrict__ packed,        // [4][2][32][2]
              uint32_t* __restrict__ split,         // [4][2][32][2]
              uint32_t* __restrict__ q128) {        // [4][2][32][2]
  __shared__ __align__(1024) uint32_t s128[128 * 4];
  __shared__ __align__(1024) uint32_t s32[32 * 4];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t copied;
  const int warp = threadIdx.x / 32, t = threadIdx.x % 32;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&copied)) : "memory");
  for (int i = threadIdx.x; i < 128 * 4; i += blockDim.x) s128[i] = src128[i];
  for (int i = threadIdx.x; i < 32 * 4; i += blockDim.x) s32[i] = src32[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const uint32_t quarter = tmem + ((uint32_t)(warp * 32) << 16);

  for (int c = 0; c < 64; c += 32)
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %1, %1, %1, %1, %1, %1, %1, %1, "
        "%1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, %1, "
        "%1, %1};"
        :: "r"(quarter + c), "r"(0u) : "memory");
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  if (threadIdx.x == 0) {
    asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;"
                 :: "r"(tmem), "l"(none_desc(smem_u32(s128))) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;"
                 :: "r"(tmem + 4), "l"(none_desc(smem_u32(s32))) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&copied)) : "memory");
  }
  // Stores into columns 8..39 while the copies (columns 0..7) are in flight.
  for (int h = 0; h < 2; ++h) {
    const uint32_t* f = frag + ((warp * 2 + h) * 32 + t) * 4;
    asm volatile("tcgen05.st.sync.aligned.16x32bx2.x4.b32 [%0], 16, {%1, %2, %3, %4};"
                 :: "r"(quarter + ((uint32_t)(16 * h) << 16) + 8), "r"(f[0]), "r"(f[1]),
                    "r"(f[2]), "r"(f[3])
                 : "memory");
  }
  {
    const uint32_t* u = h16 + (warp * 32 + t) * 4;
    asm volatile("tcgen05.st.sync.aligned.32x32b.x4.unpack::16b.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(quarter + 32), "r"(u[0]), "r"(u[1]), "r"(u[2]), "r"(u[3]) : "memory");
  }
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
      :: "r"(smem_u32(&copied)) : "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  {
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
        : "r"(quarter) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int i = 0; i < 32; ++i) raw[(warp * 32 + t) * 32 + i] = r[i];
  }
  for (int h = 0; h < 2; ++h) {
    const uint32_t base = quarter + ((uint32_t)(16 * h) << 16);
    const int o = ((warp * 2 + h) * 32 + t) * 2;
    uint32_t a0, a1, b0, b1, c0, c1;
    asm volatile("tcgen05.ld.sync.aligned.16x64b.x2.pack::16b.b32 {%0, %1}, [%2];"
                 : "=r"(a0), "=r"(a1) : "r"(base + 32) : "memory");
    asm volatile("tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%0, %1}, [%2], 20;"
                 : "=r"(b0), "=r"(b1) : "r"(base + 4) : "memory");
    asm volatile("tcgen05.ld.sync.aligned.16x128b.x1.b32 {%0, %1}, [%2];"
                 : "=r"(c0), "=r"(c1) : "r"(base) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    packed[o] = a0; packed[o + 1] = a1;
    split[o] = b0; split[o + 1] = b1;
    q128[o] = c0; q128[o + 1] = c1;
  }

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" :: "r"(tmem) : "memory");
}
