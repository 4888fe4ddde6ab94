"""How far one machine goes: GeoRisk and U-CRO on MSLR-WEB30K-sized training sets, against native lambdarank.

Each (size, kind) pair trains in its own process, so that its peak memory (``VmHWM``, the resident high-
water mark) is its own: once after building the data set, and again for training alone (the mark is
restarted after the raw features are freed). Every process builds the same synthetic MSLR-like set (136
float32 features, graded labels 0..4, 120 documents per query), constructs the LightGBM Dataset, trains a
warm-up round (numba compiles or loads its kernels there), then times ``--rounds`` rounds (the median
per-round time is reported), with its ratio to native lambdarank at the same size, measured in the same
run.

    python benchmarks/bench_scale.py                          # 1M and 4M rows, 2 threads
    python benchmarks/bench_scale.py --rows 1000000 --rounds 5 --threads 1 2
    python benchmarks/bench_scale.py --one urisk 4000000 2 10  # one process (what the driver runs)

MSLR-WEB30K has 3.77M rows and 136 features over 31,531 queries; 4M rows here is 33,334 queries.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

DOCS = 120
FEATURES = 136
KINDS = ("native", "urisk", "georisk")


def synthetic(rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X float32, y, group) of an MSLR-like set, built in chunks so that float64 never holds it all."""
    rng = np.random.default_rng(seed)
    n_queries = rows // DOCS
    n = n_queries * DOCS
    X = np.empty((n, FEATURES), dtype=np.float32)
    signal = np.empty(n, dtype=np.float64)
    w = np.array([1.0, 0.8, 0.6, 0.4, 0.2])
    for start in range(0, n, 1_000_000):
        stop = min(n, start + 1_000_000)
        X[start:stop] = rng.random((stop - start, FEATURES), dtype=np.float32)
        signal[start:stop] = X[start:stop, :5] @ w + rng.normal(0, 0.6, stop - start)
    y = np.digitize(signal, np.quantile(signal, [0.5, 0.75, 0.9, 0.97])).astype(np.int64)
    return X, y, np.full(n_queries, DOCS)


def _reset_peak() -> bool:
    """Restart the resident high-water mark at the current size (Linux ``clear_refs``); False if refused."""
    try:
        with open("/proc/self/clear_refs", "w") as refs:
            refs.write("5")
    except OSError:
        return False
    return True


def _peak_mib() -> float:
    """This process's resident high-water mark in MiB (Linux)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def one(kind: str, rows: int, threads: int, rounds: int, alpha: float) -> dict:
    """Train ``kind`` in this process; time per round (after one warm-up round) and peak memory."""
    import lightgbm as lgb

    from pyterrier_risk.learning import objective

    t0 = time.perf_counter()
    X, y, group = synthetic(rows)
    baseline = X[:, 0].astype(np.float64)
    baselines = X[:, :4].astype(np.float64)
    ds = lgb.Dataset(X, y, group=group, params={"verbose": -1, "max_bin": 255}).construct()
    del X
    build = time.perf_counter() - t0
    build_peak = _peak_mib()
    reset = _reset_peak()
    if kind == "native":
        obj = "lambdarank"
    elif kind == "urisk":
        obj = objective("urisk", alpha=alpha, baseline=baseline, num_threads=threads)
    else:
        obj = objective("georisk", alpha=alpha, baselines=baselines, num_threads=threads)
    params = {"objective": obj, "num_leaves": 31, "learning_rate": 0.1, "min_data_in_leaf": 20,
              "verbose": -1, "num_threads": threads}  # fmt: skip
    stamps = [time.perf_counter()]
    lgb.train(params, ds, 1 + rounds, callbacks=[lambda env: stamps.append(time.perf_counter())])
    warm = stamps[1] - stamps[0]
    per_round = float(np.median(np.diff(stamps[1:])))
    return {"kind": kind, "rows": len(y), "queries": len(group), "threads": threads, "build_s": build,
            "first_round_s": warm, "s_per_round": per_round, "build_peak_mib": build_peak,
            "peak_mib": _peak_mib() if reset else float("nan")}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 4_000_000])
    ap.add_argument("--threads", type=int, nargs="+", default=[2])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--alpha", type=float, default=5.0)
    ap.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    ap.add_argument("--one", nargs=4, metavar=("KIND", "ROWS", "THREADS", "ROUNDS"),
                    help="run one configuration in this process and print its JSON")
    args = ap.parse_args()
    if args.one:
        kind, rows, threads, rounds = args.one
        print(json.dumps(one(kind, int(rows), int(threads), int(rounds), args.alpha)))
        return
    results = []
    for rows in args.rows:
        for threads in args.threads:
            for kind in args.kinds:
                cmd = [sys.executable, __file__, "--alpha", str(args.alpha),
                       "--one", kind, str(rows), str(threads), str(args.rounds)]  # fmt: skip
                out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                results.append(json.loads(out.strip().splitlines()[-1]))
                r = results[-1]
                print(f"{kind:<8} {r['rows']:>9,} rows {threads} thr: {r['s_per_round']:.2f} s/round, "
                      f"build {r['build_s']:.1f} s, first round {r['first_round_s']:.1f} s, "
                      f"peak {r['build_peak_mib']:,.0f} MiB building, {r['peak_mib']:,.0f} MiB training",
                      flush=True)  # fmt: skip
    print(f"\nalpha={args.alpha}, {args.rounds} timed rounds after one warm-up round")
    print("| rows | threads | kind | s/round | / native | peak MiB (building) | peak MiB (training) |")
    print("|---:|---:|---|---:|---:|---:|---:|")
    for r in results:
        native = next(x for x in results if x["kind"] == "native" and x["rows"] == r["rows"]
                      and x["threads"] == r["threads"]) if "native" in args.kinds else None  # fmt: skip
        ratio = f"{r['s_per_round'] / native['s_per_round']:.2f}" if native else "-"
        print(f"| {r['rows']:,} | {r['threads']} | {r['kind']} | {r['s_per_round']:.2f} | {ratio} | "
              f"{r['build_peak_mib']:,.0f} | {r['peak_mib']:,.0f} |")


if __name__ == "__main__":
    main()
