"""Packaging and namespace checks: every public name resolves, imports stay light."""

from __future__ import annotations

import subprocess
import sys

import pytest
import tomllib
from conftest import REPO

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
