"""Both learners check what they score with one helper, and a feature value with one rule.

``RiskLambdaMART.transform`` and ``RiskNeuralRanker.transform`` share their input checks; the messages
differ only by the learner's name and hint. LightGBM reads NaN as missing and refuses ±inf; the
network refuses NaN too (its own hint).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pyterrier_risk as ptr


def _frame(rows: int = 4, width: int = 3, value: float = 0.5) -> pd.DataFrame:
    return pd.DataFrame({"qid": ["q1"] * rows, "docno": [f"d{i}" for i in range(rows)],
                         "features": [np.full(width, value) for _ in range(rows)]})


def _message(call) -> str:
    with pytest.raises(ValueError) as info:
        call()
    assert "\n" not in str(info.value)
    return str(info.value)


@pytest.mark.parametrize("learner", ["RiskLambdaMART", "RiskNeuralRanker"])
def test_an_untrained_learner_names_itself(learner):
    if learner == "RiskNeuralRanker":
        pytest.importorskip("torch")
    model = getattr(ptr, learner)("lambdarank")
    assert _message(lambda: model.transform(_frame())) == (
        f"{learner} is not trained: call fit() or {learner}.load() first")


def test_the_shared_checks_and_each_learners_hint():
    pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"qid": [f"q{q}" for q in range(4) for _ in range(5)],
                          "docno": [f"d{q}-{d}" for q in range(4) for d in range(5)],
                          "features": [rng.random(3) for _ in range(20)]})
    qrels = train[["qid", "docno"]].assign(label=[int(d < 2) for _ in range(4) for d in range(5)])
    gbm = ptr.RiskLambdaMART("lambdarank", num_boost_round=2, verbose=False, min_data_in_leaf=1)
    net = ptr.RiskNeuralRanker("lambdarank", epochs=1, hidden=(4,))
    for model in (gbm.fit(train, qrels), net.fit(train, qrels)):
        empty = model.transform(_frame(rows=0))
        assert len(empty) == 0 and "score" in empty and "rank" in empty
        assert "repeat" in _message(lambda m=model: m.transform(pd.concat([_frame(), _frame()])))
        assert _message(lambda m=model: m.transform(_frame(value=np.inf))) == (
            "transform input: 4 row(s) have infinite features, e.g. feature 0 of qid 'q1' docno 'd0'; "
            "NaN (missing) is accepted, ±inf is not")
    assert _message(lambda: gbm.transform(_frame(width=2))) == (
        "the model was trained on 3 features but the input has 2; was the feature pipeline changed since "
        "training?")
    assert _message(lambda: net.transform(_frame(width=2))) == (
        "the model was trained on 3 features but the input has 2")
    assert len(gbm.transform(_frame(value=np.nan))) == 4  # NaN: LightGBM's missing value
    assert _message(lambda: net.transform(_frame(value=np.nan))) == (
        "transform input: 4 row(s) have NaN features, e.g. feature 0 of qid 'q1' docno 'd0'; the neural "
        "learner needs every feature (impute them first)")
