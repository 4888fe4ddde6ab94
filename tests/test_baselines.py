"""Unbiased per-topic baselines MEAN / MEDIAN / MAX (Dinçer, Ounis & Macdonald, ECIR 2014)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pyterrier_risk import baseline_scores, trisk, urisk

M = np.array(
    [
        [0.25, 0.50, 0.0, 0.125],
        [0.75, 0.00, 0.0, 0.125],
        [0.50, 0.25, 0.0, 0.500],
        [1.00, 0.25, 0.0, 0.250],
    ]
)


def test_by_hand():
    np.testing.assert_allclose(baseline_scores(M), [0.625, 0.25, 0.0, 0.25])
    np.testing.assert_allclose(baseline_scores(M, "median"), [0.625, 0.25, 0.0, 0.1875])
    np.testing.assert_allclose(baseline_scores(M, "max"), [1.0, 0.5, 0.0, 0.5])
    np.testing.assert_allclose(baseline_scores(M[:3], "median"), [0.5, 0.25, 0.0, 0.125])


def test_dataframe_gives_series_by_topic():
    df = pd.DataFrame(M, index=["a", "b", "c", "d"], columns=[101, 102, 103, 104])
    for kind in ("mean", "median", "max"):
        s = baseline_scores(df, kind)
        assert isinstance(s, pd.Series) and list(s.index) == [101, 102, 103, 104] and s.name == kind
        np.testing.assert_allclose(s.to_numpy(), baseline_scores(M, kind))


def test_t_star_risk_against_the_mean_baseline():
    df = pd.DataFrame(M, index=["a", "b", "c", "d"], columns=["q1", "q2", "q3", "q4"])
    base = baseline_scores(df)
    # against MEAN, URisk at alpha=0 is the system's mean minus the mean of all systems' means
    assert urisk(df.loc["d"], base) == pytest.approx(df.loc["d"].mean() - df.to_numpy().mean())
    assert trisk(df.loc["d"], base, alpha=5).df == 3
    # against MAX nothing can win: URisk is minus (1 + alpha) times the loss in SOTA
    top = baseline_scores(df, "max")
    assert urisk(df.loc["a"], top, 1) == pytest.approx(-2 * (top - df.loc["a"]).mean())


def test_single_system_is_its_own_baseline():
    np.testing.assert_allclose(baseline_scores(M[:1], "median"), M[0])


def test_bad_input():
    with pytest.raises(ValueError, match="unknown baseline kind 'min'"):
        baseline_scores(M, "min")
    with pytest.raises(ValueError, match="2-D"):
        baseline_scores(M[0])
    with pytest.raises(ValueError, match="at least 1 systems"):
        baseline_scores(np.zeros((0, 3)))
    bad = M.copy()
    bad[2, 1] = np.nan
    with pytest.raises(ValueError, match=r"NaN scores at \(2, 1\)"):
        baseline_scores(bad)
    bad[2, 1] = -1
    with pytest.raises(ValueError, match="negative"):
        baseline_scores(bad, "max")


def test_baseline_kinds_is_a_deprecated_alias_of_baseline_aggregates():
    from pyterrier_risk import core

    assert core.BASELINE_AGGREGATES == ("mean", "median", "max")
    with pytest.warns(DeprecationWarning, match="use BASELINE_AGGREGATES"):
        assert core.BASELINE_KINDS is core.BASELINE_AGGREGATES
