"""A user-defined risk-sensitive objective (CVaR-style) on LETOR 4.0 MQ2008 fold 1, beside the built-ins.

The objective is defined and registered in this file's module-level code (docs/custom_objective.md
builds it step by step): at every boosting round the worst fraction ``q`` of the active training
queries, by the model's NDCG@10 minus the baseline's, get their LambdaMART gradients weighted by
``1 + alpha``, the other queries by 1. It is modelled on CVaR, the mean loss in the worst tail
(Rockafellar & Uryasev, Journal of Risk 2000), as an illustration of the extension point: it is not
a published learning-to-rank objective.

Three models are trained on fold 1 with the BM25 (whole document) feature as the baseline:
LambdaMART (``'lambdarank'``), U-CRO (``'urisk'``, Wang et al. 2012) and this ``'cvar'``, both at
alpha = 5, with the same LightGBM settings and early stopping on the validation fold. The table
gives, on the 156 test queries: mean NDCG@10, URisk against the BM25 feature at alpha_eval = 1 and 5,
the queries each model hurts (NDCG@10 below BM25's) and a paired t-test of NDCG@10 against
LambdaMART. One fold and one seed, early stopping on one validation fold (it keeps few trees on
fold 1): the example shows that a registered objective trains and is evaluated like a built-in, not
that CVaR beats the others; read any difference with its p-value.

    python examples/cvar_objective.py            # up to 300 trees, early stopping after 50
    python examples/cvar_objective.py --quick    # up to 50 trees: a smoke test (under a minute)

Data: ``$PYTERRIER_RISK_DATA`` (default ``<repo>/../shared/data``), folder ``letor4-mq2008``.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
from ir_measures import nDCG
from scipy.stats import ttest_rel

import pyterrier_risk as ptr
from pyterrier_risk.data import BM25_FEATURE, MQ2008Fold, mq2008_fold
from pyterrier_risk.reporting import render_table

DATA = Path(
    os.environ.get("PYTERRIER_RISK_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)
MEASURE = nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10  # LightGBM's label_gain 2^l - 1, like the objectives
LIGHTGBM = {
    "learning_rate": 0.05,
    "num_leaves": 15,
    "min_data_in_leaf": 50,
    "num_threads": 1,  # OpenMP threads spin: on a shared 2-core machine more threads ran slower
    "seed": 1,
    "deterministic": True,
    "force_row_wise": True,
}


def fraction(value: object) -> float:
    """``q`` checked: a number in (0, 1]."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"q must be a number in (0, 1], got {value!r}")
    if not 0 < value <= 1:  # NaN fails this test too
        raise ValueError(f"q must be a number in (0, 1], got {value!r}")
    return float(value)


@ptr.register_objective
class CVaR(ptr.Objective):
    """The worst ``q`` of the active queries against the baseline weigh ``1 + alpha``, the others 1."""

    name = "cvar"
    label = "CVaR"
    baseline = "single"
    citation = "Rockafellar & Uryasev, J. Risk 2000 (CVaR); an illustration, not a published LTR objective"
    options = (ptr.Option("q", 0.2, "the fraction of active queries weighted 1 + alpha", check=fraction),)

    def weights(self, r: ptr.Round) -> np.ndarray:
        """``1 + alpha`` for the ``⌈q·n_active⌉`` active queries with the lowest model − baseline NDCG."""
        w = np.ones(len(r.model))
        active = np.flatnonzero(r.active)
        if len(active) == 0:
            return w
        k = max(1, math.ceil(round(self.q * len(active), 9)))  # round: 0.1 * 30 is 3.0000000000000004
        worst = active[np.argsort(r.model[active] - r.baseline[active], kind="stable")[:k]]
        w[worst] = 1.0 + r.alpha
        return w


def per_query(run: pd.DataFrame, qrels: pd.DataFrame, qids: list[str]) -> pd.Series:
    """NDCG@10 of every query in ``qids``; a query the run does not cover scores 0."""
    run = run.rename(columns={"qid": "query_id", "docno": "doc_id"})[["query_id", "doc_id", "score"]]
    values = {m.query_id: m.value for m in ir_measures.iter_calc([MEASURE], qrels, run)}
    return pd.Series(values, dtype=float).reindex(qids).fillna(0.0)


