r"""Significance tests for risk: randomization test, per-topic p-values, all pairs, multiple testing.

Randomization (sign-flip) tests of URisk, under one of two null hypotheses (:data:`NULLS`; the
default, :data:`DEFAULT_NULL`, is ``'symmetric'`` everywhere, in Python and in the command):

* ``null='symmetric'`` (the default) tests URisk = 0, TRisk's own hypothesis, without TRisk's t
  approximation: under H0 the risk-weighted differences :math:`x_i` (Dinçer et al. 2014, eq. 11:
  :math:`x_i = d_i` for a win, :math:`(1+\alpha)\,d_i` for a loss, :math:`d_i = s_i - b_i`) are
  symmetric about 0 (so :math:`E[x_i] = 0`, URisk = 0), and a resample flips the signs of the
  :math:`x_i` themselves, :math:`U^* = \frac1c\sum_i f_i x_i` with :math:`f_i = \pm 1`. Its null
  distribution is centred at 0 for every α.
* ``null='exchangeable'`` tests that the system and its baseline are exchangeable on every topic,
  so that each :math:`d_i` is as likely to have been :math:`-d_i` (Fisher's randomization test for
  paired data; Smucker, Allan and Carterette, CIKM 2007). A resample flips the raw differences,
  :math:`d^*_i = f_i d_i`, and recomputes URisk (Wang et al. 2012, eq. 4) on them, *then* weights
  the losses:

.. math::

    U^* = \frac1c\sum_i w(f_i d_i), \qquad w(x) = x \text{ if } x \ge 0,\ (1+\alpha)\,x \text{ otherwise}.

At α = 0 the two are one test (Fisher's, of the mean difference). The two-sided p-value is
:math:`(1 + \#\{|U^*| \ge |U|\})/(1 + B)` for ``B`` random resamples (the observed assignment
counts as one), or the exact fraction over all :math:`2^c` assignments when
:math:`2^c \le` ``n_resamples``.

What the exchangeable null means for :math:`\alpha > 0`: since :math:`|f_i d_i| = |d_i|`,
:math:`\min(f_i d_i, 0) = (f_i d_i - |d_i|)/2`, hence

.. math::

    U^* = (1 + \tfrac\alpha2)\,\bar d^* - \tfrac\alpha2\,\overline{|d|},

an increasing affine function of the flipped mean difference :math:`\bar d^*`. The null
distribution is centred at :math:`-\frac\alpha2\overline{|d|} < 0`, not at 0: a system
exchangeable with its baseline is expected to have a *negative* URisk, because its (random) losses
weigh :math:`1+\alpha`. So that test asks "is URisk further from 0 than URisk of a system
exchangeable with the baseline would be?", not "is URisk = 0?". Two consequences: its one-sided
p-values (``alternative='greater'``/``'less'``) do not depend on α (they equal those of the mean
difference), and the two-sided one does, through the distance of the null's centre from 0. This
is why the default is the symmetric null: a risk measure's p-value is about URisk = 0 (TRisk
tests :math:`E[x_i] = 0` with a t approximation; the symmetric null tests it exactly).

``statistic='trisk'`` uses the studentised statistic :math:`\bar x^*/(s_{x^*}/\sqrt c)` under the
same flips (the randomization version of TRisk; not affine in :math:`\bar d^*` when α > 0).

Tukey's HSD for IR data (:func:`compare_systems`, ``test='tukey'``) uses the two-way (systems ×
topics, no replication) ANOVA residual mean square, as Carterette (TOIS 2012) and Sakai (2014)
recommend for topic-paired scores:
:math:`MS_E = \sum_{j,i}(x_{ji} - \bar x_{j\cdot} - \bar x_{\cdot i} + \bar x)^2 / ((k-1)(c-1))`,
:math:`q = |\bar x_{a\cdot} - \bar x_{b\cdot}| / \sqrt{MS_E / c}` and the p-value from the
studentised range distribution with ``k`` groups and ``(k-1)(c-1)`` degrees of freedom
(``scipy.stats.studentized_range``, scipy >= 1.7). ``scipy.stats.tukey_hsd`` (scipy >= 1.8, used by
ranx) is the one-way version that ignores the pairing by topic.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations
from typing import Any, Final, Literal, overload

import numpy as np
import pandas as pd
from scipy import stats

from ._trisk import TRiskResult, trisk
from ._urisk import risk_weighted_differences
from ._validate import MAX_RESAMPLES, as_matrix, as_score_pair, check_alpha, check_int

__all__ = [
    "CORRECTION_METHODS",
    "DEFAULT_NULL",
    "NULLS",
    "RandomizationResult",
    "adjust_p_values",
    "compare_systems",
    "randomization_test",
    "topic_p_values",
]

_STATISTICS = ("urisk", "trisk")
#: the null hypotheses of the randomization tests (see the module docstring)
NULLS = ("symmetric", "exchangeable")
#: the null of every randomization test unless one is named, in Python and in the command alike
#: (:func:`randomization_test`, :func:`compare_systems`, ``Experiment(risk_test='randomization')``,
#: ``pyterrier-risk eval --test randomization`` and ``--all-pairs``): ``'symmetric'`` tests URisk = 0
#: (TRisk's own H0: the risk-weighted differences are symmetric about 0), the hypothesis a risk
#: measure's p-value is about; ``'exchangeable'`` tests that system and baseline are exchangeable on
#: every topic (Fisher's randomization test). The two are one test at alpha = 0.
DEFAULT_NULL: Final = "symmetric"
_ALTERNATIVES = ("two-sided", "greater", "less")
_TESTS = ("randomization", "t", "tukey")
_CELLS_PER_CHUNK = 1 << 21  # float64 cells per resampling chunk (16 MiB per temporary array)
_RTOL = 1e-12  # |T*| >= |T| is decided with this relative tolerance (summation order differs)


# -- multiple-testing corrections ----------------------------------------------------------------------

#: canonical method name -> the aliases statsmodels' ``multipletests`` accepts for it
CORRECTION_METHODS: dict[str, tuple[str, ...]] = {
    "bonferroni": ("b", "bonf", "bonferroni"),
    "sidak": ("s", "sidak"),
    "holm": ("h", "holm"),
    "holm-sidak": ("hs", "holm-sidak"),
    "simes-hochberg": ("sh", "simes-hochberg"),
    "hommel": ("ho", "hommel"),
    "fdr_bh": ("fdr_bh", "fdr_i", "fdr_p", "fdri", "fdrp"),
    "fdr_by": ("fdr_by", "fdr_n", "fdr_c", "fdrn", "fdrcorr"),
}
_ALIAS = {alias: name for name, aliases in CORRECTION_METHODS.items() for alias in aliases}


def _canonical_method(method: str) -> str:
    if not isinstance(method, str) or method.lower() not in _ALIAS:
        raise ValueError(
            f"unknown multiple-testing correction {method!r}; expected one of {', '.join(CORRECTION_METHODS)}"
        )
    return _ALIAS[method.lower()]


def _adjust_sorted(p: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values of ascending ``p`` (no NaN), before clipping to 1."""
    m = p.shape[0]
    rank = np.arange(1, m + 1, dtype=np.float64)
    down = m - rank + 1  # m, m-1, ..., 1
    if method == "bonferroni":
        return p * m
    if method in ("sidak", "holm-sidak"):
        with np.errstate(divide="ignore"):  # p = 1: log1p(-1) = -inf, adjusted to 1
            log_q = np.log1p(-p)
        if method == "sidak":
            return -np.expm1(m * log_q)
        return np.maximum.accumulate(-np.expm1(down * log_q))
    if method == "holm":
        return np.maximum.accumulate(p * down)
    if method == "simes-hochberg":
        return np.minimum.accumulate((p * down)[::-1])[::-1]
    if method == "hommel":
        return _hommel_sorted(p)
    ecdf = rank / m  # divided as statsmodels does, so that results agree to the last bit
    if method == "fdr_by":
        ecdf = ecdf / np.sum(1.0 / rank)
    return np.minimum.accumulate((p / ecdf)[::-1])[::-1]


