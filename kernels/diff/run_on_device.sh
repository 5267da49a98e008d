#!/usr/bin/env bash
# Builds and runs the differential harness on a machine with an sm_90 GPU (H100/H200) and CUDA.
# Usage: kernels/diff/run_on_device.sh OUTDIR   (OUTDIR defaults to $OUT, then /tmp/tmemu-diff)
# Then copy OUTDIR/{manifest.json,inputs.bin,outputs.bin} to tests/corpus/diff/h100/.
# and compress each .bin there with `xz -9e` (recordings are committed as .bin.xz;
# tmemu_testkit::recording reads either).
set -euo pipefail
cd "$(dirname "$0")"
dest=${1:-${OUT:-/tmp/tmemu-diff}}
mkdir -p "$dest"
nvcc --version | tail -n 2
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -diag-suppress 550 -o /tmp/tmemu-diff-harness harness.cu
/tmp/tmemu-diff-harness "$dest"
ls -la "$dest"
