"""The import rule of the layers: lower layers never import higher ones; the core imports no
PyTerrier, ir_measures, LightGBM or numba; docs and examples import only public names."""

from __future__ import annotations

import ast
import re

import pytest
from conftest import REPO

PKG = REPO / "pyterrier_risk"
# a layer may import its own and lower layers only (docs/architecture in pyterrier_risk/__init__.py)
LAYERS = ["core", "data", "measures", "experiment", "learning", "reporting", "study", "cli"]
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


def test_functions_are_short_outside_the_numba_kernels():
    limit = 60  # lines of code after the docstring; the kernels' pair loops are exempt (one loop, inlined)
    long = []
    for f in sorted(PKG.rglob("*.py")):
        if f.name == "_kernels.py":
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _body_lines(node) > limit:
                long.append(f"{f.relative_to(REPO)}:{node.lineno} {node.name} ({_body_lines(node)} lines)")
    assert not long, "\n".join(long)
