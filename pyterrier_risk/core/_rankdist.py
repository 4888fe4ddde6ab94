r"""Distance of a ranking from the baseline's ranking (Wang, Bennett and Collins-Thompson, SIGIR 2012, §5.9).

Per topic, the normalised Kendall distance between two rankings of the documents both rank:

.. math::

    K(\sigma, \beta) = \frac{D}{n(n-1)/2}, \qquad
    D = \big|\{(i, j) : i < j,\ (s_i - s_j)(b_i - b_j) < 0\}\big|,

where ``n`` is the number of documents both runs retrieved for the topic, ``s`` and ``b`` are their
scores in the run and in the baseline run, and ``D`` counts the discordant pairs: the pairs the two
rankings order the opposite way, i.e. the adjacent swaps needed to turn one ranking into the other.
0 means the same order, 1 the reverse order.

Ties. A pair tied in either ranking (equal scores) is not discordant: it counts in the denominator
only (Fagin et al.'s ``K^{(p)}`` with penalty ``p = 0``). Without ties, ``K = (1 - τ)/2`` with
Kendall's τ. A topic whose documents one of the rankings ties all together has no order to compare:
its distance is NaN, like a topic with fewer than two common documents.

The 2012 paper bins the distances of a model's re-rankings into 10 bins (Figure 5), bin 0 for
rankings the same as or very close to the baseline's, bin 9 for very different ones; here bin
``k`` holds the distances in ``[k/10, (k+1)/10)``, bin 9 also 1.0. (The figure's legend merges
0.8–1.0 into one band.)

The count is ``O(n log n)`` per topic and vectorised over all topics at once: a bottom-up merge sort
of the baseline's ranks in the run's order, each level a stable sort of every block pair of every
topic together, counting for each document of a right half the larger ones of its left half.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd

from ._validate import MAX_BINS, check_int, nan_score_message, repeated_pair_message

__all__ = ["rank_distance", "rank_distance_bins", "discordant_pairs", "KENDALL_BINS"]

KENDALL_BINS = 10


def discordant_pairs(
    groups: np.ndarray, x: np.ndarray, y: np.ndarray, *, n_groups: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Discordant and comparable-pair counts per group, in ``O(n log n)`` per group (vectorised).

    A pair ``(i, j)`` of one group is discordant when ``(x_i - x_j)(y_i - y_j) < 0``; ties in
    ``x`` or ``y`` are not discordant. Groups of similar size (the same power of two) are laid out
    as the rows of one matrix, so that every step below works on all of their rows at once.

    Args:
        groups: non-negative integer group codes (``0..g-1``), one per item.
        x: the first ranking's scores (float).
        y: the second ranking's scores (float).
        n_groups: the number of groups ``g`` (default: the largest code + 1).

    Returns:
        ``(discordant, pairs)``: per group, the discordant pairs and ``n(n-1)/2`` (both int64).
    """
    g = (int(groups.max()) + 1 if len(groups) else 0) if n_groups is None else n_groups
    grouped = bool(np.all(groups[1:] >= groups[:-1]))  # a run lists its topics one after another
    order = np.arange(len(groups)) if grouped else np.argsort(groups, kind="stable")
    grp = groups[order]
    x, y = x[order], y[order]
    sizes = np.bincount(grp, minlength=g).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pos = np.arange(len(grp), dtype=np.int64) - starts[grp]
    width = np.left_shift(1, np.ceil(np.log2(np.maximum(sizes, 2))).astype(np.int64))
    discordant = np.zeros(g, dtype=np.int64)
    classes = np.unique(width[sizes > 0])
    for w in classes:
        members = np.flatnonzero((width == w) & (sizes > 0))
        row = np.full(g, -1, dtype=np.int64)
        row[members] = np.arange(len(members))
        if len(classes) == 1:  # every item goes to this matrix
            flat, xw, yw = row[grp] * w + pos, x, y
        else:
            take = row[grp] >= 0
            flat, xw, yw = row[grp[take]] * w + pos[take], x[take], y[take]
        xs = np.full(len(members) * int(w), np.inf)
        ys = np.full(len(members) * int(w), np.inf)  # padding sorts last and ties with itself
        xs[flat], ys[flat] = xw, yw
        discordant[members] = _in_chunks(xs.reshape(len(members), -1), ys.reshape(len(members), -1))
    return discordant, sizes * (sizes - 1) // 2


