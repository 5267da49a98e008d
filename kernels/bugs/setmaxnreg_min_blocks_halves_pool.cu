// Reproduces the mechanism of tile-ai/tilelang issue #2559 ("T.annotate_min_blocks_per_sm(2)
// on a warp-specialized GEMM hangs the kernel forever at launch"): a warp-specialised kernel
// of two warpgroups (a producer and a consumer, 256 threads) moves registers from the producer
// to the consumer with setmaxnreg: .dec 24 in the producer, .inc 240 in the consumer. That
// split assumes the whole register file for one CTA; the occupancy hint min_blocks_per_sm = 2
// (__launch_bounds__(256, 2)) makes ptxas start every thread at 65536 / (2 x 256) = 128
// registers, so the producer's decrease returns 4 x 32 x 104 = 13312 registers to the CTA's
// pool and the consumer's increase asks for 4 x 32 x 112 = 14336: setmaxnreg.inc waits for
// registers that never come (PTX ISA §9.7.19.5: it "blocks the execution until enough
// registers are available in the CTA's register pool"), and the producer waits at the CTA
// barrier for the consumer. Hang TM0513 at the setmaxnreg.inc and at the bar.sync. Fixed (the
// issue's expected behaviour, tile-ai/tilelang PR #2406's approach): counts that fit the entry
// count the hint gives, .dec 24 / .inc 224 (4 x 32 x 104 >= 4 x 32 x 96).
// Launch: grid 1, 256 threads (warpgroup 0 producer, warpgroup 1 consumer).
#include "bugs.cuh"

extern "C" __global__ void __launch_bounds__(256, 2)
    setmaxnreg_min_blocks_halves_pool(const uint32_t* in, uint32_t* out) {
  const uint32_t t = threadIdx.x;
  uint32_t v = in[t];
  if (t < 128) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;" ::: "memory");
    v += 1u;  // the producer
  } else {
#if TMEM_FIXED
    asm volatile("setmaxnreg.inc.sync.aligned.u32 224;" SITE("inc")::: "memory");
#else
    asm volatile("setmaxnreg.inc.sync.aligned.u32 240;" SITE("inc")::: "memory");
#endif
    v *= 3u;  // the consumer
  }
  out[t] = v;
  asm volatile("bar.sync 0;" SITE("sync")::: "memory");
  out[256 + t] = v;
}
