"""Baseline sensitivity (Dinçer, Ounis & Macdonald, ECIR 2014): each table against an independent check."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import pyterrier_risk as ptr

# Dinçer et al. ECIR 2014, Table 2: URisk (ERR@20, alpha = 10) of the top 8 TREC 2012 runs (rows) with each
# run in turn as the baseline (columns, same order); a run against itself is 0 (the paper's '*').
TABLE2_RUNS = [
    "uogTrA44xi",
    "srchvrs12c09",
    "DFalah121A",
    "QUTparaBline",
    "utw2012fc1",
    "ICTNET12ADR2",
    "irra12c",
    "qutwb",
]
TABLE2 = np.array(
    [
        [0, -0.928, -0.882, -1.072, -0.319, -0.255, -0.068, -0.047],
        [-1.027, 0, -0.944, -0.830, -0.387, -0.497, -0.351, -0.159],
        [-1.135, -1.098, 0, -0.835, -0.421, -0.617, -0.329, -0.202],
        [-1.349, -1.008, -0.858, 0, -0.540, -0.611, -0.293, -0.298],
        [-1.443, -1.412, -1.291, -1.387, 0, -0.843, -0.432, -0.224],
        [-1.434, -1.577, -1.542, -1.513, -0.897, 0, -0.581, -0.613],
        [-1.758, -1.941, -1.766, -1.706, -0.997, -1.092, 0, -0.610],
        [-1.814, -1.826, -1.715, -1.788, -0.866, -1.201, -0.687, 0],
    ]
)


def _matrix(seed=0, systems=6, topics=25):
    rng = np.random.default_rng(seed)
    difficulty = rng.random(topics)
    values = np.clip(difficulty + 0.3 * rng.standard_normal((systems, topics)), 0, None)
    return pd.DataFrame(
        values, index=[f"s{i}" for i in range(systems)], columns=[f"q{j}" for j in range(topics)]
    )


def test_friedman_of_the_papers_table_2_gives_its_p_value():
    result = ptr.friedman_test(TABLE2)
    assert round(result.p_value, 4) == 0.0003  # the paper's p = 0.0003
    reference = stats.friedmanchisquare(*TABLE2)
    assert result.statistic == pytest.approx(reference.statistic) == pytest.approx(27.25)
    assert result.p_value == pytest.approx(reference.pvalue) and result.df == 7 and result.blocks == 8


@pytest.mark.parametrize("seed", range(6))
def test_friedman_with_ties_equals_scipy(seed):
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 4, (int(rng.integers(3, 9)), int(rng.integers(2, 12)))).astype(float)
    if all(len(set(col)) == 1 for col in table.T):
        table[0, 0] += 1
    got, ref = ptr.friedman_test(table), stats.friedmanchisquare(*table)
    assert got.statistic == pytest.approx(ref.statistic) and got.p_value == pytest.approx(ref.pvalue)


def test_friedman_bad_input():
    with pytest.raises(ValueError, match="at least 3 systems and 2 blocks"):
        ptr.friedman_test(TABLE2[:2])
    with pytest.raises(ValueError, match="every block ties"):
        ptr.friedman_test(np.zeros((4, 3)))


def test_risk_tables_equal_urisk_and_trisk_pair_by_pair():
    m = _matrix()
    res = ptr.baseline_sensitivity(m, alpha=5.0, permutations=0)
    bases = {
        **{s: m.loc[s] for s in m.index},
        **{k.upper(): ptr.baseline_scores(m, k) for k in ("mean", "median", "max")},
    }
    assert list(res.urisk.columns) == list(bases) and list(res.urisk.index) == list(m.index)
    for b, vector in bases.items():
        for s in m.index:
            assert res.urisk.loc[s, b] == pytest.approx(ptr.urisk(m.loc[s], vector, 5.0), abs=1e-12)
            if s != b:
                assert res.trisk.loc[s, b] == pytest.approx(ptr.trisk(m.loc[s], vector, 5.0).trisk)
    assert np.isnan(res.trisk.loc["s0", "s0"]) and res.urisk.loc["s0", "s0"] == 0


def test_ranks_tau_and_friedman_from_the_urisk_table():
    m = _matrix(1, systems=7)
    res = ptr.baseline_sensitivity(m, alpha=1.0, permutations=0)
    u = res.urisk
    # a run baseline leaves itself out of its ranking
    assert np.isnan(res.ranks.loc["s2", "s2"]) and sorted(res.ranks["s2"].dropna()) == list(range(1, 7))
    assert res.ranks["MEAN"].idxmin() == u["MEAN"].idxmax()
    for a, b in [("s0", "s1"), ("s3", "MEAN"), ("MEDIAN", "MAX")]:
        keep = [s for s in m.index if s not in (a, b)]
        ref = stats.kendalltau(u.loc[keep, a], u.loc[keep, b])
        assert res.tau.loc[a, b] == pytest.approx(ref.statistic) == pytest.approx(res.tau.loc[b, a])
    ref = stats.friedmanchisquare(*u[list(m.index)].to_numpy())
    assert res.friedman.statistic == pytest.approx(ref.statistic) and res.friedman.blocks == 7
    lo, hi = res.tau_range()
    runs = list(m.index)
    off = res.tau.loc[runs, runs].to_numpy()[~np.eye(7, dtype=bool)]
    assert (lo, hi) == (off.min(), off.max())


def test_correlation_and_bias_against_numpy_and_scipy():
    m = _matrix(2, systems=8)
    res = ptr.baseline_sensitivity(m, alpha=5.0, permutations=499)
    for b in ["s1", "MEAN", "MAX"]:
        vector = m.loc[b] if b.startswith("s") else ptr.baseline_scores(m, b.lower())
        for s in m.index:
            assert res.correlation.loc[s, b] == pytest.approx(np.corrcoef(m.loc[s], vector)[0, 1])
    others = [s for s in m.index if s != "s1"]
    promotion = m.loc[others].mean(axis=1).rank(ascending=False) - res.urisk.loc[others, "s1"].rank(
        ascending=False
    )
    corr = res.correlation.loc[others, "s1"].to_numpy()
    ref = stats.spearmanr(corr, promotion)
    assert res.bias.loc["s1", "rho_promotion"] == pytest.approx(ref.statistic)
    # 7 systems: the exact p-value over all 7! orders (scipy enumerates them too), not the t approximation
    exact = stats.permutation_test((corr,), lambda x: stats.spearmanr(x, promotion).statistic,
                                   permutation_type="pairings", n_resamples=10**6)
    assert res.bias.loc["s1", "p_promotion"] == pytest.approx(exact.pvalue)
    rhos = res.bias["rho_promotion"].dropna()
    assert res.bias_test["mean_rho"] == pytest.approx(rhos.mean())
    assert 1 / 500 <= res.bias_test["p_value"] <= 1 and res.bias_test["permutations"] == 499


def test_the_pooled_test_detects_a_planted_bias_and_not_its_absence():
    # systems s_k = base + k-dependent noise: a system near a baseline is promoted by it
    rng = np.random.default_rng(4)
    topics = rng.random(200)
    m = pd.DataFrame(
        [np.clip(topics + w * rng.standard_normal(200), 0, None) for w in (0.05, 0.1, 0.2, 0.3, 0.4, 0.5)],
        index=list("abcdef"),
    )
    res = ptr.baseline_sensitivity(m, alpha=5.0, permutations=999)
    assert res.bias_test["mean_rho"] > 0.5 and res.bias_test["p_value"] < 0.05


def test_pca_against_the_eigen_decomposition_of_the_topic_covariance():
    m = _matrix(3, systems=9, topics=30)
    res = ptr.baseline_sensitivity(m, permutations=0, components=3)
    x = m.to_numpy() - m.to_numpy().mean(axis=0)
    eigval, eigvec = np.linalg.eigh(x.T @ x)
    order = np.argsort(eigval)[::-1]
    np.testing.assert_allclose(res.explained.to_numpy(), eigval[order][:3] / eigval.sum())
    for k in range(3):
        ref = x @ eigvec[:, order[k]]
        got = res.pca.iloc[:9, k].to_numpy()
        np.testing.assert_allclose(np.abs(got), np.abs(ref), atol=1e-9)
    # MEAN, centred by the same topic means, lies at the origin; the virtual rows come last
    assert list(res.pca.index[-3:]) == ["MEAN", "MEDIAN", "MAX"]
    np.testing.assert_allclose(res.pca.loc["MEAN"].to_numpy(), 0, atol=1e-12)
    # each axis points where the mean scores grow
    assert np.corrcoef(res.pca.iloc[:9, 0], m.mean(axis=1))[0, 1] > 0


def test_systems_pca_directly():
    m = _matrix(5)
    coords, explained = ptr.systems_pca(m)
    u, s, _ = np.linalg.svd(m.to_numpy() - m.to_numpy().mean(axis=0), full_matrices=False)
    np.testing.assert_allclose(np.abs(coords.to_numpy()), np.abs(u[:, :2] * s[:2]), atol=1e-12)
    assert explained.sum() < 1 and list(coords.columns) == ["PC1", "PC2"]
    with pytest.raises(ValueError, match="same scores on every topic"):
        ptr.systems_pca(np.ones((3, 4)))


@pytest.mark.parametrize(
    ("matrix", "kwargs", "match"),
    [
        (_matrix().iloc[:1], {}, "at least 3 systems"),
        (_matrix().iloc[:, :1], {}, "at least 2 topics"),
        (_matrix(), {"baselines": ["nope"]}, "unknown baseline"),
        (_matrix().rename(index={"s0": "mean"}), {}, "clash"),
        (_matrix().rename(index={"s0": "s1"}), {}, "duplicate system"),
        (_matrix().replace(_matrix().iloc[0, 0], np.nan), {}, "NaN"),
        (_matrix(), {"alpha": -1.0}, "alpha"),
        (_matrix(), {"baselines": ["s1", "s2", "s1"]}, r"lists a system twice: \['s1'\]"),
        (_matrix(), {"baselines": [], "virtual": False}, "no baseline"),
        (_matrix(), {"alpha": 1e308}, "URisk overflows float64 at alpha = 1e"),
    ],
)
def test_bad_input_is_a_one_line_error(matrix, kwargs, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow is the error, not a RuntimeWarning first
        with pytest.raises(ValueError, match=match) as e:
            ptr.baseline_sensitivity(matrix, **kwargs)
    assert "\n" not in str(e.value)


def test_a_system_constant_over_the_topics_leaves_the_bias_of_the_others():
    m = _matrix(2, systems=8)
    flat = pd.concat([m, pd.DataFrame([[0.3] * m.shape[1]], index=["flat"], columns=m.columns)])
    res = ptr.baseline_sensitivity(flat, alpha=5.0, permutations=0)
    assert np.isnan(res.correlation.loc["flat", "s1"])
    others = [s for s in flat.index if s not in ("s1", "flat")]
    promotion = (flat.mean(axis=1).drop("s1").rank(ascending=False)
                 - res.urisk["s1"].drop("s1").rank(ascending=False))[others]
    ref = stats.spearmanr(res.correlation.loc[others, "s1"], promotion)
    assert res.bias.loc["s1", "rho_promotion"] == pytest.approx(ref.statistic)
    ref = stats.spearmanr(res.correlation.loc[others, "s1"], res.urisk.loc[others, "s1"])
    assert res.bias.loc["s1", "rho_urisk"] == pytest.approx(ref.statistic)
    assert res.bias.drop("flat")["rho_urisk"].notna().all()  # one flat run does not blank the analysis


def test_summary_and_options():
    m = _matrix(6)
    res = ptr.baseline_sensitivity(m, alpha=2, baselines=["s0", "s1", "s2"], virtual=False, permutations=0)
    assert list(res.urisk.columns) == ["s0", "s1", "s2"] and list(res.pca.index) == list(m.index)
    text = res.summary()
    assert (
        f"chi2 = {res.friedman.statistic:.4g}" in text
        and "alpha = 2" in text
        and "Explained variance" in text
    )
    one = ptr.baseline_sensitivity(m, baselines=["s0"], permutations=0)
    assert one.friedman is None and "Friedman" not in one.summary()
    pd.testing.assert_frame_equal(m, _matrix(6))  # input untouched


def test_kendalls_w_of_table_2_and_its_meaning():
    # W = chi2 / (n (r - 1)), checked against its definition from the rank sums (no ties in Table 2)
    ranks = stats.rankdata(TABLE2, axis=0)
    r, n = TABLE2.shape
    s = ((ranks.sum(axis=1) - n * (r + 1) / 2) ** 2).sum()
    w = 12 * s / (n**2 * (r**3 - r))
    assert ptr.friedman_test(TABLE2).kendall_w == pytest.approx(w) == pytest.approx(27.25 / 56)


def test_at_alpha_zero_every_baseline_ranks_alike_and_friedman_is_as_small_as_it_gets():
    # URisk(s | b) = mean(s) - mean(b) at alpha = 0: the same ranking under every baseline (own 0 included)
    m = _matrix(8, systems=7)
    res = ptr.baseline_sensitivity(m, alpha=0.0, permutations=99)
    assert res.friedman.kendall_w == pytest.approx(1.0)
    assert res.tau_range(runs_only=False) == (pytest.approx(1.0), pytest.approx(1.0))
    assert res.bias_test == {} and res.bias["rho_promotion"].isna().all()  # no promotion to correlate
    assert res.friedman.p_value == pytest.approx(
        stats.friedmanchisquare(
            *np.argsort(np.argsort(-np.tile(m.mean(axis=1).to_numpy()[:, None], (1, 7)), axis=0), axis=0)
        ).pvalue
    )


def test_against_max_urisk_ranks_by_mean_score():
    # no system beats MAX on a topic: URisk = (1 + alpha) (mean(s) - mean(MAX)), the ranking by mean score
    m = _matrix(9, systems=6)
    res = ptr.baseline_sensitivity(m, alpha=7.0, permutations=0)
    best = ptr.baseline_scores(m, "max").mean()
    np.testing.assert_allclose(res.urisk["MAX"], 8.0 * (m.mean(axis=1) - best))
    assert stats.kendalltau(res.urisk["MAX"], res.mean).statistic == pytest.approx(1.0)


def test_tau_of_every_pair_equals_scipy_with_tied_urisk_values():
    rng = np.random.default_rng(11)
    m = pd.DataFrame(rng.integers(0, 3, (7, 4)) / 2.0, index=[f"s{i}" for i in range(7)])  # many ties
    res = ptr.baseline_sensitivity(m, alpha=1.0, permutations=0)
    u = res.urisk
    for a in u.columns:
        for b in u.columns:
            if a == b:
                continue
            keep = [s for s in m.index if s not in (a, b)]
            ref = stats.kendalltau(u.loc[keep, a], u.loc[keep, b]).statistic
            assert res.tau.loc[a, b] == pytest.approx(ref, nan_ok=True), (a, b)


def test_trisk_without_variance_follows_trisk():
    m = pd.DataFrame([[0.5, 0.5, 0.5], [0.7, 0.7, 0.7], [0.2, 0.2, 0.2], [0.5, 0.5, 0.5]], index=list("abcd"))
    res = ptr.baseline_sensitivity(m, permutations=0, virtual=False)
    for s in "abcd":
        for b in "abcd":
            ref = ptr.trisk(m.loc[s], m.loc[b]).trisk
            assert res.trisk.loc[s, b] == pytest.approx(ref, nan_ok=True) or (
                np.isnan(ref) and np.isnan(res.trisk.loc[s, b])
            )


def test_all_systems_tied_is_a_one_line_error():
    m = pd.DataFrame(np.full((4, 5), 0.5), index=list("abcd"))
    with pytest.raises(ValueError, match="every block ties all systems") as e:
        ptr.baseline_sensitivity(m)
    assert "\n" not in str(e.value)


def test_repr_is_one_line_with_the_test():
    res = ptr.baseline_sensitivity(_matrix(10), alpha=2, permutations=0)
    text = repr(res)
    assert "\n" not in text and "systems=6" in text and "baselines=9" in text
    assert f"chi2={res.friedman.statistic:.4g}" in text


def test_bias_p_values_are_exact_for_few_systems():
    """Issue 21 #13: 3 systems with rho = 1 have the smallest exact two-sided p of 2/3! = 1/3, not 0."""
    base = np.linspace(0.1, 0.9, 12)
    m = pd.DataFrame([base, base * 0.9 + 0.05, base * 0.5 + 0.2, base[::-1] * 0.3 + 0.1],
                     index=["a", "b", "c", "d"], columns=[f"q{i}" for i in range(12)])
    res = ptr.baseline_sensitivity(m, alpha=5.0, permutations=0)
    p = res.bias[["p_promotion", "p_urisk"]].to_numpy()
    p = p[~np.isnan(p)]
    assert len(p) and (p >= 1 / 3 - 1e-12).all()
    rho = res.bias["rho_urisk"].dropna()
    assert (np.abs(rho) > 0.99).any()  # a perfect correlation is among them, and its p is 1/3
    assert res.bias["p_urisk"][np.abs(res.bias["rho_urisk"]) > 0.99].min() == pytest.approx(1 / 3)


