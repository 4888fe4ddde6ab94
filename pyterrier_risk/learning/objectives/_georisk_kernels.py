"""GeoRisk's per-pair weight rules (numba): ``|GeoRisk(M_m + ΔM) − GeoRisk(M_m)|`` of one swap.

Dinçer, Macdonald & Ounis (SIGIR 2016), §6. Used by ``georisk_weight='dincer2016'``/``'ndcg_units'``;
the default weight (``'ratio'``) is a per-query multiplier and compiles none of this.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._jit import jit
from ._base import PairWeights

PHI_BINS = 1 << 20
PHI_RANGE = 8.0
# limits on the argument steps where the truncated series are accurate to ~1e-12 relative
SERIES_MAX_DU = 1.0 / 256.0  # |Δu| of Φ(u0 + Δu): term 6 / term 1 <= |He5(u0)|·Δu^5/720, |u0| <= 6
SERIES_MAX_R = 1.0 / 128.0  # |r| of √(1 + r): term 6 / term 1 ~ 0.041·r^5
SERIES_MAX_U0 = 6.0


@jit()
def _std_normal_cdf(x: float) -> float:
    # Φ(x) = erfc(−x/√2)/2: relative accuracy of erfc in the lower tail (no 1 − Φ cancellation)
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


@jit()
def normal_cdf_table() -> np.ndarray:
    """Φ on 2^20 + 1 points over [−8, 8], for linear interpolation (relative error < 4e-9, tested)."""
    table = np.empty(PHI_BINS + 1, dtype=np.float64)
    step = 2.0 * PHI_RANGE / PHI_BINS
    for i in range(PHI_BINS + 1):
        table[i] = _std_normal_cdf(-PHI_RANGE + i * step)
    return table


@jit(inline="always")
def phi(x: float, table: np.ndarray) -> float:
    """Φ(x) from the table (linear interpolation), erfc itself beyond ±8 (~5x cheaper than erfc)."""
    if not -PHI_RANGE < x < PHI_RANGE:
        if x != x:  # NaN: never index the table with int(NaN)
            return table[0]
        return _std_normal_cdf(x)
    u = (x + PHI_RANGE) * (PHI_BINS / (2.0 * PHI_RANGE))
    i = int(u)
    if i >= PHI_BINS:
        return table[PHI_BINS]
    f = u - i
    return table[i] + f * (table[i + 1] - table[i])


@jit()
def _georisk_value(s: float, z: float, c: float, table: np.ndarray) -> float:
    return math.sqrt(max(s, 0.0) / c * phi(z / c, table))


@jit(inline="always")
def georisk_delta_fast(
    d: float, x: float, t_col: float, z_rest: float, s_row: float, n_tot: float, inv_c: float,
    w_neg: float, g0: float, table: np.ndarray,
) -> float:  # fmt: skip
    """|GeoRisk(M_m + d) − GeoRisk(M_m)|, incremental update, per-query constants precomputed.

    With s, t, n the row, column and grand totals after the swap and e = s·t/n, the affected
    query's z = (x + d − e)/√e is computed as ((x + d)·n − s·t)/√(s·t·n): one division and one
    square root per pair. ``inv_c`` = 1/c, ``w_neg`` = 1 + α.
    """
    s_new = s_row + d
    t_new = t_col + d
    n_new = n_tot + d
    z_new = 0.0
    if s_new > 0.0 and t_new > 0.0 and n_new > 0.0:
        st = s_new * t_new
        z_new = ((x + d) * n_new - st) / math.sqrt(st * n_new)
        if z_new < 0.0:
            z_new *= w_neg
    return abs(math.sqrt(max(s_new, 0.0) * inv_c * phi((z_rest + z_new) * inv_c, table)) - g0)


@jit(error_model="numpy")
def _deltas_series(
    dbuf: np.ndarray, out: np.ndarray, m: int, x: float, t_col: float, z_rest: float, zw_q: float,
    s_row: float, n_tot: float, inv_c: float, w_neg: float, g0: float, a: np.ndarray, phi0: float,
    inv_a0: float, table: np.ndarray,
) -> None:  # fmt: skip
    """|ΔGeoRisk| of one query's pairs ``dbuf[:m]`` (signed ΔM) into ``out``, by series about u0.

    Branch-free so that it compiles to SIMD code (``error_model="numpy"``: no division here can be
    by zero); the few pairs outside the series' range are recomputed by :func:`georisk_delta_fast`.
    """
    a1, a2, a3, a4, a5 = a[0], a[1], a[2], a[3], a[4]
    n_bad = 0
    for k in range(m):
        d = dbuf[k]
        s_new = s_row + d
        t_new = t_col + d
        n_new = n_tot + d
        st = s_new * t_new
        ok = (s_new > 0.0) & (t_new > 0.0) & (n_new > 0.0)
        z = ((x + d) * n_new - st) / math.sqrt(st * n_new if ok else 1.0)
        z = z if ok else 0.0
        z = z * w_neg if z < 0.0 else z
        du = (z - zw_q) * inv_c
        dphi = du * (a1 + du * (a2 + du * (a3 + du * (a4 + du * a5))))
        r = (d * phi0 + s_new * dphi) * inv_a0
        good = ok & (abs(du) <= SERIES_MAX_DU) & (abs(r) <= SERIES_MAX_R)
        n_bad += not good
        # √(1 + r) − 1 = r/2 − r²/8 + r³/16 − 5r⁴/128 + 7r⁵/256 − ...; −1 marks a pair to recompute
        g = abs(g0 * r * (0.5 + r * (-0.125 + r * (0.0625 + r * (-0.0390625 + r * 0.02734375)))))
        out[k] = g if good else -1.0
    if n_bad > 0:
        for k in range(m):
            if out[k] < 0.0:
                out[k] = georisk_delta_fast(dbuf[k], x, t_col, z_rest, s_row, n_tot, inv_c, w_neg, g0, table)


@jit()
def incremental_rule(q: int, dbuf: np.ndarray, out: np.ndarray, m: int, state: tuple) -> None:
    """Batched rule, ``georisk_update='incremental'``: only the affected query's z is re-expected.

    ``state``: :func:`incremental_weights`. A query outside the matrix keeps ``|ΔM|``.
    """
    mm, t_col, z_rest, z_w, inside, s, n_tot, inv_c, w_neg, g0, scale, series, phi0, inv_a0, coef, table = (
        state
    )
    if not inside[q]:
        for k in range(m):
            out[k] = abs(dbuf[k])
        return
    if series:
        _deltas_series(dbuf, out, m, mm[q], t_col[q], z_rest[q], z_w[q], s, n_tot, inv_c, w_neg, g0, coef,
                       phi0, inv_a0, table)  # fmt: skip
        for k in range(m):
            out[k] = scale * out[k]
        return
    for k in range(m):
        out[k] = scale * georisk_delta_fast(
            dbuf[k], mm[q], t_col[q], z_rest[q], s, n_tot, inv_c, w_neg, g0, table
        )


@jit()
def exact_rule(q: int, dm: float, improving: bool, state: tuple) -> float:
    """Pair rule, ``georisk_update='exact'``: every z of the model row re-expected (signs of the others held).

    For an unaffected query k, e'_k = ρ'·T_k with ρ' = S'/N', so z'_k = x_k/√(ρ'T_k) − √(ρ'T_k):
    ZRisk' = ρ'^(-1/2)·Σ w_k x_k/√T_k − ρ'^(1/2)·Σ w_k √T_k over k ≠ j (w_k = 1 or 1 + α by the sign
    of z_k, held from the start of the round), plus the affected query's recomputed w_j z'_j.
    ``state``: :func:`exact_weights`.
    """
    mm, t_col, wa, wb, inside, s_row, n_tot, c, alpha, g0, scale, a_tot, b_tot, table = state
    if not inside[q]:
        return dm
    d = dm if improving else -dm
    s_new = s_row + d
    t_new = t_col[q] + d
    n_new = n_tot + d
    if s_new <= 0.0 or n_new <= 0.0:
        return scale * abs(_georisk_value(s_new, 0.0, c, table) - g0)
    rho = s_new / n_new
    z_rest = (a_tot - wa[q]) / math.sqrt(rho) - (b_tot - wb[q]) * math.sqrt(rho)
    z_new = 0.0
    if t_new > 0.0:
        e = rho * t_new
        z_new = (mm[q] + d - e) / math.sqrt(e)
    if z_new < 0.0:
        z_new *= 1.0 + alpha
    return scale * abs(_georisk_value(s_new, z_rest + z_new, c, table) - g0)


def _f64(values: np.ndarray) -> np.ndarray:
    return np.require(values, dtype=np.float64, requirements=["C", "W"])


def incremental_weights(mm: np.ndarray, st: Any, scale: float, table: np.ndarray) -> PairWeights:
    """:func:`incremental_rule` and its state for a round (``st``: the round's ``GeoRiskRound``)."""
    series = bool(st.georisk > 0 and st.s_model > 0 and st.phi_u0 > 0 and abs(st.u0) <= SERIES_MAX_U0)
    inv_c = 1.0 / st.c if st.c > 0 else 0.0
    inv_a0 = 1.0 / (st.s_model * st.phi_u0) if series else 0.0
    state = (
        _f64(mm), _f64(st.col_total), _f64(st.z_rest), _f64(st.z_w), st.in_matrix, st.s_model, st.n_total,
        inv_c, 1.0 + st.alpha, st.georisk, scale, series, st.phi_u0, inv_a0, _f64(st.coef), table,
    )  # fmt: skip
    return PairWeights(incremental_rule, state, batched=True)


def exact_weights(mm: np.ndarray, st: Any, scale: float, table: np.ndarray) -> PairWeights:
    """:func:`exact_rule` and its state for a round (``st``: the round's ``GeoRiskRound``)."""
    state = (
        _f64(mm), _f64(st.col_total), _f64(st.wa), _f64(st.wb), st.in_matrix, st.s_model, st.n_total, st.c,
        st.alpha, st.georisk, scale, float(st.wa.sum()), float(st.wb.sum()), table,
    )  # fmt: skip
    return PairWeights(exact_rule, state)
