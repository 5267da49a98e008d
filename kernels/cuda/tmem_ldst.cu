// TMEM allocation and register<->TMEM data movement (tcgen05.alloc/dealloc/relinquish,
// tcgen05.ld/st in every shape, .pack::16b/.unpack::16b, wait::ld/st, both fences).
// Every kernel: 128 threads (one warpgroup), one CTA; warp w owns TMEM lanes 32w..32w+31.
#include "tc05.cuh"

namespace {
constexpr uint32_t kThreads = 128;
__device__ __forceinline__ uint32_t lane_base(uint32_t warp) { return (32u * warp) << 16; }
}  // namespace

// Alloc 32 columns (immediate nCols, .shared::cta destination), write a 128x32 image with
// .32x32b.x32, read it back with .32x32b at .x1/.x2/.x4/.x8/.x16 and store it.
extern "C" __global__ void __launch_bounds__(kThreads)
alloc_st_ld_32x32b(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32, row = threadIdx.x;
  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;"
                 :: "r"(smem_u32(&tmem_slot)) : "memory");
  }
  tc_sync_cta();
  const uint32_t taddr = tmem_slot + lane_base(warp);

  uint32_t v[32];
  for (int c = 0; c < 32; ++c) v[c] = in[row * 32 + c];
  tc_st_32x32b_x32(taddr, v);
  tc_wait_st();

  uint32_t a[1], b[2], c4[4], d[8], e[16], f[1];
  tc_ld_32x32b_x1(taddr + 0, a);
  tc_ld_32x32b_x2(taddr + 1, b);
  tc_ld_32x32b_x4(taddr + 3, c4);
  tc_ld_32x32b_x8(taddr + 7, d);
  tc_ld_32x32b_x16(taddr + 15, e);
  tc_ld_32x32b_x1(taddr + 31, f);
  tc_wait_ld();
  uint32_t* o = out + row * 32;
  o[0] = a[0];
  for (int i = 0; i < 2; ++i) o[1 + i] = b[i];
  for (int i = 0; i < 4; ++i) o[3 + i] = c4[i];
  for (int i = 0; i < 8; ++i) o[7 + i] = d[i];
  for (int i = 0; i < 16; ++i) o[15 + i] = e[i];
  o[31] = f[0];

  tc_sync_cta();
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(tmem_slot) : "memory");
    tc_relinquish1();
  }
}

// Two live allocations: 64 columns through a generic destination address (nCols in a
// register, from the kernel parameter), then 32 columns through .shared::cta (nCols must not
// grow). Data written to each is read back crosswise: out[:, 0:8] comes from the second
// allocation, out[:, 8:16] from the first.
extern "C" __global__ void __launch_bounds__(kThreads)
alloc_two_generic(const uint32_t* __restrict__ in, uint32_t* __restrict__ out, uint32_t ncols_big) {
  __shared__ uint32_t slots[2];
  const uint32_t warp = threadIdx.x / 32, row = threadIdx.x;
  if (warp == 0) {
    tc_alloc1_generic(&slots[0], ncols_big);
    tc_alloc1(smem_u32(&slots[1]), 32);
  }
  tc_sync_cta();
  const uint32_t t_big = slots[0] + lane_base(warp);
  const uint32_t t_small = slots[1] + lane_base(warp);

  uint32_t x[8], y[8];
  for (int c = 0; c < 8; ++c) {
    x[c] = in[row * 16 + c];
    y[c] = in[row * 16 + 8 + c];
  }
  tc_st_32x32b_x8(t_big + (ncols_big - 8), x);  // last 8 columns of the big allocation
  tc_st_32x32b_x8(t_small, y);
  tc_wait_st();
  uint32_t p[8], q[8];
  tc_ld_32x32b_x8(t_small, p);
  tc_ld_32x32b_x8(t_big + (ncols_big - 8), q);
  tc_wait_ld();
  for (int c = 0; c < 8; ++c) {
    out[row * 16 + c] = p[c];
    out[row * 16 + 8 + c] = q[c];
  }

  tc_sync_cta();
  if (warp == 0) {
    tc_dealloc1(slots[1], 32);
    tc_dealloc1(slots[0], ncols_big);
    tc_relinquish1();
  }
}

