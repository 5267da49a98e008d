// H100 recording of st.async and red.async (PTX ISA §9.7.9.12 "st.async", §9.7.13.6
// "red.async"): stores and reductions into another cluster CTA's shared memory that signal
// complete_tx on that CTA's mbarrier. tmemu models them in crates/sim/src/exec/st_async.rs;
// crates/sim/tests/sim/st_async_h100.rs runs this file's PTX (tests/corpus/st_async_h100/
// harness.sm_90a.ptx) through the engine with the recorded inputs and compares bit for bit.
//
// Every kernel: a grid of 2 clusters of CS CTAs (64 threads each), 2 rounds. Per round each
// CTA arrives on its own mbarrier with expect_tx(bytes its peers will send), the cluster
// syncs, every thread issues its st.async / red.async into peer CTAs, each CTA waits for its
// mbarrier's phase (parity = round), records test_wait of both parities (flags) and dumps its
// whole shared buffer (written slots and untouched ones) to `out`.
//   st.async: thread t of rank r stores one V-element value into slot r*64+t of rank
//             (r+1+t%(CS-1))%CS (every slot written at most once per round).
//   red.async: thread t of rank r reduces into slot t of every other rank (CS-1 writers per
//             slot; inc/dec operands are equal for all writers of a slot, so the order of
//             the writers does not matter).
//
// Build: nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu
// PTX:   nvcc -O2 -arch=sm_90a -ptx -o harness.sm_90a.ptx harness.cu && xz -9 -C crc64 harness.sm_90a.ptx (committed .xz)
// Run:   ./harness OUTDIR   -> OUTDIR/manifest.txt, OUTDIR/dumps.bin
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(1);} } while (0)

typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned char u8;

#define BLOCK 64
#define NCLUSTER 2
#define ROUNDS 2

__device__ __forceinline__ u32 smem(const void* p) { return (u32)__cvta_generic_to_shared(p); }
__device__ __forceinline__ u32 mapa(u32 a, u32 r) {
  u32 d; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(r)); return d;
}
__device__ __forceinline__ u32 ctarank() {
  u32 r; asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r)); return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ u64 globaltimer() {
  u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}
__device__ __forceinline__ u32 test_wait(u32 b, u32 p) {
  u32 ok;
  asm volatile("{\n\t.reg .pred P;\n\tmbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 P, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, P;\n\t}" : "=r"(ok) : "r"(b), "r"(p) : "memory");
  return ok;
}
__device__ __forceinline__ u32 try_wait(u32 b, u32 p) {
  u32 ok;
  asm volatile("{\n\t.reg .pred P;\n\tmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 P, [%1], %2;\n\t"
               "selp.u32 %0, 1, 0, P;\n\t}" : "=r"(ok) : "r"(b), "r"(p) : "memory");
  return ok;
}

// ---- the forms: issue(remote address, value bytes, remote mbarrier) --------------------

#define ST1_32(NAME, INSTR) struct NAME { static __device__ __forceinline__ void issue(u32 a, const u8* v, u32 m) { \
  const u32* x = (const u32*)v; asm volatile(INSTR " [%0], %1, [%2];" :: "r"(a), "r"(x[0]), "r"(m) : "memory"); } };
#define ST2_32(NAME, INSTR) struct NAME { static __device__ __forceinline__ void issue(u32 a, const u8* v, u32 m) { \
  const u32* x = (const u32*)v; asm volatile(INSTR " [%0], {%1, %2}, [%3];" :: "r"(a), "r"(x[0]), "r"(x[1]), "r"(m) : "memory"); } };
#define ST4_32(NAME, INSTR) struct NAME { static __device__ __forceinline__ void issue(u32 a, const u8* v, u32 m) { \
  const u32* x = (const u32*)v; asm volatile(INSTR " [%0], {%1, %2, %3, %4}, [%5];" :: "r"(a), "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(m) : "memory"); } };
#define ST1_64(NAME, INSTR) struct NAME { static __device__ __forceinline__ void issue(u32 a, const u8* v, u32 m) { \
  const u64* x = (const u64*)v; asm volatile(INSTR " [%0], %1, [%2];" :: "r"(a), "l"(x[0]), "r"(m) : "memory"); } };
#define ST2_64(NAME, INSTR) struct NAME { static __device__ __forceinline__ void issue(u32 a, const u8* v, u32 m) { \
  const u64* x = (const u64*)v; asm volatile(INSTR " [%0], {%1, %2}, [%3];" :: "r"(a), "l"(x[0]), "l"(x[1]), "r"(m) : "memory"); } };

