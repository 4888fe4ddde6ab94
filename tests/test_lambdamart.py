"""RiskLambdaMART: the PyTerrier estimator around LightGBM with risk-sensitive objectives."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from helpers import FAST, data_path, native_model
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyterrier_risk.learning import KINDS, RiskLambdaMART

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # conftest: numba on one thread


@pytest.fixture(scope="module")
def trained(synthetic_data):
    res, qrels = synthetic_data
    return RiskLambdaMART("lambdarank", num_boost_round=15, verbose=False, **FAST).fit(res, qrels)


# ------------------------------------------------------------------- construction
def test_repr_mirrors_constructor_and_round_trips():
    model = RiskLambdaMART("urisk", alpha=5.0, baseline=0, num_boost_round=30, num_leaves=7)
    assert repr(model) == "RiskLambdaMART('urisk', alpha=5.0, baseline=0, num_boost_round=30, num_leaves=7)"
    again = eval(repr(model), {"RiskLambdaMART": RiskLambdaMART})
    assert repr(again) == repr(model)
    assert (again.objective, again.alpha, again.baseline, again.num_boost_round, again.lightgbm_params) == (
        "urisk",
        5.0,
        0,
        30,
        {"num_leaves": 7},
    )
    assert repr(RiskLambdaMART()) == "RiskLambdaMART('georisk')"
    assert isinstance(model, pt.Transformer) and isinstance(model, pt.Estimator)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"objective": "lambdaloss"}, ValueError, "unknown objective 'lambdaloss'"),
        ({"alpha": -0.5}, ValueError, "alpha must be a finite number >= 0"),
        ({"alpha": float("nan")}, ValueError, "alpha must be a finite number"),
        ({"alpha": "1"}, TypeError, "alpha must be a real number"),
        ({"cutoff": 0}, ValueError, "cutoff must be an integer >= 1"),
        ({"cutoff": 2.0}, TypeError, "cutoff must be an integer >= 1"),
        ({"num_boost_round": 0}, ValueError, "num_boost_round"),
        ({"early_stopping_rounds": 0}, ValueError, "early_stopping_rounds"),
        ({"baseline": 1.5}, TypeError, "baseline must be 'score', a feature index"),
        ({"baseline": -1}, ValueError, "feature index must be >= 0"),
        ({"baselines": "score"}, TypeError, "baselines must be a list"),
        ({"baselines": []}, ValueError, "baselines is empty"),
        ({"baselines": [0, None]}, TypeError, r"baselines\[1\] must be"),
        (
            {"objective_": None, "objective": "urisk", "num_leaves": 3, "metric": "ndcg", "seed": 1},
            None,
            None,
        ),
    ],
)
def test_constructor_rejects_bad_parameters(kwargs, error, message):
    kwargs = dict(kwargs)
    if kwargs.pop("objective_", "absent") is None:  # a valid combination: must not raise
        RiskLambdaMART(**kwargs)
        return
    with pytest.raises(error, match=message):
        RiskLambdaMART(**kwargs)


@pytest.mark.parametrize(
    ("param", "own"),
    [
        ("application", "objective"),
        ("n_estimators", "num_boost_round"),
        ("early_stopping_round", "early_stopping_rounds"),
        ("eval_at", "cutoff"),
    ],
)
def test_lightgbm_aliases_of_own_parameters_are_rejected(param, own):
    with pytest.raises(TypeError, match=f"{param}' clashes with RiskLambdaMART's own {own}="):
        RiskLambdaMART("urisk", **{param: 5})


# ---------------------------------------------------------------------- transform
def test_transform_scores_ranks_and_leaves_input_untouched(synthetic_data, trained):
    res, _ = synthetic_data
    before = res.copy(deep=True)
    out = trained.transform(res)
    pd.testing.assert_frame_equal(res, before)  # input not mutated
    assert list(out.columns[: len(res.columns)]) == list(res.columns)
    expected = trained.booster_.predict(np.stack(res["features"].to_numpy()))
    np.testing.assert_array_equal(out["score"].to_numpy(), expected)
    # rank 0 is the highest score of each query, ranks are a permutation 0..n-1
    for _, group in out.groupby("qid"):
        assert sorted(group["rank"]) == list(range(len(group)))
        assert group.loc[group["rank"].idxmin(), "score"] == group["score"].max()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_transform_of_any_subset_in_any_order(synthetic_data, trained, draw):
    """Property: scores follow the rows of any subset/permutation; ranks order each query by score."""
    res, _ = synthetic_data
    rows = draw.draw(st.lists(st.integers(0, len(res) - 1), min_size=1, max_size=len(res), unique=True))
    subset = res.iloc[rows]
    before = subset.copy(deep=True)
    out = trained.transform(subset)
    pd.testing.assert_frame_equal(subset, before)
    assert out.index.equals(subset.index)
    expected = trained.booster_.predict(np.stack(res["features"].to_numpy()))[rows]
    np.testing.assert_array_equal(out["score"].to_numpy(), expected)
    for _, group in out.groupby("qid"):
        assert sorted(group["rank"]) == list(range(len(group)))
        by_rank = group.sort_values("rank")["score"].to_numpy()
        assert np.all(np.diff(by_rank) <= 0)


def test_transform_of_an_empty_frame(trained, synthetic_data):
    res, _ = synthetic_data
    out = trained.transform(res.iloc[:0])
    assert len(out) == 0 and {"score", "rank"} <= set(out.columns)
    full = trained.transform(res)
    assert list(out.columns) == list(full.columns)
    pd.testing.assert_series_equal(out.dtypes, full.dtypes)
    # no score column in the input: it is added with the same dtypes
    bare = trained.transform(res[["qid", "docno", "features"]].iloc[:0])
    assert list(bare.columns) == ["qid", "docno", "features", "score", "rank"]
    assert (bare["score"].dtype, bare["rank"].dtype) == (full["score"].dtype, full["rank"].dtype)


def test_inspectable_without_training(synthetic_data, trained):
    res, _ = synthetic_data
    untrained = RiskLambdaMART("urisk")
    assert pt.inspect.transformer_outputs(untrained, list(res.columns)) == [
        *res.columns
    ]  # score, rank present
    cols = ["qid", "docno", "features"]
    assert pt.inspect.transformer_outputs(untrained, cols) == [*cols, "score", "rank"]
    assert list(trained.transform(res[cols]).columns) == [*cols, "score", "rank"]
    with pytest.raises(pt.validate.InputValidationError):
        pt.inspect.transformer_outputs(untrained, ["qid", "docno"])


def test_transform_input_errors(trained, synthetic_data):
    res, _ = synthetic_data
    with pytest.raises(pt.validate.InputValidationError):
        trained.transform(res.drop(columns=["features"]))
    ragged = res.copy()
    ragged.at[3, "features"] = np.zeros(3)
    with pytest.raises(ValueError, match="ragged features, rows have between 3 and 4"):
        trained.transform(ragged)
    narrow = res.assign(features=[f[:3] for f in res["features"]])
    with pytest.raises(ValueError, match="trained on 4 features but the input has 3"):
        trained.transform(narrow)
    text = res.assign(features=[np.array(["a", "b", "c", "d"])] * len(res))
    with pytest.raises(TypeError, match="features must be numeric"):
        trained.transform(text)
    with pytest.raises(ValueError, match="not trained"):
        RiskLambdaMART("lambdarank").transform(res)
    no_qid = res.astype({"qid": object})
    no_qid.at[5, "qid"] = None
    with pytest.raises(
        ValueError, match=r"transform input: 1 row\(s\) have a missing qid or docno, e.g. row 5"
    ):
        trained.transform(no_qid)


# ---------------------------------------------------------------------------- fit
def test_fit_returns_self_and_matches_native_lambdarank(synthetic_data):
    res, qrels = synthetic_data
    model = RiskLambdaMART("lambdarank", num_boost_round=20, verbose=False, **FAST)
    assert model.fit(res, qrels) is model
    assert model.best_iteration_ == 20 and model.num_features_ == 4
    native = native_model(res, qrels, 20, **FAST)
    x = np.stack(res["features"].to_numpy())
    # the custom objective reproduces native lambdarank up to float32 gradient rounding
    np.testing.assert_allclose(model.transform(res)["score"].to_numpy(), native.predict(x), rtol=0, atol=1e-5)


def test_unjudged_candidates_get_label_zero(synthetic_data):
    res, qrels = synthetic_data
    full = res[["qid", "docno"]].merge(qrels, how="left").fillna({"label": 0})
    a = RiskLambdaMART("lambdarank", num_boost_round=10, verbose=False, **FAST).fit(res, qrels)
    b = RiskLambdaMART("lambdarank", num_boost_round=10, verbose=False, **FAST).fit(res, full)
    np.testing.assert_array_equal(a.transform(res)["score"], b.transform(res)["score"])
    # an old 'label' column in the candidates is ignored: the qrels are authoritative
    c = RiskLambdaMART("lambdarank", num_boost_round=10, verbose=False, **FAST).fit(
        res.assign(label=9), qrels
    )
    np.testing.assert_array_equal(a.transform(res)["score"], c.transform(res)["score"])


def test_fit_is_independent_of_row_order(synthetic_data):
    res, qrels = synthetic_data
    shuffled = res.sample(frac=1.0, random_state=3)
    a = RiskLambdaMART("lambdarank", num_boost_round=10, verbose=False, **FAST).fit(res, qrels)
    b = RiskLambdaMART("lambdarank", num_boost_round=10, verbose=False, **FAST).fit(shuffled, qrels)
    # rows are regrouped by query with a stable sort, so interleaved queries train the same trees
    interleaved = res.iloc[np.argsort(np.tile(np.arange(10), 8), kind="stable")]
    c = RiskLambdaMART("lambdarank", num_boost_round=10, verbose=False, **FAST).fit(interleaved, qrels)
    np.testing.assert_allclose(a.transform(res)["score"], c.transform(res)["score"], atol=1e-12)
    # within a query the order can matter (ties at the start are broken by position, as natively);
    # whatever the order, transform aligns the scores with the input rows
    expected = b.booster_.predict(np.stack(res["features"].to_numpy()))
    out = b.transform(shuffled)
    np.testing.assert_array_equal(out["score"].to_numpy(), expected[res.index.get_indexer(shuffled.index)])
    assert out.index.equals(shuffled.index)


def test_one_document_and_single_label_queries_follow_lightgbm(synthetic_data):
    """Policy: such queries carry no gradient (as in native lambdarank); they are scored, not rejected."""
    res, qrels = synthetic_data
    extra = pd.DataFrame(
        {
            "qid": ["q_one", "q_flat", "q_flat"],
            "query": ["one", "flat", "flat"],
            "docno": ["one_0", "flat_0", "flat_1"],
            "score": [1.0, 2.0, 1.0],
            "features": [
                np.array([1.0, 0.5, 0.5, 0.5]),
                np.array([2.0, 0.1, 0.2, 0.3]),
                np.array([0.0, 0.3, 0.2, 0.1]),
            ],
        }
    )
    res2 = pt.model.add_ranks(pd.concat([res, extra], ignore_index=True))
    qrels2 = pd.concat(
        [
            qrels,
            pd.DataFrame(
                {
                    "qid": ["q_one", "q_flat", "q_flat"],
                    "docno": ["one_0", "flat_0", "flat_1"],
                    "label": [2, 1, 1],
                }
            ),
        ]
    )
    for kind in ("lambdarank", "urisk"):
        model = RiskLambdaMART(kind, alpha=1.0, baseline=1, num_boost_round=8, verbose=False, **FAST)
        out = model.fit(res2, qrels2).transform(res2)
        assert np.all(np.isfinite(out["score"]))
    native = native_model(res2, qrels2, 8, **FAST)
    plain = RiskLambdaMART("lambdarank", num_boost_round=8, verbose=False, **FAST).fit(res2, qrels2)
    np.testing.assert_allclose(
        plain.transform(res2)["score"], native.predict(np.stack(res2["features"])), rtol=0, atol=1e-5
    )


@pytest.mark.parametrize(
    ("label", "message"),
    [
        (-2, r"labels must lie in \[0, 30\].*clip negative labels"),
        (31, r"labels must lie in \[0, 30\]"),
        (1.5, "labels must be integers"),
        ("high", "non-numeric labels"),
    ],
)
def test_fit_rejects_bad_labels(synthetic_data, label, message):
    res, qrels = synthetic_data
    bad = qrels.astype({"label": object})
    bad.at[0, "label"] = label
    with pytest.raises(ValueError, match=message):
        RiskLambdaMART("lambdarank", verbose=False).fit(res, bad)


def test_fit_input_errors(synthetic_data):
    res, qrels = synthetic_data
    model = RiskLambdaMART("lambdarank", verbose=False, num_boost_round=2)
    with pytest.raises(pt.validate.InputValidationError):
        model.fit(res.drop(columns=["features"]), qrels)
    with pytest.raises(pt.validate.InputValidationError):
        model.fit(res, qrels.drop(columns=["label"]))
    with pytest.raises(ValueError, match="no training results"):
        model.fit(res.iloc[:0], qrels)
    with pytest.raises(ValueError, match="several labels for the same"):
        model.fit(res, pd.concat([qrels, qrels.iloc[:1]]))
    with pytest.raises(ValueError, match="same \\(qid, docno\\) more than once"):
        model.fit(pd.concat([res, res.iloc[:1]]), qrels)
    with pytest.raises(ValueError, match="give both topics_or_res_va and qrels_va"):
        model.fit(res, qrels, res)
    with pytest.raises(ValueError, match="none of the 80 training candidates has a qrels entry"):
        model.fit(res, qrels.assign(qid=qrels["qid"] + "x"))
    with pytest.raises(ValueError, match="cannot join the training results with their qrels"):
        model.fit(res.assign(qid=res["qid"].str[1:].astype(int)), qrels)
    ragged = res.copy()
    ragged.at[5, "features"] = np.zeros(6)
    with pytest.raises(ValueError, match="training results: ragged features"):
        model.fit(ragged, qrels)
    no_docno = res.astype({"docno": object})
    no_docno.at[7, "docno"] = np.nan
    with pytest.raises(
        ValueError, match=r"training results: 1 row\(s\) have a missing qid or docno, e.g. row 7"
    ):
        model.fit(no_docno, qrels)
    with pytest.raises(ValueError, match=r"validation qrels: 1 row\(s\) have a missing qid"):
        model.fit(
            res, qrels, res, qrels.astype({"qid": object}).assign(qid=lambda q: q["qid"].where(q.index != 2))
        )


def test_fit_does_not_modify_its_inputs(synthetic_data):
    res, qrels = synthetic_data
    res_before, qrels_before = res.copy(deep=True), qrels.copy(deep=True)
    rescorer = pt.apply.doc_score(lambda row: row["features"][2])
    RiskLambdaMART("georisk", baselines=[1, "score", rescorer], num_boost_round=3, verbose=False, **FAST).fit(
        res, qrels, res, qrels
    )
    pd.testing.assert_frame_equal(res, res_before)
    pd.testing.assert_frame_equal(qrels, qrels_before)


def test_fit_rejects_missing_labels_and_hints_at_the_fix(synthetic_data):
    res, qrels = synthetic_data
    missing = qrels.astype({"label": float})
    missing.loc[4, "label"] = np.nan
    with pytest.raises(
        ValueError, match=r"training qrels have 1 missing label\(s\), e.g. qid/docno \['q0', 'd0_5'\]"
    ):
        RiskLambdaMART("lambdarank", verbose=False).fit(res, missing)
    # too large a label: the hint is label_gain, not clipping
    with pytest.raises(ValueError, match=r"lie in \[0, 1\].*got \[0, 2\]; give label_gain") as info:
        RiskLambdaMART("lambdarank", verbose=False, label_gain=[0, 1]).fit(res, qrels)
    assert "clip" not in str(info.value)


def test_fit_rejects_training_data_without_two_label_values_in_any_query(synthetic_data):
    res, qrels = synthetic_data
    with pytest.raises(ValueError, match="none of the 8 training queries has two different labels"):
        RiskLambdaMART("lambdarank", verbose=False).fit(res, qrels.assign(label=0))
    # one informative query is enough (the others are kept, without gradient: see the policy test)
    one = qrels.assign(label=np.where(qrels["qid"] == "q0", qrels["label"], 0))
    RiskLambdaMART("lambdarank", num_boost_round=2, verbose=False, **FAST).fit(res, one)


def test_nan_features_are_missing_values_infinite_features_an_error(synthetic_data, trained):
    """Policy: NaN is LightGBM's missing value (fit and transform); ±inf is rejected, naming the row."""
    res, qrels = synthetic_data
    holes = res.copy()
    holes["features"] = [np.where(np.arange(4) == i % 4, np.nan, f) if i % 7 == 0 else f for i, f in
                         enumerate(res["features"])]  # fmt: skip
    model = RiskLambdaMART("lambdarank", num_boost_round=5, verbose=False, **FAST).fit(holes, qrels)
    out = model.transform(holes)
    x = np.stack(holes["features"].to_numpy())
    assert np.isnan(x).sum() == 12
    np.testing.assert_array_equal(out["score"].to_numpy(), model.booster_.predict(x))
    assert np.all(np.isfinite(out["score"]))
    assert np.isfinite(trained.transform(holes)["score"]).all()
    infinite = res.copy()
    infinite.at[9, "features"] = np.array([0.0, -np.inf, 1.0, np.inf])
    with pytest.raises(
        ValueError, match="1 row\\(s\\) have infinite features, e.g. feature 1 of qid 'q0' docno 'd0_9'"
    ):
        trained.transform(infinite)
    with pytest.raises(ValueError, match="training results: 1 row.*infinite features"):
        RiskLambdaMART("lambdarank", verbose=False).fit(infinite, qrels)


