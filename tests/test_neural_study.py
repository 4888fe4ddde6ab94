"""``risk_study(learner="neural")`` / ``pyterrier-risk learn --learner neural``: the study's folds, tasks,
store and tables with :class:`~pyterrier_risk.RiskNeuralRanker` as the learner.

Tiny synthetic LETOR data (three partitions of 8 queries, 6 features) and 3 epochs: seconds per study.
The tests that train need PyTorch (the ``neural`` extra); the refusals without it run everywhere.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _learn_data import partitions
from helpers import REPO

import pyterrier_risk as ptr
from pyterrier_risk.study import StudyError

SMALL = {"baseline": 1, "baselines": [1, 2, 3], "objectives": ["tfaro"], "alphas": [5],
         "seeds": [1], "rounds": 3, "early_stopping": 2, "progress": False, "learner": "neural"}  # fmt: skip
#: a blocker that makes ``import torch`` fail as it does where PyTorch is not installed
NO_TORCH = """
import sys

class _NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, _NoTorch())
from pyterrier_risk.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _torch() -> None:
    pytest.importorskip("torch", reason="needs PyTorch: pip install 'pyterrier-risk[neural]'")


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=8)


@pytest.fixture(scope="module")
def one_worker(data, tmp_path_factory):
    _torch()
    out = tmp_path_factory.mktemp("neural") / "out"
    return ptr.risk_study(data, workers=1, out=out, **SMALL), out


def _files(folder: Path) -> dict[str, str]:
    """Every output file's sha256, by relative path (the task store left out)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.parts[len(folder.parts)] != "tasks"}


def test_a_neural_study_has_the_studys_frames_and_tables(one_worker):
    result, out = one_worker
    models = result.models
    assert len(models) == 3 * (1 + 1)  # 3 folds × (the reference + one objective at one α)
    assert set(models["objective"]) == {"lambdarank", "tfaro"}
    assert models["best_iteration"].between(1, 3).all()
    assert models["sha256"].str.fullmatch("[0-9a-f]{64}").all() and models["sha256"].nunique() == len(models)
    table = result.table()
    assert list(table["objective"]) == ["lambdarank", "tfaro"]
    assert np.isfinite(table["NDCG@10"].to_numpy(dtype=float)).all()
    settings = json.loads((out / "settings.json").read_text())
    assert settings["learner"] == "neural" and settings["device"] == "cpu"
    assert (out / "per_query.csv").is_file()
    # the reference of a neural study is the neural LambdaLoss model, and the tables and summary say so
    text = result.tables().render("markdown")
    assert "| LambdaLoss " in text and "LambdaMART" not in text
    assert "LambdaLoss" in repr(result) and "LambdaMART" not in repr(result)


def test_the_reference_is_the_neural_lambdarank_model_of_the_same_seed(data, one_worker):
    """Each model is compared with RiskNeuralRanker('lambdarank') at α 0 (not LightGBM): refit it here."""
    from pyterrier_risk.data import letor_folds

    result, _ = one_worker
    fold = letor_folds(data)[0]
    train, vali, test = (split.to_frame() for split in fold.load())
    model = ptr.RiskNeuralRanker("lambdarank", epochs=3, early_stopping=2, seed=1, device="cpu", threads=1)
    model.fit(train.drop(columns="label"), train[["qid", "docno", "label"]], vali.drop(columns="label"),
              vali[["qid", "docno", "label"]])
    run = model.transform(test.drop(columns="label"))
    ref = result.runs[("lambdarank", 0.0, 1)]
    ref = ref[ref["qid"].isin(set(test["qid"]))]
    merged = ref.merge(run[["qid", "docno", "score"]], on=["qid", "docno"], suffixes=("_study", "_here"))
    assert len(merged) == len(test)
    np.testing.assert_array_equal(merged["score_study"].to_numpy(), merged["score_here"].to_numpy())
    row = result.models.query("objective == 'lambdarank' and fold == @fold.name")
    assert row["sha256"].item() == model.weights_sha256()


@pytest.mark.slow
def test_the_same_per_query_results_on_two_workers(data, one_worker, tmp_path):
    result, out = one_worker
    two = ptr.risk_study(data, workers=2, out=tmp_path / "two", **SMALL)
    pd.testing.assert_frame_equal(two.per_query, result.per_query)
    pd.testing.assert_frame_equal(two.models, result.models)  # the weights' sha256
    pd.testing.assert_frame_equal(two.curves, result.curves)
    assert _files(tmp_path / "two") == _files(out)


@pytest.mark.slow
def test_the_same_results_on_a_dask_cluster(data, one_worker, tmp_path):
    distributed = pytest.importorskip("distributed")
    result, out = one_worker
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        dask = ptr.risk_study(data, client=client, out=tmp_path / "dask", **SMALL)
    pd.testing.assert_frame_equal(dask.per_query, result.per_query)
    pd.testing.assert_frame_equal(dask.models, result.models)
    assert _files(tmp_path / "dask") == _files(out)


def test_the_learner_is_part_of_the_task_key(data, one_worker, tmp_path):
    """A LightGBM study into a neural study's folder trains its own models (none reused)."""
    import shutil

    _, out = one_worker
    folder = tmp_path / "both"
    shutil.copytree(out, folder)
    before = len(list((folder / "tasks").iterdir()))
    lightgbm = ptr.risk_study(data, workers=1, out=folder, **{**SMALL, "learner": "lambdamart"})
    assert len(list((folder / "tasks").iterdir())) == 2 * before
    assert json.loads((folder / "settings.json").read_text())["learner"] == "lambdamart"
    assert lightgbm.models["best_iteration"].max() > 0


