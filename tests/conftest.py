"""Fixtures and hooks pytest provides to every test file: an offline ir_datasets home, the seeded
hypothesis profile, the shared data folder and a clean objective registry.

Plain helpers (``REPO``, ``DATA``, ``data_path``, ``FAST``, ``synthetic``, ``native_model``) live in
``tests/helpers.py``; test files import them from there, never from this file.

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
from helpers import DATA, data_path, synthetic
from hypothesis import settings

settings.register_profile("seeded", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "seeded"))


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


@pytest.fixture
def shared_data() -> Path:
    """The shared data folder (skips, or fails in CI, when absent)."""
    return data_path()


@pytest.fixture(scope="module")
def synthetic_data():
    """The learner tests' small synthetic candidates and qrels (``helpers.synthetic()``), once per module."""
    return synthetic()


@pytest.fixture(scope="module")
def one_numba_thread():
    """The objective's numba kernels on one thread: on a loaded 2-core machine spinning workers cost ~7x.

    A module asks for it with ``pytestmark = pytest.mark.usefixtures("one_numba_thread")``.
    """
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


@pytest.fixture
def clean_registry():
    """Unregister the objectives a test registers (registration is process-wide)."""
    import pyterrier_risk as ptr

    before = set(ptr.objective_names())
    yield
    for name in set(ptr.objective_names()) - before:
        ptr.unregister_objective(name)


@pytest.fixture
def downside_objective(clean_registry) -> str:
    """A user's per-pair rule objective (``tests/user_objectives.py``), registered for the test; its name."""
    from user_objectives import Downside

    import pyterrier_risk as ptr

    ptr.register_objective(Downside)
    return Downside.name


# ------------------------------------------------ session-scoped fixtures: trained models shared by files


# ------------------------------------------------------------------------------------------ evalspeed
# The 19 TREC-7 runs cut short, for tests whose assertions are about the layout (widths, rows, names)
# or internal consistency, not the runs' depth: a command reads 19 x 50 x 20 lines instead of 19 x 50,000.
TREC7_SHORT_DEPTH = 20


@pytest.fixture(scope="session")
def trec7_short(tmp_path_factory) -> Path:
    """A copy of ``trec7-adhoc-terrier-runs`` (qrels, topics, ``runs/``) whose runs keep their first
    :data:`TREC7_SHORT_DEPTH` lines of each topic (the same names, the top of each ranking); read-only."""
    import gzip
    from collections import Counter

    source = data_path("trec7-adhoc-terrier-runs")
    folder = tmp_path_factory.mktemp("trec7-short")
    for name in ("qrels.adhoc.351-400.txt", "topics.adhoc.351-400.txt"):
        shutil.copyfile(source / name, folder / name)
    (folder / "runs").mkdir()
    for path in sorted((source / "runs").glob("*.run.gz")):
        seen: Counter[str] = Counter()
        kept = []
        with gzip.open(path, "rt", encoding="utf-8") as lines:
            for line in lines:
                qid = line.split(maxsplit=1)[0] if line.strip() else ""
                seen[qid] += 1
                if seen[qid] <= TREC7_SHORT_DEPTH:
                    kept.append(line)
        (folder / "runs" / path.name.removesuffix(".gz")).write_text("".join(kept), encoding="utf-8")
    return folder
