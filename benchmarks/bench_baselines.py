"""Baseline sensitivity on a large matrix: ``baseline_sensitivity`` against the pair-by-pair way.

A synthetic ``--runs`` × ``--topics`` matrix (a shared topic difficulty plus per-run noise). Timed in
the same process: ``ptr.baseline_sensitivity`` (every run and MEAN/MEDIAN/MAX as the baseline, the
rankings, τ for every pair of baselines, Friedman, correlations, the bias test, PCA), and the
reference, the straightforward tables: ``ptr.urisk`` and ``ptr.trisk`` called for every (system,
baseline) pair and ``scipy.stats.kendalltau`` for every pair of baselines, on ``--sample`` of the
baselines and scaled up to all of them. Both URisk tables are compared on the sample.

    python benchmarks/bench_baselines.py                       # 100 runs × 10,000 topics
    python benchmarks/bench_baselines.py --runs 30 --topics 1000
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from scipy import stats

import pyterrier_risk as ptr


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--alpha", type=float, default=5.0)
    ap.add_argument("--sample", type=int, default=10, help="baselines timed by the reference")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    values = np.clip(rng.random(args.topics) + 0.2 * rng.standard_normal((args.runs, args.topics)), 0, None)
    m = pd.DataFrame(values, index=[f"run{i}" for i in range(args.runs)])

    t = time.perf_counter()
    res = ptr.baseline_sensitivity(m, alpha=args.alpha)
    ours = time.perf_counter() - t

    sample = list(m.index[: args.sample])
    t = time.perf_counter()
    table = {b: [ptr.urisk(m.loc[s], m.loc[b], args.alpha) for s in m.index] for b in sample}
    for b in sample:
        for s in m.index:
            ptr.trisk(m.loc[s], m.loc[b], args.alpha)
    for k, a in enumerate(sample):
        for b in sample[k + 1 :]:
            keep = [s for s in m.index if s not in (a, b)]
            stats.kendalltau(res.urisk.loc[keep, a], res.urisk.loc[keep, b])
    sampled = time.perf_counter() - t
    baselines = res.urisk.shape[1]
    # URisk/TRisk calls grow with the baselines, kendalltau calls with their pairs
    reference = sampled * baselines / len(sample)
    np.testing.assert_allclose(pd.DataFrame(table, index=m.index).to_numpy(), res.urisk[sample].to_numpy())

    print(f"{args.runs} runs x {args.topics} topics, alpha {args.alpha:g}, {baselines} baselines")
    print(f"  baseline_sensitivity             {ours:8.2f} s")
    print(f"  pair by pair ({len(sample)} baselines)      {sampled:8.2f} s -> {reference:8.2f} s for all "
          f"{baselines} (kendalltau pairs counted linearly: a lower bound)")
    print(f"  ratio reference/ours             {reference / ours:8.2f}")
    f = res.friedman
    print(f"  Friedman chi2 {f.statistic:.1f}, p {f.p_value:.3g}, W {f.kendall_w:.3f}; "
          f"explained {', '.join(f'{v:.1%}' for v in res.explained)}")


if __name__ == "__main__":
    main()
