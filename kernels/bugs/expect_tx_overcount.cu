// Reproduces the mechanism of tile-ai/tilelang#2644 (first candidate): the expected transaction
// count of an mbarrier is multiplied by a factor larger than the number of copies that really
// complete on it (there: the whole cluster size where only the 2 CTAs of an MMA pair deliver
// bytes), so the phase never completes and every waiter spins forever. Here one CTA expects 2x
// the bytes of the single bulk copy it issues. Fixed: expect exactly the bytes that arrive.
// Launch: grid 1, 128 threads.
#include "bugs.cuh"

extern "C" __global__ void expect_tx_overcount(const uint32_t* in, uint32_t* out) {
  __shared__ __align__(128) uint32_t buf[128];
  __shared__ __align__(8) uint64_t bar;
  constexpr uint32_t kBytes = sizeof(buf);
#if TMEM_FIXED
  constexpr uint32_t kCopies = 1;  // copies that complete on this barrier
#else
  constexpr uint32_t kCopies = 2;  // the over-count: a factor no copy stands behind
#endif
  if (threadIdx.x == 0) mbar_init(smem_u32(&bar), 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(&bar)),
                 "r"(kCopies * kBytes)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            smem_u32(buf)),
        "l"(in), "r"(kBytes), "r"(smem_u32(&bar))
        : "memory");
  }
  mbar_wait_site_hang(smem_u32(&bar), 0);
  out[threadIdx.x] = buf[threadIdx.x];
}
