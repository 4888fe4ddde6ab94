"""The whole study in one call: :func:`run_study` (what ``pyterrier-risk demo`` runs).

1. index the ir_datasets corpus with pyterrier-pisa (cached under ``OUT/cache``) and retrieve with the
   PISA systems (:mod:`._collection`);
2. re-rank BM25's top candidates with :class:`~pyterrier_risk.RiskLambdaMART` by k-fold
   cross-validation over the topics on the learning-study engine (:func:`~pyterrier_risk.risk_study`;
   the candidates as a LETOR file in ``OUT/cache``, the study's tasks and tables in ``OUT/study``;
   :mod:`._crossval`);
3. write the runs (``OUT/runs``) and the qrels as evaluated (``OUT/qrels.txt``) as TREC files, so that
   ``pyterrier-risk eval`` can re-evaluate them;
4. evaluate everything with one Experiment call and build the tables (:mod:`._evaluate`), draw the
   plots (:mod:`._plots`) and write ``OUT/report.md`` with ``OUT/tables/*.csv`` (:mod:`._report`).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..data import ensure_writable_dir, write_qrels, write_run
from ._collection import Collection, _safe_name, candidate_features, retrieve
from ._crossval import engine_rerank, with_tail
from ._evaluate import Evaluation, StudyTables, evaluate_study, study_tables
from ._plots import make_plots
from ._report import write_report
from ._settings import BASELINE, DEFAULT_DATASET, RUN_DEPTH, Study, StudyError, study_settings


@dataclass
class StudyResult:
    """What :func:`run_study` produced.

    Attributes:
        out: the output folder.
        report: path of ``report.md``.
        study: the study's settings.
        evaluation: the evaluation of every run (:func:`~pyterrier_risk.study.evaluate_study`).
        tables: the report's tables (each also in ``out/tables/<name>.csv``).
        plots: paths of the PNG plots by name.
        seconds: wall-clock time of the whole study.
    """

    out: Path
    report: Path
    study: Study
    evaluation: Evaluation
    tables: StudyTables
    plots: dict[str, Path] = field(default_factory=dict)
    seconds: float = 0.0


def _progress(message: str) -> None:
    print(f"[pyterrier_risk.study] {message}", flush=True)


def _file_name(name: str) -> str:
    """``name`` without the characters file systems reject (``BM25(k1=1.2,b=0.75)`` stays as it is)."""
    return re.sub(r'[\\/:*?"<>|\s]+', "_", name).strip("._") or "run"


def write_runs(out: Path, results: dict[str, pd.DataFrame], qrels: pd.DataFrame) -> None:
    """Every run as ``out/runs/<name>.run`` and the qrels as ``out/qrels.txt`` (TREC formats).

    The file is named by the run, so that ``pyterrier-risk eval`` names the rows as the report does.
    """
    runs_dir = out / "runs"
    runs_dir.mkdir(exist_ok=True)
    for name, res in results.items():
        write_run(res, runs_dir / f"{_file_name(name)}.run", _safe_name(name))
    write_qrels(qrels, out / "qrels.txt")


def rerank(collection: Collection, study: Study, log: Callable[[str], None] = _progress, *,
           out: Path, workers: int | None = None) -> dict[str, pd.DataFrame]:
    """The runs to evaluate: the PISA systems' top ``max(RUN_DEPTH, depth)``, then the re-rankers.

    Each re-ranker re-orders BM25's top ``study.depth`` with BM25's ranking below (:func:`with_tail`);
    the re-rankers are trained by :func:`engine_rerank` (candidates in ``out/cache``, the learning study
    in ``out/study``) on ``workers`` processes.
    """
    rerankers, pisa = study.rerankers(), collection.systems
    log(f"re-ranking BM25 top-{study.depth} with {len(rerankers)} RiskLambdaMART models "
        f"({', '.join(r.name for r in rerankers)}): {study.folds}-fold cross-validation over topics "
        f"on the learning-study engine ({out / 'study'})")
    t0 = time.perf_counter()
    reranked = engine_rerank(candidate_features(collection.results, study.depth), collection.qrels, study,
                             n_systems=len(pisa), cache=out / "cache", out=out / "study",
                             workers=workers, log=log)
    log(f"  {study.folds * len(rerankers)} models ({time.perf_counter() - t0:.1f}s)")
    run_depth = max(RUN_DEPTH, study.depth)
    results = {name: res[res["rank"] < run_depth] for name, res in collection.results.items()}
    for name, res in reranked.items():
        results[name] = with_tail(res, results[BASELINE], study.depth)
    return results


def run_study(dataset: str = DEFAULT_DATASET, out: str | os.PathLike = "pyterrier-risk-demo", *,
              quick: bool = False, alphas: Sequence[float] | None = None, folds: int | None = None,
              depth: int | None = None, seed: int = 42, objective: str | None = None,
              objectives: Sequence[str] | None = None, workers: int | None = None,
              log: Callable[[str], None] = _progress) -> StudyResult:
    """Run the whole study and write the report (see the module docstring); ``pyterrier-risk demo``.

    Args:
        dataset: ir_datasets id with a corpus, topics and qrels (``irds:cranfield``).
        out: output folder (created; the PISA index is cached in ``out/cache``).
        quick: fewer systems, α values, folds and trees (for tests and a first look).
        alphas: α values of the risk-sensitive re-rankers and of the risk measures (0 is always added).
        folds: number of cross-validation folds over the topics (default 5, quick 3).
        depth: re-ranking depth (BM25 candidates per topic; default 100, quick 50).
        seed: seed of the fold split and of LightGBM.
        objective: one objective that replaces the default of its family: a single-baseline one
            (``get_objective(name).baseline == 'single'``: ``'urisk'``, ``'tsaro'``, ``'tfaro'``)
            replaces U-CRO, a multiple-baseline one (``'tfaro_star'``, ``'georisk'``) GeoRisk;
            ``'lambdarank'`` trains only plain LambdaMART.
        objectives: the risk-sensitive objectives to train (default ``('urisk', 'georisk')``); takes
            precedence over ``objective``.
        workers: processes that train the re-rankers (default: every core; the results do not depend on it).
        log: progress callback (one line per step).

    Returns:
        A :class:`StudyResult`.

    Raises:
        StudyError: missing data, unknown dataset, unwritable output, an argument out of range; the
            message says what to do.
    """
    t_start = time.perf_counter()
    out = Path(out)
    try:
        ensure_writable_dir(out)
    except OSError as e:
        raise StudyError(f"cannot write to the output folder {out}: {e.strerror or e}") from e
    study = study_settings(dataset, quick=quick, alphas=alphas, folds=folds, depth=depth, seed=seed,
                           objective=objective, objectives=objectives)
    collection = retrieve(study, out, log)
    results = rerank(collection, study, log, out=out, workers=workers)
    write_runs(out, results, collection.qrels)
    log("evaluating (pyterrier_risk.Experiment) and writing the report with plots")
    t0 = time.perf_counter()
    pisa = collection.systems
    ev = evaluate_study(results, collection.topics, collection.qrels, BASELINE, study.alphas)
    tables = study_tables(ev, results, collection.topics, study, pisa)
    plots = make_plots(ev, tables, study, pisa, out / "plots", BASELINE)
    report = write_report(out, study, ev, tables, pisa, n_docs=collection.n_docs, labels=collection.labels)
    log(f"  report written ({time.perf_counter() - t0:.1f}s)")
    result = StudyResult(out=out, report=report, study=study, evaluation=ev, tables=tables, plots=plots,
                         seconds=time.perf_counter() - t_start)
    log(f"done in {result.seconds:.1f}s: {result.report}")
    return result
