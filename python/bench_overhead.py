"""Measures what tmemu.launch costs beyond the emulation itself, for a tiny kernel.

    python python/bench_overhead.py [N]

Overhead = wall time of tmemu.launch() − stats["wall_seconds"] (the engine's own run): PTX
parse + load, argument conversion and packing (tmemu-spec), buffer set-up, findings and
write-back. Prints the median and 90th percentile over N launches (default 500).
"""

import statistics
import sys
import time
from pathlib import Path

import numpy as np

import tmemu

HERE = Path(__file__).resolve().parent
KERNELS = [
    ("oob_store (hand-written, 1 CTA of 32 threads)", HERE / "tests" / "data" / "oob_store.ptx",
     lambda: dict(grid=1, block=32, args=[np.zeros(32, np.uint32), 0])),
    ("axpy (Triton, 4 CTAs of 128 threads, n=1000)",
     HERE.parent / "tests" / "corpus" / "kernels" / "triton" / "axpy.ptx",
     lambda: dict(grid=4, block=128, args=[np.ones(1000, np.float32), np.ones(1000, np.float32),
                                            np.zeros(1000, np.float32), 1.5, 1000, None, None])),
    ("softmax (Triton, 64 CTAs of 128 threads, 64x200 f32)",
     HERE.parent / "tests" / "corpus" / "kernels" / "triton" / "softmax.ptx",
     lambda: dict(grid=64, block=128, shared_bytes=16,
                  args=[np.zeros((64, 200), np.float32), np.ones((64, 200), np.float32),
                        200, 200, 200, None, None])),
]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    for label, path, make in KERNELS:
        text = path.read_text()
        kw = make()
        tmemu.launch(text, None, **kw)  # warm up
        over, emu = [], []
        for _ in range(n):
            t0 = time.perf_counter()
            r = tmemu.launch(text, None, **kw)
            total = time.perf_counter() - t0
            over.append(total - r.stats["wall_seconds"])
            emu.append(r.stats["wall_seconds"])
        over.sort()
        print(f"{label}: overhead median {statistics.median(over) * 1e3:.3f} ms, "
              f"p90 {over[int(0.9 * n)] * 1e3:.3f} ms; emulation median "
              f"{statistics.median(emu) * 1e3:.3f} ms ({len(text.splitlines())} PTX lines, {n} launches)")


if __name__ == "__main__":
    main()