#define SA "st.async.shared::cluster.mbarrier::complete_tx::bytes"
#define SAW "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes"
ST1_32(st_b32, SA ".b32")
ST1_32(st_u32, SAW ".u32")
ST1_32(st_s32, SA ".s32")
ST1_32(st_f32, SA ".f32")
ST2_32(st_v2_b32, SA ".v2.b32")
ST2_32(st_v2_f32, SAW ".v2.f32")
ST4_32(st_v4_b32, SA ".v4.b32")
ST4_32(st_v4_s32, SA ".v4.s32")
ST4_32(st_v4_f32, SA ".v4.f32")
ST1_64(st_b64, SA ".b64")
ST1_64(st_u64, SA ".u64")
ST1_64(st_f64, SAW ".f64")
ST2_64(st_v2_b64, SA ".v2.b64")
ST2_64(st_v2_s64, SA ".v2.s64")
ST2_64(st_v2_f64, SA ".v2.f64")

#define RA "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes"
ST1_32(red_inc_u32, RA ".inc.u32")
ST1_32(red_dec_u32, RA ".dec.u32")
ST1_32(red_min_u32, RA ".min.u32")
ST1_32(red_max_u32, RA ".max.u32")
ST1_32(red_min_s32, RA ".min.s32")
ST1_32(red_max_s32, RA ".max.s32")
ST1_32(red_and_b32, RA ".and.b32")
ST1_32(red_or_b32, RA ".or.b32")
ST1_32(red_xor_b32, RA ".xor.b32")
ST1_32(red_add_u32, RA ".add.u32")
ST1_32(red_add_s32, RA ".add.s32")
ST1_64(red_add_u64, RA ".add.u64")

// ---- one kernel per form ----------------------------------------------------------------

template <int CS, int SLOT, bool RED, class F>
__device__ __forceinline__ void body(const u8* vals, const u8* init, u8* out, u32* flags) {
  constexpr int NSLOT = RED ? BLOCK : CS * BLOCK;
  constexpr int BYTES = NSLOT * SLOT;
  __shared__ alignas(16) u8 buf[BYTES];
  __shared__ alignas(8) u64 bar;
  const u32 r = ctarank(), t = threadIdx.x, cta = blockIdx.x;
  for (int i = t; i < BYTES / 4; i += BLOCK) ((u32*)buf)[i] = ((const u32*)init)[cta * (BYTES / 4) + i];
  const u32 b = smem(&bar);
  if (t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  cluster_sync();
  for (int round = 0; round < ROUNDS; round++) {
    if (t == 0) {
      u32 tx = 0;
      if (RED) {
        tx = (CS - 1) * BLOCK * SLOT;
      } else {
        for (u32 q = 0; q < CS; q++)
          for (u32 s = 0; s < BLOCK; s++)
            if (q != r && (q + 1 + s % (CS - 1)) % CS == r) tx += SLOT;
      }
      asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(tx) : "memory");
    }
    cluster_sync();
    const u32 base = (round * gridDim.x + cta) * BLOCK + t;
    if (!RED) {
      u32 d = (r + 1 + t % (CS - 1)) % CS, slot = r * BLOCK + t;
      F::issue(mapa(smem(buf + slot * SLOT), d), vals + base * SLOT, mapa(b, d));
    } else {
      for (u32 k = 1; k < CS; k++) {
        u32 d = (r + k) % CS;
        F::issue(mapa(smem(buf + t * SLOT), d), vals + (base * (CS - 1) + (k - 1)) * SLOT, mapa(b, d));
      }
    }
    // bounded (1 s), so a wrong tx count shows as flag bit 2 instead of a hung device
    u64 t0 = globaltimer();
    u32 late = 0;
    while (!try_wait(b, round & 1))
      if (globaltimer() - t0 > 1000000000ull) { late = 4; break; }
    if (t == 0) flags[cta * ROUNDS + round] = test_wait(b, round & 1) | test_wait(b, (round + 1) & 1) << 1 | late;
    for (int i = t; i < BYTES / 4; i += BLOCK)
      ((u32*)out)[(cta * ROUNDS + round) * (BYTES / 4) + i] = ((u32*)buf)[i];
    __syncthreads();
    cluster_sync();
  }
}

#define KERNEL(F, CS, SLOT, RED) extern "C" \
  __global__ void __cluster_dims__(CS, 1, 1) __launch_bounds__(BLOCK) k_##F##_c##CS( \
      const u8* vals, const u8* init, u8* out, u32* flags) { body<CS, SLOT, RED, F>(vals, init, out, flags); }

