// Engine test kernels for nvcc: .func calls from divergent switch arms, local arrays, 64-bit
// division, f64 math, a float atomic, __syncwarp and __ballot_sync after an early return.
// Regenerate: nvcc -arch=sm_100a -ptx calls_switch.cu -o calls_switch.ptx (nvcc 13.5.37 from
// /work/kvenv), then python3 gen_expected.py.
#include <cstdint>
__device__ __noinline__ float helper(float x, int k) { return x * k + 1.0f; }
__device__ __noinline__ int fib(int n) { int a=0,b=1; for(int i=0;i<n;i++){int t=a+b;a=b;b=t;} return a; }
extern "C" __global__ void misc(const float* __restrict__ x, float* __restrict__ y, int* out, long long* o64, double* od, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float local[8];
  for (int k = 0; k < 8; k++) local[k] = x[(i + k) % n];
  float s = 0; for (int k = 0; k < 8; k++) s += local[(k * i) & 7];
  y[i] = helper(s, i & 3);
  switch (i & 3) { case 0: out[i] = fib(i & 15); break; case 1: out[i] = -i; break; case 2: out[i] = i * i; break; default: out[i] = 7; }
  long long v = (long long)i * 1234567891LL; o64[i] = v / 97 + v % 13;
  od[i] = sqrt((double)i) + 1.0 / (i + 1);
  atomicAdd(&y[0], 1.0f);
  __syncwarp();
  unsigned m = __ballot_sync(0xffffffff, i & 1);
  out[n + i] = __popc(m) + __ffs(i) + __brevll((unsigned long long)i) % 3;
}
__shared__ float sm[256];
extern "C" __global__ void smem_rev(float* a, int n) {
  int t = threadIdx.x;
  sm[t] = a[blockIdx.x * 256 + t];
  __syncthreads();
  a[blockIdx.x * 256 + t] = sm[255 - t] * 2.0f;
}
