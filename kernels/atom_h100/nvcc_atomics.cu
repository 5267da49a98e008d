// The float/16-bit atomics CUDA 13 emits for sm_100a through its atomic intrinsics, for
// tmemu's engine test crates/sim/tests/sim/atom_vec.rs (nvcc_atomic_intrinsics_...): the PTX
// is committed as tests/corpus/atom_h100/nvcc_atomics.sm_100a.ptx.
// Regenerate: nvcc -arch=sm_100a -ptx nvcc_atomics.cu -o ../../tests/corpus/atom_h100/nvcc_atomics.sm_100a.ptx
// Thread t updates element t of each buffer with x[t] (x has 32 floats); float4's old .x goes
// to old[t].
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void nvcc_atomics(const float* x, float2* f2, float4* f4, float* old,
                                        __half2* h2, __nv_bfloat162* b2, __half* h,
                                        __nv_bfloat16* b, unsigned short* us, double* d) {
  int t = threadIdx.x;
  float v = x[t];
  atomicAdd(f2 + t, make_float2(v, -v));                // atom.global.add.v2.f32
  float4 o = atomicAdd(f4 + t, make_float4(v, 2.f * v, v * v, -1.f));  // atom.global.add.v4.f32
  old[t] = o.x;
  atomicAdd(h2 + t, __floats2half2_rn(v, 0.5f * v));     // atom.add.noftz.f16x2
  atomicAdd(b2 + t, __floats2bfloat162_rn(v, 0.5f * v)); // atom.add.noftz.bf16x2
  atomicAdd(h + t, __float2half_rn(v));                  // atom.add.noftz.f16
  atomicAdd(b + t, __float2bfloat16_rn(v));              // atom.add.noftz.bf16
  atomicCAS(us + t, (unsigned short)(t & 1), (unsigned short)(1000 + t));  // atom.global.cas.b16
  atomicAdd(d + t, (double)v);                           // atom.global.add.f64
}
