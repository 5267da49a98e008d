// Shared by the batch 5a CUTLASS kernels: a GemmUniversal assembled from the SM100 collective
// builders, and an `extern "C"` entry point (so the PTX entry has a plain name) that does what
// cutlass::device_kernel does: one Params by value in param space, dynamic shared memory.
#pragma once
#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/dispatch_policy.hpp>

template <class ElemA, class ElemB, class MmaTile, class Cluster, class MainSched, class EpiSched,
          class ElemD = float>
struct HoGemm {
  using LayoutA = cutlass::layout::RowMajor;     // K-major A
  using LayoutB = cutlass::layout::ColumnMajor;  // K-major B
  using LayoutD = cutlass::layout::RowMajor;
  static constexpr int AlignA = 16 / sizeof(ElemA);
  static constexpr int AlignB = 16 / sizeof(ElemB);
  static constexpr int AlignD = 16 / sizeof(ElemD);

  using Epilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp, MmaTile, Cluster,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float,
      void, LayoutD, AlignD,   // no C source
      ElemD, LayoutD, AlignD, EpiSched>::CollectiveOp;

  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm100, cutlass::arch::OpClassTensorOp, ElemA, LayoutA, AlignA, ElemB,
      LayoutB, AlignB, float, MmaTile, Cluster,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename Epilogue::SharedStorage))>,
      MainSched>::CollectiveOp;

  // Tile scheduler `void`: the SM100 default, the persistent CLC scheduler.
  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop,
                                                      Epilogue, void>;
};

#ifdef __CUDACC__
#define HO_ENTRY(name, K)                                                                      \
  extern "C" __global__ __launch_bounds__(K::MaxThreadsPerBlock, K::MinBlocksPerMultiprocessor) \
  void name(__grid_constant__ typename K::Params const params) {                               \
    extern __shared__ char smem[];                                                             \
    K op;                                                                                      \
    op(params, smem);                                                                          \
  }
#endif
