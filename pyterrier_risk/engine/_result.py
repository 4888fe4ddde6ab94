"""What a learning study returns (:class:`RiskStudyResult`) and how it is written (:func:`write_study`).

The tables are pure functions of the result's frames (:mod:`._tables`); the files are written into a
staging folder and moved in as one set, with a manifest, under the folder's lock (:mod:`._folder`).
"""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ._settings import REFERENCE, LearnSettings, SettingError

__all__ = ["PER_QUERY_HEADER", "RiskStudyResult", "check_write_options", "run_name", "write_study"]

PER_QUERY_HEADER = ("# NDCG@10 per test query of each model and baseline (gains 2^label - 1, as the "
                    "objectives optimise; a query without a relevant document scores 0)")


def _tables() -> Any:
    from . import _tables

    return _tables


@dataclass(frozen=True)
class RiskStudyResult:
    """What :func:`risk_study` returns: its settings and frames; the tables are computed from them.

    Attributes:
        settings: the study's checked settings (:class:`LearnSettings`).
        per_query: one row per (fold, objective, alpha, seed, qid): ``ndcg`` (the model's NDCG@10 on
            the test query, gains 2^label − 1) and ``base:<name>`` per baseline. The reference,
            plain LambdaMART, is ``objective='lambdarank'`` at α 0.
        curves: ``fold, objective, alpha, seed, round, vali_ndcg``: the validation NDCG@10 after each
            round (queries with a relevant document), up to the round the model scores with.
        kendall: ``fold, objective, alpha, seed, qid, distance``: the normalised Kendall distance of
            the model's test ranking from the single baseline's (empty without a single baseline).
        models: one row per model: ``fold, objective, alpha, seed, sha256`` (of LightGBM's model
            text) and ``best_iteration`` (the trees it scores with).
        resources: per model, ``seconds`` (the task's wall time) and ``peak_rss_mb`` (its worker's
            peak resident memory so far): where and how it ran, not what it learned.
        runs: (objective, alpha, seed) -> the test rankings of its models over all folds (each
            test query ranked by the model of the fold that held it out).
        qrels: ``qid, docno, label`` of every test query.
    """

    settings: LearnSettings
    per_query: pd.DataFrame
    curves: pd.DataFrame
    kendall: pd.DataFrame
    models: pd.DataFrame
    resources: pd.DataFrame
    runs: dict[tuple[str, float, int], pd.DataFrame] = field(repr=False)
    baseline_runs: dict[str, pd.DataFrame] = field(repr=False)
    qrels: pd.DataFrame = field(repr=False)
    out: Path | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        """A short summary: folds, tasks, learners, the best row and the output folder (not the frames)."""
        return _summary(self)

    @property
    def single(self) -> str | None:
        """The ``base:`` column name of the single baseline (without the prefix), or None."""
        return self.settings.single

    @property
    def multiple(self) -> tuple[str, ...]:
        """The names of the multiple baselines."""
        return self.settings.multiple

    def table(self, **options: Any) -> pd.DataFrame:
        """The 2016 paper's Table 7 layout (:func:`learner_table`; ``options`` go to it)."""
        return _tables().learner_table(self.per_query, single=self.single, multiple=self.multiple,
                                       eval_alpha=self.settings.eval_alpha, **options)

    def convergence(self, **options: Any) -> pd.DataFrame:
        """Rounds to reach a share of the final validation NDCG@10, per objective and α."""
        return _tables().convergence_table(self.curves, **options)

    def kendall_bins(self, **options: Any) -> pd.DataFrame:
        """The share of test queries per Kendall-distance bin from the single baseline, per model."""
        return _tables().kendall_bins_table(self.kendall, **options)

    def tables(self, **options: Any) -> Any:
        """The three tables as one :class:`LearnerTables` (``.render(format)`` prints them)."""
        kendall = self.kendall if len(self.kendall) else None
        tables = _tables().learner_tables(self.per_query, self.curves, kendall, single=self.single,
                                          multiple=self.multiple, eval_alpha=self.settings.eval_alpha,
                                          **options)
        settings = dataclasses.replace(tables.settings, measure=_measure_caption(self.settings),
                                       labels=_labels(self.settings, tables.settings.labels))
        return dataclasses.replace(tables, settings=settings)

    def plot(self, path: str | os.PathLike | None = None) -> Any:
        """The risk–gain plot against the single baseline, with break-even lines."""
        return _tables().plot_learner_risk_gain(self.per_query, single=self.single, path=path)

    def write(self, out: str | os.PathLike, *, format: str = "markdown", decimals: int = 4,
              tables: Any = None, **options: Any) -> list[Path]:
        """Write the study's files into ``out`` (each atomically); returns their paths.

        ``per_query.csv``, ``curves.csv``, ``kendall.csv``, ``models.csv``, ``runs/`` (one TREC run
        per model and one per baseline), ``qrels.txt``, ``tables.md`` (``.tex``, ``.csv``: the learner
        table, the convergence table and the Kendall bins, as printed; ``options``, e.g. ``test`` and
        ``correction``, go to :meth:`tables`), ``risk_gain.png``, ``settings.json`` and ``manifest.json``
        (the files written, with sizes and sha256). The files are staged and moved in as one set under
        the folder's lock; the folder holds one study: the files an earlier study wrote there (its
        manifest) that this one does not write are removed, any other file is kept (so are ``tasks/``).
        ``tables``: the :meth:`tables` already computed (``options`` are then not given), so that a
        caller that prints them too computes them once.

        Raises:
            StudyError: another process is writing into ``out`` (its pid named), a baseline's run has a
                model's run name, or a bad ``format``.
        """
        return write_study(self, Path(out), format=format, decimals=decimals, tables=tables, **options)


