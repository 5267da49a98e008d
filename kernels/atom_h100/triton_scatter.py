"""Triton 3.9's vectorised atomic_add for sm_100a, for tmemu's engine test
crates/sim/tests/sim/atom_vec.rs (triton_vectorised_atomic_add_...): writes
tests/corpus/atom_h100/triton_scatter_{f16,f32}.ptx. With 16-byte divisible pointers Triton emits
`red.global.gpu.relaxed.add.noftz.v2.f16` and `red.global.gpu.relaxed.add.v2.f32`.

Run: /work/kvenv/bin/python kernels/atom_h100/triton_scatter.py   (pinned Triton 3.9.0)
"""
from pathlib import Path

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

OUT = Path(__file__).resolve().parents[2] / "tests" / "corpus" / "atom_h100"


@triton.jit
def scatter_add(x, y, n, BLOCK: tl.constexpr):
    # every program adds its BLOCK values of y into the same BLOCK-long window of x
    pid = tl.program_id(0)
    o = pid * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(y + o, mask=o < n)
    tl.atomic_add(x + tl.arange(0, BLOCK), v, sem="relaxed")


for name, ty in [("f16", "*fp16"), ("f32", "*fp32")]:
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}
    src = ASTSource(scatter_add, {"x": ty, "y": ty, "n": "i32", "BLOCK": "constexpr"},
                    {"BLOCK": 256}, attrs)
    c = triton.compile(src, target=GPUTarget("cuda", 100, 32), options=dict(num_warps=4))
    (OUT / f"triton_scatter_{name}.ptx").write_text(c.asm["ptx"])
