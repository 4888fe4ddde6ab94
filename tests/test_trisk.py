"""TRisk, its standard errors and the per-topic T_R / T_J scores (Dinçer et al., SIGIR 2014)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pyterrier_risk import TRiskResult, trisk, urisk
from pyterrier_risk.core import jackknife_se

RNG = np.random.default_rng(2014)
A = RNG.beta(2, 5, size=50)
B = RNG.beta(2, 5, size=50)


@pytest.mark.parametrize("se", ["parametric", "jackknife"])
def test_alpha0_equals_paired_t_test(se):
    ref = stats.ttest_rel(A, B)
    r = trisk(A, B, se=se)
    assert isinstance(r, TRiskResult)
    assert r.trisk == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.df == 49 == ref.df
    assert r.urisk == pytest.approx(np.mean(A - B), rel=1e-12)


@pytest.mark.parametrize("alpha", [0, 1, 5, 10])
def test_trisk_is_a_one_sample_t_test_of_the_risk_weighted_differences(alpha):
    d = A - B
    x = np.where(d < 0, (1 + alpha) * d, d)
    ref = stats.ttest_1samp(x, 0.0)
    r = trisk(A, B, alpha=alpha)
    assert r.trisk == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert r.urisk == pytest.approx(urisk(A, B, alpha), rel=1e-12)
    np.testing.assert_allclose(r.x, x, rtol=1e-15)


def _jackknife_brute_force(x: np.ndarray) -> tuple[float, np.ndarray]:
    """Leave-one-out loop straight from 2014 eqs. 15-17 (Tukey's pseudo-values), for reference only."""
    c = len(x)
    theta = x.mean()
    loo = np.array([np.delete(x, i).mean() for i in range(c)])
    pseudo = c * theta - (c - 1) * loo
    var_j = ((pseudo - pseudo.mean()) ** 2).sum() / (c * (c - 1))
    return float(np.sqrt(var_j)), pseudo


@pytest.mark.parametrize("alpha", [0, 1, 5, 10])
def test_jackknife_matches_leave_one_out_loop_and_equals_parametric_se(alpha):
    r = trisk(A, B, alpha=alpha, se="jackknife")
    se_loop, pseudo = _jackknife_brute_force(np.asarray(r.x))
    assert r.se == pytest.approx(se_loop, rel=1e-10)
    # for a mean, var_J = sum (x_i - mean)^2 / (c (c - 1)) = s_x^2 / c: the two SEs are equal
    assert r.se_jackknife == pytest.approx(r.se_parametric, rel=1e-10)
    assert r.se_parametric == pytest.approx(np.std(r.x, ddof=1) / np.sqrt(len(A)), rel=1e-12)
    # T_J from the pseudo-values; for the mean the pseudo-value of topic i is x_i, so T_J = T_R
    np.testing.assert_allclose(r.t_j, pseudo / (np.sqrt(len(A)) * se_loop), rtol=1e-9)
    np.testing.assert_allclose(r.t_j, r.t_r, rtol=1e-9)
    # the 2014 decomposition: TRisk = (sqrt(c)/c) * sum_i T_J,i (eq. 22 as derived) = same with T_R (eq. 20)
    c = len(A)
    assert np.sqrt(c) / c * np.sum(r.t_j) == pytest.approx(r.trisk, rel=1e-9)
    assert np.sqrt(c) / c * np.sum(r.t_r) == pytest.approx(r.trisk, rel=1e-9)


def test_jackknife_se_helper():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    se, loo = jackknife_se(x)
    np.testing.assert_allclose(loo, [14 / 3, 13 / 3, 11 / 3, 7 / 3])
    assert se == pytest.approx(np.std(x, ddof=1) / 2)


def test_per_topic_by_hand_and_sign_convention():
    s = [0.5, 0.25, 0.5, 0.75]
    b = [0.25, 0.5, 0.5, 0.25]
    r = trisk(s, b, alpha=1)
    x = np.array([0.25, -0.5, 0.0, 0.5])
    np.testing.assert_allclose(r.x, x)
    sd = np.std(x, ddof=1)
    np.testing.assert_allclose(r.t_r, x / sd)
    assert r.t_j[1] < 0 < r.t_j[0]  # a loss topic is negative (2014 Figure 2)
    assert r.t_j[2] == pytest.approx(0.0, abs=1e-12)
    assert r.se == pytest.approx(sd / 2)
    assert r.n_topics == 4
    assert r.as_dict()["se_method"] == "parametric"


def test_series_in_series_out():
    topics = [f"q{i}" for i in range(len(A))]
    s = pd.Series(A, index=topics)
    b = pd.Series(B, index=topics).iloc[::-1]  # same topics, other order
    r = trisk(s, b, alpha=5)
    plain = trisk(A, B, alpha=5)
    for name in ("x", "t_r", "t_j"):
        series = getattr(r, name)
        assert isinstance(series, pd.Series) and list(series.index) == topics and series.name == name
        np.testing.assert_allclose(series.to_numpy(), getattr(plain, name))
    assert r.trisk == pytest.approx(plain.trisk)
    frame = r.per_topic()
    assert list(frame.columns) == ["x", "t_r", "t_j"] and list(frame.index) == topics


def test_zero_variance_follows_scipy():
    same = trisk([0.2, 0.3, 0.4], [0.2, 0.3, 0.4])
    assert np.isnan(same.trisk) and np.isnan(same.p_value)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = stats.ttest_rel([0.3, 0.4, 0.5], [0.2, 0.3, 0.4])
    shifted = trisk([0.3, 0.4, 0.5], [0.2, 0.3, 0.4])
    # scipy's float rounding of 0.1 differences may leave a tiny variance; compare the sign and p
    assert shifted.trisk > 0 and shifted.p_value == pytest.approx(ref.pvalue, abs=1e-6)
    exact = trisk([0.75, 0.5], [0.5, 0.25])
    assert exact.trisk == np.inf and exact.p_value == 0.0


def test_bad_input():
    with pytest.raises(ValueError, match="at least two topics"):
        trisk([0.1], [0.2])
    with pytest.raises(ValueError, match="se must be one of"):
        trisk(A, B, se="bootstrap")
    with pytest.raises(ValueError, match="alpha must be a finite number >= 0"):
        trisk(A, B, alpha=-1)
    with pytest.raises(ValueError, match="different lengths"):
        trisk(A, B[:-1])
    with pytest.raises(ValueError, match="NaN"):
        trisk(np.r_[A[:-1], np.nan], B)
    with pytest.raises(ValueError, match="negative"):
        trisk(A, -B)
    with pytest.raises(ValueError, match="missing from scores: 'z'"):
        trisk(pd.Series([0.1, 0.2], index=["a", "b"]), pd.Series([0.1, 0.2], index=["a", "z"]))


def test_results_compare_field_by_field():
    r1, r2 = trisk(A, B, alpha=1), trisk(A, B, alpha=1)
    assert r1 != r2  # identity: equality of per-topic arrays is not a single truth value
    assert r1.as_dict() == r2.as_dict()


# ------------------------------------------------------------------- any finite alpha (issue 8)
from decimal import Decimal, localcontext  # noqa: E402
from fractions import Fraction  # noqa: E402


def _exact_trisk(s, b, alpha):
    """TRisk, URisk and T_R in exact rational arithmetic (square roots to 60 digits)."""
    one_plus = 1 + Fraction(alpha)
    x = [(Fraction(si) - Fraction(bi)) * (one_plus if si < bi else 1) for si, bi in zip(s, b, strict=True)]
    c = len(x)
    mean = sum(x) / c
    var = sum((xi - mean) ** 2 for xi in x) / (c - 1)
    with localcontext() as ctx:
        ctx.prec = 60
        sd = (Decimal(var.numerator) / Decimal(var.denominator)).sqrt()
        t = Decimal(mean.numerator) / Decimal(mean.denominator) / (sd / Decimal(c).sqrt())
        t_r = [Decimal(xi.numerator) / Decimal(xi.denominator) / sd for xi in x]
    return float(t), mean, [float(v) for v in t_r]


@pytest.mark.parametrize("alpha", [1e3, 1e50, 1e200, 1e300, 1.7e308])
@pytest.mark.parametrize("se", ["parametric", "jackknife"])
def test_huge_alpha_matches_exact_arithmetic(alpha, se):
    t, mean, t_r = _exact_trisk(A, B, alpha)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warning either
        r = trisk(A, B, alpha=alpha, se=se)
    assert r.trisk == pytest.approx(t, rel=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(t), len(A) - 1), rel=1e-9)
    np.testing.assert_allclose(r.t_r, t_r, rtol=1e-12)
    # for URisk T_J = T_R (module docstring); the O(c) jackknife formula cancels to ~1e-15 absolute
    np.testing.assert_allclose(r.t_j, t_r, rtol=1e-9, atol=1e-12)
    assert r.urisk == pytest.approx(float(mean), rel=1e-12)  # |URisk| < 1.8e308 here: finite


