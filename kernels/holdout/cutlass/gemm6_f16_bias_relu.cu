// Holdout batch 6b (CUTLASS C++): ho6::F16BiasRelu in kernels6.h (fused bias + ReLU epilogue).
#include "kernels6.h"

HO_ENTRY(ho6_cutlass_f16_bias_relu, ho6::F16BiasRelu::Kernel)
