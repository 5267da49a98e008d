"""Run the holdout Triton kernels on whatever CUDA GPU is present and compare with the numpy
expectations: an independent check that each kernel source, case (arguments, grid) and
tolerance is right. A Hopper lowers `tl.dot` to wgmma, not tcgen05, so this checks the numbers,
not the sm_100a code paths; Gluon tcgen05, CuTe DSL and the nvcc kernel need a Blackwell GPU.

    python3 kernels/holdout/hw_check.py      # needs torch and triton, no pinned versions
"""
import os
import sys
import traceback
from pathlib import Path

import numpy as np
import torch
import triton

REPO = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(REPO / "kernels"))
import regen  # noqa: E402

sys.modules.setdefault("regen", regen)

TORCH = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "u8": torch.uint8,
         "i32": torch.int32, "u32": torch.int32, "fp8e4m3": torch.float8_e4m3fn,
         "fp8e5m2": torch.float8_e5m2}


def to_device(b):
    if isinstance(b, regen.Input):
        arr = np.ascontiguousarray(b.array)
        t = torch.from_numpy(arr.copy())
        if b.dtype == "bf16":
            t = t.view(torch.int16).view(torch.bfloat16)
        elif b.dtype in ("fp8e4m3", "fp8e5m2"):
            t = t.view(TORCH[b.dtype])
        return t.cuda()
    return torch.zeros(b.shape, dtype=TORCH[b.dtype], device="cuda")


def run_case(k, case):
    tensors = {name: to_device(b) for name, b in case.buffers.items()}
    args = []
    for name, ty in k.signature.items():
        if ty == "constexpr":
            args.append(k.constexprs[name])
            continue
        v = case.args[name]
        args.append(tensors[v.buffer] if isinstance(v, regen.Ptr) else v)
    k.fn[tuple(case.grid)](*args, num_warps=k.num_warps, num_stages=k.num_stages,
                           num_ctas=k.num_ctas)
    torch.cuda.synchronize()
    notes = []
    for name, b in case.buffers.items():
        if not isinstance(b, regen.Output) or b.expected is None:
            continue
        t = tensors[name]
        got = (t.float() if t.is_floating_point() else t.double()).cpu().numpy().astype(np.float64)
        exp = np.asarray(b.expected, dtype=np.float64)
        bad = int((np.abs(got - exp) > b.atol + b.rtol * np.abs(exp)).sum())
        notes.append(f"{name}: {bad} of {exp.size} outside rtol={b.rtol} atol={b.atol}, "
                     f"max |got-exp| = {np.abs(got - exp).max():.3g}")
        if bad:
            raise AssertionError("; ".join(notes))
    return "; ".join(notes)


def main():
    print(f"device: {torch.cuda.get_device_name()}, triton {triton.__version__}")
    # Device-side tensor descriptors live in Triton's global scratch.
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8,
                                                                 device="cuda"))
    failures = 0
    for path in sorted((REPO / "kernels" / "holdout").glob("triton_*.py")):
        mod = regen.load_kernel_module(str(path.relative_to(REPO)))
        for k in mod.KERNELS:
            if "WS" in k.constexprs and torch.cuda.get_device_capability()[0] < 10:
                # Triton 3.6's Hopper warp specialisation returns wrong, varying numbers for
                # ho_ws_matmul (see triton_ws.py); check the kernel's logic without it.
                print(f"note {k.name}: warp specialisation off on this pre-Blackwell GPU")
                k.constexprs = dict(k.constexprs, WS=False)
            for case in k.cases():
                try:
                    print(f"PASS {case.name}: {run_case(k, case)}")
                except Exception as e:  # report every case, then fail
                    failures += 1
                    msg = str(e).strip().splitlines()
                    print(f"FAIL {case.name}: {type(e).__name__}: {msg[-1] if msg else ''}")
                    traceback.print_exc(limit=1, file=sys.stdout)
    print(f"{failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    os.chdir(REPO)
    sys.exit(main())
