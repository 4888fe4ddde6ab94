"""The study: a complete risk-sensitive experiment on an ir_datasets collection (``pyterrier-risk demo``).

:func:`run_study` runs it all; its stages are usable on their own and pass typed results:

* settings: :func:`study_settings` checks the arguments into a :class:`Study` (its :class:`Reranker` s);
  the objectives come from :func:`pyterrier_risk.learning.get_objective` (:func:`risk_objectives`,
  :func:`objective_label`);
* collection: :func:`retrieve` (ir_datasets, PISA index and systems) gives a :class:`Collection`;
  :func:`candidate_features` builds the re-rankers' features from the systems' results;
* cross-validation: :func:`topic_folds`, :func:`make_model`, :func:`cross_validated_rerank` (the
  in-process loop), :func:`engine_rerank` (the same on the learning engine, :mod:`pyterrier_risk.engine`,
  from the candidates as a LETOR file by :func:`write_candidates`), :func:`with_tail`, and :func:`rerank`
  for the study's runs (on the engine); :func:`write_runs` writes them as TREC files;
* evaluation: :func:`evaluate_study` gives an :class:`Evaluation`, :func:`study_tables` the
  :class:`StudyTables` (:func:`trade_table`, :func:`folds_table`, :func:`risk_table`, ...);
* plots: :func:`plot_against_baseline` (shared with ``pyterrier-risk eval --plots``), :func:`make_plots`;
* report: :func:`write_report`; :func:`run_study` returns a :class:`StudyResult`.

The learner's study on LETOR folds (``pyterrier-risk learn``, :func:`~pyterrier_risk.engine.risk_study`)
is the layer below, :mod:`pyterrier_risk.engine`; the demo runs its re-rankers on that engine.

A problem the user can fix raises :class:`StudyError` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "BASELINE": "_settings",
    "DEFAULT_ALPHAS": "_settings",
    "DEFAULT_DATASET": "_settings",
    "PLAIN": "_settings",
    "PLAIN_OBJECTIVE": "_settings",
    "DEFAULT_OBJECTIVES": "_settings",
    "Reranker": "_settings",
    "Study": "_settings",
    "StudyError": "_settings",
    "objective_label": "_settings",
    "risk_objectives": "_settings",
    "study_settings": "_settings",
    "Collection": "_collection",
    "candidate_features": "_collection",
    "relevance_labels": "_collection",
    "retrieve": "_collection",
    "cross_validated_rerank": "_crossval",
    "engine_rerank": "_crossval",
    "write_candidates": "_crossval",
    "make_model": "_crossval",
    "topic_folds": "_crossval",
    "with_tail": "_crossval",
    "Evaluation": "_evaluate",
    "StudyTables": "_evaluate",
    "breakeven_table": "_evaluate",
    "evaluate_study": "_evaluate",
    "folds_table": "_evaluate",
    "hurt_table": "_evaluate",
    "kendall_bins": "_evaluate",
    "kendall_distances": "_evaluate",
    "kendall_trend": "_evaluate",
    "multi_table": "_evaluate",
    "risk_table": "_evaluate",
    "study_tables": "_evaluate",
    "trade_table": "_evaluate",
    "make_plots": "_plots",
    "plot_against_baseline": "_plots",
    "risk_gain_points": "_plots",
    "write_report": "_report",
    "StudyResult": "_run",
    "rerank": "_run",
    "run_study": "_run",
    "write_runs": "_run",
}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._collection import Collection as Collection
    from ._collection import candidate_features as candidate_features
    from ._collection import relevance_labels as relevance_labels
    from ._collection import retrieve as retrieve
    from ._crossval import cross_validated_rerank as cross_validated_rerank
    from ._crossval import engine_rerank as engine_rerank
    from ._crossval import make_model as make_model
    from ._crossval import topic_folds as topic_folds
    from ._crossval import with_tail as with_tail
    from ._crossval import write_candidates as write_candidates
    from ._evaluate import Evaluation as Evaluation
    from ._evaluate import StudyTables as StudyTables
    from ._evaluate import breakeven_table as breakeven_table
    from ._evaluate import evaluate_study as evaluate_study
    from ._evaluate import folds_table as folds_table
    from ._evaluate import hurt_table as hurt_table
    from ._evaluate import kendall_bins as kendall_bins
    from ._evaluate import kendall_distances as kendall_distances
    from ._evaluate import kendall_trend as kendall_trend
    from ._evaluate import multi_table as multi_table
    from ._evaluate import risk_table as risk_table
    from ._evaluate import study_tables as study_tables
    from ._evaluate import trade_table as trade_table
    from ._plots import make_plots as make_plots
    from ._plots import plot_against_baseline as plot_against_baseline
    from ._plots import risk_gain_points as risk_gain_points
    from ._report import write_report as write_report
    from ._run import StudyResult as StudyResult
    from ._run import rerank as rerank
    from ._run import run_study as run_study
    from ._run import write_runs as write_runs
    from ._settings import BASELINE as BASELINE
    from ._settings import DEFAULT_ALPHAS as DEFAULT_ALPHAS
    from ._settings import DEFAULT_DATASET as DEFAULT_DATASET
    from ._settings import DEFAULT_OBJECTIVES as DEFAULT_OBJECTIVES
    from ._settings import PLAIN as PLAIN
    from ._settings import PLAIN_OBJECTIVE as PLAIN_OBJECTIVE
    from ._settings import Reranker as Reranker
    from ._settings import Study as Study
    from ._settings import StudyError as StudyError
    from ._settings import objective_label as objective_label
    from ._settings import risk_objectives as risk_objectives
    from ._settings import study_settings as study_settings

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
