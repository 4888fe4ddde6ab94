"""Numba kernels for LambdaMART gradients (LightGBM-compatible) with risk-sensitive pair weights.

The pair loop follows the arithmetic of LightGBM 4.x ``LambdarankNDCG`` step by step (see
``docs/objectives.md``) so that, with unit pair weights, the gradients are bit-identical to the
native objective: float64 pair arithmetic, a 2^20-bin logistic lookup table, float32 accumulation
in pair order, and the ``log2(1 + S) / S`` query normalisation.

Why numba: the work is a double loop over the document pairs of every query with data-dependent
branches (truncation, label ties, the U-CRO cases); vectorising it in numpy needs a pairs matrix
per query and measured ~8x the native time, whereas a compiled loop with ``prange`` over queries
runs at native speed and needs no per-pair memory at all. ``cache=True`` keeps the compiled code
on disk so that only the first import on a machine pays the compilation.

This module imports numba at import time; it is only imported lazily by :mod:`._objective`.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from ._jit import jit, serial_twin

SIGMOID_BINS = 1024 * 1024

# pair-weight modes of ``lambdas``
MODE_SCALE = 0  # |ΔM'| = mult[q] · |ΔM|               (LambdaMART, T-FARO, T*-FARO)
MODE_UCRO = 1  # |ΔM'| = |ΔT| of Wang et al. Theorem 1 (U-CRO, T-SARO with per-query α)
MODE_GEORISK = 2  # |ΔM'| = |GeoRisk(M + ΔM) − GeoRisk(M)| · scale, incremental z update
MODE_GEORISK_EXACT = 3  # same, every z of the model row re-expected (signs of the others held)

_F32_001 = float(np.float32(0.01))  # LightGBM adds the float literal 0.01f to |Δs|


@jit()
def sigmoid_table(sigmoid: float) -> tuple[np.ndarray, float, float, float]:
    """LightGBM's logistic lookup table: 2^20 bins of 1/(1+exp(sigmoid·s)) over ±50/(2·sigmoid)."""
    min_in = -50.0 / sigmoid / 2.0
    max_in = -min_in
    factor = SIGMOID_BINS / (max_in - min_in)
    table = np.empty(SIGMOID_BINS, dtype=np.float64)
    for i in range(SIGMOID_BINS):
        s = i / factor + min_in
        table[i] = 1.0 / (1.0 + math.exp(s * sigmoid))
    return table, min_in, max_in, factor


@jit()
def discounts(n: int) -> np.ndarray:
    """Position discounts 1/log2(2+p), p = 0-based rank."""
    out = np.empty(max(n, 1), dtype=np.float64)
    for i in range(out.shape[0]):
        out[i] = 1.0 / math.log2(2.0 + i)
    return out


@jit()
def inverse_max_dcg(
    labels: np.ndarray, qstart: np.ndarray, label_gain: np.ndarray, disc: np.ndarray, k: int
) -> np.ndarray:
    """1 / max DCG@k per query (0 when the max DCG is 0), accumulated from the top rank down."""
    nq = qstart.shape[0] - 1
    n_levels = label_gain.shape[0]
    out = np.zeros(nq, dtype=np.float64)
    for q in range(nq):  # once per training set: serial (faster to compile)
        start = qstart[q]
        cnt = qstart[q + 1] - start
        counts = np.zeros(n_levels, dtype=np.int64)
        for i in range(cnt):
            counts[labels[start + i]] += 1
        top = n_levels - 1
        kk = min(k, cnt)
        ret = 0.0
        for j in range(kk):
            while top > 0 and counts[top] <= 0:
                top -= 1
            ret += disc[j] * label_gain[top]
            counts[top] -= 1
        if ret > 0.0:
            out[q] = 1.0 / ret
    return out


_RUN = 16


