"""Plain helpers the test files share: where the repository and the real data are, and the learner's
small synthetic data.

Test files import them as ``from helpers import data_path`` (pytest puts ``tests/`` on ``sys.path``:
the rootdir's ``conftest.py`` sits there and the default ``prepend`` import mode inserts its folder),
so no test edits ``sys.path``. Fixtures live in ``conftest.py``, which pytest provides; what is here
is ordinary code, also usable from a subprocess whose ``PYTHONPATH`` holds ``tests/``
(``child_env()``).

Real-data tests read ``$PYTERRIER_RISK_DATA`` (default ``../shared/data`` next to the repository).
When it is missing they skip with a reason, unless ``PYTERRIER_RISK_REQUIRE_DATA=1`` (set by
``.ci/run``), in which case they fail: CI must never silently skip the evidence.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

#: the repository's root folder
REPO = Path(__file__).resolve().parents[1]
#: the shared real-data folder
DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", REPO.parent / "shared" / "data"))
#: whether absent real data fails (CI) instead of skipping
REQUIRE_DATA = os.environ.get("PYTERRIER_RISK_REQUIRE_DATA", "") not in ("", "0")


def child_env() -> dict[str, str]:
    """The environment of a child Python that imports this checkout's package and these helpers."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "tests")])}


def data_path(*parts: str) -> Path:
    """Path inside the shared data folder, or skip (fail under CI) when it is absent."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        message = f"real data not found at {path} (set PYTERRIER_RISK_DATA to the shared/data folder)"
        if REQUIRE_DATA:
            pytest.fail(message)
        pytest.skip(message)
    return path


def run_python(code: str) -> subprocess.CompletedProcess:
    """Run dedented ``code`` in a child Python that imports this checkout (10 minutes at most)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env, timeout=600
    )


def run_example(*args: str) -> str:
    """Run an example script (``examples/...`` and its arguments) as a user does, on the shared data; its
    stdout (a failure shows the end of its stderr)."""
    env = {**os.environ, "PYTERRIER_RISK_DATA": str(data_path())}
    out = subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def declared_entry_points() -> dict[str, list[EntryPoint]]:
    """The entry points ``pyproject.toml`` declares, by group (what an installed package would list)."""
    from importlib.metadata import EntryPoint

    import tomllib  # Python 3.11+, as the tests that call this

    groups = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]
    return {g: [EntryPoint(n, v, g) for n, v in eps.items()] for g, eps in groups.items()}


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


def synthetic(n_queries: int = 8, n_docs: int = 10, n_features: int = 4, seed: int = 0) -> Any:
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


def native_model(res: Any, qrels: Any, rounds: int, **params: Any) -> Any:
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
