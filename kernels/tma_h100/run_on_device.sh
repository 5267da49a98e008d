#!/usr/bin/env bash
# Builds and runs the TMA recording on a machine with an sm_90 GPU and CUDA; one process per
# case. Usage: kernels/tma_h100/run_on_device.sh OUTDIR (default $OUT). Then copy
# OUTDIR/{manifest.txt,dumps.bin} to tests/corpus/tma_h100/.
set -uo pipefail
cd "$(dirname "$0")"
dest=${1:-${OUT:-/tmp/tmemu-tma}}
mkdir -p "$dest"
rm -f "$dest/manifest.txt" "$dest/dumps.bin"
export PATH=/usr/local/cuda/bin:$PATH
nvcc --version | tail -n 1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -Wno-deprecated-declarations -o /tmp/tmemu-tma-harness harness.cu || exit 1
n=$(/tmp/tmemu-tma-harness "$dest")
echo "# tmemu TMA H100 recording (kernels/tma_h100/harness.cu): one case per line" >"$dest/manifest.txt"
for ((k = 0; k < n; k++)); do /tmp/tmemu-tma-harness "$dest" "$k" >/dev/null || echo "case $k: exit $?"; done
cat "$dest/manifest.txt"
