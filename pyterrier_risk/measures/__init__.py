"""ir_measures adapters: the risk measures URisk, TRisk, ZRisk, GeoRisk and the UE measure.

Importing this package registers the measures with ir_measures (its public ``register``).
"""

from ._risk import GeoRisk, RiskMeasure, TRisk, URisk, ZRisk, parse_measure
from ._ue import UE

__all__ = ["GeoRisk", "RiskMeasure", "TRisk", "URisk", "ZRisk", "parse_measure", "UE"]
