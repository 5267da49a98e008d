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
// Reduction cases (generated in make_red_cases, after the table below): `red_tile` and
// `red_im2col` (`cp.reduce.async.bulk.tensor`, tile and `.im2col_no_offs`), `red_bulk`
// (`cp.reduce.async.bulk.global.shared::cta.bulk_group`) and `red_cluster`
// (`cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes`, to the
// CTA's own shared memory). Their inputs are random bit patterns mixed with each type's
// specials (NaN payloads, signalling NaN, ±0, ±inf, subnormals, extremes); the recording keeps
// the destination's initial bytes (init_at), the source bytes (src_at) and the destination
// after the reduction (dump_at), so the replay needs no copy of the generator.
//
// Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu
// Run:   ./harness OUTDIR K  -> appends cases K.. to OUTDIR/manifest.txt and OUTDIR/dumps.bin,
//        stopping after the first case that faults (exit 3, "next=K'" on stdout): a fault
//        kills the CUDA context, so run_on_device.sh starts a new process at K'.
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

enum Mode { TILE = 0, IM2COL = 1, STORE_TILE = 2, STORE_IM2COL = 3, RED_TILE = 4, RED_IM2COL = 5 };
static const char* kModeNames[] = {"tile", "im2col", "store_tile", "store_im2col", "red_tile", "red_im2col"};
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
  int redop;  // reductions: index into kRedOps
  int flavor;  // reductions: value generator flavour (0 mixed, 1 small integers for inc/dec)
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
static const int kNumTable = sizeof(kCases) / sizeof(kCases[0]);

// ---- reductions ----
enum RedOp { ADD, MIN, MAX, INC, DEC, AND, OR, XOR };
static const char* kRedOps[] = {"add", "min", "max", "inc", "dec", "and", "or", "xor"};

