"""The validation curve RiskLambdaMART records (``evals_result_``) and ``ptr.rounds_to_reach``.

The curve is checked against NDCG@10 recomputed with numpy from the booster's predictions after
each round; ``rounds_to_reach`` against a plain loop over the curve.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import FAST, synthetic

import pyterrier_risk as ptr
from pyterrier_risk.learning import validation_curve


@pytest.fixture(scope="module")
def split():
    res, qrels = synthetic(n_queries=12, seed=3)
    valid_q = {f"q{i}" for i in range(8, 12)}
    tr, va = res[~res.qid.isin(valid_q)], res[res.qid.isin(valid_q)]
    return tr, qrels[~qrels.qid.isin(valid_q)], va, qrels[qrels.qid.isin(valid_q)]


def ndcg_at(scores: np.ndarray, labels: np.ndarray, k: int) -> float:
    """NDCG@k with gains 2^l - 1 and discounts 1/log2(rank + 1); 1 for a query without relevant documents."""
    disc = 1 / np.log2(np.arange(2, k + 2))
    gains = 2.0 ** labels[np.argsort(-scores, kind="stable")][:k] - 1
    ideal = 2.0 ** np.sort(labels)[::-1][:k] - 1
    return float(gains @ disc[: len(gains)] / (ideal @ disc[: len(ideal)])) if ideal.sum() else 1.0


@pytest.mark.parametrize("objective", ["lambdarank", "urisk"])
def test_evals_result_is_the_validation_ndcg_after_each_round(split, objective):
    tr, tr_q, va, va_q = split
    model = ptr.RiskLambdaMART(objective, alpha=2.0, baseline="score", cutoff=5, num_boost_round=12,
                               early_stopping_rounds=None, verbose=False, **FAST)
    model.fit(tr, tr_q, va, va_q)
    curve = model.evals_result_["valid"]["ndcg@5"]
    assert len(curve) == 12
    frame = va.merge(va_q, on=["qid", "docno"], how="left").fillna({"label": 0})
    x = np.stack(frame["features"].to_numpy())
    for t in (1, 6, 12):
        scores = model.booster_.predict(x, num_iteration=t)
        by_query = [ndcg_at(scores[g.index], g["label"].to_numpy(), 5) for _, g in frame.groupby("qid")]
        assert curve[t - 1] == pytest.approx(np.mean(by_query), abs=1e-6)
    assert np.array_equal(validation_curve(model), curve)
    model.fit(tr, tr_q)  # refitted without a validation set: no curve
    assert model.evals_result_ is None
    with pytest.raises(ValueError, match="fit it with a validation set"):
        ptr.rounds_to_reach(model)


def test_the_curve_of_an_early_stopped_model_ends_at_its_best_iteration(split):
    tr, tr_q, va, va_q = split
    model = ptr.RiskLambdaMART("lambdarank", num_boost_round=60, early_stopping_rounds=3, verbose=False,
                               **FAST)
    model.fit(tr, tr_q, va, va_q)
    full = model.evals_result_["valid"]["ndcg@10"]
    assert len(full) > model.best_iteration_  # the patience rounds are recorded too
    assert np.array_equal(validation_curve(model), full[: model.best_iteration_])
    assert ptr.rounds_to_reach(model, fraction=1.0) <= model.best_iteration_


def test_a_loaded_model_has_no_curve(split, tmp_path):
    tr, tr_q, va, va_q = split
    model = ptr.RiskLambdaMART("lambdarank", num_boost_round=5, verbose=False, **FAST).fit(tr, tr_q, va, va_q)
    assert len(model.evals_result_["valid"]["ndcg@10"]) == 5
    model.save(tmp_path / "m")
    loaded = ptr.RiskLambdaMART.load(tmp_path / "m")
    assert loaded.evals_result_ is None
    with pytest.raises(ValueError, match="no validation curve"):
        validation_curve(loaded)


def loop_rounds(curve, target):
    for t, v in enumerate(curve, start=1):
        if v >= target:
            return float(t)
    return math.nan


@pytest.mark.parametrize("seed", range(5))
def test_rounds_to_reach_is_the_first_round_at_the_target(seed):
    rng = np.random.default_rng(seed)
    curve = np.cumsum(rng.normal(0.01, 0.02, size=40)) + 0.3
    for fraction in (0.5, 0.9, 0.95, 1.0):
        assert ptr.rounds_to_reach(curve, fraction=fraction) == loop_rounds(curve, fraction * curve[-1])
    for value in (curve.min(), np.median(curve), curve.max()):
        assert ptr.rounds_to_reach(curve.tolist(), value=value) == loop_rounds(curve, value)
    assert math.isnan(ptr.rounds_to_reach(curve, value=curve.max() + 0.01))
    assert ptr.rounds_to_reach(curve) == ptr.rounds_to_reach(curve, fraction=0.95)


def test_rounds_to_reach_of_labelled_curves_and_records():
    curves = {0: [0.1, 0.2, 0.4], 5: {"valid": {"ndcg@10": [0.38, 0.4, 0.4]}}}
    out = ptr.rounds_to_reach(curves)
    assert isinstance(out, pd.Series) and out.name == "rounds"
    assert out.to_dict() == {0: 3.0, 5: 1.0}
    assert ptr.rounds_to_reach({"valid": {"ndcg@10": [0.1, 0.5]}}, value=0.5) == 2.0  # one record


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: ptr.rounds_to_reach([0.1, 0.2], fraction=0.9, value=0.1), ValueError, "not both"),
        (lambda: ptr.rounds_to_reach([0.1, 0.2], fraction=1.5), ValueError, r"\(0, 1\]"),
        (lambda: ptr.rounds_to_reach([0.1, 0.2], fraction=0), ValueError, r"\(0, 1\]"),
        (lambda: ptr.rounds_to_reach([0.1, 0.2], value=float("nan")), ValueError, "finite"),
        (lambda: ptr.rounds_to_reach([]), ValueError, "non-empty"),
        (lambda: ptr.rounds_to_reach([0.1, float("nan")]), ValueError, "NaN"),
        (lambda: ptr.rounds_to_reach({"a": [0.1], "b": []}), ValueError, "curve 'b'"),
        (lambda: ptr.rounds_to_reach({}), ValueError, "empty"),
        (lambda: ptr.rounds_to_reach("abc"), TypeError, "expected a fitted"),
        (lambda: ptr.rounds_to_reach(["a", "b"]), TypeError, "numbers"),
        (lambda: ptr.rounds_to_reach([0.1, float("inf")]), ValueError, "infinite"),
        (lambda: ptr.rounds_to_reach([-0.5, -0.3]), ValueError, "negative final value"),
    ],
)
def test_rounds_to_reach_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_rounds_to_reach_takes_numpy_numbers_and_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ptr.rounds_to_reach([0.1, 0.2, 0.4], fraction=np.float32(0.5)) == 2.0  # 0.5 * 0.4 = 0.2
        assert ptr.rounds_to_reach([0.1, 0.2, 0.4], value=np.float64(0.3)) == 3.0
        assert ptr.rounds_to_reach([-0.5, -0.3], value=-0.4) == 2.0  # a value works for any curve
