"""Risk-sensitive learning studies on LETOR folds: :func:`risk_study` and its :class:`RiskStudyResult`.

The learner's counterpart of ``pyterrier-risk eval`` (issue 22): every objective at every α and seed on
every fold, each model compared per test query with plain LambdaMART trained with the same seed and
parameters, as the papers' learner tables report (Dinçer et al. 2016 Table 7; Wang et al. 2012 §5.8-5.9).
The tasks run on a local process pool or a Dask cluster (:mod:`._learn_exec`), one fit per task
(:mod:`._learn_task`); the tables are pure functions of the result's frames (:mod:`._learn_tables`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._learn_result import RiskStudyResult
from ._learn_settings import (
    DEFAULT_LEARN_ALPHAS,
    DEFAULT_LEARN_ROUNDS,
    DEFAULT_LEARN_SEEDS,
    DEFAULT_LEARN_THREADS,
    DEFAULT_SPLIT_SEED,
    EVAL_ALPHA,
    REFERENCE,
    LearnSettings,
    available_cores,
    check_models,
    learn_settings,
)
from ._learn_tables import DEFAULT_CORRECTION, DEFAULT_TEST
from ._learn_tables import _check_options as check_table_options
from ._learn_task import LearnTask, task_key
from ._settings import StudyError

__all__ = ["RiskStudyResult", "risk_study"]

def _load_folds(settings: LearnSettings) -> tuple[list[Any], int]:
    """The folds and the feature count; a missing fold/split or a feature out of range is an error."""
    from ..data import check_feature_number, letor_folds, letor_n_features

    try:
        folds = letor_folds(settings.data, folds=settings.folds, seed=settings.split_seed)
        width = int(letor_n_features(folds))
        for b in settings.all_baselines():
            if b.feature is not None:
                where = "--baseline" if b == settings.baseline else "--baselines"
                check_feature_number(b.feature, width, where)
    except (OSError, ValueError) as e:
        raise StudyError(" ".join(str(e).split())) from None
    return folds, width


def _tasks(settings: LearnSettings, folds: list[Any], width: int) -> list[LearnTask]:
    """Every task, fold by fold (a worker then tends to keep one fold's data).

    Per seed, the reference first, then every objective at every α.
    """
    from .. import __version__

    out = []
    for fold in folds:
        digest = fold.digest()
        for seed in settings.seeds:
            configs = [(REFERENCE, 0.0)] + [(o, a) for o in settings.objectives for a in settings.alphas]
            out += [LearnTask(fold, digest, o, a, seed, settings, width, __version__) for o, a in configs]
    return out


def _check_out(out: str | os.PathLike | None) -> Path | None:
    """The output folder, checked without creating it (it is created with the first stored result)."""
    if out is None:
        return None
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise StudyError(f"--out {path}: exists and is not a folder")
    parent = path
    while not parent.exists():
        parent = parent.parent
    if not os.access(parent, os.W_OK):
        raise StudyError(f"--out {path}: {parent} is not writable")
    return path


def _workers(workers: int | None, threads: int) -> int:
    """The pool size: every core by default; tasks × threads never exceed the cores."""
    cores = available_cores()
    if workers is None:
        return max(1, cores // threads)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise StudyError(f"workers must be an integer >= 1, got {workers!r}")
    if workers * threads > cores:
        raise StudyError(f"{workers} workers × {threads} threads per fit exceed the {cores} cores: give "
                         "fewer workers or threads")
    return workers


def _execute(tasks: list[LearnTask], store: Any, workers: int, client: Any, progress: bool) -> None:
    """Run the tasks the store lacks, with one progress bar over all of them."""
    import pyterrier as pt

    from ._learn_exec import run_dask, run_local

    todo = [t for t in tasks if store.get(task_key(t)) is None]
    bar = pt.tqdm(total=len(tasks), initial=len(tasks) - len(todo), desc="learn", unit="model",
                  disable=not progress or None)
    try:
        if not todo:
            return
        if client is not None:
            run_dask(todo, client, store, lambda: bar.update(1))
        else:
            run_local(todo, min(workers, len(todo)), store, lambda: bar.update(1))
    finally:
        bar.close()


def risk_study(
    data: str | os.PathLike, *, baseline: Any = None, baselines: Sequence[Any] = (),
    objectives: Sequence[str] | None = None, alphas: Sequence[float] = DEFAULT_LEARN_ALPHAS,
    seeds: Sequence[int] = DEFAULT_LEARN_SEEDS, rounds: int = DEFAULT_LEARN_ROUNDS,
    early_stopping: int | None = None, params: Any = None, options: Any = None, folds: int | None = None,
    split_seed: int = DEFAULT_SPLIT_SEED, eval_alpha: float = EVAL_ALPHA,
    threads: int = DEFAULT_LEARN_THREADS,
    workers: int | None = None, client: Any = None,
    scheduler: str | None = None, out: str | os.PathLike | None = None, imports: Sequence[str] = (),
    progress: bool = True, format: str = "markdown", decimals: int = 4, test: str = DEFAULT_TEST,
    correction: str | None = DEFAULT_CORRECTION, learner: str = "lambdamart", device: str | None = None,
) -> RiskStudyResult:
    """Train every objective at every α and seed on every LETOR fold against plain LambdaMART.

    Tasks are (fold, objective, α, seed), plus the reference (``'lambdarank'`` at α 0) per fold and
    seed; each fits :class:`~pyterrier_risk.RiskLambdaMART` on the fold's training split (LightGBM
    ``deterministic=True``, ``force_row_wise=True``, ``num_threads=threads``, the seed), early-stopped
    on its validation split when ``early_stopping`` is given, and scores its test split, which no
    model of the fold saw. The results do not depend on the worker count or the scheduler.

    Args:
        data: a folder of ``Fold1..FoldK/{train,vali,test}.txt`` (plain or compressed), or of LETOR 4.0
            partitions ``S1..SK`` (rotated as LETOR does), or one LETOR file with ``folds=K``.
        baseline: the single baseline (U-CRO, T-SARO, T-FARO; the table's single half): a feature
            number as the LETOR file numbers it (from 1), or a TREC run file matched by qid and docid.
        baselines: the multiple baselines (T*-FARO, GeoRisk; the macro half), the same kinds.
        objectives: registered objective names (default: every one whose baselines are given).
        alphas: the α of every objective (≥ 0).
        seeds: LightGBM seeds; each objective is compared with LambdaMART of the same seed.
        rounds: boosting rounds (with ``early_stopping``: at most).
        early_stopping: patience in rounds on the validation split's NDCG@10 (None: ``rounds`` trees).
        params: LightGBM parameters, a dict or ``name=value`` strings (read as LightGBM reads them).
        options: objective options (``risk_norm='weighted'``, ...), for the objectives that have them.
        folds: with one LETOR file, the number of folds K (≥ 3): a seeded split by query.
        split_seed: the seed of that split.
        eval_alpha: the α of GeoRisk in the table.
        threads: threads per fit (LightGBM and numba): a study setting, recorded in the output.
        workers: local processes (default: cores // threads); workers × threads ≤ cores.
        client: a ``distributed.Client`` to run the tasks on instead (or ``scheduler``: its address).
        scheduler: the address of a Dask scheduler (``tcp://host:8786``).
        out: a folder for the results: finished tasks (``tasks/``, a rerun skips them) and the files of
            :meth:`RiskStudyResult.write`. None keeps everything in memory.
        imports: modules to import first (in every worker too): user objectives register themselves.
        progress: show one progress bar over the tasks.
        format: the tables' format in ``out`` (``markdown``, ``latex`` or ``csv``).
        decimals: decimals of the tables in ``out``.
        test: the paired test of the tables in ``out`` (``'t'`` or ``'randomization'``).
        correction: their multiple-testing correction over the rows (``None``: none).
        learner: ``'lambdamart'`` (LightGBM, :class:`~pyterrier_risk.RiskLambdaMART`) or ``'neural'``
            (:class:`~pyterrier_risk.RiskNeuralRanker`, needs the ``neural`` extra): every model of the
            study, the reference included, is trained by it; ``rounds`` are then epochs, ``params`` the
            estimator's keyword arguments and ``seeds`` its seeds (see :mod:`._learn_neural`).
        device: the neural learner's device: ``'cpu'`` (the default in a study: deterministic, the
            same results on any worker count), ``'cuda'``, ``'cuda:N'`` or ``'auto'`` (resolved once).

    Returns:
        A :class:`RiskStudyResult`.

    Raises:
        StudyError: a one-line message (bad argument, missing fold or split, feature out of range,
            unreadable data, unreachable scheduler, a failed task or one that killed its worker twice).
    """
    from ._learn_exec import TaskStore, connect
    from ._learn_output import assemble

    settings = learn_settings(
        data, baseline=baseline, baselines=baselines, objectives=objectives, alphas=alphas, seeds=seeds,
        rounds=rounds, early_stopping=early_stopping, params=params, options=options, folds=folds,
        split_seed=split_seed, eval_alpha=eval_alpha, threads=threads, imports=imports,
        learner=learner, device=device)  # fmt: skip
    check_models(settings)
    try:
        check_table_options(test, correction, settings.eval_alpha, 10000)
    except ValueError as e:
        raise StudyError(str(e)) from None
    if client is not None and scheduler is not None:
        raise StudyError("give client or scheduler, not both")
    n_workers = _workers(workers, settings.threads) if client is None and scheduler is None else 1
    folder = _check_out(out)
    fold_list, width = _load_folds(settings)
    tasks = _tasks(settings, fold_list, width)
    own = connect(scheduler) if scheduler is not None else None
    store = TaskStore(folder)
    try:
        _execute(tasks, store, n_workers, client or own, progress)
    finally:
        if own is not None:
            own.close()
    result = assemble(settings, tasks, [store.get(task_key(t)) for t in tasks])
    if folder is not None:
        result.write(folder, format=format, decimals=decimals, test=test, correction=correction)
    return result
