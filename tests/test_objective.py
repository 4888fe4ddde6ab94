"""Unit tests of the risk-sensitive LambdaMART objectives against independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paper_tables import TABLE3
from scipy.stats import norm

from pyterrier_risk.learning import KINDS, objective
from pyterrier_risk.learning import _ndcg as N
from pyterrier_risk.learning import _pairloop as P
from pyterrier_risk.learning.objectives import Round
from pyterrier_risk.learning.objectives import _georisk_kernels as GK
from pyterrier_risk.learning.objectives import _ucro_kernel as UK
from pyterrier_risk.learning.objectives._georisk import georisk_round, series_coefficients
from pyterrier_risk.learning.objectives._shared import alpha_prime

GAIN = 2.0 ** np.arange(31) - 1.0
PHI = GK.normal_cdf_table()


# ----------------------------------------------------------------------------- independent references
def ref_ndcg(scores, labels, k, gain=GAIN):
    order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
    disc = 1.0 / np.log2(np.arange(len(labels)) + 2.0)
    dcg = float((gain[np.asarray(labels)[order]][:k] * disc[:k]).sum())
    idcg = float((np.sort(gain[np.asarray(labels)])[::-1][:k] * disc[:k]).sum())
    return dcg / idcg if idcg > 0 else 0.0


def ref_lambdarank(scores, labels, weights=None, sigmoid=1.0, trunc=30, norm_=True, gain=GAIN):
    """Textbook LambdaMART with LightGBM's conventions, exact logistic, float64 throughout.

    ``weights(q_mm, improving, dm)`` may rescale |ΔM| per pair (risk-sensitive variants).
    """
    n = len(labels)
    order = np.argsort(-scores, kind="stable")
    disc = 1.0 / np.log2(np.arange(n) + 2.0)
    idcg = float((np.sort(gain[labels])[::-1][:trunc] * disc[: min(trunc, n)]).sum())
    inv = 1.0 / idcg if idcg > 0 else 0.0
    g = np.zeros(n)
    h = np.zeros(n)
    total = 0.0
    for i in range(min(n - 1, trunc)):
        for j in range(i + 1, n):
            a, b = order[i], order[j]
            if labels[a] == labels[b]:
                continue
            (hr, hi), (lr, lo) = ((i, a), (j, b)) if labels[a] > labels[b] else ((j, b), (i, a))
            dm = (gain[labels[hi]] - gain[labels[lo]]) * abs(disc[hr] - disc[lr]) * inv
            if weights is not None:
                dm = weights(hr > lr, dm)
            ds = scores[hi] - scores[lo]
            if norm_ and scores.max() != scores.min():
                dm /= 0.01 + abs(ds)
            rho = 1.0 / (1.0 + math.exp(sigmoid * ds))
            lam = -sigmoid * dm * rho
            hs = sigmoid * sigmoid * dm * rho * (1 - rho)
            g[hi] += lam
            g[lo] -= lam
            h[hi] += hs
            h[lo] += hs
            total -= 2 * lam
    if norm_ and total > 0:
        f = math.log2(1 + total) / total
        g *= f
        h *= f
    return g, h


def urisk_T(mm, mb, alpha):
    return max(0.0, mm - mb) - (1.0 + alpha) * max(0.0, mb - mm)


def georisk_full(x, alpha):
    """GeoRisk of the last row of a systems × queries matrix, from the definition (Dinçer et al. 2016)."""
    s = x.sum(axis=1)
    t = x.sum(axis=0)
    e = np.outer(s, t) / x.sum()
    z = np.where(e > 0, (x - e) / np.sqrt(np.where(e > 0, e, 1)), 0.0)
    zr = z[-1]
    zrisk = zr[zr > 0].sum() + (1 + alpha) * zr[zr < 0].sum()
    c = x.shape[1]
    return math.sqrt(s[-1] / c * norm.cdf(zrisk / c))


def call(obj, scores, labels, group, weight=None):
    return obj(
        np.asarray(labels, dtype=np.float32), np.asarray(scores, dtype=float), weight, np.asarray(group)
    )


# ----------------------------------------------------------------------------- kernel building blocks
def test_discounts_and_inverse_max_dcg():
    disc = N.discounts(7)
    np.testing.assert_allclose(disc, 1 / np.log2(np.arange(7) + 2), rtol=0, atol=1e-15)
    labels = np.array([0, 2, 1, 0, 2, 0, 0], dtype=np.int32)
    qs = np.array([0, 3, 5, 7])
    inv = N.inverse_max_dcg(labels, qs, GAIN, disc, 2)
    expect = [1 / (3 + 1 / np.log2(3)), 1 / 3, 0.0]  # [0,2,1] -> 3, 1; [0,2] -> 3; [0,0] -> 0
    np.testing.assert_allclose(inv, expect, rtol=1e-15)


def test_normal_cdf_table_interpolates_phi():
    x = np.linspace(-9, 9, 2001)
    got = np.array([GK.phi(v, PHI) for v in x])
    np.testing.assert_allclose(got, norm.cdf(x), rtol=0, atol=1e-11)


def test_sigmoid_table_matches_logistic():
    table, lo, hi, fac = N.sigmoid_table(2.0)
    assert len(table) == 2**20 and lo == -12.5 and hi == 12.5
    s = np.linspace(-12, 12, 101)
    approx = table[((s - lo) * fac).astype(int)]
    np.testing.assert_allclose(approx, 1 / (1 + np.exp(2 * s)), atol=1e-4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-3, 3), min_size=1, max_size=12), min_size=1, max_size=5))
def test_stable_order_and_ndcg_match_numpy(queries):
    check_stable_order_and_ndcg(queries)


@pytest.mark.parametrize("ties", [1000, 7, 1])
def test_stable_order_of_long_queries(ties):
    # longer than the insertion-sorted runs (16), with few to many tied scores
    rng = np.random.default_rng(ties)
    check_stable_order_and_ndcg([rng.integers(0, ties, size).tolist() for size in (15, 16, 17, 33, 120, 257)])


def check_stable_order_and_ndcg(queries):
    scores = np.concatenate([np.asarray(q, dtype=float) for q in queries])
    rng = np.random.default_rng(len(scores))
    labels = rng.integers(0, 3, len(scores)).astype(np.int32)
    group = np.array([len(q) for q in queries])
    qs = np.concatenate([[0], np.cumsum(group)])
    disc = N.discounts(int(group.max()))
    inv = N.inverse_max_dcg(labels, qs, GAIN, disc, 5)
    order = N.stable_desc_order(scores, qs)
    np.testing.assert_array_equal(P.stable_desc_order_parallel(scores, qs), order)  # the two sorts agree
    nd = N.ndcg_at(order, labels, qs, GAIN, disc, inv, 5)
    for q in range(len(group)):
        sl = slice(qs[q], qs[q + 1])
        np.testing.assert_array_equal(order[sl], np.argsort(-scores[sl], kind="stable"))
        assert nd[q] == pytest.approx(ref_ndcg(scores[sl], labels[sl], 5), abs=1e-12)


def test_two_document_query_by_hand():
    g, h = call(objective("lambdarank"), [0.0, 0.0], [1, 0], [2])
    dm = 1.0 - 1.0 / math.log2(3)  # gains 1 and 0, discounts 1 and 1/log2(3), max DCG 1
    lam = 0.5 * dm  # logistic(0) = 1/2, no score-gap division when all scores are equal
    f = math.log2(1 + 2 * lam) / (2 * lam)
    np.testing.assert_allclose(g, [-lam * f, lam * f], rtol=1e-6)
    np.testing.assert_allclose(h, [0.25 * dm * f] * 2, rtol=1e-6)


@pytest.mark.parametrize("norm_", [True, False])
@pytest.mark.parametrize("sigmoid", [1.0, 1.7])
def test_lambdarank_matches_textbook_reference(norm_, sigmoid):
    rng = np.random.default_rng(3)
    group = [9, 1, 40, 5]
    labels = rng.integers(0, 4, sum(group))
    scores = rng.normal(size=sum(group)).round(1)  # with ties
    obj = objective("lambdarank", sigmoid=sigmoid, lambdarank_norm=norm_, lambdarank_truncation_level=12)
    g, h = call(obj, scores, labels, group)
    s = 0
    for n in group:
        rg, rh = ref_lambdarank(scores[s : s + n], labels[s : s + n], sigmoid=sigmoid, trunc=12, norm_=norm_)
        np.testing.assert_allclose(g[s : s + n], rg, rtol=1e-3, atol=1e-5)  # lookup table vs exact exp
        np.testing.assert_allclose(h[s : s + n], rh, rtol=1e-3, atol=1e-5)
        s += n
    assert g[9] == 0 and h[9] == 0  # one-document query: no gradient


# ----------------------------------------------------------------------------- U-CRO, all cases of Theorem 1
@settings(max_examples=300, deadline=None)
@given(
    st.floats(0, 1),
    st.floats(0, 1),
    st.floats(1e-4, 1),
    st.booleans(),
    st.sampled_from([0.0, 0.5, 1.0, 5.0, 20.0]),
)
def test_ucro_delta_is_change_of_tradeoff(mm, mb, dm, improving, alpha):
    got = UK.ucro_delta(dm, improving, mm, mb, alpha)
    new = mm + dm if improving else mm - dm
    expect = abs(urisk_T(new, mb, alpha) - urisk_T(mm, mb, alpha))
    assert got == pytest.approx(expect, abs=1e-12)
    assert got > 0  # consistency: never flips the direction of the pair gradient
    if alpha == 0:
        assert got == dm  # exactly, for parity with LambdaMART


@pytest.mark.parametrize(
    "mm, mb, improving, dm, expect",
    [
        (0.2, 0.5, False, 0.1, 3 * 0.1),  # A1
        (0.2, 0.5, True, 0.1, 3 * 0.1),  # A2, stays below
        (0.2, 0.5, True, 0.4, 0.4 + 2 * 0.3),  # A2, crosses: ΔM + α(Mb − Mm)
        (0.6, 0.5, False, 0.3, 3 * 0.3 - 2 * 0.1),  # B1, falls below: (1+α)|ΔM| − α(Mm − Mb)
        (0.6, 0.5, False, 0.05, 0.05),  # B1, stays above
        (0.6, 0.5, True, 0.3, 0.3),  # B2
    ],
)
def test_ucro_cases_by_hand(mm, mb, improving, dm, expect):
    assert UK.ucro_delta(dm, improving, mm, mb, 2.0) == pytest.approx(expect)


def two_queries():
    # query 0: model ranks the relevant doc last (below the baseline); query 1: model is perfect
    labels = [0, 0, 1, 2, 1, 0]
    scores = [3.0, 2.0, 1.0, 3.0, 2.0, 1.0]
    baseline = [0.0, 0.0, 1.0, 3.0, 2.0, 1.0]  # baseline perfect on both
    return labels, scores, baseline, [3, 3]


def test_urisk_scales_below_baseline_query_only():
    labels, scores, baseline, group = two_queries()
    kw = dict(lambdarank_norm=False)
    g0, h0 = call(objective("lambdarank", **kw), scores, labels, group)
    g, h = call(objective("urisk", alpha=4.0, baseline=baseline, **kw), scores, labels, group)
    # query 0 is below the baseline; every swap keeps it below except moving doc 2 to the top...
    ref0, _ = ref_lambdarank(np.array(scores[:3]), np.array(labels[:3]), norm_=False)
    assert np.all(np.abs(g[:3]) >= np.abs(g0[:3]) - 1e-7)
    assert np.abs(g[:3]).sum() > 4 * np.abs(ref0).sum()  # amplified by ~(1 + α)
    # query 1: model above baseline? it ties the baseline (Mm = Mb = 1): degrading swaps are risk (A1)
    np.testing.assert_allclose(g[3:], 5.0 * g0[3:], rtol=1e-6)


def test_urisk_reference_weights():
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 3, 20)
    scores = rng.normal(size=20)
    baseline = rng.normal(size=20)
    mm = ref_ndcg(scores, labels, 10)
    mb = ref_ndcg(baseline, labels, 10)
    obj = objective("urisk", alpha=3.0, baseline=baseline, lambdarank_norm=False)
    g, h = call(obj, scores, labels, [20])
    rg, rh = ref_lambdarank(
        scores, labels, norm_=False, weights=lambda imp, dm: abs(urisk_T(mm + (dm if imp else -dm), mb, 3.0)
                                                                  - urisk_T(mm, mb, 3.0)),
    )  # fmt: skip
    np.testing.assert_allclose(g, rg, rtol=1e-3, atol=1e-5)
    np.testing.assert_allclose(h, rh, rtol=1e-3, atol=1e-5)
    assert obj.model_ndcg_[0] == pytest.approx(mm) and obj.baseline_ndcg_[0] == pytest.approx(mb)


# ----------------------------------------------------------------------------- T-SARO / T-FARO
def random_set(seed=0, nq=40, size=8):
    rng = np.random.default_rng(seed)
    group = np.full(nq, size)
    labels = rng.integers(0, 3, nq * size)
    scores = rng.normal(size=nq * size)
    baseline = rng.normal(size=nq * size)
    return labels, scores, baseline, group


def ref_alpha_prime(scores, labels, baseline, group, alpha, centred=False):
    s = np.concatenate([[0], np.cumsum(group)])
    mm = np.array([ref_ndcg(scores[a:b], labels[a:b], 10) for a, b in zip(s[:-1], s[1:], strict=True)])
    mb = np.array([ref_ndcg(baseline[a:b], labels[a:b], 10) for a, b in zip(s[:-1], s[1:], strict=True)])
    d = mm - mb
    x = np.where(d < 0, (1 + alpha) * d, d)
    active = np.array(
        [len(set(labels[a:b])) > 1 and labels[a:b].max() > 0 for a, b in zip(s[:-1], s[1:], strict=True)]
    )
    if centred:  # T-FARO's default faro_tr='centred': T_R = (x - mean x) / s_x
        x = x - x[active].mean()
    sx = x[active].std(ddof=1)  # divisor c - 1, as TRisk (docs/trisk.md: the printed c^-1 is a misprint)
    return alpha * (1 - norm.cdf(x / sx)), sx


@pytest.mark.parametrize("faro_tr", ["centred", "dincer2014"])
def test_tfaro_is_lambdarank_times_one_plus_alpha_prime(faro_tr):
    labels, scores, baseline, group = random_set()
    g0, h0 = call(objective("lambdarank", lambdarank_norm=False), scores, labels, group)
    obj = objective("tfaro", alpha=5.0, baseline=baseline, lambdarank_norm=False, faro_tr=faro_tr)
    g, h = call(obj, scores, labels, group)
    ap, sx = ref_alpha_prime(scores, labels, baseline, group, 5.0, centred=faro_tr == "centred")
    np.testing.assert_allclose(obj.alpha_prime_, ap, rtol=1e-9)
    assert obj.s_x_ == pytest.approx(sx)
    mult = np.repeat(1 + ap, group)
    np.testing.assert_allclose(g, g0 * mult, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(h, h0 * mult, rtol=1e-5, atol=1e-7)
    assert np.all((ap >= 0) & (ap <= 5.0))


def test_tsaro_is_ucro_with_alpha_prime():
    labels, scores, baseline, group = random_set(1)
    ap, _ = ref_alpha_prime(scores, labels, baseline, group, 5.0)
    g, _ = call(
        objective("tsaro", alpha=5.0, baseline=baseline, lambdarank_norm=False), scores, labels, group
    )
    s = np.concatenate([[0], np.cumsum(group)])
    for q, (a, b) in enumerate(zip(s[:-1], s[1:], strict=True)):
        mm, mb = ref_ndcg(scores[a:b], labels[a:b], 10), ref_ndcg(baseline[a:b], labels[a:b], 10)

        def weight(imp, dm, mm=mm, mb=mb, a=ap[q]):
            return abs(urisk_T(mm + (dm if imp else -dm), mb, a) - urisk_T(mm, mb, a))

        rg, _ = ref_lambdarank(scores[a:b], labels[a:b], norm_=False, weights=weight)
        np.testing.assert_allclose(g[a:b], rg, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("se_round, frozen_from", [(1, 1), (0, 0), (None, None)])
def test_when_sx_is_estimated(se_round, frozen_from):
    # se_round applies to the paper's T_R (faro_tr='dincer2014'); the centred T_R is re-estimated every round
    labels, scores, baseline, group = random_set(2)
    obj = objective("tfaro", alpha=2.0, baseline=baseline, se_round=se_round, faro_tr="dincer2014")
    rng = np.random.default_rng(0)
    sx = []
    for r in range(4):
        call(obj, scores + r * rng.normal(size=len(scores)), labels, group)
        sx.append(obj.s_x_)
    if frozen_from is None:
        assert len(set(sx)) == 4  # re-estimated every round
    else:
        assert len(set(sx[frozen_from:])) == 1  # frozen from that round on
        assert len(set(sx[: frozen_from + 1])) == frozen_from + 1
    # the first estimate is the paper's s_x of the round-0 scores
    assert sx[0] == pytest.approx(ref_alpha_prime(scores, labels, baseline, group, 2.0)[1])
    centred = objective("tfaro", alpha=2.0, baseline=baseline)
    sx = []
    for r in range(4):
        call(centred, scores + r * rng.normal(size=len(scores)), labels, group)
        sx.append(centred.s_x_)
    assert len(set(sx)) == 4


def test_tfaro_star_uses_mean_of_baselines():
    labels, scores, baseline, group = random_set(3)
    other = np.random.default_rng(9).normal(size=len(scores))
    obj = objective("tfaro_star", alpha=1.0, baselines=np.column_stack([baseline, other]))
    call(obj, scores, labels, group)
    s = np.concatenate([[0], np.cumsum(group)])
    mean_b = [
        (ref_ndcg(baseline[a:b], labels[a:b], 10) + ref_ndcg(other[a:b], labels[a:b], 10)) / 2
        for a, b in zip(s[:-1], s[1:], strict=True)
    ]
    np.testing.assert_allclose(obj.baseline_ndcg_, mean_b, atol=1e-12)


# ----------------------------------------------------------------------------- GeoRisk
def georisk_incremental(x, j, d, alpha):
    """The paper's incremental update: only z of query j is recomputed, from the updated totals."""
    s, t, n = x.sum(axis=1), x.sum(axis=0), x.sum()
    e = s[-1] * t / n
    z = (x[-1] - e) / np.sqrt(e)
    zw = np.where(z < 0, (1 + alpha) * z, z)
    e_j = (s[-1] + d) * (t[j] + d) / (n + d)
    z_j = (x[-1, j] + d - e_j) / math.sqrt(e_j)
    zr = zw.sum() - zw[j] + (z_j if z_j > 0 else (1 + alpha) * z_j)
    c = x.shape[1]
    return math.sqrt((s[-1] + d) / c * norm.cdf(zr / c))


