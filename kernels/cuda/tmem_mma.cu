// tcgen05.mma, cta_group::1, M = 128: kinds f16, tf32, f8f6f4, i8 with A and B from shared
// memory; bf16 with A from TMEM; block-scaled mxf8f6f4 with scale factors copied into TMEM
// by tcgen05.cp. Every GEMM has K = 2 instructions (the second accumulates, enable-input-d
// true) and reads operands through no-swizzle K-major descriptors built in the kernel.
// Global operands are row-major with 64-byte rows (= one GEMM's K extent for every kind).
#include "tc05.cuh"

namespace {
constexpr uint32_t kThreads = 128;
constexpr uint32_t kRowBytes = 64;                  // K extent of each GEMM, in bytes
constexpr uint32_t kLbo = 128;                      // next 16-byte K chunk = next core matrix
constexpr uint32_t kSbo = (kRowBytes / 16) * 128;   // next 8-row group
constexpr uint32_t kStepBytes = 2 * kLbo;           // one MMA consumes 32 bytes of K
__device__ __forceinline__ uint32_t lane_base(uint32_t warp) { return (32u * warp) << 16; }

// Row-major [rows][64 bytes] global matrix -> K-major canonical layout in shared memory.
__device__ __forceinline__ void load_kmajor(uint4* dst, const uint4* src, uint32_t rows) {
  for (uint32_t i = threadIdx.x; i < rows * 4; i += kThreads) {
    const uint32_t row = i / 4, chunk = i % 4;
    dst[kmajor_offset(row, chunk, kLbo, kSbo) / 16] = src[i];
  }
}

#define TC_MMA_SS(KIND)                                                                    \
  __device__ __forceinline__ void mma_ss_##KIND(uint32_t d, uint64_t a, uint64_t b,       \
                                                uint32_t idesc, uint32_t accumulate) {    \
    asm volatile("{\n.reg .pred acc;\nsetp.ne.b32 acc, %4, 0;\n"                          \
                 "tcgen05.mma.cta_group::1.kind::" #KIND " [%0], %1, %2, %3, acc;\n}"     \
                 :: "r"(d), "l"(a), "l"(b), "r"(idesc), "r"(accumulate) : "memory");      \
  }
TC_MMA_SS(f16)
TC_MMA_SS(tf32)
TC_MMA_SS(f8f6f4)
TC_MMA_SS(i8)

__device__ __forceinline__ void mma_ts_f16(uint32_t d, uint32_t a_tmem, uint64_t b, uint32_t idesc,
                                           uint32_t accumulate) {
  asm volatile("{\n.reg .pred acc;\nsetp.ne.b32 acc, %4, 0;\n"
               "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, acc;\n}"
               :: "r"(d), "r"(a_tmem), "l"(b), "r"(idesc), "r"(accumulate) : "memory");
}

__device__ __forceinline__ void mma_mxf8f6f4(uint32_t d, uint64_t a, uint64_t b, uint32_t idesc,
                                             uint32_t sfa, uint32_t sfb, uint32_t accumulate) {
  asm volatile("{\n.reg .pred acc;\nsetp.ne.b32 acc, %6, 0;\n"
               "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"
               " [%0], %1, %2, %3, [%4], [%5], acc;\n}"
               :: "r"(d), "l"(a), "l"(b), "r"(idesc), "r"(sfa), "r"(sfb), "r"(accumulate)
               : "memory");
}

// Each warp copies its 32 lanes x kCols columns of D to out[row][kCols].
template <uint32_t kCols>
__device__ __forceinline__ void store_d(uint32_t tmem, uint32_t* out) {
  const uint32_t warp = threadIdx.x / 32;
  for (uint32_t c0 = 0; c0 < kCols; c0 += 32) {
    uint32_t v[32];
    tc_ld_32x32b_x32(tmem + lane_base(warp) + c0, v);
    tc_wait_ld();
    for (int c = 0; c < 32; ++c) out[threadIdx.x * kCols + c0 + c] = v[c];
  }
}
}  // namespace

