#!/bin/sh
# check against run on the corpus' largest kernels, ratios measured in one process
# (crates/host/examples/check_vs_run.rs says what each column is). Extra arguments are spec
# paths to measure instead of the default list. `--only run|race|check1 SPEC` does one
# measurement once, for perf or callgrind (figures: docs/arch/race.md, "Cost on real runs").
set -e
cd "$(dirname "$0")/.."
exec cargo run --release -q -p tmemu-host --example check_vs_run -- "$@"
