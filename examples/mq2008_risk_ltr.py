"""Risk-sensitive LambdaMART on LETOR 4.0 MQ2008, 5 folds: a Table-7-style comparison.

Trains RiskLambdaMART for every objective (LambdaMART, U-CRO, T-SARO, T-FARO, T*-FARO, GeoRisk)
and alpha in {0, 1, 5, 10, 20} on the five MQ2008 folds, with

* the single baseline: the BM25 (whole document) feature, as in the 2012/2014 papers;
* the multiple baselines: the 25 real systems of MQ2008-agg, aligned by document id (T*-FARO
  and GeoRisk train against them, as in Dinçer, Macdonald & Ounis, SIGIR 2016, §6).

Every test query of the five folds (784 queries) is scored once; the table reports NDCG@10
(gains 2^label - 1, as the objectives) and, against the BM25 feature and against the 25
systems (macro-averaged over the systems, as the bottom half of the 2016 paper's Table 7),
Risk, Reward, Reward/Risk, Wins, Losses, Win/Loss and Losses > 20%; plus GeoRisk and ZRisk of
the model among the 25 systems and URisk against their per-query mean (all at alpha_eval = 1).

    python examples/mq2008_risk_ltr.py              # the full grid (a few minutes on 2 cores)
    python examples/mq2008_risk_ltr.py --quick      # 1 fold, 2 alphas: a smoke test

Data: ``$PYTERRIER_RISK_DATA`` (default ``<repo>/../shared/data``), folders ``letor4-mq2008``
and ``letor4-mq2008-agg``.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import nDCG

from pyterrier_risk import RiskLambdaMART, georisk, risk_reward, zrisk
from pyterrier_risk.data import (
    BM25_FEATURE,
    MQ2008Fold,
    agg_baseline_scores,
    mq2008_fold,
    read_mq2008_agg,
    system_runs,
)
from pyterrier_risk.study import risk_objectives

DATA = Path(
    os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
KINDS = ["lambdarank", *risk_objectives()]  # plain LambdaMART, then every registered risk objective
ALPHAS = [0.0, 1.0, 5.0, 10.0, 20.0]
ALPHA_EVAL = 1.0
MEASURE = nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10  # LightGBM's label_gain 2^l - 1, like the objectives
LIGHTGBM = {
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 50,
    "num_threads": 1,  # OpenMP threads spin: on a shared 2-core machine 2 threads ran ~10x slower
    "seed": 1,
    "deterministic": True,
    "force_row_wise": True,
}


def per_query(run: pd.DataFrame, qrels: pd.DataFrame, qids: list[str]) -> pd.Series:
    """NDCG@10 of every query in ``qids``; a query the run does not cover scores 0."""
    run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    values = {m.query_id: m.value for m in ir_measures.iter_calc([MEASURE], qrels, run)}
    return pd.Series(values, dtype=float).reindex(qids).fillna(0.0)


def trec_qrels(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[["qid", "docno", "label"]].rename(
        columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    )


def with_systems(frame: pd.DataFrame, agg: pd.DataFrame) -> pd.DataFrame:
    """Candidates plus one score column per MQ2008-agg system (the multiple baselines)."""
    scores = agg_baseline_scores(frame, agg)
    columns = {f"ranker{j + 1:02d}": scores[:, j] for j in range(scores.shape[1])}
    return MQ2008Fold.candidates(frame).assign(**columns)


def run_grid(args: argparse.Namespace) -> tuple[dict, pd.Series, pd.DataFrame, pd.DataFrame, int]:
    agg = read_mq2008_agg(DATA / "letor4-mq2008-agg")
    systems = [c for c in agg.columns if c.startswith("ranker")]
    scores: dict[tuple[str, float], list[pd.Series]] = {}
    trees: dict[tuple[str, float], list[int]] = {}
    bm25_parts, system_parts, encoded_parts = [], [], []
    n_relevant = 0
    configs = [("lambdarank", 0.0)] + [(k, a) for k in KINDS[1:] for a in args.alphas]
    for fold_no in args.folds:
        fold = mq2008_fold(fold_no, DATA / "letor4-mq2008")
        train, valid, test = (with_systems(f, agg) for f in (fold.train, fold.valid, fold.test))
        qids = list(dict.fromkeys(fold.test["qid"]))
        qrels = trec_qrels(fold.test)
        n_relevant += fold.test.loc[fold.test["label"] > 0, "qid"].nunique()
        bm25 = test[["qid", "docno"]].assign(score=np.stack(test["features"].to_numpy())[:, BM25_FEATURE])
        bm25_parts.append(per_query(bm25, qrels, qids))
        runs = system_runs(agg, set(qids))
        system_parts.append(pd.DataFrame({s: per_query(runs[s], qrels, qids) for s in systems}))
        # the same systems as the objective sees them (every candidate scored; see _mq2008)
        encoded_parts.append(
            pd.DataFrame(
                {s: per_query(test[["qid", "docno"]].assign(score=test[s]), qrels, qids) for s in systems}
            )
        )
        started = time.perf_counter()
        for kind, alpha in configs:
            model = RiskLambdaMART(
                kind,
                alpha=alpha,
                baseline=BM25_FEATURE,
                baselines=systems,
                num_boost_round=args.rounds,
                early_stopping_rounds=args.patience if args.patience > 0 else None,
                verbose=False,
                **LIGHTGBM,
            )
            model.fit(train, MQ2008Fold.qrels(fold.train), valid, MQ2008Fold.qrels(fold.valid))
            out = model.transform(test)
            scores.setdefault((kind, alpha), []).append(per_query(out, qrels, qids))
            trees.setdefault((kind, alpha), []).append(model.best_iteration_)
        print(
            f"fold {fold_no}: {len(configs)} models in {time.perf_counter() - started:.1f} s "
            f"({len(fold.train)} training rows, {len(qids)} test queries)",
            flush=True,
        )
    return (
        {key: (pd.concat(parts), float(np.mean(trees[key]))) for key, parts in scores.items()},
        pd.concat(bm25_parts),
        pd.concat(system_parts),
        pd.concat(encoded_parts),
        n_relevant,
    )


def table(scores: dict, bm25: pd.Series, sys_matrix: pd.DataFrame) -> pd.DataFrame:
    rows = []
    from scipy.stats import ttest_rel

    mean_baseline = sys_matrix.mean(axis=1)
    plain = scores[("lambdarank", 0.0)][0]
    plain_loss = np.maximum(0.0, bm25 - plain.reindex(bm25.index))
    for (kind, alpha), (s, n_trees) in scores.items():
        single = risk_reward(s, bm25)
        multi = [risk_reward(s, sys_matrix[c]) for c in sys_matrix.columns]
        m_risk = np.mean([r.risk for r in multi])
        m_reward = np.mean([r.reward for r in multi])
        m_wins = np.mean([r.wins for r in multi])
        m_losses = np.mean([r.losses for r in multi])
        matrix = np.vstack([s.to_numpy(), sys_matrix.to_numpy().T])  # systems x topics, model first
        rows.append(
            {
                "kind": kind,
                "alpha": alpha,
                "trees": n_trees,
                "NDCG@10": s.mean(),
                "p(LM)": ttest_rel(s, plain.reindex(s.index)).pvalue if not s.equals(plain) else 1.0,
                "B:Risk": single.risk,
                "p(Rk)": ttest_rel(np.maximum(0.0, bm25 - s.reindex(bm25.index)), plain_loss).pvalue
                if not s.equals(plain)
                else 1.0,
                "B:Reward": single.reward,
                "B:Rw/Rk": single.reward / single.risk,
                "B:Wins": single.wins,
                "B:Losses": single.losses,
                "B:W/L": single.wins / single.losses,
                "B:L>20%": single.losses_gt20,
                "M:Risk": m_risk,
                "M:Reward": m_reward,
                "M:Rw/Rk": m_reward / m_risk,
                "M:Wins": m_wins,
                "M:Losses": m_losses,
                "M:W/L": m_wins / m_losses,
                "M:L>20%": np.mean([r.losses_gt20 for r in multi]),
                "GeoRisk": float(georisk(matrix, ALPHA_EVAL)[0]),
                "ZRisk": float(zrisk(matrix, ALPHA_EVAL)[0]),
                "URisk(mean)": risk_reward(s, mean_baseline, ALPHA_EVAL).urisk,
            }
        )
    return pd.DataFrame(rows)


def single_threaded() -> None:
    """One thread for the objective's numba kernels too (LightGBM gets ``num_threads=1``).

    Spinning worker threads on a shared 2-core machine made a 100-tree fit ~7x slower (10 s vs 1.4 s).
    """
    import numba

    numba.set_num_threads(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--alphas", type=float, nargs="+", default=ALPHAS)
    parser.add_argument("--rounds", type=int, default=300, help="maximum trees per model")
    parser.add_argument(
        "--patience", type=int, default=50, help="early stopping rounds on validation NDCG@10 (0: none)"
    )
    parser.add_argument("--quick", action="store_true", help="fold 1, alpha 0 and 5, 50 trees")
    parser.add_argument("--markdown", type=Path, help="also write the table as markdown to this file")
    args = parser.parse_args()
    single_threaded()
    if args.quick:
        args.folds, args.alphas, args.rounds = [1], [0.0, 5.0], 50
    print(
        f"MQ2008 folds {args.folds}, alphas {args.alphas}, <= {args.rounds} trees, early stopping "
        f"{args.patience}, LightGBM {LIGHTGBM}",
        flush=True,
    )
    started = time.perf_counter()
    scores, bm25, sys_matrix, encoded, n_relevant = run_grid(args)
    print(f"trained {len(args.folds) * len(scores)} models in {time.perf_counter() - started:.0f} s\n")
    print(
        f"{len(bm25)} test queries ({n_relevant} with a relevant document). "
        f"NDCG@10: BM25 feature {bm25.mean():.4f}; 25 systems mean {sys_matrix.to_numpy().mean():.4f} "
        f"(best {sys_matrix.mean().max():.4f}, worst {sys_matrix.mean().min():.4f}); the systems as the "
        f"objective sees them (unretrieved candidates appended): mean {encoded.to_numpy().mean():.4f}\n"
    )
    result = table(scores, bm25, sys_matrix)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 30)
    formats = {c: "{:.3f}".format for c in result.columns if result[c].dtype.kind == "f"}
    formats.update(
        {
            "NDCG@10": "{:.4f}".format,
            "GeoRisk": "{:.4f}".format,
            "URisk(mean)": "{:.4f}".format,
            "ZRisk": "{:.1f}".format,
            "M:Wins": "{:.1f}".format,
            "M:Losses": "{:.1f}".format,
            "M:L>20%": "{:.1f}".format,
            "alpha": "{:g}".format,
            "trees": "{:.0f}".format,
        }
    )
    print(
        "trees: mean over folds (early stopping); p(LM): paired t-test of NDCG@10 against LambdaMART; "
        "p(Rk): paired t-test of the per-query loss below BM25, max(0, BM25 - model), against LambdaMART's"
    )
    print("B: against the BM25 feature; M: against the 25 MQ2008-agg systems (mean over systems);")
    print(
        "GeoRisk/ZRisk: the model among the 25 systems, URisk(mean): vs their per-query mean; "
        f"alpha_eval={ALPHA_EVAL}"
    )
    print(result.to_string(index=False, formatters=formats))
    if args.markdown:
        shown = result.copy()
        for column, fmt in formats.items():
            shown[column] = shown[column].map(fmt)
        lines = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
        lines += ["| " + " | ".join(map(str, row)) + " |" for row in shown.itertuples(index=False)]
        args.markdown.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
