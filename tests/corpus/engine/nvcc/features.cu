// Engine test kernels for nvcc: a jump-table-sized switch, f64 warp shuffles, f16x2/bf16
// conversions with an atomicCAS float-max loop, and cp.async (__pipeline_memcpy_async).
// Regenerate: nvcc -arch=sm_100a -ptx features.cu -o features.ptx (nvcc 13.5.37 from
// /work/kvenv), then python3 gen_features.py.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_pipeline.h>
extern "C" __global__ void big_switch(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  int r;
  switch (i % 9) { case 0: r = 11; break; case 1: r = 23; break; case 2: r = 5; break; case 3: r = 77; break;
    case 4: r = 1; break; case 5: r = 90; break; case 6: r = 3; break; case 7: r = 8; break; default: r = -1; }
  out[i] = r;
}
extern "C" __global__ void shfl_double(const double* x, double* out) {
  double v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  out[threadIdx.x] = v;
}
__device__ float atomicMaxF(float* a, float v) {
  int* ai = (int*)a; int old = *ai, assumed;
  do { assumed = old; old = atomicCAS(ai, assumed, __float_as_int(fmaxf(v, __int_as_float(assumed)))); } while (assumed != old);
  return __int_as_float(old);
}
extern "C" __global__ void half_ops(const __half* a, const __half* b, __half* o, float* m, __nv_bfloat16* ob) {
  int i = threadIdx.x;
  __half2 p = __halves2half2(a[i], b[i]);
  __half2 q = __hmul2(p, p);
  o[i] = __hadd(__low2half(q), __high2half(q));
  ob[i] = __float2bfloat16(__half2float(a[i]) * 3.0f);
  atomicMaxF(m, __half2float(b[i]));
}
extern "C" __global__ void pipelined(const float* g, float* out) {
  __shared__ float s[128];
  __pipeline_memcpy_async(&s[threadIdx.x], &g[threadIdx.x], sizeof(float));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[threadIdx.x] = s[127 - threadIdx.x] + (float)(clock64() >= 0);
}