def test_early_stopping_on_the_validation_set(synthetic_data):
    res, qrels = synthetic_data
    # validation labels reversed: training makes validation NDCG worse, so the best round is early
    reverse = qrels.assign(label=2 - qrels["label"])
    model = RiskLambdaMART("lambdarank", num_boost_round=40, early_stopping_rounds=3, verbose=False, **FAST)
    model.fit(res, qrels, res, reverse)
    assert model.best_iteration_ < 10
    x = np.stack(res["features"].to_numpy())
    np.testing.assert_array_equal(
        model.transform(res)["score"], model.booster_.predict(x, num_iteration=model.best_iteration_)
    )
    # without early stopping the validation set is only watched
    full = RiskLambdaMART("lambdarank", num_boost_round=12, early_stopping_rounds=None, verbose=False, **FAST)
    assert full.fit(res, qrels, res, reverse).best_iteration_ == 12


def test_progress_bar_while_training(synthetic_data, capsys):
    res, qrels = synthetic_data
    RiskLambdaMART("lambdarank", num_boost_round=5, verbose=True, **FAST).fit(res, qrels, res, qrels)
    err = capsys.readouterr().err
    assert "RiskLambdaMART(lambdarank)" in err and "5/5" in err and "ndcg@10" in err


# ---------------------------------------------------------------------- baselines
def _column(model, res, qrels):
    from pyterrier_risk.learning._frames import baseline_column as _baseline_column

    frame, x, _, _ = model._labelled(res, qrels, "training")
    return frame, x, _baseline_column


