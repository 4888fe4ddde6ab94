"""The LightGBM custom objective of (risk-sensitive) LambdaMART: :class:`RiskObjective` and :func:`objective`.

LambdaMART's gradient for a document pair ``(a, b)`` of a query is RankNet's logistic derivative
times ``|ΔM_ab|``, the change in NDCG when ``a`` and ``b`` swap. A risk-sensitive objective replaces
``|ΔM|`` with ``|ΔM′|``; which one is an :class:`~.objectives.Objective` of the registry
(:mod:`.objectives`: U-CRO, T-SARO, T-FARO, T*-FARO, GeoRisk, plain LambdaMART, or one of yours).

:class:`RiskObjective` is what LightGBM calls. At every round it sorts each query's documents by
the current scores, measures the model's per-query NDCG@cutoff (numpy, :mod:`._ndcg`), asks the
objective for its weights (:class:`~.objectives.Round` in, per-query multipliers or a pair rule
out) and runs the pair loop compiled for that rule (:mod:`._pairloop`). The pair arithmetic is
LightGBM 4.x's ``lambdarank`` exactly, so at ``α = 0`` every built-in trains the same model as
``objective='lambdarank'``. See ``docs/objectives.md`` and ``docs/custom_objective.md``.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._lightgbm_params import LAMBDARANK_DEFAULTS as _LAMBDARANK_DEFAULTS
from ._ndcg import discounts, inverse_max_dcg, ndcg_at, query_of_rows, sigmoid_table, stable_desc_order
from ._options import check_count, check_flag, lightgbm_bool
from .objectives import (
    ALPHA_MAX,
    Objective,
    PairWeights,
    Round,
    get_objective,
    objective_names,
    objectives,
    option_readers,
)

__all__ = ["ALPHA_MAX", "KINDS", "RiskObjective", "check_objective_options", "objective"]

KINDS = objective_names()  # the built-in objectives (objective_names() also lists registered ones)
_UNSET: Any = object()
# below this many rows the per-round work is a few ms and thread start-up costs more than it saves
_PARALLEL_MIN_ROWS = 50_000


@dataclass(frozen=True)
class _Bound:
    """A training set bound to the objective: labels, query layout and the per-query constants."""

    n: int
    group: np.ndarray
    labels: np.ndarray
    y: np.ndarray
    qstart: np.ndarray
    qid: np.ndarray
    row_start: np.ndarray
    inv_trunc: np.ndarray
    inv_cut: np.ndarray
    active: np.ndarray
    lr: Any  # the pair loop's LightGBM constants (_pairloop.LambdarankConstants)
    mb: np.ndarray | None


def _kernel_array(values: np.ndarray) -> np.ndarray:
    """``values`` as a writable, C-contiguous float64 array (copied only if needed).

    numba compiles a kernel once per argument type, and a read-only array is another type: passing
    every score array with the same flags keeps each kernel to one compilation per process.
    """
    return np.require(values, dtype=np.float64, requirements=["C", "W"])


def _split_options(kind: Any, options: dict[str, Any]) -> tuple[Objective, dict[str, Any]]:
    """The objective built from its options, and the lambdarank parameters among ``options``.

    An option only other objectives read must keep its default there (``faro_tr='dincer2014'`` for
    ``'urisk'`` is an error, not a silent no-op); an option no objective reads is a TypeError.
    """
    cls = get_objective(kind)
    own = {o.name for o in cls.options}
    spec_options, lambdarank, alpha = {}, {}, options.pop("alpha", 0.0)
    for name, value in options.items():
        if name in own:
            spec_options[name] = value
        elif name in _LAMBDARANK_DEFAULTS:
            lambdarank[name] = value
        elif option_readers(name):
            readers = option_readers(name)
            default = next(o.default for o in get_objective(readers[0]).options if o.name == name)
            if value != default:
                who = " and ".join(repr(k) for k in readers)
                raise ValueError(f"{name}={value!r} has no effect on kind {kind!r}: only {who} read it")
        else:
            accepted = sorted(own | set(_LAMBDARANK_DEFAULTS))
            raise TypeError(
                f"unknown lambdarank parameter or option {name!r} of objective {kind!r}; accepted: {accepted}"
            )
    return cls(alpha=alpha, **spec_options), lambdarank


def check_objective_options(kind: str, options: dict[str, Any]) -> None:
    """Check ``objective(kind, **options)``'s options before any data is seen (``RiskLambdaMART``).

    The baselines are checked when the objective is built at ``fit``; everything else raises here
    the error the constructor would raise.
    """
    options = dict(options)
    for name in ("baseline", "baselines", "record_ndcg"):
        options.pop(name, None)
    check_count(options.pop("cutoff", 10), "cutoff")
    check_count(options.pop("num_threads", None), "num_threads", allow_none=True)
    _, lambdarank = _split_options(kind, options)
    _lambdarank_settings(lambdarank)


def _declared_elsewhere(name: str) -> bool:
    """Whether a registered objective declares ``name`` as an option or a report."""
    return bool(option_readers(name)) or any(name in cls.reports for cls in objectives().values())


class RiskObjective:
    """A LightGBM custom objective computing (risk-sensitive) LambdaMART gradients.

    Create it with :func:`objective`. It is callable both as ``obj(preds, train_data)`` (what
    ``lightgbm.train(params={'objective': obj})`` passes) and as ``obj(y_true, y_pred, weight,
    group)`` (what ``LGBMRanker(objective=obj)`` passes in LightGBM 4.x).

    The object binds to its training set on the first call (labels, query groups, the baseline
    rows) and keeps diagnostics (Attributes), refreshed at every round from the scores it receives.

    Args:
        kind: the name of a registered objective (:func:`~.objectives.objective_names`; the
            built-ins are :data:`KINDS`).
        alpha: risk sensitivity, 0 ≤ α ≤ :data:`ALPHA_MAX` (10⁶: beyond, float32 gradients cannot
            hold a win beside a loss, and from ~1e35 they overflow).
        baseline: per-row scores of one baseline ranking, aligned with the training rows (e.g. the
            BM25 feature column); for the objectives whose ``baseline`` is ``'single'`` (``'urisk'``,
            ``'tsaro'``, ``'tfaro'``).
        baselines: rows × systems scores of several baselines; for the ``'multiple'`` ones
            (``'tfaro_star'``, ``'georisk'``).
        cutoff: NDCG cutoff of the per-query effectiveness ``M``.
        num_threads: threads of the numba kernels; default: 1 below 50,000 rows (serial kernels), else all of
            numba's threads (queries are processed in parallel).
        record_ndcg: keep the model's per-query NDCG@cutoff of every round in ``ndcg_history_``
            (rounds × queries; off by default to keep memory flat on large query sets).
        **options: the objective's own options (e.g. ``se_round`` and ``faro_tr`` of T-FARO,
            ``georisk_update``/``georisk_weight`` of GeoRisk, ``risk_norm``; see each objective's
            page in the docs) and LightGBM's ``sigmoid`` (1.0), ``lambdarank_truncation_level``
            (30), ``lambdarank_norm`` (True) and ``label_gain`` (``2^i - 1``).

    Attributes:
        kind: the objective's name.
        spec: the :class:`~.objectives.Objective` (its options are also readable here, e.g. ``obj.faro_tr``).
        round_: number of calls so far (= number of trees when the objective is called).
        model_ndcg_: per-query NDCG@cutoff of the model's ranking at the latest call.
        baseline_ndcg_: per-query NDCG@cutoff of the baseline (``'tfaro_star'``: the mean over the
            baselines; ``'georisk'``: a systems × queries matrix).
        active_: per-query mask of the queries that can have a gradient (≥ 2 distinct labels and a
            positive max DCG@cutoff); risk statistics (``s_x``, the GeoRisk matrix) use only these.
        alpha_prime_: per-query α′ (T-SARO, T-FARO, T*-FARO).
        georisk_ratio_: per-query multiplier of GeoRisk's default pair weight (α > 0).
        s_x_: the standard deviation of the URisk summands used by T-SARO/T-FARO.
        ndcg_history_: rounds × queries model NDCG@cutoff (``record_ndcg=True`` only).
        history_: one dict per round: ``round``, ``mean_ndcg`` (active queries) and the objective's
            diagnostics (``below``: active queries below a single/mean baseline; ``georisk``: the
            model's GeoRisk, ``'georisk'`` with α > 0).
    """

    def __init__(
        self,
        kind: str,
        *,
        alpha: float = 0.0,
        baseline: Any = None,
        baselines: Any = None,
        cutoff: int = 10,
        num_threads: int | None = None,
        record_ndcg: bool = False,
        **options: Any,
    ) -> None:
        self.spec, lambdarank = _split_options(kind, {**options, "alpha": alpha})
        check_count(cutoff, "cutoff")
        check_count(num_threads, "num_threads", allow_none=True)
        check_flag(record_ndcg, "record_ndcg")
        self.kind = self.spec.name
        self.alpha = self.spec.alpha
        self.cutoff = int(cutoff)
        self.num_threads = None if num_threads is None else int(num_threads)
        self.record_ndcg = record_ndcg
        self.sigmoid, self.truncation_level, self.norm, self.label_gain = _lambdarank_settings(lambdarank)
        self._baseline_scores = self._check_baselines(baseline, baselines)
        self._bound: _Bound | None = None
        self.reset()

    def __getattr__(self, name: str) -> Any:
        # the objective's options and what it reports (obj.faro_tr, obj.alpha_prime_), read from the spec
        spec = self.__dict__.get("spec")
        if spec is not None and (name in spec.reports or any(o.name == name for o in spec.options)):
            return getattr(spec, name, None)
        if spec is not None and _declared_elsewhere(name):
            return None  # an option or a report of other objectives: not this one's
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ------------------------------------------------------------------ construction helpers
    def _check_baselines(self, baseline: Any, baselines: Any) -> np.ndarray | None:
        kind, needs = self.kind, self.spec.baseline
        if needs == "none":
            if baseline is not None or baselines is not None:
                raise ValueError(f"kind {kind!r} takes no baseline/baselines")
            return None
        if needs == "single":
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
            name = "baseline" if needs == "single" else "baselines"
            raise ValueError(
                f"{name} has missing or non-finite scores at "
                f"{len(rows)} row(s), first rows {rows[:5].tolist()}: every training row needs a score"
            )
        return np.ascontiguousarray(arr, dtype=np.float64)

    def reset(self) -> None:
        """Forget the training state (round counter, the objective's state, history); keep the bound data."""
        self.round_ = 0
        self.model_ndcg_: np.ndarray | None = None
        self.history_: list[dict[str, float]] = []
        self._ndcg_rounds: list[np.ndarray] = []
        self.spec.reset()

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
        shown = "".join(f", {k}={v!r}" for k, v in self.spec.settings().items())
        return f"RiskObjective(kind={self.kind!r}, alpha={self.alpha}, cutoff={self.cutoff}{shown})"

    # ------------------------------------------------------------------ binding to the data
    def _bind(self, labels: np.ndarray, group: Any, parallel: bool = False) -> _Bound:
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
        disc = discounts(int(group.max()))
        inv_trunc = inverse_max_dcg(y, qstart, self.label_gain, disc, self.truncation_level)
        inv_cut = inverse_max_dcg(y, qstart, self.label_gain, disc, self.cutoff)
        qmax = np.maximum.reduceat(y, qstart[:-1])
        qmin = np.minimum.reduceat(y, qstart[:-1])
        table, sig_min, sig_max, sig_factor = sigmoid_table(self.sigmoid)
        from ._pairloop import LambdarankConstants

        lr = LambdarankConstants(self.label_gain, disc, table, sig_min, sig_max, sig_factor, self.sigmoid,
                                 self.norm, self.truncation_level)  # fmt: skip
        qid = query_of_rows(qstart)
        rows = (qid, qstart[qid])
        return _Bound(
            n=n, group=group, labels=lab, y=y, qstart=qstart, qid=qid, row_start=rows[1], inv_trunc=inv_trunc,
            inv_cut=inv_cut, active=(qmax != qmin) & (inv_cut > 0), lr=lr,
            mb=self._baseline_ndcg(y, qstart, disc, inv_cut, parallel, rows),
        )  # fmt: skip

    def _ndcg(self, scores: np.ndarray, y: np.ndarray, qstart: np.ndarray, disc: np.ndarray,
              inv_cut: np.ndarray, parallel: bool, rows: tuple[np.ndarray, np.ndarray],
              ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """Per query: the stable descending order of ``scores`` and the NDCG@cutoff of that ranking.

        ``rows``: each row's query and that query's first row (computed once per training set).
        """
        qid, row_start = rows
        if parallel:
            from ._pairloop import stable_desc_order_parallel

            order = stable_desc_order_parallel(scores, qstart)
        else:
            order = stable_desc_order(scores, qstart, qid)
        return order, ndcg_at(order, y, qstart, self.label_gain, disc, inv_cut, self.cutoff, row_start)

    def _baseline_ndcg(
        self, y: np.ndarray, qstart: np.ndarray, disc: np.ndarray, inv_cut: np.ndarray, parallel: bool,
        rows: tuple[np.ndarray, np.ndarray],
    ) -> np.ndarray | None:  # fmt: skip
        """The objective's baseline NDCG (one row, the mean row or the matrix) from the baselines."""
        b = self._baseline_scores
        if b is None:
            return None
        n = len(y)
        if b.shape[0] != n:
            hint = " (baselines is systems × rows: pass its transpose)" if b.shape[1] == n else ""
            raise ValueError(
                f"baseline scores cover {b.shape[0]} rows but the training data has {n} rows: "
                f"pass one score per training row, in training-row order{hint}"
            )
        per_system = np.stack(
            [
                self._ndcg(_kernel_array(b[:, s]), y, qstart, disc, inv_cut, parallel, rows)[1]
                for s in range(b.shape[1])
            ]
        )
        return self.spec.baseline_ndcg(per_system)

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
        threads = self._threads(n)
        preds = np.asarray(preds, dtype=np.float64)
        if threads == 1 and n < _PARALLEL_MIN_ROWS:
            # the serial path: numpy sorts, a serial loop (half the compile time of the parallel one)
            return self._gradients(preds, np.asarray(labels), group, weight, parallel=False)
        previous = numba.get_num_threads()
        if threads != previous:
            numba.set_num_threads(threads)
        try:
            return self._gradients(preds, np.asarray(labels), group, weight, parallel=True)
        finally:
            if threads != previous:
                numba.set_num_threads(previous)

    def _threads(self, n_rows: int) -> int:
        import numba

        config: Any = numba.config  # numba sets its config attributes from the environment at import
        threads = self.num_threads or (1 if n_rows < _PARALLEL_MIN_ROWS else config.NUMBA_NUM_THREADS)
        return min(threads, config.NUMBA_NUM_THREADS)

    def kernel_status(self, n_rows: int) -> str | None:
        """What the first call on ``n_rows`` rows will do before computing: None when nothing.

        The pair loop of the objective's rule compiles at its first use in a process (a second or
        two), or loads from the on-disk cache (:func:`~pyterrier_risk.learning._jit.cache_dir`) if
        an earlier process compiled it; ``RiskLambdaMART`` says so before its first tree.
        """
        from . import _jit
        from ._pairloop import pair_loop, scale_rule

        parallel = not (self._threads(n_rows) == 1 and n_rows < _PARALLEL_MIN_ROWS)
        rule, batched = self._first_rule()
        loop = pair_loop(rule if rule is not None else scale_rule, batched=batched, parallel=parallel)
        if loop.signatures:
            return None
        folder = _jit.kernel_cache_dir()
        if folder is None:
            return "compiling kernels (first use in this process; the disk cache is off)"
        if folder.is_dir() and any(folder.glob(f"*/_pairloop.{loop.py_func.__name__}-*.nbi")):
            return f"loading kernels (cached in {_jit.cache_dir()})"
        return f"compiling kernels (first use; cached in {_jit.cache_dir()})"

    def _first_rule(self) -> tuple[Any, bool]:
        """The pair rule of a first round (on a copy of the objective and a one-query stand-in)."""
        spec = copy.deepcopy(self.spec)
        systems = 0 if self._baseline_scores is None else self._baseline_scores.shape[1]
        baseline = None if systems == 0 else spec.baseline_ndcg(np.full((systems, 2), 0.4))
        r = Round(
            index=0, model=np.full(2, 0.5), baseline=baseline, active=np.ones(2, bool), alpha=self.alpha
        )
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                w = spec.weights(r)
        except Exception:  # noqa: BLE001 - a user's rule on a stand-in round: only the status line is at stake
            return None, False
        return (w.rule, w.batched) if isinstance(w, PairWeights) else (None, False)

    def __getstate__(self) -> dict[str, Any]:
        # the bound training-set cache (incl. an 8 MB lookup table) is rebuilt on the next call
        state = self.__dict__.copy()
        state["_bound"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

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
        new_run = self.round_ > 0 and not preds.any()
        if new_run:
            self.reset()  # all-zero scores again: a new training run (same or other data)
        bd = self._ensure_bound(labels, group, new_run, parallel)
        if preds.ndim != 1 or len(preds) != bd.n:
            raise ValueError(f"expected {bd.n} scores, got shape {preds.shape}")
        preds = _kernel_array(preds)
        nan = np.isnan(preds)
        if nan.any():
            raise ValueError(
                f"round {self.round_}: the scores hold NaN (first at row {int(nan.argmax())}): check the "
                "Dataset's init_score, or the scores given to the objective"
            )
        rows = (bd.qid, bd.row_start)
        order, mm = self._ndcg(preds, bd.y, bd.qstart, bd.lr.disc, bd.inv_cut, parallel, rows)
        r = Round(index=self.round_, model=mm, baseline=bd.mb, active=bd.active, alpha=self.alpha)
        loop, state, per_pair = self._loop(r, parallel)
        native = self.spec.native_norm and self.alpha > 0
        grad, hess, bad = loop(preds, bd.y, bd.qstart, order, bd.inv_trunc, bd.lr, state, native)
        if per_pair:
            self._check_pair_weights(bad)
        if weight is not None:
            wt = np.asarray(weight, dtype=np.float32)
            if wt.shape != grad.shape:
                raise ValueError(f"weight has shape {wt.shape}, expected ({bd.n},)")
            grad = grad * wt
            hess = hess * wt
        self._check_gradients(grad, hess, bd)
        self._record(r, bd)
        return grad, hess

    def _loop(self, r: Round, parallel: bool) -> tuple[Any, tuple, bool]:
        """The compiled pair loop and its state for round ``r``'s weights; True for a pair rule."""
        from ._pairloop import pair_loop, scale_rule

        w = self.spec.weights(r)
        if isinstance(w, PairWeights):
            return pair_loop(w.rule, batched=w.batched, parallel=parallel), w.state, True
        mult = np.asarray(w, dtype=np.float64)
        if mult.shape != r.model.shape:
            raise ValueError(
                f"objective {self.kind!r}: weights() returned shape {mult.shape}, expected one multiplier "
                f"per query {r.model.shape}"
            )
        if not (np.isfinite(mult).all() and (mult >= 0).all()):
            bad = int(np.flatnonzero(~(np.isfinite(mult) & (mult >= 0)))[0])
            raise ValueError(
                f"objective {self.kind!r}: weights() must be finite and >= 0, query {bad} has "
                f"{float(mult[bad])!r}"
            )
        return pair_loop(scale_rule, parallel=parallel), (_kernel_array(mult),), False

    def _check_pair_weights(self, bad: np.ndarray) -> None:
        """Refuse a round where a pair rule's ``|ΔM′|`` was negative, NaN or infinite.

        ``bad``: per query, such a value the pair loop met (0 where none; a weight of 0 is valid); the
        loop checks a user's rules only (the built-in rules are ≥ 0 by construction).
        """
        flagged = np.flatnonzero(bad != 0.0)
        if not len(flagged):
            return
        q, value = int(flagged[0]), float(bad[flagged[0]])
        what = "NaN" if math.isnan(value) else repr(value)
        others = f" (and {len(flagged) - 1} other queries)" if len(flagged) > 1 else ""
        raise ValueError(
            f"round {self.round_}: objective {self.kind!r}: its pair rule gave {what} for a pair of query "
            f"{q}{others}; the weight of a pair must be a finite number >= 0 (|ΔM′|, not a signed change)"
        )

    def _check_gradients(self, grad: np.ndarray, hess: np.ndarray, bd: _Bound) -> None:
        """Never hand LightGBM a non-finite float32 gradient; say so when a round has none at all."""
        if not (np.isfinite(grad).all() and np.isfinite(hess).all()):
            fix = self.spec.overflow_hint() or (
                "lower sigmoid or the row weights, or keep lambdarank_norm=True (it bounds each query)"
            )
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

    def _record(self, r: Round, bd: _Bound) -> None:
        """Diagnostics of the round (``history_``, ``model_ndcg_``) and the round counter."""
        active = bd.active
        mean = float(r.model[active].mean()) if active.any() else math.nan
        self.history_.append({"round": float(self.round_), "mean_ndcg": mean, **self.spec.diagnostics(r)})
        self.model_ndcg_ = r.model
        if self.record_ndcg:
            self._ndcg_rounds.append(r.model)
        self.round_ += 1


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
    r"""A (risk-sensitive) LambdaMART objective for LightGBM, by the name of a registered objective.

    ``|ΔM|`` of LambdaMART's pair gradient (LightGBM's ΔNDCG) is replaced by a risk-aware
    ``|ΔM′|``; ``M_m``/``M_b`` are the model's / baseline's per-query NDCG@``cutoff``, the model's
    re-measured from the scores LightGBM passes at every round. The built-ins:

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

    At ``alpha=0`` every built-in computes exactly LightGBM's ``lambdarank`` gradients. An objective
    registered with :func:`~pyterrier_risk.register_objective` is used the same way.

    Args:
        kind: a registered objective's name (``objective_names()``).
        **options: keyword-only options of :class:`RiskObjective` (``alpha``, ``baseline``,
            ``baselines``, ``cutoff``, ``num_threads``, ``record_ndcg``), the objective's own options
            (each class's ``options``: e.g. T-FARO's ``risk_norm``, ``se_round``, ``faro_tr``) and
            LightGBM's ``sigmoid``, ``lambdarank_truncation_level``, ``lambdarank_norm``, ``label_gain``.

    Returns:
        A :class:`RiskObjective`, usable as ``lightgbm.train(params={'objective': obj, ...})`` or
        ``LGBMRanker(objective=obj)``.

    Raises:
        ValueError: unknown kind, α < 0, a missing/ragged/non-finite baseline, a baseline for a
            kind that takes none (or the wrong one of ``baseline``/``baselines``), a bad option
            value, an option only other objectives read; at the first call: non-integer or
            out-of-range labels, baselines not covering every row.
        TypeError: an option no objective reads.

    Example:
        >>> import lightgbm as lgb  # doctest: +SKIP
        >>> obj = objective("urisk", alpha=5.0, baseline=X[:, 24])  # doctest: +SKIP
        >>> model = lgb.train({"objective": obj}, lgb.Dataset(X, y, group=group), 100)  # doctest: +SKIP
    """
    return RiskObjective(kind, **options)
