r"""TRisk: URisk studentised by its standard error (Dinçer, Macdonald and Ounis, SIGIR 2014).

Per topic ``i`` the risk-reward score is (2014 eq. 11)

.. math::

    x_i = \begin{cases} \delta_i & \delta_i \ge 0 \\ (1+\alpha)\,\delta_i & \delta_i < 0 \end{cases},
    \qquad \delta_i = s_i - b_i,

URisk is their mean :math:`\bar x` (eq. 13) and :math:`T_{Risk} = \bar x / SE(\bar x)` (eq. 10),
tested against Student's t with ``c - 1`` degrees of freedom. At ``alpha = 0`` this is exactly
the paired t-test.

Standard errors. The parametric estimate (eq. 12) is :math:`SE_{\bar x} = s_x/\sqrt{c}` with
the *sample* standard deviation :math:`s_x` (divisor ``c - 1``; the paper prints ``c^{-1}``, but
only ``c - 1`` reproduces the paired t-test at ``alpha = 0`` and the paper's own Table 1, where
:math:`SE_{\bar x} = SE_J` to four decimals). The jackknife estimate (eqs. 15–17) uses the
leave-one-out means :math:`\bar x_{(i)} = (\sum_k x_k - x_i)/(c-1)`:

.. math::

    var_J = \frac{c-1}{c}\sum_i (\bar x_{(i)} - \bar x_{(\cdot)})^2 .

Since :math:`\bar x_{(i)} - \bar x_{(\cdot)} = (\bar x - x_i)/(c-1)`, this is
:math:`\sum_i (x_i-\bar x)^2 / (c(c-1)) = s_x^2/c`: for a mean the two standard errors are equal
(up to rounding). Both are computed here independently, in O(c) without a loop over topics.

Per-topic scores (2014 §5.1). :math:`T_{R_i} = x_i / s_x` (eq. 21), so that
:math:`T_{Risk} = \frac{\sqrt c}{c}\sum_i T_{R_i}` (eq. 20). The jackknife analogue (eqs. 22–23,
garbled in the text) is derived from Tukey's pseudo-values
:math:`\tilde\theta_i = c\,\hat\theta - (c-1)\,\hat\theta_{(i)}`: because
:math:`\hat\theta = \frac1c\sum_i\tilde\theta_i`,

.. math::

    T_{Risk} = \frac{\hat\theta}{SE_J} = \frac{\sqrt c}{c}\sum_i T_{J_i}, \qquad
    T_{J_i} = \frac{\tilde\theta_i}{\sqrt c\, SE_J}
            = \frac{\bar x + (c-1)(\bar x - \bar x_{(i)})}{\sqrt c\, SE_J},

the same decomposition as eq. 20. A topic with a loss (``x_i < 0``) has a negative
:math:`T_{J_i}`, as in the paper's Figure 2. For URisk the pseudo-value of topic ``i`` is
exactly ``x_i`` and ``sqrt(c)·SE_J = s_x``, so :math:`T_{J_i} = T_{R_i}` — the paper's remark
that it found "no differences between T_R and T_J". (Read literally, eq. 23's
:math:`\sqrt{c-1}(\hat\theta_{(i)}-\hat\theta)/SE_J` is centred and has the opposite sign: it
sums to 0, so eq. 22 could not hold, and it would make a loss topic positive, unlike Figure 2.)

Numerical stability for any finite α. :math:`T_{Risk}`, :math:`T_{R_i}` and :math:`T_{J_i}` are
invariant to scaling every :math:`x_i` by the same positive factor, so they are computed from
:math:`y_i = x_i/k` with :math:`k = \max_i |x_i|`, formed without forming :math:`x_i`: with a
loss as the largest, :math:`y_i = \delta_i/\max|\delta^-|` for a loss and
:math:`\delta_i/((1+\alpha)\max|\delta^-|)` for a win. The :math:`y_i` lie in [−1, 1] however
large α is, where :math:`x_i` and their squares overflow (at α = 1e200 the squared deviations of
:math:`x` are infinite, and the naive TRisk is −0.0 with p = 1), and where :math:`x_i/(1+\alpha)`
without a loss would underflow when squared. As α → ∞, :math:`y_i \to \min(\delta_i, 0)/\max|\delta^-|`:
TRisk tends to the one-sample t statistic of the losses alone, a finite number (without a loss it
does not depend on α). ``urisk``, ``se`` and ``x`` are :math:`k` times their scaled counterparts;
they are ``±inf`` only where the true value exceeds the float64 range (about 1.8e308).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from scipy import stats

from ._urisk import flat_differences, risk_weighted_differences, summand_sd
from ._validate import as_score_pair, check_alpha, wrap_topics

__all__ = ["TRiskResult", "trisk", "jackknife_se"]

_SE_METHODS = ("parametric", "jackknife")
#: the standard deviation conventions of TRisk, ``T_R`` and ``T_J``: ``s_x`` divides by ``c - 1``
#: (``'sample'``, the default) or by ``c`` (``'population'``, as rmit-ir/trisk)
SD_CONVENTIONS = ("sample", "population")


@dataclass(frozen=True, eq=False)  # per-topic arrays: compare results field by field
class TRiskResult:
    r"""The outcome of :func:`trisk`.

    Attributes:
        trisk: ``urisk / se``, the t statistic (``nan`` when ``urisk`` and ``se`` are both 0;
            ``±inf`` when only ``se`` is 0, as ``scipy.stats.ttest_rel`` does).
        urisk: URisk, the mean of ``x``.
        se: the standard error used (``se_method``).
        p_value: two-sided p-value of ``trisk`` under Student's t with ``df`` degrees of freedom.
        df: degrees of freedom, ``c - 1``.
        x: per-topic risk-weighted differences ``x_i`` (2014 eq. 11).
        t_r: per-topic :math:`T_{R_i} = x_i / s_x` (2014 eq. 21).
        t_j: per-topic jackknife :math:`T_{J_i} = \tilde\theta_i / (\sqrt c\, SE_J)` (see the module
            docstring for the derivation); negative for a loss. When all ``x_i`` are equal, up to
            rounding (:func:`~pyterrier_risk.core._urisk.rounding_bound`: a constant difference 0.1
            leaves a standard deviation of 1e-17), both standard errors are 0 and ``trisk``,
            ``t_r`` and ``t_j`` are ``±inf`` (p = 0), or ``nan`` when the ``x_i`` are all 0.
        alpha: the risk-sensitivity used.
        se_method: ``'parametric'`` or ``'jackknife'``.
        se_parametric: :math:`s_x/\sqrt c` (2014 eq. 12).
        se_jackknife: :math:`\sqrt{var_J}` (2014 eq. 17).
        sd: ``'sample'`` or ``'population'``: the divisor of :math:`s_x` behind ``trisk``, ``se``,
            ``t_r`` and ``t_j`` (see :func:`trisk`).
    """

    trisk: float
    urisk: float
    se: float
    p_value: float
    df: int
    x: np.ndarray | pd.Series = field(repr=False)
    t_r: np.ndarray | pd.Series = field(repr=False)
    t_j: np.ndarray | pd.Series = field(repr=False)
    alpha: float = 0.0
    se_method: str = "parametric"
    se_parametric: float = float("nan")
    se_jackknife: float = float("nan")
    sd: str = "sample"

    @property
    def n_topics(self) -> int:
        """The number of topics ``c``."""
        return self.df + 1

    def as_dict(self) -> dict[str, float | int | str]:
        """The scalar fields as a plain ``dict``."""
        return {
            "trisk": self.trisk,
            "urisk": self.urisk,
            "se": self.se,
            "p_value": self.p_value,
            "df": self.df,
            "alpha": self.alpha,
            "se_method": self.se_method,
            "sd": self.sd,
        }

    def per_topic(self) -> pd.DataFrame:
        """``x``, ``t_r`` and ``t_j`` as one DataFrame (indexed by topic when Series were given)."""
        return pd.DataFrame({"x": self.x, "t_r": self.t_r, "t_j": self.t_j})


def jackknife_se(x: np.ndarray) -> tuple[float, np.ndarray]:
    """Jackknife standard error of the mean of ``x`` and the leave-one-out means, in O(c).

    Args:
        x: a 1-D float array with at least two values.

    Returns:
        ``(se_j, loo)`` where ``loo[i]`` is the mean of ``x`` without ``x[i]`` (2014 eqs. 15–17).
    """
    c = x.shape[0]
    loo = (x.sum() - x) / (c - 1)
    dev = loo - loo.mean()
    return float(np.sqrt((c - 1) / c * np.dot(dev, dev))), loo


def _scaled_differences(scores: np.ndarray, baseline: np.ndarray, alpha: float) -> tuple[np.ndarray, float]:
    """``(y, k)`` with ``x = k · y``, ``max|y| = 1``, computed without forming ``x`` (no overflow).

    ``k`` is the largest ``|x_i|``: ``(1 + alpha)`` times the largest loss, or the largest win.
    Scaling by it keeps ``y`` in [-1, 1] for any finite ``alpha``, where ``x`` (at ``alpha = 1e200``)
    or ``x / (1 + alpha)`` without a loss (their squares underflow) would not (see the module
    docstring). At ``alpha = 0`` ``y`` is ``x`` itself and ``k = 1``.
    """
    d = scores - baseline
    if not alpha:
        return d, 1.0
    one_plus = 1.0 + alpha
    loss = d < 0
    worst = float(-d.min()) if loss.any() else 0.0  # the largest |delta| of a loss
    best = float(d.max()) if (d > 0).any() else 0.0  # the largest win
    if worst == 0.0 and best == 0.0:
        return d, 1.0
    if worst > 0.0 and worst >= best / one_plus:  # the largest |x_i| is a loss: (1 + alpha) · worst
        y = np.where(loss, d / worst, d / worst / one_plus)
        with np.errstate(over="ignore"):  # inf only if that |x_i| itself exceeds the float64 range
            return y, float(one_plus * worst)
    return np.where(loss, d / best * one_plus, d / best), best


def _urisk_of(x: np.ndarray, y: np.ndarray, scale: float) -> float:
    """The mean of ``x`` (URisk); ``scale * mean(y)`` (``x = scale · y``) where summing ``x`` overflows.

    ``scale * mean(y)`` is ``±inf`` only when URisk itself lies beyond the float64 range.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        mean = float(x.mean())
        if not np.isfinite(mean):
            mean = float(scale * y.mean())
    return mean


