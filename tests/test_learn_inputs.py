"""A study's inputs are checked before the first fit, and its errors speak the caller's words.

Issue 27 items 3, 5, 6, 7, 10 (data), 11 and 14; issue 29 item 10; issue 30 item 5. Every refusal here
is one line (``pyterrier-risk: error: ...``, exit 2; ``StudyError`` in Python) that comes before any
model is trained: the output folder is never created. Tiny synthetic LETOR data (``_learn_data``); one
1-fold study with a run baseline (module fixture) is the only training.
"""

from __future__ import annotations

import bz2
import errno
import gzip
import json
import lzma
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _learn_data import letor_lines, partitions
from helpers import REPO

import pyterrier_risk as ptr
from pyterrier_risk.study import StudyError


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=8)


def _cli(capsys, *args: str) -> str:
    """Run ``learn`` in-process; the one-line error it must end with (exit status 2)."""
    from pyterrier_risk.cli import main

    status = main(["learn", "--rounds", "2", "--no-progress", "--workers", "1", *map(str, args)])  # args win
    captured = capsys.readouterr()
    assert status == 2 and captured.err.count("\n") == 1, captured.err
    assert captured.err.startswith("pyterrier-risk: error: ") and captured.out == "", captured.err
    return captured.err


def _refused(capsys, tmp_path: Path, *args: str, message: str) -> None:
    out = tmp_path / "out"
    err = _cli(capsys, *args, "--out", out)
    assert message in err, err
    assert not out.exists(), "a refused study wrote its output folder"


# ---------------------------------------------------------------- 27.3: a query in two splits of a fold


def _fold_folder(root: Path, leak: str) -> Path:
    """Fold1..Fold3 of distinct queries, except that Fold2 leaks: its train (or vali) holds test queries."""
    rng = np.random.default_rng(1)
    for k in range(1, 4):
        files = {role: letor_lines(rng, range(100 * k + 10 * i, 100 * k + 10 * i + 8))
                 for i, role in enumerate(("train", "vali", "test"))}  # fmt: skip
        if k == 2 and leak == "train":
            files["train"] = files["train"] + files["test"]
        elif k == 2 and leak == "vali":
            files["vali"] = files["test"]
        (root / f"Fold{k}").mkdir(parents=True)
        for role, lines in files.items():
            (root / f"Fold{k}" / f"{role}.txt").write_text("".join(lines))
    return root


@pytest.mark.parametrize(("leak", "message"), [
    ("train", "Fold2: qid '220' is in both the train split"),
    ("vali", "Fold2: qid '220' is in both the vali split"),
])  # fmt: skip
def test_a_query_in_two_splits_of_a_fold_is_refused(capsys, tmp_path, leak, message):
    root = _fold_folder(tmp_path / "folds", leak)
    _refused(capsys, tmp_path, root, "--baseline", "1", "--objective", "tfaro", message=message)
    with pytest.raises(StudyError, match="and the test split"):
        ptr.risk_study(root, baseline=1, objectives=["tfaro"], rounds=2, progress=False)


# ---------------------------------------------------------------- 27.5: --param


def test_lightgbm_parameter_table_is_lightgbms():
    """Guard of the one use of LightGBM's private names (learning/_lightgbm_params.py)."""
    import lightgbm.basic

    from pyterrier_risk.learning import lightgbm_parameter_name, lightgbm_parameters

    table = lightgbm_parameters()
    assert table is not None, "LightGBM moved its parameter table: update lightgbm_parameters()"
    assert {"metrics", "metric_types"} <= set(table["metric"])
    assert set(table["metric"]) == lightgbm.basic._ConfigAliases.get("metric")
    assert "num_leaves" in table and "learning_rate" in table and len(table) > 100
    assert lightgbm_parameter_name("metric_types") == "metric"
    assert lightgbm_parameter_name("n_jobs") == "num_threads"
    assert lightgbm_parameter_name("num_leave") is None


@pytest.mark.parametrize(("param", "message"), [
    ("metric=auc", "--param metric: the study sets it (always NDCG@10"),
    ("metrics=auc", "--param metrics, LightGBM's metric: the study sets it"),
    ("metric_types=map", "--param metric_types, LightGBM's metric: the study sets it"),
    ("num_leave=2", "--param num_leave: LightGBM"),
    ("learning_rat=0.9", "has no parameter 'learning_rat' (did you mean learning_rate?)"),
    ("bogus_param=3", "has no parameter 'bogus_param'"),
    ("n_iter=4", "--param n_iter, LightGBM's num_iterations: the study sets it (--rounds)"),
    ("random_state=4", "the study sets it (--seeds)"),
])  # fmt: skip
def test_param_that_would_change_the_metric_or_do_nothing_is_refused(capsys, tmp_path, data, param, message):
    _refused(capsys, tmp_path, data, "--baseline", "1", "--param", param, message=message)


