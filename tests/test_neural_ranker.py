"""``ptr.RiskNeuralRanker``: the neural estimator over ``features`` (issue 28, item 2).

Tiny synthetic data (``synthetic`` of tests/helpers.py) and a few epochs: the tests check the contract the
study relies on (``best_iteration_``, ``validation_ndcg_``, ``weights_sha256()``), determinism,
the artifact round trip and the one-line errors, not ranking quality.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyterrier as pt
import pytest
from helpers import declared_entry_points, synthetic

torch = pytest.importorskip(
    "torch", reason="the neural tests need PyTorch: pip install 'pyterrier-risk[neural]'"
)

import pyterrier_risk as ptr  # noqa: E402

TRAIN = [f"q{i}" for i in range(8)]
SMALL = {"epochs": 12, "batch_size": 4, "hidden": (16,), "early_stopping": 3}


@pytest.fixture(scope="module")
def data():
    res, qrels = synthetic(n_queries=12, n_docs=10)
    train, valid = res[res.qid.isin(TRAIN)], res[~res.qid.isin(TRAIN)]
    return train, valid, qrels


@pytest.fixture(scope="module")
def model(data):
    train, valid, qrels = data
    return ptr.RiskNeuralRanker(**SMALL).fit(train, qrels, valid, qrels)


@pytest.fixture(scope="module")
def transformer(data):
    train, valid, qrels = data
    kw = {**SMALL, "epochs": 3}
    return ptr.RiskNeuralRanker("urisk", alpha=2.0, baseline="score", model="transformer", **kw).fit(
        train, qrels, valid, qrels
    )


def scores(model, res):
    return model.transform(res)["score"].to_numpy()


# ----------------------------------------------------------------------------- the contract
def test_early_stopping_keeps_the_best_validation_epoch(model):
    curve = model.validation_ndcg_
    assert isinstance(curve, np.ndarray) and curve.dtype == np.float64 and len(curve) >= 1
    assert isinstance(model.best_iteration_, int) and 1 <= model.best_iteration_ <= len(curve)
    assert model.best_iteration_ == int(np.argmax(curve)) + 1  # the first best epoch, 1-based
    stopped = len(curve) < SMALL["epochs"]
    assert not stopped or len(curve) == model.best_iteration_ + SMALL["early_stopping"]
    assert ((curve >= 0) & (curve <= 1)).all()


def test_the_kept_weights_score_the_validation_ndcg_of_their_epoch(model, data):
    """The scorer after fit is the best epoch's: its validation NDCG@10 is the curve's maximum."""
    _, valid, qrels = data
    run = model.transform(valid)
    frame = run.merge(qrels, on=["qid", "docno"], how="left").fillna({"label": 0})
    ndcgs = []
    for _, q in frame.groupby("qid"):
        gains = 2.0 ** q.sort_values("score", ascending=False, kind="stable")["label"].to_numpy() - 1
        disc = 1 / np.log2(np.arange(len(gains)) + 2)
        ideal = np.sort(gains)[::-1]
        if ideal[:10].sum() > 0:
            ndcgs.append((gains[:10] * disc[:10]).sum() / (ideal[:10] * disc[:10]).sum())
    assert np.mean(ndcgs) == pytest.approx(model.validation_ndcg_.max(), abs=1e-6)


def test_without_validation_it_trains_every_epoch(data):
    train, _, qrels = data
    m = ptr.RiskNeuralRanker(**{**SMALL, "epochs": 2}).fit(train, qrels)
    assert m.best_iteration_ == 2 and m.validation_ndcg_.shape == (0,) and len(m.train_loss_) == 2


def test_without_early_stopping_every_epoch_runs_and_the_best_is_kept(data):
    train, valid, qrels = data
    m = ptr.RiskNeuralRanker(**{**SMALL, "epochs": 4, "early_stopping": None}).fit(train, qrels, valid, qrels)
    assert len(m.validation_ndcg_) == 4 and m.best_iteration_ == int(np.argmax(m.validation_ndcg_)) + 1


def test_fit_is_seeded_deterministic_and_restores_torchs_state(model, data):
    train, valid, qrels = data
    rng, threads = torch.get_rng_state(), torch.get_num_threads()
    deterministic = torch.are_deterministic_algorithms_enabled()
    again = ptr.RiskNeuralRanker(**SMALL).fit(train, qrels, valid, qrels)
    assert again.weights_sha256() == model.weights_sha256()
    np.testing.assert_array_equal(again.validation_ndcg_, model.validation_ndcg_)
    assert torch.equal(torch.get_rng_state(), rng) and torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == deterministic
    other = ptr.RiskNeuralRanker(**{**SMALL, "seed": 1}).fit(train, qrels, valid, qrels)
    assert other.weights_sha256() != model.weights_sha256()


def test_a_risk_objective_trains_another_model(model, transformer, data):
    train, valid, qrels = data
    risky = ptr.RiskNeuralRanker("tfaro", alpha=5.0, baseline=1, **SMALL).fit(train, qrels, valid, qrels)
    assert risky.weights_sha256() != model.weights_sha256()
    assert np.isfinite(scores(transformer, valid)).all()


def test_it_is_a_pipeline_stage(model, data):
    _, valid, _ = data
    pipe = pt.Transformer.identity() >> model
    out = pipe(valid)
    assert {"score", "rank"} <= set(out.columns) and len(out) == len(valid)
    np.testing.assert_array_equal(out["score"].to_numpy(), scores(model, valid))
    shuffled = valid.sample(frac=1.0, random_state=0)
    by_doc = model.transform(shuffled).set_index("docno")["score"]
    assert by_doc.loc[valid["docno"]].to_numpy() == pytest.approx(scores(model, valid), abs=1e-6)


# ----------------------------------------------------------------------------- save and load
@pytest.mark.parametrize("which", ["model", "transformer"])
def test_save_and_load_give_identical_scores(which, request, data, tmp_path, monkeypatch):
    m = request.getfixturevalue(which)
    _, valid, _ = data
    m.save(tmp_path / "m")
    names = sorted(p.name for p in (tmp_path / "m").iterdir())
    assert names == ["model.safetensors", "pt_meta.json", "risk_neural.json"]
    meta = json.loads((tmp_path / "m" / "pt_meta.json").read_text())
    assert (meta["type"], meta["format"]) == ("ltr_model", "risk_neural")
    config = json.loads((tmp_path / "m" / "risk_neural.json").read_text())
    assert config["weights_sha256"] == m.weights_sha256() and config["best_iteration"] == m.best_iteration_
    declared = declared_entry_points()["pyterrier.artifact"]
    monkeypatch.setattr(
        pt.utils, "entry_points", lambda group: declared if group == "pyterrier.artifact" else []
    )
    for loaded in (ptr.RiskNeuralRanker.load(tmp_path / "m"), pt.Artifact.load(str(tmp_path / "m"))):
        assert isinstance(loaded, ptr.RiskNeuralRanker) and loaded.weights_sha256() == m.weights_sha256()
        np.testing.assert_array_equal(scores(loaded, valid), scores(m, valid))
        np.testing.assert_array_equal(loaded.validation_ndcg_, m.validation_ndcg_)
        assert loaded.best_iteration_ == m.best_iteration_ and repr(loaded) == repr(m)


def test_the_weights_file_is_safetensors_not_a_pickle(model, tmp_path):
    model.save(tmp_path / "m")
    raw = (tmp_path / "m" / "model.safetensors").read_bytes()
    header = int.from_bytes(raw[:8], "little")
    assert json.loads(raw[8 : 8 + header])  # an 8-byte length, then a JSON header: no code
    from safetensors.torch import load

    assert set(load(raw)) == set(model.scorer_.state_dict())


def test_a_damaged_folder_is_a_one_line_error(model, tmp_path):
    model.save(tmp_path / "m")
    weights = tmp_path / "m" / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[:-4] + b"\0\0\0\0")
    with pytest.raises(ValueError, match="does not match") as info:
        ptr.RiskNeuralRanker.load(tmp_path / "m")
    assert "\n" not in str(info.value)
    (tmp_path / "m" / "risk_neural.json").write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        ptr.RiskNeuralRanker.load(tmp_path / "m")
    with pytest.raises(FileNotFoundError, match="not a saved RiskNeuralRanker"):
        ptr.RiskNeuralRanker.load(tmp_path / "nothing")


# ----------------------------------------------------------------------------- bad input
def one_line(error, match, call):
    with pytest.raises(error, match=match) as info:
        call()
    assert "\n" not in str(info.value)


def test_nan_features_and_labels_out_of_range_are_refused(data):
    train, _, qrels = data
    holed = train.copy()
    holed["features"] = [
        np.array([np.nan, 1.0, 1.0, 1.0]) if i == 3 else f for i, f in enumerate(holed["features"])
    ]
    one_line(ValueError, "NaN features", lambda: ptr.RiskNeuralRanker(**SMALL).fit(holed, qrels))
    high = qrels.assign(label=qrels["label"] * 20)
    one_line(
        ValueError, r"labels must lie in \[0, 30\]", lambda: ptr.RiskNeuralRanker(**SMALL).fit(train, high)
    )


def test_a_diverging_fit_names_the_epoch(data):
    train, _, qrels = data
    m = ptr.RiskNeuralRanker(**{**SMALL, "lr": 1e30, "epochs": 3})
    one_line(ValueError, r"^epoch \d+: ", lambda: m.fit(train, qrels))


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_cuda_is_a_one_line_error():
    one_line(ValueError, "no CUDA device", lambda: ptr.RiskNeuralRanker(device="cuda"))


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"model": "cnn"}, ValueError, "model must be one of"),
        ({"hidden": ()}, TypeError, "hidden"),
        ({"model": "transformer", "hidden": (15,)}, ValueError, "even"),
        ({"dropout": 1.0}, ValueError, "dropout"),
        ({"lr": 0}, ValueError, "lr"),
        ({"epochs": 0}, ValueError, "epochs"),
        ({"device": "tpu"}, ValueError, "device"),
        ({"objective_params": {"nonsense": 1}}, TypeError, "unknown"),
        ({"objective_params": {"cutoff": 5}}, TypeError, "RiskNeuralRanker parameter"),
        ({"alpha": -1}, ValueError, "alpha"),
    ],
)
def test_bad_parameters_are_one_line_errors(kwargs, error, match):
    one_line(error, match, lambda: ptr.RiskNeuralRanker(**kwargs))


def test_an_objective_without_its_baseline_says_so(data):
    train, _, qrels = data
    one_line(ValueError, "needs a baseline", lambda: ptr.RiskNeuralRanker("urisk", **SMALL).fit(train, qrels))


def test_transform_checks_its_input(model, data):
    _, valid, _ = data
    narrow = valid.assign(features=[f[:3] for f in valid["features"]])
    one_line(ValueError, "trained on 4 features", lambda: model.transform(narrow))
    one_line(ValueError, "not trained", lambda: ptr.RiskNeuralRanker().transform(valid))
    empty = model.transform(valid.iloc[:0])
    assert len(empty) == 0 and "score" in empty.columns
    assert isinstance(empty, pd.DataFrame)


def test_the_transformer_scores_a_query_alone_as_in_a_padded_batch(transformer, data):
    """The padding mask: a short query's scores do not change when longer queries pad its slate."""
    _, valid, _ = data
    short = valid[~valid["docno"].str.endswith(("_7", "_8", "_9"))]
    short = short[short["qid"] == "q9"]
    together = pd.concat([valid[valid["qid"] != "q9"], short])
    alone = scores(transformer, short)
    in_batch = transformer.transform(together).set_index("docno")["score"].loc[short["docno"]].to_numpy()
    assert len(short) == 7 and alone == pytest.approx(in_batch, abs=1e-5)


