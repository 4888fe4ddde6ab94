"""The README and every docs page are executed: their ```python blocks must run as written.

Blocks of one page run in order in one namespace with the repository root as working directory.
A block whose first line is ``# requires: shared-data`` needs the real data folder; it is skipped
(failed under CI) when that folder is absent. A page with a block whose first line is
``# requires: torch`` is skipped when PyTorch is not installed (the ``neural`` extra).

Shown output is checked: a ```text block that follows a ```python or ```console block with nothing but
blank lines between them is that block's output. What the block prints must equal it token by token
after whitespace is normalised; a number must be printed as shown (the same decimals, the same
exponent form) and may differ by at most one unit in its last place (platform rounding), an integer
must be equal. A block that prints must show its output (pages in ``OUTPUT_PENDING`` excepted, until
their output blocks are added).

A ```console block's ``$ `` lines are run (``pyterrier-risk`` is this tree's command, ``cd`` changes
the folder, ``../shared/data`` is the data folder) and what they print, stdout then stderr, must equal
the shown output. Every shown output is compared, except the few in :data:`NOT_RUN`, each with the
reason it cannot be run in a test.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import DATA, REPO, data_path

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
NO_CODE_PAGES = {"index.md", "api.md"}
# Every block that prints must show its output, except on these pages, whose blocks do not all show
# it yet: remove a page once each of its printing blocks is followed by its ```text output.
OUTPUT_PENDING: set[str] = set()

_OPEN = re.compile(r"^(`{3,})\s*([^`\s]*)([^`]*)$")


@dataclass
class Block:
    """A fenced code block of a page: its language, text and first line number (1-based)."""

    lang: str
    code: str
    line: int
    output: Block | None = None  # for python blocks: the ```text block right after it


def fenced_blocks(text: str) -> list[Block]:
    """Every fenced block of a markdown text, with python blocks linked to their shown output."""
    blocks: list[Block] = []
    lines = text.split("\n")
    i, last_end = 0, -10
    while i < len(lines):
        opened = _OPEN.match(lines[i])
        if not opened:
            i += 1
            continue
        fence, lang, start = opened.group(1), opened.group(2), i
        i += 1
        while i < len(lines) and not (lines[i].startswith(fence) and not lines[i].strip("`").strip()):
            i += 1
        block = Block(lang, "\n".join(lines[start + 1:i]) + "\n", start + 1)
        between = lines[last_end + 1:start]
        if (blocks and lang == "text" and blocks[-1].lang in ("python", "console")
                and not any(s.strip() for s in between)):
            blocks[-1].output = block
        blocks.append(block)
        last_end, i = i, i + 1
    return blocks


def python_blocks(page: Path) -> list[Block]:
    return [b for b in fenced_blocks(page.read_text(encoding="utf-8")) if b.lang == "python"]


_TOKEN = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[^\s\d.+-]+|\S")
_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _close(printed: str, shown: str) -> bool:
    """Equal tokens, or numbers within one unit of the shown number's last digit."""
    if printed == shown:
        return True
    if not (_NUMBER.fullmatch(printed) and _NUMBER.fullmatch(shown)):
        return False
    mantissa, _, exponent = shown.lower().partition("e")
    got_mantissa, got_e, _ = printed.lower().partition("e")
    if "." not in mantissa:
        return float(printed) == float(shown)
    decimals = len(mantissa.split(".")[1])
    same_form = "." in got_mantissa and len(got_mantissa.split(".")[1]) == decimals
    if not same_form or bool(got_e) != bool(exponent):
        return False  # printed 0.0400 is not shown 0.04: the page shows what the code prints
    unit = 10.0 ** (int(exponent or 0) - decimals)
    return abs(float(printed) - float(shown)) <= unit * (1 + 1e-9)


def output_mismatch(printed: str, shown: str) -> str | None:
    """None when ``printed`` matches the ``shown`` output, else where they first differ."""
    got = [_TOKEN.findall(line) for line in printed.splitlines()]
    want = [_TOKEN.findall(line) for line in shown.splitlines()]
    got, want = [t for t in got if t], [t for t in want if t]  # blank lines do not count
    for n, (g, w) in enumerate(zip(got, want, strict=False)):
        if len(g) != len(w) or not all(_close(a, b) for a, b in zip(g, w, strict=True)):
            return f"non-blank output line {n + 1}: printed {' '.join(g)!r}, shown {' '.join(w)!r}"
    if len(got) != len(want):
        return f"printed {len(got)} non-blank lines, shown {len(want)}"
    return None


def test_pages_found():
    assert (REPO / "README.md") in PAGES
    assert len(PAGES) > 3


