"""The bug reproductions of tests/corpus/bugs (each the mechanism of a public bug report in a
small kernel compiled by nvcc), launched from Python with check=True: the buggy variant's
findings come back with the rule, severity and PTX line that its expected.toml names, the fixed
variant is silent. expected.toml is written from `// @site:` marks in the CUDA source
(kernels/gen_bugs.py), not from tmemu's output."""

import numpy as np
import pytest

import tmemu
from conftest import REPO

tomllib = pytest.importorskip("tomllib", reason="needs Python 3.11 (tomllib)")

BUGS = REPO / "tests" / "corpus" / "bugs"
NAMES = sorted(p.name for p in BUGS.iterdir() if (p / "expected.toml").is_file())

# Buggy variants the engine runs but whose report is not yet what expected.toml says.
# crates/host/tests/bugs.rs and crates/cli/tests/bugs_json.rs keep the same list and fail when
# one starts to pass; here an entry that passes shows as XPASS (ci.sh runs pytest -rxX), so a
# fix landing in the engine or the report does not break this suite before the list is
# updated.
PENDING: dict[str, str] = {}


def buggy_params():
    return [pytest.param(n, marks=pytest.mark.xfail(strict=False, reason=PENDING[n])) if n in PENDING
            else n for n in NAMES]


_DTYPES = {"u32": np.uint32, "i32": np.int32, "u64": np.uint64, "f32": np.float32}


def _filled(a):
    """A numpy array for a spec arg or [buffers.X] table with shape/dtype/fill."""
    n = int(np.prod(a["shape"]))
    dtype = _DTYPES[a["dtype"]]
    fill = a.get("fill", "zeros")
    if fill == "iota":
        return np.arange(n, dtype=dtype).reshape(a["shape"])
    if fill == "zeros":
        return np.zeros(a["shape"], dtype)
    raise AssertionError(f"spec fill {fill!r} not handled by this test")


def spec_args(spec):
    """The launch spec's [[arg]]s as tmemu.launch arguments (the forms these specs use).

    Named buffers ([buffers.X], referenced by `buffer = "X"` and by a tensor map's `buffer`)
    become one numpy array each, so a pointer argument and a tensor map over the same buffer
    name the same device memory, as the launch spec says."""
    buffers = {k: _filled(v) for k, v in spec.get("buffers", {}).items()}
    args = []
    for a in spec.get("arg", []):
        if "value" in a:
            args.append(a["value"])
        elif "buffer" in a:
            args.append(buffers[a["buffer"]])
        elif "tensormap" in a:
            tm = a["tensormap"]
            extra = set(tm) - {"buffer", "box", "swizzle"}
            assert not extra, f"tensormap keys {extra} not handled by this test"
            args.append(tmemu.TensorMap(buffers[tm["buffer"]], tm["box"], swizzle=tm.get("swizzle", "none")))
        else:
            args.append(_filled(a))
    return args


def launch_variant(name, variant):
    """(expected.toml, spec, args, result) of the buggy or fixed variant under check=True."""
    d = BUGS / name
    expected = tomllib.loads((d / "expected.toml").read_text())
    spec = tomllib.loads((d / expected[variant]["spec"]).read_text())
    args = spec_args(spec)
    try:
        r = tmemu.launch(d / spec["ptx"], spec["kernel"], grid=spec["grid"], block=spec["block"],
                         args=args, cluster=spec.get("cluster"), check=True)
    except tmemu.UnsupportedError as e:
        pytest.skip(f"not runnable yet: {e}")
    return expected, spec, args, r


@pytest.mark.parametrize("name", buggy_params())
def test_buggy_variant_reports_the_expected_findings(name):
    expected, _, _, r = launch_variant(name, "buggy")
    assert r.verdict == expected["buggy"]["verdict"], r.report()
    want = expected.get("finding", [])
    # Rule findings: exactly the expected (rule, severity, line) set, in buggy.ptx.
    got = {(f.rule, f.severity, f.line) for f in r.findings if f.type == "finding"}
    assert got == {(w["rule"], w["severity"], w["line"]) for w in want if w["severity"] != "hang"}, r.report()
    for f in r.findings:
        if f.type == "finding":
            assert f.file.endswith("buggy.ptx") and f.column > 0, str(f)
    # Hangs: a blocked warp at each expected line.
    hang_lines = {b["line"] for f in r.findings if f.type == "hang" for b in f.blocked}
    for w in want:
        if w["severity"] == "hang":
            assert w["line"] in hang_lines, r.report()
    # Related spans (e.g. the allocation a leak or a race points back to).
    for w in want:
        if "related_line" in w:
            related = [x for f in r.findings if f.rule == w.get("rule") and f.line == w["line"]
                       for x in f.related]
            assert any(x["line"] == w["related_line"] for x in related), (w, related)


@pytest.mark.parametrize("name", NAMES)
def test_fixed_variant_is_silent(name):
    expected, _, _, r = launch_variant(name, "fixed")
    assert r.verdict == "clean" and r.findings == [], r.report()


def test_pending_names_are_reproductions():
    assert set(PENDING) <= set(NAMES)


def test_tmem_round_trip_of_the_fixed_kernel():
    # fixed: every thread stores in[tid] to its lane of an allocated TMEM column and loads it
    # back, so out == in.
    _, _, (inp, out), r = launch_variant("tmem_without_alloc", "fixed")
    assert r.ok, r.report()
    np.testing.assert_array_equal(out, inp)
