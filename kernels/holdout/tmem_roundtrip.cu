// Holdout nvcc kernel (our own, not derived from kernels/cuda): TMEM store/load round trips in
// shapes and orders the main corpus does not combine.
//
// Per CTA (128 threads, 4 warps; the launch has 2 CTAs, each allocating 256 columns, so both
// fit on one SM's 512 columns at once):
//   1. warp 3 (not warp 0) allocates 256 columns and relinquishes its allocation permit at once.
//   2. every warp stores its lane quarter: .32x32b.x32 of `src` into columns 0..31, and
//      .16x256b.x1 of `frag` (twice: lane bases q*32 and q*32+16) into columns 128..135.
//   3. after tcgen05.wait::st every warp reads back
//        - columns 0..31 with .16x64b.x8.pack::16b (two 16-lane halves) -> `packed`
//        - columns 128..135 with .32x32b.x8 -> `cross` (16x256b written, 32x32b read)
//   4. warp 0 stores `shin` into columns 64..71 of lanes 0..31, thread 0 of warp 0 issues
//      tcgen05.shift.cta_group::1.down on them and commits to an mbarrier; after the wait,
//      warp 0 reads the 32x8 block back (.32x32b.x8) -> `shifted` (lane 0 is not written out:
//      its content after a shift is not specified).
//   5. warp 3 deallocates.
#include <stdint.h>

#define TM_FENCE_BEFORE() asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory")
#define TM_FENCE_AFTER() asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory")

static __device__ __forceinline__ uint32_t cvta_shared(const void* p) {
  return (uint32_t)__cvta_generic_to_shared(p);
}

extern "C" __global__ void __launch_bounds__(128, 1)
tmem_roundtrip(const uint32_t* __restrict__ src,    // [2][128][32]
               const uint32_t* __restrict__ frag,   // [2][4][2][32][4]
               const uint32_t* __restrict__ shin,   // [2][32][8]
               uint32_t* __restrict__ packed,       // [2][4][2][32][8]
               uint32_t* __restrict__ cross,        // [2][128][8]
               uint32_t* __restrict__ shifted) {    // [2][32][8]
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t shift_done;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32, cta = blockIdx.x;
  const uint32_t row = warp * 32 + lane;

  if (warp == 3) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;"
                 :: "r"(cvta_shared(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;"
                 :: "r"(cvta_shared(&shift_done)) : "memory");
  }
  TM_FENCE_BEFORE();
  __syncthreads();
  TM_FENCE_AFTER();
  const uint32_t base = tmem_base;
  const uint32_t quarter = base + ((warp * 32) << 16);

  // 2a. .32x32b.x32: thread `lane` of warp q writes row q*32+lane, columns 0..31.
  {
    const uint32_t* s = src + (cta * 128 + row) * 32;
    uint32_t v[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) v[i] = s[i];
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
  }
  // 2b. .16x256b.x1 into columns 128..135, both 16-lane halves of the quarter.
#pragma unroll
  for (uint32_t half = 0; half < 2; ++half) {
    const uint32_t* f = frag + (((cta * 4 + warp) * 2 + half) * 32 + lane) * 4;
    asm volatile("tcgen05.st.sync.aligned.16x256b.x1.b32 [%0], {%1, %2, %3, %4};"
                 :: "r"(quarter + (half * 16 << 16) + 128), "r"(f[0]), "r"(f[1]), "r"(f[2]),
                    "r"(f[3])
                 : "memory");
  }
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");

  // 3a. .16x64b.x8.pack::16b over columns 0..31, each 16-lane half.
#pragma unroll
  for (uint32_t half = 0; half < 2; ++half) {
    uint32_t r[8];
    asm volatile(
        "tcgen05.ld.sync.aligned.16x64b.x8.pack::16b.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
          "=r"(r[7])
        : "r"(quarter + (half * 16 << 16)) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    uint32_t* p = packed + (((cta * 4 + warp) * 2 + half) * 32 + lane) * 8;
#pragma unroll
    for (int i = 0; i < 8; ++i) p[i] = r[i];
  }
  // 3b. .32x32b.x8 over columns 128..135.
  {
    uint32_t r[8];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
          "=r"(r[7])
        : "r"(quarter + 128) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
#pragma unroll
    for (int i = 0; i < 8; ++i) cross[(cta * 128 + row) * 8 + i] = r[i];
  }

  // 4. shift: warp 0 only (lanes 0..31, columns 64..71).
  if (warp == 0) {
    const uint32_t* s = shin + (cta * 32 + lane) * 8;
    asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                 :: "r"(base + 64), "r"(s[0]), "r"(s[1]), "r"(s[2]), "r"(s[3]), "r"(s[4]),
                    "r"(s[5]), "r"(s[6]), "r"(s[7])
                 : "memory");
    asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
    // The stores of all 32 lanes must be complete before one thread starts the shift.
    TM_FENCE_BEFORE();
    __syncwarp();
    TM_FENCE_AFTER();
    if (lane == 0) {
      asm volatile("tcgen05.shift.cta_group::1.down [%0];" :: "r"(base + 64) : "memory");
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                   :: "r"(cvta_shared(&shift_done)) : "memory");
    }
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "WAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n"
        "@!p bra WAIT_%=;\n"
        "}" :: "r"(cvta_shared(&shift_done)) : "memory");
    TM_FENCE_AFTER();
    uint32_t r[8];
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
          "=r"(r[7])
        : "r"(base + 64) : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    if (lane != 0) {
#pragma unroll
      for (int i = 0; i < 8; ++i) shifted[(cta * 32 + lane) * 8 + i] = r[i];
    }
  }

  TM_FENCE_BEFORE();
  __syncthreads();
  TM_FENCE_AFTER();
  if (warp == 3) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" :: "r"(base) : "memory");
  }
}
