"""tmemu.triton.run: @triton.jit functions compiled offline for sm_100a and run under tmemu,
compared with numpy. Needs triton==3.9.0 (e.g. /work/kvenv); skipped without it."""

import numpy as np
import pytest

triton = pytest.importorskip("triton", reason="triton is not installed (pip install triton==3.9.0)")
if triton.__version__ != "3.9.0":
    pytest.skip(f"tmemu.triton is pinned to triton 3.9.0, found {triton.__version__}",
                allow_module_level=True)

import triton.language as tl  # noqa: E402

import tmemu  # noqa: E402
import tmemu.triton as tt  # noqa: E402


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * y + x, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, num / den, mask=mask)


def test_elementwise_f32_matches_numpy():
    rng = np.random.default_rng(0)
    n = 3000
    x = rng.uniform(-2, 2, n).astype(np.float32)
    y = rng.uniform(-2, 2, n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    r = tt.run(add_kernel, (triton.cdiv(n, 512),), x, y, out, n, BLOCK=512, enable_fp_fusion=True)
    assert r.verdict == "clean", r.report()
    # x*y + x: contracted to one fma (enable_fp_fusion), so one rounding of the exact
    # value; the f64 reference rounds the exact product-sum once more: allow one ulp.
    ref = (x.astype(np.float64) * y + x).astype(np.float32)
    assert np.all(np.abs(out - ref) <= np.spacing(np.abs(ref)))
    assert r.compiled.block == 32 * r.compiled.metadata.num_warps
    assert r.stats["ctas"] == triton.cdiv(n, 512)


def test_check_mode_through_triton_run():
    # tmemu's own options pass through run(): check=True runs tmemu check's schedules.
    x = np.arange(512, dtype=np.float32)
    out = np.zeros_like(x)
    r = tt.run(add_kernel, (2,), x, x, out, 512, BLOCK=256, check=True, seeds=2)
    assert r.ok, r.report()
    assert r.stats["runs"] == 3
    np.testing.assert_array_equal(out, x * x + x)


def test_elementwise_f16_and_grid_callable():
    n = 700
    x = (np.arange(n) % 17).astype(np.float16)
    y = np.full(n, 2, np.float16)
    out = np.zeros(n, np.float16)
    r = tt.run(add_kernel, lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),), x, y, out, n,
               BLOCK=128, num_warps=2)
    assert r.ok, r.report()
    assert r.compiled.block == 64
    np.testing.assert_array_equal(out, x * 3)  # small integers: exact in f16


def test_softmax_matches_numpy():
    rng = np.random.default_rng(1)
    rows, cols = 48, 300
    x = rng.normal(0, 4, (rows, cols)).astype(np.float32)
    y = np.zeros_like(x)
    r = tt.run(softmax_kernel, (rows,), y, x, cols, cols, cols, BLOCK=512, num_warps=4)
    assert r.ok, r.report()
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    # tl.exp lowers to ex2.approx.f32 (relative error <= 2^-22); each row sums 300 terms.
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_scalar_one_is_a_constexpr_like_the_jit():
    # Triton's JIT specialises an int argument equal to 1 into a constexpr: the PTX has no
    # parameter for it, and run() must leave it out of the launch too.
    x = np.arange(4, dtype=np.float32)
    y = np.arange(4, dtype=np.float32)
    out = np.zeros(4, np.float32)
    r = tt.run(add_kernel, (1,), x, y, out, 1, BLOCK=4, num_warps=1)
    assert r.ok
    names = [p["name"] for p in tmemu.kernel_params(r.compiled.ptx)]
    assert len(names) == 5  # x, y, out + the two scratch pointers
    np.testing.assert_array_equal(out, [0, 0, 0, 0])


def test_findings_from_a_triton_kernel():
    # An unmasked load past the end of x: tmemu reports the out-of-bounds read.
    x = np.zeros(100, np.float32)
    out = np.zeros(128, np.float32)
    r = tt.run(add_kernel, (1,), x, out, out, 1000, BLOCK=128)
    assert r.verdict == "violation"
    assert {f.rule for f in r.findings} == {"TM0501"}
    assert r.findings[0].file == "add_kernel.ptx" and r.findings[0].line > 0


