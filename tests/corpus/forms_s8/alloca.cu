// Device-side alloca as nvcc 13.5 emits it (`alloca.u64 ptr, size, 16`), for
// crates/sim/tests/sim/forms_s8.rs; regenerate alloca.ptx with gen.sh.
//
// rev_poly: thread t copies its n inputs, times 3, into a stack array of n ints and folds them
// back to front: out[t] = sum over i of 3 * in[t*n + i] * 7^i (mod 2^32).
// grow: each of k = 1..n iterations allocates a fresh array of k ints (the earlier ones stay
// allocated until the kernel returns: nothing frees an alloca but the function's return) and
// adds its first and last element: out[t] = sum over k of (in[0] + k) + (in[k-1] + k).
// callee: a noinline function allocates n ints per call; its storage is freed at each return,
// so both calls return the same pointer (the difference of the two is stored as well).

extern "C" __global__ void rev_poly(const int* in, int* out, int n) {
  int* buf = (int*)alloca(n * sizeof(int));
  for (int i = 0; i < n; ++i) buf[i] = in[threadIdx.x * n + i] * 3;
  int s = 0;
  for (int i = n - 1; i >= 0; --i) s = s * 7 + buf[i];
  out[threadIdx.x] = s;
}

extern "C" __global__ void grow(const int* in, int* out, int n) {
  int s = 0;
  for (int k = 1; k <= n; ++k) {
    int* buf = (int*)__builtin_alloca(k * sizeof(int));
    for (int i = 0; i < k; ++i) buf[i] = in[i] + k;
    s += buf[k - 1] + buf[0];
  }
  out[threadIdx.x] = s;
}

__device__ __noinline__ int sum_sq(const int* in, int n, long long* where) {
  volatile int* buf = (volatile int*)alloca(n * sizeof(int));
  *where = (long long)buf;
  for (int i = 0; i < n; ++i) buf[i] = in[i] * in[i];
  int s = 0;
  for (int i = 0; i < n; ++i) s += buf[i];
  return s;
}

extern "C" __global__ void callee(const int* in, int* out, int n) {
  long long a, b;
  int x = sum_sq(in + threadIdx.x, n, &a);
  int y = sum_sq(in + threadIdx.x + 1, n, &b);
  out[2 * threadIdx.x] = x + y;
  out[2 * threadIdx.x + 1] = (int)(b - a);
}
