// Reproduces the mechanism of the write-write race named in the review of tile-ai/tilelang PR
// #2274 (a 2-CTA tcgen05 GEMM test kernel): the grid is split across a cluster of 2 CTAs
// (`cta_id` selects each CTA's part of the work), but both CTAs fall through to the same
// epilogue and store the one output tile C[bx, by] with plain stores. Two CTAs write the same
// global bytes with nothing ordering them, and with different values: a data race by the
// memory model (PTX ISA §8), whose result depends on which store lands last. tmemu reports
// TM0212 at the epilogue store (both sides are that store). Fixed: only the leader CTA stores
// the tile, after a cluster barrier.
// Launch: grid 2, cluster 2, 128 threads; `in` holds each CTA's partial results.
#include "bugs.cuh"

extern "C" __global__ void pair_ctas_store_same_tile(const uint32_t* in, uint32_t* c) {
  const uint32_t rank = cluster_rank();
  // each CTA's part of the tile (in the original: its half of the accumulator)
  const uint32_t v = in[rank * 128 + threadIdx.x] * (rank + 1);
  const uint32_t tile = blockIdx.x / 2;  // one output tile per cluster
  cluster_sync();
#if TMEM_FIXED
  if (rank == 0)
#endif
    asm volatile("st.global.u32 [%0], %1;" SITE("store")::"l"(c + tile * 128 + threadIdx.x),
                 "r"(v)
                 : "memory");
}
