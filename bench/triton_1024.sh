#!/usr/bin/env bash
# Issue 7's benchmark: the Triton fp16 matmul at 1024x1024x1024 under `tmemu run` (whole
# process, release build) beside numpy's f32 matmul of the same matrices, in the same run.
# Two PTX files of the same kernel source (kernels/triton/matmul.py), each timed:
#
#   jit     matmul_fp16_div16_bench1024.toml: the PTX Triton's JIT compiles for this launch with
#           torch tensors (pointers 16-byte aligned and every int divisible by 16 specialised as
#           tt.divisibility = 16, so operands are staged with 16-byte cp.async copies).
#           This is the kernel a Triton user gets, and issue 7's figure.
#   unspec  matmul_fp16_bench1024.toml: triton.compile without integer specialisation: every
#           operand element is a scalar predicated ld.global.b16 / st.shared.b16. Kept beside
#           it because sessions 2-3 measured this one.
#
#   bench/triton_1024.sh [THREADS] [REPEATS]     (defaults: tmemu's default threads = every
#                                                  core, 3 repeats; medians)
#
# THREADS: a number is passed as --threads N; "default" (or empty) passes nothing, so tmemu
# uses every core it may run on. TMEMU=/path/to/tmemu runs that binary instead of building this
# tree's (to compare two builds in one run: bench/ab_1024.sh).
#
# Wall seconds measure the machine's load as much as the programs on a shared machine, so CPU
# seconds (user + sys of the whole tmemu process; process CPU time of numpy's matmul call,
# all BLAS threads) are printed beside them.
#
# Both specs fill A and B with the same seeded random values. The timed runs are `tmemu run` of
# the spec as committed (what a user runs; numpy's figure does not include writing its result
# either). One more run of each, untimed, has `save` added to its buffers, so numpy multiplies
# exactly the matrices tmemu read and both products are checked against numpy's (f16 output:
# relative error < 1e-2). Writing the three 2 MB .npy files took 6-7 ms of a 43 ms run on the
# 2-core machine (session 14), so timing the saving run measured the benchmark's own check.
# Needs python3 with numpy (PYTHON=...; /work/kvenv/bin/python has it).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
THREADS=${1:-default}
REPEATS=${2:-3}
PYTHON=${PYTHON:-python3}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
if [ -z "${TMEMU:-}" ]; then
    (cd "$ROOT" && cargo build --release -q -p tmemu-cli)
    TMEMU=$TARGET/release/tmemu
fi
THREAD_ARGS=()
if [ -n "$THREADS" ] && [ "$THREADS" != default ]; then THREAD_ARGS=(--threads "$THREADS"); fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
DIR=$ROOT/tests/corpus/kernels/triton
# name, spec: absolute PTX path (bench.toml, timed); save.toml is bench.toml that also saves the
# three buffers next to it
for pair in jit:matmul_fp16_div16_bench1024 unspec:matmul_fp16_bench1024; do
    name=${pair%%:*}
    mkdir -p "$T/$name"
    sed -e "s#^ptx = \"#ptx = \"$DIR/#" "$DIR/${pair#*:}.toml" > "$T/$name/bench.toml"
    sed -e "s#^random = { seed = 1,#save = \"$T/$name/a.npy\"\nrandom = { seed = 1,#" \
        -e "s#^random = { seed = 2,#save = \"$T/$name/b.npy\"\nrandom = { seed = 2,#" \
        -e "s#^fill = \"zeros\"#save = \"$T/$name/c.npy\"\nfill = \"zeros\"#" \
        "$T/$name/bench.toml" > "$T/$name/save.toml"
    grep -q '^save = ' "$T/$name/save.toml" || { echo "triton_1024.sh: cannot add save to ${pair#*:}.toml" >&2; exit 1; }
    : > "$T/$name/times"
