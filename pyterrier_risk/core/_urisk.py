"""URisk and its risk/reward decomposition (Wang, Bennett and Collins-Thompson, SIGIR 2012).

For a system with per-topic scores ``s_q`` and a baseline with ``b_q`` over ``c`` topics,
``delta_q = s_q - b_q`` and

* Risk   = (1/c) · Σ_q max(0, b_q − s_q)     (2012 eq. 1, a non-negative number)
* Reward = (1/c) · Σ_q max(0, s_q − b_q)     (2012 eq. 2)
* Gain   = Reward − Risk = mean(delta)       (2012 eq. 3)
* URisk  = Reward − (1 + α) · Risk = (1/c) [Σ_{Q+} delta_q + (1 + α) Σ_{Q−} delta_q]   (2012 eq. 4)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ._validate import as_score_pair, check_alpha

__all__ = ["RiskReward", "risk_reward", "urisk", "risk_weighted_differences", "summand_sd", "topic_t_r",
           "loss_gt20", "rounding_bound", "flat_differences"]

# The divisor of the URisk summands' variance: c − 1 (the unbiased sample variance). Dinçer et al.
# (2014) print 1/c in eq. 12; only c − 1 reproduces their Table 1 and scipy's ttest_rel (docs/trisk.md).
# Evaluation (TRisk) and learning (T-SARO/T-FARO's α′) both use it.
SD_DDOF = 1


def risk_weighted_differences(scores: np.ndarray, baseline: np.ndarray, alpha: float) -> np.ndarray:
    """Per-topic risk-reward scores ``x_i`` (Dinçer et al. 2014, eq. 11) of two checked float arrays.

    ``x_i = delta_i`` for a win or tie and ``(1 + alpha) · delta_i`` for a loss, with
    ``delta_i = scores_i - baseline_i``. Their mean is URisk.
    """
    x = scores - baseline
    if alpha:
        # a loss times 1 + α beyond float64 is -inf, on purpose: urisk falls back to a form that does
        # not overflow, and callers that print the summands refuse -inf by name
        with np.errstate(over="ignore"):
            np.multiply(x, 1.0 + alpha, out=x, where=x < 0)
    return x


def loss_gt20(scores: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """Whether each topic lost more than 20% of the baseline's score (Wang et al. 2012, Table 1).

    ``scores < 0.8 · baseline``: a relative change ``(s − b) / b`` below −20%. A topic where the
    baseline scores 0 never counts (a score cannot fall below 0).
    """
    return scores < 0.8 * baseline


def rounding_bound(scores: np.ndarray, baseline: np.ndarray) -> float:
    r"""The largest mean or spread of the differences ``s − b`` that rounding alone can produce.

    :math:`c \cdot \varepsilon \cdot \max_i \max(s_i, b_i)` for ``c`` topics (float64's
    :math:`\varepsilon = 2^{-52}`). Scores are decimals stored in binary (0.1, 0.3) and subtracted in
    floating point: each difference carries an error up to about :math:`\varepsilon \max(s_i, b_i)`,
    and a sum of ``c`` of them up to ``c`` times that (recursive summation), so their mean errs by up
    to this bound, and so does their standard deviation when all the true differences are equal.
    A Gain or a standard deviation within it is taken as 0: 0.3 − 0.2 and 0.1 − 0.2 give a Gain of
    −1.4e-17, not 0, and a constant difference 0.1 a standard deviation of order 1e-17, which as a
    divisor makes ``T_R`` 1e15 instead of infinite. (A difference that small is below what the
    scores' precision can tell from 0, whatever its cause; no effectiveness score comes near it.)
    The one tolerance of :func:`~pyterrier_risk.break_even_alpha` and :func:`~pyterrier_risk.trisk`
    (:func:`flat_differences`).

    Args:
        scores: the system's checked per-topic scores (finite, ``>= 0``).
        baseline: the baseline's, of the same length.
    """
    return float(scores.shape[0] * np.finfo(np.float64).eps * _largest(scores, baseline))


def _largest(scores: np.ndarray, baseline: np.ndarray) -> float:
    return max(float(scores.max()), float(baseline.max())) if scores.shape[0] else 0.0


def flat_differences(scores: np.ndarray, baseline: np.ndarray) -> int | None:
    """Whether the differences ``s − b`` are equal up to rounding (:func:`rounding_bound`), and their sign.

    Args:
        scores: the system's checked per-topic scores (finite, ``>= 0``).
        baseline: the baseline's, of the same length.

    Returns:
        None when their standard deviation exceeds the bound (a real spread); otherwise the sign of
        their mean: 0 when it too is within the bound (every topic ties, up to rounding), else ±1.
    """
    largest = _largest(scores, baseline)
    if largest == 0.0:  # every score is 0
        return 0
    d = (scores - baseline) / largest  # in [-1, 1]: no overflow when squared
    unit = rounding_bound(scores, baseline) / largest
    if len(d) > SD_DDOF and float(np.std(d, ddof=SD_DDOF)) > unit:
        return None
    mean = float(d.mean())
    return 0 if abs(mean) <= unit else (1 if mean > 0 else -1)


def summand_sd(x: np.ndarray, ddof: int = SD_DDOF) -> float:
    r"""Standard deviation :math:`s_x` of the URisk summands (Dinçer et al. 2014, eq. 12).

    :math:`s_x = \sqrt{\sum_i (x_i - \bar x)^2 / (c - \mathrm{ddof})}`; 0 for fewer than
    ``ddof + 1`` values. The default divisor is ``c − 1`` (:data:`SD_DDOF`).
    """
    if len(x) <= ddof:
        return 0.0
    return float(np.std(x, ddof=ddof))


def topic_t_r(x: np.ndarray, sd: float | None = None, *, centre: float = 0.0) -> np.ndarray:
    r"""Per-topic :math:`T_{R_i} = (x_i - c) / s_x`; 0 where :math:`s_x = 0`.

    Dinçer et al. (2014), eq. 21, is ``c = 0``.

    Args:
        x: URisk summands (:func:`risk_weighted_differences`).
        sd: :math:`s_x`; default :func:`summand_sd` of ``x``.
        centre: ``c``; the learner's centred T-FARO score passes the mean summand :math:`\bar x`
            (``faro_tr='centred'``, docs/objectives.md), the paper's score 0.
    """
    s = summand_sd(x) if sd is None else sd
    return (x - centre) / s if s > 0 else np.zeros_like(x)


def urisk(scores: Any, baseline: Any, alpha: float = 0.0) -> float:
    r"""URisk, the risk-reward tradeoff of a system against a baseline (Wang et al. 2012, eq. 4).

    .. math::

        U_{Risk} = \frac{1}{c}\Big[\sum_{q \in Q_+} \delta_q + (1+\alpha)\sum_{q \in Q_-} \delta_q\Big],
        \qquad \delta_q = s_q - b_q

    where ``Q+`` (``Q-``) are the topics the system wins (loses) against the baseline. At
    ``alpha = 0`` it is the mean per-topic difference; larger ``alpha`` penalises losses more.

    Args:
        scores: per-topic effectiveness of the system (1-D array-like or ``pandas.Series``
            indexed by topic).
        baseline: per-topic effectiveness of the baseline, same topics. Two Series are aligned
            by index (differing topic sets raise a ``ValueError`` naming the missing topics);
            otherwise the vectors are paired by position and must have equal lengths.
        alpha: risk-sensitivity ``alpha >= 0``.

    Returns:
        URisk as a float (higher is better; negative means the losses outweigh the wins).

    Raises:
        ValueError: NaN, infinite or negative scores, mismatched lengths or topics, no topics,
            or ``alpha < 0``.

    Example:
        >>> round(urisk([0.75, 0.25, 0.5], [0.5, 0.5, 0.5], alpha=1.0), 4)
        -0.0833
    """
    alpha = check_alpha(alpha)
    s, b, _ = as_score_pair(scores, baseline)
    with np.errstate(over="ignore", invalid="ignore"):
        value = float(np.mean(risk_weighted_differences(s, b, alpha)))
        if not np.isfinite(value):  # (1 + alpha)·delta overflowed in a summand or the sum, not in the mean
            d = s - b
            value = float((1.0 + alpha) * np.mean(np.minimum(d, 0.0)) + np.mean(np.maximum(d, 0.0)))
    return value


@dataclass(frozen=True)
class RiskReward:
    """The 2012 paper's Table 1 decomposition of a system's change over a baseline.

    Attributes:
        urisk: URisk = reward − (1 + alpha) · risk (2012 eq. 4).
        risk: mean per-topic loss, ``(1/c) Σ max(0, b − s)`` (2012 eq. 1); ``>= 0``.
        reward: mean per-topic win, ``(1/c) Σ max(0, s − b)`` (2012 eq. 2); ``>= 0``.
        gain: reward − risk, the mean difference (2012 eq. 3).
        wins: number of topics with ``s > b``.
        losses: number of topics with ``s < b``.
        ties: number of topics with ``s == b`` (they count in ``c`` but in neither sum).
        losses_gt20: number of topics whose score fell by more than 20% relative to the
            baseline's score, i.e. ``s < 0.8 · b``. A topic where the baseline scores 0 can never
            count (the score cannot fall below 0).
        n_topics: the number of topics ``c``.
        alpha: the risk-sensitivity used for ``urisk``.
    """

    urisk: float
    risk: float
    reward: float
    gain: float
    wins: int
    losses: int
    ties: int
    losses_gt20: int
    n_topics: int
    alpha: float = 0.0

    def as_dict(self) -> dict[str, float | int]:
        """The fields as a plain ``dict`` (e.g. for a ``pandas.DataFrame`` row)."""
        return asdict(self)


def risk_reward(scores: Any, baseline: Any, alpha: float = 0.0) -> RiskReward:
    """URisk with its Risk / Reward / Gain / Wins / Losses / Loss>20% decomposition (Wang et al. 2012).

    The quantities reported in Table 1 of the 2012 paper: ``Risk`` and ``Reward`` are the
    averages over *all* ``c`` topics of the losses and of the wins (eqs. 1–2, not divided by
    the number of losing or winning topics), ``Gain = Reward − Risk`` (eq. 3) and
    ``URisk = Reward − (1 + alpha) · Risk`` (eq. 4). ``Wins``/``Losses`` count the topics that
    contribute to Reward/Risk; ties (equal scores) count in neither. ``Loss > 20%`` counts topics
    whose relative change ``(s − b) / b`` is below −20%; with ``b = 0`` the relative change is
    undefined and the topic is not counted (a score can not fall below 0).

    Args:
        scores: per-topic effectiveness of the system (array-like or Series by topic).
        baseline: per-topic effectiveness of the baseline (aligned like in :func:`urisk`).
        alpha: risk-sensitivity ``alpha >= 0``.

    Returns:
        A frozen :class:`RiskReward`.

    Example:
        >>> risk_reward([0.5, 0.2, 0.4], [0.3, 0.3, 0.4]).as_dict()["losses_gt20"]
        1
    """
    alpha = check_alpha(alpha)
    s, b, _ = as_score_pair(scores, baseline)
    c = len(s)
    delta = s - b
    win = delta > 0
    loss = delta < 0
    reward = float(np.sum(delta, where=win) / c)
    risk = float(-np.sum(delta, where=loss) / c)
    wins = int(np.count_nonzero(win))
    losses = int(np.count_nonzero(loss))
    return RiskReward(
        urisk=reward - (1.0 + alpha) * risk,
        risk=risk,
        reward=reward,
        gain=reward - risk,
        wins=wins,
        losses=losses,
        ties=c - wins - losses,
        losses_gt20=int(np.count_nonzero(loss_gt20(s, b))),
        n_topics=c,
        alpha=alpha,
    )
