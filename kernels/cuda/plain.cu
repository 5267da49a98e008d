// Plain (non-tcgen05) CUDA kernels for the engine's numpy tests: integer/bit ops, float math,
// conversions, a shared-memory + shuffle reduction, atomics and a tiled SGEMM.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

// out[k][i] for k = 0..11: add, mul.lo, mul.hi, signed div, signed rem, xor/and/or mix,
// popc, clz, brev, funnel shift, bfe-like extract, signed max.
extern "C" __global__ void int_bitops(const uint32_t* __restrict__ a, const uint32_t* __restrict__ b,
                                      uint32_t* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t x = a[i], y = b[i];
  const int32_t sx = static_cast<int32_t>(x), sy = static_cast<int32_t>(y | 1u);  // never 0
  out[0 * n + i] = x + y;
  out[1 * n + i] = x * y;
  out[2 * n + i] = __umulhi(x, y);
  out[3 * n + i] = static_cast<uint32_t>(sx / sy);
  out[4 * n + i] = static_cast<uint32_t>(sx % sy);
  out[5 * n + i] = (x ^ y) | (x & ~y);
  out[6 * n + i] = __popc(x);
  out[7 * n + i] = __clz(x);
  out[8 * n + i] = __brev(x);
  out[9 * n + i] = __funnelshift_l(x, y, y & 31u);
  out[10 * n + i] = (x >> (y & 15u)) & 0xFFu;
  out[11 * n + i] = static_cast<uint32_t>(max(sx, sy));
}

// out[k][i]: fmaf, exp2f (ex2.approx), rsqrtf (rsqrt.approx), sqrtf (sqrt.rn), division (div.rn).
extern "C" __global__ void float_math(const float* __restrict__ x, const float* __restrict__ y,
                                      const float* __restrict__ z, float* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[0 * n + i] = fmaf(x[i], y[i], z[i]);
  out[1 * n + i] = exp2f(x[i]);
  out[2 * n + i] = rsqrtf(fabsf(y[i]) + 1.0f);
  out[3 * n + i] = sqrtf(fabsf(z[i]));
  out[4 * n + i] = x[i] / y[i];
}

// Conversions: f32->s32 (truncate), s32->f32 (rn), f32->f16 (rn), f16->f32, f32->bf16 (rn),
// u32->f32 (rn), f32->u8 saturating (via __saturatef * 255, rni).
extern "C" __global__ void cvt_kernel(const float* __restrict__ f, const int32_t* __restrict__ s,
                                      int32_t* __restrict__ f2i, float* __restrict__ i2f,
                                      uint16_t* __restrict__ f2h, float* __restrict__ h2f,
                                      uint16_t* __restrict__ f2bf, float* __restrict__ u2f,
                                      uint32_t* __restrict__ f2u8, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  f2i[i] = static_cast<int32_t>(f[i]);
  i2f[i] = static_cast<float>(s[i]);
  const __half h = __float2half_rn(f[i]);
  f2h[i] = __half_as_ushort(h);
  h2f[i] = __half2float(h);
  f2bf[i] = __bfloat16_as_ushort(__float2bfloat16_rn(f[i]));
  u2f[i] = static_cast<float>(static_cast<uint32_t>(s[i]));
  f2u8[i] = static_cast<uint32_t>(__float2int_rn(__saturatef(f[i]) * 255.0f));
}

// Per-block sum and max of 256 integers: shared memory tree down to 64, then warp shuffles.
extern "C" __global__ void __launch_bounds__(256)
reduce_shfl(const int32_t* __restrict__ in, int32_t* __restrict__ sums, int32_t* __restrict__ maxes) {
  __shared__ int32_t ssum[256];
  __shared__ int32_t smax[256];
  const int t = threadIdx.x;
  const int32_t v = in[blockIdx.x * 256 + t];
  ssum[t] = v;
  smax[t] = v;
  __syncthreads();
  for (int s = 128; s >= 32; s >>= 1) {
    if (t < s) {
      ssum[t] += ssum[t + s];
      smax[t] = max(smax[t], smax[t + s]);
    }
    __syncthreads();
  }
  if (t < 32) {
    int32_t sum = ssum[t], mx = smax[t];
    for (int off = 16; off > 0; off >>= 1) {
      sum += __shfl_down_sync(0xffffffffu, sum, off);
      mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    }
    if (t == 0) {
      sums[blockIdx.x] = sum;
      maxes[blockIdx.x] = mx;
    }
  }
}

// Histogram of in % 16 (atomicAdd), global max (atomicMax), float sum of small integers
// (atomicAdd on f32; exact in any order), and a CAS-based counter.
extern "C" __global__ void atomics(const int32_t* __restrict__ in, int32_t* __restrict__ hist,
                                   int32_t* __restrict__ maxv, float* __restrict__ fsum,
                                   uint32_t* __restrict__ cas_count, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int32_t v = in[i];
  atomicAdd(&hist[v & 15], 1);
  atomicMax(maxv, v);
  atomicAdd(fsum, static_cast<float>(v % 8));
  uint32_t old = *cas_count, assumed;
  do {
    assumed = old;
    old = atomicCAS(cas_count, assumed, assumed + 2u);
  } while (old != assumed);
}

// C[M][N] = A[M][K] * B[K][N], 16x16 tiles through shared memory; M, N, K multiples of 16.
extern "C" __global__ void __launch_bounds__(256)
sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
            int M, int N, int K) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += 16) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}