def test_the_estimators_parameters_are_the_params(data):
    _torch()
    with pytest.raises(StudyError, match=r"^params num_leaves: not a parameter of RiskNeuralRanker"):
        ptr.risk_study(data, baseline=1, objectives=["tfaro"], learner="neural", params=["num_leaves=3"])
    with pytest.raises(StudyError, match=r"^params epochs: the study sets it \(rounds\)"):
        ptr.risk_study(data, baseline=1, objectives=["tfaro"], learner="neural", params=["epochs=3"])
    with pytest.raises(StudyError, match=r"lr"):  # the estimator's own check, before any data is read
        ptr.risk_study(data, baseline=1, objectives=["tfaro"], learner="neural", params=["lr=-1"])


def _learn(*args: str, script: str | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, *(["-c", script] if script else ["-m", "pyterrier_risk"]), "learn", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=300, env=dict(os.environ))


def test_without_torch_the_neural_learner_is_one_line_naming_the_extra(data, tmp_path):
    out = tmp_path / "out"
    done = _learn(str(data), "--baseline", "1", "--learner", "neural", "--out", str(out), script=NO_TORCH)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert 'pip install "pyterrier-risk[neural]"' in done.stderr and "--learner neural" in done.stderr
    assert not out.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--device", "cpu"], "--device applies to --learner neural"),
    (["--learner", "neural", "--device", "tpu"], "--device 'tpu': expected cpu, cuda, cuda:N or auto"),
])  # fmt: skip
def test_a_bad_device_is_one_line(data, tmp_path, capsys, args, message):
    from pyterrier_risk.cli import main

    if "neural" in args:
        _torch()
    out = tmp_path / "out"
    status = main(["learn", str(data), "--baseline", "1", *args, "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and message in err and not out.exists(), err


def test_cuda_without_cuda_is_one_line(data):
    torch = pytest.importorskip("torch", reason="needs PyTorch")
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    with pytest.raises(StudyError, match=r"^device cuda: CUDA is not available here"):
        ptr.risk_study(data, baseline=1, learner="neural", device="cuda")

