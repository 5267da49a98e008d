// Holdout batch 6b (CUTLASS C++): our own instantiations of CUTLASS 4.2's SM100 GEMM through its
// public CollectiveBuilders, each choosing something batch 5a (kernels.h) does not: block-scaled
// operands, a 2-SM MMA over a 4x1 cluster, a fused per-column bias + ReLU epilogue (EVT), and the
// stream-K tile scheduler in split-K mode with a reduction workspace. Shared by the device
// sources (one HO_ENTRY per .cu) and the host Params dumper (params_dump.cpp).
#pragma once
#include "gemm_common.cuh"
#include <cutlass/epilogue/fusion/operations.hpp>
#include <cutlass/epilogue/thread/activation.h>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>

template <class OpClass, class ElemA, class ElemB, class MmaTile, class Cluster, class MainSched,
          class EpiSched, class ElemD, class Fusion, class Scheduler>
struct HoGemm6 {
  using LayoutA = cutlass::layout::RowMajor;     // K-major A
  using LayoutB = cutlass::layout::ColumnMajor;  // K-major B
  using LayoutD = cutlass::layout::RowMajor;
  static constexpr int AlignA = 16;  // elements: 16 bytes of fp8, 32 bytes of 16-bit types
  static constexpr int AlignB = 16;
  static constexpr int AlignD = 16 / sizeof(ElemD);

  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp, MmaTile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float,
      void, LayoutD, AlignD,   // no C source
      ElemD, LayoutD, AlignD, EpiSched, Fusion>::CollectiveOp;

  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm100, OpClass, ElemA, LayoutA, AlignA, ElemB, LayoutB, AlignB, float,
      MmaTile, Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      MainSched>::CollectiveOp;

  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop,
                                                      Epilogue, Scheduler>;
};

namespace ho6 {
using namespace cute;
using Plain = cutlass::epilogue::fusion::LinearCombination<float, float>;
using Tc = cutlass::arch::OpClassTensorOp;

// MXFP8: e4m3 x e4m3 with one ue8m0 scale per 32 K on each operand (kind::mxf8f6f4.block_scale,
// scale factors moved into TMEM by tcgen05.cp), 1-SM 128x128x128, f32 out by TMA store.
using Mxf8 = HoGemm6<cutlass::arch::OpClassBlockScaledTensorOp,
                     cutlass::mx_float8_t<cutlass::float_e4m3_t>,
                     cutlass::mx_float8_t<cutlass::float_e4m3_t>, Shape<_128, _128, _128>,
                     Shape<_1, _1, _1>, cutlass::gemm::KernelTmaWarpSpecialized1SmMxf8f6f4Sm100,
                     cutlass::epilogue::TmaWarpSpecialized1Sm, float,
                     cutlass::epilogue::fusion::LinearCombination<float, float>, void>;

// The same MXFP8 GEMM on a 2-SM UMMA 256x128x128 (cta_group::2) over a 2x1 cluster: the scale
// factors of the pair's A halves go to both CTAs' TMEM (tcgen05.cp.cta_group::2).
using Mxf8_2sm = HoGemm6<cutlass::arch::OpClassBlockScaledTensorOp,
                         cutlass::mx_float8_t<cutlass::float_e4m3_t>,
                         cutlass::mx_float8_t<cutlass::float_e4m3_t>, Shape<_256, _128, _128>,
                         Shape<_2, _1, _1>,
                         cutlass::gemm::KernelTmaWarpSpecialized2SmMxf8f6f4Sm100,
                         cutlass::epilogue::TmaWarpSpecialized2Sm, float, Plain, void>;

// bf16, 2-SM UMMA 256x128x64 over a 4x1 cluster: two CTA pairs share B by multicast.
using Bf16_2sm_c4 = HoGemm6<Tc, cutlass::bfloat16_t, cutlass::bfloat16_t, Shape<_256, _128, _64>,
                            Shape<_4, _1, _1>, cutlass::gemm::KernelTmaWarpSpecialized2SmSm100,
                            cutlass::epilogue::TmaWarpSpecialized2Sm, float, Plain, void>;

// f16 -> f16 with the fused epilogue D = relu(alpha * acc + bias[n]) (f32 bias broadcast along
// the columns), 1-SM 128x64x64, TMA-store epilogue.
using F16BiasRelu = HoGemm6<
    Tc, cutlass::half_t, cutlass::half_t, Shape<_128, _64, _64>, Shape<_1, _1, _1>,
    cutlass::gemm::KernelTmaWarpSpecialized1SmSm100, cutlass::epilogue::TmaWarpSpecialized1Sm,
    cutlass::half_t,
    cutlass::epilogue::fusion::LinCombPerColBiasEltAct<cutlass::epilogue::thread::ReLu,
                                                       cutlass::half_t, float, float>,
    void>;

// f16, 1-SM 128x128x64, stream-K scheduler run in split-K mode (3 splits): partial tiles meet in
// a workspace with a deterministic (turnstile) reduction.
using F16SplitK = HoGemm6<Tc, cutlass::half_t, cutlass::half_t, Shape<_128, _128, _64>,
                          Shape<_1, _1, _1>, cutlass::gemm::KernelTmaWarpSpecialized1SmSm100,
                          cutlass::epilogue::TmaWarpSpecialized1Sm, float, Plain,
                          cutlass::gemm::StreamKScheduler>;
}  // namespace ho6
