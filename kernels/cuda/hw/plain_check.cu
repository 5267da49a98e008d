// Differential check of the plain (non-tcgen05) corpus kernels on a real GPU (Hopper is
// enough: plain.cu uses no Blackwell instructions). Build for the GPU at hand, e.g.
//   nvcc -arch=sm_90 -std=c++17 -o plain_check kernels/cuda/hw/plain_check.cu
// Run:  plain_check <corpus dir> <out dir>
// It launches every kernel of plain.cu exactly as its launch spec says, on the spec's .npy
// inputs, and writes each output buffer raw (<kernel>.<buffer>.bin); kernels/cuda/hw/compare.py
// compares those with the numpy expectations.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../plain.cu"

#define CK(x)                                                                      \
  do {                                                                             \
    cudaError_t e = (x);                                                           \
    if (e != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(2);                                                                \
    }                                                                              \
  } while (0)

static std::string g_dir, g_out;

// .npy payload (version 1 header: magic(6) ver(2) len(u16) header); dtype/shape are known.
static void* load(const std::string& kernel, const std::string& buf, size_t bytes) {
  std::string path = g_dir + "/plain." + kernel + "." + buf + ".npy";
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) { std::fprintf(stderr, "missing %s\n", path.c_str()); std::exit(2); }
  unsigned char head[10];
  if (std::fread(head, 1, 10, f) != 10) std::exit(2);
  size_t hlen = head[8] | (head[9] << 8);
  std::fseek(f, 10 + hlen, SEEK_SET);
  std::vector<char> host(bytes);
  if (std::fread(host.data(), 1, bytes, f) != bytes) { std::fprintf(stderr, "short %s\n", path.c_str()); std::exit(2); }
  std::fclose(f);
  void* d;
  CK(cudaMalloc(&d, bytes));
  CK(cudaMemcpy(d, host.data(), bytes, cudaMemcpyHostToDevice));
  return d;
}
static void* zeros(size_t bytes) {
  void* d;
  CK(cudaMalloc(&d, bytes));
  CK(cudaMemset(d, 0, bytes));
  return d;
}
static void save(const std::string& kernel, const std::string& buf, void* d, size_t bytes) {
  CK(cudaDeviceSynchronize());
  std::vector<char> host(bytes);
  CK(cudaMemcpy(host.data(), d, bytes, cudaMemcpyDeviceToHost));
  std::string path = g_out + "/" + kernel + "." + buf + ".bin";
  FILE* f = std::fopen(path.c_str(), "wb");
  std::fwrite(host.data(), 1, bytes, f);
  std::fclose(f);
}

int main(int argc, char** argv) {
  if (argc != 3) { std::fprintf(stderr, "usage: plain_check <corpus dir> <out dir>\n"); return 2; }
  g_dir = argv[1];
  g_out = argv[2];
  const int n = 256;
  {
    auto a = (uint32_t*)load("int_bitops", "a", n * 4), b = (uint32_t*)load("int_bitops", "b", n * 4);
    auto out = (uint32_t*)zeros(12 * n * 4);
    int_bitops<<<2, 128>>>(a, b, out, n);
    save("int_bitops", "out", out, 12 * n * 4);
  }
  {
    auto x = (float*)load("float_math", "x", n * 4), y = (float*)load("float_math", "y", n * 4),
         z = (float*)load("float_math", "z", n * 4);
    auto out = (float*)zeros(5 * n * 4);
    float_math<<<2, 128>>>(x, y, z, out, n);
    save("float_math", "out", out, 5 * n * 4);
  }
  {
    auto f = (float*)load("cvt_kernel", "f", n * 4);
    auto s = (int32_t*)load("cvt_kernel", "s", n * 4);
    auto f2i = (int32_t*)zeros(n * 4); auto i2f = (float*)zeros(n * 4);
    auto f2h = (uint16_t*)zeros(n * 2); auto h2f = (float*)zeros(n * 4);
    auto f2bf = (uint16_t*)zeros(n * 2); auto u2f = (float*)zeros(n * 4);
    auto f2u8 = (uint32_t*)zeros(n * 4);
    cvt_kernel<<<2, 128>>>(f, s, f2i, i2f, f2h, h2f, f2bf, u2f, f2u8, n);
    save("cvt_kernel", "f2i", f2i, n * 4); save("cvt_kernel", "i2f", i2f, n * 4);
    save("cvt_kernel", "f2h", f2h, n * 2); save("cvt_kernel", "h2f", h2f, n * 4);
    save("cvt_kernel", "f2bf", f2bf, n * 2); save("cvt_kernel", "u2f", u2f, n * 4);
    save("cvt_kernel", "f2u8", f2u8, n * 4);
  }
  {
    auto in = (int32_t*)load("reduce_shfl", "in", 1024 * 4);
    auto sums = (int32_t*)zeros(16), maxes = (int32_t*)zeros(16);
    reduce_shfl<<<4, 256>>>(in, sums, maxes);
    save("reduce_shfl", "sums", sums, 16); save("reduce_shfl", "maxes", maxes, 16);
  }
  {
    auto in = (int32_t*)load("atomics", "in", 512 * 4);
    auto hist = (int32_t*)zeros(64), maxv = (int32_t*)zeros(4);
    auto fsum = (float*)zeros(4); auto cas = (uint32_t*)zeros(4);
    atomics<<<4, 128>>>(in, hist, maxv, fsum, cas, 512);
    save("atomics", "hist", hist, 64); save("atomics", "maxv", maxv, 4);
    save("atomics", "fsum", fsum, 4); save("atomics", "cas_count", cas, 4);
  }
  {
    auto A = (float*)load("sgemm_tiled", "A", 64 * 64 * 4), B = (float*)load("sgemm_tiled", "B", 64 * 64 * 4);
    auto C = (float*)zeros(64 * 64 * 4);
    sgemm_tiled<<<dim3(4, 4), dim3(16, 16)>>>(A, B, C, 64, 64, 64);
    save("sgemm_tiled", "C", C, 64 * 64 * 4);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::printf("plain_check: all kernels ran\n");
  return 0;
}
