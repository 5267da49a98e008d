#!/usr/bin/env bash
# Regenerates the committed PTX of the differential harness with the pinned nvcc of the kvenv
# (or NVCC=...): harness.sm_90a.ptx (the recording kernels) and cases.sm_90a.ptx (one kernel
# per arithmetic case, for the engine). Paths in .file directives are made repo-relative.
set -euo pipefail
cd "$(dirname "$0")"
nvcc=${NVCC:-/work/kvenv/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc}
out=../../tests/corpus/diff
"$nvcc" -arch=sm_90a -ptx -lineinfo -diag-suppress 550 -o "$out/harness.sm_90a.ptx" harness.cu
"$nvcc" -DDIFF_CASE_KERNELS -arch=sm_90a -ptx -lineinfo -diag-suppress 550 -o "$out/cases.sm_90a.ptx" harness.cu
for f in "$out/harness.sm_90a.ptx" "$out/cases.sm_90a.ptx"; do
  sed -i -E 's#"[^"]*/kernels/diff/harness.cu"#"kernels/diff/harness.cu"#; s#"[^"]*/include/#"cuda/include/#' "$f"
done
# cases.sm_90a.ptx is over 200 KB: committed as cases.sm_90a.ptx.xz (the tests and tmemu read the
# .xz when the plain file is absent), so the repository stays under the device's 64 MiB
python3 -c 'import lzma,sys; p=sys.argv[1]; open(p+".xz","wb").write(lzma.compress(open(p,"rb").read(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=9))' "$out/cases.sm_90a.ptx"
rm "$out/cases.sm_90a.ptx"
# harness.sm_90a.ptx is over 64 KiB: committed as harness.sm_90a.ptx.gz (level 9, mtime 0, no
# file name, as kernels/regen.py writes large PTX; tmemu and the tests read it likewise)
python3 -c 'import gzip,sys; p=sys.argv[1]; open(p+".gz","wb").write(gzip.compress(open(p,"rb").read(), compresslevel=9, mtime=0))' "$out/harness.sm_90a.ptx"
rm "$out/harness.sm_90a.ptx"
