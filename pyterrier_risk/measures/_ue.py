"""The ``UE`` ir_measures measure: upper & expected value normalisation of nDCG, AP, P, R and RR.

A :class:`~pyterrier_risk.measures._wrapped.WrappedMeasure`, like the risk measures: ``UE(nDCG@10)``,
``UE(base='nDCG@10')`` and ``UE(base='nDCG')@10`` are one measure, in Python and as strings read by
:func:`pyterrier_risk.parse_measure`; ``.base`` is the base measure (``nDCG@10``). The canonical name
quotes the base without its cutoff, ``UE(base='nDCG')@10``, which the stock
``ir_measures.parse_measure`` also reads (the measure is registered through ir_measures' ``register``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import ir_measures
from ir_measures import Metric
from ir_measures.measures import Measure, ParamInfo, register

from ._wrapped import WrappedMeasure, checked_base

if TYPE_CHECKING:
    import pandas as pd

# numpy, pandas and the numeric core load on first evaluation: this module is imported eagerly by
# ``import pyterrier_risk`` (ir_measures can only parse registered names). Kept equal to the core's
# constants (tested).
BASES = ("nDCG", "AP", "P", "R", "RR")
VARIANTS = ("V1", "V2")
REB_MODES = ("exact", "paper")
_POOLS = ("qrels", "run")
_ORDER = ("base", "variant", "reb", "pool")


def _check_ue_base(base: Measure) -> None:
    if base.NAME not in BASES:
        raise ValueError(f"UE: unsupported base measure {base.NAME!r}; supported: {', '.join(BASES)}")
    if base.NAME == "nDCG" and base["dcg"] != "log2":
        raise ValueError(
            "UE: only nDCG(dcg='log2') is supported; for the paper's 2^R - 1 gains use "
            "nDCG(gains={0: 0, 1: 1, 2: 3, ...})"
        )


class _UE(WrappedMeasure):
    """Joint upper & expected value normalised measure (Feng & Karmaker Santu, IP&M 2023, §5).

    ``UE(base)`` rescales a base measure ``A`` of each topic with its ideal score ``IUB`` (perfect
    ordering of the topic's pool) and its expected score ``REB`` under a uniformly random ordering
    of that pool:

    * ``V1`` (eq. 5): ``(A / IUB) * (A / (A + REB))``, in [0, 1];
    * ``V2`` (eq. 6): ``(A - REB) / (IUB - REB)`` if ``A >= REB`` else ``(A - REB) / REB``, in
      [-1, 1], 0 meaning "as good as a random ordering".

    Bases: ``nDCG`` (the paper's ``DCG^UE``; any ``gains`` mapping, ``judged_only``), ``AP`` (the
    paper's ``MSP^UE``; ``rel``, ``judged_only``), ``P``, ``R`` and ``RR``. IUB and REB use the base's
    own gains, cutoff and relevance threshold; the base value itself is computed by ir_measures.

    Examples: ``UE(nDCG@10)``, ``UE(AP(rel=2)@10, variant='V2')``,
    ``pyterrier_risk.parse_measure("UE(nDCG@10,variant='V2')")``. ``.base`` is the base measure with
    its cutoff; the ``base`` parameter holds it without, the cutoff being UE's own (``UE(...)@10``).
    Per-topic edge cases and the exact expected values are documented in :func:`pyterrier_risk.ue`
    and :func:`pyterrier_risk.ue_bounds`.
    """

    __name__ = "UE"
    NAME = "UE"
    PRETTY_NAME = "Upper & expected value normalised measure"
    SHORT_DESC = "A base measure rescaled by its ideal value and its expected value under a random ordering."
    AT_PARAM = "cutoff"
    SUPPORTED_PARAMS = {
        "base": ParamInfo(
            dtype=Measure, required=True, desc="base measure (nDCG, AP, P, R or RR), its cutoff in cutoff="
        ),
        "cutoff": ParamInfo(dtype=int, required=False, desc="ranking cutoff of the base measure"),
        "variant": ParamInfo(
            dtype=str, choices=list(VARIANTS), default="V1", desc="V1 (eq. 5, in [0,1]) or V2 (eq. 6, [-1,1])"
        ),
        "reb": ParamInfo(
            dtype=str,
            choices=list(REB_MODES),
            default="exact",
            desc="expected value: exact expectation, or the paper's formulas (differs for AP: K(m/n)^2)",
        ),
        "pool": ParamInfo(
            dtype=str,
            choices=list(_POOLS),
            default="qrels",
            desc="documents a random ranker orders: all judged ones (qrels) or the retrieved ones (run)",
        ),
    }

    def _normalise(self, params: dict[str, Any]) -> dict[str, Any]:
        """The base's cutoff becomes UE's own ``cutoff`` (``UE(nDCG@10)`` is ``UE(base='nDCG')@10``)."""
        params = super()._normalise(params)
        base = params.get("base")
        if base is None:
            return params
        cutoff = params.get("cutoff")
        if "cutoff" in base.params:
            if cutoff not in (None, base.params["cutoff"]):
                raise ValueError(
                    f"UE: conflicting cutoffs {base.params['cutoff']} (in base) and {cutoff} (cutoff=)"
                )
            cutoff = params["cutoff"] = base.params["cutoff"]
            params["base"] = type(base)(**{k: v for k, v in base.params.items() if k != "cutoff"})
        if cutoff is not None:  # UE(base='nDCG')@0: refused now, as for any base
            checked_base(params["base"](cutoff=cutoff), "UE: invalid base measure")
        return params

    def _check_base_kind(self, base: Measure) -> None:
        _check_ue_base(base)

    def _make_repr(self) -> str:
        # the base with its cutoff first, as it is written and parsed: UE(nDCG@10,variant='V2')
        parts = [repr(self.base)] if "base" in self.params else []
        for key in _ORDER[1:]:
            if self.params.get(key, self.SUPPORTED_PARAMS[key].default) != self.SUPPORTED_PARAMS[key].default:
                parts.append(f"{key}={self.params[key]!r}")
        result = self.NAME + (f"({','.join(parts)})" if parts else "")
        if "base" not in self.params and self.params.get("cutoff") is not None:  # UE()@10: no base yet
            result = f"{result}@{self.params['cutoff']}"
        return result

    def validate_params(self) -> None:
        """Check the parameters, with messages naming the problem."""
        if self.validated:
            return
        if "base" not in self.params:
            raise ValueError("UE needs a base measure, e.g. UE(nDCG@10) or UE(base='nDCG')@10")
        for key in ("variant", "reb", "pool"):
            info = self.SUPPORTED_PARAMS[key]
            if key in self.params and self.params[key] not in info.choices:
                raise ValueError(f"UE: {key} must be one of {info.choices}, got {self.params[key]!r}")
        cutoff = self.params.get("cutoff")
        if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
            raise ValueError(f"UE: cutoff must be a positive int, got {cutoff!r}")
        base = self.base
        if base.NAME in ("P", "R") and cutoff is None:
            raise ValueError(f"UE: base {base.NAME} needs a cutoff, e.g. UE({base.NAME}@10)")
        super().validate_params()

    def base_measure(self) -> Measure:
        """The base measure with the cutoff applied: the same as :attr:`base`."""
        return self.base

    def runtime_impl(self, qrels: pd.DataFrame, run: pd.DataFrame) -> Iterator[Metric]:
        """Per-topic UE values; ir_measures' runtime provider calls this with all topics of one run."""
        import numpy as np
        import pandas as pd

        from ..core import check_run_frame, ue

        self.validate_params()
        check_run_frame(run, f"the run evaluated by {self!r}")  # the run policy: a dict would keep one of two
        base = self.base
        # dict-of-dict input spares ir_measures a per-row namedtuple conversion (same values)
        qrels_dd = _dict_of_dict(qrels["query_id"], qrels["doc_id"], qrels["relevance"])
        run_dd = _dict_of_dict(run["query_id"], run["doc_id"], run["score"])
        values = {m.query_id: m.value for m in ir_measures.iter_calc([base], qrels_dd, run_dd)}
        if not values:
            return
        iub, reb = _bounds_for(self, base, qrels, run)
        qids = pd.Index(list(values))
        a = np.fromiter(values.values(), dtype=float, count=len(values))
        iub_q = iub.reindex(qids, fill_value=0.0).to_numpy()
        reb_q = reb.reindex(qids, fill_value=0.0).to_numpy()
        scores = ue(a, iub_q, reb_q, self["variant"])
        for qid, value in zip(qids, scores, strict=True):
            yield Metric(qid, self, float(value))


def _dict_of_dict(qids: pd.Series, docs: pd.Series, values: pd.Series) -> dict[Any, dict[Any, Any]]:
    """``{query_id: {doc_id: value}}`` built block-wise; a repeated (query, doc) keeps its last value."""
    import numpy as np

    q = qids.to_numpy()
    if len(q) == 0:
        return {}
    starts = np.concatenate([[0], np.flatnonzero(q[1:] != q[:-1]) + 1, [len(q)]])
    doc_list, value_list = docs.tolist(), values.tolist()
    out: dict[Any, dict[Any, Any]] = {}
    for begin, end in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
        out.setdefault(q[begin], {}).update(zip(doc_list[begin:end], value_list[begin:end], strict=True))
    return out


def _bounds_for(
    measure: _UE, base: Measure, qrels: pd.DataFrame, run: pd.DataFrame
) -> tuple[pd.Series, pd.Series]:
    """IUB and REB per topic (Series indexed by query_id) in the base measure's units.

    ``qrels`` arrive sorted by query and document (ir_measures' runtime provider sorts them).
    """
    import numpy as np
    import pandas as pd

    from ..core import normalise_raw, pool_bounds

    name = base.NAME
    assert name is not None  # the base of a UE measure is one of ir_measures' named measures
    cutoff = base.params.get("cutoff")
    rel = base["rel"] if name != "nDCG" else 1
    gains = base["gains"] if name == "nDCG" and isinstance(base["gains"], dict) else None
    judged_only = bool(base["judged_only"])
    mode = measure["reb"]

    q = qrels[["query_id", "doc_id", "relevance"]]
    qid_arr, doc_arr = q["query_id"].to_numpy(), q["doc_id"].to_numpy()
    repeated = (qid_arr[1:] == qid_arr[:-1]) & (doc_arr[1:] == doc_arr[:-1])
    if repeated.any():  # a judgement given twice: keep the last one, as ir_measures' dict-of-dict does
        q = q[np.append(~repeated, True)]
    q_codes, qids = pd.factorize(q["query_id"])
    q_labels = q["relevance"].to_numpy(dtype=float)
    q_pool = np.ones(len(q), dtype=bool) if not judged_only else q_labels >= 0
    # trec_eval's -J (judged_only) also drops documents with a negative label from the ranking
    q_iub, q_reb, q_norm = pool_bounds(
        q_codes[q_pool], len(qids), q_labels[q_pool], name, cutoff, rel, gains, mode
    )
    if measure["pool"] == "qrels":
        _warn_all_relevant(measure, q_codes[q_pool], len(qids), q_labels[q_pool], name, rel, gains)
        iub, reb = normalise_raw(q_iub, q_norm), normalise_raw(q_reb, q_norm)
    else:
        r = run[["query_id", "doc_id"]].drop_duplicates()
        r = r[r["query_id"].isin(qids)].merge(q, on=["query_id", "doc_id"], how="left")
        labels = r["relevance"].to_numpy(dtype=float)
        codes = qids.get_indexer(r["query_id"])
        keep = np.ones(len(r), dtype=bool) if not judged_only else labels >= 0
        r_iub, r_reb, _ = pool_bounds(codes[keep], len(qids), labels[keep], name, cutoff, rel, gains, mode)
        iub, reb = normalise_raw(r_iub, q_norm), normalise_raw(r_reb, q_norm)
    return pd.Series(iub, index=qids), pd.Series(reb, index=qids)


def _warn_all_relevant(
    measure: _UE, codes: Any, n_topics: int, labels: Any, name: str, rel: int, gains: Any
) -> None:
    """Warn when some topics' judged pools hold no non-relevant document (``pool='qrels'``).

    Qrels that list only relevant documents (Vaswani, most QA collections) make a random ordering of
    the judged pool ideal: UE then calls every ranking that misses some of them worse than random.
    """
    from ..core import without_non_relevant

    flagged = int(without_non_relevant(codes, n_topics, labels, name, rel, gains).sum())
    if flagged:
        warnings.warn(
            f"{measure}: on {flagged} of {n_topics} topics the judged documents are all relevant "
            "(qrels that list only relevant documents?), so a random ordering of them is ideal and UE "
            "cannot credit any ranking there; use pool='run' (docs/ue.md, 'Which pool?')",
            UserWarning,
            stacklevel=2,
        )


UE = _UE()
if UE.NAME not in ir_measures.measures.registry:  # a module reload must not fail
    register(UE)

__all__ = ["UE"]