def _labels(settings: Any, objectives: Any) -> dict[str, str]:
    """Each objective's label in the tables; the neural learner's reference is LambdaLoss (CIKM 2018)."""
    from ._tables import objective_labels

    names = objective_labels(objectives)
    if getattr(settings, "learner", "lambdamart") == "neural" and REFERENCE in names:
        names[REFERENCE] = "LambdaLoss"
    return names


def _summary(result: RiskStudyResult) -> str:
    """The result in a few lines: what was trained, the best mean NDCG@10, where it was written."""
    pq = result.per_query
    if pq.empty:
        return f"RiskStudyResult(no test queries; out={result.out})"
    names = _labels(result.settings, pq["objective"])
    means = pq.groupby(["objective", "alpha"], sort=False)["ndcg"].mean()
    learners = []
    for objective in dict.fromkeys(pq["objective"]):
        alphas = " ".join(f"{a:g}" for a in sorted(means[objective].index))
        learners.append(f"{names[objective]} (α {alphas})")
    (objective, alpha), best = means.idxmax(), float(means.max())
    ref = means.get((REFERENCE, 0.0))
    versus = f", {names[REFERENCE]} {ref:.4f}" if ref is not None and objective != REFERENCE else ""
    baselines = "; ".join(
        x for x in (f"single {result.single}" if result.single else "",
                    f"multiple {', '.join(result.multiple)}" if result.multiple else "") if x)
    return "\n".join([
        f"RiskStudyResult: {pq['fold'].nunique()} folds × {pq['seed'].nunique()} seed(s), "
        f"{len(result.models)} models (tasks), {pq.groupby('fold')['qid'].nunique().sum()} test queries",
        f"  learners: {', '.join(learners)}",
        f"  baselines: {baselines or 'none'}",
        f"  best mean NDCG@10: {names[objective]} α={alpha:g} {best:.4f}{versus} "
        "(result.tables() for the tests)",
        f"  out: {result.out if result.out is not None else 'not written (result.write(folder))'}"])


def _measure_caption(settings: Any) -> str:
    """The tables' measure in their caption: ours with its gains, or LETOR's with the script's version."""
    from ._settings import LEARN_MEASURES

    measure = getattr(settings, "measure", "ndcg")
    return "NDCG@10 with gains 2^label − 1" if measure == "ndcg" else LEARN_MEASURES[measure]


def _write_text(path: Path, text: str) -> Path:
    from ..data import atomic_write

    with atomic_write(path) as fh:
        fh.write(text)
    return path


def _write_csv(path: Path, frame: pd.DataFrame, header: str | None = None) -> Path:
    from ..data import atomic_write

    with atomic_write(path, newline="") as fh:
        if header:
            fh.write(header + "\n")
        frame.to_csv(fh, index=False)
    return path


def run_name(objective: str, alpha: float, seed: int) -> str:
    """A model's run name (file stem and TREC tag): ``urisk_a5_s1``; the reference ``lambdarank_a0_s1``."""
    return f"{objective}_a{alpha:g}_s{seed}"