def test_georisk_deltas_incremental_and_exact():
    rng = np.random.default_rng(4)
    x = rng.uniform(0.05, 1, size=(6, 30))  # 5 baselines + the model (last row)
    alpha = 5.0
    s, t, n = x.sum(axis=1), x.sum(axis=0), x.sum()
    e = s[-1] * t / n
    z = (x[-1] - e) / np.sqrt(e)
    w = np.where(z < 0, 1 + alpha, 1.0)
    zw = w * z
    wa, wb = w * x[-1] / np.sqrt(t), w * np.sqrt(t)
    g0 = georisk_full(x, alpha)
    assert g0 == pytest.approx(math.sqrt(s[-1] / 30 * norm.cdf(zw.sum() / 30)))
    worst = 0.0
    inconsistent = 0
    for j in range(30):
        for dm, imp in [(0.01, True), (0.01, False), (0.2, True)]:
            d = dm if imp else -dm
            x2 = x.copy()
            x2[-1, j] += d
            exact = georisk_full(x2, alpha) - g0
            signed_inc = georisk_incremental(x, j, d, alpha) - g0
            assert np.sign(signed_inc) == np.sign(d)  # the incremental ΔM' is consistent (paper §6)
            inconsistent += np.sign(exact) != np.sign(d)
            zr = zw.sum() - zw[j]
            inc = GK.georisk_delta_fast(d, x[-1, j], t[j], zr, s[-1], n, 1 / 30, 1 + alpha, g0, PHI)
            assert inc == pytest.approx(abs(signed_inc), rel=1e-6)
            consts = (s[-1], n, 30.0, alpha, g0, 1.0, wa.sum(), wb.sum())
            state = tuple(np.array([v], dtype=float) for v in (x[-1, j], t[j], wa[j], wb[j]))
            ex = GK.exact_rule(0, dm, imp, (*state, np.array([True]), *consts, PHI))
            assert ex == pytest.approx(abs(exact), rel=1e-6, abs=1e-12)
            worst = max(worst, abs(inc - abs(exact)) / abs(exact))
    assert worst > 0.01  # the paper's incremental update is an approximation (held z of other queries)
    # a full recomputation can move GeoRisk against an improving swap: raising S_m raises every other
    # query's expectation, and those that fall below it are amplified by (1 + α)
    assert inconsistent > 0


