"""Does a larger α keep U-CRO closer to its baseline, and converge faster? (Wang et al. 2012, §5.8-5.9)

Trains U-CRO (``RiskLambdaMART('urisk')``, baseline = the BM25 feature of LETOR 4.0 MQ2008) at several
α with the same seed and LightGBM parameters on each fold with ``ptr.risk_study`` (the engine of
``pyterrier-risk learn``: every core, resumable), recording the validation curve (no early stopping:
every model gets ``--rounds`` trees), and asks two questions of the 2012 paper:

* §5.9, how far: each test query's documents ranked by the model and by the BM25 feature,
  ``ptr.rank_distance`` per query (normalised Kendall distance) and its 10-bin distribution per α
  (``ptr.rank_distance_bins``; the paper, Location data: 85% of queries in bin 0 at α = 9, 42% at α = 1).
  Trend tests over the queries (each query's distance averaged over the seeds): Page's test of an
  ordered decrease with α (blocks = queries), the paired Wilcoxon signed-rank test of the two α
  named by ``--pair`` (default 1 vs 10), and the mean over queries of Spearman's ρ between α and distance.
* §5.8, how fast: from each model's validation curve (``RiskLambdaMART.evals_result_``, NDCG@10 after
  each round), ``ptr.rounds_to_reach`` per α: the rounds to reach 95% of the final validation
  NDCG@10 (the paper, Location data: α = 5 in 10.2 rounds, α = 0 in 41.5), to reach a validation
  NDCG@10 that every α of the fold and seed reaches (the paper, MSLR: 0.42 in 25.4 vs 33.4 rounds),
  and to reach the best value. Paired Wilcoxon tests over the fold x seed models of each α against α = 0.

The curve is the mean NDCG@10 (gains 2^label - 1) over the validation queries with a relevant
document (LightGBM scores the others 1; the study takes them out of its curves).

    python examples/mq2008_alpha_study.py --quick     # fold 1, seed 1, 30 trees (< 1 minute)
    python examples/mq2008_alpha_study.py             # 5 folds x 3 seeds, alpha 0 1 5 10, 100 trees
    python examples/mq2008_alpha_study.py --plots figures   # also the two figures

Writes ``--out`` (per-query distances, CSV), and next to it ``_curves`` (the validation curves) and
``_convergence`` (the rounds per model); with ``--runs`` also ``_runs`` and ``_bm25`` (the test rankings).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

import pyterrier_risk as ptr
from pyterrier_risk.data import BM25_FEATURE

DATA = Path(
    os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
# as examples/mq2008_risk_study.py; the study sets num_threads=1, deterministic and force_row_wise
LIGHTGBM = {"learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 50, "feature_fraction": 0.8}
FRACTION = 0.95


def train(args: argparse.Namespace) -> tuple[list[dict], pd.DataFrame, pd.DataFrame]:
    """U-CRO at every α > 0 and LambdaMART (α = 0: the same model) on every fold and seed.

    With ``ptr.risk_study`` (every core; ``<out>_study/`` keeps the finished models for a rerun).
    Returns the validation curves, the test rankings (with fold, seed, alpha) and the BM25 ranking.
    """
    data = DATA / "letor4-mq2008"
    if args.quick:  # LETOR's Fold1 folder alone: fold 1 (train S1-S3, validation S4, test S5)
        data = Path(tempfile.mkdtemp()) / "mq2008-fold1"
        data.mkdir()
        (data / "Fold1").symlink_to(DATA / "letor4-mq2008" / "Fold1")
    result = ptr.risk_study(
        data, baseline=BM25_FEATURE + 1, objectives=["urisk"], alphas=[a for a in args.alphas if a > 0],
        seeds=args.seeds, rounds=args.rounds, early_stopping=None, params=LIGHTGBM, progress=False,
        folds=1 if args.quick else None, out=args.out.with_name(args.out.stem + "_study"),
    )  # fmt: skip
    groups = result.curves.groupby(["fold", "alpha", "seed"], sort=False)
    curves = [{"fold": fold, "seed": seed, "alpha": alpha, "curve": g["vali_ndcg"].to_numpy()}
              for (fold, alpha, seed), g in groups]  # rows in round order
    runs = [run.assign(seed=seed, alpha=alpha) for (_, alpha, seed), run in result.runs.items()]
    return curves, pd.concat(runs, ignore_index=True), result.baseline_runs[f"F{BM25_FEATURE + 1}"]


def pooled(frame: pd.DataFrame) -> pd.DataFrame:
    """A run whose topics are (seed, query): each seed's ranking of a query is one topic."""
    return frame.assign(qid=frame["seed"].astype(str) + ":" + frame["qid"].astype(str))[
        ["qid", "docno", "score"]
    ]


