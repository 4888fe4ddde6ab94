"""Risk-sensitive measures as ``ir_measures`` measures: URisk, TRisk, ZRisk and GeoRisk.

Each measure wraps a *base* measure (any ``ir_measures`` measure: ``nDCG@20``, ``ERR@20``, ``AP``, ...)
and turns its per-topic scores into a risk-sensitive score.  None of them is a plain per-query
mean over one run, so ``pt.Experiment`` cannot evaluate them in general; use
:func:`pyterrier_risk.Experiment`, which sees all listed systems at once.  The one exception is
:class:`URisk` against an *external* baseline run (a DataFrame or a TREC run file): its value is the
mean over topics of a per-topic term, so it also works in plain ``pt.Experiment``.

Names parse with :func:`pyterrier_risk.parse_measure`, which also reads the base measure given
positionally and trec_eval names inside (``TRisk(ndcg_cut_10,alpha=5)``); the stock
``ir_measures.parse_measure``, which this package leaves untouched, reads the keyword form::

    URisk(nDCG@20,alpha=5,baseline='BM25')             # the canonical repr: pyterrier_risk.parse_measure
    URisk(base='nDCG@20',alpha=5,baseline='BM25')      # also ir_measures.parse_measure
"""

from __future__ import annotations

import functools
import hashlib
import os
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import ir_measures
from ir_measures import Metric
from ir_measures.measures import Measure, ParamInfo, register

from ..core import BASELINE_AGGREGATES, check_alpha
from ._wrapped import MeasureNameError, WrappedMeasure, parse_measure

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["URisk", "TRisk", "ZRisk", "GeoRisk", "parse_measure", "RiskMeasure", "MeasureNameError"]

AGGREGATE_BASELINES = BASELINE_AGGREGATES  # the unbiased baselines of the core (Dinçer et al., ECIR 2014)
_RUN_INPUTS = ["query_id", "doc_id", "score"]
_QREL_INPUTS = ["query_id", "doc_id", "relevance"]


def _num_repr(value: float) -> str:
    """A number as the canonical ``repr`` writes it: ``5`` for 5.0, ``0.5``, ``1e+200`` (never 201 digits).

    Whole numbers below 1e16 are written as integers (``alpha=5``); from 1e16 on, where a float is
    no longer an exact integer count, ``repr`` (``1e+16``), which parses back to the same float.
    """
    value = float(value)
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


def _frame_name(frame: pd.DataFrame) -> str:
    """A run DataFrame's one ``name`` value (``pr.read_run`` sets it) and a space, or ``''``.

    The content digest follows it in the measure's name, so two runs of one name stay two measures.
    """
    if "name" not in frame.columns or not len(frame):
        return ""
    names = frame["name"].dropna().unique()
    name = names[0] if len(names) == 1 else None
    plain = isinstance(name, str) and name.strip() and not any(c in name for c in "'\\\n")
    return f"{name} " if plain else ""


def _frame_digest(frame: pd.DataFrame) -> str:
    import pandas as pd

    cols = [c for c in ("qid", "query_id", "docno", "doc_id", "score") if c in frame.columns]
    hashed = pd.util.hash_pandas_object(frame[cols].reset_index(drop=True), index=False).to_numpy()
    return hashlib.sha1(hashed.tobytes()).hexdigest()[:8]


