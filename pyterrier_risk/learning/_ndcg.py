"""LambdaMART's per-query constants and NDCG, in numpy: LightGBM 4.x's arithmetic, bit for bit.

The logistic lookup table, the position discounts, the inverse max DCG and the NDCG of a ranking
are computed once per training set (or once per round, vectorised over the queries) with the same
floating-point operations, in the same order, as LightGBM's ``LambdarankNDCG`` (docs/objectives.md).
They need no compiled code, so a cold start compiles only the pair loop (:mod:`._pairloop`).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

__all__ = [
    "SIGMOID_BINS", "TIE_RULES", "discounts", "inverse_max_dcg", "ndcg_at", "query_of_rows", "sigmoid_table",
    "stable_desc_order", "untied_scores", "STOPPING_MEASURES", "letor_feval",
]  # fmt: skip

#: the validation measures of early stopping: LightGBM's ndcg@k, LETOR 4.0's NDCG@k (Eval-Score-4.0.pl)
STOPPING_MEASURES = ("ndcg", "letor")

#: how a baseline's tied scores are ordered when the objectives measure its NDCG: ``'docno'`` as the
#: evaluation (trec_eval, ``ir_measures``' nDCG, ``pt.Experiment``): docno descending; ``'rows'`` the
#: training rows' order (LETOR's Eval-Score-4.0.pl, which keeps file order; LightGBM's stable sort)
TIE_RULES = ("docno", "rows")

SIGMOID_BINS = 1024 * 1024


@functools.lru_cache(maxsize=8)
def sigmoid_table(sigmoid: float) -> tuple[np.ndarray, float, float, float]:
    """LightGBM's logistic lookup table: 2^20 bins of 1/(1+exp(sigmoid·s)) over ±50/(2·sigmoid).

    Returns ``(table, min_input, max_input, factor)``; the table is read-only and built once per
    process and sigmoid. numpy's ``exp`` is checked against the C library's (``math.exp``, which
    LightGBM's ``std::exp`` is) on 4,097 bins; should they differ, every bin takes ``math.exp``.
    """
    min_in = -50.0 / sigmoid / 2.0
    max_in = -min_in
    factor = SIGMOID_BINS / (max_in - min_in)
    x = (np.arange(SIGMOID_BINS) / factor + min_in) * sigmoid
    sample = x[:: SIGMOID_BINS // 4096]
    if not np.array_equal(np.exp(sample), [math.exp(v) for v in sample.tolist()]):
        table = np.array([1.0 / (1.0 + math.exp(v)) for v in x.tolist()])
    else:
        table = 1.0 / (1.0 + np.exp(x))
    table.setflags(write=False)
    return table, min_in, max_in, factor


def discounts(n: int) -> np.ndarray:
    """Position discounts 1/log2(2 + p) for the 0-based ranks p < n (at least one)."""
    return np.array([1.0 / math.log2(2.0 + i) for i in range(max(n, 1))])


def query_of_rows(qstart: np.ndarray) -> np.ndarray:
    """The query index of every row (queries are contiguous blocks starting at ``qstart``)."""
    return np.repeat(np.arange(len(qstart) - 1), np.diff(qstart))


def stable_desc_order(scores: np.ndarray, qstart: np.ndarray, qid: np.ndarray | None = None) -> np.ndarray:
    """Per query, the stable descending order of ``scores`` (query-local positions, laid out like the rows).

    Ties keep the rows' order, as ``std::stable_sort`` does in LightGBM. ``qid``: :func:`query_of_rows`,
    if already at hand.
    """
    qid = query_of_rows(qstart) if qid is None else qid
    rows = np.lexsort((-scores, qid))
    return (rows - qstart[qid]).astype(np.int32)


def _dcg_by_rank(gains_of_rank: np.ndarray, qstart: np.ndarray, disc: np.ndarray, k: int) -> np.ndarray:
    """Σ_{p < min(k, n_q)} gain(p)·disc[p] per query, summed from the top rank down (LightGBM's order)."""
    start, cnt = qstart[:-1], np.diff(qstart)
    total = np.zeros(len(cnt))
    for p in range(min(k, int(cnt.max(initial=0)))):
        live = p < cnt
        total[live] += gains_of_rank[start[live] + p] * disc[p]
    return total


def inverse_max_dcg(
    labels: np.ndarray, qstart: np.ndarray, label_gain: np.ndarray, disc: np.ndarray, k: int
) -> np.ndarray:
    """1 / max DCG@k per query (0 when the max DCG is 0)."""
    qid = query_of_rows(qstart)
    ideal = label_gain[labels[np.lexsort((-labels, qid))]]
    best = _dcg_by_rank(ideal, qstart, disc, k)
    return np.divide(1.0, best, out=np.zeros_like(best), where=best > 0.0)


def ndcg_at(
    order: np.ndarray, labels: np.ndarray, qstart: np.ndarray, label_gain: np.ndarray, disc: np.ndarray,
    inv_max_dcg: np.ndarray, k: int, row_start: np.ndarray | None = None,
) -> np.ndarray:  # fmt: skip
    """NDCG@k per query of the ranking ``order`` (0 where the max DCG@k is 0).

    ``row_start``: each row's query start ``qstart[query_of_rows(qstart)]``, if already at hand.
    """
    row_start = qstart[query_of_rows(qstart)] if row_start is None else row_start
    gains = label_gain[labels[row_start + order]]
    dcg = _dcg_by_rank(gains, qstart, disc, k)
    return np.where(inv_max_dcg > 0.0, dcg * inv_max_dcg, 0.0)


def untied_scores(scores: np.ndarray, qids: np.ndarray, docnos: np.ndarray,
                  ties: str = "docno") -> np.ndarray:
    """Scores whose row-order stable sort gives the evaluation's ranking of each query (no ties left).

    The objectives sort a baseline's scores stably, so tied documents keep the training rows' order;
    trec_eval orders them by docno descending. With ``ties='docno'`` each row's score is replaced by
    minus its rank in that order (score descending, then docno descending, within its query), so that
    the baseline NDCG the objectives compute equals the evaluation's; ``'rows'`` returns the scores.

    Args:
        scores: one baseline score per training row.
        qids: each row's query id (rows of a query contiguous, as in training).
        docnos: each row's docno.
        ties: one of :data:`TIE_RULES`.

    Returns:
        float64 scores, one per row.
    """
    if ties not in TIE_RULES:
        raise ValueError(f"baseline_ties must be one of {', '.join(TIE_RULES)}, got {ties!r}")
    scores = np.asarray(scores, dtype=np.float64)
    if ties == "rows" or len(scores) == 0:
        return scores
    _, query = np.unique(np.asarray(qids), return_inverse=True)
    _, doc = np.unique(np.asarray(docnos).astype(str), return_inverse=True)  # doc codes sort as docnos do
    order = np.lexsort((-doc, -scores, query))  # by query, score descending, docno descending
    rank = np.empty(len(scores))
    sorted_query = query[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_query)) + 1]
    position = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    rank[order] = position
    return -rank


def letor_feval(cutoff: int) -> Any:
    """A LightGBM ``feval``: LETOR 4.0's mean NDCG@cutoff over the validation queries (higher is better).

    Each query's documents in the validation rows' order (ties in that order, as Eval-Score-4.0.pl keeps
    file order); a query with fewer than ``cutoff`` documents or no relevant one counts 0, as the
    script's mean counts it (:func:`pyterrier_risk.core.letor_ndcg_by_query`).
    """
    from ..core import letor_ndcg_by_query

    def feval(preds: np.ndarray, data: Any) -> tuple[str, float, bool]:
        group = np.asarray(data.get_group(), dtype=np.int64)
        qids = np.repeat(np.arange(len(group)), group)
        values = letor_ndcg_by_query(qids, np.asarray(data.get_label()), np.asarray(preds), cutoff)
        return f"ndcg_letor4@{cutoff}", float(values.mean()), True

    return feval
