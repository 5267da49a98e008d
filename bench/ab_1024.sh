#!/usr/bin/env bash
# Two tmemu binaries on the Triton fp16 1024^3 matmul in one run, interleaved, so that both see
# the same machine load: per binary the median and the minimum of user+sys CPU seconds and of
# wall seconds over ROUNDS alternating runs, and the ratio of the medians.
#
#   bench/ab_1024.sh BEFORE AFTER [THREADS] [ROUNDS]     (defaults: 1 thread, 7 rounds)
#
# Both binaries run the same spec: issue 7's benchmark, the PTX Triton's JIT compiles
# (tests/corpus/kernels/triton/matmul_fp16_div16_bench1024.toml), or another one of that
# directory named by AB_SPEC (AB_SPEC=matmul_fp16_bench1024: the unspecialised kernel, whose PTX
# is committed as .ptx.gz, which binaries before 07ebc72 cannot read). The C buffer
# each computed is saved and compared byte for byte (they must agree). Times have microsecond
# resolution (GNU time's are centiseconds, too coarse for a 16-thread run).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=$(realpath "$1"); B=$(realpath "$2")
THREADS=${3:-1}
ROUNDS=${4:-7}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
SPEC=$ROOT/tests/corpus/kernels/triton/${AB_SPEC:-matmul_fp16_div16_bench1024}.toml
mkdir -p "$T/a" "$T/b"
for d in a b; do
    sed -e "s#^ptx = \"#ptx = \"$ROOT/tests/corpus/kernels/triton/#" \
        -e 's#^fill = "zeros"#save = "c.npy"\nfill = "zeros"#' "$SPEC" > "$T/$d/bench.toml"
done
: > "$T/times"
for i in $(seq "$ROUNDS"); do
    for d in a b; do
        bin=$A; [ "$d" = b ] && bin=$B
        (cd "$T/$d" && python3 -c '
import resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.call(sys.argv[2:], stdout=open("run.log", "w"), stderr=subprocess.STDOUT)
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write(f"{wall:.6f} {ru.ru_utime:.6f} {ru.ru_stime:.6f}\n")
sys.exit(rc)' "$T/t" "$bin" run bench.toml --threads "$THREADS") || { cat "$T/$d/run.log"; exit 1; }
        echo "$d $(cat "$T/t")" >> "$T/times"
    done
done
cmp "$T/a/c.npy" "$T/b/c.npy" || { echo "the two binaries computed different C"; exit 1; }
python3 - "$T/times" "$THREADS" <<'PY'
import os, statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
res = {}
for d in "ab":
    r = [(float(x[1]), float(x[2]) + float(x[3])) for x in rows if x[0] == d]
    w, c = [x[0] for x in r], [x[1] for x in r]
    res[d] = (statistics.median(w), min(w), statistics.median(c), min(c))
for d, name in (("a", "before"), ("b", "after")):
    mw, nw, mc, nc = res[d]
    print(f"{name}: wall median {mw:.3f} s (min {nw:.3f}), CPU median {mc:.3f} s (min {nc:.3f})")
print(f"after/before: wall {res['b'][0] / res['a'][0]:.2f}, CPU {res['b'][2] / res['a'][2]:.2f}"
      f"  ({len(rows) // 2} rounds, --threads {sys.argv[2]}, load {os.getloadavg()[0]:.1f}"
      f" on {os.cpu_count()} CPUs; C identical)")
PY