def test_params_in_python_name_python_arguments(data):
    with pytest.raises(StudyError, match=r"^params metric: the study sets it"):
        ptr.risk_study(data, baseline=1, params={"metric": "auc"}, progress=False)
    with pytest.raises(StudyError, match=r"^params num_iterations: the study sets it \(rounds\)"):
        ptr.risk_study(data, baseline=1, params=["num_iterations=3"], progress=False)


# ---------------------------------------------------------------- 27.6: two baselines with one name


def _run_file(path: Path, data: Path, *, scale: float = 1.0, offset: float = 0.0,
              keep: int | None = None) -> Path:
    """A TREC run of every query of the partitions (or the first ``keep`` queries): feature 1 as score."""
    from pyterrier_risk.data import read_letor

    rows = []
    for part in sorted(data.glob("S*.txt")):
        d = read_letor(part)
        rows += [(q, n, offset + scale * x) for q, n, x in zip(d.qid, d.docno, d.X[:, 0], strict=True)]
    frame = pd.DataFrame(rows, columns=["qid", "docno", "score"])
    if keep is not None:
        frame = frame[frame["qid"].isin(list(dict.fromkeys(frame["qid"]))[:keep])]
    path.parent.mkdir(parents=True, exist_ok=True)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt") as fh:
        for q, group in frame.groupby("qid", sort=False):
            for rank, (n, s) in enumerate(zip(group["docno"], group["score"], strict=True)):
                fh.write(f"{q} Q0 {n} {rank + 1} {s!r} sys\n")
    return path


def test_two_baselines_with_one_name_are_refused_before_training(capsys, tmp_path, data):
    a = _run_file(tmp_path / "a" / "sys.run.gz", data)
    b = _run_file(tmp_path / "b" / "sys.run.gz", data, scale=-1)
    _refused(capsys, tmp_path, data, "--baselines", a, b, "--objective", "tfaro_star",
             message="two baselines are named 'sys'")
    f25 = _run_file(tmp_path / "F1.run.gz", data)
    _refused(capsys, tmp_path, data, "--baseline", "1", "--baselines", f25, "--objective", "tfaro",
             message="two baselines are named 'F1' (feature 1 and run file")


# ---------------------------------------------------------------- 27.7: run baselines keep their order