struct TypeInfo { const char* name; CUtensorMapDataType dt; int esize; };
static const TypeInfo kTypes[] = {
  {"u32", CU_TENSOR_MAP_DATA_TYPE_UINT32, 4}, {"s32", CU_TENSOR_MAP_DATA_TYPE_INT32, 4},
  {"u64", CU_TENSOR_MAP_DATA_TYPE_UINT64, 8}, {"s64", CU_TENSOR_MAP_DATA_TYPE_INT64, 8},
  {"f16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2}, {"bf16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2},
  {"f32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4}, {"f64", CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8},
  {"f32.ftz", CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, 4}, {"tf32", CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, 4},
  {"u16", CU_TENSOR_MAP_DATA_TYPE_UINT16, 2},
};
static const TypeInfo& type_info(const char* name) {
  for (const TypeInfo& t : kTypes) if (!strcmp(t.name, name)) return t;
  fprintf(stderr, "unknown type %s\n", name);
  exit(1);
}

// (operation, map element type). `legal` = in tmemu's table (the `.global` table of
// cp.reduce.async.bulk); the others probe what the hardware does outside it.
struct Pair { int op; const char* ty; int legal; };
static const Pair kPairs[] = {
  {ADD, "u32", 1}, {ADD, "s32", 1}, {ADD, "u64", 1}, {ADD, "f32", 1}, {ADD, "f64", 1},
  {ADD, "f16", 1}, {ADD, "bf16", 1}, {ADD, "f32.ftz", 1},
  {MIN, "u32", 1}, {MIN, "s32", 1}, {MIN, "u64", 1}, {MIN, "s64", 1}, {MIN, "f16", 1}, {MIN, "bf16", 1},
  {MAX, "u32", 1}, {MAX, "s32", 1}, {MAX, "u64", 1}, {MAX, "s64", 1}, {MAX, "f16", 1}, {MAX, "bf16", 1},
  {INC, "u32", 1}, {DEC, "u32", 1},
  {AND, "u32", 1}, {AND, "s32", 1}, {AND, "u64", 1}, {AND, "s64", 1},
  {OR, "u32", 1}, {OR, "s32", 1}, {OR, "u64", 1}, {OR, "s64", 1},
  {XOR, "u32", 1}, {XOR, "s32", 1}, {XOR, "u64", 1}, {XOR, "s64", 1},
  {ADD, "s64", 0}, {ADD, "tf32", 0}, {MIN, "f32", 0}, {MAX, "f64", 0}, {INC, "s32", 0},
  {DEC, "u64", 0}, {AND, "f32", 0}, {ADD, "u16", 0},
};

enum Shape { BIG, ONE_D, SWZ128, SWZ64_3D, ROW32_SWZ128, I2C_4D, I2C_3D, NEG_COORD, I2C_PAD, MISALIGNED };
static const char* kShapeNames[] = {"2d", "1d", "swz128", "3d_swz64", "row32_swz128", "i2c4d", "i2c3d",
                                    "negcoord", "i2c_pad", "misaligned"};

static std::vector<Case> gRed;
static std::vector<std::string> gNames;

static void add_red(int op, const char* ty, int shape) {
  const TypeInfo& t = type_info(ty);
  Case c = {};
  c.mode = RED_TILE;
  c.dtype = t.name;
  c.dt = t.dt;
  c.esize = t.esize;
  c.swz = CU_TENSOR_MAP_SWIZZLE_NONE;
  c.swz_name = "none";
  for (int i = 0; i < 5; ++i) c.estr[i] = 1;
  c.redop = op;
  c.flavor = (op == INC || op == DEC) ? 1 : 0;
  uint32_t e = t.esize;
  switch (shape) {
    case BIG: case NEG_COORD: case MISALIGNED:
      // 32 x 16 box over the bottom edge: rows 8..19 in the tensor, 20..23 outside.
      c.rank = 2; c.dims[0] = 32; c.dims[1] = 20; c.box[0] = 32; c.box[1] = 16;
      c.coords[0] = 0; c.coords[1] = 8;
      if (shape == NEG_COORD) c.coords[1] = -2;
      if (shape == MISALIGNED) { c.dims[0] = 64; c.coords[0] = 8 / e + (e < 8 ? 1 : 0); c.box[0] = 16; }
      break;
    case ONE_D:
      c.rank = 1; c.dims[0] = 100; c.box[0] = 32; c.coords[0] = 80;
      break;
    case SWZ128: {
      uint32_t inner = 128 / e;
      c.rank = 2; c.dims[0] = inner + inner / 2; c.dims[1] = 12; c.box[0] = inner; c.box[1] = 8;
      c.coords[0] = inner / 2; c.coords[1] = 2;
      c.swz = CU_TENSOR_MAP_SWIZZLE_128B; c.swz_name = "128B";
      break;
    }
    case SWZ64_3D: {
      uint32_t inner = 64 / e;
      c.rank = 3; c.dims[0] = 2 * inner; c.dims[1] = 6; c.dims[2] = 3;
      c.box[0] = inner; c.box[1] = 4; c.box[2] = 2;
      c.coords[0] = inner; c.coords[1] = 3; c.coords[2] = 2;
      c.swz = CU_TENSOR_MAP_SWIZZLE_64B; c.swz_name = "64B"; c.smem_off = 128;
      break;
    }
    case ROW32_SWZ128: {
      uint32_t inner = 32 / e;
      c.rank = 2; c.dims[0] = 3 * inner; c.dims[1] = 10; c.box[0] = inner; c.box[1] = 8;
      c.coords[0] = inner; c.coords[1] = 5;
      c.swz = CU_TENSOR_MAP_SWIZZLE_128B; c.swz_name = "128B";
      break;
    }
    case I2C_4D: case I2C_PAD:
      // NHWC, 32-byte pixels, 40 pixels from (w 4, h 3) of image 0 into image 1.
      c.mode = RED_IM2COL; c.rank = 4; c.channels = 32 / e; c.pixels = 40;
      c.dims[0] = c.channels; c.dims[1] = 7; c.dims[2] = 5; c.dims[3] = 2;
      c.coords[1] = 4; c.coords[2] = 3;
      c.swz = CU_TENSOR_MAP_SWIZZLE_32B; c.swz_name = "32B";
      if (shape == I2C_PAD) { c.lower[0] = c.lower[1] = -1; c.upper[0] = c.upper[1] = -1; }
      break;
    case I2C_3D:
      // NWC, 64-byte pixels, corners 0: 24 pixels from w 2 of image 0 through images 1 and 2.
      c.mode = RED_IM2COL; c.rank = 3; c.channels = 64 / e; c.pixels = 24;
      c.dims[0] = c.channels; c.dims[1] = 10; c.dims[2] = 3;
      c.lower[0] = 0; c.upper[0] = 0; c.coords[1] = 2;
      break;
  }
  if (c.mode == RED_IM2COL) c.expect = c.channels * c.pixels * e;
  else {
    uint32_t n = 1;
    for (int i = 0; i < c.rank; ++i) n *= c.box[i];
    c.expect = n * e;
  }
  gNames.push_back(std::string("red_") + kRedOps[op] + "_" + ty + "_" + kShapeNames[shape]);
  gRed.push_back(c);
}

// Every pair on the 2-D edge box; each legal pair also on one more shape, in turn; then the
// shapes whose stores fault (negative coordinate, im2col padding corners) and a box that does
// not start 16-byte aligned.
static void make_red_cases() {
  const int extra[] = {ONE_D, SWZ128, SWZ64_3D, ROW32_SWZ128, I2C_4D, I2C_3D};
  int j = 0;
  for (const Pair& p : kPairs) {
    add_red(p.op, p.ty, BIG);
    if (p.legal) add_red(p.op, p.ty, extra[j++ % 6]);
  }
  add_red(ADD, "f32", NEG_COORD);
  add_red(ADD, "f16", I2C_PAD);
  add_red(ADD, "u32", MISALIGNED);
  for (size_t i = 0; i < gRed.size(); ++i) gRed[i].name = gNames[i].c_str();
}

// Non-tensor bulk reductions: every (op, type) that ptxas 13.5 accepts for sm_90a.
#define BULK_G(X) X(0, "add.u32") X(1, "add.s32") X(2, "add.u64") X(3, "add.f32") X(4, "add.f64") \
  X(5, "add.noftz.f16") X(6, "add.noftz.bf16") X(7, "min.u32") X(8, "min.s32") X(9, "min.u64")     \
  X(10, "min.s64") X(11, "min.f16") X(12, "min.bf16") X(13, "max.u32") X(14, "max.s32")             \
  X(15, "max.u64") X(16, "max.s64") X(17, "max.f16") X(18, "max.bf16") X(19, "inc.u32")             \
  X(20, "dec.u32") X(21, "and.b32") X(22, "and.b64") X(23, "or.b32") X(24, "or.b64")                \
  X(25, "xor.b32") X(26, "xor.b64")
#define BULK_C(X) X(0, "add.u32") X(1, "add.s32") X(2, "add.u64") X(3, "min.u32") X(4, "min.s32")  \
  X(5, "max.u32") X(6, "max.s32") X(7, "inc.u32") X(8, "dec.u32") X(9, "and.b32") X(10, "or.b32")   \
  X(11, "xor.b32")
#define NAME_OF(i, s) s,
static const char* kBulkG[] = {BULK_G(NAME_OF)};
static const char* kBulkC[] = {BULK_C(NAME_OF)};
static const int kNumBulkG = sizeof(kBulkG) / sizeof(kBulkG[0]);
static const int kNumBulkC = sizeof(kBulkC) / sizeof(kBulkC[0]);
static const uint32_t kBulkSize = 512;  // bytes reduced
static const uint32_t kBulkDstOff = 256;  // into a 1024-byte destination buffer

// Cluster-launch probes of the .shared::cluster form (which faults in a plain launch): the
// destination is the CTA's own shared memory (or, probe 1, CTA 1's, whose mbarrier receives
// the complete-tx), addressed through mapa or with the plain shared::cta address, in a launch
// with a cluster of 1 or 2 CTAs or without one; `copy` is the plain
// cp.async.bulk.shared::cluster.shared::cta (a control).
struct Probe { const char* name; int cluster; int mapa; int reduce; };
static const Probe kProbes[] = {
  {"cluster1_self_mapa_add.u32", 1, 1, 1}, {"cluster2_peer_mapa_add.u32", 2, 1, 1},
  {"plain_self_copy", 0, 0, 0}, {"cluster1_self_nomapa_add.u32", 1, 0, 1},
  {"plain_self_mapa_add.u32", 0, 1, 1}, {"plain_self_mapa_copy", 0, 1, 0},
};
static const int kNumProbes = sizeof(kProbes) / sizeof(kProbes[0]);

static int num_cases() { return kNumTable + (int)gRed.size() + kNumBulkG + kNumBulkC + kNumProbes; }

// ---- input values: random bits mixed with each type's specials ----
static uint64_t gRng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd() {
  uint64_t z = (gRng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// NaN payloads (quiet, signalling, negative), ±0, ±inf, the smallest and largest subnormals,
// the smallest normal, the largest finite values, ±1.
static const uint64_t kSpF16[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0x7D00, 0xFE01, 0x7FFF, 0x0001,
                                  0x83FF, 0x0200, 0x0400, 0x8400, 0x7BFF, 0xFBFF, 0x3C00, 0xBC00};
static const uint64_t kSpBF16[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0x7FA0, 0xFFC1, 0x7FFF, 0x0001,
                                   0x807F, 0x0040, 0x0080, 0x8080, 0x7F7F, 0xFF7F, 0x3F80, 0xBF80};
static const uint64_t kSpF32[] = {0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00000,
                                  0xFFC00001, 0x7FFFFFFF, 0x00000001, 0x807FFFFF, 0x00400000, 0x00800000,
                                  0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000};
static const uint64_t kSpF64[] = {0x0ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
                                  0x7FF8000000000000ull, 0x7FF4000000000000ull, 0xFFF8000000000001ull,
                                  0x7FFFFFFFFFFFFFFFull, 0x1ull, 0x800FFFFFFFFFFFFFull, 0x0008000000000000ull,
                                  0x0010000000000000ull, 0x8010000000000000ull, 0x7FEFFFFFFFFFFFFFull,
                                  0xFFEFFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0xBFF0000000000000ull};
static const uint64_t kSpInt[] = {0, 1, 2, ~0ull, ~1ull, 0x7FFFFFFFull, 0x80000000ull, 0xFFFFFFFFull,
                                  0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, 0x100000000ull};
#define PICK(a) a[rnd() % (sizeof(a) / sizeof(a[0]))]

// One element of a float format with `mant` mantissa bits and `ebits` exponent bits: a special
// (3 in 8), a value near the subnormal range (1 in 8), else one near 1 (so sums round).
static uint64_t float_bits(int ebits, int mant, const uint64_t* sp, size_t nsp) {
  uint64_t r = rnd();
  uint64_t sign = (r >> 63) & 1;
  uint64_t bias = (1ull << (ebits - 1)) - 1;
  uint64_t m = rnd() & ((1ull << mant) - 1);
  switch (r % 8) {
    case 0: case 1: case 2: return sp[(r >> 8) % nsp];
    case 3: return (sign << (ebits + mant)) | (((r >> 8) % 3 + 1) << mant) | m;
    default: return (sign << (ebits + mant)) | ((bias - 6 + (r >> 8) % 12) << mant) | m;
  }
}

static void gen_values(uint8_t* out, size_t bytes, const char* ty, int flavor) {
  int esize = !strcmp(ty, "f16") || !strcmp(ty, "bf16") || !strcmp(ty, "u16") ? 2
            : (ty[1] == '6' || !strcmp(ty, "b64")) ? 8 : 4;
  for (size_t i = 0; i + esize <= bytes; i += esize) {
    uint64_t v;
    if (!strcmp(ty, "f16")) v = float_bits(5, 10, kSpF16, 17);
    else if (!strcmp(ty, "bf16")) v = float_bits(8, 7, kSpBF16, 17);
    else if (ty[0] == 'f' && esize == 4) v = float_bits(8, 23, kSpF32, 17);
    else if (!strcmp(ty, "tf32")) v = float_bits(8, 23, kSpF32, 17);
    else if (!strcmp(ty, "f64")) v = float_bits(11, 52, kSpF64, 17);
    else if (flavor == 1) v = rnd() % 4 == 0 ? PICK(kSpInt) : rnd() % 12;
    else v = rnd() % 4 == 0 ? PICK(kSpInt) : rnd();
    memcpy(out + i, &v, esize);  // little-endian: the low bytes
  }
}

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

// Tensor reductions: shared memory holds the recorded source bytes, thread 0 reduces the box
// into global memory and waits for the bulk group.
#define RED_TENSOR(OP)                                                                              \
  if (mode == RED_TILE) {                                                                           \
    switch (rank) {                                                                                 \
      case 1: asm volatile("cp.reduce.async.bulk.tensor.1d.global.shared::cta." OP ".tile.bulk_group [%0, {%1}], [%2];" \
                  ::"l"(m), "r"(c0), "r"(src) : "memory"); break;                                    \
      case 2: asm volatile("cp.reduce.async.bulk.tensor.2d.global.shared::cta." OP ".tile.bulk_group [%0, {%1, %2}], [%3];" \
                  ::"l"(m), "r"(c0), "r"(c1), "r"(src) : "memory"); break;                           \
      case 3: asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta." OP ".tile.bulk_group [%0, {%1, %2, %3}], [%4];" \
                  ::"l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(src) : "memory"); break;                  \
    }                                                                                               \
  } else {                                                                                          \
    switch (rank) {                                                                                 \
      case 3: asm volatile("cp.reduce.async.bulk.tensor.3d.global.shared::cta." OP ".im2col_no_offs.bulk_group [%0, {%1, %2, %3}], [%4];" \
                  ::"l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(src) : "memory"); break;                  \
      case 4: asm volatile("cp.reduce.async.bulk.tensor.4d.global.shared::cta." OP ".im2col_no_offs.bulk_group [%0, {%1, %2, %3, %4}], [%5];" \
                  ::"l"(m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(src) : "memory"); break;         \
    }                                                                                               \
  }

__global__ void tma_red_case(const __grid_constant__ CUtensorMap map, int mode, int rank, int c0, int c1,
                             int c2, int c3, int op, uint32_t dst_off, const uint8_t* src_bytes,
                             uint32_t src_len, uint32_t* info) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint8_t* data = smem + 1024 + dst_off;
  for (uint32_t i = threadIdx.x; i < src_len; i += blockDim.x) data[i] = src_bytes[i];
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (threadIdx.x == 0) {
    uint32_t src = (uint32_t)__cvta_generic_to_shared(data);
    info[1] = src - dst_off;
    const void* m = &map;
    switch (op) {
      case ADD: RED_TENSOR("add") break;
      case MIN: RED_TENSOR("min") break;
      case MAX: RED_TENSOR("max") break;
      case INC: RED_TENSOR("inc") break;
      case DEC: RED_TENSOR("dec") break;
      case AND: RED_TENSOR("and") break;
      case OR: RED_TENSOR("or") break;
      case XOR: RED_TENSOR("xor") break;
    }
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
  }
}

// Non-tensor bulk reductions. `.global`: `size` bytes of shared memory into gdst (bulk group).
// `.shared::cluster`: into the CTA's own shared memory at data + 4096, initialised from `init`,
// completing on an mbarrier; the destination is dumped to `out`.
__global__ void bulk_red_case(int cluster, int k, uint8_t* gdst, const uint8_t* init, const uint8_t* src_bytes,
                              uint32_t size, uint8_t* out, uint32_t* info) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint64_t* mbar = reinterpret_cast<uint64_t*>(smem);
  uint8_t* data = smem + 1024;
  uint8_t* sdst = data + 4096;
  for (uint32_t i = threadIdx.x; i < size; i += blockDim.x) {
    data[i] = src_bytes[i];
    if (cluster) sdst[i] = init[i];
  }
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(mbar);
  uint32_t src = (uint32_t)__cvta_generic_to_shared(data);
  uint32_t dst = (uint32_t)__cvta_generic_to_shared(sdst);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  uint32_t done = 1;
  if (threadIdx.x == 0) {
    if (!cluster) {
      switch (k) {
#define G_CASE(i, s) case i: asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group." s " [%0], [%1], %2;" \
                             ::"l"(gdst), "r"(src), "r"(size) : "memory"); break;
        BULK_G(G_CASE)
      }
      asm volatile("cp.async.bulk.commit_group;");
      asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    } else {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(size));
      switch (k) {
#define C_CASE(i, s) case i: asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes." s " [%0], [%1], %2, [%3];" \
                             ::"r"(dst), "r"(src), "r"(size), "r"(bar) : "memory"); break;
        BULK_C(C_CASE)
      }
      done = 0;
      for (int it = 0; it < 2000000 && !done; ++it) {
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar) : "memory");
      }
      info[0] = done;
    }
  }
  __syncthreads();
  if (cluster) {
    for (uint32_t i = threadIdx.x; i < size; i += blockDim.x) out[i] = sdst[i];
  }
}


