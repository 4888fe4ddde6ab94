"""Data readers: TREC runs and qrels, evaluation output, LETOR files and folds, MQ2008 and MQ2008-agg.

The TREC run and qrels files are also written (:func:`write_run`, :func:`write_qrels`). Every file
the package writes goes through ``atomic_write`` (:mod:`._atomic`): replaced whole, or left as it was.

Evaluation output is the per-topic output of ``trec_eval -q`` and ``gdeval.pl`` (for when the runs
are gone); :func:`eval_matrix` turns it into a systems × topics matrix under the topic policy.

Readers check their input line by line and raise a ``ValueError`` naming the file and line.
"""

from __future__ import annotations

from .._lazy import lazy_exports

_EXPORTS = {
    "EVAL_COLUMNS": "_evalfiles",
    "eval_matrix": "_evalfiles",
    "read_eval_file": "_evalfiles",
    "read_gdeval": "_evalfiles",
    "read_trec_eval": "_evalfiles",
    "LetorData": "_letor",
    "read_letor": "_letor",
    "LetorFold": "_letor_folds",
    "LetorSplit": "_letor_folds",
    "check_feature_number": "_letor_folds",
    "letor_folds": "_letor_folds",
    "letor_n_features": "_letor_folds",
    "run_baseline_scores": "_letor_folds",
    "BM25_FEATURE": "_mq2008",
    "MQ2008_FOLDS": "_mq2008",
    "N_SYSTEMS": "_mq2008",
    "MQ2008Fold": "_mq2008",
    "agg_baseline_scores": "_mq2008",
    "mq2008_fold": "_mq2008",
    "read_mq2008_agg": "_mq2008",
    "read_mq2008_part": "_mq2008",
    "system_runs": "_mq2008",
    "read_qrels": "_trec",
    "read_run": "_trec",
    "read_topics": "_topics_file",
    "ensure_writable_dir": "_trec",
    "write_qrels": "_writers",
    "write_run": "_writers",
}
# helpers the other layers use (they import a layer through its package, never its private modules)
_INTERNAL = {
    "atomic_write": "_atomic",
    "raised_by_interrupt": "_atomic",
    "watch_interrupts": "_atomic",
    "ensure_writable_dir": "_trec",
    "run_name": "_trec",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