def _studentise(
    y: np.ndarray, se: str, flat: int | None
) -> tuple[float, np.ndarray, np.ndarray, float, float]:
    """``(t, t_r, t_j, se_parametric, se_jackknife)`` of the (scaled) risk-weighted differences ``y``.

    ``flat``: :func:`flat_differences` of the scores; when not None the differences are equal up to
    rounding, both standard errors are 0, and ``t``, ``t_r``, ``t_j`` are ``±inf`` (the sign of the
    mean) or NaN (the mean is 0 too), not the quotient of rounding residues.
    """
    c = y.shape[0]
    if flat is not None:
        t = float("nan") if flat == 0 else float(np.copysign(np.inf, flat))
        return t, np.full(c, t), np.full(c, t), 0.0, 0.0
    mean = float(y.mean())
    sd = summand_sd(y)
    se_param = sd / float(np.sqrt(c))
    se_jack, loo = jackknife_se(y)
    t = _t_statistic(mean, se_param if se == "parametric" else se_jack)
    pseudo = c * mean - (c - 1) * loo
    with np.errstate(divide="ignore", invalid="ignore"):
        t_r = y / sd
        t_j = pseudo / (np.sqrt(c) * se_jack)
    return t, t_r, t_j, se_param, se_jack


def _t_statistic(num: float, den: float) -> float:
    if den > 0:
        return num / den
    return float("nan") if num == 0 else float(np.copysign(np.inf, num))