@jit()
def _stable_desc_order(scores: np.ndarray, start: int, cnt: int, out: np.ndarray, tmp: np.ndarray) -> None:
    """Stable descending argsort of scores[start:start+cnt] into out[start:...] (query-local ids).

    Insertion-sorted runs of 16, then bottom-up merges; ties keep file order, as ``std::stable_sort``
    does in LightGBM.
    """
    # runs of _RUN elements by insertion sort (stable: an element moves only past strictly smaller ones)
    for lo0 in range(0, cnt, _RUN):
        hi0 = min(lo0 + _RUN, cnt)
        for i in range(lo0, hi0):
            v = scores[start + i]
            k = i
            while k > lo0 and scores[start + out[start + k - 1]] < v:
                out[start + k] = out[start + k - 1]
                k -= 1
            out[start + k] = i
    width = _RUN
    while width < cnt:
        lo = 0
        while lo < cnt:
            mid = min(lo + width, cnt)
            hi = min(lo + 2 * width, cnt)
            a = lo
            b = mid
            k = lo
            while a < mid and b < hi:
                # take from the right run only when strictly greater: stability
                if scores[start + out[start + b]] > scores[start + out[start + a]]:
                    tmp[start + k] = out[start + b]
                    b += 1
                else:
                    tmp[start + k] = out[start + a]
                    a += 1
                k += 1
            while a < mid:
                tmp[start + k] = out[start + a]
                a += 1
                k += 1
            while b < hi:
                tmp[start + k] = out[start + b]
                b += 1
                k += 1
            lo += 2 * width
        for i in range(cnt):
            out[start + i] = tmp[start + i]
        width *= 2


