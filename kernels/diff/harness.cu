// H100 differential-test harness: runs every PTX instruction form of cases.h (and a few
// engine-level kernels: shuffles, atomics, mbarrier + cp.async.bulk) on deterministic inputs and
// records inputs and outputs, so tmemu's arithmetic (crates/num) and later its engine can be
// compared bit for bit with real hardware without a GPU.
//
// Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu
// Run:   ./harness OUTDIR     -> OUTDIR/manifest.json, OUTDIR/inputs.bin, OUTDIR/outputs.bin
//
// Layout: inputs.bin holds, for each input class in manifest order, 4 columns (a, b, c, d) of
// N little-endian u64 each. outputs.bin holds, for each case in manifest order, N words of
// `width` bytes (4 or 8), little endian.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#include "cases.h"

constexpr int N = 2048;  // rows per class = threads per case
constexpr int BLOCK = 128;

enum InputClass { U32, U64, F32, F32T, F64, H16, BH16, F32SP, F64SP, NUM_CLASSES };
static const char* kClassNames[NUM_CLASSES] = {"u32", "u64", "f32", "f32t", "f64", "f16x2", "bf16x2",
                                                "f32sp", "f64sp"};

// ---------------------------------------------------------------------------------------------
// The arithmetic kernel: one launch per case; `cid` picks the row of the case table.

#define DO_R(s, ...) { uint32_t r_; asm(s : "=r"(r_) : __VA_ARGS__); o = r_; }
#define DO_L(s, ...) { uint64_t r_; asm(s : "=l"(r_) : __VA_ARGS__); o = r_; }
#define DO_F(s, ...) { float r_; asm(s : "=f"(r_) : __VA_ARGS__); o = __float_as_uint(r_); }
#define DO_D(s, ...) { double r_; asm(s : "=d"(r_) : __VA_ARGS__); o = (uint64_t)__double_as_longlong(r_); }
#define DO_H(s, ...) { unsigned short r_; asm(s : "=h"(r_) : __VA_ARGS__); o = r_; }

#define WIDTH_R 4
#define WIDTH_L 8
#define WIDTH_F 4
#define WIDTH_D 8
#define WIDTH_H 4

