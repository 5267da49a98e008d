// Reproduces the mechanism of flashinfer-ai/flashinfer PR #4732 (issue #3700, "sparse mla sm121
// hang"): a producer/consumer handshake on one named barrier, the producer ("math") warps
// signalling with the non-blocking `bar.arrive 1, N` and the consumer ("IO") warps waiting with
// `bar.sync 1, N`. Nothing stops the producer from arriving for tile t+1 before the consumer's
// bar.sync of tile t: the PR's "Math can arrive for tile ti, run ti+1, and arrive again before
// IO syncs ti ... The surplus arrival completes the phase without IO; a later phase starves"
// (the IO warps parked on BAR.SYNC 1 after the math warps had exited). Here one math warp and
// one IO warp, barrier 1 counting 64 threads, two tiles: the math warp's two arrivals fill
// one instance, the IO warp's bar.sync starts a new one nobody completes. tmemu reports the
// second arrival of one warp in one instance (TM0512 at the bar.arrive), and the hang at the
// IO warp's bar.sync (TM0504). Fixed (the PR): alternate the handshake between ids 1 and 5 by
// tile parity, so a run-ahead arrival lands on the other id.
// Launch: grid 1, 64 threads: warp 0 is the math warp, warp 1 the IO warp.
#include "bugs.cuh"

constexpr uint32_t kTiles = 2;

__device__ __forceinline__ uint32_t handshake_id(uint32_t t) {
#if TMEM_FIXED
  return (t & 1) ? 5u : 1u;
#else
  return 1u;
#endif
}

extern "C" __global__ void named_barrier_arrive_runahead(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(16) uint32_t tile[kTiles][32];
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
#pragma unroll 1
  for (uint32_t t = 0; t < kTiles; ++t) {
    if (w == 0) {
      tile[t][lane] = in[t * 32 + lane] * 3u;
      asm volatile("bar.arrive %0, 64;" SITE("arrive")::"r"(handshake_id(t)) : "memory");
    } else {
      asm volatile("bar.sync %0, 64;" SITE("sync")::"r"(handshake_id(t)) : "memory");
      out[t * 32 + lane] = tile[t][lane];
    }
  }
}
