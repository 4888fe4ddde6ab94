"""risk_norm (where the risk weights meet LightGBM's per-query normalisation), georisk_weight, faro_tr."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr

from pyterrier_risk.learning import KINDS, get_objective, objective
from pyterrier_risk.learning.objectives import FARO_TR, RISK_NORM
from pyterrier_risk.learning.objectives._georisk import georisk_ratio, georisk_round

RISK_NORMS, FARO_TRS = RISK_NORM.choices, FARO_TR.choices
GEORISK_WEIGHTS = next(o for o in get_objective("georisk").options if o.name == "georisk_weight").choices


def random_set(seed=0, nq=40, size=8):
    rng = np.random.default_rng(seed)
    group = np.full(nq, size)
    return rng.integers(0, 3, nq * size), rng.normal(size=nq * size), rng.normal(size=nq * size), group


def call(obj, scores, labels, group):
    labels, scores = np.asarray(labels, dtype=np.float64), np.asarray(scores, dtype=np.float64)
    return obj(labels, scores, None, np.asarray(group))


def kw_for(kind, baseline):
    if kind in ("urisk", "tsaro", "tfaro"):
        return {"baseline": baseline}
    if kind in ("tfaro_star", "georisk"):
        return {"baselines": np.column_stack([baseline, -baseline, baseline**2])}
    return {}


# georisk_weight is read by 'georisk' only, risk_norm by every kind but 'lambdarank' (another kind refuses a
# value other than the default: tested below)
KIND_OPTIONS = [(k, "ratio", n) for k in KINDS if k not in ("georisk", "lambdarank") for n in RISK_NORMS]
KIND_OPTIONS += [("georisk", w, n) for w in GEORISK_WEIGHTS for n in RISK_NORMS]
KIND_OPTIONS += [("lambdarank", "ratio", "native")]


@pytest.mark.parametrize("kind, georisk_weight, risk_norm", KIND_OPTIONS)
def test_alpha_zero_is_bit_identical_to_lambdarank(kind, risk_norm, georisk_weight):
    labels, scores, baseline, group = random_set(6)
    g0, h0 = call(objective("lambdarank"), scores, labels, group)
    options = {"risk_norm": risk_norm, "georisk_weight": georisk_weight, **kw_for(kind, baseline)}
    obj = objective(kind, alpha=0.0, **options)
    g, h = call(obj, scores, labels, group)
    np.testing.assert_array_equal(g, g0)
    np.testing.assert_array_equal(h, h0)


@pytest.mark.parametrize("kind", ["tfaro", "tfaro_star"])
@pytest.mark.parametrize("risk_norm", RISK_NORMS)
@pytest.mark.parametrize("faro_tr", FARO_TRS)
def test_faro_tr_alpha_zero_is_bit_identical_to_lambdarank(kind, risk_norm, faro_tr):
    labels, scores, baseline, group = random_set(7)
    g0, h0 = call(objective("lambdarank"), scores, labels, group)
    obj = objective(kind, alpha=0.0, risk_norm=risk_norm, faro_tr=faro_tr, **kw_for(kind, baseline))
    g, h = call(obj, scores, labels, group)
    np.testing.assert_array_equal(g, g0)
    np.testing.assert_array_equal(h, h0)


@pytest.mark.parametrize("kind", ["tfaro", "tfaro_star"])
def test_faro_tr_centred_keeps_the_emphasis_when_the_model_wins_everywhere(kind):
    # a baseline far below the model on every query: the paper's alpha' vanishes, the centred one ranks
    # the queries by their gain over the baseline (smallest gain: largest alpha')
    labels, noise, _, group = random_set(5)
    scores = labels + 0.4 * noise  # a good model
    weak = -labels + 0.1 * noise  # a baseline that ranks the least relevant first
    weak = weak if kind == "tfaro" else np.column_stack([weak, weak - 0.1 * noise])
    kw = {"baseline": weak} if kind == "tfaro" else {"baselines": weak}
    paper = objective(kind, alpha=5.0, faro_tr="dincer2014", **kw)
    centred = objective(kind, alpha=5.0, faro_tr="centred", **kw)
    call(paper, scores, labels, group)
    call(centred, scores, labels, group)
    act = centred.active_
    x = centred.model_ndcg_[act] - centred.baseline_ndcg_[act]
    assert (x > 0).all()  # the model wins every active query
    assert paper.alpha_prime_[act].max() < 0.2 * centred.alpha_prime_[act].max()
    expected = 5.0 * (1 - ndtr((x - x.mean()) / np.std(x, ddof=1)))
    np.testing.assert_allclose(centred.alpha_prime_[act], expected, rtol=1e-12)
    assert centred.s_x_ == pytest.approx(np.std(x, ddof=1))


def _per_query_ratio(g, g0, group):
    s = np.concatenate([[0], np.cumsum(group)])
    bounds = zip(s[:-1], s[1:], strict=True)
    return np.array([np.abs(g[a:b]).sum() / max(np.abs(g0[a:b]).sum(), 1e-30) for a, b in bounds])


@pytest.mark.parametrize("kind", ["tfaro", "tfaro_star", "georisk"])
def test_native_norm_applies_the_query_multiplier_after_normalisation(kind):
    # multiplier kinds: with risk_norm='native' the gradients are exactly native lambdarank's (norm on) times
    # the per-query multiplier; with 'weighted' LightGBM's normalisation flattens the multiplier
    labels, scores, baseline, group = random_set(3)
    g0, h0 = call(objective("lambdarank"), scores, labels, group)
    obj = objective(kind, alpha=5.0, risk_norm="native", **kw_for(kind, baseline))
    g, h = call(obj, scores, labels, group)
    mult = 1.0 + obj.alpha_prime_ if kind != "georisk" else obj.georisk_ratio_
    np.testing.assert_allclose(g, g0 * np.repeat(mult, group), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(h, h0 * np.repeat(mult, group), rtol=2e-6, atol=1e-7)
    weighted = objective(kind, alpha=5.0, risk_norm="weighted", **kw_for(kind, baseline))
    gw, _ = call(weighted, scores, labels, group)
    r_native, r_weighted = _per_query_ratio(g, g0, group), _per_query_ratio(gw, g0, group)
    ok = np.add.reduceat(np.abs(g0), np.concatenate([[0], np.cumsum(group)[:-1]])) > 0
    assert r_native[ok].max() / r_native[ok].min() > r_weighted[ok].max() / r_weighted[ok].min()


def _georisk_incremental(mm, mb, j, alpha):
    """Finite-difference dGeoRisk/dM_m(j), the paper's incremental update (only z_j re-expected)."""
    x = np.vstack([mb, mm[None]])
    col, n, s = x.sum(0), x.sum(), x[-1].sum()
    z0 = (x[-1] - s * col / n) / np.sqrt(s * col / n)
    c = x.shape[1]

    def g(d):
        x2 = x.copy()
        x2[-1, j] += d
        col2, n2, s2 = x2.sum(0), x2.sum(), x2[-1].sum()
        z = z0.copy()
        e2 = s2 * col2[j] / n2
        z[j] = (x2[-1, j] - e2) / math.sqrt(e2)
        w = np.where(z < 0, 1 + alpha, 1)
        return math.sqrt(s2 / c * ndtr((w * z).sum() / c))

    h = 1e-6
    return (g(h) - g(0.0)) / h, z0[j]