def _hommel_sorted(p: np.ndarray) -> np.ndarray:
    """Hommel's (1988) adjusted p-values of ascending ``p`` (Wright 1992's algorithm, O(m²))."""
    a = p.copy()
    m = p.shape[0]
    for k in range(m, 1, -1):
        cim = np.min(k * p[-k:] / np.arange(1, k + 1.0))
        a[-k:] = np.maximum(a[-k:], cim)
        a[:-k] = np.maximum(a[:-k], np.minimum(k * p[:-k], cim))
    return a


@overload
def adjust_p_values(p: np.ndarray | Sequence[Any], method: str = "holm") -> np.ndarray: ...


@overload
def adjust_p_values(p: pd.DataFrame, method: str = "holm") -> pd.Series: ...


def adjust_p_values(p: Any, method: str = "holm") -> np.ndarray | pd.Series:
    r"""Adjust a family of p-values for multiple testing, as statsmodels' ``multipletests`` does.

    With the ``m`` p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`:

    * ``bonferroni``: :math:`\min(1, m\,p)`; ``sidak``: :math:`1-(1-p)^m`;
    * ``holm`` (step-down): :math:`\max_{j \le i} (m-j+1)\,p_{(j)}`; ``holm-sidak``: the same with
      :math:`1-(1-p_{(j)})^{m-j+1}`;
    * ``simes-hochberg`` (step-up): :math:`\min_{j \ge i} (m-j+1)\,p_{(j)}`; ``hommel`` (Hommel 1988);
    * ``fdr_bh`` (Benjamini–Hochberg 1995): :math:`\min_{j \ge i} \frac{m}{j} p_{(j)}`; ``fdr_by``
      (Benjamini–Yekutieli 2001): the same times :math:`\sum_{k=1}^m 1/k`;

    all capped at 1. Ties get equal adjusted values. statsmodels' short aliases (``'b'``, ``'h'``,
    ``'hs'``, ``'fdr_i'``, ...) are accepted, so a ``correction=`` string that works in
    ``pt.Experiment`` works here.

    NaN policy: a NaN p-value (for example the baseline's test against itself) is not a test; it
    stays NaN and is left out of the family (``m`` counts the other p-values).

    Args:
        p: a 1-D array-like or ``pandas.Series`` of p-values in ``[0, 1]`` (NaN allowed).
        method: one of :data:`CORRECTION_METHODS` or an alias.

    Returns:
        The adjusted p-values in the input's order (a Series on the same index for a Series).

    Raises:
        ValueError: an unknown method, a p-value outside ``[0, 1]`` or a non-1-D input.

    Example:
        >>> adjust_p_values([0.01, 0.04, 0.03], "holm")
        array([0.03, 0.06, 0.06])
    """
    method = _canonical_method(method)
    index = p.index if isinstance(p, pd.Series) else None
    values = np.asarray(p, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"p-values must be a 1-D vector, got shape {values.shape}")
    known = ~np.isnan(values)
    bad = known & ((values < 0) | (values > 1))
    if bad.any():
        where = np.flatnonzero(bad)[:5].tolist()
        raise ValueError(f"p-values must lie in [0, 1]; got {values[bad][:5].tolist()} at positions {where}")
    out = np.full(values.shape, np.nan)
    if known.any():
        kept = values[known]
        order = np.argsort(kept, kind="stable")
        adjusted = np.empty_like(kept)
        adjusted[order] = np.minimum(_adjust_sorted(kept[order], method), 1.0)
        out[known] = adjusted
    return out if index is None else pd.Series(out, index=index, name=getattr(p, "name", None))