def ref_georisk_step(x, j, d, alpha):
    """The incremental GeoRisk' − GeoRisk as (A' − A)/(√A' + √A), A = GeoRisk², ΔΦ by quadrature.

    No difference of two nearly equal GeoRisk values: accurate to ~1e-13 relative even for tiny d.
    """
    from scipy.integrate import quad

    s, t, n = x.sum(axis=1), x.sum(axis=0), x.sum()
    e = s[-1] * t / n
    z = (x[-1] - e) / np.sqrt(e)
    zw = np.where(z < 0, (1 + alpha) * z, z)
    c = x.shape[1]
    e_j = (s[-1] + d) * (t[j] + d) / (n + d)
    z_j = (x[-1, j] + d - e_j) / math.sqrt(e_j)
    z_j = z_j if z_j > 0 else (1 + alpha) * z_j
    u0, du = zw.sum() / c, (z_j - zw[j]) / c
    dphi = quad(norm.pdf, u0, u0 + du, epsabs=0, epsrel=1e-13)[0]
    a0 = s[-1] * norm.cdf(u0) / c
    da = (d * norm.cdf(u0) + (s[-1] + d) * dphi) / c
    return da / (math.sqrt(a0 + da) + math.sqrt(a0))


@pytest.mark.parametrize("queries", [2000, 30])
def test_georisk_batch_series_matches_exact_difference(queries):
    # 2000 queries: every step takes the Taylor series; 30 queries: large steps fall back to the table
    rng = np.random.default_rng(11)
    x = rng.uniform(0.05, 1, size=(6, queries))
    alpha, c = 5.0, float(queries)
    s, t, n = x.sum(axis=1), x.sum(axis=0), x.sum()
    e = s[-1] * t / n
    z = (x[-1] - e) / np.sqrt(e)
    zw = np.where(z < 0, (1 + alpha) * z, z)
    u0 = zw.sum() / c
    phi0 = norm.cdf(u0)
    g0 = math.sqrt(s[-1] / c * phi0)
    coef = series_coefficients(u0, norm.pdf(u0))
    d = np.array([1e-7, -1e-7, 1e-4, -1e-4, 0.01, -0.01, 0.3, -0.3, 0.95, -0.95])
    for j in (0, 7, queries - 1):
        out = np.empty_like(d)
        GK._deltas_series(
            d, out, len(d), x[-1, j], t[j], zw.sum() - zw[j], zw[j], s[-1], n, 1 / c, 1 + alpha, g0,
            coef, phi0, 1 / (s[-1] * phi0), PHI,
        )  # fmt: skip
        ref = np.array([abs(ref_georisk_step(x, j, v, alpha)) for v in d])
        series = np.abs(d) <= 0.01 if queries == 2000 else np.abs(d) <= 1e-4
        # for |d| = 1e-7 both sides difference two z values to ~1e-15: the step itself is only that exact
        rtol = np.where(np.abs(d) < 1e-5, 1e-6, 1e-9)
        assert (np.abs(out - ref) <= rtol * ref)[series].all(), (out, ref)
        # the fallback (Φ table, GeoRisk' − GeoRisk) is only as good as the cancellation allows
        np.testing.assert_allclose(out[~series], ref[~series], rtol=1e-6)
        zr = zw.sum() - zw[j]
        direct = [GK.georisk_delta_fast(v, x[-1, j], t[j], zr, s[-1], n, 1 / c, 1 + alpha, g0, PHI)
                  for v in d]  # fmt: skip
        # the per-pair path differences two GeoRisk values: close for steps that matter, not for 1e-7
        big = np.abs(d) >= 1e-4
        np.testing.assert_allclose(out[big], np.array(direct)[big], rtol=1e-4)