def test_huge_alpha_tends_to_the_t_statistic_of_the_losses():
    losses_only = stats.ttest_1samp(np.minimum(A - B, 0.0), 0.0)
    r = trisk(A, B, alpha=1e300)
    assert r.trisk == pytest.approx(losses_only.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(losses_only.pvalue, rel=1e-9)
    # without a loss TRisk does not depend on alpha at all (every x_i scales alike)
    up = A + B
    assert trisk(up, A, alpha=1e300).trisk == pytest.approx(trisk(up, A).trisk, rel=1e-12)


def test_urisk_field_overflows_only_beyond_the_float_range():
    # every x_i is about -1.6e308: their sum overflows, their mean does not
    s, b = np.zeros(50), np.linspace(0.9, 0.95, 50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = trisk(s, b, alpha=1.7e308)
    t, mean, _ = _exact_trisk(s, b, 1.7e308)
    assert r.urisk == pytest.approx(float(mean), rel=1e-12) and r.trisk == pytest.approx(t, rel=1e-12)
    s, b = np.zeros(3), np.array([1.0, 1.0, 0.5])
    t, mean, _ = _exact_trisk(s, b, 1.7e308)
    r = trisk(s, b, alpha=1.7e308)
    assert r.urisk == pytest.approx(float(mean), rel=1e-12) and r.trisk == pytest.approx(t, rel=1e-12)
    assert np.isinf(trisk([0.0, 0.0], [2.0, 2.0], alpha=1.7e308).x).all()  # true x_i = -3.4e308


# -------------------------------- a standard deviation that is a rounding residue is 0 (issue 21, minor)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_DECIMALS = st.integers(0, 10_000).map(lambda k: Fraction(k, 10_000))  # scores as written: 0.1234


@settings(deadline=None, max_examples=200)
@given(base=st.lists(_DECIMALS, min_size=2, max_size=60), shift=st.integers(-5_000, 5_000),
       alpha=st.sampled_from([0.0, 1.0, 5.0]), se=st.sampled_from(["parametric", "jackknife"]))
def test_a_constant_decimal_difference_has_no_spread_in_t_r_and_t_j_alike(base, shift, alpha, se):
    """Property: scores differing from the baseline by one decimal constant (exactly, as written) have a
    standard deviation of 0; stored in binary they differ by ~1e-17, which must not make ``T_R`` 1e15 while
    ``T_J`` is inf. Both are ±inf with TRisk (p = 0), or NaN where the constant is 0."""
    k = Fraction(shift, 10_000)
    b = [v + max(Fraction(0), -k) for v in base]  # every score >= 0
    s = [v + k for v in b]
    r = trisk([float(v) for v in s], [float(v) for v in b], alpha=alpha, se=se)
    if shift == 0:
        assert np.isnan(r.trisk) and np.isnan(r.p_value)
        assert np.isnan(r.t_r).all() and np.isnan(r.t_j).all()
        return
    inf = np.copysign(np.inf, shift)
    assert r.trisk == inf and r.p_value == 0.0 and r.se == 0.0
    assert (r.t_r == inf).all() and (r.t_j == inf).all()


@settings(deadline=None, max_examples=150)
@given(pairs=st.lists(st.tuples(_DECIMALS, _DECIMALS), min_size=3, max_size=40))
def test_a_real_spread_is_studentised_as_in_exact_arithmetic(pairs):
    """Property: where the exact differences vary, T and T_R agree with exact rational arithmetic."""
    s, b = [p[0] for p in pairs], [p[1] for p in pairs]
    d = [x - y for x, y in pairs]
    if len(set(d)) == 1:
        return  # the case above
    t, _, t_r = _exact_trisk(s, b, 0.0)
    r = trisk([float(v) for v in s], [float(v) for v in b])
    assert np.isfinite(r.trisk) and r.trisk == pytest.approx(t, rel=1e-9, abs=1e-12)
    np.testing.assert_allclose(r.t_r, t_r, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r.t_j, t_r, rtol=1e-9, atol=1e-12)


def test_the_issue_example_a_constant_difference_gives_infinite_t_r_and_t_j():
    r = trisk([0.5, 0.6, 0.7, 0.8], [0.4, 0.5, 0.6, 0.7])  # 0.1 each; stored: 0.09999999999999998, 0.1, ...
    assert r.trisk == np.inf and r.p_value == 0.0
    assert np.isinf(r.t_r).all() and np.isinf(r.t_j).all() and r.se_parametric == r.se_jackknife == 0.0