def test_baseline_specs_resolve_to_row_aligned_scores(synthetic_data):
    res, qrels = synthetic_data
    frame, x, resolve = _column(RiskLambdaMART("lambdarank"), res, qrels)
    np.testing.assert_array_equal(resolve("score", frame, x, "baseline"), frame["score"].to_numpy())
    np.testing.assert_array_equal(resolve(2, frame, x, "baseline"), x[:, 2])
    frame2 = frame.assign(bm25=np.arange(len(frame), dtype=float))
    np.testing.assert_array_equal(resolve("bm25", frame2, x, "baseline"), np.arange(len(frame)))
    # a transformer re-scoring the candidates, returning rows in another order
    rescorer = pt.apply.doc_score(lambda row: row["features"][1] * 10)
    reversed_rescorer = rescorer >> pt.apply.generic(lambda df: df.iloc[::-1])
    np.testing.assert_allclose(resolve(reversed_rescorer, frame, x, "baseline"), x[:, 1] * 10)


def test_baseline_spec_errors(synthetic_data):
    res, qrels = synthetic_data
    frame, x, resolve = _column(RiskLambdaMART("lambdarank"), res, qrels)
    with pytest.raises(ValueError, match="no column 'score'.*first-stage"):
        resolve("score", frame.drop(columns=["score"]), x, "baseline")
    with pytest.raises(ValueError, match="feature index 4 out of range for 4 features"):
        resolve(4, frame, x, "baseline")
    with pytest.raises(ValueError, match="3 of the 80 training candidates have no finite baseline"):
        resolve("s", frame.assign(s=[np.nan] * 3 + [1.0] * 77), x, "baselines[1]")
    partial = pt.apply.generic(lambda df: df.iloc[:70].assign(score=1.0))
    with pytest.raises(ValueError, match="did not score 10 of the 80 training candidates"):
        resolve(partial, frame, x, "baseline")
    with pytest.raises(ValueError, match="must return a frame with qid, docno and score"):
        resolve(pt.apply.generic(lambda df: df[["qid"]]), frame, x, "baseline")
    # a transformer covering every row but with non-finite scores is named like a column
    for bad in (np.nan, np.inf):
        holes = pt.apply.generic(
            lambda df, bad=bad: df.assign(score=np.where(df["docno"] == "d1_1", bad, 1.0))
        )
        with pytest.raises(
            ValueError, match=r"baselines\[2\] .*1 of the 80 training candidates have no finite"
        ):
            resolve(holes, frame, x, "baselines[2]")


