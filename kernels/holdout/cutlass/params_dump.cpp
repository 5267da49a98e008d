// Host-only helper of the batch 5a generator (kernels/holdout/cutlass_cases.py): builds the
// `Params` of one of our CUTLASS GEMM instantiations with CUTLASS's own host code
// (GemmUniversal::to_underlying_arguments, get_grid_shape, get_block_shape) and prints, as JSON,
// everything a tmemu launch spec needs: the raw Params bytes, where the device pointers and the
// TMA descriptors sit in them (found by tagging), what CUTLASS asked cuTensorMapEncodeTiled
// for, offsetof of the top-level fields, grid, block, cluster and dynamic shared memory.
//
// There is no GPU or driver here: cuTensorMapEncodeTiled is defined below (CUTLASS calls it
// directly with CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL) and records its arguments, writing a
// tag into the 128-byte map so that its copy inside Params can be found.
//
// Built by the generator: g++ -std=c++17 -DHO_KERNEL=<1|2|...> -I<cutlass> -I<cuda include>.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>
#include <cuda.h>

namespace {
struct MapCall {
  int dtype, rank;
  uint64_t addr;
  uint64_t dims[5], strides[5];
  uint32_t box[5], estr[5];
  int interleave, swizzle, l2, oob;
};
std::vector<MapCall> g_maps;
constexpr uint64_t kMapTag = 0x7a4d4d4554534f48ull;  // "HOSTEMMz"
}  // namespace

extern "C" CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType dtype,
                                           cuuint32_t rank, void* addr, const cuuint64_t* dims,
                                           const cuuint64_t* strides, const cuuint32_t* box,
                                           const cuuint32_t* estr, CUtensorMapInterleave il,
                                           CUtensorMapSwizzle sw, CUtensorMapL2promotion l2,
                                           CUtensorMapFloatOOBfill oob) {
  MapCall c{};
  c.dtype = dtype;
  c.rank = (int)rank;
  c.addr = (uint64_t)addr;
  for (cuuint32_t i = 0; i < rank && i < 5; ++i) {
    c.dims[i] = dims[i];
    c.strides[i] = i + 1 < rank ? strides[i] : 0;  // rank-1 strides, dimension 0 implicit
    c.box[i] = box[i];
    c.estr[i] = estr[i];
  }
  c.interleave = il;
  c.swizzle = sw;
  c.l2 = l2;
  c.oob = oob;
  std::memset(map, 0, sizeof(*map));
  uint64_t tag[2] = {kMapTag, (uint64_t)g_maps.size()};
  std::memcpy(map, tag, sizeof(tag));
  g_maps.push_back(c);
  return CUDA_SUCCESS;
}

#include "gemm_common.cuh"
#include <cutlass/util/packed_stride.hpp>
#define HO_PARAMS_DUMP 1

