"""Shared fixtures: where the real data lives, and an offline ir_datasets home.

Real-data tests read ``$PYTERRIER_RISK_DATA`` (default ``../shared/data`` next to the repository).
When it is missing they skip with a reason, unless ``PYTERRIER_RISK_REQUIRE_DATA=1`` (set by
``.ci/run``), in which case they fail: CI must never silently skip the evidence.

Property tests are seeded (hypothesis profile ``seeded``: the same examples on every run of one
hypothesis version, so a red CI is never a coin toss). ``HYPOTHESIS_PROFILE=explore`` draws new
examples each run (README, "Two commands").
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("seeded", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "seeded"))

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", REPO.parent / "shared" / "data"))
REQUIRE_DATA = os.environ.get("PYTERRIER_RISK_REQUIRE_DATA", "") not in ("", "0")


def _offline_irds_home() -> None:
    """Point ir_datasets at a writable copy of the shared cache before anything imports it."""
    if "IR_DATASETS_HOME" in os.environ:
        return
    src = DATA / "ir_datasets_home"
    if not src.is_dir():
        return
    dst = Path(tempfile.mkdtemp(prefix="pyterrier-risk-irds-")) / "home"
    shutil.copytree(src, dst)
    for path in [dst, *dst.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    os.environ["IR_DATASETS_HOME"] = str(dst)


_offline_irds_home()
os.environ.setdefault("MPLBACKEND", "Agg")


def data_path(*parts: str) -> Path:
    """Path inside the shared data folder, or skip (fail under CI) when it is absent."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        message = f"real data not found at {path} (set PYTERRIER_RISK_DATA to the shared/data folder)"
        if REQUIRE_DATA:
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture
def shared_data() -> Path:
    """The shared data folder (skips, or fails in CI, when absent)."""
    return data_path()