// Every CTA of the grid allocates all 512 columns, writes its own data into the first and the
// last 8 columns, reads both back and frees them. CTAs that share an SM must take turns: the
// second tcgen05.alloc blocks until the first CTA deallocates (tmem.md §4.2).
// out[cta][row][0:8] = columns 504..511, [8:16] = columns 0..7.
extern "C" __global__ void __launch_bounds__(kThreads)
alloc_512_per_cta(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32;
  const uint32_t row = blockIdx.x * kThreads + threadIdx.x;
  if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 512);
  tc_sync_cta();
  const uint32_t t = tmem_slot + lane_base(warp);
  uint32_t first[8], last[8];
  for (int c = 0; c < 8; ++c) {
    first[c] = in[row * 16 + c];
    last[c] = in[row * 16 + 8 + c];
  }
  tc_st_32x32b_x8(t, first);
  tc_st_32x32b_x8(t + 504, last);
  tc_wait_st();
  tc_ld_32x32b_x8(t + 504, first);
  tc_ld_32x32b_x8(t, last);
  tc_wait_ld();
  for (int c = 0; c < 8; ++c) {
    out[row * 16 + c] = first[c];
    out[row * 16 + 8 + c] = last[c];
  }
  tc_sync_cta();
  if (warp == 0) { tc_dealloc1(tmem_slot, 512); tc_relinquish1(); }
}

// One kernel per 16-lane shape. Layout of the 128 allocated columns:
//   0..31   image written with .32x32b (from `image`), read with SHAPE (and SHAPE.pack::16b)
//   32..63  zeroed, then written with SHAPE from `regs`, read back with .32x32b
//   64..95  zeroed, then written with SHAPE.unpack::16b from `regs`, read back with .32x32b
//           (only the low 16 bits of each cell are defined after .unpack::16b: masked)
// Each warp issues SHAPE twice: at lane 32w (half 0) and at lane 32w+16 (half 1).
// out_regs[thread][0:8] = SHAPE half 0, [8:16] = half 1, [16:24] = packed half 0,
// [24:32] = packed half 1. out_image[lane][0:32] = cols 32..63, [32:64] = cols 64..95.
#define LDST_SHAPE_KERNEL(NAME, LD, LDP, ST, STU)                                               \
  extern "C" __global__ void __launch_bounds__(kThreads)                                       \
  NAME(const uint32_t* __restrict__ image, const uint32_t* __restrict__ regs,                  \
       uint32_t* __restrict__ out_regs, uint32_t* __restrict__ out_image) {                     \
    __shared__ uint32_t tmem_slot;                                                               \
    const uint32_t warp = threadIdx.x / 32, row = threadIdx.x;                                   \
    if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 128);                                         \
    tc_sync_cta();                                                                               \
    const uint32_t t0 = tmem_slot + lane_base(warp);                                             \
    const uint32_t t1 = t0 + (16u << 16);                                                        \
    uint32_t img[32], zero[32];                                                                  \
    for (int c = 0; c < 32; ++c) { img[c] = image[row * 32 + c]; zero[c] = 0; }                  \
    tc_st_32x32b_x32(t0, img);                                                                   \
    tc_st_32x32b_x32(t0 + 32, zero);                                                             \
    tc_st_32x32b_x32(t0 + 64, zero);                                                             \
    tc_wait_st();                                                                                \
    uint32_t h0[8], h1[8], p0[8], p1[8];                                                         \
    LD(t0, h0); LD(t1, h1); LDP(t0, p0); LDP(t1, p1);                                            \
    tc_wait_ld();                                                                                \
    for (int i = 0; i < 8; ++i) {                                                                \
      out_regs[row * 32 + i] = h0[i];      out_regs[row * 32 + 8 + i] = h1[i];                   \
      out_regs[row * 32 + 16 + i] = p0[i]; out_regs[row * 32 + 24 + i] = p1[i];                  \
    }                                                                                            \
    uint32_t s0[8], s1[8], u0[8], u1[8];                                                         \
    for (int i = 0; i < 8; ++i) {                                                                \
      s0[i] = regs[row * 32 + i];      s1[i] = regs[row * 32 + 8 + i];                           \
      u0[i] = regs[row * 32 + 16 + i]; u1[i] = regs[row * 32 + 24 + i];                          \
    }                                                                                            \
    ST(t0 + 32, s0); ST(t1 + 32, s1); STU(t0 + 64, u0); STU(t1 + 64, u1);                        \
    tc_wait_st();                                                                                \
    uint32_t r0[32], r1[32];                                                                     \
    tc_ld_32x32b_x32(t0 + 32, r0);                                                               \
    tc_ld_32x32b_x32(t0 + 64, r1);                                                               \
    tc_wait_ld();                                                                                \
    for (int c = 0; c < 32; ++c) {                                                               \
      out_image[row * 64 + c] = r0[c];                                                           \
      out_image[row * 64 + 32 + c] = r1[c] & 0xFFFFu;                                            \
    }                                                                                            \
    tc_sync_cta();                                                                               \
    if (warp == 0) { tc_dealloc1(tmem_slot, 128); tc_relinquish1(); }                            \
  }

