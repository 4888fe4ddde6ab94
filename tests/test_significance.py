"""Significance tests for risk (pyterrier_risk.core._significance), each against an independent computation:
brute-force enumeration, scipy's permutation_test / ttest_rel / ttest_1samp, statsmodels' multipletests and
ANOVA, and a transcription of rmit-ir/trisk's per-topic formula."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pyterrier_risk.core import (
    CORRECTION_METHODS,
    DEFAULT_NULL,
    RandomizationResult,
    adjust_p_values,
    compare_systems,
    randomization_test,
    topic_p_values,
    trisk,
    urisk,
)

RNG = np.random.default_rng(11)
# statsmodels' Sidak corrections warn on p = 1 (log1p(-1)); ours do not
pytestmark = pytest.mark.filterwarnings(
    "ignore:divide by zero encountered in log1p:RuntimeWarning:statsmodels")


def _pair(c, seed):
    rng = np.random.default_rng(seed)
    return rng.beta(2, 4, size=c), rng.beta(2, 4, size=c)


def _weighted(d, alpha):
    return np.where(d < 0, (1 + alpha) * d, d)


def _brute_force(s, b, alpha, statistic="urisk", alternative="two-sided", null="exchangeable"):
    """Every one of the 2^c sign assignments, written out with itertools (no shared code)."""
    d = np.asarray(s) - np.asarray(b)
    c = len(d)
    if null == "symmetric":  # flip the weighted differences, weight nothing afterwards
        d, alpha = _weighted(d, alpha), 0.0

    def stat(x):
        w = _weighted(x, alpha)
        if statistic == "urisk":
            return w.mean()
        sd = w.std(ddof=1)
        return np.nan if sd == 0 else w.mean() / (sd / np.sqrt(c))

    t = stat(d)
    null = np.array([stat(d * np.array(signs)) for signs in itertools.product((1.0, -1.0), repeat=c)])
    eps = 1e-12 * abs(t)
    if alternative == "two-sided":
        hits = np.abs(null) >= abs(t) - eps
    elif alternative == "greater":
        hits = null >= t - eps
    else:
        hits = null <= t + eps
    return t, hits.mean(), null.mean()


# -- adjust_p_values ---------------------------------------------------------------------------------------

@pytest.fixture
def multitest():
    """statsmodels' multitest module, the reference for the corrections (only these tests need it)."""
    return pytest.importorskip("statsmodels.stats.multitest", reason="statsmodels is the reference")


