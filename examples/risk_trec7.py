"""Multi-baseline risk over 19 Terrier runs on TREC-7, in the style of Dinçer et al. 2016, Table 6.

For ERR@20 (the measure of the paper's Table 6) and nDCG@20 over the 50 TREC-7 ad hoc topics:
mean effectiveness, URisk and TRisk against one
baseline (Terrier's BM25 on the stemmed index), T*Risk (TRisk against the per-topic MEAN of all 19
runs), then ZRisk and GeoRisk with every run as a baseline, at alpha = 0, 1, 5, 10, 20 (rank in brackets).

Run: ``python examples/risk_trec7.py`` (reads $PYTERRIER_RISK_DATA, default ../shared/data).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from ir_measures import ERR, nDCG

import pyterrier_risk as pr

DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
FOLDER = DATA / "trec7-adhoc-terrier-runs"
BASELINE = "stem-stop_BM25b0.75_1"
ALPHAS = (0, 1, 5, 10, 20)
BASES = (ERR @ 20, nDCG @ 20)


def with_rank(values: pd.Series, decimals: int) -> pd.Series:
    """'value (rank)' strings, rank 1 = highest value; NaN (the baseline against itself) as '-'."""
    ranks = values.rank(ascending=False, method="min")
    return pd.Series(
        {k: "-" if pd.isna(v) else f"{v:.{decimals}f} ({int(ranks[k])})" for k, v in values.items()}
    )


def main() -> None:
    if not FOLDER.is_dir():
        raise SystemExit(f"data not found: {FOLDER} (set PYTERRIER_RISK_DATA to the shared/data folder)")
    runs = {}
    for path in sorted((FOLDER / "runs").glob("*.run.gz")):
        run = pr.read_run(path)
        runs[run["name"].iloc[0]] = run
    qrels = pr.read_qrels(FOLDER / "qrels.adhoc.351-400.txt")
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": ""})

    for base in BASES:
        report(base, runs, topics, qrels)


def report(base, runs: dict[str, pd.DataFrame], topics: pd.DataFrame, qrels: pd.DataFrame) -> None:
    """Print one 2016-Table-6-style table per alpha for one base measure."""
    measures = [base]
    for a in ALPHAS:
        measures += [
            pr.URisk(base, alpha=a, baseline=BASELINE),
            pr.TRisk(base, alpha=a, baseline=BASELINE),
            pr.TRisk(base, alpha=a, baseline="mean"),
            pr.ZRisk(base, alpha=a),
            pr.GeoRisk(base, alpha=a),
        ]
    res = pr.Experiment(runs, topics, qrels, measures).set_index("name")

    print(
        f"TREC-7 ad hoc, 19 Terrier runs x 50 topics, base measure {base}; URisk/TRisk baseline = {BASELINE}"
    )
    print("(T*Risk: baseline = per-topic mean of the 19 runs; ZRisk/GeoRisk: all 19 runs are baselines)\n")
    order = res[repr(base)].sort_values(ascending=False).index
    for a in ALPHAS:
        table = pd.DataFrame(
            {
                repr(base): with_rank(res[repr(base)], 4),
                "URisk": with_rank(res[repr(pr.URisk(base, alpha=a, baseline=BASELINE))], 4),
                "TRisk": with_rank(res[repr(pr.TRisk(base, alpha=a, baseline=BASELINE))], 3),
                "T*Risk": with_rank(res[repr(pr.TRisk(base, alpha=a, baseline="mean"))], 3),
                "ZRisk": with_rank(res[repr(pr.ZRisk(base, alpha=a))], 3),
                "GeoRisk": with_rank(res[repr(pr.GeoRisk(base, alpha=a))], 4),
            }
        ).loc[order]
        print(f"alpha = {a}   (2016 Table 6 style; value (rank); the baseline has no TRisk against itself)")
        print(table.to_string())
        print()

if __name__ == "__main__":
    main()
