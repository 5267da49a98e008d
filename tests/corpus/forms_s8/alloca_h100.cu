// Hardware check of the alloca model (docs/arch/forms.md "Session 8") on any sm_90 device:
// runs the three kernels of alloca.cu and compares each output word with the host's
// evaluation of the C source, the same references crates/sim/tests/sim/forms_s8.rs uses. Also
// prints what the engine assumes beyond the ISA text: that a callee's allocation is freed at
// its return so the next call's alloca returns the same pointer (callee: out[2t+1] == 0), and
// that alloca pointers honour the 16-byte alignment nvcc asks for.
//
//   nvcc -arch=sm_90a -o /tmp/alloca_h100 alloca_h100.cu && /tmp/alloca_h100
//
// Exit status 0 when every check passes; the lines starting "FAIL" say which did not.
#include <cstdio>
#include <cstdint>
#include <vector>
#include "alloca.cu"

extern "C" __global__ void align_probe(unsigned long long* out, int n) {
  // the generic addresses of three allocations of odd sizes, as nvcc's alloca(…) returns
  // them (stored whole, so the compiler cannot fold their low bits away)
  volatile char* a = (volatile char*)alloca(n);
  volatile char* b = (volatile char*)alloca(n + 3);
  volatile char* c = (volatile char*)alloca(1);
  a[0] = 1; b[0] = 2; c[0] = 3;
  out[3 * threadIdx.x + 0] = (unsigned long long)a;
  out[3 * threadIdx.x + 1] = (unsigned long long)b;
  out[3 * threadIdx.x + 2] = (unsigned long long)c;
}

static std::vector<int> inputs(size_t len) {
  uint32_t x = 0x9e3779b9u;
  std::vector<int> v(len);
  for (auto& e : v) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; e = (int)x; }
  return v;
}

static int fails = 0;
static void check(const char* what, size_t i, int got, int want) {
  if (got != want) {
    if (fails < 20) printf("FAIL %s[%zu]: got %d want %d\n", what, i, got, want);
    ++fails;
  }
}

template <class K>
static std::vector<int> run(K kernel, const std::vector<int>& in, size_t out_words, int n,
                            int threads, int ctas) {
  int *din, *dout;
  cudaMalloc(&din, in.size() * 4);
  cudaMalloc(&dout, out_words * 4);
  cudaMemcpy(din, in.data(), in.size() * 4, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0, out_words * 4);
  kernel<<<ctas, threads>>>(din, dout, n);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("FAIL launch: %s\n", cudaGetErrorString(e)); ++fails; }
  std::vector<int> out(out_words);
  cudaMemcpy(out.data(), dout, out_words * 4, cudaMemcpyDeviceToHost);
  cudaFree(din); cudaFree(dout);
  return out;
}

static int wrap_mul(int a, int b) { return (int)((uint32_t)a * (uint32_t)b); }
static int wrap_add(int a, int b) { return (int)((uint32_t)a + (uint32_t)b); }

int main() {
  cudaDeviceSetLimit(cudaLimitStackSize, 16 * 1024);
  {  // rev_poly, n = 37, 64 threads
    int n = 37, threads = 64;
    auto in = inputs(n * threads);
    auto out = run(rev_poly, in, threads, n, threads, 1);
    for (int t = 0; t < threads; ++t) {
      int s = 0;
      for (int i = n - 1; i >= 0; --i) s = wrap_add(wrap_mul(s, 7), wrap_mul(in[t * n + i], 3));
      check("rev_poly", t, out[t], s);
    }
  }
  {  // grow, n = 40, two CTAs of 33 threads
    int n = 40;
    auto in = inputs(n);
    auto out = run(grow, in, 33, n, 33, 2);
    int want = 0;
    for (int k = 1; k <= n; ++k)
      want = wrap_add(wrap_add(want, wrap_add(in[0], k)), wrap_add(in[k - 1], k));
    for (int t = 0; t < 33; ++t) check("grow", t, out[t], want);
  }
  {  // callee, n = 21, 32 threads
    int n = 21, threads = 32;
    auto in = inputs(n + threads);
    auto out = run(callee, in, 2 * threads, n, threads, 1);
    for (int t = 0; t < threads; ++t) {
      int x = 0, y = 0;
      for (int i = 0; i < n; ++i) {
        x = wrap_add(x, wrap_mul(in[t + i], in[t + i]));
        y = wrap_add(y, wrap_mul(in[t + 1 + i], in[t + 1 + i]));
      }
      check("callee.sum", t, out[2 * t], wrap_add(x, y));
      check("callee.pointer_difference", t, out[2 * t + 1], 0);
    }
  }
  {  // alignment of nvcc's alloca pointers; the direction the stack grows (informational)
    unsigned long long* d;
    cudaMalloc(&d, 3 * 32 * 8);
    align_probe<<<1, 32>>>(d, 5);
    cudaDeviceSynchronize();
    std::vector<unsigned long long> h(3 * 32);
    cudaMemcpy(h.data(), d, h.size() * 8, cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < h.size(); ++i) check("align_probe.low_bits", i, (int)(h[i] & 15), 0);
    printf("info: thread 0 alloca pointers %#llx %#llx %#llx (b-a %lld, c-b %lld)\n", h[0], h[1],
           h[2], (long long)(h[1] - h[0]), (long long)(h[2] - h[1]));
    cudaFree(d);
  }
  printf("%s: %d failed checks\n", fails ? "FAIL" : "PASS", fails);
  return fails ? 1 : 0;
}
