#!/usr/bin/env bash
# Runs the st_async_h100 recording on a machine with an sm_90 GPU (H100). Usage:
#   kernels/st_async_h100/run_on_device.sh OUTDIR [HARNESS_BINARY]
# Uses HARNESS_BINARY when given and runnable (built elsewhere with
# nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu), else builds it here.
# Then copy OUTDIR/{manifest.txt,dumps.bin} to tests/corpus/st_async_h100/.
# and compress each .bin there with `xz -9e` (recordings are committed as .bin.xz;
# tmemu_testkit::recording reads either).
set -uo pipefail
cd "$(dirname "$0")"
dest=${1:-${OUT:-/tmp/tmemu-st_async_h100}}
bin=${2:-}
mkdir -p "$dest"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
if [ -z "$bin" ] || ! timeout 120 "$bin" "$dest"; then
  export PATH=/usr/local/cuda/bin:$PATH
  nvcc --version | tail -n 1
  nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -o /tmp/tmemu-st_async_h100-harness harness.cu || exit 1
  timeout 120 /tmp/tmemu-st_async_h100-harness "$dest" || exit 1
fi
cat "$dest/manifest.txt" | head -5
