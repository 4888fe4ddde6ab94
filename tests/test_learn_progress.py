"""Issue 29.8: on a terminal the study's bar shows the boosting round (or epoch) of the tasks in flight.

The steps travel from the running task to the parent's bar: directly in this process, through a queue
from a pool worker, as a Dask event from a cluster's worker. The studies here run on a fake terminal
(a text stream that says it is a tty) with the bar's step interval at 0 (every step sent), on tiny
synthetic LETOR data (seconds per study).
"""

from __future__ import annotations

import io
import multiprocessing
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from _learn_data import DYING_MODULE, partitions

import pyterrier_risk as ptr
from pyterrier_risk.engine import _backend, _pool, _progress
from pyterrier_risk.learning import training_progress

STUDY = {"baseline": 1, "objectives": ["tfaro"], "alphas": [5], "rounds": 6, "early_stopping": None}
STEP = re.compile(r"task (\d+)/(\d+) \((Fold\d) (\w+) α=(\S+) seed (\d+)\) (round|epoch) (\d+)/(\d+)")


class Terminal(io.StringIO):
    """A text stream that says it is a terminal (the bar is drawn on it)."""

    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    return partitions(tmp_path_factory.mktemp("letor") / "parts", parts=3, queries=6)


@pytest.fixture(scope="module")
def plain(data):
    """The study without a terminal: no bar, no step channel."""
    return ptr.risk_study(data, workers=1, progress=False, **STUDY)


def _on_terminal(monkeypatch, **kwargs):
    """``risk_study`` with stderr a terminal and every step sent: (result, the bar's text)."""
    terminal = Terminal()
    monkeypatch.setattr(_progress, "STEP_EVERY", 0.0)
    monkeypatch.setattr(sys, "stderr", terminal)
    result = ptr.risk_study(**kwargs)
    monkeypatch.undo()
    return result, terminal.getvalue()


def _steps(text: str) -> dict[tuple[str, ...], list[int]]:
    """The steps the bar showed, per task (``(position, total, fold, objective, α, seed, unit, cap)``)."""
    shown: dict[tuple[str, ...], list[int]] = {}
    for m in STEP.finditer(text):
        task = m.groups()[:7] + (m.group(9),)
        shown.setdefault(task, []).append(int(m.group(8)))
    return shown


def _same_results(a, b) -> None:
    pd.testing.assert_frame_equal(a.per_query, b.per_query)
    pd.testing.assert_frame_equal(a.curves, b.curves)
    pd.testing.assert_frame_equal(a.models.drop(columns=[c for c in a.models if c in ("seconds", "pid")]),
                                  b.models.drop(columns=[c for c in b.models if c in ("seconds", "pid")]))
    assert a.runs.keys() == b.runs.keys()
    for key in a.runs:
        pd.testing.assert_frame_equal(a.runs[key], b.runs[key])


def test_in_process_the_bar_shows_each_tasks_rounds_advancing(data, plain, monkeypatch):
    result, text = _on_terminal(monkeypatch, data=data, workers=1, **STUDY)
    shown = _steps(text)
    assert len(shown) == 6  # every task of the study (3 folds × the reference and T-FARO)
    assert ("2", "6", "Fold1", "tfaro", "5", "1", "round", "6") in shown
    for task, rounds in shown.items():
        assert rounds == sorted(rounds) and rounds[0] == 1 and rounds[-1] == 6, (task, rounds)
        assert set(rounds) == set(range(1, 7))  # in this process no step is lost
    _same_results(result, plain)  # the channel does not change what a task computes


def test_on_a_two_worker_pool_the_bar_shows_rounds_advancing(data, plain, monkeypatch):
    result, text = _on_terminal(monkeypatch, data=data, workers=2, **STUDY)
    shown = _steps(text)
    assert shown, text[-500:]
    # a step may arrive after its task finished (then it is dropped): each task shows a rising sequence
    assert all(rounds == sorted(rounds) for rounds in shown.values())
    assert any(len(set(rounds)) >= 2 for rounds in shown.values())
    assert all(t[1] == "6" and t[6] == "round" and t[7] == "6" for t in shown)
    _same_results(result, plain)


@pytest.mark.slow
def test_a_worker_that_dies_with_the_bar_on_is_retried_and_its_fresh_pool_reports(data, tmp_path, monkeypatch,
                                                                                   clean_registry):
    """The pool broken by a dying worker takes its queue with it; the fresh pool has its own."""
    (tmp_path / "dying_objective.py").write_text(DYING_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path) + ":" + str(Path(__file__).resolve().parents[1]))
    monkeypatch.setenv("LEARN_DIES_MARKER", str(tmp_path / "once"))
    study = {**STUDY, "objectives": ["dies"], "imports": ["dying_objective"]}
    result, text = _on_terminal(monkeypatch, data=data, workers=2, **study)
    assert (tmp_path / "once").exists()  # it did die once
    assert set(result.per_query["objective"]) == {"lambdarank", "dies"}
    assert any(task[3] == "dies" for task in _steps(text)), text[-500:]
    sys.modules.pop("dying_objective", None)


