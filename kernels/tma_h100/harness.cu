// H100 recording of cp.async.bulk.tensor loads (tile and im2col modes) for tmemu's TMA model.
//
// Each case encodes one tensor map with the CUDA driver (cuTensorMapEncodeTiled /
// cuTensorMapEncodeIm2col), fills the tensor with a fixed byte pattern (byte i of the buffer =
// pattern(i), see below), prefills shared memory with 0xA5, issues one load, waits on the
// mbarrier (expect_tx = the byte count tmemu predicts, so `tx_ok=1` confirms the complete-tx
// count) and dumps the shared-memory window. Store cases (mode store_tile / store_im2col,
// the latter `.im2col_no_offs`) fill shared memory with smem_pattern(i) instead, store the box
// and dump the whole global buffer. crates/tma/tests/h100_tma.rs replays every case through
// tmemu_tma and compares the dump bit for bit.
//
// Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu
// Run:   ./harness OUTDIR   -> OUTDIR/manifest.txt (one line per case), OUTDIR/dumps.bin
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)

// The tensor's bytes: byte i of the global buffer. Shared with the Rust test.
static uint8_t pattern(uint64_t i) { return (uint8_t)((i * 151u + (i >> 7) * 29u + 7u) & 0xFF); }

enum Mode { TILE = 0, IM2COL = 1, STORE_TILE = 2, STORE_IM2COL = 3 };
static const char* kModeNames[] = {"tile", "im2col", "store_tile", "store_im2col"};
// A store's source: byte i of the shared-memory window from the box's start.
__host__ __device__ static uint8_t smem_pattern(uint32_t i) { return (uint8_t)((i * 37u + 11u) & 0xFF); }

struct Case {
  const char* name;
  int mode;
  const char* dtype;  // tmemu/PTX spelling
  CUtensorMapDataType dt;
  int esize;
  int rank;
  uint64_t dims[5];
  uint64_t pad;  // extra bytes added to the dim-1 stride (then 16-byte rounded)
  uint32_t box[5];  // tile mode
  int lower[3], upper[3];  // im2col: spatial corners, W first
  uint32_t channels, pixels;  // im2col
  uint32_t estr[5];
  CUtensorMapSwizzle swz;
  const char* swz_name;
  int nan_fill;
  int coords[5];
  int offs[3];  // im2col offsets, W first
  uint32_t smem_off;  // destination offset from a 1024-aligned base (multiple of 128)
  uint32_t expect;  // tmemu's complete-tx prediction
};

#define F16 "f16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2
#define BF16 "bf16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2
#define F32 "f32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4
#define U8 "u8", CU_TENSOR_MAP_DATA_TYPE_UINT8, 1
#define S_NONE CU_TENSOR_MAP_SWIZZLE_NONE, "none"
#define S_32 CU_TENSOR_MAP_SWIZZLE_32B, "32B"
#define S_64 CU_TENSOR_MAP_SWIZZLE_64B, "64B"
#define S_128 CU_TENSOR_MAP_SWIZZLE_128B, "128B"