# -- the randomization test ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RandomizationResult:
    """The outcome of :func:`randomization_test`.

    Attributes:
        statistic: the observed statistic (URisk, or the studentised TRisk for ``statistic='trisk'``).
        urisk: the observed URisk.
        p_value: the p-value of ``alternative`` (see the module docstring).
        n_resamples: the number of sign assignments compared (``2**c`` when ``exact``).
        exact: whether all ``2**c`` assignments were enumerated.
        null_mean: the mean of the statistic over those assignments (0 under the symmetric null;
            for URisk under the exchangeable null about ``-alpha/2 · mean(|d|)``, not centred at 0
            when ``alpha > 0``).
        alpha: the risk-sensitivity used.
        statistic_name: ``'urisk'`` or ``'trisk'``.
        alternative: ``'two-sided'``, ``'greater'`` or ``'less'``.
        n_topics: the number of topics ``c``.
        null: ``'symmetric'`` (flip the risk-weighted differences: H0 URisk = 0) or
            ``'exchangeable'`` (flip the differences, then weight: H0 system and baseline
            exchangeable).
    """

    statistic: float
    urisk: float
    p_value: float
    n_resamples: int
    exact: bool
    null_mean: float
    alpha: float
    statistic_name: str
    alternative: str
    n_topics: int
    null: str = DEFAULT_NULL

    def as_dict(self) -> dict[str, float | int | str | bool]:
        """The fields as a plain ``dict``."""
        return dict(self.__dict__)