def test_georisk_kernel_series_and_direct_paths_agree():
    # the pair loop's batched series path against its per-pair path (forced by an out-of-range u0)
    labels, scores, baseline, group = random_set(3, nq=400, size=12)
    others = np.random.default_rng(2).normal(size=(len(scores), 4))
    obj = objective(
        "georisk", alpha=5.0, baselines=np.column_stack([baseline, others]), georisk_weight="ndcg_units",
        risk_norm="weighted",
    )  # the kernel's GeoRisk path (the default weight is a per-query multiplier)
    call(obj, scores, labels, group)
    bd = obj._bound
    order = N.stable_desc_order(scores, bd.qstart)
    mm = N.ndcg_at(order, bd.y, bd.qstart, obj.label_gain, bd.lr.disc, bd.inv_cut, 10)
    w = obj.spec.weights(Round(index=1, model=mm, baseline=bd.mb, active=bd.active, alpha=5.0))
    assert w.batched and w.state[11]  # the series is used at this u0
    loop = P.pair_loop(w.rule, batched=True)
    grads = []
    for series in (True, False):
        state = (*w.state[:11], series, *w.state[12:])
        grads.append(loop(scores, bd.y, bd.qstart, order, bd.inv_trunc, bd.lr, state, False))
    (g1, h1, bad1), (g2, h2, bad2) = grads
    assert not bad1.any() and not bad2.any()
    assert np.abs(g1).max() > 0
    np.testing.assert_allclose(g1, g2, rtol=1e-4, atol=1e-6 * np.abs(g1).max())
    np.testing.assert_allclose(h1, h2, rtol=1e-4, atol=1e-6 * np.abs(h1).max())
    np.testing.assert_array_equal(call(obj, scores, labels, group)[0], g1)  # the objective takes the series


