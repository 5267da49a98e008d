// Reproduces the mechanism of facebookexperimental/triton#1993 (fixed by PR #1992): inside one
// multi-warp task, an f32 tile is read from TMEM with tcgen05.ld and the fp16 P computed from it
// is stored with tcgen05.st into columns that alias the tile (a storage-alias group), with a
// *different* warp -> column-chunk mapping for the load and the store. Nothing synchronises the
// task's warps between the read and the write, so a fast warp's store can land in a chunk that
// a slow warp of the same lane quarter has not read yet (the 2-CTA FA backward failed ~13% of
// runs). Each warp's own wait::ld orders only its own cells.
// Here: 8 warps; warp w reads lane quarter w%4, columns 32*(w/4)..+31 (32x32b.x32); P of warp
// w (32 fp16 packed in 16 columns) goes to columns 16*(w/4)..+15 of the same quarter, so warp
// w+4 writes columns 16..31 that warp w reads. Warps 0-3 are the slow ones here (a delay
// longer than any scheduling quantum before their load), so warp w+4's store lands first and
// warp w then reads P where it expects S: TM0206 at the load. Fixed: wait::ld, then
// fence::before_thread_sync + bar.sync + fence::after_thread_sync between the loads and the
// stores (the CTA barrier the fix inserts).
// Launch: grid 1, 256 threads.
#include <cuda_fp16.h>

#include "bugs.cuh"

extern "C" __global__ void aliased_tmem_store_races_load(const uint32_t* in, uint32_t* out) {
  __shared__ uint32_t slot;
  const uint32_t w = warp_id(), lane = threadIdx.x % 32;
  if (w == 0) {
    tc_alloc1(smem_u32(&slot), 64);
    tc_relinquish1();
  }
  tc_sync_cta();
  const uint32_t quarter = lane_quarter(slot);
  const uint32_t chunk = 32 * (w / 4);
  {  // the S tile: row = lane, column c holds in[row] + c
    uint32_t v[32];
    for (int c = 0; c < 32; ++c) v[c] = __float_as_uint((float)(in[32 * (w % 4) + lane] + chunk + c));
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
        "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
        "%28, %29, %30, %31, %32};" ::"r"(quarter + chunk),
        "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]), "r"(v[4]), "r"(v[5]), "r"(v[6]), "r"(v[7]),
        "r"(v[8]), "r"(v[9]), "r"(v[10]), "r"(v[11]), "r"(v[12]), "r"(v[13]), "r"(v[14]),
        "r"(v[15]), "r"(v[16]), "r"(v[17]), "r"(v[18]), "r"(v[19]), "r"(v[20]), "r"(v[21]),
        "r"(v[22]), "r"(v[23]), "r"(v[24]), "r"(v[25]), "r"(v[26]), "r"(v[27]), "r"(v[28]),
        "r"(v[29]), "r"(v[30]), "r"(v[31])
        : "memory");
    tc_wait_st();
  }
  tc_sync_cta();
  if (w < 4) {  // the slow warps of the task
#pragma unroll 1
    for (int i = 0; i < 1024; ++i) asm volatile("nanosleep.u32 100;" ::: "memory");
  }
  uint32_t s[32];
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
      "%11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, "
      "%28, %29, %30, %31}, [%32];" SITE("load")
      : "=r"(s[0]), "=r"(s[1]), "=r"(s[2]), "=r"(s[3]), "=r"(s[4]), "=r"(s[5]), "=r"(s[6]),
        "=r"(s[7]), "=r"(s[8]), "=r"(s[9]), "=r"(s[10]), "=r"(s[11]), "=r"(s[12]), "=r"(s[13]),
        "=r"(s[14]), "=r"(s[15]), "=r"(s[16]), "=r"(s[17]), "=r"(s[18]), "=r"(s[19]),
        "=r"(s[20]), "=r"(s[21]), "=r"(s[22]), "=r"(s[23]), "=r"(s[24]), "=r"(s[25]),
        "=r"(s[26]), "=r"(s[27]), "=r"(s[28]), "=r"(s[29]), "=r"(s[30]), "=r"(s[31])
      : "r"(quarter + chunk)
      : "memory");
  tc_wait_ld();
#if TMEM_FIXED
  tc_sync_cta();  // every warp's S chunk is read before any P overwrites it
#endif
  uint32_t p[16];
  for (int c = 0; c < 16; ++c) {
    const __half2 h = __floats2half2_rn(__uint_as_float(s[2 * c]) * 0.5f,
                                        __uint_as_float(s[2 * c + 1]) * 0.5f);
    p[c] = *reinterpret_cast<const uint32_t*>(&h);
  }
  asm volatile(
      "tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, "
      "%11, %12, %13, %14, %15, %16};" SITE("store")::"r"(quarter + 16 * (w / 4)),
      "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]), "r"(p[4]), "r"(p[5]), "r"(p[6]), "r"(p[7]),
      "r"(p[8]), "r"(p[9]), "r"(p[10]), "r"(p[11]), "r"(p[12]), "r"(p[13]), "r"(p[14]),
      "r"(p[15])
      : "memory");
  tc_wait_st();
  tc_sync_cta();
  if (w == 0) tc_dealloc1(slot, 64);
  uint32_t sum = 0;
  for (int c = 0; c < 16; ++c) sum += p[c];
  out[threadIdx.x] = sum;
}
