"""``'tsaro'``: T-SARO (Dinçer, Macdonald & Ounis, SIGIR 2014, §6.3)."""

from __future__ import annotations

from ._base import PairWeights, Round
from ._registry import register_objective
from ._shared import RISK_NORM, SE_ROUND, AlphaPrimeObjective, alpha_prime, ucro_weights


@register_objective
class TSARO(AlphaPrimeObjective):
    r"""T-SARO: U-CRO with a per-query :math:`\alpha' = \alpha\,[1 - \Phi(T_R)]`, :math:`T_R = x_q / s_x`.

    :math:`x_q` is the query's URisk summand and :math:`s_x` their standard deviation (Eqs. 21,
    25), re-estimated up to round ``se_round`` and then frozen (the paper: after the first
    iteration).

    Attributes:
        alpha_prime_: per-query α′ of the latest round.
        s_x_: the standard deviation used.
    """

    name = "tsaro"
    label = "T-SARO"
    baseline = "single"
    citation = "Dinçer, Macdonald & Ounis, SIGIR 2014, §6.3"
    options = (RISK_NORM, SE_ROUND)
    # the options' checked values, set by Objective.__init__ (tests/test_objective_options.py)
    risk_norm: str
    se_round: int | None

    def weights(self, r: Round) -> PairWeights:
        """U-CRO's pair rule with α′ per query."""
        return ucro_weights(r, alpha_prime(self, r, centred=False))
