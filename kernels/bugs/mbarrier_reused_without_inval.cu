// Reproduces the mechanism of triton-lang/triton PR #3858 ("Invalidate mbarrier after their
// last use": "According to PTX spec this is needed before the shared memory can be re-used.
// This is suspected to be causing sporadic memory corruptions"; the Gluon review of PR #10047
// names the same "poisoning" by re-use of mbarrier memory later in the same CTA). A kernel
// waits on an mbarrier for a bulk copy, and the shared allocator later hands the barrier's
// bytes to an ordinary scratch buffer. PTX ISA §9.7.13.15.10 (mbarrier.inval): an mbarrier
// object must be invalidated before its memory location is used for any other purpose; the
// buggy kernel stores over the still-valid barrier. Fixed: after every thread's last wait
// (__syncthreads), one thread executes mbarrier.inval, and a second __syncthreads orders it
// before the scratch stores.
// Launch: grid 1, 64 threads; the copy brings 64 words, the scratch holds 64 words.
#include "bugs.cuh"

extern "C" __global__ void mbarrier_reused_without_inval(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t tile[64];
  // one shared region, first the barrier (bytes 0-7), later the scratch buffer
  __shared__ __align__(8) uint32_t region[64];
  const uint32_t t = threadIdx.x;
  const uint32_t bar = smem_u32(region);
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
  }
  mbar_wait(bar, 0);
  const uint32_t v = tile[63 - t];
  __syncthreads();  // every thread's wait is done: the barrier is no longer used
#if TMEM_FIXED
  if (t == 0) asm volatile("mbarrier.inval.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
  __syncthreads();
#endif
  // the barrier's bytes reused as scratch
  asm volatile("st.shared.u32 [%0], %1;" SITE("reuse")::"r"(smem_u32(&region[t])), "r"(v * 3u)
               : "memory");
  __syncthreads();
  out[t] = region[(t + 1) % 64] + tile[t];
}
