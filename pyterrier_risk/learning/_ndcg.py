"""LambdaMART's per-query constants and NDCG, in numpy: LightGBM 4.x's arithmetic, bit for bit.

The logistic lookup table, the position discounts, the inverse max DCG and the NDCG of a ranking
are computed once per training set (or once per round, vectorised over the queries) with the same
floating-point operations, in the same order, as LightGBM's ``LambdarankNDCG`` (docs/objectives.md).
They need no compiled code, so a cold start compiles only the pair loop (:mod:`._pairloop`).
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = [
    "SIGMOID_BINS", "discounts", "inverse_max_dcg", "ndcg_at", "query_of_rows", "sigmoid_table",
    "stable_desc_order",
]  # fmt: skip

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
