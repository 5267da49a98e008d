// Holdout batch 6b (CUTLASS C++): ho6::Mxf8 in kernels6.h (MXFP8 block-scaled).
#include "kernels6.h"

HO_ENTRY(ho6_cutlass_mxf8, ho6::Mxf8::Kernel)
