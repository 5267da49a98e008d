// Reproduces the mechanism named in the review of triton-lang/triton PR #8969 ("[WS] Per warp
// mbarrier arrival counts": `init_barrier bar, 1` for a partition whose warps each arrive is
// invalid unless the partition has one warp; the count must be the partition's warp count), the
// class facebookexperimental/triton PR #183 fixed for regions of other than 4 warps: each warp
// of a 4-warp consumer partition arrives on the "empty" barrier, initialised with count 1. The
// first warp's arrival completes the phase, and the next warps' arrivals complete the phases
// after it before any wait observed them (§9.7.13.15.4 requires a wait to observe each phase
// before an arrive-on in the next): the parity the producer waits on aliases a later phase, so
// it hangs, or, when it polls between two arrivals, refills the buffer while other consumer
// warps still read it. Fixed: count 4, one arrival per consumer warp.
// Launch: grid 1, 160 threads: warps 0-3 consume, warp 4 produces two tiles in one buffer.
#include "bugs.cuh"

extern "C" __global__ void per_warp_arrivals_on_count_one_barrier(const uint32_t* in,
                                                                  uint32_t* out) {
  __shared__ uint32_t tile[128];
  __shared__ __align__(8) uint64_t full, empty;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&full), 1);
    mbar_init(smem_u32(&empty), TMEM_FIXED ? 4 : 1);  // arrivals per phase: one per warp
  }
  __syncthreads();
  if (w == 4) {  // producer
    for (uint32_t j = 0; j < 4; ++j) tile[32 * j + lane] = in[32 * j + lane];
    __syncwarp();
    if (lane == 0) mbar_arrive(smem_u32(&full));
    uint32_t released;  // every consumer warp released tile 0 (or so the producer thinks)
    do {
      asm volatile(
          "{\n\t.reg .pred p;\n\t"
          "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;" SITE("wait_empty") "\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(released)
          : "r"(smem_u32(&empty))
          : "memory");
    } while (!released);
#pragma unroll 1
    for (uint32_t j = 0; j < 4; ++j) {
      asm volatile("st.shared.u32 [%0], %1;" SITE("refill")::"r"(smem_u32(&tile[32 * j + lane])),
                   "r"(in[128 + 32 * j + lane])
                   : "memory");
    }
    __syncwarp();
    if (lane == 0) mbar_arrive(smem_u32(&full));
  } else {  // consumers: warp w reads row w of the tile
    uint32_t acc = 0;
#pragma unroll 1
    for (uint32_t t = 0; t < 2; ++t) {
      uint32_t landed;
      do {
        asm volatile(
            "{\n\t.reg .pred p;\n\t"
            "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;" SITE("wait_full") "\n\t"
            "selp.u32 %0, 1, 0, p;\n\t}"
            : "=r"(landed)
            : "r"(smem_u32(&full)), "r"(t)
            : "memory");
      } while (!landed);
      uint32_t v;
      asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
                   : "=r"(v)
                   : "r"(smem_u32(&tile[32 * w + lane]))
                   : "memory");
      acc += v * (t + 1);
      __syncwarp();
      if (lane == 0) {  // per-warp arrival
        asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" SITE("release")::"r"(
                         smem_u32(&empty))
                     : "memory");
      }
    }
    out[threadIdx.x] = acc;
  }
}
