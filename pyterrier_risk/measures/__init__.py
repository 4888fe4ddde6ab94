"""ir_measures adapters: the risk measures URisk, TRisk, ZRisk, GeoRisk, BreakEven and the UE measure.

Importing this package registers the measures with ir_measures (its public ``register``); it changes
nothing else in ir_measures. All five wrap a base measure the same way (:class:`WrappedMeasure`), and
:func:`parse_measure` reads their names as well as every ir_measures and trec_eval name.
"""

from ._breakeven import BreakEven
from ._risk import GeoRisk, RiskMeasure, TRisk, URisk, ZRisk
from ._ue import UE
from ._wrapped import MeasureNameError, WrappedMeasure, parse_measure

__all__ = [
    "BreakEven",
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
