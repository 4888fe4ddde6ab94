"""Wall time of a learning study with 1, 2, ... workers, and a 1M-row fold's time and memory per worker.

Part 1 (MQ2008, issue 22's scale check): ``ptr.risk_study`` on the five MQ2008 folds with four objectives
(U-CRO, T-SARO, T-FARO against BM25; GeoRisk among six retrieval-model features) at three α, one seed:
65 fits (5 folds × (LambdaMART + 4 × 3)). Each worker count runs the same study from scratch (no task
store) in this one process, and the table gives each wall time as a ratio to the 1-worker run, measured
in the same run. The per_query frames and the model digests of every run must be equal (checked).

Part 2: one synthetic LETOR file of ``--big-rows`` rows (default 1,000,000; 100 documents per query) split
into 3 folds (``folds=3``: each fold holds all rows, a third each for training, validation and test),
U-CRO at α 5 and LambdaMART, ``--big-rounds`` trees, 2 workers: the study's wall time, each task's time
and each worker's peak resident memory (``RiskStudyResult.resources``).

    python benchmarks/bench_learn.py                       # 1 and 2 workers, then the 1M-row fold
    python benchmarks/bench_learn.py --workers 1 2 16      # on a 16-core machine
    python benchmarks/bench_learn.py --skip-big            # MQ2008 only

Worker counts above the machine's cores are skipped (tasks × threads never exceed the cores). Numbers of a
shared machine move with its load: compare the ratios of one run, not times across runs.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

import pyterrier_risk as ptr

DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
MQ_PARAMS = {"learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 50, "feature_fraction": 0.8}
FEATURES = [15, 21, 25, 30, 35, 40]  # LETOR 4.0: TF*IDF, BM25 of the body, BM25, LMIR.ABS/DIR/JM (1-based)


def mq2008(workers: list[int], rounds: int) -> pd.DataFrame:
    """The MQ2008 study with each worker count; wall time and its ratio to the first count."""
    rows, first = [], None
    for n in workers:
        started = time.perf_counter()
        result = ptr.risk_study(DATA / "letor4-mq2008", baseline=25, baselines=FEATURES,
                                objectives=["urisk", "tsaro", "tfaro", "georisk"], alphas=[5, 10, 20],
                                rounds=rounds, params=MQ_PARAMS, workers=n, progress=False)
        wall = time.perf_counter() - started
        if first is None:
            first = (wall, result)
        else:  # the same results whatever the worker count
            pd.testing.assert_frame_equal(result.per_query, first[1].per_query)
            pd.testing.assert_frame_equal(result.models, first[1].models)
        res = result.resources
        rows.append({"workers": n, "fits": len(res), "wall s": wall, "ratio to 1st": wall / first[0],
                     "fit s (sum)": res["seconds"].sum(), "peak MB/worker (max)": res["peak_rss_mb"].max()})
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def big_file(path: Path, rows: int, features: int, docs: int = 100, seed: int = 0) -> None:
    """A LETOR file of ``rows`` rows (``docs`` per query); feature 1 is a noisy copy of the label."""
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for start in range(0, rows, 100_000):
            n = min(100_000, rows - start)
            q = (start + np.arange(n)) // docs + 1
            y = rng.integers(0, 3, n)
            x = rng.random((n, features))
            x[:, 0] = y + rng.normal(0, 1.5, n)
            cols = " ".join(f"{j + 1}:%.4f" for j in range(features))
            lines = [f"{y[i]} qid:{q[i]} " + cols % tuple(x[i]) + "\n" for i in range(n)]
            fh.write("".join(lines))


def big(rows: int, features: int, rounds: int, workers: int) -> pd.DataFrame:
    """The 1M-row study: wall time, per-task time and each worker's peak memory."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.txt"
        started = time.perf_counter()
        big_file(path, rows, features)
        print(f"wrote {rows:,} rows x {features} features in {time.perf_counter() - started:.0f} s "
              f"({path.stat().st_size / 1e6:.0f} MB)", flush=True)
        started = time.perf_counter()
        result = ptr.risk_study(path, folds=3, baseline=1, objectives=["urisk"], alphas=[5], rounds=rounds,
                                workers=workers, progress=False)
        wall = time.perf_counter() - started
    res = result.resources
    print(f"study: {len(res)} fits on {workers} workers in {wall:.0f} s (fits {res['seconds'].sum():.0f} s "
          f"in all); peak resident memory per worker up to {res['peak_rss_mb'].max():.0f} MB", flush=True)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=100, help="MQ2008: trees per model (default 100)")
    ap.add_argument("--big-rows", type=int, default=1_000_000)
    ap.add_argument("--big-features", type=int, default=20)
    ap.add_argument("--big-rounds", type=int, default=20)
    ap.add_argument("--big-workers", type=int, default=2)
    ap.add_argument("--skip-mq", action="store_true")
    ap.add_argument("--skip-big", action="store_true")
    args = ap.parse_args()
    cores = len(os.sched_getaffinity(0))
    workers = [n for n in args.workers if n <= cores]
    if len(workers) < len(args.workers):
        print(f"skipped {sorted(set(args.workers) - set(workers))} workers: this machine has {cores} cores")
    print(f"{cores} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
    if not args.skip_mq:
        print(mq2008(workers, args.rounds).round(2).to_string(index=False), flush=True)
    if not args.skip_big:
        res = big(args.big_rows, args.big_features, args.big_rounds, min(args.big_workers, cores))
        print(res.round(1).to_string(index=False))


if __name__ == "__main__":
    main()
