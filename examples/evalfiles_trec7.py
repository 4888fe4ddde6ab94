"""Risk from evaluation files equals risk from the runs: TREC-7, 19 Terrier runs, gdeval.pl -c output.

The shared data ship gdeval.pl's per-topic nDCG@10/@20 and ERR@10/@20 of the 19 runs
(``reference_eval/gdeval_c.csv``, 5 decimals). This script computes URisk and TRisk (against
Terrier's BM25 on the stemmed index), ZRisk and GeoRisk (all runs as baselines) at alpha = 0, 1, 5,
10 twice: from that file (``pyterrier_risk.data.read_gdeval`` + ``eval_matrix``), and from the runs
evaluated by ir_measures with gdeval's measures (nDCG with gains 2^label - 1; ERR@k, which
ir_measures computes with gdeval.pl itself). It prints the largest absolute difference per measure
and risk function; the per-topic difference is at most half a unit of the 5th decimal.

Run: ``python examples/evalfiles_trec7.py`` (reads $PYTERRIER_RISK_DATA, default ../shared/data).
"""

from __future__ import annotations

import os
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pyterrier as pt
from ir_measures import ERR, nDCG

import pyterrier_risk as pr
from pyterrier_risk.data import eval_matrix, read_gdeval

DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
FOLDER = DATA / "trec7-adhoc-terrier-runs"
BASELINE = "stem-stop_BM25b0.75_1"
ALPHAS = (0, 1, 5, 10)
GAINS = {0: 0, 1: 1, 2: 3, 3: 7, 4: 15}  # gdeval's 2^label - 1
MEASURES = {}
for k in (10, 20):
    MEASURES[f"nDCG(dcg='exp-log2')@{k}"], MEASURES[f"ERR@{k}"] = nDCG(gains=GAINS) @ k, ERR @ k


def per_topic_from_runs() -> pd.DataFrame:
    """Tidy per-topic values (name, qid, measure, value) of the 19 runs, by ir_measures."""
    qrels = pr.read_qrels(FOLDER / "qrels.adhoc.351-400.txt")
    qrels = qrels.rename(columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"})
    label = {repr(m): name for name, m in MEASURES.items()}
    rows = []
    for path in pt.tqdm(sorted((FOLDER / "runs").glob("*.run.gz")), desc="evaluating runs"):
        run = pr.read_run(path)
        name = run["name"].iloc[0]
        run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})
        for m in ir_measures.iter_calc(list(MEASURES.values()), qrels, run):
            rows.append((name, str(m.query_id), label[repr(m.measure)], float(m.value)))
    return pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])


def risk_values(matrix: pd.DataFrame, alpha: float) -> dict[str, np.ndarray]:
    """URisk and TRisk of every run against BASELINE, ZRisk and GeoRisk of every run."""
    others = [n for n in matrix.index if n != BASELINE]
    base = matrix.loc[BASELINE]
    return {
        "URisk": np.array([pr.urisk(matrix.loc[n], base, alpha) for n in others]),
        "TRisk": np.array([pr.trisk(matrix.loc[n], base, alpha).trisk for n in others]),
        "ZRisk": pr.zrisk(matrix, alpha).to_numpy(),
        "GeoRisk": pr.georisk(matrix, alpha).to_numpy(),
    }


def main() -> None:
    if not FOLDER.is_dir():
        raise SystemExit(f"data not found: {FOLDER} (set PYTERRIER_RISK_DATA to the shared/data folder)")
    reference = read_gdeval(FOLDER / "reference_eval" / "gdeval_c.csv")
    from_runs = per_topic_from_runs()
    rows = []
    for measure in MEASURES:
        ref = eval_matrix(reference, measure)
        ours = eval_matrix(from_runs, measure).loc[ref.index, ref.columns]
        row = {"measure": measure, "per topic": np.abs(ours - ref).to_numpy().max()}
        for alpha in ALPHAS:
            got, expected = risk_values(ours, alpha), risk_values(ref, alpha)
            for kind, values in got.items():
                row[kind] = max(row.get(kind, 0.0), float(np.abs(values - expected[kind]).max()))
        rows.append(row)
    table = pd.DataFrame(rows).set_index("measure")
    print(f"Largest |from runs - from gdeval file| over 19 runs x 50 topics, alpha in {ALPHAS}:")
    print(table.to_string(float_format=lambda v: f"{v:.1e}"))


if __name__ == "__main__":
    main()
