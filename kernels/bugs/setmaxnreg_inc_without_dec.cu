// Reproduces the mechanism of pytorch/helion PR #3620 ("[cutedsl] flash-bwd 2-CTA: balance the
// setmaxnreg budgets (fixes the fresh-compile hang)": "The 2-CTA body raised the compute warps
// to 168 registers but never decreased any other warpgroup, so once setmaxnreg is honored ...
// the TRY_ALLOC could never be satisfied and the kernel spun forever"; tile-ai/tilelang PR
// #2406 the same over-subscription from a fixed 24/240 split on a 512-thread layout). A pool
// of registers is kept per CTA; setmaxnreg.dec releases a warp's registers above the new
// count to it and setmaxnreg.inc "blocks the execution until enough registers are available
// in the CTA's register pool" (PTX ISA §9.7.19.5). Four warpgroups (512 threads: at most 128
// registers a thread at launch, 65536 per SM): the two compute warpgroups raise themselves
// to 168 while the load/MMA and the reduce warpgroups keep their launch count, so the pool
// stays empty and the compute warps wait forever in setmaxnreg.inc; the others wait at the
// final CTA barrier for them. Fixed (the PR): the reduce warpgroup decreases to 80 and the
// load/MMA warpgroup to 88 before the compute warpgroups increase (88 + 80 + 2 x 168 = 504
// <= 4 x 128).
// Launch: grid 1, 512 threads (warpgroup 0 load/MMA, 1 reduce, 2-3 compute).
#include "bugs.cuh"

extern "C" __global__ void __launch_bounds__(512, 1)
    setmaxnreg_inc_without_dec(const uint32_t* in, uint32_t* out) {
  const uint32_t t = threadIdx.x, wg = t / 128;
  uint32_t v = in[t];
  if (wg == 0) {
#if TMEM_FIXED
    asm volatile("setmaxnreg.dec.sync.aligned.u32 88;" ::: "memory");
#endif
    v += 1u;  // the load/MMA role
  } else if (wg == 1) {
#if TMEM_FIXED
    asm volatile("setmaxnreg.dec.sync.aligned.u32 80;" ::: "memory");
#endif
    v += 2u;  // the reduce role
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 168;" SITE("inc")::: "memory");
    v *= 3u;  // the compute role
  }
  out[t] = v;
  asm volatile("bar.sync 0;" SITE("sync")::: "memory");
  out[512 + t] = v;
}
