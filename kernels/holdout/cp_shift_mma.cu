// Holdout batch 3 nvcc kernel (our own): the architected pipelined pairs of PTX ISA §9.7.16.6.2
// around a TMEM A operand, issued by one thread:
//   tcgen05.cp.128x256b  A (smem) -> TMEM columns 128..135, commit + wait (cp complete)
//   tcgen05.mma kind::f16, A from TMEM, D1 = A @ B into columns 0..63
//   tcgen05.shift.down x4 on the A block (one per 32-lane quarter)   mma   -> shift (pair 5)
//   tcgen05.mma kind::f16, A from TMEM, D2 = shift(A) @ B into 64..127 shift -> mma  (pair 3)
//   tcgen05.commit -> mbarrier; every thread waits, then reads D1 and D2 with .32x32b.x32.
// Only the ordering the ISA promises makes the first MMA read A before the shift moves it and
// the second read it after; under tmemu's adversarial policy (every op completes as late as
// allowed) a model that let them overlap would give other numbers. (Without the wait after the
// cp, cp -> mma -> shift orders the cp before the shift only through the MMA; tmemu's race
// detector does not chain pipelined pairs and reports TM0206 there: see docs/arch/holdout.md.)
//
// Layouts (shared/spec, DERIVED): cp rows of two 16-byte chunks, 8-row groups SBO = 256 bytes
// apart, chunk 1 LBO = 128 bytes after chunk 0 (data-movement.md §5.3); a TMEM cell of A holds
// fp16 elements 2c (low half) and 2c+1 (mma.md §9); B is K-major without swizzle with the same
// strides. shift.down: row k+1 <- row k within each 32-lane block; what row 0 of a block holds
// afterwards is UNCONFIRMED, so D2's rows 0, 32, 64, 96 are written out as 0.
#include <stdint.h>

constexpr int M = 128, N = 64, K = 16;

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
// Row r, fp16 element c of a K-major operand with 32-byte rows, no swizzle.
static __device__ uint32_t kn_offset(int r, int c) {
  return (r % 8) * 16 + (r / 8) * 256 + (c / 8) * 128 + (c % 8) * 2;
}
static __device__ uint64_t kn_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(128 >> 4) << 16) |
         ((uint64_t)(256 >> 4) << 32) | (1ull << 46);
}

extern "C" __global__ void __launch_bounds__(128, 1)
cp_shift_mma(const uint16_t* __restrict__ a,   // [128][16] fp16 bits
             const uint16_t* __restrict__ b,   // [16][64] (K x N)
             float* __restrict__ d1,           // [128][64]
             float* __restrict__ d2) {         // [128][64]
  __shared__ __align__(1024) uint8_t sA[M * K * 2];
  __shared__ __align__(1024) uint8_t sB[N * K * 2];
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  __shared__ __align__(8) uint64_t cp_done;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (warp == 2) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&done)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&cp_done)) : "memory");
  }
  for (int i = threadIdx.x; i < M * K; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sA + kn_offset(i / K, i % K)) = a[i];
  for (int i = threadIdx.x; i < K * N; i += blockDim.x)
    *reinterpret_cast<uint16_t*>(sB + kn_offset(i % N, i / N)) = b[i];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;
  const uint32_t a_tmem = tmem + 128;

  if (threadIdx.x == 0) {
    const uint32_t idesc = (1u << 4) | ((N >> 3) << 17) | ((uint32_t)(M >> 4) << 24);
    const uint64_t bdesc = kn_desc(smem_u32(sB));
    asm volatile("tcgen05.cp.cta_group::1.128x256b [%0], %1;"
                 :: "r"(a_tmem), "l"(kn_desc(smem_u32(sA))) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];"
                 :: "r"(smem_u32(&cp_done)) : "memory");
    asm volatile(
        "{\n.reg .pred p;\nWAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n@!p bra WAIT_%=;\n}"
        :: "r"(smem_u32(&cp_done)) : "memory");
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n}"
        :: "r"(tmem), "r"(a_tmem), "l"(bdesc), "r"(idesc) : "memory");
    for (uint32_t q = 0; q < 4; ++q)
      asm volatile("tcgen05.shift.cta_group::1.down [%0];" :: "r"(a_tmem + ((32 * q) << 16))
                   : "memory");
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, 0, 0;\n"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n}"
        :: "r"(tmem + 64), "r"(a_tmem), "l"(bdesc), "r"(idesc) : "memory");
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
  for (int which = 0; which < 2; ++which) {
    for (int c = 0; c < 64; c += 32) {
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
          : "r"(quarter + 64 * which + c) : "memory");
      asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
      float* out = which == 0 ? d1 : d2;
      const bool unspecified = which == 1 && lane == 0;
      for (int i = 0; i < 32; ++i)
        out[row * 64 + c + i] = unspecified ? 0.0f : __uint_as_float(r[i]);
    }
  }

  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 2) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" :: "r"(tmem) : "memory");
  }
}
