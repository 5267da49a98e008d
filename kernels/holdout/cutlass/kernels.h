// The batch 5a instantiations, shared by the device sources (one HO_ENTRY per .cu) and the
// host Params dumper (params_dump.cpp). HoGemm<A, B, MMA tile, cluster, mainloop schedule,
// epilogue schedule>; `::Kernel` is the GemmUniversal.
#pragma once
#include "gemm_common.cuh"

namespace ho5 {
using namespace cute;
// f16, 1-SM UMMA 128x128x64, cluster 1x1, TMA-store epilogue.
using F16_1sm = HoGemm<cutlass::half_t, cutlass::half_t, Shape<_128, _128, _64>, Shape<_1, _1, _1>,
                       cutlass::gemm::KernelTmaWarpSpecialized1SmSm100,
                       cutlass::epilogue::TmaWarpSpecialized1Sm>;
// bf16, 2-SM UMMA (cta_group::2) 256x128x64 over a cluster 2x1, TMA-store epilogue.
using Bf16_2sm = HoGemm<cutlass::bfloat16_t, cutlass::bfloat16_t, Shape<_256, _128, _64>,
                        Shape<_2, _1, _1>, cutlass::gemm::KernelTmaWarpSpecialized2SmSm100,
                        cutlass::epilogue::TmaWarpSpecialized2Sm>;
// fp8 e4m3, 1-SM UMMA 128x64x128 (kind::f8f6f4), cluster 1x2 (B multicast along the
// cluster's N... A multicast), epilogue straight from registers (no shared memory).
using E4m3_1sm = HoGemm<cutlass::float_e4m3_t, cutlass::float_e4m3_t, Shape<_128, _64, _128>,
                        Shape<_1, _2, _1>, cutlass::gemm::KernelTmaWarpSpecialized1SmSm100,
                        cutlass::epilogue::NoSmemWarpSpecialized1Sm>;
}  // namespace ho5

#ifdef HO_PARAMS_DUMP
inline int ho_dump(const char* which, int m, int n, int k) {
  if (!std::strcmp(which, "f16_1sm")) return dump<ho5::F16_1sm::Kernel>(m, n, k, which);
  if (!std::strcmp(which, "bf16_2sm")) return dump<ho5::Bf16_2sm::Kernel>(m, n, k, which);
  if (!std::strcmp(which, "e4m3_1sm")) return dump<ho5::E4m3_1sm::Kernel>(m, n, k, which);
  std::fprintf(stderr, "unknown kernel %s\n", which);
  return 2;
}
#endif
