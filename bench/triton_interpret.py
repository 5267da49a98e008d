"""The corpus Triton fp16 matmul under Triton's own interpreter (TRITON_INTERPRET=1, CPU torch).

Runs the very `matmul_kernel` source of kernels/triton/matmul.py (extracted from that file, so
the two never drift apart) with the corpus's fp16 configuration (BLOCK 128x128x64, grid
M/128 x N/128) at M = N = K = 1024 by default, times the whole kernel call, checks the result
against numpy (f32 matmul of the same fp16 inputs, the corpus tolerance rtol 2e-3, atol 1e-3)
and prints one JSON line:

    {"what": "triton_interpret", "shape": [M, N, K], "seconds": wall, "cpu_seconds": ..., ...}

Needs a Python with triton and CPU torch (see bench/README.md: /work/venv-interp); tmemu's own
side of the comparison is bench/run_all.sh.

Usage: python bench/triton_interpret.py [--size 1024] [--repeat 1]
"""
import argparse
import ast
import json
import os
import pathlib
import sys
import time

# The interpreter is chosen when triton is imported.
os.environ["TRITON_INTERPRET"] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
KERNEL_FILE = ROOT / "kernels" / "triton" / "matmul.py"
# The corpus's fp16 configuration (kernels/triton/matmul.py VARIANTS["fp16"], _kernel).
BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 64


def load_kernel():
    """`matmul_kernel` from the corpus file, decorated with triton.jit in this process."""
    src = KERNEL_FILE.read_text()
    tree = ast.parse(src)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "matmul_kernel")
    module = ast.Module(body=[fn], type_ignores=[])
    ns = {"triton": triton, "tl": tl}
    # triton.jit reads the function's source through inspect; give it the real file.
    code = compile(module, str(KERNEL_FILE), "exec")
    exec(code, ns)
    return ns["matmul_kernel"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=1, help="best of N calls")
    args = ap.parse_args()
    M = N = K = args.size
    kernel = load_kernel()
    rng = np.random.default_rng(1)
    a = rng.uniform(-1, 1, size=(M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, size=(K, N)).astype(np.float16)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    tc = torch.empty((M, N), dtype=torch.float16)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    best, best_cpu = float("inf"), float("inf")
    for _ in range(args.repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        kernel[grid](ta, tb, tc, M, N, K, K, N, N,
                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    want = a.astype(np.float32) @ b.astype(np.float32)
    got = tc.numpy().astype(np.float32)
    err = float(np.max(np.abs(got - want)))
    ok = bool(np.allclose(got, want, rtol=2e-3, atol=1e-3))
    print(json.dumps({"what": "triton_interpret", "shape": [M, N, K], "seconds": best, "cpu_seconds": best_cpu,
                      "max_abs_err": err, "matches_numpy": ok,
                      "triton": triton.__version__, "torch": torch.__version__}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
