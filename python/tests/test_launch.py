"""tmemu.launch on corpus kernels (Triton-compiled PTX checked into tests/corpus), compared
with numpy; findings; arguments written back."""

import numpy as np
import pytest

import tmemu
from conftest import DATA, REPO

TRITON = REPO / "tests" / "corpus" / "kernels" / "triton"


def axpy_reference(a, x, y):
    # One f32 rounding of the exact a*x + y (an fma): a*x is exact in f64 (24 + 2 bits), and
    # the f64 sum rounds once more, so allow one f32 ulp.
    return (np.float64(a) * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)


def test_axpy_matches_numpy():
    rng = np.random.default_rng(7)
    n = 1000
    x = rng.uniform(-4, 4, n).astype(np.float32)
    y = rng.uniform(-4, 4, n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    r = tmemu.launch(
        TRITON / "axpy.ptx", "axpy_kernel", grid=4, block=128, args=[x, y, out, 1.5, n, None, None]
    )
    assert r.verdict == "clean" and r.ok
    assert r.findings == []
    ref = axpy_reference(1.5, x, y)
    ulp = np.spacing(np.abs(ref))
    assert np.all(np.abs(out - ref) <= ulp), np.abs(out - ref).max()
    assert r.stats["ctas"] == 4
    assert r.stats["warp_instructions"] > 0
    assert r.stats["thread_instructions"] >= r.stats["warp_instructions"]
    assert r.stats["wall_seconds"] >= 0


def test_axpy_masked_tail_left_untouched():
    # n = 1000 but only the first 700 elements are in range: the rest must keep their values.
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, np.float32)
    out = np.full(1000, -7.0, np.float32)
    tmemu.launch(TRITON / "axpy.ptx", "axpy_kernel", 4, 128, [x, y, out, 2.0, 700, None, None])
    np.testing.assert_array_equal(out[:700], 2.0 * x[:700] + 1.0)
    np.testing.assert_array_equal(out[700:], -7.0)


def test_ptx_committed_gzip_compressed_is_read(tmp_path):
    # The repository commits PTX over 64 KiB as NAME.ptx.gz; a path naming NAME.ptx reads it
    # where the plain file is absent, as the tmemu command does. A corrupt one is an error.
    import gzip

    ptx = tmp_path / "axpy.ptx"
    packed = gzip.compress((TRITON / "axpy.ptx").read_bytes(), compresslevel=9, mtime=0)
    (tmp_path / "axpy.ptx.gz").write_bytes(packed)
    x = np.arange(256, dtype=np.float32)
    y = np.ones(256, np.float32)
    out = np.zeros(256, np.float32)
    r = tmemu.launch(ptx, "axpy_kernel", 2, 128, [x, y, out, 2.0, 256, None, None])
    assert r.verdict == "clean"
    np.testing.assert_array_equal(out, 2.0 * x + 1.0)
    (tmp_path / "axpy.ptx.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(tmemu.LaunchError, match=r"axpy\.ptx\.gz.*cannot decompress"):
        tmemu.launch(ptx, "axpy_kernel", 2, 128, [x, y, out, 2.0, 256, None, None])


def softmax_reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_softmax_matches_numpy():
    # softmax.ptx: Triton's softmax over rows of 200 columns (one 256-wide masked block per row).
    rng = np.random.default_rng(3)
    x = rng.normal(0, 3, (64, 200)).astype(np.float32)
    y = np.zeros_like(x)
    r = tmemu.launch(
        TRITON / "softmax.ptx",
        "softmax_kernel",
        grid=64,
        block=128,
        shared_bytes=16,
        args=[y, x, 200, 200, 200, None, None],
    )
    assert r.verdict == "clean", r.report()
    # tl.exp lowers to ex2.approx.f32 (relative error <= 2^-22) and each row sums 200 terms.
    np.testing.assert_allclose(y, softmax_reference(x), rtol=1e-5, atol=1e-7)


def test_ptx_text_and_single_entry():
    text = (TRITON / "axpy.ptx").read_text()
    assert tmemu.entries(text) == ["axpy_kernel"]
    x = np.ones(256, np.float32)
    y = np.zeros(256, np.float32)
    out = np.zeros(256, np.float32)
    # kernel=None: the module has exactly one entry.
    r = tmemu.launch(text, None, 1, 128, [x, y, out, 3.0, 256, None, None])
    assert r.ok
    np.testing.assert_array_equal(out, 3.0)


def test_same_array_twice_is_one_buffer():
    # out = 2*out + out, in place: x, y and out are the same device buffer.
    a = np.arange(256, dtype=np.float32)
    tmemu.launch(TRITON / "axpy.ptx", "axpy_kernel", 1, 128, [a, a, a, 2.0, 256, None, None])
    np.testing.assert_array_equal(a, 3.0 * np.arange(256, dtype=np.float32))


def test_out_of_bounds_store_is_reported_with_rule_and_line():
    out = np.zeros(32, np.uint32)
    r = tmemu.launch(DATA / "oob_store.ptx", "oob_store", grid=1, block=32, args=[out, 4])
    assert r.verdict == "violation"
    assert r.findings, r.report()
    f = r.findings[0]
    assert f.rule == "TM0501" and f["name"] == "out-of-bounds-access"
    assert f.severity == "error"
    assert f.file.endswith("oob_store.ptx")
    assert (f.line, f.column) == (20, 2)
    assert f.context["cta"] == [0, 0, 0] and f.context["warp"] == 0
    # lanes 28..31 write out[32..35], and only they: one finding (same rule, same instruction)
    # whose occurrences cover exactly those lanes, each listed as an instance
    assert len(r.findings) == 1
    assert f.occurrences["count"] == 4 and f.occurrences["lanes"] == 0xF0000000
    lanes = 0
    for i in f["instances"]:
        lanes |= i["context"]["lanes"]
    assert lanes == 0xF0000000 and len(f["instances"]) == 4
    assert "arg[0]" in f.message  # the buffer is named after the argument that passed it
    for key in ("message", "related", "source", "seed", "notes", "occurrences", "help", "label"):
        assert key in f
    # byte_range underlines the instruction in the PTX file's bytes
    start, end = f.byte_range
    assert (DATA / "oob_store.ptx").read_bytes()[start:end].startswith(b"st.global.u32")
    # The in-bounds stores happened.
    np.testing.assert_array_equal(out[4:], np.arange(28, dtype=np.uint32))


def test_in_bounds_run_of_same_kernel_is_clean():
    out = np.zeros(32, np.uint32)
    r = tmemu.launch(DATA / "oob_store.ptx", "oob_store", grid=1, block=32, args=[out, 0])
    assert r.ok and r.findings == []
    np.testing.assert_array_equal(out, np.arange(32, dtype=np.uint32))


def test_raise_on_findings():
    out = np.zeros(32, np.uint32)
    with pytest.raises(tmemu.KernelError) as e:
        tmemu.launch(DATA / "oob_store.ptx", None, 1, 32, [out, 1], raise_on_findings=True)
    # the human report points at the instruction's line and underlines its address operand
    assert "TM0501" in str(e.value) and "oob_store.ptx:20:" in str(e.value)
    assert e.value.result.verdict == "violation"
    assert e.value.findings[0].rule == "TM0501"


def test_hang_is_a_verdict_with_blocked_warps(corpus):
    r = tmemu.launch(corpus / "engine" / "barrier_deadlock.ptx", None, 1, 64, [])
    assert r.verdict == "hang"
    h = [f for f in r.findings if f.type == "hang"]
    assert h and h[0].blocked
    assert all(b["line"] > 0 for b in h[0].blocked)


def test_seeded_schedule_same_result():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(64, 200)).astype(np.float32)
    outs = []
    for seed in (None, 5, 5):
        y = np.zeros_like(x)
        r = tmemu.launch(TRITON / "softmax.ptx", None, 64, 128, [y, x, 200, 200, 200, None, None],
                         shared_bytes=16, seed=seed, threads=2)
        assert r.ok
        outs.append(y)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[1], outs[2])