def test_baseline_requirements_checked_at_fit(synthetic_data):
    res, qrels = synthetic_data
    with pytest.raises(ValueError, match="needs a baseline"):
        RiskLambdaMART("urisk", baseline=None, verbose=False).fit(res, qrels)
    with pytest.raises(ValueError, match="needs baselines"):
        RiskLambdaMART("georisk", baseline=None, verbose=False).fit(res, qrels)
    with pytest.raises(ValueError, match="no column 'score'"):
        RiskLambdaMART("tfaro", verbose=False).fit(res.drop(columns=["score"]), qrels)
    with pytest.raises(ValueError, match=r"baselines\[1\]: feature index 9 out of range"):
        RiskLambdaMART("georisk", baselines=[0, 9], verbose=False).fit(res, qrels)


# ------------------------------------------------------------------ risk objectives
@pytest.mark.parametrize("kind", [k for k in KINDS if k != "lambdarank"])
def test_every_kind_trains_and_alpha_zero_is_lambdarank(synthetic_data, kind):
    res, qrels = synthetic_data
    base = RiskLambdaMART("lambdarank", num_boost_round=8, verbose=False, **FAST).fit(res, qrels)
    zero = RiskLambdaMART(
        kind, alpha=0.0, baseline=1, baselines=[1, 2, "score"], num_boost_round=8, verbose=False, **FAST
    ).fit(res, qrels)
    np.testing.assert_allclose(zero.transform(res)["score"], base.transform(res)["score"], atol=1e-6)
    risky = RiskLambdaMART(
        kind, alpha=10.0, baseline=1, baselines=[1, 2, "score"], num_boost_round=8, verbose=False, **FAST
    ).fit(res, qrels)
    risky_scores = risky.transform(res)["score"]
    assert np.all(np.isfinite(risky_scores))
    assert not np.allclose(risky_scores, base.transform(res)["score"], atol=1e-3), "alpha had no effect"


