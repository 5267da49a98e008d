// Holdout batch 6b (CUTLASS C++): ho6::Mxf8_2sm in kernels6.h (MXFP8 block-scaled, 2-SM UMMA over
// a 2x1 cluster).
#include "kernels6.h"

HO_ENTRY(ho6_cutlass_mxf8_2sm, ho6::Mxf8_2sm::Kernel)