__global__ void diff_arith(int cid, const uint64_t* __restrict__ in, void* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t A = in[i], B = in[n + i], C = in[2 * n + i], D = in[3 * n + i];
  const uint32_t a32 = (uint32_t)A, b32 = (uint32_t)B, c32 = (uint32_t)C, d32 = (uint32_t)D;
  const unsigned short ha = (unsigned short)a32, hb = (unsigned short)b32, hc = (unsigned short)c32;
  const float fa = __uint_as_float(a32), fb = __uint_as_float(b32), fc = __uint_as_float(c32);
  const double da = __longlong_as_double((long long)A), db = __longlong_as_double((long long)B),
               dc = __longlong_as_double((long long)C);
  (void)hc; (void)fc; (void)dc; (void)D;
  uint64_t o = 0;
  int k = 0;
#define X(name, cls, kind, s, ...) \
  if (cid == k) DO_##kind(s, __VA_ARGS__) \
  k++;
  ALL_CASES(X)
#undef X
  bool wide = false;
  int kk = 0;
#define X(name, cls, kind, s, ...) \
  if (cid == kk) wide = (WIDTH_##kind == 8); \
  kk++;
  ALL_CASES(X)
#undef X
  if (wide) ((uint64_t*)out)[i] = o;
  else ((uint32_t*)out)[i] = (uint32_t)o;
}

// The same cases as one kernel each, for emulators that load a kernel only when they model
// every instruction in it: `nvcc -DDIFF_CASE_KERNELS -arch=sm_90a -ptx` gives entries
// diff_case<K>(in, out, n) (mangled _Z9diff_caseILi<K>EEvPKmPvi), one per manifest case K, that
// compute exactly what diff_arith(K, in, out, n) computes.
#ifdef DIFF_CASE_KERNELS
template <int K>
__global__ void diff_case(const uint64_t* __restrict__ in, void* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t A = in[i], B = in[n + i], C = in[2 * n + i], D = in[3 * n + i];
  const uint32_t a32 = (uint32_t)A, b32 = (uint32_t)B, c32 = (uint32_t)C, d32 = (uint32_t)D;
  const unsigned short ha = (unsigned short)a32, hb = (unsigned short)b32, hc = (unsigned short)c32;
  const float fa = __uint_as_float(a32), fb = __uint_as_float(b32), fc = __uint_as_float(c32);
  const double da = __longlong_as_double((long long)A), db = __longlong_as_double((long long)B),
               dc = __longlong_as_double((long long)C);
  (void)hc; (void)fc; (void)dc; (void)D; (void)hb; (void)fb; (void)db; (void)ha; (void)fa;
  (void)da; (void)a32; (void)b32; (void)c32; (void)d32;
  uint64_t o = 0;
  bool wide = false;
  int k = 0;
#define X(name, cls, kind, s, ...) \
  if (K == k) { DO_##kind(s, __VA_ARGS__) wide = (WIDTH_##kind == 8); } \
  k++;
  ALL_CASES(X)
#undef X
  if (wide) ((uint64_t*)out)[i] = o;
  else ((uint32_t*)out)[i] = (uint32_t)o;
}
template <int... Ks>
void* const* case_kernel_table(std::integer_sequence<int, Ks...>) {
  static void* const table[] = {(void*)&diff_case<Ks>...};
  return table;
}
#define X(name, cls, kind, s, ...) +1
constexpr int kNumArithCases = 0 ALL_CASES(X);
#undef X
// Taking every instantiation's address makes nvcc emit all of them.
void* const* const kCaseKernels = case_kernel_table(std::make_integer_sequence<int, kNumArithCases>{});
#endif

// ---------------------------------------------------------------------------------------------
// Engine-level kernels. Each writes one u32 (or u64) per thread; all take the class's columns.

// Shuffles: value a, lane/delta b; output = value | (predicate << 32).
__global__ void diff_shfl(int mode, const uint64_t* __restrict__ in, uint64_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t a = (uint32_t)in[i], b = (uint32_t)in[n + i] & 63u;
  uint32_t d = 0, p = 0;
  switch (mode) {
    case 0: asm volatile("{.reg .pred q; shfl.sync.idx.b32 %0|q, %2, %3, 0x1f, 0xffffffff; selp.u32 %1, 1, 0, q;}" : "=r"(d), "=r"(p) : "r"(a), "r"(b)); break;
    case 1: asm volatile("{.reg .pred q; shfl.sync.up.b32 %0|q, %2, %3, 0x0, 0xffffffff; selp.u32 %1, 1, 0, q;}" : "=r"(d), "=r"(p) : "r"(a), "r"(b)); break;
    case 2: asm volatile("{.reg .pred q; shfl.sync.down.b32 %0|q, %2, %3, 0x1f, 0xffffffff; selp.u32 %1, 1, 0, q;}" : "=r"(d), "=r"(p) : "r"(a), "r"(b)); break;
    case 3: asm volatile("{.reg .pred q; shfl.sync.bfly.b32 %0|q, %2, %3, 0x1f, 0xffffffff; selp.u32 %1, 1, 0, q;}" : "=r"(d), "=r"(p) : "r"(a), "r"(b)); break;
    // Segmented: c = 0x0f1f packs (segmask << 8) | clamp with 16-lane segments.
    case 4: asm volatile("{.reg .pred q; shfl.sync.idx.b32 %0|q, %2, %3, 0x101f, 0xffffffff; selp.u32 %1, 1, 0, q;}" : "=r"(d), "=r"(p) : "r"(a), "r"(b)); break;
    case 5: asm volatile("{.reg .pred q; shfl.sync.down.b32 %0|q, %2, %3, 0x181f, 0xffffffff; selp.u32 %1, 1, 0, q;}" : "=r"(d), "=r"(p) : "r"(a), "r"(b)); break;
  }
  out[i] = (uint64_t)d | ((uint64_t)p << 32);
}
static const char* kShflNames[] = {"shfl.sync.idx.b32 c=0x1f", "shfl.sync.up.b32 c=0x0",
                                   "shfl.sync.down.b32 c=0x1f", "shfl.sync.bfly.b32 c=0x1f",
                                   "shfl.sync.idx.b32 c=0x101f", "shfl.sync.down.b32 c=0x181f"};

// Atomics on shared memory: each thread applies op(b) to word (a & 7) of its block's 8 words
// (initialised to c of thread 0..7 of the block); output = the word's final value. Only ops
// whose final value does not depend on the order are used.
__global__ void diff_atom(int mode, const uint64_t* __restrict__ in, uint32_t* out, int n) {
  __shared__ uint32_t w[8];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t a = (uint32_t)in[i], b = (uint32_t)in[n + i];
  if (threadIdx.x < 8) w[threadIdx.x] = (uint32_t)in[2 * n + blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  uint32_t addr = (uint32_t)__cvta_generic_to_shared(&w[a & 7]);
  uint32_t old;
  switch (mode) {
    case 0: asm volatile("atom.shared.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(b) : "memory"); break;
    case 1: asm volatile("atom.shared.min.s32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(b) : "memory"); break;
    case 2: asm volatile("atom.shared.max.u32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(b) : "memory"); break;
    case 3: asm volatile("atom.shared.and.b32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(b | 0x01010101u) : "memory"); break;
    case 4: asm volatile("atom.shared.or.b32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(b & 0x80808080u) : "memory"); break;
    case 5: asm volatile("atom.shared.xor.b32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(b) : "memory"); break;
    // Own word only: cas(word[tid & 7] of this thread if tid < 8), deterministic.
    case 6: {
      uint32_t own = (uint32_t)__cvta_generic_to_shared(&w[threadIdx.x & 7]);
      if (threadIdx.x < 8)
        asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(old) : "r"(own), "r"(a & 1 ? w[threadIdx.x] : b), "r"(b) : "memory");
      break;
    }
  }
  (void)old;
  __syncthreads();
  out[i] = w[a & 7];
}
static const char* kAtomNames[] = {"atom.shared.add.u32", "atom.shared.min.s32", "atom.shared.max.u32",
                                   "atom.shared.and.b32 b|0x01010101", "atom.shared.or.b32 b&0x80808080",
                                   "atom.shared.xor.b32", "atom.shared.cas.b32 own"};

// mbarrier + cp.async.bulk: thread 0 initialises an mbarrier (count 1), arms it with the bytes
// of the block's slice of column a, and issues a bulk copy global -> shared completing on it;
// every thread waits for phase 0, then reads its word. Output: the word, and in the upper half
// bit 0 = test_wait.parity(0) (phase 0 done), bit 1 = test_wait.parity(1), bit 2 = the
// try_wait result that ended the wait loop.
__global__ void diff_bulk(const uint64_t* __restrict__ in, uint64_t* out, int n) {
  __shared__ alignas(128) uint64_t buf[BLOCK];
  __shared__ alignas(8) uint64_t bar;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t bar_s = (uint32_t)__cvta_generic_to_shared(&bar);
  uint32_t buf_s = (uint32_t)__cvta_generic_to_shared(buf);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar_s) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar_s), "r"(BLOCK * 8) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(buf_s), "l"(in + blockIdx.x * blockDim.x), "r"(BLOCK * 8), "r"(bar_s) : "memory");
  }
  uint32_t done = 0;
  while (!done) {
    asm volatile("{.reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p;}"
                 : "=r"(done) : "r"(bar_s) : "memory");
  }
  uint32_t t0, t1;
  asm volatile("{.reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p;}" : "=r"(t0) : "r"(bar_s) : "memory");
  asm volatile("{.reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 1; selp.u32 %0, 1, 0, p;}" : "=r"(t1) : "r"(bar_s) : "memory");
  uint64_t v = buf[threadIdx.x];
  out[i] = (uint64_t)(uint32_t)v ^ ((uint64_t)(t0 | (t1 << 1) | (done << 2)) << 32) ^ ((v >> 32) << 32);
}

// ---------------------------------------------------------------------------------------------
// Deterministic inputs.

static uint64_t g_state = 0x243f6a8885a308d3ull;
static uint64_t next_u64() {  // splitmix64
  uint64_t z = (g_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static uint32_t below(uint32_t k) { return (uint32_t)(next_u64() % k); }
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint64_t d2u(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static double u2d(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }

static const uint32_t kIntEdges32[] = {0, 1, 2, 3, 7, 8, 15, 16, 31, 32, 33, 63, 64, 255, 256,
  0x7fff, 0x8000, 0xffff, 0x10000, 0x00ffffff, 0x01000000, 0x7fffffff, 0x80000000, 0x80000001,
  0xfffffffe, 0xffffffff, 0xff800000, 0x00800000, 0xdeadbeef, 0x12345678, 0xffff8000, 0xffffff80};
static const uint64_t kIntEdges64[] = {0, 1, 2, 31, 32, 63, 64, 65, 0x7fffffffull, 0x80000000ull,
  0xffffffffull, 0x100000000ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
  0x8000000000000001ull, 0xfffffffffffffffeull, 0xffffffffffffffffull, 0xffffffff80000000ull,
  0x0020000000000000ull, 0x001fffffffffffffull, 0x0020000000000001ull, 0x123456789abcdef0ull};

static const uint32_t kF32Edges[] = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff,
  0x807fffff, 0x00800000, 0x80800000, 0x00800001, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000,
  0x40200000, 0xc0200000, 0x40400000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
  0xffc00000, 0x7f800001, 0x7fa00000, 0x4f000000, 0x4f800000, 0xcf000000, 0x4effffff, 0x5f000000,
  0xdf000000, 0x4b800000, 0x4b000001, 0x3effffff, 0x3f7fffff, 0x477fe000, 0x477ff000, 0x477fefff,
  0x38800000, 0x387fc000, 0x33800000, 0x33000000, 0x43800000, 0x43f00000, 0x437f8000, 0xc3000000,
  0x3e800000, 0x40490fdb, 0x41200000};
static const uint64_t kF64Edges[] = {0, 0x8000000000000000ull, 1, 0x8000000000000001ull,
  0x000fffffffffffffull, 0x0010000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
  0x3fe0000000000000ull, 0x3ff8000000000000ull, 0x4004000000000000ull, 0x7fefffffffffffffull,
  0xffefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
  0xfff8000000000000ull, 0x7ff0000000000001ull, 0x47efffffe0000000ull, 0x47efffff00000000ull,
  0x47effffff0000000ull, 0x3810000000000000ull, 0x36a0000000000000ull, 0x3690000000000000ull,
  0x41e0000000000000ull, 0x41f0000000000000ull, 0xc1e0000000000000ull, 0x43e0000000000000ull,
  0x43f0000000000000ull, 0xc3e0000000000000ull, 0x40effe0000000000ull, 0x40effc0000000000ull,
  0x3ff0000010000000ull, 0x3ff0000030000000ull, 0x3ff0000020000000ull, 0x3ff0000000000001ull};
static const uint16_t kF16Edges[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00,
  0x3800, 0x3e00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01, 0x4000, 0x4900, 0xc900};
static const uint16_t kBF16Edges[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x0080, 0x3f80, 0xbf80,
  0x3f00, 0x3fc0, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0x4000, 0x4120, 0xc120};

template <class T, size_t K> static T pick(const T (&arr)[K]) { return arr[below(K)]; }

static uint64_t gen_int(bool wide, int col) {
  uint32_t r = below(8);
  uint64_t v;
  if (r < 2) v = wide ? pick(kIntEdges64) : pick(kIntEdges32);
  else v = next_u64();
  // Columns b, c and d also carry small values: shift amounts, positions, lengths, offsets.
  if (col == 1 && below(2) == 0) v = below(72);
  if (col == 2 && below(3) == 0) v = (uint64_t)(int64_t)((int32_t)below(340) - 40);
  if (col == 3 && below(4) == 0) v = below(300);
  if (!wide) v &= 0xffffffffull;
  return v;
}
static uint32_t gen_f32(uint32_t a_bits, int col) {
  uint32_t r = below(16);
  if (r < 3) return pick(kF32Edges);
  if (r < 6) return (uint32_t)next_u64();
  if (r < 8) {  // small integers and halves: rounding ties for cvt and directed modes
    int k = (int)below(257) - 128;
    return f2u(k * 0.5f);
  }
  if (r < 10 && col > 0) {  // near -a or near a: cancellation, ties
    float a = u2f(a_bits);
    uint32_t u = f2u(-a) + (uint32_t)((int)below(5) - 2);
    if (below(2)) u ^= 0x80000000u;
    (void)a;
    return u;
  }
  if (r < 12) {  // near the subnormal range
    uint32_t e = below(6);
    return (next_u64() & 0x807fffffu) | (e << 23);
  }
  // moderate exponents, random mantissa
  uint32_t e = 127 - 40 + below(80);
  return (uint32_t)(next_u64() & 0x807fffffu) | (e << 23);
}
static uint32_t gen_f32t(int col) {
  (void)col;
  uint32_t r = below(16);
  if (r < 2) return pick(kF32Edges);
  if (r < 12) { double x = ((double)(next_u64() >> 11) / 9007199254740992.0) * 20.0 - 10.0; return f2u((float)x); }
  if (r < 14) { double x = ((double)(next_u64() >> 11) / 9007199254740992.0) * 200.0 - 100.0; return f2u((float)x); }
  uint32_t e = 127 - 30 + below(40);
  return (uint32_t)(next_u64() & 0x807fffffu) | (e << 23);
}
static uint64_t gen_f64(uint64_t a_bits, int col) {
  uint32_t r = below(16);
  if (r < 3) return pick(kF64Edges);
  if (r < 6) return next_u64();
  if (r < 8) { int k = (int)below(257) - 128; return d2u(k * 0.5); }
  if (r < 10 && col > 0) {
    uint64_t u = d2u(-u2d(a_bits)) + (uint64_t)(int64_t)((int)below(5) - 2);
    if (below(2)) u ^= 0x8000000000000000ull;
    return u;
  }
  if (r < 11) return d2u((double)u2f(gen_f32(0, 0)));  // f32-representable values
  if (r < 12) { uint64_t e = below(6); return (next_u64() & 0x800fffffffffffffull) | (e << 52); }
  if (r < 13) {  // near the f32 subnormal / overflow boundaries for cvt.f32.f64
    uint64_t e = below(2) ? 1023 - 126 - below(30) : 1023 + 126 + below(3);
    return (next_u64() & 0x800fffffffffffffull) | (e << 52);
  }
  uint64_t e = 1023 - 60 + below(120);
  return (next_u64() & 0x800fffffffffffffull) | (e << 52);
}
static uint16_t gen_h(bool bf, int col, uint16_t a) {
  uint32_t r = below(16);
  if (r < 3) return bf ? pick(kBF16Edges) : pick(kF16Edges);
  if (r < 7) return (uint16_t)next_u64();
  if (r < 9 && col > 0) return (uint16_t)((a ^ 0x8000) + (int)below(3) - 1);
  if (bf) { uint32_t e = 127 - 12 + below(24); return (uint16_t)((next_u64() & 0x807f) | (e << 7)); }
  uint32_t e = 15 - 10 + below(20);
  return (uint16_t)((next_u64() & 0x83ff) | (e << 10));
}

static void gen_class(int cls, std::vector<uint64_t>& v) {
  v.assign(4 * N, 0);
  for (int i = 0; i < N; i++) {
    for (int col = 0; col < 4; col++) {
      uint64_t a = v[i];
      uint64_t x = 0;
      switch (cls) {
        case U32: x = gen_int(false, col); break;
        case U64: x = gen_int(true, col); break;
        case F32: x = gen_f32((uint32_t)a, col); break;
        case F32T: x = gen_f32t(col); break;
        case F64: x = gen_f64(a, col); break;
        case F32SP: {  // a x b over the edge list (row-major), c and d cycling
          const size_t K = sizeof(kF32Edges) / sizeof(kF32Edges[0]);
          size_t j = (size_t)i % (K * K);
          x = col == 0 ? kF32Edges[j / K] : col == 1 ? kF32Edges[j % K] : kF32Edges[(i * 7 + col) % K];
          break;
        }
        case F64SP: {
          const size_t K = sizeof(kF64Edges) / sizeof(kF64Edges[0]);
          size_t j = (size_t)i % (K * K);
          x = col == 0 ? kF64Edges[j / K] : col == 1 ? kF64Edges[j % K] : kF64Edges[(i * 7 + col) % K];
          break;
        }
        case H16:
        case BH16: {
          bool bf = cls == BH16;
          uint16_t lo = gen_h(bf, col, (uint16_t)a), hi = gen_h(bf, col, (uint16_t)(a >> 16));
          x = (uint64_t)lo | ((uint64_t)hi << 16);
          break;
        }
      }
      v[col * N + i] = x;
    }
  }
}

// ---------------------------------------------------------------------------------------------

struct CaseInfo { const char* name; int cls; int width; };
static const CaseInfo kCases[] = {
#define X(name, cls, kind, s, ...) {name, cls, WIDTH_##kind},
    ALL_CASES(X)
#undef X
};

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1); } } while (0)

static std::string json_escape(const char* s) {
  std::string o;
  for (; *s; s++) { if (*s == '"' || *s == '\\') o += '\\'; o += *s; }
  return o;
}

int main(int argc, char** argv) {
  if (argc < 2) { fprintf(stderr, "usage: %s OUTDIR\n", argv[0]); return 2; }
  std::string dir = argv[1];
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  fprintf(stderr, "device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);

  std::vector<uint64_t> inputs[NUM_CLASSES];
  for (int c = 0; c < NUM_CLASSES; c++) gen_class(c, inputs[c]);

  uint64_t* d_in; void* d_out;
  CK(cudaMalloc(&d_in, 4 * N * sizeof(uint64_t)));
  CK(cudaMalloc(&d_out, N * sizeof(uint64_t)));

  FILE* fin = fopen((dir + "/inputs.bin").c_str(), "wb");
  FILE* fout = fopen((dir + "/outputs.bin").c_str(), "wb");
  if (!fin || !fout) { perror("open output"); return 1; }
  std::string man = "{\n  \"format\": \"tmemu-diff-1\",\n  \"device\": \"" + json_escape(prop.name) +
                    "\",\n  \"n\": " + std::to_string(N) + ",\n  \"classes\": [\n";
  for (int c = 0; c < NUM_CLASSES; c++) {
    fwrite(inputs[c].data(), 8, 4 * N, fin);
    man += std::string("    {\"name\": \"") + kClassNames[c] + "\", \"offset\": " +
           std::to_string((uint64_t)c * 4 * N * 8) + "}" + (c + 1 < NUM_CLASSES ? ",\n" : "\n");
  }
  man += "  ],\n  \"cases\": [\n";
  uint64_t off = 0;
  std::vector<uint64_t> host(N);
  bool first = true;
  auto record = [&](const char* kernel, const char* name, int cls, int width) {
    fwrite(host.data(), 1, (size_t)width * N, fout);
    man += std::string(first ? "" : ",\n") + "    {\"kernel\": \"" + kernel + "\", \"name\": \"" +
           json_escape(name) + "\", \"class\": \"" + kClassNames[cls] + "\", \"width\": " +
           std::to_string(width) + ", \"offset\": " + std::to_string(off) + "}";
    first = false;
    off += (uint64_t)width * N;
  };

  int ncases = sizeof(kCases) / sizeof(kCases[0]);
  for (int k = 0; k < ncases; k++) {
    const CaseInfo& ci = kCases[k];
    CK(cudaMemcpy(d_in, inputs[ci.cls].data(), 4 * N * 8, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_out, 0, N * 8));
    diff_arith<<<N / BLOCK, BLOCK>>>(k, d_in, d_out, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host.data(), d_out, (size_t)ci.width * N, cudaMemcpyDeviceToHost));
    record("diff_arith", ci.name, ci.cls, ci.width);
  }
  CK(cudaMemcpy(d_in, inputs[U32].data(), 4 * N * 8, cudaMemcpyHostToDevice));
  for (int m = 0; m < 6; m++) {
    diff_shfl<<<N / BLOCK, BLOCK>>>(m, d_in, (uint64_t*)d_out, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host.data(), d_out, (size_t)8 * N, cudaMemcpyDeviceToHost));
    record("diff_shfl", kShflNames[m], U32, 8);
  }
  for (int m = 0; m < 7; m++) {
    diff_atom<<<N / BLOCK, BLOCK>>>(m, d_in, (uint32_t*)d_out, N);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host.data(), d_out, (size_t)4 * N, cudaMemcpyDeviceToHost));
    record("diff_atom", kAtomNames[m], U32, 4);
  }
  CK(cudaMemcpy(d_in, inputs[U64].data(), 4 * N * 8, cudaMemcpyHostToDevice));
  diff_bulk<<<N / BLOCK, BLOCK>>>(d_in, (uint64_t*)d_out, N);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host.data(), d_out, (size_t)8 * N, cudaMemcpyDeviceToHost));
  record("diff_bulk", "cp.async.bulk+mbarrier", U64, 8);

  man += "\n  ]\n}\n";
  fclose(fin);
  fclose(fout);
  FILE* fm = fopen((dir + "/manifest.json").c_str(), "w");
  fputs(man.c_str(), fm);
  fclose(fm);
  fprintf(stderr, "recorded %d arithmetic cases + 14 engine cases, %llu output bytes\n", ncases,
          (unsigned long long)off);
  return 0;
}
