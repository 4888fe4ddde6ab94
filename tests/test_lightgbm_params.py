"""LightGBM's lambdarank parameter names have one source (issue 24, item 2).

They lived in three lists (``_LAMBDARANK_PARAMS`` of the estimator, ``_LAMBDARANK_DEFAULTS`` of the
driver, ``RESERVED_OPTIONS`` of the registry) kept equal by a test; now ``learning/_lightgbm_params.py``,
below both the registry and the driver, is the only place that lists them.
"""

from __future__ import annotations

import ast
from pathlib import Path

from pyterrier_risk.learning import _lightgbm_params as params
from pyterrier_risk.learning import _objective
from pyterrier_risk.learning.objectives import _registry

PACKAGE = Path(__file__).resolve().parents[1] / "pyterrier_risk"


def test_the_driver_and_the_registry_read_the_one_source():
    assert _objective._LAMBDARANK_DEFAULTS is params.LAMBDARANK_DEFAULTS
    assert _registry.RESERVED_OPTIONS is params.RESERVED_OPTIONS
    assert params.RESERVED_OPTIONS == params.DRIVER_OPTIONS | set(params.LAMBDARANK_PARAMS)


def second_lists(root: Path) -> list[str]:
    """Tuples, lists, sets and dicts naming two or more lambdarank parameters, outside the one source."""
    names = set(params.LAMBDARANK_PARAMS)
    found = []
    for file in sorted(root.rglob("*.py")):
        if file.name == "_lightgbm_params.py":
            continue
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
                continue
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            strings = {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
            if len(strings & names) >= 2:
                found.append(f"{file.relative_to(root)}:{node.lineno}")
    return found


def test_no_other_module_lists_the_lambdarank_parameters():
    assert second_lists(PACKAGE) == []


def test_the_scan_finds_a_planted_second_list(tmp_path):
    (tmp_path / "_lambdamart.py").write_text(
        'import x\n_LAMBDARANK_PARAMS = ("sigmoid", "lambdarank_truncation_level", "label_gain")\n'
    )
    (tmp_path / "_registry.py").write_text('RESERVED = frozenset({"kind", "sigmoid", "lambdarank_norm"})\n')
    assert second_lists(tmp_path) == ["_lambdamart.py:2", "_registry.py:1"]
