"""Data readers: TREC runs and qrels, evaluation output, LETOR files and folds, MQ2008 and MQ2008-agg.

The TREC run and qrels files are also written (:func:`write_run`, :func:`write_qrels`). Every file
the package writes goes through ``atomic_write`` (:mod:`._atomic`): replaced whole, or left as it was.

Evaluation output is the per-topic output of ``trec_eval -q`` and ``gdeval.pl`` (for when the runs
are gone); :func:`eval_matrix` turns it into a systems × topics matrix under the topic policy.

Readers check their input line by line and raise a ``ValueError`` naming the file and line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    "signals_held": "_atomic",
    "sync_folder": "_atomic",
    "watch_interrupts": "_atomic",
    "ensure_writable_dir": "_trec",
    "run_name": "_trec",
}
__all__ = list(_EXPORTS)

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._atomic import atomic_write as atomic_write
    from ._atomic import raised_by_interrupt as raised_by_interrupt
    from ._atomic import signals_held as signals_held
    from ._atomic import sync_folder as sync_folder
    from ._atomic import watch_interrupts as watch_interrupts
    from ._evalfiles import EVAL_COLUMNS as EVAL_COLUMNS
    from ._evalfiles import eval_matrix as eval_matrix
    from ._evalfiles import read_eval_file as read_eval_file
    from ._evalfiles import read_gdeval as read_gdeval
    from ._evalfiles import read_trec_eval as read_trec_eval
    from ._letor import LetorData as LetorData
    from ._letor import read_letor as read_letor
    from ._letor_folds import LetorFold as LetorFold
    from ._letor_folds import LetorSplit as LetorSplit
    from ._letor_folds import check_feature_number as check_feature_number
    from ._letor_folds import letor_folds as letor_folds
    from ._letor_folds import letor_n_features as letor_n_features
    from ._letor_folds import run_baseline_scores as run_baseline_scores
    from ._mq2008 import BM25_FEATURE as BM25_FEATURE
    from ._mq2008 import MQ2008_FOLDS as MQ2008_FOLDS
    from ._mq2008 import N_SYSTEMS as N_SYSTEMS
    from ._mq2008 import MQ2008Fold as MQ2008Fold
    from ._mq2008 import agg_baseline_scores as agg_baseline_scores
    from ._mq2008 import mq2008_fold as mq2008_fold
    from ._mq2008 import read_mq2008_agg as read_mq2008_agg
    from ._mq2008 import read_mq2008_part as read_mq2008_part
    from ._mq2008 import system_runs as system_runs
    from ._topics_file import read_topics as read_topics
    from ._trec import ensure_writable_dir as ensure_writable_dir
    from ._trec import read_qrels as read_qrels
    from ._trec import read_run as read_run
    from ._trec import run_name as run_name
    from ._writers import write_qrels as write_qrels
    from ._writers import write_run as write_run

__getattr__, __dir__ = lazy_exports(__name__, {**_EXPORTS, **_INTERNAL})
