"""Option values of the objectives and RiskLambdaMART are parsed strictly (issue 14, items 4 and 5)."""

from __future__ import annotations

import warnings

import lightgbm as lgb
import numpy as np
import pytest
from helpers import FAST, native_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyterrier_risk import objective
from pyterrier_risk.learning import RiskLambdaMART
from pyterrier_risk.learning.objectives import ALPHA_MAX

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # conftest: numba on one thread


# ------------------------------------------------------------- item 4: booleans as LightGBM reads them
@pytest.mark.parametrize(
    "value, expected",
    [(True, True), (False, False), (np.bool_(False), False), ("false", False), ("FALSE", False),
     ("-", False), ("true", True), ("True", True), ("+", True)],
)  # fmt: skip
def test_lambdarank_norm_is_read_as_lightgbm_reads_it(value, expected):
    assert objective("lambdarank", lambdarank_norm=value).norm is expected


@pytest.mark.parametrize("value", ["", " false", "false "])
def test_lambdarank_norm_padded_or_empty_is_refused(value):
    # LightGBM reads '' as its default and ' false' as true: ambiguous spellings are refused here
    with pytest.raises(ValueError, match=r"lambdarank_norm must be True or False .*'true'/'\+'"):
        objective("lambdarank", lambdarank_norm=value)


@pytest.mark.parametrize("value", ["0", "1", "yes"])
def test_lambdarank_norm_strings_lightgbm_refuses_are_refused(value):
    with pytest.raises(ValueError, match=r"lambdarank_norm must be True or False .*'true'/'\+'"):
        objective("lambdarank", lambdarank_norm=value)
    with pytest.raises(lgb.basic.LightGBMError, match="lambdarank_norm"):  # LightGBM refuses them too
        x, y = np.random.default_rng(0).random((20, 2)), np.arange(20) % 3
        lgb.train({"objective": "lambdarank", "lambdarank_norm": value, "verbosity": -1},
                  lgb.Dataset(x, y, group=[10, 10]), 1)  # fmt: skip


@pytest.mark.parametrize("value", [0, 1, 1.0, None, np.int64(1)])
def test_lambdarank_norm_numbers_are_refused(value):
    with pytest.raises(TypeError, match="lambdarank_norm must be True or False"):
        objective("lambdarank", lambdarank_norm=value)


@pytest.mark.parametrize("norm", ["false", "-", "true"])
def test_string_lambdarank_norm_trains_lightgbms_model_exactly(synthetic_data, norm):
    """At α = 0 the objective is LightGBM's lambdarank with the same parameter, spelled the same way."""
    res, qrels = synthetic_data
    model = RiskLambdaMART("urisk", alpha=0.0, baseline=1, num_boost_round=10, verbose=False,
                           lambdarank_norm=norm, **FAST).fit(res, qrels)  # fmt: skip
    native = native_model(res, qrels, 10, lambdarank_norm=norm, **FAST)
    x = np.stack(res["features"].to_numpy())
    assert np.max(np.abs(model.transform(res)["score"].to_numpy() - native.predict(x))) == 0.0


def test_risk_lambdamart_checks_lambdarank_parameters_when_built():
    with pytest.raises(ValueError, match="lambdarank_norm must be True or False"):
        RiskLambdaMART("urisk", lambdarank_norm="0")
    with pytest.raises(TypeError, match="sigmoid must be a number"):
        RiskLambdaMART("urisk", sigmoid="2.0")
    with pytest.raises(TypeError, match="lambdarank_truncation_level must be an integer"):
        RiskLambdaMART("urisk", lambdarank_truncation_level="30")
    with pytest.raises(TypeError, match="label_gain must be a sequence of numbers"):
        RiskLambdaMART("urisk", label_gain="0,1,3")


@pytest.mark.parametrize("value", ["false", 0, 1, None])
def test_own_flags_are_bools(value):
    with pytest.raises(TypeError, match="verbose must be True or False"):
        RiskLambdaMART("urisk", verbose=value)
    with pytest.raises(TypeError, match="record_ndcg must be True or False"):
        objective("lambdarank", record_ndcg=value)