def test_transformer_baseline_equals_feature_baseline(synthetic_data):
    res, qrels = synthetic_data
    as_feature = RiskLambdaMART("urisk", alpha=5.0, baseline=1, num_boost_round=8, verbose=False, **FAST)
    as_transformer = RiskLambdaMART(
        "urisk",
        alpha=5.0,
        baseline=pt.apply.doc_score(lambda r: r["features"][1]),
        num_boost_round=8,
        verbose=False,
        **FAST,
    )
    np.testing.assert_array_equal(
        as_feature.fit(res, qrels).transform(res)["score"],
        as_transformer.fit(res, qrels).transform(res)["score"],
    )


def test_objective_params_and_threads_reach_the_objective(synthetic_data, monkeypatch):
    import functools

    import pyterrier_risk.learning._objective as module

    seen = {}
    original = module.objective

    @functools.wraps(original)
    def spy(kind, **kwargs):
        seen.update(kwargs, kind=kind)
        return original(kind, **kwargs)

    monkeypatch.setattr(module, "objective", spy)
    res, qrels = synthetic_data
    model = RiskLambdaMART(
        "tsaro",
        alpha=2.0,
        baseline=1,
        cutoff=5,
        objective_params={"se_round": 0},
        num_boost_round=3,
        verbose=False,
        **{**FAST, "num_threads": 1, "sigmoid": 2.0},
    )
    model.fit(res, qrels)
    assert seen["kind"] == "tsaro" and seen["alpha"] == 2.0 and seen["cutoff"] == 5
    assert seen["se_round"] == 0 and seen["sigmoid"] == 2.0 and seen["baseline"].shape == (80,)
    assert seen["num_threads"] == 1
    assert "objective_params={'se_round': 0}" in repr(model)
    # LightGBM's "default threads" (<= 0, e.g. n_jobs=-1) is not forwarded: the objective chooses
    for alias, value in (("num_threads", -1), ("n_jobs", -1), ("num_threads", 0)):
        seen.clear()
        fast = {k: v for k, v in FAST.items() if k != "num_threads"}
        RiskLambdaMART("urisk", baseline=1, num_boost_round=2, verbose=False, **fast, **{alias: value}).fit(
            res, qrels
        )
        assert "num_threads" not in seen, alias
    with pytest.raises(ValueError, match="se_round"):
        RiskLambdaMART("tfaro", baseline=1, objective_params={"se_round": -1}, verbose=False).fit(res, qrels)


