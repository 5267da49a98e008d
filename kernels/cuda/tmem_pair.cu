// CTA-pair (cta_group::2) kernels, launched as clusters of 2 CTAs: collective
// alloc/dealloc/relinquish, and a 2-CTA GEMM (M = 256 across the pair) fed by
// cp.async.bulk, synchronised with mbarriers (init, arrive.expect_tx, remote arrive via mapa,
// try_wait.parity), barrier.cluster, elect.sync, and completed with
// tcgen05.commit.cta_group::2 ... .multicast::cluster.
#include "tc05.cuh"

namespace {
constexpr uint32_t kThreads = 128;
__device__ __forceinline__ uint32_t lane_base(uint32_t warp) { return (32u * warp) << 16; }

// Canonical K-major images (host-arranged): 64-byte rows, LBO = 128, SBO = 512.
constexpr uint32_t kLbo = 128, kSbo = 512, kStepBytes = 256;
constexpr uint32_t kABytes = 128 * 64;  // this CTA's 128 rows of A
constexpr uint32_t kBBytes = 32 * 64;   // this CTA's N/2 = 32 rows of B
}  // namespace

// Each CTA of the pair: collective alloc of 64 columns, writes its own 128x16 block, reads
// it back with the two 8-column halves swapped, then cluster barrier, collective dealloc and
// relinquish. out[rank][row][16].
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads)
pair_alloc_ldst(const uint32_t* __restrict__ in, uint32_t* __restrict__ out) {
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32, rank = cluster_ctarank();
  if (warp == 0) tc_alloc2(smem_u32(&tmem_slot), 64);
  tc_sync_cta();
  const uint32_t t = tmem_slot + lane_base(warp);
  const uint32_t row = rank * kThreads + threadIdx.x;
  uint32_t v[16], lo[8], hi[8];
  for (int c = 0; c < 16; ++c) v[c] = in[row * 16 + c];
  tc_st_32x32b_x16(t, v);
  tc_wait_st();
  tc_ld_32x32b_x8(t + 8, hi);
  tc_ld_32x32b_x8(t, lo);
  tc_wait_ld();
  for (int c = 0; c < 8; ++c) {
    out[row * 16 + c] = hi[c];
    out[row * 16 + 8 + c] = lo[c];
  }
  // Both CTAs' TMEM accesses are finished before the collective dealloc (tmem.md §6.1).
  tc_fence_before();
  cluster_sync();
  tc_fence_after();
  if (warp == 0) {
    tc_dealloc2(tmem_slot, 64);
    tc_relinquish2();
  }
}

// D[256][64] = A[256][32] * B[64][32]^T (f16 -> f32) with one cta_group::2 MMA pair issued by
// the even CTA. CTA v holds A rows 128v.. and B rows 32v.. in its own shared memory at the same
// offsets; D rows 128v + r land in lane r of CTA v's TMEM (mma.md §9 Layout A).
extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(kThreads)
pair_gemm_f16(const uint8_t* __restrict__ a_img, const uint8_t* __restrict__ b_img,
              uint32_t* __restrict__ D) {
  __shared__ __align__(128) uint8_t sa[kABytes];
  __shared__ __align__(128) uint8_t sb[kBBytes];
  __shared__ __align__(8) uint64_t load_bar, peer_ready, mma_done;
  __shared__ uint32_t tmem_slot;
  const uint32_t warp = threadIdx.x / 32, rank = cluster_ctarank();

  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&load_bar), 1);
    mbar_init(smem_u32(&peer_ready), 1);
    mbar_init(smem_u32(&mma_done), 1);
    fence_mbarrier_init_cluster();
  }
  cluster_sync();  // barriers of both CTAs initialised before anyone arrives remotely
  if (warp == 0) tc_alloc2(smem_u32(&tmem_slot), 64);
  if (warp == 1 && elect_one()) {
    mbar_arrive_expect_tx(smem_u32(&load_bar), kABytes + kBBytes);
    bulk_g2s(smem_u32(sa), a_img + rank * kABytes, kABytes, smem_u32(&load_bar));
    bulk_g2s(smem_u32(sb), b_img + rank * kBBytes, kBBytes, smem_u32(&load_bar));
  }
  mbar_wait(smem_u32(&load_bar), 0);
  tc_sync_cta();
  const uint32_t tmem = tmem_slot;

  if (warp == 0 && elect_one()) {
    if (rank == 1) {
      mbar_arrive_remote(smem_u32(&peer_ready), 0);  // my operands are in shared memory
    } else {
      mbar_wait_cluster(smem_u32(&peer_ready), 0);
      tc_fence_after();
      const uint32_t idesc = instr_desc(1, 0, 0, 256, 64);
      for (uint32_t s = 0; s < 2; ++s) {
        const uint64_t a = smem_desc(smem_u32(sa) + s * kStepBytes, kLbo, kSbo);
        const uint64_t b = smem_desc(smem_u32(sb) + s * kStepBytes, kLbo, kSbo);
        asm volatile("{\n.reg .pred acc;\nsetp.ne.b32 acc, %4, 0;\n"
                     "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, acc;\n}"
                     :: "r"(tmem), "l"(a), "l"(b), "r"(idesc), "r"(s) : "memory");
      }
      tc_commit2_multicast(smem_u32(&mma_done), 0x3);
    }
  }
  mbar_wait_cluster(smem_u32(&mma_done), 0);
  tc_fence_after();
  for (uint32_t c0 = 0; c0 < 64; c0 += 32) {
    uint32_t v[32];
    tc_ld_32x32b_x32(tmem + lane_base(warp) + c0, v);
    tc_wait_ld();
    for (int c = 0; c < 32; ++c) D[(rank * kThreads + threadIdx.x) * 64 + c0 + c] = v[c];
  }
  tc_fence_before();
  cluster_sync();
  tc_fence_after();
  if (warp == 0) {
    tc_dealloc2(tmem, 64);
    tc_relinquish2();
  }
}
