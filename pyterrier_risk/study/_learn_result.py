"""What a learning study returns (:class:`RiskStudyResult`) and how it is written (:func:`write_study`).

The tables are pure functions of the result's frames (:mod:`._learn_tables`); every file is written under
a temporary name, then ``os.replace``-d, so an interrupted write leaves no partial file.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ._learn_settings import LearnSettings
from ._settings import StudyError

__all__ = ["PER_QUERY_HEADER", "RiskStudyResult", "run_name", "write_study"]

PER_QUERY_HEADER = ("# NDCG@10 per test query of each model and baseline (gains 2^label - 1, as the "
                    "objectives optimise; a query without a relevant document scores 0)")


def _tables() -> Any:
    from . import _learn_tables

    return _learn_tables


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
        table = _tables().learner_table(self.per_query, single=self.single, multiple=self.multiple,
                                        eval_alpha=self.settings.eval_alpha, **options)
        table.attrs["learner"]["measure"] = _measure_caption(self.settings)
        return table

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
        tables.learner.attrs["learner"]["measure"] = _measure_caption(self.settings)
        return tables

    def plot(self, path: str | os.PathLike | None = None) -> Any:
        """The risk–gain plot against the single baseline, with break-even lines."""
        return _tables().plot_learner_risk_gain(self.per_query, single=self.single, path=path)

    def write(self, out: str | os.PathLike, *, format: str = "markdown", decimals: int = 4,
              **options: Any) -> list[Path]:
        """Write the study's files into ``out`` (each atomically); returns their paths.

        ``per_query.csv``, ``curves.csv``, ``kendall.csv``, ``models.csv``, ``runs/`` (one TREC run
        per model and one per baseline), ``qrels.txt``, ``tables.md`` (``.tex``, ``.csv``: the learner
        table, the convergence table and the Kendall bins, as printed; ``options``, e.g. ``test`` and
        ``correction``, go to :meth:`tables`), ``risk_gain.png`` and ``settings.json``. The folder holds
        one study: the runs, tables and plot of an earlier study
        written there that this one does not have are removed (its ``tasks/`` are kept).
        """
        return write_study(self, Path(out), format=format, decimals=decimals, **options)


def _measure_caption(settings: Any) -> str:
    """The tables' measure in their caption: ours with its gains, or LETOR's with the script's version."""
    from ._learn_settings import LEARN_MEASURES

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


def _tables_text(result: Any, fmt: str, decimals: int, **options: Any) -> str:
    """The learner table, the convergence table and the Kendall bins, as the command prints them."""
    return result.tables(**options).render(fmt, floatfmt=f".{decimals}f")


def write_study(result: Any, out: Path, *, format: str = "markdown", decimals: int = 4,
                **options: Any) -> list[Path]:
    """Write a study's files into ``out`` (see :meth:`RiskStudyResult.write`), each with ``atomic_write``."""
    from .. import __version__
    from ..data import write_qrels, write_run

    if format not in ("markdown", "latex", "csv"):
        raise StudyError(f"format must be markdown, latex or csv, got {format!r}")
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
    written.append(_write_text(out / f"tables.{suffix}", _tables_text(result, format, decimals, **options)))
    if result.single is not None:
        result.plot(out / "risk_gain.png")
        written.append(out / "risk_gain.png")
    settings = {**result.settings.describe(), "version": __version__,
                "measure_caption": _measure_caption(result.settings)}
    written.append(_write_text(out / "settings.json", json.dumps(settings, indent=2, default=str) + "\n"))
    _remove_stale(out, written)
    return written


def _remove_stale(out: Path, written: list[Path]) -> None:
    """Remove the runs, tables and plot an earlier study wrote into ``out`` that this one did not write.

    The folder holds one study: ``eval runs/*.run`` must not pick up a model of another grid or seed.
    """
    keep = {p.resolve() for p in written}
    stale = [*(out / "runs").glob("*.run"), *(out / f"tables.{s}" for s in ("md", "tex", "csv")),
             out / "risk_gain.png"]
    for path in stale:
        if path.is_file() and path.resolve() not in keep:
            path.unlink()