def distances(runs: pd.DataFrame, bm25: pd.DataFrame, seeds: list[int]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-query distances (rows: seed:qid, columns: α) and the bins per α (``ptr.rank_distance_bins``)."""
    base = pooled(pd.concat([bm25.assign(seed=s) for s in seeds]))
    by_alpha = {a: pooled(r) for a, r in runs.groupby("alpha", sort=True)}
    table = pd.DataFrame({a: ptr.rank_distance(r, base) for a, r in by_alpha.items()})
    bins = ptr.rank_distance_bins({f"alpha={a:g}": r for a, r in by_alpha.items()}, base)
    return table, bins


def trend_tests(table: pd.DataFrame, pair: tuple[float, float]) -> dict[str, float]:
    """Does the distance fall as α grows? Over queries (distances averaged over the seeds)."""
    per_query = table.groupby(table.index.str.split(":", n=1).str[1]).mean().dropna()
    alphas = np.array(per_query.columns, dtype=float)
    page = stats.page_trend_test(-per_query.to_numpy())  # ordered alternative: distance falls with α
    rho = [stats.spearmanr(alphas, row).statistic for row in per_query.to_numpy() if np.ptp(row) > 0]
    a, b = per_query[pair[0]], per_query[pair[1]]
    return {
        "queries": len(per_query),
        "page_L": float(page.statistic), "page_p": float(page.pvalue),
        "mean_spearman_rho": float(np.mean(rho)),
        f"mean_distance_alpha{pair[0]:g}": float(a.mean()),
        f"mean_distance_alpha{pair[1]:g}": float(b.mean()),
        "wilcoxon_p": float(stats.wilcoxon(a, b).pvalue) if (a != b).any() else 1.0,
        f"share_closer_at_alpha{pair[1]:g}": float((b < a).mean()),
    }  # fmt: skip


def convergence(curves: list[dict], alphas: list[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rounds each model needs on its validation curve, three ways (``ptr.rounds_to_reach``).

    ``rounds_95_final``: to 95% of its final value (the paper's Location data); ``rounds_common``: to
    the lowest final value among the α of the same fold and seed, a target every α reaches (the
    paper's MSLR comparison at a given NDCG@10); ``rounds_best``: to its best value (where early
    stopping would stop). Returns the per-model table and, per α, the means and Wilcoxon's paired
    p-value against α = 0 over the fold x seed models.
    """
    common = {}
    for c in curves:
        key = (c["fold"], c["seed"])
        common[key] = min(common.get(key, np.inf), c["curve"][-1])
    rows = []
    for c in curves:
        curve = c["curve"]
        rows.append({
            "fold": c["fold"], "seed": c["seed"], "alpha": c["alpha"], "first": curve[0], "final": curve[-1],
            "best": curve.max(), "rounds_95_final": ptr.rounds_to_reach(curve, fraction=FRACTION),
            "rounds_common": ptr.rounds_to_reach(curve, value=common[(c["fold"], c["seed"])]),
            "rounds_best": ptr.rounds_to_reach(curve, value=curve.max()),
        })  # fmt: skip
    models = pd.DataFrame(rows)
    measures = ["rounds_95_final", "rounds_common", "rounds_best"]
    wide = models.pivot_table(index=["fold", "seed"], columns="alpha", values=measures)
    summary = []
    for alpha in alphas:
        row = {"alpha": alpha, "models": int((models["alpha"] == alpha).sum())}
        row.update(models.loc[models["alpha"] == alpha, ["first", "final", "best"]].mean())
        for what in measures:
            x, x0 = wide[(what, alpha)], wide[(what, alphas[0])]
            row[what] = float(x.mean())
            row[f"p_{what}"] = float(stats.wilcoxon(x, x0).pvalue) if (x != x0).any() else 1.0
        summary.append(row)
    return models, pd.DataFrame(summary)


def plots(bins: pd.DataFrame, curves: list[dict], folder: Path) -> None:
    """The distance bins per α (``ptr.plot_rank_distance``) and the mean validation curve per α."""
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    short = bins.rename(index=lambda label: label.removeprefix("alpha=")).rename_axis("α")
    ptr.plot_rank_distance(short, path=folder / "rank_distance.png", title="Distance to BM25")
    fig, ax = plt.subplots(figsize=(6, 4))
    for alpha in sorted({c["alpha"] for c in curves}):
        mean = np.mean([c["curve"] for c in curves if c["alpha"] == alpha], axis=0)
        ax.plot(np.arange(1, len(mean) + 1), mean, label=f"α = {alpha:g}")
    ax.set(xlabel="boosting round", ylabel="validation NDCG@10 (mean over the models)",
           title="U-CRO on MQ2008: convergence per α")  # fmt: skip
    ax.legend()
    fig.savefig(folder / "convergence.png", dpi=120, bbox_inches="tight")
    plt.close(fig)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--alphas", type=float, nargs="+", default=[0.0, 1.0, 5.0, 10.0])
    ap.add_argument("--pair", type=float, nargs=2, default=[1.0, 10.0], help="the two α of the Wilcoxon test")
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="fold 1, seed 1, 30 trees: a smoke test")
    ap.add_argument("--out", type=Path, default=Path.cwd() / "mq2008_alpha_study.csv")
    ap.add_argument("--runs", action="store_true", help="also write the test rankings (--out with _runs)")
    ap.add_argument("--plots", type=Path, help="write rank_distance.png and convergence.png to this folder")
    args = ap.parse_args(argv)
    if args.quick:
        args.seeds, args.rounds = [1], 30
    args.alphas = sorted(set(args.alphas))
    if 0.0 not in args.alphas or not set(args.pair) <= set(args.alphas):
        ap.error("--alphas must include 0 (convergence is compared with it) and both --pair values")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    curves, runs, bm25 = train(args)
    table, bins = distances(runs, bm25, args.seeds)
    tests = trend_tests(table, tuple(args.pair))
    models, summary = convergence(curves, args.alphas)
    name = f"{len({c['fold'] for c in curves})} fold(s) x {len(args.seeds)} seed(s), {args.rounds} trees"
    print(
        f"\n## Distance to the BM25 ranking per alpha ({name}; rows: fraction of the seed x query rankings)\n"
    )
    print(bins.round(3).to_string())
    print("\n## Trend of the distance with alpha (queries; each query's distance averaged over the seeds)\n")
    print("\n".join(f"{k}: {v:.4g}" for k, v in tests.items()))
    print(
        f"\n## Convergence: validation NDCG@10, rounds to {FRACTION:.0%} "
        "(mean over models; p: Wilcoxon vs alpha 0)\n"
    )
    print(summary.round(4).to_string(index=False))
    long = (
        table.rename_axis("seed_qid").reset_index().melt("seed_qid", var_name="alpha", value_name="distance")
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    long.to_csv(args.out, index=False)
    curve_rows = [
        (c["fold"], c["seed"], c["alpha"], t + 1, v) for c in curves for t, v in enumerate(c["curve"])
    ]
    curves_out = args.out.with_name(f"{args.out.stem}_curves.csv")
    pd.DataFrame(curve_rows, columns=["fold", "seed", "alpha", "round", "ndcg"]).to_csv(
        curves_out, index=False
    )
    models.to_csv(args.out.with_name(f"{args.out.stem}_convergence.csv"), index=False)
    if args.runs:
        runs.to_csv(args.out.with_name(f"{args.out.stem}_runs.csv"), index=False)
        bm25.to_csv(args.out.with_name(f"{args.out.stem}_bm25.csv"), index=False)
    if args.plots:
        plots(bins, curves, args.plots)
    print(f"\nwrote {args.out} and {curves_out}")


if __name__ == "__main__":
    main()
