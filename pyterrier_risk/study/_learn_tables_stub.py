"""TEMPORARY stand-in for helper `tables`' ``_learn_tables`` (STUDY_API.md); removed after its merge."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats


def learner_table(per_query, *, single, multiple, eval_alpha, reference="lambdarank", test="t",
                  correction="holm") -> pd.DataFrame:
    mean = per_query.groupby(["objective", "alpha", "qid"], sort=False).mean(numeric_only=True).reset_index()
    ref = mean[mean["objective"] == reference].set_index("qid")
    rows = []
    for (objective, alpha), g in mean.groupby(["objective", "alpha"], sort=False):
        g = g.set_index("qid").loc[ref.index]
        row = {"objective": objective, "alpha": alpha, "NDCG@10": g["ndcg"].mean()}
        d = g["ndcg"] - ref["ndcg"]
        row["p"] = float(stats.ttest_1samp(d, 0).pvalue) if np.any(d != 0) else 1.0
        if single is not None:
            row["Risk"] = float(np.maximum(0, g[f"base:{single}"] - g["ndcg"]).mean())
        rows.append(row)
    return pd.DataFrame(rows)


def convergence_table(curves, *, shares=(0.9, 0.95, 0.99)) -> pd.DataFrame:
    def reach(c, share):
        v = c["vali_ndcg"].to_numpy()
        return int(np.argmax(v >= share * v[-1]) + 1)

    rows = []
    for (objective, alpha), g in curves.groupby(["objective", "alpha"], sort=False):
        per = g.groupby(["fold", "seed"])
        rows.append({"objective": objective, "alpha": alpha,
                     **{f"{s:.0%}": float(np.mean([reach(c, s) for _, c in per])) for s in shares}})
    return pd.DataFrame(rows)


def kendall_bins_table(kendall, *, bins=10) -> pd.DataFrame:
    rows = []
    for (objective, alpha), g in kendall.groupby(["objective", "alpha"], sort=False):
        d = g["distance"].dropna().to_numpy()
        counts = np.bincount(np.minimum((d * bins).astype(int), bins - 1), minlength=bins) / max(len(d), 1)
        rows.append({"objective": objective, "alpha": alpha, **{f"bin{k}": c for k, c in enumerate(counts)}})
    return pd.DataFrame(rows)


def plot_learner_risk_gain(per_query, *, single, path=None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    if path is not None:
        fig.savefig(path)
    plt.close(fig)
    return fig
