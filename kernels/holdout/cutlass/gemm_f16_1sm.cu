// Holdout batch 5a (CUTLASS C++): f16 x f16 -> f32 through CUTLASS 4.2's SM100
// CollectiveBuilder (ho5::F16_1sm in kernels.h): 1-SM UMMA (tcgen05 cta_group::1) 128x128x64,
// cluster 1x1, TMA loads, TMA-store epilogue, the default persistent tile scheduler (Cluster
// Launch Control: clusterlaunchcontrol.try_cancel / query_cancel).
#include "kernels.h"

HO_ENTRY(ho5_cutlass_f16_1sm, ho5::F16_1sm::Kernel)
