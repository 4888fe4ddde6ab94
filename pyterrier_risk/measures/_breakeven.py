r"""``BreakEven``: the α at which URisk against a baseline is 0 (Wang et al. 2012, §5.7), as a measure.

.. math:: \alpha^* = \frac{Gain}{Risk}, \qquad U_{Risk}(\alpha) = Gain - \alpha \cdot Risk

For :math:`\alpha < \alpha^*` the system beats the baseline. A measure (rather than a column of its
own) so that it flows through :func:`pyterrier_risk.Experiment` and ``pyterrier-risk eval`` like
URisk: parsed by name (``BreakEven(nDCG@20,baseline='BM25')``), given the Experiment's or
``--baseline``'s baseline when it names none, one column named by its ``repr``. The value is
:func:`pyterrier_risk.break_even_alpha`'s, with its edge cases: ``inf`` without a loss, ``nan`` when
every topic ties (the baseline against itself), negative when Gain < 0.
"""

from __future__ import annotations

import ir_measures
from ir_measures.measures import register

from ._risk import _BASE, _BASELINE, _POOL, RiskMeasure

__all__ = ["BreakEven"]


class _BreakEven(RiskMeasure):
    r"""Break-even α = Gain / Risk against a baseline (Wang, Bennett and Collins-Thompson, SIGIR 2012, §5.7).

    With Risk and Gain of the base measure against the baseline (2012 eqs. 1 and 3), URisk is 0 at
    :math:`\alpha^* = Gain/Risk`; below it the system beats the baseline. ``inf``: no topic lost;
    ``nan``: every topic tied; negative: Gain < 0, URisk is negative at every α >= 0.
    """

    __name__ = "BreakEven"
    NAME = __name__
    PRETTY_NAME = "BreakEven"
    SHORT_DESC = "The risk-sensitivity alpha at which URisk against the baseline is 0: Gain / Risk."
    SUPPORTED_PARAMS = {"base": _BASE, "baseline": _BASELINE, "pool": _POOL}


BreakEven = _BreakEven()

if BreakEven.NAME not in ir_measures.measures.registry:
    register(BreakEven)
