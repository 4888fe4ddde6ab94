"""Cost of UE(nDCG@10) relative to nDCG@10 alone, both through ir_measures, in the same process.

Synthetic run: 10,000 topics x 100 retrieved documents, every document judged (labels 0-2), random
scores. Prints the best-of-``--repeats`` wall and CPU time of each (runs interleaved) and the ratios to
nDCG@10 (target <= 1.5x), plus the cost of the base measure as UE computes it (ir_measures fed
dict-of-dict inputs, which skips its per-row DataFrame conversion).

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
from pyterrier_risk.measures._ue import _dict_of_dict


def make_data(topics: int, docs: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.char.add("q", np.arange(topics).astype(str)), docs)
    docno = np.tile(np.char.add("d", np.arange(docs).astype(str)), topics)
    labels = rng.choice([0, 0, 0, 1, 2], qid.size)
    qrels = pd.DataFrame({"query_id": qid, "doc_id": docno, "relevance": labels})
    run = pd.DataFrame({"query_id": qid, "doc_id": docno, "score": rng.random(qid.size)})
    return qrels, run


def timed(measures, qrels, run):
    w0, c0 = time.perf_counter(), time.process_time()
    value = ir_measures.calc_aggregate(measures, qrels, run)
    return time.perf_counter() - w0, time.process_time() - c0, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    qrels, run = make_data(args.topics, args.docs)
    print(f"{args.topics} topics x {args.docs} docs = {len(run):,} rows; best of {args.repeats}, interleaved")
    ref = nDCG @ 10
    measures = [ref, UE(nDCG @ 10), UE(nDCG @ 10, variant="V2"), UE(nDCG @ 10, pool="run")]
    measures.append(UE(AP @ 10, variant="V2"))
    best = {m: [float("inf"), float("inf"), None] for m in measures}
    for _ in range(args.repeats):  # interleaved, so that load from other processes hits all alike
        for m in measures:
            wall, cpu, value = timed([m], qrels, run)
            best[m] = [min(best[m][0], wall), min(best[m][1], cpu), value[m]]
    # what UE itself pays for its base measure: nDCG@10 from dict-of-dict inputs (conversion included)
    w0, c0 = time.perf_counter(), time.process_time()
    q_dd = _dict_of_dict(qrels["query_id"], qrels["doc_id"], qrels["relevance"])
    r_dd = _dict_of_dict(run["query_id"], run["doc_id"], run["score"])
    ir_measures.calc_aggregate([ref], q_dd, r_dd)
    base_wall, base_cpu = time.perf_counter() - w0, time.process_time() - c0
    print(f"{'measure':40s} {'wall':>8s} {'ratio':>6s} {'cpu':>8s} {'ratio':>6s}  mean")
    label = "nDCG@10, dict-of-dict input (in UE)"
    print(f"{label:40s} {base_wall:7.2f}s {base_wall / best[ref][0]:5.2f}x {base_cpu:7.2f}s "
          f"{base_cpu / best[ref][1]:5.2f}x")
    for m in measures:
        wall, cpu, value = best[m]
        ratio_wall, ratio_cpu = wall / best[ref][0], cpu / best[ref][1]
        print(f"{m!s:40s} {wall:7.2f}s {ratio_wall:5.2f}x {cpu:7.2f}s {ratio_cpu:5.2f}x  {value:.4f}")


if __name__ == "__main__":
    main()