def test_every_guide_page_has_an_example():
    missing = [p.name for p in PAGES if p.name not in NO_CODE_PAGES and not python_blocks(p)]
    assert not missing, f"pages without a runnable python example: {missing}"


def test_fenced_blocks_link_output_only_right_after_python():
    text = ("```python\nprint(1)\n```\n\n```text\n1\n```\n\nprose\n\n```text\nnot output\n```\n"
            "```python\nx = 1\n```\nprose\n```text\n2\n```\n")
    blocks = fenced_blocks(text)
    assert [b.lang for b in blocks] == ["python", "text", "text", "python", "text"]
    assert blocks[0].output is blocks[1] and blocks[1].code == "1\n"
    assert blocks[3].output is None
    console = fenced_blocks("```console\n$ pyterrier-risk --version\n```\n\n```text\nx\n```\n")
    assert console[0].output is console[1]


def test_output_comparison_can_fail():
    assert output_mismatch("a   b\n0.1235\n\n", "a b\n0.1234") is None         # whitespace, rounding
    assert output_mismatch("x 0.1236", "x 0.1234") is not None                  # two units off
    assert output_mismatch("7 topics", "8 topics") is not None                  # integers are exact
    assert output_mismatch("BM25 0.4", "DPH 0.4") is not None
    assert output_mismatch("1\n2", "1") == "printed 2 non-blank lines, shown 1"
    assert output_mismatch("1.5e-03", "1.4e-03") is None and output_mismatch("1.7e-03", "1.4e-03")
    assert output_mismatch("p=0.0400", "p=0.04") is not None  # issue 23 #20: shown as printed


@pytest.fixture
def page_registry():
    """The objectives a page registers (docs/custom_objective.md) are its own: they are unregistered
    after it, as each page runs in a fresh namespace."""
    import pyterrier_risk as ptr

    before = set(ptr.objective_names())
    yield
    for name in set(ptr.objective_names()) - before:
        ptr.unregister_objective(name)


# Pages whose blocks need more than about 8 s (real data, studies, plots): run with -m slow (README, CI)
SLOW_PAGES = {"cli.md", "which_topics_baseline_alpha.md", "baselines_sensitivity.md", "tutorial.md",
              "results_lightgbm_example.md", "hurt_topics.md", "pisa_features.md", "results_neural.md"}