def test_exhausted_step_budget_is_incomplete():
    x = np.zeros((64, 200), np.float32)
    y = np.zeros_like(x)
    r = tmemu.launch(TRITON / "softmax.ptx", None, 64, 128, [y, x, 200, 200, 200, None, None],
                     shared_bytes=16, max_steps=50)
    assert r.verdict == "incomplete" and not r.ok
    # as tmemu run reports it: an incomplete item naming the step budget, not a finding
    assert r.findings and all(f.type == "incomplete" for f in r.findings)
    assert r.findings[0].message.startswith("TM0506") and r.findings[0].line > 0
    with pytest.raises(tmemu.KernelError):
        tmemu.launch(TRITON / "softmax.ptx", None, 64, 128, [y, x, 200, 200, 200, None, None],
                     shared_bytes=16, max_steps=50, raise_on_findings=True)


def test_read_only_array_is_not_written():
    x = np.ones(256, np.float32)
    x.flags.writeable = False
    y = np.zeros(256, np.float32)
    with pytest.warns(UserWarning, match="read-only"):
        # out = x: the kernel writes into the read-only array
        r = tmemu.launch(TRITON / "axpy.ptx", None, 1, 128, [y, y, x, 1.0, 256, None, None])
    assert r.ok
    np.testing.assert_array_equal(x, 1.0)


def test_check_mode_merges_runs_and_names_the_reproducing_run():
    out = np.zeros(32, np.uint32)
    r = tmemu.launch(DATA / "oob_store.ptx", None, 1, 32, [out, 4], check=True, seeds=3)
    assert r.verdict == "violation"
    # 3 adversarial runs (default schedule, seeds 1 and 2) + 1 immediate, as tmemu check does
    runs = r.stats["per_run"]
    assert [(x["seed"], x["policy"]) for x in runs] == [
        (None, "adversarial"), (1, "adversarial"), (2, "adversarial"), (None, "immediate")]
    assert r.stats["runs"] == 4 and all(x["verdict"] == "violation" for x in runs)
    # the four out-of-bounds lanes of every run are one finding (same rule, same instruction)
    assert len(r.findings) == 1
    f = r.findings[0]
    assert (f.type, f.rule, f.line, f.column) == ("finding", "TM0501", 20, 2)
    # occurrences are those of the first run that reported it (the four lanes), not summed
    # over the runs
    assert f.occurrences["count"] == 4 and f.occurrences["lanes"] == 0xF0000000
    # every run reported it: not schedule-dependent, so no seed and no reproduce note
    assert f.seed is None and f.notes == []
    assert r.summary["verdict"] == "violation" and r.summary["errors"] == 1
    # outputs are the first run's: the in-bounds lanes stored
    np.testing.assert_array_equal(out[4:], np.arange(28, dtype=np.uint32))


