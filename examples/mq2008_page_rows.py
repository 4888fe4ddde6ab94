"""docs/results_mq2008.md's Δ rows of the default recipe, from a ``pyterrier-risk learn`` study's files.

Each model against LambdaMART of the same seed, the 784 test queries pooled (per-query differences averaged
over the seeds): NDCG@10 Δ% and the paired t-test; against the BM25 feature (F25) ΔRisk (t-test) and
ΔLosses>20% (U-CRO, T-SARO, T-FARO); among the multiple baselines ΔRisk against their per-query mean
(t-test) and ΔGeoRisk at α_e = α and at α_e = 1 (mean over the seeds; T*-FARO, GeoRisk).

    pyterrier-risk learn DATA/letor4-mq2008 --baseline 25 --baselines 15 21 25 30 35 40 --alpha 5 10 20 \\
        --seeds 1 2 3 --rounds 150 --param learning_rate=0.05 num_leaves=15 min_data_in_leaf=50 \\
        feature_fraction=0.8 --out mq2008_150
    python examples/mq2008_page_rows.py mq2008_150/per_query.csv
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from pyterrier_risk import georisk


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("per_query", type=Path, help="a study's per_query.csv (its settings.json beside it)")
    args = ap.parse_args()
    pq = pd.read_csv(args.per_query, comment="#", dtype={"qid": str})
    settings = json.loads(args.per_query.with_name("settings.json").read_text())
    ref = pq[(pq["objective"] == "lambdarank") & (pq["seed"] == pq["seed"].min())].set_index("qid")
    bm25 = ref[f"base:{settings['baseline']['name']}"].to_numpy()
    systems = ref[[f"base:{b['name']}" for b in settings["baselines"]]].to_numpy()

    def models(objective: str, alpha: float) -> np.ndarray:  # queries x seeds
        rows = pq[(pq["objective"] == objective) & (pq["alpha"] == alpha)]
        return rows.pivot_table(index="qid", columns="seed", values="ndcg").reindex(ref.index).to_numpy()

    def geo(m: np.ndarray, a: float) -> float:
        return float(np.mean([georisk(np.vstack([m[:, s], systems.T]), a)[0] for s in range(m.shape[1])]))

    def loss(base: np.ndarray, m: np.ndarray) -> np.ndarray:
        return np.maximum(0, base[:, None] - m).mean(axis=1)

    native = models("lambdarank", 0.0)
    risk_models = pq[pq["objective"] != "lambdarank"].groupby(["objective", "alpha"], sort=False)
    for (objective, alpha), _ in risk_models:
        m = models(objective, alpha)
        d = m.mean(axis=1) - native.mean(axis=1)
        cells = [objective, f"{alpha:g}",
                 f"{100 * (m.mean() / native.mean() - 1):+.2f}% ({stats.ttest_1samp(d, 0).pvalue:.2g})"]
        for base in (bm25, systems.mean(axis=1)):
            r = loss(base, m) - loss(base, native)
            cells.append(f"ΔRisk {r.mean():+.4f} ({stats.ttest_1samp(r, 0).pvalue:.2g})")
        l20 = ((bm25[:, None] > 0) & (m < 0.8 * bm25[:, None])).mean(axis=1).sum()
        l20n = ((bm25[:, None] > 0) & (native < 0.8 * bm25[:, None])).mean(axis=1).sum()
        cells.append(f"ΔLosses>20% {l20 - l20n:+.1f}")
        at_alpha, at_one = geo(m, alpha) - geo(native, alpha), geo(m, 1) - geo(native, 1)
        cells.append(f"ΔGeoRisk α_e=α {at_alpha:+.4f}, α_e=1 {at_one:+.4f}")
        print(" | ".join(cells))


if __name__ == "__main__":
    main()
