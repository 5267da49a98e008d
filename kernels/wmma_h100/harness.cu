// H100 recording of nvcc's WMMA API (wmma.load / wmma.mma / wmma.store PTX), replayed through
// tmemu by crates/sim/tests/sim/wmma_h100.rs from this file's PTX
// (tests/corpus/wmma_h100/harness.sm_90a.ptx, committed as .ptx.xz: xz -9e after regenerating).
//
// Two kinds of kernels:
//  - dump kernels (k_frag_*): one warp loads a fragment from a matrix whose element i holds
//    the value i, and writes every lane's fragment elements (x[0..num_elements)) out: the
//    fragment layout the H100 uses (the ISA leaves it opaque), which tmemu reproduces.
//  - mma kernels (k_mma_*): per trial (one CTA of one warp) load A, B, C with strides larger
//    than the tile, D = A*B + C, store D; C and D are stored row- or column-major.
//
// Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu
// PTX:   nvcc -O2 -arch=sm_90a -ptx -o harness.sm_90a.ptx harness.cu
// Run:   ./harness OUTDIR   -> OUTDIR/manifest.txt, OUTDIR/dumps.bin
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <cuda_runtime.h>
using namespace nvcuda;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)

typedef unsigned int u32;
typedef unsigned short u16;
typedef unsigned char u8;

#define TRIALS 4
#define AB 768  // elements of A and of B per trial
#define CD 640  // elements of C and of D per trial
#define PAD 8  // elements added to every leading dimension

// ---- fragment dumps ---------------------------------------------------------------------
// Storage element types: half, __nv_bfloat16, float (tf32 and f32 accumulators).
template <class Use, int M, int N, int K, class T, class S, class L>
__device__ void dump(const S* src, int ld, u32* out) {
  wmma::fragment<Use, M, N, K, T, L> f;
  wmma::load_matrix_sync(f, src, ld);
  for (int i = 0; i < f.num_elements; i++) {
    u32 bits;
    if (sizeof(f.x[0]) == 2) bits = *(const u16*)&f.x[i];
    else bits = *(const u32*)&f.x[i];
    out[threadIdx.x * f.num_elements + i] = bits;
  }
  if (threadIdx.x == 0) out[32 * 16] = f.num_elements;
}
template <int M, int N, int K, class S>
__device__ void dump_acc(const S* src, int ld, wmma::layout_t lay, u32* out) {
  wmma::fragment<wmma::accumulator, M, N, K, S> f;
  wmma::load_matrix_sync(f, src, ld, lay);
  for (int i = 0; i < f.num_elements; i++) {
    u32 bits;
    if (sizeof(f.x[0]) == 2) bits = *(const u16*)&f.x[i];
    else bits = *(const u32*)&f.x[i];
    out[threadIdx.x * f.num_elements + i] = bits;
  }
  if (threadIdx.x == 0) out[32 * 16] = f.num_elements;
}

#define FRAG(NAME, USE, M, N, K, T, S, L) extern "C" __global__ void k_frag_##NAME(const S* src, int ld, u32* out) \
  { dump<wmma::USE, M, N, K, T, S, wmma::L>(src, ld, out); }
#define FRAGC(NAME, M, N, K, S, LAY) extern "C" __global__ void k_frag_##NAME(const S* src, int ld, u32* out) \
  { dump_acc<M, N, K, S>(src, ld, wmma::LAY, out); }

