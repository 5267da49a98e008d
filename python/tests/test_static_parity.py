"""Python's verdicts equal the CLI's for the same launch: the static checker's findings (the
rules ptxas enforces: a tcgen05 kernel for sm_90a, a missing mandatory qualifier) open every
report, so such a kernel is never `clean` from Python either. Each case launches a rule-corpus
program through `tmemu.launch` and through `tmemu run --format json` on its launch spec, and
compares the verdicts and the findings (rule, line, severity)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tmemu
from conftest import REPO

RULES = REPO / "tests" / "corpus" / "rules"


def cli_binary() -> Path:
    """`tmemu`: $TMEMU_BIN, else a built one in the target directory, else built with cargo."""
    if os.environ.get("TMEMU_BIN"):
        return Path(os.environ["TMEMU_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    for profile in ("debug", "release"):
        p = target / profile / "tmemu"
        if p.is_file():
            return p
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("no tmemu binary ($TMEMU_BIN) and no cargo to build one")
    subprocess.run([cargo, "build", "-q", "-p", "tmemu-cli"], cwd=REPO, check=True)
    return target / "debug" / "tmemu"


def findings(objs):
    """(verdict, sorted (rule, line, severity) of the findings) from the objects of JSON Lines
    output (the summary among them)."""
    summary = next(o for o in objs if o.get("type") == "summary")
    found = sorted(
        (o["rule"], o["line"], o["severity"]) for o in objs if o.get("type") == "finding"
    )
    return summary["verdict"], found


@pytest.mark.parametrize(
    "case, rule",
    [("TM0409-target-unsupported", "TM0409"), ("TM0410-missing-qualifier", "TM0410")],
)
def test_static_findings_match_the_cli(case, rule):
    ptx = RULES / case / "break.ptx"
    spec = RULES / case / "break.toml"
    # The spec: grid 1, block 128, one u32[128] zero-filled argument.
    r = tmemu.launch(ptx, "rule_kernel", 1, 128, [np.zeros(128, np.uint32)])
    py_verdict, py_found = findings(list(r.findings) + [r.summary])
    cli = subprocess.run(
        [str(cli_binary()), "run", "--format", "json", str(spec)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    cli_verdict, cli_found = findings([json.loads(l) for l in cli.stdout.splitlines() if l])
    assert cli.returncode == 1, cli.stderr
    assert py_verdict == cli_verdict == "violation"
    assert rule in [f[0] for f in py_found]
    assert py_found == cli_found


def test_unloadable_kernel_names_the_static_rule():
    """The loader refuses a `.x2` load into one register; `tmemu run` reports TM0402 there
    (exit 1). Python has nothing to run, so it raises PtxError, naming the rule too."""
    ptx = RULES / "TM0402-ldst-vector-length" / "break.ptx"
    with pytest.raises(tmemu.PtxError, match=r"break\.ptx:49:5: error\[TM0402\]"):
        tmemu.launch(ptx, "rule_kernel", 1, 128, [np.zeros(128, np.uint32)])
