"""``'tfaro'``: T-FARO (Dinçer, Macdonald & Ounis, SIGIR 2014, §6.3, Eq. 26)."""

from __future__ import annotations

import numpy as np

from ._base import Round
from ._registry import register_objective
from ._shared import FARO_TR, RISK_NORM, SE_ROUND, AlphaPrimeObjective, alpha_prime


@register_objective
class TFARO(AlphaPrimeObjective):
    r"""T-FARO: :math:`\Delta M' = (1 + \alpha')\,\Delta M`, :math:`\alpha' = \alpha\,[1 - \Phi(T_R)]`.

    ``faro_tr='centred'`` (default): :math:`T_R = (x_q - \bar x)/s_x` of this round, so the queries
    with the smallest gain over the baseline keep α′ above α/2 whether or not the model already beats
    the baseline; ``'dincer2014'``: the paper's :math:`T_R = x_q/s_x` with ``s_x`` frozen after
    ``se_round`` (docs/objective_tfaro.md).

    Attributes:
        alpha_prime_: per-query α′ of the latest round.
        s_x_: the standard deviation used.
    """

    name = "tfaro"
    label = "T-FARO"
    baseline = "single"
    citation = "Dinçer, Macdonald & Ounis, SIGIR 2014, §6.3"
    options = (RISK_NORM, SE_ROUND, FARO_TR)
    # the options' checked values, set by Objective.__init__ (tests/test_objective_options.py)
    risk_norm: str
    se_round: int | None
    faro_tr: str

    def check(self) -> None:
        """``se_round`` applies only with ``faro_tr='dincer2014'``."""
        if self.faro_tr == "centred" and self.se_round != SE_ROUND.default:
            raise ValueError(
                f"se_round={self.se_round!r} has no effect on kind {self.name!r} with faro_tr='centred' "
                "(its s_x is re-estimated every round); it applies with faro_tr='dincer2014'"
            )

    def weights(self, r: Round) -> np.ndarray:
        """``1 + α′`` per query."""
        return 1.0 + alpha_prime(self, r, centred=self.faro_tr == "centred")