def _slow_if(slow: bool, *values: object, id: str) -> object:
    """One parameter, marked ``slow`` when asked."""
    return pytest.param(*values, id=id, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("page", [_slow_if(p.name in SLOW_PAGES, p, id=p.name) for p in PAGES
                                  if p.name not in NO_CODE_PAGES])
def test_page_examples_run(page: Path, monkeypatch: pytest.MonkeyPatch, page_registry):
    blocks = python_blocks(page)
    if any(block.code.lstrip().startswith("# requires: torch") for block in blocks):  # docs/neural.md
        pytest.importorskip("torch", reason="the page needs PyTorch: pip install 'pyterrier-risk[neural]'")
    if any(block.code.lstrip().startswith("# requires: shared-data") for block in blocks):
        data_path()
        if any("irds:" in block.code for block in blocks):  # conftest points ir_datasets at a copy of it
            data_path("ir_datasets_home")
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("PYTERRIER_RISK_DATA", str(DATA))
    monkeypatch.setenv("MPLBACKEND", "Agg")
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    for i, block in enumerate(blocks):
        code = compile(block.code, f"{page.name}[block {i + 1}, line {block.line}]", "exec")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(code, namespace)  # noqa: S102 - executing our own documentation is the point
        sys.stdout.write(printed.getvalue())
        if block.output is not None:
            problem = output_mismatch(printed.getvalue(), block.output.code)
            assert problem is None, f"{page.name} line {block.output.line}: shown output is stale: {problem}"
        elif page.name not in OUTPUT_PENDING:
            assert not printed.getvalue().strip(), (
                f"{page.name} line {block.line}: the block prints but shows no ```text output after it")


API_MODULES = ("pyterrier_risk", "pyterrier_risk.data", "pyterrier_risk.reporting", "pyterrier_risk.learning",
               "pyterrier_risk.engine", "pyterrier_risk.study")
_DIRECTIVE = re.compile(r"^\.\. (?:auto|py:)?(?:function|class|data)::\s+(pyterrier_risk[\w.]*)", re.M)


def _resolve(path: str) -> object:
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


def test_api_page_documents_every_public_name():
    """Each name in ``__all__`` of the public modules has an entry on the API page, under any public path."""
    documented = _DIRECTIVE.findall((REPO / "docs" / "api.md").read_text(encoding="utf-8"))
    assert documented, "no autodoc directives found on docs/api.md"
    by_name: dict[str, list[object]] = {}
    for path in documented:
        by_name.setdefault(path.rpartition(".")[2], []).append(_resolve(path))
    missing = []
    for module_name in API_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            entries = by_name.get(name, [])
            if not name.startswith("__") and not any(obj is getattr(module, name) for obj in entries):
                missing.append(f"{module_name}.{name}")
    assert not missing, f"public names missing from docs/api.md: {missing}"


def _objective_page(name: str) -> Path:
    """The page of a built-in objective: ``docs/objective_<name>.md``, else the objectives overview."""
    page = REPO / "docs" / f"objective_{name}.md"
    return page if page.exists() else REPO / "docs" / "objectives.md"


def undocumented_options(cls: type) -> list[str]:
    """What an objective's page lacks: the objective itself, or an option written as ``name=default``.

    The rule: a built-in objective has its own page ``docs/objective_<name>.md`` (listed in the toctree),
    or it is a row of the kinds table on ``docs/objectives.md`` (``'lambdarank'``); each of its
    ``Option`` s appears on that page with its default, as the keyword is written (``se_round=1``).
    """
    page = _objective_page(cls.name)
    text = page.read_text(encoding="utf-8")
    missing = []
    if page.name == "objectives.md" and f"`'{cls.name}'`" not in text:
        missing.append(f"{cls.name}: no docs/objective_{cls.name}.md and no `'{cls.name}'` on objectives.md")
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    if page.name != "objectives.md" and not re.search(rf"^{page.stem}$", index, re.M):
        missing.append(f"{cls.name}: {page.name} is not in the toctree of docs/index.md")
    missing += [f"{cls.name}: {page.name} does not show {o.name}={o.default!r}"
                for o in cls.options if f"{o.name}={o.default!r}" not in text]
    return missing


def test_every_builtin_objective_and_option_is_documented():
    import pyterrier_risk as ptr

    builtins = [ptr.get_objective(n) for n in ptr.objective_names()]
    builtins = [cls for cls in builtins if cls.__module__.startswith("pyterrier_risk.")]
    assert {"lambdarank", "urisk", "georisk"} <= {cls.name for cls in builtins}
    missing = [problem for cls in builtins for problem in undocumented_options(cls)]
    assert not missing, "\n".join(missing)


def test_an_undocumented_objective_option_is_caught():
    import pyterrier_risk as ptr

    class Documented(ptr.get_objective("tfaro")):  # not registered: only its name and options are read
        pass

    class NewOption(Documented):
        options = (*Documented.options, ptr.Option("zz_new", 3, "an option with no docs"))

    class NewDefault(Documented):
        options = tuple(ptr.Option(o.name, "other", o.desc) if o.name == "faro_tr" else o
                        for o in Documented.options)

    class Unknown(ptr.get_objective("lambdarank")):
        name = "zz_unknown"

    assert undocumented_options(Documented) == []
    assert undocumented_options(NewOption) == ["tfaro: objective_tfaro.md does not show zz_new=3"]
    assert undocumented_options(NewDefault) == ["tfaro: objective_tfaro.md does not show faro_tr='other'"]
    assert undocumented_options(Unknown) == [
        "zz_unknown: no docs/objective_zz_unknown.md and no `'zz_unknown'` on objectives.md"]


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


def test_the_slow_tests_are_left_out_by_default_and_ci_runs_them_under_a_coverage_floor():
    """The README's command deselects ``slow`` (pyproject's addopts); CI runs them and checks coverage."""
    import tomllib

    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["tool"]["pytest"]["ini_options"]["addopts"] == ["-m", "not slow"]
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").replace("\\\n", " ").splitlines()
    command = "python -m pytest -q -n auto --dist loadfile"
    readme_run = next(i for i, line in enumerate(lines) if line.endswith(command))
    assert "--cov" in lines[readme_run], "CI collects the README run's coverage"
    slow = lines[readme_run + 1:][[" -m slow " in line for line in lines[readme_run + 1:]].index(True)]
    assert "--cov-append" in slow, "CI runs the slow tests after it, their coverage joined to the first"
    floor = re.search(r"--cov-fail-under=(\d+(?:\.\d+)?)", slow)
    assert floor and float(floor[1]) >= 93.5, "CI keeps line coverage at or above its floor"
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "`-m slow`" in readme and '`-m "slow or not slow"`' in readme


def test_built_docs_render_math_offline(tmp_path: Path):
    """A page built with the docs' conf.py loads MathJax from the built folder, nothing from the network.

    The full docs are built in CI (``.ci/run``, warnings as errors); a one-page project with the same
    configuration and static files is enough to check where math comes from, in a few seconds.
    """
    pytest.importorskip("sphinx", reason="the docs extra is not installed: pip install '.[docs]'")
    pytest.importorskip("myst_parser", reason="the docs extra is not installed: pip install '.[docs]'")
    src, out = tmp_path / "src", tmp_path / "html"
    shutil.copytree(REPO / "docs" / "_static", src / "_static")
    shutil.copy(REPO / "docs" / "conf.py", src / "conf.py")
    (src / "index.md").write_text("# Math\n\nInline $U = \\frac1c\\sum_i x_i$ and displayed:\n\n"
                                  "$$T_R = \\frac{U}{SE(U)}$$\n", encoding="utf-8")
    build = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-q", "-b", "html", str(src), str(out)],
                           capture_output=True, text=True, cwd=tmp_path, check=False)
    assert build.returncode == 0, build.stderr[-3000:]
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "\\frac{U}{SE(U)}" in page, "the formula is not in the page"
    scripts = re.findall(r"<script[^>]*\ssrc=\"([^\"]+)\"", page)
    mathjax = [s for s in scripts if "mathjax" in s.lower()]
    assert mathjax, f"a page with formulas loads no MathJax: {scripts}"
    for src_url in mathjax:
        assert not re.match(r"(?:https?:)?//", src_url), f"MathJax comes from the network: {src_url}"
        assert (out / src_url.split("?")[0]).is_file(), f"MathJax script {src_url} is not in the built docs"
    assert any((out / "_static" / "mathjax" / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    remote = re.findall(r"<(?:script|link)[^>]*\s(?:src|href)=\"((?:https?:)?//[^\"]+)\"", page)
    assert not remote, f"the page loads scripts or styles from the network: {remote}"
    assert "custom.css" in page, "the sidebar stylesheet is not linked"


# -- console blocks: the commands the docs show, run, their output compared ---------------------------------
#: shown outputs that a test cannot produce: (page, first line of the shown output) -> why
NOT_RUN = {
    ("objectives.md", "| kind       | options                    | cold (empty cache) | warm "):
        "timings of a benchmark (minutes; machine-dependent)",
    ("objectives.md", "                        MQ2008 Fold1 train          synthetic MSLR-lik"):
        "timings of a benchmark (minutes; machine-dependent)",
    ("objectives.md", "| kind       | 1 thr | 2 thr | 4 thr | 8 thr | 16 thr |"):
        "timings of a benchmark (minutes; machine-dependent)",
}


def _console_outputs() -> list[tuple[Path, Block]]:
    return [(page, b) for page in PAGES for b in fenced_blocks(page.read_text(encoding="utf-8"))
            if b.lang == "console" and b.output is not None]


def _commands(block: Block) -> list[str]:
    """The ``$ `` commands of a console block, continuation lines (a trailing backslash) joined."""
    commands: list[str] = []
    for line in block.code.splitlines():
        if line.startswith("$ "):
            commands.append(line[2:])
        elif commands and commands[-1].endswith("\\"):
            commands[-1] = commands[-1][:-1] + " " + line.strip()
    return commands


def _key(page: Path, block: Block) -> tuple[str, str]:
    return page.name, block.output.code.splitlines()[0][:60] if block.output else ""


def test_every_console_output_is_compared_or_says_why_not():
    shown = {_key(p, b) for p, b in _console_outputs()}
    stale = [k for k in NOT_RUN if not any(s[0] == k[0] and s[1].startswith(k[1][:40]) for s in shown)]
    assert not stale, f"NOT_RUN entries without a shown output: {stale}"


def _not_run(page: Path, block: Block) -> str | None:
    name, first = _key(page, block)
    return next((why for (p, f), why in NOT_RUN.items() if p == name and first.startswith(f[:40])), None)


@pytest.mark.slow  # each command runs in a fresh interpreter (subprocess), many on the real data
@pytest.mark.realdata
@pytest.mark.parametrize(("page", "block"), _console_outputs(),
                         ids=[f"{p.name}:{b.line}" for p, b in _console_outputs()])
def test_console_block_prints_what_it_shows(page: Path, block: Block, tmp_path: Path):
    why = _not_run(page, block)
    if why:
        pytest.skip(why)
    data_path()
    cwd = REPO
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "pyterrier-risk").write_text(f"#!/bin/sh\nexec {sys.executable} -m pyterrier_risk \"$@\"\n")
    (bin_dir / "pyterrier-risk").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(REPO),
           "MPLBACKEND": "Agg", "COLUMNS": "80"}
    printed = ""
    for command in _commands(block):
        command = command.replace("../shared/data", str(DATA))
        if command.startswith("cd "):
            cwd = (cwd / command[3:].strip()).resolve()
            continue
        done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=600, check=False)
        printed += done.stdout + done.stderr
    problem = output_mismatch(printed, block.output.code)
    assert problem is None, f"{page.name} line {block.output.line}: shown output is stale: {problem}"
