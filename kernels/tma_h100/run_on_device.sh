#!/usr/bin/env bash
# Builds and runs the TMA recording on a machine with an sm_90 GPU and CUDA. Usage:
# kernels/tma_h100/run_on_device.sh OUTDIR [HARNESS] (OUTDIR defaults to $OUT; HARNESS is a
# prebuilt binary, else nvcc builds one). Then copy OUTDIR/{manifest.txt,dumps.bin} to
# and compress each .bin there with `xz -9e` (recordings are committed as .bin.xz;
# tmemu_testkit::recording reads either).
# tests/corpus/tma_h100/. A case that faults kills the CUDA context, so the harness stops
# after it and a new process goes on from the next case.
set -uo pipefail
cd "$(dirname "$0")"
dest=${1:-${OUT:-/tmp/tmemu-tma}}
bin=${2:-}
mkdir -p "$dest"
rm -f "$dest/manifest.txt" "$dest/dumps.bin"
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
if [ -z "$bin" ]; then
  nvcc --version | tail -n 1
  bin=/tmp/tmemu-tma-harness
  nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -Wno-deprecated-declarations -o "$bin" harness.cu || exit 1
fi
n=$("$bin" "$dest")
echo "# tmemu TMA H100 recording (kernels/tma_h100/harness.cu): one case per line" >"$dest/manifest.txt"
k=0
while ((k < n)); do
  next=$("$bin" "$dest" "$k" | sed -n 's/^next=//p')
  if [ -z "$next" ] || ((next <= k)); then echo "case $k: no progress"; next=$((k + 1)); fi
  k=$next
done
grep -c '^name=' "$dest/manifest.txt"
grep -v 'status=ok' "$dest/manifest.txt" | sed 's/ .* status=/ status=/'