static Case kCases[] = {
  // ---- im2col ----
  // 4-D NHWC, 3x3 filter with padding 1 (lower -1, upper -1), start at the padded corner; 96
  // pixels run past both images (70 box pixels) into batch 2 (out of bounds).
  {"i2c_nhwc_pad", IM2COL, F16, 4, {24, 7, 5, 2}, 0, {}, {-1, -1}, {-1, -1}, 16, 96,
   {1, 1, 1, 1}, S_NONE, 0, {0, -1, -1, 0}, {0, 0}, 0, 16 * 96 * 2},
  // the same map at filter tap (w 2, h 1), channels 8..23, 32B swizzle
  {"i2c_nhwc_offs_swz32", IM2COL, F16, 4, {24, 7, 5, 2}, 0, {}, {-1, -1}, {-1, -1}, 16, 64,
   {1, 1, 1, 1}, S_32, 0, {8, -1, -1, 0}, {2, 1}, 0, 16 * 64 * 2},
  // start inside the box, odd offsets, channels past C (24) are out of bounds, 64B swizzle
  {"i2c_nhwc_mid_swz64", IM2COL, F16, 4, {24, 7, 5, 2}, 0, {}, {-1, -1}, {-1, -1}, 32, 40,
   {1, 1, 1, 1}, S_64, 0, {0, 3, 1, 0}, {1, 2}, 128, 32 * 40 * 2},
  // 3-D NWC f32, box wider than the tensor on the right (upper +1), row of 32 B under 64B swizzle
  {"i2c_nwc_f32_swz64", IM2COL, F32, 3, {12, 10, 3}, 16, {}, {-2}, {1}, 8, 40,
   {1, 1, 1}, S_64, 0, {4, -2, 0}, {0}, 0, 8 * 40 * 4},
  // the same with the upper corner at the tensor's edge
  {"i2c_nwc_f32_swz64_up0", IM2COL, F32, 3, {12, 10, 3}, 16, {}, {-2}, {0}, 8, 40,
   {1, 1, 1}, S_64, 0, {4, -2, 0}, {0}, 0, 8 * 40 * 4},
  // and without the swizzle
  {"i2c_nwc_f32_up1_noswz", IM2COL, F32, 3, {12, 10, 3}, 16, {}, {-2}, {1}, 8, 40,
   {1, 1, 1}, S_NONE, 0, {4, -2, 0}, {0}, 0, 8 * 40 * 4},
  // 5-D NDHWC bf16, 128B swizzle, NaN fill, channels past C
  {"i2c_ndhwc_bf16_nan", IM2COL, BF16, 5, {48, 5, 4, 3, 2}, 0, {}, {-1, -1, -1}, {0, 0, 0}, 64, 72,
   {1, 1, 1, 1, 1}, S_128, 1, {0, -1, -1, -1, 0}, {1, 0, 1}, 0, 64 * 72 * 2},
  // traversal strides 2 in W and H (odd extents), 1 image
  {"i2c_stride2", IM2COL, F16, 4, {16, 7, 6, 1}, 0, {}, {0, 0}, {0, 0}, 16, 24,
   {1, 2, 2, 1}, S_NONE, 0, {0, 0, 0, 0}, {0, 0}, 0, 16 * 24 * 2},
  // traversal stride 3 in W with padding corners and an offset
  {"i2c_stride3_pad", IM2COL, F16, 4, {16, 8, 5, 2}, 0, {}, {-1, -1}, {0, -1}, 16, 30,
   {1, 3, 1, 1}, S_32, 0, {0, -1, -1, 0}, {1, 1}, 0, 16 * 30 * 2},
  // u8, 64-byte pixels, 64B swizzle at a 128-byte (not 512-byte) aligned destination
  {"i2c_u8_swz64_phase", IM2COL, U8, 4, {64, 5, 3, 3}, 0, {}, {-2, -1}, {1, 0}, 64, 48,
   {1, 1, 1, 1}, S_64, 0, {0, -2, -1, 1}, {0, 0}, 384, 64 * 48},
  // 3-D with a big negative corner and 128B swizzle of f32 (32 channels = 128 B)
  {"i2c_nwc_f32_swz128_nan", IM2COL, F32, 3, {40, 9, 2}, 0, {}, {-3}, {2}, 32, 20,
   {1, 1, 1}, S_128, 1, {8, -3, 1}, {2}, 0, 32 * 20 * 4},
  // ---- tile ----
  // box over the right and bottom edges, 128B swizzle
  {"tile_f16_edge_swz128", TILE, F16, 2, {100, 37}, 0, {64, 16}, {}, {}, 0, 0,
   {1, 1}, S_128, 0, {72, 30}, {}, 0, 64 * 16 * 2},
  // inner row of 64 B under the 128B swizzle (is the row padded to 128 B?)
  {"tile_f16_row64_swz128", TILE, F16, 2, {100, 37}, 0, {32, 8}, {}, {}, 0, 0,
   {1, 1}, S_128, 0, {8, 3}, {}, 0, 32 * 8 * 2},
  // inner row of 32 B under the 64B swizzle, at a 128-byte aligned destination
  {"tile_f16_row32_swz64", TILE, F16, 2, {100, 37}, 0, {16, 8}, {}, {}, 0, 0,
   {1, 1}, S_64, 0, {90, 33}, {}, 128, 16 * 8 * 2},
  // 64B swizzle at a 128-byte aligned destination (phase), negative coordinates
  {"tile_f16_swz64_phase", TILE, F16, 2, {100, 37}, 0, {32, 12}, {}, {}, 0, 0,
   {1, 1}, S_64, 0, {-8, -3}, {}, 128, 32 * 12 * 2},
  // element strides (1, 2, 3), NaN fill f32, negative coordinates
  {"tile_f32_estr_nan", TILE, F32, 3, {20, 9, 7}, 32, {8, 9, 4}, {}, {}, 0, 0,
   {1, 2, 3}, S_NONE, 1, {-4, -2, 5}, {}, 0, 8 * 5 * 2 * 4},
  // bf16 NaN fill (which NaN?)
  {"tile_bf16_nan_swz32", TILE, BF16, 2, {40, 10}, 0, {16, 8}, {}, {}, 0, 0,
   {1, 1}, S_32, 1, {32, 6}, {}, 0, 16 * 8 * 2},
  // f64 NaN fill (the 16-bit pattern repeated?)
  {"tile_f64_nan", TILE, "f64", CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8, 2, {10, 6}, 0, {4, 4}, {}, {}, 0, 0,
   {1, 1}, S_NONE, 1, {8, 4}, {}, 0, 4 * 4 * 8},
  // the faulting 32-byte row under the 64B swizzle, at 1024-aligned and 512-aligned destinations
  {"tile_f16_row32_swz64_at0", TILE, F16, 2, {100, 37}, 0, {16, 8}, {}, {}, 0, 0,
   {1, 1}, S_64, 0, {90, 33}, {}, 0, 16 * 8 * 2},
  {"tile_f16_row32_swz64_at512", TILE, F16, 2, {100, 37}, 0, {16, 8}, {}, {}, 0, 0,
   {1, 1}, S_64, 0, {90, 33}, {}, 512, 16 * 8 * 2},
  // ... and inside the tensor
  {"tile_f16_row32_swz64_inside", TILE, F16, 2, {100, 37}, 0, {16, 8}, {}, {}, 0, 0,
   {1, 1}, S_64, 0, {8, 3}, {}, 0, 16 * 8 * 2},
  // a 32-byte row under the 32B swizzle over the same edges (no gap)
  {"tile_f16_row32_swz32_edge", TILE, F16, 2, {100, 37}, 0, {16, 8}, {}, {}, 0, 0,
   {1, 1}, S_32, 0, {90, 33}, {}, 0, 16 * 8 * 2},
  // traversal stride 2 over N (images 0, 2, ...)
  {"i2c_nstride2", IM2COL, F16, 4, {16, 3, 2, 5}, 0, {}, {0, 0}, {0, 0}, 16, 20,
   {1, 1, 1, 2}, S_NONE, 0, {0, 1, 0, 0}, {0, 0}, 0, 16 * 20 * 2},
  // stores: tile over both edges with the 64B swizzle; im2col_no_offs with padding corners
  {"store_tile_f16_edge_swz64", STORE_TILE, F16, 2, {40, 10}, 0, {32, 8}, {}, {}, 0, 0,
   {1, 1}, S_64, 0, {24, -3}, {}, 0, 32 * 8 * 2},
  {"store_i2c_nhwc_pad", STORE_IM2COL, F16, 4, {24, 7, 5, 2}, 0, {}, {-1, -1}, {-1, -1}, 16, 40,
   {1, 1, 1, 1}, S_32, 0, {8, 4, 3, 0}, {}, 0, 16 * 40 * 2},
  // stores with non-negative coordinates: over the right/bottom edges, and inside
  {"store_tile_f16_edge_pos", STORE_TILE, F16, 2, {40, 10}, 0, {32, 8}, {}, {}, 0, 0,
   {1, 1}, S_64, 0, {24, 5}, {}, 0, 32 * 8 * 2},
  {"store_tile_f32_inside_swz128", STORE_TILE, F32, 3, {40, 10, 3}, 0, {32, 4, 2}, {}, {}, 0, 0,
   {1, 1, 1}, S_128, 0, {8, 2, 1}, {}, 0, 32 * 4 * 2 * 4},
  // im2col_no_offs store whose box lies inside the image (corners 0)
  {"store_i2c_inside", STORE_IM2COL, F16, 4, {24, 7, 5, 2}, 0, {}, {0, 0}, {0, 0}, 16, 40,
   {1, 1, 1, 1}, S_32, 0, {8, 4, 3, 0}, {}, 0, 16 * 40 * 2},
  // 5-D u8
  {"tile_u8_5d", TILE, U8, 5, {32, 3, 4, 2, 3}, 0, {16, 3, 2, 2, 2}, {}, {}, 0, 0,
   {1, 1, 1, 1, 1}, S_NONE, 0, {16, 1, 3, 1, 2}, {}, 0, 16 * 3 * 2 * 2 * 2},
};
static const int kNumCases = sizeof(kCases) / sizeof(kCases[0]);

