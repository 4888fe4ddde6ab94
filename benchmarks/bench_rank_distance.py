"""Kendall distance to the baseline's ranking: ``rank_distance`` against scipy's ``kendalltau`` per topic.

Two runs rank the same ``--docs`` documents for each of ``--topics`` topics (random scores, no ties).
Timed in the same process: ``ptr.rank_distance`` on the two result frames (the merge on
(qid, docno) included), its counting kernel alone, and the reference, ``scipy.stats.kendalltau``
called per topic on the already grouped score arrays (also O(n log n); the distance is (1 − τ)/2
without ties). The answers are compared before the times are printed. Ratios > 1 mean the
reference is slower.

    python benchmarks/bench_rank_distance.py                       # 10,000 topics × 1,000 documents
    python benchmarks/bench_rank_distance.py --topics 1000 --docs 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy import stats

import pyterrier_risk as ptr
from pyterrier_risk.core import discordant_pairs


def _frames(topics: int, docs: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(topics).astype(str), docs)
    docno = np.tile(np.char.add("d", np.arange(docs).astype(str)), topics)
    run = pd.DataFrame({"qid": qid, "docno": docno, "score": rng.random(topics * docs)})
    base = pd.DataFrame({"qid": qid, "docno": docno, "score": rng.random(topics * docs)})
    return run, base


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    run, base = _frames(args.topics, args.docs, args.seed)
    x = run["score"].to_numpy().reshape(args.topics, args.docs)
    y = base["score"].to_numpy().reshape(args.topics, args.docs)
    groups = np.repeat(np.arange(args.topics), args.docs)

    t = time.perf_counter()
    ours = ptr.rank_distance(run, base)
    full = time.perf_counter() - t
    t = time.perf_counter()
    disc, pairs = discordant_pairs(groups, x.ravel(), y.ravel())
    kernel = time.perf_counter() - t
    t = time.perf_counter()
    taus = np.array([stats.kendalltau(x[i], y[i]).statistic for i in range(args.topics)])
    reference = time.perf_counter() - t

    np.testing.assert_allclose(ours.to_numpy(), (1 - taus) / 2, atol=1e-12)
    np.testing.assert_allclose(disc / pairs, (1 - taus) / 2, atol=1e-12)
    print(f"{args.topics} topics x {args.docs} documents")
    print(f"  rank_distance (frames) {full:8.2f} s   kendalltau/ours {reference / full:.2f}")
    print(f"  counting kernel alone  {kernel:8.2f} s   kendalltau/ours {reference / kernel:.2f}")
    print(f"  kendalltau per topic   {reference:8.2f} s   (reference)")


if __name__ == "__main__":
    main()
