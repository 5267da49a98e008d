#!/usr/bin/env bash
# Issue 7's whole-process comparison in one run, on the corpus Triton fp16 matmul at 1024^3:
#   1. `tmemu run` (bench/triton_1024.sh: whole process, median of REPEATS) beside numpy's f32
#      matmul of the same matrices          -> tmemu / numpy        (goal: <= 3x)
#   2. the same kernel source under Triton's own interpreter (bench/triton_interpret.py:
#      TRITON_INTERPRET=1, CPU torch)        -> interpreter / tmemu (goal: >= 20x)
# Also prints the machine load (uptime) before and after, since both are wall-clock figures.
#
#   bench/run_all.sh [THREADS] [REPEATS]      (defaults: 2 threads, 3 repeats)
#
# PYTHON: a python with numpy (default /work/kvenv/bin/python, else python3).
# INTERP_PYTHON: a python with triton 3.9.0 and CPU torch (default /work/venv-interp/bin/python;
#   set it up with: python3 -m venv /work/venv-interp && /work/venv-interp/bin/pip install
#   triton==3.9.0 torch numpy). Without it, part 2 is skipped and says so.
# INTERP_SIZE: the interpreter's M = N = K (default 1024; smaller only to try it quickly — the
#   ratio is then not comparable and is not printed).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
THREADS=${1:-2}
REPEATS=${2:-3}
if [ -z "${PYTHON:-}" ]; then
    if [ -x /work/kvenv/bin/python ]; then PYTHON=/work/kvenv/bin/python; else PYTHON=python3; fi
fi
INTERP_PYTHON=${INTERP_PYTHON:-/work/venv-interp/bin/python}
INTERP_SIZE=${INTERP_SIZE:-1024}
export PYTHON

echo "load before: $(uptime)"
T=$(mktemp)
trap 'rm -f "$T"' EXIT
bash "$ROOT/bench/triton_1024.sh" "$THREADS" "$REPEATS" | tee "$T"
interp_s=""
if [ -x "$INTERP_PYTHON" ] && "$INTERP_PYTHON" -c "import triton, torch" 2>/dev/null; then
    line=$("$INTERP_PYTHON" "$ROOT/bench/triton_interpret.py" --size "$INTERP_SIZE")
    echo "$line"
    interp_s=$line
else
    echo "interpreter: skipped ($INTERP_PYTHON has no triton + torch)"
fi
echo "load after:  $(uptime)"

echo "== summary (one run; --threads $THREADS) =="
"$PYTHON" - "$T" "$interp_s" "$INTERP_SIZE" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
interp = json.loads(sys.argv[2]) if sys.argv[2] else None
size = int(sys.argv[3])
# bench/triton_1024.sh's lines: "tmemu run (...): wall X s, CPU Y s", "numpy ...: wall X ms, CPU Y ms"
m = re.search(r"^tmemu run .*?wall ([0-9.]+) s, CPU ([0-9.]+) s", text, re.M)
n = re.search(r"^numpy f32 matmul .*?wall ([0-9.]+) ms, CPU ([0-9.]+) ms", text, re.M)
if not (m and n):
    sys.exit("run_all.sh: could not read bench/triton_1024.sh's output (format changed?)")
tw, tc = float(m.group(1)), float(m.group(2))
nw, nc = float(n.group(1)) / 1e3, float(n.group(2)) / 1e3
print(f"tmemu run (whole process):  wall {tw:.3f} s, CPU {tc:.3f} s")
print(f"numpy f32 matmul:           wall {nw * 1e3:.2f} ms, CPU {nc * 1e3:.2f} ms")
print(f"tmemu / numpy:              wall {tw / nw:.1f}x, CPU {tc / nc:.1f}x   (goal <= 3x)")
if interp:
    iw, ic = interp["seconds"], interp["cpu_seconds"]
    print(f"Triton interpreter {size}^3:  wall {iw:.3f} s, CPU {ic:.3f} s")
    if size == 1024:
        print(f"interpreter / tmemu:        wall {iw / tw:.1f}x, CPU {ic / tc:.1f}x   (goal >= 20x)")
    else:
        print("interpreter / tmemu:        not comparable (INTERP_SIZE != 1024)")
PY
