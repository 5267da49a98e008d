// Holdout batch 6b (CUTLASS C++): ho6::Bf16_2sm_c4 in kernels6.h (2-SM over a 4x1 cluster).
#include "kernels6.h"

HO_ENTRY(ho6_cutlass_bf16_2sm_c4, ho6::Bf16_2sm_c4::Kernel)