def test_bad_arguments_raise_launch_error():
    x = np.zeros(16, np.float32)
    with pytest.raises(tmemu.LaunchError, match="unsupported array dtype"):
        tt.run(add_kernel, (1,), x.astype(np.complex64), x, x, 16, BLOCK=16)
    with pytest.raises(tmemu.LaunchError, match="add_kernel"):
        tt.run(add_kernel, (1,), x, x, 16, BLOCK=16)


@triton.jit
def matmul_kernel(a, b, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * N + rn[None, :])
        acc = tl.dot(x, y, acc)
    tl.store(c + rm[:, None] * N + rn[None, :], acc)


def test_tcgen05_matmul_matches_numpy():
    # On sm_100a tl.dot of 128x128 tiles lowers to tcgen05.mma with a TMEM accumulator.
    rng = np.random.default_rng(2)
    M, N, K = 128, 128, 128
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    # check=True: tmemu check's schedules and async policies (adversarial and immediate) with
    # the race detector; Triton's pipelining must be clean under all of them.
    r = tt.run(matmul_kernel, (1, 1), a, b, c, M, N, K, BM=128, BN=128, BK=64, check=True)
    assert r.stats["runs"] == 5
    assert "tcgen05.mma" in r.compiled.ptx
    assert r.ok, r.report()
    # f16 products are exact in f32; K=128 f32 accumulations: a loose bound of 1e-4 relative.
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-4)


@triton.jit
def matmul_tma_kernel(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                      BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([pm * BM, k]), b_desc.load([k, pn * BN]), acc)
    c_desc.store([pm * BM, pn * BN], acc)


def test_tma_tcgen05_matmul_with_host_descriptors_matches_numpy():
    # Host TensorDescriptors become 128-byte tensor maps (+ shape and strides); the kernel
    # loads tiles with cp.async.bulk.tensor and multiplies with tcgen05.mma.
    rng = np.random.default_rng(4)
    M, N, K = 256, 128, 128
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c = np.full((M, N), np.nan, np.float32)
    r = tt.run(matmul_tma_kernel, (M // 128, N // 128), tt.TensorDescriptor(a, [128, 64]),
               tt.TensorDescriptor(b, [64, 128]), tt.TensorDescriptor(c, [128, 128]), K,
               BM=128, BN=128, BK=64)
    assert "tcgen05.mma" in r.compiled.ptx and "cp.async.bulk.tensor" in r.compiled.ptx
    assert r.ok, r.report()
    # f16 products are exact in f32; K=128 f32 accumulations: a loose bound of 1e-4 relative.
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


@triton.jit
def copy_desc_kernel(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x = in_desc.load([pid * BM, 0])
    out_desc.store([pid * BM, 0], x * 2)


def ptx_params(ptx, entry):
    """(type, array length or None) of each .param of `entry`, read from the PTX text."""
    import re

    head = ptx[ptx.index(f".entry {entry}("):]
    head = head[: head.index(")")]
    out = []
    for m in re.finditer(r"\.param\s+(?:\.align\s+\d+\s+)?(\.\w+)(?:\s+\.ptr[^,\n]*?)?\s+[\w$]+(?:\[(\d+)\])?", head):
        out.append((m.group(1), int(m.group(2)) if m.group(2) else None))
    return out


def copy_desc_launch():
    a = np.arange(256 * 64, dtype=np.float16).reshape(256, 64) % 100
    out = np.zeros_like(a)
    din = tt.TensorDescriptor(a, [64, 64])
    dout = tt.TensorDescriptor(out, [64, 64])
    compiled, kw = tt.prepare(copy_desc_kernel, (4,), din, dout, BM=64, BN=64)
    return a, out, compiled, kw


def test_host_tensor_descriptors_map_to_triton_parameters():
    a, out, compiled, kw = copy_desc_launch()
    args = kw["args"]
    # As Triton's CUDA launcher passes them: per descriptor a 128-byte tensor map, the shape
    # (i32 each) and the strides (i64 each); then the two scratch pointers.
    params = ptx_params(compiled.ptx, compiled.name)
    assert len(params) == len(args) == 2 * 5 + 2
    assert params[0] == (".b8", 128) and params[5] == (".b8", 128)
    assert [p[0] for p in params[1:5]] == [".u32", ".u32", ".u64", ".u64"]
    assert isinstance(args[0], tmemu.TensorMap) and args[0].array is a
    assert args[0].box == [64, 64] and args[0].swizzle == "128B"  # fp16 rows of 128 bytes
    assert args[1:5] == [256, 64, 64, 1]
    assert args[5].array is out


def test_tma_copy_matches_numpy():
    a, out, compiled, kw = copy_desc_launch()
    r = tmemu.launch(**kw)
    assert r.ok, r.report()
    np.testing.assert_array_equal(out, a * 2)


def test_bad_descriptors_are_refused():
    a = np.zeros((256, 64), np.float16)
    with pytest.raises(tmemu.LaunchError, match="block_shape"):
        tt.TensorDescriptor(a, [64])
    with pytest.raises(tmemu.LaunchError, match="C-contiguous"):
        tt.TensorDescriptor(a[:, ::2], [64, 32])
    with pytest.raises(tmemu.LaunchError, match="padding"):
        tt.TensorDescriptor(np.zeros((8, 8), np.int32), [8, 8], padding="nan")


@triton.jit
def device_desc_kernel(a_ptr, o_ptr, M, N: tl.constexpr, BM: tl.constexpr):
    d = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, N])
    e = tl.make_tensor_descriptor(o_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, N])
    pid = tl.program_id(0)
    e.store([pid * BM, 0], d.load([pid * BM, 0]) + 1)


