"""UE-normalised nDCG and MAP on the 25 real systems of LETOR 4.0 MQ2008-agg.

Reproduces the analysis of Feng & Karmaker Santu (IP&M 2023), Tables 3-9 and 15-21, on our data:
nDCG@k vs DCG^UE (V1, V2) and AP@k vs MSP^UE (V1, V2) at k = 5, 10, 15, 20, 30; Kendall's tau
between the system rankings they induce; paired t-tests between every pair of systems (how many
pairs differ significantly, and on how many the original and UE measures disagree); all of this on
all queries and on the paper's *uninformative* and *ideal* query subsets (§6.3.2).

Setting (as in the paper): the candidate pool of a topic is its judged documents (``pool='qrels'``),
nDCG uses the paper's gain 2^R - 1 (``gains={0: 0, 1: 1, 2: 3}``), AP counts labels >= 1 as relevant.
MSP^UE is reported with the exact REB (default) and with the paper's ``K (m/n)^2`` (``reb='paper'``).
Topics without any relevant document (220 of 784) score 0 under every measure and are left out.

    python examples/ue_mq2008.py [--frac 0.5]

Data: ``$PYTERRIER_RISK_DATA/letor4-mq2008-agg/derived_trec`` (qrels + 25 runs).
"""

from __future__ import annotations

import argparse
import itertools
import os
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import AP, nDCG
from scipy import stats

from pyterrier_risk import UE, ue_bounds

