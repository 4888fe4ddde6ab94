"""The learning study's task store and task key (issue 27 items 1 and 4).

Nothing in ``OUT/tasks/`` runs as code (a malicious pickle is never opened; any malformed file is a
missing task, recomputed), and the task key covers the code the task runs: an objective edited between
two runs into one ``--out`` is trained again, and a long-lived Dask worker runs the edited code.
The store's module has no public name: the tests import ``pyterrier_risk.engine._store``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from _learn_data import partitions
from helpers import REPO

import pyterrier_risk as ptr
from pyterrier_risk.engine._store import TaskStore, decode, encode
from pyterrier_risk.engine._task import ReferenceResult, TaskResult

SMALL = ["--baseline", "1", "--objective", "tfaro", "--alpha", "5", "--rounds", "5", "--no-progress",
         "--workers", "1"]  # fmt: skip
KEY = "ab" * 32


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=6)


def _learn(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "pyterrier_risk", "learn", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=300,
                          env={**os.environ, **(env or {})})


def _files(folder: Path) -> dict[str, str]:
    """Every output file's sha256 by relative path (the task store left out)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.parts[len(folder.parts)] != "tasks"}


@pytest.fixture(scope="module")
def study(data, tmp_path_factory) -> Path:
    """A finished study's folder (3 folds × reference and T-FARO: 6 tasks)."""
    out = tmp_path_factory.mktemp("study") / "out"
    done = _learn(str(data), *SMALL, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out


def _result(reference: bool = True, kendall: bool = True) -> TaskResult:
    qids = ("q1", "q\u00e9 2", "", "q\x00")  # non-ASCII, empty and NUL-ended strings round-trip too
    run = pd.DataFrame({"qid": pd.Series(["q1", "q1", "q\u00e9 2"], dtype="str"),
                        "docno": pd.Series(["d1", "d2", "d3"], dtype="str"), "score": [0.5, -1e300, np.nan]})
    ref = ReferenceResult(
        bases={"F1": np.array([0.1, 0.2, 0.3, 0.0]), "run a": np.array([1.0, 0.0, 0.5, 0.25])},
        base_runs=run[["qid", "docno"]].assign(**{"base:F1": [1.0, 2.0, 3.0], "base:run a": [3.0, 2.0, 1.0]}),
        qrels=run[["qid", "docno"]].assign(label=np.array([2, 0, 1], dtype=np.int64)),
    )  # fmt: skip
    return TaskResult(fold="Fold1", objective="urisk", alpha=5.0, seed=3, qids=qids,
                      ndcg=np.array([0.5, 1.0, 0.0, 0.25]),
                      kendall=np.array([0.1, np.nan, 0.3, 0.0]) if kendall else None,
                      curve=np.array([0.4, 0.45]), run=run, sha256="f" * 64, best_iteration=2,
                      seconds=1.25, peak_rss_mb=300.5, pid=1234, reference=ref if reference else None)


def _same(a: TaskResult, b: TaskResult) -> None:
    for name in ("fold", "objective", "alpha", "seed", "qids", "sha256", "best_iteration", "seconds",
                 "peak_rss_mb", "pid"):
        assert getattr(a, name) == getattr(b, name) and type(getattr(a, name)) is type(getattr(b, name))
    for name in ("ndcg", "curve", "kendall"):
        left, right = getattr(a, name), getattr(b, name)
        assert (left is None) == (right is None)
        if left is not None:
            np.testing.assert_array_equal(left, right)
            assert left.dtype == right.dtype
    pd.testing.assert_frame_equal(a.run, b.run)
    assert (a.reference is None) == (b.reference is None)
    if a.reference is not None and b.reference is not None:
        assert list(a.reference.bases) == list(b.reference.bases)
        for k, v in a.reference.bases.items():
            np.testing.assert_array_equal(v, b.reference.bases[k])
        pd.testing.assert_frame_equal(a.reference.base_runs, b.reference.base_runs)
        pd.testing.assert_frame_equal(a.reference.qrels, b.reference.qrels)


@pytest.mark.parametrize(("reference", "kendall"), [(True, True), (False, False)])
def test_a_result_round_trips_exactly(tmp_path, reference, kendall):
    stored = _result(reference, kendall)
    TaskStore(tmp_path).put(KEY, stored)
    back = TaskStore(tmp_path).get(KEY)  # a fresh store: read from the file
    assert back is not None
    _same(back, stored)
    with np.load(tmp_path / "tasks" / f"{KEY}.npz", allow_pickle=False) as archive:  # numpy reads it
        assert json.loads(archive["task.json"])["key"] == KEY and archive["ndcg"].dtype == np.float64


def _member(payload: bytes, name: str, data: bytes | None) -> bytes:
    """The archive ``payload`` with member ``name`` replaced by ``data`` (removed when None)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(payload)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename != name:
                dst.writestr(info.filename, src.read(info))
        if data is not None:
            dst.writestr(name, data)
    return out.getvalue()


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=True)
    return buffer.getvalue()


def _meta(payload: bytes, **changes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(payload)) as archive:
        meta = json.loads(archive.read("task.json"))
    return _member(payload, "task.json", json.dumps({**meta, **changes}).encode())


class _Boom:
    def __reduce__(self):
        return (os.system, ("touch should-never-exist",))


CORRUPT = {
    "empty": lambda p: b"",
    "truncated": lambda p: p[: len(p) // 2],
    "one byte short": lambda p: p[:-1],
    "garbage": lambda p: os.urandom(len(p)),
    "a pickle": lambda p: __import__("pickle").dumps(_Boom()),
    "bad JSON": lambda p: _member(p, "task.json", b"{not json"),
    "JSON not an object": lambda p: _member(p, "task.json", b"[1, 2]"),
    "another version": lambda p: _meta(p, version=2),
    "another key": lambda p: _meta(p, key="cd" * 32),
    "seed a string": lambda p: _meta(p, seed="3"),
    "alpha a bool": lambda p: _meta(p, alpha=True),
    "kendall flag missing": lambda p: _meta(p, kendall=None),
    "run columns renamed": lambda p: _meta(p, run=[["qid", "str"], ["doc", "str"], ["score", "float64"]]),
    "a baseline too many": lambda p: _meta(p, reference={**json.loads(zipfile.ZipFile(io.BytesIO(p)).read(
        "task.json"))["reference"], "bases": ["F1", "run a", "F9"]}),
    "ndcg missing": lambda p: _member(p, "ndcg.npy", None),
    "ndcg as int64": lambda p: _member(p, "ndcg.npy", _npy(np.array([1, 2, 3, 4]))),
    "ndcg as float32": lambda p: _member(p, "ndcg.npy", _npy(np.zeros(4, np.float32))),
    "ndcg too short": lambda p: _member(p, "ndcg.npy", _npy(np.zeros(3))),
    "ndcg 2-d": lambda p: _member(p, "ndcg.npy", _npy(np.zeros((4, 1)))),
    "ndcg an object array": lambda p: _member(p, "ndcg.npy", _npy(np.array([_Boom()] * 4, dtype=object))),
    "qids an object array": lambda p: _member(p, "qids.utf8.npy", _npy(np.array(["a"], dtype=object))),
    "qid offsets past the end": lambda p: _member(p, "qids.ends.npy", _npy(np.array([1, 2, 3, 99]))),
    "invalid UTF-8": lambda p: _member(p, "qids.utf8.npy", _npy(np.frombuffer(b"\xff" * 14, np.uint8))),
    "header longer than data": lambda p: _member(p, "curve.npy", _npy(np.zeros(2))[:-8]),
    "score column as int": lambda p: _member(p, "run.2.npy", _npy(np.array([1, 2, 3]))),
    "label column as float": lambda p: _member(p, "qrels.2.npy", _npy(np.array([1.0, 2.0, 3.0]))),
    "run columns of unequal length": lambda p: _member(p, "run.2.npy", _npy(np.zeros(2))),
}


@pytest.mark.parametrize("kind", list(CORRUPT))
def test_a_malformed_file_is_a_missing_task(tmp_path, monkeypatch, kind):
    monkeypatch.chdir(tmp_path)  # where the pickle's command would leave its file
    TaskStore(tmp_path).put(KEY, _result())
    path = tmp_path / "tasks" / f"{KEY}.npz"
    path.write_bytes(CORRUPT[kind](path.read_bytes()))
    assert TaskStore(tmp_path).get(KEY) is None
    assert not (tmp_path / "should-never-exist").exists()


@pytest.mark.parametrize("kind", ["fifo", "link to /dev/zero", "folder", "leftover pkl"])
def test_a_task_path_that_is_no_regular_file_is_a_missing_task_and_is_not_written_through(tmp_path, kind):
    (tmp_path / "tasks").mkdir()
    path = tmp_path / "tasks" / f"{KEY}.npz"
    target = tmp_path / "elsewhere"
    if kind == "fifo":
        os.mkfifo(path)  # opening it for reading would hang
    elif kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        (tmp_path / "tasks" / f"{KEY}.pkl").write_bytes(__import__("pickle").dumps(_Boom()))
    assert TaskStore(tmp_path).get(KEY) is None
    TaskStore(tmp_path).put(KEY, _result())  # replaces a link or FIFO; a folder keeps it in memory
    assert not target.exists()
    if kind != "folder":
        assert not path.is_symlink() and TaskStore(tmp_path).get(KEY) is not None


def test_random_damage_never_raises(tmp_path):
    """Property: truncation or byte flips anywhere give None or a well-formed result, never an error."""
    TaskStore(tmp_path).put(KEY, _result())
    path = tmp_path / "tasks" / f"{KEY}.npz"
    good = path.read_bytes()
    rng = random.Random(0)
    for _ in range(300):
        damaged = bytearray(good[: rng.randrange(len(good) + 1)] if rng.random() < 0.3 else good)
        for _ in range(rng.randrange(1, 4)):
            if damaged:
                damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        path.write_bytes(bytes(damaged))
        got = TaskStore(tmp_path).get(KEY)
        assert got is None or isinstance(got, TaskResult)


@pytest.mark.slow
def test_a_malicious_pickle_in_tasks_is_never_run_on_resume(data, study, tmp_path):
    """Every stored task replaced by a pickle whose __reduce__ runs a command: resume never runs it."""
    import shutil

    out = shutil.copytree(study, tmp_path / "out")
    marker = tmp_path / "PWNED"
    payload = __import__("pickle").dumps(type("Evil", (), {"__reduce__": lambda self: (
        os.system, (f"touch {marker}",))})())  # fmt: skip
    tasks = sorted((out / "tasks").iterdir())
    assert len(tasks) == 6
    for path in tasks:
        path.write_bytes(payload)
        path.with_suffix(".pkl").write_bytes(payload)  # the older store's name too
    done = _learn(str(data), *SMALL, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert _files(out) == _files(study)  # recomputed: the same results


@pytest.mark.slow
def test_damaged_tasks_are_recomputed_to_the_same_output(data, study, tmp_path):
    import shutil

    out = shutil.copytree(study, tmp_path / "out")
    kinds = ["truncated", "bad JSON", "ndcg an object array", "another version", "score column as int",
             "ndcg as float32"]  # fmt: skip
    tasks = sorted((out / "tasks").glob("*.npz"))
    assert len(tasks) == len(kinds)
    for path, kind in zip(tasks, kinds, strict=True):
        path.write_bytes(CORRUPT[kind](path.read_bytes()))
    done = _learn(str(data), *SMALL, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert _files(out) == _files(study)
    assert all(TaskStore(out).get(p.stem) is not None for p in tasks)  # rewritten whole


OBJECTIVE = '''
import numpy as np

import pyterrier_risk as ptr


@ptr.register_objective
class Edited(ptr.Objective):
    """A test objective whose rule the test edits between two runs."""

    name = "edited"
    label = "Edited"
    baseline = "single"
    citation = "a test objective"

    def weights(self, r):
        return {rule}
'''
RULE_1 = "np.ones(len(r.model))"
RULE_2 = "np.where(r.model < r.baseline, 1.0 + 20.0 * r.alpha, 0.05)  # a different, longer rule"


def _edited(folder: Path, rule: str) -> dict[str, str]:
    (folder / "edited_objective.py").write_text(OBJECTIVE.format(rule=rule))
    return {"PYTHONPATH": os.pathsep.join([str(folder), str(REPO)]), "PYTHONDONTWRITEBYTECODE": "1"}


@pytest.mark.slow
def test_an_objective_edited_between_two_runs_into_one_out_is_trained_again(data, tmp_path):
    args = [str(data), "--import", "edited_objective", "--baseline", "1", "--objective", "edited", "--alpha",
            "5", "--rounds", "5", "--no-progress", "--workers", "1"]  # fmt: skip
    out = tmp_path / "out"
    first = _learn(*args, "--out", str(out), env=_edited(tmp_path, RULE_1))
    assert first.returncode == 0, first.stderr
    before = (out / "per_query.csv").read_text()
    second = _learn(*args, "--out", str(out), env=_edited(tmp_path, RULE_2))
    assert second.returncode == 0, second.stderr
    fresh = _learn(*args, "--out", str(tmp_path / "fresh"), env=_edited(tmp_path, RULE_2))
    assert fresh.returncode == 0, fresh.stderr
    after = (out / "per_query.csv").read_text()
    assert after == (tmp_path / "fresh" / "per_query.csv").read_text() and after != before
    assert len(list((out / "tasks").glob("*.npz"))) == 6 + 6  # the --import module is part of every task


@pytest.mark.slow
def test_a_long_lived_dask_worker_runs_the_edited_objective(data, tmp_path, monkeypatch):
    """The same cluster runs an objective, then its edited version: the second study has the new rule."""
    import importlib

    distributed = pytest.importorskip("distributed")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _edited(tmp_path, RULE_1)
    options = {"baseline": 1, "objectives": ["edited"], "alphas": [5], "rounds": 5, "progress": False,
               "imports": ["edited_objective"]}  # fmt: skip
    try:
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
        with cluster, distributed.Client(cluster) as client:
            one = ptr.risk_study(data, client=client, **options)
            _edited(tmp_path, RULE_2)
            importlib.reload(sys.modules["edited_objective"])  # this process runs the edit (as a notebook)
            two = ptr.risk_study(data, client=client, **options)
        fresh = ptr.risk_study(data, workers=1, **options)  # fresh worker processes: the edited rule
    finally:
        ptr.unregister_objective("edited")
        sys.modules.pop("edited_objective", None)
    pd.testing.assert_frame_equal(two.per_query, fresh.per_query)
    pd.testing.assert_frame_equal(two.models, fresh.models)
    assert not one.models["sha256"].equals(two.models["sha256"])


def test_a_worker_whose_code_differs_refuses_with_one_line():
    from pyterrier_risk.engine._code import code_digest, sync_code

    task = SimpleNamespace(objective="urisk", code="0" * 64, settings=SimpleNamespace(imports=(),
                                                                                      user_objectives=()))
    with pytest.raises(RuntimeError, match="differs from the study's") as caught:
        sync_code(task, None)
    assert "\n" not in str(caught.value)
    sync_code(SimpleNamespace(**{**vars(task), "code": code_digest((), "urisk")}), None)  # the same: runs


def test_the_code_digest_changes_with_lightgbm_and_the_engine_sources(monkeypatch, tmp_path):
    """The digest covers LightGBM's version and the learning engine's sources (not only the package's)."""
    import shutil

    import lightgbm

    from pyterrier_risk import learning
    from pyterrier_risk.engine import _code

    before = _code.code_digest((), "urisk")
    try:
        _code._engine_digest.cache_clear()
        monkeypatch.setattr(lightgbm, "__version__", "0.0.0")
        assert _code.code_digest((), "urisk") != before
        monkeypatch.undo()
        copy = shutil.copytree(Path(learning.__file__).parent, tmp_path / "learning")
        with (copy / "_ndcg.py").open("a") as fh:
            fh.write("# an edit\n")
        monkeypatch.setattr(learning, "__file__", str(copy / "__init__.py"))
        _code._engine_digest.cache_clear()
        assert _code.code_digest((), "urisk") != before
    finally:
        monkeypatch.undo()
        _code._engine_digest.cache_clear()
    assert _code.code_digest((), "urisk") == before


SCRIPT = '''
import sys

import numpy as np
import pyterrier_risk as ptr


@ptr.register_objective
class InMain(ptr.Objective):
    """An objective defined in a script's __main__, run on a Dask cluster (shipped by value)."""

    name = "in_main"
    label = "InMain"
    baseline = "single"
    citation = "a test objective"

    def weights(self, r):
        return np.where(r.model < r.baseline, 3.0, 1.0)


if __name__ == "__main__":
    from distributed import Client

    options = dict(baseline=1, objectives=["in_main"], alphas=[5], rounds=5, progress=False)
    with Client(scheduler_file=sys.argv[2], timeout=60) as client:
        client.wait_for_workers(1, timeout=120)
        dask = ptr.risk_study(sys.argv[1], client=client, **options)
    local = ptr.risk_study(sys.argv[1], workers=1, **options)
    assert dask.per_query.equals(local.per_query), "dask and local differ"
    print("objectives:", sorted(set(dask.per_query["objective"])))
'''


@pytest.mark.slow
def test_an_objective_defined_in_a_scripts_main_runs_on_a_dask_worker(data, tmp_path):
    """A real ``dask scheduler`` and ``dask worker``: the worker has another __main__; the class travels."""
    pytest.importorskip("distributed")
    script, schedule = tmp_path / "script.py", tmp_path / "scheduler.json"
    script.write_text(SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    elsewhere = tmp_path / "worker"
    elsewhere.mkdir()
    cli = [sys.executable, "-m"]
    started = [subprocess.Popen([*cli, "distributed.cli.dask_scheduler", "--port", "0", "--no-dashboard",
                                 "--scheduler-file", str(schedule)], cwd=elsewhere, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]  # fmt: skip
    try:
        worker = [*cli, "distributed.cli.dask_worker", "--scheduler-file", str(schedule), "--nthreads", "1",
                  "--no-dashboard"]  # fmt: skip
        started.append(subprocess.Popen(worker, cwd=elsewhere, env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL))
        done = subprocess.run([sys.executable, str(script), str(data), str(schedule)], capture_output=True,
                              text=True, cwd=tmp_path, timeout=300, env=env)
    finally:
        for proc in reversed(started):
            proc.terminate()
            proc.wait(30)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "objectives: ['in_main', 'lambdarank']" in done.stdout


def test_decode_refuses_a_stored_pickle_member(tmp_path):
    """A ``.npy`` member holding a pickled object array is refused before anything is unpickled."""
    payload = encode(KEY, _result())
    bad = _member(payload, "curve.npy", _npy(np.array([_Boom()], dtype=object)))
    with zipfile.ZipFile(io.BytesIO(bad)) as archive, pytest.raises(ValueError, match="curve"):
        decode(KEY, archive)


def _script_objective(factor: float) -> type:
    """An objective class as a script's ``__main__`` defines it, its rule scaled by ``factor``."""
    namespace: dict = {"np": np}
    exec(f"def weights(self, r):\n    return np.ones(len(r.model)) * {factor}\n", namespace)  # noqa: S102
    return type("ScriptObjective", (ptr.Objective,), {
        "name": "t_script_objective", "label": "Script", "baseline": "single", "citation": "a test",
        "weights": namespace["weights"], "__module__": "__main__"})  # fmt: skip


def test_a_script_objective_is_digested_by_its_code():
    """No file to read: the class's code objects, the same for the same code, not for an edited rule."""
    from pyterrier_risk.engine._code import code_digest

    try:
        digests = []
        for factor in (1.0, 1.0, 2.0):
            ptr.register_objective(_script_objective(factor))
            digests.append(code_digest((), "t_script_objective"))
    finally:
        ptr.unregister_objective("t_script_objective")
    assert digests[0] == digests[1] != digests[2]