FRAG(a_row_m16n16k16_f16, matrix_a, 16, 16, 16, half, half, row_major)
FRAG(a_col_m16n16k16_f16, matrix_a, 16, 16, 16, half, half, col_major)
FRAG(b_row_m16n16k16_f16, matrix_b, 16, 16, 16, half, half, row_major)
FRAG(b_col_m16n16k16_f16, matrix_b, 16, 16, 16, half, half, col_major)
FRAG(a_row_m32n8k16_f16, matrix_a, 32, 8, 16, half, half, row_major)
FRAG(a_col_m32n8k16_f16, matrix_a, 32, 8, 16, half, half, col_major)
FRAG(b_row_m32n8k16_f16, matrix_b, 32, 8, 16, half, half, row_major)
FRAG(b_col_m32n8k16_f16, matrix_b, 32, 8, 16, half, half, col_major)
FRAG(a_row_m8n32k16_f16, matrix_a, 8, 32, 16, half, half, row_major)
FRAG(a_col_m8n32k16_f16, matrix_a, 8, 32, 16, half, half, col_major)
FRAG(b_row_m8n32k16_f16, matrix_b, 8, 32, 16, half, half, row_major)
FRAG(b_col_m8n32k16_f16, matrix_b, 8, 32, 16, half, half, col_major)
FRAG(a_row_m16n16k16_bf16, matrix_a, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, row_major)
FRAG(b_col_m16n16k16_bf16, matrix_b, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, col_major)
FRAG(a_row_m32n8k16_bf16, matrix_a, 32, 8, 16, __nv_bfloat16, __nv_bfloat16, row_major)
FRAG(b_row_m8n32k16_bf16, matrix_b, 8, 32, 16, __nv_bfloat16, __nv_bfloat16, row_major)
FRAG(a_row_m16n16k8_tf32, matrix_a, 16, 16, 8, wmma::precision::tf32, float, row_major)
FRAG(a_col_m16n16k8_tf32, matrix_a, 16, 16, 8, wmma::precision::tf32, float, col_major)
FRAG(b_row_m16n16k8_tf32, matrix_b, 16, 16, 8, wmma::precision::tf32, float, row_major)
FRAG(b_col_m16n16k8_tf32, matrix_b, 16, 16, 8, wmma::precision::tf32, float, col_major)
FRAGC(c_row_m16n16k16_f32, 16, 16, 16, float, mem_row_major)
FRAGC(c_col_m16n16k16_f32, 16, 16, 16, float, mem_col_major)
FRAGC(c_row_m16n16k16_f16, 16, 16, 16, half, mem_row_major)
FRAGC(c_col_m16n16k16_f16, 16, 16, 16, half, mem_col_major)
FRAGC(c_row_m32n8k16_f32, 32, 8, 16, float, mem_row_major)
FRAGC(c_row_m32n8k16_f16, 32, 8, 16, half, mem_row_major)
FRAGC(c_row_m8n32k16_f32, 8, 32, 16, float, mem_row_major)
FRAGC(c_col_m8n32k16_f16, 8, 32, 16, half, mem_col_major)
FRAGC(c_row_m16n16k8_f32, 16, 16, 8, float, mem_row_major)

// ---- mma: D = A*B + C ---------------------------------------------------------------------
template <int M, int N, int K, class T, class S, class LA, class LB, class C>
__device__ void mma(const S* a, const S* b, const C* c, C* d, int lda, int ldb, int ldc, int ldd,
                    int c_col, int d_col) {
  const int tr = blockIdx.x;
  a += (size_t)tr * AB; b += (size_t)tr * AB; c += (size_t)tr * CD; d += (size_t)tr * CD;
  wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, C> fc;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, ldc, c_col ? wmma::mem_col_major : wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, ldd, d_col ? wmma::mem_col_major : wmma::mem_row_major);
}

#define MMA(NAME, M, N, K, T, S, LA, LB, C) extern "C" __global__ void k_mma_##NAME( \
    const S* a, const S* b, const C* c, C* d, int lda, int ldb, int ldc, int ldd, int c_col, int d_col) \
  { mma<M, N, K, T, S, wmma::LA, wmma::LB, C>(a, b, c, d, lda, ldb, ldc, ldd, c_col, d_col); }

// mixed accumulators (f16 inputs only): C of type CT, D of type DT
template <int M, int N, int K, class LA, class LB, class CT, class DT>
__device__ void mma_mixed(const half* a, const half* b, const CT* c, DT* d, int lda, int ldb, int ldc,
                          int ldd, int c_col, int d_col) {
  const int tr = blockIdx.x;
  a += (size_t)tr * AB; b += (size_t)tr * AB; c += (size_t)tr * CD; d += (size_t)tr * CD;
  wmma::fragment<wmma::matrix_a, M, N, K, half, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, half, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, CT> fc;
  wmma::fragment<wmma::accumulator, M, N, K, DT> fd;
  wmma::load_matrix_sync(fa, a, lda);
  wmma::load_matrix_sync(fb, b, ldb);
  wmma::load_matrix_sync(fc, c, ldc, c_col ? wmma::mem_col_major : wmma::mem_row_major);
  wmma::mma_sync(fd, fa, fb, fc);
  wmma::store_matrix_sync(d, fd, ldd, d_col ? wmma::mem_col_major : wmma::mem_row_major);
}
#define MMAX(NAME, M, N, K, LA, LB, CT, DT) extern "C" __global__ void k_mma_##NAME( \
    const half* a, const half* b, const CT* c, DT* d, int lda, int ldb, int ldc, int ldd, int c_col, int d_col) \
  { mma_mixed<M, N, K, wmma::LA, wmma::LB, CT, DT>(a, b, c, d, lda, ldb, ldc, ldd, c_col, d_col); }
