"""The study: a complete risk-sensitive experiment on an ir_datasets collection (``pyterrier-risk demo``).

:func:`run_study` runs it all; its stages are usable on their own and pass typed results:

* settings: :func:`study_settings` checks the arguments into a :class:`Study` (its :class:`Reranker` s);
  the objectives come from :func:`pyterrier_risk.learning.get_objective` (:func:`risk_objectives`,
  :func:`objective_label`);
* collection: :func:`retrieve` (ir_datasets, PISA index and systems) gives a :class:`Collection`;
  :func:`candidate_features` builds the re-rankers' features from the systems' results;
* cross-validation: :func:`topic_folds`, :func:`make_model`, :func:`cross_validated_rerank` (the
  in-process loop), :func:`engine_rerank` (the same on :func:`risk_study`'s engine, from the candidates
  as a LETOR file by :func:`write_candidates`), :func:`with_tail`, and :func:`rerank` for the study's runs
  (on the engine); :func:`write_runs` writes them as TREC files;
* evaluation: :func:`evaluate_study` gives an :class:`Evaluation`, :func:`study_tables` the
  :class:`StudyTables` (:func:`trade_table`, :func:`folds_table`, :func:`risk_table`, ...);
* plots: :func:`plot_against_baseline` (shared with ``pyterrier-risk eval --plots``), :func:`make_plots`;
* report: :func:`write_report`; :func:`run_study` returns a :class:`StudyResult`.

:func:`risk_study` is the learner's study on LETOR folds (``pyterrier-risk learn``): every objective at
every α and seed on every fold against plain LambdaMART, on a process pool or a Dask cluster; it returns
a :class:`RiskStudyResult` (settings: :class:`LearnSettings`).

A problem the user can fix raises :class:`StudyError` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

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
    "DEFAULT_EARLY_STOPPING": "_learn_settings",
    "LEARN_MEASURES": "_learn_settings",
    "DEFAULT_LEARN_ALPHAS": "_learn_settings",
    "DEFAULT_LEARN_ROUNDS": "_learn_settings",
    "DEFAULT_LEARN_SEEDS": "_learn_settings",
    "DEFAULT_LEARN_THREADS": "_learn_settings",
    "DEFAULT_SPLIT_SEED": "_learn_settings",
    "EVAL_ALPHA": "_learn_settings",
    "Baseline": "_learn_settings",
    "LearnSettings": "_learn_settings",
    "parse_param": "_learn_settings",
    "SettingError": "_learn_settings",
    "RiskStudyResult": "_learn_result",
    "risk_study": "_learn",
    "DEFAULT_WORKER_TIMEOUT": "_learn_dask",
    "CONNECT_TIMEOUT": "_learn_dask",
    "LearnerTables": "_learn_tables",
    "DEFAULT_TEST": "_learn_tables",
    "DEFAULT_CORRECTION": "_learn_tables",
    "convergence_table": "_learn_tables",
    "kendall_bins_table": "_learn_tables",
    "learner_table": "_learn_tables",
    "learner_tables": "_learn_tables",
    "plot_learner_risk_gain": "_learn_tables",
    "render_learner_table": "_learn_tables",
    "learner_risk_gain_points": "_learn_tables",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
