"""ir_measures adapters: the risk measures URisk, TRisk, ZRisk, GeoRisk, BreakEven and the UE measure.

Importing this package registers the measures with ir_measures (its public ``register``); it changes
nothing else in ir_measures. All five wrap a base measure the same way (:class:`WrappedMeasure`), and
:func:`parse_measure` reads their names as well as every ir_measures and trec_eval name.
"""

from .._lazy import lazy_exports
from ._breakeven import BreakEven
from ._gdeval import ERR_gdeval, GdevalGainsWarning, nDCG_gdeval
from ._risk import GeoRisk, RiskMeasure, TRisk, URisk, ZRisk
from ._ue import UE
from ._wrapped import MeasureNameError, WrappedMeasure, parse_measure

__all__ = [
    "BreakEven",
    "ERR_gdeval",
    "GdevalGainsWarning",
    "nDCG_gdeval",
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
    "check_topic_labels": "_checks",
    "parameter_problems": "_checks",
    "AGGREGATE_BASELINES": "_risk",
    "baseline_topic_scores": "_risk",
    "topic_matrices": "_topics",
    "topic_matrix": "_topics",
    "trec_measures": "_wrapped",
    "gdeval_gains": "_gdeval",
}
__getattr__, _ = lazy_exports(__name__, _INTERNAL)