def train_and_score(args: argparse.Namespace) -> tuple[dict[str, tuple[pd.Series, int]], pd.Series]:
    """Per-query test NDCG@10 (and the number of trees) of each model; the BM25 feature's."""
    fold = mq2008_fold(1, DATA / "letor4-mq2008")
    qids = list(dict.fromkeys(fold.test["qid"]))
    qrels = fold.test[["qid", "docno", "label"]].rename(
        columns={"qid": "query_id", "docno": "doc_id", "label": "relevance"}
    )
    features = np.stack(fold.test["features"].to_numpy())
    bm25 = fold.test[["qid", "docno"]].assign(score=features[:, BM25_FEATURE])
    models = {
        "lambdarank": ("lambdarank", 0.0, None),
        "urisk": ("urisk", args.alpha, None),
        "cvar": ("cvar", args.alpha, {"q": args.q}),
    }
    scores = {}
    for label, (kind, alpha, options) in models.items():
        started = time.perf_counter()
        model = ptr.RiskLambdaMART(
            kind, alpha=alpha, baseline=BM25_FEATURE, objective_params=options, num_boost_round=args.rounds,
            early_stopping_rounds=args.patience or None, verbose=False, **LIGHTGBM,
        )  # fmt: skip
        model.fit(fold.train, MQ2008Fold.qrels(fold.train), fold.valid, MQ2008Fold.qrels(fold.valid))
        scores[label] = (per_query(model.transform(fold.test), qrels, qids), model.best_iteration_)
        print(f"{model!r}: {model.best_iteration_} trees, {time.perf_counter() - started:.1f} s", flush=True)
    return scores, per_query(bm25, qrels, qids)


def table(scores: dict[str, tuple[pd.Series, int]], bm25: pd.Series, alpha: float) -> pd.DataFrame:
    """One row per model: NDCG@10, URisk vs BM25, queries hurt, the t-test against LambdaMART."""
    plain = scores["lambdarank"][0]
    rows = []
    for label, (s, trees) in scores.items():
        same = s.equals(plain)
        rows.append({
            "model": label,
            "alpha": "0" if label == "lambdarank" else f"{alpha:g}",
            "trees": trees,
            "NDCG@10": s.mean(),
            "URisk(1)": ptr.risk_reward(s, bm25, 1.0).urisk,
            f"URisk({alpha:g})": ptr.risk_reward(s, bm25, alpha).urisk,
            "hurt": int((s < bm25).sum()),
            "helped": int((s > bm25).sum()),
            "p vs LambdaMART": 1.0 if same else float(ttest_rel(s, plain).pvalue),
        })  # fmt: skip
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alpha", type=float, default=5.0, help="risk sensitivity of 'urisk' and 'cvar'")
    parser.add_argument("--q", type=float, default=CVaR.options[0].default, help="CVaR's fraction of queries")
    parser.add_argument("--rounds", type=int, default=300, help="maximum trees per model")
    parser.add_argument("--patience", type=int, default=50, help="early stopping rounds (0: none)")
    parser.add_argument("--quick", action="store_true", help="at most 50 trees")
    args = parser.parse_args()
    import numba

    numba.set_num_threads(1)  # the objective's kernels on one thread too (LightGBM gets num_threads=1)
    if args.quick:
        args.rounds = 50
    scores, bm25 = train_and_score(args)
    result = table(scores, bm25, args.alpha)
    print(f"\nMQ2008 fold 1, {len(bm25)} test queries; BM25 feature NDCG@10 {bm25.mean():.4f}")
    print(render_table(result, "markdown", floatfmt=".4f"))
    significant = [r.model for r in result.itertuples() if r.model != "lambdarank" and r[-1] < 0.05]
    print(
        "hurt/helped: test queries with NDCG@10 below/above the BM25 feature's; p: paired t-test of "
        "per-query NDCG@10 against LambdaMART. Differences from LambdaMART with p < 0.05: "
        f"{', '.join(significant) if significant else 'none'} (one fold, one seed)."
    )


if __name__ == "__main__":
    main()
