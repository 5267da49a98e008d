"""Run the Triton corpus kernels on a real GPU and compare with the numpy expectations.

    python3 kernels/triton/_hw_check.py        # on a machine with a CUDA GPU, torch and triton

An independent check of the corpus' expected outputs (and of each case's arguments, grid and
tolerance): the same kernel sources and the same seeded inputs, run by real hardware through
Triton's own launcher, must land within the tolerance the spec records. It runs on whatever GPU
is present (a Hopper lowers `tl.dot` to wgmma rather than tcgen05, and emulates dot_scaled), so
it checks the numbers, not the sm_100a code paths. Not run by regen.py; needs no pinned versions.
Kernels that need Blackwell (Gluon tcgen05, CuTe DSL) are not covered.
"""
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

TORCH_DTYPE = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
               "fp8e4m3": torch.float8_e4m3fn, "u8": torch.uint8, "f64": torch.float64}


def to_device(b):
    if isinstance(b, regen.Input):
        arr = np.ascontiguousarray(b.array)
        t = torch.from_numpy(arr.copy())
        if b.dtype == "bf16":
            t = t.view(torch.int16).view(torch.bfloat16)
        elif b.dtype == "fp8e4m3":
            t = t.view(torch.float8_e4m3fn)
        return t.cuda()
    return torch.zeros(b.shape, dtype=TORCH_DTYPE[b.dtype], device="cuda")


def block_shape(sig: str):
    inner = sig.split("[", 1)[1].split("]", 1)[0]
    return [int(x) for x in inner.split(",")]


def run_case(k, case):
    from triton.tools.tensor_descriptor import TensorDescriptor
    tensors = {name: to_device(b) for name, b in case.buffers.items()}
    args = []
    for name, ty in k.signature.items():
        if ty == "constexpr":
            args.append(k.constexprs[name])
            continue
        v = case.args[name]
        if isinstance(v, regen.Ptr):
            args.append(tensors[v.buffer])
        elif isinstance(v, regen.HostTMA):
            args.append(TensorDescriptor.from_tensor(tensors[v.buffer], block_shape(ty)))
        else:
            args.append(v)
    grid = tuple(case.grid)
    k.fn[grid](*args, num_warps=k.num_warps, num_stages=k.num_stages)
    torch.cuda.synchronize()
    worst = []
    for name, b in case.buffers.items():
        if not isinstance(b, regen.Output) or b.expected is None:
            continue
        got = tensors[name].float().cpu().numpy().astype(np.float64)
        exp = np.asarray(b.expected, dtype=np.float64)
        err = np.abs(got - exp) - (b.atol + b.rtol * np.abs(exp))
        bad = int((err > 0).sum())
        worst.append(f"{name}: {bad} of {exp.size} outside rtol={b.rtol} atol={b.atol}, "
                     f"max |got-exp| = {np.abs(got - exp).max():.3g}")
        if bad:
            raise AssertionError("; ".join(worst))
    return "; ".join(worst)


def main():
    def alloc(size, alignment, stream):
        return torch.empty(size, dtype=torch.int8, device="cuda")
    triton.set_allocator(alloc)
    print(f"device: {torch.cuda.get_device_name()}, triton {triton.__version__}")
    failures = 0
    for path in sorted((REPO / "kernels" / "triton").glob("[!_]*.py")):
        rel = str(path.relative_to(REPO))
        mod = regen.load_kernel_module(rel)
        for k in mod.KERNELS:
            for case in k.cases():
                if not any(isinstance(b, regen.Output) and b.expected is not None
                           for b in case.buffers.values()):
                    continue
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
    import os
    os.chdir(REPO)
    sys.exit(main())
