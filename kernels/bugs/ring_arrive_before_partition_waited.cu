// Reproduces the mechanism of triton-lang/triton PR #10035 ("Always insert bar sync before all
// mbarrier arrives"): two warp-specialised partitions share a one-slot ring of mbarriers
// (ready / empty). The consumer partition's arrive on `empty` is executed by its leader warp
// alone, right after the leader's own wait on `ready`, with no barrier among the partition's
// warps first. A consumer warp that is still in (or has not yet reached) its wait on `ready`
// for phase k then misses it: the producer refills the slot and `ready` completes phase k+1,
// so the barrier's current phase has the parity the late warp waits for again, incomplete,
// and nobody will ever arrive on it: the late warp spins forever (hang, TM0225 at its
// mbarrier.try_wait). Here the second consumer warp is late by other work. Fixed: the
// consumer warps synchronise (bar.sync on a named barrier) before the leader arrives.
// Launch: grid 1, 96 threads: warp 0 = producer, warps 1 (leader) and 2 = consumer.
#include "bugs.cuh"

extern "C" __global__ void ring_arrive_before_partition_waited(const uint32_t* in,
                                                                uint32_t* out) {
  __shared__ uint32_t slot_data[32];
  __shared__ __align__(8) uint64_t ready, empty;
  constexpr int kIters = 2;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    mbar_init(smem_u32(&ready), 1);
    mbar_init(smem_u32(&empty), 1);
  }
  __syncthreads();
  uint32_t result = 0;
  if (w == 0) {  // producer: one slot, kIters fills
#pragma unroll 1
    for (int i = 0; i < kIters; ++i) {
      mbar_wait(smem_u32(&empty), (i & 1) ^ 1);  // the slot is free (phase -1 counts as done)
      slot_data[lane] = in[lane] + i;
      __syncwarp();
      if (lane == 0) mbar_arrive(smem_u32(&ready));
    }
  } else {  // consumer partition: warps 1 and 2
    if (w == 2) {  // the late warp (scheduling, other work of the partition)
#pragma unroll 1
      for (int i = 0; i < 1024; ++i) asm volatile("nanosleep.u32 100;" ::: "memory");
    }
#pragma unroll 1
    for (int i = 0; i < kIters; ++i) {
      if (w == 2 && i == 0)
        mbar_wait_site_hang(smem_u32(&ready), i & 1);
      else
        mbar_wait(smem_u32(&ready), i & 1);
      result += slot_data[lane];
#if TMEM_FIXED
      asm volatile("bar.sync 1, 64;" ::: "memory");  // every consumer warp has waited
#endif
      __syncwarp();  // the warp's reads come before its leader lane's arrive
      if (w == 1 && lane == 0) mbar_arrive(smem_u32(&empty));  // the leader releases the slot
    }
  }
  out[threadIdx.x] = result;
}
