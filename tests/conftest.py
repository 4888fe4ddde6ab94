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


# ------------------------------------------------- the learner's shared synthetic data (RiskLambdaMART tests)
#: LightGBM settings of the learner tests: small trees, one thread, deterministic
FAST = {
    "num_leaves": 4,
    "min_data_in_leaf": 3,
    "learning_rate": 0.2,
    "num_threads": 1,
    "seed": 1,
    "deterministic": True,
    "force_row_wise": True,
}


def synthetic(n_queries: int = 8, n_docs: int = 10, n_features: int = 4, seed: int = 0):
    """Candidates (with a first-stage score) and qrels; feature 0 is informative, others noise."""
    import numpy as np
    import pandas as pd
    import pyterrier as pt

    rng = np.random.default_rng(seed)
    rows, qrels = [], []
    for q in range(n_queries):
        labels = rng.integers(0, 3, size=n_docs)
        labels[0], labels[1] = 0, 2  # every query has two label values
        for d in range(n_docs):
            feats = rng.random(n_features)
            feats[0] = labels[d] + rng.normal(0, 0.7)
            rows.append(
                {
                    "qid": f"q{q}",
                    "query": f"query {q}",
                    "docno": f"d{q}_{d}",
                    "score": feats[0] + rng.normal(0, 1.0),
                    "features": feats,
                }
            )
            if d % 5 != 4:  # some candidates stay unjudged (label 0)
                qrels.append({"qid": f"q{q}", "docno": f"d{q}_{d}", "label": int(labels[d])})
    res = pd.DataFrame(rows)
    return pt.model.add_ranks(res), pd.DataFrame(qrels)


def native_model(res, qrels, rounds, **params):
    """LightGBM's own lambdarank on the same rows, built independently of RiskLambdaMART."""
    import lightgbm as lgb
    import numpy as np

    frame = res.merge(qrels, on=["qid", "docno"], how="left").fillna({"label": 0})
    frame = frame.sort_values("qid", kind="stable")
    x = np.stack(frame["features"].to_numpy())
    group = frame.groupby("qid", sort=False).size().to_numpy()
    booster = lgb.train(
        {"objective": "lambdarank", "verbosity": -1, **params},
        lgb.Dataset(x, frame["label"].to_numpy(), group=group),
        num_boost_round=rounds,
    )
    return booster


@pytest.fixture
def clean_registry():
    """Unregister the objectives a test registers (registration is process-wide)."""
    import pyterrier_risk as ptr

    before = set(ptr.objective_names())
    yield
    for name in set(ptr.objective_names()) - before:
        ptr.unregister_objective(name)


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
