// H100 recording of the float atomics tmemu models in crates/sim/src/exec/atom_{half,vec}.rs:
// the vector forms (sm_90+: red/atom .global .vN .f16/.bf16/.f16x2/.bf16x2 .add/.min/.max
// .noftz, .v2/.v4 .f32 .add), and the scalar .f32 add on global and shared memory (the ISA says
// global flushes subnormals, shared does not) and .f16/.bf16 .add.noftz.
//
// Each case: element words a[i] (memory before) and b[i] (operand), every special value with
// every special value, then xorshift words; thread t applies one instruction to vector t.
// The dump holds, per case, a[], b[], the memory after, and the old values `atom` returned
// (zeros for `red`). crates/sim/tests/sim/atom_h100.rs runs the same instruction through the
// engine and compares bit for bit.
//
// Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu
// Run:   ./harness OUTDIR   -> OUTDIR/manifest.txt (one line per case), OUTDIR/dumps.bin
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)

typedef unsigned short u16;
typedef unsigned int u32;

// ---- kernels: thread t owns vector t (V elements) ----------------------------------------

#define H8(p) "h"(p[0]), "h"(p[1]), "h"(p[2]), "h"(p[3]), "h"(p[4]), "h"(p[5]), "h"(p[6]), "h"(p[7])

__global__ void red_v8_f16_add(u16* m, const u16* b, u16*, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  const u16* p = b + 8 * t;
  asm volatile("red.global.gpu.relaxed.add.noftz.v8.f16 [%0], {%1,%2,%3,%4,%5,%6,%7,%8};"
               :: "l"(m + 8 * t), H8(p) : "memory");
}
__global__ void red_v8_bf16_add(u16* m, const u16* b, u16*, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  const u16* p = b + 8 * t;
  asm volatile("red.global.gpu.relaxed.add.noftz.v8.bf16 [%0], {%1,%2,%3,%4,%5,%6,%7,%8};"
               :: "l"(m + 8 * t), H8(p) : "memory");
}

#define ATOM_V2_16(NAME, INSTR) \
__global__ void NAME(u16* m, const u16* b, u16* o, int n) { \
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return; \
  u16 d0, d1; \
  asm volatile(INSTR " {%0,%1}, [%2], {%3,%4};" : "=h"(d0), "=h"(d1) \
               : "l"(m + 2 * t), "h"(b[2 * t]), "h"(b[2 * t + 1]) : "memory"); \
  o[2 * t] = d0; o[2 * t + 1] = d1; }
ATOM_V2_16(atom_v2_f16_min, "atom.global.v2.f16.min.noftz")
ATOM_V2_16(atom_v2_f16_max, "atom.global.v2.f16.max.noftz")
ATOM_V2_16(atom_v2_bf16_min, "atom.global.v2.bf16.min.noftz")
ATOM_V2_16(atom_v2_bf16_max, "atom.global.v2.bf16.max.noftz")
ATOM_V2_16(atom_v2_f16_add, "atom.global.v2.f16.add.noftz")

#define ATOM_V2_32(NAME, INSTR) \
__global__ void NAME(u32* m, const u32* b, u32* o, int n) { \
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return; \
  u32 d0, d1; \
  asm volatile(INSTR " {%0,%1}, [%2], {%3,%4};" : "=r"(d0), "=r"(d1) \
               : "l"(m + 2 * t), "r"(b[2 * t]), "r"(b[2 * t + 1]) : "memory"); \
  o[2 * t] = d0; o[2 * t + 1] = d1; }
ATOM_V2_32(atom_v2_f16x2_min, "atom.global.v2.f16x2.min.noftz")
ATOM_V2_32(atom_v2_f16x2_max, "atom.global.v2.f16x2.max.noftz")
ATOM_V2_32(atom_v2_bf16x2_min, "atom.global.v2.bf16x2.min.noftz")
ATOM_V2_32(atom_v2_bf16x2_max, "atom.global.v2.bf16x2.max.noftz")
ATOM_V2_32(atom_v2_f32_add, "atom.global.v2.f32.add")