def trisk(
    scores: Any,
    baseline: Any,
    alpha: float = 0.0,
    se: Literal["parametric", "jackknife"] = "parametric",
    *,
    sd: Literal["sample", "population"] = "sample",
) -> TRiskResult:
    r"""TRisk = URisk / SE(URisk), with its p-value and per-topic T_R and T_J (Dinçer et al. 2014).

    ``TRisk`` (2014 eq. 10) is Student's t statistic for URisk: with ``c`` topics and
    ``df = c − 1``, ``|TRisk| > t(0.975, df)`` (about 2 for 50 topics) means the risk (or
    reward) is significant at 0.05. At ``alpha = 0`` ``trisk`` and ``p_value`` equal
    ``scipy.stats.ttest_rel(scores, baseline)``. See the module docstring for the SE estimators
    and the derivation of ``t_j``.

    Args:
        scores: per-topic effectiveness of the system (array-like or Series by topic).
        baseline: per-topic effectiveness of the baseline, aligned like in :func:`urisk`.
        alpha: risk-sensitivity ``alpha >= 0``; any finite value (the t statistic is computed in a
            scaled form that does not overflow, see the module docstring).
        se: ``'parametric'`` (2014 eq. 12, :math:`s_x/\sqrt c`) or ``'jackknife'`` (eq. 17).
        sd: the divisor of the standard deviation :math:`s_x`, for TRisk, ``t_r`` and ``t_j`` alike:
            ``'sample'`` (``c - 1``, the default: the paper's t-test reading, ``ttest_rel`` at
            α = 0, and its Table 1's :math:`SE = SE_J`) or ``'population'`` (``c``, as
            rmit-ir/trisk). ``'population'`` multiplies both standard errors by
            :math:`\sqrt{(c-1)/c}`, hence ``trisk``, ``t_r`` and ``t_j`` by :math:`\sqrt{c/(c-1)}`;
            the p-value stays Student's t with ``c - 1`` degrees of freedom.

    Returns:
        A :class:`TRiskResult`; its per-topic arrays are Series indexed by topic when a Series
        was given.

    Raises:
        ValueError: fewer than two topics, an unknown ``se`` or ``sd``, or any :func:`urisk` input error.

    Example:
        >>> r = trisk([0.5, 0.2, 0.4, 0.6], [0.3, 0.3, 0.4, 0.2], alpha=1.0)
        >>> round(r.trisk, 3), r.df
        (0.775, 3)
    """
    if se not in _SE_METHODS:
        raise ValueError(f"se must be one of {_SE_METHODS}, got {se!r}")
    if sd not in SD_CONVENTIONS:
        raise ValueError(f"sd must be one of {SD_CONVENTIONS}, got {sd!r}")
    alpha = check_alpha(alpha)
    s, b, index = as_score_pair(scores, baseline)
    c = s.shape[0]
    if c < 2:
        raise ValueError(f"TRisk needs at least two topics to estimate a standard error, got {c}")
    with np.errstate(over="ignore"):  # ±inf only where |x_i| exceeds the float64 range
        x = risk_weighted_differences(s, b, alpha)
    y, scale = _scaled_differences(s, b, alpha)  # x = scale · y, without overflow or underflow
    t, t_r, t_j, se_param, se_jack = _studentise(y, se, flat_differences(s, b))
    if sd == "population":  # s_x divides by c: every SE shrinks, every t grows by sqrt(c/(c-1))
        shrink = float(np.sqrt((c - 1) / c))
        t, t_r, t_j = t / shrink, t_r / shrink, t_j / shrink
        se_param, se_jack = se_param * shrink, se_jack * shrink
    p = float(2.0 * stats.t.sf(abs(t), c - 1)) if not np.isnan(t) else float("nan")
    with np.errstate(over="ignore"):
        se_param, se_jack = scale * se_param, scale * se_jack
    se_value = se_param if se == "parametric" else se_jack
    return TRiskResult(
        trisk=float(t),
        urisk=_urisk_of(x, y, scale),
        se=float(se_value),
        p_value=p,
        df=c - 1,
        x=wrap_topics(x, index, "x"),
        t_r=wrap_topics(t_r, index, "t_r"),
        t_j=wrap_topics(t_j, index, "t_j"),
        alpha=alpha,
        se_method=se,
        se_parametric=float(se_param),
        se_jackknife=float(se_jack),
        sd=sd,
    )
