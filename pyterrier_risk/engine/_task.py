"""One task of a learning study: fit one model on one fold, score its test queries (runs in a worker).

:func:`run_task` is a top-level function of plain data (a :class:`LearnTask`: paths and settings), so
that a process pool and a Dask cluster run the same code. A worker holds one fold's data at a time
(:data:`_LOADED`): the tasks of a fold run one after another where the scheduler allows it.

Per test query the task measures the study's measure, for the model and for every baseline's ranking
of the same candidates: by default NDCG@10 with gains 2^label − 1 (the gains the objectives optimise,
LightGBM's convention; ``ir_measures``' nDCG with those gains, tied scores ordered by docno descending
as trec_eval orders them), or with ``measure='letor'`` LETOR 4.0's Eval-Score-4.0.pl NDCG@10 (tied
scores in file order). A query without a relevant document scores 0. It returns a typed
:class:`TaskResult` (plain numbers, strings, arrays and frames: what :mod:`._store` stores).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ._neural import learner_key
from ._settings import (
    CUTOFF,
    REFERENCE,
    LearnSettings,
    baseline_ties,
    import_modules,
    objective_options,
    register_user_objectives,
)

__all__ = ["LearnTask", "ReferenceResult", "TaskFailed", "TaskResult", "run_task", "task_key"]

_LOADED: dict[tuple[Any, ...], Any] = {}  # (fold digest, baselines) -> the fold's frames; one fold at a time
_LOCK = threading.Lock()  # a Dask worker may run several tasks in threads of one process


class TaskFailed(RuntimeError):
    """A task raised: the message names the task (the worker's error, one line)."""


@dataclass(frozen=True)
class LearnTask:
    """One model of the study: ``objective`` at ``alpha`` with ``seed`` on fold ``fold`` (plain data)."""

    fold: Any  # a LetorFold: file paths, loaded lazily in the worker
    fold_digest: str
    objective: str
    alpha: float
    seed: int
    settings: LearnSettings
    n_features: int
    version: str
    #: the digest of the code the task runs (:func:`._code.code_digest`): a worker checks it
    code: str
    #: the objective's class pickled by value when a script's ``__main__`` defines it (sent with the task)
    shipped: bytes | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """``Fold1/urisk/alpha=5/seed=1``: how messages and the progress name the task."""
        return f"{self.fold.name}/{self.objective}/alpha={self.alpha:g}/seed={self.seed}"


@dataclass(frozen=True, eq=False)
class ReferenceResult:
    """What a reference task (plain LambdaMART) adds: the fold's baselines and test labels.

    Attributes:
        bases: baseline name -> its per-query NDCG@10 (in the order of the task's ``qids``).
        base_runs: ``qid, docno, base:<name>...``: each baseline's scores of the test candidates.
        qrels: ``qid, docno, label`` of the test candidates.
    """

    bases: dict[str, np.ndarray]
    base_runs: pd.DataFrame
    qrels: pd.DataFrame


@dataclass(frozen=True, eq=False)
class TaskResult:
    """One task's results (the worker side's answer; :class:`~._store.TaskStore` keeps it).

    Attributes:
        fold, objective, alpha, seed: the task's identity.
        qids: the test queries, in the fold's order.
        ndcg: the model's NDCG@10 per test query.
        kendall: per test query, the Kendall distance from the single baseline (None without one).
        curve: the validation NDCG@10 after each round, up to the round the model scores with.
        run: ``qid, docno, score``: the model's test ranking.
        sha256: of LightGBM's model text.
        best_iteration: the trees the model scores with.
        seconds: the task's wall time.
        peak_rss_mb: the worker process's peak resident memory so far.
        pid: the worker process.
        reference: the fold's baselines and labels (reference tasks only).
    """

    fold: str
    objective: str
    alpha: float
    seed: int
    qids: tuple[str, ...]
    ndcg: np.ndarray
    kendall: np.ndarray | None
    curve: np.ndarray
    run: pd.DataFrame
    sha256: str
    best_iteration: int
    seconds: float
    peak_rss_mb: float
    pid: int
    reference: ReferenceResult | None = None


def task_key(task: LearnTask) -> str:
    """The digest of everything the task's results depend on.

    The fold's data (not its path), the model's configuration, the baselines (run files by content),
    the package version and the code the task runs (``code``: the objective's and the ``--import``
    modules' sources, the learning engine's, LightGBM's version).
    """
    s = task.settings
    config = {
        "fold": task.fold_digest, "fold_name": task.fold.name, "objective": task.objective,
        "alpha": task.alpha, "seed": task.seed, "rounds": s.rounds, "early_stopping": s.early_stopping,
        "params": [[k, v] for k, v in s.params], "options": objective_options(s, task.objective),
        "threads": s.threads, "n_features": task.n_features, "version": task.version,
        "baselines": [[b.name, b.feature, b.digest] for b in s.all_baselines()],
        "single": s.single, "measure": s.measure, "code": task.code, **learner_key(s),
    }  # fmt: skip
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()


def _frames(data: Any, baselines: tuple[Any, ...]) -> dict[str, Any]:
    """A split as a candidates frame (features, baseline columns), its qrels and test-query ids."""
    from ..data import read_run

    frame = data.to_frame()
    for b in baselines:
        if b.feature is not None:
            frame[f"base:{b.name}"] = data.X[:, b.feature - 1]
        else:
            frame[f"base:{b.name}"] = _run_scores(data, read_run(b.run), b.name)
    return {"candidates": frame.drop(columns=["label"]), "qrels": frame[["qid", "docno", "label"]],
            "qids": list(dict.fromkeys(frame["qid"]))}


def _run_scores(data: Any, run: pd.DataFrame, name: str) -> np.ndarray:
    from ..data import run_baseline_scores

    return run_baseline_scores(data, run, name=name)


def _load_fold(task: LearnTask) -> dict[str, Any]:
    """The fold's train/vali/test frames, loaded once per fold and worker (the last fold only)."""
    bases = task.settings.all_baselines()
    key = (task.fold_digest, *(_baseline_key(b) for b in bases))  # a study's baselines differ from the last's
    if key not in _LOADED:
        _LOADED.clear()  # drop the previous fold before reading the next
        train, vali, test = task.fold.load(task.n_features)
        _LOADED[key] = {"train": _frames(train, bases), "vali": _frames(vali, bases),
                        "test": _frames(test, bases)}
    return _LOADED[key]


def _baseline_key(baseline: Any) -> tuple[Any, ...]:
    """What a baseline's column depends on: its name, its feature, or its run file as it is now."""
    if baseline.run is None:
        return (baseline.name, baseline.feature)
    stat = os.stat(baseline.run)
    return (baseline.name, os.fspath(baseline.run), stat.st_mtime_ns, stat.st_size)


def per_query_ndcg(run: pd.DataFrame, qrels: pd.DataFrame, qids: list[str],
                   measure: str = "ndcg") -> np.ndarray:
    """The study's NDCG@10 of each query of ``qids``; a query without relevant documents is 0.

    ``measure='ndcg'``: gains 2^label − 1, tied scores by docno descending (trec_eval's rule, which
    ``ir_measures``' nDCG follows). ``'letor'``: LETOR 4.0's Eval-Score-4.0.pl
    (:func:`pyterrier_risk.core.letor_ndcg_by_query`), tied scores in the order of ``qrels`` (the
    candidates' file order), 0 for a query with fewer than 10 candidates.
    """
    import ir_measures
    from ir_measures import nDCG

    if measure == "letor":
        from ..core import letor_ndcg_by_query

        scored = qrels[["qid", "docno", "label"]].merge(run[["qid", "docno", "score"]], on=["qid", "docno"],
                                                        how="left", validate="one_to_one")
        values = letor_ndcg_by_query(scored["qid"], scored["label"], scored["score"].fillna(-np.inf), CUTOFF)
        return values.reindex(qids).fillna(0.0).to_numpy()

    labels = sorted(int(v) for v in qrels["label"].unique())
    ndcg = nDCG(gains={lab: 2**lab - 1 for lab in labels}) @ CUTOFF
    q = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    r = run.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    values = {m.query_id: m.value for m in ir_measures.iter_calc([ndcg], q, r)}
    return pd.Series(values, dtype=float).reindex(qids).fillna(0.0).to_numpy()


def _model(task: LearnTask) -> Any:
    from ..learning import RiskLambdaMART

    s = task.settings
    return RiskLambdaMART(
        task.objective, alpha=task.alpha, baseline=None if s.baseline is None else f"base:{s.baseline.name}",
        baselines=[f"base:{b.name}" for b in s.baselines] or None, cutoff=CUTOFF, num_boost_round=s.rounds,
        early_stopping_rounds=s.early_stopping, verbose=False, stopping_measure=s.measure,
        baseline_ties=baseline_ties(s),
        objective_params=objective_options(s, task.objective), **s.lightgbm(task.seed),
    )  # fmt: skip


def _curve(model: Any, vali: dict[str, Any]) -> np.ndarray:
    """Validation NDCG@10 (the study's measure) after each round, up to the round the model scores with.

    Over the validation queries with a relevant document: LightGBM's ndcg scores the others 1, LETOR's
    0, taken out here.
    """
    from ..learning import validation_curve

    curve = validation_curve(model)
    best = vali["qrels"].groupby("qid", sort=False)["label"].max()
    n, judged = len(best), int((best > 0).sum())
    if judged == 0:
        return np.full(len(curve), np.nan)
    others = 0.0 if model.stopping_measure == "letor" else 1.0
    return (curve * n - others * (n - judged)) / judged


def _kendall(run: pd.DataFrame, test: dict[str, Any], single: str | None) -> np.ndarray | None:
    """Per test query, the normalised Kendall distance of the model's ranking from the baseline's."""
    from ..core import rank_distance

    if single is None:
        return None
    cand = test["candidates"]
    base = cand[["qid", "docno"]].assign(score=cand[f"base:{single}"].to_numpy())
    with np.errstate(invalid="ignore"):
        try:
            distance = rank_distance(run, base)
        except ValueError:  # every query's candidates tied by the baseline: no distance anywhere
            return np.full(len(test["qids"]), np.nan)
    return distance.reindex(test["qids"]).to_numpy(dtype=float)


def _reference_extras(task: LearnTask, test: dict[str, Any]) -> ReferenceResult:
    """Each baseline's per-query NDCG@10 and test ranking, and the test qrels."""
    cand = test["candidates"]
    names = [b.name for b in task.settings.all_baselines()]
    keys = cand[["qid", "docno"]]
    bases = {n: per_query_ndcg(keys.assign(score=cand[f"base:{n}"].to_numpy()), test["qrels"], test["qids"],
                               task.settings.measure)
             for n in names}  # fmt: skip
    runs = cand[["qid", "docno", *(f"base:{n}" for n in names)]].reset_index(drop=True)
    return ReferenceResult(bases=bases, base_runs=runs, qrels=test["qrels"].reset_index(drop=True))


def _fit(task: LearnTask, fold: dict[str, Any]) -> Any:
    import numba

    config: Any = numba.config  # numba sets its config attributes from the environment at import
    numba.set_num_threads(min(task.settings.threads, config.NUMBA_NUM_THREADS))
    model = _model(task)
    train, vali = fold["train"], fold["vali"]
    model.fit(train["candidates"], train["qrels"], vali["candidates"], vali["qrels"])
    return model


def _trained(task: LearnTask, fold: dict[str, Any]) -> tuple[Any, str, np.ndarray, int]:
    """The task's model fitted by its learner, the digest of what it learned, its curve and its rounds.

    The learner's dispatch point: ``(model, sha256, curve, best_iteration)``, where ``sha256`` is that of
    LightGBM's model text or of the neural model's saved weights, ``curve`` the validation NDCG@10 per
    round or epoch up to the one the model scores with, and ``best_iteration`` that round or epoch.
    """
    if task.settings.learner != "lambdamart":
        from ._neural import train_neural

        return train_neural(task, fold, objective_options(task.settings, task.objective), CUTOFF)
    model = _fit(task, fold)
    text = model.booster_.model_to_string()
    sha256 = hashlib.sha256(text.encode()).hexdigest()
    return model, sha256, _curve(model, fold["vali"]), int(model.best_iteration_)


def run_task(task: LearnTask) -> TaskResult:
    """Fit the task's model and return its test results (the worker side of a study).

    First the worker makes sure it runs the code the task was keyed with (:func:`._code.sync_code`:
    the objective's class shipped with the task registered, stale user modules reloaded).

    Raises:
        TaskFailed: the fit or the data failed, or this worker's code differs from the study's; the
            message names the task.
    """
    from ..learning import training_progress
    from ._backend import task_step
    from ._code import sync_code

    started = time.perf_counter()
    try:
        import_modules(task.settings.imports)
        register_user_objectives(task.settings.user_objectives)
        sync_code(task, task.shipped)
        with _LOCK:
            fold = _load_fold(task)
        with training_progress(task_step()):  # the bar's rounds or epochs, when a terminal shows one
            model, sha256, curve, best = _trained(task, fold)
        test = fold["test"]
        run = model.transform(test["candidates"][["qid", "docno", "features"]])[["qid", "docno", "score"]]
        fields = {
            "fold": task.fold.name, "objective": task.objective, "alpha": task.alpha, "seed": task.seed,
            "qids": tuple(test["qids"]),
            "ndcg": per_query_ndcg(run, test["qrels"], test["qids"], task.settings.measure),
            "kendall": _kendall(run, test, task.settings.single), "curve": curve,
            "run": run.reset_index(drop=True), "sha256": sha256, "best_iteration": best,
            "reference": _reference_extras(task, test) if task.objective == REFERENCE else None,
        }  # fmt: skip
    except Exception as e:  # noqa: BLE001 - any failure is reported by task name
        message = " ".join(str(e).split()) or type(e).__name__
        raise TaskFailed(f"task {task.name}: {message}") from None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return TaskResult(**fields, seconds=time.perf_counter() - started, peak_rss_mb=peak, pid=os.getpid())