@jit(parallel=True)
def sort_and_ndcg(
    scores: np.ndarray,
    labels: np.ndarray,
    qstart: np.ndarray,
    label_gain: np.ndarray,
    disc: np.ndarray,
    inv_max_dcg_cut: np.ndarray,
    cutoff: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Per query: stable descending order of ``scores`` and NDCG@cutoff of that ranking.

    Returns:
        ``order`` (int32, query-local positions laid out like the rows) and ``ndcg`` (per query;
        0 where the max DCG@cutoff is 0).
    """
    n = scores.shape[0]
    nq = qstart.shape[0] - 1
    order = np.empty(n, dtype=np.int32)
    tmp = np.empty(n, dtype=np.int32)
    ndcg = np.zeros(nq, dtype=np.float64)
    for q in nb.prange(nq):
        start = qstart[q]
        cnt = qstart[q + 1] - start
        _stable_desc_order(scores, start, cnt, order, tmp)
        if inv_max_dcg_cut[q] > 0.0:
            dcg = 0.0
            for i in range(min(cutoff, cnt)):
                dcg += label_gain[labels[start + order[start + i]]] * disc[i]
            ndcg[q] = dcg * inv_max_dcg_cut[q]
    return order, ndcg


@jit()
def _std_normal_cdf(x: float) -> float:
    # Φ(x) = erfc(−x/√2)/2: relative accuracy of erfc in the lower tail (no 1 − Φ cancellation)
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


PHI_BINS = 1 << 20
PHI_RANGE = 8.0


@jit()
def normal_cdf_table() -> np.ndarray:
    """Φ on 2^20 + 1 points over [−8, 8], for linear interpolation (relative error < 4e-9, tested)."""
    table = np.empty(PHI_BINS + 1, dtype=np.float64)
    step = 2.0 * PHI_RANGE / PHI_BINS
    for i in range(PHI_BINS + 1):
        table[i] = _std_normal_cdf(-PHI_RANGE + i * step)
    return table


@jit(inline="always")
def _phi(x: float, table: np.ndarray) -> float:
    # for the GeoRisk pairs outside the series' range (and the exact update): ~5x cheaper than erfc.
    # The tails beyond ±8 take erfc itself: a clamp to Φ(−8) would be off by orders of magnitude there
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
def _ucro_delta(dm: float, improving: bool, mm: float, mb: float, alpha: float) -> float:
    """|ΔT| of Wang et al. (2012), Theorem 1, all cases; dm = |ΔM| of the swap.

    Written case by case (not as T(M+ΔM) − T(M)) so that α = 0 returns dm exactly.
    """
    if mm <= mb:  # scenario A: the model is at or below the baseline on this query
        if not improving:  # A1: degrading swap, pure risk
            return (1.0 + alpha) * dm
        if mm + dm < mb:  # A2, still below the baseline after the swap
            return (1.0 + alpha) * dm
        return dm + alpha * (mb - mm)  # A2, the swap erases the loss
    # scenario B: the model is above the baseline
    if improving:  # B2: no risk
        return dm
    if mm - dm < mb:  # B1, the swap takes the model below the baseline
        return (1.0 + alpha) * dm - alpha * (mm - mb)
    return dm  # B1, stays above


@jit()
def _georisk_value(s: float, z: float, c: float, phi: np.ndarray) -> float:
    return math.sqrt(max(s, 0.0) / c * _phi(z / c, phi))


@jit(inline="always")
def _georisk_delta_fast(
    d: float,
    x: float,
    t_col: float,
    z_rest: float,
    s_row: float,
    n_tot: float,
    inv_c: float,
    w_neg: float,
    g0: float,
    phi: np.ndarray,
) -> float:
    """|GeoRisk(M_m + d) − GeoRisk(M_m)|, incremental update, per-query constants precomputed.

    With s, t, n the row, column and grand totals after the swap and e = s·t/n, the affected
    query's z = (x + d − e)/√e is computed as ((x + d)·n − s·t)/√(s·t·n): one division and one
    square root per pair instead of three divisions (the per-pair cost of GeoRisk, ~4M pairs per
    round on an MSLR-sized set). ``inv_c`` = 1/c, ``w_neg`` = 1 + α.
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
    return abs(math.sqrt(max(s_new, 0.0) * inv_c * _phi((z_rest + z_new) * inv_c, phi)) - g0)


# GeoRisk series evaluation (see _georisk_delta_series): limits on the argument steps where the
# truncated series are accurate to ~1e-12 relative
SERIES_MAX_DU = 1.0 / 256.0  # |Δu| of Φ(u0 + Δu): term 6 / term 1 <= |He5(u0)|·Δu^5/720, |u0| <= 6
SERIES_MAX_R = 1.0 / 128.0  # |r| of √(1 + r): term 6 / term 1 ~ 0.041·r^5
SERIES_MAX_U0 = 6.0


def georisk_series_coefficients(u0: float, density: float) -> np.ndarray:
    """ΔΦ = Σ_k a_k·Δu^k (k = 1..5) about u0: a_k = (−1)^(k−1)·He_(k−1)(u0)·φ(u0)/k!."""
    u2 = u0 * u0
    he = (1.0, u0, u2 - 1.0, u0 * (u2 - 3.0), u2 * u2 - 6.0 * u2 + 3.0)
    fact = (1.0, 2.0, 6.0, 24.0, 120.0)
    return np.array([(-1.0) ** k * he[k] * density / fact[k] for k in range(5)])


@jit(error_model="numpy")
def _georisk_deltas_batch(
    dbuf: np.ndarray,
    out: np.ndarray,
    m: int,
    x: float,
    t_col: float,
    z_rest: float,
    zw_q: float,
    s_row: float,
    n_tot: float,
    inv_c: float,
    w_neg: float,
    g0: float,
    a1: float,
    a2: float,
    a3: float,
    a4: float,
    a5: float,
    phi0: float,
    inv_a0: float,
    phi: np.ndarray,
) -> None:
    """:func:`_georisk_delta_series` for the signed ΔM of one query's pairs ``dbuf[:m]`` into ``out``.

    Written without branches so that it compiles to SIMD code (``error_model="numpy"`` drops the
    division-by-zero checks; no division here can be by zero); the few pairs outside the series'
    range (or with a non-positive total) are then recomputed one by one by
    :func:`_georisk_delta_fast`.
    """
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
                out[k] = _georisk_delta_fast(dbuf[k], x, t_col, z_rest, s_row, n_tot, inv_c, w_neg, g0, phi)


@jit()
def _georisk_delta(
    dm: float,
    improving: bool,
    x: float,
    t_col: float,
    z_rest: float,
    s_row: float,
    n_tot: float,
    c: float,
    alpha: float,
    g0: float,
    phi: np.ndarray,
) -> float:
    """|GeoRisk(M_m + ΔM) − GeoRisk(M_m)| with the incremental update of Dinçer et al. (2016) §6.

    Only the affected query's z is recomputed (its expected value from the updated row, column
    and grand totals); the other queries' z summands are kept (``z_rest``). The pair loop of
    :func:`lambdas` calls :func:`_georisk_delta_fast` with the per-round constants hoisted.
    """
    return _georisk_delta_fast(
        dm if improving else -dm, x, t_col, z_rest, s_row, n_tot, 1.0 / c, 1.0 + alpha, g0, phi
    )


@jit()
def _georisk_delta_exact(
    dm: float,
    improving: bool,
    x: float,
    t_col: float,
    wa: float,
    wb: float,
    s_row: float,
    n_tot: float,
    c: float,
    alpha: float,
    g0: float,
    a_tot: float,
    b_tot: float,
    phi: np.ndarray,
) -> float:
    """|GeoRisk(M_m + ΔM) − GeoRisk(M_m)| re-expecting every query of the model row.

    For an unaffected query k, e'_k = ρ'·T_k with ρ' = S'/N', so z'_k = x_k/√(ρ'T_k) − √(ρ'T_k):
    ZRisk' = ρ'^(-1/2)·Σ w_k x_k/√T_k − ρ'^(1/2)·Σ w_k √T_k over k ≠ j (w_k = 1 or 1 + α by the sign
    of z_k, held from the start of the round), plus the affected query's recomputed w_j z'_j.
    """
    d = dm if improving else -dm
    s_new = s_row + d
    t_new = t_col + d
    n_new = n_tot + d
    if s_new <= 0.0 or n_new <= 0.0:
        return abs(_georisk_value(s_new, 0.0, c, phi) - g0)
    rho = s_new / n_new
    z_rest = (a_tot - wa) / math.sqrt(rho) - (b_tot - wb) * math.sqrt(rho)
    z_new = 0.0
    if t_new > 0.0:
        e = rho * t_new
        z_new = (x + d - e) / math.sqrt(e)
    if z_new < 0.0:
        z_new *= 1.0 + alpha
    return abs(_georisk_value(s_new, z_rest + z_new, c, phi) - g0)


@jit(inline="always")
def _logistic(
    delta_score: float, table: np.ndarray, sig_min: float, sig_max: float, sig_factor: float
) -> float:
    """LightGBM's tabulated ``1/(1 + exp(sigmoid·Δs))`` (clamped to the table's ends)."""
    if delta_score <= sig_min:
        return table[0]
    if delta_score >= sig_max:
        return table[SIGMOID_BINS - 1]
    return table[int((delta_score - sig_min) * sig_factor)]


@jit(inline="always")
def _by_score_gap(delta: float, delta_score: float, scale_by_score: bool) -> float:
    """``delta`` divided by ``0.01f + |Δs|`` when ``lambdarank_norm`` scales by the score gap (LightGBM)."""
    if scale_by_score:
        return delta / (_F32_001 + abs(delta_score))
    return delta


@jit(inline="always")
def _pair_update(
    grad: np.ndarray,
    hess: np.ndarray,
    high: int,
    low: int,
    delta: float,
    delta_score: float,
    scale_by_score: bool,
    table: np.ndarray,
    sig_min: float,
    sig_max: float,
    sig_factor: float,
    sigmoid: float,
) -> float:
    """One pair's λ and hessian added to ``grad``/``hess`` (LightGBM's arithmetic); returns λ."""
    delta = _by_score_gap(delta, delta_score, scale_by_score)
    p_lambda = _logistic(delta_score, table, sig_min, sig_max, sig_factor)
    p_hessian = p_lambda * (1.0 - p_lambda)
    p_lambda *= -sigmoid * delta
    p_hessian *= sigmoid * sigmoid * delta
    grad[low] -= np.float32(p_lambda)
    hess[low] += np.float32(p_hessian)
    grad[high] += np.float32(p_lambda)
    hess[high] += np.float32(p_hessian)
    return p_lambda


@jit(inline="always")
def _pair_lambda(
    delta: float,
    delta_score: float,
    scale_by_score: bool,
    table: np.ndarray,
    sig_min: float,
    sig_max: float,
    sig_factor: float,
    sigmoid: float,
) -> float:
    """The λ :func:`_pair_update` computes for ``delta``, without adding it (for ``native_norm``)."""
    delta = _by_score_gap(delta, delta_score, scale_by_score)
    return _logistic(delta_score, table, sig_min, sig_max, sig_factor) * (-sigmoid * delta)


@jit(inline="always")
def _pair_weight(
    mode: int,
    dm: float,
    improving: bool,
    mult: float,
    mm: float,
    mb: float,
    alpha: float,
    t_col: float,
    z_rest: float,
    wa: float,
    wb: float,
    g_s: float,
    g_n: float,
    g_c: float,
    g_inv_c: float,
    g_alpha: float,
    g_wneg: float,
    g_0: float,
    g_scale: float,
    a_tot: float,
    b_tot: float,
    phi: np.ndarray,
) -> float:
    """|ΔM′| of one pair from its |ΔM| = ``dm``, by pair-weight mode (one pair, not batched)."""
    if mode == MODE_SCALE:
        return dm * mult
    if mode == MODE_UCRO:
        return _ucro_delta(dm, improving, mm, mb, alpha)
    if mode == MODE_GEORISK:
        d = dm if improving else -dm
        return g_scale * _georisk_delta_fast(d, mm, t_col, z_rest, g_s, g_n, g_inv_c, g_wneg, g_0, phi)
    return g_scale * _georisk_delta_exact(
        dm, improving, mm, t_col, wa, wb, g_s, g_n, g_c, g_alpha, g_0, a_tot, b_tot, phi
    )


# named slots of the per-round GeoRisk constants array ``geo`` of :func:`lambdas`
# (built by ``GeoRiskRound.constants()`` in :mod:`._objective`)
GEO_S = 0  # S_m: the model row's total
GEO_N = 1  # N: the grand total of the systems × queries matrix
GEO_C = 2  # c: number of queries in the matrix
GEO_ALPHA = 3  # α
GEO_G0 = 4  # GeoRisk of the model at the start of the round
GEO_SCALE = 5  # multiplier of |ΔGeoRisk| (NDCG units, or 1)
GEO_WA = 6  # Σ_k w_k·x_k/√T_k (exact update)
GEO_WB = 7  # Σ_k w_k·√T_k (exact update)
GEO_U0 = 8  # ZRisk/c at the start of the round
GEO_PHI0 = 9  # Φ(u0)
GEO_DENSITY = 10  # φ(u0)
GEO_A1 = 11  # series coefficients a_1..a_5 of ΔΦ about u0 (georisk_series_coefficients)
GEO_SIZE = 16


@jit(parallel=True)
def lambdas(
    scores: np.ndarray,
    labels: np.ndarray,
    qstart: np.ndarray,
    order: np.ndarray,
    inv_max_dcg_trunc: np.ndarray,
    label_gain: np.ndarray,
    disc: np.ndarray,
    table: np.ndarray,
    sig_min: float,
    sig_max: float,
    sig_factor: float,
    sigmoid: float,
    norm: bool,
    truncation: int,
    mode: int,
    qmult: np.ndarray,
    qmm: np.ndarray,
    qmb: np.ndarray,
    qalpha: np.ndarray,
    qin: np.ndarray,
    qt: np.ndarray,
    qzrest: np.ndarray,
    qzw: np.ndarray,
    qwa: np.ndarray,
    qwb: np.ndarray,
    geo: np.ndarray,
    phi: np.ndarray,
    native_norm: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """LambdaMART gradients and hessians (float32), LightGBM's pair arithmetic, risk-weighted ΔM.

    Per-query inputs (length = number of queries): ``qmult`` multiplier (MODE_SCALE), ``qmm``/``qmb``
    model/baseline NDCG@cutoff and ``qalpha`` α (MODE_UCRO); ``qin`` (query is in the GeoRisk
    matrix), ``qt`` column total, ``qzrest`` ZRisk minus this query's summand, ``qzw`` that summand,
    ``qwa``/``qwb`` its exact-update terms (GeoRisk modes). ``geo`` holds the round's GeoRisk
    constants at the ``GEO_*`` slots; ``phi`` is :func:`normal_cdf_table` (always the real table:
    numba may hoist a table read out of a branch that a mode never takes). Queries outside the
    GeoRisk matrix use ``qmult``.

    ``native_norm``: LightGBM's per-query normalisation ``log2(1 + S)/S`` takes ``S`` from the
    native (unweighted ``|ΔM|``) λs, so the risk weights act on top of it instead of being flattened
    by it; otherwise ``S`` sums the risk-weighted λs (the paper's ``ΔM′`` plugged into LightGBM as
    is). With unit weights (α = 0) the two sums are the same numbers.

    Every array is read only at indices its own length allows, whatever the mode.
    """
    n = scores.shape[0]
    nq = qstart.shape[0] - 1
    grad = np.zeros(n, dtype=np.float32)
    hess = np.zeros(n, dtype=np.float32)
    g_s = geo[GEO_S]
    g_n = geo[GEO_N]
    g_c = geo[GEO_C]
    g_alpha = geo[GEO_ALPHA]
    g_0 = geo[GEO_G0]
    g_scale = geo[GEO_SCALE]
    g_inv_c = 1.0 / g_c if g_c > 0.0 else 0.0
    g_wneg = 1.0 + g_alpha
    g_phi0 = geo[GEO_PHI0]
    g_u0 = geo[GEO_U0]
    g_series = mode == MODE_GEORISK and g_0 > 0.0 and g_s > 0.0 and g_phi0 > 0.0
    g_series = g_series and abs(g_u0) <= SERIES_MAX_U0
    g_inv_a0 = 1.0 / (g_s * g_phi0) if g_series else 0.0
    g_wa = geo[GEO_WA]
    g_wb = geo[GEO_WB]
    g_a = geo[GEO_A1 : GEO_A1 + 5]
    for q in nb.prange(nq):
        start = qstart[q]
        cnt = qstart[q + 1] - start
        if cnt <= 1:
            continue
        imd = inv_max_dcg_trunc[q]
        best = scores[start + order[start]]
        worst_i = cnt - 1
        if worst_i > 0 and scores[start + order[start + worst_i]] == -np.inf:
            worst_i -= 1
        worst = scores[start + order[start + worst_i]]
        scale_by_score = norm and best != worst
        qmode = mode
        if mode >= MODE_GEORISK and not qin[q]:
            qmode = MODE_SCALE
        # GeoRisk with the series: the pairs are collected, their ΔM′ evaluated at once (SIMD), then
        # their λs accumulated in pair order; every other mode accumulates each pair as it comes
        batch = qmode == MODE_GEORISK and g_series
        n_top = min(cnt - 1, truncation)
        cap = n_top * cnt if batch else 0
        fbuf = np.empty(3 * cap)  # signed ΔM, ΔM′, score differences
        ibuf = np.empty(2 * cap, dtype=np.int64)  # rows of the higher and the lower label
        m = 0
        sum_lambdas = 0.0
        sum_native = 0.0
        # the query's pair-weight inputs, read once (not per pair)
        mult_q = qmult[q]
        mm_q = qmm[q]
        mb_q = qmb[q]
        alpha_q = qalpha[q]
        t_q = qt[q]
        zrest_q = qzrest[q]
        wa_q = qwa[q]
        wb_q = qwb[q]
        for i in range(n_top):
            di = order[start + i]
            score_i = scores[start + di]
            if score_i == -np.inf:
                continue
            li = labels[start + di]
            gain_i = label_gain[li]
            disc_i = disc[i]
            for j in range(i + 1, cnt):
                dj = order[start + j]
                score_j = scores[start + dj]
                if score_j == -np.inf:
                    continue
                lj = labels[start + dj]
                if li == lj:
                    continue
                # i is ranked above j: the swap improves the ranking when j has the higher label
                improving = lj > li
                if improving:
                    high = start + dj
                    low = start + di
                    delta_score = score_j - score_i
                    dcg_gap = label_gain[lj] - gain_i
                else:
                    high = start + di
                    low = start + dj
                    delta_score = score_i - score_j
                    dcg_gap = gain_i - label_gain[lj]
                delta = dcg_gap * abs(disc_i - disc[j]) * imd
                if native_norm:
                    sum_native -= 2.0 * _pair_lambda(
                        delta, delta_score, scale_by_score, table, sig_min, sig_max, sig_factor, sigmoid
                    )
                if batch:
                    fbuf[m] = delta if improving else -delta
                    fbuf[2 * cap + m] = delta_score
                    ibuf[m] = high
                    ibuf[cap + m] = low
                    m += 1
                    continue
                if qmode == MODE_SCALE:  # the common case (LambdaMART, T-FARO, GeoRisk's ratio), inline
                    delta = delta * mult_q
                else:
                    delta = _pair_weight(
                        qmode, delta, improving, mult_q, mm_q, mb_q, alpha_q, t_q, zrest_q, wa_q, wb_q,
                        g_s, g_n, g_c, g_inv_c, g_alpha, g_wneg, g_0, g_scale, g_wa, g_wb, phi,
                    )  # fmt: skip
                p_lambda = _pair_update(
                    grad, hess, high, low, delta, delta_score, scale_by_score,
                    table, sig_min, sig_max, sig_factor, sigmoid,
                )  # fmt: skip
                sum_lambdas -= 2.0 * p_lambda
        if batch:
            _georisk_deltas_batch(
                fbuf[:cap], fbuf[cap : 2 * cap], m, mm_q, t_q, zrest_q, qzw[q], g_s, g_n, g_inv_c,
                g_wneg, g_0, g_a[0], g_a[1], g_a[2], g_a[3], g_a[4], g_phi0, g_inv_a0, phi,
            )  # fmt: skip
            for k in range(m):
                p_lambda = _pair_update(
                    grad, hess, ibuf[k], ibuf[cap + k], g_scale * fbuf[cap + k], fbuf[2 * cap + k],
                    scale_by_score, table, sig_min, sig_max, sig_factor, sigmoid,
                )  # fmt: skip
                sum_lambdas -= 2.0 * p_lambda
        if native_norm:
            sum_lambdas = sum_native
        if norm and sum_lambdas > 0.0:
            factor = math.log2(1.0 + sum_lambdas) / sum_lambdas
            for i in range(cnt):
                grad[start + i] = np.float32(np.float64(grad[start + i]) * factor)
                hess[start + i] = np.float32(np.float64(hess[start + i]) * factor)
    return grad, hess


sort_and_ndcg_serial = serial_twin(sort_and_ndcg, "sort_and_ndcg_serial")
lambdas_serial = serial_twin(lambdas, "lambdas_serial")