def test_global_scratch_is_a_zeroed_buffer_per_cta():
    # Device-side tensor descriptors are built in Triton's global scratch area.
    a = np.zeros((256, 64), np.float16)
    o = np.zeros_like(a)
    compiled, kw = tt.prepare(device_desc_kernel, (4,), a, o, 256, N=64, BM=64)
    md = compiled.metadata
    assert md.global_scratch_size > 0
    scratch, profile = kw["args"][-2:]
    assert scratch.dtype == np.uint8 and scratch.shape == (md.global_scratch_size * 4,)
    assert not scratch.any()
    assert profile is None if md.profile_scratch_size == 0 else profile.shape == (md.profile_scratch_size * 4,)
    assert len(ptx_params(compiled.ptx, compiled.name)) == len(kw["args"])


def test_num_ctas_makes_clusters_like_the_launcher():
    x = np.zeros(1024, np.float32)
    compiled, kw = tt.prepare(add_kernel, (4,), x, x, x, 1024, BLOCK=256, num_ctas=2)
    assert compiled.num_ctas == 2
    assert kw["grid"] == [8, 1, 1] and kw["cluster"] == [2, 1, 1]


def test_num_ctas_two_runs_in_clusters():
    # Each program is a cluster of two CTAs that split the block (Triton's CTA layout).
    x = np.arange(1024, dtype=np.float32)
    y = np.full(1024, 0.5, np.float32)
    out = np.zeros(1024, np.float32)
    r = tt.run(add_kernel, (4,), x, y, out, 1024, BLOCK=256, num_ctas=2)
    assert r.ok, r.report()
    assert r.stats["ctas"] == 8
    np.testing.assert_array_equal(out, x * y + x)  # exact: x*1.5 for integers < 2^22


def test_gluon_elementwise_matches_numpy():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def scale_kernel(x_ptr, o_ptr, n, s, BLOCK: gl.constexpr):
        layout: gl.constexpr = gl.BlockedLayout([1], [32], [gl.num_warps()], [0])
        offs = gl.program_id(0) * BLOCK + gl.arange(0, BLOCK, layout)
        mask = offs < n
        gl.store(o_ptr + offs, gl.load(x_ptr + offs, mask=mask) * s, mask=mask)

    x = np.arange(1000, dtype=np.float32)
    out = np.zeros_like(x)
    r = tt.run(scale_kernel, (4,), x, out, 1000, 0.25, BLOCK=256, num_warps=4)
    assert r.ok, r.report()
    np.testing.assert_array_equal(out, x * np.float32(0.25))  # exact: a power of two


def test_docs_triton_example_runs(tmp_path):
    # docs/python.md's Triton example, saved to a file and run as a user would (@triton.jit
    # needs its source in a file).
    import re
    import subprocess
    import sys

    from conftest import REPO

    text = (REPO / "docs" / "python.md").read_text()
    block = re.search(r"With Triton:\s*```python\n(.*?)```", text, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(block + "print('ok', r.verdict)\n")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=REPO,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().endswith("ok clean")
