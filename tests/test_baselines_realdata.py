"""Dinçer et al. ECIR 2014's claim on real runs: rankings under each baseline, and the bias mechanism.

The per-topic scores come from ir_measures directly (not the package's evaluation code), URisk from
its formula in numpy, the tests from scipy; the package's :func:`baseline_sensitivity` must agree, and
the assertions state what the data gives (docs/baselines_sensitivity.md reports the numbers).
"""

from __future__ import annotations

import ir_measures
import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from scipy import stats

import pyterrier_risk as ptr

pytestmark = pytest.mark.realdata


def _matrix(folder: str, qrels_name: str, measure: str, depth: int | None = None) -> pd.DataFrame:
    """Systems x topics; with ``depth``, ir_measures is handed only the lines scoring at least each
    topic's ``depth``-th score (all that a measure cut at ``depth`` reads, ties included)."""
    root = data_path(folder)
    qrels = list(ir_measures.read_trec_qrels(str(root / qrels_name)))
    topics = sorted({q.query_id for q in qrels})
    m = ir_measures.parse_measure(measure)
    rows = {}
    for path in sorted((root / "runs").glob("*.gz")):
        run = pd.DataFrame(ir_measures.read_trec_run(str(path)))
        if depth is not None:
            run = run[run.groupby("query_id")["score"].rank(method="min", ascending=False) <= depth]
        values = {v.query_id: v.value for v in ir_measures.iter_calc([m], qrels, run)}
        rows[path.name.split(".run")[0]] = [values.get(t, 0.0) for t in topics]  # a missing topic scores 0
    return pd.DataFrame.from_dict(rows, orient="index", columns=topics)


@pytest.fixture(scope="module")
def web():
    return _matrix("trec-web-2012-risk", "qrels.web.151-200.txt", "ERR@20", depth=20)


@pytest.fixture(scope="module")
def trec7():
    return _matrix("trec7-adhoc-terrier-runs", "qrels.adhoc.351-400.txt", "AP")


def _independent(m: pd.DataFrame, alpha: float):
    """URisk of every system against every run (numpy), Friedman (scipy), promotion ρ per baseline (scipy)."""
    x = m.to_numpy()
    d = x[:, None, :] - x[None, :, :]  # system i against baseline j
    u = np.where(d < 0, (1 + alpha) * d, d).mean(axis=2)
    friedman = stats.friedmanchisquare(*u)
    rhos = []
    for j in range(len(m)):
        others = [i for i in range(len(m)) if i != j]
        corr = [np.corrcoef(x[i], x[j])[0, 1] for i in others]
        promotion = stats.rankdata(-x[others].mean(axis=1)) - stats.rankdata(-u[others, j])
        rhos.append(stats.spearmanr(corr, promotion).statistic if np.ptp(promotion) else np.nan)
    return u, friedman, np.array(rhos)


# the quick loop: the Web 2012 runs; CI also the 19 TREC-7 runs (AP reads the whole runs; the same code)
@pytest.mark.parametrize(("name", "alpha"), [("web", 10.0), ("web", 5.0),
                                             pytest.param("trec7", 10.0, marks=pytest.mark.slow),
                                             pytest.param("trec7", 5.0, marks=pytest.mark.slow)])
def test_rankings_change_with_the_baseline_and_correlated_systems_are_promoted(name, alpha, request):
    m = request.getfixturevalue(name)
    res = ptr.baseline_sensitivity(m, alpha=alpha, permutations=999)
    u, friedman, rhos = _independent(m, alpha)
    runs = list(m.index)
    np.testing.assert_allclose(res.urisk[runs].to_numpy(), u, atol=1e-12)
    assert res.friedman.statistic == pytest.approx(friedman.statistic)
    assert res.friedman.p_value == pytest.approx(friedman.pvalue)
    np.testing.assert_allclose(res.bias["rho_promotion"].to_numpy(), rhos, equal_nan=True)
    # what the data gives: some pair of run baselines ranks the other systems in opposite orders ...
    lo, hi = res.tau_range()
    assert lo < 0 and hi == pytest.approx(1.0)
    # ... and yet Friedman rejects: the baselines agree more than chance (W > 0), not less
    assert res.friedman.p_value < 0.05 and 0 < res.friedman.kendall_w < 0.5
    # the paper's mechanism: systems correlated with the baseline move up its URisk ranking
    assert res.bias_test["mean_rho"] == pytest.approx(np.nanmean(rhos)) and res.bias_test["mean_rho"] > 0.3
    assert res.bias_test["p_value"] < 0.05
    # and, without controlling for effectiveness, they look less risky (higher URisk) under most baselines
    assert (res.bias["rho_urisk"] > 0).mean() >= 0.85
    # the unbiased baselines agree with each other more than two run baselines typically do (Table 3)
    virtual = res.tau.loc[["MEAN", "MEDIAN", "MAX"], ["MEAN", "MEDIAN", "MAX"]].to_numpy()
    pairs = res.tau.loc[runs, runs].to_numpy()[~np.eye(len(runs), dtype=bool)]
    assert virtual.min() > np.median(pairs)
