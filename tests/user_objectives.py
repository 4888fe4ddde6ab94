"""A user's objective with a per-pair numba rule, shared by the LightGBM and the PyTorch tests
(``test_custom_objective.py``, ``test_neural_loss.py``) through the ``downside_objective`` fixture of
``conftest.py``.

Defined once at module level, so that numba compiles the pair loop for its rule once per process.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

import pyterrier_risk as ptr


@numba.njit
def downside_rule(q: int, dm: float, improving: bool, state: Any) -> float:
    """Degrading swaps on a query whose model NDCG is below the baseline's weigh 1 + α."""
    model, baseline, alpha = state
    if not improving and model[q] < baseline[q]:
        return (1.0 + alpha) * dm
    return dm


class Downside(ptr.Objective):
    """A per-pair rule: degrading swaps on a query below the baseline weigh 1 + α."""

    name = "t_downside"
    label = "Downside"
    baseline = "single"

    def weights(self, r: Any) -> Any:
        state = (np.ascontiguousarray(r.model, dtype=np.float64),
                 np.ascontiguousarray(r.baseline, dtype=np.float64), float(r.alpha))  # fmt: skip
        return ptr.PairWeights(downside_rule, state)