// One kernel, one shape per (mode, rank): thread 0 issues the copy.
__global__ void tma_case(const __grid_constant__ CUtensorMap map, int mode, int rank, int c0, int c1,
                         int c2, int c3, int c4, unsigned short o0, unsigned short o1,
                         unsigned short o2, uint32_t dst_off, uint32_t expect, uint32_t dump_len,
                         uint8_t* out, uint32_t* info) {
  extern __shared__ __align__(1024) uint8_t smem[];
  // mbarrier at the start, data from byte 1024 on.
  uint64_t* mbar = reinterpret_cast<uint64_t*>(smem);
  uint8_t* data = smem + 1024;
  for (uint32_t i = threadIdx.x; i < dump_len; i += blockDim.x) data[i] = 0xA5;
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(mbar);
  uint32_t dst = (uint32_t)__cvta_generic_to_shared(data) + dst_off;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(expect));
    const void* m = &map;
    if (mode == 0) {
      switch (rank) {
        case 1: asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2}], [%3];"
                    ::"r"(dst), "l"(m), "r"(c0), "r"(bar) : "memory"); break;
        case 2: asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                    ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(bar) : "memory"); break;
        case 3: asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                    ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(bar) : "memory"); break;
        case 4: asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                    ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar) : "memory"); break;
        case 5: asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                    ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(bar) : "memory"); break;
      }
    } else {
      switch (rank) {
        case 3: asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5], {%6};"
                    ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(bar), "h"(o0) : "memory"); break;
        case 4: asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};"
                    ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(bar), "h"(o0), "h"(o1) : "memory"); break;
        case 5: asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7], {%8, %9, %10};"
                    ::"r"(dst), "l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(bar), "h"(o0), "h"(o1), "h"(o2) : "memory"); break;
      }
    }
  }
  // Bounded wait: a wrong complete-tx count shows as tx_ok = 0 instead of a hang.
  uint32_t done = 0;
  for (int it = 0; it < 2000000 && !done; ++it) {
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"(bar) : "memory");
  }
  __syncthreads();
  for (uint32_t i = threadIdx.x; i < dump_len; i += blockDim.x) out[i] = data[i];
  if (threadIdx.x == 0) {
    info[0] = done;
    info[1] = (uint32_t)__cvta_generic_to_shared(data);
  }
}