@pytest.mark.parametrize("seed", [0, 3])
def test_the_permutation_p_value_does_not_depend_on_the_order_of_the_systems(seed):
    """Issue 23 #9: the CLI (files in argument order) and Python (another row order) gave 0.043 and 0.042."""
    m = _matrix(seed, systems=7)
    order = np.random.default_rng(seed).permutation(len(m))
    a = ptr.baseline_sensitivity(m, alpha=5.0, permutations=199, seed=1)
    b = ptr.baseline_sensitivity(m.iloc[order], alpha=5.0, permutations=199, seed=1)
    assert a.bias_test == b.bias_test
    pd.testing.assert_frame_equal(a.bias, b.bias.loc[a.bias.index])
    assert list(b.bias.index) == list(m.index[order])  # the table keeps the given order


def test_sd_population_scales_trisk_by_sqrt_c_over_c_minus_1():
    m = _matrix(1, systems=5)
    c = m.shape[1]
    sample = ptr.baseline_sensitivity(m, alpha=5.0, permutations=0)
    population = ptr.baseline_sensitivity(m, alpha=5.0, permutations=0, sd="population")
    np.testing.assert_allclose(population.trisk, sample.trisk * np.sqrt(c / (c - 1)))
    pd.testing.assert_frame_equal(population.urisk, sample.urisk)
    with pytest.raises(ValueError, match="sd must be one of"):
        ptr.baseline_sensitivity(m, sd="pop")


def test_bias_permutations_are_bounded_and_drawn_in_chunks_with_the_same_draws(monkeypatch):
    """Issue 21: the bias test allocated permutations × topics at once (np.tile); a huge count is refused in
    one line, and drawing the permutations in chunks gives the very same null distribution."""
    from pyterrier_risk.core import MAX_RESAMPLES, _sensitivity

    rng = np.random.default_rng(5)
    values = rng.random((4, 12))
    with pytest.raises(ValueError, match="permutations"):
        ptr.baseline_sensitivity(values, alpha=5, permutations=MAX_RESAMPLES + 1)
    pairs = [(rng.random(9), rng.random(9)) for _ in range(3)]
    whole = _sensitivity._pooled_test(pairs, 3000, 7)
    monkeypatch.setattr(_sensitivity, "_PERMUTATION_CHUNK", 7)
    assert _sensitivity._pooled_test(pairs, 3000, 7) == whole
