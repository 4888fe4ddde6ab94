"""Risk-sensitive LambdaMART objectives for LightGBM: U-CRO, T-SARO, T-FARO, T*-FARO and GeoRisk.

LambdaMART's gradient for a document pair ``(a, b)`` of a query is RankNet's logistic derivative
times ``|ΔM_ab|``, the change in the measure ``M`` (NDCG) when ``a`` and ``b`` swap. The
risk-sensitive variants replace ``|ΔM|`` with ``|ΔM′|``, the change of a risk-reward tradeoff:

* ``'urisk'`` (U-CRO; Wang, Bennett & Collins-Thompson, SIGIR 2012, §4.3, Theorem 1): the per-query
  tradeoff ``T = max(0, M_m − M_b) − (1 + α)·max(0, M_b − M_m)``; ``ΔM′ = ΔT`` by the cases
  A1, A2 (two sub-cases), B1 (two sub-cases) and B2 of the proof of Theorem 1.
* ``'tsaro'`` / ``'tfaro'`` (Dinçer, Macdonald & Ounis, SIGIR 2014, §6.3): α is replaced per query
  by ``α′ = α·[1 − Φ(T_R)]`` with ``T_R = x / s_x`` (Eq. 21, 25), ``x`` the query's URisk
  summand. T-SARO uses α′ in U-CRO's ``ΔT``; T-FARO uses ``ΔM′ = (1 + α′)·ΔM`` (Eq. 26).
* ``'tfaro_star'`` (Dinçer, Macdonald & Ounis, SIGIR 2016, §6): T-FARO against the per-query mean
  NDCG of several baselines.
* ``'georisk'`` (same paper, §6): ``ΔM′ = GeoRisk(M_m + ΔM) − GeoRisk(M_m)`` over the matrix of
  the baselines' and the model's per-query NDCG, updating only the affected query's ``z``.

The pair arithmetic is LightGBM 4.x's ``lambdarank`` exactly, so at ``α = 0`` every kind trains the
same model as ``objective='lambdarank'``. See ``docs/objectives.md`` for formulas and choices.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._validate import check_alpha
from ._options import check_count, check_flag, lightgbm_bool

__all__ = ["objective", "RiskObjective", "KINDS"]

KINDS = ("lambdarank", "urisk", "tsaro", "tfaro", "tfaro_star", "georisk")
SINGLE_BASELINE_KINDS = ("urisk", "tsaro", "tfaro")
MULTI_BASELINE_KINDS = ("tfaro_star", "georisk")
# kinds whose baseline is one NDCG row (a single baseline, or T*-FARO's mean of several)
_ROW_BASELINE_KINDS = (*SINGLE_BASELINE_KINDS, "tfaro_star")
_LAMBDARANK_DEFAULTS: dict[str, Any] = {
    "sigmoid": 1.0,
    "lambdarank_truncation_level": 30,
    "lambdarank_norm": True,
    "label_gain": None,  # LightGBM default: 2^i - 1, i = 0..30
}
_UNSET: Any = object()
# where the risk weights meet LightGBM's per-query normalisation log2(1 + S)/S (docs/objectives.md)
RISK_NORMS = ("native", "weighted")
# GeoRisk's pair weight: the default per-query ratio, the paper's |ΔGeoRisk|, or |ΔGeoRisk| in NDCG units
GEORISK_WEIGHTS = ("ratio", "dincer2016", "ndcg_units")
# T-FARO/T*-FARO's T_R: centred on the mean URisk summand each round, or the paper's x / s_x
FARO_TRS = ("centred", "dincer2014")
# The largest α an objective accepts. A loss weighs up to (1 + α) times a win, and a document's float32
# gradient (24-bit mantissa) cannot hold a win's λ beside a loss's beyond 2^24 ≈ 1.7e7: above ~1e7
# the wins vanish from the sums anyway, and from ~1e35 the weighted λs overflow float32 (a constant
# model). 1e6 keeps every gradient finite in float32 (tests/test_objective_options.py).
ALPHA_MAX = 1e6
# below this many rows the per-round work is a few ms and thread start-up costs more than it saves
_PARALLEL_MIN_ROWS = 50_000


@functools.lru_cache(maxsize=8)
def _sigmoid_table(sigmoid: float) -> tuple[np.ndarray, float, float, float]:
    """LightGBM's logistic lookup table, built once per process and sigmoid (2^20 exp calls)."""
    from . import _kernels as K

    table, lo, hi, factor = K.sigmoid_table(sigmoid)
    table.setflags(write=False)
    return table, lo, hi, factor


@functools.lru_cache(maxsize=1)
def _phi_table() -> np.ndarray:
    from . import _kernels as K

    table = K.normal_cdf_table()
    table.setflags(write=False)
    return table


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr

    return ndtr(x)


@dataclass(frozen=True)
class _Bound:
    """A training set bound to the objective: labels, query layout and the per-query constants."""

    n: int
    group: np.ndarray
    labels: np.ndarray
    y: np.ndarray
    qstart: np.ndarray
    disc: np.ndarray
    inv_trunc: np.ndarray
    inv_cut: np.ndarray
    active: np.ndarray
    table: np.ndarray
    sig_min: float
    sig_max: float
    sig_factor: float
    phi: np.ndarray
    mb: np.ndarray | None


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

    def constants(self) -> np.ndarray:
        """The scalars packed at the kernels' named ``GEO_*`` slots."""
        from . import _kernels as K

        geo = np.zeros(K.GEO_SIZE)
        geo[K.GEO_S], geo[K.GEO_N], geo[K.GEO_C] = self.s_model, self.n_total, self.c
        geo[K.GEO_ALPHA] = self.alpha
        geo[K.GEO_G0], geo[K.GEO_SCALE], geo[K.GEO_U0] = self.georisk, self.scale, self.u0
        geo[K.GEO_WA], geo[K.GEO_WB] = self.wa.sum(), self.wb.sum()
        geo[K.GEO_PHI0], geo[K.GEO_DENSITY] = self.phi_u0, self.density
        geo[K.GEO_A1 : K.GEO_A1 + 5] = self.coef
        return geo


