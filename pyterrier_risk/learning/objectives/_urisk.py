"""``'urisk'``: U-CRO (Wang, Bennett & Collins-Thompson, SIGIR 2012, §4.3, Theorem 1)."""

from __future__ import annotations

import numpy as np

from ._base import Objective, PairWeights, Round
from ._registry import register_objective
from ._shared import RISK_NORM, ucro_weights


@register_objective
class URiskObjective(Objective):
    r"""U-CRO: ``ΔM′ = ΔT`` of the per-query tradeoff against one baseline.

    .. math:: T = \max(0, M_m - M_b) - (1 + \alpha)\max(0, M_b - M_m)

    ``ΔT`` by the cases A1, A2 (two sub-cases), B1 (two sub-cases) and B2 of the proof of
    Theorem 1: a swap below the baseline weighs ``(1 + α)·|ΔM|``, above it ``|ΔM|``, and a swap
    crossing the baseline the split of the two.
    """

    name = "urisk"
    label = "U-CRO"
    baseline = "single"
    citation = "Wang, Bennett & Collins-Thompson, SIGIR 2012, §4.3"
    options = (RISK_NORM,)
    # the option's checked value, set by Objective.__init__ (tests/test_objective_options.py)
    risk_norm: str

    def weights(self, r: Round) -> PairWeights:
        """U-CRO's pair rule with α for every query."""
        return ucro_weights(r, np.full(len(r.model), r.alpha))
