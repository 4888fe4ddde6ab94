r"""NDCG@k as LETOR 4.0's official evaluation script computes it (``Eval-Score-4.0.pl``).

Published MQ2007/MQ2008 numbers come from ``Eval-Score-4.0.pl`` (Xu and Liu, LETOR 4.0, 2009). Its
NDCG@k differs from the usual one (Järvelin and Kekäläinen 2002 with :math:`\log_2(r + 1)`) in four
ways, each followed here:

* gains: label 0 gains 0, label 1 gains 1, label 2 gains 3 (its ``%hsNdcgRelScore``);
* discount: ranks 1 and 2 are not discounted, rank :math:`r \ge 3` is divided by :math:`\log_2 r`:

  .. math:: \mathrm{DCG@k} = g_1 + g_2 + \sum_{r=3}^{k} g_r \frac{\log 2}{\log r}

* ties: documents are sorted by score, descending, with tied scores in file order (a stable sort of
  the query's rows as the file lists them);
* a query with fewer than :math:`k` documents has no NDCG@k: the script prints 0.0000 and counts it
  as 0 in the mean. A query whose ideal DCG@k is 0 (no relevant document) also scores 0.

The ideal DCG sorts the same labels (by default the query's ranked documents, as the script does,
where the feature file is both the candidates and the judgements) and pads with gain 0 beyond them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["LETOR_GAINS", "letor_ndcg", "letor_ndcg_by_query"]

#: Eval-Score-4.0.pl's gain of each label (its ``%hsNdcgRelScore``)
LETOR_GAINS: dict[int, float] = {0: 0.0, 1: 1.0, 2: 3.0}


def _gains(labels: Any, what: str) -> np.ndarray:
    """The script's gain of each label; any label but 0, 1, 2 is an error (the script has no gain for it)."""
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    try:
        values = arr.astype(float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be numbers, got {arr.dtype}") from None
    if not np.isin(values, (0.0, 1.0, 2.0)).all():
        bad = sorted(set(values[~np.isin(values, (0.0, 1.0, 2.0))].tolist()))[:5]
        raise ValueError(f"Eval-Score-4.0.pl defines gains for labels 0, 1, 2 only; {what} has {bad}")
    return np.array([0.0, 1.0, 3.0])[values.astype(int)]


def _dcg(gains: np.ndarray, k: int) -> float:
    """DCG@k of gains in rank order, zero-padded to k: ranks 1 and 2 undiscounted, then log 2 / log r."""
    g = np.zeros(k)
    m = min(k, len(gains))
    g[:m] = gains[:m]
    terms = g.copy()
    terms[2:] = g[2:] * np.log(2.0) / np.log(np.arange(3, k + 1, dtype=float))  # the script's expression
    return float(np.cumsum(terms)[-1])  # the script adds rank by rank; cumsum adds in the same order


def letor_ndcg(labels: Any, scores: Any, k: int = 10, ideal_labels: Any = None) -> float:
    r"""NDCG@k of one query as LETOR 4.0's ``Eval-Score-4.0.pl`` computes it.

    .. math:: \mathrm{NDCG@k} = \frac{\mathrm{DCG@k}(\text{ranking})}{\mathrm{DCG@k}(\text{ideal})},
              \quad \mathrm{DCG@k} = g_1 + g_2 + \sum_{r=3}^{k} g_r \frac{\log 2}{\log r}

    with gains 0, 1, 3 for labels 0, 1, 2, the ranking by ``scores`` descending with ties in the given
    (file) order, 0 when the query has fewer than ``k`` documents or an ideal DCG@k of 0.

    Args:
        labels: the query's relevance labels (0, 1 or 2), one per document, in file order.
        scores: the predictions, one per document, in the same order.
        k: the cutoff (a positive integer).
        ideal_labels: the labels the ideal ranking sorts (default ``labels``, as the script does).

    Returns:
        The query's NDCG@k.

    Raises:
        ValueError: lengths differ, a score is NaN, a label is not 0, 1 or 2, or ``k`` is not positive.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    gains = _gains(labels, "labels")
    s = np.asarray(scores, dtype=float)
    if s.shape != gains.shape:
        raise ValueError(f"labels and scores differ in length: {len(gains)} and {s.size}")
    if np.isnan(s).any():
        raise ValueError("scores hold NaN")
    if len(gains) < k:  # the script has no NDCG@k for this query: it prints 0.0000 and counts 0
        return 0.0
    ideal = gains if ideal_labels is None else _gains(ideal_labels, "ideal_labels")
    best = _dcg(np.sort(ideal)[::-1], int(k))
    if best == 0.0:
        return 0.0
    order = np.argsort(-s, kind="stable")  # score descending, ties in file order (Perl's stable sort)
    return _dcg(gains[order], int(k)) / best


def letor_ndcg_by_query(qids: Any, labels: Any, scores: Any, k: int = 10) -> pd.Series:
    """LETOR 4.0's NDCG@k of every query of a LETOR file (rows in file order), as the script prints it.

    Args:
        qids: the query id of each row.
        labels: each row's label (0, 1 or 2).
        scores: each row's prediction.
        k: the cutoff.

    Returns:
        NDCG@k per query (:func:`letor_ndcg`), indexed by query id in order of first appearance.

    Raises:
        ValueError: the three arrays differ in length, or :func:`letor_ndcg` refuses a query.
    """
    q = np.asarray(qids)
    lab, s = np.asarray(labels), np.asarray(scores)
    if not (len(q) == len(lab) == len(s)):
        raise ValueError(f"qids, labels and scores differ in length: {len(q)}, {len(lab)}, {len(s)}")
    keys = pd.unique(q)
    codes = pd.Index(keys).get_indexer(q)
    rows = np.argsort(codes, kind="stable")  # each query's rows, in file order
    bounds = np.searchsorted(codes[rows], np.arange(len(keys) + 1))
    spans = zip(bounds[:-1], bounds[1:], strict=True)
    values = [letor_ndcg(lab[rows[a:b]], s[rows[a:b]], k) for a, b in spans]
    return pd.Series(values, index=pd.Index(keys, name="qid"), dtype=float, name=f"NDCG@{k} (LETOR 4.0)")
