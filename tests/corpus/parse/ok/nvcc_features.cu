#include <cstdio>
#include <cuda_fp16.h>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
struct P { float a[3]; int b; double c; };
__constant__ float ctab[16] = {1.f, 2.f, 3.f};
__device__ int gcount;
__device__ __noinline__ float helper(float x, int n) { float s = 0; for (int i = 0; i < n; ++i) s += x * ctab[i & 15]; return s; }
__global__ void __launch_bounds__(128, 2) kern(P p, float *out, const __half *h, int n) {
  __shared__ float sm[128];
  extern __shared__ double dyn[];
  float loc[8];
  int t = threadIdx.x;
  for (int i = 0; i < 8; ++i) loc[i] = p.a[i % 3] * i;
  sm[t] = helper(loc[t & 7], n) + __half2float(h[t]);
  __syncthreads();
  auto g = cg::this_thread_block();
  auto w = cg::tiled_partition<32>(g);
  float v = sm[(t + 1) & 127];
  v += w.shfl_down(v, 1);
  dyn[t] = v + p.c;
  atomicAdd(&gcount, 1);
  if (t == 0) printf("v=%f n=%d\n", v, n);
  unsigned long long clk = clock64();
  out[t] = v + (float)(clk & 1) + __shfl_xor_sync(0xffffffff, v, 2);
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %0, 0; @p trap; }" :: "r"(n == -12345 ? 1 : 0));
}
