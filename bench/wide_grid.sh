#!/bin/sh
# `run` against `run --races` on wide elementwise grids (docs/arch/race.md, "Generations"):
# the corpus's Triton axpy (masked: two scalar loads and a store per pair of elements, 4 warps
# per CTA) over GRID CTAs of 256 elements each, with random inputs; user CPU seconds and peak
# resident memory of each whole process (`/usr/bin/time`). Usage:
#   bench/wide_grid.sh [TMEMU_BINARY] [THREADS] [GRID...]     (defaults: target/release/tmemu 1 4096 16384 65536)
set -e
cd "$(dirname "$0")/.."
T=$(realpath "${1:-target/release/tmemu}")
THREADS=${2:-1}
shift 2 2>/dev/null || shift $#
GRIDS=${*:-4096 16384 65536}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
cp tests/corpus/kernels/triton/axpy.ptx "$D/"
for G in $GRIDS; do
    N=$((G * 256))
    cat > "$D/axpy$G.toml" <<SPEC
ptx = "axpy.ptx"
kernel = "axpy_kernel"
grid = [$G, 1, 1]
block = [128, 1, 1]
[buffers.x]
dtype = "f32"
shape = [$N]
random = { seed = 1, low = -1.0, high = 1.0 }
[buffers.y]
dtype = "f32"
shape = [$N]
random = { seed = 2, low = -1.0, high = 1.0 }
[buffers.out]
dtype = "f32"
shape = [$N]
fill = "zeros"
[[arg]]
buffer = "x"
[[arg]]
buffer = "y"
[[arg]]
buffer = "out"
[[arg]]
value = 1.5
[[arg]]
value = $N
[[arg]]
value = 0
[[arg]]
value = 0
SPEC
    for mode in run "run --races"; do
        /usr/bin/time -f "$G CTAs, $mode: %U s user, %e s wall, %M KB" \
            $T $mode "$D/axpy$G.toml" --threads "$THREADS" > /dev/null
    done
done
