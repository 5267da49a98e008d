// Holdout batch 16 nvcc kernel (our own): TMA forms no compiler output in the corpus had.
//
//  - `cp.async.bulk.prefetch.L2.global` (a non-tensor L2 prefetch of the second source) and
//    `cp.async.bulk.prefetch.tensor.2d.L2.global.tile` (a tensor prefetch through the
//    kernel-parameter map): hints, with no effect on the results;
//  - a tensor map **modified in global memory**: thread 0 copies the parameter map (a
//    `__grid_constant__` 128-byte parameter) into this CTA's 128-byte slot of a global scratch
//    buffer, rewrites its global address (to the second source) and its row box (32 -> 16) with
//    `tensormap.replace.tile.{global_address,box_dim}.global.b1024`, publishes the change to
//    the tensormap proxy with `fence.proxy.tensormap::generic.release.gpu` and takes it with
//    `fence.proxy.tensormap::generic.acquire.gpu [map], 128` before the TMA reads the map
//    (Triton and the rest modify maps in shared memory and copy them out with
//    `tensormap.cp_fenceproxy`);
//  - a **rank-1** tile load (`cp.async.bulk.tensor.1d...tile`) through a second parameter map.
//
// Each CTA loads a 32 x 32 f32 tile of A through the parameter map, a 16 x 32 tile of B through
// the modified map and 256 consecutive floats of A through the 1-D map, all on one mbarrier
// armed with expect_tx for the three, then writes the three tiles out.
#include <stdint.h>

struct alignas(64) TMap { uint64_t w[16]; };

static __device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }

extern "C" __global__ void __launch_bounds__(128, 1)
tma_prefetch_replace(const __grid_constant__ TMap tmap_a,    // A [rows][32] f32, box 32 x 32
                     const __grid_constant__ TMap tmap_a1d,  // A flat, box 256
                     TMap* gmaps,                            // one 128-byte slot per CTA
                     const float* __restrict__ b,            // B [rows][32] f32
                     float* out_a, float* out_b, float* out_1d) {
  __shared__ __align__(1024) float sa[32 * 32];
  __shared__ __align__(1024) float sb[16 * 32];
  __shared__ __align__(1024) float s1[256];
  __shared__ __align__(8) uint64_t full;
  const int cta = blockIdx.x;
  const uint32_t bar = smem_u32(&full);
  TMap* gmap = gmaps + cta;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    // hints: the B rows this CTA reads, and A's tile through the parameter map
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;"
                 :: "l"(b + cta * 16 * 32), "r"(16 * 32 * 4) : "memory");
    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];"
                 :: "l"(&tmap_a), "r"(0), "r"(cta * 32) : "memory");
    // the parameter map into global memory, then two fields rewritten in place
    for (int i = 0; i < 16; ++i) gmap->w[i] = tmap_a.w[i];
    asm volatile("tensormap.replace.tile.global_address.global.b1024.b64 [%0], %1;"
                 :: "l"(gmap), "l"(b) : "memory");
    asm volatile("tensormap.replace.tile.box_dim.global.b1024.b32 [%0], 1, %1;"
                 :: "l"(gmap), "r"(16) : "memory");
    asm volatile("fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" :: "l"(gmap) : "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const uint32_t bytes = (32 * 32 + 16 * 32 + 256) * 4;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
                 :: "r"(bar), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem_u32(sa)), "l"(&tmap_a), "r"(0), "r"(cta * 32), "r"(bar)
                 : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem_u32(sb)), "l"(gmap), "r"(0), "r"(cta * 16), "r"(bar)
                 : "memory");
    asm volatile("cp.async.bulk.tensor.1d.shared::cta.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2}], [%3];"
                 :: "r"(smem_u32(s1)), "l"(&tmap_a1d), "r"(cta * 256), "r"(bar)
                 : "memory");
  }
  uint32_t done = 0;
  while (!done) {
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                 "selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(bar) : "memory");
  }
  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) out_a[cta * 32 * 32 + i] = sa[i];
  for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) out_b[cta * 16 * 32 + i] = sb[i];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) out_1d[cta * 256 + i] = s1[i];
}
