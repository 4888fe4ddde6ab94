"""Cost of UE(nDCG@10) relative to nDCG@10 alone, both through ir_measures, in the same process.

Synthetic run: 10,000 topics x 100 retrieved documents, every document judged (labels 0-2), random
scores. Prints the best-of-``--repeats`` wall time of each and the ratio (target <= 1.5x).

    python benchmarks/bench_ue.py [--topics 10000] [--docs 100] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import AP, nDCG

from pyterrier_risk import UE


def make_data(topics: int, docs: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.char.add("q", np.arange(topics).astype(str)), docs)
    docno = np.tile(np.char.add("d", np.arange(docs).astype(str)), topics)
    labels = rng.choice([0, 0, 0, 1, 2], qid.size)
    qrels = pd.DataFrame({"query_id": qid, "doc_id": docno, "relevance": labels})
    run = pd.DataFrame({"query_id": qid, "doc_id": docno, "score": rng.random(qid.size)})
    return qrels, run


def best_time(measures, qrels, run, repeats):
    best, value = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        value = ir_measures.calc_aggregate(measures, qrels, run)
        best = min(best, time.perf_counter() - t0)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    qrels, run = make_data(args.topics, args.docs)
    print(f"{args.topics} topics x {args.docs} docs = {len(run):,} rows; best of {args.repeats}")
    ref, ref_val = best_time([nDCG @ 10], qrels, run, args.repeats)
    print(f"{'nDCG@10':45s} {ref:7.2f} s  1.00x  mean={ref_val[nDCG @ 10]:.4f}")
    for m in [
        UE(nDCG @ 10),
        UE(nDCG @ 10, variant="V2"),
        UE(nDCG @ 10, pool="run"),
        UE(AP @ 10, variant="V2"),
    ]:
        t, val = best_time([m], qrels, run, args.repeats)
        print(f"{m!s:45s} {t:7.2f} s  {t / ref:4.2f}x  mean={val[m]:.4f}")


if __name__ == "__main__":
    main()
