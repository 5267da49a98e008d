// Reproduces the mechanism reported against QuACK 0.6.1's persistent tile scheduler
// (Dao-AILab/quack quack/tile_scheduler.py, analysed in marin-community/marin#8870): the
// scheduler's work loop asks Cluster Launch Control for the next tile until a
// clusterlaunchcontrol.try_cancel fails, leaves the loop on the failed response, and then an
// unconditional tail path ("cancel_pending_tail") issues one more try_cancel. PTX ISA
// §9.7.13.17: once the executing CTA has observed a try_cancel as failed, issuing another is
// undefined behaviour. tmemu reports TM0230 at the tail's try_cancel, related to the
// query_cancel.is_canceled that observed the failure. Fixed: no request after a failure.
// Launch: grid 2 on the default 148 SMs, so both CTAs start at once and every request fails;
// 32 threads, thread 0 is the scheduler.
#include "bugs.cuh"

__device__ __forceinline__ bool clc_query_site(uint32_t resp, uint32_t* first_x) {
  uint32_t ok, x;
  asm volatile(
      "{\n\t.reg .b128 q;\n\t.reg .pred p;\n\t"
      "ld.shared.b128 q, [%2];\n\t"
      "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, q;" SITE("observe") "\n\t"
      "selp.u32 %0, 1, 0, p;\n\t"
      "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128 %1, q;\n\t}"
      : "=r"(ok), "=r"(x)
      : "r"(resp)
      : "memory");
  *first_x = x;
  return ok != 0;
}

extern "C" __global__ void clc_cancel_after_failed_response(uint32_t* out) {
  __shared__ __align__(16) uint32_t resp[4];
  __shared__ __align__(8) uint64_t bar;
  const uint32_t r = smem_u32(resp), b = smem_u32(&bar);
  if (threadIdx.x == 0) mbar_init(b, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  uint32_t tile = blockIdx.x, phase = 0;
  for (;;) {
    out[tile * 32 + threadIdx.x] = blockIdx.x + 1;  // this tile's work
    // the response slot is rewritten by the async proxy: order our earlier reads first
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      mbar_arrive_expect_tx(b, 16);
      clc_try_cancel(r, b);
    }
    mbar_wait(b, phase);
    phase ^= 1;
    uint32_t next;
    if (!clc_query_site(r, &next)) break;  // no cluster left: leave the work loop
    tile = next;
  }
#if !TMEM_FIXED
  // the tail path: one more request, after the CTA has seen a failure
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    mbar_arrive_expect_tx(b, 16);
    asm volatile(
        "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 "
        "[%0], [%1];" SITE("tail")::"r"(r),
        "r"(b)
        : "memory");
  }
  mbar_wait(b, phase);
#endif
}
