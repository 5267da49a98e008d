// Holdout batch 15 nvcc kernel (our own): split-K **inside a cluster of 2**, reduced through
// distributed shared memory. Both CTAs of a cluster compute a 128 x 64 partial tile of the same
// C tile (CTA rank r takes K half r) with kind::f16 MMAs, read it from TMEM, and:
//
//  - rank 1 pushes its partial into rank 0's shared memory with
//    `st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32` (16 per thread, 32 KB),
//    signalling rank 0's mbarrier (which rank 0 armed with `mbarrier.arrive.expect_tx` for
//    32768 bytes);
//  - rank 0 waits on that mbarrier (`try_wait.parity.acquire.cluster`), adds the peer's partial
//    to its own, stages the sum in shared memory and writes it out with one non-tensor bulk
//    reduction `cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32` (C zero-filled).
//
// The mbarrier is initialised before a cluster barrier (arrive.release / wait.acquire), so the
// peer's st.async cannot reach it first. Rank 0 outlives every access to its shared memory (it
// waits for the peer's stores), and waits for its own bulk read (`cp.async.bulk.wait_group.read
// 0`) before it exits. No compiler output in the corpus had `st.async` or a non-tensor
// `cp.reduce.async.bulk` to global. K = 2 x 32: two MMAs of K 16 per CTA.
#include <stdint.h>

constexpr int KS = 32, N = 64, KSTEPS = KS / 16, RED_BYTES = 128 * N * 4;

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
static __device__ uint32_t k32_byte(int r, int kb) {
  const uint32_t off = (r % 8) * 32 + (r / 8) * 256 + kb;
  return off ^ (((off >> 7) & 1) << 4);
}
static __device__ uint64_t k32_desc(uint32_t addr) {
  return (uint64_t)((addr & 0x3FFFF) >> 4) | (1ull << 16) | ((uint64_t)(256 >> 4) << 32) |
         (1ull << 46) | (6ull << 61);
}
static __device__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
static __device__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;"
               ::: "memory");
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
cluster_splitk_dsmem(const uint16_t* __restrict__ a,   // [M][K] fp16 bits
                     const uint16_t* __restrict__ bt,  // [N][K] fp16 bits (B^T)
                     float* c,                          // [M][N], zero-filled
                     int K) {
  __shared__ __align__(1024) uint8_t sA[KSTEPS][128 * 32];
  __shared__ __align__(1024) uint8_t sB[KSTEPS][N * 32];
  __shared__ __align__(128) float red[128 * N];   // the peer's partial (rank 0), then the sum
  __shared__ uint32_t tmem_base;
  __shared__ __align__(8) uint64_t done;
  __shared__ __align__(8) uint64_t peer_full;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = warp * 32 + lane;
  const uint32_t rank = cluster_rank();
  const int tile = blockIdx.y;
  const int k0 = rank * KS;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 64;"
                 :: "r"(smem_u32(&tmem_base)) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&done)) : "memory");
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(smem_u32(&peer_full))
                 : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  for (int i = threadIdx.x; i < 128 * KS; i += blockDim.x) {
    const int r = i / KS, k = i % KS;
    const uint16_t v = a[(size_t)(tile * 128 + r) * K + k0 + k];
    const uint32_t o = k32_byte(r, (k % 16) * 2);
    sA[k / 16][o] = v & 0xFF;
    sA[k / 16][o + 1] = v >> 8;
  }
  for (int i = threadIdx.x; i < N * KS; i += blockDim.x) {
    const int r = i / KS, k = i % KS;
    const uint16_t v = bt[(size_t)r * K + k0 + k];
    const uint32_t o = k32_byte(r, (k % 16) * 2);
    sB[k / 16][o] = v & 0xFF;
    sB[k / 16][o + 1] = v >> 8;
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  // both CTAs' mbarriers are initialised (and this CTA's operands stored) past this point
  cluster_sync();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const uint32_t tmem = tmem_base;

  if (rank == 0 && threadIdx.x == 0)
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(smem_u32(&peer_full)), "r"(RED_BYTES) : "memory");
  if (threadIdx.x == 0) {
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

  float acc[N];
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
    for (int i = 0; i < 32; ++i) acc[col + i] = __uint_as_float(r[i]);
  }

  if (rank == 1) {
    // push the partial row into rank 0's `red`, completing bytes on rank 0's peer_full
    uint32_t dst, bar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(dst) : "r"(smem_u32(&red[row * N])));
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(bar) : "r"(smem_u32(&peer_full)));
    for (int col = 0; col < N; col += 4) {
      asm volatile(
          "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, "
          "[%5];"
          :: "r"(dst + col * 4), "f"(acc[col]), "f"(acc[col + 1]), "f"(acc[col + 2]),
             "f"(acc[col + 3]), "r"(bar) : "memory");
    }
  } else {
    asm volatile(
        "{\n.reg .pred p;\nWAITP_%=:\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%0], 0;\n"
        "@!p bra WAITP_%=;\n}"
        :: "r"(smem_u32(&peer_full)) : "memory");
    // each thread adds the peer's copy of its own row and stages the sum in place
    for (int col = 0; col < N; ++col) red[row * N + col] += acc[col];
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile(
          "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;"
          :: "l"(c + (size_t)tile * 128 * N), "r"(smem_u32(red)), "r"(RED_BYTES) : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0)
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 64;" :: "r"(tmem) : "memory");
}
