// Reproduces the mechanism of NVIDIA/Fuser PR #1663 ("[Hopper] MBarrier storage scope update":
// the life of an mbarrier "starts with its initialization, and ends with its invalidation";
// the fix moves the mbarrier.inval from after the barrier's last write to after its last
// read). The elected thread arrives with expect_tx and issues the bulk copy (the barrier's
// last writes) and invalidates the barrier right there, while the other threads have still to
// wait on it. PTX ISA §9.7.13.15.10: any mbarrier operation other than init on an invalidated
// mbarrier object is undefined; the waiters' try_wait is one (TM0220). Fixed: every thread
// waits, __syncthreads, then the inval.
// Launch: grid 1, 64 threads.
#include "bugs.cuh"

extern "C" __global__ void mbarrier_inval_before_last_wait(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t tile[64];
  __shared__ __align__(8) uint64_t mbar;
  const uint32_t t = threadIdx.x;
  const uint32_t bar = smem_u32(&mbar);
  if (t == 0) mbar_init(bar, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    mbar_arrive_expect_tx(bar, 256);
    asm volatile(
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], 256, "
        "[%2];" ::"r"(smem_u32(tile)),
        "l"(in), "r"(bar)
        : "memory");
#if !TMEM_FIXED
    // after the last write of the barrier, before the other threads' waits (its last reads)
    asm volatile("mbarrier.inval.shared::cta.b64 [%0];" SITE("inval")::"r"(bar) : "memory");
#endif
  }
  if (t >= 32) {
    uint32_t done;
    do {
      asm volatile(
          "{\n\t.reg .pred p;\n\t"
          "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;" SITE("wait") "\n\t"
          "selp.u32 %0, 1, 0, p;\n\t}"
          : "=r"(done)
          : "r"(bar), "r"(0)
          : "memory");
    } while (!done);
  }
  // warp 0 sees the tile through warp 1's wait and this barrier
  asm volatile("bar.sync 0;" SITE("sync")::: "memory");
#if TMEM_FIXED
  if (t == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
#endif
  out[t] = tile[63 - t];
}