def test_objective_params_and_the_baseline_fallback_reach_the_loss(data):
    train, _, qrels = data
    m = ptr.RiskNeuralRanker(
        "tfaro", alpha=3.0, baseline=1, objective_params={"faro_tr": "dincer2014"}, epochs=1
    )
    assert "objective_params={'faro_tr': 'dincer2014'}" in repr(m)
    assert m.fit(train, qrels).best_iteration_ == 1
    geo = ptr.RiskNeuralRanker("georisk", alpha=3.0, baseline="score", epochs=1).fit(
        train, qrels
    )  # [baseline]
    assert np.isfinite(geo.train_loss_).all()
    one_line(
        ValueError,
        "no effect",
        lambda: ptr.RiskNeuralRanker("urisk", objective_params={"faro_tr": "dincer2014"}),
    )


def test_a_transformer_baseline_is_saved_as_none_with_a_warning(data, tmp_path):
    train, valid, qrels = data
    first_stage = pt.apply.doc_score(lambda row: row["score"])
    m = ptr.RiskNeuralRanker("urisk", alpha=1.0, baseline=first_stage, epochs=1).fit(train, qrels)
    with pytest.warns(UserWarning, match=r"saved as None; pass it again to RiskNeuralRanker\.load"):
        m.save(tmp_path / "m")
    loaded = ptr.RiskNeuralRanker.load(tmp_path / "m")
    assert loaded.baseline is None and np.array_equal(scores(loaded, valid), scores(m, valid))
