// Holdout batch 5a (CUTLASS C++): bf16 x bf16 -> f32 through CUTLASS 4.2's SM100
// CollectiveBuilder (ho5::Bf16_2sm in kernels.h): 2-SM UMMA (tcgen05 cta_group::2, the pair
// allocator, commit multicast to both CTAs) 256x128x64 over a cluster of 2x1, TMA loads split
// across the pair, TMA-store epilogue, the CLC persistent scheduler with multicast responses.
#include "kernels.h"

HO_ENTRY(ho5_cutlass_bf16_2sm, ho5::Bf16_2sm::Kernel)