class RiskMeasure(WrappedMeasure):
    """Common machinery of the risk-sensitive measures (parameter checks, canonical ``repr``).

    The base measure is the first (positional) argument or ``base=`` (a measure or its name):
    ``URisk(nDCG@20, alpha=5, baseline='BM25')`` (see :class:`WrappedMeasure`).
    Parameters are checked when the measure is built: a negative or non-finite ``alpha``, an
    unknown parameter or a base that is not an ``ir_measures`` measure raise ``ValueError`` /
    ``TypeError`` immediately.  ``repr`` is canonical: the base first, then the other parameters
    sorted by name, defaults omitted, ``alpha=5`` and ``alpha=5.0`` written alike, so two spellings
    of one measure are equal (``ir_measures`` compares measures by ``repr``).
    """

    AT_PARAM = "cutoff"  # not supported: URisk(...)@10 fails validation, the cutoff belongs to the base
    RUN_INPUTS = _RUN_INPUTS
    QREL_INPUTS = _QREL_INPUTS
    #: whether the measure is computed against a single baseline (URisk/TRisk) or all systems
    USES_BASELINE = True

    # -- parameters -------------------------------------------------------------------------------
    def _normalise(self, params: dict[str, Any]) -> dict[str, Any]:
        # None means "not given" for the optional parameters
        params = {k: v for k, v in params.items() if not (v is None and k in ("baseline", "pool"))}
        out = super()._normalise(params)
        if "alpha" in out:
            try:
                out["alpha"] = check_alpha(out["alpha"])
            except (TypeError, ValueError) as e:
                raise type(e)(f"{self.NAME}: {e}") from None
        if "se" in out and out["se"] not in ("parametric", "jackknife"):
            raise ValueError(f"{self.NAME}: se must be 'parametric' or 'jackknife', got {out['se']!r}")
        if "baseline" in out:
            out["baseline"] = self._check_baseline(out["baseline"])
        if "pool" in out:
            pool = out["pool"]
            if isinstance(pool, (str, int)):
                pool = (pool,)
            if not isinstance(pool, (list, tuple)) or not pool:
                raise TypeError(f"{self.NAME}: pool must be a non-empty list of system names or indices")
            for p in pool:
                if isinstance(p, bool) or not isinstance(p, (str, int)):
                    raise TypeError(f"{self.NAME}: pool entries must be system names or indices, got {p!r}")
            out["pool"] = tuple(pool)
            if out.get("baseline") not in AGGREGATE_BASELINES:
                raise ValueError(
                    f"{self.NAME}: pool= selects the systems of an aggregate baseline; "
                    f"it needs baseline='mean', 'median' or 'max' (got baseline={out.get('baseline')!r})"
                )
        return out

    def _check_base_kind(self, base: Measure) -> None:
        if isinstance(base, RiskMeasure):
            raise TypeError(f"{self.NAME}: the base measure cannot itself be a risk measure ({base!r})")

    def _check_baseline(self, baseline: Any) -> Any:
        if baseline is None:
            return None
        if isinstance(baseline, os.PathLike):
            return os.fspath(baseline)
        if isinstance(baseline, bool):
            raise TypeError(f"{self.NAME}: baseline must be a system name or index, got {baseline!r}")
        if isinstance(baseline, int):
            if baseline < 0:
                raise ValueError(f"{self.NAME}: baseline index must be >= 0, got {baseline}")
            return baseline
        if isinstance(baseline, str):
            if not baseline:
                raise ValueError(f"{self.NAME}: empty baseline name")
            return baseline
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover
            pd = None
        if pd is not None and isinstance(baseline, pd.DataFrame):
            qcol = "qid" if "qid" in baseline.columns else "query_id"
            dcol = "docno" if "docno" in baseline.columns else "doc_id"
            missing = [c for c in (qcol, dcol, "score") if c not in baseline.columns]
            if missing:
                raise ValueError(
                    f"{self.NAME}: a baseline run DataFrame needs columns qid, docno, score; "
                    f"missing {missing}"
                )
            return baseline
        raise TypeError(
            f"{self.NAME}: baseline must be a system name or index, 'mean'|'median'|'max', "
            f"a run DataFrame or a TREC run file path; got {type(baseline).__name__}"
        )

    # -- representation ---------------------------------------------------------------------------
    def _param_repr(self, v: Any) -> str:
        if isinstance(v, float):
            return _num_repr(v)
        if isinstance(v, Measure):
            return repr(v)
        if isinstance(v, tuple):
            return "(" + ",".join(repr(x) for x in v) + ("," if len(v) == 1 else "") + ")"
        if hasattr(v, "columns"):  # a run DataFrame: by its name (pr.read_run's column) and its content
            return f"'<run {_frame_name(v)}{_frame_digest(v)}>'"
        return repr(v)

    def _make_repr(self) -> str:
        parts = []
        if "base" in self.params:
            parts.append(repr(self.params["base"]))
        for key in sorted(self.params):
            if key == "base":
                continue
            value = self.params[key]
            default = self.SUPPORTED_PARAMS[key].default
            if value is None or (not hasattr(value, "columns") and value == default):
                continue
            parts.append(f"{key}={self._param_repr(value)}")
        return f"{self.NAME}({','.join(parts)})" if parts else str(self.NAME)

    # -- accessors --------------------------------------------------------------------------------
    @property
    def alpha(self) -> float:
        """Risk-aversion α >= 0 (losses weigh 1 + α)."""
        return float(self.params.get("alpha", 0.0))

    @property
    def baseline(self) -> Any:
        """The baseline as given (None: the ``baseline=`` of the Experiment)."""
        return self.params.get("baseline")

    def runtime_impl(self, qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[Metric]:
        """Raise: this measure needs all systems at once (use ``pyterrier_risk.Experiment``)."""
        raise ValueError(
            f"{self!r} is not a per-topic mean of one run, so ir_measures/pt.Experiment cannot compute it; "
            "evaluate it with pyterrier_risk.Experiment, which sees all listed systems"
        )


_BASE = ParamInfo(dtype=Measure, required=True, desc="base measure whose per-topic scores are compared")
_ALPHA = ParamInfo(dtype=(int, float), default=0.0, desc="risk aversion α >= 0: a loss weighs 1 + α")
_BASELINE = ParamInfo(
    dtype=None,
    default=None,
    desc="baseline: a listed system's name or index, 'mean'|'median'|'max' over the listed systems "
    "(or pool), a run DataFrame or a TREC run file path; None: the Experiment's baseline",
)
_POOL = ParamInfo(
    dtype=tuple, default=None, desc="names or indices of the systems an aggregate baseline is taken over"
)


class _URisk(RiskMeasure):
    r"""URisk, the risk-reward tradeoff of Wang, Bennett and Collins-Thompson (SIGIR 2012, eq. 4).

    With :math:`\Delta_i = s_i - b_i` the per-topic difference between the system's and the
    baseline's base-measure scores over the :math:`c` topics of the qrels,

    .. math::
        U_{Risk} = \frac{1}{c}\Big[\sum_{\Delta_i > 0} \Delta_i
                   + (1+\alpha)\sum_{\Delta_i < 0} \Delta_i\Big]

    Higher is better; at α = 0 it is the mean difference.  Against an external baseline run it is
    a mean of per-topic terms and also works in plain ``pt.Experiment``.
    """

    __name__ = "URisk"
    NAME = __name__
    PRETTY_NAME = "URisk"
    SHORT_DESC = "Risk-reward tradeoff against a baseline: mean gain with losses weighted by 1 + alpha."
    SUPPORTED_PARAMS = {"base": _BASE, "alpha": _ALPHA, "baseline": _BASELINE, "pool": _POOL}

    def runtime_impl(self, qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[Metric]:
        """Per-topic URisk terms against an external baseline run (their mean is URisk)."""
        from ..core import risk_weighted_differences
        from ._topics import topic_scores

        baseline = self.baseline
        if (
            baseline is None
            or isinstance(baseline, int)
            or (isinstance(baseline, str) and not os.path.isfile(baseline))
        ):
            raise ValueError(
                f"{self!r}: outside pyterrier_risk.Experiment the baseline must be a run DataFrame or an "
                f"existing TREC run file (got {baseline!r}); a system's name, index or 'mean'|'median'|'max' "
                "needs pyterrier_risk.Experiment"
            )
        s = topic_scores(self.base, qrels, run, "the evaluated run")
        b = baseline_topic_scores(self.base, baseline, qrels, f"baseline run {self._param_repr(baseline)}")
        terms = risk_weighted_differences(s.to_numpy(dtype=float), b.to_numpy(dtype=float), self.alpha)
        for qid, value in zip(s.index, terms, strict=True):
            yield Metric(qid, self, float(value))


@functools.lru_cache(maxsize=8)
def _read_run_cached(path: str, mtime: float) -> pd.DataFrame:
    from ..data import read_run

    return read_run(path)


_BASELINE_CACHE: dict[tuple[str, str, str, str], tuple[pd.Series, list[tuple[Any, Any]]]] = {}


def baseline_topic_scores(base: Measure, baseline: Any, qrels: pd.DataFrame, who: str) -> pd.Series:
    """Per-topic ``base`` scores of an external baseline run (a run file path or a DataFrame).

    Cached on (base measure, run content or file and mtime, qrels content): pt.Experiment calls a
    measure once per system, and URisk/TRisk at several alphas share one baseline.  The topic policy
    warnings are repeated on every use.
    """
    import pandas as pd

    from ._topics import topic_scores

    if isinstance(baseline, str):
        run_key = f"{os.path.abspath(baseline)}@{os.path.getmtime(baseline)}"
    else:
        run_key = _frame_digest(baseline)
    cols = ["query_id", "doc_id", "relevance"]
    qrels_key = hashlib.sha1(
        pd.util.hash_pandas_object(qrels[cols].reset_index(drop=True), index=False).to_numpy().tobytes()
    ).hexdigest()
    key = (repr(base), run_key, qrels_key, who)
    if key not in _BASELINE_CACHE:
        if len(_BASELINE_CACHE) >= 16:
            _BASELINE_CACHE.pop(next(iter(_BASELINE_CACHE)))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scores = topic_scores(base, qrels, _baseline_run(baseline), who)
        _BASELINE_CACHE[key] = (scores, [(w.message, w.category) for w in caught])
    scores, recorded = _BASELINE_CACHE[key]
    for message, category in recorded:  # the topic policy warnings, on every use
        warnings.warn(message, category, stacklevel=3)
    return scores.copy()


def _baseline_run(baseline: Any) -> pd.DataFrame:
    """The baseline run in ir_measures' column names (query_id, doc_id, score)."""
    if isinstance(baseline, str):
        frame = _read_run_cached(baseline, os.path.getmtime(baseline))
    else:
        frame = baseline
    frame = frame.rename(columns={"qid": "query_id", "docno": "doc_id"})
    frame = frame.assign(query_id=frame["query_id"].astype(str), doc_id=frame["doc_id"].astype(str))
    return frame[["query_id", "doc_id", "score"]]


class _TRisk(RiskMeasure):
    r"""TRisk, the studentised URisk of Dinçer, Macdonald and Ounis (SIGIR 2014, §4).

    .. math:: T_{Risk} = \frac{U_{Risk}}{SE(U_{Risk})}, \qquad SE = s_x / \sqrt{c}

    where :math:`x_i` are the α-weighted per-topic differences and :math:`s_x` their sample
    standard deviation (``se='parametric'``) or the jackknife estimate (``se='jackknife'``).
    ``|TRisk| > 2`` indicates a significant difference; :func:`pyterrier_risk.Experiment` also
    reports the two-sided p-value (Student's t, c − 1 degrees of freedom).  At α = 0 TRisk is the
    paired t statistic.
    """

    __name__ = "TRisk"
    NAME = __name__
    PRETTY_NAME = "TRisk"
    SHORT_DESC = "URisk over its standard error: a paired t-statistic with losses weighted by 1 + alpha."
    SUPPORTED_PARAMS = {
        "base": _BASE,
        "alpha": _ALPHA,
        "baseline": _BASELINE,
        "pool": _POOL,
        "se": ParamInfo(
            dtype=str,
            choices=["parametric", "jackknife"],
            default="parametric",
            desc="standard error estimate: 'parametric' (s_x / sqrt(c)) or 'jackknife'",
        ),
    }


class _ZRisk(RiskMeasure):
    r"""ZRisk of Dinçer, Macdonald and Ounis (SIGIR 2016, eqs. 4–5): every listed system is a baseline.

    Over the systems × topics matrix :math:`x_{ij}` with row sums :math:`S_i`, column sums
    :math:`T_j` and total :math:`N`, :math:`e_{ij} = S_i T_j / N` and
    :math:`z_{ij} = (x_{ij} - e_{ij}) / \sqrt{e_{ij}}`;

    .. math:: Z_{Risk}(i) = \sum_{z_{ij} > 0} z_{ij} + (1+\alpha) \sum_{z_{ij} < 0} z_{ij}
    """

    __name__ = "ZRisk"
    NAME = __name__
    PRETTY_NAME = "ZRisk"
    SHORT_DESC = "Risk against all listed systems at once, from the chi-square standardised residuals."
    SUPPORTED_PARAMS = {"base": _BASE, "alpha": _ALPHA}
    USES_BASELINE = False


class _GeoRisk(RiskMeasure):
    r"""GeoRisk of Dinçer, Macdonald and Ounis (SIGIR 2016, eq. 7).

    .. math:: GeoRisk(i) = \sqrt{\frac{S_i}{c} \cdot \Phi\big(Z_{Risk}(i) / c\big)}

    the geometric mean of the mean effectiveness and the normal CDF of the size-normalised ZRisk;
    in [0, 1], higher is better.
    """

    __name__ = "GeoRisk"
    NAME = __name__
    PRETTY_NAME = "GeoRisk"
    SHORT_DESC = "Geometric mean of mean effectiveness and the normal CDF of ZRisk / c."
    SUPPORTED_PARAMS = {"base": _BASE, "alpha": _ALPHA}
    USES_BASELINE = False


URisk = _URisk()
TRisk = _TRisk()
ZRisk = _ZRisk()
GeoRisk = _GeoRisk()

for _m in (URisk, TRisk, ZRisk, GeoRisk):
    if _m.NAME not in ir_measures.measures.registry:
        register(_m)