@pytest.mark.parametrize("alias", ["num_threads", "n_jobs", "nthread"])
@pytest.mark.parametrize("value", ["4", 2.5, True])
def test_thread_counts_are_integers(alias, value):
    with pytest.raises(TypeError, match=f"{alias} must be an integer"):
        RiskLambdaMART("urisk", **{alias: value})


# ------------------------------------------------------------- item 5: every accepted α keeps float32 finite
KIND_OPTIONS = [
    ("lambdarank", {}),
    ("urisk", {}),
    ("tsaro", {}),
    ("tfaro", {}),
    ("tfaro", {"faro_tr": "dincer2014"}),
    ("tfaro_star", {}),
    ("georisk", {}),
    ("georisk", {"georisk_weight": "dincer2016"}),
    ("georisk", {"georisk_weight": "ndcg_units"}),
    ("georisk", {"georisk_update": "exact"}),
]


def baseline_option(kind, rng, n):
    if kind == "lambdarank":
        return {}
    if kind in ("tfaro_star", "georisk"):
        return {"baselines": rng.normal(size=(n, 3))}
    return {"baseline": rng.normal(size=n)}


@pytest.mark.parametrize("kind, options", KIND_OPTIONS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    alpha=st.one_of(st.just(ALPHA_MAX), st.floats(0.0, ALPHA_MAX)),
    seed=st.integers(0, 2**16),
    norm=st.booleans(),
    risk_norm=st.sampled_from(["native", "weighted"]),
    sigmoid=st.sampled_from([0.5, 1.0, 4.0]),
)
def test_every_gradient_is_finite_in_float32_for_every_accepted_alpha(
    kind, options, alpha, seed, norm, risk_norm, sigmoid
):
    rng = np.random.default_rng(seed)
    group = rng.integers(1, 25, size=rng.integers(3, 12))
    n = int(group.sum())
    labels = rng.integers(0, 5, size=n).astype(np.float32)
    extra = {} if kind == "lambdarank" else {"risk_norm": risk_norm}
    obj = objective(kind, alpha=alpha, lambdarank_norm=norm, sigmoid=sigmoid, **options, **extra,
                    **baseline_option(kind, rng, n))  # fmt: skip
    scores = np.zeros(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a round without gradient is allowed, not inf
        for _ in range(4):  # several rounds: the model moves away from (or below) its baselines
            if obj.georisk_weight == "ndcg_units":
                # 0.1's weight, GeoRisk's change over its derivative at u0 = ZRisk/c, grows as
                # sqrt(Phi(u)/Phi(u0)) and is unbounded when Phi(u0) is tiny: refused, never inf
                try:
                    grad, hess = obj(labels, scores, None, group)
                except ValueError as e:
                    assert "the gradients overflow float32" in str(e) and "georisk_weight='ratio'" in str(e)
                    return
            else:
                grad, hess = obj(labels, scores, None, group)
            assert grad.dtype == np.float32 and hess.dtype == np.float32
            assert np.isfinite(grad).all() and np.isfinite(hess).all()
            scores = scores - 0.5 * grad / np.maximum(hess, 1e-3) + rng.normal(0, 3, n)


@pytest.mark.parametrize("alpha", [ALPHA_MAX * 1.0000001, 1e38, 1e300])
def test_alpha_above_the_maximum_is_refused(alpha):
    with pytest.raises(ValueError, match=r"alpha must be at most 1e\+06 .*float32"):
        objective("urisk", alpha=alpha, baseline=[0.0])
    with pytest.raises(ValueError, match=r"alpha must be at most 1e\+06"):
        RiskLambdaMART("tfaro", alpha=alpha)


@pytest.mark.parametrize("kind", ["urisk", "tsaro", "tfaro", "tfaro_star", "georisk"])
def test_the_largest_alpha_still_grows_every_tree(synthetic_data, kind):
    """The issue: α = 1e38 stopped after one tree with one score for every document."""
    res, qrels = synthetic_data
    model = RiskLambdaMART(kind, alpha=ALPHA_MAX, baseline=1, num_boost_round=6, verbose=False, **FAST)
    model.fit(res, qrels)
    scores = model.transform(res)["score"]
    assert model.booster_.num_trees() == 6 and scores.nunique() > 10


def test_overflowing_gradients_raise_instead_of_reaching_lightgbm():
    # without LightGBM's query normalisation a huge sigmoid overflows float32 at α = 0 already
    obj = objective("urisk", alpha=10.0, baseline=np.arange(40.0), lambdarank_norm=False, sigmoid=1e37)
    labels = np.tile([0.0, 1.0, 2.0, 3.0], 10)
    with pytest.raises(ValueError, match="round 0: the gradients overflow float32"):
        obj(labels, np.zeros(40), None, np.array([20, 20]))


def test_a_round_without_any_gradient_is_reported():
    obj = objective("lambdarank")
    labels = np.tile([0.0, 1.0, 2.0, 1.0], 4)
    with pytest.warns(RuntimeWarning, match="round 0: every gradient is 0 although 2 queries"):
        obj(labels, np.zeros(16), np.zeros(16), np.array([8, 8]))  # every row weight 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        obj(labels, np.zeros(16), None, np.array([8, 8]))


# ------------------------------------------------------------- counts fit LightGBM's C int
@pytest.mark.parametrize("name", ["cutoff", "num_boost_round", "early_stopping_rounds"])
def test_counts_beyond_a_c_int_are_refused_when_built(name):
    with pytest.raises(ValueError, match=f"{name} must be at most 2147483647 .LightGBM stores it in a C int"):
        RiskLambdaMART("urisk", **{name: 10**20})
    assert getattr(RiskLambdaMART("urisk", **{name: 2**31 - 1}), name) == 2**31 - 1


@pytest.mark.parametrize("name", ["cutoff", "se_round", "num_threads", "lambdarank_truncation_level"])
def test_objective_counts_beyond_a_c_int_are_refused(name):
    with pytest.raises(ValueError, match=f"{name} must be at most 2147483647"):
        objective("tsaro", baseline=[0.0], **{name: 2**31})


def test_a_cutoff_of_a_c_int_trains(synthetic_data):
    """The largest accepted cutoff fits (10**20 failed at fit with an OverflowError)."""
    res, qrels = synthetic_data
    model = RiskLambdaMART("urisk", baseline=1, cutoff=2**31 - 1, num_boost_round=2, verbose=False, **FAST)
    assert model.fit(res, qrels).booster_.num_trees() == 2


# ------------------------------------------------- issue 30 item 6: the options' types as mypy sees them
def _builtin_objectives():
    from pyterrier_risk.learning import get_objective, objective_names

    classes = [get_objective(name) for name in objective_names()]
    return [cls for cls in classes if cls.__module__.startswith("pyterrier_risk.")]


@pytest.mark.parametrize("cls", _builtin_objectives(), ids=lambda cls: cls.name)
def test_every_declared_option_has_a_matching_class_annotation(cls):
    """``se_round: int | None`` etc. on the class: the declared Options and the annotations cannot drift."""
    import typing

    hints = typing.get_type_hints(cls)
    annotated = {name for name, hint in hints.items() if typing.get_origin(hint) is not typing.ClassVar}
    assert annotated == {o.name for o in cls.options}
    built = cls()
    for option in cls.options:
        assert isinstance(option.default, hints[option.name]), (option.name, hints[option.name])
        assert isinstance(getattr(built, option.name), hints[option.name])


def test_an_objective_with_a_baseline_refuses_a_round_without_one():
    from pyterrier_risk.learning import Round, get_objective

    r = Round(index=0, model=np.array([0.5, 0.2]), baseline=None, active=np.array([True, True]), alpha=1.0)
    for name in ("tsaro", "tfaro", "tfaro_star", "georisk"):
        with pytest.raises(ValueError, match=rf"objective '{name}' needs the round's baseline NDCG"):
            get_objective(name)().weights(r)


def test_georisk_reports_no_diagnostics_before_its_first_round():
    from pyterrier_risk.learning import Round, get_objective

    r = Round(index=0, model=np.array([0.5, 0.2]), baseline=np.array([[0.4, 0.3]]),
              active=np.array([True, True]), alpha=1.0)
    assert get_objective("georisk")(alpha=1.0).diagnostics(r) == {}