DATA = Path(os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
CUTOFFS = (5, 10, 15, 20, 30)
PAPER_GAINS = {0: 0, 1: 1, 2: 3}


def load(folder: Path) -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    qrels = pd.read_csv(
        folder / "qrels.mq2008agg.txt", sep=r"\s+", names=["query_id", "it", "doc_id", "relevance"], dtype=str
    ).drop(columns="it")
    qrels["relevance"] = qrels["relevance"].astype(int)
    runs = {}
    for path in sorted((folder / "runs").glob("ranker*.run.gz")):
        cols = ["query_id", "q0", "doc_id", "rank", "score", "tag"]
        run = pd.read_csv(path, sep=r"\s+", names=cols, dtype=str)
        runs[path.name.split(".")[0]] = run[["query_id", "doc_id"]].assign(score=run["score"].astype(float))
    return qrels, runs


def measure_sets() -> dict[str, dict[int, object]]:
    out: dict[str, dict[int, object]] = {}
    for k in CUTOFFS:
        ndcg, ap = nDCG(gains=PAPER_GAINS) @ k, AP @ k
        for name, m in {
            "nDCG": ndcg,
            "DCG^UE V1": UE(ndcg),
            "DCG^UE V2": UE(ndcg, variant="V2"),
            "AP": ap,
            "MSP^UE V1": UE(ap),
            "MSP^UE V2": UE(ap, variant="V2"),
            "MSP^UE V1 (paper REB)": UE(ap, reb="paper"),
            "MSP^UE V2 (paper REB)": UE(ap, variant="V2", reb="paper"),
            "DCG^UE V2 (pool=run)": UE(ndcg, variant="V2", pool="run"),
            "MSP^UE V2 (pool=run)": UE(ap, variant="V2", pool="run"),
        }.items():
            out.setdefault(name, {})[k] = m
    return out


def per_query(qrels: pd.DataFrame, runs: dict[str, pd.DataFrame], sets) -> pd.DataFrame:
    """Long table: system, name, k, query_id, value."""
    lookup = {m: (name, k) for name, by_k in sets.items() for k, m in by_k.items()}
    evaluator = ir_measures.evaluator(list(lookup), qrels)
    rows = []
    for system, run in runs.items():
        for metric in evaluator.iter_calc(run):
            name, k = lookup[metric.measure]
            rows.append((system, name, k, metric.query_id, metric.value))
    return pd.DataFrame(rows, columns=["system", "name", "k", "query_id", "value"])


def query_subsets(qrels: pd.DataFrame, table: pd.DataFrame, frac: float) -> dict[str, dict[str, pd.Index]]:
    """Uninformative / ideal topics (§6.3.2): smallest / largest (mean real score - expected score).

    The mean real score is over all systems and cutoffs, the expected score (REB in the measure's
    units) over cutoffs. nDCG subsets drive the DCG^UE columns, AP subsets the MSP^UE columns.
    """
    subsets = {}
    for base, kwargs in [("nDCG", {"gains": PAPER_GAINS}), ("AP", {})]:
        rebs = [
            ue_bounds(qrels["relevance"], qrels["query_id"], measure=base, cutoff=k, **kwargs).reb
            for k in CUTOFFS
        ]
        expected = pd.concat(rebs, axis=1).mean(axis=1)
        real = table[table["name"] == base].groupby("query_id")["value"].mean()
        diff = (real - expected.reindex(real.index)).sort_values(kind="stable")
        size = int(round(frac * len(diff)))
        subsets[base] = {
            "all": diff.index,
            "uninformative": diff.index[:size],  # systems barely beat (or lose to) a random ordering
            "ideal": diff.index[::-1][:size],  # systems beat a random ordering by the widest margin
        }
    return subsets


def system_means(table: pd.DataFrame, queries: pd.Index) -> pd.DataFrame:
    """Mean over the given topics: index (name, k), columns systems."""
    sub = table[table["query_id"].isin(queries)]
    return sub.groupby(["name", "k", "system"])["value"].mean().unstack("system")


def significant_pairs(table: pd.DataFrame, queries: pd.Index, name: str, k: int) -> set[tuple[str, str]]:
    """System pairs whose paired t-test over the topics gives p < 0.05 (vectorised over pairs)."""
    wide = table[(table["name"] == name) & (table["k"] == k) & table["query_id"].isin(queries)]
    wide = wide.pivot(index="query_id", columns="system", values="value")
    pairs = list(itertools.combinations(range(wide.shape[1]), 2))
    x = wide.to_numpy()
    diff = x[:, [i for i, _ in pairs]] - x[:, [j for _, j in pairs]]
    n = len(x)
    sd = diff.std(axis=0, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = diff.mean(axis=0) / (sd / np.sqrt(n))
    p = 2 * stats.t.sf(np.abs(t), df=n - 1)
    return {(wide.columns[i], wide.columns[j]) for (i, j), pv in zip(pairs, p, strict=True) if pv < 0.05}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frac", type=float, default=0.5, help="query subset size (paper, MQ2007: 0.5)")
    args = parser.parse_args()
    qrels, runs = load(DATA / "letor4-mq2008-agg" / "derived_trec")
    with_rel = qrels.groupby("query_id")["relevance"].max()
    qrels = qrels[qrels["query_id"].isin(with_rel.index[with_rel > 0])]
    sets = measure_sets()
    table = per_query(qrels, runs, sets)
    subsets = query_subsets(qrels, table, args.frac)
    n_topics = qrels["query_id"].nunique()
    n_sub = len(subsets["nDCG"]["uninformative"])
    print(f"MQ2008-agg: {len(runs)} systems, {n_topics} topics with a relevant document")
    print(f"pool = judged documents unless noted; {n_sub} uninformative / ideal topics (frac={args.frac})\n")

    means = system_means(table, subsets["nDCG"]["all"])
    print("Mean over the 25 systems [min, max across systems], all topics")
    print(f"{'measure':22s}" + "".join(f"{'@' + str(k):>21s}" for k in CUTOFFS))
    for name in sets:
        cells = []
        for k in CUTOFFS:
            v = means.loc[(name, k)]
            cells.append(f"{v.mean():.3f} [{v.min():.2f},{v.max():.2f}]")
        print(f"{name:22s}" + "".join(f"{c:>21s}" for c in cells))

    print("\nPer system at k = 10, all topics (sorted by nDCG@10)")
    cols = {
        "nDCG": "nDCG",
        "DCG^UE V1": "DCG V1",
        "DCG^UE V2": "DCG V2",
        "DCG^UE V2 (pool=run)": "V2 run",
        "AP": "AP",
        "MSP^UE V1": "MSP V1",
        "MSP^UE V2": "MSP V2",
        "MSP^UE V2 (pool=run)": "V2 run ",
    }
    per_sys = pd.DataFrame({short: means.loc[(c, 10)] for c, short in cols.items()})
    per_sys = per_sys.sort_values("nDCG", ascending=False)
    print(per_sys.round(3).to_string())

    comparisons = [
        ("nDCG", "DCG^UE V1"),
        ("nDCG", "DCG^UE V2"),
        ("AP", "MSP^UE V1"),
        ("AP", "MSP^UE V2"),
        ("AP", "MSP^UE V1 (paper REB)"),
        ("AP", "MSP^UE V2 (paper REB)"),
        ("nDCG", "DCG^UE V2 (pool=run)"),
        ("AP", "MSP^UE V2 (pool=run)"),
    ]
    print("\nKendall's tau between system rankings (per k; 'avg' ranks by the mean over the five k)")
    head = "".join(f"{'@' + str(k):>7s}" for k in CUTOFFS)
    print(f"{'comparison':34s} {'topics':14s}{head}{'avg':>7s}")
    for orig, new in comparisons:
        for subset in ["all", "uninformative", "ideal"]:
            m = system_means(table, subsets[orig][subset])
            taus = [stats.kendalltau(m.loc[(orig, k)], m.loc[(new, k)]).statistic for k in CUTOFFS]
            avg_o = sum(m.loc[(orig, k)] for k in CUTOFFS)
            avg_n = sum(m.loc[(new, k)] for k in CUTOFFS)
            taus.append(stats.kendalltau(avg_o, avg_n).statistic)
            print(f"{orig + ' vs ' + new:34s} {subset:14s}" + "".join(f"{t:7.3f}" for t in taus))

    n_pairs = len(runs) * (len(runs) - 1) // 2 * len(CUTOFFS)
    print(f"\nPaired t-tests (p < 0.05) over {n_pairs} comparisons (system pairs x k)")
    print("cells: significant pairs / pairs where the UE measure and its base disagree")
    print(f"{'measure':24s}{'all':>15s}{'uninformative':>15s}{'ideal':>15s}")
    for orig, news in [("nDCG", ["DCG^UE V1", "DCG^UE V2"]), ("AP", ["MSP^UE V1", "MSP^UE V2"])]:
        sig = {
            (name, subset, k): significant_pairs(table, subsets[orig][subset], name, k)
            for name in [orig, *news]
            for subset in ["all", "uninformative", "ideal"]
            for k in CUTOFFS
        }
        for name in [orig, *news]:
            cells = []
            for subset in ["all", "uninformative", "ideal"]:
                count = sum(len(sig[(name, subset, k)]) for k in CUTOFFS)
                conflicts = sum(len(sig[(name, subset, k)] ^ sig[(orig, subset, k)]) for k in CUTOFFS)
                cells.append(f"{count} / {conflicts}")
            print(f"{name:24s}" + "".join(f"{c:>15s}" for c in cells))


if __name__ == "__main__":
    main()
