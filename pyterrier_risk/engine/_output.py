"""A learning study's task results as the frames of its :class:`RiskStudyResult` (:func:`assemble`).

The frames are built in the tasks' own order, never in the order they finished, so they are the same
whichever way the study ran.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._errors import StudyError
from ._settings import REFERENCE, LearnSettings
from ._task import ReferenceResult, TaskResult

__all__ = ["assemble"]

_KEYS = ["fold", "objective", "alpha", "seed"]


def _ids(r: TaskResult, n: int) -> dict[str, Any]:
    return {"fold": [r.fold] * n, "objective": [r.objective] * n, "alpha": np.full(n, float(r.alpha)),
            "seed": np.full(n, int(r.seed), dtype=np.int64)}


def _references(results: Sequence[TaskResult]) -> dict[str, ReferenceResult]:
    """Fold -> its baselines and labels (from the fold's first reference task)."""
    out: dict[str, ReferenceResult] = {}
    for r in results:
        if r.objective == REFERENCE and r.reference is not None and r.fold not in out:
            out[r.fold] = r.reference
    return out


def _per_query(results: Sequence[TaskResult], names: Sequence[str]) -> pd.DataFrame:
    references = _references(results)
    frames = []
    for r in results:
        n = len(r.qids)
        cols = {**_ids(r, n), "qid": np.asarray(r.qids, dtype=object), "ndcg": np.asarray(r.ndcg, float)}
        cols.update({f"base:{b}": references[r.fold].bases[b] for b in names})
        frames.append(pd.DataFrame(cols))
    frame = pd.concat(frames, ignore_index=True)
    repeated = frame.duplicated([*_KEYS[1:], "qid"])
    if repeated.any():
        row = frame[repeated].iloc[0]
        raise StudyError(f"query {row['qid']!r} is a test query of more than one fold (e.g. {row['fold']}): "
                         "each query must be tested once")
    return frame


def _curves(results: Sequence[TaskResult]) -> pd.DataFrame:
    frames = [pd.DataFrame({**_ids(r, len(r.curve)), "round": np.arange(1, len(r.curve) + 1),
                            "vali_ndcg": np.asarray(r.curve, float)}) for r in results]
    return pd.concat(frames, ignore_index=True).dropna(subset=["vali_ndcg"]).reset_index(drop=True)


def _kendall(results: Sequence[TaskResult]) -> pd.DataFrame:
    frames = [pd.DataFrame({**_ids(r, len(r.qids)), "qid": np.asarray(r.qids, dtype=object),
                            "distance": np.asarray(r.kendall, float)})
              for r in results if r.kendall is not None]  # fmt: skip
    if not frames:
        return pd.DataFrame({c: [] for c in [*_KEYS, "qid", "distance"]})
    return pd.concat(frames, ignore_index=True)


def _runs(results: Sequence[TaskResult]) -> dict[tuple[str, float, int], pd.DataFrame]:
    """(objective, α, seed) -> its models' test rankings, fold after fold."""
    grouped: dict[tuple[str, float, int], list[pd.DataFrame]] = {}
    for r in results:
        grouped.setdefault((r.objective, float(r.alpha), int(r.seed)), []).append(r.run)
    return {k: pd.concat(v, ignore_index=True) for k, v in grouped.items()}


def _row(r: TaskResult, **values: Any) -> dict[str, Any]:
    """The task's identity (``fold, objective, alpha, seed``) and ``values``: one row of a frame."""
    return {"fold": r.fold, "objective": r.objective, "alpha": r.alpha, "seed": r.seed, **values}


def assemble(settings: LearnSettings, tasks: Sequence[Any], results: Sequence[TaskResult]) -> Any:
    """The :class:`RiskStudyResult` of the tasks' results (in the tasks' order)."""
    from ._result import RiskStudyResult

    names = [b.name for b in settings.all_baselines()]
    models = pd.DataFrame([_row(r, sha256=r.sha256, best_iteration=r.best_iteration) for r in results])
    resources = pd.DataFrame([_row(r, seconds=r.seconds, peak_rss_mb=r.peak_rss_mb) for r in results])
    references = list(_references(results).values())
    base_runs = pd.concat([ref.base_runs for ref in references], ignore_index=True)
    return RiskStudyResult(
        settings=settings, per_query=_per_query(results, names), curves=_curves(results),
        kendall=_kendall(results), models=models, resources=resources, runs=_runs(results),
        baseline_runs={n: base_runs[["qid", "docno", f"base:{n}"]].rename(columns={f"base:{n}": "score"})
                       for n in names},
        qrels=pd.concat([ref.qrels for ref in references], ignore_index=True),
    )  # fmt: skip


