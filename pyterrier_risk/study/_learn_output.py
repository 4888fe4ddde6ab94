"""A learning study's task results as the frames of its :class:`RiskStudyResult` (:func:`assemble`).

The frames are built in the tasks' own order, never in the order they finished, so they are the same
whichever way the study ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._learn_settings import REFERENCE, LearnSettings
from ._settings import StudyError

__all__ = ["assemble"]

_KEYS = ["fold", "objective", "alpha", "seed"]


def _ids(r: dict[str, Any], n: int) -> dict[str, Any]:
    return {"fold": [r["fold"]] * n, "objective": [r["objective"]] * n,
            "alpha": np.full(n, float(r["alpha"])),
            "seed": np.full(n, int(r["seed"]), dtype=np.int64)}


def _bases(results: Sequence[dict[str, Any]]) -> dict[str, dict[str, np.ndarray]]:
    """Fold -> baseline name -> per-query NDCG@10 (from the fold's first reference task)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for r in results:
        if r["objective"] == REFERENCE and r["fold"] not in out:
            out[r["fold"]] = r["bases"]
    return out


def _per_query(results: Sequence[dict[str, Any]], names: Sequence[str]) -> pd.DataFrame:
    bases = _bases(results)
    frames = []
    for r in results:
        n = len(r["qids"])
        cols = {**_ids(r, n), "qid": np.asarray(r["qids"], dtype=object),
                "ndcg": np.asarray(r["ndcg"], float)}
        cols.update({f"base:{b}": bases[r["fold"]][b] for b in names})
        frames.append(pd.DataFrame(cols))
    frame = pd.concat(frames, ignore_index=True)
    repeated = frame.duplicated([*_KEYS[1:], "qid"])
    if repeated.any():
        row = frame[repeated].iloc[0]
        raise StudyError(f"query {row['qid']!r} is a test query of more than one fold (e.g. {row['fold']}): "
                         "each query must be tested once")
    return frame


def _curves(results: Sequence[dict[str, Any]]) -> pd.DataFrame:
    frames = [pd.DataFrame({**_ids(r, len(r["curve"])), "round": np.arange(1, len(r["curve"]) + 1),
                            "vali_ndcg": np.asarray(r["curve"], float)}) for r in results]
    return pd.concat(frames, ignore_index=True).dropna(subset=["vali_ndcg"]).reset_index(drop=True)


def _kendall(results: Sequence[dict[str, Any]]) -> pd.DataFrame:
    frames = [pd.DataFrame({**_ids(r, len(r["qids"])), "qid": np.asarray(r["qids"], dtype=object),
                            "distance": np.asarray(r["kendall"], float)})
              for r in results if r["kendall"] is not None]  # fmt: skip
    if not frames:
        return pd.DataFrame({c: [] for c in [*_KEYS, "qid", "distance"]})
    return pd.concat(frames, ignore_index=True)


def _runs(results: Sequence[dict[str, Any]]) -> dict[tuple[str, float, int], pd.DataFrame]:
    """(objective, α, seed) -> its models' test rankings, fold after fold."""
    grouped: dict[tuple[str, float, int], list[pd.DataFrame]] = {}
    for r in results:
        grouped.setdefault((r["objective"], float(r["alpha"]), int(r["seed"])), []).append(r["run"])
    return {k: pd.concat(v, ignore_index=True) for k, v in grouped.items()}


def _reference_frames(results: Sequence[dict[str, Any]], key: str) -> pd.DataFrame:
    """The folds' ``key`` frames (``qrels`` or ``base_runs``) from each fold's first reference task."""
    seen, frames = set(), []
    for r in results:
        if r["objective"] == REFERENCE and r["fold"] not in seen:
            seen.add(r["fold"])
            frames.append(r[key])
    return pd.concat(frames, ignore_index=True)


def assemble(settings: LearnSettings, tasks: Sequence[Any], results: Sequence[dict[str, Any]]) -> Any:
    """The :class:`RiskStudyResult` of the tasks' results (in the tasks' order)."""
    from ._learn_result import RiskStudyResult

    names = [b.name for b in settings.all_baselines()]
    models = pd.DataFrame([{**{k: r[k] for k in _KEYS}, "sha256": r["sha256"],
                            "best_iteration": r["best_iteration"]} for r in results])  # fmt: skip
    resources = pd.DataFrame([{**{k: r[k] for k in _KEYS}, "seconds": r["seconds"],
                               "peak_rss_mb": r["peak_rss_mb"]} for r in results])  # fmt: skip
    base_runs = _reference_frames(results, "base_runs")
    return RiskStudyResult(
        settings=settings, per_query=_per_query(results, names), curves=_curves(results),
        kendall=_kendall(results), models=models, resources=resources, runs=_runs(results),
        baseline_runs={n: base_runs[["qid", "docno", f"base:{n}"]].rename(columns={f"base:{n}": "score"})
                       for n in names},
        qrels=_reference_frames(results, "qrels"),
    )  # fmt: skip


