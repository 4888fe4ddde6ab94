"""``'tfaro_star'``: T*-FARO (Dinçer, Macdonald & Ounis, SIGIR 2016, §6)."""

from __future__ import annotations

import numpy as np

from ._registry import register_objective
from ._tfaro import TFARO


@register_objective
class TFAROStar(TFARO):
    """T*-FARO: T-FARO against the per-query mean NDCG of several baselines."""

    name = "tfaro_star"
    label = "T*-FARO"
    baseline = "multiple"
    citation = "Dinçer, Macdonald & Ounis, SIGIR 2016, §6"

    @classmethod
    def trained_against(cls, scores: str) -> str:
        """The per-topic mean of the baselines' scores."""
        return f"the per-topic mean of {scores}"

    def baseline_ndcg(self, per_system: np.ndarray) -> np.ndarray:
        """The per-query mean over the baselines."""
        return per_system.mean(axis=0)
