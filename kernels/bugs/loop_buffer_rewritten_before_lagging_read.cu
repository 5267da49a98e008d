// Reproduces the mechanism of sgl-project/sglang PR #37288 ("Fix cross-iteration shared-memory
// WAR races in Blackwell GDN prefill"): each chunk iteration stores the chunk's gates to a
// shared buffer at its start, synchronises, and every warp reads the gates of the other rows;
// nothing at the end of the iteration keeps a fast warp from storing the next chunk's gates
// while a lagging warp still reads this chunk's ("a lagging warp can therefore read values
// from two iterations"). Plain shared accesses of two warps with no barrier between them are
// a data race (PTX ISA §8): TM0211 at the next iteration's store or at the lagging read (by
// schedule), each related to the other. Fixed (the PR): a named barrier over the 128 threads
// at the end of every iteration.
// Launch: grid 1, 128 threads (four warps), two chunks of 128 gates.
#include "bugs.cuh"

extern "C" __global__ void loop_buffer_rewritten_before_lagging_read(const uint32_t* in,
                                                                     uint32_t* out) {
  __shared__ __align__(16) uint32_t s_gate[128];
  const uint32_t t = threadIdx.x;
  uint32_t acc = 0;
#pragma unroll 1
  for (uint32_t i = 0; i < 2; ++i) {
    asm volatile("st.shared.u32 [%0], %1;" SITE("store")::"r"(smem_u32(&s_gate[t])),
                 "r"(in[128 * i + t])
                 : "memory");
    asm volatile("bar.sync 1, 128;" ::: "memory");
    uint32_t g;
    asm volatile("ld.shared.u32 %0, [%1];" SITE("read")
                 : "=r"(g)
                 : "r"(smem_u32(&s_gate[(t + 32) % 128]))
                 : "memory");
    acc = acc * 3u + g;
#if TMEM_FIXED
    asm volatile("bar.sync 1, 128;" ::: "memory");  // every read of this chunk is done
#endif
  }
  out[t] = acc;
}
