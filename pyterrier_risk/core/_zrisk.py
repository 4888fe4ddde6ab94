r"""ZRisk and GeoRisk over a systems × topics matrix (Dinçer, Macdonald and Ounis, SIGIR 2016).

For a matrix :math:`X` of ``r`` systems (rows) × ``c`` topics (columns) with row totals
:math:`S_i`, column totals :math:`T_j` and grand total :math:`N`, the chi-square expectation of
cell ``(i, j)`` is :math:`e_{ij} = S_i T_j / N = S_i p_j` (2016 eq. 5) and its standardised
deviation is :math:`z_{ij} = (x_{ij} - e_{ij}) / \sqrt{e_{ij}}` (the square roots of the
components of Pearson's statistic, eq. 4). Then (eqs. 6–7)

.. math::

    ZRisk_i = \sum_{j: z_{ij} > 0} z_{ij} + (1+\alpha)\sum_{j: z_{ij} < 0} z_{ij}, \qquad
    GeoRisk_i = \sqrt{\frac{S_i}{c}\,\Phi\!\Big(\frac{ZRisk_i}{c}\Big)}

with :math:`\Phi` the standard normal CDF. Every row is scored with all rows as the baselines;
with two rows it is the single-baseline case of the paper's §4.1.

Zero expectations. Scores are non-negative, so :math:`e_{ij} = 0` only when the topic's column
is all zeros (:math:`T_j = 0`, no system retrieves anything relevant) or the system's row is all
zeros (:math:`S_i = 0`); in both cases :math:`x_{ij} = 0 = e_{ij}` too. Such a cell shows no
deviation from its expectation and we define :math:`z_{ij} = 0`: the topic (or system)
contributes nothing to ZRisk. Hence an all-zero system has ZRisk 0 and GeoRisk 0, and adding or
removing an all-zero topic leaves every ZRisk unchanged (GeoRisk still divides by ``c``).

Speed. With :math:`u_{ij} = x_{ij}/p_j - S_i` one has :math:`z_{ij} = \sqrt{p_j}\,u_{ij}/\sqrt{S_i}`
and the sign of :math:`z_{ij}` is that of :math:`u_{ij}`, so

.. math::

    \sum_j z_{ij} = \frac{1}{\sqrt{S_i}}\sum_j \sqrt{p_j}\,u_{ij}, \qquad
    \sum_j \min(z_{ij}, 0) = \frac{1}{\sqrt{S_i}}\sum_j \sqrt{p_j}\,\min(u_{ij}, 0):

two matrix–vector products on :math:`u`, which is built block by block of rows small enough to
stay in the CPU cache. Nothing of the matrix's size is allocated (see ``benchmarks/bench_zrisk.py``).
The price is some cancellation: on 1,000 systems × 10,000 topics the result agrees with a literal
transcription of the formulas to about 1e-12 in absolute terms, far below any printed precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, overload

import numpy as np
import pandas as pd
from scipy.special import ndtr

from ._validate import as_matrix_with_row_sums, check_alpha

__all__ = [
    "zrisk", "georisk", "z_scores", "zrisk_components", "georisk_curve", "row_z_scores", "georisk_from_zrisk",
]  # fmt: skip

# elements per block of u: 64 Ki float64 = 512 KiB, which stays in a typical L2 cache
_BLOCK_ELEMENTS = 1 << 16
# below this topic mass the fast path's 1 / p_j could overflow; such data (subnormal scores)
# takes a slightly slower path that never forms 1 / p_j
_TINY_MASS = 1e-150


def _wrap_systems(values: np.ndarray, systems: pd.Index | None, name: str) -> np.ndarray | pd.Series:
    if systems is None:
        return values
    return pd.Series(values, index=systems, name=name)


def _negative_tiny_mass(
    x: np.ndarray, row_sums: np.ndarray, sqrt_p: np.ndarray, inv_sqrt_p: np.ndarray
) -> np.ndarray:
    """Per system sum_j sqrt(p_j) min(u_ij, 0), without ever forming 1 / p_j.

    Uses ``sqrt(p_j) min(u_ij, 0) = min(x_ij / sqrt(p_j), S_i sqrt(p_j)) - S_i sqrt(p_j)``, where
    ``x_ij / sqrt(p_j) <= N sqrt(p_j)`` cannot overflow. One operation per cell more than the
    fast path, so it only serves matrices with a topic mass below ``_TINY_MASS`` (subnormal
    scores), where ``1 / p_j`` would overflow.
    """
    r, c = x.shape
    out = np.empty(r)
    rows = max(1, _BLOCK_ELEMENTS // c)
    v_buf = np.empty((min(rows, r), c))
    w_buf = np.empty_like(v_buf)
    for start in range(0, r, rows):
        stop = min(start + rows, r)
        v, w = v_buf[: stop - start], w_buf[: stop - start]
        np.multiply(x[start:stop], inv_sqrt_p, out=v)
        np.multiply.outer(row_sums[start:stop], sqrt_p, out=w)
        np.minimum(v, w, out=v)
        out[start:stop] = v.sum(axis=1)
    return out


def _components(x: np.ndarray, row_sums: np.ndarray, want_negative: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per system: the sum of z_ij and the sum of its negative z_ij (zeros if not ``want_negative``)."""
    r, c = x.shape
    total_z = np.zeros(r)
    negative_z = np.zeros(r)
    total = row_sums.sum()
    if total <= 0:  # all-zero matrix: every e_ij = 0, every z_ij = 0 by definition
        return total_z, negative_z
    p = (np.ones(r) @ x) / total
    live = p > 0
    sqrt_p = np.sqrt(p)
    sum_sqrt_p = sqrt_p.sum()
    inv_sqrt_p = np.zeros(c)
    np.divide(1.0, sqrt_p, out=inv_sqrt_p, where=live)  # zero columns: z_ij = 0, they add nothing
    sqrt_s = np.sqrt(row_sums)
    # sum_j sqrt(p_j) u_ij = sum_j x_ij / sqrt(p_j) - S_i sum_j sqrt(p_j): one matrix-vector product
    total_z = x @ inv_sqrt_p - row_sums * sum_sqrt_p
    if want_negative and p[live].min() < _TINY_MASS:
        negative_z = _negative_tiny_mass(x, row_sums, sqrt_p, inv_sqrt_p) - row_sums * sum_sqrt_p
    elif want_negative:
        # sum_j sqrt(p_j) min(u_ij, 0) = sum_j sqrt(p_j) min(x_ij / p_j, S_i) - S_i sum_j sqrt(p_j)
        inv_p = inv_sqrt_p * inv_sqrt_p
        rows = max(1, _BLOCK_ELEMENTS // c)
        buf = np.empty((min(rows, r), c))
        for start in range(0, r, rows):
            stop = min(start + rows, r)
            u = buf[: stop - start]
            np.multiply(x[start:stop], inv_p, out=u)
            np.minimum(u, row_sums[start:stop, None], out=u)
            negative_z[start:stop] = u @ sqrt_p
        negative_z -= row_sums * sum_sqrt_p
        # a cell with z_ij >= 0 contributes exactly 0, but the subtraction above may leave rounding
        # residue of either sign; a sum of non-positive terms is never positive
        np.minimum(negative_z, 0.0, out=negative_z)
    scale = np.zeros(r)
    np.divide(1.0, sqrt_s, out=scale, where=row_sums > 0)  # all-zero rows: z_ij = 0
    return total_z * scale, negative_z * scale


def zrisk_components(matrix: Any) -> pd.DataFrame | dict[str, np.ndarray]:
    r"""The alpha-free parts of ZRisk: per system :math:`\sum_j z_{ij}`, :math:`\sum_j \min(z_{ij},0)`, mean.

    ``ZRisk_i(alpha) = total + alpha * negative``, so one call serves any number of alphas.

    Args:
        matrix: systems × topics scores (2-D array or DataFrame, systems as index).

    Returns:
        For a DataFrame, a DataFrame indexed by system with columns ``total``, ``negative`` and
        ``mean`` (:math:`S_i/c`); otherwise a dict of arrays with the same keys.
    """
    x, row_sums, systems, _ = as_matrix_with_row_sums(matrix, min_systems=2, min_topics=1)
    total, negative = _components(x, row_sums, want_negative=True)
    parts = {"total": total, "negative": negative, "mean": row_sums / x.shape[1]}
    if systems is None:
        return parts
    return pd.DataFrame(parts, index=systems)


def z_scores(matrix: Any) -> np.ndarray | pd.DataFrame:
    r"""The standardised chi-square deviations z_ij of every cell (Dinçer et al. 2016, eqs. 4–5).

    :math:`e_{ij} = S_i T_j / N`. Cells with :math:`e_{ij} = 0` (an all-zero topic column or an
    all-zero system row) get :math:`z_{ij} = 0`. This materialises the whole matrix of z-scores
    for exploratory use (e.g. the per-topic contributions of each system); :func:`zrisk` does not
    need it.

    Args:
        matrix: systems × topics scores (2-D array, or a DataFrame with systems as index and
            topics as columns), at least two systems.

    Returns:
        An array of the same shape, or a DataFrame with the same labels.

    Example:
        >>> s2, s1 = [0.40, 0.35, 0.30, 0.25, 0.20], [0.05, 0.15, 0.30, 0.45, 0.55]
        >>> z_scores([s2, s1])[0].round(4)  # 2016 Table 4, "s2 vs. s1"
        array([ 0.3689,  0.2   ,  0.    , -0.169 , -0.2858])
    """
    x, row_sums, systems, topics = as_matrix_with_row_sums(matrix, min_systems=2, min_topics=1)
    z = row_z_scores(x, row_sums[:, None], x.sum(axis=0), float(row_sums.sum()))
    if systems is None:
        return z
    return pd.DataFrame(z, index=systems, columns=topics)


def row_z_scores(row: np.ndarray, row_sum: Any, col_sums: np.ndarray, total: float) -> np.ndarray:
    r"""The z of the cells of one row (or rows, broadcasting): :math:`(x - e)/\sqrt e`, :math:`e = S T_j / N`.

    The one definition of the 2016 paper's eqs. 4–5, used by :func:`z_scores` and by the GeoRisk
    learning objective (which needs only the model's row). Cells with :math:`e \le 0` get 0.

    Args:
        row: the row's cells :math:`x_{ij}`.
        row_sum: its total :math:`S_i` (a column vector for several rows).
        col_sums: the topic totals :math:`T_j`.
        total: the grand total :math:`N`.
    """
    shape = np.broadcast(row, col_sums).shape
    expected = np.broadcast_to(row_sum * (col_sums / total), shape) if total > 0 else np.zeros(shape)
    z = np.zeros(shape)
    live = expected > 0
    np.divide(row - expected, np.sqrt(np.where(live, expected, 1.0)), out=z, where=live)
    return z


def georisk_from_zrisk(row_sum: Any, zrisk_value: Any, c: int) -> Any:
    r"""GeoRisk from a row total and its ZRisk: :math:`\sqrt{S_i/c \cdot \Phi(ZRisk_i/c)}` (2016 eq. 7)."""
    return np.sqrt(np.maximum(row_sum, 0.0) / c * ndtr(np.asarray(zrisk_value) / c))


@overload
def zrisk(matrix: np.ndarray | Sequence[Any], alpha: float = 0.0) -> np.ndarray: ...


@overload
def zrisk(matrix: pd.DataFrame, alpha: float = 0.0) -> pd.Series: ...


def zrisk(matrix: Any, alpha: float = 0.0) -> np.ndarray | pd.Series:
    r"""ZRisk of every system, with all systems as the baselines (Dinçer et al. 2016, eq. 6).

    .. math::

        ZRisk_i = \sum_{j \in Q_+} z_{ij} + (1+\alpha)\sum_{j \in Q_-} z_{ij},
        \qquad z_{ij} = \frac{x_{ij} - e_{ij}}{\sqrt{e_{ij}}},\ e_{ij} = \frac{S_i T_j}{N}

    Higher is safer; ZRisk ignores the overall level of effectiveness (see :func:`georisk`).
    For the single-baseline case pass two rows ``[system, baseline]``: the first value is the
    system's ZRisk against that baseline. Cells with zero expectation count as ``z = 0``.

    Args:
        matrix: systems × topics scores (2-D array, or a DataFrame with systems as index and
            topics as columns); at least two systems.
        alpha: risk-sensitivity ``alpha >= 0``.

    Returns:
        One value per system: an array, or a Series indexed by system for a DataFrame.

    Raises:
        ValueError: fewer than two systems, no topics, NaN/infinite/negative scores, ``alpha < 0``.

    Example:
        >>> zrisk([[0.4, 0.15, 0.3], [0.05, 0.15, 0.3]]).round(4)
        array([ 0.0032, -0.0041])
    """
    alpha = check_alpha(alpha)
    x, row_sums, systems, _ = as_matrix_with_row_sums(matrix, min_systems=2, min_topics=1)
    total, negative = _components(x, row_sums, want_negative=alpha > 0)
    return _wrap_systems(total + alpha * negative, systems, "zrisk")


@overload
def georisk(matrix: np.ndarray | Sequence[Any], alpha: float = 0.0) -> np.ndarray: ...


@overload
def georisk(matrix: pd.DataFrame, alpha: float = 0.0) -> pd.Series: ...


def georisk(matrix: Any, alpha: float = 0.0) -> np.ndarray | pd.Series:
    r"""GeoRisk: the geometric mean of mean effectiveness and normalised ZRisk (Dinçer et al. 2016, eq. 7).

    .. math::

        GeoRisk_i = \sqrt{\frac{S_i}{c} \cdot \Phi\Big(\frac{ZRisk_i}{c}\Big)}

    :math:`S_i/c` is the system's mean score and :math:`\Phi` the standard normal CDF, so
    GeoRisk lies in ``[0, sqrt(max score)]`` — in ``[0, 1]`` for measures bounded by 1.

    Args:
        matrix: systems × topics scores (2-D array, or a DataFrame with systems as index and
            topics as columns); at least two systems.
        alpha: risk-sensitivity ``alpha >= 0`` used for ZRisk.

    Returns:
        One value per system: an array, or a Series indexed by system for a DataFrame.

    Raises:
        ValueError: as for :func:`zrisk`.
    """
    alpha = check_alpha(alpha)
    x, row_sums, systems, _ = as_matrix_with_row_sums(matrix, min_systems=2, min_topics=1)
    c = x.shape[1]
    total, negative = _components(x, row_sums, want_negative=alpha > 0)
    values = georisk_from_zrisk(row_sums, total + alpha * negative, c)
    return _wrap_systems(values, systems, "georisk")


@overload
def georisk_curve(matrix: np.ndarray | Sequence[Any], alphas: Sequence[float]) -> np.ndarray: ...


@overload
def georisk_curve(matrix: pd.DataFrame, alphas: Sequence[float]) -> pd.DataFrame: ...


def georisk_curve(matrix: Any, alphas: Sequence[float]) -> np.ndarray | pd.DataFrame:
    """GeoRisk of every system for several alphas at the cost of one (2016 Figures 2–3).

    Args:
        matrix: systems × topics scores (2-D array or DataFrame with systems as index).
        alphas: the risk-sensitivity values (each ``>= 0``).

    Returns:
        A systems × alphas array, or a DataFrame indexed by system with one column per alpha.
    """
    alphas = [check_alpha(a) for a in alphas]
    x, row_sums, systems, _ = as_matrix_with_row_sums(matrix, min_systems=2, min_topics=1)
    c = x.shape[1]
    total, negative = _components(x, row_sums, want_negative=True)
    a = np.asarray(alphas, dtype=np.float64)
    z = total[:, None] + negative[:, None] * a[None, :]
    values = np.sqrt((row_sums / c)[:, None] * ndtr(z / c))
    if systems is None:
        return values
    return pd.DataFrame(values, index=systems, columns=pd.Index(alphas, name="alpha"))
