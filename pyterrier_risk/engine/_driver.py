"""Risk-sensitive learning studies on LETOR folds: :func:`risk_study` and its :class:`RiskStudyResult`.

The learner's counterpart of ``pyterrier-risk eval`` (issue 22): every objective at every α and seed on
every fold, each model compared per test query with plain LambdaMART trained with the same seed and
parameters, as the papers' learner tables report (Dinçer et al. 2016 Table 7; Wang et al. 2012 §5.8-5.9).
The tasks run in this process, on a local process pool or a Dask cluster (:mod:`._backend`), one
fit per task (:mod:`._task`); the tables are pure functions of the result's frames
(:mod:`._tables`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from ._backend import Backend, TasksFailed
from ._dask import DEFAULT_WORKER_TIMEOUT, DaskBackend
from ._errors import StudyError
from ._folder import check_out_inputs, check_run_names, keep_lock, study_lock
from ._pool import InProcess, LocalPool
from ._result import RiskStudyResult, run_name
from ._settings import (
    REFERENCE,
    LearnSettings,
    SettingError,
    available_cores,
    check_models,
    learn_settings,
)
from ._task import LearnTask, TaskResult, task_key

__all__ = ["RiskStudyResult", "held_folder", "risk_study"]

ERRORS_LOG = "errors.log"  # in the output folder: the full traceback of every failed task
LEARN_LOG = "learn.log"  # in the output folder: the progress lines

def _load_folds(settings: LearnSettings) -> tuple[list[Any], int]:
    """The folds and the feature count, every check that needs no parsed data done.

    A missing fold or split, a query in two splits of a fold, a FIFO or device as data, a truncated
    compressed file, a feature out of range or constant within every query, a 1-fold study not asked
    for: one-line errors, before any model is fit.
    """
    from ..data import check_feature_number, letor_folds, letor_n_features

    path = Path(settings.data)
    if not path.is_dir() and settings.folds is None:
        raise SettingError(f"⟨data⟩ {path} is one LETOR file: give ⟨folds=K⟩ (K >= 3) to split its queries "
                           "into K folds")
    if not path.is_dir() and settings.folds is not None and settings.folds < 3:
        raise SettingError(f"⟨folds⟩ {settings.folds}: one LETOR file is split into K >= 3 folds (each "
                           "trains on K - 2 parts, validates on one and tests on one)")
    try:
        folds = (letor_folds(path) if path.is_dir() else
                 letor_folds(path, folds=settings.folds, seed=settings.split_seed))  # fmt: skip
        width = int(letor_n_features(folds))
        for b in settings.all_baselines():
            if b.feature is not None:
                key = "baseline" if b == settings.baseline else "baselines"
                try:
                    check_feature_number(b.feature, width, key)
                except ValueError as e:
                    raise SettingError(f"⟨{key}⟩{str(e).removeprefix(key)}") from None
                _check_varies(folds, b.feature, key)
    except StudyError:
        raise
    except (OSError, ValueError) as e:
        raise StudyError(" ".join(str(e).split())) from None
    _check_fold_count(path, folds, settings.folds)
    return folds, width


def _check_varies(folds: list[Any], feature: int, key: str) -> None:
    """A baseline feature with one value within every test query ranks nothing: an error naming it."""
    if not any(fold.test.feature_varies(feature) for fold in folds):
        raise SettingError(f"⟨{key}⟩ {feature}: feature {feature} has one value within every test query: as "
                           "a baseline it ranks nothing (its NDCG is the file order's, and the Kendall "
                           "distance to it is undefined); choose another feature")


def _check_fold_count(path: Path, folds: list[Any], asked: int | None) -> None:
    """A folder's fold count, checked against ``folds`` when given; one fold only when asked for."""
    layout = folds[0].layout
    if path.is_dir() and asked is not None and asked != len(folds):
        raise SettingError(f"⟨data⟩ {path} holds {len(folds)} folds ({layout}), not ⟨folds={asked}⟩")
    if len(folds) == 1 and asked != 1:
        raise SettingError(f"⟨data⟩ {path} holds one fold ({layout}): its test queries are one split, not a "
                           "cross-validation; give ⟨folds=1⟩ to run a 1-fold study")


