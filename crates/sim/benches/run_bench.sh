#!/usr/bin/env bash
# Engine benchmark driven by `tmemu run --stats` (release build).
#   - warp-instructions per second with --threads 1 on a compute-heavy kernel
#     (tests/corpus/engine/compute_loop.toml: 148 CTAs x 128 threads, 1000 fma iterations)
#     and on the Triton softmax over 2048 rows (tests/corpus/kernels/triton/softmax_bench2048.toml);
#   - the speed-up of --threads 2 over --threads 1 (median of 3 runs each);
#   - peak RSS of the 148-CTA launch (/usr/bin/time -v).
# Rates use the engine's own wall time (launch only, from --stats), not process start-up.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cargo build --release -q -p tmemu-cli --manifest-path "$root/Cargo.toml"
bin="$CARGO_TARGET_DIR/release/tmemu"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

median_rate() { # spec threads -> prints "rate_Mps wall_s warp_instr"
  local spec="$1" t="$2" rates=()
  for i in 1 2 3; do
    "$bin" run "$spec" --threads "$t" --stats "$tmp/s.json" > /dev/null
    rates+=("$(python3 -c "import json;d=json.load(open('$tmp/s.json'));print(d['warp_instructions']/d['wall_seconds']/1e6, d['wall_seconds'], d['warp_instructions'])")")
  done
  printf '%s\n' "${rates[@]}" | sort -n | sed -n 2p
}

for spec in "$root/tests/corpus/engine/compute_loop.toml" "$root/tests/corpus/kernels/triton/softmax_bench2048.toml"; do
  read -r r1 w1 n <<< "$(median_rate "$spec" 1)"
  read -r r2 w2 _ <<< "$(median_rate "$spec" 2)"
  python3 -c "print(f'$(basename "$spec"): {int($n)} warp-instr; --threads 1: {$r1:.2f} M warp-instr/s ({$w1:.3f} s); --threads 2: {$r2:.2f} M/s ({$w2:.3f} s); speed-up {$w1/$w2:.2f}x')"
done
# CPU time (user + sys of the whole process, spec loading included): on a shared, loaded
# machine the wall-clock rates above measure the load as much as the engine
for spec in "$root/tests/corpus/engine/compute_loop.toml" "$root/tests/corpus/kernels/triton/softmax_bench2048.toml"; do
  for t in 1 2; do
    /usr/bin/time -f "%U %S" -o "$tmp/cpu.txt" "$bin" run "$spec" --threads "$t" --stats "$tmp/s.json" > /dev/null
    python3 -c "import json;d=json.load(open('$tmp/s.json'));u,s=map(float,open('$tmp/cpu.txt').read().split());print(f'$(basename "$spec") --threads $t: {d[\"warp_instructions\"]/(u+s)/1e6:.2f} M warp-instr per CPU-second ({u+s:.3f} CPU s, {d[\"wall_seconds\"]:.3f} s wall)')"
  done
done
/usr/bin/time -v "$bin" run "$root/tests/corpus/engine/compute_loop.toml" 2> "$tmp/time.txt" > /dev/null
echo "148-CTA launch (compute_loop): $(grep 'Maximum resident set size' "$tmp/time.txt")"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