def test_check_mode_clean_kernel_matches_numpy():
    rng = np.random.default_rng(5)
    x = rng.normal(0, 3, (64, 200)).astype(np.float32)
    y = np.zeros_like(x)
    r = tmemu.launch(TRITON / "softmax.ptx", None, 64, 128, [y, x, 200, 200, 200, None, None],
                     shared_bytes=16, check=True, seeds=2, seed=11)
    assert r.ok and r.findings == [], r.report()
    assert [x["seed"] for x in r.stats["per_run"]] == [None, 11, None]
    np.testing.assert_allclose(y, softmax_reference(x), rtol=1e-5, atol=1e-7)


def test_check_mode_hang_with_blocked_warps(corpus):
    r = tmemu.launch(corpus / "engine" / "barrier_deadlock.ptx", None, 1, 64, [], check=True)
    assert r.verdict == "hang"
    h = [f for f in r.findings if f.type == "hang"]
    assert len(h) == 1 and h[0].blocked
    assert all(b["line"] > 0 and b["file"].endswith("barrier_deadlock.ptx") for b in h[0].blocked)
    with pytest.raises(tmemu.KernelError, match="hang"):
        tmemu.launch(corpus / "engine" / "barrier_deadlock.ptx", None, 1, 64, [], check=True,
                     raise_on_findings=True)


def test_kernel_cache_never_serves_a_different_text():
    # Loaded kernels are cached by text: an edited text (same length, same name) must run as
    # edited, and the original again as the original.
    text = (DATA / "oob_store.ptx").read_text()
    edited = text.replace("st.global.u32 \t[%rd3], %r2;", "st.global.u32 \t[%rd3], %r1;")
    assert edited != text and len(edited) == len(text)
    for t, want in [(text, np.arange(32)), (edited, np.zeros(32)), (text, np.arange(32))]:
        out = np.full(32, 7, np.uint32)
        r = tmemu.launch(t, None, 1, 32, [out, 0])
        assert r.ok
        np.testing.assert_array_equal(out, want)
    # the name findings are shown under is part of the key
    out = np.zeros(32, np.uint32)
    a = tmemu.launch(text, None, 1, 32, [out, 4])
    b = tmemu.launch(DATA / "oob_store.ptx", None, 1, 32, [out, 4])
    assert a.findings[0].file == "<ptx>" and b.findings[0].file.endswith("oob_store.ptx")


def test_async_policy_decides_when_the_mma_reads_shared_memory():
    # mma_overwrite.ptx: thread 0 issues D = A·B (A 128x16, B 16x16, all ones) and then zeroes
    # A before its commit. At issue (immediate) the mma sees the ones: D = ones @ ones;
    # as late as the rules allow (adversarial) it reads A after the zeroing: D = 0.
    ones = np.ones((128, 16)) @ np.ones((16, 16))
    for policy, want in [("immediate", ones[:, 0]), (None, ones[:, 0]),
                         ("adversarial", np.zeros(128))]:
        out = np.full(128, np.nan, np.float32)
        r = tmemu.launch(DATA / "mma_overwrite.ptx", None, 1, 128, [out], async_policy=policy)
        assert r.verdict == "clean", r.report()  # a race: only check=True's detector sees it
        np.testing.assert_array_equal(out, want)
    # check=True (its race detector) names the overwrite and the mma it races
    out = np.zeros(128, np.float32)
    r = tmemu.launch(DATA / "mma_overwrite.ptx", None, 1, 128, [out], check=True)
    assert r.verdict == "violation"
    f = [f for f in r.findings if f.type == "finding"]
    assert [(x.rule, x.line) for x in f] == [("TM0209", 75)], r.report()
    assert [x["line"] for x in f[0].related] == [69]


def test_overhead_of_a_tiny_launch_is_under_5_ms():
    # The bound: launch() returns within 5 ms of the emulation itself (PTX load, packing,
    # buffers, report, write-back). Measured ~0.05 ms (python/bench_overhead.py); the median
    # of 30 keeps a busy machine's outliers out.
    import statistics
    import time

    text = (DATA / "oob_store.ptx").read_text()
    out = np.zeros(32, np.uint32)
    over = []
    for _ in range(30):
        t0 = time.perf_counter()
        r = tmemu.launch(text, None, 1, 32, [out, 0])
        over.append(time.perf_counter() - t0 - r.stats["wall_seconds"])
    assert statistics.median(over) < 5e-3, over