def _coverage_notes(settings: LearnSettings, folds: list[Any]) -> tuple[str, ...]:
    """One note per baseline run that ranks no document of some test queries, with the count."""
    from ..data import read_run

    runs = [(b, b.run) for b in settings.all_baselines() if b.run is not None]
    if not runs:
        return ()
    tested = [set(q) for q in (fold.test.queries() for fold in folds) if q is not None]
    if len(tested) != len(folds):
        return ()
    test_queries = set().union(*tested)
    notes = []
    for b, run in runs:
        try:
            ranked = set(read_run(run)["qid"].astype(str))
        except (OSError, ValueError) as e:
            raise SettingError(f"⟨{'baseline' if b == settings.baseline else 'baselines'}⟩ {run}: "
                               f"{' '.join(str(e).split())}") from None
        lacking = len(test_queries - ranked)
        if lacking:
            notes.append(f"baseline {b.name}: the run ranks no document of {lacking} of the "
                         f"{len(test_queries)} test queries (their documents rank below the run's, lowest "
                         "label first)")
    return tuple(notes)


def _with_folds(settings: LearnSettings, folds: list[Any], progress: bool) -> LearnSettings:
    """The settings with the layout, the fold count and the notes (printed; kept in settings.json)."""
    notes = _coverage_notes(settings, folds)
    if progress:
        plural = "s" if len(folds) > 1 else ""
        print(f"learn: {len(folds)} fold{plural} ({folds[0].layout}) in {settings.data}", file=sys.stderr)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    return dataclasses.replace(settings, layout=folds[0].layout, n_folds=len(folds), notes=notes)


def _tasks(settings: LearnSettings, folds: list[Any], width: int) -> list[LearnTask]:
    """Every task, fold by fold (a worker then tends to keep one fold's data).

    Per seed, the reference first, then every objective at every α.
    """
    from .. import __version__
    from ._code import code_digest, main_class

    code = {o: (code_digest(settings.imports, o), main_class(o)) for o in (REFERENCE, *settings.objectives)}
    out = []
    for fold in folds:
        digest = fold.digest()
        for seed in settings.seeds:
            configs = [(REFERENCE, 0.0)] + [(o, a) for o in settings.objectives for a in settings.alphas]
            out += [LearnTask(fold, digest, o, a, seed, settings, width, __version__, *code[o])
                    for o, a in configs]
    return out


def _check_out(out: str | os.PathLike | None, key: str = "out") -> Path | None:
    """The folder ``key`` (``out``, ``store``), checked without creating it (the first stored result does)."""
    if out is None:
        return None
    path = Path(out)
    try:
        os.path.realpath(path, strict=True)  # a symbolic link loop, a path through a regular file
    except FileNotFoundError:
        pass
    except OSError as e:
        raise SettingError(f"⟨{key}⟩ {path}: {e.strerror or e}") from None
    if path.exists() and not path.is_dir():
        raise SettingError(f"⟨{key}⟩ {path}: exists and is not a folder")
    parent = path
    while not parent.exists() and not parent.is_symlink():
        parent = parent.parent
    if not parent.is_dir():
        raise SettingError(f"⟨{key}⟩ {path}: {parent} is not a folder")
    _probe(path, parent, key)
    return path


def _check_out_files(folder: Path | None, settings: LearnSettings) -> None:
    """Before any training: no baseline takes a model's run name; ``--out`` holds none of the inputs."""
    grid = [(REFERENCE, 0.0)] + [(o, a) for o in settings.objectives for a in settings.alphas]
    models = [run_name(o, a, s) for o, a in grid for s in settings.seeds]
    check_run_names(models, [b.name for b in settings.all_baselines()])
    check_out_inputs(folder, settings)


def _probe(path: Path, parent: Path, key: str) -> None:
    """Write and remove a small file in ``parent``: an unwritable folder or a full disk fails here."""
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".pyterrier-risk-probe-") as fh:
            fh.write(b"\0" * 4096)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as e:
        raise SettingError(f"⟨{key}⟩ {path}: cannot write in {parent}: {e.strerror or e}") from None


