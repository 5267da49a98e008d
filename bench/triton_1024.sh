#!/usr/bin/env bash
# The Triton fp16 matmul at 1024x1024x1024 under `tmemu run` (whole process, release build)
# beside numpy's f32 matmul of the same matrices, in the same run; prints both and the ratio.
#
#   bench/triton_1024.sh [THREADS] [REPEATS]     (defaults: 2 threads, 3 repeats; medians)
#
# The spec is tests/corpus/kernels/triton/matmul_fp16_bench1024.toml with `save` added to its
# buffers, so numpy multiplies exactly the matrices tmemu read (the spec's seeded random
# fill) and the product is checked against tmemu's C (f16 output: relative error < 1e-2).
# Needs python3 with numpy (PYTHON=...; /work/kvenv/bin/python has it).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
THREADS=${1:-2}
REPEATS=${2:-3}
PYTHON=${PYTHON:-python3}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
(cd "$ROOT" && cargo build --release -q -p tmemu-cli)
TMEMU=$TARGET/release/tmemu
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SPEC=$ROOT/tests/corpus/kernels/triton/matmul_fp16_bench1024.toml
# absolute PTX path; save the three buffers next to the copy of the spec
sed -e "s#^ptx = \"#ptx = \"$ROOT/tests/corpus/kernels/triton/#" \
    -e 's#^random = { seed = 1,#save = "a.npy"\nrandom = { seed = 1,#' \
    -e 's#^random = { seed = 2,#save = "b.npy"\nrandom = { seed = 2,#' \
    -e 's#^fill = "zeros"#save = "c.npy"\nfill = "zeros"#' \
    "$SPEC" > "$T/bench.toml"
times=()
for i in $(seq "$REPEATS"); do
    s=$(date +%s.%N)
    "$TMEMU" run "$T/bench.toml" --threads "$THREADS" > "$T/run.log" 2>&1 || { cat "$T/run.log"; exit 1; }
    e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc)")
done
"$PYTHON" - "$T" "${times[@]}" <<'PY'
import sys, time, statistics
import numpy as np
d = sys.argv[1]
tmemu = statistics.median(float(x) for x in sys.argv[2:])
a = np.load(f"{d}/a.npy").astype(np.float32)
b = np.load(f"{d}/b.npy").astype(np.float32)
c = np.load(f"{d}/c.npy").astype(np.float32)
runs = []
for _ in range(5):
    t = time.perf_counter()
    ref = a @ b
    runs.append(time.perf_counter() - t)
npt = statistics.median(runs)
err = float(np.max(np.abs(c - ref)) / np.max(np.abs(ref)))
print(f"tmemu run (whole process, median of {len(sys.argv) - 2}): {tmemu:.3f} s")
print(f"numpy f32 matmul (median of 5):            {npt * 1e3:.2f} ms")
print(f"ratio tmemu / numpy:                        {tmemu / npt:.1f}x")
print(f"max |C_tmemu - A@B| / max |A@B|:            {err:.2e}")
assert err < 1e-2, "tmemu's product does not match numpy's"
PY