def test_georisk_objective_weights_low_queries_more():
    labels, scores, baseline, group = random_set(5, nq=30)
    others = np.random.default_rng(1).normal(size=(len(scores), 3))
    bl = np.column_stack([baseline, others])
    obj = objective("georisk", alpha=5.0, baselines=bl, lambdarank_norm=False)
    g, _ = call(obj, scores, labels, group)
    g0, _ = call(objective("lambdarank", lambdarank_norm=False), scores, labels, group)
    ratio = np.array(
        [np.abs(g[a : a + 8]).sum() / max(np.abs(g0[a : a + 8]).sum(), 1e-12) for a in range(0, 240, 8)]
    )
    ok = np.abs(np.add.reduceat(np.abs(g0), np.arange(0, 240, 8))) > 0
    below = obj.model_ndcg_ < obj.baseline_ndcg_.mean(axis=0)  # model below the systems' mean
    assert ratio[ok & below].mean() > ratio[ok & ~below].mean()
    assert obj.history_[-1]["georisk"] > 0


# ----------------------------------------------------------------------------- α = 0 reduces every kind
@pytest.mark.parametrize("kind", KINDS)
def test_alpha_zero_gradients_identical_to_lambdarank(kind):
    labels, scores, baseline, group = random_set(6)
    kw = {}
    if kind in ("urisk", "tsaro", "tfaro"):
        kw["baseline"] = baseline
    elif kind != "lambdarank":
        kw["baselines"] = np.column_stack([baseline, -baseline])
    g0, h0 = call(objective("lambdarank"), scores, labels, group)
    g, h = call(objective(kind, alpha=0.0, **kw), scores, labels, group)
    np.testing.assert_array_equal(g, g0)
    np.testing.assert_array_equal(h, h0)