__global__ void cluster_probe_case(int cluster, int mapa, int reduce, const uint8_t* init, const uint8_t* src_bytes, uint32_t size,
                                   uint8_t* out, uint32_t* info) {
  extern __shared__ __align__(1024) uint8_t smem[];
  uint64_t* mbar = reinterpret_cast<uint64_t*>(smem);
  uint8_t* data = smem + 1024;
  uint8_t* sdst = data + 4096;
  uint32_t rank = 0;
  if (cluster) asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  uint32_t target = cluster == 2 ? 1 : 0;
  for (uint32_t i = threadIdx.x; i < size; i += blockDim.x) {
    data[i] = src_bytes[i];
    sdst[i] = init[i];
  }
  uint32_t bar = (uint32_t)__cvta_generic_to_shared(mbar);
  uint32_t src = (uint32_t)__cvta_generic_to_shared(data);
  uint32_t dst = (uint32_t)__cvta_generic_to_shared(sdst);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;");
    if (rank == target) asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(size));
  }
  asm volatile("fence.proxy.async.shared::cta;");
  if (cluster) {
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
  } else {
    __syncthreads();
  }
  if (threadIdx.x == 0 && rank == 0) {
    uint32_t rdst = dst, rbar = bar;
    if (mapa) {
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rdst) : "r"(dst), "r"(target));
      asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(rbar) : "r"(bar), "r"(target));
    }
    if (reduce) {
      asm volatile("cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%0], [%1], %2, [%3];"
                   ::"r"(rdst), "r"(src), "r"(size), "r"(rbar) : "memory");
    } else {
      asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   ::"r"(rdst), "r"(src), "r"(size), "r"(rbar) : "memory");
    }
  }
  if (rank == target) {
    uint32_t done = 0;
    for (int it = 0; it < 2000000 && !done; ++it) {
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(bar) : "memory");
    }
    if (threadIdx.x == 0) info[0] = done;
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < size; i += blockDim.x) out[i] = sdst[i];
  }
  if (cluster) asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
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

