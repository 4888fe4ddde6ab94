r"""LETOR 4.0's official NDCG by a short name: ``nDCG_letor4@k`` (``Eval-Score-4.0.pl``).

Published MQ2007/MQ2008 numbers come from LETOR 4.0's ``Eval-Score-4.0.pl``, whose NDCG@k is not
trec_eval's nor gdeval's: gains 0, 1, 3 for labels 0, 1, 2; ranks 1 and 2 undiscounted, rank
:math:`r \ge 3` divided by :math:`\log_2 r`; tied scores in file order; a query with fewer than k
ranked documents scores 0 (:func:`pyterrier_risk.core.letor_ndcg`, which this adapter calls).

In ``ir_measures`` a run's "file order" is the order of its rows: ir_measures sorts a run by query
and descending score with a stable sort, so tied documents keep the order the run lists them in (a
TREC run file's line order, a frame's row order). The ideal ranking sorts the qrels' labels of the
query; on a LETOR file, whose documents are exactly its judgements, that is the script's number.
Registered through ``ir_measures.measures.register``, so ``ir_measures.parse_measure``,
:func:`pyterrier_risk.parse_measure`, ``pyterrier-risk eval`` and the risk measures read it
(``URisk(nDCG_letor4@10,alpha=5)``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ir_measures
from ir_measures import Metric
from ir_measures.measures import Measure, ParamInfo, register

from ..core import letor_ndcg

__all__ = ["nDCG_letor4"]


class _NDCGLetor4(Measure):
    r"""NDCG@k of LETOR 4.0's ``Eval-Score-4.0.pl``: gains 0/1/3, ranks 1–2 undiscounted, file-order ties."""

    __name__ = "nDCG_letor4"
    NAME = __name__
    PRETTY_NAME = "NDCG (LETOR 4.0 Eval-Score-4.0.pl)"
    SHORT_DESC = ("NDCG as LETOR 4.0's Eval-Score-4.0.pl computes it: gains 0/1/3, ranks 1 and 2 "
                  "undiscounted, ties in file order, 0 for a query with fewer than k documents.")
    # required, but checked by parameter_problems (a one-line message) rather than by ir_measures' assert
    SUPPORTED_PARAMS = {"cutoff": ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold")}
    RUN_INPUTS = ["query_id", "doc_id", "score"]
    QREL_INPUTS = ["query_id", "doc_id", "relevance"]

    def runtime_impl(self, qrels: Any, run: Any) -> Iterator[Metric]:
        """Per query of the run that the qrels judge, the script's NDCG@k (ir_measures' runtime provider).

        ``run`` arrives sorted by query and descending score, tied rows in the order given.
        """
        k = int(self.params["cutoff"])
        judged = {qid: dict(zip(g["doc_id"], g["relevance"], strict=True))
                  for qid, g in qrels.groupby("query_id")}
        for qid, g in run.groupby("query_id", sort=False):
            labels_of = judged.get(qid)
            if labels_of is None:  # a query without judgements is not evaluated (as ir_measures' measures)
                continue
            labels = [labels_of.get(doc, 0) for doc in g["doc_id"]]
            scores = g["score"].to_numpy(dtype=float)
            value = letor_ndcg(labels, scores, k, ideal_labels=list(labels_of.values()))
            yield Metric(str(qid), self, value)


nDCG_letor4 = _NDCGLetor4()  # noqa: N816 - the measure's name, as ir_measures names its measures

if nDCG_letor4.NAME not in ir_measures.measures.registry:
    register(nDCG_letor4)