def test_objective_params_cannot_repeat_own_parameters():
    with pytest.raises(TypeError, match="objective_params must not set 'alpha'"):
        RiskLambdaMART("urisk", objective_params={"alpha": 1.0})
    with pytest.raises(TypeError, match="objective_params must be a dict"):
        RiskLambdaMART("urisk", objective_params=[("se_round", 0)])


# ----------------------------------------------------------------------- pipeline
def test_pipeline_composition_fit_and_transform(synthetic_data):
    res, qrels = synthetic_data
    topics = res[["qid", "query"]].drop_duplicates().reset_index(drop=True)
    retriever = pt.Transformer.from_df(res.drop(columns=["features"]))
    features = pt.apply.doc_features(
        lambda row: np.array([row["score"], len(row["docno"]), row["rank"]], float)
    )
    model = RiskLambdaMART("lambdarank", num_boost_round=6, verbose=False, **FAST)
    pipeline = retriever >> features >> model
    pipeline.fit(topics, qrels, topics, qrels)
    assert model.booster_ is not None and model.num_features_ == 3
    out = pipeline(topics)
    direct = model.transform(features(retriever(topics)))
    key = ["qid", "docno"]
    pd.testing.assert_frame_equal(
        out.sort_values(key).reset_index(drop=True)[key + ["score", "rank"]],
        direct.sort_values(key).reset_index(drop=True)[key + ["score", "rank"]],
    )
    assert "RiskLambdaMART('lambdarank'" in repr(pipeline)


def test_pipeline_with_a_feature_union(synthetic_data):
    res, qrels = synthetic_data
    topics = res[["qid", "query"]].drop_duplicates().reset_index(drop=True)
    retriever = pt.Transformer.from_df(res.drop(columns=["features"]))
    union = (
        pt.apply.doc_score(lambda row: row["score"] * 2)
        ** pt.apply.doc_score(lambda row: float(len(row["docno"])))
        ** pt.Transformer.identity()
    )
    model = RiskLambdaMART("urisk", alpha=2.0, baseline="score", num_boost_round=5, verbose=False, **FAST)
    pipeline = retriever >> union >> model
    pipeline.fit(topics, qrels, topics, qrels)
    assert model.num_features_ == 3
    candidates = retriever(topics)
    out = pipeline(topics)
    assert len(out) == len(candidates) and {"score", "rank", "features"} <= set(out.columns)
    x = np.stack(union(candidates)["features"].to_numpy())
    np.testing.assert_array_equal(x[:, 2], candidates["score"].to_numpy())  # identity = first-stage score
    key = ["qid", "docno"]
    expected = candidates[key].assign(score=model.booster_.predict(x))
    merged = out[[*key, "score"]].merge(expected, on=key, suffixes=("", "_expected"))
    assert len(merged) == len(out)
    np.testing.assert_array_equal(merged["score"], merged["score_expected"])


