"""``'lambdarank'``: plain LambdaMART, LightGBM's native objective re-implemented (weights all 1)."""

from __future__ import annotations

import numpy as np

from ._base import Objective, Round
from ._registry import register_objective


@register_objective
class LambdaRank(Objective):
    """LambdaMART (Burges 2010) as LightGBM 4.x's ``lambdarank``: ``|ΔM′| = |ΔM|``.

    Trains the same model as ``objective='lambdarank'`` (difference 0.0, tested); α is accepted
    and has no effect.
    """

    name = "lambdarank"
    label = "LambdaMART"
    baseline = "none"
    citation = "Burges, MSR-TR-2010-82; LightGBM 4.x lambdarank"

    def weights(self, r: Round) -> np.ndarray:
        """1 for every query."""
        return np.ones(len(r.model))