// Store cases: shared memory holds smem_pattern, thread 0 stores the box, the host dumps global.
__global__ void tma_store_case(const __grid_constant__ CUtensorMap map, int mode, int rank, int c0, int c1,
                               int c2, int c3, int c4, uint32_t dst_off, uint32_t fill_len, uint32_t* info) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* data = smem + 1024 + dst_off;
  for (uint32_t i = threadIdx.x; i < fill_len; i += blockDim.x) data[i] = smem_pattern(i);
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t src = (uint32_t)__cvta_generic_to_shared(data);
    info[1] = src - dst_off;
    const void* m = &map;
    if (mode == STORE_TILE) {
      switch (rank) {
        case 2: asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                    ::"l"(m), "r"(c0), "r"(c1), "r"(src) : "memory"); break;
        case 3: asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];"
                    ::"l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(src) : "memory"); break;
      }
    } else {
      switch (rank) {
        case 3: asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.im2col_no_offs.bulk_group [%0, {%1, %2, %3}], [%4];"
                    ::"l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(src) : "memory"); break;
        case 4: asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group [%0, {%1, %2, %3, %4}], [%5];"
                    ::"l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src) : "memory"); break;
        case 5: asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.im2col_no_offs.bulk_group [%0, {%1, %2, %3, %4, %5}], [%6];"
                    ::"l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(src) : "memory"); break;
      }
    }
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

