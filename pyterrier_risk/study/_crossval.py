"""Cross-validated re-ranking over topics.

Every topic is scored by a :class:`~pyterrier_risk.RiskLambdaMART` that never saw it, and the first
stage's ranking follows below the re-ranked top documents.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..learning import RiskLambdaMART, get_objective
from ._collection import system_score_features
from ._settings import TREE_PARAMS, Reranker, Study


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
    order = np.array(sorted(set(qids), key=lambda q: (len(q), q)))
    rng = np.random.default_rng(seed)
    rng.shuffle(order)
    return [np.sort(f) for f in np.array_split(order, k)]


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


def write_candidates(cand: pd.DataFrame, qrels: pd.DataFrame, path: Path) -> None:
    """The candidates as one LETOR file (``# docid = ...`` comments), written atomically.

    Labels come from ``qrels`` (an unjudged candidate is 0); feature ``i + 1`` is ``features[i]``, written
    with every digit. The queries are in :func:`topic_folds`' order, so that ``letor_folds(path,
    folds=k, seed=s)`` cuts them into the parts ``topic_folds(qids, k, s)`` gives.
    """
    from ..data import atomic_write

    judged = qrels.drop_duplicates(["qid", "docno"])[["qid", "docno", "label"]]
    rows = cand[["qid", "docno", "features"]].merge(judged, on=["qid", "docno"], how="left")
    order = {q: i for i, q in enumerate(sorted(set(rows["qid"]), key=lambda q: (len(q), q)))}
    rows = rows.iloc[np.argsort(rows["qid"].map(order).to_numpy(), kind="stable")]
    labels = rows["label"].fillna(0).astype(int).to_numpy()
    with atomic_write(path) as fh:
        for label, qid, docno, feats in zip(labels, rows["qid"], rows["docno"], rows["features"],
                                            strict=True):
            values = " ".join(f"{i}:{float(v)!r}" for i, v in enumerate(feats, start=1))
            fh.write(f"{label} qid:{qid} {values} # docid = {docno}\n")


def engine_rerank(cand: pd.DataFrame, qrels: pd.DataFrame, study: Study, *, n_systems: int, cache: Path,
                  out: Path, workers: int | None = None, progress: bool = True,
                  log: Callable[[str], None] = print) -> dict[str, pd.DataFrame]:
    """Re-rank ``cand`` with every re-ranker of ``study`` on the learning-study engine (:func:`risk_study`).

    The candidates go to ``cache/candidates.txt`` (:func:`write_candidates`); the study splits their
    topics into ``study.folds`` parts with ``study.seed`` (the parts of :func:`topic_folds`) and, per
    fold, trains on ``folds − 2`` parts, keeps one for validation (early stopping at the study's default
    patience, :data:`~pyterrier_risk.study.DEFAULT_EARLY_STOPPING`, with ``study.num_boost_round`` trees
    at most, as ``learn``) and scores the last, so every topic is scored by a model that never saw it.
    Ranks order tied scores by docno descending, as the evaluation (trec_eval) does. The tasks run on a
    process pool (``workers``; default every core) and are stored in ``out`` (a rerun skips them), with the
    study's own tables (:meth:`RiskStudyResult.write`). U-CRO's baseline is BM25's score (feature 1);
    GeoRisk's are every system's score (features 1, 3, ...). ``log``: a line per fold.

    Returns:
        re-ranker name -> result frame (``qid``, ``query``, ``docno``, ``score``, ``rank``) over all topics.
    """
    from ..engine import REFERENCE, risk_study

    cache.mkdir(parents=True, exist_ok=True)
    write_candidates(cand, qrels, cache / "candidates.txt")
    alphas = tuple(a for a in study.alphas if a > 0)
    objectives = study.objectives if alphas else ()
    if not objectives:  # LambdaMART only: the engine trains the reference alone
        alphas = ()
    fixed = ("num_threads", "deterministic", "force_row_wise")  # the engine sets these itself
    params = {k: v for k, v in TREE_PARAMS.items() if k not in fixed}
    result = risk_study(
        cache / "candidates.txt", folds=study.folds, split_seed=study.seed, baseline=1,
        baselines=[f + 1 for f in system_score_features(n_systems)], objectives=objectives,
        alphas=alphas or (0.0,), seeds=(study.seed,), rounds=study.num_boost_round, params=params,
        workers=workers, out=out, progress=progress)  # fmt: skip
    for fold, models in result.models.groupby("fold", sort=False):
        trees = models["best_iteration"].tolist()[: 1 + len(objectives) * len(alphas)]
        log(f"  {fold}: {_models_text(trees)} on {study.folds - 2} of {study.folds} parts of the topics")
    queries = cand[["qid", "query"]].drop_duplicates("qid")
    runs = {}
    for (objective, alpha, _seed), run in result.runs.items():
        if objective != REFERENCE and not objectives:
            continue
        res = run.merge(queries, on="qid", how="left")
        res = res.sort_values(["qid", "score", "docno"], ascending=[True, False, False],
                              kind="stable").reset_index(drop=True)
        runs[study.run_name(objective, alpha)] = res.assign(rank=res.groupby("qid", sort=False).cumcount())
    return runs