static EncodeTiled enc_t;
static EncodeIm2col enc_i;
static FILE* man;
static FILE* bin;
static uint64_t bin_off;
static uint8_t* d_out;
static uint32_t* d_info;

// Appends bytes to dumps.bin; returns where they start.
static uint64_t put(const void* p, size_t n) {
  fwrite(p, 1, n, bin);
  uint64_t at = bin_off;
  bin_off += n;
  return at;
}

// A launch error (the hardware faulted): recorded, and the context is dead.
static bool launch_failed() {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) return false;
  fprintf(man, " status=launch_error:%s\n", cudaGetErrorName(e));
  fflush(man);
  return true;
}

// One case of the table or of the generated reductions; 3 when the hardware faulted.
static int run_case(const Case& c) {
  const bool red = c.mode == RED_TILE || c.mode == RED_IM2COL;
  uint64_t strides[4] = {0, 0, 0, 0};
  uint64_t row = (c.dims[0] * c.esize + c.pad + 15) / 16 * 16;
  for (int i = 1; i < c.rank; ++i) strides[i - 1] = i == 1 ? row : strides[i - 2] * c.dims[i - 1];
  uint64_t total = c.rank == 1 ? c.dims[0] * c.esize : strides[c.rank - 2] * c.dims[c.rank - 1];
  std::vector<uint8_t> h(total);
  if (red) gen_values(h.data(), total, c.dtype, c.flavor);
  else for (uint64_t i = 0; i < total; ++i) h[i] = pattern(i);
  uint8_t* d_g;
  CK(cudaMalloc(&d_g, total + 256));
  CK(cudaMemcpy(d_g, h.data(), total, cudaMemcpyHostToDevice));
  CUtensorMap map;
  CUresult r;
  CUtensorMapFloatOOBfill fill = c.nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                                            : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  if (c.mode == TILE || c.mode == STORE_TILE || c.mode == RED_TILE) {
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
  if (red) fprintf(man, " op=%s", kRedOps[c.redop]);
  if (r != CUDA_SUCCESS) {
    fprintf(man, " status=encode_error:%d\n", (int)r);
    fflush(man);
    CK(cudaFree(d_g));
    return 0;
  }
  if (red) {
    // The source spans 4x the box (rows narrower than a swizzle span are spread out).
    uint32_t src_len = 4 * c.expect + 128;
    std::vector<uint8_t> src(src_len);
    gen_values(src.data(), src_len, c.dtype, c.flavor);
    uint8_t* d_src;
    CK(cudaMalloc(&d_src, src_len));
    CK(cudaMemcpy(d_src, src.data(), src_len, cudaMemcpyHostToDevice));
    tma_red_case<<<1, 128, 1024 + c.smem_off + src_len>>>(map, c.mode, c.rank, c.coords[0], c.coords[1],
                                                           c.coords[2], c.coords[3], c.redop, c.smem_off,
                                                           d_src, src_len, d_info);
    if (launch_failed()) return 3;
    std::vector<uint8_t> g(total);
    uint32_t sinfo[2];
    CK(cudaMemcpy(g.data(), d_g, total, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sinfo, d_info, 8, cudaMemcpyDeviceToHost));
    uint64_t init_at = put(h.data(), total);
    uint64_t src_at = put(src.data(), src_len);
    uint64_t dump_at = put(g.data(), total);
    fprintf(man, " status=ok tx_ok=na smem_base=%u init_at=%llu src_at=%llu src_len=%u dump_at=%llu dump_len=%llu\n",
            sinfo[1], (unsigned long long)init_at, (unsigned long long)src_at, src_len,
            (unsigned long long)dump_at, (unsigned long long)total);
    fflush(man);
    CK(cudaFree(d_src));
    CK(cudaFree(d_g));
    return 0;
  }
  if (c.mode == STORE_TILE || c.mode == STORE_IM2COL) {
    // The source spans 4x the box (rows narrower than a swizzle span are spread out).
    uint32_t fill_len = 4 * c.expect + 128;
    tma_store_case<<<1, 128, 1024 + c.smem_off + fill_len>>>(map, c.mode, c.rank, c.coords[0], c.coords[1],
                                                              c.coords[2], c.coords[3], c.coords[4], c.smem_off,
                                                              fill_len, d_info);
    if (launch_failed()) return 3;
    std::vector<uint8_t> g(total);
    uint32_t sinfo[2];
    CK(cudaMemcpy(g.data(), d_g, total, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sinfo, d_info, 8, cudaMemcpyDeviceToHost));
    uint64_t at = put(g.data(), total);
    fprintf(man, " status=ok tx_ok=na smem_base=%u dump_at=%llu dump_len=%llu\n", sinfo[1],
            (unsigned long long)at, (unsigned long long)total);
    fflush(man);
    CK(cudaFree(d_g));
    return 0;
  }
  tma_case<<<1, 128, 1024 + dump_len>>>(map, c.mode, c.rank, c.coords[0], c.coords[1], c.coords[2],
                                        c.coords[3], c.coords[4], (unsigned short)c.offs[0],
                                        (unsigned short)c.offs[1], (unsigned short)c.offs[2], c.smem_off,
                                        c.expect, dump_len, d_out, d_info);
  if (launch_failed()) return 3;
  std::vector<uint8_t> dump(dump_len);
  uint32_t info[2];
  CK(cudaMemcpy(dump.data(), d_out, dump_len, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(info, d_info, 8, cudaMemcpyDeviceToHost));
  uint64_t at = put(dump.data(), dump_len);
  fprintf(man, " status=ok tx_ok=%u smem_base=%u dump_at=%llu dump_len=%u\n", info[0], info[1],
          (unsigned long long)at, dump_len);
  fflush(man);
  CK(cudaFree(d_g));
  return 0;
}

// One non-tensor bulk reduction (`cluster`: the .shared::cluster form); 3 when it faulted.
static int run_bulk(int cluster, int k) {
  const char* opty = cluster ? kBulkC[k] : kBulkG[k];
  std::string op(opty, strchr(opty, '.') - opty);
  const char* ty = strrchr(opty, '.') + 1;
  bool noftz = strstr(opty, ".noftz.") != nullptr;
  // The destination: 1024 bytes (global) of which kBulkSize from kBulkDstOff are reduced, or
  // kBulkSize bytes of shared memory.
  uint32_t dst_len = cluster ? kBulkSize : 1024;
  std::vector<uint8_t> init(dst_len), src(kBulkSize);
  int flavor = (op == "inc" || op == "dec") ? 1 : 0;
  gen_values(init.data(), dst_len, ty, flavor);
  gen_values(src.data(), kBulkSize, ty, flavor);
  uint8_t *d_g, *d_init, *d_src;
  CK(cudaMalloc(&d_g, 1024));
  CK(cudaMalloc(&d_init, 1024));
  CK(cudaMalloc(&d_src, kBulkSize));
  CK(cudaMemcpy(d_g, init.data(), dst_len, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_init, init.data(), dst_len, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_src, src.data(), kBulkSize, cudaMemcpyHostToDevice));
  fprintf(man, "name=%s_%s mode=%s op=%s dtype=%s noftz=%d size=%u dst_off=%u", cluster ? "cluster" : "bulk",
          opty, cluster ? "red_cluster" : "red_bulk", op.c_str(), ty, noftz ? 1 : 0, kBulkSize,
          cluster ? 0 : kBulkDstOff);
  CK(cudaMemset(d_info, 0, 16));
  bulk_red_case<<<1, 128, 1024 + 4096 + kBulkSize>>>(cluster, k, d_g + (cluster ? 0 : kBulkDstOff), d_init,
                                                      d_src, kBulkSize, d_out, d_info);
  if (launch_failed()) return 3;
  std::vector<uint8_t> res(dst_len);
  uint32_t info[2];
  CK(cudaMemcpy(res.data(), cluster ? d_out : d_g, dst_len, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(info, d_info, 8, cudaMemcpyDeviceToHost));
  uint64_t init_at = put(init.data(), dst_len);
  uint64_t src_at = put(src.data(), kBulkSize);
  uint64_t dump_at = put(res.data(), dst_len);
  fprintf(man, " status=ok tx_ok=%s init_at=%llu src_at=%llu src_len=%u dump_at=%llu dump_len=%u\n",
          cluster ? (info[0] ? "1" : "0") : "na", (unsigned long long)init_at, (unsigned long long)src_at,
          kBulkSize, (unsigned long long)dump_at, dst_len);
  fflush(man);
  CK(cudaFree(d_g));
  CK(cudaFree(d_init));
  CK(cudaFree(d_src));
  return 0;
}

// One cluster-launch probe (see kProbeNames); 3 when it faulted.
static int run_probe(int v) {
  const Probe& p = kProbes[v];
  std::vector<uint8_t> init(kBulkSize), src(kBulkSize);
  gen_values(init.data(), kBulkSize, "u32", 0);
  gen_values(src.data(), kBulkSize, "u32", 0);
  uint8_t *d_init, *d_src;
  CK(cudaMalloc(&d_init, kBulkSize));
  CK(cudaMalloc(&d_src, kBulkSize));
  CK(cudaMemcpy(d_init, init.data(), kBulkSize, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_src, src.data(), kBulkSize, cudaMemcpyHostToDevice));
  CK(cudaMemset(d_info, 0, 16));
  fprintf(man, "name=%s mode=red_probe op=%s dtype=u32 size=%u cluster=%d mapa=%d", p.name, p.reduce ? "add" : "copy",
          kBulkSize, p.cluster, p.mapa);
  uint32_t smem = 1024 + 4096 + kBulkSize;
  if (!p.cluster) {
    cluster_probe_case<<<1, 128, smem>>>(0, p.mapa, p.reduce, d_init, d_src, kBulkSize, d_out, d_info);
  } else {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(p.cluster);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = p.cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cudaError_t e = cudaLaunchKernelEx(&cfg, cluster_probe_case, p.cluster, p.mapa, p.reduce, (const uint8_t*)d_init, (const uint8_t*)d_src,
                                       kBulkSize, d_out, d_info);
    if (e != cudaSuccess) {
      fprintf(man, " status=launch_error:%s\n", cudaGetErrorName(e));
      fflush(man);
      return 3;
    }
  }
  if (launch_failed()) return 3;
  std::vector<uint8_t> res(kBulkSize);
  uint32_t info[2];
  CK(cudaMemcpy(res.data(), d_out, kBulkSize, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(info, d_info, 8, cudaMemcpyDeviceToHost));
  uint64_t init_at = put(init.data(), kBulkSize);
  uint64_t src_at = put(src.data(), kBulkSize);
  uint64_t dump_at = put(res.data(), kBulkSize);
  fprintf(man, " status=ok tx_ok=%u init_at=%llu src_at=%llu src_len=%u dump_at=%llu dump_len=%u\n", info[0],
          (unsigned long long)init_at, (unsigned long long)src_at, kBulkSize, (unsigned long long)dump_at,
          kBulkSize);
  fflush(man);
  CK(cudaFree(d_init));
  CK(cudaFree(d_src));
  return 0;
}

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : ".";
  make_red_cases();
  // Without a start index, print the case count.
  if (argc < 3) { printf("%d\n", num_cases()); return 0; }
  void* fn_t = nullptr;
  void* fn_i = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &fn_t, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPoint("cuTensorMapEncodeIm2col", &fn_i, cudaEnableDefault, &q));
  enc_t = (EncodeTiled)fn_t;
  enc_i = (EncodeIm2col)fn_i;
  CK(cudaFuncSetAttribute(tma_case, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  CK(cudaFuncSetAttribute(tma_red_case, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  int start = atoi(argv[2]);
  man = fopen((dir + "/manifest.txt").c_str(), "a");
  bin = fopen((dir + "/dumps.bin").c_str(), "ab");
  if (!man || !bin) { perror("open"); return 1; }
  fseek(bin, 0, SEEK_END);
  bin_off = (uint64_t)ftell(bin);
  CK(cudaMalloc(&d_out, 1 << 20));
  CK(cudaMalloc(&d_info, 16));
  // The generator's stream is a function of the case index alone, whichever process runs it.
  int n = num_cases();
  for (int k = start; k < n; ++k) {
    gRng = 0x9E3779B97F4A7C15ull * (uint64_t)(k + 1);
    int rc;
    if (k < kNumTable) rc = run_case(kCases[k]);
    else if (k < kNumTable + (int)gRed.size()) rc = run_case(gRed[k - kNumTable]);
    else if (k < kNumTable + (int)gRed.size() + kNumBulkG) rc = run_bulk(0, k - kNumTable - (int)gRed.size());
    else if (k < kNumTable + (int)gRed.size() + kNumBulkG + kNumBulkC)
      rc = run_bulk(1, k - kNumTable - (int)gRed.size() - kNumBulkG);
    else rc = run_probe(k - kNumTable - (int)gRed.size() - kNumBulkG - kNumBulkC);
    if (rc == 3) {
      fclose(man);
      fclose(bin);
      printf("next=%d\n", k + 1);
      return 3;
    }
  }
  fclose(man);
  fclose(bin);
  printf("next=%d\n", n);
  return 0;
}