def test_run_baseline_column_keeps_the_runs_order_whatever_the_scores_size(tmp_path):
    """Scores near 1e18 (an order-preserving transform of small ones) give the same column."""
    from pyterrier_risk.data import read_letor, run_baseline_scores

    rng = np.random.default_rng(3)
    text = "".join(letor_lines(rng, range(1, 6), docs=6, features=3))
    data = read_letor(_write(tmp_path / "t.txt", text))
    keep = rng.random(len(data)) < 0.6  # the run leaves about 40% of the documents out
    small = rng.integers(0, 50, len(data)).astype(float)  # ties included
    run = pd.DataFrame({"qid": data.qid[keep], "docno": data.docno[keep], "score": small[keep]})
    plain = run_baseline_scores(data, run, name="small")
    huge = run_baseline_scores(data, run.assign(score=1e18 + 1024.0 * run["score"]), name="huge")
    np.testing.assert_array_equal(plain, huge)
    for q in np.unique(data.qid):
        rows = data.qid == q
        ranked, unranked = plain[rows & keep], plain[rows & ~keep]
        if len(ranked) and len(unranked):
            assert unranked.max() < ranked.min()  # unranked documents below every ranked one


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ---------------------------------------------------------------- 27.10: FIFOs and devices as data


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
@pytest.mark.parametrize("where", ["file", "partition", "split", "dev_zero"])
def test_a_fifo_or_device_as_data_is_refused_without_hanging(tmp_path, data, where):
    """In a subprocess with a timeout: before the fix, reading the FIFO blocked forever."""
    import shutil

    args = ["--baseline", "1"]
    if where == "file":
        target = tmp_path / "data.txt"
        os.mkfifo(target)
        args += ["--folds", "3"]
    elif where == "partition":
        target = Path(shutil.copytree(data, tmp_path / "parts"))
        (target / "S2.txt").unlink()
        os.mkfifo(target / "S2.txt")
    elif where == "split":
        target = _fold_folder(tmp_path / "folds", leak="none")
        (target / "Fold2" / "test.txt").unlink()
        os.mkfifo(target / "Fold2" / "test.txt")
    else:
        target = Path("/dev/zero")
        args += ["--folds", "3"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "pyterrier_risk", "learn", str(target), *args, "--rounds", "1",
               "--no-progress", "--workers", "1"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    kind = "a character device" if where == "dev_zero" else "a FIFO (named pipe)"
    assert f"is {kind}, not a regular file" in done.stderr, done.stderr


# ---------------------------------------------------------------- 27.11: one line where a traceback was


@pytest.mark.parametrize("kind", ["gz", "bz2", "xz", "crc"])
def test_truncated_or_corrupt_compressed_data_is_one_line_naming_the_file(capsys, tmp_path, data, kind):
    opener = {"gz": gzip.compress, "crc": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[kind]
    folder = tmp_path / "parts"
    folder.mkdir()
    suffix = ".gz" if kind == "crc" else f".{kind}"
    for k in (1, 2, 3):
        raw = bytearray(opener((data / f"S{k}.txt").read_bytes()))
        if k == 2 and kind == "crc":
            raw[-6] ^= 0xFF  # the CRC of the member's data
        elif k == 2:
            raw = raw[: len(raw) // 2]
        (folder / f"S{k}.txt{suffix}").write_bytes(bytes(raw))
    _refused(capsys, tmp_path, folder, "--baseline", "1",
             message=f"{folder / f'S2.txt{suffix}'}: cannot read the file (truncated or corrupt?)")


def test_a_constant_baseline_feature_is_refused_before_training(capsys, tmp_path, data):
    import shutil

    folder = Path(shutil.copytree(data, tmp_path / "parts"))
    for part in folder.glob("S*.txt"):
        lines = part.read_text().splitlines(keepends=True)
        part.write_text("".join(line.replace(" 6:", " 7:0.5 6:", 1) for line in lines))  # feature 7: 0.5
    _refused(capsys, tmp_path, folder, "--baseline", "7", "--objective", "tfaro",
             message="--baseline 7: feature 7 has one value within every test query")


def test_a_bad_out_folder_is_one_line_before_training(capsys, tmp_path, data):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    err = _cli(capsys, data, "--baseline", "1", "--out", loop)
    assert "--out" in err and "symbolic links" in err, err
    regular = tmp_path / "file"
    regular.write_text("x")
    err = _cli(capsys, data, "--baseline", "1", "--out", regular / "sub")
    assert "--out" in err and "Not a directory" in err, err


def test_a_full_disk_is_found_before_training(tmp_path, data, monkeypatch):
    """``os.fsync`` fails as on a full disk: the probe write of ``out`` names the folder and the cause."""

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "out"
    with pytest.raises(StudyError, match=f"^out {out}: cannot write in {tmp_path}: No space left on device"):
        ptr.risk_study(data, baseline=1, objectives=["tfaro"], rounds=1, out=out, progress=False, workers=1)
    assert not out.exists()


@pytest.mark.parametrize(("source", "message"), [
    ("raise RuntimeError('boom')\n", "--import bad_mod_{n}: RuntimeError: boom"),
    ("def f(:\n", "--import bad_mod_{n}: SyntaxError:"),
    (None, "--import '': empty module name"),
])  # fmt: skip
def test_an_import_that_fails_is_one_line(capsys, tmp_path, data, monkeypatch, source, message):
    n = abs(hash(str(tmp_path))) % 10**8
    name = f"bad_mod_{n}" if source is not None else ""
    if source is not None:
        (tmp_path / f"{name}.py").write_text(source)
        monkeypatch.syspath_prepend(str(tmp_path))
    _refused(capsys, tmp_path, data, "--baseline", "1", "--import", name, message=message.format(n=n))


@pytest.mark.parametrize("seed", [2**31, 2**32, 99999999999999999999, -1])
def test_seeds_out_of_lightgbms_range_are_refused(capsys, tmp_path, data, seed):
    """LightGBM's seed is a C int: 2^31 trains seed 0's model, 2^32 - 1 seed 2^31 - 1's (checked)."""
    _refused(capsys, tmp_path, data, "--baseline", "1", "--seeds", str(seed), message="--seeds")
    with pytest.raises(StudyError, match="bogus"):  # the largest seed passes; the next check refuses
        ptr.risk_study(data, baseline=1, seeds=[0, 2**31 - 1], params=["bogus=1"], progress=False)


def test_cr_only_line_ends_with_comments_count_every_lines_features(tmp_path):
    from pyterrier_risk.data import letor_folds, letor_n_features, read_letor

    lines = ["2 qid:1 1:0.5 2:1 #docid = a", "0 qid:1 1:0.1 30:2 #docid = b", "1 qid:2 3:1 #docid = c",
             "0 qid:2 1:1 #docid = d"]  # fmt: skip
    path = tmp_path / "cr.txt"
    path.write_bytes("\r".join(lines).encode() + b"\r")
    assert read_letor(path).n_features == 30
    for k in (1, 2, 3):
        (tmp_path / "parts").mkdir(exist_ok=True)
        (tmp_path / "parts" / f"S{k}.txt").write_bytes(
            "\r".join(line.replace("qid:", f"qid:{k}") for line in lines).encode() + b"\r")
    assert letor_n_features(letor_folds(tmp_path / "parts")) == 30


# ---------------------------------------------------------------- 27.14: the layout and the fold count


def test_a_one_fold_folder_is_refused_unless_asked_for(capsys, tmp_path):
    root = _fold_folder(tmp_path / "folds", leak="none")
    for k in (2, 3):
        import shutil

        shutil.rmtree(root / f"Fold{k}")
    _refused(capsys, tmp_path, root, "--baseline", "1",
             message="holds one fold (fold folder Fold1): its test queries are one split")
    err = _cli(capsys, root, "--baseline", "1")
    assert "give --folds 1 to run a 1-fold study" in err, err
    with pytest.raises(StudyError, match="give folds=1 to run a 1-fold study"):
        ptr.risk_study(root, baseline=1, rounds=1, progress=False)


def test_a_folders_fold_count_is_checked_when_given(capsys, tmp_path, data):
    _refused(capsys, tmp_path, data, "--baseline", "1", "--folds", "5",
             message="holds 3 folds (partitions S1..S3), not --folds 5")


def test_each_fold_names_its_layout(tmp_path, data):
    import shutil

    from pyterrier_risk.data import letor_folds

    both = Path(shutil.copytree(data, tmp_path / "both"))
    _fold_folder(both, leak="none")  # partitions win over Fold folders, and say so
    assert {f.layout for f in letor_folds(both)} == {"partitions S1..S3"}
    shutil.rmtree(both / "Fold3")
    assert [f.layout for f in letor_folds(_fold_folder(tmp_path / "folds", leak="none"))] == [
        "fold folders Fold1..Fold3"] * 3
    layout = letor_folds(data / "S1.txt", folds=3)[0].layout
    assert layout == "one file split by query into 3 parts (split seed 0)"


# ---------------------------------------------------------------- 29.10 / 30.5: each interface's words


def test_errors_speak_the_words_of_the_interface_in_use(capsys, tmp_path, data):
    one_file = data / "S1.txt"
    assert "give --folds K (K >= 3)" in _cli(capsys, one_file, "--baseline", "1")
    with pytest.raises(StudyError, match=r"give folds=K \(K >= 3\)"):
        ptr.risk_study(one_file, baseline=1, progress=False)
    from pyterrier_risk.cli import main

    assert main(["learn", str(data), "--baseline", "1", "--rounds", "0", "--no-progress"]) == 2
    assert "error: --rounds must be an integer >= 1, got 0" in capsys.readouterr().err
    with pytest.raises(StudyError, match="^rounds must be an integer >= 1, got 0"):
        ptr.risk_study(data, baseline=1, rounds=0, progress=False)
    assert "give --baseline F" in _cli(capsys, data, "--baselines", "1", "2", "--objective", "urisk")
    with pytest.raises(StudyError, match="give baseline=F"):
        ptr.risk_study(data, baselines=[1, 2], objectives=["urisk"], progress=False)
    assert "--early-stopping must be" in _cli(capsys, data, "--baseline", "1", "--early-stopping", "-1")
    with pytest.raises(StudyError, match="^early_stopping must be"):
        ptr.risk_study(data, baseline=1, early_stopping=-1, progress=False)
    # the estimator's own check, in the study's words (it said num_boost_round=)
    assert "lambdarank: --rounds must be at most 2147483647" in _cli(capsys, data, "--baseline", "1",
                                                                     "--rounds", "99999999999")
    with pytest.raises(StudyError, match="lambdarank: rounds must be at most 2147483647"):
        ptr.risk_study(data, baseline=1, rounds=99999999999, progress=False)


def test_every_flag_a_message_may_name_is_an_option_of_learn(capsys):
    from pyterrier_risk.cli import main
    from pyterrier_risk.cli._learn import FLAGS

    with pytest.raises(SystemExit):
        main(["learn", "--help"])
    help_text = capsys.readouterr().out
    for key, flag in FLAGS.items():
        assert flag in help_text, (key, flag)


def test_every_argument_of_risk_study_has_its_flag():
    """A SettingError may name any risk_study argument: the command renders each in its own words."""
    import dataclasses
    import inspect

    from pyterrier_risk.cli._learn import FLAGS
    from pyterrier_risk.engine import LearnSettings

    python_only = {"client", "settings", "overrides"}  # a distributed.Client object, the settings object
    filled_in = {"user_objectives", "layout", "n_folds", "notes"}  # set by the study, not given
    settings = {f.name for f in dataclasses.fields(LearnSettings)} - filled_in
    arguments = (set(inspect.signature(ptr.risk_study).parameters) - python_only) | settings
    assert arguments - set(FLAGS) == set()


# ---------------------------------------------------------------- one study: runs with spaces, notes


@pytest.fixture(scope="module")
def one_fold_study(tmp_path_factory, data):
    """A 1-fold study (asked for) against a run baseline whose file name has a space, scores near 1e18
    and 2 test queries missing."""
    import shutil

    root = tmp_path_factory.mktemp("one")
    fold = root / "data"
    fold.mkdir()
    for role, part in (("train", "S1"), ("vali", "S2"), ("test", "S3")):
        shutil.copy(data / f"{part}.txt", fold / f"{role}.txt")
    run = _run_file(root / "my run.run", data, scale=4096.0, offset=1e18, keep=22)  # S3 has 8 queries: 2 lack
    out = root / "out"
    # in this process (no interpreter to start), its output caught as a subprocess's would be
    from contextlib import redirect_stderr, redirect_stdout
    from io import StringIO
    from types import SimpleNamespace

    from pyterrier_risk.cli import main

    printed, err = StringIO(), StringIO()
    with redirect_stdout(printed), redirect_stderr(err):
        status = main(["learn", str(fold), "--folds", "1", "--baseline", str(run), "--objective", "tfaro",
                       "--alpha", "5", "--rounds", "2", "--workers", "1", "--out", str(out)])
    done = SimpleNamespace(returncode=status, stdout=printed.getvalue(), stderr=err.getvalue())
    return done, out


def test_a_one_fold_study_when_asked_prints_and_records_its_layout(one_fold_study):
    done, out = one_fold_study
    assert done.returncode == 0, done.stderr
    assert "learn: 1 fold (train/vali/test files of one fold) in" in done.stderr
    settings = json.loads((out / "settings.json").read_text())
    assert settings["layout"] == "train/vali/test files of one fold" and settings["n_folds"] == 1


def test_a_run_baseline_with_a_space_and_missing_queries(one_fold_study):
    done, out = one_fold_study
    assert done.returncode == 0, done.stderr
    note = "baseline my_run: the run ranks no document of 2 of the 8 test queries"
    assert note in done.stderr
    assert any(note in n for n in json.loads((out / "settings.json").read_text())["notes"])
    assert (out / "runs" / "my_run.run").is_file()
    per_query = pd.read_csv(out / "per_query.csv", dtype={"qid": str}, comment="#")
    assert len(per_query) == 2 * 8 and per_query["base:my_run"].between(0, 1).all()


# ------------------------------------------------ two studies in one process: each with its own baselines
def test_a_second_study_in_the_process_reads_its_own_baselines(tmp_path):
    """A fold's frames are kept between tasks (the last fold's); a study of the same fold with other
    baselines (here one name for another feature) gets its own columns, not the previous study's."""
    import shutil

    data = _fold_folder(tmp_path / "folds", leak="none")
    for k in (2, 3):
        shutil.rmtree(data / f"Fold{k}")
    small = {"objectives": ["urisk"], "alphas": [5], "seeds": [1], "rounds": 2, "progress": False,
             "workers": 1, "folds": 1}
    first = ptr.risk_study(data, baseline=(1, "B"), **small).per_query["base:B"].to_numpy()
    second = ptr.risk_study(data, baseline=(2, "B"), **small).per_query["base:B"].to_numpy()
    other_name = ptr.risk_study(data, baseline=(2, "Z"), **small).per_query["base:Z"].to_numpy()
    np.testing.assert_array_equal(second, other_name)  # feature 2's NDCG, whatever its name
    assert not np.array_equal(first, second)
