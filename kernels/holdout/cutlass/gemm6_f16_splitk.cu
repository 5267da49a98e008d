// Holdout batch 6b (CUTLASS C++): ho6::F16SplitK in kernels6.h (stream-K scheduler, split-K mode).
#include "kernels6.h"

HO_ENTRY(ho6_cutlass_f16_splitk, ho6::F16SplitK::Kernel)