def test_georisk_ratio_is_the_ratio_of_derivatives_up_to_a_common_factor():
    rng = np.random.default_rng(0)
    mb, mm = rng.uniform(0.05, 1, (5, 30)), rng.uniform(0.05, 1, 30)
    for alpha in (1.0, 5.0, 20.0):
        obj = objective("georisk", alpha=alpha, baselines=np.zeros((2, 2)))
        r = georisk_ratio(georisk_round(mm, mb, np.ones(30, dtype=bool), obj.alpha), mm)
        fd = np.array([_georisk_incremental(mm, mb, j, alpha)[0] / _georisk_incremental(mm, mb, j, 0.0)[0]
                       for j in range(30)])  # fmt: skip
        z = np.array([_georisk_incremental(mm, mb, j, 0.0)[1] for j in range(30)])
        common = fd / r
        np.testing.assert_allclose(common, common[0], rtol=1e-4)  # D(alpha)/D(0) up to one factor
        assert np.median(r[z >= 0]) == pytest.approx(1.0)  # queries at/above expectation weigh ~1
        assert r[z < 0].min() > r[z >= 0].max()  # queries below their expected value weigh more
    # alpha -> 0: the multiplier tends to 1 (continuous with the alpha = 0 native objective)
    tiny = objective("georisk", alpha=1e-9, baselines=np.zeros((2, 2)))
    r0 = georisk_ratio(georisk_round(mm, mb, np.ones(30, dtype=bool), tiny.alpha), mm)
    np.testing.assert_allclose(r0, 1.0, atol=1e-6)
    # a saturated GeoRisk (huge alpha): finite, not all zero
    huge = objective("georisk", alpha=1e6, baselines=np.zeros((2, 2)))
    rh = georisk_ratio(georisk_round(mm, mb, np.ones(30, dtype=bool), huge.alpha), mm)
    assert np.isfinite(rh).all() and rh.max() > 1


