"""A learning study's results as frames (:func:`assemble`) and as files (:func:`write_study`).

The frames are built in the tasks' own order, never in the order they finished, so they are the same
whichever way the study ran. Every file is written under a temporary name, then ``os.replace``-d.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._learn_settings import REFERENCE, LearnSettings
from ._settings import StudyError

__all__ = ["assemble", "write_study"]

_KEYS = ["fold", "objective", "alpha", "seed"]

PER_QUERY_HEADER = ("# NDCG@10 per test query of each model and baseline (gains 2^label - 1, as the objectives "
                    "optimise; a query without a relevant document scores 0)")


def _ids(r: dict[str, Any], n: int) -> dict[str, Any]:
    return {"fold": [r["fold"]] * n, "objective": [r["objective"]] * n, "alpha": np.full(n, float(r["alpha"])),
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
        cols = {**_ids(r, n), "qid": np.asarray(r["qids"], dtype=object), "ndcg": np.asarray(r["ndcg"], float)}
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
    from ._learn import RiskStudyResult

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


def _atomic(path: Path, write: Callable[[Path], None]) -> Path:
    """Call ``write`` on a temporary name next to ``path``, then move it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        write(temp)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
    return path


def run_name(objective: str, alpha: float, seed: int) -> str:
    """A model's run name (file stem and TREC tag): ``urisk_a5_s1``; the reference ``lambdarank_a0_s1``."""
    return f"{objective}_a{alpha:g}_s{seed}"


def _csv(frame: pd.DataFrame, header: str | None = None) -> Callable[[Path], None]:
    def write(path: Path) -> None:
        with open(path, "w", encoding="utf-8", newline="") as fh:
            if header:
                fh.write(header + "\n")
            frame.to_csv(fh, index=False)

    return write


def _text(text: str) -> Callable[[Path], None]:
    return lambda path: path.write_text(text, encoding="utf-8")


def _tables_text(result: Any, fmt: str, decimals: int) -> dict[str, str]:
    """The learner table, the convergence table and the Kendall bins as text files."""
    from ..reporting import render_table
    from ._learn_tables import render_learner_table

    suffix = {"markdown": "md", "latex": "tex", "csv": "csv"}[fmt]
    floatfmt = f".{decimals}f"
    tables = result.tables()
    out = {f"table.{suffix}": render_learner_table(tables.learner, fmt, floatfmt=floatfmt)}
    if tables.convergence is not None:
        out[f"convergence.{suffix}"] = render_table(tables.convergence, fmt, floatfmt=floatfmt)
    if tables.kendall is not None:
        out[f"kendall_bins.{suffix}"] = render_table(tables.kendall, fmt, floatfmt=floatfmt)
    return out


def write_study(result: Any, out: Path, *, format: str = "markdown", decimals: int = 4) -> list[Path]:
    """Write a study's files into ``out`` (see :meth:`RiskStudyResult.write`)."""
    from .. import __version__
    from ..data import write_qrels, write_run

    if format not in ("markdown", "latex", "csv"):
        raise StudyError(f"format must be markdown, latex or csv, got {format!r}")
    written = [_atomic(out / "per_query.csv", _csv(result.per_query, PER_QUERY_HEADER))]
    for name in ("curves", "kendall", "models"):
        written.append(_atomic(out / f"{name}.csv", _csv(getattr(result, name))))
    for (objective, alpha, seed), run in result.runs.items():
        tag = run_name(objective, alpha, seed)
        written.append(_atomic(out / "runs" / f"{tag}.run", lambda p, r=run, t=tag: write_run(r, p, t)))
    for name, run in result.baseline_runs.items():
        written.append(_atomic(out / "runs" / f"{name}.run", lambda p, r=run, t=name: write_run(r, p, t)))
    written.append(_atomic(out / "qrels.txt", lambda p: write_qrels(result.qrels, p)))
    for name, text in _tables_text(result, format, decimals).items():
        written.append(_atomic(out / name, _text(text)))
    if result.single is not None:
        written.append(_atomic(out / "risk_gain.png", lambda p: result.plot(p)))
    settings = {**result.settings.describe(), "version": __version__, "measure": "NDCG@10, gains 2^label - 1"}
    written.append(_atomic(out / "settings.json", _text(json.dumps(settings, indent=2, default=str) + "\n")))
    return written