typedef CUresult (*EncodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
typedef CUresult (*EncodeIm2col)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const int*, const int*, cuuint32_t, cuuint32_t,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static std::string join_u64(const uint64_t* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}
static std::string join_i(const int* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}
static std::string join_u32(const uint32_t* v, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  void* fn_t = nullptr;
  void* fn_i = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn_t, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeIm2col", &fn_i, cudaEnableDefault, &q));
  EncodeTiled enc_t = (EncodeTiled)fn_t;
  EncodeIm2col enc_i = (EncodeIm2col)fn_i;
  CK(cudaFuncSetAttribute(tma_case, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  // One case per process (argv[2]), appended to the files: a case that faults cannot take
  // the others' recordings with it. Without argv[2], print the case count.
  if (argc < 3) { printf("%d\n", kNumCases); return 0; }
  int only = atoi(argv[2]);
  FILE* man = fopen((dir + "/manifest.txt").c_str(), "a");
  FILE* bin = fopen((dir + "/dumps.bin").c_str(), "ab");
  if (!man || !bin) { perror("open"); return 1; }
  fseek(bin, 0, SEEK_END);
  uint8_t* d_out;
  uint32_t* d_info;
  CK(cudaMalloc(&d_out, 1 << 20));
  CK(cudaMalloc(&d_info, 16));
  uint64_t bin_off = (uint64_t)ftell(bin);
  for (int k = only; k < kNumCases && k == only; ++k) {
    const Case& c = kCases[k];
    uint64_t strides[4] = {0, 0, 0, 0};
    uint64_t row = (c.dims[0] * c.esize + c.pad + 15) / 16 * 16;
    for (int i = 1; i < c.rank; ++i) strides[i - 1] = i == 1 ? row : strides[i - 2] * c.dims[i - 1];
    uint64_t total = c.rank == 1 ? c.dims[0] * c.esize : strides[c.rank - 2] * c.dims[c.rank - 1];
    std::vector<uint8_t> h(total);
    for (uint64_t i = 0; i < total; ++i) h[i] = pattern(i);
    uint8_t* d_g;
    CK(cudaMalloc(&d_g, total + 256));
    CK(cudaMemcpy(d_g, h.data(), total, cudaMemcpyHostToDevice));
    CUtensorMap map;
    CUresult r;
    CUtensorMapFloatOOBfill fill = c.nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                              : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
    if (c.mode == TILE || c.mode == STORE_TILE) {
      r = enc_t(&map, c.dt, c.rank, d_g, c.dims, strides, c.box, c.estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                c.swz, CU_TENSOR_MAP_L2_PROMOTION_NONE, fill);
    } else {
      r = enc_i(&map, c.dt, c.rank, d_g, c.dims, strides, c.lower, c.upper, c.channels, c.pixels, c.estr,
                CU_TENSOR_MAP_INTERLEAVE_NONE, c.swz, CU_TENSOR_MAP_L2_PROMOTION_NONE, fill);
    }
    // 4x the box: a row narrower than the swizzle span may occupy the whole span.
    uint32_t dump_len = (c.smem_off + 4 * c.expect + 127) / 128 * 128 + 128;
    fprintf(man, "name=%s mode=%s dtype=%s rank=%d dims=%s strides=%s box=%s lower=%s upper=%s channels=%u pixels=%u estr=%s swizzle=%s fill=%s coords=%s offs=%s smem_off=%u expect=%u",
            c.name, kModeNames[c.mode], c.dtype, c.rank, join_u64(c.dims, c.rank).c_str(),
            join_u64(strides, c.rank - 1).c_str(), join_u32(c.box, c.rank).c_str(),
            join_i(c.lower, c.rank - 2 > 0 ? c.rank - 2 : 0).c_str(), join_i(c.upper, c.rank - 2 > 0 ? c.rank - 2 : 0).c_str(),
            c.channels, c.pixels, join_u32(c.estr, c.rank).c_str(), c.swz_name, c.nan_fill ? "nan" : "zero",
            join_i(c.coords, c.rank).c_str(), join_i(c.offs, c.rank - 2 > 0 ? c.rank - 2 : 0).c_str(), c.smem_off,
            c.expect);
    if (r != CUDA_SUCCESS) {
      fprintf(man, " status=encode_error:%d\n", (int)r);
      fflush(man);
      CK(cudaFree(d_g));
      continue;
    }
    if (c.mode == STORE_TILE || c.mode == STORE_IM2COL) {
      // The source spans 4x the box (rows narrower than a swizzle span are spread out).
      uint32_t fill_len = 4 * c.expect + 128;
      tma_store_case<<<1, 128, 1024 + c.smem_off + fill_len>>>(map, c.mode, c.rank, c.coords[0], c.coords[1],
                                                                c.coords[2], c.coords[3], c.coords[4], c.smem_off,
                                                                fill_len, d_info);
      cudaError_t se = cudaGetLastError();
      if (se == cudaSuccess) se = cudaDeviceSynchronize();
      if (se != cudaSuccess) {
        fprintf(man, " status=launch_error:%s\n", cudaGetErrorName(se));
        fclose(man);
        return 0;
      }
      std::vector<uint8_t> g(total);
      uint32_t sinfo[2];
      CK(cudaMemcpy(g.data(), d_g, total, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(sinfo, d_info, 8, cudaMemcpyDeviceToHost));
      fwrite(g.data(), 1, total, bin);
      fprintf(man, " status=ok tx_ok=na smem_base=%u dump_at=%llu dump_len=%llu\n", sinfo[1],
              (unsigned long long)bin_off, (unsigned long long)total);
      fflush(man);
      bin_off += total;
      CK(cudaFree(d_g));
      continue;
    }
    tma_case<<<1, 128, 1024 + dump_len>>>(map, c.mode, c.rank, c.coords[0], c.coords[1], c.coords[2],
                                          c.coords[3], c.coords[4], (unsigned short)c.offs[0],
                                          (unsigned short)c.offs[1], (unsigned short)c.offs[2], c.smem_off,
                                          c.expect, dump_len, d_out, d_info);
    cudaError_t le = cudaGetLastError();
    if (le == cudaSuccess) le = cudaDeviceSynchronize();
    if (le != cudaSuccess) {
      fprintf(man, " status=launch_error:%s\n", cudaGetErrorName(le));
      fclose(man);
      return 0;
    }
    std::vector<uint8_t> dump(dump_len);
    uint32_t info[2];
    CK(cudaMemcpy(dump.data(), d_out, dump_len, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(info, d_info, 8, cudaMemcpyDeviceToHost));
    fwrite(dump.data(), 1, dump_len, bin);
    fprintf(man, " status=ok tx_ok=%u smem_base=%u dump_at=%llu dump_len=%u\n", info[0], info[1],
            (unsigned long long)bin_off, dump_len);
    fflush(man);
    bin_off += dump_len;
    CK(cudaFree(d_g));
  }
  fclose(man);
  fclose(bin);
  printf("case %d recorded in %s\n", only, dir.c_str());
  return 0;
}