_CHUNK_ITEMS = 1 << 20  # rows are counted in chunks of about this many items, one per thread


def _in_chunks(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """:func:`_row_inversions` over chunks of rows, on a thread per CPU (numpy's sorts release the GIL)."""
    rows = max(1, _CHUNK_ITEMS // xs.shape[1])
    starts = range(0, xs.shape[0], rows)
    if len(starts) == 1:
        return _row_inversions(xs, ys)
    workers = min(len(starts), os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        parts = pool.map(lambda i: _row_inversions(xs[i : i + rows], ys[i : i + rows]), starts)
        return np.concatenate(list(parts))


_BRUTE_WIDTH = 16  # blocks this wide count their inversions pair by pair; wider ones by merging


def _ranks_in_x_order(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Per row, the dense ranks of ``y`` (ties share one) listed in ``x`` order, ties in ``x`` by ``y``."""
    rows, n = ys.shape
    by_y = np.argsort(ys, axis=-1)
    y_sorted = np.take_along_axis(ys, by_y, axis=-1)
    dense = np.zeros((rows, n), dtype=np.int16 if 2 * n < 2**15 else np.int32)
    np.cumsum(y_sorted[:, 1:] != y_sorted[:, :-1], axis=1, dtype=dense.dtype, out=dense[:, 1:])
    # a stable sort by x of the items in y order: x ascending, ties in x keep y ascending
    by_x = np.argsort(np.take_along_axis(xs, by_y, axis=-1), axis=-1, kind="stable")
    return np.take_along_axis(dense, by_x, axis=-1)


def _row_inversions(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Per row, the pairs ``i < j`` (``x`` order, ties by ``y``) with ``y_i > y_j``: a bottom-up merge sort.

    ``xs``/``ys``: rows of a power-of-two width, padded with ``inf`` (never discordant). Blocks of
    up to :data:`_BRUTE_WIDTH` items are counted by comparing each offset at once. Each further level
    merges every block pair of every row in one sort of the keys ``2·rank + (1 if right half)``:
    a right-half item at merged position ``m`` (``r``-th of its half) has ``m − r`` left-half items
    at or below it, so ``half − m + r`` above it, and the sorted keys alone give the sum.
    """
    rows, n = ys.shape
    ranks = _ranks_in_x_order(xs, ys)
    first = min(n, _BRUTE_WIDTH)
    blocks = ranks.reshape(-1, first)
    inside = np.zeros(blocks.shape[0], dtype=np.int64)
    for d in range(1, first):
        inside += np.count_nonzero(blocks[:, :-d] > blocks[:, d:], axis=1)
    total = inside.reshape(rows, -1).sum(axis=1)
    ranks = np.sort(blocks, axis=-1, kind="stable").reshape(rows, n)
    half = first
    while half < n:
        width = 2 * half
        keys = (ranks.reshape(rows, n // width, width) * 2).astype(ranks.dtype)
        keys[..., half:] += 1
        keys.sort(axis=-1, kind="stable")  # a radix sort for 16-bit keys
        right_positions = ((keys & 1) * np.arange(width, dtype=np.int64)).sum(axis=(1, 2))
        total += (n // width) * (half * half + half * (half - 1) // 2) - right_positions
        ranks = (keys >> 1).reshape(rows, n)
        half = width
    return total


def _ranking_columns(run: Any, name: str) -> tuple[pd.Series, pd.Series, np.ndarray]:
    """``qid`` and ``docno`` (Series of str) and ``score`` (float) of a PyTerrier result frame, checked."""
    from pandas.api.types import infer_dtype

    if not isinstance(run, pd.DataFrame):
        raise TypeError(
            f"{name} must be a DataFrame with qid, docno and score columns, got {type(run).__name__}"
        )
    missing = [c for c in ("qid", "docno", "score") if c not in run.columns]
    if missing:
        raise ValueError(
            f"{name} lacks the column(s) {', '.join(missing)} (a ranking needs qid, docno, score)"
        )
    ids = []
    for column in ("qid", "docno"):
        values = run[column]
        if infer_dtype(values, skipna=False) != "string":  # ids compare as text: 351 is "351"
            values = values.astype(str)
        ids.append(values.reset_index(drop=True))
    try:
        score = run["score"].to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name}'s score column must be numeric: {e}") from None
    if np.isnan(score).any():
        i = int(np.flatnonzero(np.isnan(score))[0])
        raise ValueError(nan_score_message(name, ids[0].iloc[i], ids[1].iloc[i])
                         + f" (row {i}; {int(np.isnan(score).sum())} NaN in all)")
    return ids[0], ids[1], score


def _factorize_runs(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """``pd.factorize`` of a column that lists equal values together (a qid): one hash per stretch."""
    v = values.to_numpy()
    head = np.flatnonzero(np.r_[True, v[1:] != v[:-1]]) if len(v) else np.zeros(0, dtype=np.int64)
    codes, uniques = pd.factorize(v[head])
    return np.repeat(codes, np.diff(np.r_[head, len(v)])), pd.Index(uniques)


def _check_unique(keys: np.ndarray, qids: pd.Series, docnos: pd.Series, name: str) -> None:
    """Refuse a (topic, document) pair listed twice, naming the first one."""
    order = np.argsort(keys, kind="stable")
    repeat = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if len(repeat):  # the run policy's message (core/_validate.py), as for files and other frames
        first, i = order[repeat[0]], order[repeat[0] + 1]
        raise ValueError(repeated_pair_message(name, qids.iloc[i], docnos.iloc[i], f"row {first}")
                         + f"; row {i} repeats it")


def rank_distance(run: Any, baseline_run: Any) -> pd.Series:
    r"""Per topic, the Kendall distance of ``run``'s ranking from the baseline's (Wang et al. 2012).

    .. math::

        K_q = \frac{\#\{\text{pairs of common documents the two rankings order oppositely}\}}{n_q(n_q-1)/2}

    over the ``n_q`` documents both runs retrieved for topic ``q``, each ranking ordered by score
    (higher first). A pair tied in either ranking counts as not discordant (in the denominator only);
    without ties ``K_q = (1 - τ_q)/2``. ``O(n log n)`` per topic.

    Args:
        run: result frame (``qid``, ``docno``, ``score``), e.g. from :func:`read_run` or a transformer.
        baseline_run: the baseline's result frame, same columns.

    Returns:
        A float Series indexed by topic (``qid``, as str; the topics of either run, baseline's first),
        named ``kendall_distance``: in [0, 1]; NaN for a topic with fewer than two common documents
        or whose common documents one ranking ties all together.

    Raises:
        TypeError: not a DataFrame, or non-numeric scores.
        ValueError: a missing column, NaN scores, a document listed twice for a topic, no document
            common to both runs, or every topic's common documents tied in one of the rankings.

    Example:
        >>> import pandas as pd
        >>> a = pd.DataFrame({"qid": "1", "docno": ["d1", "d2", "d3"], "score": [3.0, 2.0, 1.0]})
        >>> b = pd.DataFrame({"qid": "1", "docno": ["d1", "d2", "d3"], "score": [1.0, 3.0, 2.0]})
        >>> float(rank_distance(a, b).iloc[0])  # 2 of the 3 pairs are swapped
        0.6666666666666666
    """
    rq, rd, rs = _ranking_columns(run, "run")
    bq, bd, bs = _ranking_columns(baseline_run, "baseline_run")
    nb = len(bq)
    # topic ids come in stretches (one hash per stretch); document ids as one object array (faster)
    qcodes, topics = _factorize_runs(pd.concat([bq, rq], ignore_index=True))  # the baseline's topics first
    dcodes, docs = pd.factorize(np.concatenate([bd.to_numpy(), rd.to_numpy()]))
    keys = qcodes.astype(np.int64) * max(len(docs), 1) + dcodes
    _check_unique(keys[nb:], rq, rd, "run")
    _check_unique(keys[:nb], bq, bd, "baseline_run")
    common, ib, ir = np.intersect1d(keys[:nb], keys[nb:], assume_unique=True, return_indices=True)
    if not len(common):
        raise ValueError("run and baseline_run have no (topic, document) in common: no ranking to compare")
    groups = common // max(len(docs), 1)  # sorted: each topic's common documents together
    x, y = rs[ir], bs[ib]
    discordant, pairs = discordant_pairs(groups, x, y, n_groups=len(topics))
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    spread = [np.maximum.reduceat(v, starts) > np.minimum.reduceat(v, starts) for v in (x, y)]
    defined = np.zeros(len(topics), dtype=bool)
    defined[groups[starts]] = spread[0] & spread[1]  # a single document has no spread either
    if not defined.any():
        if (pairs > 0).any():
            raise ValueError("every topic's common documents are all tied in run or baseline_run: no order")
        raise ValueError("no topic has two documents in common between run and baseline_run")
    values = np.full(len(topics), np.nan)
    values[defined] = discordant[defined] / pairs[defined]
    return pd.Series(
        values, index=pd.Index(np.asarray(topics, dtype=object), name="qid"), name="kendall_distance"
    )


def rank_distance_bins(
    runs: Mapping[Any, Any], baseline_run: Any, *, bins: int = KENDALL_BINS, normalize: bool = True
) -> pd.DataFrame:
    """Each run's per-topic Kendall distances binned (Wang et al. 2012, Fig. 5): one row per run.

    Bin ``k`` of ``bins`` holds the topics with distance in ``[k/bins, (k+1)/bins)`` (the last also
    1.0); topics without a distance (NaN in :func:`rank_distance`) are left out and counted in the
    ``undefined`` column.

    Args:
        runs: result frames by label, e.g. ``{alpha: run}`` of models learned with several α.
        baseline_run: the baseline's result frame.
        bins: the number of bins (the paper: 10; at most :data:`~pyterrier_risk.core.MAX_BINS`, 10,000).
        normalize: fractions of the topics with a distance (each row sums to 1) rather than counts.

    Returns:
        A DataFrame: one row per run (in ``runs`` order, index named ``name`` as the system column of
        ``pt.Experiment``; ``run`` up to version 0.2), one column per bin
        (labelled ``"0.0-0.1"`` and so on), then ``undefined`` (a count) and ``mean`` (the mean distance).

    Raises:
        TypeError: ``runs`` is not a mapping.
        ValueError: no runs, ``bins`` outside [1, 10,000], or :func:`rank_distance`'s errors (named with
            the run's label).
    """
    bins = check_int(bins, "bins", maximum=MAX_BINS)
    if not isinstance(runs, Mapping):
        raise TypeError(f"runs must be a mapping {{label: run frame}}, got {type(runs).__name__}")
    if not len(runs):
        raise ValueError("rank_distance_bins needs at least one run")
    labels = bin_labels(bins)
    rows = {}
    for label, run in runs.items():
        try:
            d = rank_distance(run, baseline_run).to_numpy()
        except ValueError as e:
            raise ValueError(f"run {label!r}: {e}") from None
        ok = d[~np.isnan(d)]
        counts = np.bincount(_bin_of(ok, bins), minlength=bins).astype(float)
        if normalize:
            counts /= counts.sum()
        rows[label] = [*counts, float(len(d) - len(ok)), float(ok.mean())]
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=[*labels, "undefined", "mean"])
    frame.index.name = "name"
    return frame.astype({"undefined": int})


def bin_labels(bins: int) -> list[str]:
    """The labels of :func:`rank_distance_bins`' columns: ``"0.0-0.1"`` ... for 10 bins."""
    edges = np.linspace(0.0, 1.0, bins + 1)
    return [f"{edges[k]:.{_digits(bins)}f}-{edges[k + 1]:.{_digits(bins)}f}" for k in range(bins)]


def distance_bin(distances: np.ndarray, bins: int = KENDALL_BINS) -> np.ndarray:
    """The bin of each distance in ``[0, 1]`` as :func:`rank_distance_bins` bins them: ``floor(d · bins)``."""
    return _bin_of(distances, bins)


def _bin_of(distances: np.ndarray, bins: int) -> np.ndarray:
    """The bin ``floor(d * bins)`` of each distance (1.0 in the last bin), edges exact.

    A distance equal to an edge ``k/bins`` is stored as the float nearest to it, which times ``bins``
    can fall just below ``k`` (15/22 · 22 = 14.999...); the product is nudged up by a few units in the
    last place (a distance ``D/P`` below an edge lies at least ``1/(P·bins)`` below it, far more).
    """
    nudged = distances * bins * (1.0 + 8 * np.finfo(np.float64).eps)
    return np.minimum(np.floor(nudged).astype(np.int64), bins - 1)


def _digits(bins: int) -> int:
    """Decimals that print the bin edges ``k/bins`` apart: exactly when few suffice (0.25, 0.125).

    Otherwise one more than the edges' spacing needs (0.33, 0.033).
    """
    for d in range(1, 5):
        if 10**d % bins == 0:
            return d
    return int(np.ceil(np.log10(bins))) + 1
