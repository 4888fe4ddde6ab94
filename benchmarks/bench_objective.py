"""Per-round training time of every objective kind as a ratio to LightGBM's native lambdarank.

Same data, same LightGBM parameters, same run: the native objective is timed in the same loop as
the Python/numba objectives (interleaved, median over repeats), so machine load affects both.
The numba kernels are compiled (or loaded from the cache) and warmed up before any timing.

    python benchmarks/bench_objective.py                 # MQ2008 Fold1 + synthetic MSLR-like
    python benchmarks/bench_objective.py --rounds 50 --repeats 5 --threads 2
    python benchmarks/bench_objective.py --only synthetic --queries 4000 --threads 1 2 4 8 16   # thread sweep

With several ``--threads`` values the last table is the sweep: ratio to native per kind and thread
count (480k rows x 136 features with ``--queries 4000``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np

from pyterrier_risk.data import read_letor
from pyterrier_risk.learning import KINDS, objective

DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def mq2008():
    d = read_letor(DATA / "letor4-mq2008" / "Fold1" / "train.txt.gz")
    return "MQ2008 Fold1 train", d.X, d.y, d.group, d.X[:, 24], d.X[:, [20, 21, 22, 23, 24, 29, 34, 39]]


def synthetic(n_queries=2000, docs=120, features=136, seed=0):
    """MSLR-WEB10K-like shape: graded labels 0..4 driven by a few noisy features."""
    rng = np.random.default_rng(seed)
    n = n_queries * docs
    X = rng.random((n, features)).astype(np.float64)
    signal = X[:, :5] @ np.array([1.0, 0.8, 0.6, 0.4, 0.2]) + rng.normal(0, 0.6, n)
    y = np.digitize(signal, np.quantile(signal, [0.5, 0.75, 0.9, 0.97])).astype(np.int64)
    group = np.full(n_queries, docs)
    return f"synthetic {n_queries} q x {docs} docs x {features} features", X, y, group, X[:, 0], X[:, :5]


def run(name, X, y, group, baseline, baselines, rounds, repeats, threads, alpha):
    params = dict(num_leaves=31, learning_rate=0.1, min_data_in_leaf=20, verbose=-1, num_threads=threads)
    ds = lgb.Dataset(X, y, group=group, free_raw_data=False, params={"verbose": -1}).construct()

    def make(kind):
        if kind == "native":
            return "lambdarank"
        kw = {}
        if kind in ("urisk", "tsaro", "tfaro"):
            kw["baseline"] = baseline
        elif kind in ("tfaro_star", "georisk"):
            kw["baselines"] = baselines
        return objective(kind, alpha=0.0 if kind == "lambdarank" else alpha, num_threads=threads, **kw)

    kinds = ["native", *KINDS]
    for kind in kinds:  # warm-up: JIT load/compile, sigmoid table, LightGBM's first-call costs
        lgb.train({**params, "objective": make(kind)}, ds, 2)
    times: dict[str, list[float]] = {k: [] for k in kinds}
    for _ in range(repeats):
        for kind in kinds:
            obj = make(kind)
            t = time.perf_counter()
            lgb.train({**params, "objective": obj}, ds, rounds)
            times[kind].append((time.perf_counter() - t) / rounds)
    native = statistics.median(times["native"])
    print(f"\n{name}: {len(y):,} rows, {len(group):,} queries, {X.shape[1]} features; "
          f"{rounds} rounds x {repeats} repeats, num_threads={threads}, alpha={alpha}")  # fmt: skip
    print(f"{'kind':<12}{'ms/round':>10}{'ratio':>8}")
    ratios = {}
    for kind in kinds:
        med = statistics.median(times[kind])
        ratios[kind] = med / native
        print(f"{kind:<12}{1000 * med:>10.2f}{med / native:>8.2f}")
    return ratios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[2], help="one or several thread counts")
    ap.add_argument("--queries", type=int, default=2000, help="synthetic set: queries of 120 documents")
    ap.add_argument("--alpha", type=float, default=5.0)
    ap.add_argument("--only", choices=["mq2008", "synthetic"], default=None)
    args = ap.parse_args()
    sets = []
    if args.only in (None, "mq2008"):
        sets.append(mq2008())
    if args.only in (None, "synthetic"):
        sets.append(synthetic(n_queries=args.queries))
    for s in sets:
        sweep = {t: run(*s, rounds=args.rounds, repeats=args.repeats, threads=t, alpha=args.alpha)
                 for t in args.threads}  # fmt: skip
        if len(sweep) > 1:
            print(f"\nthread sweep, {s[0]}: per-round time / native lambdarank")
            print("| kind | " + " | ".join(f"{t} thr" for t in sweep) + " |")
            print("|---" * (len(sweep) + 1) + "|")
            for kind in next(iter(sweep.values())):
                print(f"| {kind} | " + " | ".join(f"{sweep[t][kind]:.2f}" for t in sweep) + " |")


if __name__ == "__main__":
    main()
