// Holdout batch 15 nvcc kernel (our own): a single-pass **chained scan** across CTAs (the
// StreamScan pattern, the simplest form of decoupled look-back): CTA i scans its 512 integers in
// shared memory, waits until CTA i-1 has published the inclusive prefix of everything before
// it, publishes its own, and writes its elements' inclusive prefix sums.
//
// The publication is the pre-`cuda::atomic_ref` idiom of CUDA code: the prefix is a plain store,
// ordered before the flag by `__threadfence()` (membar.gl), and the flag is a **volatile store**
// (`st.volatile.global`); the consumer spins on a **volatile load** (`ld.volatile.global`) and
// fences again before it reads the prefix. By the PTX ISA memory model (§8) volatile accesses
// are strong (relaxed, .sys scope), so the fence + volatile store is a release pattern and the
// volatile load + fence an acquire pattern: the prefix is race-free. The flags start at 0
// (a zero-filled buffer); CTA i only ever waits on CTA i-1, which starts before it.
#include <stdint.h>

constexpr int T = 128, PER = 4, TILE = T * PER;

extern "C" __global__ void __launch_bounds__(T)
chained_scan(const int* __restrict__ in, int* __restrict__ out, int* prefix,
             volatile int* flag) {
  __shared__ int part[T];
  __shared__ int carry;
  const int t = threadIdx.x, b = blockIdx.x;
  int v[PER];
  int sum = 0;
  for (int j = 0; j < PER; ++j) {
    v[j] = in[b * TILE + t * PER + j];
    sum += v[j];
    v[j] = sum;                  // inclusive within the thread
  }
  part[t] = sum;
  __syncthreads();
  // Hillis-Steele inclusive scan of the per-thread sums
  for (int d = 1; d < T; d *= 2) {
    const int x = t >= d ? part[t - d] : 0;
    __syncthreads();
    part[t] += x;
    __syncthreads();
  }
  if (t == 0) {
    int before = 0;
    if (b > 0) {
      while (flag[b - 1] == 0) {
      }
      __threadfence();
      before = prefix[b - 1];
    }
    prefix[b] = before + part[T - 1];
    __threadfence();
    flag[b] = 1;
    carry = before;
  }
  __syncthreads();
  const int base = carry + (t > 0 ? part[t - 1] : 0);
  for (int j = 0; j < PER; ++j) out[b * TILE + t * PER + j] = base + v[j];
}