class RiskObjective:
    """A LightGBM custom objective computing (risk-sensitive) LambdaMART gradients.

    Create it with :func:`objective`. It is callable both as ``obj(preds, train_data)`` (what
    ``lightgbm.train(params={'objective': obj})`` passes) and as ``obj(y_true, y_pred, weight,
    group)`` (what ``LGBMRanker(objective=obj)`` passes in LightGBM 4.x).

    The object binds to its training set on the first call (labels, query groups, the baseline
    rows) and keeps diagnostics (Attributes), refreshed at every round from the scores it receives.

    Args:
        kind: one of :data:`KINDS`.
        alpha: risk sensitivity, 0 ≤ α ≤ :data:`ALPHA_MAX` (10⁶: beyond, float32 gradients cannot
            hold a win beside a loss, and from ~1e35 they overflow).
        baseline: per-row scores of one baseline ranking, aligned with the training rows (e.g. the
            BM25 feature column); for ``'urisk'``, ``'tsaro'``, ``'tfaro'``.
        baselines: rows × systems scores of several baselines; for ``'tfaro_star'``, ``'georisk'``.
        cutoff: NDCG cutoff of the per-query effectiveness ``M``.
        se_round: T-SARO, and T-FARO/T*-FARO with ``faro_tr='dincer2014'``: ``s_x`` is
            re-estimated at every round up to this round and then frozen. The default 1 freezes it
            after the first boosting iteration, as in the paper (Dinçer et al. 2014, end of §6.3);
            0 freezes it at the start (Jforests); None re-estimates it every round.
        georisk_update: ``'incremental'`` (default, the paper's §6 choice): a swap re-computes only the
            affected query's z (its expectation from the updated totals), the other queries' z
            summands are kept; ``'exact'``: every z of the model row is re-expected from the updated
            row and grand totals (in O(1) per pair; only the other queries' z signs are held).
            Unlike the incremental update, this can score an improving swap as a GeoRisk loss; the
            pair's direction always follows its labels (``|ΔM′|`` is used).
        num_threads: threads of the numba kernels; default: 1 below 50,000 rows (serial kernels), else all of
            numba's threads (queries are processed in parallel).
        record_ndcg: keep the model's per-query NDCG@cutoff of every round in ``ndcg_history_``
            (rounds × queries; off by default to keep memory flat on large query sets).
        risk_norm: ``'native'`` (default): LightGBM's per-query normalisation ``log2(1 + S)/S`` is
            computed from the native λs and the risk weights act after it, so a pair weight ``w``
            is exactly a ``w``-fold gradient; ``'weighted'``: the normalisation of the risk-weighted
            λs (the papers' ``ΔM′`` plugged into LightGBM as is), which flattens the per-query
            emphasis. Identical at α = 0.
        georisk_weight: GeoRisk's pair weight. ``'ratio'`` (default): ``|ΔM|`` times
            ``D_q(α)/D_q(0)``, the query's GeoRisk derivative at α over the same at α = 0 (a
            per-query multiplier, 1 at α = 0; see :func:`_georisk_ratio`); ``'dincer2016'``: the
            paper's ``|GeoRisk(M_m + ΔM) − GeoRisk(M_m)|`` as is; ``'ndcg_units'``: that difference
            divided by GeoRisk's mean-only derivative (version 0.1's choice; always used with
            ``georisk_update='exact'``).
        faro_tr: T-FARO/T*-FARO's standardised topic score in ``α′ = α·[1 − Φ(T_R)]``.
            ``'centred'`` (default): ``T_R = (x − x̄)/s_x``, the mean and deviation of the URisk
            summands of this round, so the queries with the smallest gain over the baseline get
            α′ above α/2 and those with the largest gain near 0, whether or not the model already
            beats the baseline on them; ``'dincer2014'``: the paper's ``T_R = x/s_x`` (Eq. 21),
            whose α′ shrinks towards 0 on the queries the model wins as it pulls ahead of the
            baseline (``s_x`` frozen after ``se_round``; docs/objective_tfaro.md).
        **lambdarank_params: LightGBM's ``sigmoid`` (1.0), ``lambdarank_truncation_level`` (30),
            ``lambdarank_norm`` (True) and ``label_gain`` (``2^i - 1``).

    Attributes:
        round_: number of calls so far (= number of trees when the objective is called).
        model_ndcg_: per-query NDCG@cutoff of the model's ranking at the latest call.
        baseline_ndcg_: per-query NDCG@cutoff of the baseline (``'tfaro_star'``: the mean over the
            baselines; ``'georisk'``: a systems × queries matrix).
        active_: per-query mask of the queries that can have a gradient (≥ 2 distinct labels and a
            positive max DCG@cutoff); risk statistics (``s_x``, the GeoRisk matrix) use only these.
        alpha_prime_: per-query α′ (T-SARO, T-FARO, T*-FARO).
        georisk_ratio_: per-query multiplier of GeoRisk's default pair weight
            (``georisk_weight='ratio'``, α > 0; see :func:`_georisk_ratio`).
        s_x_: the standard deviation of the URisk summands used by T-SARO/T-FARO.
        ndcg_history_: rounds × queries model NDCG@cutoff (``record_ndcg=True`` only).
        history_: one dict per round: ``round``, ``mean_ndcg`` (active queries), ``below`` (number
            of active queries where the model is below the baseline; not for ``'georisk'``),
            ``georisk`` (the model's GeoRisk, ``'georisk'`` with α > 0 only).
    """

    def __init__(
        self,
        kind: str,
        *,
        alpha: float = 0.0,
        baseline: Any = None,
        baselines: Any = None,
        cutoff: int = 10,
        se_round: int | None = 1,
        georisk_update: str = "incremental",
        num_threads: int | None = None,
        record_ndcg: bool = False,
        risk_norm: str = "native",
        georisk_weight: str = "ratio",
        faro_tr: str = "centred",
        **lambdarank_params: Any,
    ) -> None:
        alpha = _check_settings(
            kind, alpha=alpha, cutoff=cutoff, se_round=se_round, georisk_update=georisk_update,
            num_threads=num_threads, risk_norm=risk_norm, georisk_weight=georisk_weight, faro_tr=faro_tr,
        )  # fmt: skip
        if georisk_update == "exact" and georisk_weight == "ratio":
            georisk_weight = "ndcg_units"  # the ratio is the incremental update's derivative
        sigmoid, trunc, norm, label_gain = _lambdarank_settings(lambdarank_params)
        check_flag(record_ndcg, "record_ndcg")
        self.kind = kind
        self.alpha = alpha
        self.cutoff = int(cutoff)
        self.se_round = None if se_round is None else int(se_round)
        self.georisk_update = georisk_update
        self.risk_norm = risk_norm
        self.georisk_weight = georisk_weight
        self.faro_tr = faro_tr
        self.num_threads = None if num_threads is None else int(num_threads)
        self.record_ndcg = record_ndcg
        self.sigmoid = sigmoid
        self.truncation_level = trunc
        self.norm = norm
        self.label_gain = label_gain
        self._baseline_scores = self._check_baselines(kind, baseline, baselines)
        self._bound: _Bound | None = None
        self.reset()

    # ------------------------------------------------------------------ construction helpers
    @staticmethod
    def _check_baselines(kind: str, baseline: Any, baselines: Any) -> np.ndarray | None:
        if kind == "lambdarank":
            if baseline is not None or baselines is not None:
                raise ValueError("kind 'lambdarank' takes no baseline/baselines")
            return None
        if kind in SINGLE_BASELINE_KINDS:
            if baselines is not None:
                raise ValueError(f"kind {kind!r} takes one baseline= (per-row scores), not baselines=")
            if baseline is None:
                raise ValueError(f"kind {kind!r} needs baseline= (per-row scores of the baseline ranking)")
            arr = _as_float_array(baseline, "baseline")
            if arr.ndim == 2 and arr.shape[1] == 1:
                arr = arr[:, 0]
            if arr.ndim != 1:
                raise ValueError(f"baseline must be 1-d (one score per training row), got shape {arr.shape}")
            arr = arr[:, None]
        else:
            if baseline is not None:
                raise ValueError(f"kind {kind!r} takes baselines= (rows × systems), not baseline=")
            if baselines is None:
                raise ValueError(f"kind {kind!r} needs baselines= (a rows × systems array of scores)")
            arr = _as_float_array(baselines, "baselines")
            if arr.ndim == 1:
                arr = arr[:, None]
            if arr.ndim != 2 or arr.shape[1] < 1:
                raise ValueError(f"baselines must be a 2-d rows × systems array, got shape {arr.shape}")
        bad = ~np.isfinite(arr)
        if bad.any():
            rows = np.flatnonzero(bad.any(axis=1))
            name = "baseline" if kind in SINGLE_BASELINE_KINDS else "baselines"
            raise ValueError(
                f"{name} has missing or non-finite scores at "
                f"{len(rows)} row(s), first rows {rows[:5].tolist()}: every training row needs a score"
            )
        return np.ascontiguousarray(arr, dtype=np.float64)

    def reset(self) -> None:
        """Forget the training state (round counter, frozen s_x, history); keep the bound data."""
        self.round_ = 0
        self.model_ndcg_: np.ndarray | None = None
        self.alpha_prime_: np.ndarray | None = None
        self.georisk_ratio_: np.ndarray | None = None
        self.s_x_: float | None = None
        self.history_: list[dict[str, float]] = []
        self._ndcg_rounds: list[np.ndarray] = []

    @property
    def ndcg_history_(self) -> np.ndarray | None:
        """Rounds × queries NDCG@cutoff of the model (``record_ndcg=True`` only)."""
        return np.vstack(self._ndcg_rounds) if self._ndcg_rounds else None

    @property
    def baseline_ndcg_(self) -> np.ndarray | None:
        """Per-query NDCG@cutoff of the baseline(s) (None before the first call)."""
        return None if self._bound is None else self._bound.mb

    @property
    def active_(self) -> np.ndarray | None:
        """Per-query mask of queries that can receive a gradient (None before the first call)."""
        return None if self._bound is None else self._bound.active

    def __repr__(self) -> str:
        return f"RiskObjective(kind={self.kind!r}, alpha={self.alpha}, cutoff={self.cutoff})"

    # ------------------------------------------------------------------ binding to the data
    def _bind(self, labels: np.ndarray, group: Any, parallel: bool = False) -> _Bound:
        from . import _kernels as K

        if group is None:
            raise ValueError("a ranking objective needs query groups (Dataset(group=...) / fit(group=...))")
        group = np.asarray(group)
        if group.ndim != 1 or len(group) == 0 or not np.issubdtype(group.dtype, np.number):
            raise ValueError("group must be a non-empty 1-d array of query sizes")
        if (group != np.round(group)).any() or (group < 1).any():
            raise ValueError("group sizes must be integers >= 1")
        group = group.astype(np.int64)
        n = len(labels)
        if int(group.sum()) != n:
            raise ValueError(f"group sizes sum to {int(group.sum())} but there are {n} rows")
        lab = _as_float_array(labels, "labels")
        bad = ~np.isfinite(lab) | (lab != np.round(lab))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"labels must be integers: row {i} has label {float(lab[i])!r}")
        if (lab < 0).any() or (lab >= len(self.label_gain)).any():
            i = int(np.flatnonzero((lab < 0) | (lab >= len(self.label_gain)))[0])
            raise ValueError(
                f"label {int(lab[i])} at row {i} is out of range: labels must be in "
                f"0..{len(self.label_gain) - 1} (one label_gain entry per label)"
            )
        y = lab.astype(np.int32)
        qstart = np.concatenate([[0], np.cumsum(group)]).astype(np.int64)
        disc = K.discounts(int(group.max()))
        inv_trunc = K.inverse_max_dcg(y, qstart, self.label_gain, disc, self.truncation_level)
        inv_cut = K.inverse_max_dcg(y, qstart, self.label_gain, disc, self.cutoff)
        qmax = np.maximum.reduceat(y, qstart[:-1])
        qmin = np.minimum.reduceat(y, qstart[:-1])
        active = (qmax != qmin) & (inv_cut > 0)
        table, sig_min, sig_max, sig_factor = _sigmoid_table(self.sigmoid)
        return _Bound(
            n=n, group=group, labels=lab, y=y, qstart=qstart, disc=disc, inv_trunc=inv_trunc, inv_cut=inv_cut,
            active=active, table=table, sig_min=sig_min, sig_max=sig_max, sig_factor=sig_factor,
            phi=_phi_table(), mb=self._baseline_ndcg(y, qstart, disc, inv_cut, parallel),
        )  # fmt: skip

    def _baseline_ndcg(
        self, y: np.ndarray, qstart: np.ndarray, disc: np.ndarray, inv_cut: np.ndarray, parallel: bool
    ) -> np.ndarray | None:
        """Per-query NDCG@cutoff of the baseline(s): one row (single), the mean row or the matrix."""
        from . import _kernels as K

        b = self._baseline_scores
        if b is None:
            return None
        sort = K.sort_and_ndcg if parallel else K.sort_and_ndcg_serial
        n = len(y)
        if b.shape[0] != n:
            hint = " (baselines is systems × rows: pass its transpose)" if b.shape[1] == n else ""
            raise ValueError(
                f"baseline scores cover {b.shape[0]} rows but the training data has {n} rows: "
                f"pass one score per training row, in training-row order{hint}"
            )
        mats = np.stack(
            [sort(_kernel_array(b[:, s]), y, qstart, self.label_gain, disc, inv_cut,
                             self.cutoff)[1] for s in range(b.shape[1])]
        )  # fmt: skip
        if self.kind in SINGLE_BASELINE_KINDS:
            return mats[0]
        return mats.mean(axis=0) if self.kind == "tfaro_star" else mats

    # ------------------------------------------------------------------ the objective
    def __call__(
        self, a: Any, b: Any, weight: Any = _UNSET, group: Any = _UNSET
    ) -> tuple[np.ndarray, np.ndarray]:
        """Gradients and hessians (float32) for the current scores.

        Args:
            a: ``preds`` (``lightgbm.train``) or ``y_true`` (``LGBMRanker``).
            b: the training ``lightgbm.Dataset`` (``lightgbm.train``) or ``y_pred`` (``LGBMRanker``).
            weight: per-row weights or None (``LGBMRanker`` only).
            group: query sizes (``LGBMRanker`` only).

        Returns:
            ``(grad, hess)``, float32 arrays with one value per training row.
        """
        if group is _UNSET:
            if not hasattr(b, "get_group"):
                raise TypeError(
                    "call as obj(preds, train_data) (lightgbm.train) or obj(y_true, y_pred, weight, group) "
                    "(LGBMRanker)"
                )
            preds, labels, group, weight = a, b.get_label(), b.get_group(), b.get_weight()
        else:
            labels, preds = a, b
            weight = None if weight is _UNSET else weight
        import numba

        n = len(labels)
        threads = self.num_threads or (1 if n < _PARALLEL_MIN_ROWS else numba.config.NUMBA_NUM_THREADS)
        threads = min(threads, numba.config.NUMBA_NUM_THREADS)
        preds = np.asarray(preds, dtype=np.float64)
        if threads == 1 and n < _PARALLEL_MIN_ROWS:
            # the serial kernels: same results, half the compile time of the parallel ones (what a small
            # set's first call pays), but slower per row than the parallel pipeline even on one thread
            return self._gradients(preds, np.asarray(labels), group, weight, parallel=False)
        previous = numba.get_num_threads()
        if threads != previous:
            numba.set_num_threads(threads)
        try:
            return self._gradients(preds, np.asarray(labels), group, weight, parallel=True)
        finally:
            if threads != previous:
                numba.set_num_threads(previous)

    def kernel_status(self, n_rows: int) -> str | None:
        """What the first call on ``n_rows`` rows will do before computing: None when nothing.

        The numba kernels compile at their first use in a process (seconds to a minute), or load
        from the on-disk cache (:func:`~pyterrier_risk.learning._jit.cache_dir`) if an earlier
        process compiled them; ``RiskLambdaMART`` says so before its first tree.
        """
        import numba

        from . import _jit
        from . import _kernels as K

        threads = self.num_threads or (1 if n_rows < _PARALLEL_MIN_ROWS else numba.config.NUMBA_NUM_THREADS)
        serial = min(threads, numba.config.NUMBA_NUM_THREADS) == 1 and n_rows < _PARALLEL_MIN_ROWS
        kernel = K.lambdas_serial if serial else K.lambdas
        if kernel.signatures:
            return None
        folder = _jit.cache_dir()
        if folder is None:
            return "compiling kernels (first use in this process; the disk cache is off)"
        name = f"_kernels.{kernel.py_func.__name__}-*.nbi"
        if folder.is_dir() and any(folder.glob(f"*/{name}")):
            return f"loading kernels (cached in {folder})"
        return f"compiling kernels (first use; cached in {folder})"

    def __getstate__(self) -> dict[str, Any]:
        # the bound training-set cache (incl. two 8 MB lookup tables) is rebuilt on the next call
        state = self.__dict__.copy()
        state["_bound"] = None
        return state

    def __deepcopy__(self, memo: dict) -> RiskObjective:
        # lightgbm.train deep-copies its params: keep one object so that its diagnostics are the caller's
        return self

    def _ensure_bound(self, labels: np.ndarray, group: Any, new_run: bool, parallel: bool = False) -> _Bound:
        bd = self._bound
        if bd is not None:
            g = None if group is None else np.asarray(group)
            same = (
                g is not None and len(labels) == bd.n and len(g) == len(bd.group)
                and np.array_equal(g, bd.group) and np.array_equal(labels, bd.labels)
            )  # fmt: skip
            if same:
                return bd
            if not new_run:
                raise ValueError(
                    "this objective is bound to the training set it started on (its baseline rows are "
                    "aligned with it) and got different labels/groups in the middle of training"
                )
        self._bound = self._bind(labels, group, parallel)
        return self._bound

    def _gradients(
        self, preds: np.ndarray, labels: np.ndarray, group: Any, weight: Any, parallel: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        from . import _kernels as K

        new_run = self.round_ > 0 and not preds.any()
        if new_run:
            self.reset()  # all-zero scores again: a new training run (same or other data)
        bd = self._ensure_bound(labels, group, new_run, parallel)
        if preds.ndim != 1 or len(preds) != bd.n:
            raise ValueError(f"expected {bd.n} scores, got shape {preds.shape}")
        preds = _kernel_array(preds)
        sort_and_ndcg = K.sort_and_ndcg if parallel else K.sort_and_ndcg_serial
        lambdas = K.lambdas if parallel else K.lambdas_serial
        order, mm = sort_and_ndcg(preds, bd.y, bd.qstart, self.label_gain, bd.disc, bd.inv_cut, self.cutoff)
        w = self._pair_weights(mm, bd)
        grad, hess = lambdas(
            preds, bd.y, bd.qstart, order, bd.inv_trunc, self.label_gain, bd.disc, bd.table,
            bd.sig_min, bd.sig_max, bd.sig_factor, self.sigmoid, self.norm, self.truncation_level, w.mode,
            w.mult, mm, w.mb, w.alpha, w.geo.in_matrix, w.geo.col_total, w.geo.z_rest, w.geo.z_w, w.geo.wa,
            w.geo.wb, w.geo.constants(), bd.phi, self.risk_norm == "native" and self.alpha > 0,
        )  # fmt: skip
        if weight is not None:
            wt = np.asarray(weight, dtype=np.float32)
            if wt.shape != grad.shape:
                raise ValueError(f"weight has shape {wt.shape}, expected ({bd.n},)")
            grad = grad * wt
            hess = hess * wt
        self._check_gradients(grad, hess, bd)
        self._record(mm, bd, w)
        return grad, hess

    def _check_gradients(self, grad: np.ndarray, hess: np.ndarray, bd: _Bound) -> None:
        """Never hand LightGBM a non-finite float32 gradient; say so when a round has none at all."""
        if not (np.isfinite(grad).all() and np.isfinite(hess).all()):
            if self.kind == "georisk" and self.georisk_weight == "ndcg_units" and self.alpha > 0:
                fix = (
                    "GeoRisk's 'ndcg_units' weight (georisk_update='exact') divides by Phi(ZRisk/c), tiny "
                    "at this alpha: use the default georisk_weight='ratio' or a smaller alpha"
                )
            else:
                fix = "lower sigmoid or the row weights, or keep lambdarank_norm=True (it bounds each query)"
            raise ValueError(
                f"round {self.round_}: the gradients overflow float32 (kind {self.kind!r}, alpha="
                f"{self.alpha:g}, sigmoid={self.sigmoid:g}, lambdarank_norm={self.norm}); {fix}"
            )
        if bd.active.any() and not grad.any():
            warnings.warn(
                f"round {self.round_}: every gradient is 0 although {int(bd.active.sum())} queries have "
                f"two label values (kind {self.kind!r}, alpha={self.alpha:g}); LightGBM stops adding trees",
                RuntimeWarning,
                stacklevel=2,
            )

    def _pair_weights(self, mm: np.ndarray, bd: _Bound) -> _PairWeights:
        """The kernels' pair-weight mode and per-query inputs for this round."""
        from . import _kernels as K

        nq = len(bd.group)
        w = _PairWeights(K.MODE_SCALE, np.ones(nq), np.zeros(nq), np.zeros(nq), _empty_georisk_round(nq))
        if self.kind in _ROW_BASELINE_KINDS:
            w.mb = bd.mb
        if self.kind == "urisk":
            w.mode = K.MODE_UCRO
            w.alpha[:] = self.alpha
        elif self.kind in ("tsaro", "tfaro", "tfaro_star"):
            centred = self.kind != "tsaro" and self.faro_tr == "centred"
            ap = self._alpha_prime(mm, bd.mb, bd.active, centred=centred)
            self.alpha_prime_ = ap
            if self.kind == "tsaro":
                w.mode, w.alpha = K.MODE_UCRO, ap
            else:
                w.mult = 1.0 + ap
        elif self.kind == "georisk" and self.alpha > 0:
            w.geo = self._georisk_state(mm, bd.mb, bd.active)
            if self.georisk_weight == "ratio":
                w.mult = self.georisk_ratio_ = _georisk_ratio(w.geo, mm)
                w.geo = _empty_georisk_round(nq, georisk=w.geo.georisk)
            else:
                w.mode = K.MODE_GEORISK if self.georisk_update == "incremental" else K.MODE_GEORISK_EXACT
                if self.georisk_weight == "dincer2016":
                    w.geo = dataclasses.replace(w.geo, scale=1.0)
        return w

    def _record(self, mm: np.ndarray, bd: _Bound, w: _PairWeights) -> None:
        """Diagnostics of the round (``history_``, ``model_ndcg_``) and the round counter."""
        active = bd.active
        mean = float(mm[active].mean()) if active.any() else math.nan
        record = {"round": float(self.round_), "mean_ndcg": mean}
        if self.kind in _ROW_BASELINE_KINDS:
            record["below"] = float(np.count_nonzero(mm[active] < bd.mb[active]))
        if self.kind == "georisk" and self.alpha > 0:
            record["georisk"] = w.geo.georisk
        self.model_ndcg_ = mm
        if self.record_ndcg:
            self._ndcg_rounds.append(mm)
        self.history_.append(record)
        self.round_ += 1

    def _alpha_prime(
        self, mm: np.ndarray, mb: np.ndarray, active: np.ndarray, *, centred: bool
    ) -> np.ndarray:
        """α′ = α·[1 − Φ(T_R)], T_R = x / s_x (Dinçer et al. 2014, Eqs. 21 and 25).

        ``x`` and ``s_x`` come from the numeric core (:func:`~pyterrier_risk.core.risk_weighted_differences`,
        ``summand_sd``), as in TRisk; ``s_x`` is taken over the active queries. ``centred``
        (T-FARO's default ``faro_tr='centred'``): ``T_R = (x − x̄)/s_x`` with ``x̄`` and ``s_x`` of
        this round, so the queries with the smallest gain over the baseline keep the emphasis even
        when the model beats the baseline on every training query.
        """
        from ..core._urisk import risk_weighted_differences, summand_sd, topic_t_r

        x = risk_weighted_differences(mm, mb, self.alpha)
        centre = float(x[active].mean()) if centred and active.any() else 0.0
        if centred:
            self.s_x_ = summand_sd(x[active] - centre)
        elif self.s_x_ is None or self.se_round is None or self.round_ <= self.se_round:
            # re-estimated each round until round se_round, then frozen (paper: after the first iteration)
            self.s_x_ = summand_sd(x[active])
        return self.alpha * (1.0 - _normal_cdf(topic_t_r(x, self.s_x_, centre=centre)))

    def _georisk_state(self, mm: np.ndarray, mb: np.ndarray, active: np.ndarray) -> GeoRiskRound:
        """The GeoRisk matrix (baselines + model, active queries) of the round, for the kernels' ΔM′.

        z and GeoRisk come from the numeric core (``row_z_scores``, ``georisk_from_zrisk``), as in
        :func:`~pyterrier_risk.georisk`.
        """
        from ..core._zrisk import georisk_from_zrisk, row_z_scores
        from . import _kernels as K

        nq = len(mm)
        cols = np.flatnonzero(active)
        x = np.vstack([mb[:, cols], mm[cols][None, :]])  # systems (model last) × active queries
        c = float(len(cols))
        col = x.sum(axis=0)
        n_tot = float(col.sum())
        s_m = float(x[-1].sum())
        z = row_z_scores(x[-1], s_m, col, n_tot)
        w = np.where(z < 0, 1.0 + self.alpha, 1.0)
        zw = w * z
        z_m = float(zw.sum())
        phi = float(_normal_cdf(z_m / c)) if c > 0 else 0.5
        g0 = float(georisk_from_zrisk(s_m, z_m, int(c))) if c > 0 else 0.0
        # express ΔGeoRisk in NDCG units: divide by ∂GeoRisk/∂M_m(j) at fixed ZRisk = Φ/(2·c·GeoRisk)
        scale = 2.0 * c * g0 / phi if g0 > 0 and phi > 0 else c
        root = np.sqrt(np.maximum(col, 0.0))
        wa_c = np.divide(w * x[-1], root, out=np.zeros_like(col), where=col > 0)
        wb_c = np.where(col > 0, w * root, 0.0)
        u0 = z_m / c if c > 0 else 0.0
        density = math.exp(-0.5 * u0 * u0) / math.sqrt(2.0 * math.pi)

        def spread(values: np.ndarray, dtype: Any = float) -> np.ndarray:
            out = np.zeros(nq, dtype=dtype)
            out[cols] = values
            return out

        return GeoRiskRound(
            in_matrix=spread(True, np.bool_), col_total=spread(col), z_rest=spread(z_m - zw), z_w=spread(zw),
            wa=spread(wa_c), wb=spread(wb_c), s_model=s_m, n_total=n_tot, c=c, alpha=self.alpha, georisk=g0,
            scale=scale, u0=u0, phi_u0=phi, density=density, coef=K.georisk_series_coefficients(u0, density),
        )  # fmt: skip


@dataclass
class _PairWeights:
    """The kernels' pair-weight inputs of one round: mode, per-query multiplier/baseline/α, GeoRisk."""

    mode: int
    mult: np.ndarray
    mb: np.ndarray
    alpha: np.ndarray
    geo: GeoRiskRound


def _empty_georisk_round(nq: int, georisk: float = 0.0) -> GeoRiskRound:
    """A round state with no query in the GeoRisk matrix (the kernels' GeoRisk modes unused)."""
    zeros = np.zeros(nq)
    return GeoRiskRound(
        in_matrix=np.zeros(nq, dtype=np.bool_), col_total=zeros, z_rest=zeros, z_w=zeros, wa=zeros, wb=zeros,
        s_model=0.0, n_total=0.0, c=0.0, alpha=0.0, georisk=georisk, scale=0.0, u0=0.0, phi_u0=0.0,
        density=0.0, coef=np.zeros(5),
    )  # fmt: skip


def _georisk_ratio(st: GeoRiskRound, mm: np.ndarray) -> np.ndarray:
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
        # D_q = sqrt(Φ(u)) · A_q / (2·sqrt(c·S)), A_q = 1 + (S/c)·w_q·z_q'·φ(u)/Φ(u); sqrt(Φ(u)) is common
        # to all queries, so only A_q (the ratio φ/Φ in a form with no 0/0 when GeoRisk saturates)
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
    tail, where it tends to :math:`-u` (the form :math:`\exp(-u^2/2 - \log\sqrt{2\pi} - \log\Phi(u))`
    overflows at :math:`u \approx -3.8\cdot10^{154}` and is 78% off at :math:`u = -10^8`); in the
    upper tail erfcx overflows to inf and the ratio is 0, its limit. Tested against mpmath.
    """
    from scipy.special import erfcx

    return math.sqrt(2.0 / math.pi) / float(erfcx(-u / math.sqrt(2.0)))


def _kernel_array(values: np.ndarray) -> np.ndarray:
    """``values`` as a writable, C-contiguous float64 array (copied only if needed).

    numba compiles a kernel once per argument type, and a read-only array is another type: passing
    every score array with the same flags keeps each kernel to one compilation per process.
    """
    return np.require(values, dtype=np.float64, requirements=["C", "W"])


# options that only some kinds read: another kind refuses a value other than the option's default
_KIND_OPTIONS: dict[str, tuple[str, ...]] = {
    "georisk_update": ("georisk",),
    "georisk_weight": ("georisk",),
    "faro_tr": ("tfaro", "tfaro_star"),
    "se_round": ("tsaro", "tfaro", "tfaro_star"),
    "risk_norm": ("urisk", "tsaro", "tfaro", "tfaro_star", "georisk"),
}


@functools.cache
def _option_defaults() -> dict[str, Any]:
    """The keyword options of :class:`RiskObjective` with their defaults (its signature is the one source)."""
    import inspect

    params = inspect.signature(RiskObjective.__init__).parameters
    return {k: v.default for k, v in params.items() if v.kind is inspect.Parameter.KEYWORD_ONLY}


def _check_settings(
    kind: Any, *, alpha: Any, cutoff: Any, se_round: Any, num_threads: Any, **choices: Any
) -> float:
    """Check every option of :class:`RiskObjective` that needs no data; returns the checked α.

    ``choices``: ``georisk_update``, ``risk_norm``, ``georisk_weight``, ``faro_tr``. An option that
    only other kinds read (``_KIND_OPTIONS``) must keep its default: ``faro_tr='dincer2014'`` for
    ``'urisk'`` is an error, not a silent no-op.
    """
    if not isinstance(kind, str) or kind not in KINDS:
        raise ValueError(f"unknown objective kind {kind!r}; expected one of {', '.join(KINDS)}")
    _check_choice(choices["georisk_update"], "georisk_update", ("incremental", "exact"))
    _check_choice(choices["risk_norm"], "risk_norm", RISK_NORMS)
    _check_choice(choices["georisk_weight"], "georisk_weight", GEORISK_WEIGHTS)
    _check_choice(choices["faro_tr"], "faro_tr", FARO_TRS)
    checked = check_alpha(alpha)
    if checked > ALPHA_MAX:
        raise ValueError(
            f"alpha must be at most {ALPHA_MAX:g} for a LambdaMART objective, got {alpha!r}: beyond, float32 "
            f"gradients cannot hold a win beside a loss weighted 1 + alpha, and they overflow from ~1e35"
        )
    check_count(cutoff, "cutoff")
    check_count(se_round, "se_round", minimum=0, allow_none=True)
    check_count(num_threads, "num_threads", allow_none=True)
    given, defaults = {**choices, "se_round": se_round}, _option_defaults()
    centred = kind in ("tfaro", "tfaro_star") and choices["faro_tr"] == "centred"
    if centred and se_round != defaults["se_round"]:
        raise ValueError(
            f"se_round={se_round!r} has no effect on kind {kind!r} with faro_tr='centred' "
            "(its s_x is re-estimated every round); it applies with faro_tr='dincer2014'"
        )
    for name, kinds in _KIND_OPTIONS.items():
        if kind not in kinds and given[name] != defaults[name]:
            readers = " and ".join(repr(k) for k in kinds)
            raise ValueError(f"{name}={given[name]!r} has no effect on kind {kind!r}: only {readers} read it")
    return checked


def check_objective_options(kind: str, options: dict[str, Any]) -> None:
    """Check ``objective(kind, **options)``'s options before any data is seen (``RiskLambdaMART``).

    The baselines are checked when the objective is built at ``fit``; everything else raises here
    the error the constructor would raise.
    """
    named = _option_defaults()  # cached: read-only here
    unknown = {k: v for k, v in options.items() if k not in named}
    values = {**named, **{k: v for k, v in options.items() if k in named}}
    for name in ("baseline", "baselines", "record_ndcg"):
        values.pop(name)
    _check_settings(kind, **values)
    _lambdarank_settings(unknown)


def _check_choice(value: Any, name: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")


def _lambdarank_settings(params: dict[str, Any]) -> tuple[float, int, bool, np.ndarray]:
    """Checked ``sigmoid``, truncation level, ``lambdarank_norm`` and label gains (LightGBM's defaults).

    Values are parsed strictly (docs/objectives.md, "Option values"): numbers must be numbers (a
    string such as ``'2'`` is refused), and ``lambdarank_norm`` is read as LightGBM reads it: a bool,
    or one of LightGBM's spellings ``'true'``/``'+'``/``'false'``/``'-'`` (any case); ``0``/``1`` and
    other strings are refused, as LightGBM refuses them.
    """
    unknown = set(params) - set(_LAMBDARANK_DEFAULTS)
    if unknown:
        accepted = sorted(_LAMBDARANK_DEFAULTS)
        raise TypeError(f"unknown lambdarank parameter(s) {sorted(unknown)}; accepted: {accepted}")
    params = {**_LAMBDARANK_DEFAULTS, **params}
    sigmoid = params["sigmoid"]
    if isinstance(sigmoid, bool) or not isinstance(sigmoid, (int, float, np.integer, np.floating)):
        raise TypeError(f"sigmoid must be a number > 0, got {sigmoid!r}")
    if not math.isfinite(sigmoid) or sigmoid <= 0:
        raise ValueError(f"sigmoid must be > 0, got {sigmoid!r}")
    trunc = check_count(params["lambdarank_truncation_level"], "lambdarank_truncation_level")
    norm = lightgbm_bool(params["lambdarank_norm"], "lambdarank_norm")
    if params["label_gain"] is None:
        return float(sigmoid), trunc, norm, 2.0 ** np.arange(31) - 1.0
    if isinstance(params["label_gain"], (str, bytes)):
        given = params["label_gain"]
        raise TypeError(f"label_gain must be a sequence of numbers, e.g. [0, 1, 3], got {given!r}")
    label_gain = _as_float_array(params["label_gain"], "label_gain")
    if label_gain.ndim != 1 or len(label_gain) == 0 or not np.isfinite(label_gain).all():
        raise ValueError("label_gain must be a non-empty 1-d sequence of finite numbers")
    return float(sigmoid), trunc, norm, label_gain


def _as_float_array(values: Any, name: str) -> np.ndarray:
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    if isinstance(values, Sequence) and not isinstance(values, (str, bytes)):
        lengths = {len(v) for v in values if isinstance(v, (Sequence, np.ndarray))}
        if len(lengths) > 1:
            raise ValueError(f"{name} is ragged: its rows have different lengths {sorted(lengths)[:5]}")
    try:
        arr = np.asarray(values)
        if arr.dtype.kind == "c" or (arr.dtype.kind == "O" and any(isinstance(x, complex) for x in arr.flat)):
            raise TypeError(f"{name} holds complex numbers: they must be real (take .real or abs() first)")
        arr = arr.astype(np.float64)
    except (TypeError, ValueError) as e:
        if isinstance(e, TypeError) and "complex numbers" in str(e):
            raise
        raise ValueError(f"{name} must be numeric scores: {e}") from None
    return arr


def objective(kind: str, **options: Any) -> RiskObjective:
    r"""A (risk-sensitive) LambdaMART objective for LightGBM.

    ``|ΔM|`` of LambdaMART's pair gradient (LightGBM's ΔNDCG) is replaced by a risk-aware
    ``|ΔM′|``; ``M_m``/``M_b`` are the model's / baseline's per-query NDCG@``cutoff``, the model's
    re-measured from the scores LightGBM passes at every round:

    * ``'lambdarank'``: ``ΔM′ = ΔM`` (LightGBM's native objective, re-implemented).
    * ``'urisk'`` — U-CRO, Wang et al. (SIGIR 2012) §4.3.2: ``ΔM′ = ΔT`` with
      :math:`T = \max(0, M_m - M_b) - (1+\alpha)\max(0, M_b - M_m)`, by all cases of Theorem 1.
    * ``'tsaro'`` — T-SARO, Dinçer et al. (SIGIR 2014) §6.3: U-CRO with
      :math:`\alpha' = \alpha\,[1 - \Phi(x_q / s_x)]` per query, where :math:`x_q` is the query's URisk
      summand and :math:`s_x` their standard deviation.
    * ``'tfaro'`` — T-FARO, same paper, Eq. 26: :math:`\Delta M' = (1 + \alpha')\,\Delta M`.
    * ``'tfaro_star'`` — T*-FARO, Dinçer et al. (SIGIR 2016) §6: T-FARO with the per-query mean NDCG
      of several baselines as the baseline.
    * ``'georisk'`` — same paper, §6: :math:`\Delta M' = \mathrm{GeoRisk}(M_m + \Delta M) -
      \mathrm{GeoRisk}(M_m)` over the systems × queries NDCG matrix of the baselines plus the model,
      :math:`\mathrm{GeoRisk} = \sqrt{S_m/c \cdot \Phi(Z_{Risk}/c)}`.

    At ``alpha=0`` every kind computes exactly LightGBM's ``lambdarank`` gradients.

    ``objective(kind, **options)`` is ``RiskObjective(kind, **options)``; the options are
    keyword-only.

    Args:
        kind: one of ``'lambdarank'``, ``'urisk'``, ``'tsaro'``, ``'tfaro'``, ``'tfaro_star'``,
            ``'georisk'``.
        **options: keyword-only options of :class:`RiskObjective` (``alpha``, ``baseline``,
            ``baselines``, ``cutoff``, ``se_round``, ``georisk_update``, ``num_threads``,
            ``record_ndcg``, ``risk_norm``, ``georisk_weight`` and LightGBM's ``sigmoid``,
            ``lambdarank_truncation_level``, ``lambdarank_norm``, ``label_gain``), documented there.

    Returns:
        A :class:`RiskObjective`, usable as ``lightgbm.train(params={'objective': obj, ...})`` or
        ``LGBMRanker(objective=obj)``.

    Raises:
        ValueError: unknown kind, α < 0, a missing/ragged/non-finite baseline, a baseline for a
            kind that takes none (or the wrong one of ``baseline``/``baselines``), a bad parameter;
            at the first call: non-integer or out-of-range labels, baselines not covering every row.
        TypeError: an unknown lambdarank parameter.

    Example:
        >>> import lightgbm as lgb  # doctest: +SKIP
        >>> obj = objective("urisk", alpha=5.0, baseline=X[:, 24])  # doctest: +SKIP
        >>> model = lgb.train({"objective": obj}, lgb.Dataset(X, y, group=group), 100)  # doctest: +SKIP
    """
    return RiskObjective(kind, **options)