// D[128][64] = A[128][K] * B[64][K]^T, both operands from shared memory.
#define MMA_SS_KERNEL(NAME, KIND, D_FMT, A_FMT, B_FMT)                                       \
  extern "C" __global__ void __launch_bounds__(kThreads)                                    \
  NAME(const uint4* __restrict__ A, const uint4* __restrict__ B, uint32_t* __restrict__ D) { \
    __shared__ __align__(128) uint4 sa[128 * kRowBytes / 16];                                \
    __shared__ __align__(128) uint4 sb[64 * kRowBytes / 16];                                 \
    __shared__ __align__(8) uint64_t done;                                                   \
    __shared__ uint32_t tmem_slot;                                                           \
    const uint32_t warp = threadIdx.x / 32;                                                  \
    if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 64);                                      \
    if (threadIdx.x == 0) mbar_init(smem_u32(&done), 1);                                     \
    load_kmajor(sa, A, 128);                                                                 \
    load_kmajor(sb, B, 64);                                                                  \
    fence_proxy_async_smem();                                                                \
    tc_sync_cta();                                                                           \
    const uint32_t tmem = tmem_slot;                                                         \
    if (warp == 0 && elect_one()) {                                                          \
      const uint32_t idesc = instr_desc(D_FMT, A_FMT, B_FMT, 128, 64);                      \
      for (uint32_t s = 0; s < 2; ++s) {                                                     \
        mma_ss_##KIND(tmem, smem_desc(smem_u32(sa) + s * kStepBytes, kLbo, kSbo),            \
                      smem_desc(smem_u32(sb) + s * kStepBytes, kLbo, kSbo), idesc, s);       \
      }                                                                                      \
      tc_commit1_cluster(smem_u32(&done));                                                   \
    }                                                                                        \
    mbar_wait(smem_u32(&done), 0);                                                           \
    tc_fence_after();                                                                        \
    store_d<64>(tmem, D);                                                                    \
    tc_sync_cta();                                                                           \
    if (warp == 0) { tc_dealloc1(tmem, 64); tc_relinquish1(); }                              \
  }

// idesc formats (descriptors.md §3.1): D F32 = 1, S32 = 2; A/B f16 = 0, tf32 = 2,
// e4m3 = 0, e5m2 = 1, u8 = 0, s8 = 1.
MMA_SS_KERNEL(mma_f16_ss, f16, 1, 0, 0)
MMA_SS_KERNEL(mma_tf32_ss, tf32, 1, 2, 2)
MMA_SS_KERNEL(mma_f8f6f4_ss, f8f6f4, 1, 0, 1)
MMA_SS_KERNEL(mma_i8_ss, i8, 2, 1, 0)

// A (bf16, [128][32]) from TMEM, B (bf16, [64][32]) from shared memory.
// A row m sits in TMEM lane m, two bf16 per column (lower k in bits 0..15), at columns
// 64..79; D in columns 0..63.
extern "C" __global__ void __launch_bounds__(kThreads)
mma_bf16_ts(const uint32_t* __restrict__ A, const uint4* __restrict__ B, uint32_t* __restrict__ D) {
  __shared__ __align__(128) uint4 sb[64 * kRowBytes / 16];
  __shared__ __align__(8) uint64_t done;
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32;
  if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 128);
  if (threadIdx.x == 0) mbar_init(smem_u32(&done), 1);
  load_kmajor(sb, B, 64);
  fence_proxy_async_smem();
  tc_sync_cta();
  const uint32_t tmem = tmem_slot;
  uint32_t a_row[16];
  for (int c = 0; c < 16; ++c) a_row[c] = A[threadIdx.x * 16 + c];
  tc_st_32x32b_x16(tmem + lane_base(warp) + 64, a_row);
  tc_wait_st();
  tc_sync_cta();
  if (warp == 0 && elect_one()) {
    const uint32_t idesc = instr_desc(1, 1, 1, 128, 64);
    for (uint32_t s = 0; s < 2; ++s) {
      mma_ts_f16(tmem, tmem + 64 + 8 * s, smem_desc(smem_u32(sb) + s * kStepBytes, kLbo, kSbo),
                 idesc, s);
    }
    tc_commit1_cluster(smem_u32(&done));
  }
  mbar_wait(smem_u32(&done), 0);
  tc_fence_after();
  store_d<64>(tmem, D);
  tc_sync_cta();
  if (warp == 0) { tc_dealloc1(tmem, 128); tc_relinquish1(); }
}

