"""ir_measures adapters: risk measures, UE, and the official NDCGs of gdeval.pl and LETOR 4.0.

The risk measures are URisk, TRisk, ZRisk, GeoRisk and BreakEven; ``nDCG_gdeval``/``ERR_gdeval`` are
the TREC Web track's, ``nDCG_letor4`` is LETOR 4.0's ``Eval-Score-4.0.pl``.

Importing this package registers the measures with ir_measures (its public ``register``); it changes
nothing else in ir_measures. All five wrap a base measure the same way (:class:`WrappedMeasure`), and
:func:`parse_measure` reads their names as well as every ir_measures and trec_eval name.
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._breakeven import BreakEven
from ._gdeval import ERR_gdeval, GdevalGainsWarning, nDCG_gdeval
from ._letor import nDCG_letor4
from ._risk import GeoRisk, RiskMeasure, TRisk, URisk, ZRisk
from ._ue import UE
from ._wrapped import MeasureNameError, WrappedMeasure, parse_measure

__all__ = [
    "BreakEven",
    "ERR_gdeval",
    "GdevalGainsWarning",
    "nDCG_gdeval",
    "nDCG_letor4",
    "GeoRisk",
    "RiskMeasure",
    "TRisk",
    "URisk",
    "ZRisk",
    "parse_measure",
    "UE",
    "WrappedMeasure",
    "MeasureNameError",
]
# helpers the other layers use (they import a layer through its package, never its private modules),
# loaded on first use; the measures above load eagerly, as ir_measures must find them registered
_INTERNAL = {
    "check_evaluation": "_checks",
    "check_gdeval": "_checks",
    "check_letor": "_checks",
    "check_topic_labels": "_checks",
    "parameter_problems": "_checks",
    "AGGREGATE_BASELINES": "_risk",
    "baseline_topic_scores": "_risk",
    "topic_matrices": "_topics",
    "topic_matrix": "_topics",
    "trec_measures": "_wrapped",
    "gdeval_gains": "_gdeval",
}

if TYPE_CHECKING:  # the lazy names for type checkers and editors (tests/test_package.py: the same)
    from ._checks import check_evaluation as check_evaluation
    from ._checks import check_gdeval as check_gdeval
    from ._checks import check_letor as check_letor
    from ._checks import check_topic_labels as check_topic_labels
    from ._checks import parameter_problems as parameter_problems
    from ._gdeval import gdeval_gains as gdeval_gains
    from ._risk import AGGREGATE_BASELINES as AGGREGATE_BASELINES
    from ._risk import baseline_topic_scores as baseline_topic_scores
    from ._topics import topic_matrices as topic_matrices
    from ._topics import topic_matrix as topic_matrix
    from ._wrapped import trec_measures as trec_measures

__getattr__, _ = lazy_exports(__name__, _INTERNAL)
