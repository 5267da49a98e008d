#!/usr/bin/env bash
# A/B of two tmemu binaries on the engine benchmarks, interleaved so both see the same machine:
#   crates/sim/benches/engine_ab.sh BIN_A BIN_B [RUNS]      (default 9 runs each)
# For the Triton softmax over 2048 rows and the compute loop, with --threads 1 and 2, prints
# every run's engine rate (warp_instructions / wall_seconds from --stats: the launch only) and
# the median, for A then B. Pinned to CPUs 2 and 3 (taskset) on hosts with 4 or more CPUs.
# Run from the repository root. Used for docs/arch/perf.md (binaries built here, run on the quiet
# device host).
set -euo pipefail
a=$1 b=$2 runs=${3:-9}
pin=()
if command -v taskset > /dev/null && [ "$(nproc)" -ge 4 ]; then pin=(taskset -c 2,3); fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "host: $(nproc) CPUs; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"; uptime
for spec in tests/corpus/kernels/triton/softmax_bench2048.toml tests/corpus/engine/compute_loop.toml; do
  for th in 1 2; do
    : > "$tmp/A"; : > "$tmp/B"
    for _ in $(seq "$runs"); do
      for side in A B; do
        bin=$a; [ "$side" = B ] && bin=$b
        "${pin[@]}" "$bin" run "$spec" --threads "$th" --stats "$tmp/s.json" > "$tmp/log" 2>&1 \
          || { tail -3 "$tmp/log"; exit 1; }
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%.2f' % (d['warp_instructions']/d['wall_seconds']/1e6))" "$tmp/s.json" >> "$tmp/$side"
      done
    done
    for side in A B; do
      sorted=$(sort -n "$tmp/$side" | tr '\n' ' ')
      med=$(sort -n "$tmp/$side" | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
      echo "$(basename "$spec") threads=$th $side: $sorted median $med M warp-instr/s"
    done
  done
done
uptime