def _family(m, seed, ties=True):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=m) ** 2  # many small p-values, so that corrections matter
    if ties and m > 3:
        p[rng.integers(0, m, size=m // 3)] = p[0]  # ties
        p[rng.integers(0, m, size=2)] = 1.0
    return p


@pytest.mark.parametrize("method", list(CORRECTION_METHODS))
@pytest.mark.parametrize(("m", "seed"), [(1, 0), (2, 1), (7, 2), (50, 3), (200, 4)])
def test_adjust_p_values_equals_statsmodels(method, m, seed, multitest):
    p = _family(m, seed)
    expected = multitest.multipletests(p, method=method)[1]
    np.testing.assert_allclose(adjust_p_values(p, method), expected, rtol=1e-12, atol=1e-15)
    for alias in CORRECTION_METHODS[method]:
        np.testing.assert_array_equal(adjust_p_values(p, alias.upper()), adjust_p_values(p, method))


@pytest.mark.parametrize("method", list(CORRECTION_METHODS))
def test_nan_is_left_out_of_the_family_and_stays_nan(method, multitest):
    p = _family(30, 7)
    holes = p.copy()
    nan_at = [0, 5, 29]
    holes[nan_at] = np.nan
    kept = np.setdiff1d(np.arange(30), nan_at)
    got = adjust_p_values(holes, method)
    assert np.isnan(got[nan_at]).all()
    np.testing.assert_allclose(got[kept], multitest.multipletests(p[kept], method=method)[1], rtol=1e-12)
    assert np.isnan(adjust_p_values([np.nan, np.nan], method)).all()
    assert adjust_p_values(np.array([]), method).shape == (0,)


def test_ties_get_equal_adjusted_values_and_order_is_kept():
    p = np.array([0.02, 0.01, 0.02, 0.02, 0.5])
    for method in CORRECTION_METHODS:
        adj = adjust_p_values(p, method)
        assert adj[0] == adj[2] == adj[3]
        assert (adj >= p - 1e-15).all() and (adj <= 1).all()
        # a permutation of the family permutes the adjusted values
        perm = RNG.permutation(len(p))
        np.testing.assert_allclose(adjust_p_values(p[perm], method), adj[perm], rtol=1e-15)


def test_series_keeps_its_index():
    p = pd.Series([0.01, np.nan, 0.04], index=["a", "base", "c"], name="p")
    adj = adjust_p_values(p, "bonferroni")
    assert isinstance(adj, pd.Series) and list(adj.index) == ["a", "base", "c"]
    assert adj["a"] == pytest.approx(0.02) and adj["c"] == pytest.approx(0.08) and np.isnan(adj["base"])


@pytest.mark.parametrize(("p", "method", "match"), [
    ([0.1, 1.2], "holm", r"\[0, 1\].*1\.2.*positions \[1\]"),
    ([-0.1], "holm", r"\[0, 1\]"),
    ([[0.1, 0.2]], "holm", "1-D"),
    ([0.1], "fdr_tsbh", "unknown multiple-testing correction 'fdr_tsbh'"),
    ([0.1], None, "unknown multiple-testing correction None"),
])
def test_adjust_bad_input(p, method, match):
    with pytest.raises(ValueError, match=match):
        adjust_p_values(p, method)


# -- randomization_test ------------------------------------------------------------------------------------

@pytest.mark.parametrize("alpha", [0, 1, 5])
@pytest.mark.parametrize("statistic", ["urisk", "trisk"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_enumeration_equals_brute_force(alpha, statistic, alternative):
    s, b = _pair(9, seed=alpha + 3)
    t, p, null_mean = _brute_force(s, b, alpha, statistic, alternative)
    r = randomization_test(s, b, alpha=alpha, n_resamples=512, statistic=statistic, alternative=alternative,
                           null="exchangeable")
    assert isinstance(r, RandomizationResult)
    assert r.exact and r.n_resamples == 512 and r.n_topics == 9
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.urisk == pytest.approx(urisk(s, b, alpha), rel=1e-12)
    assert r.p_value == pytest.approx(p, abs=1e-15)
    assert r.null_mean == pytest.approx(null_mean, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("alpha", [1, 5])
@pytest.mark.parametrize("statistic", ["urisk", "trisk"])
@pytest.mark.parametrize("alternative", ["two-sided", "less"])
def test_symmetric_null_equals_brute_force(alpha, statistic, alternative):
    s, b = _pair(9, seed=alpha + 13)
    t, p, null_mean = _brute_force(s, b, alpha, statistic, alternative, null="symmetric")
    r = randomization_test(s, b, alpha=alpha, n_resamples=512, statistic=statistic, alternative=alternative,
                           null="symmetric")
    assert r.null == "symmetric" and r.statistic == pytest.approx(t, rel=1e-12)
    assert r.p_value == pytest.approx(p, abs=1e-15)
    assert abs(r.null_mean) < 1e-12  # centred at 0, unlike the exchangeable null


def test_symmetric_null_is_scipys_one_sample_sign_flip_test():
    s, b = _pair(12, seed=14)
    x = _weighted(s - b, 3)
    ref = stats.permutation_test((x,), lambda v, axis: np.mean(v, axis=axis), permutation_type="samples",
                                 n_resamples=np.inf)
    got = randomization_test(s, b, alpha=3, n_resamples=2**12, null="symmetric")
    assert got.p_value == pytest.approx(ref.pvalue, abs=1e-12)
    # at alpha = 0 the two nulls are one
    assert randomization_test(s, b, null="symmetric", n_resamples=2**12).p_value == \
        randomization_test(s, b, n_resamples=2**12).p_value


@pytest.mark.parametrize("alpha", [0, 2])
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_equals_scipy_permutation_test(alpha, alternative):
    s, b = _pair(11, seed=5)

    def statistic(x, y, axis):
        return np.mean(_weighted(x - y, alpha), axis=axis)

    ref = stats.permutation_test((s, b), statistic, permutation_type="samples", alternative=alternative,
                                 n_resamples=np.inf)
    r = randomization_test(s, b, alpha=alpha, n_resamples=2**11, alternative=alternative, null="exchangeable")
    assert r.exact
    assert r.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_two_sided_at_alpha0_equals_scipy_permutation_test():
    # at alpha = 0 the sign-flip distribution is symmetric, so scipy's equal-tail p equals P(|T*| >= |T|)
    s, b = _pair(12, seed=6)
    ref = stats.permutation_test((s, b), lambda x, y, axis: np.mean(x - y, axis=axis),
                                 permutation_type="samples", n_resamples=np.inf)
    assert randomization_test(s, b, n_resamples=2**12).p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_urisk_null_is_affine_in_the_mean_difference():
    # U* = (1 + alpha/2) mean(d*) - alpha/2 mean|d|: one-sided p-values do not depend on alpha,
    # the null is centred at -alpha/2 mean|d|, and the two-sided p-value does depend on alpha
    s, b = _pair(10, seed=8)
    d = s - b
    for alternative in ("greater", "less"):
        def p(alpha, alternative=alternative):
            return randomization_test(s, b, alpha=alpha, n_resamples=1024, alternative=alternative,
                                      null="exchangeable").p_value

        for alpha in (1, 5):
            assert p(alpha) == pytest.approx(p(0), abs=1e-15)
    r5 = randomization_test(s, b, alpha=5, n_resamples=1024, null="exchangeable")
    assert r5.null_mean == pytest.approx(-2.5 * np.abs(d).mean(), rel=1e-12)
    assert r5.p_value != randomization_test(s, b, alpha=0, n_resamples=1024, null="exchangeable").p_value


def test_random_resampling_is_seeded_and_close_to_exact():
    s, b = _pair(16, seed=9)
    exact = randomization_test(s, b, alpha=1, n_resamples=2**16)
    assert exact.exact
    r = randomization_test(s, b, alpha=1, n_resamples=4000, seed=3)
    assert not r.exact and r.n_resamples == 4000
    assert r == randomization_test(s, b, alpha=1, n_resamples=4000, seed=3)  # reproducible
    assert r.p_value >= 1 / 4001  # the +1 correction
    se = np.sqrt(exact.p_value * (1 - exact.p_value) / 4000)
    assert abs(r.p_value - exact.p_value) < 5 * se + 1 / 4000
    gen = randomization_test(s, b, alpha=1, n_resamples=4000, seed=np.random.default_rng(3))
    assert gen.p_value == r.p_value


def test_p_value_does_not_depend_on_the_chunk_size(monkeypatch):
    from pyterrier_risk.core import _significance

    s, b = _pair(40, seed=10)
    whole = randomization_test(s, b, alpha=5, n_resamples=3000, seed=1)
    monkeypatch.setattr(_significance, "_CELLS_PER_CHUNK", 7 * 40)  # chunks of 7 resamples
    chunked = randomization_test(s, b, alpha=5, n_resamples=3000, seed=1)
    assert chunked.p_value == whole.p_value and chunked.statistic == whole.statistic
    assert chunked.null_mean == pytest.approx(whole.null_mean, rel=1e-12)  # summed in another order


def test_plus_one_correction_counts_the_observed_assignment():
    # a huge effect: no random assignment is as extreme, so p = 1/(B+1)
    s = np.full(40, 0.9)
    b = np.full(40, 0.1)
    assert randomization_test(s, b, n_resamples=999).p_value == pytest.approx(1 / 1000)
    assert randomization_test(s[:5], b[:5], n_resamples=999).p_value == pytest.approx(2 / 32)  # exact


def test_no_differences_give_p_one():
    x = np.array([0.2, 0.4, 0.6])
    assert randomization_test(x, x).p_value == 1.0
    assert randomization_test(x, x, statistic="trisk").p_value == 1.0


def test_series_are_aligned_by_topic():
    s, b = _pair(12, seed=12)
    topics = [f"q{i}" for i in range(12)]
    ss = pd.Series(s, index=topics)
    bs = pd.Series(b, index=topics).iloc[::-1]
    assert randomization_test(ss, bs, alpha=2).p_value == randomization_test(s, b, alpha=2).p_value


@pytest.mark.parametrize(("kwargs", "match", "error"), [
    ({"alpha": -1}, "alpha", ValueError),
    ({"n_resamples": 0}, "n_resamples", ValueError),
    ({"n_resamples": True}, "n_resamples", TypeError),  # a bool is not a count (core's check_int)
    ({"statistic": "mean"}, "statistic", ValueError),
    ({"alternative": "both"}, "alternative", ValueError),
    ({"null": "gaussian"}, "null", ValueError),
])
def test_randomization_bad_options(kwargs, match, error):
    with pytest.raises(error, match=match):
        randomization_test([0.1, 0.2], [0.2, 0.1], **kwargs)


def test_randomization_bad_scores():
    with pytest.raises(ValueError, match="NaN"):
        randomization_test([0.1, np.nan], [0.2, 0.1])
    with pytest.raises(ValueError, match="different lengths"):
        randomization_test([0.1, 0.2], [0.2])
    with pytest.raises(ValueError, match="two topics"):
        randomization_test([0.1], [0.2], statistic="trisk")


# -- topic_p_values ----------------------------------------------------------------------------------------

def _rmit_trisk_per_topic(run, base, alpha):
    """rmit-ir/trisk's exploratory mode (trisk.rb): x_i / sx with sx dividing by c, 2 * pt(|t|, c-1)."""
    c = len(run)
    x = np.array([(r - b) if r > b else (1 + alpha) * (r - b) if r < b else 0.0
                  for r, b in zip(run, base, strict=True)])
    sx = np.sqrt(np.sum((x - x.mean()) ** 2) / c)
    t = x / sx
    return t, 2 * stats.t.sf(np.abs(t), c - 1)


@pytest.mark.parametrize("alpha", [0, 1, 5])
def test_topic_p_values_reproduce_rmit_trisk(alpha):
    s, b = _pair(50, seed=20 + alpha)
    t_ref, p_ref = _rmit_trisk_per_topic(s, b, alpha)
    r = trisk(s, b, alpha)
    np.testing.assert_allclose(topic_p_values(r, sd="population"), p_ref, rtol=1e-10)
    np.testing.assert_allclose(topic_p_values(r, which="t_j", sd="population"), p_ref, rtol=1e-8)
    # the default uses this package's t_r (sample SD, divisor c - 1)
    np.testing.assert_allclose(topic_p_values(r), 2 * stats.t.sf(np.abs(np.asarray(r.t_r)), 49), rtol=1e-12)
    assert np.all(topic_p_values(r) >= p_ref - 1e-15)  # a smaller |t| than rmit-ir/trisk's


def test_topic_p_values_alternatives_distributions_and_series():
    s, b = _pair(20, seed=30)
    topics = pd.Index([f"q{i}" for i in range(20)], name="qid")
    r = trisk(pd.Series(s, index=topics), pd.Series(b, index=topics), alpha=1)
    p = topic_p_values(r, alternative="less")
    assert isinstance(p, pd.Series) and p.index.equals(topics)
    np.testing.assert_allclose(p, stats.t.cdf(r.t_r, 19))
    np.testing.assert_allclose(topic_p_values(r, alternative="greater"), stats.t.sf(r.t_r, 19))
    np.testing.assert_allclose(topic_p_values(r.t_r.to_numpy(), distribution="normal"),
                               2 * stats.norm.sf(np.abs(r.t_r.to_numpy())))
    np.testing.assert_allclose(topic_p_values(r.t_r, 19), topic_p_values(r))
    got = topic_p_values(np.array([np.nan, np.inf, 0.0]), 5)
    assert np.isnan(got[0]) and got[1] == 0.0 and got[2] == 1.0


@pytest.mark.parametrize(("args", "kwargs", "match"), [
    (([1.0, -1.0],), {}, "degrees of freedom"),
    (([1.0], 0), {}, "degrees of freedom"),
    (([1.0], 3), {"sd": "population"}, "TRiskResult"),
    (([1.0], 3), {"which": "x"}, "which"),
    (([1.0], 3), {"distribution": "cauchy"}, "distribution"),
])
def test_topic_p_values_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        topic_p_values(*args, **kwargs)


# -- compare_systems ---------------------------------------------------------------------------------------

def _matrix(k=5, c=30, seed=40):
    rng = np.random.default_rng(seed)
    ability = rng.uniform(0.2, 0.5, size=(k, 1))
    difficulty = rng.uniform(-0.15, 0.15, size=(1, c))
    values = np.clip(ability + difficulty + rng.normal(0, 0.1, size=(k, c)), 0, 1)
    return pd.DataFrame(values, index=[f"sys{i}" for i in range(k)], columns=[f"q{j}" for j in range(c)])


def test_t_test_pairs_equal_scipy():
    m = _matrix()
    out = compare_systems(m, test="t")
    assert len(out) == 10 and list(out.columns) == ["system_a", "system_b", "mean_diff", "urisk", "statistic",
                                                     "p_value", "p_adjusted", "significant"]
    for row in out.itertuples():
        ref = stats.ttest_rel(m.loc[row.system_a], m.loc[row.system_b])
        assert row.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert row.p_value == pytest.approx(ref.pvalue, rel=1e-9)
        assert row.mean_diff == pytest.approx(row.urisk, rel=1e-12)
    assert (out["p_adjusted"] == out["p_value"]).all()


def test_t_test_pairs_with_alpha_are_one_sample_tests_of_the_weighted_differences(multitest):
    m = _matrix(k=4)
    out = compare_systems(m, test="t", alpha=5, correction="holm")
    for row in out.itertuples():
        x = _weighted(m.loc[row.system_a].to_numpy() - m.loc[row.system_b].to_numpy(), 5)
        assert row.p_value == pytest.approx(stats.ttest_1samp(x, 0).pvalue, rel=1e-9)
        assert row.urisk == pytest.approx(x.mean(), rel=1e-12)
    np.testing.assert_allclose(out["p_adjusted"], multitest.multipletests(out["p_value"], method="holm")[1])
    assert (out["significant"] == (out["p_adjusted"] <= 0.05)).all()


def test_randomization_pairs_share_flips_and_equal_the_single_test(multitest):
    m = _matrix(k=4, c=25)
    out = compare_systems(m, alpha=1, n_resamples=2000, seed=4, correction="fdr_bh", level=0.1)
    assert out.attrs == {"test": "randomization", "alpha": 1.0, "correction": "fdr_bh", "level": 0.1,
                         "n_resamples": 2000, "exact": False, "statistic": "urisk", "null": DEFAULT_NULL}
    for row in out.itertuples():
        a, b = m.loc[row.system_a], m.loc[row.system_b]
        single = randomization_test(a, b, alpha=1, n_resamples=2000, seed=4)
        assert row.p_value == single.p_value and row.statistic == pytest.approx(single.urisk, rel=1e-12)
    np.testing.assert_allclose(out["p_adjusted"], multitest.multipletests(out["p_value"], method="fdr_bh")[1])


def test_randomization_pairs_with_the_symmetric_null():
    m = _matrix(k=3, c=20)
    out = compare_systems(m, alpha=5, n_resamples=1500, null="symmetric", statistic="trisk")
    for row in out.itertuples():
        single = randomization_test(m.loc[row.system_a], m.loc[row.system_b], alpha=5, n_resamples=1500,
                                    null="symmetric", statistic="trisk")
        assert row.p_value == single.p_value and row.statistic == pytest.approx(single.statistic)


def test_randomization_pairs_exact_equal_brute_force():
    m = _matrix(k=3, c=8, seed=41)
    out = compare_systems(m.to_numpy(), alpha=2, n_resamples=256)
    assert list(out["system_a"]) == [0, 0, 1] and list(out["system_b"]) == [1, 2, 2]
    assert out.attrs["exact"] and out.attrs["n_resamples"] == 256
    for row in out.itertuples():
        _, p, _ = _brute_force(m.iloc[row.system_a], m.iloc[row.system_b], 2, null=DEFAULT_NULL)
        assert row.p_value == pytest.approx(p, abs=1e-15)


def test_both_directions():
    m = _matrix(k=3)
    out = compare_systems(m, test="t", alpha=0, both_directions=True)
    assert len(out) == 6
    ab = out.set_index(["system_a", "system_b"])
    for a, b in itertools.combinations(m.index, 2):
        assert ab.loc[(a, b), "urisk"] == pytest.approx(-ab.loc[(b, a), "urisk"])
        assert ab.loc[(a, b), "p_value"] == pytest.approx(ab.loc[(b, a), "p_value"])
    risky = compare_systems(m, test="t", alpha=5, both_directions=True).set_index(["system_a", "system_b"])
    a, b = m.index[:2]
    assert risky.loc[(a, b), "urisk"] != pytest.approx(-risky.loc[(b, a), "urisk"])


def test_tukey_with_two_systems_is_the_paired_t_test():
    # k = 2: MSE of the two-way ANOVA is var(d)/2, so q = sqrt(2)|t| and the range test is the t-test
    m = _matrix(k=2, c=40)
    out = compare_systems(m, test="tukey")
    ref = stats.ttest_rel(m.iloc[0], m.iloc[1])
    assert out["statistic"].iloc[0] == pytest.approx(np.sqrt(2) * abs(ref.statistic), rel=1e-10)
    assert out["p_value"].iloc[0] == pytest.approx(ref.pvalue, rel=1e-5)


def test_tukey_uses_the_two_way_anova_error():
    smf = pytest.importorskip("statsmodels.formula.api")
    anova = pytest.importorskip("statsmodels.stats.anova")
    m = _matrix(k=5, c=30)
    long = m.rename_axis(index="system", columns="topic").stack().rename("score").reset_index()
    table = anova.anova_lm(smf.ols("score ~ C(system) + C(topic)", data=long).fit())
    mse, df_error = table.loc["Residual", "mean_sq"], table.loc["Residual", "df"]
    out = compare_systems(m, test="tukey")
    for row in out.itertuples():
        q = abs(m.loc[row.system_a].mean() - m.loc[row.system_b].mean()) / np.sqrt(mse / 30)
        assert row.statistic == pytest.approx(q, rel=1e-9)
        assert row.p_value == pytest.approx(stats.studentized_range.sf(q, 5, df_error), rel=1e-9)
    assert out.attrs["test"] == "tukey" and "n_resamples" not in out.attrs


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"test": "tukey", "alpha": 1}, "alpha must be 0"),
    ({"test": "tukey", "correction": "holm"}, "correction=None"),
    ({"test": "wilcoxon"}, "test must be one of"),
    ({"correction": "nope"}, "unknown multiple-testing correction"),
    ({"level": 1.5}, "level"),
    ({"statistic": "z"}, "statistic"),
    ({"null": "z"}, "null"),
])
def test_compare_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        compare_systems(_matrix(k=3, c=5), **kwargs)


def test_compare_needs_two_systems_and_topics():
    with pytest.raises(ValueError, match="at least 2 systems"):
        compare_systems(np.ones((1, 5)))
    with pytest.raises(ValueError, match="at least 2 topics"):
        compare_systems(np.ones((3, 1)))
    with pytest.raises(ValueError, match="NaN"):
        compare_systems(np.array([[0.1, np.nan], [0.2, 0.3]]))


# -- one default null, from one source (issue 14, item 6) -------------------------------------------------

def test_every_randomization_test_reads_the_one_default_null():
    """randomization_test, compare_systems, Experiment's risk test and the command: DEFAULT_NULL."""
    import argparse
    import inspect

    from pyterrier_risk.cli._args import add_eval_arguments
    from pyterrier_risk.experiment import Experiment, RiskTest

    assert DEFAULT_NULL == "symmetric"  # the null of URisk = 0, the hypothesis of a risk measure's p-value
    for func in (randomization_test, compare_systems):
        assert inspect.signature(func).parameters["null"].default is DEFAULT_NULL
    assert RiskTest().null == DEFAULT_NULL and RiskTest(null=None).null == DEFAULT_NULL
    assert inspect.signature(Experiment).parameters["risk_null"].default is None  # None: RiskTest's default
    parser = argparse.ArgumentParser()
    add_eval_arguments(parser)
    assert parser.parse_args([]).null == DEFAULT_NULL
    with pytest.raises(ValueError, match="unknown randomization null 'z'"):
        RiskTest(null="z")


def test_default_null_gives_one_p_value_in_python_and_in_pairs():
    """The default null at alpha = 5 is the test of URisk = 0: its null distribution is centred at 0."""
    m = _matrix(k=3, c=10, seed=3)
    a, b = m.iloc[0], m.iloc[1]
    single = randomization_test(a, b, alpha=5, n_resamples=1024)
    assert single.null == DEFAULT_NULL and abs(single.null_mean) < 1e-12
    _, p, _ = _brute_force(a, b, 5, null="symmetric")
    assert single.p_value == pytest.approx(p, abs=1e-15)
    pairs = compare_systems(m, alpha=5, n_resamples=1024)
    assert pairs.loc[0, "p_value"] == single.p_value
    assert single.p_value != randomization_test(a, b, alpha=5, n_resamples=1024, null="exchangeable").p_value


def test_risk_test_passes_the_topic_sd_to_the_per_topic_p_values():
    """Issue 16, item 7: the experiment layer's risk evaluation offers rmit-ir/trisk's population sd."""
    from pyterrier_risk.experiment import RiskTest, tables_from_matrices
    from pyterrier_risk.measures import TRisk

    m = _matrix(k=2, c=12, seed=5)
    measure = TRisk("AP", alpha=2, baseline=m.index[0])
    for sd in ("sample", "population"):
        test = RiskTest(topic_p_values=True, topic_sd=sd)
        tables = tables_from_matrices({"AP": m}, [], [measure], None, test)
        got = tables.risk[0].per_topic[f"{measure!r} T_R p-value"].iloc[1].to_numpy()
        expected = topic_p_values(trisk(m.iloc[1], m.iloc[0], 2), sd=sd)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        c = m.shape[1]
        factor = np.sqrt(c / (c - 1)) if sd == "population" else 1.0  # issue 23 #10: TRisk too
        assert tables.risk[0].value.iloc[1] == pytest.approx(trisk(m.iloc[1], m.iloc[0], 2).trisk * factor)
    with pytest.raises(ValueError, match="unknown topic_sd 'c'"):
        RiskTest(topic_sd="c")
