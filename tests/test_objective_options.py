"""Option values of the objectives and RiskLambdaMART are parsed strictly (issue 14, items 4 and 5)."""

from __future__ import annotations

import sys
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pytest

from pyterrier_risk import objective
from pyterrier_risk.learning._lambdamart import RiskLambdaMART

sys.path.insert(0, str(Path(__file__).parent))
from test_lambdamart import FAST, native_model, synthetic  # noqa: E402


@pytest.fixture(autouse=True, scope="module")
def one_numba_thread():
    import numba

    before = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(before)


@pytest.fixture(scope="module")
def data():
    return synthetic()


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
def test_string_lambdarank_norm_trains_lightgbms_model_exactly(data, norm):
    """At α = 0 the objective is LightGBM's lambdarank with the same parameter, spelled the same way."""
    res, qrels = data
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