#define MMAX4(SH, M, N, K, CT, DT, TN) \
  MMAX(SH##_row_row_##TN, M, N, K, row_major, row_major, CT, DT) \
  MMAX(SH##_row_col_##TN, M, N, K, row_major, col_major, CT, DT) \
  MMAX(SH##_col_row_##TN, M, N, K, col_major, row_major, CT, DT) \
  MMAX(SH##_col_col_##TN, M, N, K, col_major, col_major, CT, DT)

#define MMA4(SH, M, N, K, T, S, C, TN) \
  MMA(SH##_row_row_##TN, M, N, K, T, S, row_major, row_major, C) \
  MMA(SH##_row_col_##TN, M, N, K, T, S, row_major, col_major, C) \
  MMA(SH##_col_row_##TN, M, N, K, T, S, col_major, row_major, C) \
  MMA(SH##_col_col_##TN, M, N, K, T, S, col_major, col_major, C)

MMA4(m16n16k16, 16, 16, 16, half, half, float, f16_f32)
MMA4(m16n16k16, 16, 16, 16, half, half, half, f16_f16)
MMA4(m32n8k16, 32, 8, 16, half, half, float, f16_f32)
MMA4(m32n8k16, 32, 8, 16, half, half, half, f16_f16)
MMA4(m8n32k16, 8, 32, 16, half, half, float, f16_f32)
MMA4(m8n32k16, 8, 32, 16, half, half, half, f16_f16)
MMA4(m16n16k16, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, bf16_f32)
MMA4(m32n8k16, 32, 8, 16, __nv_bfloat16, __nv_bfloat16, float, bf16_f32)
MMA4(m8n32k16, 8, 32, 16, __nv_bfloat16, __nv_bfloat16, float, bf16_f32)
MMA4(m16n16k8, 16, 16, 8, wmma::precision::tf32, float, float, tf32_f32)
// mix_d<D bits>_c<C bits>: D and C of different types
MMAX4(m16n16k16, 16, 16, 16, half, float, mix_d32_c16)
MMAX4(m16n16k16, 16, 16, 16, float, half, mix_d16_c32)
MMAX4(m32n8k16, 32, 8, 16, half, float, mix_d32_c16)
MMAX4(m32n8k16, 32, 8, 16, float, half, mix_d16_c32)
MMAX4(m8n32k16, 8, 32, 16, half, float, mix_d32_c16)
MMAX4(m8n32k16, 8, 32, 16, float, half, mix_d16_c32)

// ---- host -------------------------------------------------------------------------------

static uint64_t rs = 0x243f6a8885a308d3ull;
static u32 next_rand() {
  rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
  return (u32)((rs * 0x2545f4914f6cdd1dull) >> 32);
}
static float uni() { return (float)(next_rand() >> 8) / 16777216.0f; }  // [0,1)
// A value for trial tr: most trials moderate ([-2,2) with a random exponent spread), some
// wide (exponents over +-20), a few with exact cancellations (small integers).
static float val(int tr) {
  float s = (next_rand() & 1) ? -1.f : 1.f;
  if (tr % 4 == 3) return s * (float)(next_rand() % 5);
  if (tr % 4 == 2) return s * (1.f + uni()) * ldexpf(1.f, (int)(next_rand() % 41) - 20);
  return s * (1.f + uni()) * ldexpf(1.f, (int)(next_rand() % 6) - 5);
}
static u16 f2h(float f) { __half h = __float2half_rn(f); return *(u16*)&h; }
static u16 f2bf(float f) { __nv_bfloat16 h = __float2bfloat16_rn(f); return *(u16*)&h; }

struct Frag { const char* name; const char* use; int m, n, k; const char* type; int esize; const char* layout; int nelem; void* kern; };
#define F(NAME, USE, M, N, K, TY, ES, LAY, NE) {#NAME, USE, M, N, K, TY, ES, LAY, NE, (void*)k_frag_##NAME}
static Frag kFrags[] = {
  F(a_row_m16n16k16_f16, "a", 16, 16, 16, "f16", 2, "row", 16), F(a_col_m16n16k16_f16, "a", 16, 16, 16, "f16", 2, "col", 16),
  F(b_row_m16n16k16_f16, "b", 16, 16, 16, "f16", 2, "row", 16), F(b_col_m16n16k16_f16, "b", 16, 16, 16, "f16", 2, "col", 16),
  F(a_row_m32n8k16_f16, "a", 32, 8, 16, "f16", 2, "row", 16), F(a_col_m32n8k16_f16, "a", 32, 8, 16, "f16", 2, "col", 16),
  F(b_row_m32n8k16_f16, "b", 32, 8, 16, "f16", 2, "row", 16), F(b_col_m32n8k16_f16, "b", 32, 8, 16, "f16", 2, "col", 16),
  F(a_row_m8n32k16_f16, "a", 8, 32, 16, "f16", 2, "row", 16), F(a_col_m8n32k16_f16, "a", 8, 32, 16, "f16", 2, "col", 16),
  F(b_row_m8n32k16_f16, "b", 8, 32, 16, "f16", 2, "row", 16), F(b_col_m8n32k16_f16, "b", 8, 32, 16, "f16", 2, "col", 16),
  F(a_row_m16n16k16_bf16, "a", 16, 16, 16, "bf16", 2, "row", 8), F(b_col_m16n16k16_bf16, "b", 16, 16, 16, "bf16", 2, "col", 8),
  F(a_row_m32n8k16_bf16, "a", 32, 8, 16, "bf16", 2, "row", 16), F(b_row_m8n32k16_bf16, "b", 8, 32, 16, "bf16", 2, "row", 16),
  F(a_row_m16n16k8_tf32, "a", 16, 16, 8, "tf32", 4, "row", 4), F(a_col_m16n16k8_tf32, "a", 16, 16, 8, "tf32", 4, "col", 4),
  F(b_row_m16n16k8_tf32, "b", 16, 16, 8, "tf32", 4, "row", 4), F(b_col_m16n16k8_tf32, "b", 16, 16, 8, "tf32", 4, "col", 4),
  F(c_row_m16n16k16_f32, "c", 16, 16, 16, "f32", 4, "row", 8), F(c_col_m16n16k16_f32, "c", 16, 16, 16, "f32", 4, "col", 8),
  F(c_row_m16n16k16_f16, "c", 16, 16, 16, "f16", 2, "row", 8), F(c_col_m16n16k16_f16, "c", 16, 16, 16, "f16", 2, "col", 8),
  F(c_row_m32n8k16_f32, "c", 32, 8, 16, "f32", 4, "row", 8), F(c_row_m32n8k16_f16, "c", 32, 8, 16, "f16", 2, "row", 8),
  F(c_row_m8n32k16_f32, "c", 8, 32, 16, "f32", 4, "row", 8), F(c_col_m8n32k16_f16, "c", 8, 32, 16, "f16", 2, "col", 8),
  F(c_row_m16n16k8_f32, "c", 16, 16, 8, "f32", 4, "row", 8),
};

// cd: the type of C (and of D unless dt names another)
struct Mma { const char* name; int m, n, k; const char* ab; const char* cd; const char* la; const char* lb; void* kern; const char* dt; };
#define M1X(SH, M, N, K, LA, LB, TN, AB, CD, DT) {#SH "_" #LA "_" #LB "_" #TN, M, N, K, AB, CD, #LA, #LB, (void*)k_mma_##SH##_##LA##_##LB##_##TN, DT}
#define M1(SH, M, N, K, LA, LB, TN, AB, CD) M1X(SH, M, N, K, LA, LB, TN, AB, CD, CD)
#define M4(SH, M, N, K, TN, AB, CD) M1(SH, M, N, K, row, row, TN, AB, CD), M1(SH, M, N, K, row, col, TN, AB, CD), \
  M1(SH, M, N, K, col, row, TN, AB, CD), M1(SH, M, N, K, col, col, TN, AB, CD)
#define M4X(SH, M, N, K, TN, CD, DT) M1X(SH, M, N, K, row, row, TN, "f16", CD, DT), M1X(SH, M, N, K, row, col, TN, "f16", CD, DT), \
  M1X(SH, M, N, K, col, row, TN, "f16", CD, DT), M1X(SH, M, N, K, col, col, TN, "f16", CD, DT)
static Mma kMmas[] = {
  M4(m16n16k16, 16, 16, 16, f16_f32, "f16", "f32"), M4(m16n16k16, 16, 16, 16, f16_f16, "f16", "f16"),
  M4(m32n8k16, 32, 8, 16, f16_f32, "f16", "f32"), M4(m32n8k16, 32, 8, 16, f16_f16, "f16", "f16"),
  M4(m8n32k16, 8, 32, 16, f16_f32, "f16", "f32"), M4(m8n32k16, 8, 32, 16, f16_f16, "f16", "f16"),
  M4(m16n16k16, 16, 16, 16, bf16_f32, "bf16", "f32"), M4(m32n8k16, 32, 8, 16, bf16_f32, "bf16", "f32"),
  M4(m8n32k16, 8, 32, 16, bf16_f32, "bf16", "f32"), M4(m16n16k8, 16, 16, 8, tf32_f32, "tf32", "f32"),
  M4X(m16n16k16, 16, 16, 16, mix_d32_c16, "f16", "f32"), M4X(m16n16k16, 16, 16, 16, mix_d16_c32, "f32", "f16"),
  M4X(m32n8k16, 32, 8, 16, mix_d32_c16, "f16", "f32"), M4X(m32n8k16, 32, 8, 16, mix_d16_c32, "f32", "f16"),
  M4X(m8n32k16, 8, 32, 16, mix_d32_c16, "f16", "f32"), M4X(m8n32k16, 8, 32, 16, mix_d16_c32, "f32", "f16"),
};

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : ".";
  char path[4096];
  snprintf(path, sizeof path, "%s/manifest.txt", dir);
  FILE* man = fopen(path, "w");
  snprintf(path, sizeof path, "%s/dumps.bin", dir);
  FILE* dump = fopen(path, "wb");
  if (!man || !dump) { fprintf(stderr, "cannot write to %s\n", dir); return 1; }
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  fprintf(man, "# tmemu WMMA H100 recording (kernels/wmma_h100/harness.cu) on %s, sm_%d%d\n", prop.name, prop.major, prop.minor);
  fprintf(man, "# frag: kernel k_frag_<name>(src, ld, out), one warp; src element i (ld = cols+%d or rows+%d) holds i; "
               "dump_at: out[32*nelem] u32 (fragment element bits, zero-extended)\n", PAD, PAD);
  fprintf(man, "# mma: kernel k_mma_<name>(a, b, c, d, lda, ldb, ldc, ldd, c_col, d_col), %d CTAs of 32 threads; "
               "per trial a, b: %d elements, c, d: %d; d starts as 0xee bytes; dump_at: a, b, c, d\n", TRIALS, AB, CD);
  long long at = 0;
  for (const Frag& f : kFrags) {
    // num_elements comes back from the kernel; the table's is a cross-check
    int rows = f.use[0] == 'a' ? f.m : f.use[0] == 'b' ? f.k : f.m;
    int cols = f.use[0] == 'a' ? f.k : f.use[0] == 'b' ? f.n : f.n;
    bool col = f.layout[0] == 'c';
    int ld = (col ? rows : cols) + PAD;
    int count = ld * (col ? cols : rows);
    std::vector<u8> src(count * f.esize);
    for (int i = 0; i < count; i++) {
      float v = (float)i;
      if (f.esize == 4) memcpy(&src[i * 4], &v, 4);
      else { u16 h = strcmp(f.type, "bf16") == 0 ? f2bf(v) : f2h(v); memcpy(&src[i * 2], &h, 2); }
    }
    void *dsrc, *dout;
    size_t olen = (32 * 16 + 1) * 4;
    CK(cudaMalloc(&dsrc, src.size())); CK(cudaMalloc(&dout, olen));
    CK(cudaMemcpy(dsrc, src.data(), src.size(), cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xee, olen));
    void* args[] = {&dsrc, &ld, &dout};
    CK(cudaLaunchKernel(f.kern, dim3(1), dim3(32), args, 0, 0));
    CK(cudaDeviceSynchronize());
    std::vector<u8> out(olen);
    CK(cudaMemcpy(out.data(), dout, olen, cudaMemcpyDeviceToHost));
    CK(cudaFree(dsrc)); CK(cudaFree(dout));
    int nelem = (int)*(u32*)&out[32 * 16 * 4];
    if (nelem != f.nelem) printf("%s: num_elements %d (table says %d)\n", f.name, nelem, f.nelem);
    olen = 32 * nelem * 4;
    fwrite(out.data(), 1, olen, dump);
    fprintf(man, "frag=%s use=%s m=%d n=%d k=%d type=%s esize=%d layout=%s nelem=%d ld=%d count=%d dump_at=%lld\n",
            f.name, f.use, f.m, f.n, f.k, f.type, f.esize, f.layout, nelem, ld, count, at);
    at += olen;
  }
  int idx = 0;
  for (const Mma& m : kMmas) {
    int es = strcmp(m.ab, "tf32") == 0 ? 4 : 2, cs = strcmp(m.cd, "f32") == 0 ? 4 : 2;
    int ds = strcmp(m.dt, "f32") == 0 ? 4 : 2;
    size_t na = (size_t)TRIALS * AB, nc = (size_t)TRIALS * CD;
    std::vector<u8> a(na * es), b(na * es), c(nc * cs), d0(nc * ds), d(nc * ds);
    for (int tr = 0; tr < TRIALS; tr++) {
      for (int i = 0; i < AB; i++) {
        size_t j = (size_t)tr * AB + i;
        float x = val(tr), y = val(tr);
        if (es == 4) { u32 bx, by; memcpy(&bx, &x, 4); memcpy(&by, &y, 4);
          if (tr % 4 != 1) { bx ^= next_rand() & 0x1fff; by ^= next_rand() & 0x1fff; }  // low bits tf32 drops
          memcpy(&a[j * 4], &bx, 4); memcpy(&b[j * 4], &by, 4); }
        else if (strcmp(m.ab, "bf16") == 0) { u16 hx = f2bf(x), hy = f2bf(y); memcpy(&a[j * 2], &hx, 2); memcpy(&b[j * 2], &hy, 2); }
        else { u16 hx = f2h(x), hy = f2h(y); memcpy(&a[j * 2], &hx, 2); memcpy(&b[j * 2], &hy, 2); }
      }
      for (int i = 0; i < CD; i++) {
        size_t j = (size_t)tr * CD + i;
        float z = val(tr) * 4.f;
        if (cs == 4) memcpy(&c[j * 4], &z, 4); else { u16 h = f2h(z); memcpy(&c[j * 2], &h, 2); }
        memset(&d0[j * ds], 0xee, ds);
      }
    }
    int rowsA = m.m, colsA = m.k, rowsB = m.k, colsB = m.n;
    int lda = (m.la[0] == 'r' ? colsA : rowsA) + PAD, ldb = (m.lb[0] == 'r' ? colsB : rowsB) + PAD;
    int c_col = idx & 1, d_col = (idx >> 1) & 1;
    int ldc = (c_col ? m.m : m.n) + PAD, ldd = (d_col ? m.m : m.n) + PAD + 4;
    idx++;
    void *da, *db, *dc, *dd;
    CK(cudaMalloc(&da, a.size())); CK(cudaMalloc(&db, b.size())); CK(cudaMalloc(&dc, c.size())); CK(cudaMalloc(&dd, d.size()));
    CK(cudaMemcpy(da, a.data(), a.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), b.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, c.data(), c.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dd, d0.data(), d0.size(), cudaMemcpyHostToDevice));
    void* args[] = {&da, &db, &dc, &dd, &lda, &ldb, &ldc, &ldd, &c_col, &d_col};
    CK(cudaLaunchKernel(m.kern, dim3(TRIALS), dim3(32), args, 0, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(d.data(), dd, d.size(), cudaMemcpyDeviceToHost));
    CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc)); CK(cudaFree(dd));
    fwrite(a.data(), 1, a.size(), dump); fwrite(b.data(), 1, b.size(), dump);
    fwrite(c.data(), 1, c.size(), dump); fwrite(d.data(), 1, d.size(), dump);
    fprintf(man, "mma=%s m=%d n=%d k=%d ab=%s cd=%s la=%s lb=%s lda=%d ldb=%d ldc=%d ldd=%d c_col=%d d_col=%d trials=%d dump_at=%lld dt=%s\n",
            m.name, m.m, m.n, m.k, m.ab, m.cd, m.la, m.lb, lda, ldb, ldc, ldd, c_col, d_col, TRIALS, at, m.dt);
    at += a.size() + b.size() + c.size() + d.size();
  }
  fclose(man); fclose(dump);
  printf("%d frags, %d mmas\n", (int)(sizeof kFrags / sizeof kFrags[0]), idx);
  return 0;
}
