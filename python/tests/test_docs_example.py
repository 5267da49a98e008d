"""The README / docs/python.md example works when pasted (run from the repository root)."""

import os
import re

from conftest import REPO


def test_docs_example_runs(capsys):
    text = (REPO / "docs" / "python.md").read_text()
    block = re.search(r"<!-- example: begin -->\s*```python\n(.*?)```", text, re.S).group(1)
    assert len(block.strip().splitlines()) == 5
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        exec(compile(block, "docs/python.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert capsys.readouterr().out.strip() == "clean [1. 3. 5. 7.]"
