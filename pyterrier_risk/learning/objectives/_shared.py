"""Options and statistics that several built-in objectives share (one definition each)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import risk_weighted_differences, summand_sd, topic_t_r
from .._options import check_count
from ._base import Objective, Option, PairWeights, Round

__all__ = [
    "FARO_TR", "RISK_NORM", "SE_ROUND", "AlphaPrimeObjective", "alpha_prime", "round_baseline",
    "ucro_weights",
]  # fmt: skip


def _round_or_none(value: Any) -> int | None:
    return check_count(value, "se_round", minimum=0, allow_none=True)


RISK_NORM = Option(
    "risk_norm", "native",
    "where the risk weights meet LightGBM's per-query normalisation log2(1 + S)/S: 'native' (S from the "
    "unweighted λs, so a pair weight w is a w-fold gradient) or 'weighted' (S from the weighted λs)",
    choices=("native", "weighted"),
)  # fmt: skip
SE_ROUND = Option(
    "se_round", 1,
    "s_x is re-estimated every round up to this round, then frozen (1: after the first iteration, as "
    "in Dinçer et al. 2014; 0: at the start; None: never frozen)",
    check=_round_or_none,
)  # fmt: skip
FARO_TR = Option(
    "faro_tr", "centred",
    "T_R of α′ = α·[1 − Φ(T_R)]: 'centred' (x − x̄)/s_x of this round, or the paper's x/s_x ('dincer2014')",
    choices=("centred", "dincer2014"),
)  # fmt: skip


class AlphaPrimeObjective(Objective):
    """The base of the objectives with a per-query α′ (T-SARO, T-FARO, T*-FARO): their round state.

    Attributes:
        alpha_prime_: per-query α′ of the latest round.
        s_x_: the standard deviation of the URisk summands used.
    """

    reports = ("alpha_prime_", "s_x_")

    def reset(self) -> None:
        """Unfreeze s_x; no α′ yet."""
        self.s_x_: float | None = None
        self.alpha_prime_: np.ndarray | None = None


def round_baseline(r: Round, name: str) -> np.ndarray:
    """``r.baseline``, which an objective with a baseline needs (a one-line ``ValueError`` if None)."""
    if r.baseline is None:
        raise ValueError(f"objective {name!r} needs the round's baseline NDCG, got Round(baseline=None)")
    return r.baseline


def alpha_prime(obj: Any, r: Round, *, centred: bool) -> np.ndarray:
    """α′ = α·[1 − Φ(T_R)], T_R = x / s_x (Dinçer et al. 2014, Eqs. 21 and 25), per query.

    ``x`` and ``s_x`` come from the numeric core (``risk_weighted_differences``, ``summand_sd``), as
    in TRisk; ``s_x`` is taken over the active queries. ``centred``: ``T_R = (x − x̄)/s_x`` with ``x̄``
    and ``s_x`` of this round; otherwise ``s_x`` is re-estimated until round ``obj.se_round`` and then
    frozen. Sets ``obj.s_x_`` and ``obj.alpha_prime_``.
    """
    from scipy.special import ndtr

    x = risk_weighted_differences(r.model, round_baseline(r, obj.name), r.alpha)
    active = r.active
    centre = float(x[active].mean()) if centred and active.any() else 0.0
    if centred:
        obj.s_x_ = summand_sd(x[active] - centre)
    elif obj.s_x_ is None or obj.se_round is None or r.index <= obj.se_round:
        obj.s_x_ = summand_sd(x[active])
    obj.alpha_prime_ = r.alpha * (1.0 - ndtr(topic_t_r(x, obj.s_x_, centre=centre)))
    return obj.alpha_prime_


def ucro_weights(r: Round, alpha: np.ndarray) -> PairWeights:
    """U-CRO's pair rule (Wang et al. 2012, Theorem 1) with a per-query α (U-CRO: α; T-SARO: α′)."""
    from ._ucro_kernel import ucro_weights as weights

    return weights(r, alpha)
