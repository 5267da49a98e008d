// Holdout batch 5a (CUTLASS C++): fp8 e4m3 x e4m3 -> f32 through CUTLASS 4.2's SM100
// CollectiveBuilder (ho5::E4m3_1sm in kernels.h): 1-SM UMMA kind::f8f6f4 128x64x128 over a
// cluster of 1x2 (the A tile multicast by TMA to both CTAs of the cluster), the epilogue
// straight from TMEM through registers to global memory (no shared memory, no TMA store), the
// CLC persistent scheduler with multicast responses.
#include "kernels.h"

HO_ENTRY(ho5_cutlass_e4m3_1sm, ho5::E4m3_1sm::Kernel)