namespace {
// Distinctive fake device addresses; the generator maps them back to buffers.
constexpr uint64_t kPtrA = 0x00005a0000000000ull, kPtrB = 0x00005b0000000000ull,
                   kPtrD = 0x00005d0000000000ull;
// batch 6b: scale factors, bias, workspace
constexpr uint64_t kPtrSfa = 0x00005fa000000000ull, kPtrSfb = 0x00005fb000000000ull,
                   kPtrBias = 0x00005e0000000000ull, kPtrW = 0x0000570000000000ull;

// What a kernel needs beyond A, B, D and alpha = 1, beta = 0 (batch 6b): `args` sets its extra
// Arguments, `print` adds JSON members (ending in ",\n"). Batch 5a uses the empty one.
struct NoSetup {
  template <class Args> void args(Args&, int, int, int) const {}
  void print(int, int, int) const {}
};

template <class K, class Setup = NoSetup>
int dump(int M, int N, int K_, const char* name, Setup setup = {}) {
  using namespace cute;
  using Args = typename K::Arguments;
  using StrideA = typename K::CollectiveMainloop::StrideA;
  using StrideB = typename K::CollectiveMainloop::StrideB;
  using StrideD = typename K::CollectiveEpilogue::StrideD;
  using StrideC = typename K::CollectiveEpilogue::StrideC;
  Args args{};
  args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
  args.problem_shape = {M, N, K_, 1};
  args.mainloop.ptr_A = reinterpret_cast<decltype(args.mainloop.ptr_A)>(kPtrA);
  args.mainloop.dA = cutlass::make_cute_packed_stride(StrideA{}, make_shape(M, K_, 1));
  args.mainloop.ptr_B = reinterpret_cast<decltype(args.mainloop.ptr_B)>(kPtrB);
  args.mainloop.dB = cutlass::make_cute_packed_stride(StrideB{}, make_shape(N, K_, 1));
  args.epilogue.thread.alpha = 1.0f;
  args.epilogue.thread.beta = 0.0f;
  args.epilogue.ptr_C = nullptr;
  args.epilogue.dC = cutlass::make_cute_packed_stride(StrideC{}, make_shape(M, N, 1));
  args.epilogue.ptr_D = reinterpret_cast<decltype(args.epilogue.ptr_D)>(kPtrD);
  args.epilogue.dD = cutlass::make_cute_packed_stride(StrideD{}, make_shape(M, N, 1));
  args.hw_info.device_id = 0;
  args.hw_info.sm_count = 148;  // B200
  setup.args(args, M, N, K_);
  if (!K::can_implement(args)) {
    std::fprintf(stderr, "%s: can_implement refused the problem\n", name);
    return 1;
  }
  // A workspace (stream-K's partial tiles and turnstile flags) is a buffer of its own; CUTLASS's
  // initialize_workspace zeroes the flags, the spec zero-fills all of it.
  size_t ws = K::get_workspace_size(args);
  // Construct the Params in zeroed storage (C++17 guaranteed elision: the returned prvalue
  // initialises it in place), so padding bytes print as 0, not as stale stack contents.
  alignas(typename K::Params) static unsigned char storage[sizeof(typename K::Params)];
  std::memset(storage, 0, sizeof(storage));
  typename K::Params& p =
      *new (storage) typename K::Params(K::to_underlying_arguments(args, ws ? reinterpret_cast<void*>(kPtrW) : nullptr));
  dim3 grid = K::get_grid_shape(p);
  dim3 block = K::get_block_shape();
  auto cl = typename K::DispatchPolicy::ClusterShape{};
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&p);
  std::printf("{\"name\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d,\n", name, M, N, K_);
  std::printf(" \"sizeof\": %zu, \"alignof\": %zu,\n", sizeof(p), alignof(decltype(p)));
  std::printf(" \"fields\": {\"mode\": %zu, \"problem_shape\": %zu, \"mainloop\": %zu, "
              "\"epilogue\": %zu, \"scheduler\": %zu, \"hw_info\": %zu},\n",
              offsetof(typename K::Params, mode), offsetof(typename K::Params, problem_shape),
              offsetof(typename K::Params, mainloop), offsetof(typename K::Params, epilogue),
              offsetof(typename K::Params, scheduler), offsetof(typename K::Params, hw_info));
  std::printf(" \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u],\n", grid.x, grid.y, grid.z,
              block.x, block.y, block.z);
  std::printf(" \"cluster\": [%d, %d, %d], \"shared_bytes\": %d,\n", int(size<0>(cl)),
              int(size<1>(cl)), int(size<2>(cl)), int(K::SharedStorageSize));
  std::printf(" \"ptrs\": {\"a\": %llu, \"b\": %llu, \"d\": %llu, \"sfa\": %llu, \"sfb\": %llu, "
              "\"bias\": %llu, \"w\": %llu},\n",
              (unsigned long long)kPtrA, (unsigned long long)kPtrB, (unsigned long long)kPtrD,
              (unsigned long long)kPtrSfa, (unsigned long long)kPtrSfb,
              (unsigned long long)kPtrBias, (unsigned long long)kPtrW);
  std::printf(" \"workspace\": %zu,\n", ws);
  setup.print(M, N, K_);
  std::printf(" \"map_tag\": %llu,\n", (unsigned long long)kMapTag);
  std::printf(" \"maps\": [");
  for (size_t i = 0; i < g_maps.size(); ++i) {
    const MapCall& c = g_maps[i];
    std::printf("%s\n  {\"dtype\": %d, \"rank\": %d, \"addr\": %llu, \"dims\": [", i ? "," : "",
                c.dtype, c.rank, (unsigned long long)c.addr);
    for (int d = 0; d < c.rank; ++d) std::printf("%s%llu", d ? ", " : "", (unsigned long long)c.dims[d]);
    std::printf("], \"strides\": [");
    for (int d = 0; d + 1 < c.rank; ++d) std::printf("%s%llu", d ? ", " : "", (unsigned long long)c.strides[d]);
    std::printf("], \"box\": [");
    for (int d = 0; d < c.rank; ++d) std::printf("%s%u", d ? ", " : "", c.box[d]);
    std::printf("], \"estr\": [");
    for (int d = 0; d < c.rank; ++d) std::printf("%s%u", d ? ", " : "", c.estr[d]);
    std::printf("], \"interleave\": %d, \"swizzle\": %d, \"l2\": %d, \"oob\": %d}", c.interleave,
                c.swizzle, c.l2, c.oob);
  }
  std::printf("],\n \"bytes\": \"");
  for (size_t i = 0; i < sizeof(p); ++i) std::printf("%02x", bytes[i]);
  std::printf("\"}\n");
  return 0;
}
}  // namespace