def _worker_timeout(seconds: Any) -> float:
    """``worker_timeout``: a number of seconds > 0."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < float("inf"):
        raise SettingError(f"⟨worker_timeout⟩ must be a number of seconds > 0, got {seconds!r}")
    return float(seconds)


def _workers(workers: int | None, threads: int) -> int:
    """The pool size: every core by default; tasks × threads never exceed the cores."""
    cores = available_cores()
    if workers is None:
        return max(1, cores // threads)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise SettingError(f"⟨workers⟩ must be an integer >= 1, got {workers!r}")
    if workers * threads > cores:
        raise SettingError(f"⟨workers={workers}⟩ × ⟨threads={threads}⟩ per fit exceed the {cores} cores: "
                           "give fewer workers or threads")
    return workers


def choose_backend(workers: int, client: Any = None, scheduler: str | None = None,
                   worker_timeout: float | None = None) -> Backend:
    """The backend of a study: a Dask cluster (``client`` or ``scheduler``), else ``workers`` processes.

    One worker runs the tasks in the calling process; more run them on a ``spawn`` process pool.

    Raises:
        StudyError: both ``client`` and ``scheduler``; a scheduler that cannot be reached, or no worker
            within ``worker_timeout`` seconds.
    """
    if client is not None and scheduler is not None:
        raise SettingError("give client or ⟨scheduler⟩, not both")
    if client is not None or scheduler is not None:
        return DaskBackend.connect(client, scheduler, worker_timeout)
    return InProcess() if workers == 1 else LocalPool(workers)


def _failed(error: TasksFailed, folder: Path | None) -> str:
    """The one-line message of failed tasks; with a folder, every traceback goes to ``errors.log``."""
    message = error.failures[0].message
    more = len(error.failures) - 1
    if more:
        message += f" (and {more} more failed task{'s' if more > 1 else ''})"
    if folder is None:
        return message
    from ..data import atomic_write

    folder.mkdir(parents=True, exist_ok=True)
    with atomic_write(folder / ERRORS_LOG, "w", encoding="utf-8") as fh:
        for f in error.failures:
            fh.write(f"== task {f.name}\n{f.message}\n\n{f.details.rstrip()}\n\n")
    return f"{message}; the traceback is in {folder / ERRORS_LOG}"


def _execute(tasks: list[LearnTask], store: Any, backend: Backend, progress: bool,
             folder: Path | None = None) -> None:
    """Run on ``backend`` the tasks the store lacks, storing each result as it arrives.

    Progress is a bar on a terminal and lines otherwise (:class:`~._progress.Progress`), also
    kept in ``folder/learn.log``. SIGTERM interrupts as Ctrl-C does.

    Raises:
        StudyError: a task failed (its traceback in ``folder/errors.log``), killed its worker twice, or
            the backend was lost; the finished tasks are stored, and a rerun resumes.
    """
    from ._backend import BackendLost, terminate_as_interrupt
    from ._progress import Progress
    from ._task import run_task

    keyed = {task_key(t): t for t in tasks}
    todo = {k: t for k, t in keyed.items() if store.get(k) is None}
    if not todo:
        return
    shown = Progress(tasks, len(tasks) - len(todo), enabled=progress,
                     log=None if folder is None else folder / LEARN_LOG)
    shown.skip([t for k, t in keyed.items() if k not in todo])
    shown.line(f"{len(todo)} of {len(tasks)} tasks to run on {backend.description}")

    def done(key: str, result: Any) -> None:
        store.put(key, result)
        shown.advance(keyed[key])

    try:
        with terminate_as_interrupt():
            backend.run(run_task, todo, done, shown.channel(keyed))
    except TasksFailed as e:
        raise StudyError(_failed(e, folder)) from None
    except BackendLost as e:
        kept = "kept" if folder is not None else "lost (no out folder)"
        n = shown.done - shown.stored
        raise StudyError(f"{e}; the {n} task{'s' if n != 1 else ''} finished in this run "
                         f"{'are' if n != 1 else 'is'} {kept}: rerun to resume") from None
    finally:
        shown.close()


@contextlib.contextmanager
def held_folder(out: str | os.PathLike | None) -> Iterator[Path | None]:
    """Hold a study folder's lock over a block: training into it and writing its files as one study.

    ``risk_study(store=out)`` locks ``out`` while its tasks run and ``result.write(out)`` while the files
    are moved in; in between another study could take the folder. Within this block both take the lock
    this process already holds (it is re-entrant), so no other study starts until the block ends::

        with held_folder("out"):
            result = risk_study(data, settings, store="out")
            result.write("out", format="latex")

    Args:
        out: the folder (checked as ``risk_study``'s ``out``; neither created nor locked until the study
            inside the block locks it, so a study refused before its first task leaves no folder); None
            holds nothing.

    Yields:
        The folder as a ``Path``, or None.

    Raises:
        SettingError: ``out`` cannot be a folder (a link loop, a path through a file, not writable).
        StudyError: another process holds the folder (its pid named).
    """
    folder = _check_out(out, "out")
    if folder is None:
        yield None
        return
    with keep_lock(folder):  # taken by the study's first lock, which checks its inputs first
        yield folder


def risk_study(
    data: str | os.PathLike | LearnSettings | None = None, settings: LearnSettings | None = None, *,
    out: str | os.PathLike | None = None, store: str | os.PathLike | None = None, workers: int | None = None,
    client: Any = None, scheduler: str | None = None, worker_timeout: float = DEFAULT_WORKER_TIMEOUT,
    progress: bool = True, **overrides: Any,
) -> RiskStudyResult:
    """Train every objective at every α and seed on every LETOR fold against plain LambdaMART.

    ``risk_study(data, baseline=25, ...)``, ``risk_study(settings)`` or ``risk_study(data, settings,
    rounds=50)``: the study's settings are a :class:`LearnSettings` (the one source of their defaults),
    its fields given as keywords, or both (the keywords replace the fields). The other keywords say how
    the study runs and where it keeps its tasks and files; none changes a number.

    Tasks are (fold, objective, α, seed), plus the reference (``'lambdarank'`` at α 0) per fold and
    seed; each fits :class:`~pyterrier_risk.RiskLambdaMART` on the fold's training split (LightGBM
    ``deterministic=True``, ``force_row_wise=True``, ``num_threads=threads``, the seed), early-stopped
    on its validation split by default (the papers' model selection), and scores its test split, which
    no model of the fold saw. The results do not depend on the worker count or the scheduler.

    Args:
        data: a folder of ``Fold1..FoldK/{train,vali,test}.txt`` (plain or compressed), or of LETOR 4.0
            partitions ``S1..SK`` (rotated as LETOR does), or one LETOR file with ``folds=K``; or the
            study's :class:`LearnSettings`.
        settings: the study's :class:`LearnSettings` (its ``data`` replaced by ``data`` when given).
        out: a folder for the results: the files of :meth:`RiskStudyResult.write` at its defaults (for
            other table options, call ``result.write(folder, ...)``), and the task store unless
            ``store`` is given. The folder is locked while the study runs (one study at a time). None
            keeps everything in memory.
        store: a folder for the finished tasks (``store/tasks/``; a rerun skips them), locked while the
            tasks run; default ``out``.
        workers: local processes (default: cores // threads); workers × threads ≤ cores.
        client: a ``distributed.Client`` to run the tasks on instead (or ``scheduler``: its address).
        scheduler: the address of a Dask scheduler (``tcp://host:8786``); it must answer within 5 s.
        worker_timeout: seconds to wait for a Dask worker when the cluster has none (the study says it
            is waiting), before a one-line error (:data:`DEFAULT_WORKER_TIMEOUT`).
        progress: show the progress: a bar on a terminal, else a line per finished fold and every 30 s
            (also in ``store/learn.log``).
        **overrides: fields of :class:`LearnSettings`:

            * ``baseline``: the single baseline (U-CRO, T-SARO, T-FARO; the table's single half): a
              feature number as the LETOR file numbers it (from 1), or a TREC run file matched by qid
              and docid; named ``F25`` or by the file, or as given: ``"25=BM25"`` or ``(25, "BM25")``.
            * ``baselines``: the multiple baselines (T*-FARO, GeoRisk; the macro half), the same kinds.
            * ``feature_names``: a file naming features, one ``NUMBER NAME`` a line (``25 BM25``; ``#``
              comments): a feature baseline without ``=NAME`` takes its name from it.
            * ``objectives``: registered objective names (default: every one whose baselines are
              given); the reference (``'lambdarank'``) is always trained: listed, it is dropped with a
              :class:`StudyNote`, and ``()`` trains it alone.
            * ``alphas``: the α of every objective (≥ 0; default 1, 5, 10).
            * ``seeds``: LightGBM seeds; each objective is compared with LambdaMART of the same seed.
            * ``rounds``: boosting rounds: the cap, with early stopping (default 300).
            * ``early_stopping``: patience in rounds on the validation split's measure (default 20): a
              model keeps the trees up to its best validation round. ``None``, 0 or ``'none'``:
              ``rounds`` trees.
            * ``params``: LightGBM parameters, a dict or ``name=value`` strings (read as LightGBM
              reads them).
            * ``options``: objective options (``risk_norm='weighted'``, ...), for the objectives that
              have them.
            * ``folds``: with one LETOR file, the number of folds K (≥ 3): a seeded split by query;
              ``split_seed``: the seed of that split.
            * ``eval_alpha``: the α of GeoRisk in the table.
            * ``threads``: threads per fit (LightGBM and numba): a study setting, recorded in the output.
            * ``imports``: modules to import first (in every worker too): user objectives register
              themselves.
            * ``measure``: the study's measure, of the tables and of early stopping: ``'ndcg'``,
              NDCG@10 with gains 2^label − 1 (ties by docno, as trec_eval), or ``'letor'``, LETOR 4.0's
              ``Eval-Score-4.0.pl`` NDCG@10 (:func:`~pyterrier_risk.letor_ndcg`: gains 0/1/3, ranks
              1–2 undiscounted, ties in file order, 0 for a query with fewer than 10 documents). The
              objectives measure a baseline's NDCG with the same tie rule.
            * ``learner``: ``'lambdamart'`` (LightGBM, :class:`~pyterrier_risk.RiskLambdaMART`) or
              ``'neural'`` (:class:`~pyterrier_risk.RiskNeuralRanker`, needs the ``neural`` extra):
              every model of the study, the reference included, is trained by it; ``rounds`` are then
              epochs, ``params`` the estimator's keyword arguments and ``seeds`` its seeds.
            * ``device``: the neural learner's device: ``'cpu'`` (the default in a study:
              deterministic, the same results on any worker count), ``'cuda'``, ``'cuda:N'`` or
              ``'auto'`` (resolved once).

    Returns:
        A :class:`RiskStudyResult` (its ``settings``: the checked :class:`LearnSettings`).

    Raises:
        TypeError: a keyword that is no setting (the tables' ``format``, ``decimals``, ``test``,
            ``correction`` and ``layout`` are :meth:`RiskStudyResult.write`'s).
        StudyError: a one-line message naming the argument by its Python name (bad argument, missing
            fold or split, feature out of range, unreadable data; a Dask scheduler that does not answer
            as one within 5 s, or has no worker within ``worker_timeout``; a failed task, whose
            traceback goes to ``store/errors.log``; a task that killed its worker twice; a lost cluster;
            an ``out`` that holds an input or that another study is writing into, its pid named; a
            baseline run with a model's run name). The finished tasks are kept: a rerun resumes.
        KeyboardInterrupt: Ctrl-C, or SIGTERM while the tasks run (in the main thread).
    """
    from ._output import assemble
    from ._store import TaskStore

    settings = learn_settings(data, settings, **overrides)
    check_models(settings)
    remote = client is not None or scheduler is not None
    n_workers = 1 if remote else _workers(workers, settings.threads)
    timeout = _worker_timeout(worker_timeout)
    folder, cache = _check_out(out, "out"), _check_out(store, "store")
    cache = folder if store is None else cache
    for place in dict.fromkeys(p for p in (cache, folder) if p is not None):
        _check_out_files(place, settings)
    if cache is None and folder is None:
        _check_out_files(None, settings)
    fold_list, width = _load_folds(settings)
    settings = _with_folds(settings, fold_list, progress)
    tasks = _tasks(settings, fold_list, width)
    store_ = TaskStore(cache)
    backend = choose_backend(min(n_workers, len(tasks)), client, scheduler, timeout)
    with contextlib.ExitStack() as held:
        held.callback(backend.close)
        for place in dict.fromkeys(p for p in (cache, folder) if p is not None):
            held.enter_context(study_lock(place))  # one study at a time, from the first task to the last file
        _execute(tasks, store_, backend, progress, cache)
        # _execute left every task's result in the store's memory (TaskStore.get and put keep them)
        result = assemble(settings, tasks, [cast(TaskResult, store_.get(task_key(t))) for t in tasks])
        if folder is not None:
            result.write(folder)
            result = dataclasses.replace(result, out=folder)
    return result
