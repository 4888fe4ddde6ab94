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

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ._validate import check_int

__all__ = ["rank_distance", "rank_distance_bins", "discordant_pairs", "KENDALL_BINS"]

KENDALL_BINS = 10


def discordant_pairs(groups: np.ndarray, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Discordant and comparable-pair counts per group, in ``O(n log n)`` per group (vectorised).

    A pair ``(i, j)`` of one group is discordant when ``(x_i - x_j)(y_i - y_j) < 0``; ties in
    ``x`` or ``y`` are not discordant. Groups of similar size (the same power of two) are laid out
    as the rows of one matrix, so that every step below works on all of their rows at once.

    Args:
        groups: non-negative integer group codes (``0..g-1``), one per item.
        x: the first ranking's scores (float).
        y: the second ranking's scores (float).

    Returns:
        ``(discordant, pairs)``: per group, the discordant pairs and ``n(n-1)/2`` (both int64).
    """
    g = int(groups.max()) + 1 if len(groups) else 0
    grouped = bool(np.all(groups[1:] >= groups[:-1]))  # a run lists its topics one after another
    order = np.arange(len(groups)) if grouped else np.argsort(groups, kind="stable")
    grp = groups[order]
    x, y = x[order], y[order]
    sizes = np.bincount(grp, minlength=g).astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    pos = np.arange(len(grp), dtype=np.int64) - starts[grp]
    width = np.left_shift(1, np.ceil(np.log2(np.maximum(sizes, 2))).astype(np.int64))
    discordant = np.zeros(g, dtype=np.int64)
    for w in np.unique(width):
        members = np.flatnonzero(width == w)
        row = np.full(g, -1, dtype=np.int64)
        row[members] = np.arange(len(members))
        take = row[grp] >= 0
        r, c = row[grp[take]], pos[take]
        xs = np.full((len(members), int(w)), np.inf)
        ys = np.full((len(members), int(w)), np.inf)  # padding sorts last and ties with itself
        xs[r, c] = x[take]
        ys[r, c] = y[take]
        discordant[members] = _row_inversions(xs, ys)
    return discordant, sizes * (sizes - 1) // 2


_BRUTE_WIDTH = 16  # blocks this wide count their inversions pair by pair; wider ones by merging


def _dense_ranks(values: np.ndarray) -> np.ndarray:
    """Per row, the dense ranks ``0, 1, ...`` of ``values`` (equal values share a rank)."""
    rows, n = values.shape
    order = np.argsort(values, axis=-1)
    ordered = np.take_along_axis(values, order, axis=-1)
    dense = np.zeros((rows, n), dtype=np.int32)
    np.cumsum(ordered[:, 1:] != ordered[:, :-1], axis=1, dtype=np.int32, out=dense[:, 1:])
    ranks = np.empty((rows, n), dtype=np.int32)
    np.put_along_axis(ranks, order, dense, axis=-1)
    return ranks


def _row_inversions(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Per row, the pairs ``i < j`` (``x`` order, ties by ``y``) with ``y_i > y_j``: a bottom-up merge sort.

    ``xs``/``ys``: rows of a power-of-two width, padded with ``inf`` (never discordant). Blocks of
    up to :data:`_BRUTE_WIDTH` items are counted by comparing each offset at once, then sorted;
    each further level merges every block pair of every row in one stable sort of small integers.
    """
    rows, n = ys.shape
    yr = _dense_ranks(ys)
    key = _dense_ranks(xs).astype(np.int64) * n + yr  # x ascending, ties in x by y ascending
    ranks = np.take_along_axis(yr, np.argsort(key, axis=-1), axis=-1).astype(
        np.int16 if n < 2**15 else np.int64
    )
    first = min(n, _BRUTE_WIDTH)
    blocks = ranks.reshape(-1, first)
    inside = np.zeros(blocks.shape[0], dtype=np.int64)
    for d in range(1, first):
        inside += np.count_nonzero(blocks[:, :-d] > blocks[:, d:], axis=1)
    total = inside.reshape(rows, -1).sum(axis=1)
    ranks = np.sort(blocks, axis=-1).reshape(rows, n)
    half = first
    while half < n:
        width = 2 * half
        blocks = ranks.reshape(rows, n // width, width)
        merged = np.argsort(blocks, axis=-1, kind="stable")  # merges each block's two sorted halves
        # a right-half item moves left past exactly the left-half items larger than it (stable: ties stay)
        moved = merged - np.arange(width)
        total += np.where(merged >= half, moved, 0).sum(axis=(1, 2))
        ranks = np.take_along_axis(blocks, merged, axis=-1).reshape(rows, n)
        half = width
    return total


def _ranking_frame(run: Any, name: str) -> pd.DataFrame:
    """``qid``, ``docno``, ``score`` of a PyTerrier result frame, checked (one line per document)."""
    if not isinstance(run, pd.DataFrame):
        raise TypeError(
            f"{name} must be a DataFrame with qid, docno and score columns, got {type(run).__name__}"
        )
    missing = [c for c in ("qid", "docno", "score") if c not in run.columns]
    if missing:
        raise ValueError(
            f"{name} lacks the column(s) {', '.join(missing)} (a ranking needs qid, docno, score)"
        )
    frame = pd.DataFrame({"qid": run["qid"].astype(str), "docno": run["docno"].astype(str)})
    try:
        frame["score"] = run["score"].to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name}'s score column must be numeric: {e}") from None
    if frame["score"].isna().any():
        raise ValueError(f"{name} has NaN scores ({int(frame['score'].isna().sum())} rows)")
    twice = frame.duplicated(["qid", "docno"])
    if twice.any():
        q, d = frame.loc[twice, ["qid", "docno"]].iloc[0]
        raise ValueError(f"{name} lists document {d!r} of topic {q!r} twice ({int(twice.sum())} repeats)")
    return frame


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
    ours = _ranking_frame(run, "run")
    base = _ranking_frame(baseline_run, "baseline_run")
    topics = pd.Index(pd.unique(np.concatenate([base["qid"].to_numpy(), ours["qid"].to_numpy()])), name="qid")
    both = ours.merge(base, on=["qid", "docno"], suffixes=("", "_base"))
    if not len(both):
        raise ValueError("run and baseline_run have no (topic, document) in common: no ranking to compare")
    codes, uniques = pd.factorize(both["qid"])
    x, y = both["score"].to_numpy(), both["score_base"].to_numpy()
    discordant, pairs = discordant_pairs(codes.astype(np.int64), x, y)
    g = len(uniques)
    lo_x, hi_x = np.full(g, np.inf), np.full(g, -np.inf)
    lo_y, hi_y = lo_x.copy(), hi_x.copy()
    np.minimum.at(lo_x, codes, x)
    np.maximum.at(hi_x, codes, x)
    np.minimum.at(lo_y, codes, y)
    np.maximum.at(hi_y, codes, y)
    defined = (pairs > 0) & (lo_x < hi_x) & (lo_y < hi_y)
    if not defined.any():
        if (pairs > 0).any():
            raise ValueError("every topic's common documents are all tied in run or baseline_run: no order")
        raise ValueError("no topic has two documents in common between run and baseline_run")
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(defined, discordant / np.maximum(pairs, 1), np.nan)
    out = pd.Series(values, index=pd.Index(uniques.astype(str), name="qid"), name="kendall_distance")
    return out.reindex(topics)


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
        bins: the number of bins (the paper: 10).
        normalize: fractions of the topics with a distance (each row sums to 1) rather than counts.

    Returns:
        A DataFrame: one row per run (in ``runs`` order, index named ``run``), one column per bin
        (labelled ``"0.0-0.1"`` and so on), then ``undefined`` (a count) and ``mean`` (the mean distance).

    Raises:
        ValueError: no runs, or :func:`rank_distance`'s errors (named with the run's label).
    """
    bins = check_int(bins, "bins")
    if not len(runs):
        raise ValueError("rank_distance_bins needs at least one run")
    edges = np.linspace(0.0, 1.0, bins + 1)
    labels = [f"{edges[k]:.{_digits(bins)}f}-{edges[k + 1]:.{_digits(bins)}f}" for k in range(bins)]
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
    frame.index.name = "run"
    return frame.astype({"undefined": int})


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
