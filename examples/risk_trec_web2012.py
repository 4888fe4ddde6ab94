"""URisk and TRisk of the TREC Web 2012 official baseline runs, in the style of Dinçer et al. 2014, Table 2.

The seven other Indri baseline runs published by the TREC 2013/14 Web track organisers are compared with
the official risk baseline ``indri-rm-cata-filtered`` on ERR@20 and on nDCG@20 with gdeval's 2^rel - 1
gains, at alpha = 0, 1, 5, 10; TRisk's p-value is two-sided (Student's t, 49 degrees of freedom).
A last table gives T*Risk (TRisk against the per-topic MEAN of the eight runs, ECIR 2014).

Run: ``python examples/risk_trec_web2012.py`` (reads $PYTERRIER_RISK_DATA, default ../shared/data).
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from ir_measures import ERR, nDCG

import pyterrier_risk as pr

DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
FOLDER = DATA / "trec-web-2012-risk"
BASELINE = "indri-rm-cata-filtered"
ALPHAS = (0, 1, 5, 10)
GDEVAL_NDCG20 = nDCG(gains={-2: 0, 0: 0, 1: 1, 2: 3, 3: 7, 4: 15}) @ 20


def table2(results: pd.DataFrame, base) -> pd.DataFrame:
    """One row per run; (alpha, URisk | TRisk | p-value) columns, as 2014 Table 2."""
    cols = {}
    for a in ALPHAS:
        u = pr.URisk(base, alpha=a, baseline=BASELINE)
        t = pr.TRisk(base, alpha=a, baseline=BASELINE)
        cols[(f"alpha={a}", "URisk")] = results[repr(u)]
        cols[(f"alpha={a}", "TRisk")] = results[repr(t)]
        cols[(f"alpha={a}", "p-value")] = results[f"{t!r} p-value"]
    out = pd.DataFrame(cols).drop(index=BASELINE)
    return out.sort_values((f"alpha={ALPHAS[0]}", "URisk"), ascending=False)


def main() -> None:
    if not FOLDER.is_dir():
        raise SystemExit(f"data not found: {FOLDER} (set PYTERRIER_RISK_DATA to the shared/data folder)")
    runs = {}
    for path in sorted((FOLDER / "runs").glob("*.run.gz")):
        run = pr.read_run(path)
        runs[run["name"].iloc[0]] = run
    qrels = pr.read_qrels(FOLDER / "qrels.web.151-200.txt")
    topics = pd.DataFrame({"qid": sorted(qrels["qid"].unique()), "query": ""})

    bases = [ERR @ 20, GDEVAL_NDCG20]
    measures = list(bases)
    for base in bases:
        for a in ALPHAS:
            measures += [
                pr.URisk(base, alpha=a, baseline=BASELINE),
                pr.TRisk(base, alpha=a, baseline=BASELINE),
            ]
            measures += [pr.TRisk(base, alpha=a, baseline="mean")]
    results = pr.Experiment(runs, topics, qrels, measures).set_index("name")

    with pd.option_context(
        "display.width", 200, "display.max_columns", 20, "display.float_format", "{:.4f}".format
    ):
        print(f"Mean effectiveness over the 50 topics (gdeval -c), baseline = {BASELINE}")
        print(results[[repr(b) for b in bases]].rename(columns={repr(GDEVAL_NDCG20): "nDCG@20 (gdeval)"}))
        for base, label in [(ERR @ 20, "ERR@20"), (GDEVAL_NDCG20, "nDCG@20 (2^rel-1 gains)")]:
            print(f"\nURisk / TRisk / p-value on {label} against {BASELINE} (2014 Table 2 style)")
            print(table2(results, base).to_string())
            star = pd.DataFrame(
                {f"alpha={a}": results[repr(pr.TRisk(base, alpha=a, baseline="mean"))] for a in ALPHAS}
            )
            print(f"\nT*Risk on {label}: TRisk against the per-topic MEAN of the 8 runs (ECIR 2014)")
            print(star.sort_values("alpha=0", ascending=False).to_string())


if __name__ == "__main__":
    main()