def test_without_a_terminal_no_channel_is_opened(data, capsys, monkeypatch):
    """Without a tty (nohup, a batch scheduler) the tasks send nothing: the lines stay as they were."""
    tasks = [SimpleNamespace(fold=SimpleNamespace(name="Fold1"))]
    assert _progress.Progress(tasks, 0, enabled=True, stream=io.StringIO()).channel({"k": tasks[0]}) is None
    assert _progress.Progress(tasks, 0, enabled=False, stream=Terminal()).channel({"k": tasks[0]}) is None
    seen = []
    real = _backend.call_task

    def spy(fn, task, where=None, step=None, every=0.0):
        seen.append(step)
        return real(fn, task, where, step, every)

    monkeypatch.setattr(_pool, "call_task", spy)
    ptr.risk_study(data, workers=1, **{**STUDY, "rounds": 2})
    assert seen and all(step is None for step in seen)
    assert "round" not in capsys.readouterr().err


def test_the_bar_shows_the_most_advanced_task_and_how_many_more_run():
    def task(fold, objective, alpha, learner="lambdamart"):
        return SimpleNamespace(fold=SimpleNamespace(name=fold), objective=objective, alpha=alpha, seed=1,
                               settings=SimpleNamespace(learner=learner))

    tasks = {"a": task("Fold1", "lambdarank", 0.0), "b": task("Fold1", "urisk", 5.0),
             "c": task("Fold2", "urisk", 10.0, "neural")}
    shown = _progress.Progress(list(tasks.values()), 0, enabled=True, stream=Terminal())
    channel = shown.channel(tasks)
    assert channel is not None and channel.every == _progress.STEP_EVERY
    channel.report("a", 120, 300)
    channel.report("b", 30, 300)
    assert shown._running_text() == "task 1/3 (Fold1 lambdarank α=0 seed 1) round 120/300, 1 more running"
    shown.advance(tasks["a"])
    channel.report("a", 121, 300)  # a late step of a finished task is dropped
    assert shown._running_text() == "task 2/3 (Fold1 urisk α=5 seed 1) round 30/300"
    channel.report("c", 9, 10)
    assert shown._running_text() == "task 3/3 (Fold2 urisk α=10 seed 1) epoch 9/10, 1 more running"
    shown.close()


def test_lambdamart_reports_each_boosting_round_to_the_listener():
    rng = np.random.default_rng(0)
    rows = [(f"q{q}", f"d{q}-{d}", rng.random(3), int(d == 0) + int(d == 1))
            for q in range(8) for d in range(6)]
    frame = pd.DataFrame({"qid": [r[0] for r in rows], "docno": [r[1] for r in rows],
                          "features": [r[2] for r in rows]})
    qrels = pd.DataFrame({"qid": [r[0] for r in rows], "docno": [r[1] for r in rows],
                          "label": [r[3] for r in rows]})
    seen: list[tuple[int, int]] = []
    def model(rounds: int):
        return ptr.RiskLambdaMART("lambdarank", num_boost_round=rounds, verbose=False, min_data_in_leaf=1)

    with training_progress(lambda done, total: seen.append((done, total))):
        model(5).fit(frame, qrels)
    assert seen == [(r, 5) for r in range(1, 6)]
    model(2).fit(frame, qrels)
    assert len(seen) == 5  # outside the block nobody listens


def test_the_neural_learner_reports_epochs(data, monkeypatch):
    pytest.importorskip("torch", reason="needs PyTorch: pip install 'pyterrier-risk[neural]'")
    study = {**STUDY, "rounds": 3, "learner": "neural"}
    _, text = _on_terminal(monkeypatch, data=data, workers=1, **study)
    shown = _steps(text)
    assert len(shown) == 6 and all(t[6] == "epoch" and t[7] == "3" for t in shown)
    assert all(rounds == [1, 2, 3] for rounds in shown.values())


def test_a_full_queue_never_blocks_a_task(monkeypatch):
    """A pool worker's steps are put without waiting: a full queue drops them, the task goes on."""
    steps = multiprocessing.get_context("spawn").Queue(1)
    steps.put(("other", 1, 1))
    monkeypatch.setattr(_pool, "_WORKER_STEPS", steps)

    def task(n: int) -> int:
        step = _backend.task_step()
        assert step is not None
        for done in range(1, n + 1):
            step(done, n)  # queue.Full inside: dropped
        return n

    assert _backend.call_task(task, 50, step=_pool._QueueStep("k"), every=0.0) == 50
    assert _backend.task_step() is None  # the step ends with the task
    steps.close()


def test_a_task_sends_at_most_one_step_per_interval():
    sent: list[tuple[int, int]] = []

    def task(n: int) -> None:
        step = _backend.task_step()
        for done in range(1, n + 1):
            step(done, n)

    _backend.call_task(task, 100, step=lambda d, t: sent.append((d, t)), every=3600.0)
    assert sent == [(1, 100)]  # the first step, then none within the hour
    sent.clear()
    _backend.call_task(task, 4, step=lambda d, t: sent.append((d, t)), every=0.0)
    assert sent == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_on_dask_the_bar_shows_rounds_advancing(data, plain, monkeypatch):
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=1,
                            dashboard_address=None) as client:
        result, text = _on_terminal(monkeypatch, data=data, client=client, **STUDY)
    shown = _steps(text)
    assert any(len(set(rounds)) >= 2 for rounds in shown.values()), text[-500:]
    assert all(rounds == sorted(rounds) for rounds in shown.values())
    _same_results(result, plain)
