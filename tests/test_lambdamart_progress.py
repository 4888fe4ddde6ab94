"""Honest progress while RiskLambdaMART trains (issue 16, item 9)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from helpers import FAST, REPO

from pyterrier_risk import RiskLambdaMART
from pyterrier_risk.learning import RiskObjective

COMPILING = "compiling kernels (first use; cached in /somewhere)"


def test_the_bar_says_it_compiles_before_the_first_tree(synthetic_data, capsys, monkeypatch):
    res, qrels = synthetic_data
    monkeypatch.setattr(RiskObjective, "kernel_status", lambda self, n: COMPILING)
    model = RiskLambdaMART("urisk", baseline=1, num_boost_round=5, verbose=True, **FAST).fit(res, qrels)
    err = capsys.readouterr().err
    assert f"RiskLambdaMART(urisk): {COMPILING}" in err
    # said before the first tree; then the bar starts again at 0/5, so its rate counts trees only
    assert err.index(COMPILING) < err.rindex("0/5") < err.index("5/5")
    # the warm-up call leaves no trace: the same model as without it
    monkeypatch.undo()
    quiet = RiskLambdaMART("urisk", baseline=1, num_boost_round=5, verbose=False, **FAST).fit(res, qrels)
    np.testing.assert_array_equal(model.transform(res)["score"], quiet.transform(res)["score"])


@pytest.mark.slow
def test_kernel_status_reports_compiling_loading_and_no_cache(tmp_path):
    """In a fresh process: compile (empty cache), load (a cache entry exists), or no cache at all."""
    code = textwrap.dedent("""
        import numpy as np
        from pyterrier_risk import objective
        print(objective("lambdarank").kernel_status(100))
        print(objective("lambdarank", num_threads=2).kernel_status(100))
    """)

    def status(cache: str) -> list[str]:
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTERRIER_RISK_CACHE_DIR": cache}
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.splitlines()

    cache = tmp_path / "cache"
    assert status(str(cache)) == [f"compiling kernels (first use; cached in {cache})"] * 2
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTERRIER_RISK_CACHE_DIR": str(cache)}
    one_gradient = (  # a small set, one thread: compiles and caches the serial loop only
        "import numpy as np; from pyterrier_risk import objective; "
        "objective('lambdarank')(np.array([0, 1, 2, 0.0]), np.zeros(4), None, np.array([2, 2]))"
    )
    subprocess.run([sys.executable, "-c", one_gradient], check=True, env=env, timeout=300)
    assert status(str(cache)) == [
        f"loading kernels (cached in {cache})",
        f"compiling kernels (first use; cached in {cache})",
    ]
    assert status("off")[0] == "compiling kernels (first use in this process; the disk cache is off)"


def test_no_message_once_the_kernels_are_compiled(synthetic_data):
    res, qrels = synthetic_data
    RiskLambdaMART("urisk", baseline=1, num_boost_round=1, verbose=False, **FAST).fit(res, qrels)
    assert RiskObjective("lambdarank").kernel_status(len(res)) is None


def test_early_stopping_says_so_with_the_best_iteration(synthetic_data, capsys):
    res, qrels = synthetic_data
    model = RiskLambdaMART("lambdarank", num_boost_round=40, early_stopping_rounds=2, verbose=True, **FAST)
    model.fit(res, qrels, res, qrels.assign(label=2 - qrels["label"]))  # the validation labels disagree
    err = capsys.readouterr().err
    trees = model.best_iteration_ + 2  # grown: the best, then early_stopping_rounds without a gain
    assert trees < 40
    assert (
        f"early stopping after {trees} trees; best iteration {model.best_iteration_} (valid ndcg@10 0." in err
    )


def test_no_early_stopping_message_when_all_trees_are_grown(synthetic_data, capsys):
    res, qrels = synthetic_data
    RiskLambdaMART("lambdarank", num_boost_round=4, early_stopping_rounds=2, verbose=True, **FAST).fit(
        res, qrels, res, qrels
    )
    err = capsys.readouterr().err
    assert "4/4" in err and "early stopping" not in err
