"""Property tests (hypothesis) of invariants of the numeric core."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from pyterrier_risk import baseline_scores, georisk, risk_reward, trisk, urisk, z_scores, zrisk

SETTINGS = settings(max_examples=30, deadline=None)  # cheap invariants: 30 seeded examples each

score = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_infinity=False, allow_subnormal=False)
# matrix cells: exact zeros (common: nothing relevant retrieved) or effectiveness values of a
# realistic magnitude; the reference computations below lose all precision near underflow
cell = st.one_of(st.just(0.0), st.floats(min_value=1e-6, max_value=1.0))
alphas = st.floats(min_value=0.0, max_value=20.0, allow_nan=False)


@st.composite
def score_pairs(draw, min_topics: int = 1, max_topics: int = 40):
    c = draw(st.integers(min_topics, max_topics))
    s = draw(arrays(np.float64, c, elements=score))
    b = draw(arrays(np.float64, c, elements=score))
    return s, b


@st.composite
def matrices(draw, min_systems: int = 2, max_systems: int = 8, max_topics: int = 30):
    r = draw(st.integers(min_systems, max_systems))
    c = draw(st.integers(1, max_topics))
    return draw(arrays(np.float64, (r, c), elements=cell))


@SETTINGS
@given(score_pairs())
def test_urisk_alpha0_is_the_mean_difference(pair):
    s, b = pair
    assert urisk(s, b) == pytest.approx(np.mean(s - b), abs=1e-12)


@SETTINGS
@given(score_pairs(), alphas, alphas)
def test_urisk_does_not_increase_with_alpha(pair, a1, a2):
    s, b = pair
    lo, hi = sorted((a1, a2))
    assert urisk(s, b, hi) <= urisk(s, b, lo) + 1e-12


@SETTINGS
@given(score_pairs(), alphas)
def test_risk_reward_decomposition_is_consistent(pair, alpha):
    s, b = pair
    rr = risk_reward(s, b, alpha)
    assert rr.risk >= 0 and rr.reward >= 0
    assert rr.wins + rr.losses + rr.ties == rr.n_topics == len(s)
    assert rr.gain == pytest.approx(urisk(s, b), abs=1e-12)
    assert rr.urisk == pytest.approx(urisk(s, b, alpha), abs=1e-10)
    assert rr.losses_gt20 <= rr.losses


@SETTINGS
@given(score_pairs(min_topics=2), alphas)
def test_trisk_matches_one_sample_t_test_and_the_two_ses_agree(pair, alpha):
    s, b = pair
    x = np.where(s - b < 0, (1 + alpha) * (s - b), s - b)
    assume(np.std(x) > 1e-6 * max(1.0, np.abs(x).max()))
    r = trisk(s, b, alpha)
    assert r.se_jackknife == pytest.approx(r.se_parametric, rel=1e-9)
    ref = stats.ttest_1samp(x, 0.0)
    assert r.trisk == pytest.approx(ref.statistic, rel=1e-8, abs=1e-10)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-6, abs=1e-12)
    if alpha == 0:
        ref = stats.ttest_rel(s, b)
        assert r.trisk == pytest.approx(ref.statistic, rel=1e-8, abs=1e-10)
    # losses are negative, wins positive, in both per-topic scores (T_J = T_R up to rounding)
    assert np.all(np.sign(r.t_r) == np.sign(x))
    np.testing.assert_allclose(r.t_j, r.t_r, rtol=1e-7, atol=1e-9)
    clear = np.abs(r.t_r) > 1e-6
    assert np.all(np.sign(r.t_j[clear]) == np.sign(x[clear]))


@SETTINGS
@given(matrices(), alphas)
def test_georisk_is_in_unit_interval(m, alpha):
    g = georisk(m, alpha)
    assert np.all((g >= 0) & (g <= 1))


@SETTINGS
@given(st.integers(1, 30).flatmap(lambda c: arrays(np.float64, c, elements=score)), st.randoms())
def test_swapping_two_equal_mean_systems_flips_the_sign_of_zrisk(s, rnd):
    perm = list(range(len(s)))
    rnd.shuffle(perm)
    b = s[perm]  # same scores, another topic profile: equal means
    zs = zrisk(np.vstack([s, b]))[0]
    zb = zrisk(np.vstack([b, s]))[0]
    assert zs == pytest.approx(-zb, abs=1e-9)
    # and the z-scores of the two systems mirror each other topic by topic
    z = z_scores(np.vstack([s, b]))
    np.testing.assert_allclose(z[0], -z[1], atol=1e-9)


@SETTINGS
@given(matrices(), alphas, st.randoms())
def test_results_do_not_depend_on_topic_or_system_order(m, alpha, rnd):
    r, c = m.shape
    cols = list(range(c))
    rnd.shuffle(cols)
    rows = list(range(r))
    rnd.shuffle(rows)
    shuffled = m[rows][:, cols]
    np.testing.assert_allclose(zrisk(shuffled, alpha), zrisk(m, alpha)[rows], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(georisk(shuffled, alpha), georisk(m, alpha)[rows], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(z_scores(shuffled), z_scores(m)[rows][:, cols], rtol=1e-9, atol=1e-12)
    for kind in ("mean", "median", "max"):
        expected = baseline_scores(m, kind)[cols]
        np.testing.assert_allclose(baseline_scores(shuffled, kind), expected, atol=1e-15)
    s, b = m[0], m[1]
    assert urisk(s[cols], b[cols], alpha) == pytest.approx(urisk(s, b, alpha), abs=1e-12)
    assert risk_reward(s[cols], b[cols], alpha).as_dict() == pytest.approx(risk_reward(s, b, alpha).as_dict())
    if c >= 2:
        t1, t2 = trisk(s[cols], b[cols], alpha), trisk(s, b, alpha)
        assert t1.trisk == pytest.approx(t2.trisk, rel=1e-9, abs=1e-9, nan_ok=True)
        np.testing.assert_allclose(t1.t_j, t2.t_j[cols], rtol=1e-9, atol=1e-9)


@SETTINGS
@given(matrices(), alphas)
def test_zrisk_is_the_sum_of_its_z_scores(m, alpha):
    z = z_scores(m)
    expected = np.where(z > 0, z, (1 + alpha) * z).sum(axis=1)
    np.testing.assert_allclose(zrisk(m, alpha), expected, rtol=1e-9, atol=1e-9)
    # every system's expectations add up to its own total: sum_j sqrt(e_ij) z_ij = 0
    s = m.sum(axis=1, keepdims=True)
    total = m.sum()
    e = s * m.sum(axis=0, keepdims=True) / total if total > 0 else np.zeros_like(m)
    np.testing.assert_allclose((np.sqrt(e) * z).sum(axis=1), 0.0, atol=1e-9)


@SETTINGS
@given(matrices(), alphas, alphas)
def test_zrisk_does_not_increase_with_alpha(m, a1, a2):
    lo, hi = sorted((a1, a2))
    assert np.all(zrisk(m, hi) <= zrisk(m, lo) + 1e-9)


# --- real data: 19 Terrier runs on TREC-7 (per-topic nDCG@20 / ERR@20 from the official gdeval.pl) ---


def _trec7_matrix(measure: str):
    import pandas as pd
    from helpers import data_path

    path = data_path("trec7-adhoc-terrier-runs", "reference_eval", "gdeval_c.csv")
    frame = pd.read_csv(path, dtype={"topic": str})
    frame = frame[frame["k"] == 20]
    per_topic = frame[frame["topic"] != "amean"].pivot(index="run", columns="topic", values=measure)
    amean = frame[frame["topic"] == "amean"].set_index("run")[measure]
    return per_topic, amean


@pytest.mark.realdata
@pytest.mark.parametrize("measure", ["ndcg@k", "err@k"])  # the file's columns; rows with k = 20
def test_real_trec7_runs(measure):
    m, amean = _trec7_matrix(measure)
    assert m.shape == (19, 50) and not m.isna().any().any()
    np.testing.assert_allclose(m.mean(axis=1), amean.loc[m.index], atol=1e-5)  # gdeval's own means
    x = m.to_numpy()

    # ZRisk / GeoRisk: the fast path against the formulas transcribed literally
    e = x.sum(axis=1, keepdims=True) * x.sum(axis=0, keepdims=True) / x.sum()
    z = np.where(e > 0, (x - e) / np.sqrt(np.where(e > 0, e, 1.0)), 0.0)
    for alpha in (0, 1, 5, 10):
        direct = np.where(z > 0, z, (1 + alpha) * z).sum(axis=1)
        zr = zrisk(m, alpha)
        np.testing.assert_allclose(zr.to_numpy(), direct, rtol=1e-10, atol=1e-10)
        geo = georisk(m, alpha)
        expected = np.sqrt(x.mean(axis=1) * stats.norm.cdf(direct / 50))
        np.testing.assert_allclose(geo.to_numpy(), expected, rtol=1e-10)
        assert geo.between(0, 1).all() and list(geo.index) == list(m.index)

    # TRisk of every run against one of them: the paired t-test at alpha 0, the jackknife loop at 5
    base = m.loc["stem-stop_BM25b0.75_1"]
    for run in m.index.drop(base.name):
        ref = stats.ttest_rel(m.loc[run], base)
        r0 = trisk(m.loc[run], base)
        assert r0.trisk == pytest.approx(ref.statistic, rel=1e-10)
        assert r0.p_value == pytest.approx(ref.pvalue, rel=1e-8)
        r5 = trisk(m.loc[run], base, alpha=5, se="jackknife")
        xs = r5.x.to_numpy()
        loo = np.array([np.delete(xs, i).mean() for i in range(len(xs))])
        se_loop = np.sqrt((len(xs) - 1) / len(xs) * ((loo - loo.mean()) ** 2).sum())
        assert r5.se == pytest.approx(se_loop, rel=1e-10)
        assert r5.se_parametric == pytest.approx(se_loop, rel=1e-10)
        assert r5.urisk <= r0.urisk

    # against the MEAN baseline, URisk at alpha 0 is the run's mean minus the grand mean, so the
    # ranking by URisk is the ranking by effectiveness (ECIR 2014, Section 4)
    mean_base = baseline_scores(m, "mean")
    u = m.apply(lambda row: urisk(row, mean_base), axis=1)
    np.testing.assert_allclose(u, m.mean(axis=1) - x.mean(), atol=1e-12)
    u_max = m.apply(lambda row: urisk(row, baseline_scores(m, "max"), alpha=1), axis=1)
    assert (u_max <= 0).all()