done
# timed OUT CMD...: runs CMD and writes "wall user sys" seconds to OUT with microsecond
# resolution (GNU time's %e/%U/%S are centiseconds: a 16-thread run takes a few of them)
timed() {
    local out=$1
    shift
    "$PYTHON" -c '
import os, resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.call(sys.argv[2:])
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{wall:.6f} {ru.ru_utime:.6f} {ru.ru_stime:.6f}\n")
sys.exit(rc)' "$out" "$@"
}
# wall and CPU (user + sys) seconds of the whole tmemu process, one line per repeat; the two
# kernels alternate so that both see the same load
for i in $(seq "$REPEATS"); do
    for name in jit unspec; do
        timed "$T/t" "$TMEMU" run "$T/$name/bench.toml" "${THREAD_ARGS[@]}" > "$T/$name/run.log" 2>&1 \
            || { cat "$T/$name/run.log"; exit 1; }
        cat "$T/t" >> "$T/$name/times"
    done
done
for name in jit unspec; do
    "$TMEMU" run "$T/$name/save.toml" "${THREAD_ARGS[@]}" > "$T/$name/save.log" 2>&1 \
        || { cat "$T/$name/save.log"; exit 1; }
done
"$PYTHON" - "$T" <<'PY'
import os, re, sys, time, statistics
import numpy as np
d = sys.argv[1]
KERNELS = [("jit", "JIT-specialised PTX, matmul_fp16_div16 (issue 7's figure)"),
           ("unspec", "unspecialised PTX, matmul_fp16 (scalar b16 staging)")]
a = np.load(f"{d}/jit/a.npy").astype(np.float32)
b = np.load(f"{d}/jit/b.npy").astype(np.float32)
for name, _ in KERNELS[1:]:
    assert np.array_equal(np.load(f"{d}/{name}/a.npy"), np.load(f"{d}/jit/a.npy")) and \
        np.array_equal(np.load(f"{d}/{name}/b.npy"), np.load(f"{d}/jit/b.npy")), \
        "the two specs did not read the same matrices"
# one untimed call first: BLAS starts its threads and pages its buffers on the first (a
# cold median moved between 8.8 and 14.4 ms on the 2-core machine, session 17)
a @ b
runs, cpus = [], []
for _ in range(5):
    t, p = time.perf_counter(), time.process_time()
    ref = a @ b
    runs.append(time.perf_counter() - t)
    cpus.append(time.process_time() - p)
npt, npc = statistics.median(runs), statistics.median(cpus)
errs = []
for name, what in KERNELS:
    rows = [list(map(float, l.split())) for l in open(f"{d}/{name}/times") if l.strip()]
    wall = statistics.median(r[0] for r in rows)
    cpu = statistics.median(r[1] + r[2] for r in rows)
    log = open(f"{d}/{name}/run.log").read()
    m = re.search(r"warp-instructions .*?, (\d+) threads?\)", log)
    n_instr = re.search(r"(\d+) warp-instructions", log)
    threads = m.group(1) if m else "?"
    c = np.load(f"{d}/{name}/c.npy").astype(np.float32)
    err = float(np.max(np.abs(c - ref)) / np.max(np.abs(ref)))
    errs.append((what, err))
    print(f"tmemu run [{name}] {what}: {n_instr.group(1) if n_instr else '?'} warp-instructions, "
          f"{threads} thread{'' if threads == '1' else 's'}")
    print(f"tmemu run [{name}] (whole process, median of {len(rows)}):  wall {wall * 1e3:.1f} ms, "
          f"CPU {cpu * 1e3:.1f} ms")
    print(f"ratio tmemu [{name}] / numpy:  wall {wall / npt:.1f}x, CPU {cpu / npc:.1f}x")
print(f"numpy f32 matmul (median of 5 after a warm-up call):  wall {npt * 1e3:.2f} ms, CPU {npc * 1e3:.2f} ms")
print(f"machine load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
# Which BLAS kernel numpy ran: a host may set OPENBLAS_CORETYPE (the device machine sets
# Haswell on AVX-512 CPUs), which slows a current numpy; compare with `env -u OPENBLAS_CORETYPE`.
try:
    import threadpoolctl
    for info in threadpoolctl.threadpool_info():
        print(f"numpy BLAS: {info.get('internal_api')} {info.get('architecture', '?')}, "
              f"{info.get('num_threads')} threads; OPENBLAS_CORETYPE="
              f"{os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
except ImportError:
    print("numpy BLAS: (threadpoolctl not installed)")
for what, err in errs:
    print(f"max |C_tmemu - A@B| / max |A@B| ({what}): {err:.2e}")
    assert err < 1e-2, f"tmemu's product ({what}) does not match numpy's"
PY