#include "kernels.h"
#include "kernels6.h"

namespace {
// Block-scaled kernels: the scale-factor pointers and CUTLASS's interleaved scale layouts
// (Sm1xxBlkScaledConfig), and, for the reference, the offset CUTLASS's layout gives each
// (row, 32-element K block) of A and of B.
template <class K>
struct BlockScaled {
  using Cfg = typename K::CollectiveMainloop::Sm1xxBlkScaledConfig;
  template <class Args> void args(Args& a, int M, int N, int K_) const {
    a.mainloop.ptr_SFA = reinterpret_cast<decltype(a.mainloop.ptr_SFA)>(kPtrSfa);
    a.mainloop.layout_SFA = Cfg::tile_atom_to_shape_SFA(cute::make_shape(M, N, K_, 1));
    a.mainloop.ptr_SFB = reinterpret_cast<decltype(a.mainloop.ptr_SFB)>(kPtrSfb);
    a.mainloop.layout_SFB = Cfg::tile_atom_to_shape_SFB(cute::make_shape(M, N, K_, 1));
  }
  void print(int M, int N, int K_) const {
    using namespace cute;
    auto la = Cfg::tile_atom_to_shape_SFA(make_shape(M, N, K_, 1));
    auto lb = Cfg::tile_atom_to_shape_SFB(make_shape(M, N, K_, 1));
    constexpr int V = Cfg::SFVecSize;
    std::printf(" \"sf_vec\": %d, \"sfa_size\": %d, \"sfb_size\": %d,\n", V,
                int(size(filter_zeros(la))), int(size(filter_zeros(lb))));
    std::printf(" \"sfa_offsets\": [");
    for (int m = 0; m < M; ++m)
      for (int kb = 0; kb < K_ / V; ++kb)
        std::printf("%s%d", m + kb ? ", " : "", int(la(m, kb * V, 0)));
    std::printf("],\n \"sfb_offsets\": [");
    for (int n = 0; n < N; ++n)
      for (int kb = 0; kb < K_ / V; ++kb)
        std::printf("%s%d", n + kb ? ", " : "", int(lb(n, kb * V, 0)));
    std::printf("],\n");
  }
};
// D = relu(alpha * acc + bias[n]): alpha 1/2 (exact), the bias pointer.
struct BiasRelu {
  template <class Args> void args(Args& a, int, int, int) const {
    a.epilogue.thread.alpha = 0.5f;
    a.epilogue.thread.bias_ptr = reinterpret_cast<decltype(a.epilogue.thread.bias_ptr)>(kPtrBias);
  }
  void print(int, int, int) const { std::printf(" \"alpha\": 0.5,\n"); }
};
// The stream-K scheduler forced into split-K with 3 splits and the deterministic reduction.
struct SplitK3 {
  template <class Args> void args(Args& a, int, int, int) const {
    using Mode = decltype(a.scheduler.decomposition_mode);
    using Red = decltype(a.scheduler.reduction_mode);
    a.scheduler.splits = 3;
    a.scheduler.decomposition_mode = Mode::SplitK;
    a.scheduler.reduction_mode = Red::Deterministic;
  }
  void print(int, int, int) const { std::printf(" \"splits\": 3,\n"); }
};
}  // namespace

int ho_dump6(const char* which, int m, int n, int k) {
  if (!std::strcmp(which, "mxf8"))
    return dump<ho6::Mxf8::Kernel>(m, n, k, which, BlockScaled<ho6::Mxf8::Kernel>{});
  if (!std::strcmp(which, "mxf8_2sm"))
    return dump<ho6::Mxf8_2sm::Kernel>(m, n, k, which, BlockScaled<ho6::Mxf8_2sm::Kernel>{});
  if (!std::strcmp(which, "bf16_2sm_c4")) return dump<ho6::Bf16_2sm_c4::Kernel>(m, n, k, which);
  if (!std::strcmp(which, "f16_bias_relu"))
    return dump<ho6::F16BiasRelu::Kernel>(m, n, k, which, BiasRelu{});
  if (!std::strcmp(which, "f16_splitk"))
    return dump<ho6::F16SplitK::Kernel>(m, n, k, which, SplitK3{});
  return -1;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s KERNEL M N K\n", argv[0]);
    return 2;
  }
  int r = ho_dump6(argv[1], std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  if (r >= 0) return r;
  return ho_dump(argv[1], std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
}
