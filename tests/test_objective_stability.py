"""Every exp/log/ndtr of the objectives against high-precision references (issue 14, item 9).

References come from mpmath at 60 digits; where |u| > 1e15 mpmath's erfc gives up, and the inverse
Mills ratio's asymptotic series φ(u)/Φ(u) = −u·(1 + 1/u² − 2/u⁴ + …) (u → −∞) is float-exact there:
its first correction is below 1e-30.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr as _ndtr

from pyterrier_risk.learning import _ndcg as N
from pyterrier_risk.learning.objectives import _georisk_kernels as GK
from pyterrier_risk.learning.objectives._georisk import GeoRiskRound, normal_pdf_cdf_ratio
from pyterrier_risk.learning.objectives._georisk import georisk_ratio as _georisk_ratio
from pyterrier_risk.learning.objectives._georisk import phi_table as _phi_table


def _normal_cdf(x):
    return _ndtr(x)  # the Φ of T-SARO/T-FARO's α′ and of GeoRisk's round state

mpmath = pytest.importorskip("mpmath")
mpmath.mp.dps = 60

# |u| from 1e-300 to 1e300, both signs, and 0
GRID = sorted({0.0, *(s * 10.0**e for s in (-1.0, 1.0) for e in np.arange(-300, 301, 7.5))} | {
    s * x for s in (-1.0, 1.0) for x in (0.5, 1.0, 2.0, 5.0, 8.0, 8.5, 20.0, 37.0, 37.5, 38.5, 40.0, 1e8)
})  # fmt: skip


def ratio_reference(u: float) -> float:
    if u < -1e15:
        return -u - 1.0 / u
    x = mpmath.mpf(u)
    return float(mpmath.npdf(x) / mpmath.ncdf(x))


def close(value: float, reference: float, rel: float) -> bool:
    """Relative error ≤ ``rel``, or both below the smallest normal float (subnormal results)."""
    if abs(reference) < 2.3e-308:
        return abs(value - reference) <= 2.3e-308
    return abs(value - reference) <= rel * abs(reference)


def conditioned(u: float) -> float:
    """A few ulps times the condition number of Φ(u) and φ(u)/Φ(u), ~max(1, u²) in the tails.

    Rounding ``u`` (or u/√2) by half an ulp moves exp(−u²/2) by u²·1.1e-16 relative: no float64
    evaluation can be closer than that, so a stable one is within a few ulps of it.
    """
    return 2.3e-16 * (4.0 + (u * u if abs(u) < 1e150 else 1e300))


@pytest.mark.parametrize("u", GRID)
def test_inverse_mills_ratio_is_accurate_over_every_float(u):
    value = normal_pdf_cdf_ratio(u)
    assert math.isfinite(value)
    # a few ulps in the lower tail, where the ratio → −u is well conditioned; in the upper tail it
    # behaves as exp(−u²/2), conditioned as Φ's lower tail (it underflows beyond u ≈ 38)
    assert close(value, ratio_reference(u), 1e-15 if u <= 1 else conditioned(u)), (u, value)


def test_the_old_formula_failed_where_the_new_one_holds():
    from scipy.special import log_ndtr

    def old(u):
        return math.exp(-0.5 * u * u - 0.5 * math.log(2.0 * math.pi) - float(log_ndtr(u)))

    assert abs(old(-1e8) / ratio_reference(-1e8) - 1) > 0.5  # the 78% off
    with pytest.raises(OverflowError):
        old(-1.4e154)
    assert close(normal_pdf_cdf_ratio(-1e8), 1e8, 1e-15)
    assert close(normal_pdf_cdf_ratio(-1.4e154), 1.4e154, 1e-15)


@pytest.mark.parametrize("u", [u for u in GRID if u < 40] + [40.0, 1e300])
def test_normal_cdf_is_accurate_in_both_tails(u):
    reference = float(mpmath.ncdf(mpmath.mpf(u))) if u > -1e15 else 0.0
    assert close(float(_normal_cdf(np.array([u]))[0]), reference, conditioned(u)), u


@pytest.mark.parametrize("u", [u for u in GRID if abs(u) < 1e15])
def test_kernel_phi_table_and_tails(u):
    """The kernels' Φ: interpolated on [−8, 8] (relative error < 4e-9), erfc beyond (no clamp)."""
    value = GK.phi(u, _phi_table())
    reference = float(mpmath.ncdf(mpmath.mpf(u)))
    assert close(value, reference, 4e-9 if abs(u) < 8 else conditioned(u)), (u, value, reference)


def test_kernel_phi_table_error_bound_on_a_dense_grid():
    table = _phi_table()
    worst = max(
        abs(GK.phi(u, table) / float(mpmath.ncdf(mpmath.mpf(u))) - 1.0)
        for u in np.linspace(-8.0, 8.0, 2001)[1:-1] + 3.7e-6  # between table points
    )
    assert worst < 4e-9


def test_normal_cdf_table_is_erfc_at_its_points():
    table = _phi_table()
    points = np.linspace(-GK.PHI_RANGE, GK.PHI_RANGE, GK.PHI_BINS + 1)
    for i in (0, 1, 12345, GK.PHI_BINS // 2, GK.PHI_BINS - 1, GK.PHI_BINS):
        assert close(table[i], float(mpmath.ncdf(mpmath.mpf(points[i]))), conditioned(points[i]))


@pytest.mark.parametrize("sigmoid", [0.5, 1.0, 3.0])
def test_logistic_table_matches_mpmath(sigmoid):
    table, lo, hi, factor = N.sigmoid_table(sigmoid)
    for i in (0, 1, 1000, len(table) // 2, len(table) - 1):
        s = lo + i / factor  # the bin's left end, where LightGBM evaluates the logistic
        reference = float(1 / (1 + mpmath.exp(mpmath.mpf(s) * sigmoid)))
        assert close(table[i], reference, 5e-15)


def test_discounts_match_mpmath():
    disc = N.discounts(1000)
    for p in (0, 1, 2, 999):
        assert close(disc[p], float(1 / mpmath.log(p + 2, 2)), 5e-16)


def georisk_round(alpha: float, z: np.ndarray) -> GeoRiskRound:
    nq = len(z)
    col = np.full(nq, 2.0)
    zw = np.where(z < 0, (1 + alpha) * z, z)
    zeros = np.zeros(nq)
    return GeoRiskRound(
        in_matrix=np.ones(nq, dtype=bool), col_total=col, z_rest=zw.sum() - zw, z_w=zw, wa=zeros, wb=zeros,
        s_model=0.5 * nq, n_total=col.sum(), c=float(nq), alpha=alpha, georisk=0.0, scale=1.0,
        u0=float(zw.sum() / nq), phi_u0=0.0, density=0.0, coef=np.zeros(5),
    )  # fmt: skip


@pytest.mark.parametrize("alpha", [0.0, 1.0, 1e6, 1e11, 1e100])
def test_georisk_ratio_is_finite_for_any_alpha(alpha):
    """The issue's OverflowError at α ≥ 1e11: the ratio stays finite and ≥ 0, 1 at α = 0."""
    z = np.array([-0.8, -0.1, 0.3, 0.5, 0.1])
    mm = np.array([0.1, 0.4, 0.6, 0.7, 0.5])
    ratio = _georisk_ratio(georisk_round(alpha, z), mm)
    assert np.isfinite(ratio).all() and (ratio >= 0).all()
    if alpha == 0:
        np.testing.assert_array_equal(ratio, 1.0)
    else:
        assert ratio[z < 0].min() > ratio[z >= 0].max()  # the losing queries weigh more
