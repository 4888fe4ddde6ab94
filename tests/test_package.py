"""Packaging and namespace checks: every public name resolves, imports stay light."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
import tomllib
from helpers import REPO

import pyterrier_risk


def test_version_matches_metadata():
    assert isinstance(pyterrier_risk.__version__, str)
    assert pyterrier_risk.__version__.count(".") >= 2
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert meta["project"]["name"] == "pyterrier-risk"
    deps = " ".join(meta["project"]["dependencies"])
    for dep in ("pyterrier", "ir-measures", "ir-datasets", "numpy", "scipy", "pandas", "lightgbm"):
        assert dep in deps


@pytest.mark.parametrize("name", [n for n in pyterrier_risk.__all__ if n != "__version__"])
def test_every_public_name_resolves(name):
    value = getattr(pyterrier_risk, name)
    assert value is not None
    assert getattr(value, "__doc__", None), f"{name} has no docstring"


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        pyterrier_risk.no_such_name  # noqa: B018


def test_import_is_light():
    code = (
        "import sys, pyterrier_risk\n"
        "heavy = ('lightgbm', 'matplotlib', 'numba', 'pyterrier', 'pyterrier_pisa')\n"
        "heavy = [m for m in heavy if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "", f"import pyterrier_risk pulled in heavy modules: {out.stdout.strip()}"


def test_measures_registered_with_ir_measures():
    import ir_measures

    for name in ("URisk", "TRisk", "ZRisk", "GeoRisk", "UE"):
        assert name in ir_measures.measures.registry, f"{name} is not registered with ir_measures"


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", requirement).lower()


def test_declared_floors_are_the_pins_ci_tests():
    """pyproject's `>=` floors equal .ci/oldest-constraints.txt's `==` pins, which CI installs."""
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    floors = {}
    for dep in meta["project"]["dependencies"]:
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)>=([0-9][0-9A-Za-z.]*)", dep.replace(" ", ""))
        assert m, f"dependency {dep!r} should be exactly 'name>=floor' (a floor CI can pin and test)"
        floors[_name(m[1])] = m[2]
    pins = {}
    for line in (REPO / ".ci" / "oldest-constraints.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.]*)", line.replace(" ", ""))
            assert m, f"constraint {line!r} should be exactly 'name==version'"
            pins[_name(m[1])] = m[2]
    assert pins == floors


def test_ci_installs_the_pins_and_runs_the_tests_in_a_second_environment():
    ci = (REPO / ".ci" / "run").read_text()
    assert "-c .ci/oldest-constraints.txt" in ci
    for test in ("test_experiment.py", "test_measures.py", "test_objective.py", "test_lambdamart.py"):
        assert f"tests/{test}" in ci.split("oldest-constraints.txt", 1)[1], f"CI's oldest pass skips {test}"


def test_the_changelog_names_the_current_version_first():
    """CHANGELOG.md (Keep a Changelog) has a section per version from 0.1.0, newest first, and its newest
    section is the package's version."""
    import re
    from pathlib import Path

    import pyterrier_risk

    text = (Path(__file__).resolve().parents[1] / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", text, flags=re.M)
    assert versions and versions[0] == pyterrier_risk.__version__
    assert versions[-1] == "0.1.0"
    as_tuples = [tuple(int(x) for x in v.split(".")) for v in versions]
    assert as_tuples == sorted(as_tuples, reverse=True)
    for v in versions:  # every section has its compare/release link
        assert re.search(rf"^\[{re.escape(v)}\]: \S+$", text, flags=re.M)


def test_the_package_ships_py_typed():
    """PEP 561: the marker file is in the package and declared as package data."""
    from pathlib import Path

    import pyterrier_risk

    assert (Path(pyterrier_risk.__file__).parent / "py.typed").is_file()
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    assert '"pyterrier_risk" = ["py.typed"]' in pyproject


def test_ci_type_checks_the_package_with_pyproject_settings():
    """.ci/run runs mypy after the lint, reading [tool.mypy] (the package; the layers' stricter blocks)."""
    ci = (REPO / ".ci" / "run").read_text()
    assert "\npython -m mypy\n" in ci, ".ci/run does not type-check"
    assert ci.index("ruff check .") < ci.index("python -m mypy") < ci.index("python -m pytest")
    meta = tomllib.loads((REPO / "pyproject.toml").read_text())
    mypy = meta["tool"]["mypy"]
    assert mypy["packages"] == ["pyterrier_risk"]
    assert mypy["disallow_untyped_defs"] and mypy["warn_unused_ignores"]
    assert any(dep.startswith("mypy>=") for dep in meta["project"]["optional-dependencies"]["test"])
    strict = [o for o in mypy["overrides"] if o.get("disallow_any_generics")]
    assert "pyterrier_risk.core.*" in [m for o in strict for m in o["module"]]


def _type_checking_names(init):
    """name -> submodule of the imports under ``if TYPE_CHECKING:`` in a package's ``__init__.py``."""
    import ast

    names = {}
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.level == 1, ast.unparse(imp)
                for alias in imp.names:
                    assert alias.asname == alias.name, f"{ast.unparse(imp)}: re-export as itself"
                    names[alias.name] = imp.module
    return names


@pytest.mark.parametrize(
    "package", ["", "core", "data", "measures", "experiment", "reporting", "learning", "study", "cli"]
)
def test_type_checkers_see_the_lazy_names(package):
    """A package's lazy table and its TYPE_CHECKING imports name the same objects in the same modules."""
    import importlib

    module = importlib.import_module(f"pyterrier_risk.{package}".rstrip("."))
    lazy = {**getattr(module, "_EXPORTS", {}), **getattr(module, "_INTERNAL", {})}
    seen = _type_checking_names(REPO / "pyterrier_risk" / package / "__init__.py")
    assert seen == {name: where.lstrip(".") for name, where in lazy.items()}