def test_weights_multiply_like_native():
    labels, scores, _, group = random_set(7)
    w = np.random.default_rng(0).uniform(0.5, 2, len(labels)).astype(np.float32)
    g0, h0 = call(objective("lambdarank"), scores, labels, group)
    g, h = call(objective("lambdarank"), scores, labels, group, weight=w)
    np.testing.assert_array_equal(g, g0 * w)
    np.testing.assert_array_equal(h, h0 * w)


# ----------------------------------------------------------------------------- bad input and policies
def test_degenerate_queries_get_zero_gradient():
    labels = [1, 2, 2, 2, 0, 0, 1, 0]
    group = [1, 3, 2, 2]  # one document; all label 2; all label 0; a real query
    obj = objective("urisk", alpha=1.0, baseline=np.arange(8.0))
    g, h = call(obj, np.zeros(8), labels, group)
    assert np.all(g[:6] == 0) and np.all(h[:6] == 0)
    assert np.any(g[6:] != 0)
    np.testing.assert_array_equal(obj.active_, [False, False, False, True])


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        (dict(kind="nope"), ValueError, "unknown objective 'nope'"),
        (dict(kind="urisk", alpha=-1, baseline=[1.0]), ValueError, "alpha must be a finite number >= 0"),
        (dict(kind="urisk", alpha=float("nan"), baseline=[1.0]), ValueError, "alpha"),
        (dict(kind="urisk"), ValueError, "needs baseline="),
        (dict(kind="georisk"), ValueError, "needs baselines="),
        (dict(kind="urisk", baselines=[[1.0]]), ValueError, "not baselines="),
        (dict(kind="georisk", baseline=[1.0]), ValueError, "not baseline="),
        (dict(kind="lambdarank", baseline=[1.0]), ValueError, "takes no baseline"),
        (dict(kind="urisk", baseline=[1.0, np.nan]), ValueError, "missing or non-finite scores at 1 row"),
        (dict(kind="georisk", baselines=[[1.0, 2.0], [1.0]]), ValueError, "ragged"),
        (dict(kind="urisk", baseline=[[1.0, 2.0], [3.0, 4.0]]), ValueError, "must be 1-d"),
        (dict(kind="urisk", baseline=["a", "b"]), ValueError, "numeric"),
        (dict(kind="lambdarank", cutoff=0), ValueError, "cutoff"),
        (dict(kind="lambdarank", sigmoid=0), ValueError, "sigmoid"),
        (dict(kind="lambdarank", lambdarank_truncation_level=0), ValueError, "truncation"),
        (dict(kind="lambdarank", num_leaves=3), TypeError, "unknown lambdarank parameter"),
        (dict(kind="tfaro", baseline=[1.0], se_round=-1), ValueError, "se_round"),
    ],
)
def test_bad_construction(kwargs, err, match):
    kind = kwargs.pop("kind")
    with pytest.raises(err, match=match):
        objective(kind, **kwargs)


