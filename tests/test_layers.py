"""The import rule of the layers: lower layers never import higher ones; a layer uses another only
through its package's exports, never its private modules; no import cycle between the package's
modules; the core imports no PyTerrier, ir_measures, LightGBM or numba; docs and examples import only
public names."""

from __future__ import annotations

import ast
import re

import pytest
from helpers import REPO

PKG = REPO / "pyterrier_risk"
# a layer may import its own and lower layers only (docs/architecture in pyterrier_risk/__init__.py)
LAYERS = ["core", "data", "measures", "experiment", "learning", "reporting", "engine", "study", "cli"]
CORE_FORBIDDEN = ("pyterrier", "ir_measures", "lightgbm", "numba", "ir_datasets", "matplotlib")


def _imports(path):
    """(absolute module name, line) of every import in a file, relative imports resolved."""
    rel = path.relative_to(REPO).with_suffix("")
    parts = list(rel.parts)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
                names = [f"{mod}.{a.name}" for a in node.names] if not node.module else [mod]
                out += [(n, node.lineno) for n in names]
            else:
                out.append((node.module, node.lineno))
    return out


def _layer(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "pyterrier_risk" and parts[1] in LAYERS else None


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_imports_only_itself_and_lower_layers(layer):
    rank = LAYERS.index(layer)
    files = sorted((PKG / layer).rglob("*.py"))
    assert files, f"no layer folder {layer}"
    bad = []
    for f in files:
        for module, line in _imports(f):
            other = _layer(module)
            if other is not None and LAYERS.index(other) > rank:
                bad.append(f"{f.relative_to(REPO)}:{line} imports {module} (layer {other})")
            if layer == "core" and module.split(".")[0] in CORE_FORBIDDEN:
                bad.append(f"{f.relative_to(REPO)}:{line} imports {module} (core is numpy/scipy/pandas only)")
    assert not bad, "\n".join(bad)


def test_the_rule_catches_a_violation(tmp_path):
    # the checker itself can fail: a core file that imports the measures layer is reported
    fake = PKG / "core" / "_layer_rule_probe.py"
    fake.write_text("from ..measures import URisk\nimport pyterrier\n")
    try:
        with pytest.raises(AssertionError, match="_layer_rule_probe"):
            test_a_layer_imports_only_itself_and_lower_layers("core")
    finally:
        fake.unlink()


def test_every_module_lives_in_a_layer():
    allowed = ("__init__.py", "__main__.py", "_lazy.py")
    loose = sorted(p.name for p in PKG.glob("*.py") if p.name not in allowed)
    assert loose == [], f"modules outside the layer folders: {loose}"


_PRIVATE = re.compile(r"pyterrier_risk(\.\w+)*\._\w+|from pyterrier_risk(\.\w+)* import _\w+")


def test_docs_and_examples_import_only_public_names():
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    files += sorted((REPO / "examples").glob("*.py"))
    bad = [f"{f.relative_to(REPO)}: {m.group(0)}" for f in files for m in _PRIVATE.finditer(f.read_text())]
    assert not bad, "\n".join(bad)


def _body_lines(node):
    body = node.body
    first = body[0] if body else None
    docstring = isinstance(first, ast.Expr) and isinstance(getattr(first, "value", None), ast.Constant)
    start = body[0].end_lineno + 1 if docstring and len(body) > 1 else node.lineno
    return node.end_lineno - start + 1


def _is_kernel(node):
    """A numba kernel: decorated with ``jit``/``njit``, or a pair-loop template (a ``prange`` loop)."""
    decorated = any("jit" in ast.unparse(d) for d in node.decorator_list)
    return decorated or "prange" in ast.unparse(node)


def test_functions_are_short_outside_the_numba_kernels():
    limit = 60  # lines of code after the docstring; the kernels' pair loops are exempt (one loop, inlined)
    long = []
    for f in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _is_kernel(node):
                continue
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _body_lines(node) > limit:
                long.append(f"{f.relative_to(REPO)}:{node.lineno} {node.name} ({_body_lines(node)} lines)")
    assert not long, "\n".join(long)


def _statements(path, root):
    """(module, imported names or None, line, under ``if TYPE_CHECKING``) of every import in a file,
    relative imports resolved against the file's package (``root`` holds the top-level package)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    package = parts[:-1]  # a package's __init__ resolves against the package itself, as a module does
    tree = ast.parse(path.read_text())
    typing_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, None, node.lineno, id(node) in typing_only) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            out.append((module, [a.name for a in node.names], node.lineno, id(node) in typing_only))
    return out


# Another layer is used through its package, i.e. the names its __init__ re-exports (`from ..core import
# check_alpha`), never through its private modules (`from ..core._validate import check_alpha`); within
# a layer the private modules import each other freely.


def _layer_folders(root):
    return sorted(p.parent.name for p in (root / "pyterrier_risk").glob("*/__init__.py"))


def _private_cross_layer_imports(root):
    """``file:line imports X`` for every import of another layer that names more than the layer's package."""
    folders = _layer_folders(root)
    bad = []
    for layer in folders:
        for f in sorted((root / "pyterrier_risk" / layer).rglob("*.py")):
            rel = f.relative_to(root).as_posix()
            for module, names, line, _ in _statements(f, root):
                parts = module.split(".")
                other = parts[1] if parts[0] == "pyterrier_risk" and len(parts) > 1 else None
                if other not in folders or other == layer:
                    continue  # not another layer (`from .. import core` names the layer's package itself)
                private = [n for n in names or [] if n.startswith("_")]
                if len(parts) > 2 or private:
                    shown = f"{module} import {', '.join(names)}" if names else module
                    bad.append(f"{rel}:{line} imports {shown} (use pyterrier_risk.{other}'s exports)")
    return bad


def test_a_layer_uses_other_layers_only_through_their_package():
    assert set(_layer_folders(REPO)) == set(LAYERS), "every layer folder has its rank in LAYERS"
    bad = _private_cross_layer_imports(REPO)
    assert not bad, "\n".join(bad)


def test_the_public_name_rule_catches_a_violation(tmp_path):
    for layer in ("core", "measures", "cli"):
        (tmp_path / "pyterrier_risk" / layer).mkdir(parents=True)
        (tmp_path / "pyterrier_risk" / layer / "__init__.py").write_text("")
    (tmp_path / "pyterrier_risk" / "measures" / "_probe.py").write_text(
        "from ..core._validate import check_alpha\n"  # private module of another layer
        "from ..core import _validate\n"  # the same, spelled as a name
        "import pyterrier_risk.core._topics\n"  # absolute
        "def f():\n    from ..core._ue import ue\n"  # in a function
        "from ..core import check_alpha\n"  # allowed: the layer's package
        "from ._risk import RiskMeasure\n"  # allowed: a private module of the same layer
        "from .._lazy import lazy_exports\n"  # allowed: the package utility
    )
    bad = _private_cross_layer_imports(tmp_path)
    assert [b.split(" ")[0] for b in bad] == [f"pyterrier_risk/measures/_probe.py:{i}" for i in (1, 2, 3, 5)]
    assert "pyterrier_risk.core._validate import check_alpha" in bad[0]


def _module_graph(root, package="pyterrier_risk"):
    """Module -> the package's modules it imports, function-level imports included (a deferred import
    is still a dependency), ``if TYPE_CHECKING`` imports and the implicit import of parent packages not."""
    files = {}
    for f in sorted((root / package).rglob("*.py")):
        parts = f.relative_to(root).with_suffix("").parts
        files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = f
    graph = {}
    for module, f in files.items():
        edges = set()
        for target, names, _, typing_only in _statements(f, root):
            if typing_only:
                continue
            submodules = [f"{target}.{n}" for n in names or [] if f"{target}.{n}" in files]
            edges.update(submodules or ([target] if target in files else []))
        graph[module] = sorted(edges - {module})
    return graph


def _a_cycle(graph):
    """One import cycle as a list of modules (first == last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in graph.get(node, ()):
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_between_the_package_modules():
    graph = _module_graph(REPO)
    assert "pyterrier_risk.reporting._text" in graph["pyterrier_risk.reporting._styling"]  # the graph is real
    cycle = _a_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_check_finds_a_planted_cycle(tmp_path):
    pkg = tmp_path / "pyterrier_risk"
    (pkg / "reporting").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "reporting" / "__init__.py").write_text("")
    (pkg / "reporting" / "_a.py").write_text("from ._b import g\n")
    (pkg / "reporting" / "_b.py").write_text("def g():\n    from . import _c\n")  # deferred, still a cycle
    (pkg / "reporting" / "_c.py").write_text("from typing import TYPE_CHECKING\nfrom ._a import f\n")
    assert _a_cycle(_module_graph(tmp_path)) == [f"pyterrier_risk.reporting._{m}" for m in "abca"]
    (pkg / "reporting" / "_c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                            "    from ._a import f\n")  # for the type checker only
    assert _a_cycle(_module_graph(tmp_path)) is None


#: the largest module (lines): a module past it holds more than one job (issue 24: split by job)
MAX_MODULE_LINES = 700


def _long_modules(root) -> list[str]:
    return [f"{p.relative_to(root)} ({n} lines)" for p in sorted(root.rglob("*.py"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]


def test_no_module_exceeds_the_line_limit(tmp_path):
    assert not _long_modules(REPO / "pyterrier_risk"), "split these modules by job"
    (tmp_path / "big.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))  # the rule catches one
    assert _long_modules(tmp_path) == [f"big.py ({MAX_MODULE_LINES + 1} lines)"]
