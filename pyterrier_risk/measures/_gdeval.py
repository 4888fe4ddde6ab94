r"""The TREC Web track's official measures by a short name: ``nDCG_gdeval@k`` and ``ERR_gdeval@k``.

The Web track (2009–2014) scored runs with ``gdeval.pl``. Its nDCG@k is not trec_eval's: a document
of label :math:`l` gains :math:`2^l - 1`, and a negative label (spam, −2) gains 0, where trec_eval's
``ndcg_cut_k`` gains :math:`l`. On the TREC 2012 Web track the official baseline
``indri-rm-cata-filtered`` has gdeval's nDCG@20 0.1118 and trec_eval's 0.1567.

* ``nDCG_gdeval@k`` is ``nDCG(gains={l: 2^l - 1 for l > 0, else 0})@k`` with the gains read from the
  qrels' own labels (evaluated by pytrec_eval, as ``nDCG``): the same number as gdeval.pl, for any
  topic ids. Where the qrels hold negative or graded labels a :class:`GdevalGainsWarning` says once
  which gains were used (the CLI prints it as a note).
* ``ERR_gdeval@k`` is ``ERR@k``, which ir_measures already computes with gdeval.pl.

Both are registered through ``ir_measures.measures.register``, so ``ir_measures.parse_measure``,
:func:`pyterrier_risk.parse_measure` and the risk measures read them (``URisk(nDCG_gdeval@20,alpha=5)``).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import ir_measures
from ir_measures import Metric
from ir_measures.measures import Measure, ParamInfo, register

__all__ = ["ERR_gdeval", "GdevalGainsWarning", "gdeval_gains", "nDCG_gdeval"]


class GdevalGainsWarning(UserWarning):
    """Which gains ``nDCG_gdeval`` used, where the qrels hold negative or graded labels."""


def gdeval_gains(labels: Any) -> dict[int, int]:
    """gdeval.pl's gain of each label: :math:`2^l - 1` for :math:`l > 0`, 0 otherwise (spam, −2, included)."""
    return {int(label): (2 ** int(label) - 1 if int(label) > 0 else 0) for label in sorted(set(labels))}


_CUTOFF = ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold")


class _Gdeval(Measure):
    """A gdeval.pl measure computed by a stock ir_measures measure (:meth:`stock`)."""

    SUPPORTED_PARAMS = {"cutoff": _CUTOFF}
    RUN_INPUTS = ["query_id", "doc_id", "score"]
    QREL_INPUTS = ["query_id", "doc_id", "relevance"]

    def stock(self, qrels: Any) -> Measure:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def runtime_impl(self, qrels: Any, run: Any) -> Iterator[Metric]:
        """Per query, the stock measure's value on the same run and qrels (ir_measures' runtime provider)."""
        stock = self.stock(qrels)
        for metric in ir_measures.iter_calc([stock], qrels, run):
            yield Metric(metric.query_id, self, metric.value)


class _NDCGGdeval(_Gdeval):
    r"""gdeval.pl's nDCG@k: gains :math:`2^l - 1`, negative labels 0, discount :math:`\log_2(r + 1)`."""

    __name__ = "nDCG_gdeval"
    NAME = __name__
    PRETTY_NAME = "nDCG (gdeval)"
    SHORT_DESC = "nDCG with gdeval.pl's gains 2^l - 1 (negative labels 0): the Web track's official nDCG."

    def stock(self, qrels: Any) -> Measure:
        gains = gdeval_gains(qrels["relevance"])
        if any(label < 0 or label > 1 for label in gains):
            warnings.warn(f"{self!r}: gdeval's gains 2^l - 1, negative labels 0: {gains}", GdevalGainsWarning,
                          stacklevel=2)
        nDCG = ir_measures.measures.nDCG  # noqa: N806 - ir_measures' name
        cutoff = self.params.get("cutoff")
        return nDCG(gains=gains) if cutoff is None else nDCG(gains=gains) @ cutoff


class _ERRGdeval(_Gdeval):
    """gdeval.pl's ERR@k: ``ERR@k``, which ir_measures computes with gdeval.pl."""

    __name__ = "ERR_gdeval"
    NAME = __name__
    PRETTY_NAME = "ERR (gdeval)"
    SHORT_DESC = "ERR as gdeval.pl computes it (ir_measures' ERR), the TREC Web track's official ERR."

    def stock(self, qrels: Any) -> Measure:  # noqa: ARG002 - one signature for both
        err = ir_measures.measures.ERR
        cutoff = self.params.get("cutoff")
        return err if cutoff is None else err @ cutoff


nDCG_gdeval = _NDCGGdeval()  # noqa: N816 - the measure's name, as ir_measures names its measures
ERR_gdeval = _ERRGdeval()  # noqa: N816

for _m in (nDCG_gdeval, ERR_gdeval):
    if _m.NAME not in ir_measures.measures.registry:
        register(_m)
