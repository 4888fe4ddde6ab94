"""examples/mq2008_alpha_study.py --quick: U-CRO's distance to BM25 and its convergence per α.

The example's printed numbers are recomputed here from the rankings and curves it writes, with
scipy and plain loops (Kendall's τ, the bins, Wilcoxon's and Page's tests, the rounds), not compared
with stored outputs.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest
from helpers import data_path
from scipy import stats
from test_examples import run_example

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    data_path("letor4-mq2008")
    out = tmp_path_factory.mktemp("alpha") / "study.csv"
    text = run_example("examples/mq2008_alpha_study.py", "--quick", "--runs", "--out", str(out),
                       "--plots", str(out.parent / "figures"))
    figures = {f.name for f in (out.parent / "figures").glob("*.png")}
    assert figures == {"rank_distance.png", "convergence.png"}
    read = {name: pd.read_csv(out.with_name(f"study{name}.csv"), dtype={"qid": str})
            for name in ("", "_curves", "_convergence", "_runs", "_bm25")}
    read[""]["qid"] = read[""]["seed_qid"].str.split(":", n=1).str[1]
    return text, read


def kendall_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Discordant pairs / all pairs, by brute force (a pair tied in either ranking is not discordant)."""
    i, j = np.triu_indices(len(a), 1)
    return float(np.mean((a[i] - a[j]) * (b[i] - b[j]) < 0)) if len(a) > 1 else math.nan


def test_distances_are_those_of_the_written_rankings(quick):
    text, read = quick
    runs, bm25, dist = read["_runs"], read["_bm25"], read[""]
    assert runs["qid"].nunique() == 156  # fold 1's test queries
    assert set(dist["alpha"]) == {0.0, 1.0, 5.0, 10.0}
    rng = np.random.default_rng(0)
    for qid in rng.choice(sorted(runs["qid"].unique()), 12, replace=False):
        base = bm25[bm25["qid"] == qid].set_index("docno")["score"]
        for alpha in (0.0, 10.0):
            run = runs[(runs["qid"] == qid) & (runs["alpha"] == alpha)].set_index("docno")["score"]
            want = kendall_distance(run.to_numpy(), base[run.index].to_numpy())
            got = dist[(dist["qid"] == qid) & (dist["alpha"] == alpha)]["distance"].iloc[0]
            if np.ptp(base[run.index]) == 0 or len(run) < 2:
                assert math.isnan(got)
            else:
                assert got == pytest.approx(want, abs=1e-12)
                if len(np.unique(base[run.index])) == len(run):  # no ties: K = (1 - tau) / 2
                    tau = stats.kendalltau(run.to_numpy(), base[run.index].to_numpy()).statistic
                    assert got == pytest.approx((1 - tau) / 2, abs=1e-9)


def printed(text: str, key: str) -> float:
    return float(re.search(rf"^{key}: (\S+)$", text, re.M).group(1))


def test_bins_and_trend_tests_follow_from_the_distances(quick):
    text, read = quick
    wide = read[""].pivot(index="qid", columns="alpha", values="distance")
    for alpha in wide.columns:
        d = wide[alpha].dropna().to_numpy()
        edges = np.arange(11) / 10
        fractions = [np.mean((d >= lo) & ((d < hi) | (hi == 1.0)))
                     for lo, hi in zip(edges[:-1], edges[1:], strict=True)]
        row = re.search(rf"^alpha={alpha:g} +(.*)$", text, re.M).group(1).split()
        assert [float(x) for x in row[:10]] == pytest.approx(fractions, abs=6e-4)
        assert int(row[10]) == wide[alpha].isna().sum()
        assert float(row[11]) == pytest.approx(d.mean(), abs=6e-4)
    ok = wide.dropna()
    assert printed(text, "queries") == len(ok)
    assert printed(text, "wilcoxon_p") == pytest.approx(stats.wilcoxon(ok[1.0], ok[10.0]).pvalue, rel=1e-3)
    assert printed(text, "page_p") == pytest.approx(stats.page_trend_test(-ok.to_numpy()).pvalue, rel=1e-3)
    assert printed(text, "mean_distance_alpha10") == pytest.approx(ok[10.0].mean(), abs=1e-4)
    assert printed(text, "share_closer_at_alpha10") == pytest.approx((ok[10.0] < ok[1.0]).mean(), abs=1e-4)


def first_round(curve: np.ndarray, target: float) -> float:
    for t, v in enumerate(curve, start=1):
        if v >= target - 1e-12:
            return float(t)
    return math.nan


def test_convergence_rounds_follow_from_the_curves(quick):
    text, read = quick
    curves, table = read["_curves"], read["_convergence"]
    assert len(curves) == 4 * 30 and set(curves["round"]) == set(range(1, 31))
    by_alpha = {a: g.sort_values("round")["ndcg"].to_numpy() for a, g in curves.groupby("alpha")}
    common = min(c[-1] for c in by_alpha.values())
    for _, row in table.iterrows():
        c = by_alpha[row["alpha"]]
        assert row["rounds_95_final"] == first_round(c, 0.95 * c[-1])
        assert row["rounds_common"] == first_round(c, common)
        assert row["rounds_best"] == first_round(c, c.max()) == 1 + int(np.argmax(c))
    assert "rounds_95_final" in text and "wrote" in text
