"""RiskLambdaMART input checks: complex values and repeated rows (issue 14, unclear errors)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from helpers import FAST

from pyterrier_risk import RiskLambdaMART, objective


@pytest.fixture(scope="module")
def trained(synthetic_data):
    res, qrels = synthetic_data
    return RiskLambdaMART("lambdarank", num_boost_round=3, verbose=False, **FAST).fit(res, qrels)


def with_complex_row(res, as_objects=False):
    out = res.copy()
    row = out.at[7, "features"].astype(complex)
    row[2] += 1j
    out.at[7, "features"] = np.array(list(row), dtype=object) if as_objects else row
    return out


@pytest.mark.parametrize("as_objects", [False, True])
def test_complex_features_are_refused_in_fit_and_transform(synthetic_data, trained, as_objects):
    res, qrels = synthetic_data
    bad = with_complex_row(res, as_objects)
    message = r"features must be numeric \(real numbers\), but qid 'q0' docno 'd0_7' has complex values"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's ComplexWarning would mean the imaginary part was dropped
        with pytest.raises(TypeError, match=message):
            RiskLambdaMART("lambdarank", verbose=False, **FAST).fit(bad, qrels)
        with pytest.raises(TypeError, match=message):
            trained.transform(bad)
        with pytest.raises(TypeError, match=message.replace("transform input", "validation results")):
            RiskLambdaMART("lambdarank", verbose=False, **FAST).fit(res, qrels, bad, qrels)


def test_real_valued_object_and_integer_features_still_work(synthetic_data, trained):
    res, _ = synthetic_data
    objects = res.assign(features=[np.array(list(f), dtype=object) for f in res["features"]])
    pd.testing.assert_frame_equal(
        trained.transform(objects), trained.transform(res).assign(features=objects["features"])
    )
    ints = res.assign(features=[np.round(f * 100).astype(int) for f in res["features"]])
    assert trained.transform(ints)["score"].notna().all()


def test_complex_baselines_and_labels_are_refused(synthetic_data):
    res, qrels = synthetic_data
    with pytest.raises(TypeError, match=r"baseline: column 'score' are complex numbers"):
        RiskLambdaMART("urisk", baseline="score", verbose=False, **FAST).fit(
            res.assign(score=res["score"] + 1j), qrels
        )
    with pytest.raises(TypeError, match="training qrels have complex labels"):
        RiskLambdaMART("urisk", baseline=1, verbose=False, **FAST).fit(
            res, qrels.assign(label=qrels["label"] + 0j)
        )
    with pytest.raises(TypeError, match="baseline holds complex numbers"):
        objective("urisk", baseline=np.array([1.0, 2.0 + 1j]))
    with pytest.raises(TypeError, match="baselines holds complex numbers"):
        objective("georisk", baselines=[[1.0, 2.0], [1j, 0.0]])
    with pytest.raises(TypeError, match="labels holds complex numbers"):
        objective("lambdarank")(np.array([0, 1 + 1j, 0, 1]), np.zeros(4), None, np.array([4]))


def test_transform_refuses_repeated_rows_as_fit_does(synthetic_data, trained):
    res, qrels = synthetic_data
    doubled = pd.concat([res, res.iloc[[4, 9]]], ignore_index=True)
    with pytest.raises(
        ValueError, match=r"transform input contains the same \(qid, docno\) more than once \(2 "
    ):
        trained.transform(doubled)
    with pytest.raises(ValueError, match=r"training results contain the same \(qid, docno\) more than once"):
        RiskLambdaMART("lambdarank", verbose=False, **FAST).fit(doubled, qrels)
    # the same docno under two queries is two documents
    other = res.iloc[:3].assign(qid="q_other")
    assert len(trained.transform(pd.concat([res, other], ignore_index=True))) == len(res) + 3