# ---------------------------------------------------------------------- save/load
def test_save_load_round_trip_gives_identical_scores(synthetic_data, tmp_path):
    res, qrels = synthetic_data
    model = RiskLambdaMART(
        "lambdarank", alpha=2.0, cutoff=5, num_boost_round=30, early_stopping_rounds=2, verbose=False, **FAST
    )
    model.fit(res, qrels, res, qrels.assign(label=2 - qrels["label"]))
    model.save(tmp_path / "model")
    meta = json.loads((tmp_path / "model" / "risk_lambdamart.json").read_text())
    assert meta["format"] == "pyterrier-risk/RiskLambdaMART" and meta["params"]["cutoff"] == 5
    assert meta["num_trees"] == model.best_iteration_ < 30
    loaded = RiskLambdaMART.load(tmp_path / "model")
    assert repr(loaded) == repr(model)
    pd.testing.assert_frame_equal(loaded.transform(res), model.transform(res))
    quiet = RiskLambdaMART.load(tmp_path / "model", verbose=True)
    assert quiet.verbose is True


def test_save_load_errors(synthetic_data, tmp_path, trained):
    res, qrels = synthetic_data
    with pytest.raises(ValueError, match="nothing to save"):
        RiskLambdaMART("lambdarank").save(tmp_path / "x")
    with pytest.raises(FileNotFoundError, match="not a saved RiskLambdaMART"):
        RiskLambdaMART.load(tmp_path)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "risk_lambdamart.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="is not a pyterrier-risk/RiskLambdaMART v1 file"):
        RiskLambdaMART.load(tmp_path / "bad")
    # a transformer baseline cannot be stored: saved as None with a warning, re-supplied on load
    rescorer = pt.apply.doc_score(lambda r: r["features"][1])
    model = RiskLambdaMART("lambdarank", baseline=rescorer, num_boost_round=3, verbose=False, **FAST)
    model.fit(res, qrels)
    with pytest.warns(UserWarning, match="baseline is a transformer"):
        model.save(tmp_path / "t")
    assert RiskLambdaMART.load(tmp_path / "t").baseline is None
    assert RiskLambdaMART.load(tmp_path / "t", baseline=rescorer).baseline is rescorer


def test_save_load_with_a_transformer_among_several_baselines(synthetic_data, tmp_path):
    res, qrels = synthetic_data
    rescorer = pt.apply.doc_score(lambda r: r["features"][1])
    model = RiskLambdaMART(
        "georisk", baselines=[rescorer, "score"], num_boost_round=3, verbose=False, **FAST
    ).fit(res, qrels)
    with pytest.warns(UserWarning, match=r"baselines\[0\] is a transformer"):
        model.save(tmp_path / "m")
    loaded = RiskLambdaMART.load(tmp_path / "m")  # scoring needs no baseline
    assert loaded.baselines == [None, "score"]
    pd.testing.assert_frame_equal(loaded.transform(res), model.transform(res))
    with pytest.raises(ValueError, match=r"baselines\[0\] was a transformer that save\(\) could not store"):
        loaded.fit(res, qrels)
    again = RiskLambdaMART.load(tmp_path / "m", baselines=[rescorer, "score"]).fit(res, qrels)
    np.testing.assert_array_equal(again.transform(res)["score"], model.transform(res)["score"])


def test_save_stores_numpy_parameters(synthetic_data, tmp_path):
    res, qrels = synthetic_data
    model = RiskLambdaMART(
        "tsaro",
        alpha=np.float32(2.0),
        baseline=np.int64(1),
        objective_params={"se_round": np.int64(0)},
        num_boost_round=3,
        verbose=False,
        **{**FAST, "learning_rate": np.float64(0.2), "label_gain": np.array([0.0, 1.0, 3.0])},
    ).fit(res, qrels)
    model.save(tmp_path / "m")
    params = json.loads((tmp_path / "m" / "risk_lambdamart.json").read_text())["params"]
    assert params["objective_params"] == {"se_round": 0} and params["label_gain"] == [0.0, 1.0, 3.0]
    loaded = RiskLambdaMART.load(tmp_path / "m")
    pd.testing.assert_frame_equal(loaded.transform(res), model.transform(res))
    assert loaded.fit(res, qrels).best_iteration_ == 3


def test_a_failed_save_leaves_the_previous_model_intact(synthetic_data, tmp_path):
    res, qrels = synthetic_data
    first = RiskLambdaMART("lambdarank", num_boost_round=4, verbose=False, **FAST).fit(res, qrels)
    first.save(tmp_path / "m")
    before = {f.name: f.read_bytes() for f in (tmp_path / "m").iterdir()}
    second = RiskLambdaMART("lambdarank", num_boost_round=7, verbose=False, **FAST).fit(res, qrels)
    second.lightgbm_params["unstorable"] = tmp_path  # a Path: not JSON
    with pytest.raises(TypeError, match="cannot be stored as JSON"):
        second.save(tmp_path / "m")
    after = {f.name: f.read_bytes() for f in (tmp_path / "m").iterdir()}
    assert after == before  # same files (no temporary left), same bytes
    pd.testing.assert_frame_equal(RiskLambdaMART.load(tmp_path / "m").transform(res), first.transform(res))