// Block-scaled e4m3 x e4m3 -> f32, M = N = 128, K = 64 (two K-blocks of 32, one ue8m0 scale
// per row / column and K-block). Scales are arranged in shared memory as the 32-row x 16-byte
// source of tcgen05.cp.32x128b.warpx4: row r0, byte 4*r1 + j = scale of row r0 + 32*r1 for
// K-block j; the copy replicates it into all four lane quarters. The K-block is selected by
// the scale-factor ID in idesc (byte j of each 32-bit cell).
// TMEM: D columns 0..127, scale_A columns 128..131, scale_B columns 132..135.
extern "C" __global__ void __launch_bounds__(kThreads)
mma_mxf8f6f4_ss(const uint4* __restrict__ A, const uint4* __restrict__ B,
                const uint8_t* __restrict__ sfa, const uint8_t* __restrict__ sfb,
                uint32_t* __restrict__ D) {
  __shared__ __align__(128) uint4 sa[128 * kRowBytes / 16];
  __shared__ __align__(128) uint4 sb[128 * kRowBytes / 16];
  __shared__ __align__(128) uint8_t ssf[2][32 * 16];
  __shared__ __align__(8) uint64_t done;
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32;
  if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 256);
  if (threadIdx.x == 0) mbar_init(smem_u32(&done), 1);
  load_kmajor(sa, A, 128);
  load_kmajor(sb, B, 128);
  {
    // thread = row (of A) / column (of B) r = r0 + 32*r1
    const uint32_t r = threadIdx.x, r0 = r % 32, r1 = r / 32;
    const uint32_t off = kmajor_offset(r0, 0, 128, 128) + 4 * r1;
    for (uint32_t j = 0; j < 4; ++j) {
      ssf[0][off + j] = j < 2 ? sfa[r * 2 + j] : 0;
      ssf[1][off + j] = j < 2 ? sfb[r * 2 + j] : 0;
    }
  }
  fence_proxy_async_smem();
  tc_sync_cta();
  const uint32_t tmem = tmem_slot;
  if (warp == 0 && elect_one()) {
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;"
                 :: "r"(tmem + 128), "l"(smem_desc(smem_u32(ssf[0]), 128, 128)) : "memory");
    asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;"
                 :: "r"(tmem + 132), "l"(smem_desc(smem_u32(ssf[1]), 128, 128)) : "memory");
    for (uint32_t s = 0; s < 2; ++s) {
      // e4m3 = 0 for A and B; scale-factor IDs select byte s of the scale cells
      const uint32_t idesc = instr_desc_mx(0, 0, 128, 128, s, s);
      mma_mxf8f6f4(tmem, smem_desc(smem_u32(sa) + s * kStepBytes, kLbo, kSbo),
                   smem_desc(smem_u32(sb) + s * kStepBytes, kLbo, kSbo), idesc, tmem + 128,
                   tmem + 132, s);
    }
    tc_commit1_cluster(smem_u32(&done));
  }
  mbar_wait(smem_u32(&done), 0);
  tc_fence_after();
  store_d<128>(tmem, D);
  tc_sync_cta();
  if (warp == 0) { tc_dealloc1(tmem, 256); tc_relinquish1(); }
}
