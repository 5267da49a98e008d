// Reproduces the mechanism of NVIDIA/cutlass PR #3652 (examples/93, low-latency GQA): the
// epilogue warp's last tcgen05.ld of the accumulator is followed by the arrive that lets the
// MMA warp free TMEM, with no tcgen05.wait::ld in between (only some lanes consume the loaded
// registers, and a register dependency orders nothing in TMEM). tcgen05.ld is asynchronous:
// until tcgen05.wait::ld it may still read the cells, so the MMA warp's tcgen05.dealloc,
// ordered after the arrive, may free columns the load is reading (§9.7.16.6.4.4, §9.7.16.8.5:
// tcgen05.ld -> tcgen05.wait::ld -> fence::before_thread_sync -> arrive). Fixed:
// tcgen05.wait::ld before the arrive.
// Launch: grid 1, 64 threads: warp 0 = MMA warp (alloc/dealloc), warp 1 = epilogue warp.
#include "bugs.cuh"

extern "C" __global__ void ld_unwaited_before_dealloc(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t slot;
  __shared__ __align__(8) uint64_t done;
  const uint32_t w = warp_id();
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 32);
    tc_relinquish1();
  }
  if (threadIdx.x == 0) mbar_init(smem_u32(&done), 32);
  tc_sync_cta();
  const uint32_t lane = threadIdx.x % 32;
  uint32_t result = 0;
  if (w == 1) {  // epilogue warp: the accumulator of lane quarter 1
    const uint32_t taddr = lane_quarter(slot);
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(taddr),
                 "r"(in[lane] + 7u)
                 : "memory");
    tc_wait_st();
    uint32_t r;
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" SITE("load")
                 : "=r"(r)
                 : "r"(taddr)
                 : "memory");
#if TMEM_FIXED
    tc_wait_ld();
#endif
    if (lane < 16) result = r;  // only these lanes consume the loaded registers
    tc_fence_before();
    mbar_arrive(smem_u32(&done));  // lets the MMA warp free TMEM
  } else {  // MMA warp
    mbar_wait(smem_u32(&done), 0);
    tc_fence_after();
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" SITE("dealloc")::"r"(slot)
                 : "memory");
  }
  out[threadIdx.x] = result;
}
