r"""Which topics a system hurts, and up to which α it still beats its baseline.

Two questions asked after a risk score (Wang, Bennett and Collins-Thompson, SIGIR 2012; Dinçer,
Macdonald and Ounis, SIGIR 2014):

* :func:`topic_hurt`: per topic, the system's and the baseline's score, their difference
  :math:`\delta_i = s_i - b_i` and relative change :math:`\delta_i / b_i`, whether the topic lost more
  than 20% (the 2012 paper's "Loss > 20%"), and the topic's share of TRisk, :math:`T_{R_i}` and
  :math:`T_{J_i}` (2014 eqs. 21–23) with their p-values (:func:`topic_p_values`), most-hurt first.
* :func:`break_even_alpha`: the α at which URisk is 0. Since
  :math:`U_{Risk}(\alpha) = Reward - (1+\alpha)\,Risk = Gain - \alpha\,Risk` (2012 eqs. 1–4), it is
  :math:`\alpha^* = Gain / Risk` (2012 §5.7): for :math:`0 \le \alpha < \alpha^*` the system still
  beats the baseline.

Every quantity comes from the functions that define it (:func:`risk_reward`, :func:`trisk`,
:func:`topic_p_values`, :func:`loss_gt20`); this module only puts them side by side.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
import pandas as pd

from ._significance import topic_p_values
from ._trisk import trisk
from ._urisk import loss_gt20, risk_reward, rounding_bound
from ._validate import as_score_pair

__all__ = ["HURT_COLUMNS", "break_even_alpha", "gain_risk_ratio", "topic_hurt"]

#: the columns of :func:`topic_hurt`, in order
HURT_COLUMNS = ("value", "baseline", "difference", "relative", "loss_gt20",
                "t_r", "t_r_p_value", "t_j", "t_j_p_value")


def break_even_alpha(scores: Any, baseline: Any) -> float:
    r"""The risk-aversion α at which URisk is 0: Gain / Risk (Wang et al. 2012, §5.7).

    With Risk and Gain of :func:`risk_reward` (2012 eqs. 1 and 3),
    :math:`U_{Risk}(\alpha) = Gain - \alpha \cdot Risk`, which is 0 at

    .. math:: \alpha^* = \frac{Gain}{Risk} = \frac{Reward - Risk}{Risk}

    For :math:`\alpha < \alpha^*` URisk is positive (the system beats the baseline), above it
    negative. Edge cases:

    * no loss (Risk = 0) and at least one win: ``inf`` (URisk = Reward > 0 at every α);
    * no loss and no win (every topic a tie): ``nan`` (URisk = 0 at every α: no break-even point);
    * Gain = 0 with a loss: ``0.0`` (URisk is 0 at α = 0 and negative above);
    * a Gain within rounding of 0 (:func:`~pyterrier_risk.core._urisk.rounding_bound`,
      :math:`c \cdot \varepsilon \cdot \max(s_i, b_i)`) is 0: scores 0.3 and 0.1 against 0.2 and 0.2
      have Gain 0, though their floating-point differences sum to −2.8e-17;
    * Gain < 0: a *negative* number, Gain / Risk, not clipped: URisk is negative at every α >= 0, and
      the number says how far (the root of the line ``Gain − α·Risk`` lies below α = 0).

    Args:
        scores: per-topic effectiveness of the system (array-like or Series by topic).
        baseline: per-topic effectiveness of the baseline, aligned like in :func:`urisk`.

    Returns:
        α* as a float (``inf`` or ``nan`` in the cases above).

    Raises:
        ValueError: any input error of :func:`urisk` (NaN, negative scores, mismatched topics, ...).

    Example:
        >>> round(break_even_alpha([0.75, 0.375, 0.5], [0.25, 0.5, 0.25]), 12)
        5.0
    """
    s, b, _ = as_score_pair(scores, baseline)
    rr = risk_reward(s, b)
    # a Gain within rounding of 0 is 0 (0.3 − 0.2 + 0.1 − 0.2 = −2.8e-17); a Risk is a sum of losses, each
    # exact in the floats given (a tiny loss is a loss), so it is kept
    gain = 0.0 if abs(rr.gain) <= rounding_bound(s, b) else rr.gain
    return gain_risk_ratio(gain, rr.risk)


def gain_risk_ratio(gain: float, risk: float) -> float:
    """Gain / Risk of a (Risk, Gain) point, the break-even α of :func:`break_even_alpha` and its edge cases.

    ``inf`` when Risk = 0 and Gain > 0 (no loss, a win), ``nan`` when both are 0 (every topic tied);
    otherwise ``gain / risk`` (negative when Gain < 0). Risk is a mean loss, so ``risk >= 0``.
    """
    if risk > 0:
        return gain / risk
    return float("inf") if gain > 0 else float("nan")


def topic_hurt(
    scores: Any,
    baseline: Any,
    alpha: float = 0.0,
    se: Literal["parametric", "jackknife"] = "parametric",
    *,
    sd: Literal["sample", "population"] = "sample",
) -> pd.DataFrame:
    r"""Per topic, how a system did against its baseline, the most-hurt topic first.

    Columns (:data:`HURT_COLUMNS`):

    * ``value``, ``baseline``: the two per-topic scores :math:`s_i`, :math:`b_i`;
    * ``difference``: :math:`\delta_i = s_i - b_i`;
    * ``relative``: :math:`\delta_i / b_i` (NaN where :math:`b_i = 0`: undefined);
    * ``loss_gt20``: :math:`s_i < 0.8\,b_i`, the topics the 2012 paper counts as "Loss > 20%"
      (:func:`loss_gt20`, as :func:`risk_reward` counts them);
    * ``t_r``, ``t_j``: :math:`T_{R_i}` and :math:`T_{J_i}` of :func:`trisk` at ``alpha`` (2014
      eqs. 21–23; negative for a loss; they sum to :math:`\sqrt c \cdot T_{Risk}`);
    * ``t_r_p_value``, ``t_j_p_value``: their two-sided p-values (:func:`topic_p_values`, Student's t
      with c − 1 degrees of freedom; exploratory: a family of c tests, see there).

    Rows are sorted by ``difference``, most negative first (ties keep the topic order). Since
    :math:`T_{R_i}` is monotone in :math:`\delta_i` for one system, this is also the order of
    :math:`T_{R_i}`.

    Args:
        scores: per-topic effectiveness of the system (array-like or Series by topic).
        baseline: per-topic effectiveness of the baseline, aligned like in :func:`urisk`.
        alpha: risk-sensitivity of :math:`T_{R_i}` / :math:`T_{J_i}` (``alpha >= 0``).
        se: TRisk's standard error, ``'parametric'`` or ``'jackknife'`` (:func:`trisk`).
        sd: the standard deviation of :math:`T_{R_i}`/:math:`T_{J_i}`: ``'sample'`` (divisor c − 1) or
            ``'population'`` (c, as rmit-ir/trisk) (:func:`trisk`).

    Returns:
        A DataFrame indexed by topic (``qid``; positions 0..c−1 for plain arrays).

    Raises:
        ValueError: fewer than two topics, a system that ties the baseline on every topic (nothing is
            hurt or helped; T_R is 0/0), or any input error of :func:`trisk`.

    Example:
        >>> hurt = topic_hurt([0.5, 0.2, 0.4, 0.6], [0.3, 0.3, 0.4, 0.2])
        >>> hurt.index.tolist(), hurt["loss_gt20"].tolist()
        ([1, 2, 0, 3], [True, False, False, False])
    """
    s, b, index = as_score_pair(scores, baseline)
    if len(s) >= 2 and np.array_equal(s, b):
        raise ValueError("the system ties the baseline on every topic: no topic is hurt or helped")
    result = trisk(s, b, alpha, se=se, sd=sd)  # refuses fewer than two topics
    d = s - b
    relative = np.divide(d, b, out=np.full_like(d, np.nan), where=b > 0)
    frame = pd.DataFrame(
        {
            "value": s,
            "baseline": b,
            "difference": d,
            "relative": relative,
            "loss_gt20": loss_gt20(s, b),
            "t_r": result.t_r,
            "t_r_p_value": topic_p_values(result, which="t_r"),
            "t_j": result.t_j,
            "t_j_p_value": topic_p_values(result, which="t_j"),
        },
        index=pd.RangeIndex(len(s)) if index is None else index,
    )
    frame.index.name = "qid"
    return frame.sort_values("difference", kind="stable")
