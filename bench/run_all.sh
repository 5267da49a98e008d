#!/usr/bin/env bash
# Issue 7's whole-process comparison in one run, on the Triton fp16 matmul at 1024^3:
#   1. `tmemu run` (bench/triton_1024.sh: whole process, median of REPEATS) beside numpy's f32
#      matmul of the same matrices          -> tmemu / numpy        (goal: <= 3x)
#      for two PTX files of the same kernel source:
#        - the JIT-specialised one (matmul_fp16_div16): what Triton's JIT compiles for this launch
#          with torch tensors (16-byte aligned pointers and ints divisible by 16 specialised, so
#          operands are staged with 16-byte cp.async). What a Triton user runs: issue 7's figure.
#        - the unspecialised one (matmul_fp16): triton.compile with no int specialisation, every
#          operand element a scalar ld.global.b16; the figure sessions 2-3 reported, kept beside.
#   2. the same kernel source under Triton's own interpreter (bench/triton_interpret.py:
#      TRITON_INTERPRET=1, CPU torch)        -> interpreter / tmemu (goal: >= 20x)
# Also prints the machine load (uptime) before and after, since both are wall-clock figures.
#
#   bench/run_all.sh [THREADS] [REPEATS]      (defaults: tmemu's default threads, i.e. every
#                                               core; 3 repeats)
#
# PYTHON: a python with numpy (default /work/kvenv/bin/python, else python3).
# INTERP_PYTHON: a python with triton 3.9.0 and CPU torch (default /work/venv-interp/bin/python;
#   set it up with: python3 -m venv /work/venv-interp && /work/venv-interp/bin/pip install
#   triton==3.9.0 torch numpy). Without it, part 2 is skipped and says so.
# INTERP_SIZE: the interpreter's M = N = K (default 1024; smaller only to try it quickly — the
#   ratio is then not comparable and is not printed).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
THREADS=${1:-default}
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
# bench/triton_1024.sh's lines: "tmemu run [NAME] (...): wall X s, CPU Y s",
# "tmemu run [NAME] WHAT: N warp-instructions, T threads", "numpy ...: wall X ms, CPU Y ms"
n = re.search(r"^numpy f32 matmul .*?wall ([0-9.]+) ms, CPU ([0-9.]+) ms", text, re.M)
if not n:
    sys.exit("run_all.sh: could not read bench/triton_1024.sh's output (format changed?)")
nw, nc = float(n.group(1)) / 1e3, float(n.group(2)) / 1e3
KERNELS = [("jit", "JIT-specialised PTX (matmul_fp16_div16): what a Triton user's launch runs; "
                   "issue 7's figure"),
           ("unspec", "unspecialised PTX (matmul_fp16): scalar b16 staging; sessions 2-3's figure")]
times = {}
for name, what in KERNELS:
    m = re.search(rf"^tmemu run \[{name}\] \(.*?wall ([0-9.]+) s, CPU ([0-9.]+) s", text, re.M)
    i = re.search(rf"^tmemu run \[{name}\] .*?: (\d+) warp-instructions, (\S+) threads?", text, re.M)
    if not (m and i):
        sys.exit("run_all.sh: could not read bench/triton_1024.sh's output (format changed?)")
    tw, tc = float(m.group(1)), float(m.group(2))
    times[name] = (tw, tc)
    print(f"[{name}] {what}")
    print(f"  tmemu run (whole process, {i.group(2)} thread(s), {int(i.group(1)):,} warp-instructions): "
          f"wall {tw:.3f} s, CPU {tc:.3f} s")
    print(f"  tmemu / numpy:  wall {tw / nw:.1f}x, CPU {tc / nc:.1f}x   (goal <= 3x)")
print(f"numpy f32 matmul:  wall {nw * 1e3:.2f} ms, CPU {nc * 1e3:.2f} ms")
if interp:
    iw, ic = interp["seconds"], interp["cpu_seconds"]
    print(f"Triton interpreter {size}^3:  wall {iw:.3f} s, CPU {ic:.3f} s")
    if size == 1024:
        for name, _ in KERNELS:
            tw, tc = times[name]
            print(f"interpreter / tmemu [{name}]:  wall {iw / tw:.1f}x, CPU {ic / tc:.1f}x   (goal >= 20x)")
    else:
        print("interpreter / tmemu:  not comparable (INTERP_SIZE != 1024)")
PY