def test_options_are_checked_and_exact_update_keeps_the_difference_weight():
    with pytest.raises(ValueError, match="risk_norm must be one of 'native', 'weighted'"):
        objective("urisk", baseline=[1.0], risk_norm="post")
    with pytest.raises(ValueError, match="georisk_weight must be one of"):
        objective("georisk", baselines=[[1.0]], georisk_weight="paper")
    assert objective("georisk", baselines=[[1.0]], georisk_update="exact").georisk_weight == "ndcg_units"
    with pytest.raises(ValueError, match="faro_tr must be one of 'centred', 'dincer2014'"):
        objective("tfaro", baseline=[1.0], faro_tr="centered")


@pytest.mark.parametrize(
    "kind, option, value",
    [("urisk", "faro_tr", "dincer2014"), ("tsaro", "faro_tr", "dincer2014"),
     ("georisk", "faro_tr", "dincer2014"), ("tfaro", "georisk_weight", "dincer2016"),
     ("urisk", "georisk_update", "exact"), ("urisk", "se_round", 0), ("lambdarank", "faro_tr", "dincer2014"),
     ("lambdarank", "risk_norm", "weighted")],
)  # fmt: skip
def test_an_option_of_another_kind_is_refused_not_ignored(kind, option, value):
    with pytest.raises(ValueError, match=f"{option}={value!r} has no effect on kind {kind!r}: only "):
        objective(kind, **{option: value}, **kw_for(kind, np.zeros(4)))
    # its default is accepted (one options dict can name it for every kind)
    default = {"faro_tr": "centred", "georisk_weight": "ratio", "georisk_update": "incremental",
               "se_round": 1, "risk_norm": "native"}  # fmt: skip
    objective(kind, **{option: default[option]}, **kw_for(kind, np.zeros(4)))


@pytest.mark.parametrize("kind", ["tfaro", "tfaro_star"])
def test_se_round_is_refused_with_the_centred_score_and_read_with_the_papers(kind):
    kw = kw_for(kind, np.zeros(4))
    with pytest.raises(ValueError, match="se_round=0 has no effect on kind .* with faro_tr='centred'"):
        objective(kind, se_round=0, **kw)
    assert objective(kind, se_round=0, faro_tr="dincer2014", **kw).se_round == 0
    assert objective(kind, se_round=1, **kw).se_round == 1  # the default, accepted


@pytest.mark.parametrize("kind", ["tfaro", "tfaro_star"])
def test_centred_score_without_spread_gives_half_alpha_everywhere(kind):
    # no active query, one active query, or equal summands: s_x = 0, T_R = 0, alpha' = alpha/2 (no NaN)
    one_label = (np.zeros(16), np.full(4, 4))  # no query has two distinct labels: none is active
    one_active = (np.r_[0, 1, 2, 1, np.zeros(12)], np.full(4, 4))
    for labels, group in (one_label, one_active):
        scores = np.arange(len(labels), dtype=float)
        obj = objective(kind, alpha=6.0, **kw_for(kind, np.zeros(len(labels))))
        g, h = call(obj, scores, labels, group)
        assert np.isfinite(g).all() and np.isfinite(h).all()
        np.testing.assert_array_equal(obj.alpha_prime_, 3.0)
        assert obj.s_x_ == 0.0
    labels, scores, _, group = random_set(8, nq=6)
    # the baseline(s) rank as the model: x = 0 on every query
    same_kw = {"baseline": scores} if kind == "tfaro" else {"baselines": np.column_stack([scores, scores])}
    same = objective(kind, alpha=6.0, **same_kw)
    call(same, scores, labels, group)
    np.testing.assert_array_equal(same.alpha_prime_, 3.0)


def test_risklambdamart_checks_objective_params_when_built():
    from pyterrier_risk import RiskLambdaMART

    with pytest.raises(ValueError, match="faro_tr must be one of"):
        RiskLambdaMART("tfaro", alpha=5.0, baseline=0, objective_params={"faro_tr": "x"})
    with pytest.raises(ValueError, match="faro_tr='dincer2014' has no effect on kind 'urisk'"):
        RiskLambdaMART("urisk", alpha=5.0, baseline=0, objective_params={"faro_tr": "dincer2014"})
    with pytest.raises(TypeError, match="unknown lambdarank parameter"):
        RiskLambdaMART("urisk", alpha=5.0, baseline=0, objective_params={"faro": "centred"})
    with pytest.raises(ValueError, match="se_round"):
        RiskLambdaMART("tsaro", alpha=5.0, baseline=0, objective_params={"se_round": -1})
    model = RiskLambdaMART("tfaro", alpha=5.0, baseline=0, objective_params={"faro_tr": "dincer2014"})
    assert "objective_params={'faro_tr': 'dincer2014'}" in repr(model)