KERNEL(st_b32, 4, 4, false)
KERNEL(st_u32, 4, 4, false)
KERNEL(st_s32, 4, 4, false)
KERNEL(st_f32, 4, 4, false)
KERNEL(st_v2_b32, 4, 8, false)
KERNEL(st_v2_f32, 4, 8, false)
KERNEL(st_v4_b32, 4, 16, false)
KERNEL(st_v4_s32, 4, 16, false)
KERNEL(st_v4_f32, 4, 16, false)
KERNEL(st_b64, 4, 8, false)
KERNEL(st_u64, 4, 8, false)
KERNEL(st_f64, 4, 8, false)
KERNEL(st_v2_b64, 4, 16, false)
KERNEL(st_v2_s64, 4, 16, false)
KERNEL(st_v2_f64, 4, 16, false)
KERNEL(st_v4_b32, 2, 16, false)
KERNEL(st_b64, 2, 8, false)
KERNEL(red_inc_u32, 4, 4, true)
KERNEL(red_dec_u32, 4, 4, true)
KERNEL(red_min_u32, 4, 4, true)
KERNEL(red_max_u32, 4, 4, true)
KERNEL(red_min_s32, 4, 4, true)
KERNEL(red_max_s32, 4, 4, true)
KERNEL(red_and_b32, 4, 4, true)
KERNEL(red_or_b32, 4, 4, true)
KERNEL(red_xor_b32, 4, 4, true)
KERNEL(red_add_u32, 4, 4, true)
KERNEL(red_add_s32, 4, 4, true)
KERNEL(red_add_u64, 4, 8, true)
KERNEL(red_add_u32, 2, 4, true)
KERNEL(red_inc_u32, 3, 4, true)

// ---- cases ---------------------------------------------------------------------------

struct Case {
  const char* name;  // the kernel is k_<name>
  const char* form;  // the PTX form's modifiers after st.async / red.async
  int cs, slot, red; // cluster size, bytes per slot, reduction?
  int esize;         // element bytes
  int incdec;        // inc/dec: operands equal per destination slot
  void* kernel;
};

#define C_ST(F, CS, SLOT, ES, FORM) {#F "_c" #CS, FORM, CS, SLOT, 0, ES, 0, (void*)k_##F##_c##CS}
#define C_RED(F, CS, ES, ID, FORM) {#F "_c" #CS, FORM, CS, ES, 1, ES, ID, (void*)k_##F##_c##CS}

static Case kCases[] = {
  C_ST(st_b32, 4, 4, 4, "b32"), C_ST(st_u32, 4, 4, 4, "weak.u32"), C_ST(st_s32, 4, 4, 4, "s32"),
  C_ST(st_f32, 4, 4, 4, "f32"), C_ST(st_v2_b32, 4, 8, 4, "v2.b32"), C_ST(st_v2_f32, 4, 8, 4, "weak.v2.f32"),
  C_ST(st_v4_b32, 4, 16, 4, "v4.b32"), C_ST(st_v4_s32, 4, 16, 4, "v4.s32"), C_ST(st_v4_f32, 4, 16, 4, "v4.f32"),
  C_ST(st_b64, 4, 8, 8, "b64"), C_ST(st_u64, 4, 8, 8, "u64"), C_ST(st_f64, 4, 8, 8, "weak.f64"),
  C_ST(st_v2_b64, 4, 16, 8, "v2.b64"), C_ST(st_v2_s64, 4, 16, 8, "v2.s64"), C_ST(st_v2_f64, 4, 16, 8, "v2.f64"),
  C_ST(st_v4_b32, 2, 16, 4, "v4.b32"), C_ST(st_b64, 2, 8, 8, "b64"),
  C_RED(red_inc_u32, 4, 4, 1, "inc.u32"), C_RED(red_dec_u32, 4, 4, 1, "dec.u32"),
  C_RED(red_min_u32, 4, 4, 0, "min.u32"), C_RED(red_max_u32, 4, 4, 0, "max.u32"),
  C_RED(red_min_s32, 4, 4, 0, "min.s32"), C_RED(red_max_s32, 4, 4, 0, "max.s32"),
  C_RED(red_and_b32, 4, 4, 0, "and.b32"), C_RED(red_or_b32, 4, 4, 0, "or.b32"),
  C_RED(red_xor_b32, 4, 4, 0, "xor.b32"), C_RED(red_add_u32, 4, 4, 0, "add.u32"),
  C_RED(red_add_s32, 4, 4, 0, "add.s32"), C_RED(red_add_u64, 4, 8, 0, "add.u64"),
  C_RED(red_add_u32, 2, 4, 0, "add.u32"), C_RED(red_inc_u32, 3, 4, 1, "inc.u32"),
};