@pytest.mark.parametrize(
    "labels, match",
    [
        ([0, 1.5, 0], r"labels must be integers: row 1 has label 1\.5"),
        ([0, -1, 0], "label -1 at row 1 is out of range"),
        ([0, 31, 0], "label 31 at row 1 is out of range: labels must be in 0..30"),
    ],
)
def test_bad_labels(labels, match):
    with pytest.raises(ValueError, match=match):
        call(objective("lambdarank"), [0.0, 1.0, 2.0], labels, [3])


def test_label_gain_bounds_labels():
    with pytest.raises(ValueError, match="0..2"):
        call(objective("lambdarank", label_gain=[0, 1, 3]), [0.0, 1.0], [0, 3], [2])
    g, _ = call(objective("lambdarank", label_gain=[0, 1, 3]), [0.0, 1.0], [0, 2], [2])
    assert g[1] < 0 < g[0]


def test_baseline_must_cover_every_row_and_groups_must_match():
    with pytest.raises(ValueError, match="cover 2 rows but the training data has 3 rows"):
        call(objective("urisk", baseline=[1.0, 2.0]), [0.0, 1.0, 2.0], [0, 1, 0], [3])
    with pytest.raises(ValueError, match="transpose"):
        call(
            objective("georisk", alpha=1.0, baselines=[[1.0, 2.0, 3.0]] * 2), [0.0, 1.0, 2.0], [0, 1, 0], [3]
        )
    with pytest.raises(ValueError, match="group sizes sum to 2 but there are 3 rows"):
        call(objective("lambdarank"), [0.0, 1.0, 2.0], [0, 1, 0], [2])
    with pytest.raises(ValueError, match="query groups"):
        objective("lambdarank")(np.zeros(3), np.zeros(3), None, None)
    obj = objective("lambdarank")
    call(obj, [0.0, 1.0, 2.0], [0, 1, 0], [3])
    with pytest.raises(ValueError, match="bound to the training set"):
        call(obj, [0.5, 1.0, 2.0], [0, 1, 1], [3])  # other labels in the middle of training
    with pytest.raises(TypeError, match="call as"):
        obj(np.zeros(3), np.zeros(3))


def test_diagnostics_history():
    labels, scores, baseline, group = random_set(8)
    obj = objective("urisk", alpha=1.0, baseline=baseline)
    for r in range(3):
        call(obj, scores * (r + 1), labels, group)
    assert obj.round_ == 3 and [h["round"] for h in obj.history_] == [0, 1, 2]
    act = obj.active_
    assert obj.history_[-1]["below"] == np.count_nonzero(obj.model_ndcg_[act] < obj.baseline_ndcg_[act])
    assert obj.history_[-1]["mean_ndcg"] == pytest.approx(obj.model_ndcg_[act].mean())
    assert obj.ndcg_history_ is None  # not recorded by default
    call(obj, np.zeros_like(scores), labels, group)  # all-zero scores: a new training run
    assert obj.round_ == 1 and len(obj.history_) == 1


def test_record_ndcg_keeps_every_round():
    labels, scores, baseline, group = random_set(9)
    obj = objective("tfaro", alpha=1.0, baseline=baseline, record_ndcg=True)
    for r in range(3):
        call(obj, scores * (r + 1), labels, group)
    hist = obj.ndcg_history_
    assert hist.shape == (3, len(group))
    np.testing.assert_array_equal(hist[-1], obj.model_ndcg_)
    s = np.concatenate([[0], np.cumsum(group)])
    assert hist[0][0] == pytest.approx(ref_ndcg(scores[s[0] : s[1]], labels[s[0] : s[1]], 10))


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 10_000),
    st.sampled_from(["urisk", "tsaro", "tfaro", "tfaro_star", "georisk"]),
    st.floats(0.1, 20),
)
def test_invariants_of_risk_gradients(seed, kind, alpha):
    rng = np.random.default_rng(seed)
    group = rng.integers(1, 12, 8)
    n = int(group.sum())
    labels = rng.integers(0, 3, n)
    scores = rng.normal(size=n).round(1)
    kw = (
        {"baseline": rng.normal(size=n)}
        if kind in ("urisk", "tsaro", "tfaro")
        else {"baselines": rng.random((n, 3))}
    )
    g0, h0 = call(objective("lambdarank", lambdarank_norm=False), scores, labels, group)
    g, h = call(objective(kind, alpha=alpha, lambdarank_norm=False, **kw), scores, labels, group)
    starts = np.concatenate([[0], np.cumsum(group)[:-1]])
    # every pair adds +λ to one document and −λ to the other: per-query sums vanish
    np.testing.assert_allclose(np.add.reduceat(g, starts), 0, atol=1e-4 * (1 + np.abs(g).max()))
    assert np.all(h >= 0)
    assert np.all((h == 0) == (h0 == 0))  # same pairs contribute
    if kind != "georisk":  # |ΔT| >= |ΔM| for U-CRO (all cases) and (1 + α') >= 1: hessians can only grow
        assert np.all(h >= h0 * (1 - 1e-5))


