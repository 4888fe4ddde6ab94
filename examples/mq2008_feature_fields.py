"""Which MQ2008 feature scores which field? The evidence behind docs/letor.md, "Which feature is BM25?".

For features 21–40 of LETOR 4.0 MQ2008 (S1–S5, 15,211 rows): the share of rows on which the feature is
0 exactly where a field's term frequency (features 1–5: body, anchor, title, URL, whole document) is 0,
and the mean within-query Spearman correlation of a few features with the fields' TF and TF·IDF.

    PYTERRIER_RISK_DATA=../shared/data python examples/mq2008_feature_fields.py
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from pyterrier_risk.data import read_letor

FIELDS = {1: "body", 2: "anchor", 3: "title", 4: "URL", 5: "whole"}


def mean_spearman(frame: pd.DataFrame, a: int, b: int) -> float:
    """The mean over queries of the Spearman correlation of features a and b (queries where both vary)."""
    ranks = frame[[a, b]].groupby(frame["qid"]).rank()
    values = []
    for _, g in ranks.groupby(frame["qid"]):
        if g[a].nunique() > 1 and g[b].nunique() > 1:
            values.append(np.corrcoef(g[a], g[b])[0, 1])
    return float(np.mean(values))


def main() -> None:
    folder = Path(os.environ.get("PYTERRIER_RISK_DATA", "../shared/data")) / "letor4-mq2008"
    parts = [read_letor(folder / f"S{k}.txt.gz", n_features=46) for k in range(1, 6)]
    x = np.vstack([p.X for p in parts])
    frame = pd.DataFrame(x, columns=range(1, 47)).assign(qid=np.concatenate([p.qid for p in parts]))
    print(f"{len(x)} rows; share of rows where (feature == 0) == (TF of the field == 0):")
    print("feature " + " ".join(f"{name:>7}" for name in FIELDS.values()))
    for f in range(21, 41):
        agree = [float(np.mean((x[:, f - 1] == 0) == (x[:, k - 1] == 0))) for k in FIELDS]
        print(f"{f:7d} " + " ".join(f"{a:7.3f}" for a in agree))
    print("mean within-query Spearman correlation with the fields' TF (1-5) and the anchor's TF*IDF (12):")
    for f in (21, 25, 29, 33, 37):
        tf = " ".join(f"TF {FIELDS[k]} {mean_spearman(frame, f, k):5.2f}" for k in FIELDS)
        print(f"{f:7d} {tf}  TF*IDF anchor {mean_spearman(frame, f, 12):5.2f}")


if __name__ == "__main__":
    main()
