"""The Python examples of README.md and docs/python.md work when pasted (run from the
repository root, as both say)."""

import os
import re

import pytest

from conftest import REPO


def run_block(block, name, capsys):
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        exec(compile(block, name, "exec"), {})
    finally:
        os.chdir(cwd)
    return capsys.readouterr().out.strip()


def test_docs_example_runs(capsys):
    text = (REPO / "docs" / "python.md").read_text()
    block = re.search(r"<!-- example: begin -->\s*```python\n(.*?)```", text, re.S).group(1)
    assert len(block.strip().splitlines()) == 5
    assert run_block(block, "docs/python.md", capsys) == "clean [1. 3. 5. 7.]"


def test_readme_python_section_runs(capsys):
    text = (REPO / "README.md").read_text()
    section = re.search(r"^## From Python\n(.*?)^## ", text, re.S | re.M)
    if section is None:
        pytest.fail("README.md has no '## From Python' section")
    block = re.search(r"```python\n(.*?)```", section.group(1), re.S).group(1)
    assert len(block.strip().splitlines()) == 5
    assert run_block(block, "README.md", capsys) == "clean [1. 3. 5. 7.]"


def test_docs_bug_example_prints_what_the_docs_show(capsys):
    text = (REPO / "docs" / "python.md").read_text()
    block = re.search(r"<!-- bug example: begin -->\s*```python\n(.*?)```", text, re.S).group(1)
    shown = re.search(r"<!-- bug example: end -->.*?```\n(.*?)```", text, re.S).group(1)
    assert run_block(block, "docs/python.md", capsys) == shown.strip()
