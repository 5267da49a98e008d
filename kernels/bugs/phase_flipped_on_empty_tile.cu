// Reproduces the mechanism of Dao-AILab/flash-attention PR #2258 ("[Cute][Flex] Fix kernel hang
// w/ multiple empty tiles", item 4: "a spurious phase flip `o_corr_consumer_phase` since for
// empty tiles ... mma never arrives on this and correction never consumes ... if you had odd
// number of empty tiles then a tile with work the phase would have been flip flopped and we
// hang"): the consumer flips its mbarrier phase on every tile, also on an empty tile for which
// the producer never arrives. Here the producer warp fills a shared slot for tiles 0 and 2
// (tile 1 is empty) and arrives on `full`; the consumer waits on `full`, reads the slot and
// releases it on `empty`. After the spurious flip of tile 1 the consumer waits on tile 2 with
// parity 0, which names phase 0 (complete) while the barrier is in phase 1, so the wait
// returns at once: the consumer runs ahead, reads the slot the producer has not refilled and
// releases `empty` again, an arrive in phase 1 before any wait observed phase 0 (TM0232 at the
// consumer's mbarrier.arrive). The producer's parity 0 then names the incomplete phase 2:
// hang (TM0225) at its try_wait, the report's hang on the other side of the handshake. (Had
// the producer refilled first, the consumer's parity 0 would name the incomplete phase 2 of
// `full` and the consumer would hang instead; tmemu's schedules run the consumer first.)
// Fixed: flip the phase only on tiles the consumer waited for.
// Launch: grid 1, 64 threads: warp 0 produces, warp 1 consumes.
#include "bugs.cuh"

constexpr uint32_t kTiles = 3;
__device__ __forceinline__ bool has_work(uint32_t t) { return t != 1; }

extern "C" __global__ void phase_flipped_on_empty_tile(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(16) uint32_t slot[32];
  __shared__ __align__(8) uint64_t full, empty;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  const uint32_t fb = smem_u32(&full), eb = smem_u32(&empty);
  if (threadIdx.x == 0) {
    mbar_init(fb, 1);
    mbar_init(eb, 1);
  }
  __syncthreads();
  if (w == 0) {
    uint32_t empty_phase = 0, filled = 0;
#pragma unroll 1
    for (uint32_t t = 0; t < kTiles; ++t) {
      if (!has_work(t)) continue;
      if (filled > 0) {
        mbar_wait_site_hang(eb, empty_phase);
        empty_phase ^= 1;
      }
      asm volatile("st.shared.u32 [%0], %1;" ::"r"(smem_u32(&slot[lane])),
                   "r"(in[t * 32 + lane])
                   : "memory");
      __syncwarp();
      if (lane == 0) mbar_arrive(fb);
      ++filled;
    }
  } else {
    uint32_t phase = 0;
#pragma unroll 1
    for (uint32_t t = 0; t < kTiles; ++t) {
      if (has_work(t)) {
        mbar_wait(fb, phase);
        uint32_t v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(smem_u32(&slot[lane])) : "memory");
        out[t * 32 + lane] = v;
        __syncwarp();
        if (lane == 0) {
          asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" SITE(
                           "release")::"r"(eb)
                       : "memory");
        }
#if TMEM_FIXED
        phase ^= 1;  // only tiles the producer arrived for
#endif
      }
#if !TMEM_FIXED
      phase ^= 1;  // also on the empty tile: the producer never arrives for it
#endif
    }
  }
}