static uint64_t rs = 0x9e3779b97f4a7c15ull;
static u32 next_rand() {
  rs ^= rs >> 12; rs ^= rs << 25; rs ^= rs >> 27;
  return (u32)((rs * 0x2545f4914f6cdd1dull) >> 32);
}
// A word that hits edges often: small values, all-ones, sign bits, NaN patterns, random.
static u32 edge_word(int esize_hi) {
  static const u32 kEdge[] = {0, 1, 2, 3, 0xffffffffu, 0xfffffffeu, 0x7fffffffu, 0x80000000u,
                              0x80000001u, 0x7fc00001u, 0xffc00000u, 0x7f800000u, 0x00000001u};
  u32 k = next_rand() % 4;
  if (k == 0) return kEdge[next_rand() % (sizeof kEdge / sizeof kEdge[0])];
  if (k == 1) return next_rand() % 8;
  (void)esize_hi;
  return next_rand();
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
  fprintf(man, "# tmemu st.async/red.async H100 recording (kernels/st_async_h100/harness.cu) on %s, sm_%d%d\n",
          prop.name, prop.major, prop.minor);
  fprintf(man, "# grid = 2 clusters of cs CTAs x 64 threads, 2 rounds; per case in dumps.bin from dump_at: "
               "vals[vals_len], init[init_len], out[out_len], flags[4*ctas*2] (u32 LE)\n");
  long long at = 0;
  int ok = 0;
  for (const Case& c : kCases) {
    int ctas = NCLUSTER * c.cs;
    int nslot = c.red ? BLOCK : c.cs * BLOCK;
    int bytes = nslot * c.slot;
    int writes = c.red ? (c.cs - 1) : 1;  // values per thread per round
    size_t vals_len = (size_t)ROUNDS * ctas * BLOCK * writes * c.slot;
    size_t init_len = (size_t)ctas * bytes, out_len = (size_t)ctas * ROUNDS * bytes;
    size_t flags_len = (size_t)ctas * ROUNDS * 4;
    std::vector<u8> vals(vals_len), init(init_len), out(out_len), flags(flags_len);
    for (size_t i = 0; i < init_len; i += 4) { u32 w = c.incdec ? next_rand() % 8 : edge_word(0); memcpy(&init[i], &w, 4); }
    for (size_t i = 0; i < vals_len; i += 4) { u32 w = edge_word(0); memcpy(&vals[i], &w, 4); }
    if (c.incdec) {
      // the operand of thread (round, cta, t, k) depends on (round, cluster, destination, t)
      std::vector<u32> per((size_t)ROUNDS * ctas * BLOCK);
      for (auto& w : per) w = next_rand() % 6;
      for (int rd = 0; rd < ROUNDS; rd++)
        for (int cta = 0; cta < ctas; cta++)
          for (int t = 0; t < BLOCK; t++)
            for (int k = 1; k < c.cs; k++) {
              int r = cta % c.cs, dst = (cta - r) + (r + k) % c.cs;
              u32 w = per[((size_t)rd * ctas + dst) * BLOCK + t];
              size_t idx = ((((size_t)rd * ctas + cta) * BLOCK + t) * (c.cs - 1) + (k - 1)) * 4;
              memcpy(&vals[idx], &w, 4);
            }
    }
    u8 *dv, *di, *dout; u32* dfl;
    CK(cudaMalloc(&dv, vals_len)); CK(cudaMalloc(&di, init_len));
    CK(cudaMalloc(&dout, out_len)); CK(cudaMalloc(&dfl, flags_len));
    CK(cudaMemcpy(dv, vals.data(), vals_len, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(di, init.data(), init_len, cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0xee, out_len)); CK(cudaMemset(dfl, 0xee, flags_len));
    void* args[] = {&dv, &di, &dout, &dfl};
    CK(cudaLaunchKernel(c.kernel, dim3(ctas), dim3(BLOCK), args, 0, 0));
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(out.data(), dout, out_len, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(flags.data(), dfl, flags_len, cudaMemcpyDeviceToHost));
    CK(cudaFree(dv)); CK(cudaFree(di)); CK(cudaFree(dout)); CK(cudaFree(dfl));
    fwrite(vals.data(), 1, vals_len, dump); fwrite(init.data(), 1, init_len, dump);
    fwrite(out.data(), 1, out_len, dump); fwrite(flags.data(), 1, flags_len, dump);
    fprintf(man, "name=%s form=%s cs=%d slot=%d red=%d esize=%d vals_len=%zu init_len=%zu out_len=%zu dump_at=%lld\n",
            c.name, c.form, c.cs, c.slot, c.red, c.esize, vals_len, init_len, out_len, at);
    at += vals_len + init_len + out_len + flags_len;
    ok++;
  }
  fclose(man); fclose(dump);
  printf("%d cases\n", ok);
  return 0;
}
