"""Cross-validated re-ranking over topics.

Every topic is scored by a :class:`~pyterrier_risk.RiskLambdaMART` that never saw it, and the first
stage's ranking follows below the re-ranked top documents.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..learning import RiskLambdaMART, get_objective
from ._collection import system_score_features
from ._settings import TREE_PARAMS, Reranker


def with_tail(reranked: pd.DataFrame, first_stage: pd.DataFrame, depth: int) -> pd.DataFrame:
    """Append the first stage's ranking below the re-ranked top ``depth`` (the usual re-ranking setup).

    The tail keeps its order and is scored below every re-ranked document of its query
    (``min re-ranked score − 1 − 0.001·(rank − depth)``), so every run of the study has the same depth
    and depth-dependent measures (AP@100, UE over the run's pool) compare like with like.
    """
    tail = first_stage[first_stage["rank"] >= depth][["qid", "query", "docno", "rank"]]
    floor = reranked.groupby("qid")["score"].min()
    tail = tail.assign(score=tail["qid"].map(floor).to_numpy() - 1.0 - 0.001 * (tail["rank"] - depth))
    tail = tail[tail["score"].notna()]
    out = pd.concat([reranked.drop(columns=["features"], errors="ignore"), tail], ignore_index=True)
    out = out.sort_values(["qid", "score"], ascending=[True, False], kind="stable").reset_index(drop=True)
    out["rank"] = out.groupby("qid", sort=False).cumcount()
    return out


def topic_folds(qids: Sequence[str], k: int, seed: int) -> list[np.ndarray]:
    """Split the topics into ``k`` folds of (almost) equal size, shuffled with ``seed``."""
    qids = np.array(sorted(set(qids), key=lambda q: (len(q), q)))
    rng = np.random.default_rng(seed)
    rng.shuffle(qids)
    return [np.sort(f) for f in np.array_split(qids, k)]


def make_model(spec: Reranker, n_systems: int, num_boost_round: int, seed: int) -> Any:
    """The :class:`~pyterrier_risk.RiskLambdaMART` of ``spec``, at the learner's objective defaults.

    An objective with a single baseline (U-CRO, T-SARO, T-FARO: ``get_objective(name).baseline ==
    'single'``) is trained against the candidates' first-stage score (BM25); one with multiple baselines
    (GeoRisk, T*-FARO) against every PISA system's score of the same candidates. The model has a
    fixed number of trees (no early stopping: with ~20–40 validation topics the stopping point is noise).
    """
    kind = get_objective(spec.objective).baseline
    if kind == "none":
        kwargs: dict[str, Any] = {}
    elif kind == "single":
        kwargs = {"baseline": "score"}
    else:
        kwargs = {"baselines": system_score_features(n_systems)}
    return RiskLambdaMART(spec.objective, alpha=spec.alpha, cutoff=10, num_boost_round=num_boost_round,
                          verbose=False, seed=seed, **kwargs, **TREE_PARAMS)


def cross_validated_rerank(cand: pd.DataFrame, qrels: pd.DataFrame, rerankers: Sequence[Reranker], *,
                           n_systems: int, folds: int, seed: int, num_boost_round: int,
                           log: Callable[[str], None] = print) -> dict[str, pd.DataFrame]:
    """Re-rank ``cand`` with every re-ranker by k-fold cross-validation over topics.

    Fold ``f`` (:func:`topic_folds` with ``seed``) is scored by models trained on all other folds.

    Returns:
        re-ranker name -> result frame over all topics (each topic scored by a model that did not see it).
    """
    parts = topic_folds(cand["qid"].unique(), folds, seed)
    out: dict[str, list[pd.DataFrame]] = {r.name: [] for r in rerankers}
    for f, test in enumerate(parts):
        t0 = time.perf_counter()
        train = cand[~cand["qid"].isin(test)]
        qrels_train = qrels[qrels["qid"].isin(set(train["qid"]))]
        trees = []
        for spec in rerankers:
            model = make_model(spec, n_systems, num_boost_round, seed).fit(train, qrels_train)
            out[spec.name].append(model.transform(cand[cand["qid"].isin(test)]))
            trees.append(model.best_iteration_)
        log(f"  fold {f + 1}/{folds}: {_models_text(trees)} on {train['qid'].nunique()} topics "
            f"({time.perf_counter() - t0:.1f}s)")
    return {name: pd.concat(v, ignore_index=True) for name, v in out.items()}


def _models_text(trees: Sequence[int]) -> str:
    """``"7 models of 50 trees"``, or ``"7 models of 12–50 trees"`` when their sizes differ."""
    lo, hi = min(trees), max(trees)
    size = f"{lo}" if lo == hi else f"{lo}–{hi}"
    return f"{len(trees)} model{'s' if len(trees) != 1 else ''} of {size} tree{'s' if hi != 1 else ''}"
