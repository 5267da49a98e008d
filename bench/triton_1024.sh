#!/usr/bin/env bash
# The Triton fp16 matmul at 1024x1024x1024 under `tmemu run` (whole process, release build)
# beside numpy's f32 matmul of the same matrices, in the same run; prints both and the ratio.
#
#   bench/triton_1024.sh [THREADS] [REPEATS]     (defaults: 2 threads, 3 repeats; medians)
#
# TMEMU=/path/to/tmemu runs that binary instead of building this tree's (to compare two builds
# in one run: bench/ab_1024.sh).
#
# Wall seconds measure the machine's load as much as the programs on a shared machine, so CPU
# seconds (user + sys of the whole tmemu process; process CPU time of numpy's matmul call,
# all BLAS threads) are printed beside them.
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
if [ -z "${TMEMU:-}" ]; then
    (cd "$ROOT" && cargo build --release -q -p tmemu-cli)
    TMEMU=$TARGET/release/tmemu
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SPEC=$ROOT/tests/corpus/kernels/triton/matmul_fp16_bench1024.toml
# absolute PTX path; save the three buffers next to the copy of the spec
sed -e "s#^ptx = \"#ptx = \"$ROOT/tests/corpus/kernels/triton/#" \
    -e 's#^random = { seed = 1,#save = "a.npy"\nrandom = { seed = 1,#' \
    -e 's#^random = { seed = 2,#save = "b.npy"\nrandom = { seed = 2,#' \
    -e 's#^fill = "zeros"#save = "c.npy"\nfill = "zeros"#' \
    "$SPEC" > "$T/bench.toml"
# wall and CPU (user + sys) seconds of the whole tmemu process, one line per repeat
: > "$T/times"
for i in $(seq "$REPEATS"); do
    /usr/bin/time -o "$T/t" -f "%e %U %S" \
        "$TMEMU" run "$T/bench.toml" --threads "$THREADS" > "$T/run.log" 2>&1 || { cat "$T/run.log"; exit 1; }
    cat "$T/t" >> "$T/times"
done
"$PYTHON" - "$T" <<'PY'
import os, sys, time, statistics
import numpy as np
d = sys.argv[1]
rows = [list(map(float, l.split())) for l in open(f"{d}/times") if l.strip()]
tmemu = statistics.median(r[0] for r in rows)
tmemu_cpu = statistics.median(r[1] + r[2] for r in rows)
a = np.load(f"{d}/a.npy").astype(np.float32)
b = np.load(f"{d}/b.npy").astype(np.float32)
c = np.load(f"{d}/c.npy").astype(np.float32)
runs, cpus = [], []
for _ in range(5):
    t, p = time.perf_counter(), time.process_time()
    ref = a @ b
    runs.append(time.perf_counter() - t)
    cpus.append(time.process_time() - p)
npt, npc = statistics.median(runs), statistics.median(cpus)
err = float(np.max(np.abs(c - ref)) / np.max(np.abs(ref)))
n = len(rows)
print(f"tmemu run (whole process, median of {n}):  wall {tmemu:.3f} s, CPU {tmemu_cpu:.3f} s")
print(f"numpy f32 matmul (median of 5):           wall {npt * 1e3:.2f} ms, CPU {npc * 1e3:.2f} ms")
print(f"ratio tmemu / numpy:                       wall {tmemu / npt:.1f}x, CPU {tmemu_cpu / npc:.1f}x")
print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
print(f"max |C_tmemu - A@B| / max |A@B|:            {err:.2e}")
assert err < 1e-2, "tmemu's product does not match numpy's"
PY
