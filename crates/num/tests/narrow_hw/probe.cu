// Hardware probe for tmemu-num's e4m3/e5m2 conversions: runs PTX `cvt.rn.satfinite{.relu}`
// .e4m3x2/.e5m2x2.f32 (sm_89+) and `cvt.rn.f16x2.{e4m3x2,e5m2x2}` on a GPU and writes the
// results, which crates/num/tests/num/narrow_hw.rs compares with our encoder and decoder.
//
// Build and run on a machine with an sm_89+ GPU (an H100 was used):
//   nvcc -O2 -arch=sm_90 -o probe probe.cu && ./probe e4m3_e5m2_h100.bin
// Output layout (N = number of inputs, see inputs()): N bytes e4m3, N e5m2, N e4m3 relu,
// N e5m2 relu (byte i = conversion of input i), then 256 u16 (f16 bits) e4m3 decode and
// 256 u16 e5m2 decode (entry c = value of code c), little-endian.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

// The input set; narrow_hw.rs builds the same list in the same order.
static std::vector<uint32_t> inputs() {
    std::vector<uint32_t> v;
    const uint32_t lows[4] = {0, 1, 0x4000, 0x7FFF};
    for (uint32_t sign = 0; sign < 2; sign++)
        for (int e = -18; e <= 17; e++)
            for (uint32_t top = 0; top < 256; top++)
                for (uint32_t l = 0; l < 4; l++)
                    v.push_back((sign << 31) | (uint32_t(e + 127) << 23) | (top << 15) | lows[l]);
    const uint32_t specials[] = {
        0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00000, 0x7F800001,
        0x7F7FFFFF, 0x49800000, 0x71800000, 0xF1800000, 0x00000001, 0x80000001, 0x00800000,
        0x43E80000, 0x43E00000, 0x43F00000, 0x47600000, 0x476F0000, 0x476EFFFF, 0xC3E80000};
    for (uint32_t s : specials) v.push_back(s);
    if (v.size() % 2) v.push_back(0);
    return v;
}

__global__ void encode(const float* in, uint8_t* out, int pairs) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pairs) return;
    float a = in[2 * p], b = in[2 * p + 1];
    unsigned short r[4];
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(r[0]) : "f"(a), "f"(b));
    asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(r[1]) : "f"(a), "f"(b));
    asm("cvt.rn.satfinite.relu.e4m3x2.f32 %0, %1, %2;" : "=h"(r[2]) : "f"(a), "f"(b));
    asm("cvt.rn.satfinite.relu.e5m2x2.f32 %0, %1, %2;" : "=h"(r[3]) : "f"(a), "f"(b));
    int n = 2 * pairs;
    for (int k = 0; k < 4; k++) {
        out[k * n + 2 * p] = r[k] >> 8;      // a = input 2p in the upper byte
        out[k * n + 2 * p + 1] = r[k] & 0xFF;
    }
}

__global__ void decode(uint16_t* out) {
    int c = threadIdx.x;
    unsigned short two = (unsigned short)((c << 8) | c);
    unsigned int d4, d5;
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(d4) : "h"(two));
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(d5) : "h"(two));
    out[c] = d4 & 0xFFFF;
    out[256 + c] = d5 & 0xFFFF;
}

int main(int argc, char** argv) {
    if (argc != 2) { fprintf(stderr, "usage: probe OUT.bin\n"); return 2; }
    std::vector<uint32_t> in = inputs();
    int n = (int)in.size(), pairs = n / 2;
    float* d_in; uint8_t* d_out; uint16_t* d_dec;
    cudaMalloc(&d_in, n * 4); cudaMalloc(&d_out, 4 * n); cudaMalloc(&d_dec, 512 * 2);
    cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice);
    encode<<<(pairs + 255) / 256, 256>>>(d_in, d_out, pairs);
    decode<<<1, 256>>>(d_dec);
    std::vector<uint8_t> out(4 * n);
    std::vector<uint16_t> dec(512);
    cudaMemcpy(out.data(), d_out, 4 * n, cudaMemcpyDeviceToHost);
    cudaMemcpy(dec.data(), d_dec, 1024, cudaMemcpyDeviceToHost);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(err)); return 1; }
    FILE* f = fopen(argv[1], "wb");
    fwrite(out.data(), 1, out.size(), f);
    fwrite(dec.data(), 2, dec.size(), f);
    fclose(f);
    printf("%d inputs, %zu bytes written\n", n, out.size() + 1024);
    return 0;
}