def test_pickle_round_trip_rebinds():
    import pickle

    labels, scores, baseline, group = random_set(10)
    obj = objective("tsaro", alpha=2.0, baseline=baseline)
    g1, _ = call(obj, scores, labels, group)
    blob = pickle.dumps(obj)
    assert len(blob) < 100_000  # no lookup tables inside
    clone = pickle.loads(blob)
    assert clone.round_ == 1 and clone.s_x_ == obj.s_x_
    g2, _ = call(clone, scores * 2, labels, group)
    g3, _ = call(obj, scores * 2, labels, group)
    np.testing.assert_array_equal(g2, g3)


# Dinçer, Macdonald & Ounis (SIGIR 2016), Table 3 (8 systems x 5 topics) and Table 5 GeoRisk values
PAPER_X = TABLE3.to_numpy()
PAPER_GEORISK = {
    1: [0.364, 0.378, 0.385, 0.352, 0.370, 0.370, 0.374, 0.396],
    5: [0.271, 0.333, 0.376, 0.344, 0.296, 0.297, 0.373, 0.395],
    10: [0.160, 0.274, 0.364, 0.334, 0.203, 0.204, 0.372, 0.393],
}


@pytest.mark.parametrize("alpha", [1, 5, 10])
def test_georisk_state_reproduces_paper_table5(alpha):
    for i in range(8):
        others = np.delete(PAPER_X, i, axis=0)
        st = georisk_round(PAPER_X[i], others, np.ones(5, dtype=bool), float(alpha))
        assert round(st.georisk, 3) == pytest.approx(PAPER_GEORISK[alpha][i], abs=1e-3)
        assert st.georisk == pytest.approx(georisk_full(np.vstack([others, PAPER_X[i]]), alpha))


def test_phi_lookup_is_safe_for_nan_and_the_tails():
    table = GK.normal_cdf_table()
    assert GK.phi(float("nan"), table) == table[0]
    # beyond ±8 the tails are erfc itself (tests/test_objective_stability.py), not the table's ends
    assert GK.phi(-100.0, table) == 0.0 and GK.phi(100.0, table) == 1.0
    assert GK.phi(-10.0, table) == pytest.approx(7.619853024160527e-24, rel=1e-13)
    assert GK.phi(0.0, table) == pytest.approx(0.5, abs=1e-12)


# ----------------------------------------------------------------------------- one source per formula
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), alpha=st.sampled_from([0.5, 1.0, 5.0, 20.0]))
def test_round_georisk_and_alpha_prime_equal_the_evaluation_functions(seed, alpha):
    import pyterrier_risk as ptr

    rng = np.random.default_rng(seed)
    nq, ns = int(rng.integers(3, 40)), int(rng.integers(1, 6))
    mm, mb = rng.random(nq), rng.random((ns, nq))
    active = rng.random(nq) < 0.8
    active[:2] = True
    st_ = georisk_round(mm, mb, active, alpha)
    expected = ptr.georisk(np.vstack([mb[:, active], mm[active]]), alpha=alpha)[-1]
    assert st_.georisk == pytest.approx(expected, rel=1e-12, abs=1e-15)
    # alpha' of T-SARO/T-FARO: alpha * (1 - Phi(T_R)), T_R of the evaluation's TRisk over the active queries
    obj = objective("tfaro", alpha=alpha, baseline=[0.0]).spec
    r = Round(index=0, model=mm, baseline=mb[0], active=active, alpha=alpha)
    ap = alpha_prime(obj, r, centred=False)
    t_r = ptr.trisk(mm[active], mb[0][active], alpha=alpha).t_r
    np.testing.assert_allclose(ap[active], alpha * (1.0 - norm.cdf(t_r)), rtol=1e-12, atol=1e-15)
    # the centred T_R: TRisk's per-topic T_R less its mean (TRisk's x / s_x, shifted by the mean URisk / s_x)
    ap = alpha_prime(obj, r, centred=True)
    np.testing.assert_allclose(ap[active], alpha * (1.0 - norm.cdf(t_r - t_r.mean())), rtol=1e-9, atol=1e-12)


def test_the_reserved_option_names_are_the_drivers_own():
    # an objective may not declare an option RiskObjective or LightGBM's lambdarank settings read: the
    # registry's list of them is checked against the driver's signature, so the two cannot drift apart
    import inspect

    from pyterrier_risk.learning import RiskObjective
    from pyterrier_risk.learning._objective import _LAMBDARANK_DEFAULTS
    from pyterrier_risk.learning.objectives._registry import RESERVED_OPTIONS

    params = inspect.signature(RiskObjective.__init__).parameters.values()
    own = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)} - {"self"}
    assert RESERVED_OPTIONS == own | set(_LAMBDARANK_DEFAULTS)
