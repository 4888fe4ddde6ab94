"""LambdaMART objectives: the extension point (:class:`Objective`) and the registry of the built-ins.

Each built-in lives in its own module and registers itself: ``'lambdarank'``, ``'urisk'`` (U-CRO),
``'tsaro'`` (T-SARO), ``'tfaro'`` (T-FARO), ``'tfaro_star'`` (T*-FARO), ``'georisk'`` (GeoRisk).
"""

from __future__ import annotations

from ._base import ALPHA_MAX, OBJECTIVE_BASELINES, Objective, Option, PairWeights, Round
from ._registry import (
    DEFAULT_OBJECTIVES,
    REFERENCE_OBJECTIVE,
    default_objective,
    get_objective,
    objective_names,
    objectives,
    option_readers,
    reference_objective,
    register_objective,
    risk_objectives,
    unregister_objective,
)
from ._shared import FARO_TR, RISK_NORM, SE_ROUND

__all__ = [
    "ALPHA_MAX", "DEFAULT_OBJECTIVES", "FARO_TR", "OBJECTIVE_BASELINES", "Objective", "Option", "PairWeights",
    "REFERENCE_OBJECTIVE", "RISK_NORM", "Round", "SE_ROUND", "default_objective", "get_objective",
    "objective_names", "objectives", "option_readers", "reference_objective", "register_objective",
    "risk_objectives", "unregister_objective",
]  # fmt: skip