def _tables_text(result: Any, fmt: str, decimals: int, tables: Any = None, **options: Any) -> str:
    """The learner table, the convergence table and the Kendall bins, as the command prints them."""
    if tables is not None and options:
        raise TypeError(f"give the computed tables or their options ({', '.join(options)}), not both")
    return (result.tables(**options) if tables is None else tables).render(fmt, floatfmt=f".{decimals}f")


def check_write_options(*, format: str = "markdown", decimals: int = 4, test: str | None = None,
                        correction: str | None = None, layout: str = "default",
                        eval_alpha: float = 1.0) -> None:
    """Check the options of :meth:`RiskStudyResult.write` before a study runs (the command does).

    Raises:
        SettingError: a bad ``format``, ``decimals``, ``test``, ``correction`` (None: none) or ``layout``.
    """
    from ._tables import DEFAULT_TEST, _check_options

    if format not in ("markdown", "latex", "csv"):
        raise SettingError(f"⟨format⟩ must be markdown, latex or csv, got {format!r}")
    if isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 20:
        raise SettingError(f"⟨decimals⟩ must be an integer from 0 to 20, got {decimals!r}")
    try:
        _check_options(DEFAULT_TEST if test is None else test, correction, eval_alpha, 10000, layout)
    except ValueError as e:
        text = str(e)
        key = next((k for k in ("layout", "test", "eval_alpha") if text.startswith(k)), "correction")
        raise SettingError(f"⟨{key}⟩{text.removeprefix(key)}" if text.startswith(key) else
                           f"⟨{key}⟩ {correction}: {text}") from None


def write_study(result: Any, out: Path, *, format: str = "markdown", decimals: int = 4, tables: Any = None,
                **options: Any) -> list[Path]:
    """Write a study's files into ``out`` (see :meth:`RiskStudyResult.write`) as one consistent set.

    The files are written into a hidden staging folder in ``out`` (each with ``atomic_write``) and moved
    in together with ``manifest.json`` under the folder's lock (:func:`._folder.publish`); the
    previous set's files this one lacks are removed, and nothing else.
    """
    from ._folder import check_run_names, publish

    if format not in ("markdown", "latex", "csv"):
        raise SettingError(f"⟨format⟩ must be markdown, latex or csv, got {format!r}")
    check_run_names((run_name(*key) for key in result.runs), result.baseline_runs)
    text = _tables_text(result, format, decimals, tables, **options)  # computed before anything is written
    return publish(out, lambda staging: _write_files(result, staging, format, text))


def _write_files(result: Any, out: Path, format: str, tables: str) -> list[str]:
    """Write the result files into ``out`` (a staging folder); returns their paths relative to it."""
    from .. import __version__
    from ..data import write_qrels, write_run

    (out / "runs").mkdir(parents=True, exist_ok=True)
    header = PER_QUERY_HEADER if result.settings.measure == "ndcg" else (
        "# NDCG@10 per test query of each model and baseline as LETOR 4.0's Eval-Score-4.0.pl computes it "
        "(gains 0/1/3, ranks 1-2 undiscounted, ties in file order; a query with fewer than 10 documents "
        "or none relevant scores 0)")
    written = [_write_csv(out / "per_query.csv", result.per_query, header)]
    for name in ("curves", "kendall", "models"):
        written.append(_write_csv(out / f"{name}.csv", getattr(result, name)))
    runs = {run_name(*key): run for key, run in result.runs.items()} | dict(result.baseline_runs)
    ties = "order" if result.settings.measure == "letor" else "docno"  # ranks in the evaluation's order
    for tag, run in runs.items():
        write_run(run, out / "runs" / f"{tag}.run", tag, ties=ties)
        written.append(out / "runs" / f"{tag}.run")
    write_qrels(result.qrels, out / "qrels.txt")
    written.append(out / "qrels.txt")
    suffix = {"markdown": "md", "latex": "tex", "csv": "csv"}[format]
    written.append(_write_text(out / f"tables.{suffix}", tables))
    if result.single is not None:
        result.plot(out / "risk_gain.png")
        written.append(out / "risk_gain.png")
    settings = {**result.settings.describe(), "version": __version__,
                "measure_caption": _measure_caption(result.settings)}
    written.append(_write_text(out / "settings.json", json.dumps(settings, indent=2, default=str) + "\n"))
    return [p.relative_to(out).as_posix() for p in written]