def _check_choice(value: str, name: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def _check_resamples(n_resamples: int) -> int:
    return check_int(n_resamples, "n_resamples", maximum=MAX_RESAMPLES)


def _flip_chunks(c: int, n_resamples: int, seed: Any, cells_per_row: int) -> tuple[Iterator[np.ndarray], int,
                                                                                      bool]:
    """Chunks of ±1 sign rows (float64, ``(rows, c)``), their total number and whether they are exhaustive.

    All ``2**c`` assignments when ``2**c <= n_resamples`` (the identity among them), else
    ``n_resamples`` random ones from ``numpy.random.default_rng(seed)``. The random stream does not
    depend on the chunk size (one uniform double per sign).
    """
    rows = max(1, _CELLS_PER_CHUNK // max(1, cells_per_row))
    exact = c < 63 and (1 << c) <= n_resamples
    total = (1 << c) if exact else n_resamples
    bits = np.arange(c, dtype=np.int64)

    def generate() -> Iterator[np.ndarray]:
        rng = np.random.default_rng(seed)
        for start in range(0, total, rows):
            stop = min(total, start + rows)
            if exact:
                on = (np.arange(start, stop, dtype=np.int64)[:, None] >> bits) & 1
                yield 1.0 - 2.0 * on
            else:
                yield np.where(rng.random((stop - start, c)) < 0.5, -1.0, 1.0)

    return generate(), total, exact


def _flipped_statistics(flips: np.ndarray, d: np.ndarray, alpha: float, statistic: str) -> np.ndarray:
    """The statistic of every (flip row, difference row) pair: ``flips`` (b, c), ``d`` (P, c) -> (b, P).

    The flipped raw differences are weighted afterwards by the core's
    :func:`~pyterrier_risk.core.risk_weighted_differences` (losses times ``1 + alpha``).
    """
    c = d.shape[1]
    flipped = flips[:, None, :] * d[None, :, :]
    x = risk_weighted_differences(flipped, np.zeros(c), alpha)
    mean = x.mean(axis=2)
    if statistic == "urisk":
        return mean
    sd = x.std(axis=2, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (sd / np.sqrt(c))
    t[(sd == 0) & (mean == 0)] = np.nan
    return t


def _extreme(null: np.ndarray, observed: np.ndarray, alternative: str) -> np.ndarray:
    """Boolean (b, P): which null values are at least as extreme as the observed (relative tolerance)."""
    tol = _RTOL * np.abs(observed)
    if alternative == "two-sided":
        return np.abs(null) >= np.abs(observed) - tol
    if alternative == "greater":
        return null >= observed - tol
    return null <= observed + tol


def _flip_rows(s: np.ndarray, b: np.ndarray, alpha: float, null: str) -> tuple[np.ndarray, float]:
    """What is flipped, and the α applied after the flip: the raw differences, or the weighted ones."""
    if null == "exchangeable":
        return s - b, alpha
    return risk_weighted_differences(s, b, alpha), 0.0


def _sign_flip_p_values(d: np.ndarray, alpha: float, n_resamples: int, seed: Any, statistic: str,
                        alternative: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:
    """Sign-flip test of each row of ``d`` (P, c), all rows sharing one set of flips.

    Returns:
        ``(observed, p_values, null_means, n_resamples, exact)``, the first three of length P.
    """
    n_pairs, c = d.shape
    observed = _flipped_statistics(np.ones((1, c)), d, alpha, statistic)[0]
    chunks, total, exact = _flip_chunks(c, n_resamples, seed, n_pairs * c)
    count = np.zeros(n_pairs, dtype=np.int64)
    null_sum = np.zeros(n_pairs)
    for flips in chunks:
        null = _flipped_statistics(flips, d, alpha, statistic)
        count += _extreme(null, observed, alternative).sum(axis=0)
        null_sum += np.nan_to_num(null, nan=0.0, posinf=0.0, neginf=0.0).sum(axis=0)
    p = count / total if exact else (count + 1) / (total + 1)
    p[np.isnan(observed)] = 1.0  # no differences at all (trisk statistic 0/0): no evidence against H0
    return observed, np.minimum(p, 1.0), null_sum / total, total, exact


def randomization_test(
    scores: Any,
    baseline: Any,
    *,
    alpha: float = 0.0,
    n_resamples: int = 10000,
    seed: Any = 0,
    statistic: Literal["urisk", "trisk"] = "urisk",
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    null: Literal["symmetric", "exchangeable"] = DEFAULT_NULL,
) -> RandomizationResult:
    r"""Paired sign-flip (randomization) test of URisk against a baseline.

    With the default ``null='symmetric'`` (H0: URisk = 0, the risk-weighted differences :math:`x_i`
    symmetric about 0) the signs of the :math:`x_i` are flipped at random; with
    ``null='exchangeable'`` (H0: system and baseline exchangeable on every topic) the signs of the
    raw differences :math:`d_i` are flipped and URisk is recomputed on them with losses weighted
    :math:`1+\alpha` (see the module docstring: for :math:`\alpha > 0` that null distribution is
    centred at :math:`-\frac\alpha2\overline{|d|}`, not at 0). The two-sided p-value is
    :math:`(1 + \#\{|U^*| \ge |U|\}) / (1 + B)` over ``B = n_resamples`` seeded random
    assignments, or the exact fraction over all :math:`2^c` assignments when
    :math:`2^c \le` ``n_resamples``. At :math:`\alpha = 0` both nulls give Fisher's randomization
    test of the mean difference (Smucker et al., CIKM 2007). Memory is bounded: resamples are
    drawn in chunks.

    Args:
        scores: per-topic effectiveness of the system (array-like or Series by topic).
        baseline: per-topic effectiveness of the baseline, aligned like in :func:`urisk`.
        alpha: risk-sensitivity ``alpha >= 0``.
        n_resamples: the number of random sign assignments ``B``.
        seed: seed (or ``numpy.random.Generator``) of the resampling; the same seed gives the same
            p-value.
        statistic: ``'urisk'`` (the mean) or ``'trisk'`` (the mean over its standard error).
        alternative: ``'two-sided'`` (:math:`|U^*| \ge |U|`), ``'greater'`` (:math:`U^* \ge U`) or
            ``'less'`` (:math:`U^* \le U`).
        null: ``'symmetric'`` (the default, :data:`DEFAULT_NULL`: TRisk's H0 URisk = 0 with the
            weighted differences symmetric about 0: flip them) or ``'exchangeable'`` (system and
            baseline exchangeable per topic: flip the raw differences, then weight). Equal at
            ``alpha = 0``.

    Returns:
        A frozen :class:`RandomizationResult`.

    Raises:
        ValueError: bad scores (as :func:`urisk`), ``alpha < 0``, an unknown ``statistic`` or
            ``alternative``, ``n_resamples`` outside [1, 10^8], or one topic with ``statistic='trisk'``.

    Example:
        >>> r = randomization_test([0.5, 0.6, 0.7, 0.4], [0.3, 0.4, 0.5, 0.5])
        >>> r.exact, r.n_resamples, r.p_value
        (True, 16, 0.25)
    """
    alpha = check_alpha(alpha)
    _check_choice(statistic, "statistic", _STATISTICS)
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    _check_choice(null, "null", NULLS)
    n_resamples = _check_resamples(n_resamples)
    s, b, _ = as_score_pair(scores, baseline)
    if statistic == "trisk" and s.shape[0] < 2:
        raise ValueError(f"statistic='trisk' needs at least two topics (a standard error), got {s.shape[0]}")
    d, weight = _flip_rows(s, b, alpha, null)
    observed, p, null_mean, total, exact = _sign_flip_p_values(d[None, :], weight, n_resamples, seed,
                                                               statistic, alternative)
    return RandomizationResult(
        statistic=float(observed[0]), urisk=float(np.mean(risk_weighted_differences(s, b, alpha))),
        p_value=float(p[0]), n_resamples=total, exact=exact, null_mean=float(null_mean[0]), alpha=alpha,
        statistic_name=statistic, alternative=alternative, n_topics=int(s.shape[0]), null=null,
    )


# -- per-topic p-values (rmit-ir/trisk's exploratory mode) -----------------------------------------------


def topic_p_values(
    result_or_t: TRiskResult | Any,
    df: int | None = None,
    *,
    which: Literal["t_r", "t_j"] = "t_r",
    sd: Literal["sample", "population"] | None = None,
    alternative: Literal["two-sided", "greater", "less"] = "two-sided",
    distribution: Literal["t", "normal"] = "t",
) -> np.ndarray | pd.Series:
    r"""Per-topic p-values of :math:`T_{R_i}` or :math:`T_{J_i}`, as rmit-ir/trisk's ``--per-topic`` mode.

    rmit-ir/trisk (Benham & Culpepper, ADCS 2017) prints, for each topic,
    :math:`T_{R_i} = x_i / s_x` (Dinçer et al. 2014, eq. 21) and the two-sided p-value
    :math:`2\,P(T_{c-1} > |T_{R_i}|)` of Student's t with ``c - 1`` degrees of freedom, where its
    :math:`s_x` divides by ``c`` (population standard deviation). A result of
    ``trisk(..., sd='population')`` reproduces it; ``sd=`` here rescales a result computed with the
    other convention (by :math:`\sqrt{c/(c-1)}` from ``'sample'`` to ``'population'``). These p-values
    are exploratory (they flag topics with large risk-weighted differences); a single :math:`x_i/s_x`
    is not t-distributed, and over ``c`` topics they are a
    family to correct (:func:`adjust_p_values`).

    Args:
        result_or_t: a :class:`TRiskResult` from :func:`trisk`, or per-topic T values (array or
            Series) with their ``df``.
        df: degrees of freedom; taken from the result when one is given (``c - 1``).
        which: ``'t_r'`` or ``'t_j'`` of a result (equal for URisk, see :mod:`._trisk`).
        sd: ``'sample'`` (divisor ``c - 1``) or ``'population'`` (``c``, rmit-ir/trisk's); None: the
            result's own (``TRiskResult.sd``); only with a result.
        alternative: ``'two-sided'``, ``'greater'`` (a win) or ``'less'`` (a loss).
        distribution: ``'t'`` (Student's t with ``df``, as rmit-ir/trisk) or ``'normal'``.

    Returns:
        One p-value per topic (a Series on the topic index when the T values are a Series). A NaN
        T stays NaN.

    Raises:
        ValueError: an unknown option, ``sd='population'`` without a result, or a missing/bad ``df``
            for the t distribution.

    Example:
        >>> r = trisk([0.5, 0.2, 0.4, 0.6], [0.3, 0.3, 0.4, 0.2])
        >>> topic_p_values(r).round(3)
        array([0.434, 0.683, 1.   , 0.169])
    """
    _check_choice(which, "which", ("t_r", "t_j"))
    if sd is not None:
        _check_choice(sd, "sd", ("sample", "population"))
    _check_choice(alternative, "alternative", _ALTERNATIVES)
    _check_choice(distribution, "distribution", ("t", "normal"))
    if isinstance(result_or_t, TRiskResult):
        t, df = getattr(result_or_t, which), result_or_t.df
        if sd is not None and sd != result_or_t.sd:  # the other convention: rescale by sqrt(c/(c-1))
            t = t * np.sqrt((df + 1) / df) ** (1 if sd == "population" else -1)
    elif sd is not None and sd != "sample":
        raise ValueError("sd='population' needs a TRiskResult (the number of topics), not bare T values")
    else:
        t = result_or_t
    index = t.index if isinstance(t, pd.Series) else None
    values = np.asarray(t, dtype=np.float64)
    if distribution == "t":
        if df is None or isinstance(df, bool) or not np.isfinite(df) or df <= 0:
            raise ValueError(f"the t distribution needs degrees of freedom df > 0, got {df!r}")
        dist = stats.t(df)
    else:
        dist = stats.norm()
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * dist.sf(np.abs(values)))
    else:
        p = dist.sf(values) if alternative == "greater" else dist.cdf(values)
    return p if index is None else pd.Series(p, index=index, name="p_value")


# -- all-pairs comparisons ---------------------------------------------------------------------------------


def _tukey_blocked(values: np.ndarray, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Tukey HSD q and p-value for ``pairs`` of rows of a systems × topics matrix (two-way ANOVA error)."""
    k, c = values.shape
    residual = values - values.mean(axis=1, keepdims=True) - values.mean(axis=0, keepdims=True)
    residual += values.mean()
    df_error = (k - 1) * (c - 1)
    mse = float(np.sum(residual**2) / df_error)
    means = values.mean(axis=1)
    diff = np.array([means[a] - means[b] for a, b in pairs])
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(diff) / np.sqrt(mse / c)
    p = stats.studentized_range.sf(q, k, df_error)
    p = np.where(np.isnan(q), 1.0, p)  # 0/0: every system scores the same on every topic
    return q, np.clip(p, 0.0, 1.0)


def _pair_p_values(values: np.ndarray, pairs: list[tuple[int, int]], test: str, alpha: float,
                   n_resamples: int, seed: Any, statistic: str, null: str) -> tuple[np.ndarray, np.ndarray]:
    """The statistic and p-value of each pair (a, b), b being the baseline."""
    if test == "tukey":
        return _tukey_blocked(values, pairs)
    if test == "t":
        results = [trisk(values[a], values[b], alpha) for a, b in pairs]
        return np.array([r.trisk for r in results]), np.array([r.p_value for r in results])
    flipped = [_flip_rows(values[a], values[b], alpha, null) for a, b in pairs]
    d, weight = np.stack([f[0] for f in flipped]), flipped[0][1]
    observed, p, _, _, _ = _sign_flip_p_values(d, weight, n_resamples, seed, statistic, "two-sided")
    return observed, p


def compare_systems(
    matrix: Any,
    *,
    test: Literal["randomization", "t", "tukey"] = "randomization",
    alpha: float = 0.0,
    correction: str | None = None,
    level: float = 0.05,
    n_resamples: int = 10000,
    seed: Any = 0,
    statistic: Literal["urisk", "trisk"] = "urisk",
    both_directions: bool = False,
    null: Literal["symmetric", "exchangeable"] = DEFAULT_NULL,
) -> pd.DataFrame:
    r"""All-pairs comparisons of the listed systems: URisk of each against each, with a test and a correction.

    For each pair, ``system_b`` is the baseline of ``system_a``: ``urisk`` is URisk of ``a``
    against ``b`` (Wang et al. 2012, eq. 4; the mean difference at ``alpha = 0``).

    * ``'randomization'``: the two-sided paired sign-flip test of :func:`randomization_test`, every
      pair using one shared set of ``n_resamples`` flips (exact enumeration when
      :math:`2^c \le` ``n_resamples``); ``statistic`` is the observed URisk (or TRisk).
    * ``'t'``: TRisk's t-test (:func:`trisk`; the paired t-test at ``alpha = 0``); ``statistic`` is
      TRisk.
    * ``'tukey'``: Tukey's HSD with the two-way ANOVA error (see the module docstring); it compares
      mean effectiveness, so ``alpha`` must be 0, and its p-values already control the family-wise
      error, so ``correction`` must be ``None``; ``statistic`` is the studentised range ``q``.

    Args:
        matrix: systems × topics scores (a ``DataFrame`` with systems as index and topics as
            columns, or a 2-D array whose systems are then named 0, 1, ...).
        test: ``'randomization'``, ``'t'`` or ``'tukey'``.
        alpha: risk-sensitivity ``alpha >= 0``.
        correction: a :func:`adjust_p_values` method applied across all the pairs, or ``None``.
        level: significance level for the ``significant`` column (``p_adjusted <= level``).
        n_resamples: random sign assignments for ``'randomization'``.
        seed: seed of the randomization.
        statistic: ``'urisk'`` or ``'trisk'`` for ``'randomization'``.
        both_directions: list each ordered pair (a against b and b against a); with ``alpha > 0``
            URisk is not antisymmetric. Default: each unordered pair once, in listing order.
        null: the randomization test's null (default :data:`DEFAULT_NULL`, ``'symmetric'``: URisk
            = 0; see :func:`randomization_test`).

    Returns:
        A DataFrame with one row per pair: ``system_a``, ``system_b``, ``mean_diff``, ``urisk``,
        ``statistic``, ``p_value``, ``p_adjusted``, ``significant``; ``attrs`` records ``test``,
        ``alpha``, ``correction``, ``level`` and, for the randomization test, ``n_resamples``
        and ``exact``.

    Raises:
        ValueError: fewer than two systems or topics, bad scores, an unknown ``test`` or
            ``correction``, ``alpha > 0`` or a correction with ``'tukey'``, ``level`` outside (0, 1).
    """
    alpha = check_alpha(alpha)
    _check_choice(test, "test", _TESTS)
    _check_choice(statistic, "statistic", _STATISTICS)
    _check_choice(null, "null", NULLS)
    n_resamples = _check_resamples(n_resamples)
    if not (isinstance(level, (int, float)) and 0 < level < 1):
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    if test == "tukey" and alpha != 0:
        raise ValueError("Tukey's HSD compares mean effectiveness: alpha must be 0 (or use 'randomization')")
    if test == "tukey" and correction is not None:
        raise ValueError("Tukey's HSD p-values already control the family-wise error: use correction=None")
    method = None if correction is None else _canonical_method(correction)
    values, systems, _ = as_matrix(matrix, min_systems=2, min_topics=2)
    names = list(systems) if systems is not None else list(range(values.shape[0]))
    pairs = list((permutations if both_directions else combinations)(range(values.shape[0]), 2))
    stat, p = _pair_p_values(values, pairs, test, alpha, n_resamples, seed, statistic, null)
    x = [risk_weighted_differences(values[a], values[b], alpha) for a, b in pairs]
    p_adj = p.copy() if method is None else adjust_p_values(p, method)
    out = pd.DataFrame({
        "system_a": [names[a] for a, _ in pairs], "system_b": [names[b] for _, b in pairs],
        "mean_diff": [float(np.mean(values[a] - values[b])) for a, b in pairs],
        "urisk": [float(np.mean(v)) for v in x], "statistic": stat, "p_value": p, "p_adjusted": p_adj,
        "significant": p_adj <= level,
    })
    out.attrs.update(test=test, alpha=alpha, correction=method, level=level)
    if test == "randomization":
        c = values.shape[1]
        exact = c < 63 and (1 << c) <= n_resamples
        out.attrs.update(n_resamples=(1 << c) if exact else n_resamples, exact=exact, statistic=statistic,
                         null=null)
    return out