LDST_SHAPE_KERNEL(ldst_16x64b, tc_ld_16x64b_x8, tc_ld_16x64b_x8_pack, tc_st_16x64b_x8,
                  tc_st_16x64b_x8_unpack)
LDST_SHAPE_KERNEL(ldst_16x128b, tc_ld_16x128b_x4, tc_ld_16x128b_x4_pack, tc_st_16x128b_x4,
                  tc_st_16x128b_x4_unpack)
LDST_SHAPE_KERNEL(ldst_16x256b, tc_ld_16x256b_x2, tc_ld_16x256b_x2_pack, tc_st_16x256b_x2,
                  tc_st_16x256b_x2_unpack)
// .16x32bx2: the unpacked form splits at column +8, the packed form at +16 (each half of a
// packed .x8 covers 16 columns).
LDST_SHAPE_KERNEL(ldst_16x32bx2, tc_ld_16x32bx2_x8<8>, tc_ld_16x32bx2_x8_pack<16>,
                  tc_st_16x32bx2_x8<8>, tc_st_16x32bx2_x8_unpack<16>)
// .32x32b in the same frame: the "two halves" are the same 32 lanes at columns +0 and +8
// (LD at t1 = lane 32w+16 would leave the warp's quarter, so this kernel reads at t0+8).
extern "C" __global__ void __launch_bounds__(kThreads)
ldst_32x32b_pack(const uint32_t* __restrict__ image, const uint32_t* __restrict__ regs,
                 uint32_t* __restrict__ out_regs, uint32_t* __restrict__ out_image) {
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32, row = threadIdx.x;
  if (warp == 0) tc_alloc1(smem_u32(&tmem_slot), 64);
  tc_sync_cta();
  const uint32_t t0 = tmem_slot + lane_base(warp);
  uint32_t img[32];
  for (int c = 0; c < 32; ++c) img[c] = image[row * 32 + c];
  tc_st_32x32b_x32(t0, img);
  tc_wait_st();
  uint32_t p0[8], p1[8];
  tc_ld_32x32b_x8_pack(t0, p0);
  tc_ld_32x32b_x8_pack(t0 + 16, p1);
  tc_wait_ld();
  for (int i = 0; i < 8; ++i) {
    out_regs[row * 16 + i] = p0[i];
    out_regs[row * 16 + 8 + i] = p1[i];
  }
  uint32_t zero[32], u0[8], u1[8];
  for (int c = 0; c < 32; ++c) zero[c] = 0;
  tc_st_32x32b_x32(t0 + 32, zero);
  tc_wait_st();
  for (int i = 0; i < 8; ++i) { u0[i] = regs[row * 16 + i]; u1[i] = regs[row * 16 + 8 + i]; }
  tc_st_32x32b_x8_unpack(t0 + 32, u0);
  tc_st_32x32b_x8_unpack(t0 + 48, u1);
  tc_wait_st();
  uint32_t r[32];
  tc_ld_32x32b_x32(t0 + 32, r);
  tc_wait_ld();
  for (int c = 0; c < 32; ++c) out_image[row * 32 + c] = r[c] & 0xFFFFu;
  tc_sync_cta();
  if (warp == 0) { tc_dealloc1(tmem_slot, 64); tc_relinquish1(); }
}