__global__ void red_v4_f32_add(u32* m, const u32* b, u32*, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  const u32* p = b + 4 * t;
  asm volatile("red.global.gpu.relaxed.add.v4.f32 [%0], {%1,%2,%3,%4};"
               :: "l"(m + 4 * t), "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]) : "memory");
}
__global__ void atom_global_f32_add(u32* m, const u32* b, u32* o, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  u32 d;
  asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=r"(d) : "l"(m + t), "r"(b[t]) : "memory");
  o[t] = d;
}
// shared: each thread copies its word in, adds in shared memory, copies it out
__global__ void atom_shared_f32_add(u32* m, const u32* b, u32* o, int n) {
  __shared__ u32 s[256];
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  s[threadIdx.x] = m[t];
  u32 d;
  u32 a = (u32)__cvta_generic_to_shared(&s[threadIdx.x]);
  asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=r"(d) : "r"(a), "r"(b[t]) : "memory");
  o[t] = d;
  m[t] = s[threadIdx.x];
}
__global__ void atom_global_f16_add(u16* m, const u16* b, u16* o, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  u16 d;
  asm volatile("atom.global.add.noftz.f16 %0, [%1], %2;" : "=h"(d) : "l"(m + t), "h"(b[t]) : "memory");
  o[t] = d;
}
__global__ void atom_global_bf16_add(u16* m, const u16* b, u16* o, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  u16 d;
  asm volatile("atom.global.add.noftz.bf16 %0, [%1], %2;" : "=h"(d) : "l"(m + t), "h"(b[t]) : "memory");
  o[t] = d;
}

// PTX ISA 9.4's `.noftz` on `.f32`: subnormals kept on global memory
__global__ void red_v4_f32_add_noftz(u32* m, const u32* b, u32*, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  const u32* p = b + 4 * t;
  asm volatile("red.global.gpu.relaxed.add.noftz.v4.f32 [%0], {%1,%2,%3,%4};"
               :: "l"(m + 4 * t), "r"(p[0]), "r"(p[1]), "r"(p[2]), "r"(p[3]) : "memory");
}
__global__ void atom_global_f32_add_noftz(u32* m, const u32* b, u32* o, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  u32 d;
  asm volatile("atom.global.add.noftz.f32 %0, [%1], %2;" : "=r"(d) : "l"(m + t), "r"(b[t]) : "memory");
  o[t] = d;
}
__global__ void atom_shared_f32_add_noftz(u32* m, const u32* b, u32* o, int n) {
  __shared__ u32 s[256];
  int t = blockIdx.x * blockDim.x + threadIdx.x; if (t >= n) return;
  s[threadIdx.x] = m[t];
  u32 d;
  u32 a = (u32)__cvta_generic_to_shared(&s[threadIdx.x]);
  asm volatile("atom.shared.add.noftz.f32 %0, [%1], %2;" : "=r"(d) : "r"(a), "r"(b[t]) : "memory");
  o[t] = d;
  m[t] = s[threadIdx.x];
}

// ---- cases ---------------------------------------------------------------------------

enum Fmt { F16, BF16, F32 };

struct Case {
  const char* name;  // the instruction, as the Rust test rebuilds it: inst.space.op.vN.type
  const char* inst;  // atom | red
  const char* space; // global | shared
  const char* op;    // add | min | max | add.noftz (.f32, PTX 9.4)
  int vec;           // 1 (scalar), 2, 4, 8
  const char* type;  // f16 bf16 f16x2 bf16x2 f32
  Fmt fmt;
  int esize;         // bytes per element word
  void* kernel;
};

static Case kCases[] = {
  {"red_v8_f16_add", "red", "global", "add", 8, "f16", F16, 2, (void*)red_v8_f16_add},
  {"red_v8_bf16_add", "red", "global", "add", 8, "bf16", BF16, 2, (void*)red_v8_bf16_add},
  {"atom_v2_f16_add", "atom", "global", "add", 2, "f16", F16, 2, (void*)atom_v2_f16_add},
  {"atom_v2_f16_min", "atom", "global", "min", 2, "f16", F16, 2, (void*)atom_v2_f16_min},
  {"atom_v2_f16_max", "atom", "global", "max", 2, "f16", F16, 2, (void*)atom_v2_f16_max},
  {"atom_v2_bf16_min", "atom", "global", "min", 2, "bf16", BF16, 2, (void*)atom_v2_bf16_min},
  {"atom_v2_bf16_max", "atom", "global", "max", 2, "bf16", BF16, 2, (void*)atom_v2_bf16_max},
  {"atom_v2_f16x2_min", "atom", "global", "min", 2, "f16x2", F16, 4, (void*)atom_v2_f16x2_min},
  {"atom_v2_f16x2_max", "atom", "global", "max", 2, "f16x2", F16, 4, (void*)atom_v2_f16x2_max},
  {"atom_v2_bf16x2_min", "atom", "global", "min", 2, "bf16x2", BF16, 4, (void*)atom_v2_bf16x2_min},
  {"atom_v2_bf16x2_max", "atom", "global", "max", 2, "bf16x2", BF16, 4, (void*)atom_v2_bf16x2_max},
  {"red_v4_f32_add", "red", "global", "add", 4, "f32", F32, 4, (void*)red_v4_f32_add},
  {"atom_v2_f32_add", "atom", "global", "add", 2, "f32", F32, 4, (void*)atom_v2_f32_add},
  {"atom_global_f32_add", "atom", "global", "add", 1, "f32", F32, 4, (void*)atom_global_f32_add},
  {"atom_shared_f32_add", "atom", "shared", "add", 1, "f32", F32, 4, (void*)atom_shared_f32_add},
  {"atom_global_f16_add", "atom", "global", "add", 1, "f16", F16, 2, (void*)atom_global_f16_add},
  {"atom_global_bf16_add", "atom", "global", "add", 1, "bf16", BF16, 2, (void*)atom_global_bf16_add},
  // op "add.noftz": the `.f32` forms of PTX ISA 9.4
  {"red_v4_f32_add_noftz", "red", "global", "add.noftz", 4, "f32", F32, 4, (void*)red_v4_f32_add_noftz},
  {"atom_global_f32_add_noftz", "atom", "global", "add.noftz", 1, "f32", F32, 4, (void*)atom_global_f32_add_noftz},
  {"atom_shared_f32_add_noftz", "atom", "shared", "add.noftz", 1, "f32", F32, 4, (void*)atom_shared_f32_add_noftz},
};

static const u16 kSpecF16[] = {
  0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x83ff, 0x0400, 0x8400, 0x3c00, 0xbc00, 0x3c01,
  0x6800, 0x3800, 0x6801, 0x7bff, 0xfbff, 0x5000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7e01,
  0xfe01, 0x7c01, 0x7d55};
static const u16 kSpecBf16[] = {
  0x0000, 0x8000, 0x0001, 0x8001, 0x007f, 0x807f, 0x0080, 0x8080, 0x3f80, 0xbf80, 0x3f81,
  0x4380, 0x3f00, 0x4381, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7fc1, 0xffc1,
  0x7f81, 0x7fa5};
static const u32 kSpecF32[] = {
  0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000,
  0x80800000, 0x00800001, 0x00400000, 0x3f800000, 0xbf800000, 0x3f800001, 0x4b800000,
  0x3f000000, 0x33800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
  0xffc00000, 0x7fc00001, 0x7f800001, 0x7fa5a5a5};

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static u32 next_rand() {
  rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
  return (u32)((rs * 0x2545f4914f6cdd1dull) >> 32);
}

static const int kRandom = 1536;

// The case's element words: specials x specials (packed: the low half runs over the specials,
// the high half over a rotation), then random words (half of them near each other's exponent).
static void inputs(const Case& c, std::vector<u32>& a, std::vector<u32>& b) {
  std::vector<u32> s;
  if (c.fmt == F32) {
    for (u32 x : kSpecF32) s.push_back(x);
  } else {
    const u16* h = c.fmt == F16 ? kSpecF16 : kSpecBf16;
    int nh = c.fmt == F16 ? sizeof(kSpecF16) / 2 : sizeof(kSpecBf16) / 2;
    for (int i = 0; i < nh; i++)
      s.push_back(c.esize == 4 ? (u32)h[i] | ((u32)h[(i * 7 + 3) % nh] << 16) : (u32)h[i]);
  }
  for (u32 x : s) for (u32 y : s) { a.push_back(x); b.push_back(y); }
  u32 mask = c.esize == 2 ? 0xffffu : 0xffffffffu;
  for (int i = 0; i < kRandom; i++) {
    u32 x = next_rand() & mask, y = next_rand() & mask;
    if (i & 1) {  // close magnitudes: same top bits
      u32 top = c.esize == 2 ? 0xfc00u : 0xff800000u;
      if (c.esize == 4 && c.fmt != F32) top = 0xfc00fc00u;
      y = (x & top) | (y & ~top & mask);
    }
    a.push_back(x); b.push_back(y);
  }
  while (a.size() % c.vec) { a.push_back(0); b.push_back(0); }
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : ".";
  char path[4096];
  snprintf(path, sizeof path, "%s/manifest.txt", dir);
  FILE* man = fopen(path, "w");
  snprintf(path, sizeof path, "%s/dumps.bin", dir);
  FILE* dump = fopen(path, "wb");
  if (!man || !dump) { fprintf(stderr, "cannot write to %s\n", dir); return 1; }
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  fprintf(man, "# tmemu float-atomics H100 recording (kernels/atom_h100/harness.cu) on %s, sm_%d%d\n",
          prop.name, prop.major, prop.minor);
  fprintf(man, "# per case in dumps.bin from dump_at: a[count], b[count], after[count], olds[count], each esize bytes LE\n");
  long long at = 0;
  for (const Case& c : kCases) {
    std::vector<u32> a, b;
    inputs(c, a, b);
    int count = (int)a.size(), es = c.esize;
    std::vector<unsigned char> ha(count * es), hb(count * es), after(count * es), olds(count * es);
    for (int i = 0; i < count; i++) { memcpy(&ha[i * es], &a[i], es); memcpy(&hb[i * es], &b[i], es); }
    void *dm, *db, *dol;
    CK(cudaMalloc(&dm, count * es)); CK(cudaMalloc(&db, count * es)); CK(cudaMalloc(&dol, count * es));
    CK(cudaMemcpy(dm, ha.data(), count * es, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb.data(), count * es, cudaMemcpyHostToDevice));
    CK(cudaMemset(dol, 0, count * es));
    int nvec = count / c.vec;
    int block = 256, grid = (nvec + block - 1) / block;
    void* args[] = {&dm, &db, &dol, &nvec};
    CK(cudaLaunchKernel(c.kernel, dim3(grid), dim3(block), args, 0, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(after.data(), dm, count * es, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(olds.data(), dol, count * es, cudaMemcpyDeviceToHost));
    CK(cudaFree(dm)); CK(cudaFree(db)); CK(cudaFree(dol));
    fwrite(ha.data(), 1, count * es, dump); fwrite(hb.data(), 1, count * es, dump);
    fwrite(after.data(), 1, count * es, dump); fwrite(olds.data(), 1, count * es, dump);
    fprintf(man, "name=%s inst=%s space=%s op=%s vec=%d type=%s esize=%d count=%d dump_at=%lld\n",
            c.name, c.inst, c.space, c.op, c.vec, c.type, es, count, at);
    at += 4LL * count * es;
  }
  fclose(man); fclose(dump);
  printf("%d cases\n", (int)(sizeof kCases / sizeof kCases[0]));
  return 0;
}
