"""``'georisk'``: GeoRisk (Dinçer, Macdonald & Ounis, SIGIR 2016, Eq. 7 and §6)."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...core import georisk_from_zrisk, row_z_scores
from ._base import Objective, Option, PairWeights, Round
from ._registry import register_objective
from ._shared import RISK_NORM, round_baseline

__all__ = [
    "GeoRiskObjective", "GeoRiskRound", "georisk_ratio", "georisk_round", "normal_pdf_cdf_ratio",
    "series_coefficients",
]  # fmt: skip


@dataclass(frozen=True)
class GeoRiskRound:
    """The GeoRisk matrix (baselines + the model, active queries) at the start of a boosting round.

    Per-query arrays have one entry per query (0 / False outside the matrix); scalars are the
    row/grand totals and the model's GeoRisk (Dinçer et al. 2016, eqs. 4–7).
    """

    in_matrix: np.ndarray  # bool: the query is in the matrix (active)
    col_total: np.ndarray  # T_j
    z_rest: np.ndarray  # ZRisk minus the query's weighted z
    z_w: np.ndarray  # the query's weighted z: (1 + α)·z if z < 0 else z
    wa: np.ndarray  # w_j·x_j/√T_j (exact update)
    wb: np.ndarray  # w_j·√T_j (exact update)
    s_model: float  # S_m
    n_total: float  # N
    c: float  # number of queries in the matrix
    alpha: float
    georisk: float  # GeoRisk of the model
    scale: float  # multiplier of |ΔGeoRisk| in the pair weight
    u0: float  # ZRisk/c
    phi_u0: float  # Φ(u0)
    density: float  # φ(u0)
    coef: np.ndarray  # a_1..a_5 of the series of ΔΦ about u0


def series_coefficients(u0: float, density: float) -> np.ndarray:
    """ΔΦ = Σ_k a_k·Δu^k (k = 1..5) about u0: a_k = (−1)^(k−1)·He_(k−1)(u0)·φ(u0)/k!."""
    u2 = u0 * u0
    he = (1.0, u0, u2 - 1.0, u0 * (u2 - 3.0), u2 * u2 - 6.0 * u2 + 3.0)
    fact = (1.0, 2.0, 6.0, 24.0, 120.0)
    return np.array([(-1.0) ** k * he[k] * density / fact[k] for k in range(5)])


@functools.lru_cache(maxsize=1)
def phi_table() -> np.ndarray:
    """Φ tabulated for the pair rules (built once per process; read-only)."""
    from ._georisk_kernels import normal_cdf_table

    table = normal_cdf_table()
    table.setflags(write=False)
    return table


def georisk_round(mm: np.ndarray, mb: np.ndarray, active: np.ndarray, alpha: float) -> GeoRiskRound:
    """The GeoRisk matrix (baselines ``mb`` + model ``mm``, active queries) of a round.

    z and GeoRisk come from the numeric core (``row_z_scores``, ``georisk_from_zrisk``), as in
    :func:`~pyterrier_risk.georisk`.
    """
    from scipy.special import ndtr

    nq = len(mm)
    cols = np.flatnonzero(active)
    x = np.vstack([mb[:, cols], mm[cols][None, :]])  # systems (model last) × active queries
    c = float(len(cols))
    col = x.sum(axis=0)
    n_tot = float(col.sum())
    s_m = float(x[-1].sum())
    z = row_z_scores(x[-1], s_m, col, n_tot)
    w = np.where(z < 0, 1.0 + alpha, 1.0)
    zw = w * z
    z_m = float(zw.sum())
    phi = float(ndtr(z_m / c)) if c > 0 else 0.5
    g0 = float(georisk_from_zrisk(s_m, z_m, int(c))) if c > 0 else 0.0
    # express ΔGeoRisk in NDCG units: divide by ∂GeoRisk/∂M_m(j) at fixed ZRisk = Φ/(2·c·GeoRisk)
    scale = 2.0 * c * g0 / phi if g0 > 0 and phi > 0 else c
    root = np.sqrt(np.maximum(col, 0.0))
    wa_c = np.divide(w * x[-1], root, out=np.zeros_like(col), where=col > 0)
    wb_c = np.where(col > 0, w * root, 0.0)
    u0 = z_m / c if c > 0 else 0.0
    density = math.exp(-0.5 * u0 * u0) / math.sqrt(2.0 * math.pi)

    def spread(values: Any, dtype: Any = float) -> np.ndarray:
        out = np.zeros(nq, dtype=dtype)
        out[cols] = values
        return out

    return GeoRiskRound(
        in_matrix=spread(True, np.bool_), col_total=spread(col), z_rest=spread(z_m - zw), z_w=spread(zw),
        wa=spread(wa_c), wb=spread(wb_c), s_model=s_m, n_total=n_tot, c=c, alpha=alpha, georisk=g0,
        scale=scale, u0=u0, phi_u0=phi, density=density, coef=series_coefficients(u0, density),
    )  # fmt: skip


def georisk_ratio(st: GeoRiskRound, mm: np.ndarray) -> np.ndarray:
    r"""Per-query multiplier :math:`D_q(\alpha)/D_q(0)` of GeoRisk's default pair weight.

    :math:`D_q(\alpha) = \partial\,\mathrm{GeoRisk}_\alpha / \partial M_m(q)` under the paper's
    incremental update (Dinçer et al. 2016, §6: the query's :math:`z_q` re-expected from the updated
    totals :math:`S, T_q, N`, the other queries' z held):

    .. math::

        D_q = \frac{\Phi(u)/c + (S/c)\,\varphi(u)\,w_q\,z_q'/c}{2\,\mathrm{GeoRisk}},\quad
        u = \frac{\sum_k w_k z_k}{c},\quad
        z_q' = \frac{(1 - e_q')\,e_q - \tfrac12 (x_q - e_q)\,e_q'}{e_q^{3/2}},\quad
        e_q' = \frac{T_q + S}{N} - \frac{S\,T_q}{N^2},

    :math:`w_k = 1 + \alpha` where :math:`z_k < 0`. Since :math:`D_q \propto \sqrt{\Phi(u)}\,A_q` with
    :math:`A_q = 1 + (S/c)\,w_q\,z_q'\,\varphi(u)/\Phi(u)`, and the factor :math:`\sqrt{\Phi(u)}` is
    common to all queries (it only rescales every gradient, which LightGBM's Newton steps undo), the
    multiplier is :math:`A_q(\alpha)/A_q(0)`, divided by its median over the queries at or above their
    expected value: those weigh about 1, the queries below it about :math:`1 + \alpha` times more, as a
    losing query in U-CRO. It is exactly 1 at α = 0 and does not vanish when GeoRisk saturates
    (:math:`\Phi(u) \to 0` at a very large α). Queries outside the matrix (or with no expectation)
    get 1.
    """
    out = np.ones(len(mm))
    cols = np.flatnonzero(st.in_matrix)
    if not len(cols) or st.s_model <= 0 or st.n_total <= 0:
        return out
    s, n, c, col = st.s_model, st.n_total, st.c, st.col_total[cols]
    e = s * col / n
    live = e > 0
    e_safe = np.where(live, e, 1.0)
    neg = st.z_w[cols] < 0
    z = np.where(neg, st.z_w[cols] / (1.0 + st.alpha), st.z_w[cols])
    de = (col + s) / n - s * col / n**2
    dz = np.where(live, ((1.0 - de) * e_safe - 0.5 * (mm[cols] - e_safe) * de) / e_safe**1.5, 0.0)

    def emphasis(alpha: float) -> np.ndarray:
        # only A_q (the ratio φ/Φ in a form with no 0/0 when GeoRisk saturates): sqrt(Φ(u)) is common
        w = np.where(neg, 1.0 + alpha, 1.0)
        u = float((w * z).sum()) / c
        return 1.0 + s / c * w * dz * normal_pdf_cdf_ratio(u)

    a_alpha, a_zero = emphasis(st.alpha), emphasis(0.0)
    good = live & (a_zero > 0)
    ratio = np.where(good, np.maximum(a_alpha, 0.0) / np.where(good, a_zero, 1.0), 1.0)
    reference = ratio[good & ~neg]  # the queries at or above their expected value weigh about 1
    if st.alpha > 0 and len(reference):
        ratio = ratio / np.median(reference)
    out[cols] = np.where(good, ratio, 1.0)
    return out


def normal_pdf_cdf_ratio(u: float) -> float:
    r"""φ(u)/Φ(u), the inverse Mills ratio of the standard normal, accurate for every float ``u``.

    .. math:: \frac{\varphi(u)}{\Phi(u)} = \frac{\sqrt{2/\pi}}{\operatorname{erfcx}(-u/\sqrt{2})},

    since :math:`\Phi(u) = \tfrac12\operatorname{erfc}(-u/\sqrt2)` and
    :math:`\operatorname{erfcx}(x) = e^{x^2}\operatorname{erfc}(x)`: the :math:`e^{-u^2/2}` of both
    cancel. No exponential is formed, so the ratio neither overflows nor loses digits in the lower
    tail, where it tends to :math:`-u`; in the upper tail erfcx overflows to inf and the ratio is 0,
    its limit. Tested against mpmath.
    """
    from scipy.special import erfcx

    return math.sqrt(2.0 / math.pi) / float(erfcx(-u / math.sqrt(2.0)))


@register_objective
class GeoRiskObjective(Objective):
    r"""GeoRisk-LM: :math:`\Delta M' = \mathrm{GeoRisk}(M_m + \Delta M) - \mathrm{GeoRisk}(M_m)`.

    Over the systems × queries NDCG matrix of the baselines plus the model,
    :math:`\mathrm{GeoRisk} = \sqrt{S_m/c \cdot \Phi(Z_{Risk}/c)}` (Eq. 7).

    ``georisk_weight='ratio'`` (default): ``|ΔM|`` times ``D_q(α)/D_q(0)`` (:func:`georisk_ratio`,
    a per-query multiplier, 1 at α = 0); ``'dincer2016'``: the paper's ``|ΔGeoRisk|`` per pair;
    ``'ndcg_units'``: that difference divided by GeoRisk's mean-only derivative (version 0.1;
    always used with ``georisk_update='exact'``). ``georisk_update``: ``'incremental'`` (the paper's
    §6: a swap re-expects only the affected query's z) or ``'exact'`` (every z of the model row).

    Attributes:
        georisk_ratio_: per-query multiplier of the default weight in the latest round (α > 0).
    """

    name = "georisk"
    label = "GeoRisk-LM"
    baseline = "multiple"
    citation = "Dinçer, Macdonald & Ounis, SIGIR 2016, §6"
    reports = ("georisk_ratio_",)
    options = (
        RISK_NORM,
        Option(
            "georisk_update", "incremental",
            "'incremental' (the paper's §6: a swap re-expects only the affected query's z) or 'exact' "
            "(every z of the model row, in O(1) per pair)",
            choices=("incremental", "exact"),
        ),
        Option(
            "georisk_weight", "ratio",
            "the pair weight: 'ratio' (|ΔM| times the per-query D_q(α)/D_q(0)), 'dincer2016' (|ΔGeoRisk|) "
            "or 'ndcg_units' (|ΔGeoRisk| over GeoRisk's mean-only derivative)",
            choices=("ratio", "dincer2016", "ndcg_units"),
        ),
    )  # fmt: skip
    # the options' checked values, set by Objective.__init__ (tests/test_objective_options.py)
    risk_norm: str
    georisk_update: str
    georisk_weight: str

    @classmethod
    def trained_against(cls, scores: str) -> str:
        """All the baselines' scores at once (one matrix)."""
        return f"{scores} at once"

    def check(self) -> None:
        """The ratio is the incremental update's derivative: ``'exact'`` uses ``'ndcg_units'``."""
        if self.georisk_update == "exact" and self.georisk_weight == "ratio":
            self.georisk_weight = "ndcg_units"

    def reset(self) -> None:
        """No ratio yet."""
        self.georisk_ratio_: np.ndarray | None = None
        self._georisk: float | None = None

    def weights(self, r: Round) -> np.ndarray | PairWeights:
        """The default per-query ratio, or the per-pair ``|ΔGeoRisk|`` rules."""
        if r.alpha <= 0:
            self._georisk = None
            return np.ones(len(r.model))
        st = georisk_round(r.model, round_baseline(r, self.name), r.active, r.alpha)
        self._georisk = st.georisk
        if self.georisk_weight == "ratio":
            ratio = georisk_ratio(st, r.model)
            self.georisk_ratio_ = ratio
            return ratio
        scale = 1.0 if self.georisk_weight == "dincer2016" else st.scale
        from ._georisk_kernels import exact_weights, incremental_weights

        rule = exact_weights if self.georisk_update == "exact" else incremental_weights
        return rule(r.model, st, scale, phi_table())

    def diagnostics(self, r: Round) -> dict[str, float]:
        """The model's GeoRisk at the start of the round (α > 0)."""
        return {} if r.alpha <= 0 or self._georisk is None else {"georisk": self._georisk}

    def overflow_hint(self) -> str | None:
        """The 'ndcg_units' weight divides by Φ(ZRisk/c)."""
        if self.georisk_weight == "ndcg_units" and self.alpha > 0:
            return ("GeoRisk's 'ndcg_units' weight (georisk_update='exact') divides by Phi(ZRisk/c), tiny "
                    "at this alpha: use the default georisk_weight='ratio' or a smaller alpha")  # fmt: skip
        return None
