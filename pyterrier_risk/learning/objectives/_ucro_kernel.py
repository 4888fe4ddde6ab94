"""U-CRO's per-pair weight rule (numba): ``|ΔT|`` of Wang et al. (2012), Theorem 1, all cases."""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ._base import PairWeights, Round


@jit()
def ucro_delta(dm: float, improving: bool, mm: float, mb: float, alpha: float) -> float:
    """|ΔT| of one swap; ``dm`` = |ΔM|, ``mm``/``mb`` the model's/baseline's NDCG of the query.

    Written case by case (not as T(M+ΔM) − T(M)) so that α = 0 returns dm exactly.
    """
    if mm <= mb:  # scenario A: the model is at or below the baseline on this query
        if not improving:  # A1: degrading swap, pure risk
            return (1.0 + alpha) * dm
        if mm + dm < mb:  # A2, still below the baseline after the swap
            return (1.0 + alpha) * dm
        return dm + alpha * (mb - mm)  # A2, the swap erases the loss
    # scenario B: the model is above the baseline
    if improving:  # B2: no risk
        return dm
    if mm - dm < mb:  # B1, the swap takes the model below the baseline
        return (1.0 + alpha) * dm - alpha * (mm - mb)
    return dm  # B1, stays above


@jit()
def ucro_rule(q: int, dm: float, improving: bool, state: tuple) -> float:
    """The pair rule: ``state`` = (model NDCG, baseline NDCG, α) per query."""
    return ucro_delta(dm, improving, state[0][q], state[1][q], state[2][q])


def ucro_weights(r: Round, alpha: np.ndarray) -> PairWeights:
    """:func:`ucro_rule` and its state with a per-query α (U-CRO: α; T-SARO: α′)."""
    state = tuple(
        np.require(a, dtype=np.float64, requirements=["C", "W"]) for a in (r.model, r.baseline, alpha)
    )
    return PairWeights(ucro_rule, state)
