"""The README and every docs page are executed: their ```python blocks must run as written.

Blocks of one page run in order in one namespace with the repository root as working directory.
A block whose first line is ``# requires: shared-data`` needs the real data folder; it is skipped
(failed under CI) when that folder is absent.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import DATA, REPO, data_path

FENCE = re.compile(r"^```python[^\n]*\n(.*?)^```", re.M | re.S)
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
NO_CODE_PAGES = {"index.md", "api.md"}


def python_blocks(page: Path) -> list[str]:
    return FENCE.findall(page.read_text(encoding="utf-8"))


def test_pages_found():
    assert (REPO / "README.md") in PAGES
    assert len(PAGES) > 3


def test_every_guide_page_has_an_example():
    missing = [p.name for p in PAGES if p.name not in NO_CODE_PAGES and not python_blocks(p)]
    assert not missing, f"pages without a runnable python example: {missing}"


@pytest.mark.parametrize("page", [p for p in PAGES if p.name not in NO_CODE_PAGES], ids=lambda p: p.name)
def test_page_examples_run(page: Path, monkeypatch: pytest.MonkeyPatch):
    blocks = python_blocks(page)
    if any(block.lstrip().startswith("# requires: shared-data") for block in blocks):
        data_path()
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("PYTERRIER_RISK_DATA", str(DATA))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for i, block in enumerate(blocks):
        code = compile(block, f"{page.name}[block {i + 1}]", "exec")
        exec(code, namespace)  # noqa: S102 - executing our own documentation is the point


def test_readme_test_command_is_what_ci_runs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    commands = re.findall(r"^```bash\n(.*?)\n```", readme, re.M | re.S)
    assert len(commands) >= 2, "README must give the two copy-paste commands"
    test_command = next(c for c in commands if "pytest" in c)
    install, _, run = test_command.partition("&&")
    assert install.strip().startswith("pip install")
    assert run.strip() in ci, f"CI must run the README's test command {run.strip()!r}"
    assert os.path.exists(REPO / ".ci" / "run")
