"""The objectives against LightGBM itself, on real data (MQ2008, LightGBM's lambdarank example)."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import data_path

from pyterrier_risk.data import read_letor
from pyterrier_risk.learning import KINDS, objective

lgb = pytest.importorskip("lightgbm")

PARAMS = dict(
    num_leaves=15, learning_rate=0.1, min_data_in_leaf=20, verbose=-1, num_threads=1, force_row_wise=True,
    deterministic=True, seed=1,
)  # fmt: skip
BM25 = 24  # MQ2008 feature 25 = BM25 of the whole document (LETOR 4.0 feature list), 0-based column 24
BASELINE_COLUMNS = [20, 21, 22, 23, 24, 29, 34, 39]  # BM25 per field + LMIR.ABS/DIR/JM of the whole document
GAIN = 2.0 ** np.arange(31) - 1.0


@pytest.fixture(scope="module")
def mq2008():
    return read_letor(data_path("letor4-mq2008", "Fold1", "train.txt.gz"))


def ndcg_per_query(scores, labels, group, k=10):
    out = []
    s = 0
    for g in group:
        sc, lab = scores[s : s + g], labels[s : s + g]
        s += g
        order = np.argsort(-sc, kind="stable")
        disc = 1.0 / np.log2(np.arange(g) + 2.0)
        idcg = (np.sort(GAIN[lab])[::-1][:k] * disc[:k]).sum()
        out.append(
            (GAIN[lab[order]][:k] * disc[:k]).sum() / idcg if idcg > 0 and lab.min() != lab.max() else np.nan
        )
    return np.array(out)


def kwargs_for(kind, X):
    if kind in ("urisk", "tsaro", "tfaro"):
        return {"baseline": X[:, BM25]}
    if kind in ("tfaro_star", "georisk"):
        return {"baselines": X[:, BASELINE_COLUMNS]}
    return {}


def train(X, y, group, obj, rounds, **params):
    ds = lgb.Dataset(X, y, group=group, free_raw_data=False)
    return lgb.train({**PARAMS, **params, "objective": obj}, ds, rounds)


@pytest.mark.realdata
@pytest.mark.slow
def test_every_kind_at_alpha_zero_trains_native_lambdarank(mq2008):
    d = mq2008
    native = train(d.X, d.y, d.group, "lambdarank", 25).predict(d.X)
    for kind in KINDS:
        obj = objective(kind, alpha=0.0, **kwargs_for(kind, d.X))
        pred = train(d.X, d.y, d.group, obj, 25).predict(d.X)
        # float32 rounding of the tree outputs is the tolerance; in practice the models are identical
        np.testing.assert_allclose(pred, native, rtol=0, atol=1e-6 * np.abs(native).max(), err_msg=kind)
        assert obj.round_ == 25


@pytest.mark.realdata
@pytest.mark.parametrize(
    "params",
    [
        dict(sigmoid=2.0),
        dict(lambdarank_truncation_level=5),
        dict(lambdarank_norm=False),
        dict(label_gain=[0.0, 1.0, 5.0]),
    ],
)
def test_lambdarank_settings_match_native(mq2008, params):
    d = mq2008
    native = train(d.X, d.y, d.group, "lambdarank", 20, **params).predict(d.X)
    obj = objective("urisk", alpha=0.0, baseline=d.X[:, BM25], **params)
    pred = train(d.X, d.y, d.group, obj, 20, **params).predict(d.X)
    np.testing.assert_allclose(pred, native, rtol=0, atol=1e-6 * np.abs(native).max())


@pytest.mark.realdata
def test_parity_on_lightgbm_example_and_with_lgbmranker():
    pytest.importorskip("sklearn", reason="LGBMRanker needs scikit-learn")
    d = read_letor(data_path("lightgbm-lambdarank-example", "rank.train"))
    kw = dict(n_estimators=20, num_leaves=15, min_child_samples=20, verbose=-1, n_jobs=1, deterministic=True)
    native = lgb.LGBMRanker(objective="lambdarank", **kw).fit(d.X, d.y, group=d.group).predict(d.X)
    obj = objective("tfaro", alpha=0.0, baseline=d.X[:, 0])
    ours = lgb.LGBMRanker(objective=obj, **kw).fit(d.X, d.y, group=d.group).predict(d.X)
    np.testing.assert_allclose(ours, native, rtol=0, atol=1e-6 * np.abs(native).max())
    assert obj.round_ == 20  # LGBMRanker called the objective itself (not a copy)


@pytest.mark.realdata
def test_parity_on_lightgbm_example_with_train():
    d = read_letor(data_path("lightgbm-lambdarank-example", "rank.train"))
    native = train(d.X, d.y, d.group, "lambdarank", 20).predict(d.X)
    for kind in ("urisk", "georisk"):
        obj = objective(kind, alpha=0.0, **kwargs_for(kind, d.X))
        pred = train(d.X, d.y, d.group, obj, 20).predict(d.X)
        np.testing.assert_allclose(pred, native, rtol=0, atol=1e-6 * np.abs(native).max())


@pytest.mark.realdata
def test_model_ndcg_tracks_the_model_being_trained(mq2008):
    d = mq2008
    obj = objective("urisk", alpha=1.0, baseline=d.X[:, BM25])
    model = train(d.X, d.y, d.group, obj, 10)
    # at the 10th call the objective saw the scores of the first 9 trees
    expect = ndcg_per_query(model.predict(d.X, num_iteration=9), d.y, d.group)
    ok = ~np.isnan(expect)
    np.testing.assert_allclose(obj.model_ndcg_[ok], expect[ok], atol=1e-9)
    bm25 = ndcg_per_query(d.X[:, BM25], d.y, d.group)
    np.testing.assert_allclose(obj.baseline_ndcg_[ok], bm25[ok], atol=1e-12)
    np.testing.assert_array_equal(obj.active_, ok)


@pytest.mark.realdata
@pytest.mark.slow
def test_urisk_reduces_queries_below_bm25_and_tfaro_keeps_ndcg(mq2008):
    d = mq2008
    bm25 = ndcg_per_query(d.X[:, BM25], d.y, d.group)
    ok = ~np.isnan(bm25)

    def fit(kind, alpha):
        obj = objective(kind, alpha=alpha, baseline=d.X[:, BM25])
        n = ndcg_per_query(train(d.X, d.y, d.group, obj, 50).predict(d.X), d.y, d.group)
        return int(np.count_nonzero(n[ok] < bm25[ok])), float(n[ok].mean())

    below0, ndcg0 = fit("urisk", 0.0)
    below5, _ = fit("urisk", 5.0)
    below20, _ = fit("urisk", 20.0)
    assert below5 < below0 and below20 < below0, (below0, below5, below20)
    _, ndcg_faro = fit("tfaro", 5.0)
    # T-FARO keeps effectiveness (with risk_norm='native' it fits the training queries slightly faster)
    assert (ndcg0 - ndcg_faro) / ndcg0 < 0.01, (ndcg_faro, ndcg0)


@pytest.mark.realdata
def test_georisk_and_tfaro_star_train_on_mq2008(mq2008):
    d = mq2008
    for kind, upd in [("georisk", "incremental"), ("georisk", "exact"), ("tfaro_star", "incremental")]:
        obj = objective(kind, alpha=5.0, baselines=d.X[:, BASELINE_COLUMNS], georisk_update=upd)
        model = train(d.X, d.y, d.group, obj, 20)
        n = ndcg_per_query(model.predict(d.X), d.y, d.group)
        assert np.nanmean(n) > 0.7  # learns (BM25 alone: 0.53)
        assert obj.history_[-1]["mean_ndcg"] > obj.history_[0]["mean_ndcg"]


@pytest.mark.realdata
def test_row_weights_match_native():
    d = read_letor(data_path("letor4-mq2008", "S1.txt.gz"))
    w = np.random.default_rng(0).uniform(0.5, 2, len(d.y))

    def fit(obj):
        ds = lgb.Dataset(d.X, d.y, group=d.group, weight=w, free_raw_data=False)
        return lgb.train({**PARAMS, "objective": obj}, ds, 20).predict(d.X)

    native = fit("lambdarank")
    ours = fit(objective("urisk", alpha=0.0, baseline=d.X[:, BM25]))
    np.testing.assert_allclose(ours, native, rtol=0, atol=1e-6 * np.abs(native).max())