def test_load_refuses_files_from_two_different_saves(synthetic_data, tmp_path):
    res, qrels = synthetic_data
    a = RiskLambdaMART("lambdarank", num_boost_round=3, verbose=False, **FAST).fit(res, qrels)
    b = RiskLambdaMART("lambdarank", num_boost_round=5, verbose=False, **FAST).fit(res, qrels)
    a.save(tmp_path / "a")
    b.save(tmp_path / "b")
    (tmp_path / "a" / "model.txt").write_bytes((tmp_path / "b" / "model.txt").read_bytes())  # a torn save
    with pytest.raises(ValueError, match="come from different saves"):
        RiskLambdaMART.load(tmp_path / "a")


# ---------------------------------------------------------------------- real data
@pytest.mark.realdata
def test_mq2008_fold1_beats_the_bm25_feature():
    import ir_measures
    from ir_measures import nDCG

    from pyterrier_risk.data import BM25_FEATURE, MQ2008Fold, mq2008_fold

    fold = mq2008_fold(1, data_path("letor4-mq2008"))
    model = RiskLambdaMART(
        "lambdarank",
        num_boost_round=30,
        learning_rate=0.1,
        num_leaves=15,
        min_data_in_leaf=20,
        num_threads=1,
        seed=1,
        verbose=False,
    )
    model.fit(
        MQ2008Fold.candidates(fold.train),
        MQ2008Fold.qrels(fold.train),
        MQ2008Fold.candidates(fold.valid),
        MQ2008Fold.qrels(fold.valid),
    )
    test = MQ2008Fold.candidates(fold.test)
    out = model.transform(test)
    bm25 = test.assign(score=np.stack(test["features"].to_numpy())[:, BM25_FEATURE])
    qrels = MQ2008Fold.qrels(fold.test).rename(
        columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    )

    def ndcg(run):
        run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
        return ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]

    learned, baseline = ndcg(out), ndcg(bm25)
    # published LambdaMART on MQ2008 is ~0.5 NDCG@10 (all-zero queries count 0); BM25 alone ~0.4
    assert 0.45 < learned < 0.6 and baseline < learned - 0.05


@pytest.fixture(scope="module")
def mq2008_fold1():
    from pyterrier_risk.data import agg_baseline_scores, mq2008_fold, read_mq2008_agg

    fold = mq2008_fold(1, data_path("letor4-mq2008"))
    agg = read_mq2008_agg(data_path("letor4-mq2008-agg"))
    systems = agg_baseline_scores(fold.train, agg)
    train = fold.train.assign(**{f"ranker{j + 1:02d}": systems[:, j] for j in range(systems.shape[1])})
    return train


def _below(scores, frame, baseline):
    """Number of training queries where the model's NDCG@10 is below the baseline's (gains 2^l - 1)."""
    import ir_measures
    from ir_measures import nDCG

    qrels = frame[["qid", "docno", "label"]].rename(
        columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    )
    measure = nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10

    def per_query(values):
        run = pd.DataFrame({"query_id": frame["qid"], "doc_id": frame["docno"], "score": values})
        return pd.Series({m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)})

    return int((per_query(scores) < per_query(baseline)).sum())


@pytest.mark.realdata
def test_mq2008_fold1_risk_objectives_through_the_estimator(mq2008_fold1):
    from pyterrier_risk.data import BM25_FEATURE

    train = mq2008_fold1
    candidates, qrels = train.drop(columns=["label"]), train[["qid", "docno", "label"]]
    systems = [f"ranker{j:02d}" for j in range(1, 26)]
    params = dict(
        num_boost_round=25,
        learning_rate=0.1,
        num_leaves=15,
        min_data_in_leaf=50,
        num_threads=1,
        seed=1,
        deterministic=True,
        force_row_wise=True,
        verbose=False,
    )

    def scores(kind, alpha):
        model = RiskLambdaMART(kind, alpha=alpha, baseline=BM25_FEATURE, baselines=systems, **params)
        return model.fit(candidates, qrels).transform(candidates)["score"].to_numpy()

    plain = scores("lambdarank", 0.0)
    # parity through the estimator on real data: GeoRisk with the 25 real systems at alpha = 0
    np.testing.assert_allclose(scores("georisk", 0.0), plain, rtol=0, atol=1e-6)
    # U-CRO optimises losses against BM25: fewer training queries below the BM25 feature
    bm25 = np.stack(train["features"].to_numpy())[:, BM25_FEATURE]
    assert _below(scores("urisk", 5.0), train, bm25) < _below(plain, train, bm25)  # 24 vs 30 here
    assert np.all(np.isfinite(scores("georisk", 5.0)))
