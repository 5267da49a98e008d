#!/usr/bin/env bash
# Runs the mma.sync recording on a machine with an sm_90 GPU (H100). Usage:
#   kernels/mma_sync_h100/run_on_device.sh OUTDIR [HARNESS_BINARY]
# Uses HARNESS_BINARY when given and runnable (built elsewhere with
# nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu), else builds it here.
# Then copy OUTDIR/outputs.bin to tests/corpus/mma_sync_h100/,
# and compress each .bin there with `xz -9e` (recordings are committed as .bin.xz;
# tmemu_testkit::recording reads either).
set -uo pipefail
cd "$(dirname "$0")"
dest=${1:-${OUT:-/tmp/tmemu-mma-sync}}
bin=${2:-}
mkdir -p "$dest"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
inputs=../../tests/corpus/mma_sync_h100/inputs.bin
if [ ! -f "$inputs" ]; then  # committed compressed
  xz -dc "$inputs.xz" > "$dest/inputs.bin" || exit 1
  inputs=$dest/inputs.bin
fi
if [ -z "$bin" ] || ! "$bin" "$inputs" "$dest/outputs.bin"; then
  export PATH=/usr/local/cuda/bin:$PATH
  nvcc --version | tail -n 1
  nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o /tmp/tmemu-mma-sync-harness harness.cu || exit 1
  /tmp/tmemu-mma-sync-harness "$inputs" "$dest/outputs.bin" || exit 1
fi
ls -la "$dest"
