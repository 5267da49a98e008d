// Holdout batch 11 nvcc kernel (our own): the tcgen05.cp shapes no kernel of the corpus issues,
// checked cell by cell, and the one pipelined pair that ends in a copy.
//
//  * tcgen05.cp.64x128b.warpx2::02_13 (64 rows of 16 bytes; row i -> lanes i and 64 + i) into
//    columns 0..3, and .64x128b.warpx2::01_23 (row i < 32 -> lanes i, 32 + i; i >= 32 ->
//    32 + i, 64 + i) into columns 4..7, both from no-swizzle K-major sources whose 8-row core
//    matrices are SBO = 256 bytes apart (not packed: a second matrix interleaves with them);
//  * tcgen05.shift.cta_group::1.down of columns 8..15 (lanes 0..31: lane k + 1 <- lane k)
//    followed at once, without a commit or wait, by tcgen05.cp.4x256b into the same columns
//    (row q -> lane 32q, columns 8..15; its two 16-byte chunks LBO = 512 bytes apart): the
//    "shift -> cp.4x256b" pipelined pair of the PTX ISA (§9.7.16.6.2), which refills the lane
//    the shift vacated; one commit for all four operations.
// Columns 0..15 of every lane are first set by tcgen05.st (distinct values), so cells no form
// writes read back as stored. Expected values in nvcc_cases.py from the DERIVED placement of
// shared/spec/data-movement.md §5.3 (4x256b: one row per warp quarter, CUTLASS's reading) and
// §6 (shift within the 32-lane block at the address).
#include <stdint.h>

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
// No swizzle, K-major: 8-row core matrices of 16-byte rows, SBO between 8-row groups, LBO
// between the 16-byte chunks of a row.
static __device__ uint64_t none_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)((lbo >> 4) & 0x3FFF) << 16) |
         ((uint64_t)((sbo >> 4) & 0x3FFF) << 32) | (1ull << 46);
}

extern "C" __global__ void __launch_bounds__(128, 1)
cp_shift_refresh(const uint32_t* __restrict__ src_a,  // [64][4]  rows of the 02_13 copy
                 const uint32_t* __restrict__ src_b,  // [64][4]  rows of the 01_23 copy
                 const uint32_t* __restrict__ src_r,  // [4][8]   rows of the 4x256b copy
                 const uint32_t* __restrict__ init,   // [128][16] what tcgen05.st puts first
                 uint32_t* __restrict__ raw) {        // [128][16] columns 0..15 at the end
  // a_b: the two 64-row sources interleaved by core matrix (a at 0, b at 128 of each 256)
  __shared__ __align__(1024) uint32_t s_ab[8 * 256 / 4];
  __shared__ __align__(1024) uint32_t s_r[1024 / 4];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  const int warp = threadIdx.x / 32, t = threadIdx.x % 32;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&done)) : "memory");
  for (int i = threadIdx.x; i < 64 * 4; i += blockDim.x) {
    const int row = i / 4, w = i % 4, grp = row / 8, r8 = row % 8;
    s_ab[(grp * 256 + r8 * 16) / 4 + w] = src_a[i];
    s_ab[(grp * 256 + 128 + r8 * 16) / 4 + w] = src_b[i];
  }
  for (int i = threadIdx.x; i < 1024 / 4; i += blockDim.x) s_r[i] = 0xDEADBEEFu;
  __syncthreads();
  if (threadIdx.x < 32) {   // row q, chunk j, word w at q * 16 + j * 512 + 4w
    const int q = threadIdx.x / 8, j = (threadIdx.x / 4) % 2, w = threadIdx.x % 4;
    s_r[(q * 16 + j * 512) / 4 + w] = src_r[q * 8 + j * 4 + w];
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const uint32_t quarter = tmem + ((uint32_t)(warp * 32) << 16);

  {
    const uint32_t* v = init + (warp * 32 + t) * 16;
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, "
        "%10, %11, %12, %13, %14, %15, %16};"
        :: "r"(quarter), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]),
           "r"(v[6]), "r"(v[7]), "r"(v[8]), "r"(v[9]), "r"(v[10]), "r"(v[11]), "r"(v[12]),
           "r"(v[13]), "r"(v[14]), "r"(v[15])
        : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  if (threadIdx.x == 0) {
    const uint32_t ab = smem_u32(s_ab);
    asm volatile("tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%0], %1;"
                 :: "r"(tmem), "l"(none_desc(ab, 128, 256)) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.64x128b.warpx2::01_23 [%0], %1;"
                 :: "r"(tmem + 4), "l"(none_desc(ab + 128, 128, 256)) : "memory");
    asm volatile("tcgen05.shift.cta_group::1.down [%0];" :: "r"(tmem + 8) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.4x256b [%0], %1;"
                 :: "r"(tmem + 8), "l"(none_desc(smem_u32(s_r), 512, 128)) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&done)) : "memory");
  }
  asm volatile(
      "{\n.reg .pred p;\nWAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
      :: "r"(smem_u32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  {
    uint32_t r[16];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x16.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
        "%11, %12, %13, %14, %15}, [%16];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
          "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]),
          "=r"(r[13]), "=r"(r[14]), "=r"(r[15])
        : "r"(quarter) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int i = 0; i < 16; ++i) raw[(warp * 32 + t) * 16 + i] = r[i];
  }

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem) : "memory");
}
