"""``ptr.risk_study`` and ``pyterrier-risk learn``: the same results however the tasks run; resumes; errors.

Tiny synthetic LETOR data (three partitions of 8 queries, 6 features) and 5 boosting rounds: each study
takes seconds. Objectives with per-query weights (T-FARO, T*-FARO) keep the kernels' compilation short.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _learn_data import DYING_MODULE, partitions
from helpers import REPO

import pyterrier_risk as ptr
from pyterrier_risk.study import StudyError

SMALL = {"baseline": 1, "baselines": [1, 2, 3], "objectives": ["tfaro", "tfaro_star"], "alphas": [5],
         "rounds": 5, "early_stopping": None, "progress": False}  # fmt: skip


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=8)


@pytest.fixture(scope="module")
def one_worker(data, tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "out"
    return ptr.risk_study(data, workers=1, out=out, **SMALL), out


def _files(folder: Path) -> dict[str, str]:
    """Every output file's sha256, by relative path (the task store and its timings left out)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.parts[len(folder.parts)] != "tasks"}


def test_frames_and_files(one_worker):
    result, out = one_worker
    per_query = result.per_query
    assert list(per_query.columns) == ["fold", "objective", "alpha", "seed", "qid", "ndcg", "base:F1",
                                       "base:F2", "base:F3"]
    # 3 folds x 8 test queries x (reference + 2 objectives): every query tested once per model
    assert len(per_query) == 3 * 8 * 3
    assert per_query.groupby(["objective", "alpha"]).qid.nunique().eq(24).all()
    assert per_query[["ndcg", "base:F1"]].stack().between(0, 1).all()
    assert set(result.models["objective"]) == {"lambdarank", "tfaro", "tfaro_star"}
    assert (result.resources["peak_rss_mb"] > 0).all()
    assert result.curves.groupby(["fold", "objective"]).size().eq(5).all()  # 5 rounds, no early stopping
    assert result.kendall["distance"].dropna().between(0, 1).all()
    files = _files(out)
    assert {"per_query.csv", "qrels.txt", "settings.json", "tables.md", "risk_gain.png",
            "runs/lambdarank_a0_s1.run", "runs/tfaro_a5_s1.run", "runs/F1.run"} <= set(files)
    assert (out / "per_query.csv").read_text().startswith("# NDCG@10") and "2^label - 1" in (
        out / "per_query.csv").read_text().splitlines()[0]
    back = pd.read_csv(out / "per_query.csv", comment="#", dtype={"qid": str})
    pd.testing.assert_frame_equal(back, per_query, check_dtype=False)
    assert '"threads": 1' in (out / "settings.json").read_text()


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run the command in this process (no interpreter to start); what it printed."""
    from pyterrier_risk.cli import main

    capsys.readouterr()
    status = main(list(args))
    printed = capsys.readouterr()
    assert status == 0, printed.err
    return printed.out


def test_test_and_correction_choose_the_tables_tests(data, one_worker, tmp_path, capsys):
    """``--test``/``--correction`` reach the printed and the written tables (the tasks are reused)."""
    import shutil

    from pyterrier_risk.engine import learner_table

    result, out = one_worker
    shutil.copytree(out / "tasks", tmp_path / "out" / "tasks")
    printed = _main(capsys, "learn", str(data), "--baseline", "1", "--baselines", "1", "2", "3",
                    "--objective", "tfaro", "tfaro_star", "--alpha", "5", "--rounds", "5", "--early-stopping",
                    "none", "--no-progress", "--workers", "1", "--test", "randomization", "--correction",
                    "none", "--format", "csv", "--out", str(tmp_path / "out"))
    expected = learner_table(result.per_query, single="F1", multiple=["F1", "F2", "F3"], test="randomization",
                             correction=None)
    shown = pd.read_csv(tmp_path / "out" / "tables.csv", nrows=len(expected))
    assert shown["NDCG@10 p-value corrected"].tolist() == pytest.approx(
        expected["NDCG@10 p-value"].tolist(), nan_ok=True)
    assert printed == (tmp_path / "out" / "tables.csv").read_text()


def test_a_study_written_over_another_leaves_none_of_its_runs_or_tables(one_worker, tmp_path):
    """``eval runs/*.run`` on a reused --out folder must not pick up an earlier study's models.

    The earlier study's files are those its manifest lists (issue 27, item 8): they go; others stay.
    """
    import dataclasses

    result, out = one_worker
    folder = tmp_path / "reused"
    model = next(iter(result.runs.values()))
    earlier = dataclasses.replace(result, runs={("urisk", 20.0, 2): model},
                                  baseline_runs={"F9": result.baseline_runs["F1"]})
    earlier.write(folder, format="latex")  # runs/urisk_a20_s2.run, runs/F9.run, tables.tex
    earlier.write(folder, format="csv")  # tables.csv (tables.tex goes)
    assert {"runs/urisk_a20_s2.run", "runs/F9.run", "tables.csv"} <= set(_files(folder))
    (folder / "tasks").mkdir()
    (folder / "tasks" / "k.pkl").write_text("kept")
    result.write(folder)
    assert set(_files(folder)) == set(_files(out)) and (folder / "tasks" / "k.pkl").read_text() == "kept"


def test_runs_and_qrels_evaluate_with_eval(one_worker, capsys):
    """The study's runs and qrels are what ``eval`` reads: its NDCG@10 with 2^l - 1 gains equals ours."""
    result, out = one_worker
    printed = _main(capsys, "eval", str(out / "runs" / "tfaro_a5_s1.run"), "--qrels", str(out / "qrels.txt"),
                    "--measure", "nDCG(gains={0:0,1:1,2:3})@10", "--format", "csv")
    value = float(printed.splitlines()[1].split(",")[1])
    mine = result.per_query.query("objective == 'tfaro'")["ndcg"].mean()
    assert value == pytest.approx(mine, abs=1e-12)


def test_topics_and_baselines_read_the_output_folder(one_worker, capsys):
    """``topics`` and ``baselines`` analyse the study's runs and qrels as they are (docs/learn.md)."""
    import io

    result, out = one_worker
    runs, measure = out / "runs", "nDCG(gains={0:0,1:1,2:3})@10"
    pq = result.per_query.set_index("qid")
    s, b = (pq.query(f"objective == '{o}'")["ndcg"] for o in ("tfaro", "lambdarank"))
    delta = (s - b.loc[s.index]).to_numpy()

    def run(*args: str) -> pd.DataFrame:
        printed = _main(capsys, *args, "--qrels", str(out / "qrels.txt"), "--measure", measure,
                        "--alpha", "5", "--format", "csv")
        return pd.read_csv(io.StringIO(printed), dtype={"qid": str})

    topics = run("topics", str(runs / "tfaro_a5_s1.run"), "--baseline", str(runs / "lambdarank_a0_s1.run"),
                 "--all")
    assert (topics["difference"] < 0).sum() == (delta < 0).sum() > 0
    assert topics["loss_gt20"].sum() == (s < 0.8 * b.loc[s.index]).sum()
    matrix = run("baselines", *(str(runs / f"{n}.run") for n in ("lambdarank_a0_s1", "tfaro_a5_s1", "F1")))
    urisk = matrix.set_index("name").loc["tfaro_a5_s1", "lambdarank_a0_s1"]
    assert urisk == pytest.approx(np.maximum(delta, 0).mean() - 6 * np.maximum(-delta, 0).mean(), abs=1e-12)


# quick enough to stay in the README's loop: the only quick test of the pool and Dask backends (coverage)
def test_same_results_with_two_workers_and_on_a_dask_cluster(data, one_worker, tmp_path):
    distributed = pytest.importorskip("distributed")
    result, out = one_worker
    two = ptr.risk_study(data, workers=2, out=tmp_path / "two", **SMALL)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        dask = ptr.risk_study(data, client=client, out=tmp_path / "dask", **SMALL)
    for other in (two, dask):
        pd.testing.assert_frame_equal(other.per_query, result.per_query)
        pd.testing.assert_frame_equal(other.models, result.models)  # the model texts' sha256
        pd.testing.assert_frame_equal(other.curves, result.curves)
    assert _files(tmp_path / "two") == _files(out) == _files(tmp_path / "dask")


def _learn(*args: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pyterrier_risk", "learn", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=300,
                          env={**os.environ, **(env or {})}, **kwargs)


CLI_SMALL = ["--baseline", "1", "--baselines", "1", "2", "3", "--objective", "tfaro", "tfaro_star", "--alpha",
             "5", "--rounds", "5", "--early-stopping", "none", "--no-progress"]  # SMALL's settings


def test_rerun_skips_finished_tasks_whatever_the_data_path(data, one_worker, tmp_path):
    """The task cache is keyed by the data's digest, not its path: a copy of the data reuses it."""
    import shutil

    result, out = one_worker
    copy = shutil.copytree(data, tmp_path / "copy")
    out = shutil.copytree(out, tmp_path / "out")
    again = ptr.risk_study(copy, workers=1, out=out, **SMALL)
    pd.testing.assert_frame_equal(again.resources, result.resources)  # the stored timings: nothing refitted
    pd.testing.assert_frame_equal(again.per_query, result.per_query)


@pytest.mark.slow
def test_interrupted_study_resumes_to_the_same_files(data, one_worker, tmp_path):
    """Ctrl-C: exit 130, no partial file; the rerun finishes with the files of an uninterrupted run."""
    _, reference = one_worker
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "pyterrier_risk", "learn", str(data), *CLI_SMALL, "--workers", "1", "--out",
           str(out)]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while not list((out / "tasks").glob("*.npz")) and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "pyterrier-risk: interrupted", err
    stored = list((out / "tasks").glob("*.npz"))
    assert 1 <= len(stored) < 9 and not list(out.rglob("*.tmp*")) and not (out / "per_query.csv").exists()
    done = _learn(str(data), *CLI_SMALL, "--workers", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert _files(out) == _files(reference)


def _dying(tmp_path: Path, marker: str) -> tuple[list[str], dict[str, str]]:
    (tmp_path / "dying_objective.py").write_text(DYING_MODULE)
    env = {"PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]),
           "LEARN_DIES_MARKER": str(tmp_path / marker)}
    args = ["--import", "dying_objective", "--baseline", "1", "--objective", "dies", "tfaro", "--alpha", "5",
            "--rounds", "5", "--no-progress", "--workers", "2"]
    return args, env


@pytest.mark.slow
def test_a_worker_that_dies_once_is_retried(data, tmp_path):
    args, env = _dying(tmp_path, "once")
    done = _learn(str(data), *args, "--out", str(tmp_path / "out"), env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "once").exists()  # it did die once
    per_query = pd.read_csv(tmp_path / "out" / "per_query.csv", comment="#")
    assert set(per_query["objective"]) == {"lambdarank", "dies", "tfaro"} and len(per_query) == 3 * 8 * 3


@pytest.mark.slow
def test_a_task_that_kills_its_worker_twice_is_named_and_the_others_are_kept(data, tmp_path):
    args, env = _dying(tmp_path, "always")
    out = tmp_path / "out"
    done = _learn(str(data), *args, "--out", str(out), env=env)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "the worker died twice running task Fold1/dies/alpha=5/seed=1 (and 2 more)" in done.stderr
    assert len(list((out / "tasks").glob("*.npz"))) == 6  # the reference and tfaro on each fold
    assert not (out / "per_query.csv").exists()


def _bad_data(kind: str, tmp_path: Path, data: Path) -> Path:
    """A data folder with one problem."""
    import shutil

    if kind == "split":
        fold = tmp_path / "folds" / "Fold1"
        fold.mkdir(parents=True)
        shutil.copy(data / "S1.txt", fold / "train.txt")
        shutil.copy(data / "S2.txt", fold / "test.txt")
        return fold.parent
    bad = shutil.copytree(data, tmp_path / kind)
    lines = (bad / "S2.txt").read_text().splitlines(keepends=True)
    line = 0 if kind == "noqid" else 3  # the first line (checked up front), or the fourth (read by a worker)
    lines[line] = lines[line].replace(lines[line].split()[1] + " ", "")  # loses its qid: token
    (bad / "S2.txt").write_text("".join(lines))
    return bad


BAD = [
    ("split", ["--baseline", "1"], "vali"),
    ("noqid", ["--baseline", "1"], "qid:"),
    (None, ["--baseline", "99"], "--baseline: feature 99 is out of range: the data has 6 features"),
    (None, ["--objective", "nope"], "unknown objective 'nope'"),
    (None, ["--baseline", "1", "--objective", "georisk"], "objective 'georisk' needs several baselines"),
    (None, ["--baselines", "1", "2", "--objective", "urisk"], "objective 'urisk' needs a single baseline"),
    (None, ["--baseline", "1", "--alpha", "-1"], "alpha must be a finite number >= 0"),
    (None, ["--baseline", "1", "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
    (None, ["--baseline", "1", "--param", "seed=3"], "--param seed: the study sets it (--seeds)"),
    (None, ["--baseline", "1", "--param", "learning_rate"], "expected name=value"),
    (None, ["--baseline", "1", "--param", "num_iterations=5"], "num_iterations"),
    (None, ["--baseline", "1", "--option", "nope=1"], "--option nope: no objective of the study has it"),
    (None, ["--baseline", "1", "--workers", "999"], "--workers 999 × --threads 1 per fit exceed the"),
    (None, ["--baseline", "/no/such.run"], "neither a feature number nor a run file"),
    (None, ["--baseline", "1", "--correction", "nope"], "nope"),
]


@pytest.mark.parametrize(("data_kind", "args", "message"), BAD)
def test_bad_input_is_one_line_and_writes_nothing(data, tmp_path, capsys, data_kind, args, message):
    from pyterrier_risk.cli import main

    path = data if data_kind is None else _bad_data(data_kind, tmp_path, data)
    out = tmp_path / "out"
    status = main(["learn", str(path), *args, "--rounds", "2", "--no-progress", "--out", str(out)])
    captured = capsys.readouterr()
    assert status == 2 and captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("pyterrier-risk: error: ") and message in captured.err, captured.err
    assert not out.exists() and captured.out == ""


def test_a_malformed_line_found_by_a_worker_stops_the_study_with_its_file_and_line(data, tmp_path, capsys):
    """A line the up-front checks cannot see: one line naming it; finished tasks kept, no result file."""
    from pyterrier_risk.cli import main

    out = tmp_path / "out"
    path = _bad_data("mixed", tmp_path, data)
    status = main(["learn", str(path), "--baseline", "1", "--objective", "tfaro", "--alpha", "5",
                   "--rounds", "2", "--no-progress", "--workers", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and "S2.txt:4" in err and "qid:" in err, err
    assert not (out / "per_query.csv").exists() and not list(out.rglob("*.tmp*"))


def test_python_errors_are_study_errors(data):
    with pytest.raises(StudyError, match="alpha must be"):
        ptr.risk_study(data, baseline=1, alphas=[-1])
    with pytest.raises(StudyError, match="client or scheduler"):
        ptr.risk_study(data, baseline=1, client=object(), scheduler="tcp://x:1")


def test_params_are_read_as_lightgbm_reads_them():
    from pyterrier_risk.engine import parse_param

    assert parse_param("xgboost_dart_mode=true") == ("xgboost_dart_mode", True)
    assert parse_param("linear_tree=FALSE") == ("linear_tree", False)
    assert parse_param("num_leaves=15") == ("num_leaves", 15)
    assert parse_param("learning_rate=0.05") == ("learning_rate", 0.05)
    assert parse_param("lambda_l1=1e-3") == ("lambda_l1", 1e-3)
    assert parse_param("label_gain=0,1,3,7") == ("label_gain", [0, 1, 3, 7])
    assert parse_param("boosting= dart ") == ("boosting", "dart")


def test_the_command_and_the_function_share_their_defaults():
    """Every ``learn`` setting left out is left to ``LearnSettings``' default; the rest are risk_study's."""
    import dataclasses
    import inspect

    from pyterrier_risk.cli._main import _parser
    from pyterrier_risk.engine import LearnSettings

    args = vars(_parser()[0].parse_args(["learn", "DATA"]))
    filled_in = {"data", "user_objectives", "layout", "n_folds", "notes"}  # (--layout: the tables's)
    fields = {f.name for f in dataclasses.fields(LearnSettings)} - filled_in
    assert {name: args[name] for name in fields & set(args) if args[name] is not None} == {}
    assert {"alphas", "seeds", "rounds", "early_stopping", "split_seed", "eval_alpha", "threads", "measure",
            "learner", "objectives", "baselines", "params", "options", "imports"} <= set(args)
    signature = inspect.signature(ptr.risk_study).parameters
    for name in ("out", "store", "workers", "scheduler", "worker_timeout"):
        assert args[name] == signature[name].default, name
    assert args["no_progress"] is not signature["progress"].default


def test_split_seed_errors_name_the_split_seed(data):
    with pytest.raises(StudyError, match="^split_seed must be"):
        ptr.risk_study(data, baseline=1, split_seed=-1)
