#!/bin/sh
# Regenerates alloca.ptx with nvcc 13.5 (the pinned toolkit of kernels/requirements.txt).
set -e
cd "$(dirname "$0")"
NVCC=${NVCC:-nvcc}
"$NVCC" -arch=sm_100a -ptx alloca.cu -o alloca.ptx
